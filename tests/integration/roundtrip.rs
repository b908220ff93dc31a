//! Round trips: compile every fixture, write the executable, load it with
//! the runtime-loader and check that what the file records is the layout,
//! and that the layout *read back from the file* matches the MSL the file
//! carries.

use halc::msl::check::check;
use halc::msl::{
    ArgumentBufferLayout, BindingLayout, BindingModel, KernelLayout, LayoutOptions,
    PushConstantLayout,
};
use halc::runtime_loader::{schema as fb, Executable};
use halc::spirv::{Access, BindingKind, WorkgroupDim, WorkgroupSize};
use halc::Options;

use crate::{compute_fixtures, input};

fn kind(k: fb::BindingKind) -> BindingKind {
    match k {
        fb::BindingKind::StorageBuffer => BindingKind::StorageBuffer,
        fb::BindingKind::UniformBuffer => BindingKind::UniformBuffer,
        fb::BindingKind::StorageImage => BindingKind::StorageImage,
        fb::BindingKind::SampledImage => BindingKind::SampledImage,
        fb::BindingKind::Sampler => BindingKind::Sampler,
        fb::BindingKind::CombinedImageSampler => BindingKind::CombinedImageSampler,
        fb::BindingKind::UniformTexelBuffer => BindingKind::UniformTexelBuffer,
        fb::BindingKind::StorageTexelBuffer => BindingKind::StorageTexelBuffer,
        fb::BindingKind::AccelerationStructure => BindingKind::AccelerationStructure,
        other => panic!("unknown kind {other:?}"),
    }
}

fn access(a: fb::Access) -> Access {
    match a {
        fb::Access::ReadOnly => Access::ReadOnly,
        fb::Access::WriteOnly => Access::WriteOnly,
        fb::Access::ReadWrite => Access::ReadWrite,
        other => panic!("unknown access {other:?}"),
    }
}

/// Rebuilds the layout from what the file records.
fn layout_from_file(kv: runtime_loader::Kernel<'_>) -> KernelLayout {
    let k = kv.raw();
    KernelLayout {
        model: match k.binding_model() {
            fb::BindingModel::Discrete => BindingModel::Discrete,
            _ => BindingModel::ArgumentBuffers,
        },
        argument_buffers: kv
            .argument_buffers()
            .map(|a| ArgumentBufferLayout {
                set: a.set(),
                buffer_index: a.buffer_index(),
                size: a.size(),
                sizes_id: a.sizes_id(),
                sizes_byte_offset: a.sizes_byte_offset(),
            })
            .collect(),
        bindings: kv
            .bindings()
            .map(|b| BindingLayout {
                set: b.set(),
                binding: b.binding(),
                kind: kind(b.kind()),
                access: access(b.access()),
                count: b.count(),
                buffer_index: b.buffer_index(),
                texture_index: b.texture_index(),
                sampler_index: b.sampler_index(),
                id: b.id(),
                sampler_id: b.sampler_id(),
                byte_offset: b.byte_offset(),
                sampler_byte_offset: b.sampler_byte_offset(),
                min_size: b.min_size(),
                runtime_array_stride: b.runtime_array_stride(),
                sizes_index: b.sizes_index(),
                name: b.name().map(str::to_string),
                atomic_buffer: b.atomic_buffer().map(|a| halc::msl::AtomicBufferLayout {
                    buffer_index: a.buffer_index,
                    id: a.id,
                    byte_offset: a.byte_offset,
                    row_alignment: a.row_alignment,
                }),
            })
            .collect(),
        push_constants: kv.push_constants().map(|p| PushConstantLayout {
            buffer_index: p.buffer_index,
            size: p.size,
        }),
        sizes_buffer_index: k.sizes_buffer_index(),
        sizes_buffer_entries: k.sizes_buffer_entries(),
    }
}

