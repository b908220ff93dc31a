//! GLSL → SPIR-V through `glslc` (shaderc), found at run time.
//!
//! halc compiles SPIR-V; GLSL compute shaders reach it through Google's
//! `glslc`, which this module locates and runs as a child process (never a
//! shell). [`Glslc::compile`] returns the SPIR-V **and every file glslc
//! read** (the source and its `#include`s, from glslc's `-MD` depfile), so a
//! build system can rebuild when an include changes.
//!
//! ```no_run
//! use halc::glsl::{Glslc, GlslOptions};
//! let glslc = Glslc::locate(None)?; // $HALC_GLSLC, else `glslc` on PATH
//! let out = glslc.compile("shaders/add.comp".as_ref(), &GlslOptions::default())?;
//! assert!(out.dependencies.iter().any(|d| d.ends_with("add.comp")));
//! # Ok::<(), halc::glsl::GlslError>(())
//! ```
//!
//! Errors are one line each, except a compile error, which is glslc's own
//! message verbatim (it names `file:line`).

mod cache;
mod glslc;
mod lazy;
mod options;

pub use cache::GlslCache;
pub use glslc::{parse_depfile, Glslc};
pub use lazy::LazyGlslc;
pub use options::{
    is_spirv, source_kind, GlslError, GlslOptions, GlslOutput, SourceKind, TargetEnv, GLSLC_ENV,
};
