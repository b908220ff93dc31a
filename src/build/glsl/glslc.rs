//! A located glslc and one compile: the child process, its depfile, its
//! errors.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::options::OTHER_STAGES;
use super::options::{GlslError, GlslOptions, GlslOutput, GLSLC_ENV};

/// A located glslc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glslc {
    program: PathBuf,
    version: String,
}

impl Glslc {
    /// Finds glslc: `explicit` when given, else `$HALC_GLSLC`, else `glslc`
    /// on `PATH`; runs `glslc --version` to check it runs.
    pub fn locate(explicit: Option<&Path>) -> Result<Glslc, GlslError> {
        let (program, how) = match explicit {
            Some(p) => (p.to_path_buf(), ""),
            None => match std::env::var_os(GLSLC_ENV).filter(|v| !v.is_empty()) {
                Some(v) => (PathBuf::from(v), " from HALC_GLSLC"),
                None => (PathBuf::from("glslc"), " on PATH"),
            },
        };
        let out = Command::new(&program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| spawn_error(&program, how, &e))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let first = text.lines().next().unwrap_or("").trim().to_string();
        if !out.status.success() {
            return Err(GlslError::Run {
                program,
                message: format!(
                    "`--version` failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            });
        }
        Ok(Glslc {
            program,
            version: first,
        })
    }

    /// The program that runs.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The first line of `glslc --version` (e.g. `shaderc 2023.2-1`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Compiles the compute shader at `path`. The stage comes from the
    /// extension: `.comp` is compute; any extension glslc maps to another
    /// stage (`.vert`, `.frag`, …) is an error; anything else (`.glsl`) is
    /// compiled with `-fshader-stage=compute`.
    pub fn compile(&self, path: &Path, opts: &GlslOptions) -> Result<GlslOutput, GlslError> {
        self.start(path, opts)?.finish()
    }

    /// [`Glslc::compile`] of each `(path, options)`, up to `jobs` glslc
    /// processes at once (no thread: each writes its messages to a file,
    /// and the oldest is waited for first), results in order. After a
    /// source fails no further one is started, and those are `None`: every
    /// source before a failed one has a result, so the first error in
    /// input order is the one a serial run meets.
    pub fn compile_all(
        &self,
        sources: &[(&Path, &GlslOptions)],
        jobs: usize,
    ) -> Vec<Option<Result<GlslOutput, GlslError>>> {
        let mut results: Vec<Option<Result<GlslOutput, GlslError>>> =
            sources.iter().map(|_| None).collect();
        let mut running: std::collections::VecDeque<(usize, Running)> = Default::default();
        let mut failed = false;
        for (i, (path, opts)) in sources.iter().enumerate() {
            if running.len() >= jobs.max(1) {
                if let Some((j, r)) = running.pop_front() {
                    let r = r.finish();
                    failed = r.is_err();
                    results[j] = Some(r);
                }
            }
            if failed {
                break;
            }
            match self.start(path, opts) {
                Ok(r) => running.push_back((i, r)),
                Err(e) => {
                    results[i] = Some(Err(e));
                    break;
                }
            }
        }
        for (j, r) in running {
            results[j] = Some(r.finish());
        }
        results
    }

    /// Starts glslc on `path` (see [`Glslc::compile`]), its output and
    /// messages going to files of its own.
    fn start(&self, path: &Path, opts: &GlslOptions) -> Result<Running, GlslError> {
        let file = path.display().to_string();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if let Some((_, stage)) = OTHER_STAGES.iter().find(|(e, _)| *e == ext) {
            return Err(GlslError::NotCompute { file, ext, stage });
        }
        let io = |what: &str, e: std::io::Error| GlslError::Io {
            file: file.clone(),
            message: format!("{what}: {e}"),
        };
        let tmp = tempfile::Builder::new()
            .prefix("halc-glslc")
            .tempdir()
            .map_err(|e| io("cannot create a temporary directory", e))?;
        // Files, not pipes: several glslc run at once with nobody reading.
        let messages = |name: &str| {
            std::fs::File::options()
                .read(true)
                .write(true)
                .create_new(true)
                .open(tmp.path().join(name))
                .map_err(|e| io("cannot create a temporary file", e))
        };
        let (stdout, stderr) = (messages("stdout")?, messages("stderr")?);
        let mut cmd = Command::new(&self.program);
        cmd.args(opts.args()?);
        if ext != "comp" {
            cmd.arg("-fshader-stage=compute");
        }
        cmd.arg("-MD")
            .arg("-MF")
            .arg(tmp.path().join("out.d"))
            .arg("-o")
            .arg(tmp.path().join("out.spv"))
            .arg(path)
            .stdin(Stdio::null())
            .stdout(stdout.try_clone().map_err(|e| io("temporary file", e))?)
            .stderr(stderr.try_clone().map_err(|e| io("temporary file", e))?);
        if let Some(dir) = &opts.working_dir {
            cmd.current_dir(dir);
        }
        let child = cmd
            .spawn()
            .map_err(|e| spawn_error(&self.program, "", &e))?;
        Ok(Running {
            child,
            program: self.program.clone(),
            path: path.to_path_buf(),
            file,
            tmp,
            stdout,
            stderr,
        })
    }
    /// Compiles compute-shader source text (fed on stdin, so `#include`s
    /// resolve against `opts.include_dirs` only and no dependencies are
    /// reported).
    pub fn compile_source(&self, text: &str, opts: &GlslOptions) -> Result<Vec<u8>, GlslError> {
        let mut child = Command::new(&self.program)
            .args(opts.args()?)
            .args(["-fshader-stage=compute", "-o", "-", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| spawn_error(&self.program, "", &e))?;
        let mut stdin = child.stdin.take().ok_or_else(|| GlslError::Run {
            program: self.program.clone(),
            message: "no stdin".into(),
        })?;
        let text = text.to_string();
        // A thread writes while we read: a large source cannot deadlock on
        // full pipes.
        let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
        let out = child.wait_with_output().map_err(|e| GlslError::Run {
            program: self.program.clone(),
            message: e.to_string(),
        })?;
        // glslc may exit before reading everything (an early error): its
        // status is what counts.
        let _ = writer.join();
        if !out.status.success() {
            return Err(compile_error("<stdin>".into(), &out.stderr, &[]));
        }
        Ok(out.stdout)
    }
}

/// A glslc process started by [`Glslc::start`].
struct Running {
    child: std::process::Child,
    program: PathBuf,
    /// The source, as given.
    path: PathBuf,
    /// The source, as messages name it.
    file: String,
    /// Where glslc writes `out.spv` and `out.d`.
    tmp: tempfile::TempDir,
    stdout: std::fs::File,
    stderr: std::fs::File,
}

impl Running {
    /// Waits for glslc and reads what it wrote.
    fn finish(mut self) -> Result<GlslOutput, GlslError> {
        use std::io::{Read, Seek};
        let file = self.file;
        let io = |what: &str, e: std::io::Error| GlslError::Io {
            file: file.clone(),
            message: format!("{what}: {e}"),
        };
        let status = self.child.wait().map_err(|e| GlslError::Run {
            program: self.program.clone(),
            message: e.to_string(),
        })?;
        if !status.success() {
            let read = |f: &mut std::fs::File| {
                let mut v = Vec::new();
                f.rewind().and_then(|()| f.read_to_end(&mut v)).map(|_| v)
            };
            let stderr = read(&mut self.stderr).map_err(|e| io("glslc's messages", e))?;
            let stdout = read(&mut self.stdout).map_err(|e| io("glslc's messages", e))?;
            return Err(compile_error(file.clone(), &stderr, &stdout));
        }
        let spv = self.tmp.path().join("out.spv");
        let spirv = std::fs::read(&spv).map_err(|e| io("glslc wrote no SPIR-V", e))?;
        let deptext = std::fs::read_to_string(self.tmp.path().join("out.d"))
            .map_err(|e| io("glslc wrote no depfile", e))?;
        let mut dependencies = parse_depfile(&deptext, Some(&spv.display().to_string()));
        if !dependencies.contains(&self.path) {
            dependencies.insert(0, self.path);
        }
        Ok(GlslOutput {
            spirv,
            dependencies,
        })
    }
}

fn spawn_error(program: &Path, how: &'static str, e: &std::io::Error) -> GlslError {
    if e.kind() == std::io::ErrorKind::NotFound {
        GlslError::NotFound {
            program: program.to_path_buf(),
            how,
        }
    } else {
        GlslError::Run {
            program: program.to_path_buf(),
            message: e.to_string(),
        }
    }
}

fn compile_error(file: String, stderr: &[u8], stdout: &[u8]) -> GlslError {
    let mut text = String::from_utf8_lossy(stderr).trim_end().to_string();
    if text.is_empty() {
        text = String::from_utf8_lossy(stdout).trim_end().to_string();
    }
    if text.is_empty() {
        text = format!("{file}: glslc failed without a message");
    }
    GlslError::Compile { file, stderr: text }
}

/// The prerequisites of a Make-style depfile (`target: dep dep …`), each
/// once, in order. Handles line continuations (`\` at a line end), escaped
/// spaces (`\ `), `$$`, several rules, and glslc's *unescaped* spaces in
/// paths (`inc dir/x.glsl`): words that are no existing file are joined with
/// the next ones while that makes an existing file. `target`, when given, is
/// the expected target name, stripped even when it contains spaces or `:`.
pub fn parse_depfile(text: &str, target: Option<&str>) -> Vec<PathBuf> {
    // Join continuation lines.
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut out: Vec<PathBuf> = Vec::new();
    for line in joined.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let rest = match target.and_then(|t| line.strip_prefix(t)) {
            Some(r) if r.starts_with(':') => &r[1..],
            _ => match rule_colon(line) {
                Some(i) => &line[i + 1..],
                None => continue,
            },
        };
        for dep in split_words(rest) {
            if !out.contains(&dep) {
                out.push(dep);
            }
        }
    }
    out
}

/// Byte index of the colon ending a rule's targets: the first unescaped `:`
/// followed by whitespace or the line end (a Windows drive `C:\` is not one).
fn rule_colon(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b':' if b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()) => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Splits prerequisites at unescaped whitespace, then rejoins words that
/// only make an existing file together (glslc does not escape spaces).
fn split_words(s: &str) -> Vec<PathBuf> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ' | '\t' | '#' | '\\')) => {
                cur.push(chars.next().unwrap_or(' '));
            }
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                cur.push('$');
            }
            c if c.is_whitespace() => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut end = i;
        if !Path::new(&words[i]).exists() {
            // The shortest run of words joined by one space that exists.
            let mut joined = words[i].clone();
            for (j, w) in words.iter().enumerate().skip(i + 1) {
                joined.push(' ');
                joined.push_str(w);
                if Path::new(&joined).exists() {
                    end = j;
                    break;
                }
            }
        }
        out.push(PathBuf::from(words[i..=end].join(" ")));
        i = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    #[test]
    fn target_env_parses_and_maps_to_glslc_args() {
        assert_eq!(
            "vulkan1.2".parse::<TargetEnv>().unwrap().args(),
            ["--target-env=vulkan1.2"]
        );
        assert_eq!(
            "spv1.4".parse::<TargetEnv>().unwrap().args(),
            ["--target-env=vulkan1.2", "--target-spv=spv1.4"]
        );
        for bad in ["vulkan1.4", "spv2.0", "opengl", "spv1.x"] {
            let e = bad.parse::<TargetEnv>().unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }

    #[test]
    fn depfile_with_continuations_escapes_and_dollars() {
        let text = "out.spv: a.comp \\\n  inc\\ dir/x.glsl \\\r\n c$$d.glsl\n";
        assert_eq!(
            parse_depfile(text, None),
            [
                PathBuf::from("a.comp"),
                PathBuf::from("inc dir/x.glsl"),
                PathBuf::from("c$d.glsl")
            ]
        );
    }

    #[test]
    fn depfile_target_with_spaces_and_repeated_rules() {
        let text = "/tmp/my dir/out.spv: a.comp b.glsl\n/tmp/my dir/out.spv: b.glsl c.glsl\n";
        assert_eq!(
            parse_depfile(text, Some("/tmp/my dir/out.spv")),
            [
                PathBuf::from("a.comp"),
                PathBuf::from("b.glsl"),
                PathBuf::from("c.glsl")
            ]
        );
        // Without the target: the first `: ` ends it; a drive colon does not.
        assert_eq!(
            parse_depfile("C:\\out.spv: a.comp\n", None),
            [PathBuf::from("a.comp")]
        );
    }

    #[test]
    fn depfile_unescaped_spaces_rejoin_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let spaced = dir.path().join("inc dir");
        std::fs::create_dir(&spaced).unwrap();
        std::fs::write(spaced.join("x.glsl"), "").unwrap();
        let a = dir.path().join("a.comp");
        std::fs::write(&a, "").unwrap();
        let text = format!("out.spv: {} {}/x.glsl\n", a.display(), spaced.display());
        assert_eq!(parse_depfile(&text, None), [a, spaced.join("x.glsl")]);
    }

