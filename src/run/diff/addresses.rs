//! Buffers a kernel reaches through device addresses
//! (`PhysicalStorageBufferAddresses`, GLSL `buffer_reference`): every
//! pointer in the push constants and the bound buffers gets a buffer of its
//! own, sized and filled like a bound buffer of the pointed-to type (a
//! runtime array: one element per invocation), whose pointers get buffers in
//! turn, four levels deep; deeper, or past a budget, a pointer is null. Each
//! side writes its own addresses into those places before the dispatch
//! ([`Addresses::patches`]), and the comparison reads an address back as
//! (which reached buffer, offset), so that the two sides' addresses compare
//! equal when they point at the same place.

use std::collections::HashSet;

use super::data::{fill, Rng};
use super::DiffBuffer;
use crate::model::Kernel;
use crate::spirv::{Block, BlockLayout, BlockType, Member, ScalarType, StructType};

/// Pointers followed from a bound buffer or the push constants; deeper ones
/// are null (a linked list's end).
const MAX_DEPTH: usize = 4;

/// Most reached buffers, and bytes in all; pointers past either are null.
const MAX_POINTEES: usize = 1024;
const MAX_BYTES: u64 = 64 << 20;

/// Where an address is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Holder {
    /// The push constants.
    Push,
    /// The bound buffer at this index of the run's buffers.
    Buffer(usize),
    /// The reached buffer at this index.
    Reached(usize),
}

/// A member given `@BYTES`: where the address of a buffer of `bytes` bytes
/// goes, and how to name that buffer.
pub(super) struct GivenAddress {
    pub(super) at: (Holder, u64),
    pub(super) bytes: u64,
    pub(super) what: String,
}

/// A buffer reached through an address.
pub(super) struct Reached {
    /// How the comparison names it.
    pub(super) what: String,
    /// Its layout (the pointed-to type's).
    pub(super) layout: BlockLayout,
    /// The bytes both sides start from.
    pub(super) bytes: Vec<u8>,
}

/// Every reached buffer and every place an address is written.
#[derive(Default)]
pub(super) struct Addresses {
    pub(super) reached: Vec<Reached>,
    /// (holder, byte offset) → the reached buffer written there (`None`:
    /// null), in the order found.
    pub(super) slots: Vec<((Holder, u64), Option<usize>)>,
    bytes: u64,
}

impl Addresses {
    /// The reached buffers of `k`'s push constants (`push_len` bytes) and
    /// bound buffers, filled from `rng`.
    pub(super) fn seed(
        k: &Kernel,
        buffers: &[DiffBuffer],
        given: &[GivenAddress],
        push_len: usize,
        invocations: u64,
        rng: &mut Rng,
    ) -> Addresses {
        let mut a = Addresses::default();
        // Buffers given by size (`--push dst=@4096`): 32-bit words,
        // compared exactly.
        for g in given {
            let layout = BlockLayout {
                fixed: Vec::new(),
                fixed_size: 0,
                array: Some((4, vec![(0, ScalarType::UInt(32))])),
            };
            let len = g.bytes.next_multiple_of(4);
            a.bytes += len;
            a.slots.push((g.at, Some(a.reached.len())));
            a.reached.push(Reached {
                what: format!("reached buffer {} ({})", a.reached.len(), g.what),
                bytes: fill(&layout, len as usize, rng, 15),
                layout,
            });
        }
        let mut walk = Walk {
            out: &mut a,
            bound: buffers.iter().map(DiffBuffer::name).collect(),
            invocations,
            rng,
        };
        if let Some(b) = &k.blocks.push_constants {
            walk.strukt(&b.ty, 0, push_len as u64, Holder::Push, &mut Vec::new(), 0);
        }
        for (i, b) in buffers.iter().enumerate() {
            if let Some(block) = k.blocks.buffer(b.set, b.binding) {
                let len = b.bytes.len() as u64;
                walk.strukt(&block.ty, 0, len, Holder::Buffer(i), &mut Vec::new(), 0);
            }
        }
        a
    }

    /// The bytes each place holds on a side whose reached buffers are at
    /// `addresses` (in [`Addresses::reached`] order).
    pub(super) fn patches(&self, addresses: &[u64]) -> Vec<(Holder, u64, [u8; 8])> {
        self.slots
            .iter()
            .map(|&((holder, at), target)| {
                let value = target.map_or(0, |t| addresses[t]);
                (holder, at, value.to_le_bytes())
            })
            .collect()
    }

    /// Where each address is written, to look up.
    pub(super) fn places(&self) -> HashSet<(Holder, u64)> {
        self.slots.iter().map(|&(place, _)| place).collect()
    }

