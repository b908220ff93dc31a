//! The data-race check ([`Device::with_race_check`](super::Device::with_race_check)):
//! which accesses of a dispatch's GPU threads conflict, decided from the
//! accesses themselves, not from a schedule that happens to show it.
//!
//! **How accesses are seen.** A device made by `with_race_check` compiles
//! kernels with clang's ThreadSanitizer *instrumentation*
//! (`-fsanitize=thread`) but not its runtime: clang calls `__tsan_read4`,
//! `__tsan_write8`, `__tsan_atomic32_fetch_add`, `__tsan_memcpy`, … at every
//! memory access, and the kernel's own library defines those functions
//! (`race_runtime.cpp`, appended to the kernel's C++): each performs the
//! access's operation where it has one (the atomics, exactly, sequentially
//! consistent as the shim's atomics are; the memory functions) and hands the
//! address, size and kind to the executor's hook (`halc_group::race`), which
//! calls [`Detector::access`] with the GPU thread the fiber runs.
//!
//! **What counts.** Only bytes of the dispatch's memory: the bound buffers,
//! textures and the buffers textures are made on, the argument buffers and
//! `setBytes` copies, and the threadgroup arena (never the fibers' stacks or
//! the shim's own state). Two accesses to the same byte by different GPU
//! threads, at least one of them a write and not both atomic, are a race
//! when nothing orders them:
//! - **same threadgroup**: they were made between the same two threadgroup
//!   barriers (the executor counts a barrier when it releases the group:
//!   `halc_thread::barriers`), and, when both threads are lanes of one SIMD
//!   group, no SIMD-group operation completed for that SIMD group between
//!   them (lanes run in lock step on a GPU and a `simdgroup_barrier` orders
//!   them: counting every completed SIMD-group operation as ordering them is
//!   the conservative choice);
//! - **different threadgroups**: always unordered by barriers; a race unless
//!   either threadgroup performed an atomic operation on device memory
//!   anywhere in the dispatch ([`GroupOrder::Atomics`], the default), since
//!   threadgroups can order their accesses only through device atomics (a
//!   counter the last group to finish reads, a lock), and the check does
//!   not model which atomic orders what. A race the rule forgoes stays a
//!   possible difference; a race it invented would hide a miscompile behind
//!   "inconclusive", which is worse. A caller that knows no atomic or
//!   barrier of the kernel can order memory between threadgroups (every
//!   atomic relaxed, every barrier within a threadgroup: the SPIR-V says
//!   so, and MSL's atomics are relaxed) gives [`GroupOrder::Nothing`], and
//!   every conflict between threadgroups is a race.
//!
//! Threadgroups run one after another on one worker while the check is on,
//! so the result does not depend on timing. A later threadgroup's arena is
//! new memory: its bytes do not conflict with the previous group's.
//!
//! **Precision.** For each byte the check keeps the last write and three
//! reads (the latest; the latest by another thread; the latest by another
//! threadgroup), which finds every conflict of a write with an unordered
//! read or of a read with the latest write; a conflict with an older write
//! overwritten meanwhile by an ordered one may go unseen. The first race in
//! the order the executor ran the accesses is kept (the earliest by
//! detection within the first threadgroup that has one, once that group
//! has finished and the atomic rule can be applied).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// What the race check takes to order two threadgroups' accesses
/// ([`Device::with_race_check_ordered_by`](super::Device::with_race_check_ordered_by)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupOrder {
    /// An atomic operation on device memory by either threadgroup, anywhere
    /// in the dispatch, excuses their conflicts: the kernel may pair its
    /// atomics with fences the check does not follow (the default).
    Atomics,
    /// Nothing: the kernel's atomics are all relaxed and its barriers stay
    /// within a threadgroup, so no two threadgroups' accesses are ordered.
    Nothing,
}

/// Bit of an access's kind: the access writes.
pub(super) const KIND_WRITE: u32 = 1;
/// Bit of an access's kind: the access is atomic.
pub(super) const KIND_ATOMIC: u32 = 2;

/// One GPU thread's access to one byte, as the check remembers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Access {
    /// Linear index of the threadgroup in the grid.
    group: u64,
    /// Threadgroup barriers the group had passed.
    epoch: u32,
    /// SIMD-group operations completed for the thread's SIMD group.
    simd_epoch: u32,
    /// `thread_index_in_threadgroup`.
    thread: u32,
    kind: u32,
}

impl Access {
    fn write(&self) -> bool {
        self.kind & KIND_WRITE != 0
    }

    fn atomic(&self) -> bool {
        self.kind & KIND_ATOMIC != 0
    }
}

