//! AmberScript's command loop (`REPEAT` bodies too): the declarations it
//! hands on, and `RUN`, `COPY`, `EXPECT` themselves.

use super::super::error::{err, unsupported, ParseError};
use super::super::words::{compare, parse_f64, parse_u32, tolerance};
use super::reader::AmberParser;
use crate::run::amber::{Check, Command};

impl<'a> AmberParser<'a> {
    /// Commands until the end of the file, or until `END` inside `REPEAT`.
    pub(super) fn commands(&mut self, repeat: Option<usize>) -> Result<Vec<Command>, ParseError> {
        let mut out = Vec::new();
        while let Some((line, t)) = self.line() {
            match t[0] {
                "END" if repeat.is_some() => return Ok(out),
                "SHADER" => self.shader(line, &t)?,
                "BUFFER" => self.buffer(line, &t)?,
                "IMAGE" => self.image(line, &t)?,
                "SAMPLER" => self.sampler(line, &t)?,
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
                "CLEAR" | "CLEAR_COLOR" | "CLEAR_DEPTH" | "CLEAR_STENCIL" | "STRUCT" | "DEBUG" => {
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

    pub(super) fn expect(&self, line: usize, t: &[&str]) -> Result<Command, ParseError> {
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
