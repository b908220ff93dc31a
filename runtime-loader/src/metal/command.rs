//! Command buffers, compute passes (one compute encoder per dispatch
//! sequence) and submissions.

use std::ptr::NonNull;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use block2::RcBlock;
use objc2::rc::Retained;
use objc2::runtime::ProtocolObject;
use objc2::Message;
use objc2_foundation::NSRange;
use objc2_metal::{
    MTLBlitCommandEncoder, MTLCommandBuffer, MTLCommandBufferStatus, MTLCommandEncoder,
    MTLCommandQueue, MTLComputeCommandEncoder, MTLComputePipelineState,
};

use super::bindings::ResourceBindings;
use super::buffer::Buffer;
use super::conv;
use super::encode::{self, KeepAlive};
use super::handle::Device;
use super::program::{ArgumentEncoding, Pipeline};
use super::sync::Semaphore;
use super::texture::Texture;
use super::MetalError;
use crate::memory::StorageMode;
use crate::plan::{DispatchPlan, Grid};
use crate::transfer::{self, BlitAlignment, CopyParams, FillParams, Route};

/// An `MTLCommandBuffer` being recorded.
///
/// Semaphore waits and signals, copies, fills and compute passes are encoded
/// in call order. A command buffer is one-shot ([`CommandBuffer::commit`]
/// consumes it, as an `MTLCommandBuffer` is); to run the same work again,
/// record it again (the CPU backend's command buffers can be resubmitted). Every object a dispatch reaches (bound resources, argument
/// buffers, sizes tables) is kept alive until the GPU completes the command
/// buffer, even if the [`Submission`] is dropped.
#[derive(Debug)]
pub struct CommandBuffer {
    raw: Retained<ProtocolObject<dyn MTLCommandBuffer>>,
    keep: Vec<KeepAlive>,
    device: Device,
}

impl CommandBuffer {
    pub(super) fn new(device: &Device) -> Result<CommandBuffer, MetalError> {
        let raw = device
            .raw_queue()
            .commandBuffer()
            .ok_or(MetalError::Creation {
                what: "a command buffer".into(),
            })?;
        Ok(CommandBuffer {
            raw,
            keep: Vec::new(),
            device: device.clone(),
        })
    }

