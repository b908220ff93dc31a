//! What MSL generation takes and gives: the language version
//! ([`MslVersion`]), the generated source ([`GeneratedMsl`]), the math mode
//! and a precompiled library ([`Metallib`], built by
//! [`crate::msl::metallib`]).

use serde::{Deserialize, Serialize};

/// An MSL language version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MslVersion {
    /// Major.
    pub major: u16,
    /// Minor.
    pub minor: u16,
}

impl MslVersion {
    /// Oldest accepted (argument buffers need 2.0).
    pub const MIN: MslVersion = MslVersion { major: 2, minor: 0 };
    /// Newest accepted.
    pub const MAX: MslVersion = MslVersion { major: 3, minor: 2 };
    /// halc's default.
    pub const DEFAULT: MslVersion = MslVersion { major: 3, minor: 0 };
    /// Metal's texture atomics (macOS 14, iOS 17): below it halc emulates
    /// image atomics with a buffer (SPIRV-Cross's `<name>_atomic`).
    pub const TEXTURE_ATOMICS: MslVersion = MslVersion { major: 3, minor: 1 };
    /// Ray queries: `intersection_query` and the templated
    /// `acceleration_structure<instancing>` (macOS 12, iOS 15).
    pub const RAY_QUERIES: MslVersion = MslVersion { major: 2, minor: 4 };
}

impl Default for MslVersion {
    fn default() -> Self {
        MslVersion::DEFAULT
    }
}

impl std::fmt::Display for MslVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl std::str::FromStr for MslVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (a, b) = s.split_once('.').unwrap_or((s, "0"));
        let v = match (a.parse::<u16>(), b.parse::<u16>()) {
            (Ok(major), Ok(minor)) => MslVersion { major, minor },
            _ => return Err(format!("`{s}` is not an MSL version such as 3.0")),
        };
        let known = matches!((v.major, v.minor), (2, 0..=4) | (3, 0..=2));
        if !known {
            return Err(format!(
                "MSL {v} is not supported (halc accepts 2.0 to 2.4 and 3.0 to 3.2)"
            ));
        }
        Ok(v)
    }
}

/// Generated MSL for one entry point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratedMsl {
    /// The source.
    pub source: String,
    /// The kernel function's name in the source.
    pub function_name: String,
}

/// Math mode of the Metal compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum MathMode {
    /// IEEE-respecting math (halc's default).
    #[default]
    Safe,
    /// Metal fast math.
    Fast,
}

/// A compiled Metal library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metallib {
    /// The `.metallib` bytes.
    pub bytes: Vec<u8>,
    /// The toolchain that built it, as it describes itself.
    pub toolchain: String,
}
