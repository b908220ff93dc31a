//! [`AccelerationStructure`]: a top-level acceleration structure and the
//! bottom-level ones its instances place, built on the device from a
//! [`TopLevel`] scene (`VK_KHR_acceleration_structure`), for kernels that
//! trace rays through it with `VK_KHR_ray_query`.
//!
//! The scene is `runtime_loader::scene`'s, the one description the CPU
//! and Metal backends build from too. It is built as AmberScript's
//! `ACCELERATION_STRUCTURE` blocks are (amber's `vulkan/blas.cc`,
//! `tlas.cc`): one geometry per scene geometry, triangles as
//! `VK_FORMAT_R32G32B32_SFLOAT` vertices three per triangle without an
//! index buffer, boxes as `VkAabbPositionsKHR`, the geometry flags
//! (`OPAQUE`, `NO_DUPLICATE_ANY_HIT_INVOCATION`), and one
//! `VkAccelerationStructureInstanceKHR` per instance (its row-major 3 × 4
//! transform, 24-bit custom index, 8-bit mask, 24-bit shader binding table
//! offset, instance flags). Every input and structure lives in a buffer
//! with a device address; the builds run on the device's compute queue,
//! bottom levels first, in one submission.

use std::sync::Arc;

use ash::vk;
use runtime_loader::scene::{Primitives, TopLevel};

use crate::buffer::{Buffer, DEVICE_ADDRESS_FEATURE};
use crate::error::{Error, Result};
use crate::image::submit_once;
use crate::reference::{Inner, Reference};

/// The feature that acceleration structures need, as
/// [`ReferenceOptions`](crate::ReferenceOptions) names it.
pub const ACCELERATION_STRUCTURE_FEATURE: &str =
    "AccelerationStructureFeaturesKHR.accelerationStructure";

/// The feature that `OpCapability RayQueryKHR` needs.
pub const RAY_QUERY_FEATURE: &str = "RayQueryFeaturesKHR.rayQuery";

/// A built top-level acceleration structure, bound to a
/// [`BindingKind::AccelerationStructure`](crate::BindingKind::AccelerationStructure)
/// binding with [`Resource::AccelerationStructure`](crate::Resource::AccelerationStructure).
/// It owns its bottom-level structures and every buffer behind them.
///
/// `Send`, not `Sync`, like [`Reference`].
pub struct AccelerationStructure {
    pub(crate) inner: Arc<Inner>,
    loader: ash::khr::acceleration_structure::Device,
    /// The top-level structure.
    pub(crate) top: vk::AccelerationStructureKHR,
    /// The bottom-level structures, in scene order.
    bottom: Vec<vk::AccelerationStructureKHR>,
    /// Storage, inputs and scratch: alive as long as the structures (the
    /// storage must; the rest is kept for simplicity).
    _buffers: Vec<Buffer>,
    instances: usize,
}

impl std::fmt::Debug for AccelerationStructure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccelerationStructure")
            .field("bottom_levels", &self.bottom.len())
            .field("instances", &self.instances)
            .finish()
    }
}

impl Drop for AccelerationStructure {
    fn drop(&mut self) {
        if !self.inner.may_destroy() {
            // A timed-out dispatch may still trace through it: leak it.
            return;
        }
        // SAFETY: the structures were created by this loader's device, no
        // pending work uses them (checked above), each is destroyed once
        // (null handles of a failed build are ignored), before the buffers
        // holding them (fields drop after this body).
        unsafe {
            self.loader.destroy_acceleration_structure(self.top, None);
            for b in &self.bottom {
                self.loader.destroy_acceleration_structure(*b, None);
            }
        }
    }
}

/// What one build needs until it is recorded: its geometries, ranges and
/// the structure and scratch it builds into.
struct Build {
    ty: vk::AccelerationStructureTypeKHR,
    geometries: Vec<vk::AccelerationStructureGeometryKHR<'static>>,
    ranges: Vec<vk::AccelerationStructureBuildRangeInfoKHR>,
    structure: vk::AccelerationStructureKHR,
    scratch: u64,
}

