//! Runs a parsed [`Script`] through halc and the runtime-loader's CPU
//! backend: every pipeline's shader goes through [`crate::compile`] (the
//! same path as `halc compile`, with the caller's options) into an
//! in-memory executable, is loaded and verified, and every `RUN` is planned
//! and executed on the CPU from the generated MSL.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};

use runtime_loader::cpu::{self, ResourceBindings};
use runtime_loader::plan::{Grid, SpecValue};
use runtime_loader::Executable;
use spirv_tools::assembler::Assembler;

use super::data::{decode, encode, Scalar, Value};
use super::{BindKind, Check, Command, Compare, Pipeline, Script, ShaderSource, Tolerance};
use crate::{Input, Options};

/// How `halc test` runs scripts.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Compile options for every pipeline (binding model, MSL version, …).
    /// `entries` and `specs` are set per pipeline.
    pub compile: Options,
    /// SPIR-V target for GLSL and SPIR-V assembly when a shader gives none:
    /// `spv1.0` … `spv1.6` or `vulkan1.0` … `vulkan1.3` (default `spv1.3`,
    /// Vulkan 1.1, which runs most compute tests).
    pub target_env: String,
    /// The glslc to run (default: `$HALC_GLSLC`, else `glslc` on `PATH`).
    pub glslc: Option<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            compile: Options::default(),
            target_env: "spv1.3".into(),
            glslc: None,
        }
    }
}

/// How one test ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every expectation held.
    Pass,
    /// Something failed: the first failure, with its line.
    Fail(String),
    /// The test needs something halc or Metal cannot do.
    Skip(String),
}

/// Device features a Metal device (and halc) provides. Anything else makes
/// a test a skip.
const FEATURES: &[&str] = &[
    "shaderInt16",
    "shaderInt64",
    "shaderFloat16",
    "shaderInt8",
    "Float16Int8Features.shaderFloat16",
    "Float16Int8Features.shaderInt8",
    "Storage16BitFeatures.storageBuffer16BitAccess",
    "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
    "Storage8BitFeatures.storageBuffer8BitAccess",
    "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    "SubgroupSupportedOperations.basic",
    "SubgroupSupportedOperations.vote",
    "SubgroupSupportedOperations.arithmetic",
    "SubgroupSupportedOperations.ballot",
    "SubgroupSupportedOperations.shuffle",
    "SubgroupSupportedOperations.shuffleRelative",
    "SubgroupSupportedOperations.quad",
    "SubgroupSupportedStages.compute",
    "shaderStorageBufferArrayDynamicIndexing",
    "shaderUniformBufferArrayDynamicIndexing",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_16bit_storage",
    "VK_KHR_8bit_storage",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_shader_subgroup_extended_types",
];

/// Parses and runs one script. `name` is how failures name the file.
pub fn run(name: &str, text: &str, device: &cpu::Device, opts: &RunOptions) -> Outcome {
    let script = match super::parse(text) {
        Ok(s) => s,
        Err(e) if e.unsupported => {
            return Outcome::Skip(format!("{name}:{}: {}", e.line, e.message))
        }
        Err(e) => return Outcome::Fail(format!("{name}:{}: {}", e.line, e.message)),
    };
    if let Some((what, line)) = script
        .requirements
        .iter()
        .find(|(r, _)| !FEATURES.contains(&r.as_str()))
    {
        return Outcome::Skip(format!(
            "{name}:{line}: requires {what}, which halc's Metal target does not provide"
        ));
    }
    match Runner::new(name, &script, device, opts).and_then(|mut r| r.run()) {
        Ok(()) => Outcome::Pass,
        Err(m) => Outcome::Fail(m),
    }
}

struct Runner<'s> {
    name: &'s str,
    script: &'s Script,
    device: &'s cpu::Device,
    opts: &'s RunOptions,
    buffers: BTreeMap<&'s str, cpu::Buffer>,
    /// Compiled executables per pipeline.
    executables: BTreeMap<&'s str, Vec<u8>>,
}

impl<'s> Runner<'s> {
    fn new(
        name: &'s str,
        script: &'s Script,
        device: &'s cpu::Device,
        opts: &'s RunOptions,
    ) -> Result<Self, String> {
        let mut buffers = BTreeMap::new();
        for b in &script.buffers {
            let buf = device
                .buffer_with_data(&b.bytes)
                .map_err(|e| format!("{name}:{}: buffer `{}`: {e}", b.line, b.name))?;
            buffers.insert(b.name.as_str(), buf);
        }
        Ok(Runner {
            name,
            script,
            device,
            opts,
            buffers,
            executables: BTreeMap::new(),
        })
    }

