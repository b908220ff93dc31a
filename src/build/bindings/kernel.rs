//! One kernel's module: its constants, `bindings::<resource>`, the block
//! structs, `spec::<constant>` setters and `Args`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::describe::{access_words, describe_type, slot_words};
use super::names::{snake, unique};
use super::structs::write_structs;
use super::types::Types;
use crate::model::Kernel;
use crate::msl::{BindingLayout, BindingModel};
use crate::spirv::{Access, BindingKind, BlockType, ScalarType};

fn kind_const(k: BindingKind) -> &'static str {
    match k {
        BindingKind::StorageBuffer => "StorageBuffer",
        BindingKind::UniformBuffer => "UniformBuffer",
        BindingKind::StorageImage => "StorageImage",
        BindingKind::SampledImage => "SampledImage",
        BindingKind::Sampler => "Sampler",
        BindingKind::CombinedImageSampler => "CombinedImageSampler",
        BindingKind::UniformTexelBuffer => "UniformTexelBuffer",
        BindingKind::StorageTexelBuffer => "StorageTexelBuffer",
        BindingKind::AccelerationStructure => "AccelerationStructure",
    }
}

fn access_const(a: Access) -> &'static str {
    match a {
        Access::ReadOnly => "ReadOnly",
        Access::WriteOnly => "WriteOnly",
        Access::ReadWrite => "ReadWrite",
    }
}

fn resource_name(b: &BindingLayout) -> String {
    match b.name.as_deref().filter(|n| !n.is_empty()) {
        Some(n) => snake(n),
        None => format!("set{}_binding{}", b.set, b.binding),
    }
}

