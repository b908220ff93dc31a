//! Semantic checks of one kernel's own fields: names, library index,
//! function constants, threadgroup size and memory, binding model.

use super::limits::VerifyLimits;
use super::types::{bits_fit, is_integer, scalar_bits};
use super::violation::{text, Violation};
use crate::kernel::{indices, run, Kernel};
use crate::schema::{self, MetalLimits, ScalarType};

/// The checks of one kernel.
pub(super) struct KernelCheck<'a, 'l> {
    /// The kernel's typed view: its raw struct, the executable and the
    /// strings, and accessors for what this check has verified.
    pub(super) view: Kernel<'a>,
    pub(super) name: &'a str,
    pub(super) libraries: usize,
    pub(super) limits: &'l VerifyLimits,
}

impl<'a> KernelCheck<'a, '_> {
    pub(super) fn fail<T>(
        &self,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<T, Violation> {
        Err(Violation {
            kernel: Some(self.name.to_owned()),
            field: field.into(),
            message: message.into(),
        })
    }

    /// The string `s` of `field`, or its violation.
    pub(super) fn text(
        &self,
        field: impl FnOnce() -> String,
        s: &schema::Str,
    ) -> Result<&'a str, Violation> {
        text(self.view.strings(), Some(self.name), field, s)
    }

    /// The kernel's own fields: names, library, function constants,
    /// threadgroup size and memory, binding model (its resources are
    /// [`KernelCheck::resources`]).
    pub(super) fn run(&self) -> Result<(), Violation> {
        let k = self.view.raw();
        let names = k.names();
        if self
            .text(|| "names.msl_name".into(), names.msl_name())?
            .is_empty()
        {
            return self.fail("names.msl_name", "is empty");
        }
        self.text(|| "names.entry_point".into(), names.entry_point())?;
        self.text(|| "names.source_file".into(), names.source_file())?;
        for (i, s) in run(self.view.exe().capabilities(), k.capabilities()).enumerate() {
            self.text(|| format!("capabilities[{i}]"), s)?;
        }
        if k.library() as usize >= self.libraries {
            return self.fail(
                "library",
                format!(
                    "index {} is out of range (the executable has {} libraries)",
                    k.library(),
                    self.libraries
                ),
            );
        }
        self.function_constants()?;
        self.threadgroup()?;
        let mem = k.threadgroup_memory_bytes();
        let mem_limit = MetalLimits::MaxThreadgroupMemoryBytes.0;
        if mem > mem_limit {
            return self.fail(
                "threadgroup_memory_bytes",
                format!("{mem} bytes is over Metal's {mem_limit}-byte limit"),
            );
        }
        if k.binding_model().variant_name().is_none() {
            return self.fail(
                "binding_model",
                format!("unknown value {}", k.binding_model().0),
            );
        }
        Ok(())
    }

    fn function_constants(&self) -> Result<(), Violation> {
        let all = self.view.exe().function_constants().unwrap_or_default();
        let range = indices(self.view.raw().function_constants());
        let (first, n) = (range.start, range.len());
        let consts = |i: usize| all.get(first + i);
        let mut previous: Option<u32> = None;
        for (i, c) in range.map(|i| all.get(i)).enumerate() {
            let field = |f: &str| format!("function_constants[{i}].{f}");
            if let Some(prev) = previous.filter(|p| *p >= c.id()) {
                return self.fail(
                    field("id"),
                    if prev == c.id() {
                        format!("function constant {prev} appears twice")
                    } else {
                        format!(
                            "function constants must be sorted by id, but {} follows {prev}",
                            c.id()
                        )
                    },
                );
            }
            previous = Some(c.id());
            self.text(|| field("name"), c.name())?;
            if scalar_bits(c.type_()).is_none() {
                return self.fail(
                    field("type"),
                    format!("unknown scalar type {}", c.type_().0),
                );
            }
            if !bits_fit(c.type_(), c.default_bits()) {
                return self.fail(
                    field("default_bits"),
                    format!(
                        "{:#x} does not fit a {}",
                        c.default_bits(),
                        c.type_().variant_name().unwrap_or("?")
                    ),
                );
            }
        }
        // Aliases, sorted by id: a walk beside the constants.
        let mut next = 0;
        let aliases = run(
            self.view.exe().function_constant_aliases(),
            self.view.raw().function_constant_aliases(),
        );
        for (j, a) in aliases.enumerate() {
            let field = |f: &str| format!("function_constant_aliases[{j}].{f}");
            while next < n && consts(next).id() < a.id() {
                next += 1;
            }
            if next == n || consts(next).id() != a.id() {
                return self.fail(
                    field("id"),
                    if (0..n).any(|i| consts(i).id() == a.id()) {
                        format!("{} is out of order: aliases must be sorted by id", a.id())
                    } else {
                        format!("function constant {} is not declared", a.id())
                    },
                );
            }
            let c = consts(next);
            self.text(|| field("name"), a.name())?;
            let (Some(bits), Some(main)) = (scalar_bits(a.type_()), scalar_bits(c.type_())) else {
                return self.fail(
                    field("type"),
                    format!("unknown scalar type {}", a.type_().0),
                );
            };
            let is_bool = |t: ScalarType| t == ScalarType::Bool;
            if bits != main || is_bool(a.type_()) != is_bool(c.type_()) {
                return self.fail(
                    field("type"),
                    format!(
                        "{} cannot alias function constant {} of type {}",
                        a.type_().variant_name().unwrap_or("?"),
                        c.id(),
                        c.type_().variant_name().unwrap_or("?")
                    ),
                );
            }
            if !bits_fit(a.type_(), a.default_bits()) {
                return self.fail(
                    field("default_bits"),
                    format!(
                        "{:#x} does not fit a {}",
                        a.default_bits(),
                        a.type_().variant_name().unwrap_or("?")
                    ),
                );
            }
        }
        Ok(())
    }

    fn threadgroup(&self) -> Result<(), Violation> {
        let k = self.view.raw();
        let dims = k.threadgroup_size();
        let mut product = 1u64;
        for (i, d) in dims.iter().enumerate() {
            if d.size() == 0 {
                return self.fail(format!("threadgroup_size[{i}].size"), "is 0");
            }
            product = product.saturating_mul(u64::from(d.size()));
            if d.has_spec_id() {
                let field = || format!("threadgroup_size[{i}].spec_id");
                let Some(c) = self.view.function_constant(d.spec_id()) else {
                    return self.fail(
                        field(),
                        format!("function constant {} is not declared", d.spec_id()),
                    );
                };
                if !is_integer(c.type_()) {
                    return self.fail(
                        field(),
                        format!(
                            "function constant {} is a {}, not an integer",
                            d.spec_id(),
                            c.type_().variant_name().unwrap_or("?")
                        ),
                    );
                }
                // The dimension is one of the constant's declarations: its
                // own default is the size when the constant is not set.
                let defaults =
                    std::iter::once(c.default_bits()).chain(c.aliases().map(|a| a.default_bits()));
                if !defaults.into_iter().any(|b| b == u64::from(d.size())) {
                    return self.fail(
                        format!("threadgroup_size[{i}].size"),
                        format!(
                            "{} is the default of no declaration of function constant {}",
                            d.size(),
                            d.spec_id()
                        ),
                    );
                }
            }
        }
        let limit = MetalLimits::MaxThreadsPerThreadgroup.0;
        if product > u64::from(limit) {
            return self.fail(
                "threadgroup_size",
                format!("{product} threads is over Metal's limit of {limit}"),
            );
        }
        let max = k.max_threads_per_threadgroup();
        if u64::from(max) < product || max > limit {
            return self.fail(
                "max_threads_per_threadgroup",
                format!(
                    "{max} is outside {product}..={limit} (the threadgroup has {product} threads)"
                ),
            );
        }
        Ok(())
    }
}
