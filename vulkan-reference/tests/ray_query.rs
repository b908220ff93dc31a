//! Acceleration structures built from `runtime_loader::scene` and traced
//! with ray queries on lavapipe (`tests/kernels/ray_query.comp`: one ray
//! per invocation, what it commits and the candidates it saw), against
//! hits worked out by hand. What lavapipe does here is the reference for
//! the CPU backend's rules (the winding that makes a triangle front
//! facing, in object space). Skips without a Vulkan driver unless
//! `HALC_REQUIRE_VULKAN=1`.

mod common;

use common::*;
use runtime_loader::scene::{
    Aabb, BottomLevel, Geometry, Instance, InstanceFlags, Primitives, TopLevel, IDENTITY,
};
use vulkan_reference::{
    required_by_module, BindingDesc, BindingKind, Bound, Error, Pipeline, PipelineDesc, Place,
    Reference, Resource, Session, SessionBound, SessionResource,
};

/// Ray flags (`gl_RayFlags…EXT`).
const OPAQUE: u32 = 0x01;
const CULL_BACK_FACING: u32 = 0x10;
const CULL_FRONT_FACING: u32 = 0x20;
const SKIP_TRIANGLES: u32 = 0x100;
const SKIP_AABBS: u32 = 0x200;

/// One ray of the kernel.
#[derive(Clone, Copy)]
struct Ray {
    origin: [f32; 3],
    tmin: f32,
    direction: [f32; 3],
    tmax: f32,
    cull_mask: u32,
    flags: u32,
    confirm: bool,
    /// Where box candidates are committed (`None`: never).
    box_t: Option<f32>,
}

/// A ray from `origin` straight down (-z), t in [0, 100], every mask,
/// no flags.
fn down(x: f32, y: f32, z: f32) -> Ray {
    Ray {
        origin: [x, y, z],
        tmin: 0.0,
        direction: [0.0, 0.0, -1.0],
        tmax: 100.0,
        cull_mask: 0xFF,
        flags: 0,
        confirm: false,
        box_t: None,
    }
}

impl Ray {
    fn bytes(&self) -> Vec<u8> {
        let mut v = f32_bytes(&self.origin);
        v.extend(f32_bytes(&[self.tmin]));
        v.extend(f32_bytes(&self.direction));
        v.extend(f32_bytes(&[self.tmax]));
        v.extend(u32_bytes(&[
            self.cull_mask,
            self.flags,
            self.confirm as u32,
            self.box_t.unwrap_or(-1.0).to_bits(),
        ]));
        v
    }
}

/// What the kernel reports of one ray.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Hit {
    /// 0 none, 1 triangle, 2 generated (box).
    kind: u32,
    t: f32,
    custom_index: i32,
    instance_id: i32,
    geometry: i32,
    primitive: i32,
    front_face: bool,
    sbt_offset: u32,
    barycentrics: [f32; 2],
    candidates: u32,
    /// Bit 0: a triangle candidate, bit 1: a box candidate.
    candidate_kinds: u32,
}

const HIT_BYTES: usize = 48;

fn hits(bytes: &[u8]) -> Vec<Hit> {
    bytes
        .chunks_exact(HIT_BYTES)
        .map(|c| {
            let u = u32s(c);
            let f = f32s(c);
            Hit {
                kind: u[0],
                t: f[1],
                custom_index: u[2] as i32,
                instance_id: u[3] as i32,
                geometry: u[4] as i32,
                primitive: u[5] as i32,
                front_face: u[6] != 0,
                sbt_offset: u[7],
                barycentrics: [f[8], f[9]],
                candidates: u[10],
                candidate_kinds: u[11],
            }
        })
        .collect()
}

fn bindings() -> [BindingDesc; 3] {
    let b = |binding, kind| BindingDesc {
        set: 0,
        binding,
        kind,
        count: 1,
    };
    [
        b(0, BindingKind::AccelerationStructure),
        b(1, BindingKind::Storage),
        b(2, BindingKind::Storage),
    ]
}

/// The pipeline of ray-query kernel `name` (`ray_query.comp` or a variant)
/// on `vk`, with [`bindings`].
fn ray_pipeline(vk: &Reference, name: &str) -> vulkan_reference::Result<Pipeline> {
    let words = kernel(name);
    vk.pipeline(&PipelineDesc {
        spirv: &words,
        entry: "main",
        bindings: &bindings(),
        ..Default::default()
    })
}

