//! The plan → kernel-argument mapping: each [`Command`] of a plan becomes an
//! entry of the kernel's slot table (`[[buffer(N)]]`, `[[texture(N)]]`,
//! `[[sampler(N)]]`), exactly as the Metal backend turns it into one encoder
//! call. No decision is taken here that the plan
//! has not already taken; what Metal would leave undefined (a slot never
//! set, a resource never made resident) is an error.

use std::collections::BTreeMap;
use std::ffi::c_void;

use super::accel::AccelerationStructure;
use super::bindings::{Bound, ResourceBindings};
use super::buffer::{Buffer, Mapping};
use super::source::{Param, ParamKind, SAMPLER_SLOT_BASE, SLOT_COUNT, TEXTURE_SLOT_BASE};
use super::texture::{Sampler, Texture};
use super::CpuError;
use crate::plan::{BytesPurpose, Command, DispatchPlan, MemberValue, ResourceKey};
use crate::schema::MetalLimits;

/// A memory range with a name, to say what a faulting address hit.
#[derive(Debug, Clone)]
pub(super) struct Region {
    pub(super) name: String,
    /// First byte.
    pub(super) start: u64,
    /// Length in bytes.
    pub(super) len: u64,
    /// The mapping with its guard pages.
    pub(super) span: (u64, u64),
}

impl Region {
    pub(super) fn of(name: String, m: &Mapping) -> Region {
        Region {
            name,
            start: m.ptr() as u64,
            len: m.len() as u64,
            span: m.span(),
        }
    }
}

/// A plan made ready to run: the slot table and what it points to.
#[derive(Debug)]
pub(super) struct Encoded {
    /// `[[buffer(N)]]` at N, `[[texture(N)]]` at `TEXTURE_SLOT_BASE + N`,
    /// `[[sampler(N)]]` at `SAMPLER_SLOT_BASE + N`.
    pub(super) slots: [*mut c_void; SLOT_COUNT],
    pub(super) threadgroups: [u64; 3],
    pub(super) threads: [u32; 3],
    pub(super) regions: Vec<Region>,
    /// Argument buffers, `setBytes` copies and sizes tables, alive until the
    /// dispatch ends.
    _keep: Vec<Mapping>,
    /// The textures and samplers the slots and argument buffers point to.
    _textures: Vec<Texture>,
    _samplers: Vec<Sampler>,
    /// The acceleration structures whose resource ids the slots and
    /// argument buffers hold.
    _accels: Vec<AccelerationStructure>,
}

/// The full slot table with `buffers` at the buffer slots.
fn with_buffers(buffers: [*mut c_void; 31]) -> [*mut c_void; SLOT_COUNT] {
    let mut slots = [std::ptr::null_mut(); SLOT_COUNT];
    slots[..31].copy_from_slice(&buffers);
    slots
}

impl Encoded {
    /// A table made by hand (the polyfill kernels, unit tests of the
    /// executor); `keep` holds what the slots point to besides `regions`'
    /// buffers.
    pub(super) fn by_hand(
        slots: [*mut c_void; 31],
        threadgroups: [u64; 3],
        threads: [u32; 3],
        regions: Vec<Region>,
        keep: Vec<Mapping>,
    ) -> Encoded {
        Encoded {
            slots: with_buffers(slots),
            threadgroups,
            threads,
            regions,
            _keep: keep,
            _textures: Vec::new(),
            _samplers: Vec::new(),
            _accels: Vec::new(),
        }
    }

    /// A full slot table made by hand (unit tests of the shim's textures),
    /// keeping `textures` and `samplers` alive.
    #[cfg(test)]
    pub(super) fn for_test_slots(
        slots: [*mut c_void; SLOT_COUNT],
        threadgroups: [u64; 3],
        threads: [u32; 3],
        regions: Vec<Region>,
        textures: Vec<Texture>,
        samplers: Vec<Sampler>,
    ) -> Encoded {
        Encoded {
            slots,
            threadgroups,
            threads,
            regions,
            _keep: Vec::new(),
            _textures: textures,
            _samplers: samplers,
            _accels: Vec::new(),
        }
    }

