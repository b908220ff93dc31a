//! What an acceleration structure holds, as plain data: the one
//! description the Metal backend, the CPU backend and the Vulkan reference
//! each build their own acceleration structure from, so the three trace
//! rays through the same scene.
//!
//! The model is Vulkan's (and AmberScript's `ACCELERATION_STRUCTURE`): a
//! [`TopLevel`] structure holds [`Instance`]s, each placing one
//! [`BottomLevel`] structure with a 3 × 4 transform; a bottom-level
//! structure holds [`Geometry`]s, all triangles or all axis-aligned boxes.
//! Metal's is the same two levels (`MTLInstanceAccelerationStructure` over
//! `MTLPrimitiveAccelerationStructure`s), which is what SPIRV-Cross's
//! `raytracing::acceleration_structure<raytracing::instancing>` reads.
//!
//! [`TopLevel::check`] refuses what neither API can build, naming the
//! instance or geometry; the backends call it before building.

use std::fmt;

/// A 3 × 4 row-major affine transform (`VkTransformMatrixKHR`): row `r`
/// gives output coordinate `r` as `m[r][0] x + m[r][1] y + m[r][2] z +
/// m[r][3]`.
pub type Transform = [[f32; 4]; 3];

/// The identity [`Transform`].
pub const IDENTITY: Transform = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// The corner with the smallest coordinates.
    pub min: [f32; 3],
    /// The corner with the largest coordinates.
    pub max: [f32; 3],
}

/// The primitives of one geometry.
#[derive(Debug, Clone, PartialEq)]
pub enum Primitives {
    /// Triangles, three vertices each, in the order that decides which
    /// side is the front (see the backends' docs for the winding rule).
    Triangles(Vec<[[f32; 3]; 3]>),
    /// Axis-aligned boxes, whose hits the kernel decides
    /// (`rayQueryGenerateIntersectionEXT`).
    Boxes(Vec<Aabb>),
}

impl Primitives {
    /// How many primitives.
    pub fn len(&self) -> usize {
        match self {
            Primitives::Triangles(t) => t.len(),
            Primitives::Boxes(b) => b.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One geometry of a bottom-level structure.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    /// Its primitives.
    pub primitives: Primitives,
    /// `VK_GEOMETRY_OPAQUE_BIT_KHR` / `MTLAccelerationStructureGeometryDescriptor.opaque`:
    /// an opaque triangle is committed without the kernel seeing it as a
    /// candidate.
    pub opaque: bool,
    /// `VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR` /
    /// `allowDuplicateIntersectionFunctionInvocation = NO`.
    pub no_duplicate_any_hit: bool,
}

/// A bottom-level structure: geometries of one kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BottomLevel {
    /// Its geometries, in geometry-index order.
    pub geometries: Vec<Geometry>,
}

/// `VkGeometryInstanceFlagBitsKHR` (and Metal's
/// `MTLAccelerationStructureInstanceOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InstanceFlags {
    /// `TRIANGLE_FACING_CULL_DISABLE`: face culling does not apply.
    pub triangle_facing_cull_disable: bool,
    /// `TRIANGLE_FLIP_FACING`: front and back are swapped.
    pub triangle_flip_facing: bool,
    /// `FORCE_OPAQUE`: every geometry of the instance is opaque.
    pub force_opaque: bool,
    /// `FORCE_NO_OPAQUE`: no geometry of the instance is opaque.
    pub force_no_opaque: bool,
}

/// One placement of a bottom-level structure in a top-level one.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Index into [`TopLevel::bottom`].
    pub bottom: usize,
    /// Object to world.
    pub transform: Transform,
    /// `instanceCustomIndex` (24 bits): `rayQueryGetIntersectionInstanceCustomIndexEXT`,
    /// Metal's `user_instance_id`.
    pub custom_index: u32,
    /// Visibility mask (8 bits), ANDed with the ray's cull mask.
    pub mask: u8,
    /// `instanceShaderBindingTableRecordOffset` (24 bits); ray queries only
    /// read it back (`rayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetEXT`).
    pub sbt_offset: u32,
    /// Culling and opacity overrides.
    pub flags: InstanceFlags,
}

