//! Unit tests of ray queries on the CPU: acceleration structures built by
//! [`Device::acceleration_structure`] and the shim's `metal_raytracing`, run
//! from hand-written MSL in SPIRV-Cross's output shape (its
//! `spvMakeIntersectionParams`, `ray(…)`, `reset`, `next`, the candidate
//! and committed getters). Expected values are computed here by hand from
//! the scenes' coordinates.
//!
//! They need clang++ ≥ 15 (see `tests.rs`).

use std::ffi::c_void;
use std::time::Duration;

use super::accel::AccelerationStructure;
use super::buffer::{Buffer, Mapping};
use super::encode::{Encoded, Region};
use super::exec::ThreadgroupFill;
use super::handle::Device;
use super::source::SLOT_COUNT;
use super::tests::device;
use super::CpuError;
use crate::memory::MemoryType;
use crate::scene::{
    Aabb, BottomLevel, Geometry, Instance, InstanceFlags, Primitives, TopLevel, Transform, IDENTITY,
};

/// One kernel for every ray: the query's flags, mask and what it does with
/// each candidate come from `Ray`; it writes the committed intersection,
/// the transforms and up to four candidates (`OUT_FLOATS` floats a ray).
/// `spvMakeIntersectionParams` is SPIRV-Cross's, plus bit 1024 for the
/// front-facing winding (which SPIRV-Cross does not set).
const QUERY_MSL: &str = r#"#pragma clang diagnostic ignored "-Wmissing-prototypes"

#include <metal_stdlib>
#include <simd/simd.h>
#if __METAL_VERSION__ >= 230
#include <metal_raytracing>
using namespace metal::raytracing;
#endif

using namespace metal;

intersection_params spvMakeIntersectionParams(uint flags)
{
    intersection_params ip;
    if ((flags & 1) != 0)
        ip.force_opacity(forced_opacity::opaque);
    if ((flags & 2) != 0)
        ip.force_opacity(forced_opacity::non_opaque);
    if ((flags & 4) != 0)
        ip.accept_any_intersection(true);
    if ((flags & 16) != 0)
        ip.set_triangle_cull_mode(triangle_cull_mode::back);
    if ((flags & 32) != 0)
        ip.set_triangle_cull_mode(triangle_cull_mode::front);
    if ((flags & 64) != 0)
        ip.set_opacity_cull_mode(opacity_cull_mode::opaque);
    if ((flags & 128) != 0)
        ip.set_opacity_cull_mode(opacity_cull_mode::non_opaque);
    if ((flags & 256) != 0)
        ip.set_geometry_cull_mode(geometry_cull_mode::triangle);
    if ((flags & 512) != 0)
        ip.set_geometry_cull_mode(geometry_cull_mode::bounding_box);
    if ((flags & 1024) != 0)
        ip.set_triangle_front_facing_winding(winding::counterclockwise);
    return ip;
}

struct Ray
{
    packed_float3 origin;
    float tmin;
    packed_float3 dir;
    float tmax;
    uint flags;
    uint cull_mask;
    uint policy;
    float box_t;
};

static inline __attribute__((always_inline))
void put3(device float* o, float3 v)
{
    o[0] = v.x;
    o[1] = v.y;
    o[2] = v.z;
}

static inline __attribute__((always_inline))
void put43(device float* o, float4x3 m)
{
    for (int c = 0; c < 4; c++)
    {
        put3(o + c * 3, m[c]);
    }
}

kernel void main0(device float* out [[buffer(0)]], raytracing::acceleration_structure<raytracing::instancing> topLevelAS [[buffer(1)]], const device Ray* rays [[buffer(2)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]])
{
    uint i = gl_GlobalInvocationID.x;
    device float* o = out + i * 96u;
    Ray r = rays[i];
    raytracing::intersection_query<raytracing::instancing, raytracing::triangle_data> q;
    q.reset(ray(r.origin, r.dir, r.tmin, r.tmax), topLevelAS, r.cull_mask, spvMakeIntersectionParams(r.flags));
    uint n = 0u;
    for (;;)
    {
        bool _36 = q.next();
        if (!_36)
        {
            break;
        }
        uint _40 = uint(q.get_candidate_intersection_type()) - 1;
        if (n < 4u)
        {
            device float* c = o + 40u + n * 12u;
            c[0] = float(_40);
            c[1] = float(q.get_candidate_instance_id());
            c[2] = float(q.get_candidate_geometry_id());
            c[3] = float(q.get_candidate_primitive_id());
            c[4] = q.get_candidate_triangle_distance();
            c[5] = _40 == 0u ? float(q.is_candidate_triangle_front_facing()) : float(q.is_candidate_non_opaque_bounding_box());
            c[6] = float(q.get_candidate_user_instance_id());
            put3(c + 7, q.get_candidate_ray_origin());
            c[10] = q.get_candidate_ray_direction().z;
            c[11] = q.get_candidate_object_to_world_transform()[3].x + q.get_candidate_world_to_object_transform()[0].x;
        }
        n++;
        if ((r.policy & 4u) != 0u)
        {
            q.abort();
            continue;
        }
        if (_40 == 0u && (r.policy & 1u) != 0u)
        {
            q.commit_triangle_intersection();
        }
        if (_40 == 1u && (r.policy & 2u) != 0u)
        {
            q.commit_bounding_box_intersection(r.box_t);
        }
    }
    o[0] = float(uint(q.get_committed_intersection_type()));
    o[1] = q.get_committed_distance();
    o[2] = float(q.get_committed_instance_id());
    o[3] = float(q.get_committed_user_instance_id());
    o[4] = float(q.get_committed_geometry_id());
    o[5] = float(q.get_committed_primitive_id());
    float2 _100 = q.get_committed_triangle_barycentric_coord();
    o[6] = _100.x;
    o[7] = _100.y;
    o[8] = float(q.is_committed_triangle_front_facing());
    put3(o + 9, q.get_committed_ray_origin());
    put3(o + 12, q.get_committed_ray_direction());
    o[15] = float(n);
    put43(o + 16, q.get_committed_object_to_world_transform());
    put43(o + 28, q.get_committed_world_to_object_transform());
    put3(o + 88, q.get_world_space_ray_origin());
    put3(o + 91, q.get_world_space_ray_direction());
    o[94] = q.get_ray_min_distance();
}
"#;