    /// A table made by hand (unit tests of the executor).
    #[cfg(test)]
    pub(super) fn for_test(
        slots: [*mut c_void; 31],
        threadgroups: [u64; 3],
        threads: [u32; 3],
        regions: Vec<Region>,
    ) -> Encoded {
        Encoded {
            slots: with_buffers(slots),
            threadgroups,
            threads,
            regions,
            _keep: Vec::new(),
            _textures: Vec::new(),
            _samplers: Vec::new(),
            _accels: Vec::new(),
        }
    }
}

/// Maps `plan`'s commands onto the parameters of kernel `kernel` (its
/// `[[buffer(N)]]` table, `params`).
/// The address `offset` bytes into `buffer`, for a `[[buffer(N)]]` slot,
/// and the bytes bound there from it on.
fn at_offset(
    key: ResourceKey,
    buffer: &Buffer,
    offset: u64,
) -> Result<(*mut c_void, u64), CpuError> {
    if offset > buffer.len() {
        return Err(CpuError::RangeOutOfBounds {
            key,
            offset,
            end: offset,
            len: buffer.len(),
        });
    }
    // SAFETY: `offset <= len`, so the pointer is inside (or one past) the
    // buffer's bytes.
    let at = unsafe { buffer.mapping().ptr().add(offset as usize) };
    Ok((at.cast(), buffer.len() - offset))
}

