//! Load-time verification: a valid executable loads; every field corrupted
//! gives the error naming that kernel and field.

use runtime_loader::schema::{
    self, Access, ArgumentBufferTier, BindingKind, BindingModel, MathMode, Platform, ScalarType,
};
use runtime_loader::{Executable, LoadError, OwnedExecutable, VerifyLimits};

use crate::common::{all, Exe, B, K};

fn k<'e>(e: &'e mut Exe, name: &str) -> &'e mut K {
    e.kernel_mut(name)
}

fn b<'e>(e: &'e mut Exe, name: &str, set: u32, binding: u32) -> &'e mut B {
    e.kernel_mut(name)
        .bindings
        .iter_mut()
        .find(|b| b.set == set && b.binding == binding)
        .expect("binding")
}

struct Case {
    line: u32,
    kernel: Option<&'static str>,
    field: &'static str,
    mutate: Box<dyn Fn(&mut Exe)>,
}

macro_rules! case {
    ($cases:ident, $kernel:expr, $field:expr, |$e:ident| $body:expr) => {
        $cases.push(Case {
            line: line!(),
            kernel: $kernel,
            field: $field,
            mutate: Box::new(|$e: &mut Exe| {
                $body;
            }),
        })
    };
}

fn cases() -> Vec<Case> {
    let mut c = Vec::new();
    let m = Some("main");
    let sp = Some("sparse");
    let d = Some("discrete");
    let s = Some("spec");
    let al = Some("array_length");
    let im = Some("images");

    // Executable and kernel list.
    case!(c, None, "kernels", |e| e.kernels.clear());
    case!(c, None, "kernels[0].names.name", |e| e.kernels[0]
        .name
        .clear());
    case!(c, al, "names.name", |e| e.kernels.swap(0, 1));
    case!(c, al, "names.name", |e| e.kernels[1].name =
        "array_length".into());
    case!(c, m, "names.msl_name", |e| k(e, "main").msl_name.clear());
    case!(c, m, "library", |e| k(e, "main").library = 1);

    // Libraries.
    case!(c, None, "libraries[0].msl_source", |e| e.libraries[0]
        .msl_source =
        None);
    case!(c, None, "libraries[0].msl_source", |e| e.libraries[0]
        .msl_source =
        Some(Vec::new()));
    case!(c, None, "libraries[0].msl_source", |e| {
        e.libraries[0].msl_source = None;
        e.libraries[0].metallib = Some(Vec::new());
    });
    case!(c, None, "libraries[0].msl_version", |e| e.libraries[0]
        .msl_version =
        (0, 0));
    case!(c, None, "libraries[0].msl_version", |e| e.libraries[0]
        .msl_version =
        (9, 1));
    case!(c, None, "libraries[0].math_mode", |e| e.libraries[0]
        .math_mode =
        MathMode(9));
    case!(c, None, "libraries[0].platform", |e| e.libraries[0]
        .platform =
        Platform(9));
    case!(c, None, "libraries[0].argument_buffer_tier", |e| e
        .libraries[0]
        .tier =
        ArgumentBufferTier(9));

    // Threadgroup size.
    case!(c, m, "threadgroup_size[1].size", |e| k(e, "main").tg[1].0 =
        0);
    case!(c, m, "threadgroup_size", |e| {
        let k = k(e, "main");
        k.tg[1].0 = 32;
        k.max_threads = 1024;
    });
    case!(c, s, "threadgroup_size[0].spec_id", |e| k(e, "spec").tg
        [0]
    .1 = 9);
    case!(c, s, "threadgroup_size[0].spec_id", |e| k(e, "spec").fcs
        [0]
    .ty =
        ScalarType::Float32);
    case!(c, s, "threadgroup_size[0].size", |e| k(e, "spec").tg[0].0 =
        64);
    case!(c, m, "max_threads_per_threadgroup", |e| k(e, "main")
        .max_threads =
        0);
    case!(c, m, "max_threads_per_threadgroup", |e| k(e, "main")
        .max_threads =
        32);
    case!(c, m, "max_threads_per_threadgroup", |e| k(e, "main")
        .max_threads =
        2048);
    case!(c, m, "threadgroup_memory_bytes", |e| k(e, "main")
        .tg_memory = 32769);
    case!(c, m, "binding_model", |e| k(e, "main").model =
        BindingModel(5));

    // Function constants.
    case!(c, s, "function_constant_aliases[0].type", |e| k(e, "spec")
        .fcs[0]
        .aliases
        .push((ScalarType::UInt16, 1)));
    case!(c, s, "function_constant_aliases[0].type", |e| k(e, "spec")
        .fcs[2]
        .aliases
        .push((ScalarType::UInt32, 1)));
    case!(c, s, "function_constant_aliases[0].default_bits", |e| {
        k(e, "spec").fcs[0]
            .aliases
            .push((ScalarType::Int32, 1 << 32))
    });
    case!(c, s, "function_constants[2].id", |e| k(e, "spec").fcs[2]
        .id = 1);
    case!(c, s, "function_constants[1].type", |e| k(e, "spec").fcs
        [1]
    .ty = ScalarType(77));
    case!(c, s, "function_constants[2].default_bits", |e| k(
        e, "spec"
    )
    .fcs[2]
        .default_bits =
        2);
    case!(c, s, "function_constants[3].default_bits", |e| k(
        e, "spec"
    )
    .fcs[3]
        .default_bits =
        1 << 32);

    case!(c, s, "function_constants[1].id", |e| k(e, "spec")
        .fcs
        .swap(0, 1));
    case!(c, s, "function_constant_aliases[0].id", |e| k(e, "spec")
        .extra_aliases
        .push((9, ScalarType::UInt32, 1)));
    case!(c, s, "function_constant_aliases[1].id", |e| {
        let k = k(e, "spec");
        k.fcs[1].aliases.push((ScalarType::Int32, 1));
        k.extra_aliases.push((0, ScalarType::Int32, 128));
    });

    // Strings.
    case!(c, None, "strings", |e| e.strings_suffix = vec![b'a', 0xff]);
    case!(c, None, "kernels[0].names.name", |e| e.kernels[0]
        .name_str =
        Some((100_000, 4)));
    case!(c, None, "kernels[0].names.name", |e| {
        // The first string written is then msl_name: "ñ0", ñ at bytes 0..2.
        e.kernels[0].msl_name = "ñ0".into();
        e.kernels[0].name_str = Some((1, 2));
    });

    // Push constants.
    case!(c, sp, "push_constant_members", |e| {
        let k = k(e, "sparse");
        k.push = None;
        k.push_members = vec![(0, 4)];
        k.members_without_push = true;
    });
    case!(c, sp, "push_constants.size", |e| k(e, "sparse").push =
        Some((2, 0)));
    case!(c, sp, "push_constants.size", |e| k(e, "sparse").push =
        Some((2, 4097)));
    case!(c, sp, "push_constants.buffer_index", |e| k(e, "sparse")
        .push =
        Some((31, 16)));
    case!(c, sp, "push_constant_members[1]", |e| {
        let k = k(e, "sparse");
        k.push = Some((2, 16));
        k.push_members = vec![(0, 8), (4, 4)];
    });
    case!(c, sp, "push_constant_members[0]", |e| {
        let k = k(e, "sparse");
        k.push = Some((2, 16));
        k.push_members = vec![(12, 8)];
    });
    case!(c, sp, "argument_buffers[set 0].buffer_index", |e| k(
        e, "sparse"
    )
    .push =
        Some((0, 16)));

    // Kernel-level sizes table.
    case!(c, d, "bindings[set 0, binding 0].sizes_index", |e| k(
        e, "discrete"
    )
    .sizes_entries =
        0);
    case!(c, d, "sizes_buffer_entries", |e| k(e, "discrete")
        .sizes_entries = 1025);
    case!(c, d, "sizes_buffer_entries", |e| k(e, "discrete")
        .sizes_buffer_index =
        None);
    case!(c, d, "sizes_buffer_index", |e| k(e, "discrete")
        .sizes_buffer_index =
        Some(6));
    case!(c, d, "sizes_buffer_index", |e| k(e, "discrete")
        .sizes_buffer_index =
        Some(31));

    // Argument buffers.
    case!(c, d, "argument_buffers", |e| {
        let ab = crate::common::saxpy().abs[0].clone();
        k(e, "discrete").abs.push(ab);
    });
    case!(c, sp, "argument_buffers[set 0].set", |e| k(e, "sparse")
        .abs[1]
        .set = 0);
    case!(c, m, "argument_buffers[set 0].buffer_index", |e| k(
        e, "main"
    )
    .abs[0]
        .buffer_index =
        31);
    case!(c, m, "argument_buffers[set 0].size", |e| k(e, "main").abs
        [0]
    .size = 0);
    case!(c, m, "argument_buffers[set 0].size", |e| k(e, "main").abs
        [0]
    .size = 28);
    case!(c, m, "argument_buffers[set 0].size", |e| k(e, "main").abs
        [0]
    .size =
        (4 << 20) + 8);
    case!(c, al, "argument_buffers[set 0].sizes_byte_offset", |e| k(
        e,
        "array_length"
    )
    .abs[0]
        .sizes_byte_offset =
        None);
    case!(c, al, "argument_buffers[set 0].sizes_id", |e| k(
        e,
        "array_length"
    )
    .abs[0]
        .sizes_id =
        None);
    case!(c, al, "argument_buffers[set 0].sizes_byte_offset", |e| k(
        e,
        "array_length"
    )
    .abs[0]
        .sizes_byte_offset =
        Some(12));
    case!(c, al, "argument_buffers[set 0].sizes_byte_offset", |e| k(
        e,
        "array_length"
    )
    .abs[0]
        .sizes_byte_offset =
        Some(24));
    case!(c, al, "bindings[set 0, binding 1].id", |e| k(
        e,
        "array_length"
    )
    .abs[0]
        .sizes_id =
        Some(1));
    case!(c, al, "bindings[set 0, binding 0].byte_offset", |e| k(
        e,
        "array_length"
    )
    .abs[0]
        .sizes_byte_offset =
        Some(0));

    // Bindings: order, count, enums.
    case!(c, m, "bindings[set 0, binding 0].binding", |e| k(e, "main")
        .bindings
        .swap(0, 1));
    case!(c, m, "bindings[set 0, binding 0].binding", |e| b(
        e, "main", 0, 1
    )
    .binding = 0);
    case!(c, m, "bindings[set 0, binding 1].count", |e| b(
        e, "main", 0, 1
    )
    .count = 0);
    case!(c, m, "bindings[set 0, binding 1].kind", |e| b(
        e, "main", 0, 1
    )
    .kind =
        BindingKind(42));
    case!(c, m, "bindings[set 0, binding 1].access", |e| b(
        e, "main", 0, 1
    )
    .access =
        Access(9));

    // Discrete slots.
    case!(c, d, "bindings[set 0, binding 0].buffer_index", |e| b(
        e, "discrete", 0, 0
    )
    .buffer_index =
        None);
    case!(c, d, "bindings[set 0, binding 1].buffer_index", |e| b(
        e, "discrete", 0, 1
    )
    .buffer_index =
        Some(28));
    case!(c, d, "bindings[set 1, binding 0].buffer_index", |e| b(
        e, "discrete", 1, 0
    )
    .buffer_index =
        Some(4));
    case!(c, d, "bindings[set 1, binding 0].buffer_index", |e| b(
        e, "discrete", 1, 0
    )
    .buffer_index =
        Some(6));
    case!(c, d, "bindings[set 0, binding 0].texture_index", |e| b(
        e, "discrete", 0, 0
    )
    .texture_index =
        Some(3));
    case!(c, d, "bindings[set 0, binding 0].sampler_index", |e| b(
        e, "discrete", 0, 0
    )
    .sampler_index =
        Some(3));
    case!(c, d, "bindings[set 0, binding 0].sampler_id", |e| b(
        e, "discrete", 0, 0
    )
    .sampler_id =
        Some(3));
    case!(c, d, "bindings[set 0, binding 0].id", |e| {
        let b = b(e, "discrete", 0, 0);
        b.id = Some(0);
        b.byte_offset = Some(0);
    });
    case!(c, d, "bindings[set 1, binding 1].texture_index", |e| b(
        e, "discrete", 1, 1
    )
    .texture_index =
        Some(128));
    case!(c, d, "bindings[set 1, binding 3].texture_index", |e| b(
        e, "discrete", 1, 3
    )
    .texture_index =
        Some(127));
    case!(c, d, "bindings[set 1, binding 3].texture_index", |e| b(
        e, "discrete", 1, 3
    )
    .texture_index =
        Some(0));
    case!(c, d, "bindings[set 1, binding 2].sampler_index", |e| b(
        e, "discrete", 1, 2
    )
    .sampler_index =
        Some(16));
    case!(c, d, "bindings[set 1, binding 3].sampler_index", |e| b(
        e, "discrete", 1, 3
    )
    .sampler_index =
        Some(15));
    case!(c, d, "bindings[set 1, binding 3].sampler_index", |e| b(
        e, "discrete", 1, 3
    )
    .sampler_index =
        None);
    case!(c, d, "bindings[set 1, binding 2].buffer_index", |e| b(
        e, "discrete", 1, 2
    )
    .buffer_index =
        Some(20));
    case!(c, d, "bindings[set 1, binding 2].texture_index", |e| b(
        e, "discrete", 1, 2
    )
    .texture_index =
        Some(20));

    // Argument-buffer members.
    case!(c, m, "bindings[set 0, binding 1].byte_offset", |e| b(
        e, "main", 0, 1
    )
    .byte_offset =
        None);
    case!(c, m, "bindings[set 0, binding 1].id", |e| b(
        e, "main", 0, 1
    )
    .id = None);
    case!(c, m, "bindings[set 0, binding 1].id", |e| {
        let b = b(e, "main", 0, 1);
        b.id = None;
        b.byte_offset = None;
    });
    case!(c, m, "bindings[set 0, binding 1].buffer_index", |e| b(
        e, "main", 0, 1
    )
    .buffer_index =
        Some(3));
    case!(c, m, "bindings[set 1, binding 2].id", |e| b(
        e, "main", 0, 2
    )
    .set = 1);
    case!(c, m, "bindings[set 0, binding 1].byte_offset", |e| b(
        e, "main", 0, 1
    )
    .byte_offset =
        Some(4));
    case!(c, m, "bindings[set 0, binding 2].byte_offset", |e| b(
        e, "main", 0, 2
    )
    .byte_offset =
        Some(24));
    case!(c, m, "bindings[set 0, binding 1].id", |e| b(
        e, "main", 0, 1
    )
    .id = Some(0));
    case!(c, m, "bindings[set 0, binding 1].byte_offset", |e| b(
        e, "main", 0, 1
    )
    .byte_offset =
        Some(0));
    case!(c, m, "bindings[set 0, binding 2].id", |e| b(
        e, "main", 0, 1
    )
    .count = 2);
    case!(c, im, "bindings[set 0, binding 1].id", |e| b(
        e, "images", 0, 1
    )
    .id = Some(9));
    case!(
        c,
        im,
        "bindings[set 0, binding 1].sampler_byte_offset",
        |e| b(e, "images", 0, 1).sampler_byte_offset = None
    );
    case!(c, im, "bindings[set 0, binding 2].sampler_id", |e| b(
        e, "images", 0, 2
    )
    .sampler_id =
        Some(3));
    case!(
        c,
        im,
        "bindings[set 0, binding 2].sampler_byte_offset",
        |e| b(e, "images", 0, 2).sampler_byte_offset = Some(24)
    );
    case!(c, im, "bindings[set 0, binding 3].id", |e| b(
        e, "images", 0, 3
    )
    .texture_index =
        None);

    // Sizes indices.
    case!(c, im, "bindings[set 0, binding 0].sizes_index", |e| b(
        e, "images", 0, 0
    )
    .sizes_index =
        Some(0));
    case!(c, m, "bindings[set 0, binding 0].sizes_index", |e| b(
        e, "main", 0, 0
    )
    .sizes_index =
        Some(0));
    case!(c, d, "bindings[set 0, binding 0].sizes_index", |e| {
        let k = k(e, "discrete");
        k.sizes_buffer_index = None;
        k.sizes_entries = 0;
    });
    case!(c, d, "bindings[set 0, binding 1].sizes_index", |e| b(
        e, "discrete", 0, 1
    )
    .sizes_index =
        Some(2));
    case!(c, al, "bindings[set 0, binding 1].sizes_index", |e| b(
        e,
        "array_length",
        0,
        1
    )
    .sizes_index =
        // The largest value that is not `Unset` (which reads as absent).
        Some(runtime_loader::UNSET - 1));

    // `Unset` stored where a value is required reads as absent, and is
    // reported as missing.
    case!(c, d, "bindings[set 0, binding 0].buffer_index", |e| b(
        e, "discrete", 0, 0
    )
    .buffer_index =
        Some(runtime_loader::UNSET));
    case!(c, m, "bindings[set 0, binding 1].id", |e| b(
        e, "main", 0, 1
    )
    .id =
        Some(runtime_loader::UNSET));
    case!(c, m, "bindings[set 0, binding 1].byte_offset", |e| b(
        e, "main", 0, 1
    )
    .byte_offset =
        Some(runtime_loader::UNSET));
    // The companion buffer of emulated image atomics (format 5).
    case!(
        c,
        im,
        "bindings[set 0, binding 0].atomic_row_alignment",
        |e| b(e, "images", 0, 0).atomic = (None, Some(6), Some(48), Some(256))
    );
    case!(
        c,
        im,
        "bindings[set 0, binding 3].atomic_buffer_index",
        |e| b(e, "images", 0, 3).atomic = (Some(1), None, None, None)
    );
    case!(
        c,
        im,
        "bindings[set 0, binding 3].atomic_row_alignment",
        |e| b(e, "images", 0, 3).atomic = (Some(1), None, None, Some(100))
    );
    case!(
        c,
        im,
        "bindings[set 0, binding 3].atomic_buffer_index",
        |e| b(e, "images", 0, 3).atomic = (Some(0), None, None, Some(256))
    );
    case!(c, im, "bindings[set 0, binding 3].atomic_id", |e| b(
        e, "images", 0, 3
    )
    .atomic =
        (None, Some(6), Some(48), Some(256)));
    case!(c, im, "bindings[set 0, binding 2].sampler_id", |e| b(
        e, "images", 0, 2
    )
    .sampler_id =
        Some(runtime_loader::UNSET));
    case!(c, al, "argument_buffers[set 0].sizes_id", |e| k(
        e,
        "array_length"
    )
    .abs[0]
        .sizes_id =
        Some(runtime_loader::UNSET));

    // Binding names: one per binding.
    case!(c, None, "binding_names", |e| k(e, "main").binding_names =
        Some(vec!["only_one".into()]));
    case!(c, None, "binding_names", |e| k(e, "main").binding_names =
        Some(Vec::new()));
    case!(c, None, "binding_names", |e| k(e, "main").binding_names =
        Some(vec![String::new(); 4]));
    case!(c, None, "binding_names", |e| e.omit_binding_names = true);

    // Record ranges: consecutive, inside their vectors, covering them.
    case!(c, al, "bindings", |e| e.kernels[0].bindings_range =
        Some((1, 2)));
    case!(c, s, "bindings", |e| {
        let first: usize = e.kernels[..5].iter().map(|k| k.bindings.len()).sum();
        e.kernels[5].bindings_range = Some((first as u32, 1000));
    });
    case!(c, s, "bindings", |e| {
        let first: usize = e.kernels[..5].iter().map(|k| k.bindings.len()).sum();
        e.kernels[5].bindings_range = Some((first as u32, u32::MAX));
    });
    case!(c, None, "bindings", |e| e.orphan_binding = true);
    case!(c, None, "libraries[0].msl_source", |e| e.libraries[0]
        .msl_blob =
        Some((4, 100_000)));
    case!(c, None, "libraries[0].msl_source", |e| e.libraries[0]
        .msl_blob =
        Some((u32::MAX, u32::MAX)));
    c
}

