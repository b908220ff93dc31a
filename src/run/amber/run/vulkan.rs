//! The `vulkan` side: the original SPIR-V on a Vulkan driver through the
//! `vulkan-reference` crate, served by the `halc` binary itself.

use std::collections::BTreeMap;
use std::path::Path;

use vulkan_reference::{BindingKind, Format, SamplerDesc, SessionBound, SessionResource};

use super::prepare::spec_value;
use super::side::{buffer, Prepared, Side, Stop};
use crate::run::amber::{BindKind, Pipeline, RequiredSize};

/// The argument that makes the `halc` binary serve a Vulkan
/// [`Session`](vulkan_reference::Session) on its stdin and stdout.
pub const VULKAN_REFERENCE_ARG: &str = "__vulkan-reference";

/// Where the Vulkan side runs: `program __vulkan-reference`, confined
/// ([`confine_reference`]), or in this process.
pub(crate) fn vulkan_place(program: Option<&Path>) -> vulkan_reference::Place {
    match program {
        Some(p) => {
            let mut c = std::process::Command::new(p);
            c.arg(VULKAN_REFERENCE_ARG);
            confine_reference(&mut c, REFERENCE_ADDRESS_SPACE);
            vulkan_reference::Place::Child(c)
        }
        None => vulkan_reference::Place::InProcess,
    }
}

/// The Vulkan reference's process's address space: 64 GiB, room for the
/// driver, LLVM compiling its pipelines and the largest buffers an Amber
/// file may declare (1 GiB each).
pub const REFERENCE_ADDRESS_SPACE: u64 = 64 << 30;

/// Environment variables the Vulkan reference's process keeps: what the
/// Vulkan loader and Mesa read (`VK_ICD_FILENAMES`, `VK_DRIVER_FILES`,
/// `LP_NUM_THREADS`, `MESA_*`, the XDG directories and `HOME` the loader
/// searches for drivers, `LD_LIBRARY_PATH`), and the marker halc's tests
/// find processes by. Nothing else of the caller's environment (tokens,
/// credentials) reaches the driver.
const REFERENCE_ENV: &[&str] = &["HOME", "LD_LIBRARY_PATH", "HALC_TEST_MARK"];
const REFERENCE_ENV_PREFIXES: &[&str] =
    &["VK_", "LP_", "MESA_", "GALLIUM_", "LVP_", "NIR_", "XDG_"];

/// Confines the Vulkan reference's process, which hands SPIR-V someone else
/// wrote to a driver: the environment reduced to `REFERENCE_ENV` and the variables starting with `REFERENCE_ENV_PREFIXES`; every
/// descriptor but stdin, stdout and stderr closed when it starts (marked
/// close-on-exec, Linux 5.11 on); no core dump; at most `address_space`
/// bytes of address space. The process itself then refuses network system
/// calls and starting programs ([`refuse_network_and_programs`], `halc
/// __vulkan-reference`).
pub fn confine_reference(c: &mut std::process::Command, address_space: u64) {
    c.env_clear();
    for (k, v) in std::env::vars_os() {
        let keep = k.to_str().is_some_and(|k| {
            REFERENCE_ENV.contains(&k) || REFERENCE_ENV_PREFIXES.iter().any(|p| k.starts_with(p))
        });
        if keep {
            c.env(k, v);
        }
    }
    // SAFETY: the closure runs in the forked child before exec and makes
    // system calls only (close_range, setrlimit), allocating nothing.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(c, move || {
            #[cfg(target_os = "linux")]
            {
                // CLOSE_RANGE_CLOEXEC: closed at exec, after Command's own
                // error pipe (already close-on-exec) has done its work. A
                // kernel without it leaves them open.
                const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
                libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
            }
            for (resource, limit) in [(libc::RLIMIT_CORE, 0), (libc::RLIMIT_AS, address_space)] {
                let l = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                // Elsewhere than Linux a limit the system does not take
                // (macOS and RLIMIT_AS) is left unset.
                if libc::setrlimit(resource, &l) != 0 && cfg!(target_os = "linux") {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        })
    };
}

/// In the Vulkan reference's process (`halc __vulkan-reference`), before
/// the driver is loaded: every system call that makes or uses a network
/// socket, and starting another program, fails with `EPERM` from here on
/// (a seccomp filter, Linux; nothing elsewhere).
pub fn refuse_network_and_programs() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let filter = runtime_loader::process::refusing_filter(true)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        runtime_loader::process::refuse(filter)
    }
    #[cfg(not(target_os = "linux"))]
    Ok(())
}