/// Who makes an access: what the executor knows of the running fiber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Who {
    /// `threadgroup_position_in_grid`.
    pub(super) group: [u32; 3],
    /// `thread_index_in_threadgroup`.
    pub(super) thread: u32,
    /// Threadgroup barriers the group has passed.
    pub(super) epoch: u32,
    /// SIMD-group operations completed for the thread's SIMD group.
    pub(super) simd_epoch: u32,
}

/// What the check keeps for one byte.
#[derive(Debug, Clone, Copy, Default)]
struct Shadow {
    write: Option<Access>,
    /// The latest read.
    read: Option<Access>,
    /// The latest read by another thread than `read`'s.
    other_thread: Option<Access>,
    /// The latest read by another threadgroup than `read`'s.
    other_group: Option<Access>,
}

/// A multiplicative hash of a byte address (the default SipHash costs more
/// than the rest of the check).
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type ShadowMap = HashMap<u64, Shadow, BuildHasherDefault<AddressHasher>>;
/// (Not the default `RandomState`, which may open `/dev/urandom`: the
/// dispatch's sandbox refuses that.)
type GroupSet = HashSet<u64, BuildHasherDefault<AddressHasher>>;

/// One of the two accesses of a race.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RaceAccess {
    /// The threadgroup's position in the grid (`threadgroup_position_in_grid`,
    /// `gl_WorkGroupID`).
    pub threadgroup: [u32; 3],
    /// The thread's position in its threadgroup
    /// (`thread_position_in_threadgroup`, `gl_LocalInvocationID`).
    pub thread: [u32; 3],
    /// Whether it wrote (else it read).
    pub write: bool,
    /// Whether it was atomic.
    pub atomic: bool,
}

impl RaceAccess {
    fn verb(&self) -> &'static str {
        match (self.write, self.atomic) {
            (true, false) => "writes",
            (false, false) => "reads",
            (true, true) => "atomically writes",
            (false, true) => "atomically reads",
        }
    }
}

/// A data race a dispatch on a device from
/// [`Device::with_race_check`](super::Device::with_race_check) found:
/// two GPU threads accessed the same byte, at least one writing, not both
/// atomically, with nothing ordering them (the rule is in the CPU backend's
/// documentation). `first` ran before `second` on the CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataRace {
    /// The memory, as fault reports name it: `the buffer bound to (set 0,
    /// binding 1)`, `threadgroup memory`, …
    pub memory: String,
    /// The byte's offset in that memory.
    pub offset: u64,
    /// The access that ran first.
    pub first: RaceAccess,
    /// The access that ran second and conflicted with it.
    pub second: RaceAccess,
}

fn xyz(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

impl fmt::Display for DataRace {
    /// One line: `invocations (0,0,0) and (1,0,0) of threadgroup (0,0,0)
    /// both write byte 0 of the buffer bound to (set 0, binding 0) without
    /// atomics or a barrier between`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, b) = (&self.first, &self.second);
        let same_verb = a.verb() == b.verb();
        match (a.threadgroup == b.threadgroup, same_verb) {
            (true, true) => write!(
                f,
                "invocations {} and {} of threadgroup {} both {}",
                xyz(a.thread),
                xyz(b.thread),
                xyz(a.threadgroup),
                a.verb().trim_end_matches('s')
            ),
            (true, false) => write!(
                f,
                "invocation {} of threadgroup {} {} and invocation {} {}",
                xyz(a.thread),
                xyz(a.threadgroup),
                a.verb(),
                xyz(b.thread),
                b.verb()
            ),
            (false, _) => write!(
                f,
                "invocation {} of threadgroup {} {} and invocation {} of threadgroup {} {}",
                xyz(a.thread),
                xyz(a.threadgroup),
                a.verb(),
                xyz(b.thread),
                xyz(b.threadgroup),
                b.verb()
            ),
        }?;
        write!(
            f,
            " byte {} of {} without atomics or a barrier between",
            self.offset, self.memory
        )
    }
}

/// A race found, in the executor's terms (the caller names the memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found {
    /// The byte's address.
    pub(super) address: u64,
    /// The earlier access, then the later one.
    pub(super) accesses: [RaceAccess; 2],
}

/// A conflict seen, kept until the atomic rule can be applied.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// Order of detection.
    seq: u64,
    address: u64,
    earlier: Access,
    later: Access,
}

