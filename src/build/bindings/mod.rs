//! The Rust host bindings generated from a
//! [`Compiled`](crate::model::Compiled) set of kernels.
//!
//! Per kernel, one module holding:
//! - `NAME`, `ENTRY_POINT`, `THREADS_PER_THREADGROUP`,
//!   `THREADGROUP_SPEC_IDS`, the binding model, the argument buffers and the
//!   push-constant slot and size;
//! - `bindings::<resource>`: per resource its `SET`, `BINDING`, `KIND`,
//!   `ACCESS`, `COUNT`, `MIN_SIZE` and the Metal slot the binding model gives
//!   it (`ID` and `BYTE_OFFSET` in argument buffers, `BUFFER_INDEX` /
//!   `TEXTURE_INDEX` / `SAMPLER_INDEX` when discrete), its block type
//!   (`Block`) and, for a trailing runtime array, `Element`,
//!   `ARRAY_OFFSET`, `ARRAY_STRIDE` and `size_for(n)` (bytes for `n: u32`
//!   elements, a `u64` as every buffer length of the runtime);
//! - `#[repr(C)]` structs for push-constant and buffer blocks, every byte a
//!   field (explicit `_padN` fields where the SPIR-V leaves gaps, padded
//!   element wrappers where an `ArrayStride` exceeds the element), each field
//!   offset and each struct size checked at compile time with
//!   `const _: () = assert!(offset_of!(…) == …)` against the SPIR-V
//!   `Offset`/`ArrayStride`/`MatrixStride` decorations;
//! - `spec::<constant>(value)`: typed function-constant setters returning
//!   `runtime_loader::plan::SpecValue`;
//! - `Args<B>`: one field per resource; `Args::bind` puts each field on its
//!   own (set, binding) of anything implementing
//!   `runtime_loader::plan::BindResources<B>`.
//!
//! The generated code names the runtime crate `::runtime_loader` and holds no
//! path of the machine it was generated on.
//!
//! The parts: the file of every kernel (`generate.rs`), one kernel's module
//! (`kernel.rs`), block types as Rust types (`types.rs`) and the items of
//! their structs (`structs.rs`), the words of the generated docs
//! (`describe.rs`), Rust identifiers (`names.rs`), and the error
//! (`error.rs`).

mod describe;
mod error;
mod generate;
mod kernel;
mod names;
mod structs;
mod types;

pub use error::BindingsError;
pub use generate::generate;
