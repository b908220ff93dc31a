//! Programs and pipelines: a kernel's MSL, specialised and compiled.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::cxx::Library;
use super::device::Device;
use super::exec::{self, EntryFn};
use super::source::{self, Param};
use super::CpuError;
use crate::kernel::Kernel;
use crate::plan::{SpecValue, Specialization};
use crate::Executable;

/// An executable on the CPU device.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    device: Device,
    exe: Executable<'a>,
}

impl<'a> Program<'a> {
    pub(super) fn new(device: &Device, exe: Executable<'a>) -> Result<Program<'a>, CpuError> {
        Ok(Program {
            device: device.clone(),
            exe,
        })
    }

    /// The executable.
    pub fn executable(&self) -> Executable<'a> {
        self.exe
    }

    /// The device.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The pipeline of kernel `name` (SPIR-V entry-point name) with
    /// `values` over its function constants' defaults: the kernel's MSL with
    /// those values baked in, compiled (or taken from the cache) and loaded.
    pub fn pipeline(&self, name: &str, values: &[SpecValue]) -> Result<Pipeline<'a>, CpuError> {
        let kernel = self
            .exe
            .entry_point(name)
            .ok_or_else(|| CpuError::KernelNotFound {
                name: name.into(),
                available: self.exe.kernel_names(),
            })?;
        let spec = Specialization::new(&kernel, values)?;
        let msl = kernel
            .library()
            .msl_source()
            .ok_or_else(|| CpuError::NoMslSource {
                kernel: name.into(),
            })?
            .map_err(|error| CpuError::MslNotUtf8 {
                kernel: name.into(),
                error,
            })?;
        let prepared = source::prepare(msl, name, kernel.msl_name(), spec.constants())?;
        let loaded = load(&self.device, name, &prepared.source)?;
        Ok(Pipeline {
            kernel,
            spec,
            params: prepared.params,
            entry: loaded.entry,
            library: loaded.library,
            compile_time: loaded.compile_time,
            simd_width: self.device.simd_width(),
            device: self.device.clone(),
        })
    }
}

/// A compiled kernel, loaded.
struct Loaded {
    entry: EntryFn,
    library: Arc<Library>,
    compile_time: Option<Duration>,
}

/// Compiles (or takes from the cache) the prepared C++ of kernel `name` and
/// loads its entry point.
fn load(device: &Device, name: &str, source: &str) -> Result<Loaded, CpuError> {
    let start = Instant::now();
    let compiled = device.inner.compiler.compile(name, source)?;
    let compile_time = start.elapsed();
    let library = Library::open(&compiled.path)?;
    let abi_fn = library.symbol("halc_abi")?;
    // SAFETY: `halc_abi` is defined by the generated wrapper with this
    // signature.
    let abi =
        unsafe { std::mem::transmute::<*mut std::ffi::c_void, extern "C" fn() -> u64>(abi_fn)() };
    if abi != exec::ABI {
        return Err(CpuError::Load {
            path: compiled.path.display().to_string(),
            message: format!(
                "built for executor ABI {abi}, this runtime has {}",
                exec::ABI
            ),
        });
    }
    let entry = library.symbol("halc_entry")?;
    // SAFETY: `halc_entry` is defined by the generated wrapper with the
    // `EntryFn` signature (checked by the ABI number above).
    let entry = unsafe { std::mem::transmute::<*mut std::ffi::c_void, EntryFn>(entry) };
    Ok(Loaded {
        entry,
        library: Arc::new(library),
        compile_time: (!compiled.cached).then_some(compile_time),
    })
}

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
    pub(super) fn new(device: &Device) -> Result<Builtins, CpuError> {
        let one = |name: &'static str| -> Result<Builtin, CpuError> {
            let prepared = source::prepare(crate::transfer::POLYFILL_MSL, name, name, &[])?;
            let loaded = load(device, name, &prepared.source)?;
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

/// A kernel with one specialization, compiled and loaded.
#[derive(Debug)]
pub struct Pipeline<'a> {
    kernel: Kernel<'a>,
    spec: Specialization,
    params: Vec<Param>,
    entry: EntryFn,
    /// Keeps `entry` loaded.
    library: Arc<Library>,
    compile_time: Option<Duration>,
    simd_width: u32,
    device: Device,
}

impl<'a> Pipeline<'a> {
    /// The kernel.
    pub fn kernel(&self) -> &Kernel<'a> {
        &self.kernel
    }

    /// Its specialization (function-constant values, threadgroup size).
    pub fn specialization(&self) -> &Specialization {
        &self.spec
    }

    /// How long clang took, or `None` if the object came from the cache.
    pub fn compile_time(&self) -> Option<Duration> {
        self.compile_time
    }

    /// The device it was made on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Lanes per SIMD group (Metal's `threadExecutionWidth`): the device's
    /// [`Device::simd_width`] when the pipeline was made.
    pub fn thread_execution_width(&self) -> u32 {
        self.simd_width
    }

    /// The most threads a threadgroup of this pipeline may have (Metal's
    /// `maxTotalThreadsPerThreadgroup`): the kernel's limit.
    pub fn max_total_threads_per_threadgroup(&self) -> u32 {
        self.kernel.max_threads_per_threadgroup()
    }

    pub(super) fn params(&self) -> &[Param] {
        &self.params
    }

    pub(super) fn entry(&self) -> EntryFn {
        self.entry
    }

    /// The loaded object `entry` lives in.
    pub(super) fn library(&self) -> &Arc<Library> {
        &self.library
    }
}
