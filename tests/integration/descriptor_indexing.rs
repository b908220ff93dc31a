//! Descriptor indexing (GL_EXT_nonuniform_qualifier, issue 38): runtime
//! arrays of buffers, images and texel buffers indexed per invocation
//! (`tests/amber/descriptor_indexing.amber`, which the Amber matrix runs in
//! every binding model and on iOS). Here: an index made uniform, what a
//! translation that dropped the per-invocation index would do, is caught by
//! `--compare`, and a runtime array takes its element count from the
//! binding map or, in `halc test`, from its `BUFFER_ARRAY`.

use halc::amber::run::{run, Outcome, RunOptions, Sides};
use halc::runtime_loader::cpu::Device;

use crate::amber::{tools, vulkan};

const TEST: &str = "tests/amber/descriptor_indexing.amber";

fn compare(tamper: Option<fn(&mut halc::Compiled)>) -> Outcome {
    let text = std::fs::read_to_string(crate::root().join(TEST)).unwrap();
    let device = Device::new().unwrap();
    let opts = RunOptions {
        sides: Sides::Compare,
        tamper,
        ..Default::default()
    };
    run(TEST, &text, Some(&device), &opts)
}

#[test]
fn a_uniform_index_in_place_of_a_nonuniform_one_is_caught() {
    if !tools() || !vulkan() {
        return;
    }
    assert_eq!(compare(None), Outcome::Pass);
    // Every invocation reads element 0 of the buffer array, and stores what
    // it read into its element of the image array.
    match compare(Some(|c| {
        let msl = &mut c.kernels[0].msl.source;
        assert!(msl.contains("spvDescriptorSet0.ins["), "{msl}");
        *msl = msl.replace("spvDescriptorSet0.ins[", "spvDescriptorSet0.ins[0u * ");
    })) {
        Outcome::Fail(m) => assert!(
            m.contains("RUN pipeline: buffer `img1` (set 0, binding 3) differs: element 6"),
            "{m}"
        ),
        other => panic!("not caught: {other:?}"),
    }
}

/// `halc compile` of a runtime array: the count comes from the binding map,
/// and the layout gives the array that many consecutive members.
#[test]
fn a_runtime_array_takes_its_count_from_the_binding_map() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let spv = crate::amber::glsl_to_spv(
        dir.path(),
        "bufs",
        "#version 450\n#extension GL_EXT_nonuniform_qualifier : require\n\
         layout(local_size_x = 4) in;\n\
         layout(set = 0, binding = 0) buffer B { uint v[]; } bufs[];\n\
         void main() { uint i = gl_GlobalInvocationID.x; bufs[nonuniformEXT(i)].v[0] = i; }\n",
    );
    let out = dir.path().join("bufs.fb");
    let compile = |map: Option<&str>| {
        let mut cmd = crate::amber::halc();
        cmd.arg("compile").arg(&spv).arg("-o").arg(&out);
        if let Some(text) = map {
            let path = dir.path().join("map.toml");
            std::fs::write(&path, text).unwrap();
            cmd.arg("--binding-map").arg(path);
        }
        cmd.output().unwrap()
    };
    let o = compile(None);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("(set 0, binding 0): runtime-sized descriptor array needs a count"),
        "{err}"
    );
    let o = compile(Some("[[binding]]\nset = 0\nbinding = 0\ncount = 4\n"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = crate::amber::halc()
        .arg("inspect")
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(
            "(set 0, binding 0) storage-buffer read-write x4, min 0 B + n x 4 B -> [[id(0)]] @ byte 0"
        ),
        "{text}"
    );
}
