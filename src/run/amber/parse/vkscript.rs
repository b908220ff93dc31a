//! VkScript: `[require]`, `[compute shader …]`, `[test]` sections into a
//! [`Script`].

use std::collections::BTreeMap;

use super::error::{err, unsupported, ParseError};
use super::values::{encode_values, hex_bytes};
use super::words::{compare, parse_u32, tokens, tolerance};
use crate::run::amber::data::{DataType, Layout, Scalar};
use crate::run::amber::{
    Bind, BindElement, BindKind, Buffer, Check, Command, Pipeline, Script, Shader, ShaderSource,
    Tolerance,
};

/// VkScript's `TYPE OFFSET values…` (after `ssbo B subdata`, `uniform ubo
/// B`, `uniform`/`push`): the write, the byte it ends at, and the type.
fn typed_write(
    line: usize,
    buffer: &str,
    layout: Layout,
    t: &[&str],
) -> Result<(Command, usize, DataType), ParseError> {
    let name = t.first().ok_or_else(|| err(line, "missing type"))?;
    let ty =
        DataType::from_vkscript(name).ok_or_else(|| err(line, format!("unknown type `{name}`")))?;
    let offset = parse_u32(line, "offset", t.get(1))? as usize;
    let bytes = encode_values(line, ty, layout, t.get(2..).unwrap_or(&[]))?;
    let end = offset + bytes.len();
    let write = Command::Write {
        buffer: buffer.to_string(),
        offset,
        bytes,
        line,
    };
    Ok((write, end, ty))
}
/// VkScript: `[require]`, `[compute shader …]`, `[test]`.
pub(super) fn vkscript(text: &str) -> Result<Script, ParseError> {
    let mut script = Script::default();
    // Joined lines (`\` continues a line), each with its first line number.
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, l) in text.lines().enumerate() {
        let (start, mut acc) = pending.take().unwrap_or((i + 1, String::new()));
        match l.strip_suffix('\\') {
            Some(head) => {
                acc.push_str(head);
                acc.push(' ');
                pending = Some((start, acc));
            }
            None => {
                acc.push_str(l);
                lines.push((start, acc));
            }
        }
    }
    if let Some(p) = pending {
        lines.push(p);
    }

    #[derive(PartialEq)]
    enum Section {
        None,
        /// `[comment]`: free text, ignored.
        Comment,
        Require,
        Shader(usize),
        Test,
    }
    let mut section = Section::None;
    let mut shader_body = String::new();
    let mut shader_format = "";
    let mut tests: Vec<(usize, String)> = Vec::new();
    let finish_shader =
        |script: &mut Script, line: usize, format: &str, body: &str| -> Result<(), ParseError> {
            let source = match format {
                "glsl" => ShaderSource::Glsl(body.to_string()),
                "spirv" => ShaderSource::SpirvAsm(body.to_string()),
                _ => ShaderSource::SpirvHex(hex_bytes(line, body)?),
            };
            script.shaders.push(Shader {
                name: "compute".into(),
                source,
                target_env: None,
                line,
                inline: true,
            });
            Ok(())
        };
    for (n, l) in &lines {
        let trimmed = l.trim();
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            if let Section::Shader(start) = section {
                finish_shader(&mut script, start, shader_format, &shader_body)?;
            }
            let header = &trimmed[1..trimmed.len() - 1];
            section = match header {
                "require" => Section::Require,
                "comment" => Section::Comment,
                "test" => Section::Test,
                "compute shader" | "compute shader spirv" | "compute shader spirv hex" => {
                    if !script.shaders.is_empty() {
                        return Err(err(*n, "a second compute shader"));
                    }
                    shader_format = match header {
                        "compute shader" => "glsl",
                        "compute shader spirv" => "spirv",
                        _ => "hex",
                    };
                    shader_body.clear();
                    Section::Shader(*n)
                }
                h if h.contains("shader") || h == "vertex data" || h == "indices" => {
                    return Err(unsupported(
                        *n,
                        format!("[{h}]: halc runs compute shaders only"),
                    ))
                }
                h => return Err(err(*n, format!("unknown section [{h}]"))),
            };
            continue;
        }
        match section {
            Section::Shader(_) => {
                shader_body.push_str(l);
                shader_body.push('\n');
            }
            Section::Require => {
                let t = tokens(l);
                match t.first() {
                    None => {}
                    Some(&("framebuffer" | "depthstencil" | "fbsize" | "fence_timeout")) => {}
                    Some(name) => script.requirements.push((name.to_string(), *n)),
                }
            }
            Section::Test => tests.push((*n, l.clone())),
            Section::Comment => {}
            Section::None => {
                if !tokens(l).is_empty() {
                    return Err(err(*n, "text before the first [section]"));
                }
            }
        }
    }
    if let Section::Shader(start) = section {
        finish_shader(&mut script, start, shader_format, &shader_body)?;
    }
    if script.shaders.is_empty() {
        return Err(err(1, "no [compute shader] section"));
    }

    // Buffers are named after their binding; sizes grow to the largest
    // write or probe, types come from their first use.
    let mut sizes: BTreeMap<String, (usize, DataType, Layout, usize)> = BTreeMap::new();
    let mut grow = |name: &str, end: usize, ty: DataType, layout: Layout, line: usize| {
        let e = sizes
            .entry(name.to_string())
            .or_insert((0, ty, layout, line));
        e.0 = e.0.max(end);
    };
    let mut binds: Vec<Bind> = Vec::new();
    let mut entry = "main".to_string();
    let mut tol: Vec<Tolerance> = Vec::new();
    let mut pipelines: Vec<Pipeline> = Vec::new();
    let binding_of = |line: usize, s: &str| -> Result<(u32, u32), ParseError> {
        let bad = || err(line, format!("`{s}` is not a binding (`N` or `SET:N`)"));
        match s.split_once(':') {
            Some((a, b)) => Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?)),
            None => Ok((0, s.parse().map_err(|_| bad())?)),
        }
    };
    let byte = DataType::scalar(Scalar::UInt(8));
    for (n, l) in tests {
        let t = tokens(&l);
        let Some(first) = t.first() else { continue };
        let ty_of = |s: Option<&&str>| -> Result<DataType, ParseError> {
            let s = s.ok_or_else(|| err(n, "missing type"))?;
            DataType::from_vkscript(s).ok_or_else(|| err(n, format!("unknown type `{s}`")))
        };
        let bind = |name: &str, kind: BindKind, binds: &mut Vec<Bind>| {
            if !binds.iter().any(|b| b.kind == kind) {
                binds.push(Bind {
                    elements: vec![BindElement {
                        sampler: None,
                        buffer: name.to_string(),
                        offset: 0,
                        range: None,
                        base_mip_level: 0,
                    }],
                    kind,
                    line: n,
                });
            }
        };
        match (*first, t.get(1).copied()) {
            ("ssbo", Some(b)) => {
                let (set, binding) = binding_of(n, b)?;
                let name = format!("ssbo {set}:{binding}");
                bind(&name, BindKind::Storage { set, binding }, &mut binds);
                if t.get(2) == Some(&"subdata") {
                    // `ssbo B subdata TYPE OFFSET values…`
                    let write = typed_write(n, &name, Layout::Std430, &t[3..])?;
                    grow(&name, write.1, write.2, Layout::Std430, n);
                    script.commands.push(write.0);
                } else {
                    let size = parse_u32(n, "size", t.get(2))? as usize;
                    grow(&name, size, byte, Layout::Std430, n);
                }
            }
            ("uniform", Some("ubo")) => {
                let (set, binding) =
                    binding_of(n, t.get(2).ok_or_else(|| err(n, "missing binding"))?)?;
                let name = format!("ubo {set}:{binding}");
                bind(&name, BindKind::Uniform { set, binding }, &mut binds);
                // Uniform buffer data is std140 in VkScript, as in amber.
                let write = typed_write(n, &name, Layout::Std140, &t[3..])?;
                grow(&name, write.1, write.2, Layout::Std140, n);
                script.commands.push(write.0);
            }
            ("uniform" | "push", Some(_)) => {
                bind("push", BindKind::PushConstant, &mut binds);
                let write = typed_write(n, "push", Layout::Std430, &t[1..])?;
                grow("push", write.1, write.2, Layout::Std430, n);
                script.commands.push(write.0);
            }
            ("compute", Some("entrypoint")) => {
                entry = t
                    .get(2)
                    .ok_or_else(|| err(n, "missing entry point"))?
                    .to_string();
            }
            ("compute", Some(_)) => {
                let groups = [
                    parse_u32(n, "x", t.get(1))?,
                    parse_u32(n, "y", t.get(2))?,
                    parse_u32(n, "z", t.get(3))?,
                ];
                // One pipeline per distinct (entry point, bindings).
                let name = match pipelines
                    .iter()
                    .find(|p| p.entry == entry && p.binds == binds)
                {
                    Some(p) => p.name.clone(),
                    None => {
                        let name = format!("compute line {n}");
                        pipelines.push(Pipeline {
                            name: name.clone(),
                            shader: "compute".into(),
                            entry: entry.clone(),
                            specialize: Vec::new(),
                            binds: binds.clone(),
                            subgroup_size: None,
                            optimizations: Vec::new(),
                            full_subgroups: false,
                            varying_subgroups: false,
                            line: n,
                        });
                        name
                    }
                };
                script.commands.push(Command::Run {
                    pipeline: name,
                    groups,
                    line: n,
                });
            }
            ("probe", Some("ssbo")) => {
                let ty = ty_of(t.get(2))?;
                let (set, binding) =
                    binding_of(n, t.get(3).ok_or_else(|| err(n, "missing binding"))?)?;
                let offset = parse_u32(n, "offset", t.get(4))? as usize;
                let op = t.get(5).ok_or_else(|| err(n, "missing comparison"))?;
                let compare =
                    compare(op).ok_or_else(|| err(n, format!("unknown comparison `{op}`")))?;
                let values: Vec<String> = t[6..].iter().map(|s| s.to_string()).collect();
                if values.is_empty() || values.len() % ty.components() != 0 {
                    return Err(err(
                        n,
                        format!("probe values must be a non-zero multiple of {ty}"),
                    ));
                }
                let name = format!("ssbo {set}:{binding}");
                let end = offset + (values.len() / ty.components()) * ty.stride(Layout::Std430);
                grow(&name, end, ty, Layout::Std430, n);
                script.commands.push(Command::Expect {
                    buffer: name,
                    check: Check::Values {
                        offset,
                        ty,
                        layout: Layout::Std430,
                        compare,
                        values,
                        tolerance: if *op == "~=" { tol.clone() } else { Vec::new() },
                    },
                    line: n,
                });
            }
            ("tolerance", Some(_)) => {
                tol = t[1..]
                    .iter()
                    .map(|v| tolerance(n, v))
                    .collect::<Result<_, _>>()?;
            }
            (other, _) => {
                return Err(unsupported(
                    n,
                    format!("`{other}` is outside halc's compute subset"),
                ))
            }
        }
    }
    for (name, (size, ty, layout, line)) in sizes {
        script.buffers.push(Buffer {
            name,
            ty,
            layout,
            bytes: vec![0; size],
            format: None,
            image: None,
            line,
            implicit_size: true,
        });
    }
    script.pipelines = pipelines;
    Ok(script)
}
