//! AmberScript's `PIPELINE` / `DERIVE_PIPELINE`: `ATTACH`, `SPECIALIZE`,
//! `SUBGROUP`, `SHADER_OPTIMIZATION` and the `BIND`s.

use super::super::error::{err, unsupported, ParseError};
use super::super::words::{bind_numbers, parse_u32, parse_u64};
use super::reader::AmberParser;
use crate::run::amber::{Bind, BindElement, BindKind, Pipeline, RequiredSize, Specialize};

impl<'a> AmberParser<'a> {
    pub(super) fn pipeline(&mut self, line: usize, t: &[&str]) -> Result<(), ParseError> {
        let mut p = if t[0] == "DERIVE_PIPELINE" {
            let (Some(name), Some(&"FROM"), Some(parent)) = (t.get(1), t.get(2), t.get(3)) else {
                return Err(err(line, "expected `DERIVE_PIPELINE NAME FROM PARENT`"));
            };
            let parent = self
                .script
                .pipelines
                .iter()
                .find(|p| p.name == *parent)
                .ok_or_else(|| err(line, format!("unknown pipeline `{parent}`")))?;
            Pipeline {
                name: name.to_string(),
                line,
                ..parent.clone()
            }
        } else {
            let (Some(kind), Some(name)) = (t.get(1), t.get(2)) else {
                return Err(err(line, "expected `PIPELINE compute NAME`"));
            };
            if *kind != "compute" {
                return Err(unsupported(
                    line,
                    format!("{kind} pipelines: halc runs compute pipelines only"),
                ));
            }
            Pipeline {
                name: name.to_string(),
                shader: String::new(),
                entry: "main".into(),
                specialize: Vec::new(),
                binds: Vec::new(),
                subgroup_size: None,
                optimizations: Vec::new(),
                full_subgroups: false,
                varying_subgroups: false,
                line,
            }
        };
        if self.script.pipelines.iter().any(|o| o.name == p.name) {
            return Err(err(
                line,
                format!("pipeline `{}` is declared twice", p.name),
            ));
        }
        loop {
            let (l, t) = self
                .line()
                .ok_or_else(|| err(line, "PIPELINE has no END"))?;
            match t[0] {
                "END" => break,
                "ATTACH" => {
                    let shader = t.get(1).ok_or_else(|| err(l, "ATTACH needs a shader"))?;
                    if !self.script.shaders.iter().any(|s| s.name == *shader) {
                        return Err(err(l, format!("unknown shader `{shader}`")));
                    }
                    p.shader = shader.to_string();
                    let mut rest = t[2..].iter();
                    while let Some(k) = rest.next() {
                        match *k {
                            "ENTRY_POINT" => {
                                p.entry = rest
                                    .next()
                                    .ok_or_else(|| err(l, "ENTRY_POINT needs a name"))?
                                    .to_string()
                            }
                            "TYPE" => {
                                let ty = rest.next().ok_or_else(|| err(l, "TYPE needs a value"))?;
                                if *ty != "compute" {
                                    return Err(unsupported(l, format!("{ty} shaders")));
                                }
                            }
                            "SPECIALIZE" => {
                                let id = parse_u32(l, "spec id", rest.next())?;
                                if rest.next() != Some(&"AS") {
                                    return Err(err(l, "expected `SPECIALIZE id AS type value`"));
                                }
                                let (Some(ty), Some(value)) = (rest.next(), rest.next()) else {
                                    return Err(err(l, "expected `SPECIALIZE id AS type value`"));
                                };
                                p.specialize.push(Specialize {
                                    id,
                                    ty: ty.to_string(),
                                    value: value.to_string(),
                                });
                            }
                            other => return Err(err(l, format!("unexpected `{other}`"))),
                        }
                    }
                }
                "BIND" => {
                    let bind = self.bind(l, &t)?;
                    p.binds.retain(|b| b.kind != bind.kind);
                    p.binds.push(bind);
                }
                "SHADER_OPTIMIZATION" => {
                    let shader = t
                        .get(1)
                        .ok_or_else(|| err(l, "SHADER_OPTIMIZATION needs a shader"))?;
                    if *shader != p.shader {
                        return Err(err(
                            l,
                            format!("SHADER_OPTIMIZATION names `{shader}`, which is not attached"),
                        ));
                    }
                    p.optimizations.clear();
                    loop {
                        let (_, t) = self
                            .line()
                            .ok_or_else(|| err(l, "SHADER_OPTIMIZATION has no END"))?;
                        if t[0] == "END" {
                            break;
                        }
                        p.optimizations.extend(t.iter().map(|o| o.to_string()));
                    }
                }
                "COMPILE_OPTIONS" => {
                    return Err(unsupported(
                        l,
                        "COMPILE_OPTIONS apply to OpenCL C shaders, which halc does not take",
                    ))
                }
                "SUBGROUP" => {
                    let shader = t.get(1).ok_or_else(|| err(l, "SUBGROUP needs a shader"))?;
                    if !self.script.shaders.iter().any(|s| s.name == *shader) {
                        return Err(err(l, format!("unknown shader `{shader}`")));
                    }
                    let (size, full, varying) = self.subgroup(l)?;
                    p.subgroup_size = size.or(p.subgroup_size);
                    p.full_subgroups |= full;
                    p.varying_subgroups |= varying;
                }
                other => {
                    return Err(unsupported(
                        l,
                        format!("`{other}` is outside halc's compute subset"),
                    ))
                }
            }
        }
        if p.shader.is_empty() {
            return Err(err(line, format!("pipeline `{}` has no ATTACH", p.name)));
        }
        self.script.pipelines.push(p);
        Ok(())
    }

