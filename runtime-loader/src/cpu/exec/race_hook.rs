//! In the child: the race check's side of the executor. The kernel's
//! `__tsan_*` functions (`src/cpu/race_runtime.cpp`) call [`access`]
//! through `halc_group::race`; it asks the worker's [`Detector`] with the GPU
//! thread the fiber runs, and [`report_race`] puts the first race in the
//! report page when the worker is done.

use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::atomic::Ordering;

use super::super::race::{Detector, Who};
use super::abi::Thread;
use super::report::REPORT;

thread_local! {
    static DETECTOR: RefCell<Option<Detector>> = const { RefCell::new(None) };
}

/// Starts checking on this worker thread (the only one: the check runs
/// threadgroups on one worker).
pub(super) fn start(detector: Detector) {
    DETECTOR.with(|d| *d.borrow_mut() = Some(detector));
}

/// `halc_race_fn`: GPU thread `t` accessed `size` bytes at `address`.
pub(super) unsafe extern "C" fn access(
    t: *mut Thread,
    address: *const c_void,
    size: u64,
    kind: u32,
) {
    // SAFETY: the shim passes its current thread state (`halc_cur`), live
    // while its fiber runs, whose group and SIMD states the worker owns for
    // the group's whole run; `simd_id` < the group's SIMD groups.
    let who = unsafe {
        let t = &*t;
        let g = &*t.group;
        Who {
            group: g.tg_pos,
            thread: t.index,
            epoch: t.barriers,
            simd_epoch: (*g.simd.add(t.simd_id as usize)).completed,
        }
    };
    DETECTOR.with(|d| {
        if let Ok(mut d) = d.try_borrow_mut() {
            if let Some(d) = d.as_mut().filter(|d| !d.done()) {
                d.access(who, address as u64, size, kind);
            }
        }
    });
}

/// Ends the check on this worker thread and records its first race.
pub(super) fn report_race() {
    let Some(found) = DETECTOR
        .with(|d| d.borrow_mut().take())
        .and_then(Detector::finish)
    else {
        return;
    };
    let r = REPORT.load(Ordering::SeqCst);
    if r.is_null() {
        return;
    }
    let kind = |a: &super::super::race::RaceAccess| u32::from(a.write) | u32::from(a.atomic) << 1;
    // SAFETY: REPORT points to the shared report page for the child's whole
    // life; one worker runs while the check is on, and `found` is set once.
    unsafe {
        let slot = &mut (*r).race;
        slot.address = found.address;
        for (i, a) in found.accesses.iter().enumerate() {
            slot.groups[i] = a.threadgroup;
            slot.locals[i] = a.thread;
            slot.kinds[i] = kind(a);
        }
        (*r).race_found.store(1, Ordering::SeqCst);
    }
}