pub(super) fn encode(
    kernel: &str,
    params: &[Param],
    plan: &DispatchPlan,
    bindings: &ResourceBindings<'_>,
) -> Result<Encoded, CpuError> {
    let kernel = kernel.to_string();
    let mut slots: [*mut c_void; SLOT_COUNT] = [std::ptr::null_mut(); SLOT_COUNT];
    let mut textures: Vec<Texture> = Vec::new();
    let mut samplers: Vec<Sampler> = Vec::new();
    let mut resident_textures: Vec<Texture> = Vec::new();
    let mut accels: Vec<AccelerationStructure> = Vec::new();
    let mut resident_accels: Vec<AccelerationStructure> = Vec::new();
    // (structure, bottom level) pairs the plan made resident.
    let mut resident_primitives: Vec<(ResourceKey, u32)> = Vec::new();
    let mut keep = Vec::new();
    let mut regions = Vec::new();
    let mut resident: Vec<&Buffer> = Vec::new();
    let mut resident_sizes: Vec<u32> = Vec::new();
    let mut dispatch = None;
    // Bytes bound at each [[buffer(N)]] from its offset on.
    let mut bound_bytes: [u64; MetalLimits::MaxBufferSlots.0 as usize] =
        [0; MetalLimits::MaxBufferSlots.0 as usize];
    let slot_of = |what: &str, base: usize, limit: MetalLimits, index: u32| {
        let i = index as usize;
        if i < limit.0 as usize {
            Ok(base + i)
        } else {
            Err(CpuError::Limit {
                kernel: kernel.clone(),
                message: format!("{what} slot {index} is beyond Metal's {} slots", limit.0),
            })
        }
    };
    let slot = |index: u32| slot_of("buffer", 0, MetalLimits::MaxBufferSlots, index);
    let not = |key, message| CpuError::Inconsistent { key, message };
    // Each argument buffer's bytes with the sizes table's address patched in.
    let mut ab_copies: BTreeMap<u32, Vec<u8>> = BTreeMap::new();

    for c in &plan.commands {
        match c {
            Command::SetBytes {
                index,
                bytes,
                purpose,
            } => {
                let m = Mapping::with_bytes(bytes)?;
                slots[slot(*index)?] = m.ptr().cast();
                bound_bytes[slot(*index)?] = bytes.len() as u64;
                let what = match purpose {
                    BytesPurpose::PushConstants => "push constants",
                    BytesPurpose::SizesTable => "buffer-sizes table",
                };
                regions.push(Region::of(format!("the {what} at buffer({index})"), &m));
                keep.push(m);
            }
            Command::SetArgumentBuffer { index, set } => {
                let a = plan.argument_buffer(*set).ok_or(CpuError::Kernel {
                    kernel: kernel.clone(),
                    message: format!("the plan sets the argument buffer of set {set}, which it does not describe"),
                })?;
                let mut bytes = a.bytes.clone();
                if let Some(t) = &a.sizes_table {
                    let m = Mapping::with_bytes(&t.bytes())?;
                    t.write_address(&mut bytes, m.ptr() as u64);
                    regions.push(Region::of(
                        format!("the buffer-sizes table of set {set}"),
                        &m,
                    ));
                    keep.push(m);
                }
                let m = Mapping::with_bytes(&bytes)?;
                slots[slot(*index)?] = m.ptr().cast();
                bound_bytes[slot(*index)?] = bytes.len() as u64;
                regions.push(Region::of(format!("the argument buffer of set {set}"), &m));
                keep.push(m);
                ab_copies.insert(*set, bytes);
            }
            Command::UseSizesTable { set } => resident_sizes.push(*set),
            Command::SetBuffer { index, key, offset } => {
                let Bound::Buffer { buffer, .. } = bindings.get(*key)? else {
                    return Err(not(*key, "the plan sets a buffer where no buffer is bound"));
                };
                let i = slot(*index)?;
                (slots[i], bound_bytes[i]) = at_offset(*key, buffer, *offset)?;
            }
            Command::SetAtomicBuffer { index, key, offset } => {
                let Some((buffer, _, _)) = bindings
                    .get(*key)?
                    .texture()
                    .and_then(|t| t.storage_buffer())
                else {
                    return Err(not(
                        *key,
                        "the plan sets the buffer of a texture that was not created on a buffer",
                    ));
                };
                let i = slot(*index)?;
                (slots[i], bound_bytes[i]) = at_offset(*key, buffer, *offset)?;
            }
            Command::UseAtomicBuffer { key } => {
                let Some((buffer, _, _)) = bindings
                    .get(*key)?
                    .texture()
                    .and_then(|t| t.storage_buffer())
                else {
                    return Err(not(*key, "the plan makes resident the buffer of a texture that was not created on a buffer"));
                };
                resident.push(buffer);
            }
            Command::UseResource { key, .. } => match bindings.get(*key)? {
                Bound::Buffer { buffer, .. } => resident.push(buffer),
                Bound::AccelerationStructure(a) => resident_accels.push((*a).clone()),
                b => {
                    let t = b.texture().ok_or(not(
                        *key,
                        "the plan makes resident a sampler (only buffers and textures are)",
                    ))?;
                    resident_textures.push(t.clone());
                }
            },
            // Host memory: nothing to make resident; recorded, so that an
            // argument buffer may point into it.
            Command::UseReached { index, .. } => {
                resident.push(bindings.reached(*index).ok_or(CpuError::Kernel {
                    kernel: kernel.clone(),
                    message: format!(
                        "the plan makes resident reached buffer {index}, which is not bound"
                    ),
                })?)
            }
            Command::SetTexture { index, key } => {
                let t = bindings.get(*key)?.texture().ok_or(not(
                    *key,
                    "the plan sets a texture where no texture is bound",
                ))?;
                let i = slot_of(
                    "texture",
                    TEXTURE_SLOT_BASE,
                    MetalLimits::MaxTextureSlots,
                    *index,
                )?;
                slots[i] = t.mapping().ptr().cast();
                textures.push(t.clone());
            }
            Command::SetSamplerState { index, key } => {
                let s = bindings.get(*key)?.sampler().ok_or(not(
                    *key,
                    "the plan sets a sampler where no sampler is bound",
                ))?;
                let i = slot_of(
                    "sampler",
                    SAMPLER_SLOT_BASE,
                    MetalLimits::MaxSamplerSlots,
                    *index,
                )?;
                slots[i] = s.gpu_resource_id() as *mut c_void;
                samplers.push(s.clone());
            }
            Command::SetAccelerationStructure { index, key } => {
                let a = bindings.get(*key)?.acceleration_structure().ok_or(not(
                    *key,
                    "the plan sets an acceleration structure where none is bound",
                ))?;
                let i = slot(*index)?;
                // The kernel's parameter is the structure's 8-byte id.
                slots[i] = a.gpu_resource_id() as *mut c_void;
                bound_bytes[i] = 8;
                accels.push(a.clone());
            }
            Command::UsePrimitiveStructure { key, index } => {
                let a = bindings.get(*key)?.acceleration_structure().ok_or(not(
                    *key,
                    "the plan makes resident a primitive structure of something that is not an acceleration structure",
                ))?;
                if *index as usize >= a.scene().bottom.len() {
                    return Err(not(
                        *key,
                        "the plan makes resident a primitive structure the acceleration structure does not have",
                    ));
                }
                resident_primitives.push((*key, *index));
            }
            Command::Dispatch {
                threadgroups,
                threads_per_threadgroup,
            } => dispatch = Some((*threadgroups, *threads_per_threadgroup)),
        }
    }
    // Every bound acceleration structure's bottom levels must be made
    // resident, as Metal needs each primitive structure to be.
    for (key, b) in bindings.objects() {
        if let Some(a) = b.acceleration_structure() {
            let bottoms = u32::try_from(a.scene().bottom.len()).unwrap_or(u32::MAX);
            if let Some(missing) = (0..bottoms).find(|i| !resident_primitives.contains(&(key, *i)))
            {
                return Err(CpuError::Kernel {
                    kernel,
                    message: format!(
                        "primitive structure {missing} of the acceleration structure bound to {key} is not made resident (useResource)"
                    ),
                });
            }
        }
    }
    let (threadgroups, threads) = dispatch.ok_or(CpuError::Kernel {
        kernel: kernel.clone(),
        message: "the plan has no dispatch command".into(),
    })?;

    // Every [[buffer(N)]], [[texture(N)]] and [[sampler(N)]] the kernel
    // declares must have been set (each element of an array).
    for p in params {
        let (at, attribute) = match p.kind {
            ParamKind::Buffer(n) => {
                if slots.get(n as usize).is_none_or(|s| s.is_null()) {
                    return Err(CpuError::UnboundSlot {
                        kernel,
                        param: p.name.clone(),
                        index: n,
                    });
                }
                let length = bound_bytes[n as usize];
                if length < p.bytes {
                    return Err(CpuError::ShortBinding {
                        kernel,
                        param: p.name.clone(),
                        index: n,
                        length,
                        needs: p.bytes,
                    });
                }
                continue;
            }
            ParamKind::Texture { index, count } => (
                TEXTURE_SLOT_BASE + index as usize,
                ("texture", index, count),
            ),
            ParamKind::Sampler { index, count } => (
                SAMPLER_SLOT_BASE + index as usize,
                ("sampler", index, count),
            ),
            ParamKind::Builtin(_) => continue,
        };
        let (what, index, count) = attribute;
        for e in 0..count as usize {
            if slots.get(at + e).is_none_or(|s| s.is_null()) {
                return Err(CpuError::UnboundResourceSlot {
                    kernel,
                    param: p.name.clone(),
                    attribute: format!("{what}({})", index as usize + e),
                });
            }
        }
    }

    // Every buffer an argument buffer points to must be resident.
    for a in &plan.argument_buffers {
        let Some(bytes) = ab_copies.get(&a.set) else {
            continue;
        };
        if a.sizes_table.is_some() && !resident_sizes.contains(&a.set) {
            return Err(CpuError::Kernel {
                kernel,
                message: format!(
                    "the buffer-sizes table of the argument buffer of set {} is not made resident (useResource)",
                    a.set
                ),
            });
        }
        for m in &a.members {
            let at = m.byte_offset as usize;
            let Some(word) = bytes.get(at..at + 8) else {
                continue;
            };
            let address = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let stray = |what| CpuError::StrayResourceId {
                kernel: kernel.clone(),
                set: a.set,
                byte_offset: m.byte_offset,
                key: m.key,
                id: address,
                what,
            };
            match m.value {
                MemberValue::Buffer { .. } => {}
                MemberValue::Texture { .. } => {
                    // The kernel finds the texture by the id in the bytes:
                    // it must be a bound texture's, made resident.
                    let t = bindings
                        .objects()
                        .find_map(|(_, b)| b.texture().filter(|t| t.gpu_resource_id() == address))
                        .ok_or_else(|| stray("texture"))?;
                    if !resident_textures.iter().any(|r| r.same(t)) {
                        return Err(CpuError::NotResident {
                            kernel,
                            key: m.key,
                            set: a.set,
                            byte_offset: m.byte_offset,
                        });
                    }
                    textures.push(t.clone());
                    continue;
                }
                MemberValue::AccelerationStructure { .. } => {
                    // The kernel finds the structure by the id in the
                    // bytes: a bound structure's, made resident.
                    let found = bindings
                        .objects()
                        .find_map(|(_, b)| {
                            b.acceleration_structure()
                                .filter(|s| s.gpu_resource_id() == address)
                        })
                        .ok_or_else(|| stray("acceleration structure"))?;
                    if !resident_accels.iter().any(|r| r.same(found)) {
                        return Err(CpuError::NotResident {
                            kernel,
                            key: m.key,
                            set: a.set,
                            byte_offset: m.byte_offset,
                        });
                    }
                    accels.push(found.clone());
                    continue;
                }
                MemberValue::Sampler { .. } => {
                    let s = bindings
                        .objects()
                        .find_map(|(_, b)| b.sampler().filter(|s| s.gpu_resource_id() == address))
                        .ok_or_else(|| stray("sampler"))?;
                    samplers.push(s.clone());
                    continue;
                }
            }
            let target = bindings.all_buffers().find(|(_, b)| {
                let start = b.gpu_address();
                (start..=start + b.len()).contains(&address)
            });
            let Some((_, b)) = target else {
                return Err(CpuError::StrayAddress {
                    kernel,
                    set: a.set,
                    byte_offset: m.byte_offset,
                    key: m.key,
                    address,
                });
            };
            if !resident.iter().any(|r| r.same(b)) {
                return Err(CpuError::NotResident {
                    kernel,
                    key: m.key,
                    set: a.set,
                    byte_offset: m.byte_offset,
                });
            }
        }
    }

    for (key, b) in bindings.buffers() {
        regions.push(Region::of(
            format!("the buffer bound to {key}"),
            b.mapping(),
        ));
    }
    for (key, b) in bindings.objects() {
        if let Some(t) = b.texture() {
            regions.push(Region::of(
                format!("{} bound to {key}", t.label()),
                t.mapping(),
            ));
            if let Some((buffer, _, _)) = t.storage_buffer() {
                regions.push(Region::of(
                    format!("the buffer of {} bound to {key}", t.label()),
                    buffer.mapping(),
                ));
            }
            if let Some(viewed) = t.viewed() {
                regions.push(Region::of(
                    format!("{}, viewed by the texture bound to {key}", viewed.label()),
                    viewed.mapping(),
                ));
            }
        }
        if let Some(a) = b.acceleration_structure() {
            regions.push(Region::of(
                format!("the acceleration structure bound to {key}"),
                a.block(),
            ));
        }
    }
    Ok(Encoded {
        slots,
        threadgroups,
        threads,
        regions,
        _keep: keep,
        _textures: textures,
        _samplers: samplers,
        _accels: accels,
    })
}

