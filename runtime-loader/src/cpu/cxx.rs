//! clang++: finding it, compiling a kernel's C++ into a shared object (cached
//! by content), and loading it.

use std::ffi::{c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use super::{CpuError, SHIM_FILES};

/// The flags every kernel is compiled with: C++17, optimised, position
/// independent; `char` is signed (MSL's `char` is); signed overflow wraps and
/// there is no type-based alias analysis (kernels reinterpret buffers); IEEE
/// float without FMA contraction.
pub(super) const FLAGS: &[&str] = &[
    "-x",
    "c++",
    "-std=c++17",
    "-O2",
    "-fPIC",
    "-shared",
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
/// (exec.rs).
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

/// Oldest clang major version that compiles the shim.
pub const MIN_CLANG_MAJOR: u32 = 15;

/// A clang++ found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clang {
    /// The command (a path or a name looked up in `PATH`).
    pub path: PathBuf,
    /// Major version.
    pub major: u32,
    /// `clang++ --version`, part of every cache key.
    pub version_text: String,
}

fn probe(cmd: &Path) -> Result<Clang, String> {
    let out = Command::new(cmd)
        .arg("--version")
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "not found".to_string(),
            _ => e.to_string(),
        })?;
    if !out.status.success() {
        return Err(format!("`--version` exited with {}", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let major = text
        .find("clang version ")
        .and_then(|i| {
            text[i + "clang version ".len()..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|m| m.parse::<u32>().ok())
        })
        .ok_or_else(|| "not clang (no `clang version` in --version)".to_string())?;
    if major < MIN_CLANG_MAJOR {
        return Err(format!(
            "clang {major} is too old (the shim needs {MIN_CLANG_MAJOR} or newer)"
        ));
    }
    Ok(Clang {
        path: cmd.to_path_buf(),
        major,
        version_text: text,
    })
}

/// Finds clang++: `HALC_CLANG` if set (and then only it), else the first of
/// `clang++-22` … `clang++-15` that runs, else `clang++` if it is version 15
/// or newer.
pub fn find_clang() -> Result<Clang, CpuError> {
    if let Some(p) = std::env::var_os("HALC_CLANG").filter(|p| !p.is_empty()) {
        return probe(Path::new(&p)).map_err(|message| CpuError::BadClang {
            path: p.to_string_lossy().into_owned(),
            message,
        });
    }
    let mut tried = Vec::new();
    let mut missing = Vec::new();
    let names = (MIN_CLANG_MAJOR..=22)
        .rev()
        .map(|v| format!("clang++-{v}"))
        .chain(["clang++".to_string()]);
    for name in names {
        match probe(Path::new(&name)) {
            Ok(c) => return Ok(c),
            Err(e) if e == "not found" => missing.push(name),
            Err(e) => tried.push(format!("{name}: {e}")),
        }
    }
    if !missing.is_empty() {
        tried.insert(0, format!("{}: not found", missing.join(", ")));
    }
    Err(CpuError::ClangNotFound {
        tried: tried.join("; "),
    })
}

/// The cache directory: `$HALC_CPU_CACHE`, else `$XDG_CACHE_HOME/halc/cpu`,
/// else `~/.cache/halc/cpu`, else a directory under the temp dir.
pub(super) fn default_cache_dir() -> PathBuf {
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

fn unique_suffix() -> String {
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
#[derive(Debug, Clone)]
pub(super) struct Compiler {
    pub(super) clang: Clang,
    pub(super) cache_dir: PathBuf,
}

/// What one compile did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Compiled {
    /// The shared object.
    pub(super) path: PathBuf,
    /// Whether it came from the cache.
    pub(super) cached: bool,
}

impl Compiler {
    /// The flags for this clang.
    fn flags(&self) -> Vec<&'static str> {
        let mut v = FLAGS.to_vec();
        v.extend(DIVISION_WIDTH);
        if self.clang.major >= 16 {
            v.extend(HALF_PRECISION);
        }
        v
    }

    fn shim_dir(&self) -> Result<PathBuf, CpuError> {
        let hex = hex(&shim_hash());
        let dir = self.cache_dir.join(format!("shim-{}", &hex[..16]));
        std::fs::create_dir_all(dir.join("simd"))
            .map_err(io_err(format!("creating {}", dir.display())))?;
        for (path, text) in SHIM_FILES {
            write_atomic(&dir.join(path), text.as_bytes())?;
        }
        Ok(dir)
    }

    /// The cache key of `source`.
    pub(super) fn key(&self, source: &str) -> String {
        let mut h = Sha256::new();
        h.update(shim_hash());
        for part in [&self.clang.version_text, &self.flags().join(" "), source] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        hex(&h.finalize())
    }

    /// Compiles `source` (C++ including `<metal_stdlib>`) for `kernel`, or
    /// finds it in the cache.
    pub(super) fn compile(&self, kernel: &str, source: &str) -> Result<Compiled, CpuError> {
        let key = self.key(source);
        let so = self.cache_dir.join(format!("{key}.so"));
        if so.exists() {
            return Ok(Compiled {
                path: so,
                cached: true,
            });
        }
        let shim = self.shim_dir()?;
        let work = self.cache_dir.join(format!("tmp-{}", unique_suffix()));
        std::fs::create_dir_all(&work).map_err(io_err(format!("creating {}", work.display())))?;
        let result = (|| {
            let src = work.join("kernel.cpp");
            std::fs::write(&src, source).map_err(io_err(format!("writing {}", src.display())))?;
            let out_tmp = work.join("kernel.so");
            let out = Command::new(&self.clang.path)
                .args(self.flags())
                .arg("-I")
                .arg(&shim)
                .arg("-o")
                .arg(&out_tmp)
                .arg(&src)
                .output()
                .map_err(io_err(format!("running {}", self.clang.path.display())))?;
            if !out.status.success() {
                return Err(CpuError::Compile {
                    kernel: kernel.into(),
                    stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                });
            }
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

fn shim_hash() -> [u8; 32] {
    let mut h = Sha256::new();
    for (path, text) in SHIM_FILES {
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

fn dlerror() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the
    // next dl* call on this thread; it is copied at once.
    unsafe {
        let e = libc::dlerror();
        if e.is_null() {
            "unknown error".into()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

/// A loaded shared object (closed when dropped).
#[derive(Debug)]
pub(super) struct Library {
    handle: *mut c_void,
    path: PathBuf,
}

// SAFETY: a dlopen handle may be used from any thread.
unsafe impl Send for Library {}
// SAFETY: as above; dlsym is thread-safe.
unsafe impl Sync for Library {}

impl Library {
    pub(super) fn open(path: &Path) -> Result<Library, CpuError> {
        let fail = |message: String| CpuError::Load {
            path: path.display().to_string(),
            message,
        };
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| fail("the path contains a NUL byte".into()))?;
        // SAFETY: `c` is a valid NUL-terminated path; the library is one we
        // compiled, whose static initialisers only set plain globals.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(fail(dlerror()));
        }
        Ok(Library {
            handle,
            path: path.to_path_buf(),
        })
    }

    /// The address of `symbol`.
    pub(super) fn symbol(&self, symbol: &str) -> Result<*mut c_void, CpuError> {
        let c = CString::new(symbol).expect("symbol names have no NUL");
        // SAFETY: `handle` is a live dlopen handle and `c` a valid C string.
        let p = unsafe { libc::dlsym(self.handle, c.as_ptr()) };
        if p.is_null() {
            return Err(CpuError::Load {
                path: self.path.display().to_string(),
                message: format!("no symbol `{symbol}`"),
            });
        }
        Ok(p)
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen and is closed once; nothing
        // obtained from it outlives the `Pipeline` that owns this value.
        unsafe { libc::dlclose(self.handle) };
    }
}