/// Floats the kernel writes per ray.
const OUT_FLOATS: usize = 96;

/// A ray and what the kernel does with it (`struct Ray`, 48 bytes).
#[derive(Debug, Clone, Copy)]
struct Ray {
    origin: [f32; 3],
    tmin: f32,
    dir: [f32; 3],
    tmax: f32,
    /// `spvMakeIntersectionParams`' flags.
    flags: u32,
    cull_mask: u32,
    /// Bit 0: commit every triangle candidate; bit 1: commit every box
    /// candidate at `box_t`; bit 2: abort at the first candidate.
    policy: u32,
    box_t: f32,
}

const COMMIT_TRIANGLES: u32 = 1;
const COMMIT_BOXES: u32 = 2;
const ABORT: u32 = 4;

const FORCE_OPAQUE: u32 = 1;
const FORCE_NON_OPAQUE: u32 = 2;
const ACCEPT_ANY: u32 = 4;
const CULL_BACK: u32 = 16;
const CULL_FRONT: u32 = 32;
const CULL_OPAQUE: u32 = 64;
const CULL_NON_OPAQUE: u32 = 128;
const CULL_TRIANGLES: u32 = 256;
const CULL_BOXES: u32 = 512;
const COUNTERCLOCKWISE: u32 = 1024;

/// A ray from `origin` along `dir` over [0, 100], every instance, no
/// flags, committing nothing.
fn ray(origin: [f32; 3], dir: [f32; 3]) -> Ray {
    Ray {
        origin,
        tmin: 0.0,
        dir,
        tmax: 100.0,
        flags: 0,
        cull_mask: 0xFF,
        policy: 0,
        box_t: 0.0,
    }
}

impl Ray {
    fn bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(48);
        for f in self
            .origin
            .iter()
            .chain([&self.tmin])
            .chain(&self.dir)
            .chain([&self.tmax])
        {
            v.extend(f.to_le_bytes());
        }
        for u in [self.flags, self.cull_mask, self.policy] {
            v.extend(u.to_le_bytes());
        }
        v.extend(self.box_t.to_le_bytes());
        v
    }
}

/// What the kernel wrote for one ray.
#[derive(Debug, Clone, PartialEq)]
struct Hit {
    /// 0 none, 1 triangle, 2 bounding box.
    kind: u32,
    t: f32,
    instance: u32,
    user: u32,
    geometry: u32,
    primitive: u32,
    bary: [f32; 2],
    front: bool,
    object_origin: [f32; 3],
    object_dir: [f32; 3],
    /// Candidates returned by `next()`.
    candidates: u32,
    object_to_world: [f32; 12],
    world_to_object: [f32; 12],
    /// (SPIR-V candidate type: 0 triangle, 1 box; instance; geometry;
    /// primitive; distance; front facing or non-opaque box).
    first_candidates: Vec<(u32, u32, u32, u32, f32, bool)>,
    /// Of the same candidates: (user instance id, object-space origin,
    /// object-space direction's z, object-to-world translation x +
    /// world-to-object entry (0, 0)).
    candidate_spaces: Vec<(u32, [f32; 3], f32, f32)>,
    world_origin: [f32; 3],
    world_dir: [f32; 3],
    tmin: f32,
}

impl Hit {
    fn read(o: &[f32]) -> Hit {
        let u = |i: usize| o[i] as u32;
        let n = u(15);
        Hit {
            kind: u(0),
            t: o[1],
            instance: u(2),
            user: u(3),
            geometry: u(4),
            primitive: u(5),
            bary: [o[6], o[7]],
            front: o[8] != 0.0,
            object_origin: [o[9], o[10], o[11]],
            object_dir: [o[12], o[13], o[14]],
            candidates: n,
            object_to_world: std::array::from_fn(|k| o[16 + k]),
            world_to_object: std::array::from_fn(|k| o[28 + k]),
            first_candidates: (0..n.min(4) as usize)
                .map(|c| {
                    let b = 40 + c * 12;
                    (
                        u(b),
                        u(b + 1),
                        u(b + 2),
                        u(b + 3),
                        o[b + 4],
                        o[b + 5] != 0.0,
                    )
                })
                .collect(),
            candidate_spaces: (0..n.min(4) as usize)
                .map(|c| {
                    let b = 40 + c * 12;
                    (
                        u(b + 6),
                        [o[b + 7], o[b + 8], o[b + 9]],
                        o[b + 10],
                        o[b + 11],
                    )
                })
                .collect(),
            world_origin: [o[88], o[89], o[90]],
            world_dir: [o[91], o[92], o[93]],
            tmin: o[94],
        }
    }
}

fn dev() -> Option<Device> {
    device(ThreadgroupFill::Poison, Duration::from_secs(60))
}

/// Compiles `msl` (kernel `main0`) and runs it with `slots` (buffer slots)
/// on `threads` threads of one group, naming `regions` for faults.
fn launch(
    dev: &Device,
    msl: &str,
    slots: &[(usize, *mut c_void)],
    threads: u32,
    regions: Vec<Region>,
) -> Result<(), CpuError> {
    let mut table = [std::ptr::null_mut::<c_void>(); SLOT_COUNT];
    for &(i, p) in slots {
        table[i] = p;
    }
    let encoded =
        Encoded::for_test_slots(table, [1, 1, 1], [threads, 1, 1], regions, vec![], vec![]);
    super::tests::run_encoded(dev, msl, &encoded, true).map(|_| ())
}

/// Traces `rays` through `scene` with [`QUERY_MSL`].
fn trace(dev: &Device, scene: &TopLevel, rays: &[Ray]) -> Vec<Hit> {
    let accel = dev.acceleration_structure(scene).unwrap();
    trace_in(dev, &accel, rays)
}

