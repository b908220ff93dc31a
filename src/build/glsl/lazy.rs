//! glslc located on first use, and a set of sources compiled through it and
//! the cache.

use std::path::{Path, PathBuf};

use super::cache::GlslCache;
use super::glslc::Glslc;
use super::options::{GlslError, GlslOptions, GlslOutput};

/// glslc, located on first use: a build whose sources are all SPIR-V never
/// looks for it (`halc::build`, `halc build`).
#[derive(Debug, Clone, Default)]
pub struct LazyGlslc {
    explicit: Option<PathBuf>,
    located: Option<Glslc>,
}

impl LazyGlslc {
    /// `explicit` is passed to [`Glslc::locate`] on first use.
    pub fn new(explicit: Option<PathBuf>) -> Self {
        LazyGlslc {
            explicit,
            located: None,
        }
    }

    /// [`Glslc::compile`], locating glslc first if this is the first use.
    pub fn compile(&mut self, path: &Path, opts: &GlslOptions) -> Result<GlslOutput, GlslError> {
        self.located()?.compile(path, opts)
    }

    /// [`Glslc::compile_all`] of the sources that are given (`Some`; a
    /// caller's SPIR-V inputs are `None`), results aligned with `sources`,
    /// locating glslc first if there is a source and this is the first use
    /// (a failure to locate it is the first source's error). `jobs` 0 is
    /// one per core, and under a make or cargo jobserver no more glslc at
    /// once than it grants tokens for (held until the last glslc has
    /// exited), as a `compile` call's jobs.
    pub fn compile_all(
        &mut self,
        sources: &[Option<(&Path, &GlslOptions)>],
        jobs: usize,
    ) -> Vec<Option<Result<GlslOutput, GlslError>>> {
        let mut results: Vec<_> = sources.iter().map(|_| None).collect();
        let given: Vec<usize> = (0..sources.len())
            .filter(|&i| sources[i].is_some())
            .collect();
        let Some(&first) = given.first() else {
            return results;
        };
        let glslc = match self.located() {
            Ok(g) => g,
            Err(e) => {
                results[first] = Some(Err(e));
                return results;
            }
        };
        let budget = if jobs > 0 {
            crate::driver::jobs::Budget::requested(jobs)
        } else {
            crate::driver::jobs::Budget::take(given.len(), crate::driver::jobs::cores)
        };
        let compiled: Vec<_> = sources.iter().flatten().copied().collect();
        let outs = glslc.compile_all(&compiled, budget.cpus.min(given.len()));
        for (i, out) in given.into_iter().zip(outs) {
            results[i] = out;
        }
        results
    }

    /// [`LazyGlslc::compile_all`], taking what `cache` still holds for a
    /// source instead of running glslc on it, and keeping what glslc
    /// writes ([`GlslCache`]).
    pub fn compile_all_cached(
        &mut self,
        sources: &[Option<(&Path, &GlslOptions)>],
        jobs: usize,
        cache: &GlslCache,
    ) -> Vec<Option<Result<GlslOutput, GlslError>>> {
        if sources.iter().all(Option::is_none) {
            return sources.iter().map(|_| None).collect();
        }
        let glslc = match self.located() {
            Ok(g) => g.clone(),
            Err(_) => return self.compile_all(sources, jobs),
        };
        let mut results: Vec<Option<Result<GlslOutput, GlslError>>> = sources
            .iter()
            .map(|s| s.and_then(|(p, o)| cache.get(&glslc, p, o)).map(Ok))
            .collect();
        let missed: Vec<_> = sources
            .iter()
            .zip(&results)
            .map(|(s, r)| if r.is_some() { None } else { *s })
            .collect();
        let started = std::time::SystemTime::now();
        let compiled = self.compile_all(&missed, jobs);
        for ((r, out), s) in results.iter_mut().zip(compiled).zip(&missed) {
            if let (Some(Ok(out)), Some((p, o))) = (&out, s) {
                cache.put(&glslc, p, o, out, started);
            }
            if out.is_some() {
                *r = out;
            }
        }
        results
    }

    fn located(&mut self) -> Result<&Glslc, GlslError> {
        Ok(match self.located {
            Some(ref g) => g,
            None => self
                .located
                .insert(Glslc::locate(self.explicit.as_deref())?),
        })
    }
}