pub(super) struct VulkanSide {
    pub(super) reference: vulkan_reference::Session,
    pub(super) buffers: BTreeMap<String, vulkan_reference::BufferId>,
    /// Each buffer's format, for those that have one.
    pub(super) formats: BTreeMap<String, Format>,
    /// Images, with what each was made as.
    pub(super) images: BTreeMap<String, (vulkan_reference::ImageId, vulkan_reference::ImageDesc)>,
    pub(super) samplers: BTreeMap<String, vulkan_reference::SamplerId>,
    pub(super) pipelines: BTreeMap<String, vulkan_reference::PipelineId>,
    pub(super) accels: BTreeMap<String, vulkan_reference::AccelerationStructureId>,
}

impl Side for VulkanSide {
    fn label(&self) -> &'static str {
        "vulkan"
    }

    fn create(&mut self, name: &str, bytes: &[u8], format: Option<Format>) -> Result<(), String> {
        let b = self.reference.buffer(bytes).map_err(|e| e.to_string())?;
        self.buffers.insert(name.to_string(), b);
        if let Some(f) = format {
            self.formats.insert(name.to_string(), f);
        }
        Ok(())
    }

    fn create_image(
        &mut self,
        name: &str,
        desc: &vulkan_reference::ImageDesc,
        bytes: &[u8],
    ) -> Result<(), String> {
        let i = self
            .reference
            .image(desc, bytes)
            .map_err(|e| e.to_string())?;
        self.images.insert(name.to_string(), (i, *desc));
        Ok(())
    }

    fn create_sampler(&mut self, name: &str, desc: &SamplerDesc) -> Result<(), String> {
        let s = self.reference.sampler(desc).map_err(|e| e.to_string())?;
        self.samplers.insert(name.to_string(), s);
        Ok(())
    }

    fn create_acceleration_structure(
        &mut self,
        name: &str,
        scene: &runtime_loader::scene::TopLevel,
    ) -> Result<(), Stop> {
        match self.reference.acceleration_structure(scene) {
            Ok(a) => {
                self.accels.insert(name.to_string(), a);
                Ok(())
            }
            Err(e @ vulkan_reference::Error::UnsupportedFeatures { .. }) => {
                Err(Stop::Skip(e.to_string()))
            }
            Err(e) => Err(Stop::Fail(e.to_string())),
        }
    }

    fn read(&self, name: &str) -> Result<Vec<u8>, String> {
        if let Some((i, desc)) = self.images.get(name) {
            let levels = self.reference.read_image(*i).map_err(|e| e.to_string())?;
            return Ok(crate::run::amber::readback(desc, &levels));
        }
        self.reference
            .read(*buffer(&self.buffers, name)?)
            .map_err(|e| e.to_string())
    }

    fn write(&mut self, name: &str, offset: usize, bytes: &[u8]) -> Result<(), String> {
        if self.images.contains_key(name) {
            return Err(format!(
                "`{name}` is an image: halc test writes images only when it creates them"
            ));
        }
        self.reference
            .write(*buffer(&self.buffers, name)?, offset, bytes)
            .map_err(|e| e.to_string())
    }

    fn dispatch(
        &mut self,
        p: &Pipeline,
        prepared: &Prepared,
        push: &[u8],
        groups: [u32; 3],
    ) -> Result<(), String> {
        // Amber pushes the whole buffer bound as push_constant; its range
        // is the buffer's size rounded up to 4 bytes.
        let mut push = push.to_vec();
        push.resize(push.len().next_multiple_of(4), 0);
        let push = &push[..];
        if !self.pipelines.contains_key(&p.name) {
            // As amber does, the descriptor set layouts are the pipeline's
            // BIND commands, not a reflection of the module.
            let bindings: Vec<vulkan_reference::BindingDesc> = p
                .binds
                .iter()
                .filter_map(|b| {
                    let (set, binding) = b.kind.slot()?;
                    let kind = match b.kind {
                        BindKind::Storage { .. } => BindingKind::Storage,
                        BindKind::Uniform { .. } => BindingKind::Uniform,
                        BindKind::StorageImage { .. } => BindingKind::StorageImage,
                        BindKind::SampledImage { .. } => BindingKind::SampledImage,
                        BindKind::CombinedImageSampler { .. } => BindingKind::CombinedImageSampler,
                        BindKind::Sampler { .. } => BindingKind::Sampler,
                        BindKind::UniformTexelBuffer { .. } => BindingKind::UniformTexelBuffer,
                        BindKind::StorageTexelBuffer { .. } => BindingKind::StorageTexelBuffer,
                        BindKind::AccelerationStructure { .. } => {
                            BindingKind::AccelerationStructure
                        }
                        BindKind::PushConstant => return None,
                    };
                    Some(vulkan_reference::BindingDesc {
                        set,
                        binding,
                        kind,
                        count: b.elements.len() as u32,
                    })
                })
                .collect();
            let mut specialization: Vec<(u32, Vec<u8>)> = p
                .specialize
                .iter()
                .map(|s| spec_value(s).map(|v| (s.id, (v.bits as u32).to_le_bytes().to_vec())))
                .collect::<Result<_, _>>()?;
            specialization.extend(prepared.vulkan_specs.iter().cloned());
            let pipeline = self
                .reference
                .pipeline(&vulkan_reference::PipelineDesc {
                    spirv: &prepared.spirv,
                    entry: &p.entry,
                    specialization: &specialization,
                    bindings: &bindings,
                    push_constant_size: push.len() as u32,
                    require_full_subgroups: p.full_subgroups,
                    allow_varying_subgroup_size: p.varying_subgroups,
                    required_subgroup_size: p.subgroup_size.map(|r| {
                        let (min, max) = self.reference.subgroup_size_range();
                        match r {
                            RequiredSize::Exact(n) => n,
                            RequiredSize::Min => min,
                            RequiredSize::Max => max,
                        }
                    }),
                })
                .map_err(|e| e.to_string())?;
            self.pipelines.insert(p.name.clone(), pipeline);
        }
        let mut bound = Vec::new();
        for b in &p.binds {
            let Some((set, binding)) = b.kind.slot() else {
                continue;
            };
            for (element, e) in b.elements.iter().enumerate() {
                let image = |name: &str| {
                    self.images
                        .get(name)
                        .map(|(i, _)| *i)
                        .ok_or_else(|| format!("`{name}` is not an image"))
                };
                let resource = match b.kind {
                    BindKind::Storage { .. } | BindKind::Uniform { .. } => {
                        SessionResource::Buffer {
                            buffer: *buffer(&self.buffers, &e.buffer)?,
                            offset: e.offset,
                            range: e.range,
                        }
                    }
                    BindKind::UniformTexelBuffer { .. } | BindKind::StorageTexelBuffer { .. } => {
                        SessionResource::TexelBuffer {
                            buffer: *buffer(&self.buffers, &e.buffer)?,
                            format: *self
                                .formats
                                .get(&e.buffer)
                                .ok_or_else(|| format!("`{}` has no format", e.buffer))?,
                            offset: e.offset,
                            range: e.range,
                        }
                    }
                    BindKind::StorageImage { .. } | BindKind::SampledImage { .. } => {
                        match e.base_mip_level {
                            0 => SessionResource::Image(image(&e.buffer)?),
                            base => SessionResource::ImageFromLevel(image(&e.buffer)?, base),
                        }
                    }
                    BindKind::Sampler { .. } => {
                        SessionResource::Sampler(*buffer(&self.samplers, &e.buffer)?)
                    }
                    BindKind::CombinedImageSampler { .. } => {
                        let sampler = e.sampler.as_deref().ok_or("no sampler")?;
                        let sampler = *buffer(&self.samplers, sampler)?;
                        match e.base_mip_level {
                            0 => SessionResource::CombinedImageSampler(image(&e.buffer)?, sampler),
                            base => SessionResource::CombinedImageSamplerFromLevel(
                                image(&e.buffer)?,
                                sampler,
                                base,
                            ),
                        }
                    }
                    BindKind::AccelerationStructure { .. } => {
                        SessionResource::AccelerationStructure(
                            *self.accels.get(&e.buffer).ok_or_else(|| {
                                format!("unknown acceleration structure `{}`", e.buffer)
                            })?,
                        )
                    }
                    BindKind::PushConstant => continue,
                };
                bound.push(SessionBound {
                    set,
                    binding,
                    element: element as u32,
                    resource,
                });
            }
        }
        self.reference
            .dispatch(self.pipelines[&p.name], &bound, push, groups)
            .map_err(|e| e.to_string())
    }

    fn subgroup_size(&self) -> Option<u32> {
        Some(self.reference.subgroup_size())
    }

    fn subgroup_range(&self) -> Option<(u32, u32)> {
        Some(self.reference.subgroup_size_range())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::process::Command;

    use super::*;

    /// What a confined shell sees: its environment, whether descriptor
    /// `fd` is open, its address-space limit.
    fn probe(fd: i32, address_space: Option<u64>) -> std::process::Output {
        let mut c = Command::new("sh");
        c.arg("-c").arg(format!(
            "env; if [ -e /proc/self/fd/{fd} ]; then echo fd open; else echo fd closed; fi; grep 'Max address space' /proc/self/limits"
        ));
        if let Some(bytes) = address_space {
            confine_reference(&mut c, bytes);
        }
        c.output().unwrap()
    }

    /// The Vulkan reference's process gets no variable of the caller's
    /// environment but the loader's and Mesa's, no descriptor but stdin,
    /// stdout and stderr, and its address-space limit; the unconfined
    /// control gets `PATH` and the descriptor.
    #[test]
    fn the_vulkan_reference_process_gets_no_environment_descriptors_or_unbounded_memory() {
        // A descriptor without close-on-exec, as a jobserver's are.
        // SAFETY: dup of stdin; closed below.
        let fd = unsafe { libc::dup(0) };
        assert!(fd > 2);
        let confined = probe(fd, Some(REFERENCE_ADDRESS_SPACE));
        let control = probe(fd, None);
        // SAFETY: closing the descriptor duplicated above, once.
        unsafe { libc::close(fd) };
        let text = String::from_utf8_lossy(&confined.stdout);
        assert!(confined.status.success(), "{text}");
        assert!(
            !text.lines().any(|l| l.starts_with("PATH=")) && text.contains("fd closed"),
            "{text}"
        );
        assert!(
            text.contains(&format!("{REFERENCE_ADDRESS_SPACE}")),
            "{text}"
        );
        for line in text.lines().filter(|l| l.contains('=')) {
            let name = line.split('=').next().unwrap();
            assert!(
                REFERENCE_ENV.contains(&name)
                    || REFERENCE_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
                    // What sh sets itself.
                    || ["PWD", "OLDPWD", "SHLVL", "_"].contains(&name),
                "{name} reached the reference's process:\n{text}"
            );
        }
        let control = String::from_utf8_lossy(&control.stdout);
        assert!(
            control.lines().any(|l| l.starts_with("PATH=")) && control.contains("fd open"),
            "{control}"
        );
        // The limit applies: in 1 MiB of address space no shell starts.
        let tiny = probe(fd, Some(1 << 20));
        assert!(!tiny.status.success(), "{tiny:?}");
    }

    /// After [`refuse_network_and_programs`] a process can neither open a
    /// socket nor start a program (`EPERM`); the control, forked the same
    /// way without it, can.
    #[test]
    fn the_vulkan_reference_process_refuses_sockets_and_programs() {
        // Compiled before forking (the child may not allocate).
        runtime_loader::process::refusing_filter(true).unwrap();
        let child = |refuse: bool| -> i32 {
            // SAFETY: the child makes system calls only and ends in _exit.
            unsafe {
                let pid = libc::fork();
                if pid == 0 {
                    if refuse && refuse_network_and_programs().is_err() {
                        libc::_exit(10);
                    }
                    let s = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
                    let socket_refused = s < 0 && *libc::__errno_location() == libc::EPERM;
                    if !refuse && socket_refused {
                        libc::_exit(1);
                    }
                    // `sh -c 'exit 42'`: 42 if it runs.
                    let sh = c"/bin/sh".as_ptr();
                    let argv = [sh, c"-c".as_ptr(), c"exit 42".as_ptr(), std::ptr::null()];
                    let envp = [std::ptr::null()];
                    libc::execve(sh, argv.as_ptr(), envp.as_ptr());
                    let exec_refused = *libc::__errno_location() == libc::EPERM;
                    libc::_exit(i32::from(socket_refused) + 2 * i32::from(exec_refused));
                }
                let mut status = 0;
                libc::waitpid(pid, &mut status, 0);
                assert!(libc::WIFEXITED(status), "{status:#x}");
                libc::WEXITSTATUS(status)
            }
        };
        // Both refused.
        assert_eq!(child(true), 3);
        // The control: the socket opens and the shell runs.
        assert_eq!(child(false), 42);
    }
}
