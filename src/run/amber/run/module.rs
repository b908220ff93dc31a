//! Each pipeline's SPIR-V as the test gives it: GLSL through glslc,
//! assembly through SPIRV-Tools, hex or a file, then its
//! `SHADER_OPTIMIZATION` passes; its target environment.

use std::path::{Path, PathBuf};

use spirv_tools::assembler::Assembler;

use super::options::RunOptions;
use crate::run::amber::{Pipeline, Script, ShaderSource};

/// The SPIR-V environment of `shader`: its `TARGET_ENV`, else
/// `--target-env`, raised to SPIR-V 1.4 when the script requires
/// `VK_KHR_spirv_1_4` (the Vulkan CTS runs such files at SPIR-V 1.4: it is a
/// version of the module, not a device capability).
fn target_env(script: &Script, shader: &crate::run::amber::Shader, opts: &RunOptions) -> String {
    if let Some(env) = &shader.target_env {
        return env.clone();
    }
    let env = opts.target_env.as_str();
    let wants_1_4 = script
        .requirements
        .iter()
        .any(|(r, _)| r == "VK_KHR_spirv_1_4");
    let below_1_4 = matches!(
        env,
        "spv1.0" | "spv1.1" | "spv1.2" | "spv1.3" | "vulkan1.0" | "vulkan1.1"
    );
    if wants_1_4 && below_1_4 {
        "spv1.4".into()
    } else {
        env.into()
    }
}

/// Pipeline `p`'s module as the test gives it: its shader assembled,
/// compiled from GLSL or read, then through the pipeline's
/// `SHADER_OPTIMIZATION` passes.
///
/// glslc's errors name the script's lines (`test.amber:19: error: …`), not
/// the shader body's (`<stdin>:16:`).
pub(super) fn module(
    file: &str,
    script: &Script,
    p: &Pipeline,
    opts: &RunOptions,
) -> Result<Vec<u8>, String> {
    let shader = script
        .shaders
        .iter()
        .find(|s| s.name == p.shader)
        .ok_or_else(|| format!("unknown shader `{}`", p.shader))?;
    let env = target_env(script, shader, opts);
    let mut bytes = match &shader.source {
        ShaderSource::SpirvHex(b) => b.clone(),
        ShaderSource::SpirvAsm(text) => assemble(text, &env)?,
        ShaderSource::Glsl(text) => glslc(
            opts.glslc.as_deref(),
            opts.glslc_cache.as_deref(),
            text,
            &env,
        )
        .map_err(|e| script_lines(&e, file, shader.inline.then_some(shader.line)))?,
    };
    if !p.optimizations.is_empty() {
        bytes = spirv_opt(&bytes, &p.optimizations, &env)?;
    }
    Ok(bytes)
}

/// glslc's `<stdin>:N:` locations in `message` as lines of the script
/// `file`, for a shader whose inline source starts after line `start` (a
/// shader read from a FILE keeps glslc's lines, named `<FILE>`).
fn script_lines(message: &str, file: &str, start: Option<usize>) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("<stdin>:") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "<stdin>:".len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match (after[..digits].parse::<usize>(), start) {
            (Ok(n), Some(start)) if after[digits..].starts_with(':') => {
                out.push_str(&format!("{file}:{}", start + n));
            }
            (Ok(n), None) if after[digits..].starts_with(':') => {
                out.push_str(&format!("<FILE>:{n}"));
            }
            _ => out.push_str("<stdin>:"),
        }
        rest = if digits > 0 && after[digits..].starts_with(':') {
            &after[digits..]
        } else {
            after
        };
    }
    out.push_str(rest);
    out
}

/// SPIR-V target environments as Amber names them.
fn tools_env(env: &str) -> Result<spirv_tools::TargetEnv, String> {
    use spirv_tools::TargetEnv as T;
    Ok(match env {
        "spv1.0" => T::Universal_1_0,
        "spv1.1" => T::Universal_1_1,
        "spv1.2" => T::Universal_1_2,
        "spv1.3" => T::Universal_1_3,
        "spv1.4" => T::Universal_1_4,
        "spv1.5" => T::Universal_1_5,
        "spv1.6" => T::Universal_1_6,
        "vulkan1.0" => T::Vulkan_1_0,
        "vulkan1.1" => T::Vulkan_1_1,
        "vulkan1.2" => T::Vulkan_1_2,
        "vulkan1.3" => T::Vulkan_1_3,
        other => return Err(format!("unknown target environment `{other}`")),
    })
}