impl Reference {
    /// Builds `scene`: one bottom-level structure per
    /// [`BottomLevel`](runtime_loader::scene::BottomLevel) and the
    /// top-level one placing them (see the module docs).
    ///
    /// Needs `AccelerationStructureFeaturesKHR.accelerationStructure` and
    /// `BufferDeviceAddressFeatures.bufferDeviceAddress` enabled (a ray
    /// query module's [`required_by_module`](crate::required_by_module)
    /// lists them): on a device that lacks them this is
    /// [`Error::UnsupportedFeatures`] naming them, and one that has them
    /// but was created without them is [`Error::AccelerationStructure`]
    /// saying what to enable. A scene that
    /// [`TopLevel::check`](runtime_loader::scene::TopLevel::check) refuses
    /// is [`Error::AccelerationStructure`] naming the part.
    pub fn acceleration_structure(&self, scene: &TopLevel) -> Result<AccelerationStructure> {
        let inner = &self.inner;
        {
            let mut state = inner.state();
            inner.settle(&mut state)?;
        }
        let missing: Vec<&str> = [ACCELERATION_STRUCTURE_FEATURE, DEVICE_ADDRESS_FEATURE]
            .into_iter()
            .filter(|f| !inner.enabled.contains(*f))
            .collect();
        if !missing.is_empty() {
            let unsupported: Vec<String> = missing
                .iter()
                .filter(|f| !inner.support.features.contains(**f))
                .map(|f| f.to_string())
                .collect();
            if !unsupported.is_empty() {
                return Err(Error::UnsupportedFeatures {
                    device: self.device_name().to_string(),
                    names: unsupported,
                });
            }
            return Err(Error::AccelerationStructure(format!(
                "the device supports {} but this Reference was created without it",
                missing.join(" and ")
            )));
        }
        scene
            .check()
            .map_err(|e| Error::AccelerationStructure(e.to_string()))?;

        let loader = ash::khr::acceleration_structure::Device::new(&inner.instance, &inner.device);
        let mut out = AccelerationStructure {
            inner: inner.clone(),
            loader,
            top: vk::AccelerationStructureKHR::null(),
            bottom: Vec::new(),
            _buffers: Vec::new(),
            instances: scene.instances.len(),
        };
        let input = vk::BufferUsageFlags::ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_KHR;

        // Bottom levels.
        let mut builds = Vec::new();
        for (b, bottom) in scene.bottom.iter().enumerate() {
            let mut geometries = Vec::new();
            let mut ranges = Vec::new();
            for (g, geometry) in bottom.geometries.iter().enumerate() {
                let mut flags = vk::GeometryFlagsKHR::empty();
                if geometry.opaque {
                    flags |= vk::GeometryFlagsKHR::OPAQUE;
                }
                if geometry.no_duplicate_any_hit {
                    flags |= vk::GeometryFlagsKHR::NO_DUPLICATE_ANY_HIT_INVOCATION;
                }
                let place = format!("bottom-level structure {b} geometry {g}");
                let (ty, data, count) = match &geometry.primitives {
                    Primitives::Triangles(tris) => {
                        let bytes: Vec<u8> = tris
                            .iter()
                            .flatten()
                            .flatten()
                            .flat_map(|c| c.to_le_bytes())
                            .collect();
                        let buffer = self.buffer_for(&bytes, input)?;
                        let address = aligned(&buffer, 4, &place)?;
                        out._buffers.push(buffer);
                        let triangles =
                            vk::AccelerationStructureGeometryTrianglesDataKHR::default()
                                .vertex_format(vk::Format::R32G32B32_SFLOAT)
                                .vertex_data(vk::DeviceOrHostAddressConstKHR {
                                    device_address: address,
                                })
                                .vertex_stride(12)
                                .max_vertex((tris.len() * 3).saturating_sub(1) as u32)
                                .index_type(vk::IndexType::NONE_KHR);
                        (
                            vk::GeometryTypeKHR::TRIANGLES,
                            vk::AccelerationStructureGeometryDataKHR { triangles },
                            tris.len(),
                        )
                    }
                    Primitives::Boxes(boxes) => {
                        let bytes: Vec<u8> = boxes
                            .iter()
                            .flat_map(|a| a.min.iter().chain(&a.max))
                            .flat_map(|c| c.to_le_bytes())
                            .collect();
                        let buffer = self.buffer_for(&bytes, input)?;
                        let address = aligned(&buffer, 8, &place)?;
                        out._buffers.push(buffer);
                        let aabbs = vk::AccelerationStructureGeometryAabbsDataKHR::default()
                            .data(vk::DeviceOrHostAddressConstKHR {
                                device_address: address,
                            })
                            .stride(24);
                        (
                            vk::GeometryTypeKHR::AABBS,
                            vk::AccelerationStructureGeometryDataKHR { aabbs },
                            boxes.len(),
                        )
                    }
                };
                geometries.push(
                    vk::AccelerationStructureGeometryKHR::default()
                        .geometry_type(ty)
                        .geometry(data)
                        .flags(flags),
                );
                ranges.push(
                    vk::AccelerationStructureBuildRangeInfoKHR::default()
                        .primitive_count(count as u32),
                );
            }
            let (structure, scratch) = self.make(
                &mut out,
                vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
                &geometries,
                &ranges,
                &format!("bottom-level structure {b}"),
            )?;
            out.bottom.push(structure);
            builds.push(Build {
                ty: vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
                geometries,
                ranges,
                structure,
                scratch,
            });
        }

        // The instances, which name the bottom levels by device address.
        let mut instances = Vec::with_capacity(scene.instances.len() * 64);
        for inst in &scene.instances {
            let info = vk::AccelerationStructureDeviceAddressInfoKHR::default()
                .acceleration_structure(out.bottom[inst.bottom]);
            // SAFETY: a structure created above on this device (the scene
            // check guarantees the index).
            let address = unsafe { out.loader.get_acceleration_structure_device_address(&info) };
            let mut flags = vk::GeometryInstanceFlagsKHR::empty();
            let f = inst.flags;
            for (on, flag) in [
                (
                    f.triangle_facing_cull_disable,
                    vk::GeometryInstanceFlagsKHR::TRIANGLE_FACING_CULL_DISABLE,
                ),
                (
                    f.triangle_flip_facing,
                    vk::GeometryInstanceFlagsKHR::TRIANGLE_FLIP_FACING,
                ),
                (f.force_opaque, vk::GeometryInstanceFlagsKHR::FORCE_OPAQUE),
                (
                    f.force_no_opaque,
                    vk::GeometryInstanceFlagsKHR::FORCE_NO_OPAQUE,
                ),
            ] {
                if on {
                    flags |= flag;
                }
            }
            instances.extend(instance_bytes(
                &inst.transform,
                inst.custom_index,
                inst.mask,
                inst.sbt_offset,
                flags.as_raw() as u8,
                address,
            ));
        }
        let buffer = self.buffer_for(&instances, input)?;
        let address = aligned(&buffer, 16, "the instances")?;
        out._buffers.push(buffer);
        let geometries = vec![vk::AccelerationStructureGeometryKHR::default()
            .geometry_type(vk::GeometryTypeKHR::INSTANCES)
            .geometry(vk::AccelerationStructureGeometryDataKHR {
                instances: vk::AccelerationStructureGeometryInstancesDataKHR::default()
                    .array_of_pointers(false)
                    .data(vk::DeviceOrHostAddressConstKHR {
                        device_address: address,
                    }),
            })];
        let ranges = vec![vk::AccelerationStructureBuildRangeInfoKHR::default()
            .primitive_count(scene.instances.len() as u32)];
        let (structure, scratch) = self.make(
            &mut out,
            vk::AccelerationStructureTypeKHR::TOP_LEVEL,
            &geometries,
            &ranges,
            "the top-level structure",
        )?;
        out.top = structure;
        builds.push(Build {
            ty: vk::AccelerationStructureTypeKHR::TOP_LEVEL,
            geometries,
            ranges,
            structure,
            scratch,
        });

        let loader = out.loader.clone();
        submit_once(self, "building an acceleration structure", |device, cmd| {
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::ACCELERATION_STRUCTURE_WRITE_KHR)
                .dst_access_mask(
                    vk::AccessFlags::ACCELERATION_STRUCTURE_READ_KHR | vk::AccessFlags::SHADER_READ,
                );
            for build in &builds {
                let info = vk::AccelerationStructureBuildGeometryInfoKHR::default()
                    .ty(build.ty)
                    .flags(vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE)
                    .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
                    .dst_acceleration_structure(build.structure)
                    .geometries(&build.geometries)
                    .scratch_data(vk::DeviceOrHostAddressKHR {
                        device_address: build.scratch,
                    });
                // SAFETY: every address is of a live buffer of this device
                // made with the usage the build needs, sized by
                // vkGetAccelerationStructureBuildSizesKHR for these very
                // geometries and counts; each build has its own scratch.
                // The barrier after each orders a bottom level's build
                // before the top level's, which reads it, and the top
                // level's before the kernels that trace it.
                unsafe {
                    loader.cmd_build_acceleration_structures(
                        cmd,
                        std::slice::from_ref(&info),
                        &[&build.ranges],
                    );
                    device.cmd_pipeline_barrier(
                        cmd,
                        vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR,
                        vk::PipelineStageFlags::ACCELERATION_STRUCTURE_BUILD_KHR
                            | vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::DependencyFlags::empty(),
                        std::slice::from_ref(&barrier),
                        &[],
                        &[],
                    );
                }
            }
        })?;
        Ok(out)
    }

    /// Sizes a build of `geometries`, makes its storage buffer, structure
    /// and scratch buffer (kept in `out`), and gives the structure and the
    /// scratch's address.
    fn make(
        &self,
        out: &mut AccelerationStructure,
        ty: vk::AccelerationStructureTypeKHR,
        geometries: &[vk::AccelerationStructureGeometryKHR<'_>],
        ranges: &[vk::AccelerationStructureBuildRangeInfoKHR],
        what: &str,
    ) -> Result<(vk::AccelerationStructureKHR, u64)> {
        let info = vk::AccelerationStructureBuildGeometryInfoKHR::default()
            .ty(ty)
            .flags(vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE)
            .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
            .geometries(geometries);
        let counts: Vec<u32> = ranges.iter().map(|r| r.primitive_count).collect();
        let mut sizes = vk::AccelerationStructureBuildSizesInfoKHR::default();
        // SAFETY: `info` describes valid geometries (their addresses are
        // not read for a size query); one count per geometry.
        unsafe {
            out.loader.get_acceleration_structure_build_sizes(
                vk::AccelerationStructureBuildTypeKHR::DEVICE,
                &info,
                &counts,
                &mut sizes,
            )
        };
        let storage = self.buffer_for(
            &vec![0u8; sizes.acceleration_structure_size as usize],
            vk::BufferUsageFlags::ACCELERATION_STRUCTURE_STORAGE_KHR,
        )?;
        let create = vk::AccelerationStructureCreateInfoKHR::default()
            .buffer(storage.buffer)
            .offset(0)
            .size(sizes.acceleration_structure_size)
            .ty(ty);
        // SAFETY: a buffer of this device with the storage usage, at least
        // the size the query gave; destroyed in `out`'s Drop before it.
        let structure = unsafe { out.loader.create_acceleration_structure(&create, None) }
            .map_err(|e| {
                Error::AccelerationStructure(format!(
                    "{what}: vkCreateAccelerationStructureKHR failed: {e}"
                ))
            })?;
        out._buffers.push(storage);
        let scratch = self.buffer_for(
            &vec![0u8; sizes.build_scratch_size as usize],
            vk::BufferUsageFlags::STORAGE_BUFFER,
        )?;
        let align = self.scratch_alignment();
        let address = aligned(&scratch, align, what)?;
        out._buffers.push(scratch);
        Ok((structure, address))
    }

    /// `minAccelerationStructureScratchOffsetAlignment`.
    fn scratch_alignment(&self) -> u64 {
        let inner = &self.inner;
        let mut props = vk::PhysicalDeviceAccelerationStructurePropertiesKHR::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut props);
        // SAFETY: a plain query with a chain of one live local; the
        // extension is enabled (checked by the caller).
        unsafe {
            inner
                .instance
                .get_physical_device_properties2(inner.physical, &mut p2)
        };
        u64::from(
            props
                .min_acceleration_structure_scratch_offset_alignment
                .max(1),
        )
    }
}

