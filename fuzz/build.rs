//! amber_run links halc's runner, whose compile path brings in
//! `src/msl/worker_alloc.cpp` (C++ `operator new` replaced for a batch's
//! workers) after libFuzzer has already pulled libstdc++'s own from the
//! static archive: the first definition is kept (a fuzzer runs no batch
//! workers).
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=amber_run=-Wl,--allow-multiple-definition");
    }
}