#[test]
fn recorded_layout_matches_the_carried_msl_for_every_fixture() {
    let mut checked = 0;
    for path in compute_fixtures() {
        for model in [BindingModel::ArgumentBuffers, BindingModel::Discrete] {
            let opts = crate::options_for(model);
            let compiled = halc::compile(&[input(&path)], &opts)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let bytes = compiled.to_flatbuffer();
            let exe = Executable::load(&bytes).unwrap();
            let raw = exe.raw();
            assert_eq!(raw.kernels().len(), compiled.kernels.len());
            for (kv, want) in exe.entry_points().zip(&compiled.kernels) {
                let k = kv.raw();
                let got = layout_from_file(kv);
                assert_eq!(got, want.layout, "{}: {}", path.display(), want.name);
                assert_eq!(kv.library_index(), k.library() as usize);
                let msl = kv.library().msl_source().unwrap().unwrap();
                assert_eq!(msl, want.msl.source);
                assert_eq!(kv.msl_name(), want.msl.function_name);
                let dims: Vec<WorkgroupDim> = k
                    .threadgroup_size()
                    .iter()
                    .map(|d| WorkgroupDim {
                        value: d.size(),
                        spec_id: d.has_spec_id().then(|| d.spec_id()),
                    })
                    .collect();
                assert_eq!(dims, want.workgroup.dims.to_vec());
                let wg = WorkgroupSize {
                    dims: [dims[0], dims[1], dims[2]],
                    source: want.workgroup.source,
                };
                check(msl, kv.msl_name(), &got, &wg)
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), want.name));
                checked += 1;
            }
        }
    }
    assert!(checked >= 2 * 17, "only {checked} kernels checked");
}

#[test]
fn output_is_byte_identical_across_runs() {
    for path in compute_fixtures() {
        let a = halc::compile(&[input(&path)], &Options::default())
            .unwrap()
            .to_flatbuffer();
        let b = halc::compile(&[input(&path)], &Options::default())
            .unwrap()
            .to_flatbuffer();
        assert_eq!(a, b, "{}", path.display());
    }
}

#[test]
fn all_fixtures_in_one_executable_are_found_by_name() {
    // glslc names every entry point `main`: each such kernel takes its file's
    // stem, so every fixture fits in one executable. The two hand-written
    // two-entry-point modules share `main_a`/`main_b`: one is renamed.
    let inputs: Vec<_> = compute_fixtures()
        .iter()
        .map(|p| {
            let i = input(p);
            if p.file_name().unwrap() == "two_entry_points_builtin.spv" {
                i.rename("main_a", "builtin_a")
                    .rename("main_b", "builtin_b")
            } else {
                i
            }
        })
        .collect();
    let compiled = halc::compile(&inputs, &Options::default()).unwrap();
    let bytes = compiled.to_flatbuffer();
    let exe = Executable::load(&bytes).unwrap();
    let names: Vec<&str> = exe.entry_points().map(|k| k.name()).collect();
    for (name, entry) in [
        ("saxpy", "main"),
        ("saxpy_O", "main"),
        ("add_one", "main"),
        ("block_sum", "main"),
        ("main_a", "main_a"),
        ("builtin_b", "main_b"),
        ("main_cs", "main_cs"),
    ] {
        let k = exe
            .entry_point(name)
            .unwrap_or_else(|| panic!("{name} not found in {names:?}"));
        assert_eq!(k.entry_point(), entry);
    }
    // One kernel per module with a single compute entry point, two for
    // each of the two-entry-point modules.
    assert_eq!(exe.entry_points().len(), compute_fixtures().len() + 2);
    assert_eq!(exe.raw().libraries().len(), exe.entry_points().len());
}