/// A `Reference` with what the ray-query kernels need, or `None` (skip).
fn ray_query_reference() -> Option<Reference> {
    let mut needs = required_by_module(&kernel("tests/ray_query.spv")).unwrap();
    needs.extend(required_by_module(&kernel("tests/ray_query_culling.spv")).unwrap());
    let needs: Vec<&str> = needs.iter().map(String::as_str).collect();
    reference(&needs)
}

/// Traces `rays` through `scene` on `vk`.
fn trace(vk: &Reference, scene: &TopLevel, rays: &[Ray]) -> Vec<Hit> {
    trace_with(vk, "tests/ray_query.spv", scene, rays)
}

/// The same with kernel `name` (`ray_query.comp` or a variant of it).
fn trace_with(vk: &Reference, name: &str, scene: &TopLevel, rays: &[Ray]) -> Vec<Hit> {
    let p = ray_pipeline(vk, name).unwrap();
    let accel = vk.acceleration_structure(scene).unwrap();
    let ray_bytes: Vec<u8> = rays.iter().flat_map(Ray::bytes).collect();
    let rb = vk.buffer(&ray_bytes).unwrap();
    let out = vk.buffer(&vec![0xEE; rays.len() * HIT_BYTES]).unwrap();
    vk.dispatch(
        &p,
        &[
            Bound::of(0, 0, Resource::AccelerationStructure(&accel)),
            Bound::new(0, 1, &rb),
            Bound::new(0, 2, &out),
        ],
        &[],
        [rays.len() as u32, 1, 1],
    )
    .unwrap();
    hits(&out.read())
}

fn triangles(tris: &[[[f32; 3]; 3]], opaque: bool) -> Geometry {
    Geometry {
        primitives: Primitives::Triangles(tris.to_vec()),
        opaque,
        no_duplicate_any_hit: false,
    }
}

/// Seen from +z (the rays look down -z), counter-clockwise.
const CCW: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

fn shifted(t: [[f32; 3]; 3], dx: f32) -> [[f32; 3]; 3] {
    t.map(|[x, y, z]| [x + dx, y, z])
}

/// Clockwise seen from +z: CCW with its last two vertices swapped.
fn clockwise(t: [[f32; 3]; 3]) -> [[f32; 3]; 3] {
    [t[0], t[2], t[1]]
}

fn translate(x: f32, y: f32, z: f32) -> [[f32; 4]; 3] {
    [[1.0, 0.0, 0.0, x], [0.0, 1.0, 0.0, y], [0.0, 0.0, 1.0, z]]
}

/// Bottom level 0: geometry 0, one CCW triangle at x in [0, 1]; geometry
/// 1, a CCW triangle at x in [2, 3] (primitive 0) and a clockwise one at
/// x in [4, 5] (primitive 1). All opaque.
fn two_geometries() -> BottomLevel {
    BottomLevel {
        geometries: vec![
            triangles(&[CCW], true),
            triangles(&[shifted(CCW, 2.0), clockwise(shifted(CCW, 4.0))], true),
        ],
    }
}

