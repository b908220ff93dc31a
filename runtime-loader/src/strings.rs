//! The executable's strings: one UTF-8 text, `Executable.strings`, that
//! every `schema::Str` of the file points into.
//!
//! Loading checks the text's UTF-8 once and every `Str` against it (in range,
//! on character boundaries), instead of verifying each string of each kernel
//! as its own FlatBuffer vector: what makes a small kernel cheap to load.
//! Writers build the text with [`StringTable`], which stores each distinct
//! string once.

use std::collections::HashMap;

use crate::schema;

/// The text of a verified executable, for reading its `schema::Str`s.
#[derive(Debug, Clone, Copy, Default)]
pub struct Strings<'a> {
    text: &'a str,
}

impl<'a> Strings<'a> {
    /// The text of `exe`, checked as UTF-8: what an unverified reader calls.
    pub fn of(exe: schema::Executable<'a>) -> Result<Self, std::str::Utf8Error> {
        Ok(Strings {
            text: std::str::from_utf8(exe.strings().bytes())?,
        })
    }

    pub(crate) fn new(text: &'a str) -> Self {
        Strings { text }
    }

    /// The whole text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The string `s` points to: `None` when its bytes are outside the text
    /// or do not start and end on character boundaries (never, in a loaded
    /// executable).
    pub fn get(&self, s: &schema::Str) -> Option<&'a str> {
        let start = s.offset() as usize;
        self.text
            .get(start..start.checked_add(s.length() as usize)?)
    }

    /// The string `s` points to, in a loaded executable (whose every `Str`
    /// was checked): the empty string for one that does not resolve.
    pub(crate) fn str(&self, s: &schema::Str) -> &'a str {
        self.get(s).unwrap_or_default()
    }

    /// As [`Strings::str`], with the empty string read as `None`.
    pub(crate) fn non_empty(&self, s: &schema::Str) -> Option<&'a str> {
        Some(self.str(s)).filter(|s| !s.is_empty())
    }

    /// Why `s` does not resolve, `None` when it does.
    pub(crate) fn fault(&self, s: &schema::Str) -> Option<String> {
        let (start, len) = (u64::from(s.offset()), u64::from(s.length()));
        let end = start + len;
        if end > self.text.len() as u64 {
            return Some(format!(
                "bytes {start}..{end} are outside Executable.strings ({} bytes)",
                self.text.len()
            ));
        }
        self.get(s)
            .is_none()
            .then(|| format!("bytes {start}..{end} of Executable.strings split a UTF-8 character"))
    }
}

/// Builds `Executable.strings`: each distinct string stored once, in the
/// order first added, so the same strings added in the same order give the
/// same bytes.
#[derive(Debug, Default)]
pub struct StringTable {
    text: String,
    index: HashMap<String, schema::Str>,
}

impl StringTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The `Str` of `s`, adding it if it is new. The empty string is
    /// `Str { offset: 0, length: 0 }`.
    ///
    /// # Panics
    /// When the text would pass 4 GiB, which the FlatBuffer that holds it
    /// cannot (its builder stops at 2 GiB).
    pub fn add(&mut self, s: &str) -> schema::Str {
        if s.is_empty() {
            return schema::Str::new(0, 0);
        }
        if let Some(found) = self.index.get(s) {
            return *found;
        }
        let fit = |n: usize| u32::try_from(n).expect("executable strings over 4 GiB");
        let entry = schema::Str::new(fit(self.text.len()), fit(s.len()));
        fit(self.text.len() + s.len());
        self.text.push_str(s);
        self.index.insert(s.to_owned(), entry);
        entry
    }

    /// The text built so far: the bytes of `Executable.strings`.
    pub fn text(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_string_is_stored_once_and_resolves() {
        let mut t = StringTable::new();
        let a = t.add("main");
        let b = t.add("inBuf");
        let c = t.add("main");
        let e = t.add("");
        assert_eq!(t.text(), "maininBuf");
        assert_eq!((a.offset(), a.length()), (0, 4));
        assert_eq!((b.offset(), b.length()), (4, 5));
        assert_eq!(a, c);
        assert_eq!(e.length(), 0);
        let s = Strings::new(t.text());
        assert_eq!(s.get(&a), Some("main"));
        assert_eq!(s.get(&b), Some("inBuf"));
        assert_eq!(s.get(&e), Some(""));
        assert_eq!(s.fault(&b), None);
    }

    #[test]
    fn out_of_range_and_split_characters_do_not_resolve() {
        let s = Strings::new("añb");
        // "ñ" is bytes 1..3.
        assert_eq!(s.get(&schema::Str::new(1, 2)), Some("ñ"));
        let split = schema::Str::new(1, 1);
        assert_eq!(s.get(&split), None);
        assert_eq!(
            s.fault(&split).as_deref(),
            Some("bytes 1..2 of Executable.strings split a UTF-8 character")
        );
        let outside = schema::Str::new(3, 2);
        assert_eq!(s.get(&outside), None);
        assert_eq!(
            s.fault(&outside).as_deref(),
            Some("bytes 3..5 are outside Executable.strings (4 bytes)")
        );
        let wraps = schema::Str::new(u32::MAX, u32::MAX);
        assert_eq!(s.get(&wraps), None);
        assert!(s.fault(&wraps).unwrap().contains("outside"));
        assert_eq!(s.str(&wraps), "");
    }
}
