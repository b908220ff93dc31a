//! AmberScript's `IMAGE` and `SAMPLER`, and the texel formats a buffer or
//! an image can have (`DATA_TYPE R8G8B8A8_UNORM`, `FORMAT R32_SFLOAT`).

use vulkan_reference::{AddressMode, BorderColor, Component, Filter, Format, SamplerDesc};

use super::super::error::{err, unsupported, ParseError};
use super::super::values::{encode_values, fill_value, series};
use super::super::words::{parse_f64, parse_u32};
use super::reader::{AmberParser, MAX_BUFFER_BYTES};
use crate::run::amber::data::{DataType, Layout, Scalar};
use crate::run::amber::{Buffer, ImageShape, Sampler};

/// The format called `name`, if it names one (a Vulkan format name:
/// capitals, digits and `_`, with a component letter first); `Err` when
/// it looks like a format halc does not support.
pub(super) fn format_named(line: usize, name: &str) -> Result<Option<Format>, ParseError> {
    let looks = name.starts_with(['R', 'B', 'A', 'D', 'S', 'E', 'G'])
        && name.contains('_')
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if !looks {
        return Ok(None);
    }
    match Format::by_name(name) {
        Some(f) => Ok(Some(f)),
        None => Err(unsupported(
            line,
            format!(
                "format {name} is not one halc's images support (they are: {})",
                Format::ALL
                    .iter()
                    .map(|f| f.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The data type a format's texels are written as in Amber: one component
/// per channel, each the channel's storage (a `UNORM` channel of 8 bits is
/// a `uint8` from 0 to 255, as amber takes it).
pub(super) fn format_data_type(line: usize, f: Format) -> Result<DataType, ParseError> {
    let Some((n, c)) = f.components() else {
        return Err(unsupported(
            line,
            format!("{f}: packed formats are not supported as Amber data"),
        ));
    };
    let scalar = match c {
        Component::Unorm(b) | Component::Uint(b) => Scalar::UInt(b),
        Component::Snorm(b) | Component::Sint(b) => Scalar::Int(b),
        Component::Float(b) => Scalar::Float(b),
    };
    let ty = DataType {
        rows: n as u32,
        ..DataType::scalar(scalar)
    };
    if ty.stride(Layout::Std430) != f.texel_bytes() as usize {
        return Err(unsupported(
            line,
            format!("{f}: its texels are not laid out as Amber lays out {ty}"),
        ));
    }
    Ok(ty)
}

/// The format of an image of data type `ty` (`float` is `R32_SFLOAT`,
/// `vec4<int32>` `R32G32B32A32_SINT`).
pub(super) fn data_type_format(line: usize, ty: DataType) -> Result<Format, ParseError> {
    let (bits, suffix) = match ty.scalar {
        Scalar::UInt(b) => (b, "UINT"),
        Scalar::Int(b) => (b, "SINT"),
        Scalar::Float(b) => (b, "SFLOAT"),
    };
    let name: String = ["R", "G", "B", "A"][..ty.rows.min(4) as usize]
        .iter()
        .map(|c| format!("{c}{bits}"))
        .collect::<String>()
        + "_"
        + suffix;
    match Format::by_name(&name) {
        Some(f) if ty.columns == 1 && !ty.array => Ok(f),
        _ => Err(unsupported(
            line,
            format!("an image of {ty} ({name}) is not one halc's images support"),
        )),
    }
}

impl<'a> AmberParser<'a> {
    /// `IMAGE name {FORMAT f | DATA_TYPE t} [MIP_LEVELS n] [SAMPLES n]
    /// DIM_xD WIDTH w [HEIGHT h [DEPTH d]] [initializer]`.
    pub(super) fn image(&mut self, line: usize, t: &[&'a str]) -> Result<(), ParseError> {
        let name = t
            .get(1)
            .ok_or_else(|| err(line, "IMAGE needs a name"))?
            .to_string();
        if self.script.buffers.iter().any(|b| b.name == name) {
            return Err(err(line, format!("buffer `{name}` is declared twice")));
        }
        let what = t.get(3).ok_or_else(|| err(line, "IMAGE needs a format"))?;
        let (format, ty) = match t.get(2) {
            Some(&"FORMAT") => {
                let f = format_named(line, what)?
                    .ok_or_else(|| err(line, format!("`{what}` is not a format")))?;
                match format_data_type(line, f) {
                    Ok(ty) => (f, ty),
                    // A packed format's texels are 32-bit words: given no
                    // values, or filled with 0, the image is all zero.
                    Err(e) if f.texel_bytes() == 4 => {
                        let zeros = match t.iter().position(|w| *w == "FILL") {
                            None => !t.iter().any(|w| matches!(*w, "DATA" | "SERIES_FROM")),
                            Some(i) => t.get(i + 1).is_some_and(|v| v.parse::<f64>() == Ok(0.0)),
                        };
                        if !zeros {
                            return Err(e);
                        }
                        (f, DataType::scalar(Scalar::UInt(32)))
                    }
                    Err(e) => return Err(e),
                }
            }
            Some(&"DATA_TYPE") => {
                let ty = DataType::from_amber(what)
                    .ok_or_else(|| err(line, format!("unknown data type `{what}`")))?;
                (data_type_format(line, ty)?, ty)
            }
            _ => {
                return Err(err(
                    line,
                    "expected `IMAGE NAME FORMAT F …` or `IMAGE NAME DATA_TYPE T …`",
                ))
            }
        };
        let mut dims = None;
        let mut mip_levels = 1;
        let (mut width, mut height, mut depth) = (None, None, None);
        let mut i = 4;
        while let Some(&k) = t.get(i) {
            let value = || parse_u32(line, k, t.get(i + 1));
            match k {
                "MIP_LEVELS" => mip_levels = value()?,
                "SAMPLES" => {
                    if value()? != 1 {
                        return Err(unsupported(
                            line,
                            "multisampled images (SAMPLES): a Metal kernel cannot write a multisampled texture",
                        ));
                    }
                }
                "DIM_1D" | "DIM_2D" | "DIM_3D" => {
                    dims = Some(u32::from(k.as_bytes()[4] - b'0'));
                    i += 1;
                    continue;
                }
                "WIDTH" => width = Some(value()?),
                "HEIGHT" => height = Some(value()?),
                "DEPTH" => depth = Some(value()?),
                _ => break,
            }
            i += 2;
        }
        let dims = dims.ok_or_else(|| err(line, "IMAGE needs DIM_1D, DIM_2D or DIM_3D"))?;
        let need = |v: Option<u32>, what: &str| {
            v.filter(|&v| v > 0).ok_or_else(|| {
                err(
                    line,
                    format!("a DIM_{dims}D IMAGE needs {what} of at least 1"),
                )
            })
        };
        let shape = ImageShape {
            mip_levels,
            dims,
            width: need(width, "WIDTH")?,
            height: if dims >= 2 {
                need(height, "HEIGHT")?
            } else {
                1
            },
            depth: if dims == 3 { need(depth, "DEPTH")? } else { 1 },
        };
        if (dims < 2 && height.is_some()) || (dims < 3 && depth.is_some()) {
            return Err(err(
                line,
                format!(
                    "a DIM_{dims}D IMAGE has no {}",
                    if dims < 2 && height.is_some() {
                        "HEIGHT"
                    } else {
                        "DEPTH"
                    }
                ),
            ));
        }
        if mip_levels == 0 {
            return Err(err(line, "MIP_LEVELS must be at least 1"));
        }
        if mip_levels > 1 {
            // Amber copies level k as (width >> k) x (height >> k) at the
            // full depth: a 3D image's smaller levels, or a level of no
            // width, are not copies Vulkan allows.
            if dims == 3 {
                return Err(unsupported(
                    line,
                    "mip-mapped 3D images: amber copies every level at the full depth",
                ));
            }
            let last = mip_levels - 1;
            if last >= 32 || shape.width >> last == 0 || (dims == 2 && shape.height >> last == 0) {
                return Err(err(
                    line,
                    format!(
                        "MIP_LEVELS {mip_levels}: level {last} of a {}x{} image would be empty (amber copies level k as width >> k by height >> k)",
                        shape.width, shape.height
                    ),
                ));
            }
        }
        let bytes_wanted = shape
            .texels()
            .saturating_mul(u64::from(format.texel_bytes()));
        if bytes_wanted > MAX_BUFFER_BYTES {
            return Err(err(
                line,
                format!(
                    "image `{name}`: {}x{}x{} texels of {format} are {bytes_wanted} bytes, past halc test's limit of {MAX_BUFFER_BYTES} bytes (1 GiB) per buffer",
                    shape.width, shape.height, shape.depth
                ),
            ));
        }
        let n = shape.texels() as usize;
        let layout = Layout::Std430;
        let bytes = match t.get(i).copied() {
            None => vec![0; bytes_wanted as usize],
            Some("FILL") => {
                let v = t
                    .get(i + 1)
                    .ok_or_else(|| err(line, "FILL needs a value"))?;
                let values = vec![fill_value(line, ty.scalar, v)?; n * ty.components()];
                let refs: Vec<&str> = values.iter().map(String::as_str).collect();
                encode_values(line, ty, layout, &refs)?
            }
            Some("SERIES_FROM") => {
                let (Some(start), Some(&"INC_BY"), Some(inc)) =
                    (t.get(i + 1), t.get(i + 2), t.get(i + 3))
                else {
                    return Err(err(line, "expected `SERIES_FROM start INC_BY inc`"));
                };
                let values = series(line, ty.scalar, start, inc, n * ty.components())?;
                let refs: Vec<&str> = values.iter().map(String::as_str).collect();
                encode_values(line, ty, layout, &refs)?
            }
            Some("DATA") => {
                let values = self.data_values(line, "IMAGE", &t[i + 1..])?;
                let bytes = encode_values(line, ty, layout, &values)?;
                if bytes.len() as u64 != bytes_wanted {
                    return Err(err(
                        line,
                        format!(
                            "image `{name}`: DATA gives {} values for {n} texels of {} components",
                            values.len(),
                            ty.components()
                        ),
                    ));
                }
                bytes
            }
            Some(other) => return Err(err(line, format!("unexpected `{other}` in IMAGE"))),
        };
        self.script.buffers.push(Buffer {
            name,
            ty,
            layout,
            bytes,
            format: Some(format),
            image: Some(shape),
            implicit_size: false,
            line,
        });
        Ok(())
    }

    /// `SAMPLER name [MAG_FILTER f] [MIN_FILTER f] [ADDRESS_MODE_U m] …
    /// [BORDER_COLOR c] [MIN_LOD v] [MAX_LOD v] [NORMALIZED_COORDS |
    /// UNNORMALIZED_COORDS] [COMPARE on|off] [COMPARE_OP op]`, with
    /// Amber's defaults (nearest, repeat, float transparent black, LOD 0
    /// to 1, normalized).
    pub(super) fn sampler(&mut self, line: usize, t: &[&'a str]) -> Result<(), ParseError> {
        let name = t
            .get(1)
            .ok_or_else(|| err(line, "SAMPLER needs a name"))?
            .to_string();
        if self.script.samplers.iter().any(|s| s.name == name) {
            return Err(err(line, format!("sampler `{name}` is declared twice")));
        }
        let mut desc = SamplerDesc {
            max_lod: 1.0,
            ..SamplerDesc::default()
        };
        let mut i = 2;
        while let Some(&k) = t.get(i) {
            let v = t
                .get(i + 1)
                .copied()
                .filter(|_| !matches!(k, "NORMALIZED_COORDS" | "UNNORMALIZED_COORDS"));
            let value = || v.ok_or_else(|| err(line, format!("{k} needs a value")));
            let filter = |v: &str| match v {
                "nearest" => Ok(Filter::Nearest),
                "linear" => Ok(Filter::Linear),
                other => Err(err(
                    line,
                    format!("`{other}` is not a filter (nearest, linear)"),
                )),
            };
            let address = |v: &str| match v {
                "repeat" => Ok(AddressMode::Repeat),
                "mirrored_repeat" => Ok(AddressMode::MirroredRepeat),
                "clamp_to_edge" => Ok(AddressMode::ClampToEdge),
                "clamp_to_border" => Ok(AddressMode::ClampToBorder),
                "mirrored_clamp_to_edge" => Ok(AddressMode::MirrorClampToEdge),
                other => Err(err(line, format!("`{other}` is not an address mode"))),
            };
            match k {
                "MAG_FILTER" => desc.mag_filter = filter(value()?)?,
                "MIN_FILTER" => desc.min_filter = filter(value()?)?,
                "ADDRESS_MODE_U" => desc.address_modes[0] = address(value()?)?,
                "ADDRESS_MODE_V" => desc.address_modes[1] = address(value()?)?,
                "ADDRESS_MODE_W" => desc.address_modes[2] = address(value()?)?,
                "BORDER_COLOR" => {
                    desc.border_color = match value()? {
                        "float_transparent_black" => BorderColor::TransparentBlack,
                        "float_opaque_black" => BorderColor::OpaqueBlack,
                        "float_opaque_white" => BorderColor::OpaqueWhite,
                        c @ ("int_transparent_black" | "int_opaque_black" | "int_opaque_white") => {
                            return Err(unsupported(
                                line,
                                format!(
                                "BORDER_COLOR {c}: integer border colours are not supported yet"
                            ),
                            ))
                        }
                        other => {
                            return Err(err(line, format!("`{other}` is not a border colour")))
                        }
                    }
                }
                "MIN_LOD" => desc.min_lod = parse_f64(line, "MIN_LOD", value()?)? as f32,
                "MAX_LOD" => desc.max_lod = parse_f64(line, "MAX_LOD", value()?)? as f32,
                "NORMALIZED_COORDS" => {
                    desc.normalized_coordinates = true;
                    i += 1;
                    continue;
                }
                "UNNORMALIZED_COORDS" => {
                    desc.normalized_coordinates = false;
                    i += 1;
                    continue;
                }
                "COMPARE" => {
                    if value()? != "off" {
                        return Err(unsupported(
                            line,
                            "depth-compare samplers (COMPARE on) are not supported",
                        ));
                    }
                }
                "COMPARE_OP" => {
                    value()?;
                }
                other => return Err(err(line, format!("unexpected `{other}` in SAMPLER"))),
            }
            i += 2;
        }
        if !desc.normalized_coordinates {
            // As amber: unnormalized coordinates have a LOD range of 0.
            desc.min_lod = 0.0;
            desc.max_lod = 0.0;
        }
        self.script.samplers.push(Sampler { name, desc, line });
        Ok(())
    }
}
