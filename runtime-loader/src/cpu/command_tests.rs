//! Tests of the object model without an executable: fills and copies (the
//! direct paths and the polyfill MSL through clang) against a Rust
//! reference, queues, semaphores.
//!
//! Without clang++ they print why and pass, unless `HALC_REQUIRE_CLANG=1`.

use std::time::{Duration, Instant};

use super::exec::ThreadgroupFill;
use super::handle::Device;
use super::options::{DeviceOptions, TransferRule};
use super::CpuError;
use crate::memory::MemoryType;
use crate::transfer::{self, BlitAlignment, Route, TransferError};

fn device_with(rule: TransferRule, queue_wait_limit: Duration) -> Option<Device> {
    let d = super::tests::device(ThreadgroupFill::Poison, Duration::from_secs(60))?;
    let options = DeviceOptions {
        clang: Some(d.clang().clone()),
        cache_dir: Some(d.cache_dir().to_path_buf()),
        transfer_rule: rule,
        queue_wait_limit,
        ..Default::default()
    };
    Some(Device::with_options(options).unwrap())
}

fn dev() -> Option<Device> {
    device_with(TransferRule::default(), Duration::from_secs(60))
}

/// Distinct background bytes.
fn background(len: usize, seed: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 37 + seed * 11 + 5) as u8).collect()
}

const RULES: [TransferRule; 3] = [
    TransferRule::AlwaysPolyfill,
    TransferRule::Blit(BlitAlignment::Four),
    TransferRule::Blit(BlitAlignment::One),
];

/// Each case gets its own 64-byte slot of one big buffer (a slot's base is
/// 64-aligned, so offsets keep their alignment): few mappings, so the forks
/// that run the polyfill stay cheap.
const SLOT: u64 = 64;

#[test]
fn fill_matches_the_reference_for_every_small_case() {
    for rule in RULES {
        let Some(dev) = device_with(rule, Duration::from_secs(60)) else {
            return;
        };
        let mut cb = dev.command_buffer().unwrap();
        let cases = 3 * 8 * 21;
        let init = background(cases * SLOT as usize, 1);
        let big = dev
            .buffer_with_data(&init, MemoryType::HostVisible)
            .unwrap();
        let mut want = init.clone();
        let (mut blits, mut polyfills, mut rejected) = (0, 0, 0);
        let mut k = 0;
        for plen in [1usize, 2, 4] {
            let pattern = &[0xA1u8, 0xB2, 0xC3, 0xD4][..plen];
            for offset in 0u64..8 {
                for length in 0u64..=20 {
                    let at = k * SLOT + offset;
                    k += 1;
                    match cb.fill(&big, at, length, pattern) {
                        Ok(route) => {
                            match route {
                                Route::Blit { byte } => {
                                    assert!(pattern.iter().all(|&b| b == byte));
                                    blits += 1
                                }
                                Route::Polyfill => polyfills += 1,
                                Route::Nothing => assert_eq!(length, 0),
                            }
                            if rule == TransferRule::AlwaysPolyfill && length > 0 {
                                assert_eq!(route, Route::Polyfill);
                            }
                            transfer::fill_reference(&mut want, at, length, pattern);
                        }
                        Err(e) => {
                            rejected += 1;
                            assert_eq!(
                                e,
                                CpuError::Transfer(TransferError::Misaligned {
                                    offset: at,
                                    length,
                                    pattern_len: plen
                                })
                            );
                            assert!(offset % plen as u64 != 0 || length % plen as u64 != 0);
                        }
                    }
                }
            }
        }
        assert!(polyfills > 0, "{rule:?}: the polyfill never ran");
        assert_eq!(rejected, 8 * 21 * 2 - (4 * 11 + 2 * 6), "{rule:?}");
        if rule == TransferRule::Blit(BlitAlignment::Four) {
            assert!(blits > 0, "{rule:?}");
        }
        // Ranges that end exactly at the end of their buffer (a byte more
        // would hit the guard page and fault).
        let mut exact = Vec::new();
        for offset in 0u64..8 {
            let pattern = [0x5Au8, 0x6B];
            let (offset, length) = (offset & !1, 10);
            let init = background((offset + length) as usize, offset as usize);
            let buf = dev
                .buffer_with_data(&init, MemoryType::HostVisible)
                .unwrap();
            cb.fill(&buf, offset, length, &pattern).unwrap();
            let mut w = init;
            transfer::fill_reference(&mut w, offset, length, &pattern);
            exact.push((buf, w));
        }
        dev.submit(&cb).wait().unwrap();
        let got = big.to_vec().unwrap();
        for slot in 0..cases {
            let r = slot * SLOT as usize..(slot + 1) * SLOT as usize;
            assert_eq!(
                &got[r.clone()],
                &want[r],
                "{rule:?}: case {slot} (pattern of {} bytes, offset {}, length {})",
                [1, 2, 4][slot / (8 * 21)],
                slot / 21 % 8,
                slot % 21
            );
        }
        for (buf, w) in exact {
            assert_eq!(buf.to_vec().unwrap(), w, "{rule:?}");
        }
    }
}