/// A buffer's device address, checked to be a multiple of `align` (what
/// the build reads there needs it).
fn aligned(buffer: &Buffer, align: u64, what: &str) -> Result<u64> {
    let address = buffer.device_address()?;
    if address % align != 0 {
        return Err(Error::AccelerationStructure(format!(
            "{what}: buffer device address {address:#x} is not a multiple of {align}"
        )));
    }
    Ok(address)
}

/// One `VkAccelerationStructureInstanceKHR` (64 bytes): the 3 × 4
/// row-major transform, the custom index in the low 24 bits and the mask
/// in the high 8 of one word, the SBT offset and the flags likewise, the
/// bottom level's device address.
fn instance_bytes(
    transform: &[[f32; 4]; 3],
    custom_index: u32,
    mask: u8,
    sbt_offset: u32,
    flags: u8,
    address: u64,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    for c in transform.iter().flatten() {
        out.extend(c.to_le_bytes());
    }
    out.extend(((custom_index & 0x00ff_ffff) | (u32::from(mask) << 24)).to_le_bytes());
    out.extend(((sbt_offset & 0x00ff_ffff) | (u32::from(flags) << 24)).to_le_bytes());
    out.extend(address.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes are `VkAccelerationStructureInstanceKHR` as ash lays it
    /// out.
    #[test]
    fn instance_bytes_match_the_vulkan_struct() {
        let mut t = runtime_loader::scene::IDENTITY;
        t[0][3] = 5.0;
        t[2][1] = -2.0;
        let bytes = instance_bytes(&t, 0x12_3456, 0xA5, 0xFF_FFFF, 0x0B, 0x1122_3344_5566_7788);
        let vk_instance = vk::AccelerationStructureInstanceKHR {
            transform: vk::TransformMatrixKHR {
                matrix: [1.0, 0.0, 0.0, 5.0, 0.0, 1.0, 0.0, 0.0, 0.0, -2.0, 1.0, 0.0],
            },
            instance_custom_index_and_mask: vk::Packed24_8::new(0x12_3456, 0xA5),
            instance_shader_binding_table_record_offset_and_flags: vk::Packed24_8::new(
                0xFF_FFFF, 0x0B,
            ),
            acceleration_structure_reference: vk::AccelerationStructureReferenceKHR {
                device_handle: 0x1122_3344_5566_7788,
            },
        };
        assert_eq!(std::mem::size_of_val(&vk_instance), 64);
        // SAFETY: a #[repr(C)] plain-data struct of 64 bytes without
        // padding, read as bytes.
        let want: [u8; 64] = unsafe { std::mem::transmute(vk_instance) };
        assert_eq!(bytes, want);
    }
}