#[cfg(test)]
mod accel_tests {
    //! The slot and argument-buffer member of an acceleration structure hold
    //! its resource id, and a dispatch that leaves the structure or one of
    //! its primitive structures non-resident is refused, as Metal would
    //! leave it unreadable.

    use super::*;
    use crate::plan::{ArgumentBufferPlan, ArgumentMember, Usage};
    use crate::scene::{BottomLevel, Geometry, Instance, Primitives, TopLevel};

    fn two_bottoms() -> AccelerationStructure {
        let bottom = |z: f32| BottomLevel {
            geometries: vec![Geometry {
                primitives: Primitives::Triangles(vec![[
                    [0.0, 0.0, z],
                    [1.0, 0.0, z],
                    [0.0, 1.0, z],
                ]]),
                opaque: true,
                no_duplicate_any_hit: false,
            }],
        };
        AccelerationStructure::build(&TopLevel {
            bottom: vec![bottom(1.0), bottom(2.0)],
            instances: vec![Instance::of(0), Instance::of(1)],
        })
        .unwrap()
    }

    const KEY: ResourceKey = ResourceKey {
        set: 0,
        binding: 0,
        element: 0,
    };

    fn param(ty: &str, bytes: u64) -> Param {
        Param {
            ty: ty.into(),
            name: "scene".into(),
            kind: ParamKind::Buffer(0),
            bytes,
        }
    }