    /// The body of a pipeline's `SUBGROUP shader … END` block: its
    /// `REQUIRED_SIZE`, if any, and whether `FULLY_POPULATED` and
    /// `VARYING_SIZE` are on.
    pub(super) fn subgroup(
        &mut self,
        line: usize,
    ) -> Result<(Option<RequiredSize>, bool, bool), ParseError> {
        let mut size = None;
        let mut full = false;
        let mut varying = false;
        loop {
            let (l, t) = self
                .line()
                .ok_or_else(|| err(line, "SUBGROUP has no END"))?;
            match t[0] {
                "END" => return Ok((size, full, varying)),
                "REQUIRED_SIZE" => match t.get(1) {
                    Some(&"MIN") => size = Some(RequiredSize::Min),
                    Some(&"MAX") => size = Some(RequiredSize::Max),
                    v => {
                        let n = parse_u32(l, "subgroup size", v)?;
                        if !n.is_power_of_two() || n > 128 {
                            return Err(err(
                                l,
                                format!("REQUIRED_SIZE {n}: a subgroup size is a power of two up to 128"),
                            ));
                        }
                        size = Some(RequiredSize::Exact(n));
                    }
                },
                "FULLY_POPULATED" | "VARYING_SIZE" => {
                    let on = match t.get(1) {
                        Some(&"off") | Some(&"false") => false,
                        Some(&"on") | Some(&"true") => true,
                        _ => return Err(err(l, format!("{} needs on or off", t[0]))),
                    };
                    if t[0] == "FULLY_POPULATED" {
                        full = on;
                    } else {
                        varying = on;
                    }
                }
                other => return Err(err(l, format!("unexpected `{other}` in SUBGROUP"))),
            }
        }
    }

