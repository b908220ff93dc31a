//! Semantic verification: every rule of `schemas/halc_executable.fbs` that
//! the flatbuffers verifier cannot check, run once at load.
//!
//! After these checks the dispatch planner and the Metal runtime rely on:
//! - `strings` UTF-8, and every `Str` of the file inside it on character
//!   boundaries (so reading a string never fails);
//! - every kernel's `Range`s inside their vectors, each starting where the
//!   previous kernel's ended and the last ending at the vector's end (so
//!   reading a record never fails, and each record is checked once);
//!   `binding_names` one per binding;
//! - every library's blobs inside `library_data`, each library with MSL
//!   source or a metallib;
//! - kernel names non-empty, sorted and unique (so lookup by name works);
//! - library indices in range;
//! - threadgroup dimensions each ≥ 1, at most `MaxThreadsPerThreadgroup`
//!   threads, `max_threads_per_threadgroup` between that product and the
//!   limit, spec-id dimensions backed by an integer function constant whose
//!   default is the recorded size;
//! - function constants sorted by id without duplicates, each alias of the
//!   same width as its constant and sorted with them (so lookup by id and a
//!   constant's aliases are a binary search);
//! - every enum value known;
//! - bindings sorted by (set, binding) with no duplicates, `count` ≥ 1, the
//!   slots each kind needs present (and no others; a slot holding
//!   `Unset.Value` is absent), every slot range inside Metal's argument
//!   tables and free of collisions (bindings, push constants, argument
//!   buffers and the sizes table share the buffer table);
//! - argument-buffer members 8-byte aligned, inside `ArgumentBuffer.size`,
//!   with disjoint ids and byte ranges;
//! - push constants 1..=`MaxPushConstantBytes` bytes, or none (size 0,
//!   `buffer_index` Unset, no members);
//! - every `sizes_index` backed by a table large enough for `count` entries.
//!
//! The files: `limits.rs` ([`VerifyLimits`]), `violation.rs`, `types.rs`
//! (what scalar types and binding kinds mean), `file.rs` (structural: every
//! kernel's record ranges, the libraries' blobs), `kernel.rs` (semantic: a
//! kernel's names, library, function constants, threadgroup) and
//! `resources.rs` (semantic: its bindings, slots, argument buffers, push
//! constants, sizes tables); [`executable`] here checks the strings and runs
//! the others in that order.

mod file;
mod kernel;
mod limits;
mod resources;
mod types;
mod violation;

use file::{library, Runs};
use kernel::KernelCheck;
pub use limits::{VerifyLimits, MAX_SAMPLER_SLOTS};
use resources::Scratch;
pub use types::{bits_fit, scalar_bits};
pub(crate) use types::{kind_parts, Part};
use violation::text;
pub use violation::Violation;

use crate::kernel::Kernel;
use crate::schema;
use crate::strings::Strings;

/// Reports the first violation found; gives the file's strings, checked.
pub(crate) fn executable<'a>(
    root: schema::Executable<'a>,
    limits: &VerifyLimits,
) -> Result<Strings<'a>, Violation> {
    let strings = Strings::of(root).map_err(|e| Violation {
        kernel: None,
        field: "strings".into(),
        message: format!("is not UTF-8: {e}"),
    })?;
    if let Some(b) = root.build_info() {
        for (f, s) in [
            ("halc_version", b.halc_version()),
            ("spirv_cross_version", b.spirv_cross_version()),
            ("inputs_sha256", b.inputs_sha256()),
        ] {
            if let Some(s) = s {
                text(strings, None, || format!("build_info.{f}"), s)?;
            }
        }
        for (i, s) in b.options().unwrap_or_default().iter().enumerate() {
            text(strings, None, || format!("build_info.options[{i}]"), s)?;
        }
    }
    let libraries = root.libraries();
    let data = root.library_data().map_or(0, |d| d.len());
    for (i, lib) in libraries.iter().enumerate() {
        library(i, lib, data, strings)?;
    }
    let kernels = root.kernels();
    if kernels.is_empty() {
        return Err(Violation {
            kernel: None,
            field: "kernels".into(),
            message: "the executable has no kernels".into(),
        });
    }
    let bindings = root.bindings().map_or(0, |v| v.len());
    let names = root.binding_names().map_or(0, |v| v.len());
    if names != bindings {
        return Err(Violation {
            kernel: None,
            field: "binding_names".into(),
            message: format!("has {names} names for {bindings} bindings"),
        });
    }
    // Where each kernel's range of each record vector must start: where the
    // previous kernel's ended.
    let mut next = Runs::new(root);
    let mut previous: Option<&str> = None;
    let mut scratch = Scratch::default();
    for (i, k) in kernels.iter().enumerate() {
        let field = || format!("kernels[{i}].names.name");
        let name = text(strings, None, field, k.names().name())?;
        if name.is_empty() {
            return Err(Violation {
                kernel: None,
                field: field(),
                message: "is empty".into(),
            });
        }
        if let Some(prev) = previous {
            if prev >= name {
                return Err(Violation {
                    kernel: Some(name.into()),
                    field: "names.name".into(),
                    message: format!(
                        "kernels must be sorted by name without duplicates, but `{name}` follows `{prev}`"
                    ),
                });
            }
        }
        previous = Some(name);
        next.take(k).map_err(|(field, message)| Violation {
            kernel: Some(name.into()),
            field: field.into(),
            message,
        })?;
        let check = KernelCheck {
            view: Kernel::new(root, strings, k),
            name,
            libraries: libraries.len(),
            limits,
        };
        check.run()?;
        check.resources(&mut scratch)?;
    }
    next.all_taken().map_err(|(field, message)| Violation {
        kernel: None,
        field: field.into(),
        message,
    })?;
    Ok(strings)
}