    /// The `MTLCommandBuffer`.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLCommandBuffer> {
        &self.raw
    }

    /// The GPU waits here until `semaphore` reaches `value`
    /// (`encodeWaitForEvent:value:`); the signal may come later, from the
    /// host or another command buffer.
    pub fn wait(&mut self, semaphore: &Semaphore, value: u64) {
        self.raw
            .encodeWaitForEvent_value(semaphore.as_event(), value);
    }

    /// The GPU sets `semaphore` to `value` once everything encoded before
    /// has completed (`encodeSignalEvent:value:`).
    pub fn signal(&mut self, semaphore: &Semaphore, value: u64) {
        self.raw
            .encodeSignalEvent_value(semaphore.as_event(), value);
    }

    /// Starts a compute pass: one `MTLComputeCommandEncoder` for a sequence
    /// of dispatches, ended when the pass is ended or dropped.
    pub fn compute(&mut self) -> Result<ComputePass<'_>, MetalError> {
        let encoder = self
            .raw
            .computeCommandEncoder()
            .ok_or(MetalError::Creation {
                what: "a compute command encoder".into(),
            })?;
        Ok(ComputePass {
            cb: self,
            encoder,
            ended: false,
        })
    }

    /// Copies `length` bytes from `src` at `src_offset` to `dst` at
    /// `dst_offset`: any alignment, ranges inside their buffers, no overlap
    /// within one buffer ([`crate::transfer`]). A blit
    /// (`copyFromBuffer:…size:`) where this platform's blit encoder can do it
    /// (macOS: offsets and length multiples of 4), else the polyfill copy
    /// kernel. Returns the route taken.
    pub fn copy(
        &mut self,
        src: &Buffer,
        src_offset: u64,
        dst: &Buffer,
        dst_offset: u64,
        length: u64,
    ) -> Result<Route, MetalError> {
        transfer::check_copy(
            src.len(),
            src_offset,
            dst.len(),
            dst_offset,
            length,
            src.same(dst),
        )?;
        let route = transfer::copy_route(src_offset, dst_offset, length, BlitAlignment::current());
        match route {
            Route::Nothing => return Ok(route),
            Route::Blit { .. } => {
                let blit = self.blit()?;
                // SAFETY: both ranges were checked to be inside their buffers
                // (and apart within one buffer), which are live; the command
                // buffer keeps them alive until it completes.
                unsafe {
                    blit.copyFromBuffer_sourceOffset_toBuffer_destinationOffset_size(
                        src.raw(),
                        conv::ns(src_offset),
                        dst.raw(),
                        conv::ns(dst_offset),
                        conv::ns(length),
                    )
                };
                blit.endEncoding();
            }
            Route::Polyfill => {
                let builtins = self.device.builtins()?;
                let params = CopyParams {
                    src_offset,
                    dst_offset,
                    length,
                };
                self.polyfill(&builtins.copy, &[src, dst], &params.to_bytes(), length)?;
            }
        }
        self.keep.push(KeepAlive::Buffer(src.retained()));
        self.keep.push(KeepAlive::Buffer(dst.retained()));
        Ok(route)
    }

    /// Fills `length` bytes of `dst` from `offset` with `pattern` (1, 2 or 4
    /// bytes; `offset` and `length` multiples of its length:
    /// [`crate::transfer`]). `fillBuffer:range:value:` writes one byte value,
    /// and on macOS only ranges whose offset and length are multiples of 4;
    /// every other fill runs the polyfill fill kernel. Returns the route
    /// taken.
    pub fn fill(
        &mut self,
        dst: &Buffer,
        offset: u64,
        length: u64,
        pattern: &[u8],
    ) -> Result<Route, MetalError> {
        transfer::check_fill(dst.len(), offset, length, pattern)?;
        let route = transfer::fill_route(offset, length, pattern, BlitAlignment::current());
        match route {
            Route::Nothing => return Ok(route),
            Route::Blit { byte } => {
                let blit = self.blit()?;
                blit.fillBuffer_range_value(
                    dst.raw(),
                    NSRange::new(conv::ns(offset), conv::ns(length)),
                    byte,
                );
                blit.endEncoding();
            }
            Route::Polyfill => {
                let builtins = self.device.builtins()?;
                let params = FillParams {
                    offset,
                    length,
                    pattern: transfer::pattern_word(pattern),
                };
                self.polyfill(&builtins.fill, &[dst], &params.to_bytes(), length)?;
            }
        }
        self.keep.push(KeepAlive::Buffer(dst.retained()));
        Ok(route)
    }

    fn blit(&self) -> Result<Retained<ProtocolObject<dyn MTLBlitCommandEncoder>>, MetalError> {
        self.raw.blitCommandEncoder().ok_or(MetalError::Creation {
            what: "a blit command encoder".into(),
        })
    }

    /// One dispatch of a polyfill kernel: `buffers` at `[[buffer(0)]]`…
    /// (offset 0), `params` by `setBytes` at the next slot.
    fn polyfill(
        &mut self,
        pipeline: &ProtocolObject<dyn MTLComputePipelineState>,
        buffers: &[&Buffer],
        params: &[u8],
        length: u64,
    ) -> Result<(), MetalError> {
        let encoder = self
            .raw
            .computeCommandEncoder()
            .ok_or(MetalError::Creation {
                what: "a compute command encoder".into(),
            })?;
        encoder.setComputePipelineState(pipeline);
        for (i, b) in buffers.iter().enumerate() {
            // SAFETY: a live buffer at offset 0, at slot `i` of the kernel's
            // `[[buffer(i)]]`; the kernel only touches the checked range, and
            // the command buffer keeps the buffer alive.
            unsafe { encoder.setBuffer_offset_atIndex(Some(b.raw()), 0, i) };
        }
        // SAFETY: `params` is a live 24-byte slice, the size of the kernel's
        // parameter struct; Metal copies it.
        unsafe {
            encoder.setBytes_length_atIndex(
                NonNull::from(params).cast(),
                params.len(),
                buffers.len(),
            )
        };
        encoder.dispatchThreadgroups_threadsPerThreadgroup(
            conv::map_size([transfer::polyfill_groups(length), 1, 1]),
            conv::map_size([u64::from(transfer::POLYFILL_THREADS), 1, 1]),
        );
        encoder.endEncoding();
        Ok(())
    }

    /// Makes GPU writes to a managed buffer visible to the host
    /// (`synchronizeResource:`); nothing for other storage modes.
    pub fn synchronize(&mut self, buffer: &Buffer) -> Result<(), MetalError> {
        if buffer.storage_mode() != StorageMode::Managed {
            return Ok(());
        }
        let blit = self.raw.blitCommandEncoder().ok_or(MetalError::Creation {
            what: "a blit command encoder".into(),
        })?;
        blit.synchronizeResource(ProtocolObject::from_ref(buffer.raw()));
        blit.endEncoding();
        self.keep.push(KeepAlive::Buffer(buffer.retained()));
        Ok(())
    }

    /// Makes GPU writes to a managed texture visible to the host
    /// (`synchronizeResource:`); nothing for other storage modes (a device
    /// with unified memory makes shared textures).
    pub fn synchronize_texture(&mut self, texture: &Texture) -> Result<(), MetalError> {
        if texture.storage_mode() != StorageMode::Managed {
            return Ok(());
        }
        let blit = self.raw.blitCommandEncoder().ok_or(MetalError::Creation {
            what: "a blit command encoder".into(),
        })?;
        blit.synchronizeResource(texture.resource());
        blit.endEncoding();
        self.keep.push(KeepAlive::Texture(texture.raw().retain()));
        Ok(())
    }

    /// Commits the command buffer. The objects it uses are released when the
    /// GPU completes it.
    pub fn commit(self) -> Submission {
        let CommandBuffer { raw, keep, .. } = self;
        let completed = Arc::new(Completed::default());
        let notify = completed.clone();
        let handler = RcBlock::new(move |_cb: NonNull<ProtocolObject<dyn MTLCommandBuffer>>| {
            // Owning `keep` is the point: it is dropped with the block,
            // which Metal releases after calling it on completion.
            let _ = &keep;
            *notify.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
            notify.cv.notify_all();
        });
        // SAFETY: a valid block with the signature Metal expects; Metal
        // copies it and calls it once on completion, from any thread. It
        // only holds retained Metal objects, whose release is thread-safe,
        // and an `Arc` of thread-safe state.
        unsafe { raw.addCompletedHandler(RcBlock::as_ptr(&handler)) };
        raw.commit();
        Submission { raw, completed }
    }
}

