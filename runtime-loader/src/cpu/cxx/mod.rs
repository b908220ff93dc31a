//! clang++: finding it (`clang.rs`), compiling a kernel's C++ into a shared
//! object, cached by content (`compile.rs`), and loading it (`library.rs`).

mod clang;
mod compile;
mod confine;
mod library;
#[cfg(test)]
mod tests;

pub use clang::{find_clang, Clang};
pub use compile::SHIM_FILES;
pub(super) use compile::{default_cache_dir, Compiler};
pub(super) use confine::Limits;
pub(super) use library::{load, Library};
