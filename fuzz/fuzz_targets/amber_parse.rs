//! Parse arbitrary text as an Amber script (AmberScript or VkScript): must
//! return Ok or Err, never panic, loop or allocate without bound. `FILE`s
//! resolve in an empty directory, so the parser's own code is what runs.
#![no_main]
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn empty_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("halc-fuzz-amber-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = halc::amber::parse::parse_in(text, empty_dir());
    }
});
