//! Compiles `src/msl/worker_alloc.cpp` on Linux: the C++ allocation
//! functions that let a batch's forked workers give SPIRV-Cross and
//! SPIRV-Tools mimalloc (`src/msl/worker/allocator.rs`, `CxxAllocator`).

fn main() {
    println!("cargo:rerun-if-changed=src/msl/worker_alloc.cpp");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        cc::Build::new()
            .cpp(true)
            .std("c++14")
            .file("src/msl/worker_alloc.cpp")
            .compile("halc_worker_alloc");
    }
}