#[test]
fn a_kernel_name_taken_twice_names_both_inputs() {
    let saxpy = input(&crate::kernel("saxpy.spv"));
    let mut other = input(&crate::kernel("add_one.spv"));
    other.name = "elsewhere/saxpy.spv".into();
    let e = halc::compile(&[saxpy.clone(), other.clone()], &Options::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "elsewhere/saxpy.spv: entry point `main`: kernel name `saxpy` is already taken by entry point `main` of fixtures/kernels/saxpy.spv; kernel names must be unique in an executable: rename one with FILE:ENTRY=NAME"
    );
    // A rename resolves it; renaming an entry point the module lacks is an error.
    let ok = halc::compile(
        &[saxpy.clone(), other.clone().rename("main", "add_one")],
        &Options::default(),
    )
    .unwrap();
    let names: Vec<_> = ok.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["add_one", "saxpy"]);
    let e = halc::compile(&[saxpy.rename("nope", "x")], &Options::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "fixtures/kernels/saxpy.spv: rename nope=x: the module has no GLCompute entry point `nope`; its GLCompute entry points are: main"
    );
}

/// Every kernel of every fixture, in every binding variant, loads with the
/// runtime-loader's full verification and yields a dispatch plan for
/// bindings shaped by its own recorded layout.
#[test]
fn every_fixture_loads_verifies_and_plans_in_every_variant() {
    use halc::msl::{Platform, Tier};
    use halc::runtime_loader::plan::{
        Bindings, BufferBinding, DispatchPlan, Grid, Resource, Specialization,
    };

    let variants = [
        LayoutOptions::default(),
        LayoutOptions {
            model: BindingModel::Discrete,
            ..Default::default()
        },
        LayoutOptions {
            tier: Tier::Tier1,
            ..Default::default()
        },
        LayoutOptions {
            platform: Platform::IOS,
            tier: Tier::Tier1,
            ..Default::default()
        },
    ];
    let mut planned = 0;
    for path in compute_fixtures() {
        for layout in &variants {
            let opts = Options {
                layout: layout.clone(),
                ..Default::default()
            };
            let compiled = halc::compile(&[input(&path)], &opts)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let bytes = compiled.to_flatbuffer();
            let exe = Executable::load(&bytes)
                .unwrap_or_else(|e| panic!("{} {layout:?}: {e}", path.display()));
            for k in exe.entry_points() {
                let mut b = Bindings::new();
                for binding in k.bindings() {
                    let resource = |i: u32| match binding.kind() {
                        fb::BindingKind::StorageBuffer | fb::BindingKind::UniformBuffer => {
                            Resource::Buffer(BufferBinding {
                                gpu_address: 0x1_0000_0000 * u64::from(i + 1),
                                offset: 0,
                                length: binding.min_size().max(4096),
                            })
                        }
                        fb::BindingKind::Sampler => Resource::Sampler { resource_id: 1 },
                        fb::BindingKind::CombinedImageSampler => Resource::CombinedImageSampler {
                            texture_id: 2,
                            sampler_id: 1,
                        },
                        fb::BindingKind::AccelerationStructure => Resource::AccelerationStructure {
                            resource_id: 3,
                            primitive_structures: 2,
                        },
                        // Emulated image atomics: a texture on a buffer,
                        // rows as the kernel indexes them.
                        _ => match binding.atomic_buffer() {
                            Some(a) => Resource::TextureOnBuffer {
                                resource_id: 2,
                                buffer: BufferBinding {
                                    gpu_address: 0x9_0000_0000 * u64::from(i + 1),
                                    offset: 0,
                                    length: a.bytes_per_row(16) * 16,
                                },
                                width: 16,
                                bytes_per_row: a.bytes_per_row(16),
                            },
                            None => Resource::Texture { resource_id: 2 },
                        },
                    };
                    b.bind_array(
                        binding.set(),
                        binding.binding(),
                        (0..binding.count()).map(resource),
                    );
                }
                let push = vec![0; k.push_constants().map_or(0, |p| p.size as usize)];
                let spec = Specialization::defaults(&k);
                DispatchPlan::new(&k, &spec, &b, &push, Grid::Threads([1000, 1, 1]))
                    .unwrap_or_else(|e| panic!("{} {layout:?}: {e}", path.display()));
                planned += 1;
            }
        }
    }
    assert!(planned >= 4 * 17, "only {planned} kernels planned");
}

