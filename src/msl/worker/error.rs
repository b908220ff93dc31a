//! How a worker request fails ([`WorkerError`]), and the name errors give
//! the validator.

/// Names the validator in errors.
pub(crate) const VALIDATOR: &str = "the SPIR-V validator (SPIRV-Tools)";

pub use crate::model::error::WorkerError;
