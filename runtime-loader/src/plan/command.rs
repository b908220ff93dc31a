//! The compute-encoder calls a plan is made of.

use std::fmt;

use super::{ResourceKey, Usage};

/// What a `setBytes` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BytesPurpose {
    /// The push-constant block.
    PushConstants,
    /// The kernel-level buffer-sizes table (u32 byte lengths).
    SizesTable,
}

/// One compute-encoder call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `setBytes:length:atIndex:`.
    SetBytes {
        /// `[[buffer(N)]]`.
        index: u32,
        /// The bytes.
        bytes: Vec<u8>,
        /// What they are.
        purpose: BytesPurpose,
    },
    /// `setBuffer:offset:atIndex:` of the argument buffer of `set`, whose
    /// contents are `DispatchPlan::argument_buffer(set)`.
    SetArgumentBuffer {
        /// `[[buffer(N)]]`.
        index: u32,
        /// Descriptor set.
        set: u32,
    },
    /// `useResource:usage:` (read) of the buffer holding the sizes table of
    /// the argument buffer of `set`.
    UseSizesTable {
        /// Descriptor set.
        set: u32,
    },
    /// `setBuffer:offset:atIndex:` of a bound buffer.
    SetBuffer {
        /// `[[buffer(N)]]`.
        index: u32,
        /// The bound resource.
        key: ResourceKey,
        /// Byte offset.
        offset: u64,
    },
    /// `setBuffer:offset:atIndex:` of the buffer the texture bound at `key`
    /// was created on: the companion buffer through which a kernel
    /// compiled below MSL 3.1 does that image's atomics.
    SetAtomicBuffer {
        /// `[[buffer(N)]]`.
        index: u32,
        /// The bound texture.
        key: ResourceKey,
        /// Byte offset of its first row in the buffer.
        offset: u64,
    },
    /// `useResource:usage:` (read-write) of the buffer the texture bound at
    /// `key` was created on, when an argument buffer points to it (the
    /// companion buffer of emulated image atomics).
    UseAtomicBuffer {
        /// The bound texture.
        key: ResourceKey,
    },
    /// `setTexture:atIndex:` of a bound texture (or the texture of a combined
    /// image-sampler).
    SetTexture {
        /// `[[texture(N)]]`.
        index: u32,
        /// The bound resource.
        key: ResourceKey,
    },
    /// `setSamplerState:atIndex:` of a bound sampler (or the sampler of a
    /// combined image-sampler).
    SetSamplerState {
        /// `[[sampler(N)]]`.
        index: u32,
        /// The bound resource.
        key: ResourceKey,
    },
    /// `setAccelerationStructure:atBufferIndex:` of the acceleration
    /// structure bound at `key`.
    SetAccelerationStructure {
        /// `[[buffer(N)]]`.
        index: u32,
        /// The bound structure.
        key: ResourceKey,
    },
    /// `useResource:usage:` (read) of primitive structure `index` of the
    /// instance acceleration structure bound at `key`: Metal reaches the
    /// primitive structures through the instance structure, however that is
    /// bound, and must be told of each.
    UsePrimitiveStructure {
        /// The bound instance structure.
        key: ResourceKey,
        /// Which of its primitive structures (`0..primitive_structures`).
        index: u32,
    },
    /// `useResource:usage:` of a buffer, texture or acceleration structure
    /// reached only through an argument buffer.
    UseResource {
        /// The bound resource.
        key: ResourceKey,
        /// Usage.
        usage: Usage,
    },
    /// `useResource:usage:` of a buffer the kernel reaches through a device
    /// address: element `index` of [`Bindings::reached`](super::Bindings::reached).
    UseReached {
        /// Its position among the reached buffers.
        index: u32,
        /// Usage.
        usage: Usage,
    },
    /// `dispatchThreadgroups:threadsPerThreadgroup:`.
    Dispatch {
        /// Threadgroups per dimension.
        threadgroups: [u64; 3],
        /// Threads per threadgroup.
        threads_per_threadgroup: [u32; 3],
    },
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::SetBytes {
                index,
                bytes,
                purpose,
            } => {
                let what = match purpose {
                    BytesPurpose::PushConstants => "push constants",
                    BytesPurpose::SizesTable => "buffer-sizes table",
                };
                write!(
                    f,
                    "setBytes({} bytes of {what}) at buffer({index})",
                    bytes.len()
                )
            }
            Command::SetArgumentBuffer { index, set } => {
                write!(
                    f,
                    "setBuffer(argument buffer of set {set}) at buffer({index})"
                )
            }
            Command::UseSizesTable { set } => {
                write!(f, "useResource(sizes table of set {set}, read)")
            }
            Command::SetBuffer { index, key, offset } => {
                write!(f, "setBuffer({key}, offset {offset}) at buffer({index})")
            }
            Command::SetTexture { index, key } => {
                write!(f, "setTexture({key}) at texture({index})")
            }
            Command::SetAtomicBuffer { index, key, offset } => {
                write!(
                    f,
                    "setBuffer(buffer of the texture {key}, offset {offset}) at buffer({index})"
                )
            }
            Command::UseAtomicBuffer { key } => {
                write!(f, "useResource(buffer of the texture {key}, read-write)")
            }
            Command::SetSamplerState { index, key } => {
                write!(f, "setSamplerState({key}) at sampler({index})")
            }
            Command::SetAccelerationStructure { index, key } => {
                write!(f, "setAccelerationStructure({key}) at buffer({index})")
            }
            Command::UsePrimitiveStructure { key, index } => {
                write!(
                    f,
                    "useResource(primitive structure {index} of the acceleration structure {key}, read)"
                )
            }
            Command::UseResource { key, usage } => {
                let usage = match usage {
                    Usage::Read => "read",
                    Usage::ReadWrite => "read-write",
                };
                write!(f, "useResource({key}, {usage})")
            }
            Command::UseReached { index, usage } => {
                let usage = match usage {
                    Usage::Read => "read",
                    Usage::ReadWrite => "read-write",
                };
                write!(f, "useResource(reached buffer {index}, {usage})")
            }
            Command::Dispatch {
                threadgroups: g,
                threads_per_threadgroup: t,
            } => write!(
                f,
                "dispatchThreadgroups({}x{}x{}, threadsPerThreadgroup {}x{}x{})",
                g[0], g[1], g[2], t[0], t[1], t[2]
            ),
        }
    }
}
