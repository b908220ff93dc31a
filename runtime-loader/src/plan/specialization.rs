//! Function-constant values resolved against a kernel: what a pipeline is
//! created with, and the threadgroup size it implies.

use super::PlanError;
use crate::kernel::Kernel;
use crate::schema::ScalarType;
use crate::verify::bits_fit;

/// A value for an open specialization constant (a function constant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecValue {
    /// SpecId / function-constant id.
    pub id: u32,
    /// Raw bits, zero-extended (as `FunctionConstant.default_bits`).
    pub bits: u64,
}

impl SpecValue {
    /// A u32 value.
    pub fn u32(id: u32, value: u32) -> Self {
        SpecValue {
            id,
            bits: u64::from(value),
        }
    }

    /// An i32 value.
    pub fn i32(id: u32, value: i32) -> Self {
        SpecValue {
            id,
            bits: u64::from(value as u32),
        }
    }

    /// An f32 value.
    pub fn f32(id: u32, value: f32) -> Self {
        SpecValue {
            id,
            bits: u64::from(value.to_bits()),
        }
    }

    /// A bool value.
    pub fn bool(id: u32, value: bool) -> Self {
        SpecValue {
            id,
            bits: u64::from(value),
        }
    }
}

/// The value a function constant takes in a pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantValue {
    /// Function-constant id.
    pub id: u32,
    /// Its type.
    pub ty: ScalarType,
    /// Raw bits, zero-extended.
    pub bits: u64,
}

/// A kernel's function constants resolved against specialization values:
/// what a pipeline is created with, and the threadgroup size it implies.
///
/// Only the constants given a value are set at pipeline creation. The others
/// stay unset, so every declaration of their SpecId keeps its own default
/// (SPIR-V may declare one SpecId on several constants with different
/// defaults, e.g. a workgroup size and a block size; SPIRV-Cross's MSL reads
/// `is_function_constant_defined(c) ? c : default` for each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Specialization {
    kernel: String,
    constants: Vec<ConstantValue>,
    threads: [u32; 3],
}

impl Specialization {
    /// No function constant set: every declaration at its own default.
    pub fn defaults(kernel: &Kernel<'_>) -> Self {
        Specialization {
            kernel: kernel.name().to_owned(),
            constants: Vec::new(),
            threads: kernel.default_threads_per_threadgroup(),
        }
    }

    /// Sets `values`. Each id must name a function constant of the kernel,
    /// at most once, with bits that fit its type; a threadgroup dimension
    /// driven by a constant takes its value, and the resulting threadgroup
    /// must fit `max_threads_per_threadgroup`.
    pub fn new(kernel: &Kernel<'_>, values: &[SpecValue]) -> Result<Self, PlanError> {
        let mut spec = Self::defaults(kernel);
        let name = || kernel.name().to_owned();
        for (i, v) in values.iter().enumerate() {
            if values[..i].iter().any(|o| o.id == v.id) {
                return Err(PlanError::DuplicateSpecValue {
                    kernel: name(),
                    id: v.id,
                });
            }
            let Some(c) = kernel.function_constant(v.id) else {
                if kernel.baked_constants().any(|b| b.id() == v.id) {
                    return Err(PlanError::BakedSpecConstant {
                        kernel: name(),
                        id: v.id,
                    });
                }
                return Err(PlanError::UnknownSpecConstant {
                    kernel: name(),
                    id: v.id,
                });
            };
            if !bits_fit(c.type_(), v.bits) {
                return Err(PlanError::SpecValueOutOfRange {
                    kernel: name(),
                    id: v.id,
                    ty: c.type_().variant_name().unwrap_or("?"),
                    bits: v.bits,
                });
            }
            spec.constants.push(ConstantValue {
                id: v.id,
                ty: c.type_(),
                bits: v.bits,
            });
        }
        spec.constants.sort_by_key(|c| c.id);
        let limit = kernel.max_threads_per_threadgroup();
        for (i, d) in kernel.threadgroup_size().iter().enumerate() {
            let Some(id) = d.spec_id else { continue };
            let Some(c) = spec.constants.iter().find(|c| c.id == id) else {
                continue; // not set: the dimension's own default
            };
            let size = match sign_extend(c.ty, c.bits) {
                Some(v) if (1..=i64::from(limit)).contains(&v) => v as u32,
                _ => {
                    return Err(PlanError::ThreadgroupDimension {
                        kernel: name(),
                        dim: i,
                        spec_id: id,
                        bits: c.bits,
                        limit,
                    })
                }
            };
            spec.threads[i] = size;
        }
        let total: u64 = spec.threads.iter().map(|&t| u64::from(t)).product();
        if total > u64::from(limit) {
            return Err(PlanError::ThreadgroupTooLarge {
                kernel: name(),
                size: spec.threads,
                limit,
            });
        }
        Ok(spec)
    }

    /// Name of the kernel it belongs to.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// The function constants set, by ascending id: a pipeline sets these
    /// and leaves every other function constant of the kernel unset.
    pub fn constants(&self) -> &[ConstantValue] {
        &self.constants
    }

    /// Threads per threadgroup after specialization.
    pub fn threads_per_threadgroup(&self) -> [u32; 3] {
        self.threads
    }
}

/// An integer constant's value, sign-extended for signed types.
fn sign_extend(ty: ScalarType, bits: u64) -> Option<i64> {
    Some(match ty {
        ScalarType::Int8 => i64::from(bits as u8 as i8),
        ScalarType::Int16 => i64::from(bits as u16 as i16),
        ScalarType::Int32 => i64::from(bits as u32 as i32),
        ScalarType::Int64 => bits as i64,
        ScalarType::UInt8 | ScalarType::UInt16 | ScalarType::UInt32 | ScalarType::UInt64 => {
            i64::try_from(bits).ok()?
        }
        _ => return None,
    })
}
