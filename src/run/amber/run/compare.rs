//! The sides compared after a `RUN`: every storage buffer a pipeline binds,
//! integers exactly, floats within a tolerance ([`FloatTolerance`]).

use super::runner::{Runner, Stop};
use crate::run::amber::data::{decode, Layout, Scalar, Value};
use crate::run::amber::{Check, Command, Pipeline, Tolerance};

impl<'s> Runner<'s> {
    /// After a `RUN` on both sides: every storage buffer the pipeline binds
    /// must hold the same values.
    pub(super) fn compare_bound(&self, p: &Pipeline, line: usize) -> Result<(), Stop> {
        for b in &p.binds {
            // What the kernel may have written: storage buffers, images
            // and texel buffers.
            let (true, Some((set, binding))) = (b.kind.writable(), b.kind.slot()) else {
                continue;
            };
            for e in &b.elements {
                let decl = self
                    .script
                    .buffers
                    .iter()
                    .find(|d| d.name == e.buffer)
                    .ok_or_else(|| format!("{}: unknown buffer `{}`", self.name, e.buffer))?;
                let (ref_side, cpu_side) = (&self.sides[1], &self.sides[0]);
                let want = ref_side.read(&e.buffer)?;
                let got = cpu_side.read(&e.buffer)?;
                if let Some(diff) =
                    first_difference(decl.ty, decl.layout, &want, &got, self.tolerance(&e.buffer))
                {
                    return Err(Stop::Fail(format!(
                        "{}: RUN {}: buffer `{}` (set {set}, binding {binding}) differs: {diff}",
                        self.at(line),
                        p.name,
                        e.buffer
                    )));
                }
            }
        }
        Ok(())
    }

    /// How close compared floats of `buffer` must be: `--ulp`, or the
    /// widest `TOLERANCE` the script's `EXPECT`s give that buffer (a test
    /// that accepts its own results within a tolerance accepts the two
    /// sides' within it).
    pub(super) fn tolerance(&self, buffer: &str) -> FloatTolerance {
        let mut tol = FloatTolerance {
            ulp: self.opts.ulp,
            ..Default::default()
        };
        for c in &self.script.commands {
            if let Command::Expect {
                buffer: b,
                check: Check::Values { tolerance, .. },
                ..
            } = c
            {
                if b != buffer {
                    continue;
                }
                for t in tolerance {
                    match *t {
                        Tolerance::Absolute(a) => tol.absolute = tol.absolute.max(a),
                        Tolerance::Percent(p) => tol.percent = tol.percent.max(p),
                    }
                }
            }
        }
        tol
    }
}

/// How close two floats of a compared buffer must be.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct FloatTolerance {
    /// Units in the last place (`--ulp`).
    pub(super) ulp: u32,
    /// The widest absolute `TOLERANCE` of the buffer's `EXPECT`s.
    pub(super) absolute: f64,
    /// The widest `TOLERANCE …%` of the buffer's `EXPECT`s, of the
    /// reference's value.
    pub(super) percent: f64,
}

/// The first element where `want` (the reference) and `got` differ, read
/// as `ty` in `layout`: integers exactly, floats within the tolerance (NaN
/// equal to NaN, a denormal equal to a zero of its sign: MSL lets a GPU
/// flush them).
pub(super) fn first_difference(
    ty: crate::run::amber::data::DataType,
    layout: Layout,
    want: &[u8],
    got: &[u8],
    tol: FloatTolerance,
) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!("{} bytes vs {} bytes", want.len(), got.len()));
    }
    let stride = ty.stride(layout);
    let size = ty.scalar.bytes();
    for element in 0..want.len() / stride.max(1) {
        for comp in 0..ty.components() {
            let at = element * stride + ty.component_offset(comp, layout);
            let (w, g) = (&want[at..at + size], &got[at..at + size]);
            if w == g || same_within(ty.scalar, w, g, tol) {
                continue;
            }
            return Some(format!(
                "element {element}{} (byte {at}, {}): vulkan {}, metal-on-cpu {}",
                if ty.components() > 1 {
                    format!(" component {comp}")
                } else {
                    String::new()
                },
                ty.scalar_name(),
                decode(ty.scalar, w),
                decode(ty.scalar, g)
            ));
        }
    }
    None
}

