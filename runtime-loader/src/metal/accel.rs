//! Acceleration structures on Metal: a [`TopLevel`] scene built into one
//! `MTLInstanceAccelerationStructure` over one primitive structure per
//! bottom level, what a kernel's
//! `raytracing::acceleration_structure<raytracing::instancing>` traverses.
//!
//! How the scene maps onto Metal:
//! - a bottom level of triangles: one
//!   `MTLAccelerationStructureTriangleGeometryDescriptor` per geometry, its
//!   vertices a shared buffer of packed `float3` (12-byte stride, no index
//!   buffer, three vertices a triangle); of boxes: one
//!   `MTLAccelerationStructureBoundingBoxGeometryDescriptor` per geometry
//!   over `MTLAxisAlignedBoundingBox`es (24 bytes each). `opaque` and
//!   `allowDuplicateIntersectionFunctionInvocation` (the negation of
//!   `no_duplicate_any_hit`) per geometry, in geometry-index order (Metal's
//!   `geometry_id`).
//! - the instances: `MTLAccelerationStructureUserIDInstanceDescriptor`s
//!   (`userID` is the custom index, which MSL's `user_instance_id` returns,
//!   `accelerationStructureIndex` the bottom level, `mask` the 8-bit mask),
//!   in instance order (Metal's `instance_id`). The transform: the scene's
//!   is row-major 3 × 4 (`VkTransformMatrixKHR`), `MTLPackedFloat4x3` is
//!   four columns of three, so column `c` is `(m[0][c], m[1][c], m[2][c])`
//!   and the translation is column 3. Options: `DisableTriangleCulling`
//!   for `triangle_facing_cull_disable`, `Opaque` / `NonOpaque` for
//!   `force_opaque` / `force_no_opaque`, and
//!   `TriangleFrontFacingWindingCounterClockwise` for
//!   `triangle_flip_facing`: Metal's default front face is clockwise, as
//!   Vulkan's (a triangle whose vertices appear clockwise from the ray
//!   origin, in object space, is front facing), so only a flipped instance
//!   changes it.
//!
//! Each structure is sized with `accelerationStructureSizesWithDescriptor:`
//! and built with an `MTLAccelerationStructureCommandEncoder` into a
//! private scratch buffer: the primitive structures in one encoder, the
//! instance structure in a second one of the same command buffer (so it
//! reads finished primitive structures), committed and waited for.

use std::ptr::NonNull;

use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2_foundation::NSArray;
use objc2_metal::{
    MTLAccelerationStructure, MTLAccelerationStructureBoundingBoxGeometryDescriptor,
    MTLAccelerationStructureCommandEncoder, MTLAccelerationStructureDescriptor,
    MTLAccelerationStructureGeometryDescriptor, MTLAccelerationStructureInstanceDescriptorType,
    MTLAccelerationStructureInstanceOptions, MTLAccelerationStructureTriangleGeometryDescriptor,
    MTLAccelerationStructureUserIDInstanceDescriptor, MTLAxisAlignedBoundingBox, MTLBuffer,
    MTLCommandBuffer, MTLCommandBufferStatus, MTLCommandEncoder, MTLCommandQueue, MTLDevice,
    MTLInstanceAccelerationStructureDescriptor, MTLPackedFloat3, MTLPackedFloat4x3,
    MTLPrimitiveAccelerationStructureDescriptor, MTLResourceOptions,
};

use super::conv;
use super::MetalError;
use crate::scene::{Instance, Primitives, TopLevel};

/// An instance acceleration structure and the primitive structures its
/// instances place (`MTLAccelerationStructure`s), with the scene they hold.
/// Bind it with [`super::ResourceBindings::acceleration_structure`]; the
/// dispatch plan makes every primitive structure resident
/// (`useResource:usage:`), as Metal requires of structures it reaches
/// through the instance structure.
#[derive(Debug, Clone)]
pub struct AccelerationStructure {
    instance: Retained<ProtocolObject<dyn MTLAccelerationStructure>>,
    primitives: Vec<Retained<ProtocolObject<dyn MTLAccelerationStructure>>>,
    scene: TopLevel,
}