    #[test]
    fn sources_are_told_apart_by_contents_then_name() {
        let le = crate::spirv::binary::MAGIC.to_le_bytes();
        let be = crate::spirv::binary::MAGIC.to_be_bytes();
        let kind = |p: &str, b: &[u8]| source_kind(Path::new(p), b);
        assert_eq!(kind("k.comp", &le), Some(SourceKind::Spirv));
        assert_eq!(kind("k", &be), Some(SourceKind::Spirv));
        assert_eq!(kind("k.SPV", b"junk"), Some(SourceKind::Spirv));
        assert_eq!(kind("k.comp", b"junk"), Some(SourceKind::Glsl));
        assert_eq!(kind("k.glsl", b""), Some(SourceKind::Glsl));
        assert_eq!(kind("k.frag", b""), Some(SourceKind::Glsl));
        assert_eq!(
            kind("k.txt", b"// x\n #  version 450\nvoid main(){}"),
            Some(SourceKind::Glsl)
        );
        assert_eq!(kind("k.txt", b"hello"), None);
        assert_eq!(kind("k.bin", &[0xff, 0xfe, 0, 1]), None);
    }

    #[test]
    fn other_stages_are_refused_by_extension() {
        let g = Glslc {
            program: PathBuf::from("/nonexistent/glslc"),
            version: String::new(),
        };
        let e = g
            .compile(Path::new("shaders/k.frag"), &GlslOptions::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "shaders/k.frag: `.frag` is a fragment shader; halc compiles compute shaders (`.comp`, or `.glsl` compiled as compute)"
        );
    }

    #[test]
    fn missing_glslc_is_one_line_with_the_install_hint() {
        let e = Glslc::locate(Some(Path::new("/nonexistent/glslc")))
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(
            e.starts_with("GLSL needs glslc, which was not found (`/nonexistent/glslc`)"),
            "{e}"
        );
        assert!(e.contains("apt-get install glslc"), "{e}");
    }
}