    fn at(&self, line: usize) -> String {
        format!("{}:{line}", self.name)
    }

    fn run(&mut self) -> Result<(), String> {
        for c in &self.script.commands {
            match c {
                Command::Run {
                    pipeline,
                    groups,
                    line,
                } => self.dispatch(pipeline, *groups, *line)?,
                Command::Write {
                    buffer,
                    offset,
                    bytes,
                    line,
                } => self
                    .buffer(buffer)?
                    .write(*offset as u64, bytes)
                    .map_err(|e| format!("{}: {e}", self.at(*line)))?,
                Command::Copy { from, to, line } => {
                    let data = self.buffer(from)?.to_vec();
                    let dst = self.buffer(to)?;
                    if dst.len() != data.len() as u64 {
                        return Err(format!(
                            "{}: COPY {from} TO {to}: {} bytes into {} bytes",
                            self.at(*line),
                            data.len(),
                            dst.len()
                        ));
                    }
                    dst.write(0, &data)
                        .map_err(|e| format!("{}: {e}", self.at(*line)))?;
                }
                Command::Expect {
                    buffer,
                    check,
                    line,
                } => self.expect(buffer, check, *line)?,
            }
        }
        Ok(())
    }

    fn buffer(&self, name: &str) -> Result<&cpu::Buffer, String> {
        self.buffers
            .get(name)
            .ok_or_else(|| format!("{}: unknown buffer `{name}`", self.name))
    }

