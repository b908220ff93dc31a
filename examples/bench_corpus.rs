//! Writes the benchmark corpus (`benches/corpus/mod.rs`) to a directory:
//! `cargo run --release --example bench_corpus -- DIR`. Prints one line per
//! module: file, origin, bytes. Used by `scripts/bench.sh`.

#[path = "../benches/corpus/mod.rs"]
mod corpus;

fn main() -> std::process::ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: bench_corpus DIR");
        return std::process::ExitCode::from(2);
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        for m in corpus::corpus(&root.join("fixtures/kernels"))? {
            std::fs::write(dir.join(&m.file), &m.bytes)?;
            println!("{} {} {}", m.file, m.origin, m.bytes.len());
        }
        Ok(())
    };
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}: {e}", dir.display());
            std::process::ExitCode::from(1)
        }
    }
}
