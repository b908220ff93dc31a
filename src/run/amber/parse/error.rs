//! Why a script cannot be used: [`ParseError`], malformed or outside the
//! compute subset, with the line.

/// Why a script cannot be used, with its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// The script is well formed but uses something outside halc's compute
    /// subset (a skip, not a failure).
    pub unsupported: bool,
}

pub(super) fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
        unsupported: false,
    }
}

pub(super) fn unsupported(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
        unsupported: true,
    }
}