    fn plan(argument_buffers: Vec<ArgumentBufferPlan>, commands: Vec<Command>) -> DispatchPlan {
        let mut commands = commands;
        commands.push(Command::Dispatch {
            threadgroups: [1, 1, 1],
            threads_per_threadgroup: [1, 1, 1],
        });
        DispatchPlan {
            kernel: "k".into(),
            threads_per_threadgroup: [1, 1, 1],
            threadgroups: [1, 1, 1],
            argument_buffers,
            commands,
        }
    }

    fn primitives(n: u32) -> Vec<Command> {
        (0..n)
            .map(|index| Command::UsePrimitiveStructure { key: KEY, index })
            .collect()
    }

    #[test]
    fn a_discrete_acceleration_structure_slot_holds_its_resource_id() {
        let a = two_bottoms();
        let mut b = ResourceBindings::new();
        b.acceleration_structure(0, 0, &a);
        let params = [param(
            "raytracing::acceleration_structure<raytracing::instancing>",
            0,
        )];
        let mut commands = vec![Command::SetAccelerationStructure { index: 0, key: KEY }];
        commands.extend(primitives(2));
        let e = encode("k", &params, &plan(Vec::new(), commands.clone()), &b).unwrap();
        assert_eq!(e.slots[0] as u64, a.gpu_resource_id());

        // Negative control: one primitive structure left out.
        commands.retain(|c| *c != Command::UsePrimitiveStructure { key: KEY, index: 1 });
        let err = encode("k", &params, &plan(Vec::new(), commands), &b).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: primitive structure 1 of the acceleration structure bound to (set 0, binding 0) is not made resident (useResource)"
        );
    }

    #[test]
    fn an_argument_buffer_member_holds_the_resource_id_of_a_resident_structure() {
        let a = two_bottoms();
        let mut b = ResourceBindings::new();
        b.acceleration_structure(0, 0, &a);
        let params = [param("constant spvDescriptorSetBuffer0&", 8)];
        let ab = |id: u64| ArgumentBufferPlan {
            set: 0,
            buffer_index: 0,
            bytes: id.to_le_bytes().to_vec(),
            members: vec![ArgumentMember {
                id: 0,
                byte_offset: 0,
                key: KEY,
                value: MemberValue::AccelerationStructure { resource_id: id },
            }],
            sizes_table: None,
        };
        let mut commands = vec![
            Command::SetArgumentBuffer { index: 0, set: 0 },
            Command::UseResource {
                key: KEY,
                usage: Usage::Read,
            },
        ];
        commands.extend(primitives(2));
        let id = a.gpu_resource_id();
        encode("k", &params, &plan(vec![ab(id)], commands.clone()), &b).unwrap();

        // An id that is no bound structure's.
        let err = encode("k", &params, &plan(vec![ab(id ^ 8)], commands.clone()), &b).unwrap_err();
        assert!(
            matches!(
                err,
                CpuError::StrayResourceId {
                    what: "acceleration structure",
                    ..
                }
            ),
            "{err}"
        );
        // The instance structure not made resident.
        commands.remove(1);
        let err = encode("k", &params, &plan(vec![ab(id)], commands), &b).unwrap_err();
        assert!(matches!(err, CpuError::NotResident { .. }), "{err}");
    }
}
