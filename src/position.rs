//! Positions in text files halc reads (binding maps, manifests, locks):
//! errors name `line:column`. It imports nothing of halc, so every layer may
//! use it.

/// Line and column (1-based) of byte offset `at` in `text`.
pub(crate) fn position(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// `(line, column, message)` of a TOML deserialisation error, its message
/// on one line.
pub(crate) fn error(text: &str, e: &toml::de::Error) -> (usize, usize, String) {
    let (line, column) = position(text, e.span().map_or(0, |s| s.start));
    (line, column, e.message().trim_end().replace('\n', "; "))
}
