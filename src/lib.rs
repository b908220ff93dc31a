//! `halc`: an ahead-of-time compiler and packager for SPIR-V compute kernels
//! targeting Apple's Metal.
//!
//! The pipeline moves data forward only:
//!
//! ```text
//! bytes ─► spirv::Words (header, byte order)
//!       ─► spirv::specialize (bake --spec values)
//!       ─► spirv::reflect (per entry point: workgroup size, resources, …)
//!       ─► msl::layout (the binding contract: every Metal slot)
//!       ─► msl::generate (SPIRV-Cross, explicit remaps) ─► msl::check
//!       ─► flatbuffer::write ─► one executable file
//! ```
//!
//! [`compile`] runs it over a set of inputs. The library never prints and
//! never exits; the `halc` binary is a thin CLI over it.

#![deny(missing_docs)]

// The benchmark corpus generator (`benches/corpus`), which names the crate
// `halc`, is also read by unit tests (`spirv::inst`).
#[cfg(test)]
extern crate self as halc;

// The tree, in the order data moves (docs/guide/development.md, *Layout*):
// the values between stages (the ground floor, importing nothing of halc),
// the stages, the driver that runs them, then what is built around them.
pub mod model;
mod position;

pub mod flatbuffer;
pub mod msl;
pub mod spirv;

pub(crate) mod driver;

pub mod build;
pub mod describe;
pub mod run;

#[cfg(unix)]
pub use driver::OVERLAP_MIN_BYTES;
pub use driver::{compile, compile_observed, jobs, Progress};
pub use model::{
    timings, Compiled, Error, ErrorKind, Input, Isolation, Kernel, Options, Rename, Warning,
    DEFAULT_TIME_LIMIT, MAX_THREADGROUP_MEMORY_BYTES, MAX_THREADS_PER_THREADGROUP,
};
pub use msl::metallib::{MathMode, Metallib};

// The paths these modules had before the tree was laid out by responsibility
// (issue 37); build scripts and tools use them.
pub use build::{depfile, glsl, lock, manifest};
pub use describe::{inspect, reflection};
pub use driver::output;
pub use run::amber;
#[cfg(all(unix, feature = "run"))]
pub use run::diff;

pub use runtime_loader;
