//! How a worker request fails ([`WorkerError`]), and the name errors give
//! the validator.

/// Names the validator in errors.
pub(crate) const VALIDATOR: &str = "the SPIR-V validator (SPIRV-Tools)";

/// Why a worker request failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// SPIRV-Cross reported an error.
    #[error("SPIRV-Cross: {0}")]
    Cross(String),
    /// The worker died.
    #[error("{0} crashed ({1}); the module was not compiled")]
    Crashed(&'static str, String),
    /// A request ran past the time limit; the worker was killed.
    #[error("{0} did not finish within the time limit of {1} s; the module was not compiled")]
    TimedOut(&'static str, u64),
    /// The worker could not be started or talked to.
    #[error("cannot run the SPIRV-Cross worker process: {0}")]
    Io(String),
}
