//! Containment for the C++ that untrusted SPIR-V reaches: SPIRV-Tools'
//! validator and SPIRV-Cross run in a child process, so an abort, segfault or
//! stack overflow inside them becomes an ordinary error naming the entry
//! point and the signal, and a request that runs past the time limit is
//! killed (the validator's time grows steeply with structured nesting).
//!
//! One child per job serves every module and kernel that job compiles in a
//! `compile` call (requests and replies are length-prefixed JSON over its
//! stdin/stdout), so a batch pays one process start per job, not one per
//! kernel. The child is either a `fork` of the calling process without
//! `exec` ([`Worker::fork`], Unix: no second program start, and no `halc`
//! binary needed, so a build script has isolation too) or the `halc` binary
//! itself (`halc __msl-worker`, [`Worker::spawn`]); both run [`serve`].
//! Library users choose with [`crate::Isolation`].
//!
//! The files: `protocol.rs` (the messages), `serve.rs` (the worker's loop),
//! `start.rs` (spawning or forking one), `handle.rs` (the parent's
//! [`Worker`] and its end), `requests.rs` (what the parent asks and reads),
//! `deadline.rs` (the time limit), `process.rs` (killing, reaping, how it
//! ended), `pipes.rs`, `error.rs`, `crash_test.rs` (injected failures),
//! `allocator.rs` (C++'s allocator in a fork) and `placement.rs` (whether
//! the validator gets a worker of its own).
//!
//! [`serve`]: fn@serve

mod allocator;
mod crash_test;
mod deadline;
mod error;
mod handle;
#[cfg(unix)]
mod pipes;
mod placement;
mod process;
mod protocol;
mod requests;
mod serve;
mod start;

pub use allocator::{CxxAllocator, ALLOCATOR_ENV};
pub(crate) use crash_test::crash_for_test_before;
pub use crash_test::CRASH_TEST_ENV;
pub use error::WorkerError;
pub(crate) use error::VALIDATOR;
pub use handle::Worker;
// For `driver/forked.rs` (the `run` feature).
#[cfg(all(unix, feature = "run"))]
pub(crate) use pipes::cloexec_pipe;
pub use placement::{separate_validators, VALIDATOR_ENV};
pub use process::reap_workers;
pub use serve::{serve, WORKER_ARG};
pub use start::threads;
