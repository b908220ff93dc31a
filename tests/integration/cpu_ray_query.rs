//! Ray queries end to end on the CPU backend: fixtures/kernels/ray_query
//! compiled in both binding models, a scene of triangles (non-opaque and
//! opaque geometries), a box and masked, translated and flipped instances
//! built with `cpu::Device::acceleration_structure`, one ray per invocation,
//! every output field checked against values computed by hand from the
//! geometry. Negative control: the same dispatch with the primitive
//! structures' `useResource`s removed from the plan fails.

use halc::msl::BindingModel;
use halc::runtime_loader::cpu::ResourceBindings;
use halc::runtime_loader::memory::MemoryType;
use halc::runtime_loader::plan::{Command, DispatchPlan, Grid};
use halc::runtime_loader::scene::{Aabb, BottomLevel, Geometry, Instance, Primitives, TopLevel};
use halc::runtime_loader::Executable;

use crate::cpu::device;
use crate::{input, kernel};

/// Whether an unflipped triangle of this scene, (0,0), (2,0), (0,2) and
/// its like, is front facing to a ray along +z: no. Its normal
/// (v1 - v0) x (v2 - v0) is +z, along the ray, and a triangle is front
/// facing when the normal points against the ray, as lavapipe has it
/// (tests/amber/ray_query.amber compares the two).
const FRONT: u32 = 0;

/// gl_RayFlagsOpaqueEXT, gl_RayFlagsCullFrontFacingTrianglesEXT.
const OPAQUE: u32 = 0x1;
const CULL_FRONT: u32 = 0x20;

fn triangle(z: f32) -> [[f32; 3]; 3] {
    [[0.0, 0.0, z], [2.0, 0.0, z], [0.0, 2.0, z]]
}

/// Bottom 0: geometry 0 a non-opaque triangle at z = 5, geometry 1 an
/// opaque one at z = 8 (both (0,0), (2,0), (0,2) in x, y). Bottom 1: one
/// non-opaque box [-1, 1]^3.
/// Instances: 0 = bottom 0 as is (custom 11); 1 = bottom 0 moved +10 in x,
/// facing flipped (custom 12); 2 = bottom 1 moved to (20, 0, 5) (custom
/// 13); 3 = bottom 0 moved +30 in x, mask 0x02 (custom 14).
fn scene() -> TopLevel {
    let triangles = BottomLevel {
        geometries: vec![
            Geometry {
                primitives: Primitives::Triangles(vec![triangle(5.0)]),
                opaque: false,
                no_duplicate_any_hit: false,
            },
            Geometry {
                primitives: Primitives::Triangles(vec![triangle(8.0)]),
                opaque: true,
                no_duplicate_any_hit: false,
            },
        ],
    };
    let boxes = BottomLevel {
        geometries: vec![Geometry {
            primitives: Primitives::Boxes(vec![Aabb {
                min: [-1.0; 3],
                max: [1.0; 3],
            }]),
            opaque: false,
            no_duplicate_any_hit: false,
        }],
    };
    let mut i0 = Instance::of(0);
    i0.custom_index = 11;
    let mut i1 = Instance::of(0);
    i1.custom_index = 12;
    i1.transform[0][3] = 10.0;
    i1.flags.triangle_flip_facing = true;
    let mut i2 = Instance::of(1);
    i2.custom_index = 13;
    i2.transform[0][3] = 20.0;
    i2.transform[2][3] = 5.0;
    let mut i3 = Instance::of(0);
    i3.custom_index = 14;
    i3.transform[0][3] = 30.0;
    i3.mask = 0x02;
    TopLevel {
        bottom: vec![triangles, boxes],
        instances: vec![i0, i1, i2, i3],
    }
}

/// `Ray` in the kernel (std430, 48 bytes): origin.xyz, tmin, direction.xyz,
/// tmax, flags, cull mask, two pads.
struct Ray {
    origin: [f32; 3],
    tmin: f32,
    tmax: f32,
    flags: u32,
    cull: u32,
}

