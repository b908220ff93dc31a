//! The dispatch plan: pure Rust, every platform.
//!
//! Given a verified [`Kernel`](crate::Kernel), its [`Specialization`], the resources bound
//! to it ([`Bindings`], keyed by (set, binding)), the push-constant bytes and
//! a [`Grid`], [`DispatchPlan::new`] produces the exact list of compute
//! encoder [`Command`]s, and the bytes of every argument buffer. Everything
//! that can be wrong with a dispatch is reported here as a [`PlanError`],
//! before anything reaches a GPU. The Metal runtime (`crate::metal`) maps
//! each command to exactly one Metal call and adds no logic of its own.
//!
//! Command order (the one IREE's Metal driver uses):
//! 1. push constants: `setBytes` at `PushConstants.buffer_index`;
//! 2. per argument buffer, in ascending set order: `setBuffer` of the
//!    argument buffer, `useResource` of its sizes table if it has one, then
//!    `useResource` of every buffer and texture it points to (and of the
//!    buffer a texture was created on, when the kernel does that image's
//!    atomics through it: emulated image atomics below MSL 3.1; for an
//!    acceleration structure, the instance structure then each primitive
//!    structure it places, `UsePrimitiveStructure`);
//!    then `useResource` of every buffer reached through a device address
//!    ([`Bindings::reach`]);
//! 3. discrete bindings in (set, binding) order: `setBuffer` /
//!    `setTexture` / `setSamplerState` / `setAccelerationStructure`, one per
//!    array element (an image with emulated atomics: `setTexture`, then
//!    `setBuffer` of the buffer the texture was created on; an acceleration
//!    structure: `setAccelerationStructure`, then `useResource` of each of
//!    its primitive structures, which Metal reaches through it);
//! 4. the kernel-level buffer-sizes table: `setBytes`;
//! 5. `dispatchThreadgroups:threadsPerThreadgroup:`.
//!
//! The caller's `setComputePipelineState` comes before all of them.
//!
//! Both backends consume the same plan: [`Bindings`] and the backends'
//! `ResourceBindings` hold their objects in one table with one walk
//! (`bindings.rs`), and a backend's only work is the device-specific write
//! of each [`Command`]. The files: `bindings.rs` (what is bound), `grid.rs`
//! (threadgroup counts), `specialization.rs` (function constants),
//! `command.rs` (the encoder calls), `argument_buffer.rs` (argument-buffer
//! bytes and members), `buffer.rs` (offset alignment and size rules),
//! `error.rs`, and `build.rs` ([`DispatchPlan::new`]: the walk over the
//! kernel's bindings that places each resource in an argument buffer or a
//! slot).

mod argument_buffer;
mod bindings;
mod buffer;
mod build;
mod command;
mod error;
mod grid;
mod specialization;

use std::fmt;

pub use argument_buffer::{ArgumentBufferPlan, ArgumentMember, ArgumentSizesTable, MemberValue};
#[cfg(any(all(feature = "cpu", unix), target_vendor = "apple"))]
pub(crate) use bindings::{range_inside, BoundTable};
pub use bindings::{
    BindResources, Bindings, BufferBinding, ReachedBuffer, Resource, ResourceKey, Usage,
};
pub use buffer::{uniform_buffer_offset_alignment, STORAGE_BUFFER_OFFSET_ALIGNMENT};
pub use command::{BytesPurpose, Command};
pub use error::PlanError;
pub use grid::Grid;
pub use specialization::{ConstantValue, SpecValue, Specialization};

/// Everything one dispatch does, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchPlan {
    /// Name of the kernel.
    pub kernel: String,
    /// Threads per threadgroup (after specialization).
    pub threads_per_threadgroup: [u32; 3],
    /// Threadgroups per dimension.
    pub threadgroups: [u64; 3],
    /// Argument buffers, in ascending set order.
    pub argument_buffers: Vec<ArgumentBufferPlan>,
    /// Encoder commands, in order.
    pub commands: Vec<Command>,
}

impl DispatchPlan {
    /// The argument buffer of `set`.
    pub fn argument_buffer(&self, set: u32) -> Option<&ArgumentBufferPlan> {
        self.argument_buffers.iter().find(|a| a.set == set)
    }
}

impl fmt::Display for DispatchPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "dispatch of kernel `{}`:", self.kernel)?;
        for a in &self.argument_buffers {
            write!(
                f,
                "  argument buffer of set {} ({} bytes, {} members",
                a.set,
                a.bytes.len(),
                a.members.len()
            )?;
            if let Some(t) = &a.sizes_table {
                write!(f, ", sizes table of {} entries", t.lengths.len())?;
            }
            writeln!(f, ")")?;
        }
        for (i, c) in self.commands.iter().enumerate() {
            writeln!(f, "  {i}. {c}")?;
        }
        Ok(())
    }
}