impl AccelerationStructure {
    /// The instance structure.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLAccelerationStructure> {
        &self.instance
    }

    /// The primitive structure of bottom level `index`.
    pub fn primitive(&self, index: usize) -> Option<&ProtocolObject<dyn MTLAccelerationStructure>> {
        self.primitives.get(index).map(|p| &**p)
    }

    /// How many primitive structures (one per bottom level).
    pub fn primitive_count(&self) -> usize {
        self.primitives.len()
    }

    /// The scene it holds.
    pub fn scene(&self) -> &TopLevel {
        &self.scene
    }

    /// The instance structure's `gpuResourceID`: what an argument buffer
    /// holds.
    pub fn gpu_resource_id(&self) -> u64 {
        self.instance.gpuResourceID().to_raw()
    }

    /// Whether `self` and `other` are the same structure.
    pub fn same(&self, other: &AccelerationStructure) -> bool {
        Retained::as_ptr(&self.instance) == Retained::as_ptr(&other.instance)
    }

    pub(super) fn retained(
        &self,
    ) -> impl Iterator<Item = Retained<ProtocolObject<dyn MTLAccelerationStructure>>> + '_ {
        std::iter::once(self.instance.clone()).chain(self.primitives.iter().cloned())
    }
}

fn packed(v: [f32; 3]) -> MTLPackedFloat3 {
    MTLPackedFloat3 {
        x: v[0],
        y: v[1],
        z: v[2],
    }
}

/// The scene's row-major 3 × 4 transform as Metal's column-major 4 × 3.
pub(crate) fn metal_transform(m: &crate::scene::Transform) -> MTLPackedFloat4x3 {
    MTLPackedFloat4x3 {
        columns: [0, 1, 2, 3].map(|c| packed([m[0][c], m[1][c], m[2][c]])),
    }
}

/// The Metal options of an instance's flags.
pub(crate) fn instance_options(i: &Instance) -> MTLAccelerationStructureInstanceOptions {
    let mut o = MTLAccelerationStructureInstanceOptions::None;
    if i.flags.triangle_facing_cull_disable {
        o |= MTLAccelerationStructureInstanceOptions::DisableTriangleCulling;
    }
    if i.flags.triangle_flip_facing {
        o |= MTLAccelerationStructureInstanceOptions::TriangleFrontFacingWindingCounterClockwise;
    }
    if i.flags.force_opaque {
        o |= MTLAccelerationStructureInstanceOptions::Opaque;
    }
    if i.flags.force_no_opaque {
        o |= MTLAccelerationStructureInstanceOptions::NonOpaque;
    }
    o
}

/// A shared buffer holding `items` (plain `repr(C)` values).
fn buffer_of<T: Copy>(
    device: &ProtocolObject<dyn MTLDevice>,
    items: &[T],
    what: &str,
) -> Result<Retained<ProtocolObject<dyn MTLBuffer>>, MetalError> {
    // Metal has no zero-length buffers: none still gets 4 bytes.
    let padding = [0u8; 4];
    let (ptr, len) = if items.is_empty() {
        (NonNull::from(&padding).cast(), padding.len())
    } else {
        (NonNull::from(items).cast(), std::mem::size_of_val(items))
    };
    // SAFETY: `ptr` points to `len` readable bytes (`items`, or the four
    // zero bytes), plain `repr(C)` data; Metal copies them before returning.
    unsafe {
        device.newBufferWithBytes_length_options(ptr, len, MTLResourceOptions::StorageModeShared)
    }
    .ok_or_else(|| MetalError::Creation {
        what: format!("the {what} buffer of an acceleration structure ({len} bytes)"),
    })
}

