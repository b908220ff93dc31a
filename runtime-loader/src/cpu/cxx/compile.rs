//! Compiling a kernel's C++ into a shared object against the shim's
//! precompiled header, everything cached by content.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use super::super::options::LocalFill;
use super::super::CpuError;
use super::clang::Clang;
use super::confine::{confine, limit_note, Limits};

/// The flags every kernel is compiled with: C++17, optimised, position
/// independent; `char` is signed (MSL's `char` is); signed overflow wraps and
/// there is no type-based alias analysis (kernels reinterpret buffers); IEEE
/// float without FMA contraction. The shim's precompiled header is built
/// with the same flags (`-x c++-header` for `-x c++`): clang refuses a PCH
/// whose language options differ.
pub(in crate::cpu) const FLAGS: &[&str] = &[
    "-x",
    "c++",
    "-std=c++17",
    "-O2",
    "-fPIC",
    "-fsigned-char",
    "-fwrapv",
    "-fno-strict-aliasing",
    "-ffp-contract=off",
    "-fno-math-errno",
    "-fno-exceptions",
    "-fno-rtti",
    "-fvisibility=hidden",
    "-w",
];

/// How a kernel's object becomes a shared object. Without libstdc++ (the
/// shim is header-only and kernels call nothing of it; reading it made
/// every link 30 ms slower), recording only the libraries a kernel calls
/// (libm, libgcc_s for half conversions), and refusing an undefined symbol
/// at link time, so a kernel that would need more fails to compile naming
/// the symbol instead of failing to load.
pub(in crate::cpu) const LINK_FLAGS: &[&str] =
    &["-shared", "-nostdlib++", "-Wl,--as-needed,-z,defs"];

/// Round every `half` (`_Float16`) operation to half, as Metal computes it,
/// instead of evaluating in float and rounding at the end (clang's default
/// on x86, which `halc diff` showed giving different sums than a Vulkan
/// driver). A cc1 option, from clang 16 on.
const HALF_PRECISION: [&str; 2] = ["-Xclang", "-ffloat16-excess-precision=none"];

/// x86-64: every 64-bit (32-bit) division is one `idiv`/`div` of that width.
/// By default LLVM divides operands that happen to fit in 32 (8) bits with
/// a narrower unsigned `div`, so a 64-bit division by zero would trap in a
/// 32-bit instruction and get a 32-bit all-ones quotient; the executor
/// completes a trapping division with a value of the instruction's width
/// (`exec/division.rs`).
#[cfg(target_arch = "x86_64")]
const DIVISION_WIDTH: &[&str] = &[
    "-Xclang",
    "-target-feature",
    "-Xclang",
    "-idivq-to-divl",
    "-Xclang",
    "-target-feature",
    "-Xclang",
    "-idivl-to-divb",
];
#[cfg(not(target_arch = "x86_64"))]
const DIVISION_WIDTH: &[&str] = &[];

/// The shim the kernels are compiled against: `(path, contents)` of every
/// header, `metal_stdlib` first (the others include it).
pub const SHIM_FILES: &[(&str, &str)] = &[
    ("metal_stdlib", include_str!("../shim/metal_stdlib")),
    ("simd/simd.h", include_str!("../shim/simd/simd.h")),
    ("metal_atomic", include_str!("../shim/metal_atomic")),
    ("metal_common", include_str!("../shim/metal_common")),
    ("metal_compute", include_str!("../shim/metal_compute")),
    ("metal_geometric", include_str!("../shim/metal_geometric")),
    ("metal_integer", include_str!("../shim/metal_integer")),
    ("metal_limits", include_str!("../shim/metal_limits")),
    ("metal_math", include_str!("../shim/metal_math")),
    ("metal_matrix", include_str!("../shim/metal_matrix")),
    ("metal_numeric", include_str!("../shim/metal_numeric")),
    ("metal_pack", include_str!("../shim/metal_pack")),
    ("metal_relational", include_str!("../shim/metal_relational")),
    ("metal_simdgroup", include_str!("../shim/metal_simdgroup")),
    (
        "metal_type_traits",
        include_str!("../shim/metal_type_traits"),
    ),
    ("metal_types", include_str!("../shim/metal_types")),
    ("metal_texture", include_str!("../shim/metal_texture")),
    ("metal_raytracing", include_str!("../shim/metal_raytracing")),
];

