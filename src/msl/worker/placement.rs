//! Where a job's validator runs: in its worker, before SPIRV-Cross, or in
//! a worker of its own beside it ([`separate_validators`],
//! [`VALIDATOR_ENV`]).

/// Environment variable overriding whether each job of a `compile` call
/// with forked workers validates in a worker of its own, beside the one
/// running SPIRV-Cross (`separate`), or in that one, before it
/// (`shared`): [`separate_validators`].
pub const VALIDATOR_ENV: &str = "HALC_WORKER_VALIDATOR";

/// Whether each of `jobs` jobs gets a second worker for the validator
/// ([`Worker::with_validator`]), so that validating a module and running
/// SPIRV-Cross on it overlap: when the cores free for this call (`cores`,
/// asked only if [`VALIDATOR_ENV`] does not decide) hold two per job: one
/// module, and a second core nobody else is using. Not when the jobs fill
/// the cores already, as a batch does, nor when other programs do, as in a
/// build running one halc per kernel on every core: a second worker per job
/// would then only add its start and take a core another process needs.
/// [`VALIDATOR_ENV`] overrides either way.
///
/// [`Worker::with_validator`]: super::Worker::with_validator
pub fn separate_validators(jobs: usize, cores: impl FnOnce() -> usize) -> Result<bool, String> {
    match std::env::var(VALIDATOR_ENV).as_deref() {
        Ok("separate") => Ok(true),
        Ok("shared") => Ok(false),
        Ok(other) => Err(format!(
            "{VALIDATOR_ENV} must be `separate` or `shared`, not `{other}`"
        )),
        Err(_) => Ok(jobs.saturating_mul(2) <= cores()),
    }
}
