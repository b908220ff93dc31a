//! Amber data types: element types, their std140/std430 layouts, and the
//! conversion of text values to bytes and back.

use std::fmt;

/// A scalar component type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// Signed integer of the given bit width (8, 16, 32, 64).
    Int(u32),
    /// Unsigned integer of the given bit width (8, 16, 32, 64).
    UInt(u32),
    /// IEEE float of the given bit width (16, 32, 64).
    Float(u32),
}

impl Scalar {
    /// Size in bytes.
    pub fn bytes(self) -> usize {
        match self {
            Scalar::Int(b) | Scalar::UInt(b) | Scalar::Float(b) => b as usize / 8,
        }
    }

    /// Whether it is a float type.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }

    /// Amber's name (`int32`, `float`, `float16`, `double`).
    fn amber_name(self) -> String {
        match self {
            Scalar::Int(b) => format!("int{b}"),
            Scalar::UInt(b) => format!("uint{b}"),
            Scalar::Float(16) => "float16".into(),
            Scalar::Float(32) => "float".into(),
            Scalar::Float(64) => "double".into(),
            Scalar::Float(b) => format!("float{b}"),
        }
    }

    /// Parses Amber's scalar names.
    pub fn from_amber(name: &str) -> Option<Scalar> {
        Some(match name {
            "int8" => Scalar::Int(8),
            "int16" => Scalar::Int(16),
            "int32" => Scalar::Int(32),
            "int64" => Scalar::Int(64),
            "uint8" => Scalar::UInt(8),
            "uint16" => Scalar::UInt(16),
            "uint32" => Scalar::UInt(32),
            "uint64" => Scalar::UInt(64),
            "float16" => Scalar::Float(16),
            "float" => Scalar::Float(32),
            "double" => Scalar::Float(64),
            _ => return None,
        })
    }
}

/// Memory layout rules for a buffer's elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// std430 (Amber's default for buffers).
    #[default]
    Std430,
    /// std140: array elements and matrix columns rounded up to 16 bytes.
    Std140,
}

/// The type of one buffer element: a scalar, a vector or a matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataType {
    /// Component type.
    pub scalar: Scalar,
    /// Components per vector (1 for a scalar); rows of a matrix.
    pub rows: u32,
    /// Matrix columns (1 for scalars and vectors).
    pub columns: u32,
    /// Written with `[]` (`int8[]`, `vec2<float>[]`): the buffer is an
    /// array of this type, whose elements std140 rounds up to 16 bytes.
    /// Without it, amber lays std140 elements out as std430 does (vec3s
    /// and matrix columns aside).
    pub array: bool,
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.scalar.amber_name();
        match (self.columns, self.rows) {
            (1, 1) => f.write_str(&s)?,
            (1, n) => write!(f, "vec{n}<{s}>")?,
            (c, r) => write!(f, "mat{c}x{r}<{s}>")?,
        }
        if self.array {
            f.write_str("[]")?;
        }
        Ok(())
    }
}

impl DataType {
    /// A scalar type.
    pub fn scalar(scalar: Scalar) -> Self {
        DataType {
            scalar,
            rows: 1,
            columns: 1,
            array: false,
        }
    }

    /// Parses Amber's `DATA_TYPE` values: `uint32`, `vec4<float>`,
    /// `mat2x3<float>` (columns x rows).
    pub fn from_amber(name: &str) -> Option<DataType> {
        if let Some(element) = name.strip_suffix("[]") {
            let t = DataType::from_amber(element).filter(|t| !t.array)?;
            return Some(DataType { array: true, ..t });
        }
        if let Some(s) = Scalar::from_amber(name) {
            return Some(DataType::scalar(s));
        }
        let (head, inner) = name.strip_suffix('>')?.split_once('<')?;
        let scalar = Scalar::from_amber(inner)?;
        let n = |c: &str| c.parse::<u32>().ok().filter(|n| (2..=4).contains(n));
        if let Some(n) = head.strip_prefix("vec").and_then(n) {
            return Some(DataType {
                scalar,
                rows: n,
                columns: 1,
                array: false,
            });
        }
        let (c, r) = head.strip_prefix("mat")?.split_once('x')?;
        Some(DataType {
            scalar,
            rows: n(r)?,
            columns: n(c)?,
            array: false,
        })
    }

