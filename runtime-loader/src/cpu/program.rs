//! Programs and pipelines: a kernel's MSL, specialised and compiled.

use std::sync::Arc;
use std::time::Duration;

use super::cxx::{self, Library};
use super::exec::EntryFn;
use super::handle::Device;
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
        let loaded = cxx::load(
            &self.device.inner.compiler,
            name,
            &prepared.source,
            prepared.params.len(),
        )?;
        let mut params = prepared.params;
        for (p, &bytes) in params.iter_mut().zip(&loaded.param_bytes) {
            p.bytes = bytes;
        }
        Ok(Pipeline {
            kernel,
            spec,
            params,
            entry: loaded.entry,
            library: loaded.library,
            compile_time: loaded.compile_time,
            simd_width: self.device.simd_width(),
            device: self.device.clone(),
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
