//! A pipeline prepared once for every side ([`Prepared`]): its SPIR-V,
//! the CPU side's SIMD width, and halc's translation with the
//! `SPECIALIZE` values.

use runtime_loader::cpu;
use runtime_loader::plan::SpecValue;

use super::module::module;
use super::runner::{Runner, Stop};
use super::side::{MetalPrepared, Prepared};
use crate::model::Input;
use crate::run::amber::data::{encode, Scalar};
use crate::run::amber::{Pipeline, RequiredSize};

impl<'s> Runner<'s> {
    /// The CPU side's SIMD width for pipeline `p`: its `SUBGROUP
    /// REQUIRED_SIZE`, else, comparing a kernel that uses subgroup
    /// operations, the Vulkan device's subgroup size (results depend on
    /// it), else Apple's 32. `Err` says why the pipeline cannot run here.
    pub(super) fn simd_width(&self, p: &Pipeline, subgroups: bool) -> Result<u32, String> {
        let vulkan = self.sides.iter().find_map(|s| s.subgroup_size());
        let range = self.sides.iter().find_map(|s| s.subgroup_range());
        let cpu = self.sides.iter().any(|s| s.subgroup_size().is_none());
        let emulated = |n: u32| cpu::SIMD_WIDTHS.contains(&n);
        // MIN and MAX are the device's: the Vulkan device's when one runs,
        // else Apple's 32 lanes.
        let required = p.subgroup_size.map(|r| match (r, range) {
            (RequiredSize::Exact(n), _) => n,
            (RequiredSize::Min, Some((min, _))) => min,
            (RequiredSize::Max, Some((_, max))) => max,
            (RequiredSize::Min | RequiredSize::Max, None) => cpu::SIMD_WIDTH,
        });
        if let Some(n) = required {
            if let Some((min, max)) = range.filter(|(min, max)| !(*min..=*max).contains(&n)) {
                let sizes = if min == max {
                    format!("{min}")
                } else {
                    format!("{min} to {max}")
                };
                return Err(format!(
                    "the pipeline requires subgroups of {n} lanes (SUBGROUP REQUIRED_SIZE) and the Vulkan device's are {sizes}: not run"
                ));
            }
            if cpu && !emulated(n) {
                return Err(format!(
                    "the pipeline requires subgroups of {n} lanes (SUBGROUP REQUIRED_SIZE); the CPU backend emulates SIMD groups of {} lanes: not run",
                    cpu::SIMD_WIDTHS_TEXT
                ));
            }
            return Ok(n);
        }
        match vulkan {
            Some(v) if cpu && subgroups => {
                if emulated(v) {
                    Ok(v)
                } else {
                    Err(format!(
                        "the kernel uses subgroup operations and the Vulkan device's subgroups are {v} lanes, a width the CPU backend does not emulate ({}): its results legitimately differ, not compared",
                        cpu::SIMD_WIDTHS_TEXT
                    ))
                }
            }
            _ => Ok(cpu::SIMD_WIDTH),
        }
    }

    /// The pipeline's shader as SPIR-V and, when a Metal side runs, as
    /// halc's executable. The Vulkan side needs nothing of halc: a module
    /// halc refuses still runs there.
    pub(super) fn prepare(&self, p: &Pipeline) -> Result<Prepared, Stop> {
        let bytes = match self.modules.get(&p.name) {
            Some(m) => m.clone()?,
            None => module(self.name, self.script, p, self.opts)?,
        };
        let input = Input::new(format!("{}.spv", p.shader), bytes);
        let words =
            crate::spirv::Words::from_bytes(&input.bytes).map_err(|e| Stop::Fail(e.to_string()))?;
        // `--spec` values are baked into every module that declares the
        // SpecId (a pipeline's own SPECIALIZE wins); the Vulkan side gets
        // them as specialization values.
        let mut specs = self.opts.compile.specs.clone();
        let mut vulkan_specs = Vec::new();
        if !specs.is_empty() {
            let declared: Vec<crate::spirv::SpecConstant> = crate::spirv::reflect(&words)
                .map(|i| i.spec_constants)
                .unwrap_or_default();
            specs.retain(|v| {
                declared.iter().any(|c| c.id == v.id) && !p.specialize.iter().any(|s| s.id == v.id)
            });
            for v in &specs {
                let c = declared
                    .iter()
                    .find(|c| c.id == v.id)
                    .expect("retained above");
                let bits = crate::spirv::specialize::parse_value(c.ty, &v.text)
                    .map_err(|m| Stop::Fail(format!("--spec {}: {m}", v.id)))?;
                // Vulkan takes a bool as a 4-byte VkBool32, the rest at their width.
                let width = match c.ty {
                    crate::spirv::ScalarType::Bool => 4,
                    t => (t.bits() / 8) as usize,
                };
                vulkan_specs.push((v.id, bits.0.to_le_bytes()[..width].to_vec()));
            }
        }
        let metal_runs = self.sides.iter().any(|s| s.subgroup_size().is_none());
        let metal = if metal_runs {
            Some(self.compile_metal(p, &input, specs)?)
        } else {
            None
        };
        Ok(Prepared {
            spirv: words.as_slice().to_vec(),
            metal,
            vulkan_specs,
            simd_width: cpu::SIMD_WIDTH,
        })
    }