#[test]
fn valid_executable_loads_with_typed_accessors() {
    let bytes = all().build();
    let exe = Executable::load(&bytes).expect("valid executable");
    assert_eq!(exe.kernels().len(), 6);
    let names: Vec<_> = exe.entry_points().map(|k| k.name()).collect();
    assert_eq!(
        names,
        [
            "array_length",
            "discrete",
            "images",
            "main",
            "sparse",
            "spec"
        ]
    );
    for name in &names {
        let found = exe
            .kernel(name)
            .map(|k| exe.strings().get(k.names().name()));
        assert_eq!(found, Some(Some(*name)));
        assert_eq!(exe.entry_point(name).map(|k| k.name()), Some(*name));
    }
    // Before the first, between two, after the last, a prefix.
    for missing in ["a", "b", "mai", "main1", "zzz", ""] {
        assert!(exe.kernel(missing).is_none(), "{missing}");
    }

    let main = exe.entry_point("main").unwrap();
    assert_eq!(main.msl_name(), "main0");
    assert_eq!(main.default_threads_per_threadgroup(), [64, 1, 1]);
    assert_eq!(main.binding_model(), BindingModel::ArgumentBuffers);
    assert_eq!(main.argument_buffer(0).map(|a| a.size()), Some(24));
    assert_eq!(main.binding(0, 2).map(|b| b.min_size()), Some(8));
    assert_eq!(main.library().msl_version().major(), 3);

    let spec = exe.entry_point("spec").unwrap();
    assert_eq!(spec.threadgroup_size()[0].spec_id, Some(0));
    assert_eq!(spec.function_constants().len(), 4);
    assert_eq!(
        spec.function_constant(2).map(|c| c.type_()),
        Some(ScalarType::Bool)
    );

    let d = exe.entry_point("discrete").unwrap();
    assert_eq!(
        d.push_constants().map(|p| (p.buffer_index, p.size)),
        Some((6, 8))
    );
    assert_eq!(
        d.sizes_buffer().map(|s| (s.buffer_index, s.entries)),
        Some((7, 5))
    );
}

