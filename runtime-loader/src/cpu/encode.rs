//! The plan → kernel-argument mapping: each [`Command`] of a plan becomes an
//! entry of the kernel's `[[buffer(N)]]` table, exactly as the Metal backend
//! turns it into one encoder call. No decision is taken here that the plan
//! has not already taken; what Metal would leave undefined (a slot never
//! set, a resource never made resident) is an error.

use std::collections::BTreeMap;
use std::ffi::c_void;

use super::bindings::ResourceBindings;
use super::buffer::{Buffer, Mapping};
use super::source::{Param, ParamKind};
use super::CpuError;
use crate::plan::{BytesPurpose, Command, DispatchPlan, MemberValue};
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

/// A plan made ready to run: the `[[buffer(N)]]` table and what it points to.
#[derive(Debug)]
pub(super) struct Encoded {
    pub(super) slots: [*mut c_void; MetalLimits::MaxBufferSlots.0 as usize],
    pub(super) threadgroups: [u64; 3],
    pub(super) threads: [u32; 3],
    pub(super) regions: Vec<Region>,
    /// Argument buffers, `setBytes` copies and sizes tables, alive until the
    /// dispatch ends.
    _keep: Vec<Mapping>,
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
            slots,
            threadgroups,
            threads,
            regions,
            _keep: keep,
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
            slots,
            threadgroups,
            threads,
            regions,
            _keep: Vec::new(),
        }
    }
}

/// Maps `plan`'s commands onto the parameters of kernel `kernel` (its
/// `[[buffer(N)]]` table, `params`).
pub(super) fn encode(
    kernel: &str,
    params: &[Param],
    plan: &DispatchPlan,
    bindings: &ResourceBindings<'_>,
) -> Result<Encoded, CpuError> {
    let kernel = kernel.to_string();
    let mut slots: [*mut c_void; 31] =
        [std::ptr::null_mut(); MetalLimits::MaxBufferSlots.0 as usize];
    let mut keep = Vec::new();
    let mut regions = Vec::new();
    let mut resident: Vec<&Buffer> = Vec::new();
    let mut resident_sizes: Vec<u32> = Vec::new();
    let mut dispatch = None;
    let slot = |index: u32| -> Result<usize, CpuError> {
        let i = index as usize;
        if i < MetalLimits::MaxBufferSlots.0 as usize {
            Ok(i)
        } else {
            Err(CpuError::Limit {
                kernel: kernel.clone(),
                message: format!(
                    "buffer slot {index} is beyond Metal's {} slots",
                    MetalLimits::MaxBufferSlots.0
                ),
            })
        }
    };
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
                regions.push(Region::of(format!("the argument buffer of set {set}"), &m));
                keep.push(m);
                ab_copies.insert(*set, bytes);
            }
            Command::UseSizesTable { set } => resident_sizes.push(*set),
            Command::SetBuffer { index, key, offset } => {
                let b = bindings.get(*key)?;
                if *offset > b.buffer.len() {
                    return Err(CpuError::RangeOutOfBounds {
                        key: *key,
                        offset: *offset,
                        end: *offset,
                        len: b.buffer.len(),
                    });
                }
                // SAFETY: `offset <= len`, so the pointer is inside (or one
                // past) the buffer's bytes.
                slots[slot(*index)?] =
                    unsafe { b.buffer.mapping().ptr().add(*offset as usize) }.cast();
            }
            Command::UseResource { key, .. } => resident.push(bindings.get(*key)?.buffer),
            Command::SetTexture { key, .. } | Command::SetSamplerState { key, .. } => {
                return Err(CpuError::Unsupported {
                    kernel: kernel.clone(),
                    what: format!("{key} is a texture or sampler"),
                })
            }
            Command::Dispatch {
                threadgroups,
                threads_per_threadgroup,
            } => dispatch = Some((*threadgroups, *threads_per_threadgroup)),
        }
    }
    let (threadgroups, threads) = dispatch.ok_or(CpuError::Kernel {
        kernel: kernel.clone(),
        message: "the plan has no dispatch command".into(),
    })?;

    // Every [[buffer(N)]] the kernel declares must have been set.
    for p in params {
        if let ParamKind::Buffer(n) = p.kind {
            if slots.get(n as usize).is_none_or(|s| s.is_null()) {
                return Err(CpuError::UnboundSlot {
                    kernel,
                    param: p.name.clone(),
                    index: n,
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
            let MemberValue::Buffer { .. } = m.value else {
                continue;
            };
            let at = m.byte_offset as usize;
            let Some(word) = bytes.get(at..at + 8) else {
                continue;
            };
            let address = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let target = bindings.buffers().find(|(_, b)| {
                let start = b.buffer.gpu_address();
                (start..=start + b.buffer.len()).contains(&address)
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
            if !resident.iter().any(|r| r.same(b.buffer)) {
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
            b.buffer.mapping(),
        ));
    }
    Ok(Encoded {
        slots,
        threadgroups,
        threads,
        regions,
        _keep: keep,
    })
}
