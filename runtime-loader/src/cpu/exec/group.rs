//! In the child: worker threads taking threadgroups, and the threads of a
//! group as fibers scheduled at barriers and SIMD-group operations.

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::super::buffer::Mapping;
use super::abi::{Group, SimdState, Thread, WAIT_BARRIER, WAIT_SIMD};
use super::launch::{Launch, ThreadgroupFill};
use super::race_hook;
use super::report::{
    child_fail, clear_float_flags, install_alt_stack, report_float_flags, CURRENT,
};
use crate::cpu::race::Detector;

/// Size of each fiber's stack.
const FIBER_STACK_BYTES: usize = 256 * 1024;

type Fiber = Coroutine<(), (), (), DefaultStack>;

unsafe extern "C" fn yield_fn(t: *mut Thread) {
    // SAFETY: `yielder` was set by the fiber's body to its own `Yielder`,
    // which lives as long as the fiber runs; this is called on that fiber.
    unsafe {
        let y = &*((*t).yielder as *const Yielder<(), ()>);
        y.suspend(());
    }
}

unsafe extern "C" fn fail_fn(t: *mut Thread, msg: *const c_char) {
    // SAFETY: the shim passes a NUL-terminated string literal and its own
    // thread state.
    let (msg, t) = unsafe { (CStr::from_ptr(msg).to_string_lossy(), &*t) };
    // SAFETY: the thread's group is live while it runs.
    let g = unsafe { &*t.group };
    child_fail(&format!(
        "{msg} (thread {:?} of threadgroup {:?})",
        t.local, g.tg_pos
    ));
}

struct SendPtr<T>(*const T);
// SAFETY: used only to hand the launch description to the child's worker
// threads, which read it while `run_groups` waits for them.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    fn get(&self) -> *const T {
        self.0
    }
}

