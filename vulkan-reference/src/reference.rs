//! [`Reference`]: the Vulkan instance, the chosen device and its queue.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::ffi::{c_char, CStr, CString};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ash::vk;

use crate::error::{vk_err, Error, Result};
use crate::features::{
    float_controls, parse_property, promoted_in, Ext, Feature, Structs, CORE_FIELDS, EXT_STRUCTS,
};

/// What [`Reference::open`] made: the logical device and what it was made
/// from.
struct Opened {
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    memory_props: vk::PhysicalDeviceMemoryProperties,
    /// Features enabled.
    enabled: BTreeSet<String>,
    /// Extensions enabled (device and instance).
    extensions: BTreeSet<String>,
    support: Support,
    /// The physical device chosen.
    cand: Candidate,
    /// The Vulkan version used.
    used: u32,
}

/// The default wait for one dispatch.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How to create a [`Reference`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceOptions {
    /// Pick the device whose name contains this (case-insensitive).
    /// `None`: lavapipe (driver id `VK_DRIVER_ID_MESA_LLVMPIPE`, or a
    /// device named `llvmpipe…`).
    pub device: Option<String>,
    /// Enable `robustBufferAccess` (out-of-bounds accesses become
    /// defined). Off by default, as in Amber: a kernel that reads out of
    /// bounds should be noticed, not smoothed over.
    pub robust_buffer_access: bool,
    /// Features and extensions to enable, in Amber's spelling:
    /// `VkPhysicalDeviceFeatures` fields (`shaderInt64`),
    /// `Float16Int8Features.shaderInt8`, `Storage16BitFeatures.…`,
    /// `Storage8BitFeatures.…`, `VariablePointerFeatures.…`,
    /// `SubgroupSizeControl.…`, `ShaderSubgroupExtendedTypesFeatures.…`,
    /// `VulkanMemoryModelFeatures.…`,
    /// `ZeroInitializeWorkgroupMemoryFeatures.…`,
    /// `CooperativeMatrixFeaturesKHR.…`, `BufferDeviceAddressFeatures.…`,
    /// `ShaderLongVectorFeaturesEXT.longVector`,
    /// `AccelerationStructureFeaturesKHR.…`, `RayTracingPipelineFeaturesKHR.…`,
    /// and four Amber lacks:
    /// `WorkgroupMemoryExplicitLayoutFeaturesKHR.…`,
    /// `ShaderSubgroupUniformControlFlowFeaturesKHR.…`,
    /// `ShaderAtomicFloatFeaturesEXT.…` and `RayQueryFeaturesKHR.rayQuery` (see
    /// [`feature_names`](crate::feature_names)). A feature of an
    /// extension structure that is not core in the Vulkan version used
    /// also enables its extension.
    /// `SubgroupSupportedOperations.…` / `SubgroupSupportedStages.…` are
    /// checked against the device's subgroup properties (nothing to
    /// enable). `VK_…` names are extensions: a device extension is
    /// enabled when the device lists it, an instance extension on the
    /// instance, and one promoted to core in the Vulkan version used is
    /// satisfied by the core version (enabled too when listed, as Amber
    /// does).
    ///
    /// Exactly these (and what
    /// [`optional_features`](Self::optional_features) adds) are enabled. A
    /// pipeline whose module needs a feature or extension the device
    /// supports but that was not enabled is refused, naming it: pass
    /// [`required_by_module`](crate::required_by_module)'s list as
    /// `optional_features` (or here, to skip on a device that lacks it).
    pub features: Vec<String>,
    /// Features and extensions (same names as
    /// [`features`](Self::features)) to enable when the device supports
    /// them and to leave off, without an error, when it does not: what
    /// [`required_by_module`](crate::required_by_module) lists for the
    /// modules a script did not ask for. The Vulkan CTS requires these of
    /// the device and enables them; the `amber` tool hands the module to
    /// the driver without them, which the reference then does too.
    pub optional_features: Vec<String>,
    /// Device properties that must hold, in Amber's spelling (its
    /// `DEVICE_PROPERTY`): `FloatControlsProperties.<field>` for each
    /// `VkBool32` of `VkPhysicalDeviceFloatControlsProperties`
    /// (`shaderDenormPreserveFloat16`, …; see
    /// [`property_names`](crate::property_names)). One that is false on
    /// the device (or a device without float controls) is reported with
    /// the unsupported features in [`Error::UnsupportedFeatures`], by the
    /// name given; an unknown name is [`Error::UnknownProperty`].
    pub properties: Vec<String>,
    /// How long [`Reference::dispatch`] waits (default 60 s).
    pub timeout: Duration,
}