/// The check's state in the dispatch's child process.
#[derive(Debug)]
pub(super) struct Detector {
    /// `[start, end)` of every memory the check watches, but the arena.
    regions: Vec<(u64, u64)>,
    /// `[start, end)` of the threadgroup arena.
    arena: (u64, u64),
    /// Threads per threadgroup, threadgroups per grid, SIMD width.
    threads: [u32; 3],
    grid: [u64; 3],
    simd_width: u32,
    memory: ShadowMap,
    /// The current group's threadgroup memory.
    local: ShadowMap,
    /// The group whose accesses are being seen.
    group: Option<u64>,
    /// What may order two threadgroups' accesses.
    order: GroupOrder,
    /// Whether it performed an atomic on device memory.
    group_atomic: bool,
    /// Finished groups that performed an atomic on device memory.
    atomic_groups: GroupSet,
    /// The current group's first conflict within itself, and with another
    /// group.
    within: Option<Candidate>,
    across: Option<Candidate>,
    seq: u64,
    found: Option<Found>,
}

impl Detector {
    /// A check of the memory `regions` and the threadgroup `arena` (each
    /// `[start, end)`), for a grid of `grid` threadgroups of `threads`
    /// threads in SIMD groups of `simd_width` lanes, threadgroups ordered
    /// by `order`.
    pub(super) fn new(
        mut regions: Vec<(u64, u64)>,
        arena: (u64, u64),
        threads: [u32; 3],
        grid: [u64; 3],
        simd_width: u32,
        order: GroupOrder,
    ) -> Detector {
        regions.retain(|r| r.0 < r.1);
        regions.sort_unstable();
        Detector {
            regions,
            arena,
            threads,
            grid,
            simd_width: simd_width.max(1),
            memory: ShadowMap::default(),
            local: ShadowMap::default(),
            group: None,
            order,
            group_atomic: false,
            atomic_groups: GroupSet::default(),
            within: None,
            across: None,
            seq: 0,
            found: None,
        }
    }

    fn watched(&self, address: u64) -> bool {
        let i = self.regions.partition_point(|r| r.0 <= address);
        // Regions may overlap (a buffer bound twice, a texture on a
        // buffer): any region starting at or before the address may hold it.
        self.regions[..i].iter().rev().any(|r| address < r.1)
    }

    /// Whether the race is found (later accesses are not looked at).
    pub(super) fn done(&self) -> bool {
        self.found.is_some()
    }

    /// `who` accessed `size` bytes at `address`; `kind` is made of
    /// [`KIND_WRITE`] and [`KIND_ATOMIC`].
    pub(super) fn access(&mut self, who: Who, address: u64, size: u64, kind: u32) {
        if self.found.is_some() || size == 0 {
            return;
        }
        let group = u64::from(who.group[0])
            + self.grid[0] * (u64::from(who.group[1]) + self.grid[1] * u64::from(who.group[2]));
        if self.group != Some(group) {
            self.finish_group();
            if self.found.is_some() {
                return;
            }
            self.group = Some(group);
        }
        let end = address.saturating_add(size);
        let in_arena = address < self.arena.1 && end > self.arena.0;
        if kind & KIND_ATOMIC != 0 && !in_arena && self.order == GroupOrder::Atomics {
            self.group_atomic = true;
        }
        let me = Access {
            group,
            epoch: who.epoch,
            simd_epoch: who.simd_epoch,
            thread: who.thread,
            kind,
        };
        for a in address..end {
            let shadow = if (self.arena.0..self.arena.1).contains(&a) {
                self.local.entry(a).or_default()
            } else if self.watched(a) {
                self.memory.entry(a).or_default()
            } else {
                continue;
            };
            let earlier = if me.write() {
                [
                    shadow.write,
                    shadow.read,
                    shadow.other_thread,
                    shadow.other_group,
                ]
            } else {
                [shadow.write, None, None, None]
            };
            if me.write() {
                shadow.write = Some(me);
            } else {
                if let Some(r) = shadow.read {
                    if r.group != me.group {
                        shadow.other_group = Some(r);
                    }
                    if (r.group, r.thread) != (me.group, me.thread) {
                        shadow.other_thread = Some(r);
                    }
                }
                shadow.read = Some(me);
            }
            for e in earlier.into_iter().flatten() {
                if self.conflict(&e, &me) {
                    self.seq += 1;
                    let c = Candidate {
                        seq: self.seq,
                        address: a,
                        earlier: e,
                        later: me,
                    };
                    if e.group == me.group {
                        self.within.get_or_insert(c);
                    } else if !self.atomic_groups.contains(&e.group) {
                        self.across.get_or_insert(c);
                    }
                }
            }
        }
    }