    /// Parses VkScript's GLSL-style type names (`int`, `uvec4`, `i16vec2`,
    /// `mat3x2`, `float`, `double`, `int64_t`, ...).
    pub fn from_vkscript(name: &str) -> Option<DataType> {
        let scalar = |s: Scalar| Some(DataType::scalar(s));
        match name {
            "int" => return scalar(Scalar::Int(32)),
            "uint" => return scalar(Scalar::UInt(32)),
            "int8_t" => return scalar(Scalar::Int(8)),
            "uint8_t" => return scalar(Scalar::UInt(8)),
            "int16_t" => return scalar(Scalar::Int(16)),
            "uint16_t" => return scalar(Scalar::UInt(16)),
            "int64_t" => return scalar(Scalar::Int(64)),
            "uint64_t" => return scalar(Scalar::UInt(64)),
            "float16_t" => return scalar(Scalar::Float(16)),
            "float" => return scalar(Scalar::Float(32)),
            "double" => return scalar(Scalar::Float(64)),
            _ => {}
        }
        let prefixes: [(&str, Scalar); 11] = [
            ("i8vec", Scalar::Int(8)),
            ("u8vec", Scalar::UInt(8)),
            ("i16vec", Scalar::Int(16)),
            ("u16vec", Scalar::UInt(16)),
            ("i64vec", Scalar::Int(64)),
            ("u64vec", Scalar::UInt(64)),
            ("f16vec", Scalar::Float(16)),
            ("ivec", Scalar::Int(32)),
            ("uvec", Scalar::UInt(32)),
            ("dvec", Scalar::Float(64)),
            ("vec", Scalar::Float(32)),
        ];
        for (p, s) in prefixes {
            if let Some(rest) = name.strip_prefix(p) {
                let rows = if rest.is_empty() {
                    4
                } else {
                    rest.parse().ok().filter(|n| (2..=4).contains(n))?
                };
                return Some(DataType {
                    scalar: s,
                    rows,
                    columns: 1,
                    array: false,
                });
            }
        }
        for (p, s) in [("dmat", Scalar::Float(64)), ("mat", Scalar::Float(32))] {
            if let Some(rest) = name.strip_prefix(p) {
                let n = |c: &str| c.parse::<u32>().ok().filter(|n| (2..=4).contains(n));
                let (c, r) = match rest.split_once('x') {
                    Some((c, r)) => (n(c)?, n(r)?),
                    None if rest.is_empty() => (4, 4),
                    None => (n(rest)?, n(rest)?),
                };
                return Some(DataType {
                    scalar: s,
                    rows: r,
                    columns: c,
                    array: false,
                });
            }
        }
        None
    }

    /// Components per element.
    pub fn components(&self) -> usize {
        (self.rows * self.columns) as usize
    }

    /// Byte stride between the vectors (matrix columns) of one element.
    fn column_stride(&self, layout: Layout) -> usize {
        let s = self.scalar.bytes();
        let vec = match self.rows {
            1 => s,
            2 => 2 * s,
            _ => 4 * s,
        };
        if self.columns > 1 && layout == Layout::Std140 {
            vec.next_multiple_of(16)
        } else {
            vec
        }
    }

    /// Byte stride between consecutive elements of a buffer in `layout`, as
    /// amber lays them out: vec3 takes 16 bytes, std140 pads matrix columns
    /// to 16 bytes and, for `[]` types only, elements to 16 bytes.
    pub fn stride(&self, layout: Layout) -> usize {
        let s = self.scalar.bytes();
        let stride = if self.columns > 1 {
            self.column_stride(layout) * self.columns as usize
        } else {
            match self.rows {
                1 => s,
                2 => 2 * s,
                _ => 4 * s,
            }
        };
        match layout {
            Layout::Std140 if self.array => stride.next_multiple_of(16),
            _ => stride,
        }
    }

    /// Byte offset of component `i` (column-major) inside one element.
    pub fn component_offset(&self, i: usize, layout: Layout) -> usize {
        let rows = self.rows as usize;
        (i / rows) * self.column_stride(layout) + (i % rows) * self.scalar.bytes()
    }
}

