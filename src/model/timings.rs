//! Where a compile spends its time (`halc compile --timings`).
//!
//! The library measures its own stages and returns them in
//! [`crate::Compiled::timings`]; the CLI adds what only it does (reading the
//! inputs, packing and writing the executable) and prints the table. Times
//! are wall-clock durations of each stage as the thread that ran it saw
//! them, so with several jobs they add up to more than the elapsed time.

use std::time::Duration;

/// One stage of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Reading the input file (CLI).
    Read,
    /// Header, byte order and `--spec` baking.
    Parse,
    /// halc's own checks before any C++ sees the module: limits, nesting,
    /// capabilities.
    Check,
    /// SPIRV-Tools' validator.
    Validate,
    /// Reflection: entry points, workgroup sizes, resources.
    Reflect,
    /// The binding layout.
    Layout,
    /// SPIRV-Cross generating the MSL.
    Generate,
    /// The check of the MSL against the layout, and function constants.
    CheckMsl,
    /// Starting worker processes and moving requests and replies through
    /// their pipes (zero in-process).
    Worker,
    /// Serialising the FlatBuffer executable (CLI).
    Pack,
    /// Writing the executable (CLI).
    Write,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 11] = [
        Stage::Read,
        Stage::Parse,
        Stage::Check,
        Stage::Validate,
        Stage::Reflect,
        Stage::Layout,
        Stage::Generate,
        Stage::CheckMsl,
        Stage::Worker,
        Stage::Pack,
        Stage::Write,
    ];

    /// Short name, as `--timings` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Read => "read",
            Stage::Parse => "parse",
            Stage::Check => "check",
            Stage::Validate => "validate",
            Stage::Reflect => "reflect",
            Stage::Layout => "layout",
            Stage::Generate => "spirv-cross",
            Stage::CheckMsl => "check-msl",
            Stage::Worker => "worker",
            Stage::Pack => "pack",
            Stage::Write => "write",
        }
    }

    /// Whether the stage is halc's own Rust code (not SPIRV-Tools,
    /// SPIRV-Cross or the worker processes around them).
    pub fn is_halc(self) -> bool {
        !matches!(self, Stage::Validate | Stage::Generate | Stage::Worker)
    }
}

/// Time per stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageTimes([Duration; Stage::ALL.len()]);

impl StageTimes {
    /// Adds `d` to `stage`.
    pub fn add(&mut self, stage: Stage, d: Duration) {
        self.0[stage as usize] += d;
    }

    /// Time spent in `stage`.
    pub fn get(&self, stage: Stage) -> Duration {
        self.0[stage as usize]
    }

    /// Adds every stage of `other`.
    pub fn merge(&mut self, other: &StageTimes) {
        for s in Stage::ALL {
            self.add(s, other.get(s));
        }
    }

    /// Sum over the stages `pick` selects.
    pub fn sum(&self, pick: impl Fn(Stage) -> bool) -> Duration {
        Stage::ALL
            .iter()
            .filter(|s| pick(**s))
            .map(|s| self.get(*s))
            .sum()
    }

    /// Runs `f`, adding its duration to `stage`.
    pub fn time<T>(&mut self, stage: Stage, f: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let out = f();
        self.add(stage, start.elapsed());
        out
    }
}

/// Timings of one input module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleTimings {
    /// The input's name.
    pub input: String,
    /// Stages that concern the whole module (parse, check, validate,
    /// reflect, and the worker traffic they cause).
    pub module: StageTimes,
    /// Per kernel of the module, by kernel name, in entry-point order.
    pub kernels: Vec<(String, StageTimes)>,
}

/// Timings of a compile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timings {
    /// Per input, in input order.
    pub modules: Vec<ModuleTimings>,
    /// Parallel jobs used.
    pub jobs: usize,
    /// Under a make or cargo jobserver, the tokens the call held besides
    /// its own implicit one (one per job, or per worker process, beyond the
    /// first); `None` without a jobserver, or when `jobs` was given.
    pub jobserver_tokens: Option<usize>,
    /// Elapsed time of the whole `compile` call.
    pub elapsed: Duration,
    /// Starting the worker processes before the jobs ran
    /// ([`crate::Isolation::Forked`]); counted as [`Stage::Worker`].
    pub workers_start: Duration,
    /// The allocator the forked workers gave SPIRV-Cross and SPIRV-Tools
    /// ([`crate::msl::worker::CxxAllocator::for_batch`]); `None` without
    /// forked workers.
    pub workers_cxx_allocator: Option<super::CxxAllocator>,
    /// Where the validator ran.
    pub validator: ValidatorPlace,
}

/// Where a `compile` call ran SPIRV-Tools' validator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValidatorPlace {
    /// In this process ([`crate::Isolation::InProcess`]).
    #[default]
    InProcess,
    /// In the worker that then runs SPIRV-Cross on the module, while this
    /// process reflects it.
    BeforeCross,
    /// In a forked worker of its own, while another runs SPIRV-Cross
    /// ([`crate::msl::worker::separate_validators`]).
    BesideCross,
}

impl ValidatorPlace {
    /// Says where, for `--timings`.
    pub fn describe(self) -> &'static str {
        match self {
            ValidatorPlace::InProcess => "in this process, before SPIRV-Cross",
            ValidatorPlace::BeforeCross => "in a worker, beside reflection, before SPIRV-Cross",
            ValidatorPlace::BesideCross => "in a worker of its own, beside SPIRV-Cross",
        }
    }
}

impl Timings {
    /// Every stage summed over modules and kernels.
    pub fn total(&self) -> StageTimes {
        let mut t = StageTimes::default();
        t.add(Stage::Worker, self.workers_start);
        for m in &self.modules {
            t.merge(&m.module);
            for (_, k) in &m.kernels {
                t.merge(k);
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_indices_follow_all() {
        for (i, s) in Stage::ALL.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
    }

    #[test]
    fn totals_add_modules_and_kernels() {
        let ms = Duration::from_millis;
        let mut module = StageTimes::default();
        module.add(Stage::Validate, ms(2));
        let mut kernel = StageTimes::default();
        kernel.add(Stage::Generate, ms(3));
        kernel.add(Stage::Layout, ms(1));
        let t = Timings {
            modules: vec![
                ModuleTimings {
                    input: "a".into(),
                    module,
                    kernels: vec![("a".into(), kernel)],
                },
                ModuleTimings {
                    input: "b".into(),
                    module,
                    kernels: vec![("b".into(), kernel), ("c".into(), kernel)],
                },
            ],
            jobs: 2,
            elapsed: ms(9),
            workers_start: ms(1),
            workers_cxx_allocator: None,
            jobserver_tokens: None,
            validator: ValidatorPlace::InProcess,
        };
        let total = t.total();
        assert_eq!(total.get(Stage::Validate), ms(4));
        assert_eq!(total.get(Stage::Worker), ms(1));
        assert_eq!(total.get(Stage::Generate), ms(9));
        assert_eq!(total.sum(Stage::is_halc), ms(3));
    }
}