fn trace_in(dev: &Device, accel: &AccelerationStructure, rays: &[Ray]) -> Vec<Hit> {
    let out = dev
        .buffer(
            (rays.len() * OUT_FLOATS * 4) as u64,
            MemoryType::HostVisible,
        )
        .unwrap();
    let ray_bytes: Vec<u8> = rays.iter().flat_map(Ray::bytes).collect();
    let rays_buf = dev
        .buffer_with_data(&ray_bytes, MemoryType::HostVisible)
        .unwrap();
    launch(
        dev,
        QUERY_MSL,
        &[
            (0, out.mapping().ptr().cast()),
            (1, accel.gpu_resource_id() as *mut c_void),
            (2, rays_buf.mapping().ptr().cast()),
        ],
        rays.len() as u32,
        vec![
            Region::of("out".into(), out.mapping()),
            Region::of("rays".into(), rays_buf.mapping()),
            Region::of("the acceleration structure".into(), accel.block()),
        ],
    )
    .unwrap();
    floats(&out).chunks(OUT_FLOATS).map(Hit::read).collect()
}

fn floats(b: &Buffer) -> Vec<f32> {
    b.to_vec()
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The triangle (0,0,0), (1,0,0), (0,1,0): clockwise (front-facing) seen
/// from +z, so from a ray going -z.
const TRI: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
/// The same triangle wound the other way: back-facing from +z.
const TRI_SWAPPED: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]];

/// `TRI` moved to height `z`.
fn tri_at(z: f32) -> [[f32; 3]; 3] {
    TRI.map(|[x, y, _]| [x, y, z])
}

fn triangles(tris: Vec<[[f32; 3]; 3]>, opaque: bool) -> Geometry {
    Geometry {
        primitives: Primitives::Triangles(tris),
        opaque,
        no_duplicate_any_hit: false,
    }
}

fn boxes(b: Vec<Aabb>, opaque: bool) -> Geometry {
    Geometry {
        primitives: Primitives::Boxes(b),
        opaque,
        no_duplicate_any_hit: false,
    }
}

/// One instance of one bottom level holding `geometries`.
fn single(geometries: Vec<Geometry>, instance: Instance) -> TopLevel {
    TopLevel {
        bottom: vec![BottomLevel { geometries }],
        instances: vec![instance],
    }
}

fn one_triangle(tri: [[f32; 3]; 3], instance: Instance) -> TopLevel {
    single(vec![triangles(vec![tri], true)], instance)
}

fn with_flags(flags: InstanceFlags) -> Instance {
    Instance {
        flags,
        ..Instance::of(0)
    }
}

fn with_transform(transform: Transform) -> Instance {
    Instance {
        transform,
        ..Instance::of(0)
    }
}

const DOWN: [f32; 3] = [0.0, 0.0, -1.0];
const UP: [f32; 3] = [0.0, 0.0, 1.0];

/// (kind, t, bary, front) of a hit, for compact comparisons.
fn summary(h: &Hit) -> (u32, f32, [f32; 2], bool) {
    (h.kind, h.t, h.bary, h.front)
}

#[test]
fn a_ray_hits_or_misses_a_triangle_with_its_distance_barycentrics_and_facing() {
    let Some(dev) = dev() else { return };
    let scene = one_triangle(TRI, Instance::of(0));
    let r = trace(
        &dev,
        &scene,
        &[
            // Hits (0.25, 0.5, 0) = 0.25·v0 + 0.25·v1 + 0.5·v2 at t = 2.
            ray([0.25, 0.5, 2.0], DOWN),
            // x + y > 1: outside.
            ray([0.75, 0.75, 2.0], DOWN),
            // From below: the back face, at t = 3.
            ray([0.25, 0.5, -3.0], UP),
            // A direction of length 2: t is in its units (1, not 2).
            ray([0.25, 0.5, 2.0], [0.0, 0.0, -2.0]),
            // The hit at 2 is beyond tmax 1.5, then before tmin 2.5.
            Ray {
                tmax: 1.5,
                ..ray([0.25, 0.5, 2.0], DOWN)
            },
            Ray {
                tmin: 2.5,
                ..ray([0.25, 0.5, 2.0], DOWN)
            },
            // Exactly at tmax and at tmin: the interval is closed.
            Ray {
                tmax: 2.0,
                ..ray([0.25, 0.5, 2.0], DOWN)
            },
            Ray {
                tmin: 2.0,
                ..ray([0.25, 0.5, 2.0], DOWN)
            },
        ],
    );
    assert_eq!(summary(&r[0]), (1, 2.0, [0.25, 0.5], true));
    assert_eq!((r[0].instance, r[0].geometry, r[0].primitive), (0, 0, 0));
    // An opaque triangle is committed without being a candidate.
    assert_eq!(r[0].candidates, 0);
    assert_eq!(summary(&r[1]), (0, 100.0, [0.0, 0.0], false));
    assert_eq!(summary(&r[2]), (1, 3.0, [0.25, 0.5], false));
    assert_eq!(summary(&r[3]), (1, 1.0, [0.25, 0.5], true));
    // Nothing committed: the committed distance is the ray's max.
    assert_eq!(summary(&r[4]), (0, 1.5, [0.0, 0.0], false));
    assert_eq!(summary(&r[5]), (0, 100.0, [0.0, 0.0], false));
    assert_eq!(summary(&r[6]), (1, 2.0, [0.25, 0.5], true));
    assert_eq!(summary(&r[7]), (1, 2.0, [0.25, 0.5], true));
    // The ray as given.
    assert_eq!(r[3].world_origin, [0.25, 0.5, 2.0]);
    assert_eq!(r[3].world_dir, [0.0, 0.0, -2.0]);
    assert_eq!(r[7].tmin, 2.0);
}