    /// halc's translation of a pipeline's module, with `specs` (the
    /// `--spec` values it declares) baked.
    pub(super) fn compile_metal(
        &self,
        p: &Pipeline,
        input: &Input,
        specs: Vec<crate::spirv::SpecValue>,
    ) -> Result<MetalPrepared, Stop> {
        let mut options = self.opts.compile.clone();
        options.entries = vec![p.entry.clone()];
        options.specs = specs.clone();
        runtime_array_counts(p, input, &mut options.layout.map);
        // A kernel that needs a newer MSL than `--msl-version` asks for, or
        // more than Metal provides, is one the target cannot run: a skip,
        // as a missing feature is.
        let refused = |e: crate::model::Error| match e.kind {
            crate::model::ErrorKind::MslVersion { .. } | crate::model::ErrorKind::MetalLimit(_) => {
                Stop::Skip(e.to_string())
            }
            _ => Stop::Fail(e.to_string()),
        };
        let first =
            crate::driver::compile(std::slice::from_ref(input), &options).map_err(refused)?;
        let k = &first.kernels[0];
        // SpecIds that are no function constant (SPIRV-Cross fixed them, as
        // they size arrays) are baked for the Metal side.
        let open: Vec<u32> = k.function_constants.iter().map(|c| c.id).collect();
        let (set, bake): (Vec<_>, Vec<_>) = p.specialize.iter().partition(|s| open.contains(&s.id));
        let values = set
            .iter()
            .map(|s| spec_value(s))
            .collect::<Result<Vec<_>, _>>()?;
        let tamper = self.opts.tamper;
        let prepared = |c: &crate::model::Compiled| {
            let k = &c.kernels[0];
            MetalPrepared {
                executable: match tamper {
                    Some(f) => {
                        let mut c = c.clone();
                        f(&mut c);
                        c.to_flatbuffer()
                    }
                    None => c.to_flatbuffer(),
                },
                kernel: k.name.clone(),
                values: values.clone(),
                push_size: k.entry.push_constant_size.unwrap_or(0),
                subgroups: k.uses_subgroups(),
                min_sizes: k
                    .entry
                    .bindings
                    .iter()
                    .map(|b| ((b.set, b.binding), b.min_size))
                    .collect(),
            }
        };
        if bake.is_empty() {
            return Ok(prepared(&first));
        }
        options.specs = specs;
        options
            .specs
            .extend(bake.iter().map(|s| crate::spirv::SpecValue {
                id: s.id,
                text: s.value.clone(),
            }));
        let baked =
            crate::driver::compile(std::slice::from_ref(input), &options).map_err(refused)?;
        Ok(prepared(&baked))
    }
}

/// Gives every runtime-sized descriptor array of `p`'s entry point the
/// element count of its `BIND … BUFFER_ARRAY` (what amber's descriptor set
/// layout has), unless `map` (`--binding-map`) already gives one.
fn runtime_array_counts(p: &Pipeline, input: &Input, map: &mut crate::msl::BindingMap) {
    let Ok(words) = crate::spirv::Words::from_bytes(&input.bytes) else {
        return;
    };
    let Ok(info) = crate::spirv::reflect(&words) else {
        return;
    };
    let Some(entry) = info.entry_points.iter().find(|e| e.name == p.entry) else {
        return;
    };
    for b in entry.bindings.iter().filter(|b| b.count == 0) {
        let elements = p
            .binds
            .iter()
            .find(|bind| bind.kind.slot() == Some((b.set, b.binding)))
            .map(|bind| bind.elements.len() as u32);
        let Some(count) = elements.filter(|&n| n > 0) else {
            continue;
        };
        match map
            .bindings
            .iter_mut()
            .find(|pin| (pin.set, pin.binding) == (b.set, b.binding))
        {
            Some(pin) => {
                pin.count.get_or_insert(count);
            }
            None => map.bindings.push(crate::msl::layout::Pin {
                set: b.set,
                binding: b.binding,
                count: Some(count),
                ..Default::default()
            }),
        }
    }
}

/// A `SPECIALIZE id AS type value` as the bits Metal sets.
pub(super) fn spec_value(s: &crate::run::amber::Specialize) -> Result<SpecValue, String> {
    let scalar = Scalar::from_amber(&s.ty)
        .filter(|t| t.bytes() == 4)
        .ok_or_else(|| format!("SPECIALIZE {}: type `{}` is not a 32-bit type", s.id, s.ty))?;
    let bytes = encode(scalar, &s.value).map_err(|m| format!("SPECIALIZE {}: {m}", s.id))?;
    let mut raw = [0u8; 8];
    raw[..4].copy_from_slice(&bytes);
    Ok(SpecValue {
        id: s.id,
        bits: u64::from_le_bytes(raw),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specialize_values_are_32_bit_bits() {
        let s = |ty: &str, v: &str| crate::run::amber::Specialize {
            id: 1,
            ty: ty.into(),
            value: v.into(),
        };
        assert_eq!(spec_value(&s("int32", "-1")).unwrap().bits, 0xffff_ffff);
        assert_eq!(
            spec_value(&s("float", "2.5")).unwrap().bits,
            u64::from(2.5f32.to_bits())
        );
        assert!(spec_value(&s("uint16", "1")).is_err());
    }
}
