//! Image expectations as amber's verifier evaluates them: a rectangle of
//! texels compared with one colour (`EXPECT img IDX x y SIZE w h EQ_RGBA
//! …`, `Verifier::Probe`) and the earth mover's distance between two
//! images' histograms (`EQ_HISTOGRAM_EMD_BUFFER`,
//! `Buffer::CompareHistogramEMD`).

use vulkan_reference::{Component, Format};

use super::data::{decode, Scalar, Value};
use super::{Probe, Tolerance};

/// Amber's tolerance when a probe gives none (`kDefaultTexelTolerance`).
const DEFAULT_TOLERANCE: f64 = 0.002;

/// Amber's sRGB-to-linear transfer (`SRGBToLinearValue`).
fn srgb_to_linear(v: f64) -> f64 {
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// The channels of a texel of `format` in memory order, each as its
/// letter (`R`, `G`, `B`, `A`) and value as amber scales it: unorm over
/// `2^bits - 1`, snorm over `2^(bits-1) - 1` (not clamped), sRGB colour
/// channels converted to linear, integers and floats as they are.
pub fn texel_channels(format: Format, texel: &[u8]) -> Vec<(char, f64)> {
    let Some((n, c)) = format.components() else {
        return Vec::new();
    };
    let srgb = format.name().ends_with("_SRGB");
    let letters: Vec<char> = format
        .name()
        .split('_')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect();
    let bytes = (c.bits() / 8) as usize;
    (0..n)
        .map(|i| {
            let raw = &texel[i * bytes..(i + 1) * bytes];
            let scalar = match c {
                Component::Unorm(b) | Component::Uint(b) => Scalar::UInt(b),
                Component::Snorm(b) | Component::Sint(b) => Scalar::Int(b),
                Component::Float(b) => Scalar::Float(b),
            };
            let v = match decode(scalar, raw) {
                Value::Int(v) => v as f64,
                Value::Float(f) => f,
            };
            let letter = letters.get(i).copied().unwrap_or('?');
            let v = match c {
                Component::Unorm(b) => {
                    let v = v / ((1u64 << b) - 1) as f64;
                    if srgb && letter != 'A' {
                        srgb_to_linear(v)
                    } else {
                        v
                    }
                }
                Component::Snorm(b) => v / ((1u64 << (b - 1)) - 1) as f64,
                _ => v,
            };
            (letter, v)
        })
        .collect()
}

/// Whether a texel's channels equal the probe's colour, as amber's
/// `IsTexelEqualToExpected` decides: each of R, G, B (and A for `EQ_RGBA`)
/// within its tolerance (a percentage is of the texel's value, as amber
/// passes the two to `IsEqualWithTolerance`), a NaN texel never.
fn texel_matches(channels: &[(char, f64)], probe: &Probe, tol: &[Tolerance; 4]) -> bool {
    channels.iter().all(|&(letter, actual)| {
        let k = match letter {
            'R' => 0,
            'G' => 1,
            'B' => 2,
            'A' if probe.rgba => 3,
            _ => return true,
        };
        let expected = probe.expected[k];
        if actual.is_nan() {
            return false;
        }
        let diff = (expected - actual).abs();
        match tol[k] {
            Tolerance::Absolute(t) => diff <= t,
            Tolerance::Percent(p) => diff <= p / 100.0 * actual.abs(),
        }
    })
}

/// A failed probe: the first failing texel (left to right, top to
/// bottom), its R, G, B, A, and how many texels failed.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeFailure {
    /// The first failing texel's x and y.
    pub at: (u32, u32),
    /// Its R, G, B, A as read (scaled as amber scales them).
    pub actual: [f64; 4],
    /// Texels that failed.
    pub count: u64,
}

/// Evaluates `probe` on an image's texels (level 0, tightly packed, rows of
/// `probe.frame.0` texels): `Err` with the first failure as amber reports
/// it, or a message when the data is too short.
pub fn run_probe(probe: &Probe, data: &[u8]) -> Result<Result<(), ProbeFailure>, String> {
    let texel = probe.format.texel_bytes() as usize;
    let row = probe.frame.0 as usize * texel;
    let (x0, y0, w, h) = probe.rect;
    let need = (y0 + h - 1) as usize * row + (x0 + w) as usize * texel;
    if data.len() < need {
        return Err(format!(
            "the probe reads {need} bytes of texels; the image holds {}",
            data.len()
        ));
    }
    // As amber: four tolerances apply one to each channel; one, two or
    // three, the first to all.
    let tol = match probe.tolerance.as_slice() {
        [] => [Tolerance::Absolute(DEFAULT_TOLERANCE); 4],
        [a, b, c, d] => [*a, *b, *c, *d],
        [a, ..] => [*a; 4],
    };
    let mut failure: Option<ProbeFailure> = None;
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let at = y as usize * row + x as usize * texel;
            let channels = texel_channels(probe.format, &data[at..at + texel]);
            if !texel_matches(&channels, probe, &tol) {
                match &mut failure {
                    Some(f) => f.count += 1,
                    None => {
                        let mut actual = [0.0; 4];
                        for (letter, v) in &channels {
                            if let Some(k) = "RGBA".find(*letter) {
                                actual[k] = *v;
                            }
                        }
                        failure = Some(ProbeFailure {
                            at: (x, y),
                            actual,
                            count: 1,
                        });
                    }
                }
            }
        }
    }
    Ok(failure.map_or(Ok(()), Err))
}

/// Whether amber reports a format's values scaled by 255 (a normalized
/// format's).
pub fn normalized(format: Format) -> bool {
    matches!(
        format.components(),
        Some((_, Component::Unorm(_) | Component::Snorm(_)))
    )
}

