//! halc diff's pure parts: seeds across the pipe, random data, named values, closeness.

use super::data::{fill, floats_close, slots, Rng};
use super::named::{write_named, NamedValue};
use super::seeds::{decode_outcome, encode_outcome};
use super::DiffOutcome;
use crate::spirv::{BlockLayout, BlockType, ScalarType, StructType};

#[test]
fn seed_results_cross_the_pipe_unchanged() {
    for r in [
        Ok(DiffOutcome::Agree("seed 1: 512 scalars agree".into())),
        Ok(DiffOutcome::Differ("seed 2: byte 4".into())),
        Ok(DiffOutcome::Inconclusive(String::new())),
        Err("k.spv: no entry point".into()),
    ] {
        assert_eq!(decode_outcome(&encode_outcome(&r)), Some(r));
    }
    assert_eq!(decode_outcome(b"Zx"), None);
    assert_eq!(decode_outcome(b""), None);
}

#[test]
fn random_data_is_deterministic_per_seed_and_typed() {
    let layout = BlockLayout {
        fixed: vec![(0, ScalarType::UInt(32))],
        fixed_size: 4,
        array: Some((
            8,
            vec![(0, ScalarType::Float(32)), (4, ScalarType::Int(16))],
        )),
    };
    let a = fill(&layout, 4 + 8 * 10, &mut Rng(7), 15);
    let b = fill(&layout, 4 + 8 * 10, &mut Rng(7), 15);
    let c = fill(&layout, 4 + 8 * 10, &mut Rng(8), 15);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(u32::from_le_bytes(a[0..4].try_into().unwrap()) <= 15);
    for e in 0..10 {
        let f = f32::from_le_bytes(a[4 + 8 * e..8 + 8 * e].try_into().unwrap());
        assert!((-1.0..1.0).contains(&f), "{f}");
        let i = i16::from_le_bytes(a[8 + 8 * e..10 + 8 * e].try_into().unwrap());
        assert!((-15..=15).contains(&i), "{i}");
        assert_eq!(&a[10 + 8 * e..12 + 8 * e], &[0, 0], "padding stays zero");
    }
    assert_eq!(slots(&layout, 4 + 8 * 10).len(), 1 + 2 * 10);
}

/// A push-constant block of every kind of member, as glslc lays it out.
fn block() -> StructType {
    let member = |name: &str, offset: u64, ty: BlockType, size: u64| crate::spirv::Member {
        name: Some(name.into()),
        offset,
        ty,
        size,
    };
    let inner = StructType {
        name: Some("S".into()),
        members: vec![
            member("a", 0, BlockType::Scalar(ScalarType::Float(16)), 2),
            member("b", 4, BlockType::Scalar(ScalarType::Bool), 4),
        ],
        size: 8,
    };
    StructType {
        name: Some("P".into()),
        members: vec![
            member("n", 0, BlockType::Scalar(ScalarType::UInt(32)), 4),
            member("k", 4, BlockType::Scalar(ScalarType::Int(16)), 2),
            member(
                "v",
                16,
                BlockType::Vector {
                    component: ScalarType::Float(32),
                    count: 3,
                },
                12,
            ),
            member(
                "m",
                32,
                BlockType::Matrix {
                    component: ScalarType::Float(32),
                    columns: 2,
                    rows: 2,
                    stride: 16,
                    row_major: true,
                },
                32,
            ),
            member(
                "a",
                64,
                BlockType::Array {
                    element: Box::new(BlockType::Scalar(ScalarType::Int(64))),
                    length: Some(2),
                    stride: 8,
                },
                16,
            ),
            member("s", 80, BlockType::Struct(inner), 8),
        ],
        size: 88,
    }
}

fn set(bytes: &mut [u8], name: &str, value: &str) -> Result<(), String> {
    let v = NamedValue {
        block: None,
        name: name.into(),
        value: value.into(),
    };
    write_named(bytes, &block(), Some("p"), &v).map(|_| ())
}