fn assemble(text: &str, env: &str) -> Result<Vec<u8>, String> {
    let asm = spirv_tools::assembler::create(Some(tools_env(env)?));
    asm.assemble(text, Default::default())
        .map(|b| b.as_bytes().to_vec())
        .map_err(|e| format!("SPIR-V assembly: {}", e.to_string().trim()))
}

/// Runs spirv-opt with a pipeline's `SHADER_OPTIMIZATION` passes, as amber
/// does (its passes are spirv-opt's flags). spirv-opt is found as
/// `$HALC_SPIRV_OPT`, else on `PATH` (Debian: `spirv-tools`).
fn spirv_opt(module: &[u8], passes: &[String], env: &str) -> Result<Vec<u8>, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    tools_env(env)?;
    let program = std::env::var_os("HALC_SPIRV_OPT").unwrap_or_else(|| "spirv-opt".into());
    let dir = tempfile::tempdir().map_err(|e| format!("SHADER_OPTIMIZATION: {e}"))?;
    let (input, output) = (dir.path().join("in.spv"), dir.path().join("out.spv"));
    std::fs::File::create(&input)
        .and_then(|mut f| f.write_all(module))
        .map_err(|e| format!("SHADER_OPTIMIZATION: {e}"))?;
    let run = Command::new(&program)
        .arg(format!("--target-env={env}"))
        .args(passes)
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            format!(
                "SHADER_OPTIMIZATION needs spirv-opt (`{}`: {e}; Debian: apt-get install spirv-tools, or set HALC_SPIRV_OPT)",
                program.to_string_lossy()
            )
        })?;
    if !run.status.success() {
        return Err(format!(
            "spirv-opt {} failed: {}",
            passes.join(" "),
            String::from_utf8_lossy(&run.stderr).trim()
        ));
    }
    std::fs::read(&output).map_err(|e| format!("SHADER_OPTIMIZATION: {e}"))
}

/// The glslc at `path` (or `$HALC_GLSLC`, or on `PATH`), located once per
/// process: locating runs `glslc --version`. [`run_files`](super::run_files)
/// locates it before forking, so the processes running the test files
/// inherit it.
pub(crate) fn located_glslc(path: Option<&Path>) -> Result<crate::build::glsl::Glslc, String> {
    use std::sync::{Mutex, OnceLock};
    type Located = Vec<(Option<PathBuf>, crate::build::glsl::Glslc)>;
    static LOCATED: OnceLock<Mutex<Located>> = OnceLock::new();
    let located = LOCATED.get_or_init(Mutex::default);
    let key = path.map(Path::to_path_buf);
    if let Some((_, g)) = located
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(k, _)| *k == key)
    {
        return Ok(g.clone());
    }
    let glslc = crate::build::glsl::Glslc::locate(path).map_err(|e| e.to_string())?;
    located
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((key, glslc.clone()));
    Ok(glslc)
}

/// Compiles GLSL compute source with glslc ([`crate::build::glsl`]), through the
/// cache in `cache` when there is one.
fn glslc(
    path: Option<&Path>,
    cache: Option<&Path>,
    text: &str,
    env: &str,
) -> Result<Vec<u8>, String> {
    let opts = crate::build::glsl::GlslOptions {
        target_env: env
            .parse()
            .map_err(|e: crate::build::glsl::GlslError| e.to_string())?,
        ..Default::default()
    };
    let glslc = located_glslc(path)?;
    let cache = cache.map(|d| crate::build::glsl::GlslCache::new(d.to_path_buf()));
    if let Some(spirv) = cache.as_ref().and_then(|c| c.get_text(&glslc, text, &opts)) {
        return Ok(spirv);
    }
    let spirv = glslc.compile_source(text, &opts).map_err(|e| match e {
        crate::build::glsl::GlslError::Compile { stderr, .. } => {
            format!("glslc rejected the shader:\n{stderr}")
        }
        e => e.to_string(),
    })?;
    if let Some(c) = &cache {
        c.put_text(&glslc, text, &opts, &spirv);
    }
    Ok(spirv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glslc_lines_become_the_scripts() {
        let e = "glslc rejected the shader:\n<stdin>:16: error: x\n<stdin>:3: warning: y\n";
        assert_eq!(
            script_lines(e, "t.amber", Some(40)),
            "glslc rejected the shader:\nt.amber:56: error: x\nt.amber:43: warning: y\n"
        );
        assert_eq!(
            script_lines(e, "t.amber", None).lines().nth(1),
            Some("<FILE>:16: error: x")
        );
        assert_eq!(
            script_lines("<stdin>: no line", "t", Some(1)),
            "<stdin>: no line"
        );
    }
}
