//! The plan → Metal mapping: every Metal call a dispatch makes is here, one
//! match arm per [`Command`], plus the two ways of filling an argument
//! buffer. No decision is taken here that the plan has not already taken.

use std::ptr::NonNull;

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2::Message;
use objc2_metal::{
    MTLAccelerationStructure, MTLArgumentEncoder, MTLBuffer, MTLComputeCommandEncoder, MTLDevice,
    MTLResource, MTLResourceUsage, MTLSamplerState, MTLTexture,
};

use super::bindings::{Bound, ResourceBindings};
use super::buffer;
use super::conv;
use super::program::{ArgumentEncoding, Pipeline};
use super::MetalError;
use crate::memory::StorageMode;
use crate::plan::{ArgumentBufferPlan, Command, DispatchPlan, MemberValue, ResourceKey};

/// An object a command buffer keeps alive until it completes (resources
/// reached through argument buffers are not retained by Metal itself).
#[derive(Debug)]
#[allow(
    dead_code,
    reason = "the fields are only held, to keep the objects alive"
)]
pub(super) enum KeepAlive {
    Buffer(Retained<ProtocolObject<dyn MTLBuffer>>),
    Texture(Retained<ProtocolObject<dyn MTLTexture>>),
    Sampler(Retained<ProtocolObject<dyn MTLSamplerState>>),
    AccelerationStructure(Retained<ProtocolObject<dyn MTLAccelerationStructure>>),
}

/// Every object `bindings` holds, retained: kept alive until the command
/// buffer completes.
pub(super) fn retain_all(bindings: &ResourceBindings<'_>, keep: &mut Vec<KeepAlive>) {
    for b in bindings.objects() {
        match *b {
            Bound::Buffer { buffer, .. } => keep.push(KeepAlive::Buffer(buffer.retained())),
            Bound::Texture(t) => keep.push(KeepAlive::Texture(t.retain())),
            Bound::Sampler(s) => keep.push(KeepAlive::Sampler(s.retain())),
            Bound::CombinedImageSampler(t, s) => {
                keep.push(KeepAlive::Texture(t.retain()));
                keep.push(KeepAlive::Sampler(s.retain()));
            }
            Bound::AccelerationStructure(a) => {
                keep.extend(a.retained().map(KeepAlive::AccelerationStructure))
            }
        }
    }
    for buffer in bindings.reached_buffers() {
        keep.push(KeepAlive::Buffer(buffer.retained()));
    }
}

/// An argument buffer made real: the buffer and its sizes table.
struct Materialized {
    set: u32,
    buffer: Retained<ProtocolObject<dyn MTLBuffer>>,
    sizes: Option<Retained<ProtocolObject<dyn MTLBuffer>>>,
}

fn as_resource<T: MTLResource + ?Sized>(r: &ProtocolObject<T>) -> &ProtocolObject<dyn MTLResource>
where
    ProtocolObject<T>: MTLResource,
{
    ProtocolObject::from_ref(r)
}

/// Fills one argument buffer, Metal 3 way: the plan's bytes, with the sizes
/// table's GPU address patched in.
fn materialize_direct(
    pipeline: &Pipeline<'_>,
    a: &ArgumentBufferPlan,
) -> Result<Materialized, MetalError> {
    let device = pipeline.raw_device();
    let mut bytes = a.bytes.clone();
    let sizes = match &a.sizes_table {
        Some(t) => {
            let table = buffer::shared_with_bytes(device, &t.bytes())?;
            t.write_address(&mut bytes, table.gpuAddress());
            Some(table)
        }
        None => None,
    };
    Ok(Materialized {
        set: a.set,
        buffer: buffer::shared_with_bytes(device, &bytes)?,
        sizes,
    })
}