#[test]
fn every_corrupted_field_is_reported_with_kernel_and_field() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in &cases {
        let mut exe = all();
        (case.mutate)(&mut exe);
        let bytes = exe.build();
        match Executable::load(&bytes) {
            Err(LoadError::Invalid(v)) => {
                if v.kernel.as_deref() != case.kernel || v.field != case.field {
                    failures.push(format!(
                        "line {}: expected {:?} / {}, got {:?} / {} ({v})",
                        case.line, case.kernel, case.field, v.kernel, v.field
                    ));
                }
            }
            other => failures.push(format!(
                "line {}: expected a violation, got {other:?}",
                case.line
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 90, "{} cases", cases.len());
}

#[test]
fn violation_messages_name_kernel_and_field() {
    let mut exe = all();
    b(&mut exe, "main", 0, 1).byte_offset = Some(4);
    let err = Executable::load(&exe.build()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid executable: kernel `main`: bindings[set 0, binding 1].byte_offset: 4 is not a multiple of 8"
    );
    let mut exe = all();
    b(&mut exe, "discrete", 1, 0).buffer_index = Some(6);
    let err = Executable::load(&exe.build()).unwrap_err();
    assert_eq!(
        err.violation().map(|v| v.message.as_str()),
        Some("6..7 in the buffer argument table collides with push_constants (6..7)")
    );
}

#[test]
fn strings_are_shared_and_read_through_the_typed_views() {
    let mut exe = all();
    b(&mut exe, "main", 0, 0).name = "data".into();
    b(&mut exe, "sparse", 0, 3).name = "data".into();
    k(&mut exe, "main").capabilities = vec!["Shader".into(), "Int8".into()];
    k(&mut exe, "spec").fcs[1]
        .aliases
        .push((ScalarType::Int32, 5));
    k(&mut exe, "spec").fcs[1]
        .aliases
        .push((ScalarType::UInt32, 6));
    k(&mut exe, "spec").fcs[3]
        .aliases
        .push((ScalarType::UInt32, 7));
    k(&mut exe, "sparse").push_members = vec![(0, 4), (8, 8)];
    exe.toolchain = Some("Apple metal version 32023.98 (metalfe-32023.98)".into());
    let bytes = exe.build();
    let loaded = Executable::load(&bytes).unwrap();

    // Each distinct string is stored once: "data", "Shader" and "test.spv"
    // appear once although several kernels use them.
    let text = loaded.strings().text();
    for s in ["data", "Shader", "test.spv"] {
        assert_eq!(text.matches(s).count(), 1, "{s} in {text:?}");
    }
    let main = loaded.entry_point("main").unwrap();
    assert_eq!(main.binding(0, 0).and_then(|b| b.name()), Some("data"));
    let sparse = loaded.entry_point("sparse").unwrap();
    assert_eq!(sparse.binding(0, 3).and_then(|b| b.name()), Some("data"));
    assert_eq!(main.capabilities().collect::<Vec<_>>(), ["Shader", "Int8"]);
    assert_eq!(main.entry_point(), "main");
    assert_eq!(main.source_file(), Some("test.spv"));

    // Each constant has its own aliases, found by id.
    let spec = loaded.entry_point("spec").unwrap();
    let aliases = |c: runtime_loader::FunctionConstant<'_>| -> Vec<(ScalarType, u64)> {
        c.aliases().map(|a| (a.type_(), a.default_bits())).collect()
    };
    let all: Vec<_> = spec
        .function_constants()
        .map(|c| (c.id(), c.name(), aliases(c)))
        .collect();
    assert_eq!(
        all,
        [
            (0, Some("c0"), vec![]),
            (
                1,
                Some("c1"),
                vec![(ScalarType::Int32, 5), (ScalarType::UInt32, 6)]
            ),
            (2, Some("c2"), vec![]),
            (3, Some("c3"), vec![(ScalarType::UInt32, 7)]),
        ]
    );
    assert_eq!(
        spec.function_constant(3).map(aliases),
        Some(vec![(ScalarType::UInt32, 7)])
    );
    assert_eq!(spec.function_constant(1).map(|c| aliases(c).len()), Some(2));
    assert!(spec.function_constant(4).is_none());

    let members: Vec<_> = sparse
        .push_constant_members()
        .map(|m| (m.offset, m.size, m.name, m.ty))
        .collect();
    assert_eq!(members, [(0, 4, None, "float32"), (8, 8, None, "float32")]);

    let lib = loaded.libraries().next().unwrap();
    assert_eq!(
        lib.metallib_toolchain(),
        Some("Apple metal version 32023.98 (metalfe-32023.98)")
    );
    let build = loaded.build_info().unwrap();
    assert_eq!(build.halc_version(), "test");
    assert_eq!(build.options().len(), 0);
}

#[test]
fn a_string_outside_the_text_or_splitting_a_character_is_named() {
    let mut exe = all();
    exe.kernels[0].name_str = Some((100_000, 4));
    let err = Executable::load(&exe.build()).unwrap_err();
    let text_len = |exe: &crate::common::Exe| {
        let mut e = exe.clone();
        e.kernels[0].name_str = None;
        let bytes = e.build();
        let n = Executable::load(&bytes).unwrap().strings().text().len();
        n
    };
    let n = text_len(&exe);
    assert_eq!(
        err.to_string(),
        format!("invalid executable: kernels[0].names.name: bytes 100000..100004 are outside Executable.strings ({n} bytes)")
    );

    let mut exe = all();
    exe.kernels[0].msl_name = "ñ0".into();
    exe.kernels[0].name_str = Some((1, 2));
    let err = Executable::load(&exe.build()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid executable: kernels[0].names.name: bytes 1..3 of Executable.strings split a UTF-8 character"
    );

    let mut exe = all();
    exe.strings_suffix = vec![b'a', 0xff];
    let err = Executable::load(&exe.build()).unwrap_err();
    assert!(
        err.to_string().starts_with("invalid executable: strings: is not UTF-8: invalid utf-8 sequence of 1 bytes from index"),
        "{err}"
    );
}

#[test]
fn binding_names_are_read_by_position_and_empty_is_none() {
    let mut exe = all();
    b(&mut exe, "main", 0, 0).name = "inBuf".into();
    b(&mut exe, "main", 0, 2).name = "params".into();
    let bytes = exe.build();
    let exe = Executable::load(&bytes).unwrap();
    let main = exe.entry_point("main").unwrap();
    let names: Vec<_> = main.bindings().map(|b| b.name()).collect();
    assert_eq!(names, [Some("inBuf"), None, Some("params")]);

    // Names are by position in the executable: the kernels after `main`
    // read theirs, not main's.
    let mut exe = all();
    b(&mut exe, "main", 0, 0).name = "inBuf".into();
    b(&mut exe, "sparse", 0, 3).name = "first_of_sparse".into();
    let bytes = exe.build();
    let exe = Executable::load(&bytes).unwrap();
    let sparse = exe.entry_point("sparse").unwrap();
    let names: Vec<_> = sparse.bindings().map(|b| b.name()).collect();
    assert_eq!(names, [Some("first_of_sparse"), None, None, None]);
}

#[test]
fn unset_slots_read_as_none() {
    let bytes = all().build();
    let exe = Executable::load(&bytes).unwrap();
    let main = exe.entry_point("main").unwrap();
    let b = main.binding(0, 1).unwrap();
    assert_eq!((b.id(), b.byte_offset()), (Some(1), Some(8)));
    assert_eq!(
        (b.buffer_index(), b.texture_index(), b.sampler_index()),
        (None, None, None)
    );
    assert_eq!(
        (b.sampler_id(), b.sampler_byte_offset(), b.sizes_index()),
        (None, None, None)
    );
    assert_eq!(b.raw().buffer_index(), runtime_loader::UNSET);
    let ab = main.argument_buffer(0).unwrap();
    assert_eq!((ab.sizes_id(), ab.sizes_byte_offset()), (None, None));
    let al = exe.entry_point("array_length").unwrap();
    let ab = al.argument_buffer(0).unwrap();
    assert_eq!((ab.sizes_id(), ab.sizes_byte_offset()), (Some(2), Some(16)));
}

#[test]
fn msl_source_utf8_is_checked_on_use_not_at_load() {
    let mut exe = all();
    exe.libraries[0].msl_source = Some(b"kernel void k() { \xff }".to_vec());
    let bytes = exe.build();
    // Loading does not read the source's bytes ...
    let loaded = Executable::load(&bytes).expect("loads");
    let lib = loaded.libraries().next().unwrap();
    // ... the runtime checks them when it compiles the source.
    let err = lib.msl_source().unwrap().unwrap_err();
    assert_eq!(err.valid_up_to(), 18);

    let good = all().build();
    let loaded = Executable::load(&good).unwrap();
    let lib = loaded.libraries().next().unwrap();
    assert_eq!(
        lib.msl_source().map(Result::unwrap),
        Some("kernel void k() {}")
    );
    let mut exe = all();
    exe.libraries[0].msl_source = None;
    exe.libraries[0].metallib = Some(b"MTLB fake".to_vec());
    let bytes = exe.build();
    let loaded = Executable::load(&bytes).unwrap();
    assert!(loaded.libraries().next().unwrap().msl_source().is_none());
}

#[test]
fn files_of_previous_formats_get_the_version_error() {
    // saxpy compiled by halc at format versions 2 (before bindings became
    // structs), 3 (before strings moved to Executable.strings), 4 (before
    // bindings recorded emulated image atomics' companion buffers) and 5
    // (before BindingKind.AccelerationStructure). Their tables do not match
    // this schema, so the full verifier alone would call them corrupt (2
    // and 3) or read them wrong (4: a Binding is 16 bytes longer; 5: a
    // loader of 5 would call kind 8 unknown); the version is read first.
    let old: [(u32, &[u8]); 4] = [
        (2, include_bytes!("data/saxpy.format2.halc")),
        (3, include_bytes!("data/saxpy.format3.halc")),
        (4, include_bytes!("data/saxpy.format4.halc")),
        (5, include_bytes!("data/saxpy.format5.halc")),
    ];
    for (version, bytes) in old {
        let err = Executable::load(bytes).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "unsupported format version {version} (this loader reads version {})",
                schema::FormatVersion::Current.0
            )
        );
        // Without the version in front, the same bytes fail structurally:
        // the check above is not passing by accident.
        if version < 4 {
            let opts = flatbuffers::VerifierOptions::default();
            assert!(schema::root_as_executable_with_opts(&opts, bytes).is_err());
        }
    }
}

