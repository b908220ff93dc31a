//! The Rust items of a kernel module's structs: the `#[repr(C)]` struct,
//! `ZERO`, `SIZE`, `as_bytes`, and the size and offset assertions.

use std::fmt::Write as _;

use super::types::StructDef;

/// Writes the Rust items of `defs`.
pub(super) fn write_structs(out: &mut String, defs: &[StructDef], ind: &str) {
    for d in defs {
        let _ = writeln!(out, "\n{ind}/// {}", d.doc);
        let _ = writeln!(out, "{ind}#[repr(C)]");
        let _ = writeln!(out, "{ind}#[derive(Debug, Clone, Copy, PartialEq)]");
        let _ = writeln!(out, "{ind}pub struct {} {{", d.name);
        for f in &d.fields {
            if f.pad {
                let _ = writeln!(
                    out,
                    "{ind}    /// Padding (the SPIR-V layout leaves these bytes unused)."
                );
            } else {
                let _ = writeln!(out, "{ind}    /// {}", f.doc);
            }
            let _ = writeln!(out, "{ind}    pub {}: {},", f.name, f.ty.text);
        }
        let _ = writeln!(out, "{ind}}}");
        let _ = writeln!(out, "{ind}impl {} {{", d.name);
        let _ = writeln!(out, "{ind}    /// Every byte zero.");
        let _ = writeln!(out, "{ind}    pub const ZERO: Self = Self {{");
        for f in &d.fields {
            let _ = writeln!(out, "{ind}        {}: {},", f.name, f.ty.zero);
        }
        let _ = writeln!(out, "{ind}    }};");
        let _ = writeln!(out, "{ind}    /// Size in bytes (`size_of::<Self>()`).");
        let _ = writeln!(out, "{ind}    pub const SIZE: usize = {};", d.size);
        let _ = writeln!(out, "{ind}    /// The bytes, as the kernel reads them.");
        let _ = writeln!(out, "{ind}    pub fn as_bytes(&self) -> &[u8] {{");
        let _ = writeln!(out, "{ind}        // SAFETY: `#[repr(C)]` with every byte inside a field (explicit padding; the");
        let _ = writeln!(out, "{ind}        // size and every offset are asserted below), and every field is an integer,");
        let _ = writeln!(
            out,
            "{ind}        // a float or an array or struct of them: no byte is uninitialised."
        );
        let _ = writeln!(out, "{ind}        unsafe {{ ::core::slice::from_raw_parts((self as *const Self).cast::<u8>(), Self::SIZE) }}");
        let _ = writeln!(out, "{ind}    }}");
        let _ = writeln!(out, "{ind}}}");
        let _ = writeln!(out, "{ind}impl Default for {} {{", d.name);
        let _ = writeln!(out, "{ind}    fn default() -> Self {{");
        let _ = writeln!(out, "{ind}        Self::ZERO");
        let _ = writeln!(out, "{ind}    }}");
        let _ = writeln!(out, "{ind}}}");
        let _ = writeln!(
            out,
            "{ind}const _: () = assert!(::core::mem::size_of::<{}>() == {});",
            d.name, d.size
        );
        for f in &d.fields {
            let _ = writeln!(
                out,
                "{ind}const _: () = assert!(::core::mem::offset_of!({}, {}) == {});",
                d.name, f.name, f.offset
            );
        }
    }
}
