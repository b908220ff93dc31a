//! `EXPECT` on every side: values compared as amber compares them, or
//! whole buffers (`EQ_BUFFER`, `RMSE_BUFFER`), and which side it holds on.

use super::runner::{Runner, Stop};
use crate::run::amber::data::{decode, encode, Value};
use crate::run::amber::probe::{histogram_emd, normalized, run_probe};
use crate::run::amber::{Check, Compare, Tolerance};

impl<'s> Runner<'s> {
    pub(super) fn expect(&self, name: &str, check: &Check, line: usize) -> Result<(), Stop> {
        let results: Vec<(&'static str, Result<(), String>)> = self
            .sides
            .iter()
            .map(|side| {
                let r = match side.read(name) {
                    Ok(data) => {
                        check_expect(self, name, check, line, &data, |other| side.read(other))
                    }
                    Err(e) => Err(e),
                };
                (side.label(), r)
            })
            .collect();
        match results.as_slice() {
            [(_, r)] => r.clone().map_err(Stop::Fail),
            [(a, ra), (b, rb)] => match (ra, rb) {
                (Ok(()), Ok(())) => Ok(()),
                (Err(e), Ok(())) => Err(Stop::Fail(format!("{e} (on {a}; it holds on {b})"))),
                (Ok(()), Err(e)) => Err(Stop::Fail(format!("{e} (on {b}; it holds on {a})"))),
                (Err(e), Err(_)) => Err(Stop::Fail(format!("{e} (on {a} and on {b})"))),
            },
            _ => Ok(()),
        }
    }
}

/// Evaluates one `EXPECT` on one side's data.
fn check_expect(
    r: &Runner<'_>,
    name: &str,
    check: &Check,
    line: usize,
    data: &[u8],
    read_other: impl Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<(), String> {
    let at = r.at(line);
    match check {
        Check::Values {
            offset,
            ty,
            layout,
            compare,
            values,
            tolerance,
        } => {
            let n = ty.components();
            let stride = ty.stride(*layout);
            for (i, want) in values.iter().enumerate() {
                let (element, comp) = (i / n, i % n);
                let byte = offset + element * stride + ty.component_offset(comp, *layout);
                let size = ty.scalar.bytes();
                let Some(raw) = data.get(byte..byte + size) else {
                    return Err(format!(
                        "{at}: EXPECT {name}: byte {byte} is past the end of the buffer ({} bytes)",
                        data.len()
                    ));
                };
                let got = decode(ty.scalar, raw);
                let want_v = decode(
                    ty.scalar,
                    &encode(ty.scalar, want).map_err(|m| format!("{at}: {m}"))?,
                );
                let tol = tolerance.get(comp).or(tolerance.first()).copied();
                if !holds(*compare, got, want_v, tol) {
                    return Err(format!(
                        "{at}: EXPECT {name} IDX {offset}: value {i} (byte {byte}, {}): expected {} {want}, got {got}",
                        ty.scalar_name(),
                        symbol(*compare)
                    ));
                }
            }
            Ok(())
        }
        Check::EqBuffer(other) => {
            let b = read_other(other)?;
            if b.len() != data.len() {
                return Err(format!(
                    "{at}: EXPECT {name} EQ_BUFFER {other}: {} bytes vs {} bytes",
                    data.len(),
                    b.len()
                ));
            }
            match data.iter().zip(&b).position(|(x, y)| x != y) {
                None => Ok(()),
                Some(i) => Err(format!(
                    "{at}: EXPECT {name} EQ_BUFFER {other}: first difference at byte {i}: {:#04x} vs {:#04x}",
                    data[i], b[i]
                )),
            }
        }
        Check::Probe(probe) => {
            let (x, y, w, h) = probe.rect;
            let what = if probe.rgba { "EQ_RGBA" } else { "EQ_RGB" };
            let failure = match run_probe(probe, data) {
                Ok(Ok(())) => return Ok(()),
                Ok(Err(f)) => f,
                Err(m) => return Err(format!("{at}: EXPECT {name}: {m}")),
            };
            let scale = if normalized(probe.format) { 255.0 } else { 1.0 };
            let n = if probe.rgba { 4 } else { 3 };
            let list = |v: &[f64]| {
                v[..n]
                    .iter()
                    .map(|c| format!("{}", (c * scale) as f32))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            Err(format!(
                "{at}: EXPECT {name} IDX {x} {y} SIZE {w} {h} {what}: probe failed at ({}, {}): expected {}, got {} ({}); {} of {} texels failed",
                failure.at.0,
                failure.at.1,
                list(&probe.expected),
                list(&failure.actual),
                probe.format,
                failure.count,
                u64::from(w) * u64::from(h)
            ))
        }
        Check::HistogramEmd(other, tol) => {
            let b = read_other(other)?;
            if b.len() != data.len() {
                return Err(format!(
                    "{at}: EXPECT {name} EQ_HISTOGRAM_EMD_BUFFER {other}: {} bytes vs {} bytes",
                    data.len(),
                    b.len()
                ));
            }
            let emd = histogram_emd(data, &b);
            // Amber keeps the tolerance as a float.
            if emd <= f64::from(*tol as f32) {
                Ok(())
            } else {
                Err(format!(
                    "{at}: EXPECT {name} EQ_HISTOGRAM_EMD_BUFFER {other}: histogram EMD {emd} over tolerance {tol}"
                ))
            }
        }
        Check::RmseBuffer(other, tol) => {
            let b = read_other(other)?;
            let decl = r
                .script
                .buffers
                .iter()
                .find(|x| x.name == name)
                .ok_or_else(|| format!("{at}: unknown buffer `{name}`"))?;
            let s = decl.ty.scalar;
            let size = s.bytes();
            let as_f = |v: Value| match v {
                Value::Int(i) => i as f64,
                Value::Float(f) => f,
            };
            let n = data.len().min(b.len()) / size;
            let sum: f64 = (0..n)
                .map(|i| {
                    let x = as_f(decode(s, &data[i * size..(i + 1) * size]));
                    let y = as_f(decode(s, &b[i * size..(i + 1) * size]));
                    (x - y) * (x - y)
                })
                .sum();
            let rmse = (sum / n.max(1) as f64).sqrt();
            if rmse <= *tol {
                Ok(())
            } else {
                Err(format!(
                    "{at}: EXPECT {name} RMSE_BUFFER {other}: RMSE {rmse} over tolerance {tol}"
                ))
            }
        }
    }
}

fn symbol(c: Compare) -> &'static str {
    match c {
        Compare::Eq => "==",
        Compare::Ne => "!=",
        Compare::Lt => "<",
        Compare::Le => "<=",
        Compare::Gt => ">",
        Compare::Ge => ">=",
    }
}

/// Whether `got <compare> want` holds; floats within the tolerance for
/// `EQ`/`NE`, NaN equal to NaN.
fn holds(compare: Compare, got: Value, want: Value, tol: Option<Tolerance>) -> bool {
    use std::cmp::Ordering;
    let ord = match (got, want) {
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(&b)),
        (Value::Float(a), Value::Float(b)) => {
            if a.is_nan() || b.is_nan() {
                return match compare {
                    Compare::Eq => a.is_nan() && b.is_nan(),
                    Compare::Ne => a.is_nan() != b.is_nan(),
                    _ => false,
                };
            }
            let close = match tol {
                None => a == b,
                Some(Tolerance::Absolute(t)) => (a - b).abs() <= t,
                Some(Tolerance::Percent(p)) => (a - b).abs() <= b.abs() * p / 100.0,
            };
            if close {
                Some(Ordering::Equal)
            } else {
                a.partial_cmp(&b)
            }
        }
        _ => None,
    };
    let Some(ord) = ord else { return false };
    match compare {
        Compare::Eq => ord == Ordering::Equal,
        Compare::Ne => ord != Ordering::Equal,
        Compare::Lt => ord == Ordering::Less,
        Compare::Le => ord != Ordering::Greater,
        Compare::Gt => ord == Ordering::Greater,
        Compare::Ge => ord != Ordering::Less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_follow_amber() {
        let f = Value::Float;
        assert!(holds(Compare::Eq, f(1.0), f(1.0), None));
        assert!(!holds(Compare::Eq, f(1.0), f(1.0001), None));
        assert!(holds(
            Compare::Eq,
            f(1.0),
            f(1.0001),
            Some(Tolerance::Absolute(0.001))
        ));
        assert!(holds(
            Compare::Eq,
            f(99.0),
            f(100.0),
            Some(Tolerance::Percent(1.0))
        ));
        assert!(holds(Compare::Eq, f(f64::NAN), f(f64::NAN), None));
        assert!(!holds(Compare::Lt, f(f64::NAN), f(1.0), None));
        assert!(holds(Compare::Le, Value::Int(-1), Value::Int(0), None));
        assert!(!holds(Compare::Gt, Value::Int(0), Value::Int(0), None));
    }
}
