//! MSL generation with SPIRV-Cross. The only file that talks to
//! `spirv-cross2`: every resource gets an explicit remap from the layout, so
//! no slot is ever left to SPIRV-Cross's automatic numbering.

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};
use spirv_cross2::compile::msl::{
    ArgumentBuffersTier, BindTarget, MetalPlatform, MslVersion as ScMslVersion, ResourceBinding,
};
use spirv_cross2::compile::CompilableTarget;
use spirv_cross2::spirv::ExecutionModel;
use spirv_cross2::targets::Msl;
use spirv_cross2::{Compiler, Module};

use super::layout::{BindingModel, KernelLayout, Platform, Tier};
use crate::spirv::Words;

pub use crate::model::error::CrossError;
pub use crate::model::msl::{GeneratedMsl, MslVersion};

/// Version of the SPIRV-Cross sources compiled in (crate `spirv-cross-sys`,
/// whose build metadata is the upstream commit). A test keeps it in step
/// with Cargo.lock.
pub const SPIRV_CROSS_VERSION: &str = "spirv-cross-sys 0.7.4+aa217ae";

/// Options of MSL generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MslOptions {
    /// Language version.
    pub version: MslVersion,
    /// Platform.
    pub platform: Platform,
    /// Argument-buffer tier.
    pub tier: Tier,
}

fn cross<E: std::fmt::Display>(e: E) -> CrossError {
    CrossError(e.to_string().trim_end_matches('.').to_string())
}

/// Generates MSL for `entry` with every slot taken from `layout`.
pub fn generate(
    words: &Words,
    entry: &str,
    layout: &KernelLayout,
    opts: &MslOptions,
) -> Result<GeneratedMsl, CrossError> {
    generate_from(parse(words)?, entry, layout, opts).map(|(msl, _spent)| msl)
}

/// A module as SPIRV-Cross parsed it, for one entry point's
/// [`generate_from`] (compiling changes what SPIRV-Cross holds).
pub struct Parsed(Compiler<Msl>);

/// SPIRV-Cross's parse of `words`: the part of [`generate`] that needs no
/// layout, which a worker does while the parent lays the kernel out.
pub fn parse(words: &Words) -> Result<Parsed, CrossError> {
    Compiler::<Msl>::new(Module::from_words(words.as_slice()))
        .map(Parsed)
        .map_err(cross)
}

