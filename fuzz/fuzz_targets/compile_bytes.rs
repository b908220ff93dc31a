//! Compile from arbitrary bytes: must return Ok or Err, never crash.
#![no_main]
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::compile_and_reload(data));
