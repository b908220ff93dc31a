//! Acceleration structures on the CPU: a [`TopLevel`] scene flattened into
//! one immutable, guarded block of memory that the shim's
//! `raytracing::acceleration_structure` reads, found by its resource id
//! (the block's address).
//!
//! # Layout
//!
//! The block is what `src/cpu/shim/metal_raytracing` reads; the structs
//! below are `#[repr(C)]` mirrors of its `halc_accel_*` structs, and both
//! sides assert the same sizes and field offsets (`static_assert` there,
//! `const` assertions here), so a change on one side that the other does
//! not follow fails to build. All offsets are bytes from the start of the
//! block; every section starts on a 16-byte boundary.
//!
//! | section | what |
//! |---|---|
//! | [`Header`] (64 bytes) | magic `"HRTA"`, [`LAYOUT_VERSION`], counts, section offsets |
//! | [`InstanceRecord`] × instances (128 bytes each) | object→world and world→object transforms (row-major 3 × 4), bottom-level index, user id, mask, flags |
//! | [`BottomRecord`] × bottom levels (8 bytes each) | first geometry, geometry count |
//! | [`GeometryRecord`] × geometries (32 bytes each) | kind, flags, primitive count, offset of its primitives |
//! | primitives | per geometry: triangles as 9 `f32` (v0, v1, v2), boxes as 6 `f32` (min, max) |
//!
//! The world→object transform is the inverse of the instance's transform,
//! computed here in `f64` and rounded to `f32` once. An instance whose
//! transform is singular (or whose inverse is not finite) gets
//! [`INSTANCE_SINGULAR`]: no ray hits it (Metal and Vulkan leave such an
//! instance's hits undefined).

use std::sync::Arc;

use super::buffer::Mapping;
use super::CpuError;
use crate::scene::{Primitives, TopLevel, Transform};

/// `"HRTA"` little-endian: the block's first four bytes.
pub(super) const MAGIC: u32 = u32::from_le_bytes(*b"HRTA");
/// The layout's version (`HALC_ACCEL_VERSION` in the shim).
pub(super) const LAYOUT_VERSION: u32 = 1;

/// Instance flag: `triangle_facing_cull_disable`.
pub(super) const INSTANCE_CULL_DISABLE: u32 = 1;
/// Instance flag: `triangle_flip_facing`.
pub(super) const INSTANCE_FLIP_FACING: u32 = 2;
/// Instance flag: `force_opaque`.
pub(super) const INSTANCE_FORCE_OPAQUE: u32 = 4;
/// Instance flag: `force_no_opaque`.
pub(super) const INSTANCE_FORCE_NON_OPAQUE: u32 = 8;
/// Instance flag: the transform is singular; no ray hits the instance.
pub(super) const INSTANCE_SINGULAR: u32 = 16;

/// Geometry kind: triangles.
pub(super) const GEOMETRY_TRIANGLES: u32 = 0;
/// Geometry kind: axis-aligned boxes.
pub(super) const GEOMETRY_BOXES: u32 = 1;
/// Geometry flag: opaque.
pub(super) const GEOMETRY_OPAQUE: u32 = 1;
/// Geometry flag: no duplicate any-hit (recorded; a brute-force traversal
/// never visits a primitive twice).
pub(super) const GEOMETRY_NO_DUPLICATE_ANY_HIT: u32 = 2;

/// The block's header (`halc_accel_header`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(super) struct Header {
    pub(super) magic: u32,
    pub(super) version: u32,
    pub(super) instance_count: u32,
    pub(super) bottom_count: u32,
    pub(super) geometry_count: u32,
    pub(super) reserved0: u32,
    pub(super) instances: u64,
    pub(super) bottoms: u64,
    pub(super) geometries: u64,
    pub(super) total_bytes: u64,
    pub(super) reserved1: u64,
}

/// One instance (`halc_accel_instance`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(super) struct InstanceRecord {
    /// Row-major 3 × 4, object → world.
    pub(super) object_to_world: [f32; 12],
    /// Row-major 3 × 4, world → object.
    pub(super) world_to_object: [f32; 12],
    pub(super) bottom: u32,
    pub(super) user_id: u32,
    pub(super) mask: u32,
    pub(super) sbt_offset: u32,
    pub(super) flags: u32,
    pub(super) reserved: [u32; 3],
}