/// The cache directory: `$HALC_CPU_CACHE`, else `$XDG_CACHE_HOME/halc/cpu`,
/// else `~/.cache/halc/cpu`, else a directory under the temp dir.
pub(in crate::cpu) fn default_cache_dir() -> PathBuf {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = env("HALC_CPU_CACHE") {
        return PathBuf::from(d);
    }
    if let Some(d) = env("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("halc/cpu");
    }
    if let Some(d) = env("HOME") {
        return PathBuf::from(d).join(".cache/halc/cpu");
    }
    std::env::temp_dir().join("halc-cpu-cache")
}

fn io_err(what: String) -> impl FnOnce(std::io::Error) -> CpuError {
    move |e| CpuError::Os {
        what,
        message: e.to_string(),
    }
}

static UNIQUE: AtomicU64 = AtomicU64::new(0);

pub(super) fn unique_suffix() -> String {
    format!(
        "{}.{}",
        std::process::id(),
        UNIQUE.fetch_add(1, Ordering::Relaxed)
    )
}

/// Writes `bytes` to `path` through a temporary file and a rename, unless
/// the file exists.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CpuError> {
    if path.exists() {
        return Ok(());
    }
    let tmp = path.with_extension(format!("tmp.{}", unique_suffix()));
    std::fs::write(&tmp, bytes).map_err(io_err(format!("writing {}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(io_err(format!("renaming to {}", path.display())))
}

/// The compiler of a device: clang plus the cache.
///
/// A kernel costs two processes: `clang++ -c` against the shim's precompiled
/// header (cc1 runs inside the driver only when it is the driver's one job),
/// then the linker, run directly with the command clang++ gave for
/// [`LINK_FLAGS`] (asked once per cache, [`Compiler::link`]). Everything
/// derived is kept in the cache directory under a hash of what it depends on
/// and written atomically, so concurrent processes (`halc test -j N`) share
/// it; a lock per kernel only saves two processes compiling the same kernel
/// at once.
#[derive(Debug, Clone)]
pub(in crate::cpu) struct Compiler {
    pub(in crate::cpu) clang: Clang,
    pub(in crate::cpu) cache_dir: PathBuf,
    /// What compiling and linking a kernel may use (`confine.rs`): always
    /// [`Limits::DEFAULT`] but for the tests that show a limit bites or
    /// measure what the confinement costs (`None`).
    pub(in crate::cpu) limits: Option<Limits>,
    /// What function-scope variables hold before they are written.
    pub(in crate::cpu) local_fill: LocalFill,
    /// Floating-point exceptions exactly as the kernel's operations raise
    /// them (`-ffp-exception-behavior=strict`).
    pub(in crate::cpu) strict_float: bool,
    /// The race check's instrumentation (`-fsanitize=thread`, with
    /// [`RACE_RUNTIME`] appended to the kernel; see `src/cpu/race.rs`).
    pub(in crate::cpu) race_check: bool,
}

/// The race check's stand-ins for ThreadSanitizer's runtime, appended to a
/// kernel compiled with [`Compiler::race_check`].
pub(in crate::cpu) const RACE_RUNTIME: &str = include_str!("../race_runtime.cpp");

/// What one compile did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::cpu) struct Compiled {
    /// The shared object.
    pub(in crate::cpu) path: PathBuf,
    /// Whether it came from the cache.
    pub(in crate::cpu) cached: bool,
}

/// An exclusive `flock` on a file of the cache, held by one process at a
/// time; the file is removed when the lock is dropped. Only an
/// optimisation: results are written by rename, so two holders (one still
/// waiting on a removed file, one on its successor) waste work but never
/// see a partial file.
struct Lock {
    _file: std::fs::File,
    path: PathBuf,
}

impl Lock {
    fn acquire(path: &Path) -> Result<Lock, CpuError> {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(io_err(format!("opening {}", path.display())))?;
        loop {
            // SAFETY: the descriptor is open for the lifetime of `file`.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(io_err(format!("locking {}", path.display()))(e));
            }
        }
        Ok(Lock {
            _file: file,
            path: path.to_path_buf(),
        })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still locked: a process waiting on it finds the
        // result when it gets it; closing the file then unlocks it.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The shim in the cache.
#[derive(Debug)]
pub(in crate::cpu) struct Shim {
    /// The directory of its headers (the `-I`).
    pub(in crate::cpu) dir: PathBuf,
    /// `metal_stdlib` precompiled, or `None` if clang could not (kernels
    /// then compile the headers each time, and say why if they fail too).
    pub(in crate::cpu) pch: Option<PathBuf>,
    /// Whether this call built the precompiled header (the tests read it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(in crate::cpu) built: bool,
}

/// `flags` for a header: `-x c++-header` instead of `-x c++`.
fn header_flags<'a>(flags: &[&'a str]) -> Vec<&'a str> {
    let mut v = flags.to_vec();
    if let Some(i) = v.windows(2).position(|w| w == ["-x", "c++"]) {
        v[i + 1] = "c++-header";
    }
    v
}

