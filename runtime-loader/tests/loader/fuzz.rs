//! Arbitrary bytes never panic the loader, and whatever loads never panics
//! the planner.

use runtime_loader::plan::{
    Bindings, BufferBinding, DispatchPlan, Grid, Resource, SpecValue, Specialization,
};
use runtime_loader::schema::BindingKind;
use runtime_loader::{Executable, VerifyLimits};

use crate::common::all;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every string and record of a loaded executable resolves: the typed views
/// read them without checks that could fail.
fn strings_resolve(exe: &Executable<'_>) {
    let strings = exe.strings();
    let resolves = |s: &runtime_loader::schema::Str, what: &str| {
        assert!(strings.get(s).is_some(), "{what}: {s:?} does not resolve");
    };
    let raw = exe.raw();
    for k in exe.kernels() {
        let n = k.names();
        for (s, what) in [
            (n.name(), "name"),
            (n.msl_name(), "msl_name"),
            (n.entry_point(), "entry_point"),
            (n.source_file(), "source_file"),
        ] {
            resolves(s, what);
        }
    }
    for s in raw.binding_names().iter().flatten() {
        resolves(s, "binding name");
    }
    for s in raw.capabilities().iter().flatten() {
        resolves(s, "capability");
    }
    for m in raw.push_constant_members().iter().flatten() {
        resolves(m.name(), "member name");
        resolves(m.type_(), "member type");
    }
    for c in raw.function_constants().iter().flatten() {
        resolves(c.name(), "function constant name");
    }
    for a in raw.function_constant_aliases().iter().flatten() {
        resolves(a.name(), "alias name");
    }
    for k in exe.entry_points() {
        assert_eq!(
            exe.kernel(k.name()).map(|r| r.names().name()),
            Some(k.raw().names().name())
        );
        let _ = (
            k.source_file(),
            k.capabilities().count(),
            k.push_constant_members().count(),
            k.baked_constants().count(),
        );
        for c in k.function_constants() {
            let _ = c.name();
            for a in c.aliases() {
                let _ = (a.name(), a.default_bits());
            }
        }
    }
    if let Some(b) = exe.build_info() {
        let _ = (
            b.halc_version(),
            b.spirv_cross_version(),
            b.options().count(),
        );
    }
    for lib in exe.libraries() {
        let _ = (lib.metallib_toolchain(), lib.msl_source(), lib.metallib());
    }
}

/// Plans every kernel with bindings that fit its layout, then with a few
/// random variations: must return, never panic.
fn exercise(exe: &Executable<'_>, rng: &mut Rng) -> usize {
    strings_resolve(exe);
    let mut planned = 0;
    for k in exe.entry_points() {
        let mut b = Bindings::new();
        for binding in k.bindings() {
            let count = binding.count().min(64) as usize;
            let resource = |i: usize| match binding.kind() {
                BindingKind::StorageBuffer | BindingKind::UniformBuffer => {
                    Resource::Buffer(BufferBinding {
                        gpu_address: 0x1_0000 * (i as u64 + 1),
                        offset: 0,
                        length: binding.min_size().max(4),
                    })
                }
                BindingKind::Sampler => Resource::Sampler {
                    resource_id: i as u64,
                },
                BindingKind::CombinedImageSampler => Resource::CombinedImageSampler {
                    texture_id: i as u64,
                    sampler_id: i as u64,
                },
                BindingKind::AccelerationStructure => Resource::AccelerationStructure {
                    resource_id: i as u64,
                    primitive_structures: 1,
                },
                _ => Resource::Texture {
                    resource_id: i as u64,
                },
            };
            b.bind_array(binding.set(), binding.binding(), (0..count).map(resource));
        }
        let push = vec![0u8; k.push_constants().map_or(0, |p| p.size as usize)];
        let mut values = Vec::new();
        for c in k.function_constants() {
            if rng.below(2) == 0 {
                values.push(SpecValue {
                    id: c.id(),
                    bits: rng.next() % 2048,
                });
            }
        }
        let spec =
            Specialization::new(&k, &values).unwrap_or_else(|_| Specialization::defaults(&k));
        let grids = [
            Grid::Threads([rng.next() as u32, 1, 1]),
            Grid::Threads([u32::MAX, u32::MAX, u32::MAX]),
            Grid::Threadgroups([1 + rng.next() as u32 % 8, 1, 1]),
        ];
        for grid in grids {
            if DispatchPlan::new(&k, &spec, &b, &push, grid).is_ok() {
                planned += 1;
            }
        }
        // Random damage to the bindings.
        let mut b2 = b.clone();
        b2.buffer(
            rng.next() as u32 % 4,
            rng.next() as u32 % 8,
            rng.next(),
            rng.next() % 64,
            rng.next() % 64,
        );
        let _ = DispatchPlan::new(&k, &spec, &b2, &push, Grid::Threads([1, 1, 1]));
        let _ = DispatchPlan::new(
            &k,
            &spec,
            &b,
            &push[..push.len() / 2],
            Grid::Threads([1, 1, 1]),
        );
    }
    planned
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..4000 {
        let len = rng.below(512);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if i % 2 == 0 && bytes.len() >= 8 {
            bytes[4..8].copy_from_slice(b"HALC");
        }
        if i % 4 == 0 && bytes.len() >= 4 {
            // A plausible root offset.
            let off = (rng.below(bytes.len()) as u32) & !3;
            bytes[0..4].copy_from_slice(&off.to_le_bytes());
        }
        if let Ok(exe) = Executable::load(&bytes) {
            exercise(&exe, &mut rng);
        }
    }
}

#[test]
fn mutated_executables_never_panic() {
    let valid = all().build();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let (mut loaded, mut planned) = (0, 0);
    let limits = VerifyLimits {
        max_argument_buffer_bytes: 1 << 16,
        ..VerifyLimits::default()
    };
    for _ in 0..20_000 {
        let mut bytes = valid.clone();
        match rng.below(10) {
            // Truncate or extend.
            0 => bytes.truncate(rng.below(bytes.len())),
            1 => bytes.extend((0..rng.below(64)).map(|_| rng.next() as u8)),
            // Overwrite an aligned word with a small or random value.
            2 | 3 => {
                let at = rng.below(bytes.len() / 4) * 4;
                let v = if rng.below(2) == 0 {
                    rng.next() % 64
                } else {
                    rng.next()
                } as u32;
                bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            // Flip bits.
            _ => {
                for _ in 0..1 + rng.below(8) {
                    let at = rng.below(bytes.len());
                    bytes[at] ^= 1 << rng.below(8);
                }
            }
        }
        if let Ok(exe) = Executable::load_with_limits(&bytes, limits) {
            loaded += 1;
            planned += exercise(&exe, &mut rng);
        }
        let _ = Executable::load(&bytes);
    }
    // The mutations must reach the planner, not only the verifier.
    assert!(loaded > 1000, "only {loaded} mutated executables loaded");
    assert!(planned > 1000, "only {planned} plans succeeded");
    eprintln!("mutated executables: {loaded} loaded, {planned} plans made");
}

#[test]
fn the_valid_executable_plans_every_kernel() {
    let valid = all().build();
    let exe = Executable::load(&valid).unwrap();
    let mut rng = Rng(1);
    // Three grids per kernel; the u64::MAX grid also plans (no overflow).
    assert!(exercise(&exe, &mut rng) >= exe.kernels().len() * 2);
}