/// A primitive structure's descriptor and the buffers it reads.
fn primitive_descriptor(
    device: &ProtocolObject<dyn MTLDevice>,
    bottom: usize,
    level: &crate::scene::BottomLevel,
    keep: &mut Vec<Retained<ProtocolObject<dyn MTLBuffer>>>,
) -> Result<Retained<MTLPrimitiveAccelerationStructureDescriptor>, MetalError> {
    let mut geometries: Vec<Retained<MTLAccelerationStructureGeometryDescriptor>> = Vec::new();
    for (g, geometry) in level.geometries.iter().enumerate() {
        let what = format!("bottom {bottom} geometry {g}");
        let d: Retained<MTLAccelerationStructureGeometryDescriptor> = match &geometry.primitives {
            Primitives::Triangles(triangles) => {
                let vertices: Vec<MTLPackedFloat3> =
                    triangles.iter().flatten().map(|v| packed(*v)).collect();
                let buffer = buffer_of(device, &vertices, &what)?;
                let t = MTLAccelerationStructureTriangleGeometryDescriptor::descriptor();
                t.setVertexBuffer(Some(&buffer));
                t.setVertexStride(std::mem::size_of::<MTLPackedFloat3>());
                t.setTriangleCount(triangles.len());
                keep.push(buffer);
                Retained::into_super(t)
            }
            Primitives::Boxes(boxes) => {
                let boxes: Vec<MTLAxisAlignedBoundingBox> = boxes
                    .iter()
                    .map(|b| MTLAxisAlignedBoundingBox {
                        min: packed(b.min),
                        max: packed(b.max),
                    })
                    .collect();
                let buffer = buffer_of(device, &boxes, &what)?;
                let b = MTLAccelerationStructureBoundingBoxGeometryDescriptor::descriptor();
                b.setBoundingBoxBuffer(Some(&buffer));
                // SAFETY: the stride of the boxes just written, a multiple
                // of 4 as Metal requires.
                unsafe { b.setBoundingBoxStride(std::mem::size_of::<MTLAxisAlignedBoundingBox>()) };
                b.setBoundingBoxCount(boxes.len());
                keep.push(buffer);
                Retained::into_super(b)
            }
        };
        d.setOpaque(geometry.opaque);
        d.setAllowDuplicateIntersectionFunctionInvocation(!geometry.no_duplicate_any_hit);
        geometries.push(d);
    }
    let desc = MTLPrimitiveAccelerationStructureDescriptor::descriptor();
    desc.setGeometryDescriptors(Some(&NSArray::from_retained_slice(&geometries)));
    Ok(desc)
}

type Structure = Retained<ProtocolObject<dyn MTLAccelerationStructure>>;

/// A structure of the size `desc` needs and a scratch buffer to build it.
fn allocate(
    device: &ProtocolObject<dyn MTLDevice>,
    desc: &MTLAccelerationStructureDescriptor,
    what: &str,
) -> Result<(Structure, Retained<ProtocolObject<dyn MTLBuffer>>), MetalError> {
    let sizes = device.accelerationStructureSizesWithDescriptor(desc);
    let structure = device
        .newAccelerationStructureWithSize(sizes.accelerationStructureSize)
        .ok_or_else(|| MetalError::Creation {
            what: format!("{what} ({} bytes)", sizes.accelerationStructureSize),
        })?;
    let scratch = device
        .newBufferWithLength_options(
            sizes.buildScratchBufferSize.max(4),
            MTLResourceOptions::StorageModePrivate,
        )
        .ok_or_else(|| MetalError::Creation {
            what: format!(
                "the scratch buffer of {what} ({} bytes)",
                sizes.buildScratchBufferSize
            ),
        })?;
    Ok((structure, scratch))
}