#[test]
fn a_metallib_without_source_is_enough() {
    let mut exe = all();
    exe.libraries[0].msl_source = None;
    exe.libraries[0].metallib = Some(b"MTLB fake".to_vec());
    assert!(Executable::load(&exe.build()).is_ok());
}

#[test]
fn identifier_version_and_structure_are_checked_first() {
    let good = all().build();

    let mut bad_id = good.clone();
    bad_id[4..8].copy_from_slice(b"HALD");
    assert!(matches!(
        Executable::load(&bad_id),
        Err(LoadError::BadIdentifier)
    ));
    assert!(matches!(
        Executable::load(&[]),
        Err(LoadError::BadIdentifier)
    ));

    // 2 and 3: the formats before bindings became structs and before
    // strings moved to Executable.strings; 4: before bindings recorded the
    // companion buffer of emulated image atomics; 5: before acceleration
    // structures (see FormatVersion).
    for version in [0, 1, 2, 3, 4, 5, 7, u32::MAX] {
        let mut exe = all();
        exe.format_version = version;
        match Executable::load(&exe.build()) {
            Err(LoadError::Version { found, expected }) => {
                assert_eq!(
                    (found, expected),
                    (version, schema::FormatVersion::Current.0)
                )
            }
            other => panic!("version {version}: {other:?}"),
        }
    }

    let truncated = &good[..good.len() / 2];
    assert!(matches!(
        Executable::load(truncated),
        Err(LoadError::Corrupt(_))
    ));

    let limits = VerifyLimits {
        max_bytes: 64,
        ..VerifyLimits::default()
    };
    assert!(matches!(
        Executable::load_with_limits(&good, limits),
        Err(LoadError::TooLarge { limit: 64, .. })
    ));
    // The root and the build info: the only tables.
    let limits = VerifyLimits {
        max_tables: 1,
        ..VerifyLimits::default()
    };
    assert!(matches!(
        Executable::load_with_limits(&good, limits),
        Err(LoadError::Corrupt(_))
    ));
    let limits = VerifyLimits {
        max_argument_buffer_bytes: 16,
        ..VerifyLimits::default()
    };
    let err = Executable::load_with_limits(&good, limits).unwrap_err();
    assert_eq!(
        err.violation().map(|v| v.field.as_str()),
        Some("argument_buffers[set 0].size")
    );
}

