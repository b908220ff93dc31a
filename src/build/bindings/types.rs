//! SPIR-V block types as Rust types ([`RustTy`]): scalars, vectors,
//! matrices and arrays, and the `#[repr(C)]` structs of one kernel module
//! ([`Types`]) with every gap an explicit padding field.

use std::collections::BTreeSet;

use super::describe::member_doc;
use super::names::{camel, ident, unique};
use crate::spirv::{BlockType, ScalarType, StructType};

/// A Rust type for a SPIR-V block type.
#[derive(Debug, Clone)]
pub(super) struct RustTy {
    pub(super) text: String,
    pub(super) size: u64,
    pub(super) align: u64,
    pub(super) zero: String,
}

#[derive(Debug, Clone)]
pub(super) struct Field {
    pub(super) name: String,
    pub(super) ty: RustTy,
    pub(super) offset: u64,
    pub(super) doc: String,
    pub(super) pad: bool,
}

#[derive(Debug, Clone)]
pub(super) struct StructDef {
    pub(super) name: String,
    pub(super) doc: String,
    pub(super) fields: Vec<Field>,
    pub(super) size: u64,
    /// What it was made from, for reuse.
    pub(super) source: StructSource,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum StructSource {
    Spirv(StructType),
    Padded(String, u64),
}

/// The structs of one kernel module.
pub(super) struct Types {
    pub(super) defs: Vec<StructDef>,
    pub(super) names: BTreeSet<String>,
}

pub(super) const RESERVED: &[&str] = &["Args", "PushConstants", "bindings", "spec", "Self"];

impl Types {
    pub(super) fn new() -> Self {
        Types {
            defs: Vec::new(),
            names: RESERVED.iter().map(|s| s.to_string()).collect(),
        }
    }

    pub(super) fn scalar(ty: ScalarType) -> Result<RustTy, String> {
        let (text, size, zero) = match ty {
            ScalarType::Bool => ("u32", 4, "0"),
            ScalarType::Int(8) => ("i8", 1, "0"),
            ScalarType::Int(16) => ("i16", 2, "0"),
            ScalarType::Int(32) => ("i32", 4, "0"),
            ScalarType::Int(64) => ("i64", 8, "0"),
            ScalarType::UInt(8) => ("u8", 1, "0"),
            ScalarType::UInt(16) => ("u16", 2, "0"),
            ScalarType::UInt(32) => ("u32", 4, "0"),
            ScalarType::UInt(64) => ("u64", 8, "0"),
            // No stable f16 in Rust: the IEEE half bits.
            ScalarType::Float(16) => ("u16", 2, "0"),
            ScalarType::Float(32) => ("f32", 4, "0.0"),
            ScalarType::Float(64) => ("f64", 8, "0.0"),
            other => return Err(format!("scalar type {other} has no Rust equivalent")),
        };
        Ok(RustTy {
            text: text.into(),
            size,
            align: size,
            zero: zero.into(),
        })
    }

    pub(super) fn array(elem: &RustTy, n: u64) -> RustTy {
        RustTy {
            text: format!("[{}; {n}]", elem.text),
            size: elem.size * n,
            align: elem.align,
            zero: format!("[{}; {n}]", elem.zero),
        }
    }

    /// `elem` placed every `stride` bytes: itself, or a wrapper with
    /// explicit padding.
    pub(super) fn strided(
        &mut self,
        elem: RustTy,
        stride: u64,
        hint: &str,
    ) -> Result<RustTy, String> {
        if stride == elem.size {
            return Ok(elem);
        }
        if stride < elem.size || stride % elem.align != 0 {
            return Err(format!(
                "`{hint}`: array stride {stride} does not fit its {}-byte element of alignment {}",
                elem.size, elem.align
            ));
        }
        let source = StructSource::Padded(elem.text.clone(), stride);
        if let Some(d) = self.defs.iter().find(|d| d.source == source) {
            return Ok(self.named(d));
        }
        let name = unique(&mut self.names, &format!("{}Elem", camel(hint)));
        let pad = stride - elem.size;
        let def = StructDef {
            name,
            doc: format!(
                "One `{}` of an array with a stride of {stride} bytes: the value, then {pad} bytes of padding.",
                elem.text
            ),
            fields: vec![
                Field {
                    name: "value".into(),
                    ty: elem,
                    offset: 0,
                    doc: "The element.".into(),
                    pad: false,
                },
                Field {
                    name: "_pad".into(),
                    ty: Self::array(&Self::scalar(ScalarType::UInt(8))?, pad),
                    offset: stride - pad,
                    doc: String::new(),
                    pad: true,
                },
            ],
            size: stride,
            source,
        };
        let t = self.named(&def);
        self.defs.push(def);
        Ok(t)
    }