impl Ray {
    fn along_z(x: f32, y: f32, z: f32) -> Ray {
        Ray {
            origin: [x, y, z],
            tmin: 0.0,
            tmax: 100.0,
            flags: 0,
            cull: 0xFF,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        for f in self.origin.iter().chain([&self.tmin]) {
            b.extend(f.to_le_bytes());
        }
        for f in [0.0f32, 0.0, 1.0, self.tmax] {
            b.extend(f.to_le_bytes());
        }
        for u in [self.flags, self.cull, 0, 0] {
            b.extend(u.to_le_bytes());
        }
        b
    }
}

/// `Hit` in the kernel (std430, 48 bytes).
#[derive(Debug, PartialEq)]
struct Hit {
    committed_type: u32,
    t: f32,
    custom_index: i32,
    instance_id: i32,
    geometry_index: i32,
    primitive_index: i32,
    barycentrics: [f32; 2],
    front_face: u32,
    candidates: u32,
}

impl Hit {
    fn read(b: &[u8]) -> Hit {
        let w = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        Hit {
            committed_type: w(0),
            t: f32::from_bits(w(1)),
            custom_index: w(2) as i32,
            instance_id: w(3) as i32,
            geometry_index: w(4) as i32,
            primitive_index: w(5) as i32,
            barycentrics: [f32::from_bits(w(6)), f32::from_bits(w(7))],
            front_face: w(8),
            candidates: w(9),
        }
    }

    fn miss(candidates: u32) -> Hit {
        Hit {
            committed_type: 0,
            t: -1.0,
            custom_index: -1,
            instance_id: -1,
            geometry_index: -1,
            primitive_index: -1,
            barycentrics: [0.0, 0.0],
            front_face: 0,
            candidates,
        }
    }

