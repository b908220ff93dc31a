//! Parsers for AmberScript (`#!amber`) and VkScript (`[test]` sections):
//! the compute subset, into a [`Script`].
//!
//! Anything outside the compute subset (graphics pipelines, images,
//! samplers, OpenCL C) is a [`ParseError`] with `unsupported` set, which a
//! runner reports as a skip with the reason; anything malformed is an error
//! naming the line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::data::{encode, DataType, Layout, Scalar};
use super::{
    Bind, BindElement, BindKind, Buffer, Check, Command, Compare, Pipeline, RequiredSize, Script,
    Shader, ShaderSource, Specialize, Tolerance,
};

/// Why a script cannot be used, with its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// The script is well formed but uses something outside halc's compute
    /// subset (a skip, not a failure).
    pub unsupported: bool,
}

fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
        unsupported: false,
    }
}

fn unsupported(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
        unsupported: true,
    }
}

/// Parses an AmberScript or VkScript file whose `FILE`s (buffer data,
/// shaders) are named relative to the working directory.
pub fn parse(text: &str) -> Result<Script, ParseError> {
    parse_in(text, Path::new(""))
}

/// Parses an AmberScript or VkScript file whose `FILE`s are named relative
/// to `dir` (the script's directory, as the amber tool reads them).
pub fn parse_in(text: &str, dir: &Path) -> Result<Script, ParseError> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if first.starts_with("#!amber") {
        AmberParser::new(text, dir).script()
    } else if text.lines().any(|l| l.trim_start().starts_with('[')) {
        vkscript(text)
    } else {
        Err(err(
            1,
            "neither AmberScript (first line `#!amber`) nor VkScript (`[test]` sections)",
        ))
    }
}

/// Tokens of a line, without its `#` comment.
fn tokens(line: &str) -> Vec<&str> {
    line.split('#')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect()
}

/// Whether a line's tokens end in a line continuation (`\\`, alone or at
/// the end of the last token), which it removes.
fn continued(t: &mut Vec<&str>) -> bool {
    let Some(last) = t.last_mut() else {
        return false;
    };
    let Some(head) = last.strip_suffix('\\') else {
        return false;
    };
    if head.is_empty() {
        t.pop();
    } else {
        *last = head;
    }
    true
}

fn parse_u32(line: usize, what: &str, t: Option<&&str>) -> Result<u32, ParseError> {
    let t = t.ok_or_else(|| err(line, format!("missing {what}")))?;
    let v = match t.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    };
    v.ok_or_else(|| err(line, format!("{what} `{t}` is not a non-negative integer")))
}

fn parse_u64(line: usize, what: &str, t: &str) -> Result<u64, ParseError> {
    let v = match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    };
    v.ok_or_else(|| err(line, format!("{what} `{t}` is not a non-negative integer")))
}

/// The numbers after a `BIND` keyword: one, or one per element of a
/// `BUFFER_ARRAY` of `count` buffers.
fn bind_numbers<'a>(
    line: usize,
    rest: &mut std::iter::Peekable<std::slice::Iter<'_, &'a str>>,
    what: &str,
    count: usize,
) -> Result<Vec<&'a str>, ParseError> {
    let mut v = Vec::new();
    while let Some(n) = rest
        .peek()
        .filter(|n| n.parse::<i64>().is_ok() || n.starts_with("0x"))
    {
        v.push(**n);
        rest.next();
    }
    if v.is_empty() {
        return Err(err(line, format!("{what} needs a value")));
    }
    if v.len() != 1 && v.len() != count {
        return Err(err(
            line,
            format!("{what} has {} values for {count} buffers", v.len()),
        ));
    }
    Ok(v)
}

fn parse_f64(line: usize, what: &str, t: &str) -> Result<f64, ParseError> {
    t.parse()
        .map_err(|_| err(line, format!("{what} `{t}` is not a number")))
}

fn compare(t: &str) -> Option<Compare> {
    Some(match t {
        "EQ" | "==" | "~=" => Compare::Eq,
        "NE" | "!=" => Compare::Ne,
        "LT" | "<" => Compare::Lt,
        "LE" | "<=" => Compare::Le,
        "GT" | ">" => Compare::Gt,
        "GE" | ">=" => Compare::Ge,
        _ => return None,
    })
}

fn tolerance(line: usize, t: &str) -> Result<Tolerance, ParseError> {
    Ok(match t.strip_suffix('%') {
        Some(p) => Tolerance::Percent(parse_f64(line, "tolerance", p)?),
        None => Tolerance::Absolute(parse_f64(line, "tolerance", t)?),
    })
}