    fn pipeline(&self, name: &str) -> Result<&'s Pipeline, String> {
        self.script
            .pipelines
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("{}: unknown pipeline `{name}`", self.name))
    }

    fn dispatch(&mut self, name: &'s str, groups: [u32; 3], line: usize) -> Result<(), String> {
        let at = self.at(line);
        let p = self.pipeline(name)?;
        if !self.executables.contains_key(name) {
            let bytes = self
                .compile(p)
                .map_err(|e| format!("{at}: RUN {name}: {e}"))?;
            self.executables.insert(name, bytes);
        }
        let bytes = &self.executables[name];
        let exe = Executable::load(bytes).map_err(|e| format!("{at}: RUN {name}: {e}"))?;
        let program = self
            .device
            .load(exe)
            .map_err(|e| format!("{at}: RUN {name}: {e}"))?;
        let kernel_name = exe
            .entry_points()
            .next()
            .map(|k| k.name())
            .ok_or_else(|| format!("{at}: RUN {name}: no kernel"))?;
        let kernel = exe.entry_point(kernel_name).expect("listed above");
        // SPECIALIZE values of function constants are set at pipeline
        // creation; the others were baked when compiling.
        let mut values = Vec::new();
        for s in &p.specialize {
            if kernel.function_constant(s.id).is_some() {
                values.push(spec_value(s).map_err(|e| format!("{at}: {e}"))?);
            }
        }
        let pipeline = program
            .pipeline(kernel_name, &values)
            .map_err(|e| format!("{at}: RUN {name}: {e}"))?;
        let mut bindings = ResourceBindings::new();
        let mut push = Vec::new();
        for b in &p.binds {
            let buf = self.buffer(&b.buffer)?;
            let len = buf.len().saturating_sub(b.offset);
            let range = b.range.unwrap_or(len);
            match b.kind {
                BindKind::Storage { set, binding } | BindKind::Uniform { set, binding } => {
                    // Amber binds what a test names; the kernel's layout says
                    // what it uses.
                    if kernel.binding(set, binding).is_some() {
                        bindings.buffer_range(set, binding, buf, b.offset, range);
                    }
                }
                BindKind::PushConstant => push = buf.to_vec(),
            }
        }
        if let Some(pc) = kernel.push_constants() {
            push.resize(push.len().max(pc.size as usize), 0);
        } else {
            push.clear();
        }
        self.device
            .dispatch(
                &pipeline,
                &bindings,
                &push,
                Grid::Threadgroups(groups.map(u64::from)),
            )
            .map_err(|e| format!("{at}: RUN {name}: {e}"))?;
        Ok(())
    }

    /// The pipeline's shader compiled by halc into an executable holding
    /// its one kernel.
    fn compile(&self, p: &Pipeline) -> Result<Vec<u8>, String> {
        let shader = self
            .script
            .shaders
            .iter()
            .find(|s| s.name == p.shader)
            .ok_or_else(|| format!("unknown shader `{}`", p.shader))?;
        let env = shader
            .target_env
            .as_deref()
            .unwrap_or(&self.opts.target_env);
        let spirv = match &shader.source {
            ShaderSource::SpirvHex(b) => b.clone(),
            ShaderSource::SpirvAsm(text) => assemble(text, env)?,
            ShaderSource::Glsl(text) => glslc(self.opts.glslc.as_deref(), text, env)?,
        };
        let input = Input::new(format!("{}.spv", shader.name), spirv);
        let mut options = self.opts.compile.clone();
        options.entries = vec![p.entry.clone()];
        let first =
            crate::compile(std::slice::from_ref(&input), &options).map_err(|e| e.to_string())?;
        // SpecIds that are no function constant (SPIRV-Cross fixed them, as
        // they size arrays) are baked instead.
        let open: Vec<u32> = first.kernels[0]
            .function_constants
            .iter()
            .map(|c| c.id)
            .collect();
        let bake: Vec<_> = p
            .specialize
            .iter()
            .filter(|s| !open.contains(&s.id))
            .map(|s| crate::spirv::SpecValue {
                id: s.id,
                text: s.value.clone(),
            })
            .collect();
        if bake.is_empty() {
            return Ok(first.to_flatbuffer());
        }
        options.specs = bake;
        crate::compile(std::slice::from_ref(&input), &options)
            .map(|c| c.to_flatbuffer())
            .map_err(|e| e.to_string())
    }

    fn expect(&self, name: &str, check: &Check, line: usize) -> Result<(), String> {
        let at = self.at(line);
        let data = self.buffer(name)?.to_vec();
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
                let b = self.buffer(other)?.to_vec();
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
            Check::RmseBuffer(other, tol) => {
                let b = self.buffer(other)?.to_vec();
                let decl = self
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
}

impl super::data::DataType {
    fn scalar_name(&self) -> String {
        super::data::DataType::scalar(self.scalar).to_string()
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

/// A `SPECIALIZE id AS type value` as the bits Metal sets.
fn spec_value(s: &super::Specialize) -> Result<SpecValue, String> {
    let scalar = Scalar::from_amber(&s.ty)
        .filter(|t| t.bytes() == 4)
        .ok_or_else(|| format!("SPECIALIZE {}: type `{}` is not a 32-bit type", s.id, s.ty))?;
    let bytes = encode(scalar, &s.value).map_err(|m| format!("SPECIALIZE {}: {m}", s.id))?;
    let mut raw = [0u8; 8];
    raw[..4].copy_from_slice(&bytes);
    Ok(SpecValue {
        id: s.id,
        bits: u64::from_le_bytes(raw),
    })
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

/// glslc's `--target-env` / `--target-spv` for an Amber environment.
fn glslc_env(env: &str) -> Result<Vec<String>, String> {
    Ok(match env {
        e if e.starts_with("vulkan1.") => vec![format!("--target-env={e}")],
        e if e.starts_with("spv1.") => {
            // The lowest Vulkan that carries that SPIR-V version.
            let vk = match e {
                "spv1.0" => "vulkan1.0",
                "spv1.1" | "spv1.2" | "spv1.3" => "vulkan1.1",
                "spv1.4" | "spv1.5" => "vulkan1.2",
                _ => "vulkan1.3",
            };
            vec![format!("--target-env={vk}"), format!("--target-spv={e}")]
        }
        other => return Err(format!("unknown target environment `{other}`")),
    })
}

/// Compiles GLSL compute source with glslc.
fn glslc(path: Option<&Path>, text: &str, env: &str) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let program = match path {
        Some(p) => p.to_path_buf(),
        None => std::env::var_os("HALC_GLSLC")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("glslc")),
    };
    let mut child = Process::new(&program)
        .args(glslc_env(env)?)
        .args(["-fshader-stage=compute", "-o", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "GLSL shaders need glslc, which was not found (`{}`): install it (`apt-get install glslc`) or set HALC_GLSLC",
                    program.display()
                )
            } else {
                format!("cannot run {}: {e}", program.display())
            }
        })?;
    let mut stdin = child.stdin.take().expect("piped");
    let text = text.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("glslc: {e}"))?;
    let _ = writer.join();
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("glslc rejected the shader:\n{}", stderr.trim_end()));
    }
    Ok(out.stdout)
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

    #[test]
    fn specialize_values_are_32_bit_bits() {
        let s = |ty: &str, v: &str| super::super::Specialize {
            id: 1,
            ty: ty.into(),
            value: v.into(),
        };
        assert_eq!(spec_value(&s("int32", "-1")).unwrap().bits, 0xffff_ffff);
        assert_eq!(
            spec_value(&s("float", "2.5")).unwrap().bits,
            u64::from(2.5f32.to_bits())
        );
        assert!(spec_value(&s("uint16", "1")).is_err());
    }
}