    /// An address read back on a side whose reached buffers are at
    /// `addresses`: "null", "reached buffer N + offset", or the raw value
    /// when it points at none of them.
    pub(super) fn resolve(&self, addresses: &[u64], value: u64) -> String {
        if value == 0 {
            return "null".into();
        }
        for (i, (&base, r)) in addresses.iter().zip(&self.reached).enumerate() {
            if value >= base && value - base <= r.bytes.len() as u64 {
                return format!("reached buffer {i} + {}", value - base);
            }
        }
        format!("{value:#x} (in no buffer given)")
    }
}

/// The walk over a type's pointers.
struct Walk<'a> {
    out: &'a mut Addresses,
    /// How each bound buffer is named.
    bound: Vec<String>,
    invocations: u64,
    rng: &'a mut Rng,
}

impl Walk<'_> {
    /// A struct at `base` of a holder of `len` bytes; `structs` are the
    /// structs around it (what a pointer's `up` counts).
    fn strukt(
        &mut self,
        st: &StructType,
        base: u64,
        len: u64,
        holder: Holder,
        structs: &mut Vec<StructType>,
        depth: usize,
    ) {
        if !st.members.iter().any(|m| m.ty.has_pointer()) {
            return;
        }
        structs.push(st.clone());
        for m in &st.members {
            self.ty(&m.ty, base + m.offset, len, holder, structs, depth);
        }
        structs.pop();
    }

    fn ty(
        &mut self,
        ty: &BlockType,
        base: u64,
        len: u64,
        holder: Holder,
        structs: &mut Vec<StructType>,
        depth: usize,
    ) {
        match ty {
            BlockType::Struct(st) => self.strukt(st, base, len, holder, structs, depth),
            BlockType::Array {
                element,
                length,
                stride,
            } if element.has_pointer() => {
                let stride = u64::from(*stride);
                // A runtime array: the elements the holder has room for.
                let n = length
                    .unwrap_or_else(|| len.saturating_sub(base).checked_div(stride).unwrap_or(0));
                for i in 0..n {
                    let at = base + i * stride;
                    if at + element.size() > len {
                        break;
                    }
                    self.ty(element, at, len, holder, structs, depth);
                }
            }
            BlockType::Pointer { pointee, up, .. } => {
                let to = match pointee {
                    Some(p) => Some((**p).clone()),
                    None => structs
                        .len()
                        .checked_sub(*up as usize)
                        .and_then(|i| structs.get(i))
                        .map(|st| BlockType::Struct(st.clone())),
                };
                let target = to.and_then(|to| self.reach(&to, holder, base, structs, depth + 1));
                if base + 8 <= len {
                    self.out.slots.push(((holder, base), target));
                }
            }
            _ => {}
        }
    }

    /// A buffer of type `to` for the address at `holder` byte `at`, and the
    /// buffers its own pointers reach; `None` (null) past the depth or the
    /// budget.
    fn reach(
        &mut self,
        to: &BlockType,
        holder: Holder,
        at: u64,
        structs: &mut Vec<StructType>,
        depth: usize,
    ) -> Option<usize> {
        if depth > MAX_DEPTH || self.out.reached.len() >= MAX_POINTEES {
            return None;
        }
        // The pointed-to type as a block: a struct as it is, anything else
        // as the one member of a struct.
        let st = match to {
            BlockType::Struct(st) => st.clone(),
            other => StructType {
                name: None,
                members: vec![Member {
                    name: None,
                    offset: 0,
                    ty: other.clone(),
                    size: other.size(),
                }],
                size: other.size(),
            },
        };
        let layout = Block {
            variable: None,
            ty: st.clone(),
        }
        .layout()
        .ok()?;
        let stride = layout.array.as_ref().map_or(0, |a| a.0);
        let len = layout
            .fixed_size
            .saturating_add(stride.saturating_mul(self.invocations))
            .max(4);
        if self.out.bytes.saturating_add(len) > MAX_BYTES {
            return None;
        }
        self.out.bytes += len;
        let index = self.out.reached.len();
        let holder_text = match holder {
            Holder::Push => "the push constants".to_string(),
            Holder::Buffer(i) => format!("the buffer at {}", self.bound[i]),
            Holder::Reached(i) => format!("reached buffer {i}"),
        };
        self.out.reached.push(Reached {
            what: format!("reached buffer {index} (its address at {holder_text} byte {at})"),
            bytes: fill(&layout, len as usize, self.rng, 15),
            layout,
        });
        let me = Holder::Reached(index);
        match to {
            BlockType::Struct(_) => self.strukt(&st, 0, len, me, structs, depth),
            other => self.ty(other, 0, len, me, structs, depth),
        }
        Some(index)
    }
}
