//! An executable of `n` kernels for the load benchmarks (`benches/load.rs`,
//! `examples/load_probe.rs`): saxpy, compiled once, under `n` names.

/// The FlatBuffer bytes of `n` copies of saxpy's kernel, named `k00000`...
pub fn executable(n: usize) -> Vec<u8> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = halc::Input::new(
        "saxpy.spv",
        std::fs::read(root.join("fixtures/kernels/saxpy.spv")).expect("fixture"),
    );
    let mut compiled = halc::compile(&[input], &halc::Options::default()).expect("compiles");
    let one = compiled.kernels.remove(0);
    compiled.kernels = (0..n)
        .map(|i| {
            let mut k = one.clone();
            k.name = format!("k{i:05}");
            k
        })
        .collect();
    compiled.to_flatbuffer()
}