/// Builds `scene` on `device` (after [`TopLevel::check`]) and waits for the
/// build.
pub(super) fn build(
    device: &ProtocolObject<dyn MTLDevice>,
    queue: &ProtocolObject<dyn MTLCommandQueue>,
    scene: &TopLevel,
) -> Result<AccelerationStructure, MetalError> {
    scene.check().map_err(MetalError::Scene)?;
    let mut keep = Vec::new();
    let mut primitives = Vec::new();
    let mut builds = Vec::new();
    for (b, level) in scene.bottom.iter().enumerate() {
        let desc = primitive_descriptor(device, b, level, &mut keep)?;
        let (structure, scratch) = allocate(
            device,
            &desc,
            &format!("primitive acceleration structure {b}"),
        )?;
        primitives.push(structure.clone());
        builds.push((structure, Retained::into_super(desc), scratch));
    }

    let instances: Vec<MTLAccelerationStructureUserIDInstanceDescriptor> = scene
        .instances
        .iter()
        .map(|i| MTLAccelerationStructureUserIDInstanceDescriptor {
            transformationMatrix: metal_transform(&i.transform),
            options: instance_options(i),
            mask: u32::from(i.mask),
            intersectionFunctionTableOffset: 0,
            // `check` bounded it by the number of bottom levels.
            accelerationStructureIndex: u32::try_from(i.bottom).unwrap_or(u32::MAX),
            userID: i.custom_index,
        })
        .collect();
    let instance_buffer = buffer_of(device, &instances, "instance descriptor")?;
    let desc = MTLInstanceAccelerationStructureDescriptor::descriptor();
    desc.setInstanceDescriptorType(MTLAccelerationStructureInstanceDescriptorType::UserID);
    desc.setInstanceDescriptorBuffer(Some(&instance_buffer));
    // SAFETY: the stride of the descriptors just written.
    unsafe {
        desc.setInstanceDescriptorStride(std::mem::size_of::<
            MTLAccelerationStructureUserIDInstanceDescriptor,
        >())
    };
    desc.setInstanceCount(instances.len());
    desc.setInstancedAccelerationStructures(Some(&NSArray::from_retained_slice(&primitives)));
    let desc: Retained<MTLAccelerationStructureDescriptor> = Retained::into_super(desc);
    let (instance, instance_scratch) =
        allocate(device, &desc, "the instance acceleration structure")?;

    let cb = queue.commandBuffer().ok_or_else(|| MetalError::Creation {
        what: "a command buffer to build an acceleration structure".into(),
    })?;
    let encoder = |what: &str| {
        cb.accelerationStructureCommandEncoder()
            .ok_or_else(|| MetalError::Creation {
                what: format!("an acceleration-structure command encoder ({what})"),
            })
    };
    if !builds.is_empty() {
        let enc = encoder("primitive structures")?;
        // Each `structure` was allocated at the size Metal gave for its
        // `desc`, and `scratch` holds its build scratch size; both stay alive
        // (held here) until the command buffer completes.
        for (structure, desc, scratch) in &builds {
            enc.buildAccelerationStructure_descriptor_scratchBuffer_scratchBufferOffset(
                structure, desc, scratch, 0,
            );
        }
        enc.endEncoding();
    }
    let enc = encoder("instance structure")?;
    // As above; the primitive structures it instances were built by the
    // previous encoder of this command buffer, which Metal orders before
    // this one.
    enc.buildAccelerationStructure_descriptor_scratchBuffer_scratchBufferOffset(
        &instance,
        &desc,
        &instance_scratch,
        0,
    );
    enc.endEncoding();
    cb.commit();
    cb.waitUntilCompleted();
    if cb.status() != MTLCommandBufferStatus::Completed {
        let message = cb
            .error()
            .map(|e| conv::string(&e.localizedDescription()))
            .unwrap_or_else(|| format!("status {:?}", cb.status()));
        return Err(MetalError::Creation {
            what: format!("the acceleration structure (its build failed: {message})"),
        });
    }
    drop(keep);
    drop(builds);
    Ok(AccelerationStructure {
        instance,
        primitives,
        scene: scene.clone(),
    })
}