/// A sequence of dispatches in one compute encoder.
#[derive(Debug)]
pub struct ComputePass<'c> {
    cb: &'c mut CommandBuffer,
    encoder: Retained<ProtocolObject<dyn MTLComputeCommandEncoder>>,
    ended: bool,
}

impl ComputePass<'_> {
    /// Plans and encodes one dispatch of `pipeline`'s kernel (see
    /// [`crate::plan`]): every binding error is reported before anything is
    /// encoded. Returns the plan that was encoded.
    pub fn dispatch(
        &mut self,
        pipeline: &Pipeline<'_>,
        bindings: &ResourceBindings<'_>,
        push_constants: &[u8],
        grid: Grid,
    ) -> Result<DispatchPlan, MetalError> {
        let gpu_addresses = pipeline.argument_encoding() == ArgumentEncoding::GpuAddress
            && pipeline.kernel().argument_buffers().len() > 0;
        let portable = bindings.to_plan(gpu_addresses)?;
        let plan = DispatchPlan::new(
            pipeline.kernel(),
            pipeline.specialization(),
            &portable,
            push_constants,
            grid,
        )?;
        encode::encode(&self.encoder, pipeline, &plan, bindings, &mut self.cb.keep)?;
        Ok(plan)
    }

    /// Ends the pass (`endEncoding`).
    pub fn end(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if !self.ended {
            self.ended = true;
            self.encoder.endEncoding();
        }
    }
}

impl Drop for ComputePass<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Set by a command buffer's completion handler.
#[derive(Debug, Default)]
struct Completed {
    done: Mutex<bool>,
    cv: Condvar,
}

/// A committed command buffer.
#[derive(Debug, Clone)]
pub struct Submission {
    raw: Retained<ProtocolObject<dyn MTLCommandBuffer>>,
    completed: Arc<Completed>,
}

impl Submission {
    /// The `MTLCommandBuffer`.
    pub fn raw(&self) -> &ProtocolObject<dyn MTLCommandBuffer> {
        &self.raw
    }

    /// Blocks until the GPU completes the command buffer; its error, if it
    /// failed, as a [`MetalError::CommandBuffer`].
    pub fn wait(&self) -> Result<(), MetalError> {
        self.raw.waitUntilCompleted();
        self.result()
    }

    /// As [`Submission::wait`], giving up after `timeout`: `None` if the
    /// command buffer has not completed by then.
    pub fn wait_timeout(&self, timeout: Duration) -> Option<Result<(), MetalError>> {
        let done = self
            .completed
            .done
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let (done, _) = self
            .completed
            .cv
            .wait_timeout_while(done, timeout, |done| !*done && !self.is_done())
            .unwrap_or_else(|e| e.into_inner());
        (*done || self.is_done()).then(|| self.result())
    }

    /// Whether the command buffer has completed (or failed).
    pub fn is_done(&self) -> bool {
        matches!(
            self.raw.status(),
            MTLCommandBufferStatus::Completed | MTLCommandBufferStatus::Error
        )
    }

    /// The outcome so far: `Err` once the command buffer has failed.
    pub fn result(&self) -> Result<(), MetalError> {
        let status = self.raw.status();
        if status != MTLCommandBufferStatus::Error {
            return Ok(());
        }
        Err(MetalError::CommandBuffer {
            status: conv::status_name(status),
            message: self
                .raw
                .error()
                .map(|e| conv::string(&e.localizedDescription()))
                .unwrap_or_else(|| "no error description".into()),
        })
    }
}
