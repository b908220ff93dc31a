//! Values written in a script as buffer bytes: typed values in a layout,
//! `SPIRV-HEX` bytes, `FILL` and `SERIES_FROM` values.

use super::error::{err, ParseError};
use super::words::parse_f64;
use crate::run::amber::data::{encode, DataType, Layout, Scalar};

/// Encodes `values` as elements of `ty` in `layout`: component after
/// component, each element at its stride.
pub(super) fn encode_values(
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
pub(super) fn hex_bytes(line: usize, body: &str) -> Result<Vec<u8>, ParseError> {
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
pub(super) fn fill_value(line: usize, scalar: Scalar, v: &str) -> Result<String, ParseError> {
    if scalar.is_float() || !v.contains(['.', 'e', 'E']) || v.starts_with("0x") {
        return Ok(v.to_string());
    }
    let f = parse_f64(line, "FILL value", v)?;
    Ok((f.trunc() as i128).to_string())
}

/// `SERIES_FROM start INC_BY inc` values as text.
pub(super) fn series(
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