#[test]
fn copy_matches_the_reference_for_every_small_case() {
    for rule in RULES {
        let Some(dev) = device_with(rule, Duration::from_secs(60)) else {
            return;
        };
        let mut cb = dev.command_buffer().unwrap();
        let cases = 8 * 8 * 21;
        let src_init = background(cases * SLOT as usize, 2);
        let dst_init = background(cases * SLOT as usize, 3);
        let src = dev
            .buffer_with_data(&src_init, MemoryType::HostVisible)
            .unwrap();
        let dst = dev
            .buffer_with_data(&dst_init, MemoryType::HostVisible)
            .unwrap();
        let mut want = dst_init.clone();
        let mut polyfills = 0;
        let mut k = 0;
        for src_offset in 0u64..8 {
            for dst_offset in 0u64..8 {
                for length in 0u64..=20 {
                    let (s, d) = (k * SLOT + src_offset, k * SLOT + dst_offset);
                    k += 1;
                    let route = cb.copy(&src, s, &dst, d, length).unwrap();
                    if route == Route::Polyfill {
                        polyfills += 1;
                    }
                    let (s, d, l) = (s as usize, d as usize, length as usize);
                    want[d..d + l].copy_from_slice(&src_init[s..s + l]);
                }
            }
        }
        // Within one buffer, ranges that do not overlap.
        let init = background(40, 9);
        let one = dev
            .buffer_with_data(&init, MemoryType::HostVisible)
            .unwrap();
        cb.copy(&one, 1, &one, 21, 19).unwrap();
        let mut want_one = init.clone();
        want_one.copy_within(1..20, 21);
        // Ranges that end exactly at the end of both buffers.
        let mut exact = Vec::new();
        for offset in 0u64..8 {
            let a = background(offset as usize + 9, 4);
            let b = background(16 - offset as usize, 5);
            let (ab, bb) = (
                dev.buffer_with_data(&a, MemoryType::HostVisible).unwrap(),
                dev.buffer_with_data(&b, MemoryType::HostVisible).unwrap(),
            );
            cb.copy(&ab, offset, &bb, 7 - offset, 9).unwrap();
            let mut w = b;
            w[7 - offset as usize..].copy_from_slice(&a[offset as usize..]);
            exact.push((bb, w));
        }
        if rule != TransferRule::Blit(BlitAlignment::One) {
            assert!(polyfills > 0, "{rule:?}: the polyfill never ran");
        }

        dev.submit(&cb).wait().unwrap();
        let got = dst.to_vec().unwrap();
        for slot in 0..cases {
            let r = slot * SLOT as usize..(slot + 1) * SLOT as usize;
            assert_eq!(
                &got[r.clone()],
                &want[r],
                "{rule:?}: case {slot} (source offset {}, destination offset {}, length {})",
                slot / (8 * 21),
                slot / 21 % 8,
                slot % 21
            );
        }
        assert_eq!(
            src.to_vec().unwrap(),
            src_init,
            "{rule:?}: the source changed"
        );
        assert_eq!(
            one.to_vec().unwrap(),
            want_one,
            "{rule:?}: copy within one buffer"
        );
        for (buf, w) in exact {
            assert_eq!(buf.to_vec().unwrap(), w, "{rule:?}");
        }
    }
}