    pub(super) fn named(&self, d: &StructDef) -> RustTy {
        let align = d.fields.iter().map(|f| f.ty.align).max().unwrap_or(1);
        RustTy {
            text: d.name.clone(),
            size: d.size,
            align,
            zero: format!("{}::ZERO", d.name),
        }
    }

    pub(super) fn map(&mut self, ty: &BlockType, hint: &str) -> Result<RustTy, String> {
        match ty {
            BlockType::Scalar(s) => Self::scalar(*s),
            BlockType::Vector { component, count } => {
                Ok(Self::array(&Self::scalar(*component)?, u64::from(*count)))
            }
            BlockType::Matrix {
                component,
                columns,
                rows,
                stride,
                row_major,
            } => {
                let c = Self::scalar(*component)?;
                let (outer, inner) = if *row_major {
                    (*rows, *columns)
                } else {
                    (*columns, *rows)
                };
                let stride = u64::from(*stride);
                if stride % c.size != 0 || stride / c.size < u64::from(inner) {
                    return Err(format!(
                        "`{hint}`: matrix stride {stride} does not hold {inner} {}s",
                        c.text
                    ));
                }
                // Each column (row, if row-major) padded to the stride with
                // further scalars: `[[f32; 4]; 3]` for a std140 mat3.
                let vec = Self::array(&c, stride / c.size);
                Ok(Self::array(&vec, u64::from(outer)))
            }
            BlockType::Array {
                element,
                length: Some(n),
                stride,
            } => {
                let e = self.map(element, hint)?;
                let e = self.strided(e, u64::from(*stride), hint)?;
                Ok(Self::array(&e, *n))
            }
            BlockType::Array { length: None, .. } => Err(format!(
                "`{hint}`: a runtime array is only supported as the last member of a block"
            )),
            BlockType::Struct(st) => self.struct_def(st, hint, false).map(|(t, _)| t),
            // A device address: `Buffer::gpu_address()` plus an offset.
            BlockType::Pointer { .. } => Self::scalar(ScalarType::UInt(64)),
        }
    }

    /// The struct for `st`; with `block`, a trailing runtime array is left
    /// out and returned as (member index).
    pub(super) fn struct_def(
        &mut self,
        st: &StructType,
        hint: &str,
        block: bool,
    ) -> Result<(RustTy, Option<usize>), String> {
        let source = StructSource::Spirv(st.clone());
        let runtime = st
            .runtime_array()
            .filter(|_| block)
            .map(|_| st.members.len() - 1);
        if let Some(d) = self.defs.iter().find(|d| d.source == source) {
            return Ok((self.named(d), runtime));
        }
        let base = st.name.as_deref().map(ident).unwrap_or_else(|| camel(hint));
        let name = unique(&mut self.names, &base);
        let mut fields: Vec<Field> = Vec::new();
        let mut field_names = BTreeSet::new();
        let mut cursor = 0u64;
        let mut align = 1u64;
        let mut pads = 0;
        let mut pad = |fields: &mut Vec<Field>, at: u64, to: u64| -> Result<(), String> {
            if to > at {
                fields.push(Field {
                    name: format!("_pad{pads}"),
                    ty: Self::array(&Self::scalar(ScalarType::UInt(8))?, to - at),
                    offset: at,
                    doc: String::new(),
                    pad: true,
                });
                pads += 1;
            }
            Ok(())
        };
        for (i, m) in st.members.iter().enumerate() {
            if Some(i) == runtime {
                break;
            }
            let fname = unique(
                &mut field_names,
                &m.name.as_deref().map(ident).unwrap_or(format!("member{i}")),
            );
            let mhint = format!("{base}_{}", m.name.as_deref().unwrap_or("member"));
            let ty = self.map(&m.ty, &mhint)?;
            if m.offset < cursor {
                return Err(format!(
                    "`{base}.{fname}` at offset {} overlaps the member before it (which ends at {cursor}): a Rust struct cannot hold this layout",
                    m.offset
                ));
            }
            if m.offset % ty.align != 0 {
                return Err(format!(
                    "`{base}.{fname}` at offset {} is not aligned to its Rust type `{}` ({} bytes)",
                    m.offset, ty.text, ty.align
                ));
            }
            pad(&mut fields, cursor, m.offset)?;
            cursor = m.offset + ty.size;
            align = align.max(ty.align);
            fields.push(Field {
                name: fname,
                doc: member_doc(&m.ty, m.offset),
                ty,
                offset: m.offset,
                pad: false,
            });
        }
        let size = cursor.div_ceil(align) * align;
        pad(&mut fields, cursor, size)?;
        let def = StructDef {
            name,
            doc: match &st.name {
                Some(n) => format!("SPIR-V struct `{n}` ({size} bytes)."),
                None => format!("SPIR-V struct ({size} bytes)."),
            },
            fields,
            size,
            source,
        };
        let t = self.named(&def);
        self.defs.push(def);
        Ok((t, runtime))
    }
}