impl Default for ReferenceOptions {
    fn default() -> Self {
        ReferenceOptions {
            device: None,
            robust_buffer_access: false,
            features: Vec::new(),
            optional_features: Vec::new(),
            properties: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// The driver behind a [`Reference`], for reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverInfo {
    /// `VkPhysicalDeviceDriverProperties::driverName` (`llvmpipe`), or
    /// empty when the device does not report it.
    pub name: String,
    /// `driverInfo` (`Mesa 25.0.7-2~bpo12+1 (LLVM 19.1.7)`), or the
    /// numeric `driverVersion` when the device does not report it.
    pub version: String,
    /// The device's Vulkan version, `major.minor.patch`.
    pub api_version: String,
    /// The Vulkan version used: the lowest of the device's, the loader's
    /// and 1.3.
    pub used_api_version: String,
    /// `VkPhysicalDeviceSubgroupProperties::subgroupSize`.
    pub subgroup_size: u32,
    /// `VkPhysicalDeviceSubgroupSizeControlProperties::minSubgroupSize`
    /// (`subgroup_size` when the device lacks subgroup size control).
    pub min_subgroup_size: u32,
    /// `maxSubgroupSize`, likewise.
    pub max_subgroup_size: u32,
}

impl fmt::Display for DriverInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} (Vulkan {}, subgroup size {})",
            self.name, self.version, self.api_version, self.subgroup_size
        )
    }
}

/// A Vulkan device ready to run compute kernels: one instance, one device,
/// one compute queue.
///
/// **Threads.** A `Reference` is `Send` but not `Sync`: use it from one
/// thread at a time (move it, or put it behind a `Mutex`). The same holds
/// for [`Buffer`](crate::Buffer). Buffers and pipelines keep the device
/// alive, so they may outlive the `Reference` that made them.
///
/// ```compile_fail
/// fn shared_between_threads<T: Sync>() {}
/// shared_between_threads::<vulkan_reference::Reference>();
/// ```
///
/// ```compile_fail
/// fn shared_between_threads<T: Sync>() {}
/// shared_between_threads::<vulkan_reference::Buffer>();
/// ```
///
/// **Time-outs.** When a dispatch does not finish within the time-out,
/// [`dispatch`](Reference::dispatch) returns [`Error::Timeout`] but the
/// driver keeps running it (Vulkan cannot cancel a submission; lavapipe
/// keeps a CPU thread busy with it). Until it ends, further dispatches
/// return [`Error::Busy`] (buffers and pipelines can still be created);
/// [`wait_idle`](Reference::wait_idle) waits for it, after which the
/// `Reference` works normally. Buffers and pipelines dropped meanwhile are
/// leaked rather than freed, and if it is still running when the last
/// handle is dropped, the device, the instance and the loaded `libvulkan`
/// are leaked too: destroying a device with work in flight is undefined
/// behaviour. A lost device (`VK_ERROR_DEVICE_LOST`) makes every later
/// call return [`Error::DeviceLost`].
pub struct Reference {
    pub(crate) inner: Arc<Inner>,
    timeout: Cell<Duration>,
}

/// What buffers and pipelines share with their `Reference`.
pub(crate) struct Inner {
    entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    /// The physical device chosen (format queries).
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) queue_family: u32,
    pub(crate) memory_props: vk::PhysicalDeviceMemoryProperties,
    pub(crate) limits: vk::PhysicalDeviceLimits,
    pub(crate) subgroup_control: SubgroupControl,
    /// Canonical names of the enabled features.
    pub(crate) enabled: BTreeSet<String>,
    /// The enabled device and instance extensions.
    pub(crate) extensions: BTreeSet<String>,
    /// What the device supports, enabled or not.
    pub(crate) support: Support,
    /// The Vulkan version used.
    pub(crate) api_version: u32,
    device_name: String,
    driver: DriverInfo,
    state: Mutex<State>,
}

/// Work that outlived its dispatch call, and whether the device is lost.
#[derive(Default)]
pub(crate) struct State {
    /// A submission that timed out and may still run.
    pub(crate) stuck: Option<Submitted>,
    /// `Some(entry)` once the device is lost.
    pub(crate) lost: Option<Option<String>>,
}