impl Instance {
    /// An instance of `bottom` with the identity transform, custom index
    /// 0, mask 0xFF, no flags: AmberScript's `BLAS_INSTANCE USE`.
    pub fn of(bottom: usize) -> Self {
        Instance {
            bottom,
            transform: IDENTITY,
            custom_index: 0,
            mask: 0xFF,
            sbt_offset: 0,
            flags: InstanceFlags::default(),
        }
    }
}

/// A top-level structure and the bottom-level ones its instances place.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TopLevel {
    /// The bottom-level structures.
    pub bottom: Vec<BottomLevel>,
    /// The instances, in instance-index order (`rayQueryGetIntersectionInstanceIdEXT`).
    pub instances: Vec<Instance>,
}

/// The largest 24-bit value (custom index, SBT offset).
pub const MAX_24_BIT: u32 = (1 << 24) - 1;

/// What makes a [`TopLevel`] unbuildable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SceneError {
    /// An instance names a bottom-level structure that is not there.
    NoSuchBottomLevel {
        /// The instance.
        instance: usize,
        /// The index it names.
        bottom: usize,
        /// How many there are.
        count: usize,
    },
    /// A 24-bit field holds more than 24 bits.
    TooWide {
        /// The instance.
        instance: usize,
        /// `"custom index"` or `"shader binding table offset"`.
        field: &'static str,
        /// The value.
        value: u32,
    },
    /// A bottom-level structure mixes triangles and boxes (Vulkan builds
    /// one kind per structure).
    MixedGeometry {
        /// The bottom-level structure.
        bottom: usize,
    },
    /// A coordinate or transform entry is NaN or infinite.
    NotFinite {
        /// Where: e.g. `"bottom 0 geometry 1 primitive 2"`, `"instance 3 transform"`.
        place: String,
    },
    /// A box whose `min` exceeds its `max` on some axis.
    InvertedBox {
        /// The bottom-level structure.
        bottom: usize,
        /// The geometry.
        geometry: usize,
        /// The box.
        primitive: usize,
    },
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::NoSuchBottomLevel {
                instance,
                bottom,
                count,
            } => write!(
                f,
                "instance {instance} places bottom-level structure {bottom}, but there are {count}"
            ),
            SceneError::TooWide {
                instance,
                field,
                value,
            } => write!(
                f,
                "instance {instance}: {field} {value} does not fit in 24 bits"
            ),
            SceneError::MixedGeometry { bottom } => write!(
                f,
                "bottom-level structure {bottom} mixes triangles and boxes (one kind per structure)"
            ),
            SceneError::NotFinite { place } => {
                write!(f, "{place}: a coordinate is NaN or infinite")
            }
            SceneError::InvertedBox {
                bottom,
                geometry,
                primitive,
            } => write!(
                f,
                "bottom-level structure {bottom} geometry {geometry} box {primitive}: min exceeds max"
            ),
        }
    }
}

impl std::error::Error for SceneError {}