/// Writes `files` (the shim) to the cache once, and precompiles its
/// `metal_stdlib` with `flags` once. The precompiled header is named by a
/// hash of everything it depends on: clang (path and `--version`), the
/// flags, every shim file's path and bytes, and the directory they are read
/// from; so a changed shim, clang or flag gets a header of its own, never a
/// stale one (clang also refuses a header built with other options).
pub(in crate::cpu) fn prepare_shim(
    clang: &Clang,
    cache_dir: &Path,
    flags: &[&str],
    files: &[(&str, &str)],
) -> Result<Shim, CpuError> {
    let shim = shim_hash(files);
    let dir = cache_dir.join(format!("shim-{}", &hex(&shim)[..16]));
    std::fs::create_dir_all(dir.join("simd"))
        .map_err(io_err(format!("creating {}", dir.display())))?;
    for (path, text) in files {
        write_atomic(&dir.join(path), text.as_bytes())?;
    }
    let mut h = Sha256::new();
    h.update(shim);
    let path_text = clang.path.to_string_lossy();
    let dir_text = dir.to_string_lossy();
    let flags_text = flags.join("\n");
    for part in [&*path_text, &clang.version_text, &flags_text, &*dir_text] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    let name = format!("metal_stdlib-{}", &hex(&h.finalize())[..16]);
    let pch = dir.join(format!("{name}.pch"));
    let mut built = false;
    if !pch.exists() {
        let _lock = Lock::acquire(&dir.join(format!("{name}.lock")))?;
        if !pch.exists() {
            let tmp = dir.join(format!("{name}.tmp.{}", unique_suffix()));
            let out = Command::new(&clang.path)
                .args(header_flags(flags))
                .arg("-I")
                .arg(&dir)
                .arg("-o")
                .arg(&tmp)
                .arg(dir.join("metal_stdlib"))
                .output()
                .map_err(io_err(format!("running {}", clang.path.display())))?;
            if !out.status.success() {
                let _ = std::fs::remove_file(&tmp);
                return Ok(Shim {
                    dir,
                    pch: None,
                    built: false,
                });
            }
            std::fs::rename(&tmp, &pch)
                .map_err(io_err(format!("renaming to {}", pch.display())))?;
            built = true;
        }
    }
    Ok(Shim {
        dir,
        pch: Some(pch),
        built,
    })
}

/// Runs `args[0]` with the rest, confined by `limits`; its stderr on
/// failure.
fn run(args: &[String], limits: Option<Limits>) -> Result<Result<(), String>, CpuError> {
    let out = confine(Command::new(&args[0]).args(&args[1..]), limits)
        .output()
        .map_err(io_err(format!("running {}", args[0])))?;
    Ok(if out.status.success() {
        Ok(())
    } else {
        Err(failure_text(&out, limits))
    })
}

/// What a failed compile or link said, with a note when a limit may have
/// ended it.
fn failure_text(out: &std::process::Output, limits: Option<Limits>) -> String {
    let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
    if let Some(note) = limit_note(out.status, limits) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&note);
    }
    text
}