#[test]
fn baked_spec_constants_fix_workgroup_size_array_sizes_and_leave_function_constants() {
    use halc::spirv::SpecValue;
    let spec = |id: u32, text: &str| SpecValue {
        id,
        text: text.into(),
    };

    // Workgroup size driven by SpecId 0, plus float/bool/int constants.
    let opts = Options {
        specs: vec![spec(0, "256"), spec(1, "0.5"), spec(2, "false")],
        ..Default::default()
    };
    let c = halc::compile(&[input(&crate::kernel("spec_constants.spv"))], &opts).unwrap();
    let k = &c.kernels[0];
    assert_eq!(k.workgroup.values(), [256, 1, 1]);
    assert!(k.workgroup.dims.iter().all(|d| d.spec_id.is_none()));
    let open: Vec<u32> = k.function_constants.iter().map(|f| f.id).collect();
    assert_eq!(open, vec![3], "only OFFSET stays a function constant");
    let baked: Vec<(u32, u64)> = k.baked.iter().map(|b| (b.id, b.value.0)).collect();
    assert_eq!(
        baked,
        vec![(0, 256), (1, u64::from(0.5f32.to_bits())), (2, 0)]
    );
    assert!(!k.msl.source.contains("function_constant(0)"));
    assert!(!k.msl.source.contains("function_constant(1)"));
    assert!(k.msl.source.contains("function_constant(3)"));
    assert!(
        k.msl.source.contains("uint3(256u, 1u, 1u)"),
        "{}",
        k.msl.source
    );
    let bytes = c.to_flatbuffer();
    let exe = halc::runtime_loader::Executable::load(&bytes).unwrap();
    let kk = exe.raw().kernels().get(0);
    assert_eq!(kk.max_threads_per_threadgroup(), 256);
    assert!(kk.threadgroup_size().iter().all(|d| !d.has_spec_id()));

    // A shared array sized by the workgroup size: threadgroup memory follows.
    let opts = Options {
        specs: vec![spec(0, "128")],
        ..Default::default()
    };
    let c = halc::compile(&[input(&crate::kernel("shared_spec_size.spv"))], &opts).unwrap();
    assert_eq!(c.kernels[0].entry.threadgroup_memory_bytes, 128 * 4);
    assert_eq!(c.kernels[0].workgroup.values(), [128, 1, 1]);

    // LocalSizeId (vulkan1.3) with duplicated SpecIds: every copy is baked.
    let opts = Options {
        specs: vec![spec(0, "16"), spec(1, "8")],
        ..Default::default()
    };
    let c = halc::compile(&[input(&crate::kernel("local_size_id.spv"))], &opts).unwrap();
    assert_eq!(c.kernels[0].workgroup.values(), [16, 8, 1]);
    assert!(c.kernels[0].function_constants.is_empty());
    // The baked composite is a plain constant: SPIRV-Cross folds its uses.
    assert!(
        c.kernels[0].msl.source.contains("gl_NumWorkGroups.x * 16u"),
        "{}",
        c.kernels[0].msl.source
    );
    assert!(!c.kernels[0].msl.source.contains("function_constant"));
}

/// `--spec` on a SpecId that sizes a shared array through the WorkgroupSize
/// builtin: the extraction is folded into a constant. SPIRV-Cross emitted
/// it as `constant uint _17 = _0;` (an undeclared identifier, with exit 0)
/// before halc folded it; found by running the MSL on the CPU backend.
#[test]
fn baking_a_workgroup_size_that_sizes_shared_memory_gives_declared_msl() {
    let opts = Options {
        specs: vec!["0=128".parse().unwrap()],
        ..Default::default()
    };
    let c = halc::compile(&[input(&crate::kernel("shared_spec_size.spv"))], &opts).unwrap();
    let msl = &c.kernels[0].msl.source;
    assert!(!msl.contains("= _0;"), "{msl}");
    assert!(
        msl.contains("threadgroup spvUnsafeArray<float, 128> tile;"),
        "{msl}"
    );
}

