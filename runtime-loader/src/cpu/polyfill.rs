//! The polyfill kernels of [`crate::transfer::POLYFILL_MSL`] (the fills and
//! copies a blit encoder cannot do), compiled once per device.

use std::sync::Arc;

use super::cxx::{self, Compiler, Library};
use super::exec::EntryFn;
use super::source;
use super::CpuError;

/// One polyfill kernel of [`crate::transfer::POLYFILL_MSL`], loaded.
#[derive(Debug, Clone)]
pub(super) struct Builtin {
    /// Its MSL name.
    pub(super) name: &'static str,
    pub(super) entry: EntryFn,
    pub(super) library: Arc<Library>,
}

/// The polyfill kernels of a device: [`crate::transfer::POLYFILL_MSL`]
/// through the same MSL → C++ → clang path as any kernel (Metal compiles
/// the same string with `newLibraryWithSource`).
#[derive(Debug)]
pub(super) struct Builtins {
    pub(super) fill: Builtin,
    pub(super) copy: Builtin,
}

impl Builtins {
    pub(super) fn new(compiler: &Compiler) -> Result<Builtins, CpuError> {
        let one = |name: &'static str| -> Result<Builtin, CpuError> {
            let prepared = source::prepare(crate::transfer::POLYFILL_MSL, name, name, &[])?;
            let loaded = cxx::load(compiler, name, &prepared.source, prepared.params.len())?;
            Ok(Builtin {
                name,
                entry: loaded.entry,
                library: loaded.library,
            })
        };
        Ok(Builtins {
            fill: one(crate::transfer::FILL_KERNEL)?,
            copy: one(crate::transfer::COPY_KERNEL)?,
        })
    }
}