/// One bottom-level structure (`halc_accel_bottom`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(super) struct BottomRecord {
    pub(super) first_geometry: u32,
    pub(super) geometry_count: u32,
}

/// One geometry (`halc_accel_geometry`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(super) struct GeometryRecord {
    pub(super) kind: u32,
    pub(super) flags: u32,
    pub(super) primitive_count: u32,
    pub(super) reserved0: u32,
    /// Offset of its first primitive.
    pub(super) primitives: u64,
    pub(super) reserved1: u64,
}

// The shim's `static_assert`s hold the same numbers.
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<Header>() == 64);
    assert!(offset_of!(Header, geometry_count) == 16);
    assert!(offset_of!(Header, instances) == 24);
    assert!(offset_of!(Header, bottoms) == 32);
    assert!(offset_of!(Header, geometries) == 40);
    assert!(offset_of!(Header, total_bytes) == 48);
    assert!(size_of::<InstanceRecord>() == 128);
    assert!(offset_of!(InstanceRecord, world_to_object) == 48);
    assert!(offset_of!(InstanceRecord, bottom) == 96);
    assert!(offset_of!(InstanceRecord, user_id) == 100);
    assert!(offset_of!(InstanceRecord, mask) == 104);
    assert!(offset_of!(InstanceRecord, sbt_offset) == 108);
    assert!(offset_of!(InstanceRecord, flags) == 112);
    assert!(size_of::<BottomRecord>() == 8);
    assert!(size_of::<GeometryRecord>() == 32);
    assert!(offset_of!(GeometryRecord, primitive_count) == 8);
    assert!(offset_of!(GeometryRecord, primitives) == 16);
};

/// Bytes of one triangle: three vertices of three `f32`.
const TRIANGLE_BYTES: usize = 36;
/// Bytes of one box: min and max, three `f32` each.
const BOX_BYTES: usize = 24;

/// An instance acceleration structure over its primitive ones
/// (`MTLAccelerationStructure`): what a kernel's
/// `raytracing::acceleration_structure<raytracing::instancing>` traces rays
/// through. Cheap to clone (shared); immutable once built.
#[derive(Debug, Clone)]
pub struct AccelerationStructure {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    scene: TopLevel,
    /// The flattened block (see the module docs).
    block: Mapping,
}

impl AccelerationStructure {
    /// Builds `scene`, after [`TopLevel::check`].
    pub(super) fn build(scene: &TopLevel) -> Result<Self, CpuError> {
        scene.check()?;
        let bytes = flatten(scene);
        // One guard page each side: the shim reads only at offsets this
        // file wrote, so the wide guard zones buffers get (against a
        // kernel's indices) would only spend address space.
        let block = Mapping::guarded(bytes.len(), 0)?;
        // SAFETY: `block` is a fresh mapping of `bytes.len()` writable
        // bytes, which cannot overlap `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), block.ptr(), bytes.len()) };
        Ok(AccelerationStructure {
            inner: Arc::new(Inner {
                scene: scene.clone(),
                block,
            }),
        })
    }

    /// The scene it holds.
    pub fn scene(&self) -> &TopLevel {
        &self.inner.scene
    }

    /// Its resource id (`gpuResourceID`): the 8 bytes an argument buffer
    /// or a kernel parameter holds, which the kernel finds it by (the
    /// address of its block).
    pub fn gpu_resource_id(&self) -> u64 {
        self.inner.block.ptr() as u64
    }

    /// Whether `self` and `other` are the same structure.
    pub fn same(&self, other: &AccelerationStructure) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The size of its block in bytes (what `gpu_resource_id` points to).
    pub fn size(&self) -> u64 {
        self.inner.block.len() as u64
    }

    /// Its block, which a dispatch that binds the structure lists among
    /// its regions (`encode.rs`) to name what a faulting address hit. The
    /// shim reads only inside the block (its offsets are this file's), so a
    /// fault there means the block went away during the dispatch.
    pub(super) fn block(&self) -> &Mapping {
        &self.inner.block
    }
}