    pub(super) fn bind(&self, line: usize, t: &[&'a str]) -> Result<Bind, ParseError> {
        let array = match t.get(1) {
            Some(&"BUFFER") => false,
            Some(&"BUFFER_ARRAY") => true,
            Some(&"SAMPLER") | Some(&"SAMPLER_ARRAY") => return self.bind_sampler(line, t),
            Some(&"ACCELERATION_STRUCTURE") => return self.bind_acceleration_structure(line, t),
            _ => return Err(err(line, "expected `BIND BUFFER …`")),
        };
        let Some(as_at) = t.iter().position(|w| *w == "AS") else {
            return Err(err(line, "expected `BIND BUFFER NAME AS TYPE …`"));
        };
        let names = &t[2..as_at];
        if names.is_empty() || (!array && names.len() != 1) {
            return Err(err(
                line,
                if array {
                    "BIND BUFFER_ARRAY needs buffers"
                } else {
                    "expected `BIND BUFFER NAME AS TYPE …`"
                },
            ));
        }
        for name in names {
            self.buffer_exists(line, name)?;
        }
        let ty = t
            .get(as_at + 1)
            .ok_or_else(|| err(line, "missing buffer type"))?;
        let mut set = None;
        let mut binding = None;
        // Per element: descriptor offsets, ranges and dynamic offsets.
        let mut offsets: Vec<u64> = Vec::new();
        let mut ranges: Vec<Option<u64>> = Vec::new();
        let mut dynamic: Vec<u64> = Vec::new();
        let mut rest = t[as_at + 2..].iter().peekable();
        let count = names.len();
        let mut sampler = None;
        let mut base_mip_level = 0;
        let numbers = |rest: &mut std::iter::Peekable<std::slice::Iter<'_, &'a str>>,
                       what: &str| { bind_numbers(line, rest, what, count) };
        while let Some(k) = rest.next() {
            match *k {
                "DESCRIPTOR_SET" => set = Some(parse_u32(line, "descriptor set", rest.next())?),
                "BINDING" => binding = Some(parse_u32(line, "binding", rest.next())?),
                "DESCRIPTOR_OFFSET" => {
                    offsets = numbers(&mut rest, "DESCRIPTOR_OFFSET")?
                        .iter()
                        .map(|v| parse_u64(line, "descriptor offset", v))
                        .collect::<Result<_, _>>()?
                }
                "DESCRIPTOR_RANGE" => {
                    ranges = numbers(&mut rest, "DESCRIPTOR_RANGE")?
                        .iter()
                        .map(|r| match *r {
                            "-1" => Ok(None),
                            r => parse_u64(line, "descriptor range", r).map(Some),
                        })
                        .collect::<Result<_, _>>()?
                }
                "SAMPLER" if *ty == "combined_image_sampler" => {
                    let name = rest
                        .next()
                        .ok_or_else(|| err(line, "SAMPLER needs a sampler name"))?;
                    self.sampler_exists(line, name)?;
                    sampler = Some(name.to_string());
                }
                "BASE_MIP_LEVEL" => {
                    base_mip_level = parse_u32(line, "base mip level", rest.next())?;
                }
                "OFFSET" => {
                    dynamic = numbers(&mut rest, "OFFSET")?
                        .iter()
                        .map(|v| parse_u64(line, "dynamic offset", v))
                        .collect::<Result<_, _>>()?
                }
                other => return Err(err(line, format!("unexpected `{other}`"))),
            }
        }
        let at = || -> Result<(u32, u32), ParseError> {
            match (set, binding) {
                (Some(s), Some(b)) => Ok((s, b)),
                _ => Err(err(line, "expected DESCRIPTOR_SET and BINDING")),
            }
        };
        let is_dynamic = matches!(*ty, "storage_dynamic" | "uniform_dynamic");
        if is_dynamic && dynamic.is_empty() {
            return Err(err(line, format!("a {ty} binding needs OFFSET")));
        }
        if !is_dynamic && !dynamic.is_empty() {
            return Err(err(
                line,
                format!("OFFSET is for dynamic bindings, not {ty}"),
            ));
        }
        let kind = match *ty {
            "storage" | "storage_dynamic" => {
                let (set, binding) = at()?;
                BindKind::Storage { set, binding }
            }
            "uniform" | "uniform_dynamic" => {
                let (set, binding) = at()?;
                BindKind::Uniform { set, binding }
            }
            "push_constant" if !array => BindKind::PushConstant,
            "storage_image" | "sampled_image" | "combined_image_sampler" => {
                let (set, binding) = at()?;
                for name in names {
                    self.is_image(line, name, ty)?;
                }
                match *ty {
                    "storage_image" => BindKind::StorageImage { set, binding },
                    "sampled_image" => BindKind::SampledImage { set, binding },
                    _ if sampler.is_none() => {
                        return Err(err(
                            line,
                            "a combined_image_sampler binding needs SAMPLER name",
                        ))
                    }
                    _ => BindKind::CombinedImageSampler { set, binding },
                }
            }
            "uniform_texel_buffer" | "storage_texel_buffer" => {
                let (set, binding) = at()?;
                for name in names {
                    self.is_texel_buffer(line, name, ty)?;
                }
                if *ty == "uniform_texel_buffer" {
                    BindKind::UniformTexelBuffer { set, binding }
                } else {
                    BindKind::StorageTexelBuffer { set, binding }
                }
            }
            other => {
                return Err(err(
                    line,
                    format!("`{other}` is not a buffer type of a compute pipeline"),
                ))
            }
        };
        if base_mip_level > 0 {
            for name in names {
                let levels = self
                    .script
                    .buffers
                    .iter()
                    .find(|b| b.name == *name)
                    .and_then(|b| b.image)
                    .map_or(1, |i| i.mip_levels);
                if base_mip_level >= levels {
                    return Err(err(
                        line,
                        format!(
                            "BASE_MIP_LEVEL {base_mip_level}: `{name}` has {levels} mip level{}",
                            if levels == 1 { "" } else { "s" }
                        ),
                    ));
                }
            }
        }
        // One value applies to every element.
        let nth = |v: &[u64], i: usize| v.get(i).or(v.first()).copied().unwrap_or(0);
        let elements = names
            .iter()
            .enumerate()
            .map(|(i, name)| BindElement {
                buffer: name.to_string(),
                sampler: sampler.clone(),
                offset: nth(&offsets, i) + nth(&dynamic, i),
                range: ranges.get(i).or(ranges.first()).copied().flatten(),
                base_mip_level,
            })
            .collect();
        Ok(Bind {
            elements,
            kind,
            line,
        })
    }

    /// `BIND SAMPLER name DESCRIPTOR_SET s BINDING b` (or `SAMPLER_ARRAY`
    /// with several names).
    fn bind_sampler(&self, line: usize, t: &[&'a str]) -> Result<Bind, ParseError> {
        let Some(at) = t.iter().position(|w| *w == "DESCRIPTOR_SET") else {
            return Err(err(
                line,
                "expected `BIND SAMPLER NAME DESCRIPTOR_SET s BINDING b`",
            ));
        };
        let names = &t[2..at];
        if names.is_empty() || (t[1] == "SAMPLER" && names.len() != 1) {
            return Err(err(line, format!("BIND {} needs sampler names", t[1])));
        }
        for name in names {
            self.sampler_exists(line, name)?;
        }
        let set = parse_u32(line, "descriptor set", t.get(at + 1))?;
        if t.get(at + 2) != Some(&"BINDING") {
            return Err(err(line, "expected BINDING after the descriptor set"));
        }
        let binding = parse_u32(line, "binding", t.get(at + 3))?;
        if let Some(extra) = t.get(at + 4) {
            return Err(err(line, format!("unexpected `{extra}`")));
        }
        Ok(Bind {
            elements: names
                .iter()
                .map(|n| BindElement {
                    buffer: n.to_string(),
                    sampler: None,
                    offset: 0,
                    range: None,
                    base_mip_level: 0,
                })
                .collect(),
            kind: BindKind::Sampler { set, binding },
            line,
        })
    }

    /// `BIND ACCELERATION_STRUCTURE name DESCRIPTOR_SET s BINDING b`: a
    /// top level.
    fn bind_acceleration_structure(&self, line: usize, t: &[&'a str]) -> Result<Bind, ParseError> {
        let expected = "expected `BIND ACCELERATION_STRUCTURE NAME DESCRIPTOR_SET s BINDING b`";
        let name = t.get(2).ok_or_else(|| err(line, expected))?;
        if !self.script.top_levels.iter().any(|a| a.name == *name) {
            return Err(err(
                line,
                if self.script.bottom_levels.iter().any(|a| a.name == *name) {
                    format!("`{name}` is a bottom-level acceleration structure: a kernel binds a top level")
                } else {
                    format!("unknown top-level acceleration structure `{name}`")
                },
            ));
        }
        if t.get(3) != Some(&"DESCRIPTOR_SET") {
            return Err(err(line, expected));
        }
        let set = parse_u32(line, "descriptor set", t.get(4))?;
        if t.get(5) != Some(&"BINDING") {
            return Err(err(line, "expected BINDING after the descriptor set"));
        }
        let binding = parse_u32(line, "binding", t.get(6))?;
        if let Some(extra) = t.get(7) {
            return Err(err(line, format!("unexpected `{extra}`")));
        }
        Ok(Bind {
            elements: vec![BindElement {
                buffer: name.to_string(),
                sampler: None,
                offset: 0,
                range: None,
                base_mip_level: 0,
            }],
            kind: BindKind::AccelerationStructure { set, binding },
            line,
        })
    }

    fn sampler_exists(&self, line: usize, name: &str) -> Result<(), ParseError> {
        if self.script.samplers.iter().any(|s| s.name == name) {
            Ok(())
        } else {
            Err(err(line, format!("unknown sampler `{name}`")))
        }
    }

    /// Whether `name` was declared with `IMAGE` (what an image binding
    /// takes).
    fn is_image(&self, line: usize, name: &str, ty: &str) -> Result<(), ParseError> {
        match self.script.buffers.iter().find(|b| b.name == name) {
            Some(b) if b.image.is_some() => Ok(()),
            Some(_) => Err(unsupported(
                line,
                format!("`{name}` is bound as {ty} but is not an IMAGE: halc runs images declared with IMAGE"),
            )),
            None => Err(err(line, format!("unknown buffer `{name}`"))),
        }
    }

    /// Whether `name` is a buffer with a format (what a texel buffer
    /// binding takes).
    fn is_texel_buffer(&self, line: usize, name: &str, ty: &str) -> Result<(), ParseError> {
        match self.script.buffers.iter().find(|b| b.name == name) {
            Some(b) if b.format.is_some() && b.image.is_none() => Ok(()),
            Some(_) => Err(err(
                line,
                format!("`{name}` is bound as {ty} but has no format: declare it with `DATA_TYPE` a format such as R32G32B32A32_SFLOAT"),
            )),
            None => Err(err(line, format!("unknown buffer `{name}`"))),
        }
    }
}
