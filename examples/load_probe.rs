//! `Executable::load` of one file, alone, for counting its instructions
//! under callgrind (`scripts/bench.sh`): counts do not depend on caches or
//! on the machine's speed, so they show whether verification grows
//! linearly with the kernel count where wall times also measure memory.
//!
//! ```text
//! cargo run --release --example load_probe -- write N FILE   # N kernels of saxpy
//! valgrind --tool=callgrind --toggle-collect=load_probe::measured_load \
//!     target/release/examples/load_probe load FILE
//! ```

#[path = "../benches/executable/mod.rs"]
mod executable;

use std::process::ExitCode;

/// What callgrind counts (`--toggle-collect=load_probe::measured_load`):
/// the load and verification, not reading the file.
#[inline(never)]
fn measured_load(bytes: &[u8]) -> Result<usize, runtime_loader::LoadError> {
    Ok(runtime_loader::Executable::load(bytes)?.kernels().len())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["write", n, file] => match n.parse::<usize>() {
            Ok(n) => {
                std::fs::write(file, executable::executable(n)).map_err(|e| format!("{file}: {e}"))
            }
            Err(e) => Err(format!("{n}: {e}")),
        },
        ["load", file] => std::fs::read(file)
            .map_err(|e| format!("{file}: {e}"))
            .and_then(|bytes| {
                let n = measured_load(&bytes).map_err(|e| format!("{file}: {e}"))?;
                println!("{n} kernels");
                Ok(())
            }),
        _ => {
            eprintln!("usage: load_probe write N FILE | load_probe load FILE");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