#[test]
fn invalid_fills_and_copies_are_errors_naming_the_values() {
    let Some(dev) = dev() else { return };
    let a = dev.buffer(16, MemoryType::HostVisible).unwrap();
    let b = dev.buffer(8, MemoryType::HostVisible).unwrap();
    let mut cb = dev.command_buffer().unwrap();
    let text = |e: CpuError| e.to_string();
    assert_eq!(
        text(cb.fill(&a, 12, 8, &[1]).unwrap_err()),
        "fill range 12..20 is outside the 16-byte buffer"
    );
    assert_eq!(
        text(cb.fill(&a, 3, 4, &[1, 2]).unwrap_err()),
        "fill of 4 bytes at offset 3 with a 2-byte pattern: offset and length must be multiples of 2"
    );
    assert_eq!(
        text(cb.fill(&a, 4, 6, &[1, 2, 3, 4]).unwrap_err()),
        "fill of 6 bytes at offset 4 with a 4-byte pattern: offset and length must be multiples of 4"
    );
    assert_eq!(
        text(cb.fill(&a, 0, 3, &[1, 2, 3]).unwrap_err()),
        "fill pattern of 3 bytes: it must be 1, 2 or 4 bytes long"
    );
    assert_eq!(
        text(cb.copy(&a, 10, &b, 0, 7).unwrap_err()),
        "copy source range 10..17 is outside the 16-byte buffer"
    );
    assert_eq!(
        text(cb.copy(&a, 0, &b, 3, 6).unwrap_err()),
        "copy destination range 3..9 is outside the 8-byte buffer"
    );
    assert_eq!(
        text(cb.copy(&a, 0, &a, 3, 6).unwrap_err()),
        "copy within one buffer: source 0..6 and destination 3..9 overlap"
    );
    assert!(cb.is_empty(), "a rejected command is not recorded");
}

#[test]
fn a_queue_wait_blocks_until_the_host_signals_after_it() {
    let Some(dev) = dev() else { return };
    let sem = dev.semaphore(0).unwrap();
    let buf = dev.buffer(8, MemoryType::HostVisible).unwrap();
    let mut cb = dev.command_buffer().unwrap();
    cb.wait(&sem, 1);
    cb.fill(&buf, 0, 8, &[7]).unwrap();
    cb.signal(&sem, 2);
    let sub = dev.submit(&cb);
    std::thread::sleep(Duration::from_millis(150));
    assert!(!sub.is_done(), "ran before the semaphore reached 1");
    assert_eq!(
        buf.to_vec().unwrap(),
        [0; 8],
        "the fill ran before the wait"
    );
    assert_eq!(sem.value(), 0);
    sem.signal(1).unwrap();
    // The command buffer's signal, observed by a host wait.
    sem.wait(2, Duration::from_secs(10)).unwrap();
    assert_eq!(sub.wait_timeout(Duration::from_secs(10)), Some(Ok(())));
    assert_eq!(buf.to_vec().unwrap(), [7; 8]);
    assert_eq!(sem.value(), 2);
}

#[test]
fn a_later_submission_on_another_queue_can_satisfy_an_earlier_wait() {
    let Some(dev) = dev() else { return };
    let sem = dev.semaphore(0).unwrap();
    let buf = dev.buffer(4, MemoryType::HostVisible).unwrap();
    let mut waiter = dev.command_buffer().unwrap();
    waiter.wait(&sem, 1);
    waiter.fill(&buf, 0, 4, &[1, 2, 3, 4]).unwrap();
    let first = dev.submit(&waiter);
    let mut signaller = dev.command_buffer().unwrap();
    signaller.signal(&sem, 1);
    let other = dev.new_queue();
    std::thread::sleep(Duration::from_millis(50));
    assert!(!first.is_done());
    other.submit(&signaller).wait().unwrap();
    first.wait().unwrap();
    assert_eq!(buf.to_vec().unwrap(), [1, 2, 3, 4]);
}

