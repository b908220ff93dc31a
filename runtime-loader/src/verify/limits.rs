//! What verification is bounded by: the caller's [`VerifyLimits`] and the
//! limits of Metal's argument tables the format does not record.

use crate::schema;

/// Entries in Metal's sampler argument table. Not in the schema's
/// `MetalLimits` (the compiler does not enforce it); defined here only.
pub const MAX_SAMPLER_SLOTS: u32 = schema::MetalLimits::MaxSamplerSlots.0;

/// Limits for the verifier. The defaults accept anything `halc compile`
/// writes; lower them to bound the work done on untrusted input.
#[derive(Debug, Clone, Copy)]
pub struct VerifyLimits {
    /// Maximum table nesting depth.
    pub max_depth: usize,
    /// Maximum number of tables.
    pub max_tables: usize,
    /// Maximum input size in bytes.
    pub max_bytes: usize,
    /// Maximum `ArgumentBuffer.size`, and so the memory a dispatch plan
    /// allocates per argument buffer. The default (4 MiB) is above Metal's
    /// tier-2 limit of 500 000 buffers × 8 bytes per argument buffer.
    pub max_argument_buffer_bytes: u32,
}

impl Default for VerifyLimits {
    fn default() -> Self {
        VerifyLimits {
            max_depth: 16,
            max_tables: 1_000_000,
            max_bytes: 1 << 30,
            max_argument_buffer_bytes: 4 << 20,
        }
    }
}