#[test]
fn inputs_shorter_than_the_header_are_rejected_not_a_panic() {
    // Regression: the generated identifier check asserts on < 8 bytes.
    for len in 0..8 {
        let bytes = &b"\x08\0\0\0HALC"[..len];
        assert!(
            matches!(Executable::load(bytes), Err(LoadError::BadIdentifier)),
            "{len} bytes"
        );
    }
}

#[test]
fn owned_executable_reads_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.halc");
    std::fs::write(&path, all().build()).unwrap();
    let owned = OwnedExecutable::read(&path).unwrap();
    assert_eq!(owned.executable().kernels().len(), 6);
    assert!(owned.executable().entry_point("spec").is_some());

    let missing = dir.path().join("missing.halc");
    let err = OwnedExecutable::read(&missing).unwrap_err();
    assert!(matches!(err, LoadError::Io { .. }));
    assert!(err.to_string().contains("missing.halc"), "{err}");

    let small = VerifyLimits {
        max_bytes: 10,
        ..VerifyLimits::default()
    };
    assert!(matches!(
        OwnedExecutable::read_with_limits(&path, small),
        Err(LoadError::TooLarge { .. })
    ));
    let mut exe = all();
    exe.kernels.clear();
    std::fs::write(&path, exe.build()).unwrap();
    assert!(matches!(
        OwnedExecutable::read(&path),
        Err(LoadError::Invalid(_))
    ));
}

