//! The two runs: halc's MSL on the CPU backend, the original SPIR-V on the
//! Vulkan reference, each from the same bytes; what each left in the
//! storage buffers comes back for the comparison.

use runtime_loader::cpu::{self, CpuError, FaultKind, ResourceBindings};
use runtime_loader::memory::MemoryType;
use runtime_loader::plan::Grid;
use runtime_loader::Executable;

use super::addresses::{Addresses, Holder};
use super::images::{sampler, DiffImage};
use super::{DiffBuffer, DiffOptions};
use crate::model::{Compiled, Kernel};
use crate::run::buffers::cpu_buffer;
use crate::run::textures::{cpu_texel_buffer, cpu_texture, sampler_descriptor, texture_bytes};
use crate::spirv::{self, BindingKind};

/// What the kernel binds: buffers, images and texel buffers (one per
/// element of an array binding), and the (set, binding, element count) of
/// each sampler binding (every element gets [`sampler`]; a combined
/// image-sampler's too).
pub(super) struct Resources<'a> {
    pub(super) buffers: &'a [DiffBuffer],
    /// Buffers reached through device addresses, and where the addresses go.
    pub(super) addresses: &'a Addresses,
    pub(super) images: &'a [DiffImage],
    pub(super) samplers: Vec<(u32, u32, u32)>,
}

/// Binds each (set, binding)'s elements, given in element order, as one
/// array (a single resource: an array of one).
fn bind_elements<'r>(
    bindings: &mut ResourceBindings<'r>,
    elements: impl IntoIterator<Item = ((u32, u32), cpu::Bound<'r>)>,
) {
    let mut arrays: std::collections::BTreeMap<(u32, u32), Vec<cpu::Bound<'r>>> =
        Default::default();
    for (at, bound) in elements {
        arrays.entry(at).or_default().push(bound);
    }
    for ((set, binding), elements) in arrays {
        bindings.bind_array(set, binding, elements);
    }
}

/// What a side's dispatch left: each storage buffer's bytes and each
/// storage image's or storage texel buffer's texels (`None` for what the
/// kernel cannot write).
pub(super) struct After {
    pub(super) buffers: Vec<Option<Vec<u8>>>,
    pub(super) images: Vec<Option<Vec<u8>>>,
    /// Each reached buffer's bytes, and its address on this side.
    pub(super) reached: Vec<(Vec<u8>, u64)>,
}

/// Writes this side's addresses (`addresses[i]`: reached buffer `i`) into
/// the push constants and buffers: `write(holder, at, bytes)` for a buffer.
fn patch<E>(
    a: &Addresses,
    addresses: &[u64],
    push: &mut [u8],
    mut write: impl FnMut(Holder, u64, &[u8]) -> Result<(), E>,
) -> Result<(), E> {
    for (holder, at, bytes) in a.patches(addresses) {
        match holder {
            Holder::Push => {
                if let Some(p) = push.get_mut(at as usize..at as usize + 8) {
                    p.copy_from_slice(&bytes);
                }
            }
            h => write(h, at, &bytes)?,
        }
    }
    Ok(())
}

/// What the two runs gave.
pub(super) enum Ran {
    /// Both ran: each storage buffer's bytes after the dispatch, per side
    /// (`None` for the other buffers), and the SIMD width the CPU emulated
    /// for a kernel with subgroup operations.
    Both {
        /// Metal on the CPU.
        cpu: After,
        /// The SPIR-V on Vulkan.
        vulkan: After,
        /// The SIMD width, when the kernel uses subgroups.
        simd_width: Option<u32>,
    },
    /// No verdict, and why.
    Inconclusive(String),
}