#[test]
fn a_wait_never_signalled_fails_its_submission_after_the_limit() {
    let Some(dev) = device_with(TransferRule::default(), Duration::from_millis(200)) else {
        return;
    };
    let sem = dev.semaphore(3).unwrap();
    let done = dev.semaphore(0).unwrap();
    let buf = dev.buffer(4, MemoryType::HostVisible).unwrap();
    let mut cb = dev.command_buffer().unwrap();
    cb.wait(&sem, 5);
    cb.fill(&buf, 0, 4, &[9]).unwrap();
    cb.signal(&done, 1);
    let start = Instant::now();
    let e = dev.submit(&cb).wait().unwrap_err();
    assert!(start.elapsed() >= Duration::from_millis(200));
    assert!(
        matches!(
            e,
            CpuError::SemaphoreTimeout {
                value: 5,
                current: 3,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("to reach 5 (it is at 3)"), "{e}");
    assert_eq!(
        buf.to_vec().unwrap(),
        [0; 4],
        "a command after the failed wait ran"
    );
    // Its signal will never come: a host wait on it fails at once, with
    // the reason.
    let start = Instant::now();
    let e = done.wait(1, Duration::from_secs(30)).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(&e, CpuError::SemaphoreFailed { value: 1, message, .. } if message.contains("to reach 5")),
        "{e}"
    );
    // The queue still serves later submissions.
    let mut next = dev.command_buffer().unwrap();
    next.fill(&buf, 0, 4, &[1]).unwrap();
    dev.submit(&next).wait().unwrap();
    assert_eq!(buf.to_vec().unwrap(), [1; 4]);
}

#[test]
fn submissions_on_one_queue_run_in_order() {
    let Some(dev) = dev() else { return };
    let sem = dev.semaphore(0).unwrap();
    let buf = dev.buffer(4, MemoryType::HostVisible).unwrap();
    let mut first = dev.command_buffer().unwrap();
    first.wait(&sem, 1);
    first.fill(&buf, 0, 4, &[1]).unwrap();
    let mut second = dev.command_buffer().unwrap();
    second.fill(&buf, 0, 4, &[2]).unwrap();
    let queue = dev.new_queue();
    let s1 = queue.submit(&first);
    let s2 = queue.submit(&second);
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !s2.is_done(),
        "the second submission overtook the first, blocked one"
    );
    assert_eq!(buf.to_vec().unwrap(), [0; 4]);
    sem.signal(1).unwrap();
    s2.wait().unwrap();
    assert!(s1.is_done());
    assert_eq!(
        buf.to_vec().unwrap(),
        [2; 4],
        "the second submission ran first"
    );
}

#[test]
fn a_command_buffer_signalling_backwards_fails() {
    let Some(dev) = dev() else { return };
    let sem = dev.semaphore(5).unwrap();
    let mut cb = dev.command_buffer().unwrap();
    cb.signal(&sem, 4);
    let e = dev.submit(&cb).wait().unwrap_err();
    assert_eq!(
        e,
        CpuError::SemaphoreBackwards {
            current: 5,
            value: 4
        }
    );
    assert_eq!(sem.value(), 5);
    let e = sem.wait(6, Duration::from_millis(20)).unwrap_err();
    assert!(
        matches!(e, CpuError::SemaphoreTimeout { value: 6, .. }),
        "{e}"
    );
}

#[test]
fn replay_reruns_copies_on_current_contents() {
    let Some(dev) = dev() else { return };
    // Unaligned (polyfill) and aligned (direct) copies: a ring of three.
    let a = dev
        .buffer_with_data(&[1, 2, 3, 4, 5, 6, 7], MemoryType::HostVisible)
        .unwrap();
    let b = dev.buffer(7, MemoryType::HostVisible).unwrap();
    let mut cb = dev.command_buffer().unwrap();
    assert_eq!(cb.copy(&a, 1, &b, 0, 6).unwrap(), Route::Polyfill);
    assert_eq!(cb.copy(&b, 0, &a, 0, 4).unwrap(), Route::Blit { byte: 0 });
    dev.submit(&cb).wait().unwrap();
    assert_eq!(a.to_vec().unwrap(), [2, 3, 4, 5, 5, 6, 7]);
    a.write(6, &[9]).unwrap();
    dev.submit(&cb).wait().unwrap();
    assert_eq!(b.to_vec().unwrap(), [3, 4, 5, 5, 6, 9, 0]);
    assert_eq!(a.to_vec().unwrap(), [3, 4, 5, 5, 5, 6, 9]);
}

/// Metal's rule on the CPU: a `DeviceLocal` buffer is private, so host code
/// that reads or writes it fails here as it would on a Mac, while
/// `buffer_with_data` fills it and a copy reads it back (what the host does
/// on Metal).
#[test]
fn a_device_local_buffer_refuses_host_access_as_a_private_metal_buffer_does() {
    use crate::memory::StorageMode;
    let Some(dev) = dev() else {
        return;
    };
    let private = dev
        .buffer_with_data(&[1, 2, 3, 4, 5, 6, 7, 8], MemoryType::DeviceLocal)
        .unwrap();
    assert_eq!(private.storage_mode(), StorageMode::Private);
    assert!(!private.is_host_visible());
    assert_eq!(private.to_vec(), Err(CpuError::NotHostVisible));
    assert_eq!(private.write(0, &[0]), Err(CpuError::NotHostVisible));
    let mut one = [0u8; 1];
    assert_eq!(private.read(0, &mut one), Err(CpuError::NotHostVisible));
    assert!(CpuError::NotHostVisible
        .to_string()
        .contains("copy it to a host-visible buffer"));

    for memory in [MemoryType::HostVisible, MemoryType::DeviceLocalHostVisible] {
        let b = dev.buffer(8, memory).unwrap();
        assert_eq!(b.storage_mode(), StorageMode::Shared, "{memory:?}");
        assert!(b.is_host_visible());
        assert_eq!(b.to_vec().unwrap(), [0; 8], "{memory:?} starts zeroed");
    }

    let readback = dev.buffer(8, MemoryType::HostVisible).unwrap();
    let mut cb = dev.command_buffer().unwrap();
    cb.copy(&private, 0, &readback, 0, 8).unwrap();
    cb.synchronize(&readback).unwrap();
    cb.commit().wait().unwrap();
    assert_eq!(readback.to_vec().unwrap(), [1, 2, 3, 4, 5, 6, 7, 8]);
}