/// An executable with one kernel reading an acceleration structure: in an
/// argument buffer (`[[id(0)]]`) or discrete (`[[buffer(0)]]`).
fn accel_exe(model: BindingModel) -> Exe {
    let mut k = K::new("rq", model);
    let accel = B::new(0, 0, BindingKind::AccelerationStructure);
    let out = B::new(0, 1, BindingKind::StorageBuffer).access(Access::WriteOnly);
    if model == BindingModel::Discrete {
        k.bindings = vec![accel.buffer(0), out.buffer(1)];
    } else {
        k.abs = vec![crate::common::Ab {
            set: 0,
            buffer_index: 0,
            size: 16,
            ..Default::default()
        }];
        k.bindings = vec![accel.member(0, 0), out.member(1, 8)];
    }
    Exe::new(vec![k])
}

fn load_error(exe: &Exe) -> String {
    match Executable::load(&exe.build()) {
        Ok(_) => "loaded".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn acceleration_structures_verify_as_a_buffer_slot_or_an_argument_buffer_member() {
    for model in [BindingModel::Discrete, BindingModel::ArgumentBuffers] {
        let bytes = accel_exe(model).build();
        let loaded = Executable::load(&bytes).unwrap();
        let k = loaded.entry_point("rq").unwrap();
        let b = k.binding(0, 0).unwrap();
        assert_eq!(b.kind(), BindingKind::AccelerationStructure);
        if model == BindingModel::Discrete {
            assert_eq!((b.buffer_index(), b.id()), (Some(0), None));
        } else {
            assert_eq!(
                (b.buffer_index(), b.id(), b.byte_offset()),
                (None, Some(0), Some(0))
            );
        }
    }

    // Discrete: it takes a [[buffer]] slot like a buffer, so two on one slot
    // collide, and a texture slot is refused.
    let mut exe = accel_exe(BindingModel::Discrete);
    exe.kernels[0].bindings[1].buffer_index = Some(0);
    let e = load_error(&exe);
    assert!(e.contains("buffer_index"), "{e}");
    let mut exe = accel_exe(BindingModel::Discrete);
    exe.kernels[0].bindings[0].texture_index = Some(0);
    let e = load_error(&exe);
    assert!(
        e.contains("texture_index") && e.contains("set on a AccelerationStructure binding"),
        "{e}"
    );
    // No length for the sizes table.
    let mut exe = accel_exe(BindingModel::Discrete);
    exe.kernels[0].bindings[0].sizes_index = Some(0);
    exe.kernels[0].sizes_buffer_index = Some(2);
    exe.kernels[0].sizes_entries = 1;
    let e = load_error(&exe);
    assert!(
        e.contains("sizes_index") && e.contains("not a buffer"),
        "{e}"
    );
    // Argument buffers: an 8-byte member that may not overlap another.
    let mut exe = accel_exe(BindingModel::ArgumentBuffers);
    exe.kernels[0].bindings[1].byte_offset = Some(0);
    let e = load_error(&exe);
    assert!(e.contains("byte_offset"), "{e}");
    // Negative control: a kind past the schema's is unknown, so the checks
    // above are the acceleration structure's and not a blanket pass.
    let mut exe = accel_exe(BindingModel::Discrete);
    exe.kernels[0].bindings[0].kind = BindingKind(9);
    let e = load_error(&exe);
    assert!(e.contains("unknown binding kind 9"), "{e}");
}
