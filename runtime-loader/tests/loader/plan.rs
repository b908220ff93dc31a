//! Dispatch plans: exact encoder commands and argument-buffer bytes for each
//! layout, and every error case.

use runtime_loader::plan::{
    Bindings, BufferBinding, BytesPurpose, Command, DispatchPlan, Grid, MemberValue, PlanError,
    Resource, ResourceKey, SpecValue, Specialization, Usage,
};
use runtime_loader::schema::{Access, BindingKind, BindingModel, Platform, ScalarType};
use runtime_loader::Executable;

use crate::common::{all, Exe};

fn key(set: u32, binding: u32, element: u32) -> ResourceKey {
    ResourceKey {
        set,
        binding,
        element,
    }
}

fn le(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn plan(
    bytes: &[u8],
    kernel: &str,
    b: &Bindings,
    push: &[u8],
    grid: Grid,
) -> Result<DispatchPlan, PlanError> {
    let exe = Executable::load(bytes).unwrap();
    let k = exe.entry_point(kernel).unwrap();
    DispatchPlan::new(&k, &Specialization::defaults(&k), b, push, grid)
}

fn saxpy_bindings() -> Bindings {
    let mut b = Bindings::new();
    b.buffer(0, 0, 0x1_0000, 0, 400)
        .buffer(0, 1, 0x2_0000, 256, 400)
        .buffer(0, 2, 0x3_0000, 0, 8);
    b
}

#[test]
fn saxpy_argument_buffer() {
    let bytes = all().build();
    let p = plan(
        &bytes,
        "main",
        &saxpy_bindings(),
        &[],
        Grid::Threads([100, 1, 1]),
    )
    .unwrap();
    assert_eq!(p.threads_per_threadgroup, [64, 1, 1]);
    assert_eq!(p.threadgroups, [2, 1, 1]);
    assert_eq!(p.argument_buffers.len(), 1);
    let ab = &p.argument_buffers[0];
    assert_eq!((ab.set, ab.buffer_index), (0, 0));
    assert_eq!(ab.bytes, le(&[0x1_0000, 0x2_0100, 0x3_0000]));
    assert_eq!(
        ab.members
            .iter()
            .map(|m| (m.id, m.byte_offset))
            .collect::<Vec<_>>(),
        [(0, 0), (1, 8), (2, 16)]
    );
    assert_eq!(
        ab.members[1].value,
        MemberValue::Buffer {
            gpu_address: 0x2_0000,
            offset: 256
        }
    );
    assert!(ab.sizes_table.is_none());
    assert_eq!(
        p.commands,
        [
            Command::SetArgumentBuffer { index: 0, set: 0 },
            Command::UseResource {
                key: key(0, 0, 0),
                usage: Usage::Read
            },
            Command::UseResource {
                key: key(0, 1, 0),
                usage: Usage::ReadWrite
            },
            Command::UseResource {
                key: key(0, 2, 0),
                usage: Usage::Read
            },
            Command::Dispatch {
                threadgroups: [2, 1, 1],
                threads_per_threadgroup: [64, 1, 1]
            },
        ]
    );
    let text = p.to_string();
    assert!(
        text.contains("0. setBuffer(argument buffer of set 0) at buffer(0)"),
        "{text}"
    );
    assert!(
        text.contains("2. useResource((set 0, binding 1), read-write)"),
        "{text}"
    );
}

/// `push` as `setBytes` sends it: these blocks' sizes are powers of two,
/// already a whole MSL struct (a 28-byte block is padded to 32: halc's
/// `device_addresses_reach_buffers_the_host_points_to`).
fn padded(push: &[u8]) -> Vec<u8> {
    assert!(push.len().is_power_of_two());
    push.to_vec()
}

#[test]
fn sparse_sets_and_push_constants() {
    let bytes = all().build();
    let mut b = Bindings::new();
    b.buffer(0, 3, 0x100, 0, 16)
        .buffer(0, 7, 0x200, 16, 4)
        .buffer(2, 1, 0x300, 0, 16)
        .buffer(2, 5, 0x400, 32, 4);
    let push: Vec<u8> = (0..16).collect();
    let p = plan(&bytes, "sparse", &b, &push, Grid::Threadgroups([3, 2, 1])).unwrap();
    assert_eq!(p.threadgroups, [3, 2, 1]);
    let sets: Vec<_> = p
        .argument_buffers
        .iter()
        .map(|a| (a.set, a.buffer_index))
        .collect();
    assert_eq!(sets, [(0, 0), (2, 1)]);
    // Sparse ids keep their numbers; byte offsets follow struct order.
    let ab0 = p.argument_buffer(0).unwrap();
    assert_eq!(
        ab0.members
            .iter()
            .map(|m| (m.id, m.byte_offset))
            .collect::<Vec<_>>(),
        [(3, 0), (7, 8)]
    );
    assert_eq!(ab0.bytes, le(&[0x100, 0x210]));
    let ab2 = p.argument_buffer(2).unwrap();
    assert_eq!(
        ab2.members
            .iter()
            .map(|m| (m.id, m.byte_offset))
            .collect::<Vec<_>>(),
        [(1, 0), (5, 8)]
    );
    assert_eq!(ab2.bytes, le(&[0x300, 0x420]));
    assert_eq!(
        p.commands,
        [
            Command::SetBytes {
                index: 2,
                bytes: padded(&push),
                purpose: BytesPurpose::PushConstants
            },
            Command::SetArgumentBuffer { index: 0, set: 0 },
            Command::UseResource {
                key: key(0, 3, 0),
                usage: Usage::Read
            },
            // WriteOnly storage: read-write usage.
            Command::UseResource {
                key: key(0, 7, 0),
                usage: Usage::ReadWrite
            },
            Command::SetArgumentBuffer { index: 1, set: 2 },
            Command::UseResource {
                key: key(2, 1, 0),
                usage: Usage::Read
            },
            Command::UseResource {
                key: key(2, 5, 0),
                usage: Usage::ReadWrite
            },
            Command::Dispatch {
                threadgroups: [3, 2, 1],
                threads_per_threadgroup: [64, 1, 1]
            },
        ]
    );
}

fn discrete_bindings() -> Bindings {
    let mut b = Bindings::new();
    b.buffer(0, 0, 0x1000, 0, 100);
    b.bind_array(
        0,
        1,
        (0..4u64).map(|i| {
            Resource::Buffer(BufferBinding {
                gpu_address: 0x2000,
                offset: i * 16,
                length: (i + 1) * 10,
            })
        }),
    );
    b.buffer(1, 0, 0x3000, 256, 32)
        .bind(1, 1, Resource::Texture { resource_id: 11 })
        .bind(1, 2, Resource::Sampler { resource_id: 12 })
        .bind_array(
            1,
            3,
            [
                Resource::CombinedImageSampler {
                    texture_id: 13,
                    sampler_id: 14,
                },
                Resource::CombinedImageSampler {
                    texture_id: 15,
                    sampler_id: 16,
                },
            ],
        );
    b
}

#[test]
fn discrete_bindings_arrays_images_and_sizes_table() {
    let bytes = all().build();
    let push = [1, 2, 3, 4, 5, 6, 7, 8];
    let p = plan(
        &bytes,
        "discrete",
        &discrete_bindings(),
        &push,
        Grid::Threads([64, 1, 1]),
    )
    .unwrap();
    assert!(p.argument_buffers.is_empty());
    let sizes: Vec<u8> = [10u32, 20, 30, 40, 100]
        .iter()
        .flat_map(|l| l.to_le_bytes())
        .collect();
    let mut expected = vec![
        Command::SetBytes {
            index: 6,
            bytes: padded(&push),
            purpose: BytesPurpose::PushConstants,
        },
        Command::SetBuffer {
            index: 0,
            key: key(0, 0, 0),
            offset: 0,
        },
    ];
    for e in 0..4 {
        expected.push(Command::SetBuffer {
            index: 1 + e,
            key: key(0, 1, e),
            offset: u64::from(e) * 16,
        });
    }
    expected.extend([
        Command::SetBuffer {
            index: 5,
            key: key(1, 0, 0),
            offset: 256,
        },
        Command::SetTexture {
            index: 0,
            key: key(1, 1, 0),
        },
        Command::SetSamplerState {
            index: 0,
            key: key(1, 2, 0),
        },
        Command::SetTexture {
            index: 1,
            key: key(1, 3, 0),
        },
        Command::SetSamplerState {
            index: 1,
            key: key(1, 3, 0),
        },
        Command::SetTexture {
            index: 2,
            key: key(1, 3, 1),
        },
        Command::SetSamplerState {
            index: 2,
            key: key(1, 3, 1),
        },
        Command::SetBytes {
            index: 7,
            bytes: sizes,
            purpose: BytesPurpose::SizesTable,
        },
        Command::Dispatch {
            threadgroups: [1, 1, 1],
            threads_per_threadgroup: [64, 1, 1],
        },
    ]);
    assert_eq!(p.commands, expected);
}

#[test]
fn argument_buffer_sizes_table() {
    let bytes = all().build();
    let mut b = Bindings::new();
    b.buffer(0, 0, 0x1000, 0, 404).buffer(0, 1, 0x2000, 0, 12);
    let p = plan(&bytes, "array_length", &b, &[], Grid::Threads([1, 1, 1])).unwrap();
    let ab = &p.argument_buffers[0];
    // The sizes member is left zero for the executor to patch.
    assert_eq!(ab.bytes, le(&[0x1000, 0x2000, 0]));
    let t = ab.sizes_table.as_ref().unwrap();
    assert_eq!(
        (t.id, t.byte_offset, t.lengths.clone()),
        (2, 16, vec![404, 12])
    );
    assert_eq!(
        t.bytes(),
        [404u32.to_le_bytes(), 12u32.to_le_bytes()].concat()
    );
    assert_eq!(
        p.commands,
        [
            Command::SetArgumentBuffer { index: 0, set: 0 },
            Command::UseSizesTable { set: 0 },
            Command::UseResource {
                key: key(0, 0, 0),
                usage: Usage::ReadWrite
            },
            Command::UseResource {
                key: key(0, 1, 0),
                usage: Usage::ReadWrite
            },
            // The kernel-level table SPIRV-Cross declares but does not read
            // with argument buffers: bound, zero.
            Command::SetBytes {
                index: 1,
                bytes: vec![0; 8],
                purpose: BytesPurpose::SizesTable
            },
            Command::Dispatch {
                threadgroups: [1, 1, 1],
                threads_per_threadgroup: [1, 1, 1]
            },
        ]
    );

    b.buffer(0, 1, 0x2000, 0, 1 << 32);
    assert!(matches!(
        plan(&bytes, "array_length", &b, &[], Grid::Threads([1, 1, 1])),
        Err(PlanError::LengthTooLarge {
            length: 0x1_0000_0000,
            ..
        })
    ));
}

#[test]
fn images_in_argument_buffers() {
    let bytes = all().build();
    let mut b = Bindings::new();
    b.bind(0, 0, Resource::Texture { resource_id: 0xA0 })
        .bind(0, 1, Resource::Sampler { resource_id: 0xB0 })
        .bind_array(
            0,
            2,
            [
                Resource::CombinedImageSampler {
                    texture_id: 0xA1,
                    sampler_id: 0xB1,
                },
                Resource::CombinedImageSampler {
                    texture_id: 0xA2,
                    sampler_id: 0xB2,
                },
            ],
        )
        .bind(0, 3, Resource::Texture { resource_id: 0xC0 });
    let p = plan(&bytes, "images", &b, &[], Grid::Threads([64, 1, 1])).unwrap();
    let ab = &p.argument_buffers[0];
    assert_eq!(ab.bytes, le(&[0xA0, 0xB0, 0xA1, 0xA2, 0xB1, 0xB2]));
    let ids: Vec<_> = ab
        .members
        .iter()
        .map(|m| (m.id, m.byte_offset, m.key.element))
        .collect();
    assert_eq!(
        ids,
        [
            (0, 0, 0),
            (1, 8, 0),
            (2, 16, 0),
            (4, 32, 0),
            (3, 24, 1),
            (5, 40, 1)
        ]
    );
    assert_eq!(
        p.commands,
        [
            Command::SetArgumentBuffer { index: 0, set: 0 },
            Command::UseResource {
                key: key(0, 0, 0),
                usage: Usage::Read
            },
            Command::UseResource {
                key: key(0, 2, 0),
                usage: Usage::Read
            },
            Command::UseResource {
                key: key(0, 2, 1),
                usage: Usage::Read
            },
            Command::SetTexture {
                index: 0,
                key: key(0, 3, 0)
            },
            Command::Dispatch {
                threadgroups: [1, 1, 1],
                threads_per_threadgroup: [64, 1, 1]
            },
        ]
    );
}

#[test]
fn specialization_drives_the_threadgroup_size() {
    let bytes = all().build();
    let exe = Executable::load(&bytes).unwrap();
    let k = exe.entry_point("spec").unwrap();
    let mut b = Bindings::new();
    b.buffer(0, 0, 0x1000, 0, 4096);

    let defaults = Specialization::defaults(&k);
    assert_eq!(defaults.threads_per_threadgroup(), [128, 1, 1]);
    // Unset constants stay unset: each declaration keeps its own default.
    assert!(defaults.constants().is_empty());
    let p = DispatchPlan::new(&k, &defaults, &b, &[], Grid::Threads([1000, 1, 1])).unwrap();
    assert_eq!(p.threadgroups, [8, 1, 1]);

    let spec = Specialization::new(
        &k,
        &[
            SpecValue::u32(0, 256),
            SpecValue::f32(1, 2.0),
            SpecValue::i32(3, -1),
        ],
    )
    .unwrap();
    assert_eq!(spec.threads_per_threadgroup(), [256, 1, 1]);
    let values: Vec<_> = spec
        .constants()
        .iter()
        .map(|c| (c.id, c.ty, c.bits))
        .collect();
    assert_eq!(
        values,
        [
            (0, ScalarType::UInt32, 256),
            (1, ScalarType::Float32, u64::from(2.0f32.to_bits())),
            (3, ScalarType::Int32, 0xFFFF_FFFF),
        ]
    );
    let p = DispatchPlan::new(&k, &spec, &b, &[], Grid::Threads([1000, 1, 1])).unwrap();
    assert_eq!(p.threads_per_threadgroup, [256, 1, 1]);
    assert_eq!(p.threadgroups, [4, 1, 1]);
    assert_eq!(
        p.commands.last(),
        Some(&Command::Dispatch {
            threadgroups: [4, 1, 1],
            threads_per_threadgroup: [256, 1, 1]
        })
    );

    let err = |values: &[SpecValue]| Specialization::new(&k, values).unwrap_err();
    assert!(matches!(
        err(&[SpecValue::u32(0, 2048)]),
        PlanError::ThreadgroupDimension {
            dim: 0,
            spec_id: 0,
            limit: 1024,
            ..
        }
    ));
    assert!(matches!(
        err(&[SpecValue::u32(0, 0)]),
        PlanError::ThreadgroupDimension { .. }
    ));
    assert!(matches!(
        err(&[SpecValue::u32(9, 1)]),
        PlanError::UnknownSpecConstant { id: 9, .. }
    ));
    assert!(matches!(
        err(&[SpecValue::u32(1, 1), SpecValue::u32(1, 2)]),
        PlanError::DuplicateSpecValue { id: 1, .. }
    ));
    assert!(matches!(
        err(&[SpecValue { id: 2, bits: 2 }]),
        PlanError::SpecValueOutOfRange {
            id: 2,
            ty: "Bool",
            ..
        }
    ));
    assert!(matches!(
        err(&[SpecValue {
            id: 0,
            bits: 1 << 32
        }]),
        PlanError::SpecValueOutOfRange { id: 0, .. }
    ));

    // A specialization made for another kernel.
    let main = exe.entry_point("main").unwrap();
    let other = Specialization::defaults(&main);
    assert!(matches!(
        DispatchPlan::new(&k, &other, &b, &[], Grid::Threads([1, 1, 1])),
        Err(PlanError::SpecializationMismatch { .. })
    ));
}

#[test]
fn specialized_threadgroup_must_fit_max_threads() {
    // y driven by a signed constant; the product must stay within the limit.
    let mut exe = all();
    let k = exe.kernel_mut("spec");
    k.tg[1] = (1, 3, true);
    k.fcs[3].default_bits = 1;
    let bytes = exe.build();
    let exe = Executable::load(&bytes).unwrap();
    let k = exe.entry_point("spec").unwrap();
    let ok = Specialization::new(&k, &[SpecValue::u32(0, 256), SpecValue::i32(3, 4)]).unwrap();
    assert_eq!(ok.threads_per_threadgroup(), [256, 4, 1]);
    assert!(matches!(
        Specialization::new(&k, &[SpecValue::u32(0, 256), SpecValue::i32(3, 8)]),
        Err(PlanError::ThreadgroupTooLarge {
            size: [256, 8, 1],
            limit: 1024,
            ..
        })
    ));
    assert!(matches!(
        Specialization::new(&k, &[SpecValue::i32(3, -2)]),
        Err(PlanError::ThreadgroupDimension {
            dim: 1,
            spec_id: 3,
            ..
        })
    ));
}

#[test]
fn binding_errors() {
    let bytes = all().build();
    let go = |b: &Bindings, push: &[u8]| plan(&bytes, "main", b, push, Grid::Threads([64, 1, 1]));

    let mut b = saxpy_bindings();
    b.buffer(0, 9, 0, 0, 4);
    assert!(matches!(
        go(&b, &[]),
        Err(PlanError::UnexpectedBinding {
            set: 0,
            binding: 9,
            ..
        })
    ));

    let mut b = Bindings::new();
    b.buffer(0, 0, 0x1000, 0, 4).buffer(0, 1, 0x1000, 0, 4);
    assert!(matches!(
        go(&b, &[]),
        Err(PlanError::MissingBinding {
            set: 0,
            binding: 2,
            ..
        })
    ));

    let mut b = saxpy_bindings();
    b.bind(0, 0, Resource::Texture { resource_id: 1 });
    match go(&b, &[]) {
        Err(PlanError::WrongResource {
            key: k,
            expected,
            found,
            ..
        }) => {
            assert_eq!(
                (k, expected, found),
                (key(0, 0, 0), "a buffer", "a texture")
            )
        }
        other => panic!("{other:?}"),
    }

    let mut b = saxpy_bindings();
    b.bind_array(0, 0, []);
    assert!(matches!(
        go(&b, &[]),
        Err(PlanError::ElementCount {
            expected: 1,
            found: 0,
            ..
        })
    ));

    assert!(matches!(
        go(&saxpy_bindings(), &[0; 4]),
        Err(PlanError::PushConstantSize {
            expected: 0,
            found: 4,
            ..
        })
    ));

    // Storage buffers: 16-byte offsets; uniform buffers: 256 on macOS.
    let mut b = saxpy_bindings();
    b.buffer(0, 0, 0x1000, 4, 4);
    assert!(matches!(
        go(&b, &[]),
        Err(PlanError::MisalignedOffset {
            offset: 4,
            alignment: 16,
            ..
        })
    ));
    let mut b = saxpy_bindings();
    b.buffer(0, 2, 0x1000, 16, 8);
    assert!(matches!(
        go(&b, &[]),
        Err(PlanError::MisalignedOffset {
            offset: 16,
            alignment: 256,
            ..
        })
    ));

    let mut b = saxpy_bindings();
    b.buffer(0, 2, 0x1000, 0, 4);
    match go(&b, &[]) {
        Err(
            e @ PlanError::BufferTooSmall {
                length: 4,
                min_size: 8,
                ..
            },
        ) => assert_eq!(
            e.to_string(),
            "kernel `main`: (set 0, binding 2) is bound with 4 bytes, the kernel needs at least 8"
        ),
        other => panic!("{other:?}"),
    }

    let mut b = saxpy_bindings();
    b.buffer(0, 1, u64::MAX - 16, 0, 32);
    assert!(matches!(
        go(&b, &[]),
        Err(PlanError::AddressOverflow { .. })
    ));

    assert!(matches!(
        plan(
            &bytes,
            "main",
            &saxpy_bindings(),
            &[],
            Grid::Threads([64, 0, 1])
        ),
        Err(PlanError::EmptyGrid { .. })
    ));
    assert!(matches!(
        plan(
            &bytes,
            "main",
            &saxpy_bindings(),
            &[],
            Grid::Threadgroups([0, 1, 1])
        ),
        Err(PlanError::EmptyGrid { .. })
    ));

    // Push constants of the wrong size.
    let mut b = Bindings::new();
    b.buffer(0, 3, 0x100, 0, 16)
        .buffer(0, 7, 0x200, 0, 4)
        .buffer(2, 1, 0x300, 0, 16)
        .buffer(2, 5, 0x400, 0, 4);
    assert!(plan(&bytes, "sparse", &b, &[0; 16], Grid::Threads([1, 1, 1])).is_ok());
    for n in [0, 15, 17] {
        assert!(matches!(
            plan(&bytes, "sparse", &b, &vec![0; n], Grid::Threads([1, 1, 1])),
            Err(PlanError::PushConstantSize { expected: 16, .. })
        ));
    }

    // Array element count.
    let mut b = discrete_bindings();
    b.bind_array(
        0,
        1,
        [Resource::Buffer(BufferBinding {
            gpu_address: 0,
            offset: 0,
            length: 4,
        }); 3],
    );
    assert!(matches!(
        plan(&bytes, "discrete", &b, &[0; 8], Grid::Threads([1, 1, 1])),
        Err(PlanError::ElementCount {
            set: 0,
            binding: 1,
            expected: 4,
            found: 3,
            ..
        })
    ));
    let mut b = discrete_bindings();
    b.bind(1, 2, Resource::Texture { resource_id: 1 });
    assert!(matches!(
        plan(&bytes, "discrete", &b, &[0; 8], Grid::Threads([1, 1, 1])),
        Err(PlanError::WrongResource {
            expected: "a sampler",
            ..
        })
    ));
}

#[test]
fn uniform_alignment_follows_the_library_platform() {
    let mut exe: Exe = all();
    exe.libraries[0].platform = Platform::IOS;
    let bytes = exe.build();
    let mut b = saxpy_bindings();
    b.buffer(0, 2, 0x1000, 16, 8);
    assert!(plan(&bytes, "main", &b, &[], Grid::Threads([1, 1, 1])).is_ok());
    b.buffer(0, 2, 0x1000, 8, 8);
    assert!(matches!(
        plan(&bytes, "main", &b, &[], Grid::Threads([1, 1, 1])),
        Err(PlanError::MisalignedOffset { alignment: 16, .. })
    ));
}

/// One SpecId on two declarations with different defaults (glslc's
/// `local_size_x_id = 0` beside `constant_id = 0 ... = 32`): unset, the
/// threadgroup keeps its own default and no constant is set; set, both take
/// the value.
#[test]
fn an_aliased_function_constant_keeps_each_default_until_set() {
    let mut exe = all();
    let spec = exe.kernels.iter_mut().find(|k| k.name == "spec").unwrap();
    spec.fcs[0].default_bits = 32;
    spec.fcs[0].aliases = vec![(ScalarType::Int32, 128)];
    let bytes = exe.build();
    let exe = Executable::load(&bytes).unwrap();
    let k = exe.entry_point("spec").unwrap();
    let defaults = Specialization::defaults(&k);
    assert_eq!(defaults.threads_per_threadgroup(), [128, 1, 1]);
    assert!(defaults.constants().is_empty());
    let set = Specialization::new(&k, &[SpecValue::u32(0, 64)]).unwrap();
    assert_eq!(set.threads_per_threadgroup(), [64, 1, 1]);
    assert_eq!(
        set.constants()
            .iter()
            .map(|c| (c.id, c.ty, c.bits))
            .collect::<Vec<_>>(),
        [(0, ScalarType::UInt32, 64)]
    );
}

/// `Grid` counts are `u32`, as the kernel's `gl_GlobalInvocationID` and the
/// generated `THREADS_PER_THREADGROUP`; the threadgroup count of the largest
/// grid is computed without overflow, and the generated threadgroup size is
/// itself a grid.
#[test]
fn grid_counts_are_u32_and_the_largest_grid_plans() {
    let bytes = all().build();
    const THREADS_PER_THREADGROUP: [u32; 3] = [64, 1, 1];
    let p = plan(
        &bytes,
        "main",
        &saxpy_bindings(),
        &[],
        Grid::Threads([u32::MAX, u32::MAX, 1]),
    )
    .unwrap();
    assert_eq!(
        p.threadgroups,
        [u64::from(u32::MAX).div_ceil(64), u64::from(u32::MAX), 1]
    );
    let p = plan(
        &bytes,
        "main",
        &saxpy_bindings(),
        &[],
        Grid::Threadgroups(THREADS_PER_THREADGROUP),
    )
    .unwrap();
    assert_eq!(p.threadgroups, [64, 1, 1]);
}

/// Emulated image atomics (MSL below 3.1): a storage image whose binding
/// records a companion buffer takes a texture created on a buffer, and the
/// plan binds that buffer where the kernel takes it: a discrete
/// `setBuffer` (here: an iOS-tier-1-style discrete image in an
/// argument-buffer kernel), or an argument-buffer member made resident.
/// A plain texture, or rows of another pitch than the kernel indexes, are
/// refused.
#[test]
fn emulated_image_atomics_bind_the_textures_buffer() {
    let mut exe = all();
    exe.kernel_mut("images")
        .bindings
        .iter_mut()
        .find(|b| b.binding == 3)
        .unwrap()
        .atomic = (Some(1), None, None, Some(256));
    let bytes = exe.build();
    let loaded = Executable::load(&bytes).unwrap();
    let a = loaded
        .entry_point("images")
        .unwrap()
        .binding(0, 3)
        .unwrap()
        .atomic_buffer()
        .unwrap();
    assert_eq!(
        (a.buffer_index, a.id, a.row_alignment),
        (Some(1), None, 256)
    );
    assert_eq!(
        (a.bytes_per_row(5), a.bytes_per_row(64), a.bytes_per_row(65)),
        (256, 256, 512)
    );

    let on_buffer = |bytes_per_row| Resource::TextureOnBuffer {
        resource_id: 0xC0,
        buffer: BufferBinding {
            gpu_address: 0x9000,
            offset: 512,
            length: 1024,
        },
        width: 5,
        bytes_per_row,
    };
    let mut b = Bindings::new();
    b.bind(0, 0, Resource::Texture { resource_id: 0xA0 })
        .bind(0, 1, Resource::Sampler { resource_id: 0xB0 })
        .bind_array(
            0,
            2,
            [0, 1].map(|i| Resource::CombinedImageSampler {
                texture_id: 0xA1 + i,
                sampler_id: 0xB1 + i,
            }),
        )
        .bind(0, 3, on_buffer(256));
    let p = plan(&bytes, "images", &b, &[], Grid::Threads([64, 1, 1])).unwrap();
    let discrete: Vec<_> = p
        .commands
        .iter()
        .filter(|c| {
            matches!(
                c,
                Command::SetTexture { .. } | Command::SetAtomicBuffer { .. }
            )
        })
        .cloned()
        .collect();
    assert_eq!(
        discrete,
        [
            Command::SetTexture {
                index: 0,
                key: key(0, 3, 0)
            },
            Command::SetAtomicBuffer {
                index: 1,
                key: key(0, 3, 0),
                offset: 512
            },
        ]
    );

    b.bind(0, 3, on_buffer(20));
    let e = plan(&bytes, "images", &b, &[], Grid::Threads([64, 1, 1])).unwrap_err();
    assert!(
        matches!(
            e,
            PlanError::AtomicRowPitch {
                expected: 256,
                found: 20,
                width: 5,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("(set 0, binding 3): the texture's rows are 20 bytes apart, but the kernel's image atomics index its buffer with rows of 256 bytes"), "{e}");
    b.bind(0, 3, Resource::Texture { resource_id: 0xC0 });
    let e = plan(&bytes, "images", &b, &[], Grid::Threads([64, 1, 1])).unwrap_err();
    assert!(matches!(e, PlanError::NeedsTextureOnBuffer { .. }), "{e}");

    // In the argument buffer: the image at id 0 (byte 0), its buffer at a
    // member of its own, written with the buffer's address and offset.
    let mut exe = all();
    {
        let k = exe.kernel_mut("images");
        k.abs[0].size = 64;
        let img = k.bindings.iter_mut().find(|b| b.binding == 3).unwrap();
        img.texture_index = None;
        img.id = Some(6);
        img.byte_offset = Some(48);
        img.atomic = (None, Some(7), Some(56), Some(256));
    }
    let bytes = exe.build();
    b.bind(0, 3, on_buffer(256));
    let p = plan(&bytes, "images", &b, &[], Grid::Threads([64, 1, 1])).unwrap();
    let ab = &p.argument_buffers[0];
    assert_eq!(&ab.bytes[48..56], &0xC0u64.to_le_bytes());
    assert_eq!(&ab.bytes[56..64], &(0x9000u64 + 512).to_le_bytes());
    assert!(p
        .commands
        .contains(&Command::UseAtomicBuffer { key: key(0, 3, 0) }));
    assert!(!p
        .commands
        .iter()
        .any(|c| matches!(c, Command::SetAtomicBuffer { .. })));
}

/// fixtures/kernels/ray_query.comp as halc lays it out: the acceleration
/// structure at (0, 0), three buffers, push constants; in an argument buffer
/// (the structure's resource id at `[[id(0)]]`, byte 0) or discrete (its
/// `[[buffer(0)]]`).
fn ray_query_kernel(model: BindingModel) -> crate::common::K {
    use crate::common::{Ab, B, K};
    let name = match model {
        BindingModel::Discrete => "rq_discrete",
        _ => "rq_ab",
    };
    let mut k = K::new(name, model);
    k.tg = vec![(8, 0, false), (1, 0, false), (1, 0, false)];
    k.max_threads = 8;
    let accel = B::new(0, 0, BindingKind::AccelerationStructure);
    let buffers = [
        B::new(0, 1, BindingKind::StorageBuffer),
        B::new(0, 2, BindingKind::StorageBuffer),
        B::new(0, 3, BindingKind::StorageBuffer).access(Access::WriteOnly),
    ];
    if model == BindingModel::Discrete {
        k.bindings = std::iter::once(accel.buffer(0))
            .chain((1u32..).zip(buffers).map(|(i, b)| b.buffer(i)))
            .collect();
        k.push = Some((4, 4));
    } else {
        k.abs = vec![Ab {
            set: 0,
            buffer_index: 0,
            size: 32,
            ..Ab::default()
        }];
        k.bindings = std::iter::once(accel.member(0, 0))
            .chain((1u32..).zip(buffers).map(|(i, b)| b.member(i, i * 8)))
            .collect();
        k.push = Some((1, 4));
    }
    k
}

fn ray_query_exe() -> Vec<u8> {
    Exe::new(vec![
        ray_query_kernel(BindingModel::ArgumentBuffers),
        ray_query_kernel(BindingModel::Discrete),
    ])
    .build()
}

const ACCEL_ID: u64 = 0xACCE_1000_0000_0042;

fn ray_query_bindings(primitive_structures: u32) -> Bindings {
    let mut b = Bindings::new();
    b.bind(
        0,
        0,
        Resource::AccelerationStructure {
            resource_id: ACCEL_ID,
            primitive_structures,
        },
    )
    .buffer(0, 1, 0x1_0000, 0, 480)
    .buffer(0, 2, 0x2_0000, 0, 256)
    .buffer(0, 3, 0x3_0000, 0, 480);
    b
}

#[test]
fn an_acceleration_structure_in_an_argument_buffer_is_its_resource_id_and_its_primitive_structures_are_resident(
) {
    let bytes = ray_query_exe();
    let p = plan(
        &bytes,
        "rq_ab",
        &ray_query_bindings(3),
        &10u32.to_le_bytes(),
        Grid::Threads([10, 1, 1]),
    )
    .unwrap();
    let ab = &p.argument_buffers[0];
    // The structure's id at byte 0 (its [[id(0)]]), the buffers after it.
    assert_eq!(ab.bytes, le(&[ACCEL_ID, 0x1_0000, 0x2_0000, 0x3_0000]));
    assert_eq!(
        ab.members[0].value,
        MemberValue::AccelerationStructure {
            resource_id: ACCEL_ID
        }
    );
    assert_eq!((ab.members[0].id, ab.members[0].byte_offset), (0, 0));
    let uses: Vec<&Command> = p
        .commands
        .iter()
        .filter(|c| {
            matches!(
                c,
                Command::UseResource { .. } | Command::UsePrimitiveStructure { .. }
            )
        })
        .collect();
    assert_eq!(
        uses,
        [
            &Command::UseResource {
                key: key(0, 0, 0),
                usage: Usage::Read
            },
            &Command::UsePrimitiveStructure {
                key: key(0, 0, 0),
                index: 0
            },
            &Command::UsePrimitiveStructure {
                key: key(0, 0, 0),
                index: 1
            },
            &Command::UsePrimitiveStructure {
                key: key(0, 0, 0),
                index: 2
            },
            &Command::UseResource {
                key: key(0, 1, 0),
                usage: Usage::Read
            },
            &Command::UseResource {
                key: key(0, 2, 0),
                usage: Usage::Read
            },
            &Command::UseResource {
                key: key(0, 3, 0),
                usage: Usage::ReadWrite
            },
        ]
    );
    // No discrete binding of the structure when it is in the argument buffer.
    assert!(!p
        .commands
        .iter()
        .any(|c| matches!(c, Command::SetAccelerationStructure { .. })));
    // Negative control: a structure with fewer primitive structures makes
    // fewer resident, so the list above is the plan's, not a constant.
    let p = plan(
        &bytes,
        "rq_ab",
        &ray_query_bindings(1),
        &10u32.to_le_bytes(),
        Grid::Threads([10, 1, 1]),
    )
    .unwrap();
    let primitive_uses = p
        .commands
        .iter()
        .filter(|c| matches!(c, Command::UsePrimitiveStructure { .. }))
        .count();
    assert_eq!(primitive_uses, 1);
}

#[test]
fn a_discrete_acceleration_structure_takes_its_buffer_slot_and_its_primitive_structures_are_resident(
) {
    let bytes = ray_query_exe();
    let p = plan(
        &bytes,
        "rq_discrete",
        &ray_query_bindings(2),
        &10u32.to_le_bytes(),
        Grid::Threads([10, 1, 1]),
    )
    .unwrap();
    assert!(p.argument_buffers.is_empty());
    let text: Vec<String> = p.commands.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        text,
        [
            "setBytes(4 bytes of push constants) at buffer(4)",
            "setAccelerationStructure((set 0, binding 0)) at buffer(0)",
            "useResource(primitive structure 0 of the acceleration structure (set 0, binding 0), read)",
            "useResource(primitive structure 1 of the acceleration structure (set 0, binding 0), read)",
            "setBuffer((set 0, binding 1), offset 0) at buffer(1)",
            "setBuffer((set 0, binding 2), offset 0) at buffer(2)",
            "setBuffer((set 0, binding 3), offset 0) at buffer(3)",
            "dispatchThreadgroups(2x1x1, threadsPerThreadgroup 8x1x1)",
        ]
    );
}

#[test]
fn an_acceleration_structure_where_something_else_is_expected_and_the_reverse_are_plan_errors() {
    let bytes = ray_query_exe();
    for kernel in ["rq_ab", "rq_discrete"] {
        // A buffer where the acceleration structure goes.
        let mut b = ray_query_bindings(1);
        b.buffer(0, 0, 0x4_0000, 0, 64);
        match plan(&bytes, kernel, &b, &10u32.to_le_bytes(), Grid::Threads([1, 1, 1])) {
            Err(e @ PlanError::WrongResource { .. }) => assert_eq!(
                e.to_string(),
                format!("kernel `{kernel}`: (set 0, binding 0) takes an acceleration structure, a buffer is bound")
            ),
            other => panic!("{kernel}: {other:?}"),
        }
        // An acceleration structure where a buffer goes.
        let mut b = ray_query_bindings(1);
        b.bind(
            0,
            1,
            Resource::AccelerationStructure {
                resource_id: 7,
                primitive_structures: 1,
            },
        );
        match plan(&bytes, kernel, &b, &10u32.to_le_bytes(), Grid::Threads([1, 1, 1])) {
            Err(e @ PlanError::WrongResource { .. }) => assert_eq!(
                e.to_string(),
                format!("kernel `{kernel}`: (set 0, binding 1) takes a buffer, an acceleration structure is bound")
            ),
            other => panic!("{kernel}: {other:?}"),
        }
        // A texture where the acceleration structure goes.
        let mut b = ray_query_bindings(1);
        b.bind(0, 0, Resource::Texture { resource_id: 9 });
        assert!(matches!(
            plan(
                &bytes,
                kernel,
                &b,
                &10u32.to_le_bytes(),
                Grid::Threads([1, 1, 1])
            ),
            Err(PlanError::WrongResource {
                expected: "an acceleration structure",
                found: "a texture",
                ..
            })
        ));
    }
}