/// Fills one argument buffer through the function's `MTLArgumentEncoder`.
fn materialize_encoder(
    pipeline: &Pipeline<'_>,
    a: &ArgumentBufferPlan,
    bindings: &ResourceBindings<'_>,
) -> Result<Materialized, MetalError> {
    let enc = pipeline
        .argument_encoder(a.set)
        .ok_or(MetalError::ArgumentBuffers {
            kernel: pipeline.kernel().name().into(),
            message: format!("no argument encoder for set {}", a.set),
        })?;
    let len = enc.encodedLength().max(4);
    let buffer = pipeline
        .raw_device()
        .newBufferWithLength_options(len, conv::map_storage_mode(StorageMode::Shared))
        .ok_or_else(|| MetalError::Creation {
            what: format!("a {len}-byte argument buffer"),
        })?;
    // SAFETY: `buffer` is a live shared buffer of `encodedLength` bytes (or
    // more), the size the encoder writes from offset 0.
    unsafe { enc.setArgumentBuffer_offset(Some(&buffer), 0) };
    for m in &a.members {
        let bound = bindings.get(m.key)?;
        let index = m.id as usize;
        // SAFETY (every call below): `index` is an `[[id(N)]]` the verified
        // executable records for this argument buffer, which the MSL
        // declares; the objects are live for the call and retained by the
        // command buffer until it completes (`KeepAlive`).
        match (m.value, *bound) {
            (MemberValue::Buffer { offset, .. }, Bound::Buffer { buffer, .. }) => unsafe {
                enc.setBuffer_offset_atIndex(Some(buffer.raw()), conv::ns(offset), index)
            },
            // The companion buffer of emulated image atomics: the buffer
            // the texture bound at this key was created on.
            (MemberValue::Buffer { offset, .. }, Bound::Texture(t)) => {
                let buffer = t.buffer().ok_or(MetalError::Inconsistent {
                    key: m.key,
                    message: "the plan writes the buffer of a texture not created on a buffer",
                })?;
                unsafe { enc.setBuffer_offset_atIndex(Some(&buffer), conv::ns(offset), index) }
            }
            (
                MemberValue::Texture { .. },
                Bound::Texture(t) | Bound::CombinedImageSampler(t, _),
            ) => unsafe { enc.setTexture_atIndex(Some(t), index) },
            (
                MemberValue::Sampler { .. },
                Bound::Sampler(s) | Bound::CombinedImageSampler(_, s),
            ) => unsafe { enc.setSamplerState_atIndex(Some(s), index) },
            (MemberValue::AccelerationStructure { .. }, Bound::AccelerationStructure(a)) => unsafe {
                enc.setAccelerationStructure_atIndex(Some(a.raw()), index)
            },
            _ => {
                return Err(MetalError::Inconsistent {
                    key: m.key,
                    message: "the bound object does not match the plan's member",
                })
            }
        }
    }
    let sizes = match &a.sizes_table {
        Some(t) => {
            let table = buffer::shared_with_bytes(pipeline.raw_device(), &t.bytes())?;
            // SAFETY: as above: `t.id` is the verified sizes member id.
            unsafe { enc.setBuffer_offset_atIndex(Some(&table), 0, t.id as usize) };
            Some(table)
        }
        None => None,
    };
    Ok(Materialized {
        set: a.set,
        buffer,
        sizes,
    })
}

