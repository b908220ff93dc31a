//! Load mutated valid executables: the corpus is seeded with executables
//! compiled from every fixture in three binding variants by `run.sh`, and
//! libFuzzer mutates them. Err or Ok, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::exercise(data));