pub(super) fn kernel_module(k: &Kernel, module: &str) -> Result<String, String> {
    let mut out = String::new();
    let i1 = "    ";
    let i2 = "        ";
    let i3 = "            ";
    let _ = writeln!(
        out,
        "/// Kernel `{}`: entry point `{}` of `{}`.",
        k.name, k.entry.name, k.input
    );
    let _ = writeln!(out, "#[allow(non_snake_case, non_camel_case_types, non_upper_case_globals, dead_code, clippy::all)]");
    let _ = writeln!(out, "pub mod {module} {{");
    let _ = writeln!(
        out,
        "{i1}/// Name in the executable (`Executable::entry_point(NAME)`, `Program::pipeline(NAME, …)`)."
    );
    let _ = writeln!(out, "{i1}pub const NAME: &str = {:?};", k.name);
    let _ = writeln!(out, "{i1}/// SPIR-V entry point.");
    let _ = writeln!(out, "{i1}pub const ENTRY_POINT: &str = {:?};", k.entry.name);
    let [x, y, z] = k.workgroup.values();
    let _ = writeln!(
        out,
        "{i1}/// Threads per threadgroup with every spec constant at its default."
    );
    let _ = writeln!(
        out,
        "{i1}pub const THREADS_PER_THREADGROUP: [u32; 3] = [{x}, {y}, {z}];"
    );
    let ids: Vec<String> = k
        .workgroup
        .dims
        .iter()
        .map(|d| match d.spec_id {
            Some(id) => format!("Some({id})"),
            None => "None".into(),
        })
        .collect();
    let _ = writeln!(
        out,
        "{i1}/// The function constant (SpecId) setting each threadgroup dimension at pipeline creation, if any."
    );
    let _ = writeln!(
        out,
        "{i1}pub const THREADGROUP_SPEC_IDS: [Option<u32>; 3] = [{}];",
        ids.join(", ")
    );
    let _ = writeln!(
        out,
        "{i1}/// Whether the kernel dereferences device addresses read from its data (`PhysicalStorageBufferAddresses`, GLSL `buffer_reference`): give every buffer they point into to the dispatch with `ResourceBindings::reach`."
    );
    let _ = writeln!(
        out,
        "{i1}pub const READS_DEVICE_ADDRESSES: bool = {};",
        k.reads_device_addresses()
    );
    let model = match k.layout.model {
        BindingModel::ArgumentBuffers => "ArgumentBuffers",
        BindingModel::Discrete => "Discrete",
    };
    let _ = writeln!(out, "{i1}/// The binding model the slots below belong to.");
    let _ = writeln!(
        out,
        "{i1}pub const BINDING_MODEL: ::runtime_loader::schema::BindingModel = ::runtime_loader::schema::BindingModel::{model};"
    );
    let abs: Vec<String> = k
        .layout
        .argument_buffers
        .iter()
        .map(|a| format!("({}, {})", a.set, a.buffer_index))
        .collect();
    let _ = writeln!(
        out,
        "{i1}/// Argument buffers: (set, `[[buffer(N)]]`), ascending set."
    );
    let _ = writeln!(
        out,
        "{i1}pub const ARGUMENT_BUFFERS: &[(u32, u32)] = &[{}];",
        abs.join(", ")
    );

    let mut types = Types::new();
    // Push constants.
    if let Some(pc) = &k.layout.push_constants {
        let _ = writeln!(out, "{i1}/// Push constants: `[[buffer(N)]]`.");
        let _ = writeln!(
            out,
            "{i1}pub const PUSH_CONSTANTS_BUFFER_INDEX: u32 = {};",
            pc.buffer_index
        );
        let _ = writeln!(
            out,
            "{i1}/// Push constants: the bytes a dispatch must pass (exactly)."
        );
        let _ = writeln!(
            out,
            "{i1}pub const PUSH_CONSTANTS_SIZE: usize = {};",
            pc.size
        );
        if let Some(block) = &k.blocks.push_constants {
            let (t, runtime) = types.struct_def(&block.ty, "PushConstantBlock", true)?;
            if runtime.is_some() {
                return Err("the push-constant block ends in a runtime array".into());
            }
            if t.size < u64::from(pc.size) {
                return Err(format!(
                    "push-constant struct `{}` is {} bytes, the block {}",
                    t.text, t.size, pc.size
                ));
            }
            let _ = writeln!(out, "{i1}/// The push-constant block.");
            let _ = writeln!(out, "{i1}pub type PushConstants = {};", t.text);
            let _ = writeln!(
                out,
                "{i1}/// The `PUSH_CONSTANTS_SIZE` bytes of `pc` a dispatch passes."
            );
            let _ = writeln!(
                out,
                "{i1}pub fn push_constant_bytes(pc: &PushConstants) -> &[u8] {{\n{i2}&pc.as_bytes()[..PUSH_CONSTANTS_SIZE]\n{i1}}}"
            );
        }
    }

    // Resources.
    let mut res_names = BTreeSet::new();
    let mut fields: Vec<(String, &BindingLayout)> = Vec::new();
    let _ = writeln!(
        out,
        "\n{i1}/// Every resource: where it is bound and what it holds."
    );
    let _ = writeln!(out, "{i1}pub mod bindings {{");
    for b in &k.layout.bindings {
        let name = unique(&mut res_names, &resource_name(b));
        fields.push((name.clone(), b));
        let _ = writeln!(
            out,
            "{i2}/// (set {}, binding {}){}: {}, {}; {}.",
            b.set,
            b.binding,
            b.name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default(),
            b.kind.describe(),
            access_words(b.access),
            slot_words(b)
        );
        let _ = writeln!(out, "{i2}pub mod {name} {{");
        let _ = writeln!(out, "{i3}/// Descriptor set.");
        let _ = writeln!(out, "{i3}pub const SET: u32 = {};", b.set);
        let _ = writeln!(out, "{i3}/// Binding.");
        let _ = writeln!(out, "{i3}pub const BINDING: u32 = {};", b.binding);
        let _ = writeln!(out, "{i3}/// Kind of descriptor.");
        let _ = writeln!(
            out,
            "{i3}pub const KIND: ::runtime_loader::schema::BindingKind = ::runtime_loader::schema::BindingKind::{};",
            kind_const(b.kind)
        );
        let _ = writeln!(out, "{i3}/// How the kernel accesses it.");
        let _ = writeln!(
            out,
            "{i3}pub const ACCESS: ::runtime_loader::schema::Access = ::runtime_loader::schema::Access::{};",
            access_const(b.access)
        );
        let _ = writeln!(out, "{i3}/// Array elements (1 for a plain resource).");
        let _ = writeln!(out, "{i3}pub const COUNT: u32 = {};", b.count);
        let opt = |out: &mut String, doc: &str, name: &str, v: Option<u32>| {
            if let Some(v) = v {
                let _ = writeln!(out, "{i3}/// {doc}");
                let _ = writeln!(out, "{i3}pub const {name}: u32 = {v};");
            }
        };
        opt(&mut out, "Argument-buffer `[[id(N)]]`.", "ID", b.id);
        opt(
            &mut out,
            "Byte offset of `ID` in the argument buffer.",
            "BYTE_OFFSET",
            b.byte_offset,
        );
        opt(
            &mut out,
            "Discrete `[[buffer(N)]]`.",
            "BUFFER_INDEX",
            b.buffer_index,
        );
        opt(
            &mut out,
            "Discrete `[[texture(N)]]`.",
            "TEXTURE_INDEX",
            b.texture_index,
        );
        opt(
            &mut out,
            "Discrete `[[sampler(N)]]`.",
            "SAMPLER_INDEX",
            b.sampler_index,
        );
        opt(
            &mut out,
            "Argument-buffer `[[id(N)]]` of the sampler.",
            "SAMPLER_ID",
            b.sampler_id,
        );
        opt(
            &mut out,
            "Byte offset of `SAMPLER_ID` in the argument buffer.",
            "SAMPLER_BYTE_OFFSET",
            b.sampler_byte_offset,
        );
        opt(
            &mut out,
            "Entry of the buffer-sizes table (the kernel reads the length).",
            "SIZES_INDEX",
            b.sizes_index,
        );
        if let Some(a) = &b.atomic_buffer {
            // Emulated image atomics (MSL below 3.1).
            opt(
                &mut out,
                "Image atomics through the buffer the texture was created on: its discrete `[[buffer(N)]]` (the plan binds it; bind a texture made by `Device::atomic_texture`).",
                "ATOMIC_BUFFER_INDEX",
                a.buffer_index,
            );
            opt(
                &mut out,
                "Image atomics through the buffer the texture was created on: its argument-buffer `[[id(N)]]` (the plan writes it; bind a texture made by `Device::atomic_texture`).",
                "ATOMIC_ID",
                a.id,
            );
            opt(
                &mut out,
                "Byte offset of `ATOMIC_ID` in the argument buffer.",
                "ATOMIC_BYTE_OFFSET",
                a.byte_offset,
            );
            opt(
                &mut out,
                "Bytes the texture's rows must be aligned to (rows `align_up(width * 4, ATOMIC_ROW_ALIGNMENT)` bytes apart).",
                "ATOMIC_ROW_ALIGNMENT",
                Some(a.row_alignment),
            );
        }
        if b.kind.is_buffer() {
            let _ = writeln!(
                out,
                "{i3}/// Bytes of the fixed part of the block (before a trailing runtime array)."
            );
            let _ = writeln!(out, "{i3}pub const MIN_SIZE: u64 = {};", b.min_size);
        }
        if let Some(block) = k.blocks.buffer(b.set, b.binding) {
            let hint = block
                .ty
                .name
                .clone()
                .unwrap_or_else(|| format!("{name}_block"));
            let fixed_members =
                block.ty.members.len() - usize::from(block.ty.runtime_array().is_some());
            if fixed_members > 0 {
                let (t, _) = types.struct_def(&block.ty, &hint, true)?;
                let _ = writeln!(
                    out,
                    "{i3}/// The block's fixed part (every member before a trailing runtime array)."
                );
                let _ = writeln!(out, "{i3}pub type Block = super::super::{};", t.text);
            }
            if let Some(m) = block.ty.runtime_array() {
                let BlockType::Array {
                    element, stride, ..
                } = &m.ty
                else {
                    unreachable!("runtime_array returns an array member")
                };
                let ehint = format!("{hint}_{}", m.name.as_deref().unwrap_or("element"));
                let e = types.map(element, &ehint)?;
                let e = types.strided(e, u64::from(*stride), &ehint)?;
                let prefix = if e.text.starts_with('[')
                    || matches!(
                        e.text.as_str(),
                        "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "u64" | "i64" | "f32" | "f64"
                    ) {
                    ""
                } else {
                    "super::super::"
                };
                let _ = writeln!(
                    out,
                    "{i3}/// One element of the trailing runtime array `{}` ({}).",
                    m.name.as_deref().unwrap_or("?"),
                    describe_type(element)
                );
                let _ = writeln!(out, "{i3}pub type Element = {prefix}{};", e.text);
                let _ = writeln!(out, "{i3}/// Byte offset of the runtime array.");
                let _ = writeln!(out, "{i3}pub const ARRAY_OFFSET: u64 = {};", m.offset);
                let _ = writeln!(out, "{i3}/// Bytes between its elements.");
                let _ = writeln!(out, "{i3}pub const ARRAY_STRIDE: u64 = {stride};");
                let _ = writeln!(
                    out,
                    "{i3}const _: () = assert!(::core::mem::size_of::<Element>() as u64 == ARRAY_STRIDE);"
                );
                let _ = writeln!(
                    out,
                    "{i3}/// Bytes of a buffer holding `elements` array elements: the length to pass to\n{i3}/// `Device::buffer`. A `u32`, as the kernel counts them (`.length()`, `OpArrayLength`)\n{i3}/// and as `Grid` and the push constants count threads."
                );
                let _ = writeln!(
                    out,
                    "{i3}pub const fn size_for(elements: u32) -> u64 {{\n{i3}    ARRAY_OFFSET + elements as u64 * ARRAY_STRIDE\n{i3}}}"
                );
            }
        }
        let _ = writeln!(out, "{i2}}}");
    }
    let _ = writeln!(out, "{i1}}}");

    // Spec constants.
    let _ = writeln!(
        out,
        "\n{i1}/// Typed setters of the kernel's function constants (open spec constants): pass them to\n{i1}/// `Program::pipeline(NAME, &[…])` / `Specialization::new`."
    );
    let _ = writeln!(out, "{i1}pub mod spec {{");
    let mut spec_names = BTreeSet::new();
    for sc in &k.function_constants {
        let dims: Vec<&str> = k
            .workgroup
            .dims
            .iter()
            .zip(["x", "y", "z"])
            .filter(|(d, _)| d.spec_id == Some(sc.id))
            .map(|(_, a)| a)
            .collect();
        let base = match sc.name.as_deref().filter(|n| !n.is_empty()) {
            Some(n) => snake(n),
            None if !dims.is_empty() => format!("threads_{}", dims.join("")),
            None => format!("spec_{}", sc.id),
        };
        let fname = unique(&mut spec_names, &base);
        let (rty, bits) = match sc.ty {
            ScalarType::Bool => ("bool", "u64::from(value)"),
            ScalarType::Int(8) => ("i8", "u64::from(value as u8)"),
            ScalarType::Int(16) => ("i16", "u64::from(value as u16)"),
            ScalarType::Int(32) => ("i32", "u64::from(value as u32)"),
            ScalarType::Int(64) => ("i64", "value as u64"),
            ScalarType::UInt(8) => ("u8", "u64::from(value)"),
            ScalarType::UInt(16) => ("u16", "u64::from(value)"),
            ScalarType::UInt(32) => ("u32", "u64::from(value)"),
            ScalarType::UInt(64) => ("u64", "value"),
            ScalarType::Float(16) => ("u16", "u64::from(value)"),
            ScalarType::Float(32) => ("f32", "u64::from(value.to_bits())"),
            ScalarType::Float(64) => ("f64", "value.to_bits()"),
            other => return Err(format!("function constant {} has type {other}", sc.id)),
        };
        let default = default_text(sc.ty, sc.default.0);
        let sets = if dims.is_empty() {
            String::new()
        } else {
            format!("; sets threadgroup dimension {}", dims.join(", "))
        };
        let half = if sc.ty == ScalarType::Float(16) {
            " (IEEE half bits)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{i2}/// SpecId {}{}: `{rty}`{half}, default {default}{sets}.",
            sc.id,
            sc.name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default()
        );
        let _ = writeln!(
            out,
            "{i2}pub fn {fname}(value: {rty}) -> ::runtime_loader::plan::SpecValue {{"
        );
        let _ = writeln!(
            out,
            "{i3}::runtime_loader::plan::SpecValue {{ id: {}, bits: {bits} }}",
            sc.id
        );
        let _ = writeln!(out, "{i2}}}");
    }
    let _ = writeln!(out, "{i1}}}");

    // Args.
    let _ = writeln!(
        out,
        "\n{i1}/// One field per resource of the kernel; [`Args::bind`] puts each on its own (set, binding)."
    );
    let _ = writeln!(out, "{i1}#[derive(Debug, Clone, Copy, PartialEq)]");
    let _ = writeln!(out, "{i1}pub struct Args<B> {{");
    if fields.is_empty() {
        let _ = writeln!(out, "{i2}/// The kernel binds no resource.");
        let _ = writeln!(out, "{i2}pub none: ::core::marker::PhantomData<B>,");
    }
    for (name, b) in &fields {
        let _ = writeln!(
            out,
            "{i2}/// (set {}, binding {}): {}, {}.",
            b.set,
            b.binding,
            b.kind.describe(),
            access_words(b.access)
        );
        let ty = if b.count == 1 {
            "B".to_string()
        } else {
            format!("[B; {}]", b.count)
        };
        let _ = writeln!(out, "{i2}pub {name}: {ty},");
    }
    let _ = writeln!(out, "{i1}}}");
    let _ = writeln!(out, "{i1}impl<B> Args<B> {{");
    let _ = writeln!(
        out,
        "{i2}/// Binds every field to its (set, binding) in `target` (`runtime_loader::plan::Bindings`,\n{i2}/// the `ResourceBindings` of either backend, `cpu` or `metal`)."
    );
    let _ = writeln!(
        out,
        "{i2}pub fn bind<T: ::runtime_loader::plan::BindResources<B>>(&self, target: &mut T) {{"
    );
    if fields.is_empty() {
        let _ = writeln!(out, "{i3}let _ = target;");
    }
    for (name, b) in &fields {
        let elems = if b.count == 1 {
            format!("::core::slice::from_ref(&self.{name})")
        } else {
            format!("&self.{name}[..]")
        };
        let _ = writeln!(
            out,
            "{i3}target.bind_resources(bindings::{name}::SET, bindings::{name}::BINDING, {elems});"
        );
    }
    let _ = writeln!(out, "{i2}}}");
    let _ = writeln!(out, "{i1}}}");
    let _ = writeln!(
        out,
        "{i1}impl<B: Copy + Into<::runtime_loader::plan::Resource>> Args<B> {{"
    );
    let _ = writeln!(
        out,
        "{i2}/// The portable bindings a `runtime_loader::plan::DispatchPlan` is made from."
    );
    let _ = writeln!(
        out,
        "{i2}pub fn bindings(&self) -> ::runtime_loader::plan::Bindings {{"
    );
    let _ = writeln!(
        out,
        "{i3}let mut b = ::runtime_loader::plan::Bindings::new();\n{i3}self.bind(&mut b);\n{i3}b"
    );
    let _ = writeln!(out, "{i2}}}");
    let _ = writeln!(out, "{i1}}}");

    write_structs(&mut out, &types.defs, i1);
    let _ = writeln!(out, "}}");
    Ok(out)
}

/// A spec constant's default, for docs.
fn default_text(ty: ScalarType, bits: u64) -> String {
    match ty {
        ScalarType::Bool => (bits != 0).to_string(),
        ScalarType::Int(w) => {
            let shift = 64 - w;
            (((bits << shift) as i64) >> shift).to_string()
        }
        ScalarType::UInt(_) => bits.to_string(),
        ScalarType::Float(32) => format!("{:?}", f32::from_bits(bits as u32)),
        ScalarType::Float(64) => format!("{:?}", f64::from_bits(bits)),
        ScalarType::Float(_) => format!("{bits:#06x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_defaults_print_by_type() {
        assert_eq!(default_text(ScalarType::Int(32), 0xffff_fffc), "-4");
        assert_eq!(
            default_text(ScalarType::Float(32), 2.5f32.to_bits().into()),
            "2.5"
        );
        assert_eq!(default_text(ScalarType::Bool, 1), "true");
    }
}
