//! MSL → the C++ the CPU backend compiles.
//!
//! Every rewrite keeps the line structure, so clang's line numbers are the
//! MSL's (the file starts with `#line 1 "KERNEL.metal"`):
//! - SPIRV-Cross's `spvUnsafeArray` template is blanked (the shim has one);
//! - `constant T x [[function_constant(N)]];` becomes a constexpr holding
//!   the pipeline's value, and `is_function_constant_defined(x)` true;
//! - a `threadgroup` local becomes a reference into the threadgroup's arena
//!   (rejected if its type depends on a function constant: invalid MSL);
//! - float literals without a suffix get `f` (MSL's `0.5` is a float), `h`
//!   literals become halves;
//! - vector constructors `float4(…)` become `metal::halc_vec<float4>(…)`,
//!   and `not(v)` `metal::halc_not(v)`;
//! - comparisons `a < b` become `metal::halc_lt(a, b)` (and `halc_le`,
//!   `halc_gt`, `halc_ge`, `halc_eq`, `halc_ne`): MSL compares vectors into
//!   boolN, clang into -1/0 masks (`comparisons.rs`).
//!
//! Then an entry wrapper is appended, generated from the kernel's parameter
//! list: each `[[buffer(N)]]` reads slot N of the table the plan filled
//! (an acceleration structure parameter takes the slot's value, its
//! resource id),
//! each `[[texture(N)]]` and `[[sampler(N)]]` (or array of them) the
//! texture and sampler slots after the buffers', each builtin the
//! executor's thread state.

mod comparisons;
mod decls;
mod params;
mod tokens;

use std::collections::BTreeSet;

use super::CpuError;
use crate::plan::ConstantValue;
use comparisons::rewrite_comparisons;
use decls::{blank_unsafe_array, parse_function_constant, parse_threadgroup_local};
use params::{kernel_params, parse_param};
pub(super) use params::{Param, ParamKind};
use tokens::{idents, rewrite_tokens, UNSUPPORTED_TEXTURE_WORDS};

/// Where `[[texture(N)]]` is in the slot table the entry reads: after
/// Metal's 31 buffer slots.
pub(super) const TEXTURE_SLOT_BASE: usize = 31;
/// Where `[[sampler(N)]]` is: after Metal's 128 texture slots.
pub(super) const SAMPLER_SLOT_BASE: usize = TEXTURE_SLOT_BASE + 128;
/// The slot table's length: and Metal's 16 sampler slots.
pub(super) const SLOT_COUNT: usize = SAMPLER_SLOT_BASE + 16;

/// The C++ for one pipeline.
#[derive(Debug, Clone)]
pub(super) struct Prepared {
    pub(super) source: String,
    pub(super) params: Vec<Param>,
}