/// The per-dispatch objects that must live until the fence signals.
pub(crate) struct Submitted {
    pub(crate) fence: vk::Fence,
    pub(crate) command_pool: vk::CommandPool,
    pub(crate) descriptor_pool: vk::DescriptorPool,
    /// Texel-buffer views made for the dispatch.
    pub(crate) buffer_views: Vec<vk::BufferView>,
    pub(crate) entry: String,
}

impl Submitted {
    /// Destroys the objects. The fence must have signalled (or the device
    /// be lost).
    pub(crate) fn destroy(self, device: &ash::Device) {
        // SAFETY: the objects were created from `device`, are not used by
        // any pending work (the caller checked the fence) and are
        // destroyed once (`self` is consumed). Null handles are ignored.
        unsafe {
            device.destroy_fence(self.fence, None);
            device.destroy_command_pool(self.command_pool, None);
            device.destroy_descriptor_pool(self.descriptor_pool, None);
            for v in self.buffer_views {
                device.destroy_buffer_view(v, None);
            }
        }
    }
}

impl Inner {
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the device can take new work: settles a stuck submission
    /// that has since finished.
    pub(crate) fn ready(&self) -> Result<()> {
        let mut state = self.state();
        self.settle(&mut state)?;
        match &state.stuck {
            Some(s) => Err(Error::Busy {
                entry: s.entry.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Errors if lost; frees a stuck submission that has finished.
    pub(crate) fn settle(&self, state: &mut State) -> Result<()> {
        if let Some(entry) = &state.lost {
            return Err(Error::DeviceLost {
                entry: entry.clone(),
            });
        }
        if let Some(s) = &state.stuck {
            // SAFETY: the fence belongs to this device.
            match unsafe { self.device.get_fence_status(s.fence) } {
                Ok(false) => {}
                Ok(true) => state.stuck.take().unwrap().destroy(&self.device),
                Err(vk::Result::ERROR_DEVICE_LOST) => {
                    let s = state.stuck.take().unwrap();
                    let entry = Some(s.entry.clone());
                    s.destroy(&self.device);
                    state.lost = Some(entry.clone());
                    return Err(Error::DeviceLost { entry });
                }
                Err(e) => return Err(vk_err("vkGetFenceStatus")(e)),
            }
        }
        Ok(())
    }

    /// Whether objects the device may use can be destroyed now: no stuck
    /// submission is still running.
    pub(crate) fn may_destroy(&self) -> bool {
        let mut state = self.state();
        let _ = self.settle(&mut state);
        state.stuck.is_none()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = state.stuck.take() {
            // SAFETY: the fence belongs to this device.
            if unsafe { self.device.get_fence_status(s.fence) } == Ok(false) {
                // The driver still runs the timed-out dispatch. Destroying
                // the device under it is undefined behaviour (lavapipe
                // 25.0.7: SIGSEGV, tests/endless.rs). Leak the device and
                // instance, and keep libvulkan loaded for the life of the
                // process.
                std::mem::forget(self.entry.clone());
                return;
            }
            s.destroy(&self.device);
        }
        // SAFETY: every buffer and pipeline holds an `Arc<Inner>`, so none
        // is left; no work is pending (every dispatch waited for its fence,
        // or was settled above). A lost device may still be destroyed.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// `VkPhysicalDeviceSubgroupSizeControlProperties`, or what stands for
/// them on a device without subgroup size control (one fixed size, no
/// stage allowing a required size).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SubgroupControl {
    pub(crate) min: u32,
    pub(crate) max: u32,
    /// `maxComputeWorkgroupSubgroups`.
    pub(crate) max_workgroup_subgroups: u32,
    /// `requiredSubgroupSizeStages`.
    pub(crate) stages: vk::ShaderStageFlags,
}

/// What the device supports beyond what was enabled.
pub(crate) struct Support {
    /// Feature names (Amber's spelling) the device supports.
    pub(crate) features: BTreeSet<String>,
    /// Device extensions the device lists.
    pub(crate) extensions: BTreeSet<String>,
}

/// One physical device, described.
struct Candidate {
    handle: vk::PhysicalDevice,
    name: String,
    driver_id: Option<vk::DriverId>,
    driver_name: String,
    driver_version: String,
    api_version: u32,
    subgroup: (u32, vk::SubgroupFeatureFlags, vk::ShaderStageFlags),
    subgroup_control: SubgroupControl,
    /// `None` without float controls (neither Vulkan 1.2 nor
    /// `VK_KHR_shader_float_controls`).
    float_controls: Option<[bool; 15]>,
    limits: vk::PhysicalDeviceLimits,
}

impl Candidate {
    fn is_lavapipe(&self) -> bool {
        self.driver_id == Some(vk::DriverId::MESA_LLVMPIPE) || self.name.contains("llvmpipe")
    }

    fn describe(&self) -> String {
        if self.driver_name.is_empty() {
            self.name.clone()
        } else {
            format!("{} ({})", self.name, self.driver_name)
        }
    }
}

fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

fn c_str(bytes: &[c_char]) -> String {
    // SAFETY: reinterpreting c_char (i8 or u8) as u8 of the same size.
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len()) };
    CStr::from_bytes_until_nul(bytes)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| String::from_utf8_lossy(bytes).into_owned())
}

impl Reference {
    /// Loads `libvulkan.so.1`, creates an instance and a device on the
    /// chosen physical device with one compute queue and exactly the
    /// requested features.
    ///
    /// Errors: [`Error::NoVulkan`] (no loader), [`Error::NoDevice`] (no
    /// driver), [`Error::DeviceNotFound`] (no lavapipe / no name match;
    /// lists the devices), [`Error::UnknownFeature`],
    /// [`Error::UnsupportedFeatures`] (all of them at once), and Vulkan
    /// call failures.
    pub fn new(options: &ReferenceOptions) -> Result<Reference> {
        // (feature, required): optional ones are left off when the
        // device lacks them.
        let mut requested: Vec<(Feature, bool)> = Vec::new();
        if options.robust_buffer_access {
            requested.push((Feature::Core(0), true));
        }
        for (names, required) in [
            (&options.features, true),
            (&options.optional_features, false),
        ] {
            for name in names {
                let f = Feature::parse(name)?;
                if !requested.iter().any(|(g, _)| *g == f) {
                    requested.push((f, required));
                }
            }
        }
        let mut properties: Vec<(usize, &str)> = Vec::new();
        for name in &options.properties {
            let i = parse_property(name)?;
            if !properties.iter().any(|(j, _)| *j == i) {
                properties.push((i, name));
            }
        }

        // SAFETY: loading the system Vulkan loader; its initialisers are
        // trusted like any system library's.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| Error::NoVulkan {
            reason: e.to_string(),
        })?;
        // SAFETY: plain queries on a loaded entry.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(vk_err("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_1 {
            return Err(Error::TooOld {
                what: "the Vulkan loader".into(),
                major: vk::api_version_major(loader_version),
                minor: vk::api_version_minor(loader_version),
            });
        }
        let instance_version = loader_version.min(vk::API_VERSION_1_3);
        // SAFETY: a plain query.
        let instance_exts: BTreeSet<String> =
            unsafe { entry.enumerate_instance_extension_properties(None) }
                .map_err(vk_err("vkEnumerateInstanceExtensionProperties"))?
                .iter()
                .map(|e| c_str(&e.extension_name))
                .collect();
        let mut instance_enable: Vec<CString> = Vec::new();
        for (f, _) in &requested {
            if let Feature::Extension(name) = f {
                if instance_exts.contains(name) {
                    instance_enable.push(CString::new(name.as_str()).expect("no nul"));
                }
            }
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"halc vulkan-reference")
            .engine_name(c"vulkan-reference")
            .api_version(instance_version);
        let ext_ptrs: Vec<*const c_char> = instance_enable.iter().map(|c| c.as_ptr()).collect();
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&ext_ptrs);
        // SAFETY: `info` and what it points to live across the call.
        // The loader fails instance creation when it finds no driver.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(|e| match e {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => Error::NoDevice {
                detail: Some(format!("vkCreateInstance: {e}")),
            },
            e => vk_err("vkCreateInstance")(e),
        })?;

        let enabled_instance: BTreeSet<String> = instance_enable
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        match Self::open(
            &instance,
            instance_version,
            options,
            &requested,
            &properties,
            &enabled_instance,
        ) {
            Ok(Opened {
                device,
                queue,
                queue_family,
                memory_props,
                enabled,
                extensions,
                support,
                cand,
                used,
            }) => {
                let driver = DriverInfo {
                    name: cand.driver_name.clone(),
                    version: cand.driver_version.clone(),
                    api_version: version_string(cand.api_version),
                    used_api_version: version_string(used),
                    subgroup_size: cand.subgroup.0,
                    min_subgroup_size: cand.subgroup_control.min,
                    max_subgroup_size: cand.subgroup_control.max,
                };
                Ok(Reference {
                    inner: Arc::new(Inner {
                        entry,
                        instance,
                        physical: cand.handle,
                        device,
                        queue,
                        queue_family,
                        memory_props,
                        limits: cand.limits,
                        subgroup_control: cand.subgroup_control,
                        enabled,
                        extensions,
                        support,
                        api_version: used,
                        device_name: cand.name,
                        driver,
                        state: Mutex::new(State::default()),
                    }),
                    timeout: Cell::new(options.timeout),
                })
            }
            Err(e) => {
                // SAFETY: nothing else was created from the instance (the
                // device, if any, is destroyed in `open`).
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    /// Picks the physical device and creates the logical one.
    fn open(
        instance: &ash::Instance,
        instance_version: u32,
        options: &ReferenceOptions,
        requested: &[(Feature, bool)],
        properties: &[(usize, &str)],
        enabled_instance: &BTreeSet<String>,
    ) -> Result<Opened> {
        // SAFETY: plain queries on a live instance.
        let handles =
            unsafe { instance.enumerate_physical_devices() }.map_err(|e| Error::NoDevice {
                detail: Some(format!("vkEnumeratePhysicalDevices: {e}")),
            })?;
        if handles.is_empty() {
            return Err(Error::NoDevice { detail: None });
        }
        let mut candidates: Vec<Candidate> = handles
            .iter()
            .map(|&h| describe(instance, instance_version, h))
            .collect();
        let pick = match &options.device {
            None => candidates.iter().position(Candidate::is_lavapipe),
            Some(want) => {
                let want = want.to_lowercase();
                candidates
                    .iter()
                    .position(|c| c.name.to_lowercase().contains(&want))
            }
        };
        let Some(pick) = pick else {
            return Err(Error::DeviceNotFound {
                wanted: options.device.clone(),
                found: candidates.iter().map(Candidate::describe).collect(),
            });
        };
        let cand = candidates.swap_remove(pick);
        if cand.api_version < vk::API_VERSION_1_1 {
            return Err(Error::TooOld {
                what: format!("device {:?}", cand.name),
                major: vk::api_version_major(cand.api_version),
                minor: vk::api_version_minor(cand.api_version),
            });
        }
        let used = cand.api_version.min(instance_version);
        let pd = cand.handle;

        // SAFETY: plain queries on a live instance.
        let device_exts: BTreeSet<String> =
            unsafe { instance.enumerate_device_extension_properties(pd) }
                .map_err(vk_err("vkEnumerateDeviceExtensionProperties"))?
                .iter()
                .map(|e| c_str(&e.extension_name))
                .collect();

        // Extension structures: available in core or through their
        // extension. Every available one is queried (linked once each), so
        // that what the device supports is known beyond what is asked for.
        let mut available = [false; EXT_STRUCTS.len()];
        let mut core = [false; EXT_STRUCTS.len()];
        for s in &EXT_STRUCTS {
            core[s.ext as usize] = s
                .core_in
                .is_some_and(|(major, minor)| used >= vk::make_api_version(0, major, minor, 0));
            available[s.ext as usize] = core[s.ext as usize] || device_exts.contains(s.extension);
        }
        let queried: Vec<Ext> = EXT_STRUCTS
            .iter()
            .map(|s| s.ext)
            .filter(|e| available[*e as usize])
            .collect();
        let mut supported = Structs::default();
        {
            let mut f2 = supported.chain(&queried);
            // SAFETY: `f2`'s chain points at fields of `supported`, alive
            // and each linked once; each structure's extension is core or
            // listed by the device.
            unsafe { instance.get_physical_device_features2(pd, &mut f2) };
            let core = f2.features;
            supported.core = core;
        }
        let mut supported_features = BTreeSet::new();
        for (i, name) in CORE_FIELDS.iter().enumerate() {
            if *supported.core_slot(i) == vk::TRUE {
                supported_features.insert(name.to_string());
            }
        }
        for s in EXT_STRUCTS.iter().filter(|s| available[s.ext as usize]) {
            for (i, field) in s.fields.iter().enumerate() {
                if *supported.ext_slot(s.ext, i) == vk::TRUE {
                    supported_features.insert(format!("{}.{field}", s.prefix));
                }
            }
        }

        let mut unsupported = Vec::new();
        let mut enable = Structs::default();
        let mut enabled = BTreeSet::new();
        let mut used_structs: Vec<Ext> = Vec::new();
        let mut extensions: BTreeSet<String> = BTreeSet::new();
        for (f, required) in requested {
            let ok = match f {
                Feature::Core(_) | Feature::Ext(..) => supported_features.contains(&f.name()),
                Feature::SubgroupOp(op) => cand.subgroup.1.contains(*op),
                Feature::SubgroupStage(st) => cand.subgroup.2.contains(*st),
                Feature::Extension(name) => {
                    device_exts.contains(name)
                        || enabled_instance.contains(name)
                        || promoted_in(name).is_some_and(|v| used >= v)
                }
            };
            if !ok {
                if *required {
                    unsupported.push(f.name());
                }
                continue;
            }
            match f {
                Feature::Core(i) => *enable.core_slot(*i) = vk::TRUE,
                Feature::Ext(e, i) => {
                    *enable.ext_slot(*e, *i) = vk::TRUE;
                    if !used_structs.contains(e) {
                        used_structs.push(*e);
                    }
                    if !core[*e as usize] {
                        extensions.insert(EXT_STRUCTS[*e as usize].extension.to_string());
                    }
                }
                Feature::Extension(name) if device_exts.contains(name) => {
                    extensions.insert(name.clone());
                }
                _ => {}
            }
            enabled.insert(f.name());
        }
        for (i, name) in properties {
            if !cand.float_controls.is_some_and(|p| p[*i]) {
                unsupported.push(name.to_string());
            }
        }
        if !unsupported.is_empty() {
            return Err(Error::UnsupportedFeatures {
                device: cand.name.clone(),
                names: unsupported,
            });
        }

        // SAFETY: plain queries.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or_else(|| Error::NoComputeQueue {
                device: cand.name.clone(),
            })? as u32;
        // SAFETY: a plain query.
        let memory_props = unsafe { instance.get_physical_device_memory_properties(pd) };
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        if !memory_props.memory_types[..memory_props.memory_type_count as usize]
            .iter()
            .any(|t| t.property_flags.contains(host))
        {
            return Err(Error::NoHostMemory {
                device: cand.name.clone(),
            });
        }

        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let ext_names: Vec<CString> = extensions
            .iter()
            .map(|e| CString::new(e.as_str()).expect("no nul"))
            .collect();
        let ext_ptrs: Vec<*const c_char> = ext_names.iter().map(|c| c.as_ptr()).collect();
        let mut f2 = enable.chain(&used_structs);
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&ext_ptrs)
            .push_next(&mut f2);
        // SAFETY: `info` and its chain (fields of `enable`, each linked
        // once) live across the call.
        let device =
            unsafe { instance.create_device(pd, &info, None) }.map_err(vk_err("vkCreateDevice"))?;
        // SAFETY: queue 0 of a family created above.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        extensions.extend(enabled_instance.iter().cloned());
        let support = Support {
            features: supported_features,
            extensions: device_exts,
        };
        Ok(Opened {
            device,
            queue,
            queue_family,
            memory_props,
            enabled,
            extensions,
            support,
            cand,
            used,
        })
    }

    /// The device's name (`llvmpipe (LLVM 19.1.7, 256 bits)`).
    pub fn device_name(&self) -> &str {
        &self.inner.device_name
    }

    /// The driver's name and version, for reports.
    pub fn driver_info(&self) -> &DriverInfo {
        &self.inner.driver
    }

    /// The device's subgroup size (lavapipe here: 8, and its minimum and
    /// maximum are both 8, so it cannot be changed to match a 32-wide SIMD
    /// group).
    pub fn subgroup_size(&self) -> u32 {
        self.inner.driver.subgroup_size
    }

    /// The smallest and largest subgroup sizes of the device
    /// (`VkPhysicalDeviceSubgroupSizeControlProperties`; both the
    /// subgroup size when the device lacks subgroup size control): what
    /// Amber's `REQUIRED_SIZE MIN` / `MAX` stand for.
    pub fn subgroup_size_range(&self) -> (u32, u32) {
        let c = self.inner.subgroup_control;
        (c.min, c.max)
    }

    /// The features enabled on the device, by their Amber names.
    pub fn enabled_features(&self) -> impl Iterator<Item = &str> {
        self.inner.enabled.iter().map(String::as_str)
    }

    /// How long [`dispatch`](Reference::dispatch) waits.
    pub fn timeout(&self) -> Duration {
        self.timeout.get()
    }

    /// Sets how long [`dispatch`](Reference::dispatch) waits.
    pub fn set_timeout(&self, timeout: Duration) {
        self.timeout.set(timeout);
    }

    /// Waits up to `timeout` for a dispatch that timed out earlier.
    /// `Ok` when the device is idle and usable again; [`Error::Busy`] if it
    /// is still running; [`Error::DeviceLost`] if the device was lost.
    pub fn wait_idle(&self, timeout: Duration) -> Result<()> {
        let mut state = self.inner.state();
        self.inner.settle(&mut state)?;
        let Some(s) = &state.stuck else {
            return Ok(());
        };
        let fence = s.fence;
        let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: the fence belongs to this device; the state lock keeps
        // it from being destroyed meanwhile.
        let r = unsafe { self.inner.device.wait_for_fences(&[fence], true, ns) };
        match r {
            Ok(()) | Err(vk::Result::ERROR_DEVICE_LOST) => self.inner.settle(&mut state),
            Err(vk::Result::TIMEOUT) => Err(Error::Busy {
                entry: s.entry.clone(),
            }),
            Err(e) => Err(vk_err("vkWaitForFences")(e)),
        }
    }
}

