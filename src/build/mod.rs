//! Everything a build system touches: the `build.rs` helper ([`Kernels`])
//! and the Rust bindings it generates ([`bindings`]), the manifest
//! `halc build` reads ([`manifest`]), the ABI lock ([`lock`]), the Make
//! depfile ([`depfile`]), and GLSL through glslc with its cache ([`glsl`]).

pub mod bindings;
pub mod depfile;
pub mod glsl;
mod kernels;
pub mod lock;
pub mod manifest;

pub use bindings::BindingsError;
pub use kernels::{BuildError, Built, Kernels};