/// Appends the bytes of a `#[repr(C)]` record.
fn push_record<T: Copy>(out: &mut Vec<u8>, record: &T) {
    // SAFETY: `T` is one of this file's `#[repr(C)]` records: plain `u32`,
    // `u64` and `f32` fields laid out without padding (the sizes asserted
    // above are the sums of the fields), so all `size_of::<T>()` bytes are
    // initialised, and `record` is valid for reading them.
    let bytes = unsafe {
        std::slice::from_raw_parts((record as *const T).cast::<u8>(), std::mem::size_of::<T>())
    };
    out.extend_from_slice(bytes);
}

fn align16(out: &mut Vec<u8>) {
    out.resize(out.len().next_multiple_of(16), 0);
}

/// The row-major 3 × 4 entries of `m`.
fn flat(m: &Transform) -> [f32; 12] {
    let mut r = [0.0; 12];
    for (i, row) in m.iter().enumerate() {
        r[i * 4..i * 4 + 4].copy_from_slice(row);
    }
    r
}

/// The inverse of the affine transform `m`, computed in `f64`; `None` if
/// it is singular or its inverse is not finite in `f32`.
fn inverse(m: &Transform) -> Option<Transform> {
    let a = |r: usize, c: usize| f64::from(m[r][c]);
    let cof =
        |r0: usize, r1: usize, c0: usize, c1: usize| a(r0, c0) * a(r1, c1) - a(r0, c1) * a(r1, c0);
    // Inverse of the 3 × 3 part by the adjugate.
    let det = a(0, 0) * cof(1, 2, 1, 2) - a(0, 1) * cof(1, 2, 0, 2) + a(0, 2) * cof(1, 2, 0, 1);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let adj = [
        [cof(1, 2, 1, 2), -cof(0, 2, 1, 2), cof(0, 1, 1, 2)],
        [-cof(1, 2, 0, 2), cof(0, 2, 0, 2), -cof(0, 1, 0, 2)],
        [cof(1, 2, 0, 1), -cof(0, 2, 0, 1), cof(0, 1, 0, 1)],
    ];
    let mut inv = [[0.0f32; 4]; 3];
    for r in 0..3 {
        let row: [f64; 3] = std::array::from_fn(|c| adj[r][c] / det);
        let t = -(row[0] * a(0, 3) + row[1] * a(1, 3) + row[2] * a(2, 3));
        for (c, v) in row.iter().chain([&t]).enumerate() {
            let v = *v as f32;
            if !v.is_finite() {
                return None;
            }
            inv[r][c] = v;
        }
    }
    Some(inv)
}