/// Each member lands at its reflected offset in its own encoding, and
/// nothing else changes.
#[test]
fn named_values_are_written_at_their_offsets() {
    let mut b = vec![0xAAu8; 88];
    set(&mut b, "n", "0x40").unwrap();
    set(&mut b, "k", "-2").unwrap();
    set(&mut b, "v", "1, 2.5, -3").unwrap();
    // Row-major: column 0 is (1, 2), column 1 (3, 4); rows 16 bytes apart.
    set(&mut b, "m", "1,2,3,4").unwrap();
    set(&mut b, "a[1]", "-5").unwrap();
    set(&mut b, "p.s.a", "0.5").unwrap();
    set(&mut b, "s.b", "true").unwrap();
    let f = |at: usize| f32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!(u32::from_le_bytes(b[0..4].try_into().unwrap()), 64);
    assert_eq!(i16::from_le_bytes(b[4..6].try_into().unwrap()), -2);
    assert_eq!(b[6..16], [0xAA; 10], "padding untouched");
    assert_eq!([f(16), f(20), f(24)], [1.0, 2.5, -3.0]);
    assert_eq!([f(32), f(48), f(36), f(52)], [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(b[64..72], [0xAA; 8], "a[0] untouched");
    assert_eq!(i64::from_le_bytes(b[72..80].try_into().unwrap()), -5);
    assert_eq!(u16::from_le_bytes(b[80..82].try_into().unwrap()), 0x3800);
    assert_eq!(u32::from_le_bytes(b[84..88].try_into().unwrap()), 1);
    set(&mut b, "a", "7,8").unwrap();
    assert_eq!(i64::from_le_bytes(b[64..72].try_into().unwrap()), 7);
}

#[test]
fn named_values_out_of_type_or_range_are_refused() {
    let mut b = vec![0u8; 88];
    for (name, value, want) in [
        ("n", "-1", "push constant `n` is uint32; `-1` is not an unsigned integer"),
        ("n", "4294967296", "is not an unsigned integer in the range of uint32"),
        ("k", "32768", "push constant `k` is int16; `32768` is not an integer in the range of int16"),
        ("k", "1.0", "`1.0` is not an integer"),
        ("v", "1,x,3", "push constant `v` is vec3<float32>; `x` is not a number"),
        ("s.b", "2", "`2` is not a bool (true, false, 1 or 0)"),
        ("s", "1", "push constant `s` is a struct, struct{a: float16 @0, b: bool @4}; give its members one by one"),
        ("s.c", "1", "push constant `s.c`: no member `c`; `s` has a: float16, b: bool"),
        ("n[0]", "1", "push constant `n[0]`: `n` is not an array"),
        ("n.x", "1", "push constant `n.x`: `n` has no members"),
        ("a[x]", "1", "push constant `a[x]`: `[x]` is not an index"),
    ] {
        let e = set(&mut b, name, value).unwrap_err();
        assert!(e.contains(want), "{name}={value}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    assert_eq!(b, vec![0u8; 88], "nothing written by a refused value");
    // Past the data there is (a short file).
    let e = set(&mut b[..8], "v", "1,2,3").unwrap_err();
    assert!(e.contains("byte 16 is past the 8 bytes"), "{e}");
}

#[test]
fn assignments_are_told_from_file_names() {
    for yes in ["n=64", "s.x=1", "a[2]=3", "_k=-1", "v=1,2"] {
        assert!(NamedValue::is_assignment(yes), "{yes}");
    }
    for no in ["push.bin", "dir/n=64", "./n=1", "=1", "1n=2", "a b=1"] {
        assert!(!NamedValue::is_assignment(no), "{no}");
    }
}

#[test]
fn ulp_closeness() {
    let f = |v: f32| u64::from(v.to_bits());
    let t = ScalarType::Float(32);
    let up = |n: u32| f(f32::from_bits(1.0f32.to_bits() + n));
    assert!(floats_close(t, f(1.0), up(4), 4, 0.0));
    assert!(!floats_close(t, f(1.0), up(5), 4, 0.0));
    assert!(floats_close(t, f(1.0), up(5), 4, 1e-6));
    assert!(!floats_close(t, f(0.5), f(0.5001), 4, 1e-6));
    assert!(floats_close(t, f(f32::NAN), f(f32::NAN), 0, 0.0));
    assert!(!floats_close(t, f(f32::NAN), f(0.0), 0, 1.0));
    assert!(!floats_close(ScalarType::UInt(32), 1, 2, 100, 10.0));
}
