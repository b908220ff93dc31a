//! The executor's side of the shim's ABI (`src/cpu/shim/`): the entry
//! point's signature, the `#[repr(C)]` mirrors of `halc_group`,
//! `halc_thread` and `halc_simd_state`.

use std::ffi::{c_char, c_void};

/// `halc_entry(slots, thread)` of a compiled kernel.
pub(in crate::cpu) type EntryFn = unsafe extern "C" fn(*const *mut c_void, *mut Thread);

pub(super) const WAIT_BARRIER: u32 = 1;
pub(super) const WAIT_SIMD: u32 = 2;

/// `halc_simd_state` of the shim.
#[repr(C, align(16))]
pub(super) struct SimdState {
    pub(super) active: u32,
    /// SIMD-group operations completed (the race check's SIMD epoch).
    pub(super) completed: u32,
    pub(super) pad: [u32; 2],
    pub(super) slot: [[u8; 64]; 32],
    pub(super) snap: [[u8; 64]; 32],
}

/// `halc_group` of the shim.
#[repr(C)]
pub(super) struct Group {
    pub(super) tg_pos: [u32; 3],
    pub(super) tg_size: [u32; 3],
    pub(super) groups: [u32; 3],
    pub(super) simd_groups: u32,
    pub(super) simd_width: u32,
    pub(super) arena: *mut u8,
    pub(super) arena_cap: u64,
    pub(super) simd: *mut SimdState,
    /// The race check's hook ([`super::race_hook::access`]), or null.
    pub(super) race: *const c_void,
}

/// `halc_thread` of the shim.
#[repr(C)]
pub(in crate::cpu) struct Thread {
    pub(super) group: *mut Group,
    pub(super) local: [u32; 3],
    pub(super) index: u32,
    pub(super) lane: u32,
    pub(super) simd_id: u32,
    pub(super) wait_kind: u32,
    pub(super) site_line: u32,
    pub(super) site_col: u32,
    pub(super) barriers: u32,
    pub(super) tg_offset: u64,
    pub(super) yielder: *mut c_void,
    pub(super) yield_fn: unsafe extern "C" fn(*mut Thread),
    pub(super) fail_fn: unsafe extern "C" fn(*mut Thread, *const c_char),
}

/// What the shim's `HALC_ABI` must be.
pub(in crate::cpu) const ABI: u64 =
    1_000_000 + 1000 * std::mem::size_of::<Thread>() as u64 + std::mem::size_of::<Group>() as u64;

const _: () = assert!(std::mem::size_of::<Group>() == 80);
const _: () = assert!(std::mem::size_of::<Thread>() == 80);
const _: () = assert!(std::mem::size_of::<SimdState>() == 4112);