fn no_hit() -> Hit {
    Hit {
        kind: 0,
        t: 0.0,
        custom_index: -1,
        instance_id: -1,
        geometry: -1,
        primitive: -1,
        front_face: false,
        sbt_offset: 0,
        barycentrics: [0.0, 0.0],
        candidates: 0,
        candidate_kinds: 0,
    }
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

#[track_caller]
fn assert_hit(h: &Hit, t: f32, custom: i32, instance: i32, geometry: i32, primitive: i32) {
    assert_eq!(h.kind, 1, "{h:?}");
    assert!(close(h.t, t), "t {} != {t}: {h:?}", h.t);
    assert_eq!(
        (h.custom_index, h.instance_id, h.geometry, h.primitive),
        (custom, instance, geometry, primitive),
        "{h:?}"
    );
}

/// t, instance and geometry indices, custom index, SBT offset,
/// barycentrics, an instance's translation, and the cull mask.
#[test]
fn triangles_report_what_they_are_hit_by() {
    let Some(vk) = ray_query_reference() else {
        return;
    };
    let scene = TopLevel {
        bottom: vec![two_geometries()],
        instances: vec![
            Instance {
                custom_index: 7,
                mask: 0x01,
                sbt_offset: 3,
                ..Instance::of(0)
            },
            Instance {
                transform: translate(10.0, 0.0, -2.0),
                custom_index: 0xAB_CDEF,
                mask: 0x02,
                ..Instance::of(0)
            },
        ],
    };
    let rays = [
        down(0.25, 0.25, 1.0),  // instance 0, geometry 0
        down(2.25, 0.5, 1.0),   // instance 0, geometry 1, primitive 0
        down(4.25, 0.125, 1.0), // instance 0, geometry 1, primitive 1 (clockwise)
        down(10.5, 0.25, 1.0),  // instance 1 at z = -2
        Ray {
            cull_mask: 0x01, // instance 1's mask is 0x02
            ..down(10.5, 0.25, 1.0)
        },
        Ray {
            cull_mask: 0x02, // instance 0's mask is 0x01
            ..down(0.25, 0.25, 1.0)
        },
        down(7.0, 7.0, 1.0), // nothing there
        Ray {
            tmax: 0.5, // the triangle is at t = 1
            ..down(0.25, 0.25, 1.0)
        },
    ];
    let h = trace(&vk, &scene, &rays);

    assert_hit(&h[0], 1.0, 7, 0, 0, 0);
    assert_eq!(h[0].sbt_offset, 3);
    // The barycentrics are (u, v) of v1 and v2: p = v0 + u (v1 - v0) + v (v2 - v0).
    assert_eq!(h[0].barycentrics, [0.25, 0.25]);
    assert_hit(&h[1], 1.0, 7, 0, 1, 0);
    assert_eq!(h[1].barycentrics, [0.25, 0.5]);
    // Clockwise: v1 and v2 swapped, so u follows y and v follows x.
    assert_hit(&h[2], 1.0, 7, 0, 1, 1);
    assert_eq!(h[2].barycentrics, [0.125, 0.25]);
    assert_hit(&h[3], 3.0, 0xAB_CDEF, 1, 0, 0);
    assert_eq!(h[3].barycentrics, [0.5, 0.25]);
    assert_eq!(h[3].sbt_offset, 0);
    // Opaque triangles are committed without the kernel seeing them.
    assert!(h[..4].iter().all(|h| h.candidates == 0), "{h:?}");
    // Negative controls: masked out, nothing there, beyond tmax.
    for (i, h) in h[4..].iter().enumerate() {
        assert_eq!(*h, no_hit(), "ray {}", i + 4);
    }
}

/// The winding rule, as lavapipe applies it: a triangle is front facing
/// when its normal `(v1 - v0) × (v2 - v0)` points against the ray's
/// direction (toward its origin): counter-clockwise seen from the origin
/// in a right-handed frame (Vulkan's and DirectX's "clockwise" are in a
/// left-handed one). It is decided in object space, so an instance's
/// mirror transform does not change it; `TRIANGLE_FLIP_FACING` swaps it;
/// ray flags cull by it unless the instance has
/// `TRIANGLE_FACING_CULL_DISABLE`.
#[test]
fn front_faces_follow_the_winding_in_object_space() {
    let Some(vk) = ray_query_reference() else {
        return;
    };
    let mirror_x = [
        [-1.0, 0.0, 0.0, 20.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    let flags = |f: fn(&mut InstanceFlags)| {
        let mut flags = InstanceFlags::default();
        f(&mut flags);
        flags
    };
    let scene = TopLevel {
        bottom: vec![two_geometries()],
        instances: vec![
            Instance::of(0),
            // x in [10, 15]: facing flipped.
            Instance {
                transform: translate(10.0, 0.0, 0.0),
                flags: flags(|f| f.triangle_flip_facing = true),
                ..Instance::of(0)
            },
            // Mirrored in x about x = 10: object x in [0, 1] at world x in
            // [19, 20].
            Instance {
                transform: mirror_x,
                ..Instance::of(0)
            },
            // x in [30, 35]: culling disabled.
            Instance {
                transform: translate(30.0, 0.0, 0.0),
                flags: flags(|f| f.triangle_facing_cull_disable = true),
                ..Instance::of(0)
            },
        ],
    };
    let culled = |x: f32, flags: u32| Ray {
        flags,
        ..down(x, 0.25, 1.0)
    };
    let rays = [
        down(0.25, 0.25, 1.0),            // 0: counter-clockwise: front
        down(4.25, 0.25, 1.0),            // 1: clockwise: back
        down(10.25, 0.25, 1.0),           // 2: counter-clockwise, flipped
        down(14.25, 0.25, 1.0),           // 3: clockwise, flipped
        down(19.75, 0.25, 1.0),           // 4: mirrored counter-clockwise
        culled(0.25, CULL_BACK_FACING),   // 5: front facing, kept
        culled(4.25, CULL_BACK_FACING),   // 6: back facing, culled
        culled(0.25, CULL_FRONT_FACING),  // 7: front facing, culled
        culled(4.25, CULL_FRONT_FACING),  // 8: back facing, kept
        culled(30.25, CULL_FRONT_FACING), // 9: culling disabled
        culled(10.25, CULL_BACK_FACING),  // 10: flipped to back, culled
        culled(19.75, CULL_BACK_FACING),  // 11: mirrored, still front facing
    ];
    let h = trace(&vk, &scene, &rays);
    let front: Vec<Option<bool>> = h
        .iter()
        .map(|h| (h.kind == 1).then_some(h.front_face))
        .collect();
    assert_eq!(
        front,
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
            None,
            None,
            Some(false),
            Some(true),
            None,
            Some(true),
        ]
    );
    assert_hit(&h[4], 1.0, 0, 2, 0, 0);
    assert_eq!(h[4].barycentrics, [0.25, 0.25]);
}

/// Non-opaque triangles are candidates the kernel confirms or not; the
/// instance flags and the ray's `Opaque` flag override the geometry's.
#[test]
fn opaque_and_non_opaque_candidates() {
    let Some(vk) = ray_query_reference() else {
        return;
    };
    let flags = |force_opaque, force_no_opaque| InstanceFlags {
        force_opaque,
        force_no_opaque,
        ..Default::default()
    };
    let scene = TopLevel {
        bottom: vec![
            BottomLevel {
                geometries: vec![triangles(&[CCW], false)],
            },
            BottomLevel {
                geometries: vec![triangles(&[CCW], true)],
            },
        ],
        instances: vec![
            // x in [0, 1]: non-opaque geometry; a second layer below it.
            Instance::of(0),
            Instance {
                transform: translate(0.0, 0.0, -1.0),
                custom_index: 1,
                ..Instance::of(0)
            },
            // x in [10, 11]: non-opaque geometry, forced opaque.
            Instance {
                transform: translate(10.0, 0.0, 0.0),
                flags: flags(true, false),
                ..Instance::of(0)
            },
            // x in [20, 21]: opaque geometry, forced non-opaque.
            Instance {
                transform: translate(20.0, 0.0, 0.0),
                flags: flags(false, true),
                ..Instance::of(1)
            },
        ],
    };
    let rays = [
        down(0.25, 0.25, 1.0), // two candidates, none confirmed
        Ray {
            confirm: true,
            ..down(0.25, 0.25, 1.0)
        },
        Ray {
            flags: OPAQUE,
            ..down(0.25, 0.25, 1.0)
        },
        down(10.25, 0.25, 1.0),
        down(20.25, 0.25, 1.0),
        Ray {
            confirm: true,
            ..down(20.25, 0.25, 1.0)
        },
    ];
    let h = trace(&vk, &scene, &rays);
    // Negative control: candidates seen but not confirmed commit nothing.
    assert_eq!(h[0].kind, 0, "{:?}", h[0]);
    assert_eq!((h[0].candidates, h[0].candidate_kinds), (2, 1));
    // Confirmed: the nearer of the two (the farther one may or may not be
    // reported once the nearer is committed: 1 or 2 candidates).
    assert_hit(&h[1], 1.0, 0, 0, 0, 0);
    assert!((1..=2).contains(&h[1].candidates), "{:?}", h[1]);
    // The ray's Opaque flag: committed without candidates.
    assert_hit(&h[2], 1.0, 0, 0, 0, 0);
    assert_eq!(h[2].candidates, 0);
    assert_hit(&h[3], 1.0, 0, 2, 0, 0);
    assert_eq!(h[3].candidates, 0);
    assert_eq!(h[4].kind, 0, "{:?}", h[4]);
    assert_eq!((h[4].candidates, h[4].candidate_kinds), (1, 1));
    assert_hit(&h[5], 1.0, 0, 3, 0, 0);
    assert_eq!(h[5].candidates, 1);
}

/// Boxes are candidates the kernel commits at a t of its choosing
/// (`rayQueryGenerateIntersectionEXT`).
#[test]
fn boxes_commit_where_the_kernel_says() {
    let Some(vk) = ray_query_reference() else {
        return;
    };
    let unit = |x: f32| Aabb {
        min: [x, 0.0, -1.0],
        max: [x + 1.0, 1.0, 0.0],
    };
    let scene = TopLevel {
        bottom: vec![BottomLevel {
            geometries: vec![
                Geometry {
                    primitives: Primitives::Boxes(vec![unit(0.0), unit(2.0)]),
                    opaque: false,
                    no_duplicate_any_hit: false,
                },
                Geometry {
                    primitives: Primitives::Boxes(vec![unit(4.0)]),
                    opaque: true,
                    no_duplicate_any_hit: true,
                },
            ],
        }],
        instances: vec![Instance {
            custom_index: 5,
            transform: translate(0.0, 0.0, -1.0),
            ..Instance::of(0)
        }],
    };
    let boxed = |x: f32, box_t: Option<f32>| Ray {
        box_t,
        ..down(x, 0.5, 1.0)
    };
    let rays = [
        boxed(0.5, Some(2.5)),
        boxed(2.5, Some(2.25)),
        boxed(4.5, Some(2.75)),
        boxed(0.5, None),      // seen, not committed
        boxed(1.5, Some(2.5)), // between the boxes
    ];
    let h = trace(&vk, &scene, &rays);
    let generated = |h: &Hit, t: f32, geometry: i32, primitive: i32| {
        assert_eq!(h.kind, 2, "{h:?}");
        assert!(close(h.t, t), "{h:?}");
        assert_eq!(
            (h.custom_index, h.instance_id, h.geometry, h.primitive),
            (5, 0, geometry, primitive),
            "{h:?}"
        );
        assert_eq!((h.candidates, h.candidate_kinds), (1, 2), "{h:?}");
    };
    generated(&h[0], 2.5, 0, 0);
    generated(&h[1], 2.25, 0, 1);
    generated(&h[2], 2.75, 1, 0);
    // Negative controls: a box seen but not committed, no box.
    assert_eq!(h[3].kind, 0);
    assert_eq!((h[3].candidates, h[3].candidate_kinds), (1, 2));
    assert_eq!(h[4], no_hit());
}

/// Primitive culling (`RayTraversalPrimitiveCullingKHR`, which needs
/// `RayTracingPipelineFeaturesKHR.rayTraversalPrimitiveCulling`): the
/// `SkipTriangles` and `SkipAABBs` ray flags through a triangle above a
/// box.
#[test]
fn primitive_culling_skips_triangles_or_boxes() {
    let Some(vk) = ray_query_reference() else {
        return;
    };
    assert!(required_by_module(&kernel("tests/ray_query_culling.spv"))
        .unwrap()
        .contains(&"RayTracingPipelineFeaturesKHR.rayTraversalPrimitiveCulling".to_string()));
    let scene = TopLevel {
        bottom: vec![
            BottomLevel {
                geometries: vec![triangles(&[CCW], false)],
            },
            BottomLevel {
                geometries: vec![Geometry {
                    primitives: Primitives::Boxes(vec![Aabb {
                        min: [0.0, 0.0, -2.0],
                        max: [1.0, 1.0, -1.0],
                    }]),
                    opaque: false,
                    no_duplicate_any_hit: false,
                }],
            },
        ],
        instances: vec![Instance::of(0), Instance::of(1)],
    };
    let ray = |flags| Ray {
        flags,
        confirm: true,
        box_t: Some(2.5),
        ..down(0.25, 0.25, 1.0)
    };
    let h = trace_with(
        &vk,
        "tests/ray_query_culling.spv",
        &scene,
        &[
            ray(0),
            ray(SKIP_TRIANGLES),
            ray(SKIP_AABBS),
            ray(SKIP_TRIANGLES | SKIP_AABBS),
        ],
    );
    // Neither skipped: the triangle (t = 1), nearer than the box, is
    // committed (the box, beyond it, may or may not be seen first).
    assert_eq!((h[0].kind, h[0].t), (1, 1.0), "{:?}", h[0]);
    assert_eq!(h[0].candidate_kinds & 1, 1, "{:?}", h[0]);
    assert_eq!(
        (h[1].kind, h[1].t, h[1].candidate_kinds),
        (2, 2.5, 2),
        "{:?}",
        h[1]
    );
    assert_eq!(
        (h[2].kind, h[2].t, h[2].candidate_kinds),
        (1, 1.0, 1),
        "{:?}",
        h[2]
    );
    assert_eq!(h[3], no_hit());
}

/// What cannot be built or bound is refused, naming it.
#[test]
fn refusals_name_what_is_wrong() {
    let Some(vk) = ray_query_reference() else {
        return;
    };
    let bad = TopLevel {
        bottom: vec![two_geometries()],
        instances: vec![Instance::of(1)],
    };
    let e = vk.acceleration_structure(&bad).unwrap_err().to_string();
    assert_eq!(
        e,
        "acceleration structure: instance 0 places bottom-level structure 1, but there are 1"
    );
    // An acceleration structure on a storage binding, and a buffer on the
    // acceleration structure's.
    let p = ray_pipeline(&vk, "tests/ray_query.spv").unwrap();
    let scene = TopLevel {
        bottom: vec![two_geometries()],
        instances: vec![Instance::of(0)],
    };
    let accel = vk.acceleration_structure(&scene).unwrap();
    let buf = vk.buffer(&[0; 48]).unwrap();
    let e = vk
        .dispatch(
            &p,
            &[
                Bound::new(0, 0, &buf),
                Bound::of(0, 1, Resource::AccelerationStructure(&accel)),
                Bound::new(0, 2, &buf),
            ],
            &[],
            [1, 1, 1],
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(set 0, binding 0): a buffer is bound to a binding that takes an acceleration structure"),
        "{e}"
    );

    // A Reference created without the features: building says what to
    // enable, and the pipeline names what its module needs.
    let Some(plain) = reference(&[]) else { return };
    let e = plain.acceleration_structure(&scene).unwrap_err();
    assert!(
        matches!(&e, Error::AccelerationStructure(m) if m.contains("AccelerationStructureFeaturesKHR.accelerationStructure")),
        "{e}"
    );
    let e = ray_pipeline(&plain, "tests/ray_query.spv")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("capability RayQueryKHR, which needs feature RayQueryFeaturesKHR.rayQuery"),
        "{e}"
    );
}

/// The same through a session in a child process (the scene crosses the
/// pipe).
#[test]
fn a_session_in_a_child_process_builds_and_binds_scenes() {
    let Some(_) = ray_query_reference() else {
        return;
    };
    let serve = env!("CARGO_BIN_EXE_vulkan-reference-serve");
    let needs = required_by_module(&kernel("tests/ray_query.spv")).unwrap();
    let s = Session::new(
        &vulkan_reference::ReferenceOptions {
            features: needs,
            ..Default::default()
        },
        Place::Child(std::process::Command::new(serve)),
    )
    .unwrap();
    let words = kernel("tests/ray_query.spv");
    let bindings = bindings();
    let p = s
        .pipeline(&PipelineDesc {
            spirv: &words,
            entry: "main",
            bindings: &bindings,
            ..Default::default()
        })
        .unwrap();
    let scene = TopLevel {
        bottom: vec![
            two_geometries(),
            BottomLevel {
                geometries: vec![Geometry {
                    primitives: Primitives::Boxes(vec![Aabb {
                        min: [0.0, 0.0, -1.0],
                        max: [1.0, 1.0, 0.0],
                    }]),
                    opaque: false,
                    no_duplicate_any_hit: false,
                }],
            },
        ],
        instances: vec![
            Instance {
                custom_index: 9,
                sbt_offset: 0xFF_FFFF,
                transform: IDENTITY,
                ..Instance::of(0)
            },
            Instance {
                transform: translate(40.0, 0.0, 0.0),
                ..Instance::of(1)
            },
        ],
    };
    let accel = s.acceleration_structure(&scene).unwrap();
    let rays = [
        down(2.25, 0.5, 1.0),
        Ray {
            box_t: Some(1.5),
            ..down(40.5, 0.5, 1.0)
        },
    ];
    let ray_bytes: Vec<u8> = rays.iter().flat_map(Ray::bytes).collect();
    let rb = s.buffer(&ray_bytes).unwrap();
    let out = s.buffer(&[0; 2 * HIT_BYTES]).unwrap();
    s.dispatch(
        p,
        &[
            SessionBound::of(0, 0, SessionResource::AccelerationStructure(accel)),
            SessionBound::buffer(0, 1, rb),
            SessionBound::buffer(0, 2, out),
        ],
        &[],
        [2, 1, 1],
    )
    .unwrap();
    let h = hits(&s.read(out).unwrap());
    assert_hit(&h[0], 1.0, 9, 0, 1, 0);
    assert_eq!(h[0].sbt_offset, 0xFF_FFFF);
    assert_eq!((h[1].kind, h[1].instance_id, h[1].t), (2, 1, 1.5));
}