/// Encodes `values` as elements of `ty` in `layout`: component after
/// component, each element at its stride.
fn encode_values(
    line: usize,
    ty: DataType,
    layout: Layout,
    values: &[&str],
) -> Result<Vec<u8>, ParseError> {
    let n = ty.components();
    if values.is_empty() || values.len() % n != 0 {
        return Err(err(
            line,
            format!(
                "{} values for {ty}: expected a non-zero multiple of {n}",
                values.len()
            ),
        ));
    }
    let stride = ty.stride(layout);
    let mut out = vec![0u8; values.len() / n * stride];
    for (i, v) in values.iter().enumerate() {
        let at = (i / n) * stride + ty.component_offset(i % n, layout);
        let bytes = encode(ty.scalar, v).map_err(|m| err(line, m))?;
        out[at..at + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(out)
}

struct AmberParser<'a> {
    lines: Vec<&'a str>,
    next: usize,
    script: Script,
    /// Where `FILE`s are.
    dir: PathBuf,
    /// `VIRTUAL_FILE`s by path.
    virtual_files: BTreeMap<String, String>,
}

impl<'a> AmberParser<'a> {
    fn new(text: &'a str, dir: &Path) -> Self {
        AmberParser {
            lines: text.lines().collect(),
            next: 0,
            script: Script::default(),
            dir: dir.to_path_buf(),
            virtual_files: BTreeMap::new(),
        }
    }

    /// The bytes of `FILE name`, relative to the script's directory.
    fn file(&self, line: usize, name: &str) -> Result<Vec<u8>, ParseError> {
        let path = self.dir.join(name);
        std::fs::read(&path)
            .map_err(|e| err(line, format!("cannot read FILE `{}`: {e}", path.display())))
    }

    /// The next line with tokens, as (1-based line, tokens). A line ending
    /// in `\\` goes on on the next line.
    fn line(&mut self) -> Option<(usize, Vec<&'a str>)> {
        while self.next < self.lines.len() {
            let n = self.next;
            self.next += 1;
            let mut t = tokens(self.lines[n]);
            while continued(&mut t) && self.next < self.lines.len() {
                t.extend(tokens(self.lines[self.next]));
                self.next += 1;
            }
            if !t.is_empty() {
                return Some((n + 1, t));
            }
        }
        None
    }

    /// Raw lines up to a line whose first token is `END` (shader bodies:
    /// `#` is no comment there).
    fn block(&mut self, start: usize, what: &str) -> Result<String, ParseError> {
        let mut body = String::new();
        while self.next < self.lines.len() {
            let l = self.lines[self.next];
            self.next += 1;
            if tokens(l).first() == Some(&"END") {
                return Ok(body);
            }
            body.push_str(l);
            body.push('\n');
        }
        Err(err(start, format!("{what} has no END")))
    }

    fn script(mut self) -> Result<Script, ParseError> {
        let commands = self.commands(None)?;
        self.script.commands = commands;
        Ok(self.script)
    }

    fn buffer_exists(&self, line: usize, name: &str) -> Result<(), ParseError> {
        if self.script.buffers.iter().any(|b| b.name == name) {
            Ok(())
        } else {
            Err(err(line, format!("unknown buffer `{name}`")))
        }
    }

    /// Commands until the end of the file, or until `END` inside `REPEAT`.
    fn commands(&mut self, repeat: Option<usize>) -> Result<Vec<Command>, ParseError> {
        let mut out = Vec::new();
        while let Some((line, t)) = self.line() {
            match t[0] {
                "END" if repeat.is_some() => return Ok(out),
                "SHADER" => self.shader(line, &t)?,
                "BUFFER" => self.buffer(line, &t)?,
                "PIPELINE" | "DERIVE_PIPELINE" => self.pipeline(line, &t)?,
                "RUN" => {
                    // TIMED_EXECUTION asks the tool to time the run: it does
                    // not change what runs.
                    let t: Vec<&str> = t
                        .iter()
                        .copied()
                        .filter(|w| *w != "TIMED_EXECUTION")
                        .collect();
                    let name = t.get(1).ok_or_else(|| err(line, "RUN needs a pipeline"))?;
                    if !self.script.pipelines.iter().any(|p| p.name == *name) {
                        return Err(err(line, format!("unknown pipeline `{name}`")));
                    }
                    if t.len() != 5 {
                        return Err(unsupported(
                            line,
                            "only compute `RUN pipeline x y z` is supported",
                        ));
                    }
                    let groups = [
                        parse_u32(line, "x", t.get(2))?,
                        parse_u32(line, "y", t.get(3))?,
                        parse_u32(line, "z", t.get(4))?,
                    ];
                    out.push(Command::Run {
                        pipeline: name.to_string(),
                        groups,
                        line,
                    });
                }
                "EXPECT" => out.push(self.expect(line, &t)?),
                "COPY" => {
                    let (Some(from), Some(&"TO"), Some(to), 4) =
                        (t.get(1), t.get(2), t.get(3), t.len())
                    else {
                        return Err(err(line, "expected `COPY from TO to`"));
                    };
                    self.buffer_exists(line, from)?;
                    self.buffer_exists(line, to)?;
                    out.push(Command::Copy {
                        from: from.to_string(),
                        to: to.to_string(),
                        line,
                    });
                }
                "REPEAT" => {
                    let n = parse_u32(line, "repeat count", t.get(1))? as usize;
                    let body = self.commands(Some(line))?;
                    if n.saturating_mul(body.len()) > 1_000_000 {
                        return Err(err(line, "REPEAT expands to over a million commands"));
                    }
                    for _ in 0..n {
                        out.extend(body.iter().cloned());
                    }
                }
                "DEVICE_FEATURE" | "DEVICE_EXTENSION" | "INSTANCE_EXTENSION" => {
                    let name = t
                        .get(1)
                        .ok_or_else(|| err(line, format!("{} needs a name", t[0])))?;
                    self.script.requirements.push((name.to_string(), line));
                }
                "DEVICE_PROPERTY" => {
                    let name = t
                        .get(1)
                        .ok_or_else(|| err(line, "DEVICE_PROPERTY needs a name"))?;
                    self.script.properties.push((name.to_string(), line));
                }
                "VIRTUAL_FILE" => {
                    let path = t
                        .get(1)
                        .ok_or_else(|| err(line, "VIRTUAL_FILE needs a path"))?;
                    let body = self.block(line, "VIRTUAL_FILE")?;
                    if self.virtual_files.insert(path.to_string(), body).is_some() {
                        return Err(err(
                            line,
                            format!("virtual file `{path}` is declared twice"),
                        ));
                    }
                }
                "SET" => {} // ENGINE_DATA: timeouts; halc has its own.
                "CLEAR" | "CLEAR_COLOR" | "CLEAR_DEPTH" | "CLEAR_STENCIL" | "IMAGE" | "SAMPLER"
                | "STRUCT" | "DEBUG" => {
                    return Err(unsupported(
                        line,
                        format!("`{}` is outside halc's compute subset", t[0]),
                    ))
                }
                other => return Err(err(line, format!("unknown command `{other}`"))),
            }
        }
        match repeat {
            Some(start) => Err(err(start, "REPEAT has no END")),
            None => Ok(out),
        }
    }

    fn shader(&mut self, line: usize, t: &[&str]) -> Result<(), ParseError> {
        let (Some(stage), Some(name), Some(format)) = (t.get(1), t.get(2), t.get(3)) else {
            return Err(err(line, "expected `SHADER compute NAME FORMAT`"));
        };
        if *stage != "compute" {
            return Err(unsupported(
                line,
                format!("{stage} shaders: halc runs compute shaders only"),
            ));
        }
        let mut target_env = None;
        // The source: inline up to END, or from a (virtual) file.
        let mut from: Option<Vec<u8>> = None;
        let mut rest = t[4..].iter();
        while let Some(k) = rest.next() {
            match *k {
                "TARGET_ENV" => {
                    target_env = Some(
                        rest.next()
                            .ok_or_else(|| err(line, "TARGET_ENV needs a value"))?
                            .to_string(),
                    )
                }
                "FILE" => {
                    let name = rest.next().ok_or_else(|| err(line, "FILE needs a path"))?;
                    from = Some(self.file(line, name)?);
                }
                "VIRTUAL_FILE" => {
                    let name = rest
                        .next()
                        .ok_or_else(|| err(line, "VIRTUAL_FILE needs a path"))?;
                    let body = self
                        .virtual_files
                        .get(*name)
                        .ok_or_else(|| err(line, format!("unknown virtual file `{name}`")))?;
                    from = Some(body.clone().into_bytes());
                }
                other => return Err(err(line, format!("unexpected `{other}`"))),
            }
        }
        let text = |bytes: Vec<u8>| {
            String::from_utf8(bytes).map_err(|_| err(line, "the shader's FILE is not UTF-8 text"))
        };
        let inline = from.is_none();
        let (body, binary) = match from {
            Some(bytes) if *format == "SPIRV-BIN" => (String::new(), bytes),
            Some(bytes) => (text(bytes)?, Vec::new()),
            None if *format == "SPIRV-BIN" => {
                return Err(err(line, "SPIRV-BIN shaders are read from a FILE"))
            }
            None => (self.block(line, "SHADER")?, Vec::new()),
        };
        let source = match *format {
            "GLSL" => ShaderSource::Glsl(body),
            "SPIRV-ASM" => ShaderSource::SpirvAsm(body),
            "SPIRV-HEX" => ShaderSource::SpirvHex(hex_bytes(line, &body)?),
            "SPIRV-BIN" => ShaderSource::SpirvHex(binary),
            "HLSL" | "OPENCL-C" | "PASSTHROUGH" => {
                return Err(unsupported(
                    line,
                    format!("{format} shaders are not supported"),
                ))
            }
            other => return Err(err(line, format!("unknown shader format `{other}`"))),
        };
        if self.script.shaders.iter().any(|s| s.name == *name) {
            return Err(err(line, format!("shader `{name}` is declared twice")));
        }
        self.script.shaders.push(Shader {
            name: name.to_string(),
            source,
            target_env,
            line,
            inline,
        });
        Ok(())
    }

    fn buffer(&mut self, line: usize, t: &[&'a str]) -> Result<(), ParseError> {
        let name = t
            .get(1)
            .ok_or_else(|| err(line, "BUFFER needs a name"))?
            .to_string();
        if self.script.buffers.iter().any(|b| b.name == name) {
            return Err(err(line, format!("buffer `{name}` is declared twice")));
        }
        match t.get(2) {
            Some(&"DATA_TYPE") => {}
            Some(&"FORMAT") => {
                return Err(unsupported(
                    line,
                    "image buffers (`FORMAT`) are outside halc's compute subset",
                ))
            }
            _ => return Err(err(line, "expected `BUFFER NAME DATA_TYPE TYPE …`")),
        }
        let ty_name = t.get(3).ok_or_else(|| err(line, "missing data type"))?;
        let ty = DataType::from_amber(ty_name)
            .ok_or_else(|| err(line, format!("unknown data type `{ty_name}`")))?;
        let mut i = 4;
        let layout = match t.get(i) {
            Some(&"STD140") => {
                i += 1;
                Layout::Std140
            }
            Some(&"STD430") => {
                i += 1;
                Layout::Std430
            }
            _ => Layout::Std430,
        };
        let bytes = match t.get(i) {
            Some(&"DATA") => {
                // Values may start on the same line and run to END.
                let mut values: Vec<&str> = t[i + 1..].to_vec();
                let mut ended = false;
                if let Some(p) = values.iter().position(|v| *v == "END") {
                    values.truncate(p);
                    ended = true;
                }
                while !ended {
                    let (_, more) = self
                        .line()
                        .ok_or_else(|| err(line, "BUFFER DATA has no END"))?;
                    match more.iter().position(|v| *v == "END") {
                        Some(p) => {
                            values.extend_from_slice(&more[..p]);
                            ended = true;
                        }
                        None => values.extend_from_slice(&more),
                    }
                }
                encode_values(line, ty, layout, &values)?
            }
            Some(&"SIZE") => {
                let n = parse_u32(line, "size", t.get(i + 1))? as usize;
                let stride = ty.stride(layout);
                if n.saturating_mul(stride) > 1 << 30 {
                    return Err(err(line, "buffer larger than 1 GiB"));
                }
                let init = t.get(i + 2).copied();
                let values: Vec<String> =
                    match init {
                        Some("FILL") => {
                            let v = t
                                .get(i + 3)
                                .ok_or_else(|| err(line, "FILL needs a value"))?;
                            vec![fill_value(line, ty.scalar, v)?; n * ty.components()]
                        }
                        Some("SERIES_FROM") => {
                            let (Some(start), Some(&"INC_BY"), Some(inc)) =
                                (t.get(i + 3), t.get(i + 4), t.get(i + 5))
                            else {
                                return Err(err(line, "expected `SERIES_FROM start INC_BY inc`"));
                            };
                            series(line, ty.scalar, start, inc, n * ty.components())?
                        }
                        // The file's data sizes the buffer, as in amber.
                        Some("FILE") => {
                            let bytes = self.buffer_file(line, ty, layout, &t[i + 3..])?;
                            return self.push_buffer(name, ty, layout, bytes, line);
                        }
                        _ => return Err(err(
                            line,
                            "expected `FILL value` or `SERIES_FROM start INC_BY inc` after SIZE",
                        )),
                    };
                if n == 0 {
                    Vec::new()
                } else {
                    let refs: Vec<&str> = values.iter().map(String::as_str).collect();
                    encode_values(line, ty, layout, &refs)?
                }
            }
            Some(&"FILE") => self.buffer_file(line, ty, layout, &t[i + 1..])?,
            Some(&"WIDTH") => {
                return Err(unsupported(line, "WIDTH/HEIGHT buffers are not supported"))
            }
            _ => return Err(err(line, "expected DATA or SIZE")),
        };
        self.push_buffer(name, ty, layout, bytes, line)
    }

    /// Declares a buffer of the script (sized by its declaration).
    fn push_buffer(
        &mut self,
        name: String,
        ty: DataType,
        layout: Layout,
        bytes: Vec<u8>,
        line: usize,
    ) -> Result<(), ParseError> {
        self.script.buffers.push(Buffer {
            name,
            ty,
            layout,
            bytes,
            line,
            implicit_size: false,
        });
        Ok(())
    }

    /// `FILE [TEXT | BINARY] name` after a buffer's type: a binary file's
    /// bytes, or a text file's values as `DATA` would give them.
    fn buffer_file(
        &self,
        line: usize,
        ty: DataType,
        layout: Layout,
        t: &[&str],
    ) -> Result<Vec<u8>, ParseError> {
        let (kind, file) = match t {
            [kind @ ("TEXT" | "BINARY"), file] => (*kind, *file),
            [kind @ "PNG", _] => {
                return Err(unsupported(
                    line,
                    format!("FILE {kind}: image data is outside halc's compute subset"),
                ))
            }
            _ => return Err(err(line, "expected `FILE TEXT name` or `FILE BINARY name`")),
        };
        let data = self.file(line, file)?;
        if kind == "BINARY" {
            return Ok(data);
        }
        let text = String::from_utf8(data)
            .map_err(|_| err(line, format!("FILE TEXT `{file}` is not UTF-8 text")))?;
        // Values as in `DATA`, with `#` comments.
        let values: Vec<&str> = text.lines().flat_map(tokens).collect();
        encode_values(line, ty, layout, &values)
    }

    fn pipeline(&mut self, line: usize, t: &[&str]) -> Result<(), ParseError> {
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
    fn subgroup(&mut self, line: usize) -> Result<(Option<RequiredSize>, bool, bool), ParseError> {
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

    fn bind(&self, line: usize, t: &[&'a str]) -> Result<Bind, ParseError> {
        let array = match t.get(1) {
            Some(&"BUFFER") => false,
            Some(&"BUFFER_ARRAY") => true,
            Some(&"SAMPLER") | Some(&"SAMPLER_ARRAY") => {
                return Err(unsupported(
                    line,
                    format!("BIND {}: samplers are not supported yet", t[1]),
                ))
            }
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
            "storage_image"
            | "sampled_image"
            | "combined_image_sampler"
            | "uniform_texel_buffer"
            | "storage_texel_buffer" => {
                return Err(unsupported(
                    line,
                    format!(
                        "buffers bound as {ty}: images and texel buffers are not supported yet"
                    ),
                ))
            }
            other => {
                return Err(err(
                    line,
                    format!("`{other}` is not a buffer type of a compute pipeline"),
                ))
            }
        };
        // One value applies to every element.
        let nth = |v: &[u64], i: usize| v.get(i).or(v.first()).copied().unwrap_or(0);
        let elements = names
            .iter()
            .enumerate()
            .map(|(i, name)| BindElement {
                buffer: name.to_string(),
                offset: nth(&offsets, i) + nth(&dynamic, i),
                range: ranges.get(i).or(ranges.first()).copied().flatten(),
            })
            .collect();
        Ok(Bind {
            elements,
            kind,
            line,
        })
    }

    fn expect(&self, line: usize, t: &[&str]) -> Result<Command, ParseError> {
        let name = t.get(1).ok_or_else(|| err(line, "EXPECT needs a buffer"))?;
        let buffer = self
            .script
            .buffers
            .iter()
            .find(|b| b.name == *name)
            .ok_or_else(|| err(line, format!("unknown buffer `{name}`")))?;
        let check = match t.get(2) {
            Some(&"EQ_BUFFER") => {
                let other = t
                    .get(3)
                    .ok_or_else(|| err(line, "EQ_BUFFER needs a buffer"))?;
                self.buffer_exists(line, other)?;
                Check::EqBuffer(other.to_string())
            }
            Some(&"RMSE_BUFFER") => {
                let other = t
                    .get(3)
                    .ok_or_else(|| err(line, "RMSE_BUFFER needs a buffer"))?;
                self.buffer_exists(line, other)?;
                if t.get(4) != Some(&"TOLERANCE") {
                    return Err(err(line, "expected `RMSE_BUFFER other TOLERANCE value`"));
                }
                let tol = parse_f64(
                    line,
                    "tolerance",
                    t.get(5).ok_or_else(|| err(line, "missing tolerance"))?,
                )?;
                Check::RmseBuffer(other.to_string(), tol)
            }
            Some(&"IDX") => {
                let offset = parse_u32(line, "IDX", t.get(3))? as usize;
                let mut i = 4;
                if t.get(i).is_some_and(|v| v.parse::<u32>().is_ok()) || t.get(i) == Some(&"SIZE") {
                    return Err(unsupported(line, "image expectations are not supported"));
                }
                let mut tol = Vec::new();
                if t.get(i) == Some(&"TOLERANCE") {
                    i += 1;
                    while let Some(v) = t.get(i).filter(|v| compare(v).is_none()) {
                        tol.push(tolerance(line, v)?);
                        i += 1;
                    }
                    if tol.is_empty() || tol.len() > 4 {
                        return Err(err(line, "TOLERANCE takes 1 to 4 values"));
                    }
                }
                let cmp = t.get(i).ok_or_else(|| err(line, "missing comparator"))?;
                let compare = match *cmp {
                    "EQ_RGB" | "EQ_RGBA" | "EQ_HISTOGRAM_EMD_BUFFER" => {
                        return Err(unsupported(line, format!("{cmp} is not supported")))
                    }
                    c => {
                        compare(c).ok_or_else(|| err(line, format!("unknown comparator `{c}`")))?
                    }
                };
                let values: Vec<String> = t[i + 1..].iter().map(|s| s.to_string()).collect();
                if values.is_empty() {
                    return Err(err(line, "EXPECT needs values"));
                }
                Check::Values {
                    offset,
                    ty: buffer.ty,
                    layout: buffer.layout,
                    compare,
                    values,
                    tolerance: tol,
                }
            }
            _ => return Err(err(line, "expected `EXPECT buffer IDX …` or `EQ_BUFFER`")),
        };
        Ok(Command::Expect {
            buffer: name.to_string(),
            check,
            line,
        })
    }
}

fn hex_bytes(line: usize, body: &str) -> Result<Vec<u8>, ParseError> {
    body.split_whitespace()
        .map(|h| {
            let h = h.strip_prefix("0x").unwrap_or(h);
            u8::from_str_radix(h, 16)
                .map_err(|_| err(line, format!("`{h}` is not a hex byte in SPIRV-HEX")))
        })
        .collect()
}

/// A `FILL` value for `scalar`: as amber reads it, a float literal fills an
/// integer buffer with its integer part (`FILL 0.0` is 0).
fn fill_value(line: usize, scalar: Scalar, v: &str) -> Result<String, ParseError> {
    if scalar.is_float() || !v.contains(['.', 'e', 'E']) || v.starts_with("0x") {
        return Ok(v.to_string());
    }
    let f = parse_f64(line, "FILL value", v)?;
    Ok((f.trunc() as i128).to_string())
}

/// `SERIES_FROM start INC_BY inc` values as text.
fn series(
    line: usize,
    scalar: Scalar,
    start: &str,
    inc: &str,
    n: usize,
) -> Result<Vec<String>, ParseError> {
    if scalar.is_float() {
        let (s, d) = (
            parse_f64(line, "start", start)?,
            parse_f64(line, "increment", inc)?,
        );
        Ok((0..n).map(|i| (s + d * i as f64).to_string()).collect())
    } else {
        let p = |v: &str| {
            v.parse::<i128>()
                .map_err(|_| err(line, format!("`{v}` is not an integer")))
        };
        let (s, d) = (p(start)?, p(inc)?);
        Ok((0..n).map(|i| (s + d * i as i128).to_string()).collect())
    }
}

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
fn vkscript(text: &str) -> Result<Script, ParseError> {
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
                        buffer: name.to_string(),
                        offset: 0,
                        range: None,
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
            line,
            implicit_size: true,
        });
    }
    script.pipelines = pipelines;
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    const AMBER: &str = "#!amber
# a comment
SHADER compute add GLSL
#version 450
layout(set = 0, binding = 0) buffer B { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] += 1u; }
END

BUFFER data DATA_TYPE uint32 DATA
1 2 3
4
END
BUFFER series DATA_TYPE vec3<float> STD430 SIZE 2 SERIES_FROM 1.0 INC_BY 0.5
BUFFER push DATA_TYPE uint32 DATA 7 END

PIPELINE compute p
  ATTACH add ENTRY_POINT main SPECIALIZE 3 AS uint32 16
  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER push AS push_constant
END
DERIVE_PIPELINE q FROM p
  BIND BUFFER series AS storage DESCRIPTOR_SET 0 BINDING 0
END

REPEAT 2
RUN p 4 1 1
END
EXPECT data IDX 4 EQ 4 5
EXPECT series IDX 0 TOLERANCE 0.01 1% EQ 1 1.5 2
EXPECT data EQ_BUFFER data
";

    #[test]
    fn amberscript_compute_subset() {
        let s = parse(AMBER).unwrap();
        assert_eq!(s.shaders.len(), 1);
        assert!(
            matches!(&s.shaders[0].source, ShaderSource::Glsl(src) if src.contains("gl_GlobalInvocationID"))
        );
        let data = &s.buffers[0];
        assert_eq!(data.bytes.len(), 16);
        assert_eq!(&data.bytes[4..8], &2u32.to_le_bytes());
        let series = &s.buffers[1];
        assert_eq!(series.bytes.len(), 32); // vec3 stride 16
        assert_eq!(&series.bytes[16..20], &2.5f32.to_le_bytes());
        let p = &s.pipelines[0];
        assert_eq!(p.specialize[0].id, 3);
        assert_eq!(p.binds.len(), 2);
        let q = &s.pipelines[1];
        assert_eq!(q.binds.len(), 2);
        assert!(q.binds.iter().any(|b| b.buffer() == "series"));
        let runs = s
            .commands
            .iter()
            .filter(|c| matches!(c, Command::Run { .. }))
            .count();
        assert_eq!(runs, 2);
        match &s.commands[3] {
            Command::Expect {
                check: Check::Values { tolerance, .. },
                line,
                ..
            } => {
                assert_eq!(*line, 29);
                assert_eq!(
                    tolerance,
                    &[Tolerance::Absolute(0.01), Tolerance::Percent(1.0)]
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("#!amber\nBUFFER b DATA_TYPE uint33 DATA 1 END\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: unknown data type `uint33`");
        assert!(!e.unsupported);
        let e = parse("#!amber\nRUN nope 1 1 1\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: unknown pipeline `nope`");
        let e = parse("#!amber\nSHADER compute s GLSL\nvoid main(){}\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: SHADER has no END");
        let e = parse("#!amber\nBUFFER b DATA_TYPE uint8 DATA 1.5 END\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: `1.5` is not a valid uint8");
        let e = parse("#!amber\nSHADER vertex v PASSTHROUGH\n").unwrap_err();
        assert!(e.unsupported, "{e}");
        assert!(parse("hello").is_err());
    }

    #[test]
    fn subgroup_required_size() {
        let script = |body: &str| {
            format!(
                "#!amber\nSHADER compute k GLSL\nvoid main(){{}}\nEND\nPIPELINE compute p\n  ATTACH k\n  SUBGROUP k\n{body}  END\nEND\n"
            )
        };
        let s = parse(&script("    FULLY_POPULATED off\n    REQUIRED_SIZE 8\n")).unwrap();
        assert_eq!(s.pipelines[0].subgroup_size, Some(RequiredSize::Exact(8)));
        assert!(!s.pipelines[0].full_subgroups);
        let s = parse(&script("    VARYING_SIZE on\n    FULLY_POPULATED on\n")).unwrap();
        assert_eq!(s.pipelines[0].subgroup_size, None);
        assert!(s.pipelines[0].full_subgroups);
        let s = parse(&script("    REQUIRED_SIZE MAX\n")).unwrap();
        assert_eq!(s.pipelines[0].subgroup_size, Some(RequiredSize::Max));
        let e = parse(&script("    REQUIRED_SIZE 12\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 8: REQUIRED_SIZE 12: a subgroup size is a power of two up to 128"
        );
        let e = parse(&script("    FULLY_POPULATED maybe\n")).unwrap_err();
        assert_eq!(e.to_string(), "line 8: FULLY_POPULATED needs on or off");
        let e = parse(&script("    REQUIRED_SIZE 8\n").replace("SUBGROUP k", "SUBGROUP nope"))
            .unwrap_err();
        assert_eq!(e.to_string(), "line 7: unknown shader `nope`");
    }

    /// What the amber tool reads beyond the basics: continued lines,
    /// descriptor arrays, dynamic offsets, buffer and shader files, virtual
    /// files, `[]` types, timed runs, optimization passes, properties.
    #[test]
    fn amberscript_as_the_amber_tool_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("v.txt"), "1 2 # a comment\n3\n").unwrap();
        std::fs::write(dir.path().join("v.bin"), [1u8, 0, 0, 0, 2, 0, 0, 0]).unwrap();
        std::fs::write(dir.path().join("k.spv"), [3u8, 2, 0x23, 7]).unwrap();
        let text = "#!amber
DEVICE_PROPERTY FloatControlsProperties.shaderDenormPreserveFloat16
VIRTUAL_FILE k.comp
void main() {}
END
SHADER compute k GLSL VIRTUAL_FILE k.comp
SHADER compute bin SPIRV-BIN FILE k.spv
BUFFER t DATA_TYPE uint32 SIZE 99 FILE TEXT v.txt
BUFFER b DATA_TYPE uint32 FILE BINARY v.bin
BUFFER f DATA_TYPE int32 SIZE 2 FILL 0.0
BUFFER a DATA_TYPE float[] STD140 DATA 1 2 END
BUFFER w DATA_TYPE int16 DATA 40206 -1 END
PIPELINE compute p
  ATTACH k
  BIND BUFFER_ARRAY t b AS storage DESCRIPTOR_SET 0 BINDING 0 \\
    DESCRIPTOR_OFFSET 0 4 DESCRIPTOR_RANGE -1 4
  BIND BUFFER f AS storage_dynamic DESCRIPTOR_SET 0 BINDING 1 OFFSET 256 DESCRIPTOR_OFFSET 16
  BIND BUFFER_ARRAY a a AS uniform_dynamic DESCRIPTOR_SET 1 BINDING 0 OFFSET 0 32
  SHADER_OPTIMIZATION k
    --eliminate-dead-code-aggressive
    --merge-blocks
  END
END
RUN TIMED_EXECUTION p 1 1 1
";
        let s = parse_in(text, dir.path()).unwrap();
        assert_eq!(
            s.properties,
            [(
                "FloatControlsProperties.shaderDenormPreserveFloat16".into(),
                2
            )]
        );
        assert_eq!(
            s.shaders[0].source,
            ShaderSource::Glsl("void main() {}\n".into())
        );
        assert_eq!(
            s.shaders[1].source,
            ShaderSource::SpirvHex(vec![3, 2, 0x23, 7])
        );
        let bytes = |n: &str| {
            s.buffers
                .iter()
                .find(|b| b.name == n)
                .unwrap()
                .bytes
                .clone()
        };
        let words = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|w| w.to_le_bytes()).collect() };
        assert_eq!(bytes("t"), words(&[1, 2, 3]));
        assert_eq!(bytes("b"), words(&[1, 2]));
        assert_eq!(bytes("f"), words(&[0, 0]));
        assert_eq!(
            bytes("a").len(),
            32,
            "float[] elements take 16 bytes in std140"
        );
        assert_eq!(bytes("w"), [0x0e, 0x9d, 0xff, 0xff]);
        let p = &s.pipelines[0];
        let el = |b: usize| -> Vec<(String, u64, Option<u64>)> {
            p.binds[b]
                .elements
                .iter()
                .map(|e| (e.buffer.clone(), e.offset, e.range))
                .collect()
        };
        assert_eq!(el(0), [("t".into(), 0, None), ("b".into(), 4, Some(4))]);
        assert_eq!(el(1), [("f".into(), 272, None)]);
        assert_eq!(el(2), [("a".into(), 0, None), ("a".into(), 32, None)]);
        assert_eq!(
            p.optimizations,
            ["--eliminate-dead-code-aggressive", "--merge-blocks"]
        );
        assert!(matches!(
            s.commands[0],
            Command::Run {
                groups: [1, 1, 1],
                ..
            }
        ));
        // What stays an error, naming the line.
        for (text, want) in [
            (
                "#!amber\nBUFFER b DATA_TYPE uint32 FILE TEXT nope.txt\n",
                "line 2: cannot read FILE",
            ),
            (
                "#!amber\nBUFFER b DATA_TYPE uint32 DATA 1 END\nSHADER compute k GLSL\nEND\nPIPELINE compute p\nATTACH k\nBIND BUFFER b AS storage_dynamic DESCRIPTOR_SET 0 BINDING 0\nEND\n",
                "line 7: a storage_dynamic binding needs OFFSET",
            ),
            (
                "#!amber\nBUFFER b DATA_TYPE uint32 DATA 1 END\nSHADER compute k GLSL\nEND\nPIPELINE compute p\nATTACH k\nBIND BUFFER_ARRAY b b b AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 0 4\nEND\n",
                "line 7: DESCRIPTOR_OFFSET has 2 values for 3 buffers",
            ),
            (
                "#!amber\nSHADER compute k GLSL VIRTUAL_FILE nope\n",
                "line 2: unknown virtual file `nope`",
            ),
        ] {
            let e = parse_in(text, dir.path()).unwrap_err();
            assert!(e.to_string().starts_with(want), "{e}");
        }
    }

    #[test]
    fn vkscript_ubo_data_is_std140() {
        let s = parse(
            "[compute shader spirv hex]
03 02 23 07
[test]
uniform ubo 0:1 mat2 0 1 2 3 4
ssbo 0:0 subdata mat2 0 1 2 3 4
",
        )
        .unwrap();
        let len = |n: &str| s.buffers.iter().find(|b| b.name == n).unwrap().bytes.len();
        assert_eq!(len("ubo 0:1"), 32, "std140 pads matrix columns to 16 bytes");
        assert_eq!(len("ssbo 0:0"), 16);
    }

    #[test]
    fn vkscript_compute_subset() {
        let s = parse(
            "[require]
VK_KHR_storage_buffer_storage_class

[compute shader spirv hex]
03 02 23 07

[test]
ssbo 0:1 subdata int 0 1 2 \\
  3
uniform ubo 0 vec2 0 1.5 2.5
push uint 4 9
tolerance 0.5
compute 2 1 1
probe ssbo int 0:1 4 == 2 3
probe ssbo float 0:1 0 ~= 1
",
        )
        .unwrap();
        assert_eq!(
            s.shaders[0].source,
            ShaderSource::SpirvHex(vec![3, 2, 0x23, 7])
        );
        assert_eq!(s.requirements[0].0, "VK_KHR_storage_buffer_storage_class");
        let names: Vec<_> = s.buffers.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["push", "ssbo 0:1", "ubo 0:0"]);
        assert_eq!(s.buffers[0].bytes.len(), 8);
        assert_eq!(s.buffers[1].bytes.len(), 12);
        assert_eq!(s.pipelines[0].binds.len(), 3);
        match &s.commands[5] {
            Command::Expect {
                check: Check::Values { tolerance, .. },
                ..
            } => assert_eq!(tolerance, &[Tolerance::Absolute(0.5)]),
            other => panic!("{other:?}"),
        }
    }
}
