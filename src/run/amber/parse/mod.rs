//! Parsers for AmberScript (`#!amber`) and VkScript (`[test]` sections):
//! the compute subset, into a [`Script`](crate::run::amber::Script).
//!
//! Anything outside the compute subset (graphics pipelines, images,
//! samplers, OpenCL C) is a [`ParseError`] with `unsupported` set, which a
//! runner reports as a skip with the reason; anything malformed is an error
//! naming the line.
//!
//! The parts: which form a file is in (`form.rs`), the errors
//! (`error.rs`), the words of a line and the values they spell
//! (`words.rs`), values written as buffer bytes (`values.rs`), and one
//! parser per form (`amberscript/`, `vkscript.rs`).

mod amberscript;
mod error;
mod form;
mod values;
mod vkscript;
mod words;

pub use error::ParseError;
pub use form::{parse, parse_in};
