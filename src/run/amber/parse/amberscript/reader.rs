//! The AmberScript parser's state ([`AmberParser`]) and its reader: the
//! next line's tokens, raw blocks up to `END`, `FILE`s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::super::error::{err, ParseError};
use super::super::words::{continued, tokens};
use crate::run::amber::Script;

/// The largest buffer a script may declare: a script is untrusted input,
/// and a buffer is allocated and mapped before any test runs.
pub(crate) const MAX_BUFFER_BYTES: u64 = 1 << 30;

pub(in crate::run::amber::parse) struct AmberParser<'a> {
    pub(super) lines: Vec<&'a str>,
    pub(super) next: usize,
    pub(super) script: Script,
    /// Where `FILE`s are.
    pub(super) dir: PathBuf,
    /// `VIRTUAL_FILE`s by path.
    pub(super) virtual_files: BTreeMap<String, String>,
}

impl<'a> AmberParser<'a> {
    pub(in crate::run::amber::parse) fn new(text: &'a str, dir: &Path) -> Self {
        AmberParser {
            lines: text.lines().collect(),
            next: 0,
            script: Script::default(),
            dir: dir.to_path_buf(),
            virtual_files: BTreeMap::new(),
        }
    }

    /// The bytes of `FILE name`, relative to the script's directory.
    /// A script is untrusted: only a regular file is read (a device such
    /// as `/dev/zero` or a FIFO would never end), and at most
    /// [`MAX_BUFFER_BYTES`], the limit of the buffer it fills.
    pub(super) fn file(&self, line: usize, name: &str) -> Result<Vec<u8>, ParseError> {
        use std::io::Read;
        let path = self.dir.join(name);
        let fail = |why: String| {
            err(
                line,
                format!("cannot read FILE `{}`: {why}", path.display()),
            )
        };
        let meta = std::fs::metadata(&path).map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() {
            return Err(fail("not a regular file".into()));
        }
        let too_large = |bytes: u64| {
            fail(format!(
                "{bytes} bytes, past halc test's limit of {MAX_BUFFER_BYTES} bytes (1 GiB) per buffer"
            ))
        };
        if meta.len() > MAX_BUFFER_BYTES {
            return Err(too_large(meta.len()));
        }
        let mut data = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_BUFFER_BYTES + 1).read_to_end(&mut data))
            .map_err(|e| fail(e.to_string()))?;
        if data.len() as u64 > MAX_BUFFER_BYTES {
            return Err(too_large(data.len() as u64));
        }
        Ok(data)
    }

    /// The next line with tokens, as (1-based line, tokens). A line ending
    /// in `\\` goes on on the next line.
    pub(super) fn line(&mut self) -> Option<(usize, Vec<&'a str>)> {
        while self.next < self.lines.len() {
            let n = self.next;
            self.next += 1;
            let mut t = tokens(self.lines[n]);
            while continued(&mut t) && self.next < self.lines.len() {
                t.extend(tokens(self.lines[self.next]));
                self.next += 1;
            }
            if !t.is_empty() {
                return Some((n + 1, t));
            }
        }
        None
    }

    /// Raw lines up to a line whose first token is `END` (shader bodies:
    /// `#` is no comment there).
    pub(super) fn block(&mut self, start: usize, what: &str) -> Result<String, ParseError> {
        let mut body = String::new();
        while self.next < self.lines.len() {
            let l = self.lines[self.next];
            self.next += 1;
            if tokens(l).first() == Some(&"END") {
                return Ok(body);
            }
            body.push_str(l);
            body.push('\n');
        }
        Err(err(start, format!("{what} has no END")))
    }

    pub(in crate::run::amber::parse) fn script(mut self) -> Result<Script, ParseError> {
        let commands = self.commands(None)?;
        self.script.commands = commands;
        Ok(self.script)
    }

    pub(super) fn buffer_exists(&self, line: usize, name: &str) -> Result<(), ParseError> {
        if self.script.buffers.iter().any(|b| b.name == name) {
            Ok(())
        } else {
            Err(err(line, format!("unknown buffer `{name}`")))
        }
    }
}
