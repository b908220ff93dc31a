//! The benchmark corpus generator (`benches/corpus/mod.rs`).

#[path = "../../benches/corpus/mod.rs"]
#[allow(dead_code)]
mod generator;

use generator::{spec_variant, synthetic, Elem, Synthetic};

#[test]
fn the_corpus_has_200_distinct_modules_that_compile_as_one_batch() {
    let fixtures = crate::root().join("fixtures/kernels");
    let corpus = generator::corpus(&fixtures).unwrap();
    assert!(corpus.len() >= 200, "{} modules", corpus.len());
    for origin in ["fixture", "spec-variant", "synthetic"] {
        let n = corpus.iter().filter(|m| m.origin == origin).count();
        assert!(n >= 10, "{n} modules from {origin}");
    }
    let mut bytes: Vec<&[u8]> = corpus.iter().map(|m| m.bytes.as_slice()).collect();
    bytes.sort();
    bytes.dedup();
    assert_eq!(bytes.len(), corpus.len(), "two modules are identical");
    // Sizes span small kernels to large ones.
    let sizes: Vec<usize> = corpus.iter().map(|m| m.bytes.len()).collect();
    assert!(*sizes.iter().min().unwrap() < 2_000 && *sizes.iter().max().unwrap() > 40_000);
    // One batch, as scripts/bench.sh runs it.
    let inputs: Vec<halc::Input> = corpus
        .iter()
        .map(|m| halc::Input::new(m.file.clone(), m.bytes.clone()))
        .collect();
    let compiled = halc::compile(&inputs, &halc::Options::default()).unwrap();
    assert!(compiled.kernels.len() >= 200);
    // Deterministic.
    assert_eq!(generator::corpus(&fixtures).unwrap(), corpus);
}

#[test]
fn synthetic_kernels_have_the_shape_asked_for() {
    let s = Synthetic {
        buffers: 3,
        ops: 64,
        elem: Elem::I32,
        uniform: true,
        local_x: 128,
    };
    let bytes: Vec<u8> = synthetic(s).iter().flat_map(|w| w.to_le_bytes()).collect();
    let c = halc::compile(&[halc::Input::new("syn.spv", bytes)], &Default::default()).unwrap();
    let k = &c.kernels[0];
    assert_eq!(k.name, "syn");
    assert_eq!(k.workgroup.values(), [128, 1, 1]);
    assert_eq!(k.entry.bindings.len(), 4);
    assert!(k.msl.source.contains("int"), "{}", k.msl.source);
}

#[test]
fn spec_variants_change_the_defaults_only() {
    let words: Vec<u32> = std::fs::read(crate::kernel("spec_constants.spv"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let v = spec_variant(&words, 2).unwrap();
    assert_eq!(v.len(), words.len());
    let differing = words.iter().zip(&v).filter(|(a, b)| a != b).count();
    assert!((1..=8).contains(&differing), "{differing} words changed");
    // A module without spec constants has no variant.
    let saxpy: Vec<u32> = std::fs::read(crate::kernel("saxpy.spv"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(spec_variant(&saxpy, 2).is_none());
}

/// One module runs in halc's process under crash handlers, except a module
/// of at least `halc::OVERLAP_MIN_BYTES` with a CPU free for its validator
/// (`HALC_WORKER_VALIDATOR=separate` says there is one; `shared` that there
/// is none) and no jobserver: forked workers, the validator beside
/// SPIRV-Cross. Every placement writes the same bytes.
#[test]
fn one_large_module_validates_beside_spirv_cross_when_a_cpu_is_free() {
    use std::process::Command;
    let d = tempfile::tempdir().unwrap();
    let large = synthetic(Synthetic {
        buffers: 4,
        ops: 512,
        elem: Elem::F32,
        uniform: false,
        local_x: 64,
    });
    let large_bytes: Vec<u8> = large.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert!(
        large_bytes.len() >= halc::OVERLAP_MIN_BYTES,
        "{} bytes",
        large_bytes.len()
    );
    let large_path = d.path().join("large.spv");
    std::fs::write(&large_path, &large_bytes).unwrap();
    let small_path = crate::root().join("fixtures/kernels/saxpy.spv");
    assert!(std::fs::metadata(&small_path).unwrap().len() < halc::OVERLAP_MIN_BYTES as u64);
    let beside = "(in a worker of its own, beside SPIRV-Cross)";
    let here = "(in this process, before SPIRV-Cross)";
    let run = |module: &std::path::Path, validator: &str, jobserver: bool| {
        let out = d.path().join("o.halc");
        let _ = std::fs::remove_file(&out);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_halc"));
        cmd.args(["compile", "--timings", "-o"])
            .arg(&out)
            .arg(module)
            .env(halc::msl::worker::VALIDATOR_ENV, validator)
            .env_remove("MAKEFLAGS")
            .env_remove("CARGO_MAKEFLAGS")
            .env_remove("MFLAGS");
        let client = jobserver::Client::new(1).unwrap();
        if jobserver {
            client.configure_make(&mut cmd);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let table = String::from_utf8(o.stdout).unwrap();
        (table, std::fs::read(&out).unwrap())
    };
    let (table, reference) = run(&large_path, "separate", false);
    assert!(table.contains(beside), "large, a CPU free: {table}");
    for (module, validator, jobserver, place) in [
        (&large_path, "shared", false, here),
        (&large_path, "separate", true, here),
        (&small_path, "separate", false, here),
    ] {
        let (table, bytes) = run(module, validator, jobserver);
        let case = format!("{}, {validator}, jobserver {jobserver}", module.display());
        assert!(table.contains(place), "{case}: {table}");
        if module == &large_path {
            assert!(bytes == reference, "{case}: the output differs");
        }
    }
}