impl TopLevel {
    /// Refuses what neither Vulkan nor Metal can build.
    pub fn check(&self) -> Result<(), SceneError> {
        for (b, bottom) in self.bottom.iter().enumerate() {
            let mut kinds = bottom
                .geometries
                .iter()
                .map(|g| matches!(g.primitives, Primitives::Triangles(_)));
            if let Some(first) = kinds.next() {
                if kinds.any(|k| k != first) {
                    return Err(SceneError::MixedGeometry { bottom: b });
                }
            }
            for (g, geometry) in bottom.geometries.iter().enumerate() {
                let place =
                    |p: usize| format!("bottom-level structure {b} geometry {g} primitive {p}");
                match &geometry.primitives {
                    Primitives::Triangles(tris) => {
                        for (p, t) in tris.iter().enumerate() {
                            if !t.iter().flatten().all(|c| c.is_finite()) {
                                return Err(SceneError::NotFinite { place: place(p) });
                            }
                        }
                    }
                    Primitives::Boxes(boxes) => {
                        for (p, a) in boxes.iter().enumerate() {
                            if !a.min.iter().chain(&a.max).all(|c| c.is_finite()) {
                                return Err(SceneError::NotFinite { place: place(p) });
                            }
                            if (0..3).any(|i| a.min[i] > a.max[i]) {
                                return Err(SceneError::InvertedBox {
                                    bottom: b,
                                    geometry: g,
                                    primitive: p,
                                });
                            }
                        }
                    }
                }
            }
        }
        for (i, inst) in self.instances.iter().enumerate() {
            if inst.bottom >= self.bottom.len() {
                return Err(SceneError::NoSuchBottomLevel {
                    instance: i,
                    bottom: inst.bottom,
                    count: self.bottom.len(),
                });
            }
            for (field, value) in [
                ("custom index", inst.custom_index),
                ("shader binding table offset", inst.sbt_offset),
            ] {
                if value > MAX_24_BIT {
                    return Err(SceneError::TooWide {
                        instance: i,
                        field,
                        value,
                    });
                }
            }
            if !inst.transform.iter().flatten().all(|c| c.is_finite()) {
                return Err(SceneError::NotFinite {
                    place: format!("instance {i} transform"),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle() -> Geometry {
        Geometry {
            primitives: Primitives::Triangles(vec![[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]),
            opaque: true,
            no_duplicate_any_hit: false,
        }
    }

    fn boxes(min: [f32; 3], max: [f32; 3]) -> Geometry {
        Geometry {
            primitives: Primitives::Boxes(vec![Aabb { min, max }]),
            opaque: false,
            no_duplicate_any_hit: false,
        }
    }

    #[test]
    fn a_well_formed_scene_passes() {
        let scene = TopLevel {
            bottom: vec![
                BottomLevel {
                    geometries: vec![triangle(), triangle()],
                },
                BottomLevel {
                    geometries: vec![boxes([0.0; 3], [1.0; 3])],
                },
            ],
            instances: vec![Instance::of(0), Instance::of(1), Instance::of(0)],
        };
        assert_eq!(scene.check(), Ok(()));
    }

    #[test]
    fn unbuildable_scenes_are_refused_naming_the_part() {
        let mut scene = TopLevel {
            bottom: vec![BottomLevel {
                geometries: vec![triangle()],
            }],
            instances: vec![Instance::of(1)],
        };
        assert_eq!(
            scene.check().unwrap_err().to_string(),
            "instance 0 places bottom-level structure 1, but there are 1"
        );
        scene.instances[0] = Instance {
            custom_index: 1 << 24,
            ..Instance::of(0)
        };
        assert!(matches!(
            scene.check(),
            Err(SceneError::TooWide {
                field: "custom index",
                ..
            })
        ));
        scene.instances[0] = Instance::of(0);
        scene.bottom[0].geometries.push(boxes([0.0; 3], [1.0; 3]));
        assert_eq!(scene.check(), Err(SceneError::MixedGeometry { bottom: 0 }));
        scene.bottom[0].geometries = vec![boxes([0.0, 2.0, 0.0], [1.0; 3])];
        assert_eq!(
            scene.check(),
            Err(SceneError::InvertedBox {
                bottom: 0,
                geometry: 0,
                primitive: 0
            })
        );
        scene.bottom[0].geometries = vec![triangle()];
        scene.instances[0].transform[1][3] = f32::NAN;
        assert_eq!(
            scene.check().unwrap_err().to_string(),
            "instance 0 transform: a coordinate is NaN or infinite"
        );
    }
}