    /// Whether `a` and `b` conflict with nothing ordering them.
    fn conflict(&self, a: &Access, b: &Access) -> bool {
        if !(a.write() || b.write()) || (a.atomic() && b.atomic()) {
            return false;
        }
        if a.group != b.group {
            return true;
        }
        let same_simd = a.thread / self.simd_width == b.thread / self.simd_width;
        a.thread != b.thread && a.epoch == b.epoch && !(same_simd && a.simd_epoch != b.simd_epoch)
    }

    /// Applies the atomic rule to the group that ran last.
    fn finish_group(&mut self) {
        let Some(group) = self.group.take() else {
            return;
        };
        let across = self.across.take().filter(|_| !self.group_atomic);
        let within = self.within.take();
        if self.group_atomic {
            self.atomic_groups.insert(group);
        }
        self.group_atomic = false;
        self.local.clear();
        let first = match (within, across) {
            (Some(w), Some(a)) => Some(if w.seq < a.seq { w } else { a }),
            (w, a) => w.or(a),
        };
        if let Some(c) = first {
            self.found = Some(Found {
                address: c.address,
                accesses: [self.describe(&c.earlier), self.describe(&c.later)],
            });
        }
    }

    fn describe(&self, a: &Access) -> RaceAccess {
        let [gx, gy, _] = self.grid;
        let [tx, ty, _] = self.threads;
        RaceAccess {
            threadgroup: [
                (a.group % gx) as u32,
                ((a.group / gx) % gy) as u32,
                (a.group / (gx * gy)) as u32,
            ],
            thread: [a.thread % tx, (a.thread / tx) % ty, a.thread / (tx * ty)],
            write: a.write(),
            atomic: a.atomic(),
        }
    }

