//! Non-Apple platforms: the entry points exist and report that Metal is not
//! available; no device can ever be created.

use super::MetalError;

/// A Metal device. Uninhabited on this platform: the constructors always
/// return [`MetalError::Unavailable`].
#[derive(Debug)]
pub struct Device {
    never: std::convert::Infallible,
}

impl Device {
    /// Always [`MetalError::Unavailable`] on this platform.
    pub fn new() -> Result<Device, MetalError> {
        Err(MetalError::Unavailable)
    }

    /// Always [`MetalError::Unavailable`] on this platform.
    pub fn all() -> Result<Vec<Device>, MetalError> {
        Err(MetalError::Unavailable)
    }

    /// Always [`MetalError::Unavailable`] on this platform.
    pub fn with_name(name: &str) -> Result<Device, MetalError> {
        let _ = name;
        Err(MetalError::Unavailable)
    }

    /// The device's name (unreachable: no `Device` exists here).
    pub fn name(&self) -> String {
        match self.never {}
    }
}