impl fmt::Debug for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reference")
            .field("device", &self.inner.device_name)
            .field("driver", &self.inner.driver)
            .field("enabled", &self.inner.enabled)
            .finish_non_exhaustive()
    }
}

/// Reads a physical device's name, driver and subgroup properties.
fn describe(instance: &ash::Instance, instance_version: u32, pd: vk::PhysicalDevice) -> Candidate {
    // SAFETY: plain queries on a live instance.
    let basic = unsafe { instance.get_physical_device_properties(pd) };
    let used = basic.api_version.min(instance_version);
    // SAFETY: a plain query.
    let exts: BTreeSet<String> = unsafe { instance.enumerate_device_extension_properties(pd) }
        .unwrap_or_default()
        .iter()
        .map(|e| c_str(&e.extension_name))
        .collect();
    let has = |core: u32, ext: &str| used >= core || exts.contains(ext);
    let has_driver_props = has(vk::API_VERSION_1_2, "VK_KHR_driver_properties");
    let has_size_control = has(vk::API_VERSION_1_3, "VK_EXT_subgroup_size_control");
    let has_float_controls = has(vk::API_VERSION_1_2, "VK_KHR_shader_float_controls");
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut float = vk::PhysicalDeviceFloatControlsProperties::default();
    {
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        if has_driver_props {
            p2 = p2.push_next(&mut driver);
        }
        if has_size_control {
            p2 = p2.push_next(&mut size_control);
        }
        if has_float_controls {
            p2 = p2.push_next(&mut float);
        }
        // SAFETY: the chain points at live locals, each linked once.
        unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
    }
    let subgroup_control = if has_size_control {
        SubgroupControl {
            min: size_control.min_subgroup_size,
            max: size_control.max_subgroup_size,
            max_workgroup_subgroups: size_control.max_compute_workgroup_subgroups,
            stages: size_control.required_subgroup_size_stages,
        }
    } else {
        SubgroupControl {
            min: subgroup.subgroup_size,
            max: subgroup.subgroup_size,
            max_workgroup_subgroups: 0,
            stages: vk::ShaderStageFlags::empty(),
        }
    };
    let (driver_id, driver_name, driver_version) = if has_driver_props {
        (
            Some(driver.driver_id),
            c_str(&driver.driver_name),
            c_str(&driver.driver_info),
        )
    } else {
        (None, String::new(), format!("{:#x}", basic.driver_version))
    };
    Candidate {
        handle: pd,
        name: c_str(&basic.device_name),
        driver_id,
        driver_name,
        driver_version,
        api_version: basic.api_version,
        subgroup: (
            subgroup.subgroup_size,
            subgroup.supported_operations,
            subgroup.supported_stages,
        ),
        subgroup_control,
        float_controls: has_float_controls.then(|| float_controls(&float)),
        limits: basic.limits,
    }
}
