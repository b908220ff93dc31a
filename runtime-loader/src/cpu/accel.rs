//! Acceleration structures on the CPU: a [`TopLevel`] scene kept where the
//! shim's `raytracing::acceleration_structure` finds it by its resource id.

use std::sync::Arc;

use super::CpuError;
use crate::scene::TopLevel;

/// An instance acceleration structure over its primitive ones
/// (`MTLAccelerationStructure`): what a kernel's
/// `raytracing::acceleration_structure<raytracing::instancing>` traces rays
/// through. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct AccelerationStructure {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    scene: TopLevel,
}

impl AccelerationStructure {
    /// Builds `scene`, after [`TopLevel::check`].
    pub(super) fn build(scene: &TopLevel) -> Result<Self, CpuError> {
        scene.check()?;
        Ok(AccelerationStructure {
            inner: Arc::new(Inner {
                scene: scene.clone(),
            }),
        })
    }

    /// The scene it holds.
    pub fn scene(&self) -> &TopLevel {
        &self.inner.scene
    }

    /// Its resource id (`gpuResourceID`): the 8 bytes an argument buffer
    /// or a kernel parameter holds, which the kernel finds it by.
    pub fn gpu_resource_id(&self) -> u64 {
        Arc::as_ptr(&self.inner) as u64
    }

    /// Whether `self` and `other` are the same structure.
    pub fn same(&self, other: &AccelerationStructure) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
