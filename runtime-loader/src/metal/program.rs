//! Libraries and compute pipelines.

use std::ptr::NonNull;

use dispatch2::DispatchData;
use objc2::rc::Retained;
use objc2::runtime::{NSObjectProtocol, ProtocolObject};
use objc2::sel;
use objc2_foundation::NSString;
use objc2_metal::{
    MTLArgumentEncoder, MTLCompileOptions, MTLComputePipelineDescriptor, MTLComputePipelineState,
    MTLDevice, MTLFunction, MTLFunctionConstantValues, MTLLibrary, MTLPipelineOption,
};

use super::conv;
use super::handle::Device;
use super::MetalError;
use crate::kernel::Kernel;
use crate::plan::{SpecValue, Specialization};
use crate::schema::{self, ArgumentBufferTier};
use crate::Executable;

/// Where a library came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LibraryOrigin {
    /// The recorded metallib (`newLibraryWithData:error:`).
    Metallib,
    /// The MSL source (`newLibraryWithSource:options:error:`); when a
    /// metallib was present but rejected, Metal's message.
    MslSource {
        /// Why the metallib was not used, if there was one.
        metallib_error: Option<String>,
    },
}

/// How argument buffers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentEncoding {
    /// [`ArgumentEncoding::GpuAddress`] when the device is in the Metal 3
    /// family with tier-2 argument buffers and the library was compiled for
    /// tier 2; else [`ArgumentEncoding::ArgumentEncoder`].
    Auto,
    /// Metal 3: the plan's bytes (GPU addresses and resource ids) are copied
    /// into the argument buffer as they are.
    GpuAddress,
    /// Older devices: an `MTLArgumentEncoder` of the function sets each
    /// member by its `[[id(N)]]`.
    ArgumentEncoder,
}

/// An executable's libraries created on a device. Cloning shares them.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    device: Device,
    exe: Executable<'a>,
    libraries: Vec<(Retained<ProtocolObject<dyn MTLLibrary>>, LibraryOrigin)>,
}