    /// Ends the dispatch: the first race, if any.
    pub(super) fn finish(mut self) -> Option<Found> {
        self.finish_group();
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUF: (u64, u64) = (0x1000, 0x2000);
    const ARENA: (u64, u64) = (0x8000, 0x9000);

    fn det(groups: u64) -> Detector {
        Detector::new(
            vec![BUF],
            ARENA,
            [64, 1, 1],
            [groups, 1, 1],
            32,
            GroupOrder::Atomics,
        )
    }

    fn who(group: u32, thread: u32, epoch: u32) -> Who {
        Who {
            group: [group, 0, 0],
            thread,
            epoch,
            simd_epoch: 0,
        }
    }

    #[test]
    fn a_read_modify_write_by_two_threads_is_a_race() {
        let mut d = det(1);
        d.access(who(0, 0, 0), 0x1000, 4, 0);
        d.access(who(0, 0, 0), 0x1000, 4, KIND_WRITE);
        d.access(who(0, 1, 0), 0x1000, 4, 0);
        d.access(who(0, 1, 0), 0x1000, 4, KIND_WRITE);
        let f = d.finish().expect("a race");
        assert_eq!(f.address, 0x1000);
        assert_eq!(f.accesses[0].thread, [0, 0, 0]);
        assert!(f.accesses[0].write && !f.accesses[1].write);
        assert_eq!(f.accesses[1].thread, [1, 0, 0]);
    }

    #[test]
    fn a_barrier_or_one_thread_or_other_bytes_is_no_race() {
        let mut d = det(1);
        d.access(who(0, 0, 0), 0x1000, 4, KIND_WRITE);
        d.access(who(0, 0, 0), 0x1000, 4, 0);
        d.access(who(0, 1, 1), 0x1000, 4, 0);
        d.access(who(0, 1, 1), 0x1004, 4, KIND_WRITE);
        d.access(who(0, 2, 1), 0x1008, 1, KIND_WRITE);
        d.access(who(0, 3, 1), 0x1009, 1, KIND_WRITE);
        // Outside every watched memory (a fiber's stack).
        d.access(who(0, 4, 1), 0x5000, 4, KIND_WRITE);
        d.access(who(0, 5, 1), 0x5000, 4, KIND_WRITE);
        assert_eq!(d.finish(), None);
    }

    #[test]
    fn atomics_do_not_conflict_with_atomics_but_with_plain_accesses() {
        let mut d = det(1);
        for t in 0..64 {
            d.access(who(0, t, 0), 0x1000, 4, KIND_WRITE | KIND_ATOMIC);
        }
        assert_eq!(d.finish(), None);
        let mut d = det(1);
        d.access(who(0, 0, 0), 0x1000, 4, KIND_WRITE | KIND_ATOMIC);
        d.access(who(0, 1, 0), 0x1000, 4, 0);
        assert!(d.finish().is_some());
    }

    #[test]
    fn a_write_after_reads_by_others_is_found() {
        let mut d = det(2);
        d.access(who(0, 7, 0), 0x1010, 4, 0);
        d.access(who(1, 3, 0), 0x1010, 4, 0);
        d.access(who(1, 3, 0), 0x1010, 4, 0);
        // Thread 3 of group 1 writes: its own reads do not conflict,
        // group 0's read does.
        d.access(who(1, 3, 0), 0x1010, 4, KIND_WRITE);
        let f = d.finish().expect("a race");
        assert_eq!(f.accesses[0].threadgroup, [0, 0, 0]);
        assert_eq!(f.accesses[1].threadgroup, [1, 0, 0]);
    }

    #[test]
    fn groups_with_device_atomics_are_not_blamed() {
        // Group 1 reads what group 0 wrote after an atomic (the last group
        // reading the others' results): not counted.
        let mut d = det(2);
        d.access(who(0, 0, 0), 0x1000, 4, KIND_WRITE);
        d.access(who(0, 0, 0), 0x1100, 4, KIND_WRITE | KIND_ATOMIC);
        d.access(who(1, 0, 0), 0x1100, 4, KIND_WRITE | KIND_ATOMIC);
        d.access(who(1, 0, 0), 0x1000, 4, 0);
        assert_eq!(d.finish(), None);
        // The control: without the atomics, a race.
        let mut d = det(2);
        d.access(who(0, 0, 0), 0x1000, 4, KIND_WRITE);
        d.access(who(1, 0, 0), 0x1000, 4, 0);
        assert!(d.finish().is_some());
        // The current group's atomic after the conflict still excuses it.
        let mut d = det(2);
        d.access(who(0, 0, 0), 0x1000, 4, KIND_WRITE);
        d.access(who(1, 0, 0), 0x1000, 4, 0);
        d.access(who(1, 0, 0), 0x1100, 4, KIND_WRITE | KIND_ATOMIC);
        assert_eq!(d.finish(), None);
    }

    /// With [`GroupOrder::Nothing`] (a kernel whose atomics are all
    /// relaxed) the atomics excuse nothing: the same accesses race.
    #[test]
    fn relaxed_atomics_order_no_groups() {
        let mut d = det(2);
        d.order = GroupOrder::Nothing;
        d.access(who(0, 0, 0), 0x1000, 4, KIND_WRITE);
        d.access(who(0, 0, 0), 0x1100, 4, KIND_WRITE | KIND_ATOMIC);
        d.access(who(1, 0, 0), 0x1100, 4, KIND_WRITE | KIND_ATOMIC);
        d.access(who(1, 0, 0), 0x1000, 4, 0);
        assert!(d.finish().is_some());
        // The atomics alone still do not conflict with each other.
        let mut d = det(2);
        d.order = GroupOrder::Nothing;
        d.access(who(0, 0, 0), 0x1100, 4, KIND_WRITE | KIND_ATOMIC);
        d.access(who(1, 0, 0), 0x1100, 4, KIND_WRITE | KIND_ATOMIC);
        assert_eq!(d.finish(), None);
    }

    #[test]
    fn threadgroup_memory_is_new_for_each_group_and_simd_operations_order_lanes() {
        let mut d = det(2);
        d.access(who(0, 0, 0), 0x8000, 4, KIND_WRITE);
        d.access(who(1, 1, 0), 0x8000, 4, KIND_WRITE);
        assert_eq!(d.finish(), None);
        let mut d = det(1);
        d.access(who(0, 0, 0), 0x8000, 4, KIND_WRITE);
        let mut later = who(0, 1, 0);
        later.simd_epoch = 1;
        d.access(later, 0x8000, 4, 0);
        assert_eq!(
            d.finish(),
            None,
            "lanes of one SIMD group after an operation"
        );
        let mut d = det(1);
        d.access(who(0, 0, 0), 0x8000, 4, KIND_WRITE);
        let mut other_simd = who(0, 40, 0);
        other_simd.simd_epoch = 1;
        d.access(other_simd, 0x8000, 4, 0);
        let f = d.finish().expect("another SIMD group is not ordered");
        assert_eq!(f.address, 0x8000);
    }

    #[test]
    fn the_message_names_threads_and_byte() {
        let a = RaceAccess {
            threadgroup: [0, 0, 0],
            thread: [0, 0, 0],
            write: true,
            atomic: false,
        };
        let r = DataRace {
            memory: "the buffer bound to (set 0, binding 1)".into(),
            offset: 4,
            first: a,
            second: RaceAccess {
                thread: [1, 0, 0],
                ..a
            },
        };
        assert_eq!(
            r.to_string(),
            "invocations (0,0,0) and (1,0,0) of threadgroup (0,0,0) both write byte 4 of the buffer bound to (set 0, binding 1) without atomics or a barrier between"
        );
    }
}