/// Encodes one planned dispatch into `encoder`.
pub(super) fn encode(
    encoder: &ProtocolObject<dyn MTLComputeCommandEncoder>,
    pipeline: &Pipeline<'_>,
    plan: &DispatchPlan,
    bindings: &ResourceBindings<'_>,
    keep: &mut Vec<KeepAlive>,
) -> Result<(), MetalError> {
    // Argument buffers first: allocation can fail, and nothing is encoded yet.
    let abs = plan
        .argument_buffers
        .iter()
        .map(|a| match pipeline.argument_encoding() {
            ArgumentEncoding::ArgumentEncoder => materialize_encoder(pipeline, a, bindings),
            _ => materialize_direct(pipeline, a),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let ab = |set: u32| {
        abs.iter()
            .find(|m| m.set == set)
            .ok_or(MetalError::Inconsistent {
                key: ResourceKey {
                    set,
                    binding: 0,
                    element: 0,
                },
                message: "the plan sets an argument buffer it does not describe",
            })
    };
    let buffer_of = |key| match bindings.get(key)? {
        Bound::Buffer { buffer, .. } => Ok(buffer.raw()),
        _ => Err(MetalError::Inconsistent {
            key,
            message: "the plan binds a buffer where an image or sampler is bound",
        }),
    };
    let texture_of = |key| match bindings.get(key)? {
        Bound::Texture(t) | Bound::CombinedImageSampler(t, _) => Ok(*t),
        _ => Err(MetalError::Inconsistent {
            key,
            message: "the plan binds a texture where none is bound",
        }),
    };
    let sampler_of = |key| match bindings.get(key)? {
        Bound::Sampler(s) | Bound::CombinedImageSampler(_, s) => Ok(*s),
        _ => Err(MetalError::Inconsistent {
            key,
            message: "the plan binds a sampler where none is bound",
        }),
    };

    encoder.setComputePipelineState(pipeline.raw());
    for command in &plan.commands {
        match command {
            Command::SetBytes { index, bytes, .. } => {
                // SAFETY: `bytes` is a live slice of `bytes.len()` bytes
                // (≤ 4 KiB, verified) that Metal copies; `index` is a verified
                // slot of the buffer argument table.
                unsafe {
                    encoder.setBytes_length_atIndex(
                        NonNull::from(bytes.as_slice()).cast(),
                        bytes.len(),
                        *index as usize,
                    )
                }
            }
            Command::SetArgumentBuffer { index, set } => {
                // SAFETY: a live argument buffer of the size the kernel reads,
                // at a verified slot; the command buffer retains it.
                unsafe {
                    encoder.setBuffer_offset_atIndex(Some(&ab(*set)?.buffer), 0, *index as usize)
                }
            }
            Command::UseSizesTable { set } => {
                if let Some(t) = &ab(*set)?.sizes {
                    encoder.useResource_usage(as_resource(&**t), MTLResourceUsage::Read);
                }
            }
            Command::SetBuffer { index, key, offset } => {
                // SAFETY: the buffer is live, `offset` is inside it (checked
                // by `to_plan`) and aligned (checked by the plan); `index` is
                // a verified slot.
                unsafe {
                    encoder.setBuffer_offset_atIndex(
                        Some(buffer_of(*key)?),
                        conv::ns(*offset),
                        *index as usize,
                    )
                }
            }
            Command::SetTexture { index, key } => {
                // SAFETY: a live texture at a verified texture slot.
                unsafe { encoder.setTexture_atIndex(Some(texture_of(*key)?), *index as usize) }
            }
            Command::SetAtomicBuffer { index, key, offset } => {
                let buffer = texture_of(*key)?.buffer().ok_or(MetalError::Inconsistent {
                    key: *key,
                    message: "the plan binds the buffer of a texture not created on a buffer",
                })?;
                // SAFETY: the texture's own buffer (alive while the texture
                // is, which the command buffer retains) at the texture's
                // offset, at a verified slot.
                unsafe {
                    encoder.setBuffer_offset_atIndex(
                        Some(&buffer),
                        conv::ns(*offset),
                        *index as usize,
                    )
                }
            }
            Command::UseAtomicBuffer { key } => {
                let buffer = texture_of(*key)?.buffer().ok_or(MetalError::Inconsistent {
                    key: *key,
                    message:
                        "the plan makes resident the buffer of a texture not created on a buffer",
                })?;
                encoder.useResource_usage(
                    as_resource(&*buffer),
                    MTLResourceUsage::Read | MTLResourceUsage::Write,
                );
            }
            Command::SetSamplerState { index, key } => {
                // SAFETY: a live sampler at a verified sampler slot.
                unsafe { encoder.setSamplerState_atIndex(Some(sampler_of(*key)?), *index as usize) }
            }
            Command::UseResource { key, usage } => {
                let usage = conv::map_usage(*usage);
                match bindings.get(*key)? {
                    Bound::Buffer { buffer, .. } => {
                        encoder.useResource_usage(as_resource(buffer.raw()), usage)
                    }
                    Bound::Texture(t) | Bound::CombinedImageSampler(t, _) => {
                        encoder.useResource_usage(as_resource(*t), usage)
                    }
                    Bound::AccelerationStructure(a) => {
                        encoder.useResource_usage(as_resource(a.raw()), usage)
                    }
                    Bound::Sampler(_) => {}
                }
            }
            Command::SetAccelerationStructure { index, key } => {
                let Bound::AccelerationStructure(a) = bindings.get(*key)? else {
                    return Err(MetalError::Inconsistent {
                        key: *key,
                        message: "the plan binds an acceleration structure where none is bound",
                    });
                };
                // SAFETY: a live, built instance acceleration structure (the
                // command buffer retains it and its primitive structures) at
                // a verified slot of the buffer argument table.
                unsafe {
                    encoder.setAccelerationStructure_atBufferIndex(Some(a.raw()), *index as usize)
                }
            }
            Command::UsePrimitiveStructure { key, index } => {
                let primitive = match bindings.get(*key)? {
                    Bound::AccelerationStructure(a) => a.primitive(*index as usize),
                    _ => None,
                }
                .ok_or(MetalError::Inconsistent {
                    key: *key,
                    message: "the plan makes resident a primitive structure the bound acceleration structure does not have",
                })?;
                encoder.useResource_usage(as_resource(primitive), MTLResourceUsage::Read);
            }
            Command::UseReached { index, usage } => {
                let buffer = bindings
                    .reached(*index)
                    .ok_or(MetalError::ReachedMissing { index: *index })?;
                encoder.useResource_usage(as_resource(buffer.raw()), conv::map_usage(*usage))
            }
            Command::Dispatch {
                threadgroups,
                threads_per_threadgroup,
            } => encoder.dispatchThreadgroups_threadsPerThreadgroup(
                conv::map_size(*threadgroups),
                conv::map_size(*threads_per_threadgroup),
            ),
        }
    }

    retain_all(bindings, keep);
    for m in abs {
        keep.push(KeepAlive::Buffer(m.buffer));
        if let Some(s) = m.sizes {
            keep.push(KeepAlive::Buffer(s));
        }
    }
    Ok(())
}
