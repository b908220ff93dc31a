//! Shared by the compile fuzz targets: compile one module; whatever halc
//! writes must load in the runtime-loader.

pub fn compile_and_reload(data: &[u8]) {
    let input = halc::Input::new("fuzz.spv", data.to_vec());
    if let Ok(c) = halc::compile(&[input], &halc::Options::default()) {
        let bytes = c.to_flatbuffer();
        runtime_loader::Executable::load(&bytes).expect("halc wrote an executable it cannot load");
    }
}
