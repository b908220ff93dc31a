//! Compiles `shaders/*.comp` and `shaders/*.glsl` (GLSL, through glslc) into
//! `$OUT_DIR/kernels.halc` and the typed bindings `$OUT_DIR/kernels.rs`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    halc::build::Kernels::new()
        .glob("shaders/*.comp")?
        .glob("shaders/*.glsl")?
        .include_dir("shaders/include")
        .compile("kernels")?;
    Ok(())
}
