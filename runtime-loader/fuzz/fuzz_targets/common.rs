//! Shared by the loader fuzz targets: load, then exercise every view and
//! build a dispatch plan with bindings shaped by the kernel's own layout.

use runtime_loader::plan::{Bindings, BufferBinding, DispatchPlan, Grid, Resource, Specialization};
use runtime_loader::schema::BindingKind;
use runtime_loader::Executable;

pub fn exercise(data: &[u8]) {
    let Ok(exe) = Executable::load(data) else { return };
    for lib in exe.libraries() {
        let _ = (lib.msl_source(), lib.metallib().map(<[u8]>::len), lib.metallib_toolchain());
    }
    for k in exe.entry_points() {
        let _ = (k.name(), k.msl_name(), k.entry_point(), k.source_file(), k.threadgroup_size());
        let _ = (k.capabilities().count(), k.push_constant_members().count(), k.baked_constants().count());
        for c in k.function_constants() {
            let _ = (c.name(), c.aliases().count());
        }
        let mut b = Bindings::new();
        for binding in k.bindings() {
            let resource = |i: u32| match binding.kind() {
                BindingKind::StorageBuffer | BindingKind::UniformBuffer => {
                    Resource::Buffer(BufferBinding {
                        gpu_address: 0x1_0000_0000 * u64::from(i + 1),
                        offset: 0,
                        length: binding.min_size().clamp(4, 1 << 20),
                    })
                }
                BindingKind::Sampler => Resource::Sampler { resource_id: 1 },
                BindingKind::CombinedImageSampler => {
                    Resource::CombinedImageSampler { texture_id: 2, sampler_id: 1 }
                }
                _ => Resource::Texture { resource_id: 2 },
            };
            b.bind_array(binding.set(), binding.binding(), (0..binding.count().min(4096)).map(resource));
        }
        let push = vec![0; k.push_constants().map_or(0, |p| p.size as usize)];
        let spec = Specialization::defaults(&k);
        let _ = DispatchPlan::new(&k, &spec, &b, &push, Grid::Threads([1000, 3, 1]));
    }
}