/// A value as written in a script, kept as text until its type is known.
pub fn encode(scalar: Scalar, text: &str) -> Result<Vec<u8>, String> {
    let bad = || format!("`{text}` is not a valid {}", scalar.amber_name());
    let int = |t: &str| -> Option<i128> {
        let (neg, t) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(h) => i128::from_str_radix(h, 16).ok()?,
            None => t.parse::<i128>().ok()?,
        };
        Some(if neg { -v } else { v })
    };
    let bytes = scalar.bytes();
    match scalar {
        Scalar::Int(_) | Scalar::UInt(_) => {
            let v = int(text).ok_or_else(bad)?;
            // As amber reads it: any 64-bit value, signed or not, keeps its
            // low bits (`-1` is a valid uint32, `40206` an int16 of -25330).
            if !(i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(&v) {
                return Err(format!(
                    "`{text}` is out of range for {}",
                    scalar.amber_name()
                ));
            }
            Ok((v as u64).to_le_bytes()[..bytes].to_vec())
        }
        Scalar::Float(b) => {
            if let Some(h) = text.strip_prefix("0x") {
                // A hex value is the float's bit pattern.
                let v = u64::from_str_radix(h, 16).map_err(|_| bad())?;
                return Ok(v.to_le_bytes()[..bytes].to_vec());
            }
            let v: f64 = match text {
                "inf" | "+inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                "nan" | "NaN" => f64::NAN,
                t => t.parse().map_err(|_| bad())?,
            };
            Ok(match b {
                16 => f32_to_f16_as_amber(v as f32).to_le_bytes().to_vec(),
                32 => (v as f32).to_le_bytes().to_vec(),
                _ => v.to_le_bytes().to_vec(),
            })
        }
    }
}

/// A component read back from bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// Any integer, sign-extended or zero-extended.
    Int(i128),
    /// Any float, widened.
    Float(f64),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
        }
    }
}

/// Reads one component of type `scalar` from `bytes` (little-endian).
pub fn decode(scalar: Scalar, bytes: &[u8]) -> Value {
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    let bits = u64::from_le_bytes(raw);
    match scalar {
        Scalar::UInt(_) => Value::Int(i128::from(bits)),
        Scalar::Int(b) => {
            let shift = 64 - b;
            Value::Int(i128::from(((bits << shift) as i64) >> shift))
        }
        Scalar::Float(16) => Value::Float(f64::from(f16_to_f32(bits as u16))),
        Scalar::Float(32) => Value::Float(f64::from(f32::from_bits(bits as u32))),
        Scalar::Float(_) => Value::Float(f64::from_bits(bits)),
    }
}

/// IEEE half from single, rounding to nearest even (the conversion `--spec`
/// uses).
pub fn f32_to_f16(f: f32) -> u16 {
    crate::spirv::specialize::f32_to_f16_bits(f)
}

/// IEEE half from single as the amber tool writes buffer data
/// (`float16::FloatToHexFloat16`): the mantissa truncated (rounded toward
/// zero), not rounded to nearest. Tests' expected values are computed from
/// the data amber writes (the Vulkan CTS's fp16 matrix tests miss their
/// tolerance with rounded inputs), so `halc test` writes the same bits.
/// Where amber's conversion breaks (its exponent wraps below half's normal
/// range and above it), this one flushes to a signed zero and saturates to
/// infinity instead; NaN stays NaN.
pub fn f32_to_f16_as_amber(f: f32) -> u16 {
    let bits = f.to_bits();
    let sign = ((bits >> 31) as u16) << 15;
    if f.is_nan() {
        return sign | 0x7e00;
    }
    let exponent = ((bits >> 23) & 0xff) as i32 - 112;
    if exponent <= 0 {
        return sign;
    }
    if exponent >= 31 {
        return sign | 0x7c00;
    }
    sign | ((exponent as u16) << 10) | ((bits & 0x7f_ffff) >> 13) as u16
}

/// Whether two floats of `width` bits, given as bit patterns, are within
/// `ulp` units in the last place or `atol` of each other; NaN equals NaN
/// (and nothing else).
pub fn floats_within(width: u32, a: u64, b: u64, ulp: u32, atol: f64) -> bool {
    let value = |v: u64| match width {
        16 => f64::from(f16_to_f32(v as u16)),
        32 => f64::from(f32::from_bits(v as u32)),
        _ => f64::from_bits(v),
    };
    let (x, y) = (value(a), value(b));
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if (x - y).abs() <= atol {
        return true;
    }
    // Sign-magnitude bits onto a monotonic integer line (-0 and +0 meet).
    let sign = 1u64 << (width - 1);
    let line = |v: u64| -> i128 {
        if v & sign != 0 {
            -((v & (sign - 1)) as i128)
        } else {
            v as i128
        }
    };
    (line(a) - line(b)).unsigned_abs() <= u128::from(ulp)
}

