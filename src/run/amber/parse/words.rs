//! The words of a line (tokens without the `#` comment, `\\`
//! continuations) and the values they spell: integers, floats,
//! comparisons, tolerances.

use super::error::{err, ParseError};
use crate::run::amber::{Compare, Tolerance};

/// Tokens of a line, without its `#` comment.
pub(super) fn tokens(line: &str) -> Vec<&str> {
    line.split('#')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect()
}

/// Whether a line's tokens end in a line continuation (`\\`, alone or at
/// the end of the last token), which it removes.
pub(super) fn continued(t: &mut Vec<&str>) -> bool {
    let Some(last) = t.last_mut() else {
        return false;
    };
    let Some(head) = last.strip_suffix('\\') else {
        return false;
    };
    if head.is_empty() {
        t.pop();
    } else {
        *last = head;
    }
    true
}

pub(super) fn parse_u32(line: usize, what: &str, t: Option<&&str>) -> Result<u32, ParseError> {
    let t = t.ok_or_else(|| err(line, format!("missing {what}")))?;
    let v = match t.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    };
    v.ok_or_else(|| err(line, format!("{what} `{t}` is not a non-negative integer")))
}

pub(super) fn parse_u64(line: usize, what: &str, t: &str) -> Result<u64, ParseError> {
    let v = match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    };
    v.ok_or_else(|| err(line, format!("{what} `{t}` is not a non-negative integer")))
}

/// The numbers after a `BIND` keyword: one, or one per element of a
/// `BUFFER_ARRAY` of `count` buffers.
pub(super) fn bind_numbers<'a>(
    line: usize,
    rest: &mut std::iter::Peekable<std::slice::Iter<'_, &'a str>>,
    what: &str,
    count: usize,
) -> Result<Vec<&'a str>, ParseError> {
    let mut v = Vec::new();
    while let Some(n) = rest
        .peek()
        .filter(|n| n.parse::<i64>().is_ok() || n.starts_with("0x"))
    {
        v.push(**n);
        rest.next();
    }
    if v.is_empty() {
        return Err(err(line, format!("{what} needs a value")));
    }
    if v.len() != 1 && v.len() != count {
        return Err(err(
            line,
            format!("{what} has {} values for {count} buffers", v.len()),
        ));
    }
    Ok(v)
}

pub(super) fn parse_f64(line: usize, what: &str, t: &str) -> Result<f64, ParseError> {
    t.parse()
        .map_err(|_| err(line, format!("{what} `{t}` is not a number")))
}

pub(super) fn compare(t: &str) -> Option<Compare> {
    Some(match t {
        "EQ" | "==" | "~=" => Compare::Eq,
        "NE" | "!=" => Compare::Ne,
        "LT" | "<" => Compare::Lt,
        "LE" | "<=" => Compare::Le,
        "GT" | ">" => Compare::Gt,
        "GE" | ">=" => Compare::Ge,
        _ => return None,
    })
}

pub(super) fn tolerance(line: usize, t: &str) -> Result<Tolerance, ParseError> {
    Ok(match t.strip_suffix('%') {
        Some(p) => Tolerance::Percent(parse_f64(line, "tolerance", p)?),
        None => Tolerance::Absolute(parse_f64(line, "tolerance", t)?),
    })
}
