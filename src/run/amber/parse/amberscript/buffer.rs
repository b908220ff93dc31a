//! AmberScript's `BUFFER`: its type and layout, and its contents from
//! `DATA`, `FILL`, `SERIES_FROM`, `SIZE` or a `FILE`.

use super::super::error::{err, unsupported, ParseError};
use super::super::values::{encode_values, fill_value, series};
use super::super::words::{parse_u64, tokens};
use super::reader::{AmberParser, MAX_BUFFER_BYTES};
use crate::run::amber::data::{DataType, Layout};
use crate::run::amber::Buffer;

impl<'a> AmberParser<'a> {
    pub(super) fn buffer(&mut self, line: usize, t: &[&'a str]) -> Result<(), ParseError> {
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
        // A format as the data type (`R8G8B8A8_UNORM`): what a texel
        // buffer holds, its components as integers or floats.
        let format = super::image::format_named(line, ty_name)?;
        let ty = match format {
            Some(f) => super::image::format_data_type(line, f)?,
            None => DataType::from_amber(ty_name)
                .ok_or_else(|| err(line, format!("unknown data type `{ty_name}`")))?,
        };
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
                let values = self.data_values(line, "BUFFER", &t[i + 1..])?;
                encode_values(line, ty, layout, &values)?
            }
            Some(&"SIZE") => {
                let count = t.get(i + 1).ok_or_else(|| err(line, "missing size"))?;
                let n = parse_u64(line, "size", count)?;
                let stride = ty.stride(layout) as u64;
                let bytes = n.saturating_mul(stride);
                if bytes > MAX_BUFFER_BYTES {
                    return Err(err(
                        line,
                        format!(
                            "buffer `{name}`: SIZE {n} of {stride}-byte elements is {bytes} bytes, past halc test's limit of {MAX_BUFFER_BYTES} bytes (1 GiB) per buffer"
                        ),
                    ));
                }
                let n = n as usize;
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
                            self.push_buffer(name, ty, layout, bytes, line)?;
                            return self.set_format(format);
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
        self.push_buffer(name, ty, layout, bytes, line)?;
        self.set_format(format)
    }

    /// Gives the buffer declared last its format.
    fn set_format(&mut self, format: Option<vulkan_reference::Format>) -> Result<(), ParseError> {
        if let Some(b) = self.script.buffers.last_mut() {
            b.format = format;
        }
        Ok(())
    }

    /// The values of a `DATA` initializer: those after it on its line,
    /// then whole lines, up to `END`.
    pub(super) fn data_values(
        &mut self,
        line: usize,
        what: &str,
        first: &[&'a str],
    ) -> Result<Vec<&'a str>, ParseError> {
        let mut values: Vec<&str> = first.to_vec();
        let mut ended = false;
        if let Some(p) = values.iter().position(|v| *v == "END") {
            values.truncate(p);
            ended = true;
        }
        while !ended {
            let (_, more) = self
                .line()
                .ok_or_else(|| err(line, format!("{what} DATA has no END")))?;
            match more.iter().position(|v| *v == "END") {
                Some(p) => {
                    values.extend_from_slice(&more[..p]);
                    ended = true;
                }
                None => values.extend_from_slice(&more),
            }
        }
        Ok(values)
    }

    /// Declares a buffer of the script (sized by its declaration).
    pub(super) fn push_buffer(
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
            format: None,
            image: None,
            line,
            implicit_size: false,
        });
        Ok(())
    }

    /// `FILE [TEXT | BINARY] name` after a buffer's type: a binary file's
    /// bytes, or a text file's values as `DATA` would give them.
    pub(super) fn buffer_file(
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
}