/// Lengths are `u64` (as `size_for`, `Buffer::len` and every offset), and
/// an empty buffer is refused, as on Metal.
#[test]
fn buffer_lengths_are_u64_and_never_zero() {
    let Some(dev) = dev() else {
        return;
    };
    let len: u64 = 3 * 4096 + 5;
    let b = dev.buffer(len, MemoryType::HostVisible).unwrap();
    assert_eq!(b.len(), len);
    assert_eq!(
        dev.buffer(0, MemoryType::HostVisible).unwrap_err(),
        CpuError::ZeroLength
    );
    assert!(dev.name().starts_with("CPU (clang++ "), "{}", dev.name());
    assert!(dev.has_unified_memory());
}

/// A Mac with a discrete GPU, on the CPU (`unified_memory: false`):
/// `DeviceLocalHostVisible` is managed, and the host reading what the device
/// wrote needs a synchronize recorded after the write, as on such a Mac
/// (where it would read stale bytes); host writes need nothing.
#[test]
fn without_unified_memory_the_host_reads_a_managed_buffer_only_after_a_synchronize() {
    use crate::memory::StorageMode;
    let Some(d) = dev() else {
        return;
    };
    let dev = Device::with_options(DeviceOptions {
        clang: Some(d.clang().clone()),
        cache_dir: Some(d.cache_dir().to_path_buf()),
        unified_memory: false,
        ..Default::default()
    })
    .unwrap();
    assert!(!dev.has_unified_memory() && d.has_unified_memory());
    let managed = dev
        .buffer_with_data(&[1; 8], MemoryType::DeviceLocalHostVisible)
        .unwrap();
    assert_eq!(managed.storage_mode(), StorageMode::Managed);
    assert!(managed.is_host_visible());
    let shared = dev.buffer(8, MemoryType::HostVisible).unwrap();
    assert_eq!(shared.storage_mode(), StorageMode::Shared);
    let private = dev.buffer(8, MemoryType::DeviceLocal).unwrap();
    assert_eq!(private.storage_mode(), StorageMode::Private);
    assert_eq!(managed.to_vec().unwrap(), [1; 8], "host-written bytes");

    // A fill (direct) and a copy (unaligned: the polyfill kernel) by the
    // device, no synchronize: the host may write, not read.
    for polyfill in [false, true] {
        let mut cb = dev.command_buffer().unwrap();
        if polyfill {
            assert_eq!(
                cb.copy(&shared, 0, &managed, 1, 2).unwrap(),
                Route::Polyfill
            );
        } else {
            cb.fill(&managed, 0, 8, &[7]).unwrap();
        }
        cb.synchronize(&shared).unwrap();
        cb.commit().wait().unwrap();
        assert_eq!(
            managed.to_vec(),
            Err(CpuError::NotSynchronized),
            "{polyfill}"
        );
        let mut one = [0u8; 1];
        assert_eq!(managed.read(7, &mut one), Err(CpuError::NotSynchronized));
        managed.write(0, &[1]).unwrap();
        assert_eq!(
            shared.to_vec().unwrap(),
            [0; 8],
            "a shared buffer needs nothing"
        );
    }
    assert!(CpuError::NotSynchronized
        .to_string()
        .contains("CommandBuffer::synchronize(&buffer)"));

    // The synchronize recorded after the write: readable.
    let mut cb = dev.command_buffer().unwrap();
    cb.fill(&managed, 4, 4, &[9]).unwrap();
    cb.synchronize(&managed).unwrap();
    cb.commit().wait().unwrap();
    assert_eq!(managed.to_vec().unwrap(), [1, 0, 0, 7, 9, 9, 9, 9]);
}
