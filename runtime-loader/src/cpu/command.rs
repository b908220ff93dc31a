//! Dispatching: plan, encode, run. Dispatches are synchronous: each one runs
//! to completion (or failure) before the call returns.

use super::device::Device;
use super::encode::{self, ResourceBindings};
use super::exec::{self, Launch};
use super::program::Pipeline;
use super::CpuError;
use crate::plan::{DispatchPlan, Grid};

impl Device {
    /// Plans one dispatch of `pipeline`'s kernel with `bindings` (see
    /// [`crate::plan`]) and runs it. Returns the plan that ran.
    pub fn dispatch(
        &self,
        pipeline: &Pipeline<'_>,
        bindings: &ResourceBindings<'_>,
        push_constants: &[u8],
        grid: Grid,
    ) -> Result<DispatchPlan, CpuError> {
        let portable = bindings.to_plan()?;
        let plan = DispatchPlan::new(
            pipeline.kernel(),
            pipeline.specialization(),
            &portable,
            push_constants,
            grid,
        )?;
        self.execute(pipeline, &plan, bindings)?;
        Ok(plan)
    }

    /// Runs `plan` as it is (the commands and argument-buffer bytes, however
    /// they were made) with the buffers in `bindings`.
    pub fn execute(
        &self,
        pipeline: &Pipeline<'_>,
        plan: &DispatchPlan,
        bindings: &ResourceBindings<'_>,
    ) -> Result<(), CpuError> {
        let encoded = encode::encode(pipeline, plan, bindings)?;
        let limit = pipeline.kernel().max_threads_per_threadgroup();
        let threads: u64 = encoded.threads.iter().map(|&t| u64::from(t)).product();
        if threads > u64::from(limit) {
            return Err(CpuError::Limit {
                kernel: pipeline.kernel().name().into(),
                message: format!(
                    "threadgroup {:?} has {threads} threads, more than the pipeline's maximum of {limit}",
                    encoded.threads
                ),
            });
        }
        exec::run(&Launch {
            kernel: pipeline.kernel().name(),
            entry: pipeline.entry(),
            encoded: &encoded,
            fill: self.inner.fill,
            time_limit: self.inner.time_limit,
            workers: self.inner.workers,
        })
    }
}
