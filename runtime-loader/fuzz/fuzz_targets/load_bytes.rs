//! Load arbitrary bytes as an executable: Err or Ok, never a panic; when it
//! loads, every view and the dispatch plan must work on it.
#![no_main]
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::exercise(data));