/// Runs `k` of `compiled` (after `opts.tamper`) on the CPU, then `words`
/// (the same specialization, baked the same way) on Vulkan.
pub(super) fn run(
    opts: &DiffOptions,
    compiled: &Compiled,
    k: &Kernel,
    words: &spirv::Words,
    resources: &Resources<'_>,
    push: &[u8],
    device: &cpu::Device,
) -> Result<Ran, String> {
    // The SPIR-V on Vulkan: a driver session, opened before the CPU run
    // only when that run needs the device's subgroup size, else after it,
    // when the CPU side gave something to compare.
    // Extensions the module is not Vulkan without (GL_AMD_shader_ballot's
    // Groups capability needs VK_AMD_shader_ballot): required, and a device
    // that lacks one leaves the kernel uncompared (inner `Err`).
    let extensions = vulkan_reference::extensions_required_by_module(words.as_slice())
        .map_err(|e| format!("vulkan: {e}"))?;
    let open = || -> Result<Result<vulkan_reference::Session, String>, String> {
        // What the module needs (features for its capabilities, extensions
        // for its OpExtensions), enabled where the device has it, as the
        // Vulkan CTS registers a test with its requirements.
        let optional_features = vulkan_reference::required_by_module(words.as_slice())
            .map_err(|e| format!("vulkan: {e}"))?;
        match vulkan_reference::Session::new(
            &vulkan_reference::ReferenceOptions {
                device: opts.vulkan_device.clone(),
                features: extensions.iter().map(|(_, e)| e.clone()).collect(),
                optional_features,
                timeout: opts.time_limit,
                ..Default::default()
            },
            crate::run::amber::run::vulkan_place(opts.vulkan_program.as_deref()),
        ) {
            Ok(session) => Ok(Ok(session)),
            Err(vulkan_reference::Error::UnsupportedFeatures { device, names }) => {
                match extensions.iter().find(|(_, e)| names.contains(e)) {
                    Some((declares, extension)) => Ok(Err(format!(
                        "the module declares {declares}, which needs the device extension {extension}, and Vulkan device {device:?} does not support it: not compared"
                    ))),
                    None => Err(format!(
                        "vulkan: {}",
                        vulkan_reference::Error::UnsupportedFeatures { device, names }
                    )),
                }
            }
            Err(e) => Err(format!("vulkan: {e}")),
        }
    };
    // Subgroup results depend on the width: the CPU emulates the Vulkan
    // device's (Apple GPUs have 32 lanes; the MSL reads the width at run
    // time, as `threads_per_simdgroup`).
    let subgroups = k.uses_subgroups();
    let mut opened = None;
    let narrowed;
    let device = if subgroups {
        let reference = match open()? {
            Ok(r) => r,
            Err(why) => return Ok(Ran::Inconclusive(why)),
        };
        let width = reference.subgroup_size();
        opened = Some(reference);
        if width == device.simd_width() {
            device
        } else {
            narrowed = match device.with_simd_width(width) {
                Ok(d) => d,
                Err(_) => {
                    return Ok(Ran::Inconclusive(format!(
                        "the kernel uses subgroup operations and the Vulkan device's subgroups are {width} lanes, a width the CPU backend does not emulate ({}): not compared",
                        cpu::SIMD_WIDTHS_TEXT
                    )))
                }
            };
            &narrowed
        }
    } else {
        device
    };
    let cpu = match on_cpu(opts, compiled, k, resources, push, device)? {
        Ok(cpu) => cpu,
        Err(why) => return Ok(Ran::Inconclusive(why)),
    };
    let reference = match opened {
        Some(r) => r,
        None => match open()? {
            Ok(r) => r,
            Err(why) => return Ok(Ran::Inconclusive(why)),
        },
    };
    let vulkan = on_vulkan(&reference, k, words, resources, push, opts.groups)?;
    Ok(Ran::Both {
        cpu,
        vulkan,
        simd_width: subgroups.then(|| device.simd_width()),
    })
}