/// Prepares the C++ of kernel `kernel` (SPIR-V name), MSL function
/// `msl_name`, with its function constants at `constants`.
pub(super) fn prepare(
    msl: &str,
    kernel: &str,
    msl_name: &str,
    constants: &[ConstantValue],
) -> Result<Prepared, CpuError> {
    // Texture constructs the shim does not implement: say so before clang
    // does. A `constexpr sampler` (SPIRV-Cross's immutable samplers) would
    // need the shim's sampler to hold its state by value, which an
    // argument-buffer member (a resource id) cannot.
    if let Some((n, word)) = msl.lines().enumerate().find_map(|(n, l)| {
        let constexpr_sampler = idents(l)
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| w == ["constexpr", "sampler"]);
        if constexpr_sampler {
            return Some((n + 1, "constexpr sampler".to_string()));
        }
        idents(l)
            .find(|w| UNSUPPORTED_TEXTURE_WORDS.contains(w))
            .map(|w| (n + 1, w.to_string()))
    }) {
        return Err(CpuError::Unsupported {
            kernel: kernel.into(),
            what: format!("`{word}` at MSL line {n} (multisampled and depth textures, comparison sampling and constexpr samplers are not implemented)"),
        });
    }
    let (sig_line, raw_params) =
        kernel_params(msl, msl_name).ok_or_else(|| CpuError::InvalidMsl {
            kernel: kernel.into(),
            line: 1,
            message: format!("no `kernel void {msl_name}(…)` in the MSL"),
        })?;
    let params = raw_params
        .iter()
        .map(|p| parse_param(kernel, sig_line, p))
        .collect::<Result<Vec<_>, _>>()?;

    let mut lines: Vec<String> = msl.lines().map(str::to_string).collect();
    blank_unsafe_array(&mut lines);

    // Function constants, and every global `constant` derived from one.
    let mut from_constants: BTreeSet<String> = BTreeSet::new();
    for line in &mut lines {
        if let Some((ty, name, id)) = parse_function_constant(line) {
            let (value, defined) = match constants.iter().find(|c| c.id == id) {
                Some(c) => (format!("metal::halc_fc<{ty}>({:#x}ull)", c.bits), true),
                None => (format!("{ty}()"), false),
            };
            from_constants.insert(name.to_string());
            *line = format!(
                "static constexpr {ty} {name} = {value}; static constexpr bool halc_fcdef_{name} = {defined};"
            );
            continue;
        }
        let t = line.trim_start();
        if line.len() == t.len() && t.starts_with("constant ") {
            if let Some((decl, init)) = t.split_once('=') {
                if idents(init).any(|w| from_constants.contains(w)) {
                    if let Some(name) = idents(decl.split("[[").next().unwrap_or(decl)).last() {
                        from_constants.insert(name.to_string());
                    }
                }
                // A program-scope `constant` is a compile-time constant in
                // MSL (SPIRV-Cross sizes arrays with them: `constant uint
                // _17 = SPIRV_CROSS_CONSTANT_ID_0;`); `static const` keeps
                // integral ones usable in constant expressions in C++.
                *line = format!("static const {}", &line["constant ".len()..]);
            }
        }
    }

    // Threadgroup locals.
    for (n, line) in lines.iter_mut().enumerate() {
        let Some((indent, ty, name, dims)) = parse_threadgroup_local(line) else {
            continue;
        };
        if let Some(fc) = idents(ty)
            .chain(idents(dims))
            .find(|w| from_constants.contains(*w))
        {
            return Err(CpuError::InvalidMsl {
                kernel: kernel.into(),
                line: n + 1,
                message: format!(
                    "threadgroup variable `{name}` has a size that depends on function constant `{fc}`; MSL needs threadgroup sizes fixed at compile time"
                ),
            });
        }
        *line = format!(
            "{indent}typedef {ty} halc_tg_{name}_t{dims}; halc_tg_{name}_t& {name} = *metal::halc_tg_alloc<halc_tg_{name}_t>();"
        );
    }

    let mut body = lines.join("\n");
    body.push('\n');
    let body = rewrite_comparisons(&rewrite_tokens(&body));

    let mut src = String::with_capacity(body.len() + 2048);
    src.push_str(&format!("#line 1 \"{kernel}.metal\"\n"));
    src.push_str(&body);
    src.push_str("#line 1 \"halc-entry.cpp\"\n");
    src.push_str(
        "extern \"C\" __attribute__((visibility(\"default\"))) unsigned long long halc_abi() { return HALC_ABI; }\n",
    );
    src.push_str(
        "extern \"C\" __attribute__((visibility(\"default\"))) void halc_entry(void* const* halc_slots, metal::halc_thread* halc_t) {\n",
    );
    src.push_str("    metal::halc_cur = halc_t;\n");
    src.push_str("    const metal::halc_group* halc_g = halc_t->group;\n");
    src.push_str("    (void)halc_g;\n");
    src.push_str(&format!("    {msl_name}("));
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            src.push_str(", ");
        }
        src.push_str("\n        ");
        match p.kind {
            ParamKind::Buffer(n) if p.ty.trim_end().ends_with('&') => src.push_str(&format!(
                "*reinterpret_cast<std::remove_reference_t<{}>*>(halc_slots[{n}])",
                p.ty
            )),
            // An acceleration structure is its resource id: the slot's value.
            ParamKind::Buffer(n) if is_acceleration_structure(&p.ty) => src.push_str(&format!(
                "std::remove_cv_t<{}>::halc_from_slot(halc_slots[{n}])",
                p.ty
            )),
            ParamKind::Buffer(n) => {
                src.push_str(&format!("reinterpret_cast<{}>(halc_slots[{n}])", p.ty))
            }
            ParamKind::Texture { index, .. } => src.push_str(&format!(
                "metal::halc_bind<{}>(halc_slots + {})",
                p.ty,
                TEXTURE_SLOT_BASE + index as usize
            )),
            ParamKind::Sampler { index, .. } => src.push_str(&format!(
                "metal::halc_bind<{}>(halc_slots + {})",
                p.ty,
                SAMPLER_SLOT_BASE + index as usize
            )),
            ParamKind::Builtin(b) => {
                let [x, y, z] = b.exprs();
                src.push_str(&format!("metal::halc_builtin<{}>({x}, {y}, {z})", p.ty));
            }
        }
    }
    src.push_str(");\n}\n");
    // The size of each struct a buffer parameter refers to, so that a
    // dispatch binding fewer bytes fails as Metal's validation fails it.
    src.push_str(
        "extern \"C\" __attribute__((visibility(\"default\"))) void halc_param_bytes(unsigned long long* halc_out) {\n",
    );
    for (i, p) in params.iter().enumerate() {
        let size = match p.kind {
            ParamKind::Buffer(_) if p.ty.trim_end().ends_with('&') => {
                format!("sizeof(std::remove_reference_t<{}>)", p.ty)
            }
            _ => "0".to_string(),
        };
        src.push_str(&format!("    halc_out[{i}] = {size};\n"));
    }
    src.push_str("}\n");
    Ok(Prepared {
        source: src,
        params,
    })
}