/// The block for `scene` (already checked).
fn flatten(scene: &TopLevel) -> Vec<u8> {
    let geometry_count: usize = scene.bottom.iter().map(|b| b.geometries.len()).sum();
    let header_bytes = std::mem::size_of::<Header>();
    let instances = header_bytes;
    let bottoms = instances + scene.instances.len() * std::mem::size_of::<InstanceRecord>();
    let geometries =
        (bottoms + scene.bottom.len() * std::mem::size_of::<BottomRecord>()).next_multiple_of(16);
    let primitives_base =
        (geometries + geometry_count * std::mem::size_of::<GeometryRecord>()).next_multiple_of(16);

    let mut out = Vec::new();
    let mut geometry_records = Vec::with_capacity(geometry_count);
    let mut bottom_records = Vec::with_capacity(scene.bottom.len());
    let mut primitive_bytes = Vec::new();
    for bottom in &scene.bottom {
        bottom_records.push(BottomRecord {
            first_geometry: geometry_records.len() as u32,
            geometry_count: bottom.geometries.len() as u32,
        });
        for g in &bottom.geometries {
            let (kind, len) = match &g.primitives {
                Primitives::Triangles(t) => (GEOMETRY_TRIANGLES, t.len() * TRIANGLE_BYTES),
                Primitives::Boxes(b) => (GEOMETRY_BOXES, b.len() * BOX_BYTES),
            };
            geometry_records.push(GeometryRecord {
                kind,
                flags: if g.opaque { GEOMETRY_OPAQUE } else { 0 }
                    | if g.no_duplicate_any_hit {
                        GEOMETRY_NO_DUPLICATE_ANY_HIT
                    } else {
                        0
                    },
                primitive_count: g.primitives.len() as u32,
                reserved0: 0,
                primitives: (primitives_base + primitive_bytes.len()) as u64,
                reserved1: 0,
            });
            let floats: Vec<f32> = match &g.primitives {
                Primitives::Triangles(t) => t.iter().flatten().flatten().copied().collect(),
                Primitives::Boxes(b) => b
                    .iter()
                    .flat_map(|a| a.min.into_iter().chain(a.max))
                    .collect(),
            };
            primitive_bytes.extend(floats.iter().flat_map(|f| f.to_le_bytes()));
            debug_assert_eq!(floats.len() * 4, len);
            let padded = primitive_bytes.len().next_multiple_of(16);
            primitive_bytes.resize(padded, 0);
        }
    }
    let total = primitives_base + primitive_bytes.len();

    push_record(
        &mut out,
        &Header {
            magic: MAGIC,
            version: LAYOUT_VERSION,
            instance_count: scene.instances.len() as u32,
            bottom_count: scene.bottom.len() as u32,
            geometry_count: geometry_count as u32,
            reserved0: 0,
            instances: instances as u64,
            bottoms: bottoms as u64,
            geometries: geometries as u64,
            total_bytes: total as u64,
            reserved1: 0,
        },
    );
    for inst in &scene.instances {
        let inv = inverse(&inst.transform);
        let f = &inst.flags;
        let flags = [
            (f.triangle_facing_cull_disable, INSTANCE_CULL_DISABLE),
            (f.triangle_flip_facing, INSTANCE_FLIP_FACING),
            (f.force_opaque, INSTANCE_FORCE_OPAQUE),
            (f.force_no_opaque, INSTANCE_FORCE_NON_OPAQUE),
            (inv.is_none(), INSTANCE_SINGULAR),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .fold(0, |acc, (_, bit)| acc | bit);
        push_record(
            &mut out,
            &InstanceRecord {
                object_to_world: flat(&inst.transform),
                world_to_object: flat(&inv.unwrap_or([[0.0; 4]; 3])),
                bottom: inst.bottom as u32,
                user_id: inst.custom_index,
                mask: u32::from(inst.mask),
                sbt_offset: inst.sbt_offset,
                flags,
                reserved: [0; 3],
            },
        );
    }
    debug_assert_eq!(out.len(), bottoms);
    for b in &bottom_records {
        push_record(&mut out, b);
    }
    align16(&mut out);
    debug_assert_eq!(out.len(), geometries);
    for g in &geometry_records {
        push_record(&mut out, g);
    }
    align16(&mut out);
    out.extend_from_slice(&primitive_bytes);
    debug_assert_eq!(out.len(), total);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_undoes_the_transform_and_singular_ones_are_marked() {
        let m: Transform = [
            [0.0, -2.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 2.0],
            [0.0, 0.0, 4.0, 3.0],
        ];
        let inv = inverse(&m).unwrap();
        // m maps (x, y, z) to (1 - 2y, 2 + x, 3 + 4z); the inverse maps
        // (1, 2, 3) back to the origin and (1, 3, 3) to (1, 0, 0).
        let apply = |t: &Transform, p: [f32; 3]| -> [f32; 3] {
            std::array::from_fn(|r| t[r][0] * p[0] + t[r][1] * p[1] + t[r][2] * p[2] + t[r][3])
        };
        assert_eq!(apply(&inv, [1.0, 2.0, 3.0]), [0.0, 0.0, 0.0]);
        assert_eq!(apply(&inv, [1.0, 3.0, 3.0]), [1.0, 0.0, 0.0]);
        assert_eq!(
            inverse(&[
                [1.0, 0.0, 0.0, 0.0],
                [2.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0]
            ]),
            None
        );
    }
}