/// Metal on the CPU: the storage buffers afterwards, or (inner `Err`) why
/// this data gives no verdict.
pub(super) fn on_cpu(
    opts: &DiffOptions,
    compiled: &Compiled,
    k: &Kernel,
    resources: &Resources<'_>,
    push: &[u8],
    device: &cpu::Device,
) -> Result<Result<After, String>, String> {
    let buffers = resources.buffers;
    let mut metal = compiled.clone();
    if let Some(f) = opts.tamper {
        f(&mut metal);
    }
    let exe_bytes = metal.to_flatbuffer();
    let exe = Executable::load(&exe_bytes).map_err(|e| e.to_string())?;
    let program = device.load(exe).map_err(|e| e.to_string())?;
    let pipeline = program.pipeline(&k.name, &[]).map_err(|e| e.to_string())?;
    // Allocated as an application would (`run::buffers`); bound, read and
    // compared at the block's length.
    let cpu_bufs: Vec<cpu::Buffer> = buffers
        .iter()
        .map(|b| cpu_buffer(device, &b.bytes))
        .collect::<Result<_, _>>()?;
    let textures: Vec<cpu::Texture> = resources
        .images
        .iter()
        .map(|i| match &i.desc {
            Some(d) => cpu_texture(device, d, &i.bytes),
            None => cpu_texel_buffer(device, i.format, &i.bytes),
        })
        .collect::<Result<_, _>>()?;
    let cpu_sampler = device
        .sampler(&sampler_descriptor(&sampler()))
        .map_err(|e| e.to_string())?;
    let reached: Vec<cpu::Buffer> = (resources.addresses.reached.iter())
        .map(|r| device.buffer_with_data(&r.bytes, MemoryType::HostVisible))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let reached_at: Vec<u64> = reached.iter().map(cpu::Buffer::gpu_address).collect();
    let mut push = push.to_vec();
    patch(
        resources.addresses,
        &reached_at,
        &mut push,
        |h, at, bytes| {
            match h {
                Holder::Buffer(i) => cpu_bufs[i].write(at, bytes),
                Holder::Reached(i) => reached[i].write(at, bytes),
                Holder::Push => Ok(()),
            }
            .map_err(|e| e.to_string())
        },
    )?;
    let push = push.as_slice();
    let mut bindings = ResourceBindings::new();
    let buffers_bound = buffers.iter().zip(&cpu_bufs).map(|(b, buffer)| {
        let bound = cpu::Bound::Buffer {
            buffer,
            offset: 0,
            length: b.bytes.len() as u64,
        };
        ((b.set, b.binding), bound)
    });
    let images_bound = resources.images.iter().zip(&textures).map(|(i, t)| {
        let bound = if i.kind == BindingKind::CombinedImageSampler {
            cpu::Bound::CombinedImageSampler(t, &cpu_sampler)
        } else {
            cpu::Bound::Texture(t)
        };
        ((i.set, i.binding), bound)
    });
    let sampler_ref = &cpu_sampler;
    let samplers_bound = resources
        .samplers
        .iter()
        .flat_map(|&(set, binding, count)| {
            (0..count).map(move |_| ((set, binding), cpu::Bound::Sampler(sampler_ref)))
        });
    bind_elements(
        &mut bindings,
        buffers_bound.chain(images_bound).chain(samplers_bound),
    );
    for r in &reached {
        bindings.reach(r, runtime_loader::plan::Usage::ReadWrite);
    }
    let grid = Grid::Threadgroups(opts.groups);
    let divisions = device.undefined_divisions();
    match device.dispatch(&pipeline, &bindings, push, grid) {
        // A division by zero completes on the CPU with halc's value (a GPU
        // gives one of its own): undefined, so nothing to compare either.
        Ok(_) if device.undefined_divisions() > divisions => {
            return Ok(Err(format!(
                "seed {}: the kernel divided an integer by zero (or INT_MIN by -1) on the CPU with this data, which is undefined; it depends on the data",
                opts.seed
            )));
        }
        Ok(_) => {}
        // Random data can send an index out of bounds or make a divisor
        // zero in a correct kernel: undefined behaviour on both sides, so
        // nothing to compare, but not a finding either.
        // A kernel that reads device addresses dereferences what its data
        // holds: a null pointer may come from the data too (an address halc
        // diff did not write, such as one built from two integers, or a
        // pointer past the depth it follows).
        // So may one in a kernel with descriptor arrays: an index into an
        // array from the data, past its end, reads whatever the argument
        // buffer or argument table holds there (undefined in Vulkan too).
        Err(e @ CpuError::Fault { kind, .. })
            if kind.may_come_from_data()
                || (kind == FaultKind::NullPointer
                    && (k.reads_device_addresses() || has_arrays(k))) =>
        {
            let why = match kind {
                FaultKind::IntegerDivision => "divided an integer by zero (or INT_MIN by -1)",
                FaultKind::OutOfBounds => "accessed memory out of bounds",
                FaultKind::NullPointer if !k.reads_device_addresses() => {
                    "dereferenced a null pointer (an index into a descriptor array past its end?)"
                }
                FaultKind::NullPointer => "dereferenced a null device address",
                _ => "accessed memory outside every buffer",
            };
            return Ok(Err(format!(
                "seed {}: the kernel {why} on the CPU with this data ({e}); it depends on the data",
                opts.seed
            )));
        }
        // The shim's report of a texture access outside the texture
        // (runtime-loader's `metal_texture`): random coordinates, as
        // random indices, give no verdict.
        Err(e @ CpuError::Kernel { .. }) if e.to_string().contains("out-of-bounds texture") => {
            return Ok(Err(format!(
                "seed {}: the kernel accessed a texture out of bounds on the CPU ({e}): with this data, or at a coordinate past the image's edge whatever the data (a neighbour of a border texel; a larger --groups grid makes the images larger); undefined in Vulkan, so no verdict",
                opts.seed
            )));
        }
        Err(e) => return Err(format!("metal-on-cpu: {e}")),
    }
    let mut out = After {
        buffers: Vec::new(),
        images: Vec::new(),
        reached: Vec::new(),
    };
    for (r, at) in reached.iter().zip(reached_at) {
        out.reached
            .push((r.to_vec().map_err(|e| e.to_string())?, at));
    }
    for (b, buf) in buffers.iter().zip(&cpu_bufs) {
        out.buffers.push(if b.kind == BindingKind::StorageBuffer {
            let mut bytes = vec![0u8; b.bytes.len()];
            buf.read(0, &mut bytes).map_err(|e| e.to_string())?;
            Some(bytes)
        } else {
            None
        });
    }
    for (i, t) in resources.images.iter().zip(&textures) {
        out.images.push(if i.writable() {
            Some(texture_bytes(t)?)
        } else {
            None
        });
    }
    Ok(Ok(out))
}

