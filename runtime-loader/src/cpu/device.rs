//! The CPU device: a compiler and the execution options.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::buffer::Buffer;
use super::cxx::{self, Clang, Compiler};
use super::program::Program;
use super::CpuError;
use crate::Executable;

/// What threadgroup memory holds when a threadgroup starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThreadgroupFill {
    /// The poison pattern `0x7FBADBAD` (little-endian u32s: a signalling NaN
    /// as a float, a NaN in every other half): Metal does not initialise
    /// threadgroup memory, so a kernel reading before writing must fail.
    #[default]
    Poison,
    /// Zeros (what a buggy kernel hopes for; for tests of tests).
    Zero,
    /// Every byte set to this value.
    Byte(u8),
}

/// How a [`Device`] compiles and runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceOptions {
    /// clang++ to use; `None`: [`cxx::find_clang`].
    pub clang: Option<Clang>,
    /// Cache of compiled kernels; `None`: `$HALC_CPU_CACHE`, else
    /// `$XDG_CACHE_HOME/halc/cpu`, else `~/.cache/halc/cpu`.
    pub cache_dir: Option<PathBuf>,
    /// A dispatch still running after this long is killed (default 60 s).
    pub time_limit: Duration,
    /// Worker threads for threadgroups; 0: one per available core.
    pub workers: usize,
    /// Threadgroup memory at the start of each threadgroup.
    pub threadgroup_fill: ThreadgroupFill,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            clang: None,
            cache_dir: None,
            time_limit: Duration::from_secs(60),
            workers: 0,
            threadgroup_fill: ThreadgroupFill::Poison,
        }
    }
}

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) compiler: Compiler,
    pub(super) time_limit: Duration,
    pub(super) workers: usize,
    pub(super) fill: ThreadgroupFill,
}

/// The CPU device. Cloning shares it.
#[derive(Debug, Clone)]
pub struct Device {
    pub(super) inner: Arc<Inner>,
}

impl Device {
    /// A device with the default options: finds clang (the error says what
    /// to install when there is none).
    pub fn new() -> Result<Device, CpuError> {
        Self::with_options(DeviceOptions::default())
    }

    /// A device with `options`.
    pub fn with_options(options: DeviceOptions) -> Result<Device, CpuError> {
        let clang = match options.clang {
            Some(c) => c,
            None => cxx::find_clang()?,
        };
        let workers = match options.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        Ok(Device {
            inner: Arc::new(Inner {
                compiler: Compiler {
                    clang,
                    cache_dir: options.cache_dir.unwrap_or_else(cxx::default_cache_dir),
                },
                time_limit: options.time_limit,
                workers,
                fill: options.threadgroup_fill,
            }),
        })
    }

    /// The clang++ it compiles with.
    pub fn clang(&self) -> &Clang {
        &self.inner.compiler.clang
    }

    /// Where compiled kernels are cached.
    pub fn cache_dir(&self) -> &std::path::Path {
        &self.inner.compiler.cache_dir
    }

    /// A zeroed buffer of `len` bytes (exact size, guarded).
    pub fn buffer(&self, len: usize) -> Result<Buffer, CpuError> {
        Buffer::new(len)
    }

    /// A buffer holding `data`.
    pub fn buffer_with_data(&self, data: &[u8]) -> Result<Buffer, CpuError> {
        let b = Buffer::new(data.len())?;
        b.write(0, data)?;
        Ok(b)
    }

    /// The executable's libraries on this device; pipelines come from the
    /// returned [`Program`].
    pub fn load<'a>(&self, exe: Executable<'a>) -> Result<Program<'a>, CpuError> {
        Program::new(self, exe)
    }
}
