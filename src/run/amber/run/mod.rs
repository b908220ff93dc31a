//! Runs a parsed [`Script`](crate::run::amber::Script): every pipeline's
//! shader goes through [`crate::compile`] (the same path as `halc compile`,
//! with the caller's options) and runs on one or two **sides**:
//!
//! - `metal-on-cpu`: the generated MSL, loaded and verified by the
//!   runtime-loader and executed by its CPU backend;
//! - `vulkan`: the original SPIR-V on a Vulkan driver (lavapipe by default),
//!   through the `vulkan-reference` crate.
//!
//! With both (`--compare`), every command is applied to both sides; after
//! every `RUN` every storage buffer the pipeline binds is compared element
//! by element (integers exactly, floats within a ULP tolerance, NaN equal to
//! NaN), and an `EXPECT` that holds on one side only is reported as such.
//!
//! Subgroup results depend on the subgroup width: the CPU side runs a
//! pipeline with SIMD groups of its `SUBGROUP … REQUIRED_SIZE` when it has
//! one, else, comparing a kernel that uses subgroup operations, of the
//! Vulkan device's subgroup size, else of Apple's 32 lanes
//! (`Runner::simd_width`).
//!
//! The parts: what a run takes and gives (`options.rs`), running one script
//! (`script.rs`: the skips, the sides, the runner), what a side is
//! (`side.rs`) and the two of them (`cpu.rs`, `vulkan.rs`), the runner's
//! steps (`runner.rs`), each pipeline's SPIR-V (`module.rs`: GLSL,
//! assembly, `SHADER_OPTIMIZATION`) and halc's translation of it
//! (`prepare.rs`), the comparison of the sides (`compare.rs`) and the
//! `EXPECT` checks (`expect.rs`).

mod compare;
mod cpu;
mod expect;
mod module;
mod options;
mod prepare;
mod runner;
mod script;
mod side;
mod vulkan;

pub(crate) use module::located_glslc;
pub use options::{Outcome, RunOptions, Sides};
pub use script::{run, run_in};
pub(crate) use vulkan::vulkan_place;
pub use vulkan::{
    confine_reference, refuse_network_and_programs, REFERENCE_ADDRESS_SPACE, VULKAN_REFERENCE_ARG,
};