/// The arguments of the one command in `clang -###` output (each printed in
/// double quotes, `\` escaping `"`, `\` and `$`), or `None` if there is not
/// exactly one.
pub(super) fn parse_jobs(text: &str) -> Option<Vec<String>> {
    let mut jobs = text.lines().filter(|l| l.starts_with(" \""));
    let line = jobs.next()?;
    if jobs.next().is_some() {
        return None;
    }
    let mut args = Vec::new();
    let mut chars = line.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {}
            '"' => {
                let mut arg = String::new();
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => arg.push(chars.next()?),
                        c => arg.push(c),
                    }
                }
                args.push(arg);
            }
            _ => return None,
        }
    }
    (!args.is_empty()).then_some(args)
}

/// Placeholders of a link template.
const OUT: &str = "{out}";
const IN: &str = "{in}";

impl Compiler {
    /// The flags for this clang.
    pub(super) fn flags(&self) -> Vec<&'static str> {
        let mut v = FLAGS.to_vec();
        v.extend(DIVISION_WIDTH);
        if self.clang.major >= 16 {
            v.extend(HALF_PRECISION);
        }
        match self.local_fill {
            LocalFill::Unset => {}
            LocalFill::Zero => {
                v.push("-ftrivial-auto-var-init=zero");
                if self.clang.major < 16 {
                    // clang 15 takes zero initialisation only with this.
                    v.push(
                        "-enable-trivial-auto-var-init-zero-knowing-it-will-be-removed-from-clang",
                    );
                }
            }
            LocalFill::Pattern => v.push("-ftrivial-auto-var-init=pattern"),
        }
        if self.strict_float {
            v.push("-ffp-exception-behavior=strict");
        }
        if self.race_check {
            v.push("-fsanitize=thread");
        }
        v
    }

    /// The C++ compiled for `source`: the race check's runtime appended
    /// when it is on.
    fn full_source<'a>(&self, source: &'a str) -> std::borrow::Cow<'a, str> {
        if self.race_check {
            format!("{source}{RACE_RUNTIME}").into()
        } else {
            source.into()
        }
    }

    /// The cache key of `source`.
    pub(in crate::cpu) fn key(&self, source: &str) -> String {
        let source = &*self.full_source(source);
        let mut h = Sha256::new();
        h.update(shim_hash(SHIM_FILES));
        let flags = format!("{} {}", self.flags().join(" "), LINK_FLAGS.join(" "));
        for part in [&self.clang.version_text, &flags, source] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        hex(&h.finalize())
    }

    /// Where the link command is kept: named by a hash of clang, the link
    /// flags and the environment variables that move clang's search for the
    /// linker and libraries.
    pub(super) fn link_template_path(&self) -> PathBuf {
        let mut h = Sha256::new();
        let path_text = self.clang.path.to_string_lossy();
        let env: String = ["COMPILER_PATH", "LIBRARY_PATH", "GCC_EXEC_PREFIX"]
            .iter()
            .map(|k| format!("{k}={:?}\n", std::env::var_os(k)))
            .collect();
        for part in [
            &*path_text,
            &self.clang.version_text,
            &LINK_FLAGS.join("\n"),
            &env,
        ] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        self.cache_dir
            .join(format!("link-{}.args", &hex(&h.finalize())[..16]))
    }

    /// Links `obj` into the shared object `out` with [`LINK_FLAGS`]: the
    /// linker command clang++ would run (asked with `-###` once and kept as
    /// a template, one argument a line), run directly, which saves starting
    /// clang (25 ms a kernel). A template that fails (a compiler upgrade
    /// moved a library) is asked for again; if clang's output cannot be
    /// read as one command, clang++ links.
    pub(in crate::cpu) fn link(
        &self,
        kernel: &str,
        obj: &Path,
        out: &Path,
    ) -> Result<(), CpuError> {
        let (obj_text, out_text) = (obj.to_string_lossy(), out.to_string_lossy());
        let fill = |template: &[String]| -> Vec<String> {
            template
                .iter()
                .map(|a| match a.as_str() {
                    OUT => out_text.to_string(),
                    IN => obj_text.to_string(),
                    _ => a.clone(),
                })
                .collect()
        };
        let failed = |stderr: String| CpuError::Compile {
            kernel: kernel.into(),
            stderr,
        };
        let path = self.link_template_path();
        if let Ok(text) = std::fs::read_to_string(&path) {
            let template: Vec<String> = text.lines().map(String::from).collect();
            if !template.is_empty() && matches!(run(&fill(&template), self.limits), Ok(Ok(()))) {
                return Ok(());
            }
            let _ = std::fs::remove_file(&path);
        }
        let driver = |extra: &[&str]| {
            let mut c = Command::new(&self.clang.path);
            c.args(LINK_FLAGS).args(extra).arg("-o").arg(out).arg(obj);
            confine(&mut c, self.limits)
                .output()
                .map_err(io_err(format!("running {}", self.clang.path.display())))
        };
        let probe = driver(&["-###"])?;
        let template = parse_jobs(&String::from_utf8_lossy(&probe.stderr))
            .filter(|_| probe.status.success())
            .map(|args| {
                args.into_iter()
                    .map(|a| {
                        if a == out_text {
                            OUT.to_string()
                        } else if a == obj_text {
                            IN.to_string()
                        } else {
                            a
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .filter(|t| {
                t.iter().filter(|a| *a == OUT).count() == 1
                    && t.iter().filter(|a| *a == IN).count() == 1
                    && t.iter().all(|a| !a.contains('\n') && !a.is_empty())
            });
        match template {
            Some(t) => {
                write_atomic(&path, t.join("\n").as_bytes())?;
                run(&fill(&t), self.limits)?.map_err(failed)
            }
            None => {
                let o = driver(&[])?;
                if o.status.success() {
                    Ok(())
                } else {
                    Err(failed(failure_text(&o, self.limits)))
                }
            }
        }
    }

    /// Compiles `source` (C++ including `<metal_stdlib>`) for `kernel`, or
    /// finds it in the cache.
    pub(in crate::cpu) fn compile(&self, kernel: &str, source: &str) -> Result<Compiled, CpuError> {
        let key = self.key(source);
        let source = &*self.full_source(source);
        let so = self.cache_dir.join(format!("{key}.so"));
        let hit = || Compiled {
            path: so.clone(),
            cached: true,
        };
        if so.exists() {
            return Ok(hit());
        }
        let flags = self.flags();
        let shim = prepare_shim(&self.clang, &self.cache_dir, &flags, SHIM_FILES)?;
        let _lock = Lock::acquire(&self.cache_dir.join(format!("{key}.lock")))?;
        if so.exists() {
            return Ok(hit());
        }
        let work = self.cache_dir.join(format!("tmp-{}", unique_suffix()));
        std::fs::create_dir_all(&work).map_err(io_err(format!("creating {}", work.display())))?;
        let result = (|| {
            let src = work.join("kernel.cpp");
            std::fs::write(&src, source).map_err(io_err(format!("writing {}", src.display())))?;
            let obj = work.join("kernel.o");
            let cc = |pch: Option<&Path>| {
                let mut c = Command::new(&self.clang.path);
                c.args(&flags).arg("-c");
                if let Some(p) = pch {
                    c.arg("-include-pch")
                        .arg(p)
                        .arg("-fpch-validate-input-files-content");
                }
                c.arg("-I").arg(&shim.dir).arg("-o").arg(&obj).arg(&src);
                confine(&mut c, self.limits)
                    .output()
                    .map_err(io_err(format!("running {}", self.clang.path.display())))
            };
            let mut out = cc(shim.pch.as_deref())?;
            if let Some(pch) = shim.pch.as_deref().filter(|_| !out.status.success()) {
                // A header clang will not read (removed, corrupted by hand):
                // the kernel's own errors do not name it.
                let name = pch.file_name().unwrap_or_default().to_string_lossy();
                if String::from_utf8_lossy(&out.stderr).contains(&*name) {
                    out = cc(None)?;
                }
            }
            if !out.status.success() {
                return Err(CpuError::Compile {
                    kernel: kernel.into(),
                    stderr: failure_text(&out, self.limits),
                });
            }
            let out_tmp = work.join("kernel.so");
            self.link(kernel, &obj, &out_tmp)?;
            std::fs::rename(&out_tmp, &so)
                .map_err(io_err(format!("renaming to {}", so.display())))?;
            Ok(Compiled {
                path: so.clone(),
                cached: false,
            })
        })();
        let _ = std::fs::remove_dir_all(&work);
        result
    }
}

fn shim_hash(files: &[(&str, &str)]) -> [u8; 32] {
    let mut h = Sha256::new();
    for (path, text) in files {
        for part in [path, text] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
    }
    h.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