/// The earth mover's distance between the histograms of two buffers of
/// texels with four 8-bit channels, the largest of the four channels', as
/// amber's `CompareHistogramEMD` computes it (each histogram of 256 bins
/// normalized by the texel count, the distance by the bin count).
pub fn histogram_emd(a: &[u8], b: &[u8]) -> f64 {
    let histogram = |data: &[u8], c: usize| {
        let mut bins = [0u64; 256];
        for t in data.chunks_exact(4) {
            bins[t[c] as usize] += 1;
        }
        bins
    };
    let (na, nb) = ((a.len() / 4).max(1) as f64, (b.len() / 4).max(1) as f64);
    (0..4)
        .map(|c| {
            let (ha, hb) = (histogram(a, c), histogram(b, c));
            let mut accum = 0.0;
            let mut total = 0.0;
            for i in 0..256 {
                accum += ha[i] as f64 / na - hb[i] as f64 / nb;
                total += f64::abs(accum);
            }
            total / 256.0
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(format: &str, rgba: bool, expected: [u32; 4], tolerance: Vec<Tolerance>) -> Probe {
        Probe {
            format: Format::by_name(format).unwrap(),
            frame: (2, 2),
            rect: (0, 0, 2, 2),
            rgba,
            expected: expected.map(|v| f64::from(v as f32 / 255.0)),
            tolerance,
        }
    }

    #[test]
    fn texels_scale_as_amber_scales_them() {
        let f = |n| Format::by_name(n).unwrap();
        assert_eq!(
            texel_channels(f("R8G8B8A8_UNORM"), &[255, 0, 51, 128]),
            vec![('R', 1.0), ('G', 0.0), ('B', 0.2), ('A', 128.0 / 255.0)]
        );
        assert_eq!(
            texel_channels(f("B8G8R8A8_UNORM"), &[255, 0, 0, 0])[0],
            ('B', 1.0)
        );
        // snorm over 127, not clamped: -128 reads below -1.
        assert_eq!(
            texel_channels(f("R8_SNORM"), &[0x80]),
            vec![('R', -128.0 / 127.0)]
        );
        let srgb = texel_channels(f("R8G8B8A8_SRGB"), &[188, 188, 0, 188]);
        assert!((srgb[0].1 - 0.5029).abs() < 1e-3, "{srgb:?}");
        // Alpha stays linear.
        assert_eq!(srgb[3].1, 188.0 / 255.0);
        assert_eq!(
            texel_channels(f("R32_SFLOAT"), &0.5f32.to_le_bytes()),
            vec![('R', 0.5)]
        );
        assert_eq!(
            texel_channels(f("R16G16B16A16_SFLOAT"), &[0, 0x3c, 0, 0xc0, 0, 0, 0, 0])[..2],
            [('R', 1.0), ('G', -2.0)]
        );
    }

    #[test]
    fn probes_compare_as_amber_compares() {
        let red = [255u8, 0, 0, 255].repeat(4);
        let p = probe("R8G8B8A8_UNORM", true, [255, 0, 0, 255], vec![]);
        assert_eq!(run_probe(&p, &red), Ok(Ok(())));
        let mut one_off = red.clone();
        one_off[4 * 3 + 1] = 1; // (1, 1): G = 1/255, past 0.002.
        let failure = run_probe(&p, &one_off).unwrap().unwrap_err();
        assert_eq!((failure.at, failure.count), ((1, 1), 1));
        // A tolerance of 1/255 and a bit lets it through.
        let p = probe(
            "R8G8B8A8_UNORM",
            true,
            [255, 0, 0, 255],
            vec![Tolerance::Absolute(0.004)],
        );
        assert_eq!(run_probe(&p, &one_off), Ok(Ok(())));
        // EQ_RGB does not look at alpha.
        let mut alpha = red.clone();
        alpha[3] = 0;
        let p = probe("R8G8B8A8_UNORM", false, [255, 0, 0, 0], vec![]);
        assert_eq!(run_probe(&p, &alpha), Ok(Ok(())));
        // A float image compares its value with the colour over 255.
        let half: Vec<u8> = [0.5f32; 4].iter().flat_map(|v| v.to_le_bytes()).collect();
        let p = probe("R32_SFLOAT", false, [128, 0, 0, 0], vec![]);
        assert_eq!(run_probe(&p, &half), Ok(Ok(())));
        // 127/255 is within the default 0.002 of 0.5; 126/255 is not.
        let p = probe("R32_SFLOAT", false, [127, 0, 0, 0], vec![]);
        assert_eq!(run_probe(&p, &half), Ok(Ok(())));
        let p = probe("R32_SFLOAT", false, [126, 0, 0, 0], vec![]);
        assert_eq!(run_probe(&p, &half).unwrap().unwrap_err().count, 4);
        // A percentage is of the texel's value: 2 % of 0.5.
        let p = probe(
            "R32_SFLOAT",
            false,
            [126, 0, 0, 0],
            vec![Tolerance::Percent(2.0)],
        );
        assert_eq!(run_probe(&p, &half), Ok(Ok(())));
        assert!(run_probe(&p, &half[..8]).is_err());
    }

    #[test]
    fn histogram_distance_is_amber_s() {
        let a = [0u8, 0, 0, 0, 255, 255, 255, 255];
        assert_eq!(histogram_emd(&a, &a), 0.0);
        // The same texels in another order: the same histogram.
        let b = [255u8, 255, 255, 255, 0, 0, 0, 0];
        assert_eq!(histogram_emd(&a, &b), 0.0);
        // Half the earth moved one bin over: 0.5 / 256.
        let c = [1u8, 0, 0, 0, 255, 255, 255, 255];
        assert_eq!(histogram_emd(&a, &c), 0.5 / 256.0);
    }
}