impl<'a> Program<'a> {
    pub(super) fn new(device: &Device, exe: Executable<'a>) -> Result<Program<'a>, MetalError> {
        let libraries = exe
            .libraries()
            .enumerate()
            .map(|(i, lib)| create_library(device, i, lib))
            .collect::<Result<_, _>>()?;
        Ok(Program {
            device: device.clone(),
            exe,
            libraries,
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

    /// Where library `index` came from.
    pub fn library_origin(&self, index: usize) -> Option<&LibraryOrigin> {
        self.libraries.get(index).map(|l| &l.1)
    }

    /// The pipeline of kernel `name` (its name in the executable) with
    /// `values` set; other function constants keep their defaults.
    pub fn pipeline(&self, name: &str, values: &[SpecValue]) -> Result<Pipeline<'a>, MetalError> {
        self.pipeline_with(name, values, ArgumentEncoding::Auto)
    }

    /// As [`Program::pipeline`], choosing how argument buffers are written.
    pub fn pipeline_with(
        &self,
        name: &str,
        values: &[SpecValue],
        encoding: ArgumentEncoding,
    ) -> Result<Pipeline<'a>, MetalError> {
        let kernel = self
            .exe
            .entry_point(name)
            .ok_or_else(|| MetalError::KernelNotFound {
                name: name.into(),
                available: self.exe.kernel_names(),
            })?;
        let spec = Specialization::new(&kernel, values)?;
        let library = &self.libraries[kernel.library_index()].0;
        let function = create_function(&kernel, library, &spec)?;

        let desc = MTLComputePipelineDescriptor::new();
        desc.setComputeFunction(Some(&function));
        desc.setMaxTotalThreadsPerThreadgroup(kernel.max_threads_per_threadgroup() as usize);
        let state = self
            .device
            .raw()
            .newComputePipelineStateWithDescriptor_options_reflection_error(
                &desc,
                MTLPipelineOption::None,
                None,
            )
            .map_err(|e| MetalError::Pipeline {
                kernel: name.into(),
                message: conv::ns_error(&e),
            })?;

        // Metal silently drops a dispatch whose threadgroup exceeds the
        // pipeline's real limit (which can be below the descriptor's).
        let size = spec.threads_per_threadgroup();
        let threads: u64 = size.iter().map(|&t| u64::from(t)).product();
        let pipeline_max = state.maxTotalThreadsPerThreadgroup() as u64;
        if threads > pipeline_max {
            return Err(MetalError::ThreadgroupLimit {
                kernel: name.into(),
                size,
                threads,
                pipeline_max,
            });
        }

        let encoding = self.resolve_encoding(&kernel, encoding)?;
        let mut encoders = Vec::new();
        if encoding == ArgumentEncoding::ArgumentEncoder {
            for ab in kernel.argument_buffers() {
                // SAFETY: `buffer_index` is a verified slot (< MaxBufferSlots)
                // that the executable records as this function's argument
                // buffer `[[buffer(N)]]`.
                let enc = unsafe {
                    function.newArgumentEncoderWithBufferIndex(ab.buffer_index() as usize)
                };
                encoders.push((ab.set(), enc));
            }
        }
        Ok(Pipeline {
            kernel,
            spec,
            state,
            function,
            encoding,
            encoders,
            device: self.device.clone(),
        })
    }

    fn resolve_encoding(
        &self,
        kernel: &Kernel<'_>,
        requested: ArgumentEncoding,
    ) -> Result<ArgumentEncoding, MetalError> {
        let tier2_library = kernel.library().argument_buffer_tier() == ArgumentBufferTier::Tier2;
        let direct_ok = self.device.supports_metal3() && self.device.argument_buffers_tier2();
        Ok(match requested {
            ArgumentEncoding::Auto if tier2_library && direct_ok => ArgumentEncoding::GpuAddress,
            ArgumentEncoding::Auto => ArgumentEncoding::ArgumentEncoder,
            ArgumentEncoding::GpuAddress if kernel.argument_buffers().len() == 0 => ArgumentEncoding::GpuAddress,
            ArgumentEncoding::GpuAddress if !direct_ok => {
                return Err(MetalError::ArgumentBuffers {
                    kernel: kernel.name().into(),
                    message: format!(
                        "device `{}` is not a Metal 3 device with tier-2 argument buffers: GPU addresses cannot be written directly",
                        self.device.name()
                    ),
                })
            }
            ArgumentEncoding::GpuAddress if !tier2_library => {
                return Err(MetalError::ArgumentBuffers {
                    kernel: kernel.name().into(),
                    message: "the library was compiled for tier-1 argument buffers: use an MTLArgumentEncoder".into(),
                })
            }
            other => other,
        })
    }
}

fn create_library(
    device: &Device,
    index: usize,
    lib: crate::Library<'_>,
) -> Result<(Retained<ProtocolObject<dyn MTLLibrary>>, LibraryOrigin), MetalError> {
    let mut metallib_error = None;
    if let Some(bytes) = lib.metallib() {
        let data = DispatchData::from_bytes(bytes);
        match device.raw().newLibraryWithData_error(&data) {
            Ok(l) => return Ok((l, LibraryOrigin::Metallib)),
            Err(e) => metallib_error = Some(conv::ns_error(&e)),
        }
    }
    let Some(source) = lib.msl_source() else {
        return Err(MetalError::Library {
            library: index,
            message: format!(
                "the metallib was rejected and there is no MSL source to fall back to: {}",
                metallib_error.unwrap_or_default()
            ),
        });
    };
    let source = source.map_err(|e| MetalError::Library {
        library: index,
        message: format!("the MSL source is not UTF-8: {e}"),
    })?;
    let v = lib.msl_version();
    let version =
        conv::map_language_version(v.major(), v.minor()).ok_or(MetalError::LanguageVersion {
            library: index,
            major: v.major(),
            minor: v.minor(),
        })?;
    let options = MTLCompileOptions::new();
    options.setLanguageVersion(version);
    if options.respondsToSelector(sel!(setMathMode:)) {
        options.setMathMode(conv::map_math_mode(lib.math_mode()));
    } else {
        // Before macOS 15 / iOS 18 the only switch is fastMathEnabled
        // (deprecated since, but the one these systems have).
        #[allow(deprecated)]
        options.setFastMathEnabled(lib.math_mode() == schema::MathMode::Fast);
    }
    let library = device
        .raw()
        .newLibraryWithSource_options_error(&NSString::from_str(source), Some(&options))
        .map_err(|e| MetalError::Library {
            library: index,
            message: match &metallib_error {
                Some(m) => format!(
                    "the metallib was rejected ({m}) and compiling the MSL source failed: {}",
                    conv::ns_error(&e)
                ),
                None => format!("compiling the MSL source failed: {}", conv::ns_error(&e)),
            },
        })?;
    Ok((library, LibraryOrigin::MslSource { metallib_error }))
}

fn create_function(
    kernel: &Kernel<'_>,
    library: &ProtocolObject<dyn MTLLibrary>,
    spec: &Specialization,
) -> Result<Retained<ProtocolObject<dyn MTLFunction>>, MetalError> {
    let name = NSString::from_str(kernel.msl_name());
    let fail = |message: String| MetalError::Function {
        kernel: kernel.name().into(),
        msl_name: kernel.msl_name().into(),
        message,
    };
    // A function with function constants is always specialised, with an
    // empty set when none is given: each constant then keeps its defaults.
    if kernel.function_constants().len() == 0 {
        return library
            .newFunctionWithName(&name)
            .ok_or_else(|| fail("not found in the library".into()));
    }
    let values = MTLFunctionConstantValues::new();
    for c in spec.constants() {
        let ty = conv::map_scalar_type(c.ty).ok_or_else(|| MetalError::ConstantType {
            kernel: kernel.name().into(),
            id: c.id,
            ty: c.ty.variant_name().unwrap_or("?"),
        })?;
        // Little-endian: the value of any width starts at the first byte.
        let bytes = c.bits.to_le_bytes();
        // SAFETY: `bytes` is 8 readable bytes, at least the size of every
        // type `map_scalar_type` returns; Metal copies the value before
        // returning.
        unsafe {
            values.setConstantValue_type_atIndex(NonNull::from(&bytes).cast(), ty, c.id as usize);
        }
    }
    library
        .newFunctionWithName_constantValues_error(&name, &values)
        .map_err(|e| fail(conv::ns_error(&e)))
}

/// A compute pipeline for one kernel and one specialization.
#[derive(Debug)]
pub struct Pipeline<'a> {
    kernel: Kernel<'a>,
    spec: Specialization,
    state: Retained<ProtocolObject<dyn MTLComputePipelineState>>,
    function: Retained<ProtocolObject<dyn MTLFunction>>,
    encoding: ArgumentEncoding,
    encoders: Vec<(u32, Retained<ProtocolObject<dyn MTLArgumentEncoder>>)>,
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

    /// The `MTLComputePipelineState`.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLComputePipelineState> {
        &self.state
    }

    /// The specialized `MTLFunction`.
    pub fn function(&self) -> &ProtocolObject<dyn MTLFunction> {
        &self.function
    }

    /// `maxTotalThreadsPerThreadgroup` of the pipeline.
    pub fn max_total_threads_per_threadgroup(&self) -> u32 {
        // At most 1024 on every Apple GPU.
        u32::try_from(self.state.maxTotalThreadsPerThreadgroup()).unwrap_or(u32::MAX)
    }

    /// `threadExecutionWidth` (lanes per SIMD group).
    pub fn thread_execution_width(&self) -> u32 {
        u32::try_from(self.state.threadExecutionWidth()).unwrap_or(u32::MAX)
    }

    /// The device it was made on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// How its argument buffers are written (never `Auto`).
    pub fn argument_encoding(&self) -> ArgumentEncoding {
        self.encoding
    }

    pub(super) fn argument_encoder(
        &self,
        set: u32,
    ) -> Option<&ProtocolObject<dyn MTLArgumentEncoder>> {
        self.encoders.iter().find(|e| e.0 == set).map(|e| &*e.1)
    }

    pub(super) fn raw_device(&self) -> &ProtocolObject<dyn MTLDevice> {
        self.device.raw()
    }
}