/// Whether `k` binds a descriptor array (an index into one may come from
/// the data).
fn has_arrays(k: &Kernel) -> bool {
    k.layout.bindings.iter().any(|b| b.count > 1)
}

/// The SPIR-V on Vulkan: the storage buffers afterwards.
fn on_vulkan(
    reference: &vulkan_reference::Session,
    k: &Kernel,
    words: &spirv::Words,
    resources: &Resources<'_>,
    push: &[u8],
    groups: [u32; 3],
) -> Result<After, String> {
    use vulkan_reference::{BindingDesc, BindingKind as K, SessionBound, SessionResource as R};
    let buffers = resources.buffers;
    let vulkan_kind = |kind| match kind {
        BindingKind::StorageBuffer => K::Storage,
        BindingKind::UniformBuffer => K::Uniform,
        BindingKind::StorageImage => K::StorageImage,
        BindingKind::SampledImage => K::SampledImage,
        BindingKind::Sampler => K::Sampler,
        BindingKind::CombinedImageSampler => K::CombinedImageSampler,
        BindingKind::UniformTexelBuffer => K::UniformTexelBuffer,
        BindingKind::StorageTexelBuffer => K::StorageTexelBuffer,
        // Not reached: `data::buffers` refuses a kernel with an
        // acceleration structure before any descriptor is made.
        BindingKind::AccelerationStructure => K::Storage,
    };
    // One descriptor binding per (set, binding), of its element count.
    let desc = |set, binding, kind, count| BindingDesc {
        set,
        binding,
        kind: vulkan_kind(kind),
        count,
    };
    let descs: Vec<BindingDesc> = (buffers.iter().filter(|b| b.element == 0))
        .map(|b| desc(b.set, b.binding, b.kind, b.count))
        .chain(
            (resources.images.iter().filter(|i| i.element == 0))
                .map(|i| desc(i.set, i.binding, i.kind, i.count)),
        )
        .chain((resources.samplers.iter()).map(|&(s, b, n)| desc(s, b, BindingKind::Sampler, n)))
        .collect();
    let vk_pipeline = reference
        .pipeline(&vulkan_reference::PipelineDesc {
            spirv: words.as_slice(),
            entry: &k.entry.name,
            specialization: &[],
            bindings: &descs,
            push_constant_size: k.entry.push_constant_size.unwrap_or(0),
            require_full_subgroups: false,
            allow_varying_subgroup_size: false,
            required_subgroup_size: None,
        })
        .map_err(|e| format!("vulkan: {e}"))?;
    let vk_bufs: Vec<vulkan_reference::BufferId> = buffers
        .iter()
        .map(|b| reference.buffer(&b.bytes))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("vulkan: {e}"))?;
    let sampler_id = reference
        .sampler(&sampler())
        .map_err(|e| format!("vulkan: {e}"))?;
    let vk = |e: vulkan_reference::Error| format!("vulkan: {e}");
    let reached: Vec<vulkan_reference::BufferId> = (resources.addresses.reached.iter())
        .map(|r| reference.buffer(&r.bytes))
        .collect::<Result<_, _>>()
        .map_err(vk)?;
    let reached_at: Vec<u64> = reached
        .iter()
        .map(|&b| reference.device_address(b))
        .collect::<Result<_, _>>()
        .map_err(vk)?;
    let mut push = push.to_vec();
    patch(
        resources.addresses,
        &reached_at,
        &mut push,
        |h, at, bytes| {
            let (buffer, at) = match h {
                Holder::Buffer(i) => (vk_bufs[i], at),
                Holder::Reached(i) => (reached[i], at),
                Holder::Push => return Ok(()),
            };
            reference.write(buffer, at as usize, bytes)
        },
    )
    .map_err(vk)?;
    let push = push.as_slice();
    // An image's texels, or a texel buffer's buffer.
    enum Made {
        Image(vulkan_reference::ImageId),
        Texels(vulkan_reference::BufferId),
    }
    let mut made = Vec::new();
    for i in resources.images {
        made.push(match &i.desc {
            Some(d) => Made::Image(
                reference
                    .image(d, &i.bytes)
                    .map_err(|e| format!("vulkan: {e}"))?,
            ),
            None => Made::Texels(
                reference
                    .buffer(&i.bytes)
                    .map_err(|e| format!("vulkan: {e}"))?,
            ),
        });
    }
    let at = |set, binding, element, resource| SessionBound {
        set,
        binding,
        element,
        resource,
    };
    let mut bound: Vec<SessionBound> = buffers
        .iter()
        .zip(&vk_bufs)
        .map(|(b, &buffer)| {
            let resource = R::Buffer {
                buffer,
                offset: 0,
                range: None,
            };
            at(b.set, b.binding, b.element, resource)
        })
        .collect();
    for (i, m) in resources.images.iter().zip(&made) {
        let resource = match (m, i.kind) {
            (Made::Image(id), BindingKind::CombinedImageSampler) => {
                R::CombinedImageSampler(*id, sampler_id)
            }
            (Made::Image(id), _) => R::Image(*id),
            (Made::Texels(buffer), _) => R::TexelBuffer {
                buffer: *buffer,
                format: i.format,
                offset: 0,
                range: None,
            },
        };
        bound.push(at(i.set, i.binding, i.element, resource));
    }
    for &(set, binding, count) in &resources.samplers {
        for element in 0..count {
            bound.push(at(set, binding, element, R::Sampler(sampler_id)));
        }
    }
    reference
        .dispatch(vk_pipeline, &bound, push, groups)
        .map_err(|e| format!("vulkan: {e}"))?;
    let mut out = After {
        buffers: Vec::new(),
        images: Vec::new(),
        reached: Vec::new(),
    };
    for (&r, at) in reached.iter().zip(reached_at) {
        out.reached.push((reference.read(r).map_err(vk)?, at));
    }
    for (b, buf) in buffers.iter().zip(&vk_bufs) {
        out.buffers.push(if b.kind == BindingKind::StorageBuffer {
            Some(reference.read(*buf).map_err(|e| format!("vulkan: {e}"))?)
        } else {
            None
        });
    }
    for (i, m) in resources.images.iter().zip(&made) {
        out.images.push(match (i.writable(), m) {
            (false, _) => None,
            (true, Made::Image(id)) => Some(
                reference
                    .read_image(*id)
                    .map_err(|e| format!("vulkan: {e}"))?,
            ),
            (true, Made::Texels(b)) => {
                Some(reference.read(*b).map_err(|e| format!("vulkan: {e}"))?)
            }
        });
    }
    Ok(out)
}