/// What SPIRV-Cross still holds after [`generate_from`]: its parsed module
/// and output, freed when this is dropped. Freeing them took 2.3 M
/// instructions on the 2048-op kernel (callgrind), 6.7 % of its compile, so
/// a worker drops it after it has sent the MSL.
pub struct Spent(#[allow(dead_code)] spirv_cross2::compile::CompiledArtifact<Msl>);

/// [`generate`] from a parsed module.
pub fn generate_from(
    parsed: Parsed,
    entry: &str,
    layout: &KernelLayout,
    opts: &MslOptions,
) -> Result<(GeneratedMsl, Spent), CrossError> {
    let stage = ExecutionModel::GLCompute;
    let Parsed(mut c) = parsed;
    c.set_entry_point(entry, stage).map_err(cross)?;
    rename_variables_named_as_types(&mut c)?;

    for b in &layout.bindings {
        // In argument-buffer mode the "buffer/texture/sampler" targets are
        // the member ids; resources forced out of the argument buffer carry
        // discrete indices instead.
        let target = BindTarget {
            // An emulated image atomic's companion buffer is the image's
            // buffer target (SPIRV-Cross's secondary index).
            buffer: b
                .buffer_index
                .or(b.id.filter(|_| b.kind.takes_buffer_slot()))
                .or(b.atomic_buffer.and_then(|a| a.buffer_index.or(a.id)))
                .unwrap_or(0),
            texture: b
                .texture_index
                .or(b.id.filter(|_| b.kind.is_texture()))
                .unwrap_or(0),
            sampler: b.sampler_index.or(b.sampler_id).unwrap_or(0),
            count: NonZeroU32::new(b.count).filter(|n| n.get() > 1),
        };
        c.add_resource_binding(
            stage,
            ResourceBinding::Qualified {
                set: b.set,
                binding: b.binding,
            },
            &target,
        )
        .map_err(cross)?;
    }
    let buffer = |buffer| BindTarget {
        buffer,
        texture: 0,
        sampler: 0,
        count: None,
    };
    for ab in &layout.argument_buffers {
        c.add_resource_binding(
            stage,
            ResourceBinding::ArgumentBuffer(ab.set),
            &buffer(ab.buffer_index),
        )
        .map_err(cross)?;
        if let Some(id) = ab.sizes_id {
            // Without this SPIRV-Cross gives the sizes member an automatic
            // [[id(0)]] that overlaps a real resource (NOTES.md).
            c.add_resource_binding(
                stage,
                ResourceBinding::BufferSizeBuffer(ab.set),
                &buffer(id),
            )
            .map_err(cross)?;
        }
    }
    if let Some(pc) = &layout.push_constants {
        c.add_resource_binding(
            stage,
            ResourceBinding::PushConstantBuffer,
            &buffer(pc.buffer_index),
        )
        .map_err(cross)?;
    }

    let mut o = Msl::options();
    o.version = ScMslVersion::from((u32::from(opts.version.major), u32::from(opts.version.minor)));
    o.platform = match opts.platform {
        Platform::MacOS => MetalPlatform::MacOS,
        Platform::IOS => MetalPlatform::iOS,
    };
    o.argument_buffers = layout.model == BindingModel::ArgumentBuffers;
    o.argument_buffers_tier = match opts.tier {
        Tier::Tier1 => ArgumentBuffersTier::Tier1,
        Tier::Tier2 => ArgumentBuffersTier::Tier2,
    };
    // Unused unless a length is read; then the layout reserved a slot.
    o.buffer_size_buffer_index = layout
        .sizes_buffer_index
        .unwrap_or(super::layout::MAX_BUFFER_SLOTS - 1);
    o.texture_buffer_native = opts.version >= (MslVersion { major: 2, minor: 1 });
    o.ios_use_simdgroup_functions =
        opts.platform == Platform::IOS && opts.version >= (MslVersion { major: 2, minor: 3 });
    // Emulated image atomics (below MSL 3.1) index the texture's buffer
    // with rows this many bytes apart; the layout records the same value.
    o.r32ui_linear_texture_alignment = super::layout::LINEAR_TEXTURE_ROW_ALIGNMENT;
    o.enable_decoration_binding = false;
    o.force_active_argument_buffer_resources = false;

    let artifact = c.compile(&o).map_err(cross)?;
    let function_name = artifact
        .cleansed_entry_point_name(entry, stage)
        .map_err(cross)?
        .map(|s| s.to_string())
        .unwrap_or_else(|| entry.to_string());
    let source = artifact.to_string();
    Ok((
        GeneratedMsl {
            source,
            function_name,
        },
        Spent(artifact),
    ))
}

/// A buffer variable named like a block type (HLSL's habit: DXC and
/// hand-written SPIR-V name an `RWStructuredBuffer` and its struct alike)
/// becomes `NAME_var` in the MSL. In C++, and so in MSL, a variable or
/// member named like a type hides the type for every later declaration in
/// its scope: `device sbuf& sbuf [[buffer(0)]], device sbuf& other` does not
/// compile (CTS `spirv1p4/hlsl_functionality1/counter_buffer`). The binding
/// contract keeps the SPIR-V's names; only the MSL's identifier changes.
fn rename_variables_named_as_types(c: &mut Compiler<Msl>) -> Result<(), CrossError> {
    use spirv_cross2::reflect::ResourceType;
    let resources = c.shader_resources().map_err(cross)?;
    let mut found = Vec::new();
    for ty in [ResourceType::UniformBuffer, ResourceType::StorageBuffer] {
        for r in resources.resources_for_type(ty).map_err(cross)? {
            let name = c.name(r.id).map_err(cross)?.map(|n| n.to_string());
            let ty_name = c
                .name(r.base_type_id)
                .map_err(cross)?
                .map(|n| n.to_string());
            found.push((r.id, name, ty_name));
        }
    }
    let types: std::collections::HashSet<&str> =
        found.iter().filter_map(|(_, _, t)| t.as_deref()).collect();
    let clashes: Vec<_> = found
        .iter()
        .filter_map(|(id, name, _)| {
            let name = name.as_deref()?;
            types.contains(name).then(|| (*id, format!("{name}_var")))
        })
        .collect();
    for (id, name) in clashes {
        c.set_name(id, name.as_str()).map_err(cross)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msl_versions_parse_and_reject() {
        assert_eq!("3.0".parse::<MslVersion>().unwrap(), MslVersion::DEFAULT);
        assert_eq!("2".parse::<MslVersion>().unwrap(), MslVersion::MIN);
        assert!("1.2".parse::<MslVersion>().is_err());
        assert!("3.3".parse::<MslVersion>().is_err());
        assert!("x".parse::<MslVersion>().is_err());
    }

    #[test]
    fn spirv_cross_version_matches_cargo_lock() {
        let lock = include_str!("../../Cargo.lock");
        let (name, version) = SPIRV_CROSS_VERSION.split_once(' ').unwrap();
        let needle = format!("name = \"{name}\"\nversion = \"{version}\"");
        assert!(
            lock.contains(&needle),
            "Cargo.lock has another {name}: update SPIRV_CROSS_VERSION"
        );
    }
}
