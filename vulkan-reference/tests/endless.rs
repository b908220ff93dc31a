//! A kernel that never ends, in its own test process: the driver keeps
//! running it (a spinning lavapipe thread) until the process exits.

mod common;

use std::time::{Duration, Instant};

use common::*;
use vulkan_reference::{BindingDesc, BindingKind, Bound, Error, PipelineDesc};

/// The dispatch times out, the `Reference` reports itself busy, dropping
/// it does not hang (its Vulkan objects are leaked), a new `Reference`
/// still works, and the process exits normally afterwards.
#[test]
fn an_endless_kernel_times_out_and_the_process_goes_on() {
    let Some(vk) = reference(&[]) else { return };
    let words = kernel("tests/endless.spv");
    let bindings = [BindingDesc {
        set: 0,
        binding: 0,
        kind: BindingKind::Storage,
        count: 1,
    }];
    let p = vk
        .pipeline(&PipelineDesc {
            spirv: &words,
            entry: "main",
            specialization: &[],
            bindings: &bindings,
            push_constant_size: 0,
            ..Default::default()
        })
        .unwrap();
    let counter = vk.buffer(&[0u8; 4]).unwrap();
    vk.set_timeout(Duration::from_millis(200));
    let e = vk
        .dispatch(&p, &[Bound::new(0, 0, &counter)], &[], [1, 1, 1])
        .unwrap_err();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    let e = vk.wait_idle(Duration::from_millis(100)).unwrap_err();
    assert!(matches!(e, Error::Busy { .. }), "{e}");
    let t = Instant::now();
    while u32s(&counter.read())[0] == 0 {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the kernel is not running"
        );
        std::thread::sleep(Duration::from_millis(10));
    }

    let t = Instant::now();
    drop(p);
    drop(counter);
    drop(vk);
    assert!(t.elapsed() < Duration::from_secs(1), "dropping waited");

    // A new device on the same driver still runs work.
    let vk = reference(&[]).unwrap();
    let words = kernel("tests/spin.spv");
    let p = vk
        .pipeline(&PipelineDesc {
            spirv: &words,
            entry: "main",
            specialization: &[],
            bindings: &bindings,
            push_constant_size: 0,
            ..Default::default()
        })
        .unwrap();
    let ctl = vk.buffer(&u32_bytes(&[1, 0])).unwrap();
    vk.dispatch(&p, &[Bound::new(0, 0, &ctl)], &[], [1, 1, 1])
        .unwrap();
    assert_eq!(u32s(&ctl.read()), [1, 0]);
}