/// Whether two floats (the reference's `a`, the CPU's `b`) are within the
/// tolerance, both NaN, or a denormal and a zero of the same sign (the
/// Metal Shading Language lets a GPU flush single and half denormals).
/// Integers must be equal.
pub(super) fn same_within(scalar: Scalar, a: &[u8], b: &[u8], tol: FloatTolerance) -> bool {
    let bits = |x: &[u8]| {
        let mut raw = [0u8; 8];
        raw[..x.len()].copy_from_slice(x);
        u64::from_le_bytes(raw)
    };
    let Scalar::Float(width) = scalar else {
        return false;
    };
    let (x, y) = (bits(a), bits(b));
    let value = |v: Value| match v {
        Value::Float(f) => f,
        Value::Int(i) => i as f64,
    };
    let (fx, fy) = (value(decode(scalar, a)), value(decode(scalar, b)));
    let exponent_mask = match width {
        16 => 0x7c00u64,
        32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    };
    let sign = 1u64 << (width - 1);
    let flushed = |d: u64, z: u64| d & exponent_mask == 0 && z & !sign == 0 && d & sign == z & sign;
    if flushed(x, y) || flushed(y, x) {
        return true;
    }
    let relative = tol.percent / 100.0 * fx.abs();
    crate::run::amber::data::floats_within(width, x, y, tol.ulp, tol.absolute.max(relative))
        || (fx - fy).abs() <= tol.absolute.max(relative)
}

impl crate::run::amber::data::DataType {
    pub(super) fn scalar_name(&self) -> String {
        crate::run::amber::data::DataType::scalar(self.scalar).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_compare_within_ulps_and_nan_equals_nan() {
        let f = |v: f32| v.to_le_bytes();
        let s = Scalar::Float(32);
        let ulp = |ulp| FloatTolerance {
            ulp,
            ..Default::default()
        };
        assert!(same_within(s, &f(1.0), &f(1.0), ulp(0)));
        let next = f32::from_bits(1.0f32.to_bits() + 3);
        assert!(same_within(s, &f(1.0), &f(next), ulp(4)));
        assert!(!same_within(s, &f(1.0), &f(next), ulp(2)));
        // Across zero: -0.0 and +0.0 are 0 ulps apart.
        assert!(same_within(s, &f(-0.0), &f(0.0), ulp(0)));
        assert!(same_within(s, &f(f32::NAN), &f(-f32::NAN), ulp(0)));
        assert!(!same_within(s, &f(f32::NAN), &f(1.0), ulp(1000)));
        assert!(!same_within(
            Scalar::UInt(32),
            &1u32.to_le_bytes(),
            &2u32.to_le_bytes(),
            ulp(9)
        ));
        // A denormal and a zero of its sign: MSL may flush.
        let tiny = f32::from_bits(129);
        assert!(same_within(s, &f(tiny), &f(0.0), ulp(0)));
        assert!(same_within(s, &f(0.0), &f(tiny), ulp(0)));
        assert!(!same_within(s, &f(tiny), &f(-0.0), ulp(0)));
        assert!(!same_within(s, &f(f32::MIN_POSITIVE), &f(0.0), ulp(0)));
        let h = Scalar::Float(16);
        assert!(same_within(
            h,
            &0x0003u16.to_le_bytes(),
            &0u16.to_le_bytes(),
            ulp(0)
        ));
        // The test's own TOLERANCE: absolute, or a percentage of the
        // reference's value.
        let within = |absolute, percent| FloatTolerance {
            ulp: 4,
            absolute,
            percent,
        };
        assert!(same_within(
            s,
            &f(-10978.121),
            &f(-10978.172),
            within(0.1, 0.0)
        ));
        assert!(!same_within(
            s,
            &f(-10978.121),
            &f(-10978.172),
            within(0.01, 0.0)
        ));
        assert!(same_within(s, &f(200.0), &f(201.0), within(0.0, 0.5)));
        assert!(!same_within(s, &f(200.0), &f(202.0), within(0.0, 0.5)));
        let ty = crate::run::amber::data::DataType::from_amber("vec2<float>").unwrap();
        let a: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mut b = a.clone();
        b[12..16].copy_from_slice(&5.0f32.to_le_bytes());
        assert_eq!(
            first_difference(ty, Layout::Std430, &a, &b, ulp(4)).unwrap(),
            "element 1 component 1 (byte 12, float): vulkan 4, metal-on-cpu 5"
        );
        assert_eq!(first_difference(ty, Layout::Std430, &a, &a, ulp(0)), None);
    }
}
