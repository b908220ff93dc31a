//! Run arbitrary text (mutated Amber scripts) through `halc test`'s runner,
//! the library function each of its test processes calls, on the CPU
//! backend with a 2-second limit per dispatch: it must give a PASS, FAIL or
//! SKIP, never panic, hang or end the process. `FILE`s resolve in an empty
//! directory; glslc's outputs and the compiled kernels are cached, so a
//! mutation that keeps a shader's text costs no compile.
#![no_main]
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use halc::amber::run::{run_in, RunOptions, Sides};
use halc::runtime_loader::cpu::{Device, DeviceOptions};
use libfuzzer_sys::fuzz_target;

struct Env {
    dir: PathBuf,
    device: Device,
    opts: RunOptions,
}

fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("halc-fuzz-amber-run-{}", std::process::id()));
        let dir = root.join("files");
        std::fs::create_dir_all(&dir).expect("temp dir");
        let cache = std::env::temp_dir().join("halc-fuzz-amber-run-cache");
        let device = Device::with_options(DeviceOptions {
            cache_dir: Some(cache.join("cpu")),
            time_limit: Duration::from_secs(2),
            ..DeviceOptions::default()
        })
        .expect("the CPU device (clang++ >= 15)");
        let opts = RunOptions {
            glslc_cache: Some(cache.join("glslc")),
            sides: Sides::MetalOnCpu,
            vulkan_timeout: Duration::from_secs(2),
            ..RunOptions::default()
        };
        Env { dir, device, opts }
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let e = env();
        let outcome = run_in("fuzz.amber", text, &e.dir, Some(&e.device), &e.opts);
        // To see what the inputs reach: `HALC_FUZZ_VERBOSE=1 bash fuzz/run.sh amber_run 10`.
        if std::env::var_os("HALC_FUZZ_VERBOSE").is_some() {
            eprintln!("{outcome:?}");
        }
    }
});
