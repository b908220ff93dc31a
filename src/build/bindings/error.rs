//! Why the bindings of a kernel cannot be generated ([`BindingsError`]).

/// Why the bindings of a kernel cannot be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("kernel `{kernel}` ({input}): cannot generate Rust bindings: {message}")]
pub struct BindingsError {
    /// The kernel.
    pub kernel: String,
    /// Its input.
    pub input: String,
    /// What cannot be represented.
    pub message: String,
}