#[test]
fn big_endian_input_compiles_to_the_same_kernel() {
    let le = halc::compile(&[input(&crate::kernel("saxpy.spv"))], &Options::default()).unwrap();
    let be = halc::compile(
        &[input(&crate::kernel("saxpy_be.spv"))],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(le.kernels[0].msl, be.kernels[0].msl);
    assert_eq!(le.kernels[0].layout, be.kernels[0].layout);
}

#[test]
fn stripped_names_do_not_change_the_layout() {
    // glslc -O strips names: slots are keyed by (set, binding), never names.
    let named = halc::compile(&[input(&crate::kernel("saxpy.spv"))], &Options::default()).unwrap();
    let bare = halc::compile(&[input(&crate::kernel("saxpy_O.spv"))], &Options::default()).unwrap();
    let strip = |l: &KernelLayout| {
        let mut l = l.clone();
        l.bindings.iter_mut().for_each(|b| b.name = None);
        l
    };
    assert_eq!(
        strip(&named.kernels[0].layout),
        strip(&bare.kernels[0].layout)
    );
}

/// One SpecId on two declarations (ggml's pattern): unbaked, one function
/// constant whose other declaration keeps its own default (the threadgroup
/// x of 1 beside BLOCK_SIZE's 32); baked, every declaration takes the bits,
/// read as its own type (`-3` sets the uint workgroup y and the int alike).
#[test]
fn a_spec_id_shared_by_declarations_of_two_defaults_and_types() {
    let inp = input(&crate::kernel("spec_defaults.spv"));
    let c = halc::compile(std::slice::from_ref(&inp), &Options::default()).unwrap();
    let k = &c.kernels[0];
    assert_eq!(k.workgroup.values(), [1, 1, 1]);
    let fc: Vec<_> = k
        .function_constants
        .iter()
        .map(|f| {
            (
                f.id,
                f.ty.to_string(),
                f.default.0,
                f.aliases
                    .iter()
                    .map(|a| (a.ty.to_string(), a.default.0))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_eq!(
        fc,
        [
            (0, "u32".into(), 32, vec![("u32".into(), 1)]),
            (1, "u32".into(), 1, vec![("i32".into(), 0xffff_fffd)]),
        ]
    );
    let exe_bytes = c.to_flatbuffer();
    let exe = Executable::load(&exe_bytes).unwrap();
    assert_eq!(
        exe.entry_point("spec_defaults")
            .unwrap()
            .default_threads_per_threadgroup(),
        [1, 1, 1]
    );

    let baked = Options {
        specs: vec!["0=16".parse().unwrap(), "1=2".parse().unwrap()],
        ..Default::default()
    };
    let c = halc::compile(std::slice::from_ref(&inp), &baked).unwrap();
    let k = &c.kernels[0];
    assert_eq!(k.workgroup.values(), [16, 2, 1]);
    assert!(k.function_constants.is_empty());
    assert!(!k.msl.source.contains("function_constant"));
    // `-3` is no u32 but is an i32: the bits go to both declarations, and
    // 0xfffffffd threads is over Metal's limit.
    let neg = Options {
        specs: vec!["1=-3".parse().unwrap()],
        ..Default::default()
    };
    let e = halc::compile(std::slice::from_ref(&inp), &neg)
        .unwrap_err()
        .to_string();
    assert!(e.contains("workgroup size 1x4294967293x1"), "{e}");
}

/// rspirv rejected an `OpSpecConstantOp` CompositeInsert/CompositeExtract
/// with two indices as "extra operands": valid SPIR-V, now read.
#[test]
fn spec_constant_ops_with_several_indices_are_read() {
    let inp = input(&crate::kernel("spec_op_composite.spv"));
    let c = halc::compile(std::slice::from_ref(&inp), &Options::default()).unwrap();
    assert!(
        c.kernels[0].msl.source.contains("_17[1][0]"),
        "{}",
        c.kernels[0].msl.source
    );
}

/// Two block types on one (set, binding): one slot, the union of accesses.
#[test]
fn aliased_descriptors_share_one_slot_in_both_models() {
    let inp = input(&crate::kernel("aliased_buffers.spv"));
    for model in [BindingModel::ArgumentBuffers, BindingModel::Discrete] {
        let opts = crate::options_for(model);
        let c = halc::compile(std::slice::from_ref(&inp), &opts).unwrap();
        let b = &c.kernels[0].layout.bindings;
        assert_eq!(b.len(), 2, "{model:?}");
        assert_eq!((b[0].set, b[0].binding), (0, 0));
        assert!(b[0].sizes_index.is_some());
        assert_eq!(b[0].access, Access::ReadOnly);
    }
}

/// One SpecId declared with two widths (or as a bool and a number) cannot be
/// one Metal function constant: refused with both types named.
#[test]
fn a_spec_id_of_two_widths_is_refused() {
    use spirv_tools::assembler::Assembler;
    let module = |second_type: &str| {
        let text = format!(
            r#"OpCapability Shader
               OpCapability Int16
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %a SpecId 3
               OpDecorate %b SpecId 3
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %ushort = OpTypeInt 16 0
       %bool = OpTypeBool
          %a = OpSpecConstant %uint 1
          %b = {second_type}
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
"#
        );
        let bin = spirv_tools::assembler::create(None)
            .assemble(&text, Default::default())
            .unwrap();
        halc::Input::new("two_widths.spv", bin.as_bytes().to_vec())
    };
    for (second, expect) in [
        (
            "OpSpecConstant %ushort 2",
            "two_widths.spv: SpecId 3 is declared as both u32 and u16: one Metal function constant cannot have two widths",
        ),
        (
            "OpSpecConstantTrue %bool",
            "two_widths.spv: SpecId 3 is declared as both u32 and bool: one Metal function constant cannot be both a bool and a number",
        ),
    ] {
        let e = halc::compile(&[module(second)], &Options::default())
            .unwrap_err()
            .to_string();
        assert_eq!(e, expect);
    }
}

/// The check of the MSL against the layout covers emulated image atomics'
/// companion buffers: a recorded slot, id or row alignment that is not the
/// MSL's is refused, naming it (and the untampered kernel passes).
#[test]
fn the_msl_check_covers_emulated_image_atomics() {
    let path = crate::kernel("image_atomics_emulated.spv");
    for model in [BindingModel::ArgumentBuffers, BindingModel::Discrete] {
        let compiled = halc::compile(&[input(&path)], &crate::options_for(model)).unwrap();
        let k = &compiled.kernels[0];
        let msl = &k.msl.source;
        let name = &k.msl.function_name;
        check(msl, name, &k.layout, &k.workgroup).unwrap();
        let mut moved = k.layout.clone();
        let a = moved.bindings[0].atomic_buffer.as_mut().unwrap();
        match model {
            BindingModel::Discrete => a.buffer_index = Some(9),
            BindingModel::ArgumentBuffers => a.id = Some(9),
        }
        let e = check(msl, name, &moved, &k.workgroup).unwrap_err();
        let want = match model {
            BindingModel::Discrete => {
                "layout puts image-atomic buffer of (set 0, binding 0) at [[buffer(9)]]"
            }
            BindingModel::ArgumentBuffers => "argument buffer of set 0: MSL members (id, count)",
        };
        assert!(e.contains(want), "{model:?}: {e}");
        let mut aligned = k.layout.clone();
        for b in &mut aligned.bindings {
            if let Some(a) = &mut b.atomic_buffer {
                a.row_alignment = 64;
            }
        }
        let e = check(msl, name, &aligned, &k.workgroup).unwrap_err();
        assert_eq!(
            e,
            "the MSL's emulated image atomics assume rows aligned to 256 bytes, the layout records 64"
        );
        // Without the companion in the layout, the MSL's parameter or
        // member is one the layout does not assign.
        let mut dropped = k.layout.clone();
        dropped.bindings[0].atomic_buffer = None;
        assert!(check(msl, name, &dropped, &k.workgroup).is_err());
    }
}