/// Whether a parameter type is an acceleration structure (MSL 2.4's
/// `raytracing::acceleration_structure<…>`, or MSL 2.3's
/// `raytracing::instance_acceleration_structure` /
/// `primitive_acceleration_structure`), passed by value as its resource id.
fn is_acceleration_structure(ty: &str) -> bool {
    idents(ty).any(|w| {
        matches!(
            w,
            "acceleration_structure"
                | "instance_acceleration_structure"
                | "primitive_acceleration_structure"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::params::Builtin;
    use super::*;

    #[test]
    fn a_threadgroup_array_sized_by_a_function_constant_is_invalid_msl() {
        let msl = "constant uint n_tmp [[function_constant(0)]];\nconstant uint n = is_function_constant_defined(n_tmp) ? n_tmp : 64u;\nkernel void main0(uint3 id [[thread_position_in_grid]])\n{\n    threadgroup spvUnsafeArray<float, n> tile;\n}\n";
        let e = prepare(msl, "main", "main0", &[]).unwrap_err();
        assert!(
            matches!(&e, CpuError::InvalidMsl { line: 5, message, .. } if message.contains("function constant `n`")),
            "{e}"
        );
    }

    #[test]
    fn an_acceleration_structure_parameter_takes_its_slots_value() {
        let msl = "kernel void main0(constant Params& _18 [[buffer(1)]], raytracing::acceleration_structure<raytracing::instancing> AS0 [[buffer(0)]], const raytracing::instance_acceleration_structure AS1 [[buffer(2)]])\n{\n}\n";
        let p = prepare(msl, "main", "main0", &[]).unwrap();
        assert_eq!(p.params[1].kind, ParamKind::Buffer(0));
        assert!(p.source.contains(
            "std::remove_cv_t<raytracing::acceleration_structure<raytracing::instancing>>::halc_from_slot(halc_slots[0])"
        ));
        assert!(p.source.contains(
            "std::remove_cv_t<const raytracing::instance_acceleration_structure>::halc_from_slot(halc_slots[2])"
        ));
        // A buffer is still its slot's pointer.
        assert!(p.source.contains(
            "*reinterpret_cast<std::remove_reference_t<constant Params&>*>(halc_slots[1])"
        ));
        assert!(!is_acceleration_structure("device float*"));
    }

    #[test]
    fn parameters_are_read_from_the_signature() {
        let msl = "kernel void main0(constant spvDescriptorSetBuffer0& spvDescriptorSet0 [[buffer(0)]], constant PC& pc [[buffer(1)]], uint3 gl_GlobalInvocationID [[thread_position_in_grid]])\n{\n}\n";
        let p = prepare(msl, "main", "main0", &[]).unwrap();
        assert_eq!(p.params.len(), 3);
        assert_eq!(p.params[0].kind, ParamKind::Buffer(0));
        assert_eq!(p.params[1].name, "pc");
        assert_eq!(
            p.params[2].kind,
            ParamKind::Builtin(Builtin::ThreadPositionInGrid)
        );
        let p = prepare(
            "kernel void main0(texture2d<float> t [[texture(3)]], array<sampler, 2> s [[sampler(1)]])\n{}\n",
            "main",
            "main0",
            &[],
        )
        .unwrap();
        assert_eq!(p.params[0].kind, ParamKind::Texture { index: 3, count: 1 });
        assert_eq!(p.params[1].kind, ParamKind::Sampler { index: 1, count: 2 });
        for refused in [
            "kernel void main0(depth2d<float> t [[texture(0)]])\n{}\n",
            "constexpr sampler s(filter::linear);\nkernel void main0(texture2d<float> t [[texture(0)]])\n{}\n",
        ] {
            let e = prepare(refused, "main", "main0", &[]).unwrap_err();
            assert!(matches!(e, CpuError::Unsupported { .. }), "{e}");
        }
    }
}
