//! AmberScript's command loop (`REPEAT` bodies too): the declarations it
//! hands on, and `RUN`, `COPY`, `EXPECT` themselves.

use super::super::error::{err, unsupported, ParseError};
use super::super::words::{compare, parse_f64, parse_u32, tolerance};
use super::reader::AmberParser;
use crate::run::amber::{Buffer, Check, Command, Probe};

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
                "ACCELERATION_STRUCTURE" => self.acceleration_structure(line, &t)?,
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
            Some(&"EQ_HISTOGRAM_EMD_BUFFER") => {
                let other = t
                    .get(3)
                    .ok_or_else(|| err(line, "EQ_HISTOGRAM_EMD_BUFFER needs a buffer"))?;
                self.buffer_exists(line, other)?;
                let b = self.script.buffers.iter().find(|b| b.name == *other);
                let four_unorm8 = |f: Option<vulkan_reference::Format>| {
                    f.and_then(|f| f.components())
                        == Some((4, vulkan_reference::Component::Unorm(8)))
                };
                // As amber: the two of one format and size, of four 8-bit
                // normalized channels.
                if b.map(|b| (b.format, b.image, b.bytes.len()))
                    != Some((buffer.format, buffer.image, buffer.bytes.len()))
                {
                    return Err(err(
                        line,
                        format!("EXPECT {name} EQ_HISTOGRAM_EMD_BUFFER {other}: the two differ in format or size"),
                    ));
                }
                if !four_unorm8(buffer.format) {
                    return Err(err(
                        line,
                        "EQ_HISTOGRAM_EMD_BUFFER compares formats of four 8-bit unorm channels only (as amber)",
                    ));
                }
                if t.get(4) != Some(&"TOLERANCE") || t.len() != 6 {
                    return Err(err(
                        line,
                        "expected `EQ_HISTOGRAM_EMD_BUFFER other TOLERANCE value`",
                    ));
                }
                let tol = parse_f64(line, "tolerance", t[5])?;
                Check::HistogramEmd(other.to_string(), tol)
            }
            Some(&"IDX") if t.get(4).is_some_and(|v| v.parse::<u32>().is_ok()) => {
                Check::Probe(self.probe(line, buffer, t)?)
            }
            Some(&"IDX") => {
                let offset = parse_u32(line, "IDX", t.get(3))? as usize;
                let mut i = 4;
                if t.get(i) == Some(&"SIZE") {
                    return Err(err(
                        line,
                        "EXPECT … IDX x SIZE: a probe needs `IDX x y SIZE w h`",
                    ));
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
                    "EQ_RGB" | "EQ_RGBA" => {
                        return Err(err(
                            line,
                            format!("{cmp} needs a rectangle: `IDX x y SIZE w h {cmp} …`"),
                        ))
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

    /// `EXPECT name IDX x y SIZE w h EQ_RGB r g b [TOLERANCE t…]` or
    /// `EQ_RGBA r g b a […]`, as amber's parser takes it.
    fn probe(&self, line: usize, buffer: &Buffer, t: &[&str]) -> Result<Probe, ParseError> {
        let name = &buffer.name;
        let x = parse_u32(line, "x", t.get(3))?;
        let y = parse_u32(line, "y", t.get(4))?;
        if t.get(5) != Some(&"SIZE") {
            return Err(err(
                line,
                "expected `IDX x y SIZE w h EQ_RGB …` (amber probes rectangles only)",
            ));
        }
        let w = parse_u32(line, "width", t.get(6))?;
        let h = parse_u32(line, "height", t.get(7))?;
        if w == 0 || h == 0 {
            return Err(err(line, "a probe's width and height must be at least 1"));
        }
        let rgba = match t.get(8) {
            Some(&"EQ_RGBA") => true,
            Some(&"EQ_RGB") => false,
            other => {
                return Err(err(
                    line,
                    format!(
                        "expected EQ_RGB or EQ_RGBA after SIZE, got `{}`",
                        other.unwrap_or(&"")
                    ),
                ))
            }
        };
        let n = if rgba { 4 } else { 3 };
        let mut expected = [0.0; 4];
        for (c, e) in expected.iter_mut().take(n).enumerate() {
            let what = ["R", "G", "B", "A"][c];
            let v = t
                .get(9 + c)
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|v| *v <= 255)
                .ok_or_else(|| err(line, format!("{what} must be an integer from 0 to 255")))?;
            // As amber: the value over 255 in single precision.
            *e = f64::from(v as f32 / 255.0);
        }
        let mut i = 9 + n;
        let mut tolerance = Vec::new();
        if t.get(i) == Some(&"TOLERANCE") {
            i += 1;
            while let Some(v) = t.get(i) {
                tolerance.push(super::super::words::tolerance(line, v)?);
                i += 1;
            }
            if tolerance.is_empty() || tolerance.len() > n {
                return Err(err(
                    line,
                    format!("TOLERANCE of an {} probe takes 1 to {n} values", &t[8][3..]),
                ));
            }
        }
        if let Some(extra) = t.get(i) {
            return Err(err(line, format!("unexpected `{extra}` after the probe")));
        }
        let format = match buffer.format {
            Some(f) => f,
            None => super::image::data_type_format(line, buffer.ty)?,
        };
        if format.components().is_none() {
            return Err(unsupported(
                line,
                format!("EXPECT {name}: probing packed texels ({format}) is not supported"),
            ));
        }
        let frame = match buffer.image {
            Some(s) => (s.width, s.height),
            None => (1, 1),
        };
        if u64::from(x) + u64::from(w) > u64::from(frame.0)
            || u64::from(y) + u64::from(h) > u64::from(frame.1)
        {
            return Err(err(
                line,
                format!(
                    "EXPECT {name}: the probe's rectangle ({x}, {y}) {w}x{h} is outside the {}x{} {}",
                    frame.0,
                    frame.1,
                    if buffer.image.is_some() { "image" } else { "buffer (amber probes a buffer as one texel)" }
                ),
            ));
        }
        Ok(Probe {
            format,
            frame,
            rect: (x, y, w, h),
            rgba,
            expected,
            tolerance,
        })
    }
}