pub(super) fn run_groups(l: &Launch<'_>, arenas: &[Mapping], n: u32, total: u64, workers: usize) {
    let next = AtomicU64::new(0);
    let slots = SendPtr(l.encoded.slots.as_ptr());
    let launch = SendPtr(l as *const Launch<'_>);
    std::thread::scope(|s| {
        for arena in arenas.iter().take(workers) {
            let next = &next;
            let slots = &slots;
            let launch = &launch;
            let arena = SendPtr(arena as *const Mapping);
            s.spawn(move || {
                install_alt_stack();
                // SAFETY: the launch and the arena outlive the scope, and are
                // only read.
                let (l, arena) = unsafe { (&*launch.get(), &*arena.get()) };
                worker(l, arena, slots.get(), n, total, next);
            });
        }
    });
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    Runnable,
    Barrier,
    Simd,
    Done,
}

fn fill_arena(arena: &Mapping, len: usize, fill: ThreadgroupFill) {
    let p = arena.ptr();
    let len = len.min(arena.len());
    let pattern = match fill {
        ThreadgroupFill::Poison => 0x7FBA_DBADu32.to_le_bytes(),
        ThreadgroupFill::Zero => [0; 4],
        ThreadgroupFill::Byte(b) => [b; 4],
    };
    for i in 0..len {
        // SAFETY: `i < arena.len()`: inside the arena's bytes.
        unsafe { *p.add(i) = pattern[i % 4] };
    }
}

#[allow(clippy::too_many_arguments)]
fn worker(
    l: &Launch<'_>,
    arena: &Mapping,
    slots: *const *mut c_void,
    n: u32,
    total: u64,
    next: &AtomicU64,
) {
    let size = l.encoded.threads;
    let grid = l.encoded.threadgroups;
    let width = l.simd_width;
    let simd_groups = n.div_ceil(width);
    let layout = std::alloc::Layout::array::<SimdState>(simd_groups as usize).expect("small");
    // SAFETY: a non-zero-sized layout; all-zero bytes are a valid SimdState.
    let simd = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<SimdState>();
    if simd.is_null() {
        child_fail("out of memory");
    }
    let mut group = Box::new(Group {
        tg_pos: [0; 3],
        tg_size: size,
        groups: grid.map(|g| g as u32),
        simd_groups,
        simd_width: width,
        arena: arena.ptr(),
        arena_cap: arena.len() as u64,
        simd,
        race: if l.race_check.is_some() {
            race_hook::access as *const c_void
        } else {
            std::ptr::null()
        },
    });
    if let Some(order) = l.race_check {
        let regions = l
            .encoded
            .regions
            .iter()
            .map(|r| (r.start, r.start + r.len))
            .collect();
        let start = arena.ptr() as u64;
        race_hook::start(Detector::new(
            regions,
            (start, start + arena.len() as u64),
            size,
            grid,
            width,
            order,
        ));
    }
    let gp: *mut Group = &mut *group;
    let mut threads: Vec<Thread> = (0..n)
        .map(|i| Thread {
            group: gp,
            local: [
                i % size[0],
                (i / size[0]) % size[1],
                i / (size[0] * size[1]),
            ],
            index: i,
            lane: i % width,
            simd_id: i / width,
            wait_kind: 0,
            site_line: 0,
            site_col: 0,
            barriers: 0,
            tg_offset: 0,
            yielder: std::ptr::null_mut(),
            yield_fn,
            fail_fn,
        })
        .collect();
    let tp = threads.as_mut_ptr();
    let mut stacks: Vec<DefaultStack> = Vec::new();
    let mut fibers: Vec<Option<Fiber>> = (0..n).map(|_| None).collect();
    let mut status = vec![St::Runnable; n as usize];
    let mut runnable: Vec<u32> = Vec::with_capacity(n as usize);
    let mut batch: Vec<u32> = Vec::with_capacity(n as usize);
    let mut used = arena.len();
    let entry = l.entry;
    let slots_addr = slots as usize;

    clear_float_flags();
    loop {
        let g = next.fetch_add(1, Ordering::Relaxed);
        if g >= total {
            report_float_flags();
            if l.race_check.is_some() {
                race_hook::report_race();
            }
            break;
        }
        let pos = [
            (g % grid[0]) as u32,
            ((g / grid[0]) % grid[1]) as u32,
            (g / (grid[0] * grid[1])) as u32,
        ];
        fill_arena(arena, used, l.fill);
        // SAFETY: `gp` points to `group`, alive for the loop; no fiber runs.
        unsafe { (*gp).tg_pos = pos };
        runnable.clear();
        for i in 0..n {
            // SAFETY: `i < n`, the length of `threads`, which never reallocates.
            let t = unsafe { &mut *tp.add(i as usize) };
            t.tg_offset = 0;
            t.barriers = 0;
            t.wait_kind = 0;
            let stack = match stacks.pop() {
                Some(s) => s,
                None => DefaultStack::new(FIBER_STACK_BYTES)
                    .unwrap_or_else(|e| child_fail(&format!("allocating a fiber stack: {e}"))),
            };
            let tptr = t as *mut Thread as usize;
            fibers[i as usize] = Some(Coroutine::with_stack(
                stack,
                move |y: &Yielder<(), ()>, ()| {
                    let t = tptr as *mut Thread;
                    // SAFETY: `t` is this fiber's thread state, which outlives
                    // the fiber; the entry point is the compiled kernel's,
                    // called with the slot table encode.rs built for it.
                    unsafe {
                        (*t).yielder = y as *const Yielder<(), ()> as *mut c_void;
                        entry(slots_addr as *const *mut c_void, t);
                    }
                },
            ));
            status[i as usize] = St::Runnable;
            runnable.push(i);
        }

        let mut live = n;
        loop {
            while !runnable.is_empty() {
                std::mem::swap(&mut runnable, &mut batch);
                for &i in &batch {
                    let f = fibers[i as usize].as_mut().expect("a live fiber");
                    // SAFETY: `i < n`.
                    CURRENT.with(|c| c.set(unsafe { tp.add(i as usize) }));
                    match f.resume(()) {
                        CoroutineResult::Return(()) => {
                            status[i as usize] = St::Done;
                            live -= 1;
                            let f = fibers[i as usize].take().expect("a live fiber");
                            stacks.push(f.into_stack());
                        }
                        CoroutineResult::Yield(()) => {
                            // SAFETY: `i < n`; the fiber is suspended.
                            let kind = unsafe { (*tp.add(i as usize)).wait_kind };
                            status[i as usize] = match kind {
                                WAIT_BARRIER => St::Barrier,
                                WAIT_SIMD => St::Simd,
                                k => child_fail(&format!("unknown wait kind {k}")),
                            };
                        }
                    }
                }
                batch.clear();
            }
            CURRENT.with(|c| c.set(std::ptr::null()));
            if live == 0 {
                break;
            }
            // 1. SIMD-group operations: per SIMD group, the earliest site.
            for sg in 0..simd_groups {
                let lanes = sg * width..((sg + 1) * width).min(n);
                let site = |i: u32| {
                    // SAFETY: `i < n`.
                    let t = unsafe { &*tp.add(i as usize) };
                    (t.site_line, t.site_col)
                };
                let Some(first) = lanes
                    .clone()
                    .filter(|&i| status[i as usize] == St::Simd)
                    .map(site)
                    .min()
                else {
                    continue;
                };
                let mut active = 0u32;
                // SAFETY: `sg < simd_groups`, the length of `simd`.
                let s = unsafe { &mut *simd.add(sg as usize) };
                for i in lanes {
                    if status[i as usize] == St::Simd && site(i) == first {
                        let lane = (i % width) as usize;
                        active |= 1 << lane;
                        s.snap[lane] = s.slot[lane];
                        status[i as usize] = St::Runnable;
                        runnable.push(i);
                    }
                }
                s.active = active;
                s.completed = s.completed.wrapping_add(1);
            }
            if !runnable.is_empty() {
                continue;
            }
            // 2. The barrier: every thread must be there, at the same call.
            if live < n {
                let done: Vec<u32> = (0..n).filter(|&i| status[i as usize] == St::Done).collect();
                child_fail(&format!(
                    "threadgroup {pos:?}: {live} of {n} threads wait at threadgroup_barrier while {} returned without reaching it (threads {}); undefined in Metal, a hang on a GPU",
                    done.len(),
                    summarize(&done)
                ));
            }
            // SAFETY: indices < n.
            let barrier_site = |i: u32| unsafe {
                let t = &*tp.add(i as usize);
                (t.site_line, t.site_col, t.barriers)
            };
            let first = barrier_site(0);
            if let Some(other) = (0..n).find(|&i| barrier_site(i) != first) {
                child_fail(&format!(
                    "threadgroup {pos:?}: threads wait at different threadgroup_barrier calls (thread 0 at line {}, thread {other} at line {}); undefined in Metal",
                    first.0,
                    barrier_site(other).0
                ));
            }
            for i in 0..n {
                // SAFETY: `i < n`.
                unsafe { (*tp.add(i as usize)).barriers += 1 };
                status[i as usize] = St::Runnable;
                runnable.push(i);
            }
        }
        used = (0..n)
            // SAFETY: `i < n`.
            .map(|i| unsafe { (*tp.add(i as usize)).tg_offset } as usize)
            .max()
            .unwrap_or(0);
    }
}

fn summarize(v: &[u32]) -> String {
    let mut s: Vec<String> = v.iter().take(8).map(u32::to_string).collect();
    if v.len() > 8 {
        s.push("…".into());
    }
    s.join(", ")
}
