//! The polyfill kernels of [`crate::transfer::POLYFILL_MSL`] (the fills and
//! copies a blit encoder cannot do), compiled from source once per device.

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_foundation::NSString;
use objc2_metal::{MTLCompileOptions, MTLComputePipelineState, MTLDevice, MTLLibrary};

use super::conv;

/// The polyfill kernels of [`crate::transfer::POLYFILL_MSL`] on one device
/// (compiled from source once, by the device).
#[derive(Debug)]
pub(super) struct Builtins {
    pub(super) fill: Retained<ProtocolObject<dyn MTLComputePipelineState>>,
    pub(super) copy: Retained<ProtocolObject<dyn MTLComputePipelineState>>,
}

impl Builtins {
    pub(super) fn new(device: &ProtocolObject<dyn MTLDevice>) -> Result<Builtins, String> {
        let options = MTLCompileOptions::new();
        let library = device
            .newLibraryWithSource_options_error(
                &NSString::from_str(crate::transfer::POLYFILL_MSL),
                Some(&options),
            )
            .map_err(|e| format!("compiling the MSL failed: {}", conv::ns_error(&e)))?;
        let pipeline = |name: &str| {
            let function = library
                .newFunctionWithName(&NSString::from_str(name))
                .ok_or_else(|| format!("`{name}` is not in the library"))?;
            device
                .newComputePipelineStateWithFunction_error(&function)
                .map_err(|e| format!("`{name}`: {}", conv::ns_error(&e)))
        };
        Ok(Builtins {
            fill: pipeline(crate::transfer::FILL_KERNEL)?,
            copy: pipeline(crate::transfer::COPY_KERNEL)?,
        })
    }
}