#[test]
fn front_facing_follows_the_winding_the_flip_flag_and_the_winding_parameter() {
    let Some(dev) = dev() else { return };
    let down = ray([0.25, 0.5, 2.0], DOWN);
    let ccw = Ray {
        flags: COUNTERCLOCKWISE,
        ..down
    };
    let flip = InstanceFlags {
        triangle_flip_facing: true,
        ..Default::default()
    };
    let front = |scene: &TopLevel, r: Ray| {
        let h = &trace(&dev, scene, &[r])[0];
        assert_eq!(h.kind, 1);
        h.front
    };
    assert!(front(&one_triangle(TRI, Instance::of(0)), down));
    // Swapped vertices: (v1, v2) swap, and so do the barycentrics.
    let swapped = trace(&dev, &one_triangle(TRI_SWAPPED, Instance::of(0)), &[down]);
    assert_eq!(summary(&swapped[0]), (1, 2.0, [0.5, 0.25], false));
    assert!(!front(&one_triangle(TRI, with_flags(flip)), down));
    assert!(front(&one_triangle(TRI_SWAPPED, with_flags(flip)), down));
    assert!(!front(&one_triangle(TRI, Instance::of(0)), ccw));
    assert!(front(&one_triangle(TRI_SWAPPED, Instance::of(0)), ccw));
    // Both: flipped twice.
    assert!(front(&one_triangle(TRI, with_flags(flip)), ccw));
    // A mirroring instance transform does not change facing (decided in
    // object space).
    let mirror: Transform = [
        [-1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    assert!(front(
        &one_triangle(TRI, with_transform(mirror)),
        ray([-0.25, 0.5, 2.0], DOWN)
    ));
}

#[test]
fn triangle_culling_drops_front_or_back_faces_unless_the_instance_disables_it() {
    let Some(dev) = dev() else { return };
    let from_above = ray([0.25, 0.5, 2.0], DOWN); // front face
    let from_below = ray([0.25, 0.5, -2.0], UP); // back face
    let with = |r: Ray, flags: u32| Ray { flags, ..r };
    let rays = [
        with(from_above, CULL_BACK),
        with(from_below, CULL_BACK),
        with(from_above, CULL_FRONT),
        with(from_below, CULL_FRONT),
    ];
    let kinds = |scene: &TopLevel| {
        trace(&dev, scene, &rays)
            .iter()
            .map(|h| h.kind)
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(&one_triangle(TRI, Instance::of(0))), [1, 0, 0, 1]);
    // Culling uses the facing after the flip flag.
    let flip = InstanceFlags {
        triangle_flip_facing: true,
        ..Default::default()
    };
    assert_eq!(kinds(&one_triangle(TRI, with_flags(flip))), [0, 1, 1, 0]);
    let no_cull = InstanceFlags {
        triangle_facing_cull_disable: true,
        ..Default::default()
    };
    assert_eq!(kinds(&one_triangle(TRI, with_flags(no_cull))), [1, 1, 1, 1]);
}

#[test]
fn instance_transforms_move_the_ray_into_object_space() {
    let Some(dev) = dev() else { return };
    // Translated by (10, 0, 0).
    let mut t = IDENTITY;
    t[0][3] = 10.0;
    let h = &trace(
        &dev,
        &one_triangle(TRI, with_transform(t)),
        &[ray([10.25, 0.5, 2.0], DOWN)],
    )[0];
    assert_eq!(summary(h), (1, 2.0, [0.25, 0.5], true));
    assert_eq!(h.object_origin, [0.25, 0.5, 2.0]);
    assert_eq!(h.object_dir, DOWN);
    // Column-major float4x3: the translation is the last column.
    assert_eq!(
        h.object_to_world,
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 10.0, 0.0, 0.0]
    );
    assert_eq!(
        h.world_to_object,
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, -10.0, 0.0, 0.0]
    );

    // Scaled by 2: the world triangle is (0,0,0), (2,0,0), (0,2,0); the
    // object-space ray starts at half the world origin with half the
    // direction, and t (in the ray's units) is unchanged.
    let s: Transform = [
        [2.0, 0.0, 0.0, 0.0],
        [0.0, 2.0, 0.0, 0.0],
        [0.0, 0.0, 2.0, 0.0],
    ];
    let h = &trace(
        &dev,
        &one_triangle(TRI, with_transform(s)),
        &[ray([0.5, 1.0, 2.0], DOWN)],
    )[0];
    assert_eq!(summary(h), (1, 2.0, [0.25, 0.5], true));
    assert_eq!(h.object_origin, [0.25, 0.5, 1.0]);
    assert_eq!(h.object_dir, [0.0, 0.0, -0.5]);
    assert_eq!(
        h.world_to_object,
        [0.5, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0]
    );

    // Rotated 90° about z and moved by (5, 0, 0): (x, y, z) → (5 − y, x, z).
    // Its inverse: (x, y, z) → (y, 5 − x, z). The world ray from
    // (4.5, 2.25, 2) along (0, −1, −1) is the object ray from (2.25, 0.5, 2)
    // along (−1, 0, −1), which reaches (0.25, 0.5, 0) at t = 2.
    let rot: Transform = [
        [0.0, -1.0, 0.0, 5.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let h = &trace(
        &dev,
        &one_triangle(TRI, with_transform(rot)),
        &[ray([4.5, 2.25, 2.0], [0.0, -1.0, -1.0])],
    )[0];
    assert_eq!(summary(h), (1, 2.0, [0.25, 0.5], true));
    assert_eq!(h.object_origin, [2.25, 0.5, 2.0]);
    assert_eq!(h.object_dir, [-1.0, 0.0, -1.0]);
    assert_eq!(
        h.object_to_world,
        [0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 5.0, 0.0, 0.0]
    );
    assert_eq!(
        h.world_to_object,
        [0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 5.0, 0.0]
    );
    // A candidate carries its instance's space too: the same triangle,
    // non-opaque, scaled by 2 and moved by (3, 0, 0), custom index 6.
    let st: Transform = [
        [2.0, 0.0, 0.0, 3.0],
        [0.0, 2.0, 0.0, 0.0],
        [0.0, 0.0, 2.0, 0.0],
    ];
    let scene = single(
        vec![triangles(vec![TRI], false)],
        Instance {
            custom_index: 6,
            ..with_transform(st)
        },
    );
    let h = &trace(&dev, &scene, &[ray([3.5, 1.0, 2.0], DOWN)])[0];
    assert_eq!(h.first_candidates, [(0, 0, 0, 0, 2.0, true)]);
    // Object origin ((3.5 − 3) / 2, 1 / 2, 2 / 2); direction z −1 / 2;
    // translation x 3 plus the inverse's scale 0.5.
    assert_eq!(h.candidate_spaces, [(6, [0.25, 0.5, 1.0], -0.5, 3.5)]);
    // The untransformed ray misses it.
    let miss = &trace(
        &dev,
        &one_triangle(TRI, with_transform(rot)),
        &[ray([0.25, 0.5, 2.0], DOWN)],
    )[0];
    assert_eq!(miss.kind, 0);
}

#[test]
fn the_instance_mask_is_anded_with_the_rays_cull_mask() {
    let Some(dev) = dev() else { return };
    let scene = one_triangle(
        TRI,
        Instance {
            mask: 0x02,
            ..Instance::of(0)
        },
    );
    let rays: Vec<Ray> = [0x01, 0x02, 0x03, 0xFD, 0x00]
        .iter()
        .map(|&cull_mask| Ray {
            cull_mask,
            ..ray([0.25, 0.5, 2.0], DOWN)
        })
        .collect();
    let kinds: Vec<u32> = trace(&dev, &scene, &rays).iter().map(|h| h.kind).collect();
    assert_eq!(kinds, [0, 1, 1, 0, 0]);
}

/// Three triangles under the ray from (0.25, 0.5, 2) going down: geometry
/// 0 opaque at z = −1 (t = 3), geometry 1 non-opaque at z = 0 (t = 2),
/// geometry 2 non-opaque at z = −2 (t = 4).
fn layered(instance: Instance) -> TopLevel {
    single(
        vec![
            triangles(vec![tri_at(-1.0)], true),
            triangles(vec![tri_at(0.0)], false),
            triangles(vec![tri_at(-2.0)], false),
        ],
        instance,
    )
}

/// (kind, t, geometry, candidates) of a hit.
fn outcome(h: &Hit) -> (u32, f32, u32, u32) {
    (h.kind, h.t, h.geometry, h.candidates)
}

#[test]
fn opaque_triangles_are_committed_and_non_opaque_ones_are_candidates() {
    let Some(dev) = dev() else { return };
    let down = ray([0.25, 0.5, 2.0], DOWN);
    let r = trace(
        &dev,
        &layered(Instance::of(0)),
        &[
            down,
            Ray {
                policy: COMMIT_TRIANGLES,
                ..down
            },
        ],
    );
    // Geometry 0 is committed at t = 3 on the way; geometry 1 (t = 2) is a
    // candidate; geometry 2 (t = 4) is beyond the committed hit by then.
    assert_eq!(outcome(&r[0]), (1, 3.0, 0, 1));
    assert_eq!(r[0].first_candidates, [(0, 0, 1, 0, 2.0, true)]);
    // Committing the candidate makes it the closest hit.
    assert_eq!(outcome(&r[1]), (1, 2.0, 1, 1));

    // Two non-opaque triangles in one geometry, the farther first: without
    // commits both are candidates and nothing is committed; committing
    // each, the nearer (later) one wins.
    let scene = single(
        vec![triangles(vec![tri_at(-1.0), tri_at(0.0)], false)],
        Instance::of(0),
    );
    let r = trace(
        &dev,
        &scene,
        &[
            down,
            Ray {
                policy: COMMIT_TRIANGLES,
                ..down
            },
        ],
    );
    assert_eq!((r[0].kind, r[0].candidates), (0, 2));
    assert_eq!(
        r[0].first_candidates,
        [(0, 0, 0, 0, 3.0, true), (0, 0, 0, 1, 2.0, true)]
    );
    assert_eq!(
        (r[1].kind, r[1].t, r[1].primitive, r[1].candidates),
        (1, 2.0, 1, 2)
    );
    // The nearer one first: once it is committed, the farther one is not a
    // candidate.
    let scene = single(
        vec![triangles(vec![tri_at(0.0), tri_at(-1.0)], false)],
        Instance::of(0),
    );
    let r = trace(
        &dev,
        &scene,
        &[Ray {
            policy: COMMIT_TRIANGLES,
            ..down
        }],
    );
    assert_eq!(
        (r[0].kind, r[0].t, r[0].primitive, r[0].candidates),
        (1, 2.0, 0, 1)
    );
}

#[test]
fn opacity_is_forced_by_instance_flags_and_ray_flags_and_culled_by_ray_flags() {
    let Some(dev) = dev() else { return };
    let down = ray([0.25, 0.5, 2.0], DOWN);
    let opaque = InstanceFlags {
        force_opaque: true,
        ..Default::default()
    };
    let non_opaque = InstanceFlags {
        force_no_opaque: true,
        ..Default::default()
    };
    // All opaque: no candidates; the nearest (geometry 1 at t = 2) wins.
    assert_eq!(
        outcome(&trace(&dev, &layered(with_flags(opaque)), &[down])[0]),
        (1, 2.0, 1, 0)
    );
    // None opaque: all three are candidates, nothing committed.
    let h = &trace(&dev, &layered(with_flags(non_opaque)), &[down])[0];
    assert_eq!((h.kind, h.candidates), (0, 3));
    let order: Vec<(u32, f32)> = h.first_candidates.iter().map(|c| (c.2, c.4)).collect();
    assert_eq!(order, [(0, 3.0), (1, 2.0), (2, 4.0)]);
    // The ray's flags override the instance's.
    let r = trace(
        &dev,
        &layered(with_flags(non_opaque)),
        &[
            Ray {
                flags: FORCE_OPAQUE,
                ..down
            },
            Ray {
                flags: CULL_NON_OPAQUE,
                ..down
            },
        ],
    );
    assert_eq!(outcome(&r[0]), (1, 2.0, 1, 0));
    // Every triangle is non-opaque here: all culled.
    assert_eq!(outcome(&r[1]), (0, 100.0, 0, 0));
    let r = trace(
        &dev,
        &layered(with_flags(opaque)),
        &[Ray {
            flags: FORCE_NON_OPAQUE,
            ..down
        }],
    );
    assert_eq!((r[0].kind, r[0].candidates), (0, 3));
    // Culling the opaque geometry 0 leaves the two non-opaque candidates.
    let r = trace(
        &dev,
        &layered(Instance::of(0)),
        &[Ray {
            flags: CULL_OPAQUE,
            ..down
        }],
    );
    assert_eq!((r[0].kind, r[0].candidates), (0, 2));
    let geometries: Vec<u32> = r[0].first_candidates.iter().map(|c| c.2).collect();
    assert_eq!(geometries, [1, 2]);
}

#[test]
fn accept_any_intersection_ends_at_the_first_commit_and_abort_ends_at_once() {
    let Some(dev) = dev() else { return };
    let down = ray([0.25, 0.5, 2.0], DOWN);
    let r = trace(
        &dev,
        &layered(Instance::of(0)),
        &[
            // Geometry 0 (t = 3) is committed first and ends the query,
            // though geometry 1 at t = 2 is nearer.
            Ray {
                flags: ACCEPT_ANY,
                ..down
            },
            // Abort at the first candidate (geometry 1): geometry 0 stays
            // committed, nothing else is visited.
            Ray {
                policy: ABORT,
                ..down
            },
        ],
    );
    assert_eq!(outcome(&r[0]), (1, 3.0, 0, 0));
    assert_eq!(outcome(&r[1]), (1, 3.0, 0, 1));
    // With every triangle non-opaque: the first candidate committed ends
    // the query.
    let non_opaque = InstanceFlags {
        force_no_opaque: true,
        ..Default::default()
    };
    let r = trace(
        &dev,
        &layered(with_flags(non_opaque)),
        &[
            Ray {
                flags: ACCEPT_ANY,
                policy: COMMIT_TRIANGLES,
                ..down
            },
            Ray {
                policy: ABORT,
                ..down
            },
        ],
    );
    assert_eq!(outcome(&r[0]), (1, 3.0, 0, 1));
    assert_eq!(outcome(&r[1]), (0, 100.0, 0, 1));
}

/// A unit box around the origin and one 10 further down.
fn two_boxes(opaque: bool) -> TopLevel {
    single(
        vec![boxes(
            vec![
                Aabb {
                    min: [-1.0; 3],
                    max: [1.0; 3],
                },
                Aabb {
                    min: [-1.0, -1.0, -11.0],
                    max: [1.0, 1.0, -9.0],
                },
            ],
            opaque,
        )],
        Instance::of(0),
    )
}

#[test]
fn boxes_are_candidates_committed_at_the_kernels_distance() {
    let Some(dev) = dev() else { return };
    let down = ray([0.0, 0.0, 5.0], DOWN);
    let commit_at = |box_t: f32| Ray {
        policy: COMMIT_BOXES,
        box_t,
        tmin: 1.0,
        ..down
    };
    let r = trace(
        &dev,
        &two_boxes(false),
        &[
            down,
            commit_at(4.5),
            commit_at(0.5),
            commit_at(200.0),
            commit_at(14.5),
        ],
    );
    // Both boxes are candidates (entering at 4 and 14); nothing committed.
    assert_eq!((r[0].kind, r[0].candidates), (0, 2));
    assert_eq!(
        r[0].first_candidates,
        [(1, 0, 0, 0, 4.0, true), (1, 0, 0, 1, 14.0, true)]
    );
    // Committed at 4.5: the second box (from 14) is beyond it, no candidate.
    assert_eq!(
        (r[1].kind, r[1].t, r[1].primitive, r[1].candidates),
        (2, 4.5, 0, 1)
    );
    // 0.5 is before tmin and 200 after tmax: ignored.
    assert_eq!((r[2].kind, r[2].t, r[2].candidates), (0, 100.0, 2));
    assert_eq!((r[3].kind, r[3].t, r[3].candidates), (0, 100.0, 2));
    // 14.5 for the first box, then 14.5 again for the second (not beyond
    // the committed distance): the second replaces it.
    assert_eq!(
        (r[4].kind, r[4].t, r[4].primitive, r[4].candidates),
        (2, 14.5, 1, 2)
    );
    // An opaque box is still a candidate, not a non-opaque one.
    let r = trace(&dev, &two_boxes(true), &[down]);
    assert_eq!(r[0].first_candidates[0], (1, 0, 0, 0, 4.0, false));
    // Geometry culling.
    let r = trace(
        &dev,
        &two_boxes(false),
        &[
            Ray {
                flags: CULL_BOXES,
                ..down
            },
            Ray {
                flags: CULL_TRIANGLES,
                ..down
            },
        ],
    );
    assert_eq!((r[0].candidates, r[1].candidates), (0, 2));
    let r = trace(
        &dev,
        &one_triangle(TRI, Instance::of(0)),
        &[Ray {
            flags: CULL_TRIANGLES,
            ..ray([0.25, 0.5, 2.0], DOWN)
        }],
    );
    assert_eq!(r[0].kind, 0);
}

#[test]
fn instance_geometry_and_primitive_ids_across_instances_and_geometries() {
    let Some(dev) = dev() else { return };
    let off = TRI.map(|[x, y, z]| [x + 50.0, y, z]);
    let mut far = IDENTITY;
    far[1][3] = 30.0;
    let scene = TopLevel {
        bottom: vec![
            BottomLevel {
                geometries: vec![triangles(vec![TRI], true)],
            },
            BottomLevel {
                geometries: vec![
                    triangles(vec![off], true),
                    triangles(vec![off, TRI, off], true),
                ],
            },
        ],
        instances: vec![
            // Bottom 0 moved away: missed.
            Instance {
                custom_index: 7,
                transform: far,
                ..Instance::of(0)
            },
            Instance {
                custom_index: 42,
                ..Instance::of(1)
            },
            // Bottom 0 again, masked out.
            Instance {
                custom_index: 9,
                mask: 0x10,
                ..Instance::of(0)
            },
        ],
    };
    let r = trace(
        &dev,
        &scene,
        &[
            Ray {
                cull_mask: 0x01,
                ..ray([0.25, 0.5, 2.0], DOWN)
            },
            // Above instance 0's copy of TRI (moved by 30 in y).
            ray([0.25, 30.5, 2.0], DOWN),
            // Instance 2 too now; at the same distance as instance 1's, the
            // later instance is committed.
            Ray {
                cull_mask: 0x11,
                ..ray([0.25, 0.5, 2.0], DOWN)
            },
        ],
    );
    let ids = |h: &Hit| (h.kind, h.instance, h.user, h.geometry, h.primitive);
    assert_eq!(ids(&r[0]), (1, 1, 42, 1, 1));
    assert_eq!(ids(&r[1]), (1, 0, 7, 0, 0));
    assert_eq!(ids(&r[2]), (1, 2, 9, 0, 0));
}

#[test]
fn rays_through_shared_edges_and_vertices_hit_watertight() {
    let Some(dev) = dev() else { return };
    // The unit square as two triangles sharing the diagonal (0,0)–(1,1).
    let quad = single(
        vec![triangles(
            vec![
                [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
                [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
            ],
            true,
        )],
        Instance::of(0),
    );
    // On the diagonal (exact and inexact decimals), at the shared
    // vertices, and slanted rays crossing the diagonal.
    let mut rays: Vec<Ray> = (0..=10)
        .map(|k| k as f32 * 0.1)
        .map(|x| ray([x, x, 1.0], DOWN))
        .collect();
    rays.push(ray([1.0 / 3.0, 1.0 / 3.0, 1.0], DOWN));
    rays.push(ray([0.3, 0.7, 1.0], [0.4, -0.4, -1.0]));
    rays.push(ray([0.7, 0.3, 1.0], [-0.1, 0.3, -1.0]));
    rays.push(ray([0.123, 0.456, 3.0], [0.2, 0.1, -3.0]));
    for (r, h) in rays.iter().zip(trace(&dev, &quad, &rays)) {
        assert_eq!(h.kind, 1, "{r:?} fell through the shared edge");
        assert!(
            (h.t - r.origin[2] / -r.dir[2]).abs() <= 1e-6,
            "{r:?}: t {}",
            h.t
        );
    }
    // Just outside the square, on the diagonal's extension: a miss.
    let out = trace(
        &dev,
        &quad,
        &[
            ray([1.0001, 1.0001, 1.0], DOWN),
            ray([-0.0001, -0.0001, 1.0], DOWN),
        ],
    );
    assert_eq!((out[0].kind, out[1].kind), (0, 0));
}

/// The test can fail: an expectation that is wrong by one property (the
/// winding, the mask) does not match what the kernel computed.
#[test]
fn negative_controls() {
    let Some(dev) = dev() else { return };
    let down = ray([0.25, 0.5, 2.0], DOWN);
    let front = trace(&dev, &one_triangle(TRI, Instance::of(0)), &[down]);
    let back = trace(&dev, &one_triangle(TRI_SWAPPED, Instance::of(0)), &[down]);
    // Swapping the winding changes the facing (and the barycentrics), so
    // an expectation written for one winding fails for the other.
    assert_ne!(summary(&front[0]), summary(&back[0]));
    assert_ne!(summary(&back[0]), (1, 2.0, [0.25, 0.5], true));
    // A cull mask sharing no bit with the instance's makes the hit a miss.
    let masked = trace(
        &dev,
        &one_triangle(
            TRI,
            Instance {
                mask: 0x02,
                ..Instance::of(0)
            },
        ),
        &[Ray {
            cull_mask: 0x01,
            ..down
        }],
    );
    assert_ne!(summary(&masked[0]), summary(&front[0]));
    // A transform changes the object-space ray.
    let mut t = IDENTITY;
    t[0][3] = 1.0;
    let moved = trace(
        &dev,
        &one_triangle(TRI, with_transform(t)),
        &[ray([1.25, 0.5, 2.0], DOWN)],
    );
    assert_ne!(moved[0].object_origin, [1.25, 0.5, 2.0]);
    assert_eq!(moved[0].object_origin, [0.25, 0.5, 2.0]);
}

/// SPIRV-Cross's shape for an acceleration structure in an argument
/// buffer: an 8-byte member holding the resource id.
const ARGUMENT_BUFFER_MSL: &str = r#"#include <metal_stdlib>
#include <simd/simd.h>
#if __METAL_VERSION__ >= 230
#include <metal_raytracing>
using namespace metal::raytracing;
#endif

using namespace metal;

struct spvDescriptorSetBuffer0
{
    device float* out [[id(0)]];
    raytracing::acceleration_structure<raytracing::instancing> topLevelAS [[id(1)]];
};

kernel void main0(constant spvDescriptorSetBuffer0& spvDescriptorSet0 [[buffer(0)]])
{
    raytracing::intersection_query<raytracing::instancing, raytracing::triangle_data> rayQuery;
    rayQuery.reset(ray(float3(0.25, 0.5, 2.0), float3(0.0, 0.0, -1.0), 0.001000000047497451305389404296875, 100.0), spvDescriptorSet0.topLevelAS, 255u, intersection_params());
    for (;;)
    {
        bool _36 = rayQuery.next();
        if (_36)
        {
            continue;
        }
        else
        {
            break;
        }
    }
    spvDescriptorSet0.out[0] = float(uint(rayQuery.get_committed_intersection_type()));
    spvDescriptorSet0.out[1] = rayQuery.get_committed_distance();
    spvDescriptorSet0.out[2] = float(sizeof(raytracing::acceleration_structure<raytracing::instancing>));
}
"#;

#[test]
fn an_argument_buffer_member_holds_the_resource_id() {
    let Some(dev) = dev() else { return };
    let accel = dev
        .acceleration_structure(&one_triangle(TRI, Instance::of(0)))
        .unwrap();
    let out = dev.buffer(12, MemoryType::HostVisible).unwrap();
    let mut ab = Vec::new();
    ab.extend((out.mapping().ptr() as u64).to_le_bytes());
    ab.extend(accel.gpu_resource_id().to_le_bytes());
    let ab = Mapping::with_bytes(&ab).unwrap();
    launch(
        &dev,
        ARGUMENT_BUFFER_MSL,
        &[(0, ab.ptr().cast())],
        1,
        vec![
            Region::of("out".into(), out.mapping()),
            Region::of("the argument buffer".into(), &ab),
            Region::of("the acceleration structure".into(), accel.block()),
        ],
    )
    .unwrap();
    assert_eq!(floats(&out), [1.0, 2.0, 8.0]);
}

#[test]
fn misuse_fails_the_dispatch_naming_the_ray_query() {
    let Some(dev) = dev() else { return };
    let out = dev.buffer(4, MemoryType::HostVisible).unwrap();
    // A null structure (a member never given a resource id).
    let mut bytes = (out.mapping().ptr() as u64).to_le_bytes().to_vec();
    bytes.extend(0u64.to_le_bytes());
    let ab = Mapping::with_bytes(&bytes).unwrap();
    let e = launch(
        &dev,
        ARGUMENT_BUFFER_MSL,
        &[(0, ab.ptr().cast())],
        1,
        vec![],
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("ray query: reset() with a null acceleration structure"),
        "{e}"
    );
    // A candidate getter after the last candidate.
    let msl = ARGUMENT_BUFFER_MSL.replace(
        "spvDescriptorSet0.out[2] = float(sizeof(raytracing::acceleration_structure<raytracing::instancing>));",
        "spvDescriptorSet0.out[2] = rayQuery.get_candidate_triangle_distance();",
    );
    let accel = dev
        .acceleration_structure(&one_triangle(TRI, Instance::of(0)))
        .unwrap();
    let out = dev.buffer(12, MemoryType::HostVisible).unwrap();
    let mut bytes = (out.mapping().ptr() as u64).to_le_bytes().to_vec();
    bytes.extend(accel.gpu_resource_id().to_le_bytes());
    let ab = Mapping::with_bytes(&bytes).unwrap();
    let e = launch(&dev, &msl, &[(0, ab.ptr().cast())], 1, vec![]).unwrap_err();
    assert!(
        e.to_string()
            .contains("a candidate getter without a current candidate"),
        "{e}"
    );
}

#[test]
fn structures_are_distinct_immutable_blocks_refusing_bad_scenes() {
    let Some(dev) = dev() else { return };
    let scene = one_triangle(TRI, Instance::of(0));
    let a = dev.acceleration_structure(&scene).unwrap();
    let b = dev.acceleration_structure(&scene).unwrap();
    assert!(a.same(&a.clone()) && !a.same(&b));
    assert_ne!(a.gpu_resource_id(), b.gpu_resource_id());
    assert_eq!(a.scene(), &scene);
    // Header, one instance, one bottom (padded to 16), one geometry, one
    // triangle (36 bytes, padded to 48).
    assert_eq!(a.size(), 64 + 128 + 16 + 32 + 48);
    let bad = one_triangle(TRI, Instance::of(3));
    assert!(matches!(
        dev.acceleration_structure(&bad),
        Err(CpuError::Scene(_))
    ));
    // A singular instance is never hit.
    let flat: Transform = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
    ];
    let r = trace(
        &dev,
        &one_triangle(TRI, with_transform(flat)),
        &[ray([0.25, 0.5, 2.0], DOWN)],
    );
    assert_eq!(r[0].kind, 0);
}

/// The shim's `halc_accel_*` structs and this crate's records agree (each
/// side also asserts the numbers at compile time).
#[test]
fn the_shims_layout_matches_the_rust_records() {
    use super::accel::{BottomRecord, GeometryRecord, Header, InstanceRecord};
    use std::mem::{offset_of, size_of};
    let Some(dev) = dev() else { return };
    let msl = r#"#include <metal_stdlib>
#include <metal_raytracing>
using namespace metal;
kernel void main0(device uint* out [[buffer(0)]])
{
    out[0] = sizeof(raytracing::halc_accel_header);
    out[1] = offsetof(raytracing::halc_accel_header, instances);
    out[2] = offsetof(raytracing::halc_accel_header, total_bytes);
    out[3] = sizeof(raytracing::halc_accel_instance);
    out[4] = offsetof(raytracing::halc_accel_instance, world_to_object);
    out[5] = offsetof(raytracing::halc_accel_instance, flags);
    out[6] = sizeof(raytracing::halc_accel_bottom);
    out[7] = sizeof(raytracing::halc_accel_geometry);
    out[8] = offsetof(raytracing::halc_accel_geometry, primitives);
    out[9] = HALC_ACCEL_MAGIC;
    out[10] = HALC_ACCEL_VERSION;
}
"#;
    let out = dev.buffer(44, MemoryType::HostVisible).unwrap();
    launch(
        &dev,
        msl,
        &[(0, out.mapping().ptr().cast())],
        1,
        vec![Region::of("out".into(), out.mapping())],
    )
    .unwrap();
    let got: Vec<u32> = out
        .to_vec()
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want = [
        size_of::<Header>(),
        offset_of!(Header, instances),
        offset_of!(Header, total_bytes),
        size_of::<InstanceRecord>(),
        offset_of!(InstanceRecord, world_to_object),
        offset_of!(InstanceRecord, flags),
        size_of::<BottomRecord>(),
        size_of::<GeometryRecord>(),
        offset_of!(GeometryRecord, primitives),
        super::accel::MAGIC as usize,
        super::accel::LAYOUT_VERSION as usize,
    ]
    .map(|n| n as u32);
    assert_eq!(got, want);
}
