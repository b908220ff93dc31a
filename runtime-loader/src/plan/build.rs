//! [`DispatchPlan::new`]: the walk over a kernel's bindings that places every
//! bound resource (argument-buffer member or discrete slot, sizes tables) and
//! orders the commands.

use super::argument_buffer::write_member;
use super::buffer::check_buffer;
use super::{
    ArgumentBufferPlan, ArgumentMember, ArgumentSizesTable, Bindings, BytesPurpose, Command,
    DispatchPlan, Grid, MemberValue, PlanError, Resource, ResourceKey, Specialization, Usage,
};
use crate::kernel::Kernel;
use crate::schema::{Access, BindingKind, MetalLimits};
use crate::verify::{kind_parts, Part};

/// The most bytes an MSL struct whose SPIR-V layout ends at `size` can
/// take: `size` rounded up to the struct's alignment, which is a power of
/// two no larger than 32 (`ulong4`) nor than the next power of two of
/// `size` (a member aligns to at most its MSL size, and only a 3-vector's
/// MSL size exceeds its SPIR-V one, up to the next power of two). The
/// 4 KiB push-constant limit is a multiple of 32, so the result stays
/// within it.
pub(crate) fn msl_struct_bound(size: usize) -> usize {
    let align = size.next_power_of_two().clamp(1, 32);
    size.next_multiple_of(align)
}

fn usage(kind: BindingKind, access: Access) -> Usage {
    match kind {
        BindingKind::StorageBuffer
        | BindingKind::StorageImage
        | BindingKind::StorageTexelBuffer
            if access != Access::ReadOnly =>
        {
            Usage::ReadWrite
        }
        _ => Usage::Read,
    }
}

fn expected_resource(kind: BindingKind) -> &'static str {
    match kind_parts(kind) {
        Some((Some(Part::Buffer), _)) => "a buffer",
        Some((Some(Part::Texture), false)) => "a texture",
        Some((Some(Part::Texture), true)) => "a texture and sampler",
        Some((Some(Part::AccelerationStructure), _)) => "an acceleration structure",
        _ => "a sampler",
    }
}