/// IEEE single from half (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    crate::spirv::specialize::f16_bits_to_f32(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_parse() {
        let t = DataType::from_amber("vec3<float>").unwrap();
        assert_eq!((t.rows, t.columns), (3, 1));
        assert_eq!(t.to_string(), "vec3<float>");
        let m = DataType::from_amber("mat2x3<float>").unwrap();
        assert_eq!((m.columns, m.rows), (2, 3));
        assert_eq!(DataType::from_vkscript("uvec4").unwrap().rows, 4);
        assert_eq!(
            DataType::from_vkscript("i16vec2").unwrap().scalar,
            Scalar::Int(16)
        );
        assert!(DataType::from_amber("vec5<float>").is_none());
        assert!(DataType::from_amber("float32").is_none());
    }

    #[test]
    fn layouts_follow_std430_and_std140() {
        let f = DataType::scalar(Scalar::Float(32));
        assert_eq!(f.stride(Layout::Std430), 4);
        // As amber: std140 pads the elements of `[]` types only.
        assert_eq!(f.stride(Layout::Std140), 4);
        let fa = DataType::from_amber("float[]").unwrap();
        assert_eq!(fa.stride(Layout::Std140), 16);
        assert_eq!(fa.stride(Layout::Std430), 4);
        assert_eq!(fa.to_string(), "float[]");
        assert!(DataType::from_amber("float[][]").is_none());
        let v2a = DataType::from_amber("vec2<int8>[]").unwrap();
        assert_eq!(v2a.stride(Layout::Std140), 16);
        assert_eq!(v2a.stride(Layout::Std430), 2);
        let v3 = DataType::from_amber("vec3<float>").unwrap();
        assert_eq!(v3.stride(Layout::Std430), 16);
        let v2h = DataType::from_amber("vec2<float16>").unwrap();
        assert_eq!(v2h.stride(Layout::Std430), 4);
        let m = DataType::from_amber("mat2x3<float>").unwrap();
        assert_eq!(m.stride(Layout::Std430), 32);
        assert_eq!(m.component_offset(3, Layout::Std430), 16);
        let m22 = DataType::from_amber("mat2x2<float>").unwrap();
        assert_eq!(m22.stride(Layout::Std430), 16);
        assert_eq!(m22.stride(Layout::Std140), 32);
    }

    #[test]
    fn values_encode_and_decode() {
        assert_eq!(
            encode(Scalar::Int(32), "-2").unwrap(),
            (-2i32).to_le_bytes()
        );
        assert_eq!(
            encode(Scalar::Int(32), "0xffffffff").unwrap(),
            [0xff; 4].to_vec()
        );
        // Amber keeps the low bits of any 64-bit value.
        assert_eq!(encode(Scalar::UInt(8), "256").unwrap(), [0]);
        assert_eq!(encode(Scalar::UInt(32), "-1").unwrap(), [0xff; 4]);
        assert_eq!(
            encode(Scalar::Int(16), "40206").unwrap(),
            (-25330i16).to_le_bytes()
        );
        assert!(encode(Scalar::UInt(64), "18446744073709551616").is_err());
        assert!(encode(Scalar::Int(64), "-9223372036854775809").is_err());
        assert_eq!(encode(Scalar::Float(16), "1.0").unwrap(), [0x00, 0x3c]);
        assert_eq!(
            decode(Scalar::Int(16), &encode(Scalar::Int(16), "-5").unwrap()),
            Value::Int(-5)
        );
        assert_eq!(decode(Scalar::Float(16), &[0x00, 0xc0]), Value::Float(-2.0));
        // As amber writes half data: truncated, not rounded (1 + 2^-11 + 2^-12
        // rounds up to 1 + 2^-10), denormals flushed.
        let f = 1.0 + 2f32.powi(-11) + 2f32.powi(-12);
        assert_eq!(f32_to_f16_as_amber(f), 0x3c00);
        assert_eq!(f32_to_f16(f), 0x3c01);
        assert_eq!(encode(Scalar::Float(16), "5140.7").unwrap(), [0x05, 0x6d]);
        assert_eq!(f32_to_f16_as_amber(-1e-6), 0x8000);
        assert_eq!(f32_to_f16_as_amber(1e6), 0x7c00);
        assert_eq!(f32_to_f16_as_amber(-0.5), 0xb800);
        for h in [0x0400u16, 0x3555, 0x7bff, 0x8400, 0xfbff] {
            assert_eq!(f32_to_f16_as_amber(f16_to_f32(h)), h, "{h:#x}");
        }
        for h in [0x0001u16, 0x03ff, 0x3555, 0x7bff, 0x8400] {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h, "{h:#x}");
        }
    }
}
