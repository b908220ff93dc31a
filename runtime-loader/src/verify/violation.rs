//! What verification reports: the first [`Violation`], naming the kernel
//! and the field.

use std::fmt;

use crate::schema;
use crate::strings::Strings;

/// A rule of the format that a field breaks: names the kernel (when the field
/// belongs to one) and the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Name of the kernel the field belongs to.
    pub kernel: Option<String>,
    /// Path of the field, e.g. `bindings[set 0, binding 2].byte_offset`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kernel {
            Some(k) => write!(f, "kernel `{k}`: {}: {}", self.field, self.message),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

impl std::error::Error for Violation {}

/// The string `s`, or the violation of `field` (of `kernel`) when it does
/// not resolve.
pub(super) fn text<'a>(
    strings: Strings<'a>,
    kernel: Option<&str>,
    field: impl FnOnce() -> String,
    s: &schema::Str,
) -> Result<&'a str, Violation> {
    match strings.get(s) {
        Some(t) => Ok(t),
        None => Err(Violation {
            kernel: kernel.map(str::to_owned),
            field: field(),
            message: strings.fault(s).unwrap_or_default(),
        }),
    }
}