impl DispatchPlan {
    /// Plans one dispatch of `kernel`. See the module documentation for the
    /// order of the commands.
    pub fn new(
        kernel: &Kernel<'_>,
        spec: &Specialization,
        bindings: &Bindings,
        push_constants: &[u8],
        grid: Grid,
    ) -> Result<Self, PlanError> {
        let name = || kernel.name().to_owned();
        if spec.kernel() != kernel.name() {
            return Err(PlanError::SpecializationMismatch {
                kernel: name(),
                other: spec.kernel().to_owned(),
            });
        }
        let threads = spec.threads_per_threadgroup();
        let threadgroups = grid
            .threadgroups(threads)
            .ok_or_else(|| PlanError::EmptyGrid {
                kernel: name(),
                grid,
            })?;

        let mut commands = Vec::new();

        // 1. Push constants.
        match kernel.push_constants() {
            Some(p) if push_constants.len() == p.size as usize => {
                // The block's size is the SPIR-V's (the end of its last
                // member); the MSL struct's is rounded up to its alignment
                // (a block of three pointers and a uint: 28 bytes, 32 in
                // MSL), and Metal wants `setBytes` to cover the struct.
                let mut bytes = push_constants.to_vec();
                bytes.resize(msl_struct_bound(bytes.len()), 0);
                commands.push(Command::SetBytes {
                    index: p.buffer_index,
                    bytes,
                    purpose: BytesPurpose::PushConstants,
                })
            }
            None if push_constants.is_empty() => {}
            p => {
                return Err(PlanError::PushConstantSize {
                    kernel: name(),
                    expected: p.map_or(0, |p| p.size),
                    found: push_constants.len(),
                })
            }
        }

        // Every bound (set, binding) must exist in the kernel.
        for ((set, binding), _) in bindings.iter() {
            if kernel.binding(set, binding).is_none() {
                return Err(PlanError::UnexpectedBinding {
                    kernel: name(),
                    set,
                    binding,
                });
            }
        }

        let platform = kernel.library().platform();
        let mut argument_buffers: Vec<ArgumentBufferPlan> = {
            let mut abs: Vec<_> = kernel.argument_buffers().collect();
            abs.sort_by_key(|a| a.set());
            abs.into_iter()
                .map(|a| ArgumentBufferPlan {
                    set: a.set(),
                    buffer_index: a.buffer_index(),
                    bytes: vec![0; a.size() as usize],
                    members: Vec::new(),
                    sizes_table: a.sizes_id().zip(a.sizes_byte_offset()).map(
                        |(id, byte_offset)| ArgumentSizesTable {
                            id,
                            byte_offset,
                            lengths: Vec::new(),
                        },
                    ),
                })
                .collect()
        };
        let mut uses: Vec<Vec<Command>> = vec![Vec::new(); argument_buffers.len()];
        let mut discrete = Vec::new();
        let mut sizes = kernel
            .sizes_buffer()
            .map(|s| vec![0u32; s.entries as usize]);

        for b in kernel.bindings() {
            let (set, binding) = (b.set(), b.binding());
            let Some(elements) = bindings.get(set, binding) else {
                return Err(PlanError::MissingBinding {
                    kernel: name(),
                    set,
                    binding,
                });
            };
            if elements.len() != b.count() as usize {
                return Err(PlanError::ElementCount {
                    kernel: name(),
                    set,
                    binding,
                    expected: b.count(),
                    found: elements.len(),
                });
            }
            let ab = argument_buffers.iter().position(|a| a.set == set);
            let in_ab = b.id().is_some();
            let sampler_in_ab = b.sampler_id().is_some();
            let atomic = b.atomic_buffer();
            for (e, r) in (0u32..).zip(elements) {
                let key = ResourceKey {
                    set,
                    binding,
                    element: e,
                };
                let wrong = || PlanError::WrongResource {
                    kernel: name(),
                    key,
                    expected: expected_resource(b.kind()),
                    found: r.what(),
                };
                // A discrete companion buffer's `setBuffer`, after the
                // texture's `setTexture`.
                let mut companion = None;
                // The primitive structures of a bound acceleration structure.
                let mut primitives = 0;
                // (buffer or texture value, sampler value)
                let (main, sampler) = match (kind_parts(b.kind()), *r) {
                    (Some((Some(Part::Buffer), false)), Resource::Buffer(buf)) => {
                        check_buffer(kernel, platform, b, key, &buf)?;
                        if let Some(si) = b.sizes_index() {
                            let length = u32::try_from(buf.length).map_err(|_| {
                                PlanError::LengthTooLarge {
                                    kernel: name(),
                                    key,
                                    length: buf.length,
                                }
                            })?;
                            let entry = si as usize + e as usize;
                            let table = match (in_ab, ab) {
                                (true, Some(ab)) => argument_buffers[ab]
                                    .sizes_table
                                    .as_mut()
                                    .map(|t| &mut t.lengths),
                                _ => sizes.as_mut(),
                            };
                            if let Some(table) = table {
                                if table.len() <= entry {
                                    table.resize(entry + 1, 0);
                                }
                                table[entry] = length;
                            }
                        }
                        (
                            Some(MemberValue::Buffer {
                                gpu_address: buf.gpu_address,
                                offset: buf.offset,
                            }),
                            None,
                        )
                    }
                    (Some((Some(Part::Texture), false)), Resource::Texture { resource_id }) => {
                        if atomic.is_some() {
                            return Err(PlanError::NeedsTextureOnBuffer {
                                kernel: name(),
                                key,
                            });
                        }
                        (Some(MemberValue::Texture { resource_id }), None)
                    }
                    (
                        Some((Some(Part::Texture), false)),
                        Resource::TextureOnBuffer {
                            resource_id,
                            buffer,
                            width,
                            bytes_per_row,
                        },
                    ) => {
                        if let Some(a) = atomic {
                            let expected = a.bytes_per_row(width);
                            if bytes_per_row != expected {
                                return Err(PlanError::AtomicRowPitch {
                                    kernel: name(),
                                    key,
                                    width,
                                    alignment: a.row_alignment,
                                    expected,
                                    found: bytes_per_row,
                                });
                            }
                            // The companion buffer, placed as the image is.
                            match (a.id.zip(a.byte_offset), ab) {
                                (Some((id, byte_offset)), Some(ab)) => {
                                    let value = MemberValue::Buffer {
                                        gpu_address: buffer.gpu_address,
                                        offset: buffer.offset,
                                    };
                                    let a = &mut argument_buffers[ab];
                                    write_member(&mut a.bytes, byte_offset, value);
                                    a.members.push(ArgumentMember {
                                        id,
                                        byte_offset,
                                        key,
                                        value,
                                    });
                                    uses[ab].push(Command::UseAtomicBuffer { key });
                                }
                                _ => {
                                    companion = Some(Command::SetAtomicBuffer {
                                        index: a.buffer_index.unwrap_or(0),
                                        key,
                                        offset: buffer.offset,
                                    })
                                }
                            }
                        }
                        (Some(MemberValue::Texture { resource_id }), None)
                    }
                    (
                        Some((Some(Part::AccelerationStructure), false)),
                        Resource::AccelerationStructure {
                            resource_id,
                            primitive_structures,
                        },
                    ) => {
                        primitives = primitive_structures;
                        (
                            Some(MemberValue::AccelerationStructure { resource_id }),
                            None,
                        )
                    }
                    (Some((None, true)), Resource::Sampler { resource_id }) => {
                        (None, Some(MemberValue::Sampler { resource_id }))
                    }
                    (
                        Some((Some(Part::Texture), true)),
                        Resource::CombinedImageSampler {
                            texture_id,
                            sampler_id,
                        },
                    ) => (
                        Some(MemberValue::Texture {
                            resource_id: texture_id,
                        }),
                        Some(MemberValue::Sampler {
                            resource_id: sampler_id,
                        }),
                    ),
                    _ => return Err(wrong()),
                };

                if let Some(value) = main {
                    match (in_ab, ab, b.id(), b.byte_offset()) {
                        (true, Some(ab), Some(id), Some(off)) => {
                            let byte_offset = off + e * MetalLimits::ArgumentBufferSlotBytes.0;
                            let a = &mut argument_buffers[ab];
                            write_member(&mut a.bytes, byte_offset, value);
                            a.members.push(ArgumentMember {
                                id: id + e,
                                byte_offset,
                                key,
                                value,
                            });
                            uses[ab].push(Command::UseResource {
                                key,
                                usage: usage(b.kind(), b.access()),
                            });
                        }
                        _ => match value {
                            MemberValue::Buffer { offset, .. } => {
                                discrete.push(Command::SetBuffer {
                                    index: b.buffer_index().unwrap_or(0) + e,
                                    key,
                                    offset,
                                })
                            }
                            MemberValue::AccelerationStructure { .. } => {
                                discrete.push(Command::SetAccelerationStructure {
                                    index: b.buffer_index().unwrap_or(0) + e,
                                    key,
                                })
                            }
                            _ => discrete.push(Command::SetTexture {
                                index: b.texture_index().unwrap_or(0) + e,
                                key,
                            }),
                        },
                    }
                }
                discrete.extend(companion);
                // The primitive structures, beside the instance structure's
                // own residency (its `useResource`, or its
                // `setAccelerationStructure`).
                let primitive_uses =
                    (0..primitives).map(|index| Command::UsePrimitiveStructure { key, index });
                match (in_ab, ab) {
                    (true, Some(ab)) => uses[ab].extend(primitive_uses),
                    _ => discrete.extend(primitive_uses),
                }
                if let Some(value) = sampler {
                    match (sampler_in_ab, ab, b.sampler_id(), b.sampler_byte_offset()) {
                        (true, Some(ab), Some(id), Some(off)) => {
                            let byte_offset = off + e * MetalLimits::ArgumentBufferSlotBytes.0;
                            let a = &mut argument_buffers[ab];
                            write_member(&mut a.bytes, byte_offset, value);
                            a.members.push(ArgumentMember {
                                id: id + e,
                                byte_offset,
                                key,
                                value,
                            });
                        }
                        _ => discrete.push(Command::SetSamplerState {
                            index: b.sampler_index().unwrap_or(0) + e,
                            key,
                        }),
                    }
                }
            }
        }

        // 2. Argument buffers and the resources they reach.
        for (a, uses) in argument_buffers.iter().zip(uses) {
            commands.push(Command::SetArgumentBuffer {
                index: a.buffer_index,
                set: a.set,
            });
            if a.sizes_table.is_some() {
                commands.push(Command::UseSizesTable { set: a.set });
            }
            commands.extend(uses);
        }
        // Buffers reached through device addresses.
        commands.extend(
            (0u32..)
                .zip(bindings.reached())
                .map(|(index, r)| Command::UseReached {
                    index,
                    usage: r.usage,
                }),
        );
        // 3. Discrete bindings.
        commands.extend(discrete);
        // 4. The kernel-level sizes table.
        if let (Some(layout), Some(lengths)) = (kernel.sizes_buffer(), sizes) {
            commands.push(Command::SetBytes {
                index: layout.buffer_index,
                bytes: lengths.iter().flat_map(|l| l.to_le_bytes()).collect(),
                purpose: BytesPurpose::SizesTable,
            });
        }
        // 5. Dispatch.
        commands.push(Command::Dispatch {
            threadgroups,
            threads_per_threadgroup: threads,
        });

        Ok(DispatchPlan {
            kernel: name(),
            threads_per_threadgroup: threads,
            threadgroups,
            argument_buffers,
            commands,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::msl_struct_bound;

    /// The bound covers each struct's MSL size: `{uint, float}` 8, `{ulong,
    /// uint}` 12 → 16, `{float4, float}` 20 → 32, three pointers and a uint
    /// 28 → 32; never past 4 KiB.
    #[test]
    fn push_constants_cover_the_msl_struct() {
        for (spirv, msl) in [
            (1, 1),
            (4, 4),
            (8, 8),
            (12, 16),
            (20, 32),
            (28, 32),
            (36, 64),
            (4096, 4096),
        ] {
            assert_eq!(msl_struct_bound(spirv), msl, "{spirv}");
        }
    }
}
