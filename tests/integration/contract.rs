//! The build contract: the reflection JSON against its JSON Schema, the ABI
//! lock, depfiles — as a build system uses them.

use std::path::Path;

use halc::lock::Lock;
use halc::msl::BindingModel;
use halc::reflection::Reflection;

use crate::cli::{fixture, halc, listing, stderr, tmp};
use crate::{compute_fixtures, input, options_for, root};

fn schema() -> serde_json::Value {
    let text = std::fs::read_to_string(root().join("schemas/halc_reflection.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema()).expect("the schema is a valid 2020-12 schema")
}

fn errors(v: &jsonschema::Validator, json: &serde_json::Value) -> Vec<String> {
    v.iter_errors(json)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn reflect(path: &Path, options: &halc::Options) -> Reflection {
    let compiled = halc::compile(&[input(path)], options).unwrap();
    Reflection::from_bytes(&compiled.to_flatbuffer()).unwrap()
}

/// Every fixture's reflection, in both binding models and with a baked
/// constant, is valid against the committed schema.
#[test]
fn every_fixture_reflection_matches_the_schema() {
    let v = validator();
    let mut checked = 0;
    for path in compute_fixtures() {
        for model in [BindingModel::ArgumentBuffers, BindingModel::Discrete] {
            let Ok(compiled) = halc::compile(&[input(&path)], &options_for(model)) else {
                continue; // fixtures that need other options are covered elsewhere
            };
            let r = Reflection::from_bytes(&compiled.to_flatbuffer()).unwrap();
            let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
            let errs = errors(&v, &json);
            assert!(errs.is_empty(), "{}: {errs:#?}", path.display());
            // It reads back as the same value.
            let back: Reflection = serde_json::from_value(json).unwrap();
            assert_eq!(back, r, "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} reflections checked");
}

/// Negative control: the schema rejects what the old JSON looked like and
/// fields it does not know.
#[test]
fn schema_rejects_bits_arrays_and_unknown_fields() {
    let v = validator();
    let r = reflect(
        &crate::kernel("spec_constants.spv"),
        &halc::Options::default(),
    );
    let good: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert!(errors(&v, &good).is_empty());

    let mut tuple = good.clone();
    tuple["kernels"][0]["threadgroup_size"] = serde_json::json!([[64, null], [1, null], [1, null]]);
    assert!(!errors(&v, &tuple).is_empty());

    let mut extra = good.clone();
    extra["kernels"][0]["slot"] = serde_json::json!(3);
    assert!(!errors(&v, &extra).is_empty());

    let mut version = good.clone();
    version["version"] = serde_json::json!(halc::reflection::VERSION + 1);
    assert!(!errors(&v, &version).is_empty());

    let mut kind = good;
    kind["kernels"][0]["resources"][0]["kind"] = serde_json::json!("StorageBuffer");
    assert!(!errors(&v, &kind).is_empty());
}

/// The schema describes the version this halc writes.
#[test]
fn schema_pins_the_written_version() {
    assert_eq!(
        schema()["properties"]["version"]["const"],
        serde_json::json!(halc::reflection::VERSION)
    );
}

/// Self-describing values: `{"x":64,...}`, the spec id of a driven
/// dimension, a float default as `2.5`, not its bits.
#[test]
fn reflection_values_are_typed() {
    let r = reflect(
        &crate::kernel("spec_constants.spv"),
        &halc::Options::default(),
    );
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let k = &json["kernels"][0];
    let fc = k["function_constants"].as_array().unwrap();
    let alpha = fc.iter().find(|c| c["id"] == 1).expect("ALPHA");
    assert_eq!(alpha["type"], "float32");
    assert_eq!(alpha["default"], serde_json::json!(2.5));
    assert!(k["threadgroup_size"]["x"].is_u64(), "{k}");
    for (dim, id) in k["threadgroup_size_spec_ids"].as_object().unwrap() {
        assert!(["x", "y", "z"].contains(&dim.as_str()));
        assert!(fc.iter().any(|c| &c["id"] == id), "{dim} -> {id}");
    }
}

/// `--reflection FILE` writes exactly what `inspect --json` prints for the
/// executable, and both are the same in another directory (no paths).
#[test]
fn reflection_file_equals_inspect_json() {
    let d = tmp();
    let o = halc(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            "k.halc",
            "--reflection",
            "k.json",
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let written = std::fs::read(d.path().join("k.json")).unwrap();
    let o = halc(&["inspect", "--json", "k.halc"], d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(written, o.stdout);

    let e = tmp();
    std::fs::copy(crate::kernel("saxpy.spv"), e.path().join("saxpy.spv")).unwrap();
    let o = halc(
        &[
            "compile",
            "saxpy.spv",
            "-o",
            "k.halc",
            "--reflection",
            "k.json",
        ],
        e.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(e.path().join("k.json")).unwrap(), written);
    assert_eq!(
        std::fs::read(e.path().join("k.halc")).unwrap(),
        std::fs::read(d.path().join("k.halc")).unwrap()
    );
}

const MOVE_BINDING_1: &str = "[[binding]]\nset = 0\nbinding = 1\nbuffer = 2\n\n[[binding]]\nset = 0\nbinding = 2\nbuffer = 1\n";

/// The lock: created with --update-lock, a rebuild that agrees passes, a
/// moved binding fails naming it, and leaves the output untouched.
#[test]
fn lock_catches_a_moved_binding() {
    let d = tmp();
    let saxpy = fixture("saxpy.spv");
    let base = [
        "compile",
        &saxpy,
        "-o",
        "k.halc",
        "--bindings",
        "discrete",
        "--lock",
        "halc.lock",
    ];

    let o = halc(&base, d.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("halc.lock: no such lock file; create it with --update-lock"),
        "{}",
        stderr(&o)
    );
    assert!(
        !d.path().join("k.halc").exists(),
        "no output without a lock"
    );

    let o = halc(&[&base[..], &["--update-lock"]].concat(), d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lock_text = std::fs::read_to_string(d.path().join("halc.lock")).unwrap();
    assert!(lock_text.contains("name = \"saxpy\""), "{lock_text}");

    let o = halc(&base, d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let built = std::fs::read(d.path().join("k.halc")).unwrap();

    std::fs::write(d.path().join("map.toml"), MOVE_BINDING_1).unwrap();
    let o = halc(
        &[&base[..], &["--binding-map", "map.toml"]].concat(),
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: halc.lock: the build changes the locked ABI (2 changes;"),
        "{err}"
    );
    assert!(
        err.contains("\n  saxpy: set 0 binding 1 moved from buffer 1 to buffer 2\n"),
        "{err}"
    );
    assert!(
        err.contains("\n  saxpy: set 0 binding 2 moved from buffer 2 to buffer 1"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(d.path().join("k.halc")).unwrap(),
        built,
        "output clobbered"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("halc.lock")).unwrap(),
        lock_text
    );

    // --update-lock accepts the change; the lock then holds the new slots.
    let o = halc(
        &[&base[..], &["--binding-map", "map.toml", "--update-lock"]].concat(),
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = halc(
        &[&base[..], &["--binding-map", "map.toml"]].concat(),
        d.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_ne!(
        std::fs::read_to_string(d.path().join("halc.lock")).unwrap(),
        lock_text
    );
}

/// Every kind of change is named: threadgroup size, kernels added and
/// removed, binding model, push constants, function constants.
#[test]
fn lock_names_each_kind_of_change() {
    let lock = |path: &str, options: &halc::Options| {
        let r = reflect(&crate::kernel(path), options);
        Lock::of(&r)
    };
    let ab = halc::Options::default();
    let discrete = options_for(BindingModel::Discrete);
    let mut spec = halc::Options::default();
    spec.specs.push("0=128".parse().unwrap());

    let base = lock("spec_constants.spv", &ab);
    assert!(base.changes(&base).is_empty());
    let baked = lock("spec_constants.spv", &spec);
    let c = base.changes(&baked);
    assert!(c.iter().any(|c| c.contains("threadgroup size")), "{c:#?}");
    assert!(
        c.iter().any(|c| c.contains("function constant 0 removed")),
        "{c:#?}"
    );

    let c = base.changes(&lock("spec_constants.spv", &discrete));
    assert!(
        c.iter()
            .any(|c| c.ends_with("binding model changed from argument-buffers to discrete")),
        "{c:#?}"
    );

    let other = lock("saxpy.spv", &ab);
    let c = base.changes(&other);
    assert!(
        c.contains(&"spec_constants: kernel removed".to_string()),
        "{c:#?}"
    );
    assert!(c.contains(&"saxpy: kernel added".to_string()), "{c:#?}");
}

/// The lock file reads back as what was written; typos are errors with
/// line and column.
#[test]
fn lock_file_round_trips_and_reports_typos_with_position() {
    let r = reflect(&crate::kernel("saxpy.spv"), &halc::Options::default());
    let lock = Lock::of(&r);
    let text = lock.to_toml();
    assert_eq!(Lock::parse(&text).unwrap(), lock);

    let typo = text.replacen("byte_offset = 8", "byte_ofset = 8", 1);
    let line = typo
        .lines()
        .position(|l| l.starts_with("byte_ofset"))
        .unwrap()
        + 1;
    let e = Lock::parse(&typo).unwrap_err();
    assert_eq!((e.line, e.column), (line, 1), "{e}");
    assert!(e.message.contains("byte_ofset"), "{e}");

    let wrong_type = text.replacen("count = 1", "count = \"one\"", 1);
    let e = Lock::parse(&wrong_type).unwrap_err();
    assert!(e.line > 1 && e.column > 1, "{e}");
}

/// `--depfile`: the output, then every input, the binding map and the lock,
/// escaped for Make and Ninja; written only when the build succeeds.
#[test]
fn depfile_names_every_input() {
    let d = tmp();
    std::fs::copy(crate::kernel("saxpy.spv"), d.path().join("sa xpy.spv")).unwrap();
    std::fs::copy(crate::kernel("scale.spv"), d.path().join("scale.spv")).unwrap();
    std::fs::write(d.path().join("map.toml"), "push_constants = 20\n").unwrap();
    let args = [
        "compile",
        "sa xpy.spv",
        "scale.spv",
        "-o",
        "out/k.halc",
        "--binding-map",
        "map.toml",
        "--depfile",
        "out/k.d",
    ];
    let o = halc(&args, d.path());
    assert_eq!(o.status.code(), Some(1), "the out directory does not exist");
    assert!(stderr(&o).contains("does not exist"), "{}", stderr(&o));
    assert_eq!(listing(d.path()).len(), 3, "nothing written");

    std::fs::create_dir(d.path().join("out")).unwrap();
    let o = halc(&args, d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.path().join("out/k.d")).unwrap(),
        "out/k.halc: \\\n  sa\\ xpy.spv \\\n  scale.spv \\\n  map.toml\n"
    );
}

/// `--update-lock` alone is a usage mistake, not a silent no-op.
#[test]
fn update_lock_needs_a_lock() {
    let d = tmp();
    let o = halc(
        &[
            "compile",
            &fixture("saxpy.spv"),
            "-o",
            "k.halc",
            "--update-lock",
        ],
        d.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--update-lock needs --lock FILE"),
        "{}",
        stderr(&o)
    );
    assert!(listing(d.path()).is_empty());
}

/// The push-constant layout is in the reflection and the lock: a member
/// that moves or changes type is named.
#[test]
fn push_constant_members_are_reflected_and_locked() {
    let r = reflect(
        &crate::kernel("push_constants.spv"),
        &halc::Options::default(),
    );
    let pc = r.kernels[0]
        .push_constants
        .as_ref()
        .expect("push constants");
    let members: Vec<(&str, u32, u32, &str)> = pc
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.offset, m.size, m.ty.as_str()))
        .collect();
    assert_eq!(
        members,
        [
            ("count", 0, 4, "uint32"),
            ("scale", 4, 4, "float32"),
            ("offset", 8, 8, "vec2<float32>")
        ]
    );

    // Reorder the block's members in the GLSL: the lock names each move.
    let d = tmp();
    let src = std::fs::read_to_string(crate::root().join("fixtures/kernels/push_constants.comp"))
        .unwrap()
        .replace(
            "    uint count;\n    float scale;",
            "    float scale;\n    uint count;",
        );
    std::fs::write(d.path().join("push_constants.comp"), src).unwrap();
    let spv = d.path().join("push_constants.spv");
    match std::process::Command::new("glslc")
        .arg(d.path().join("push_constants.comp"))
        .arg("-o")
        .arg(&spv)
        .status()
    {
        Ok(s) if s.success() => {}
        _ => {
            println!("skipped: needs glslc");
            return;
        }
    }
    let moved = reflect(&spv, &halc::Options::default());
    let c = Lock::of(&r).changes(&Lock::of(&moved));
    assert_eq!(
        c,
        [
            "push_constants: push constant `count` moved from offset 0 to offset 4",
            "push_constants: push constant `scale` moved from offset 4 to offset 0",
        ],
        "{c:#?}"
    );
}

/// The lock holds an emulated image atomic's companion buffer (MSL below
/// 3.1) as part of the image's place: building the same kernel with
/// Metal's texture atomics (3.1), which has none and so moves the buffer
/// after it, fails naming both.
#[test]
fn lock_holds_the_companion_buffer_of_emulated_image_atomics() {
    let d = tmp();
    let kernel = fixture("image_atomics_emulated.spv");
    let base = [
        "compile",
        &kernel,
        "-o",
        "k.halc",
        "--bindings",
        "discrete",
        "--lock",
        "halc.lock",
    ];
    let o = halc(&[&base[..], &["--update-lock"]].concat(), d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lock_text = std::fs::read_to_string(d.path().join("halc.lock")).unwrap();
    assert!(
        lock_text.contains("texture = 0\natomic_buffer = 0\natomic_row_alignment = 256\n"),
        "{lock_text}"
    );
    let o = halc(&base, d.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let o = halc(&[&base[..], &["--msl-version", "3.1"]].concat(), d.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("\n  image_atomics_emulated: set 0 binding 0 moved from texture 0, image-atomic buffer 0, image-atomic row alignment 256 to texture 0\n"),
        "{err}"
    );
    assert!(
        err.contains("\n  image_atomics_emulated: set 1 binding 0 moved from buffer 2 to buffer 0"),
        "{err}"
    );
}
