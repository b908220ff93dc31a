//! One entry point's stages: its refusals and binding layout
//! (`prepare_entry`), SPIRV-Cross (in the worker or here), the check of its
//! MSL against the layout, and its Metal function constants
//! (`function_constants`).

use std::time::Instant;

#[cfg(unix)]
use crate::driver::isolation::guard_lines;
use crate::driver::module::Rewrites;
use crate::driver::workers::{running_worker, settle, worker_failed};
use crate::model::timings::{Stage, StageTimes};
use crate::model::{
    Error, ErrorKind, Input, Isolation, Kernel, Options, MAX_THREADGROUP_MEMORY_BYTES,
    MAX_THREADS_PER_THREADGROUP,
};
use crate::msl::{self, MslOptions, MslVersion};
use crate::spirv;

/// What a job calls to take its next input ahead (see `run_jobs`).
pub(super) type TakeNext<'a> = dyn FnMut(&mut Option<msl::worker::Worker>) + 'a;

/// An entry point's refusals (workgroup size, threadgroup memory, texel
/// buffers) and its binding layout.
pub(super) fn prepare_entry(
    input: &Input,
    e: &spirv::EntryPoint,
    options: &Options,
    t: &mut StageTimes,
) -> Result<(spirv::WorkgroupSize, msl::KernelLayout), Error> {
    let fail = |k: ErrorKind| Error::new(Some(&input.name), Some(&e.name), k);
    let workgroup = e.workgroup_size.ok_or_else(|| {
        fail(ErrorKind::Internal(
            "compute entry point without a workgroup size".into(),
        ))
    })?;
    if let Some((axis, _)) = workgroup
        .dims
        .iter()
        .enumerate()
        .find(|(_, d)| d.value == 0)
    {
        return Err(fail(ErrorKind::Rejected(format!(
            "workgroup size {:?} has a zero in dimension {}",
            workgroup.values(),
            ["x", "y", "z"][axis]
        ))));
    }
    if workgroup.total() > u64::from(MAX_THREADS_PER_THREADGROUP) {
        let [x, y, z] = workgroup.values();
        let total = u128::from(x) * u128::from(y) * u128::from(z);
        return Err(fail(ErrorKind::MetalLimit(format!(
            "workgroup size {x}x{y}x{z} = {total} threads exceeds Metal's {MAX_THREADS_PER_THREADGROUP} threads per threadgroup"
        ))));
    }
    if e.threadgroup_memory_bytes > u64::from(MAX_THREADGROUP_MEMORY_BYTES) {
        return Err(fail(ErrorKind::MetalLimit(format!(
            "uses {} bytes of threadgroup (shared) memory; Metal allows {MAX_THREADGROUP_MEMORY_BYTES}",
            e.threadgroup_memory_bytes
        ))));
    }
    if options.msl_version < (MslVersion { major: 2, minor: 1 })
        && e.bindings.iter().any(|b| {
            matches!(
                b.kind,
                spirv::BindingKind::UniformTexelBuffer | spirv::BindingKind::StorageTexelBuffer
            )
        })
    {
        return Err(fail(ErrorKind::MslVersion {
            what: "texel buffers (native texture buffers)".into(),
            needs: MslVersion { major: 2, minor: 1 },
            target: options.msl_version,
        }));
    }
    // Ray queries: Metal's `intersection_query` and the templated
    // `acceleration_structure<instancing>` SPIRV-Cross declares are MSL 2.4
    // (macOS 12, iOS 15).
    if let Some(b) = e
        .bindings
        .iter()
        .find(|b| b.kind == spirv::BindingKind::AccelerationStructure)
    {
        if options.msl_version < MslVersion::RAY_QUERIES {
            return Err(fail(ErrorKind::MslVersion {
                what: format!(
                    "(set {}, binding {}): an acceleration structure (ray queries, Metal's intersection_query)",
                    b.set, b.binding
                ),
                needs: MslVersion::RAY_QUERIES,
                target: options.msl_version,
            }));
        }
        if b.count != 1 {
            return Err(fail(ErrorKind::Rejected(format!(
                "(set {}, binding {}): an array of acceleration structures: halc binds one acceleration structure per binding (declare one `accelerationStructureEXT` per binding)",
                b.set, b.binding
            ))));
        }
    }
    // A storage image read and written by one kernel is an
    // `access::read_write` texture, which Metal allows only for some
    // pixel formats: refuse the others here, not at pipeline creation.
    if let Some((b, f)) = e.bindings.iter().find_map(|b| {
        let f = b.image.as_ref()?.format?;
        (b.kind == spirv::BindingKind::StorageImage
            && b.access == spirv::Access::ReadWrite
            && !READ_WRITE_FORMATS.contains(&f))
        .then_some((b, f))
    }) {
        return Err(fail(ErrorKind::MetalLimit(format!(
            "(set {}, binding {}): a storage image of {f} that the kernel both reads and writes: Metal's read-write textures take {} (read-write texture tier 2) and no other format; read it through one binding and write it through another",
            b.set,
            b.binding,
            READ_WRITE_FORMATS.join(", ")
        ))));
    }
    // A cube (or cube-array) storage image read and written by one kernel
    // would be a read-write cube texture, which halc has not run on Metal.
    if let Some(b) = e.bindings.iter().find(|b| {
        b.kind == spirv::BindingKind::StorageImage
            && b.access == spirv::Access::ReadWrite
            && b.image.as_ref().is_some_and(|i| i.dim == "cube")
    }) {
        return Err(fail(ErrorKind::Rejected(format!(
            "(set {}, binding {}): a cube storage image that the kernel both reads and writes: halc has not tested Metal's read-write cube textures, so it refuses them; read it through one binding and write it through another",
            b.set, b.binding
        ))));
    }
    // Image atomics: Metal's texture atomics (MSL 3.1); below, SPIRV-Cross
    // emulates them on a 2D r32 texture created on a buffer, which the
    // layout binds as the image's companion buffer. What that emulation
    // cannot do is refused here.
    if options.msl_version < MslVersion::TEXTURE_ATOMICS {
        for b in &e.bindings {
            let Some(i) = b.image.as_ref().filter(|i| i.atomic) else {
                continue;
            };
            // (what the atomic is on, why the emulation cannot take it)
            let why = if b.kind != spirv::BindingKind::StorageImage {
                Some((
                    "a storage texel buffer",
                    "it emulates them on textures created on a buffer",
                ))
            } else if i.dim != "2d" || i.arrayed {
                Some(match (i.dim, i.arrayed) {
                    ("2d", _) => (
                        "a 2D array image",
                        "Metal creates only single 2D textures on a buffer, so no buffer holds an array's layers as its texture does",
                    ),
                    ("1d", _) => (
                        "a 1D image",
                        "Metal creates only 2D textures on a buffer with rows",
                    ),
                    ("3d", _) => (
                        "a 3D image",
                        "Metal creates only single 2D textures on a buffer",
                    ),
                    _ => (
                        "a cube image",
                        "Metal creates only single 2D textures on a buffer",
                    ),
                })
            } else if b.count != 1 {
                Some((
                    "an array of storage images",
                    "SPIRV-Cross emulates single images only",
                ))
            } else if !matches!(i.format, Some("R32_UINT" | "R32_SINT")) {
                Some((
                    "a storage image of another format than r32ui and r32i",
                    "Metal's atomics are on 32-bit integers",
                ))
            } else {
                None
            };
            if let Some((on, why)) = why {
                return Err(fail(ErrorKind::MslVersion {
                    what: format!(
                        "(set {}, binding {}): an atomic operation on {on}, which halc emulates below MSL 3.1 only on single 2D r32ui and r32i storage images ({why}): Metal's texture atomics (macOS 14, iOS 17)",
                        b.set, b.binding
                    ),
                    needs: MslVersion::TEXTURE_ATOMICS,
                    target: options.msl_version,
                }));
            }
        }
    }
    let layout = t
        .time(Stage::Layout, || {
            msl::layout_for(e, &options.layout, options.msl_version)
        })
        .map_err(|k| fail(k.into()))?;
    Ok((workgroup, layout))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn compile_entry(
    input: &Input,
    name: String,
    words: &spirv::Words,
    info: &spirv::ModuleInfo,
    e: &spirv::EntryPoint,
    rewrites: &Rewrites,
    options: &Options,
    msl_opts: &MslOptions,
    worker: &mut Option<msl::worker::Worker>,
    verdict: &mut bool,
    take_next: Option<&mut TakeNext<'_>>,
    t: &mut StageTimes,
) -> Result<Kernel, Error> {
    let fail = |k: ErrorKind| Error::new(Some(&input.name), Some(&e.name), k);
    let float_control = info
        .capabilities
        .iter()
        .find(|c| *c == "SignedZeroInfNanPreserve" || *c == "RoundingModeRTE");
    let prepared = if let Some(mode) =
        float_control.filter(|_| options.math_mode == crate::MathMode::Fast)
    {
        Err(fail(ErrorKind::Rejected(format!(
            "the module declares the {mode} execution mode (SPV_KHR_float_controls), which Metal's fast math (--fast-math, `fast_math = true`) does not honour: {}; build it without fast math (halc's default, safe math, honours it)",
            if mode == "RoundingModeRTE" {
                "it may approximate division and reassociate, so results need not be rounded to nearest even"
            } else {
                "it may fold `x + 0.0` to `x`, `x - x` to 0 and `x / x` to 1, and assume no infinity or NaN"
            }
        ))))
    } else {
        prepare_entry(input, e, options, t)
    };
    let (workgroup, layout) = match prepared {
        Ok(p) => p,
        Err(err) => {
            settle(worker, verdict, t, &input.name)?;
            return Err(err);
        }
    };
    let generated = match &options.isolation {
        Isolation::InProcess => t
            .time(Stage::Generate, || {
                msl::generate(words, &e.name, &layout, msl_opts)
            })
            .map_err(|k| fail(k.into()))?,
        #[cfg(unix)]
        Isolation::Guarded { time_limit } => {
            let lines = guard_lines(&input.name, Some(&e.name), "SPIRV-Cross", *time_limit);
            t.time(Stage::Generate, || {
                crate::driver::guard::run(lines, *time_limit, || {
                    msl::worker::crash_for_test_before(false);
                    msl::generate(words, &e.name, &layout, msl_opts)
                })
            })
            .map_err(|k| fail(k.into()))?
        }
        _ => {
            let w = running_worker(worker, &options.isolation, t).map_err(fail)?;
            // The worker holds the module since it was sent for validation;
            // it takes this request up once the module is found valid.
            let start = Instant::now();
            w.send_generate(&e.name, &layout, msl_opts);
            t.add(Stage::Worker, start.elapsed());
            settle(worker, verdict, t, &input.name)?;
            // The module's last MSL is on its way: start the next module.
            if let Some(next) = take_next {
                next(worker);
            }
            let Some(w) = worker.as_mut() else {
                return Err(fail(ErrorKind::Internal("the worker is gone".into())));
            };
            let reply = w.generated();
            t.add(Stage::Generate, w.last_work());
            t.add(Stage::Worker, w.last_wait().saturating_sub(w.last_work()));
            match reply {
                Ok(g) => g,
                Err(err) => {
                    worker_failed(worker, &err);
                    return Err(fail(ErrorKind::Worker(err)));
                }
            }
        }
    };
    let mut workgroup = workgroup;
    let function_constants = t.time(Stage::CheckMsl, || {
        msl::check::check(
            &generated.source,
            &generated.function_name,
            &layout,
            &workgroup,
        )
        .map_err(|m| {
            fail(ErrorKind::Internal(format!(
                "generated MSL does not match the layout: {m}"
            )))
        })?;
        // Only a module with clustered subgroup operations or expectations
        // can hold the helpers looked for: other modules' MSL is not scanned.
        let clustered = info
            .capabilities
            .iter()
            .any(|c| c == "GroupNonUniformClustered" || c == "ExpectAssumeKHR");
        if let Some(why) = clustered
            .then(|| msl::check::known_miscompile(&generated.source))
            .flatten()
        {
            return Err(fail(ErrorKind::Rejected(why.into())));
        }
        // An instruction SPIRV-Cross has no MSL for is a comment in its
        // output, and its effect is missing.
        if let Some((line, op)) = msl::check::unimplemented_op(&generated.source) {
            return Err(fail(ErrorKind::Rejected(format!(
                "SPIRV-Cross has no MSL for {} (opcode {op}): it wrote `// unimplemented op {op}` in its place (MSL line {line}), leaving the instruction out",
                crate::model::error::op_name(op)
            ))));
        }
        // Variable pointers: SPIRV-Cross declares an OpPhi of Workgroup
        // pointers with its address space twice, which Metal rejects.
        let variable_pointers = info
            .capabilities
            .iter()
            .any(|c| c == "VariablePointers" || c == "VariablePointersStorageBuffer");
        if let Some((line, text)) = variable_pointers
            .then(|| msl::check::doubled_address_space(&generated.source))
            .flatten()
        {
            return Err(fail(ErrorKind::Rejected(format!(
                "a variable pointer that SPIRV-Cross declares with two address spaces, which Metal's compiler rejects (MSL line {line}: `{text}`): a pointer into Workgroup memory carried by OpPhi (through a loop) is not supported"
            ))));
        }
        // Image atomics whose signedness is not the image's: with Metal's
        // texture atomics SPIRV-Cross reinterprets the texture as the other
        // integer type, outside Metal's specification.
        if let Some((line, text)) = msl::check::texture_cast(&generated.source) {
            return Err(fail(ErrorKind::Rejected(format!(
                "a signed atomic min or max on an unsigned storage image, or an unsigned one on a signed image: with Metal's texture atomics SPIRV-Cross reinterprets the texture as the other integer type (MSL line {line}: `{text}`), which Metal does not specify (a texture's type must match its pixel format) and halc has not run on a Mac: give the image the atomic's signedness (r32i for OpAtomicSMin/SMax, r32ui for UMin/UMax), or compile below MSL 3.1, where the emulation through the image's buffer takes either"
            ))));
        }
        // Float atomics: SPIRV-Cross emits `atomic_float` whatever the
        // version; Metal has it from MSL 3.0 on.
        const FLOAT_ATOMICS: MslVersion = MslVersion { major: 3, minor: 0 };
        if let Some((line, text)) = (options.msl_version < FLOAT_ATOMICS)
            .then(|| msl::check::float_atomic(&generated.source))
            .flatten()
        {
            return Err(fail(ErrorKind::MslVersion {
                what: format!("an atomic operation on a 32-bit float (`atomic_float`, MSL line {line}: `{text}`)"),
                needs: FLOAT_ATOMICS,
                target: options.msl_version,
            }));
        }
        function_constants(&generated.source, &info.spec_constants, &mut workgroup).map_err(fail)
    })?;
    Ok(Kernel {
        name,
        input: input.name.clone(),
        entry: e.clone(),
        workgroup,
        layout,
        msl: generated,
        function_constants,
        baked: rewrites.baked.clone(),
        debug_printfs: rewrites.debug_printfs,
        capabilities: info.capabilities.clone(),
        metallib: None,
        blocks: spirv::Blocks::default(),
    })
}

/// The kernel's Metal function constants: the spec constants its MSL
/// declares `[[function_constant(id)]]`, each recorded with the type Metal
/// declares it as. SpecIds SPIRV-Cross fixed as macros (they size arrays)
/// are not function constants: a workgroup dimension they drive is fixed.
pub(super) fn function_constants(
    msl: &str,
    specs: &[spirv::SpecConstant],
    workgroup: &mut spirv::WorkgroupSize,
) -> Result<Vec<spirv::SpecConstant>, ErrorKind> {
    // Emulated image atomics declare SPIRV-Cross's row-alignment override,
    // which halc leaves unset (the alignment is baked in and recorded).
    let alignment_override = msl.contains(&format!(
        "spvLinearTextureAlignmentOverride [[function_constant({ALIGNMENT_CONSTANT_ID})]]"
    ));
    if alignment_override && specs.iter().any(|s| s.id == ALIGNMENT_CONSTANT_ID) {
        return Err(ErrorKind::Rejected(format!(
            "SpecId {ALIGNMENT_CONSTANT_ID} is the function constant SPIRV-Cross declares for the row alignment of emulated image atomics (below MSL 3.1): give the spec constant another SpecId, or compile with --msl-version 3.1"
        )));
    }
    let used = msl::check::spec_constant_use(msl)
        .map_err(|m| ErrorKind::Internal(format!("generated MSL: {m}")))?;
    let mut out = Vec::new();
    for sc in specs {
        let declared = used.function_constants.get(&sc.id);
        if declared.is_some() && used.macros.contains(&sc.id) {
            return Err(ErrorKind::Rejected(format!(
                "SpecId {} sizes an array, which SPIRV-Cross fixes when it generates the MSL, and is also read as a value, which stays a Metal function constant: specialising it at run time would change one and not the other; bake it with --spec {}=VALUE",
                sc.id, sc.id
            )));
        }
        let Some(msl_ty) = declared else { continue };
        // Metal's function constant has the type of the declaration
        // SPIRV-Cross chose; the others read its bits as their own type.
        let mut decls: Vec<spirv::reflect::SpecAlias> =
            std::iter::once(spirv::reflect::SpecAlias {
                ty: sc.ty,
                default: sc.default,
                name: sc.name.clone(),
            })
            .chain(sc.aliases.iter().cloned())
            .collect();
        let Some(main) = decls
            .iter()
            .position(|d| msl::check::msl_scalar(d.ty) == Some(msl_ty.as_str()))
        else {
            return Err(ErrorKind::Internal(format!(
                "function constant {} is declared as {msl_ty} in the MSL, but SpecId {} is a {}",
                sc.id, sc.id, sc.ty
            )));
        };
        let first = decls.remove(main);
        out.push(spirv::SpecConstant {
            id: sc.id,
            ty: first.ty,
            default: first.default,
            name: first.name,
            aliases: decls,
        });
    }
    if let Some(id) = used.function_constants.keys().find(|id| {
        let ours = alignment_override && **id == ALIGNMENT_CONSTANT_ID;
        !ours && !specs.iter().any(|s| s.id == **id)
    }) {
        return Err(ErrorKind::Internal(format!(
            "the MSL declares function constant {id}, which is no open spec constant"
        )));
    }
    for d in &mut workgroup.dims {
        if d.spec_id.is_some_and(|id| !out.iter().any(|c| c.id == id)) {
            d.spec_id = None;
        }
    }
    // A SpecId that sizes the workgroup and also declares a constant of
    // another type (valid SPIR-V: both read the same bytes) may become a
    // non-integer function constant; the executable sizes threadgroups
    // from integer function constants only.
    for (axis, d) in ["x", "y", "z"].iter().zip(&workgroup.dims) {
        let Some(c) = d.spec_id.and_then(|id| out.iter().find(|c| c.id == id)) else {
            continue;
        };
        if !matches!(c.ty, spirv::ScalarType::Int(_) | spirv::ScalarType::UInt(_)) {
            let name = c
                .name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default();
            return Err(ErrorKind::Rejected(format!(
                "SpecId {} sets the workgroup size {axis} and also declares the {} constant{name}, which is the type Metal gives function constant {}: a threadgroup dimension must be an integer constant; give the workgroup size a SpecId of its own",
                c.id, c.ty, c.id
            )));
        }
    }
    Ok(out)
}

/// The function constant SPIRV-Cross declares for emulated image atomics'
/// row alignment (`r32ui_alignment_constant_id`, its default).
const ALIGNMENT_CONSTANT_ID: u32 = 65535;

/// The pixel formats Metal's `access::read_write` textures take (read-write
/// texture tier 2: every Apple-silicon Mac, A13 and later), by their
/// Vulkan names.
const READ_WRITE_FORMATS: &[&str] = &[
    "R32_SFLOAT",
    "R32_UINT",
    "R32_SINT",
    "R32G32B32A32_SFLOAT",
    "R32G32B32A32_UINT",
    "R32G32B32A32_SINT",
    "R16G16B16A16_SFLOAT",
    "R16G16B16A16_UINT",
    "R16G16B16A16_SINT",
    "R8G8B8A8_UNORM",
    "R8G8B8A8_UINT",
    "R8G8B8A8_SINT",
    "R16_SFLOAT",
    "R16_UINT",
    "R16_SINT",
    "R8_UNORM",
    "R8_UINT",
    "R8_SINT",
];
