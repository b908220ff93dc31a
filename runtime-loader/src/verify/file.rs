//! Structural checks of the whole file, beyond the flatbuffers verifier:
//! every kernel's record ranges inside their vectors and contiguous, every
//! library's blobs inside `library_data` (so reading a record or a blob
//! never fails).

use super::violation::Violation;
use crate::schema;
use crate::strings::Strings;

/// The record vectors a kernel's `Range`s index, with where the next
/// kernel's range in each must start.
pub(super) struct Runs {
    runs: [Run; 7],
}

/// One record vector: its field, its length, the kernel's range of it, and
/// where the next kernel's range must start.
struct Run {
    field: &'static str,
    len: usize,
    range: fn(&schema::Kernel) -> &schema::Range,
    next: usize,
}

impl Runs {
    pub(super) fn new(root: schema::Executable<'_>) -> Self {
        fn len<T>(v: Option<flatbuffers::Vector<'_, T>>) -> usize {
            v.map_or(0, |v| v.len())
        }
        let run = |field, len, range| Run {
            field,
            len,
            range,
            next: 0,
        };
        Runs {
            runs: [
                run("bindings", len(root.bindings()), |k| k.bindings()),
                run("argument_buffers", len(root.argument_buffers()), |k| {
                    k.argument_buffers()
                }),
                run(
                    "push_constant_members",
                    len(root.push_constant_members()),
                    |k| k.push_constant_members(),
                ),
                run("function_constants", len(root.function_constants()), |k| {
                    k.function_constants()
                }),
                run(
                    "function_constant_aliases",
                    len(root.function_constant_aliases()),
                    |k| k.function_constant_aliases(),
                ),
                run("baked_constants", len(root.baked_constants()), |k| {
                    k.baked_constants()
                }),
                run("capabilities", len(root.capabilities()), |k| {
                    k.capabilities()
                }),
            ],
        }
    }

    /// Checks `k`'s ranges: each starts where the previous kernel's ended
    /// and stays inside its vector. So every record belongs to one kernel,
    /// and checking each kernel's reads each once.
    pub(super) fn take(&mut self, k: &schema::Kernel) -> Result<(), (&'static str, String)> {
        for run in &mut self.runs {
            let r = (run.range)(k);
            let (first, count) = (r.first() as usize, r.count() as usize);
            let end = first as u64 + count as u64;
            if first != run.next {
                return Err((
                    run.field,
                    format!(
                        "entries {first}..{end} do not start where the previous kernel's end ({})",
                        run.next
                    ),
                ));
            }
            if end > run.len as u64 {
                return Err((
                    run.field,
                    format!(
                        "entries {first}..{end} are outside Executable.{} ({} entries)",
                        run.field, run.len
                    ),
                ));
            }
            run.next = first + count;
        }
        Ok(())
    }

    /// After the last kernel: every record belongs to a kernel.
    pub(super) fn all_taken(&self) -> Result<(), (&'static str, String)> {
        match self.runs.iter().find(|r| r.next != r.len) {
            Some(r) => Err((
                r.field,
                format!("entries {}..{} belong to no kernel", r.next, r.len),
            )),
            None => Ok(()),
        }
    }
}

pub(super) fn library(
    i: usize,
    lib: &schema::Library,
    data: usize,
    strings: Strings<'_>,
) -> Result<(), Violation> {
    let fail = |field: &str, message: String| {
        Err(Violation {
            kernel: None,
            field: format!("libraries[{i}].{field}"),
            message,
        })
    };
    for (field, b) in [
        ("msl_source", lib.msl_source()),
        ("metallib", lib.metallib()),
    ] {
        let end = u64::from(b.offset()) + u64::from(b.length());
        if end > data as u64 {
            return fail(
                field,
                format!(
                    "bytes {}..{end} are outside Executable.library_data ({data} bytes)",
                    b.offset()
                ),
            );
        }
    }
    if lib.msl_source().length() == 0 && lib.metallib().length() == 0 {
        return fail(
            "msl_source",
            "the library has neither MSL source nor a metallib".into(),
        );
    }
    let t = lib.target();
    let v = t.msl_version();
    if !(1..=4).contains(&v.major()) {
        return fail(
            "msl_version",
            format!("MSL {}.{} does not exist", v.major(), v.minor()),
        );
    }
    if t.math_mode().variant_name().is_none() {
        return fail("math_mode", format!("unknown value {}", t.math_mode().0));
    }
    if t.platform().variant_name().is_none() {
        return fail("platform", format!("unknown value {}", t.platform().0));
    }
    if t.argument_buffer_tier().variant_name().is_none() {
        return fail(
            "argument_buffer_tier",
            format!("unknown value {}", t.argument_buffer_tier().0),
        );
    }
    if let Some(m) = strings.fault(lib.metallib_toolchain()) {
        return fail("metallib_toolchain", m);
    }
    Ok(())
}