    fn triangle(
        t: f32,
        custom: i32,
        instance: i32,
        geometry: i32,
        front: u32,
        candidates: u32,
    ) -> Hit {
        // Every ray here meets its triangle at (x, y) = (0.5, 0.5) of
        // (0,0), (2,0), (0,2): P = v0 + u (v1 - v0) + v (v2 - v0) gives
        // u = v = 0.25 (the weights of the second and third vertices).
        Hit {
            committed_type: 1,
            t,
            custom_index: custom,
            instance_id: instance,
            geometry_index: geometry,
            primitive_index: 0,
            barycentrics: [0.25, 0.25],
            front_face: front,
            candidates,
        }
    }
}

// One push per ray, each with the working that gives its expectation.
#[allow(clippy::vec_init_then_push)]
fn rays_and_expected() -> Vec<(Ray, Hit)> {
    let mut v = Vec::new();
    // 0. Instance 0: the non-opaque triangle at z = 5 is a candidate and
    // confirmed (t 5); the opaque one at z = 8 is farther (and never a
    // candidate, being opaque).
    v.push((
        Ray::along_z(0.5, 0.5, 0.0),
        Hit::triangle(5.0, 11, 0, 0, FRONT, 1),
    ));
    // 1. Instance 1 (x + 10, flipped facing): the same, its back face.
    v.push((
        Ray::along_z(10.5, 0.5, 0.0),
        Hit::triangle(5.0, 12, 1, 0, 1 - FRONT, 1),
    ));
    // 2. Instance 2's box [19, 21] x [-1, 1] x [4, 6]: a candidate; the
    // kernel's sphere (centre (20, 0, 5), radius 1) along the ray from
    // (20, 0, 0): |o - c|^2 = 25, b = (o - c)·d = -5, disc = 25 - 24 = 1,
    // t = 5 - 1 = 4. Generated: type 2; no barycentrics or facing.
    v.push((
        Ray::along_z(20.0, 0.0, 0.0),
        Hit {
            committed_type: 2,
            t: 4.0,
            custom_index: 13,
            instance_id: 2,
            geometry_index: 0,
            primitive_index: 0,
            barycentrics: [0.0, 0.0],
            front_face: 0,
            candidates: 1,
        },
    ));
    // 3. Through the box's corner column, outside the sphere: from
    // (20.9, 0.9, 0), |o - c|^2 = 0.81 + 0.81 + 25, disc = 25 - 25.62 < 0:
    // a candidate, no hit.
    v.push((Ray::along_z(20.9, 0.9, 0.0), Hit::miss(1)));
    // 4. Ray 0 with gl_RayFlagsOpaqueEXT: the triangle at z = 5 is opaque
    // for this ray, committed without being a candidate.
    let mut r = Ray::along_z(0.5, 0.5, 0.0);
    r.flags = OPAQUE;
    v.push((r, Hit::triangle(5.0, 11, 0, 0, FRONT, 0)));
    // 5. From z = 6, past the first triangle: the opaque one (geometry 1)
    // at t = 8 - 6 = 2, no candidate.
    v.push((
        Ray::along_z(0.5, 0.5, 6.0),
        Hit::triangle(2.0, 11, 0, 1, FRONT, 0),
    ));
    // 6. Instance 3 has mask 0x02; a cull mask of 0x01 skips it.
    let mut r = Ray::along_z(30.5, 0.5, 0.0);
    r.cull = 0x01;
    v.push((r, Hit::miss(0)));
    // 7. With cull mask 0x02 it is hit.
    let mut r = Ray::along_z(30.5, 0.5, 0.0);
    r.cull = 0x02;
    v.push((r, Hit::triangle(5.0, 14, 3, 0, FRONT, 1)));
    // 8. Ray 0 stopped at tmax 4, before every triangle.
    let mut r = Ray::along_z(0.5, 0.5, 0.0);
    r.tmax = 4.0;
    v.push((r, Hit::miss(0)));
    // 9. Ray 0 culling front faces: both triangles of instance 0 face it
    // (FRONT), so nothing is left.
    let mut r = Ray::along_z(0.5, 0.5, 0.0);
    r.flags = CULL_FRONT;
    v.push((
        r,
        if FRONT == 1 {
            Hit::miss(0)
        } else {
            Hit::triangle(5.0, 11, 0, 0, 0, 1)
        },
    ));
    v
}

/// Box bounds at `instance id * 4 + primitive index`, as the kernel reads
/// them: instance 2's box in world space at entry 8, zeros elsewhere.
fn boxes_bytes() -> Vec<u8> {
    let mut b = vec![0u8; 16 * 32];
    let at = 8 * 32;
    for (i, f) in [19.0f32, -1.0, 4.0, 0.0, 21.0, 1.0, 6.0, 0.0]
        .iter()
        .enumerate()
    {
        b[at + 4 * i..at + 4 * i + 4].copy_from_slice(&f.to_le_bytes());
    }
    b
}

#[test]
fn ray_queries_commit_what_the_geometry_says() {
    let Some(dev) = device() else { return };
    let accel = dev.acceleration_structure(&scene()).unwrap();
    let cases = rays_and_expected();
    let n = cases.len() as u32;
    let host = MemoryType::HostVisible;
    let rays: Vec<u8> = cases.iter().flat_map(|(r, _)| r.bytes()).collect();
    for model in [BindingModel::ArgumentBuffers, BindingModel::Discrete] {
        let inp = input(&kernel("ray_query.spv"));
        let bytes = halc::compile(std::slice::from_ref(&inp), &crate::options_for(model))
            .unwrap()
            .to_flatbuffer();
        let exe = Executable::load(&bytes).unwrap();
        let p = dev
            .load(exe)
            .unwrap()
            .pipeline("ray_query", &[])
            .unwrap_or_else(|e| panic!("{e}"));
        let rays_b = dev.buffer_with_data(&rays, host).unwrap();
        let boxes_b = dev.buffer_with_data(&boxes_bytes(), host).unwrap();
        let hits_b = dev.buffer(48 * u64::from(n), host).unwrap();
        let mut b = ResourceBindings::new();
        b.acceleration_structure(0, 0, &accel)
            .buffer(0, 1, &rays_b)
            .buffer(0, 2, &boxes_b)
            .buffer(0, 3, &hits_b);
        let plan = DispatchPlan::new(
            p.kernel(),
            p.specialization(),
            &b.to_plan().unwrap(),
            &n.to_le_bytes(),
            Grid::Threads([n, 1, 1]),
        )
        .unwrap();
        // Both bottom levels made resident, as Metal needs.
        let primitive_uses = (plan.commands.iter())
            .filter(|c| matches!(c, Command::UsePrimitiveStructure { .. }))
            .count();
        assert_eq!(primitive_uses, 2, "{model:?}: {plan}");

        // Negative control: without them the dispatch is refused, as Metal
        // would leave the primitive structures non-resident.
        let mut short = plan.clone();
        short
            .commands
            .retain(|c| !matches!(c, Command::UsePrimitiveStructure { .. }));
        let e = dev.execute(&p, &short, &b).unwrap_err();
        assert!(e.to_string().contains("not made resident"), "{e}");

        dev.execute(&p, &plan, &b).unwrap();
        let out = hits_b.to_vec().unwrap();
        for (i, (_, want)) in cases.iter().enumerate() {
            let got = Hit::read(&out[48 * i..48 * i + 48]);
            let close = |a: f32, b: f32| (a - b).abs() <= 1e-4;
            let same = got.committed_type == want.committed_type
                && close(got.t, want.t)
                && (
                    got.custom_index,
                    got.instance_id,
                    got.geometry_index,
                    got.primitive_index,
                ) == (
                    want.custom_index,
                    want.instance_id,
                    want.geometry_index,
                    want.primitive_index,
                )
                && close(got.barycentrics[0], want.barycentrics[0])
                && close(got.barycentrics[1], want.barycentrics[1])
                && got.front_face == want.front_face
                && got.candidates == want.candidates;
            assert!(same, "{model:?} ray {i}: got {got:?}, want {want:?}");
        }
    }
}
