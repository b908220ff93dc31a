//! Loading a compiled kernel: the shared object and its entry point,
//! checked against the executor's ABI.

use std::ffi::{c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::super::exec::{self, EntryFn};
use super::super::CpuError;
use super::compile::Compiler;

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
pub(in crate::cpu) struct Library {
    handle: *mut c_void,
    path: PathBuf,
}

// SAFETY: a dlopen handle may be used from any thread.
unsafe impl Send for Library {}
// SAFETY: as above; dlsym is thread-safe.
unsafe impl Sync for Library {}

impl Library {
    pub(in crate::cpu) fn open(path: &Path) -> Result<Library, CpuError> {
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
    pub(in crate::cpu) fn symbol(&self, symbol: &str) -> Result<*mut c_void, CpuError> {
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

/// A compiled kernel, loaded.
pub(in crate::cpu) struct Loaded {
    pub(in crate::cpu) entry: EntryFn,
    /// `sizeof` of each parameter's struct (0 where it has none).
    pub(in crate::cpu) param_bytes: Vec<u64>,
    pub(in crate::cpu) library: Arc<Library>,
    pub(in crate::cpu) compile_time: Option<Duration>,
}

/// Compiles (or takes from the cache) the prepared C++ of kernel `name` and
/// loads its entry point.
pub(in crate::cpu) fn load(
    compiler: &Compiler,
    name: &str,
    source: &str,
    params: usize,
) -> Result<Loaded, CpuError> {
    let start = Instant::now();
    let compiled = compiler.compile(name, source)?;
    let compile_time = start.elapsed();
    let library = Library::open(&compiled.path)?;
    let abi_fn = library.symbol("halc_abi")?;
    // SAFETY: `halc_abi` is defined by the generated wrapper with this
    // signature.
    let abi =
        unsafe { std::mem::transmute::<*mut std::ffi::c_void, extern "C" fn() -> u64>(abi_fn)() };
    if abi != exec::ABI {
        return Err(CpuError::Load {
            path: compiled.path.display().to_string(),
            message: format!(
                "built for executor ABI {abi}, this runtime has {}",
                exec::ABI
            ),
        });
    }
    let entry = library.symbol("halc_entry")?;
    // SAFETY: `halc_entry` is defined by the generated wrapper with the
    // `EntryFn` signature (checked by the ABI number above).
    let entry = unsafe { std::mem::transmute::<*mut std::ffi::c_void, EntryFn>(entry) };
    let sizes = library.symbol("halc_param_bytes")?;
    let mut param_bytes = vec![0u64; params];
    // SAFETY: the generated wrapper defines `halc_param_bytes` with this
    // signature and writes one entry per parameter: `params` of them.
    unsafe {
        std::mem::transmute::<*mut std::ffi::c_void, extern "C" fn(*mut u64)>(sizes)(
            param_bytes.as_mut_ptr(),
        )
    };
    Ok(Loaded {
        entry,
        param_bytes,
        library: Arc::new(library),
        compile_time: (!compiled.cached).then_some(compile_time),
    })
}
