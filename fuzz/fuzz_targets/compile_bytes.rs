//! Compile from arbitrary bytes: must return Ok or Err, never crash.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let input = halc::Input { name: "fuzz.spv".into(), bytes: data.to_vec() };
    if let Ok(c) = halc::compile(&[input], &halc::Options::default()) {
        let bytes = c.to_flatbuffer();
        runtime_loader::Executable::load(&bytes).expect("halc wrote an executable it cannot load");
    }
});
