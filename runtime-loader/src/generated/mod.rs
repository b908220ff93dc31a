//! flatc output for `schemas/halc_executable.fbs`. Regenerate with
//! `scripts/regen-flatbuffers.sh`; never edit by hand.
#![allow(missing_docs)]
include!("halc_executable_generated.rs");
