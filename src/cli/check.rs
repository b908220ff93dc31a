//! `halc compile --check-msl`: every generated kernel is compiled by clang++
//! against the CPU backend's `metal_stdlib` shim (and loaded), so MSL that
//! does not parse or type-check fails the build, naming the kernel and the
//! MSL line, instead of failing at pipeline creation on a user's Mac.

use anyhow::{anyhow, Result};
use halc::runtime_loader::cpu::{CpuError, Device};
use halc::runtime_loader::Executable;

/// Checks every kernel of `compiled`; returns a warning per kernel the
/// shim cannot check (multisampled or depth textures, comparison sampling,
/// `constexpr` samplers), which the caller prints.
pub fn check_msl(compiled: &halc::Compiled) -> Result<Vec<String>> {
    let device = Device::new().map_err(|e| anyhow!("--check-msl: {e}"))?;
    let bytes = compiled.to_flatbuffer();
    let exe = Executable::load(&bytes).map_err(|e| anyhow!("--check-msl: {e}"))?;
    let program = device.load(exe).map_err(|e| anyhow!("--check-msl: {e}"))?;
    let mut warnings = Vec::new();
    for k in &compiled.kernels {
        let subject = format!("{}: entry point `{}`", k.input, k.entry.name);
        match program.pipeline(&k.name, &[]) {
            Ok(_) => {}
            Err(e @ CpuError::Unsupported { .. }) => warnings.push(format!(
                "{subject}: MSL not checked: {e}"
            )),
            Err(CpuError::Compile { stderr, .. }) => {
                return Err(anyhow!(
                    "{subject}: --check-msl: the generated MSL does not compile (line numbers are the MSL's; see it with --emit-msl):\n{}",
                    stderr.trim_end()
                ))
            }
            Err(e) => return Err(anyhow!("{subject}: --check-msl: {e}")),
        }
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saxpy() -> Option<halc::Compiled> {
        if Device::new().is_err() && std::env::var("HALC_REQUIRE_CLANG").as_deref() != Ok("1") {
            println!("skipped: no clang++ >= 15");
            return None;
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/kernels/saxpy.spv");
        let input = halc::Input::new("saxpy.spv", std::fs::read(path).unwrap());
        Some(halc::compile(&[input], &halc::Options::default()).unwrap())
    }

    #[test]
    fn generated_msl_passes() {
        let Some(c) = saxpy() else { return };
        assert_eq!(check_msl(&c).unwrap(), Vec::<String>::new());
    }

    /// The check can fail: MSL with an undeclared identifier (what
    /// SPIRV-Cross emitted for WorkgroupMemoryExplicitLayoutKHR) is an error
    /// naming the kernel and the MSL line.
    #[test]
    fn invalid_msl_fails_naming_kernel_and_line() {
        let Some(mut c) = saxpy() else { return };
        let msl = &mut c.kernels[0].msl.source;
        let (n, _) = msl
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains("uint i = gl_GlobalInvocationID.x;"))
            .expect("saxpy's first statement");
        *msl = msl.replace(
            "uint i = gl_GlobalInvocationID.x;",
            "uint i = _11 + gl_GlobalInvocationID.x;",
        );
        let e = check_msl(&c).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "saxpy.spv: entry point `main`: --check-msl: the generated MSL does not compile"
            ),
            "{e}"
        );
        assert!(
            e.contains(&format!(
                "saxpy.metal:{}:14: error: use of undeclared identifier '_11'",
                n + 1
            )),
            "{e}"
        );
    }
}
