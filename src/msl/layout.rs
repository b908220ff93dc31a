//! The binding contract: a pure, deterministic function from an entry
//! point's reflection and the layout options to the Metal slot of every
//! resource. Both the MSL generator and the FlatBuffer writer consume its
//! result; nothing downstream re-derives a slot.
//!
//! Rules (also in docs/guide/binding-contract.md):
//! - **Argument buffers** (default): one argument buffer per used descriptor
//!   set, bound at dense `[[buffer(N)]]` in ascending set order. Inside it,
//!   dense `[[id]]`s in ascending binding order; an array takes `count` ids;
//!   a combined image-sampler takes `count` texture ids then `count` sampler
//!   ids. Each id is 8 bytes of the Metal 3 argument buffer; byte offsets
//!   follow C struct order (ascending id), recorded per member.
//! - **Discrete**: every resource its own `[[buffer]]`/`[[texture]]`/
//!   `[[sampler]]`, dense over (set, binding) per table.
//! - A **binding map** pins (set, binding) to slots or ids; the rest fill the
//!   free slots densely. Collisions and out-of-range values are errors.
//! - **Emulated image atomics** (MSL below 3.1): a storage image with
//!   atomics also takes its companion buffer (SPIRV-Cross's
//!   `<name>_atomic`): in an argument buffer, the next free `[[id]]` after
//!   the image's; discrete (and an image Metal keeps out of the argument
//!   buffer), the lowest free `[[buffer]]` at the image's turn in
//!   (set, binding) order, after the pinned slots.
//! - **Push constants**: the next free `[[buffer]]` after the resources.
//! - **Buffer sizes** (`OpArrayLength`): with argument buffers, a reserved
//!   member after the set's last id; SPIRV-Cross also declares a
//!   kernel-level sizes buffer, which gets the next free `[[buffer]]`.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::msl::MslVersion;
use crate::spirv::{BindingKind, EntryPoint};

pub use crate::model::error::LayoutError;
pub use crate::model::layout::*;

impl BindingMap {
    /// Parses a TOML binding map and checks it for duplicate entries.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let map: BindingMap = toml::from_str(text).map_err(|e| {
            let (line, column, message) = crate::position::error(text, &e);
            format!("{line}:{column}: {message}")
        })?;
        let mut seen = BTreeSet::new();
        for p in &map.bindings {
            if !seen.insert((p.set, p.binding)) {
                return Err(format!(
                    "(set {}, binding {}) is listed twice",
                    p.set, p.binding
                ));
            }
            if p.count == Some(0) {
                return Err(format!(
                    "(set {}, binding {}): count must be at least 1",
                    p.set, p.binding
                ));
            }
        }
        let mut seen = BTreeSet::new();
        for s in &map.argument_buffers {
            if !seen.insert(s.set) {
                return Err(format!("argument buffer of set {} is listed twice", s.set));
            }
        }
        Ok(map)
    }

    fn pin(&self, set: u32, binding: u32) -> Option<&Pin> {
        self.bindings
            .iter()
            .find(|p| p.set == set && p.binding == binding)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, LayoutError> {
    Err(LayoutError(msg.into()))
}

fn at(set: u32, binding: u32) -> String {
    format!("(set {set}, binding {binding})")
}

/// Allocates ranges of indices in one table, with pinned ranges reserved first.
struct Table {
    what: &'static str,
    limit: u32,
    /// start -> (end exclusive, owner)
    used: BTreeMap<u32, (u32, String)>,
}

impl Table {
    fn new(what: &'static str, limit: u32) -> Self {
        Table {
            what,
            limit,
            used: BTreeMap::new(),
        }
    }

    fn pin(&mut self, start: u32, count: u32, owner: String) -> Result<u32, LayoutError> {
        let end = start.saturating_add(count);
        if end > self.limit {
            return err(format!(
                "{owner}: {} {start}{} is out of range (Metal allows {} to {})",
                self.what,
                if count > 1 {
                    format!("..{}", end - 1)
                } else {
                    String::new()
                },
                0,
                self.limit - 1
            ));
        }
        if let Some((s, (e, other))) = self.used.range(..end).next_back() {
            if *e > start {
                return err(format!(
                    "{owner} and {other} both use {} {}",
                    self.what,
                    start.max(*s)
                ));
            }
        }
        self.used.insert(start, (end, owner));
        Ok(start)
    }

    /// Lowest free range of `count` at or after `from`.
    fn alloc(&mut self, count: u32, owner: String, from: u32) -> Result<u32, LayoutError> {
        let mut start = from;
        for (s, (e, _)) in self.used.range(..) {
            if *e <= start {
                continue;
            }
            if start.saturating_add(count) <= *s {
                break;
            }
            start = start.max(*e);
        }
        let end = start.saturating_add(count);
        if end > self.limit {
            let owners: Vec<&str> = self.used.values().map(|(_, o)| o.as_str()).collect();
            return err(format!(
                "{owner} does not fit: Metal has {} {} slots, taken by {}",
                self.limit,
                self.what,
                owners.join(", ")
            ));
        }
        self.used.insert(start, (end, owner));
        Ok(start)
    }

    fn next_free(&self) -> u32 {
        self.used.values().map(|(e, _)| *e).max().unwrap_or(0)
    }
}

/// Computes the layout of one compute entry point for MSL at halc's
/// default version ([`layout_for`]).
pub fn layout(entry: &EntryPoint, opts: &LayoutOptions) -> Result<KernelLayout, LayoutError> {
    layout_for(entry, opts, MslVersion::DEFAULT)
}

/// Computes the layout of one compute entry point for MSL `version`: below
/// [`MslVersion::TEXTURE_ATOMICS`] a storage image with atomics also gets
/// its companion buffer ([`AtomicBufferLayout`]).
pub fn layout_for(
    entry: &EntryPoint,
    opts: &LayoutOptions,
    version: MslVersion,
) -> Result<KernelLayout, LayoutError> {
    let emulated = |b: &crate::spirv::Binding| {
        version < MslVersion::TEXTURE_ATOMICS && b.image.as_ref().is_some_and(|i| i.atomic)
    };
    let map = &opts.map;
    let mut out = Vec::with_capacity(entry.bindings.len());
    // Resolve counts first.
    for b in &entry.bindings {
        let pin = map.pin(b.set, b.binding);
        let count = match (b.count, pin.and_then(|p| p.count)) {
            (0, Some(c)) => c,
            (0, None) => {
                return err(format!(
                    "{}: runtime-sized descriptor array needs a count: give one in --binding-map ([[binding]] set = {}, binding = {}, count = N)",
                    at(b.set, b.binding), b.set, b.binding
                ))
            }
            (n, Some(c)) if c != n => {
                return err(format!(
                    "{}: binding map gives count {c} but the kernel declares {n} elements",
                    at(b.set, b.binding)
                ))
            }
            (n, _) => n,
        };
        out.push(BindingLayout {
            set: b.set,
            binding: b.binding,
            kind: b.kind,
            access: b.access,
            count,
            buffer_index: None,
            texture_index: None,
            sampler_index: None,
            id: None,
            sampler_id: None,
            byte_offset: None,
            sampler_byte_offset: None,
            min_size: b.min_size,
            runtime_array_stride: b.runtime_array_stride,
            sizes_index: None,
            name: b.name.clone(),
            atomic_buffer: emulated(b).then_some(AtomicBufferLayout {
                buffer_index: None,
                id: None,
                byte_offset: None,
                row_alignment: LINEAR_TEXTURE_ROW_ALIGNMENT,
            }),
        });
    }
    let uses_sizes: BTreeSet<(u32, u32)> = entry
        .bindings
        .iter()
        .filter(|b| b.uses_array_length)
        .map(|b| (b.set, b.binding))
        .collect();

    let mut buffers = Table::new("[[buffer]]", MAX_BUFFER_SLOTS);
    let mut textures = Table::new("[[texture]]", MAX_TEXTURE_SLOTS);
    let mut samplers = Table::new("[[sampler]]", MAX_SAMPLER_SLOTS);

    // Pins of fields that do not apply to the chosen model are mistakes.
    for p in &map.bindings {
        let Some(b) = out
            .iter()
            .find(|b| (b.set, b.binding) == (p.set, p.binding))
        else {
            continue;
        };
        let owner = at(p.set, p.binding);
        let discrete = p.buffer.is_some() || p.texture.is_some() || p.sampler.is_some();
        let ab = p.id.is_some() || p.sampler_id.is_some();
        if opts.model == BindingModel::Discrete && ab {
            return err(format!(
                "{owner}: binding map gives an argument-buffer id, but --bindings discrete is in use"
            ));
        }
        if opts.model == BindingModel::ArgumentBuffers && discrete && !forced_discrete(b, opts) {
            return err(format!(
                "{owner}: binding map gives a discrete slot, but argument buffers are in use (pass --bindings discrete or give `id`)"
            ));
        }
        let wrong = |field: &str| {
            err(format!(
                "{owner}: binding map gives `{field}`, which a {:?} does not have",
                b.kind
            ))
        };
        if p.buffer.is_some() && !b.kind.takes_buffer_slot() {
            return wrong("buffer");
        }
        if p.texture.is_some() && !b.kind.is_texture() {
            return wrong("texture");
        }
        if (p.sampler.is_some() || p.sampler_id.is_some()) && !b.kind.has_sampler() {
            return wrong(if p.sampler.is_some() {
                "sampler"
            } else {
                "sampler_id"
            });
        }
        if p.id.is_some() && b.kind == BindingKind::Sampler {
            return wrong("id");
        }
        // The companion buffer of emulated image atomics.
        if let Some(field) = [
            (p.atomic_buffer, "atomic_buffer"),
            (p.atomic_id, "atomic_id"),
        ]
        .iter()
        .find_map(|(v, f)| v.map(|_| *f))
        {
            if b.atomic_buffer.is_none() {
                return err(format!(
                    "{owner}: binding map gives `{field}`, but the kernel does no emulated image atomics there (a storage image with atomics, below MSL 3.1)"
                ));
            }
            let in_ab = opts.model == BindingModel::ArgumentBuffers && !forced_discrete(b, opts);
            if in_ab && p.atomic_buffer.is_some() {
                return err(format!(
                    "{owner}: binding map gives `atomic_buffer`, but the image is in an argument buffer (give `atomic_id`)"
                ));
            }
            if !in_ab && p.atomic_id.is_some() {
                return err(format!(
                    "{owner}: binding map gives `atomic_id`, but the image is discrete (give `atomic_buffer`)"
                ));
            }
        }
    }

    let mut argument_buffers = Vec::new();
    match opts.model {
        BindingModel::Discrete => {
            // Pinned first, then dense over (set, binding).
            for pass in [true, false] {
                for b in out.iter_mut() {
                    let pin = map.pin(b.set, b.binding).cloned().unwrap_or_default();
                    let owner = at(b.set, b.binding);
                    assign_discrete(
                        b,
                        &pin,
                        pass,
                        &mut buffers,
                        &mut textures,
                        &mut samplers,
                        owner,
                    )?;
                }
            }
            for b in out.iter_mut() {
                if uses_sizes.contains(&(b.set, b.binding)) {
                    b.sizes_index = b.buffer_index;
                }
            }
        }
        BindingModel::ArgumentBuffers => {
            let sets: BTreeSet<u32> = out
                .iter()
                .filter(|b| !forced_discrete(b, opts))
                .map(|b| b.set)
                .collect();
            for s in &map.argument_buffers {
                if sets.contains(&s.set) {
                    buffers.pin(s.buffer, 1, format!("argument buffer of set {}", s.set))?;
                }
            }
            for set in &sets {
                let buffer_index = match map.argument_buffers.iter().find(|s| s.set == *set) {
                    Some(s) => s.buffer,
                    None => buffers.alloc(1, format!("argument buffer of set {set}"), 0)?,
                };
                let mut ids = Table::new("[[id]]", MAX_ARGUMENT_ID);
                let members: Vec<usize> = (0..out.len())
                    .filter(|i| out[*i].set == *set && !forced_discrete(&out[*i], opts))
                    .collect();
                for pass in [true, false] {
                    for &i in &members {
                        let b = &mut out[i];
                        let pin = map.pin(b.set, b.binding).cloned().unwrap_or_default();
                        assign_ids(b, &pin, pass, &mut ids)?;
                    }
                }
                let needs_sizes = members
                    .iter()
                    .any(|i| uses_sizes.contains(&(out[*i].set, out[*i].binding)));
                let sizes_id = if needs_sizes {
                    let from = ids.next_free();
                    Some(ids.alloc(1, format!("buffer-sizes table of set {set}"), from)?)
                } else {
                    None
                };
                // Byte offsets: C struct order = ascending id, 8 bytes an element.
                let mut offset_of = BTreeMap::new();
                let mut off = 0u32;
                for (start, (end, _)) in &ids.used {
                    offset_of.insert(*start, off);
                    off += (end - start) * SLOT_BYTES;
                }
                for &i in &members {
                    let b = &mut out[i];
                    b.byte_offset = b.id.map(|id| offset_of[&id]);
                    b.sampler_byte_offset = b.sampler_id.map(|id| offset_of[&id]);
                    if let Some(a) = &mut b.atomic_buffer {
                        a.byte_offset = a.id.map(|id| offset_of[&id]);
                    }
                    if uses_sizes.contains(&(b.set, b.binding)) {
                        b.sizes_index = b.id;
                    }
                }
                argument_buffers.push(ArgumentBufferLayout {
                    set: *set,
                    buffer_index,
                    size: off,
                    sizes_id,
                    sizes_byte_offset: sizes_id.map(|id| offset_of[&id]),
                });
            }
            // Resources Metal keeps out of argument buffers.
            for pass in [true, false] {
                for b in out.iter_mut().filter(|b| forced_discrete(b, opts)) {
                    let pin = map.pin(b.set, b.binding).cloned().unwrap_or_default();
                    let owner = at(b.set, b.binding);
                    assign_discrete(
                        b,
                        &pin,
                        pass,
                        &mut buffers,
                        &mut textures,
                        &mut samplers,
                        owner,
                    )?;
                }
            }
        }
    }

    // Push constants, then the kernel-level sizes buffer.
    if let Some(pin) = map.push_constants {
        if entry.push_constant_size.is_some() {
            buffers.pin(pin, 1, "push constants".into())?;
        }
    }
    let push_constants = match entry.push_constant_size {
        Some(size) => {
            if size > MAX_PUSH_CONSTANT_BYTES {
                return err(format!(
                    "push-constant block is {size} bytes; Metal's setBytes allows at most {MAX_PUSH_CONSTANT_BYTES}"
                ));
            }
            let buffer_index = match map.push_constants {
                Some(p) => p,
                None => {
                    let from = buffers.next_free();
                    buffers.alloc(1, "push constants".into(), from)?
                }
            };
            Some(PushConstantLayout { buffer_index, size })
        }
        None => None,
    };
    let (sizes_buffer_index, sizes_buffer_entries) = if uses_sizes.is_empty() {
        (None, 0)
    } else {
        let idx = match map.buffer_sizes {
            Some(p) => buffers.pin(p, 1, "buffer-sizes table".into())?,
            None => {
                let from = buffers.next_free();
                buffers.alloc(1, "buffer-sizes table".into(), from)?
            }
        };
        let entries = match opts.model {
            BindingModel::Discrete => out
                .iter()
                .filter_map(|b| b.sizes_index.map(|i| i + b.count))
                .max()
                .unwrap_or(0),
            BindingModel::ArgumentBuffers => 0,
        };
        (Some(idx), entries)
    };

    Ok(KernelLayout {
        model: opts.model,
        argument_buffers,
        bindings: out,
        push_constants,
        sizes_buffer_index,
        sizes_buffer_entries,
    })
}

/// Storage images and storage texel buffers stay out of argument buffers
/// on iOS tier 1, which cannot hold writable textures. Read-only ones too:
/// SPIRV-Cross decides from the type alone (an argument buffer is encoded
/// before a `NonWritable` decoration is known), so the layout follows it.
fn forced_discrete(b: &BindingLayout, opts: &LayoutOptions) -> bool {
    opts.model == BindingModel::ArgumentBuffers
        && opts.platform == Platform::IOS
        && opts.tier == Tier::Tier1
        && matches!(
            b.kind,
            BindingKind::StorageImage | BindingKind::StorageTexelBuffer
        )
}

fn assign_discrete(
    b: &mut BindingLayout,
    pin: &Pin,
    pinned_pass: bool,
    buffers: &mut Table,
    textures: &mut Table,
    samplers: &mut Table,
    owner: String,
) -> Result<(), LayoutError> {
    let n = b.count;
    if b.kind.takes_buffer_slot() && b.buffer_index.is_none() {
        match (pin.buffer, pinned_pass) {
            (Some(p), true) => b.buffer_index = Some(buffers.pin(p, n, owner.clone())?),
            (None, false) => b.buffer_index = Some(buffers.alloc(n, owner.clone(), 0)?),
            _ => {}
        }
    }
    if b.kind.is_texture() && b.texture_index.is_none() {
        match (pin.texture, pinned_pass) {
            (Some(p), true) => b.texture_index = Some(textures.pin(p, n, owner.clone())?),
            (None, false) => b.texture_index = Some(textures.alloc(n, owner.clone(), 0)?),
            _ => {}
        }
    }
    if b.kind.has_sampler() && b.sampler_index.is_none() {
        match (pin.sampler, pinned_pass) {
            (Some(p), true) => b.sampler_index = Some(samplers.pin(p, n, owner.clone())?),
            (None, false) => b.sampler_index = Some(samplers.alloc(n, owner.clone(), 0)?),
            _ => {}
        }
    }
    // The companion buffer of emulated image atomics: pinned, or the next
    // free [[buffer]] once the pinned resources are placed.
    if let Some(a) = b
        .atomic_buffer
        .as_mut()
        .filter(|a| a.buffer_index.is_none())
    {
        let owner = format!("image-atomic buffer of {owner}");
        match (pin.atomic_buffer, pinned_pass) {
            (Some(p), true) => a.buffer_index = Some(buffers.pin(p, 1, owner)?),
            (None, false) => a.buffer_index = Some(buffers.alloc(1, owner, 0)?),
            _ => {}
        }
    }
    Ok(())
}

fn assign_ids(
    b: &mut BindingLayout,
    pin: &Pin,
    pinned_pass: bool,
    ids: &mut Table,
) -> Result<(), LayoutError> {
    let n = b.count;
    let owner = at(b.set, b.binding);
    if b.kind != BindingKind::Sampler && b.id.is_none() {
        match (pin.id, pinned_pass) {
            (Some(p), true) => b.id = Some(ids.pin(p, n, owner.clone())?),
            (None, false) => b.id = Some(ids.alloc(n, owner.clone(), 0)?),
            _ => {}
        }
    }
    if b.kind.has_sampler() && b.sampler_id.is_none() {
        let owner = format!("sampler of {owner}");
        match (pin.sampler_id, pinned_pass) {
            (Some(p), true) => b.sampler_id = Some(ids.pin(p, n, owner)?),
            (None, false) => b.sampler_id = Some(ids.alloc(n, owner, 0)?),
            _ => {}
        }
    }
    // The companion buffer of emulated image atomics: the next free id
    // after the image's (the image may be pinned anywhere).
    if let Some(a) = b.atomic_buffer.as_mut().filter(|a| a.id.is_none()) {
        let owner = format!("image-atomic buffer of {owner}");
        match (pin.atomic_id, pinned_pass) {
            (Some(p), true) => a.id = Some(ids.pin(p, 1, owner)?),
            (None, false) => {
                let from = b.id.map_or(0, |id| id + n);
                a.id = Some(ids.alloc(1, owner, from)?);
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spirv::{Access, Binding, ExecutionModel};

    fn buf(set: u32, binding: u32) -> Binding {
        Binding {
            set,
            binding,
            kind: BindingKind::StorageBuffer,
            access: Access::ReadWrite,
            count: 1,
            min_size: 16,
            runtime_array_stride: 4,
            uses_array_length: false,
            name: None,
            aliases: 0,
            image: None,
        }
    }

    fn entry(bindings: Vec<Binding>, push: Option<u32>) -> EntryPoint {
        EntryPoint {
            name: "main".into(),
            model: ExecutionModel::GLCompute,
            workgroup_size: None,
            bindings,
            push_constant_size: push,
            threadgroup_memory_bytes: 0,
        }
    }

    /// SPIRV-Cross keeps every storage image out of an iOS tier 1 argument
    /// buffer, read-only or not (the type decides): the layout must too, or
    /// a read-only one's member id becomes a `[[texture]]` index that
    /// another texture also has.
    #[test]
    fn ios_tier1_keeps_every_storage_image_discrete() {
        let image = |binding, access| Binding {
            kind: BindingKind::StorageImage,
            access,
            min_size: 0,
            runtime_array_stride: 0,
            ..buf(0, binding)
        };
        let e = entry(
            vec![
                image(0, Access::WriteOnly),
                image(1, Access::ReadOnly),
                buf(0, 2),
            ],
            None,
        );
        let opts = LayoutOptions {
            platform: Platform::IOS,
            tier: Tier::Tier1,
            ..LayoutOptions::default()
        };
        let l = layout(&e, &opts).unwrap();
        let slots: Vec<_> = l
            .bindings
            .iter()
            .map(|b| (b.binding, b.texture_index, b.id))
            .collect();
        assert_eq!(
            slots,
            [(0, Some(0), None), (1, Some(1), None), (2, None, Some(0))]
        );
        // macOS keeps them in the argument buffer.
        let l = layout(&e, &LayoutOptions::default()).unwrap();
        assert!(l
            .bindings
            .iter()
            .all(|b| b.id.is_some() && b.texture_index.is_none()));
    }

    /// An acceleration structure takes a `[[buffer]]` slot in the discrete
    /// model and an 8-byte member in an argument buffer (iOS tier 1 too,
    /// where SPIRV-Cross keeps it in), and a binding map pins it with
    /// `buffer` or `id`, never with `texture`.
    #[test]
    fn acceleration_structures_are_laid_out_as_buffers() {
        let accel = Binding {
            kind: BindingKind::AccelerationStructure,
            access: Access::ReadOnly,
            min_size: 0,
            runtime_array_stride: 0,
            ..buf(0, 0)
        };
        let e = entry(vec![accel, buf(0, 1)], None);
        let slots = |l: &KernelLayout| -> Vec<_> {
            l.bindings
                .iter()
                .map(|b| (b.buffer_index, b.texture_index, b.id, b.byte_offset))
                .collect()
        };
        let discrete = LayoutOptions {
            model: BindingModel::Discrete,
            ..LayoutOptions::default()
        };
        let l = layout(&e, &discrete).unwrap();
        assert_eq!(
            slots(&l),
            [(Some(0), None, None, None), (Some(1), None, None, None)]
        );
        for opts in [
            LayoutOptions::default(),
            LayoutOptions {
                platform: Platform::IOS,
                tier: Tier::Tier1,
                ..LayoutOptions::default()
            },
        ] {
            let l = layout(&e, &opts).unwrap();
            assert_eq!(
                slots(&l),
                [
                    (None, None, Some(0), Some(0)),
                    (None, None, Some(1), Some(8))
                ]
            );
            assert_eq!(l.argument_buffers[0].size, 16);
        }
        // Pins: `buffer` when discrete, `id` in an argument buffer.
        let pinned = |toml: &str, model| {
            let opts = LayoutOptions {
                model,
                map: BindingMap::from_toml(toml).unwrap(),
                ..LayoutOptions::default()
            };
            layout(&e, &opts).map(|l| slots(&l)[0])
        };
        let pin = "[[binding]]\nset = 0\nbinding = 0\n";
        assert_eq!(
            pinned(&format!("{pin}buffer = 5\n"), BindingModel::Discrete),
            Ok((Some(5), None, None, None))
        );
        assert_eq!(
            pinned(&format!("{pin}id = 3\n"), BindingModel::ArgumentBuffers),
            Ok((None, None, Some(3), Some(8)))
        );
        // Negative control: a texture slot is not its kind's.
        assert_eq!(
            pinned(&format!("{pin}texture = 0\n"), BindingModel::Discrete)
                .unwrap_err()
                .to_string(),
            "(set 0, binding 0): binding map gives `texture`, which a AccelerationStructure does not have"
        );
    }

    /// A storage image with atomics below MSL 3.1 takes its companion
    /// buffer (SPIRV-Cross's `<name>_atomic`): the id after the image's in
    /// an argument buffer, the next free [[buffer]] in (set, binding) order
    /// when discrete (also on iOS tier 1, where the image is discrete);
    /// none with Metal's texture atomics (3.1).
    #[test]
    fn emulated_image_atomics_get_a_companion_buffer() {
        let atomic = |binding| Binding {
            kind: BindingKind::StorageImage,
            min_size: 0,
            runtime_array_stride: 0,
            image: Some(crate::model::entry::ImageType {
                dim: "2d",
                arrayed: false,
                multisampled: false,
                sampled_type: crate::spirv::ScalarType::UInt(32),
                format: Some("R32_UINT"),
                atomic: true,
            }),
            ..buf(0, binding)
        };
        let e = entry(vec![atomic(0), buf(0, 1), atomic(2)], None);
        let companions = |l: &KernelLayout| -> Vec<_> {
            l.bindings
                .iter()
                .map(|b| {
                    b.atomic_buffer
                        .map(|a| (a.buffer_index, a.id, a.byte_offset, a.row_alignment))
                })
                .collect()
        };
        let v30 = MslVersion::DEFAULT;
        // Argument buffers: image 0 id 0, its buffer id 1, the buffer id 2,
        // image 2 id 3, its buffer id 4.
        let l = layout_for(&e, &LayoutOptions::default(), v30).unwrap();
        assert_eq!(
            companions(&l),
            [
                Some((None, Some(1), Some(8), 256)),
                None,
                Some((None, Some(4), Some(32), 256))
            ]
        );
        assert_eq!(l.argument_buffers[0].size, 40);
        // Discrete: image 0's buffer [[buffer(0)]], the buffer 1, image 2's 2.
        let discrete = LayoutOptions {
            model: BindingModel::Discrete,
            ..LayoutOptions::default()
        };
        let l = layout_for(&e, &discrete, v30).unwrap();
        assert_eq!(
            companions(&l),
            [
                Some((Some(0), None, None, 256)),
                None,
                Some((Some(2), None, None, 256))
            ]
        );
        assert_eq!(l.bindings[1].buffer_index, Some(1));
        // iOS tier 1: the images and their buffers discrete, after the
        // argument buffer's [[buffer(0)]].
        let tier1 = LayoutOptions {
            platform: Platform::IOS,
            tier: Tier::Tier1,
            ..LayoutOptions::default()
        };
        let l = layout_for(&e, &tier1, v30).unwrap();
        assert_eq!(
            companions(&l),
            [
                Some((Some(1), None, None, 256)),
                None,
                Some((Some(2), None, None, 256))
            ]
        );
        // A pinned image: its buffer takes the next free id after it.
        let mut pinned = LayoutOptions::default();
        pinned.map.bindings.push(Pin {
            set: 0,
            binding: 2,
            id: Some(10),
            ..Default::default()
        });
        let l = layout_for(&e, &pinned, v30).unwrap();
        assert_eq!(
            companions(&l),
            [
                Some((None, Some(1), Some(8), 256)),
                None,
                Some((None, Some(11), Some(32), 256))
            ]
        );
        assert_eq!(l.bindings[2].id, Some(10));
        // Its buffer pinned too; a pin of the wrong kind or where there is
        // no emulation is an error naming the binding.
        pinned.map.bindings[0].atomic_id = Some(3);
        let l = layout_for(&e, &pinned, v30).unwrap();
        assert_eq!(companions(&l)[2], Some((None, Some(3), Some(24), 256)));
        let mut pins = discrete.clone();
        pins.map.bindings.push(Pin {
            set: 0,
            binding: 0,
            atomic_buffer: Some(7),
            ..Default::default()
        });
        let l = layout_for(&e, &pins, v30).unwrap();
        assert_eq!(companions(&l)[0], Some((Some(7), None, None, 256)));
        assert_eq!(l.bindings[1].buffer_index, Some(0));
        for (map, opts, version, want) in [
            ("atomic_id", &discrete, v30, "binding map gives `atomic_id`, but the image is discrete (give `atomic_buffer`)"),
            ("atomic_buffer", &LayoutOptions::default(), v30, "binding map gives `atomic_buffer`, but the image is in an argument buffer (give `atomic_id`)"),
            ("atomic_buffer", &discrete, MslVersion::TEXTURE_ATOMICS, "binding map gives `atomic_buffer`, but the kernel does no emulated image atomics there (a storage image with atomics, below MSL 3.1)"),
        ] {
            let mut o = opts.clone();
            o.map.bindings.push(Pin {
                set: 0,
                binding: 0,
                atomic_buffer: (map == "atomic_buffer").then_some(5),
                atomic_id: (map == "atomic_id").then_some(5),
                ..Default::default()
            });
            let msg = layout_for(&e, &o, version).unwrap_err().0;
            assert_eq!(msg, format!("(set 0, binding 0): {want}"));
        }
        // Texture atomics: no companion.
        let v31 = MslVersion::TEXTURE_ATOMICS;
        let l = layout_for(&e, &LayoutOptions::default(), v31).unwrap();
        assert_eq!(companions(&l), [None, None, None]);
        // Out of [[buffer]] slots, the companion is named.
        let mut many: Vec<_> = (0..31).map(|i| buf(1, i)).collect();
        many.push(atomic(40));
        let msg = layout_for(&entry(many, None), &discrete, v30)
            .unwrap_err()
            .0;
        assert!(
            msg.contains("image-atomic buffer of (set 0, binding 40) does not fit"),
            "{msg}"
        );
    }

    #[test]
    fn argument_buffers_are_dense_per_set_in_ascending_order() {
        let e = entry(vec![buf(0, 3), buf(0, 7), buf(2, 1), buf(2, 5)], Some(16));
        let l = layout(&e, &LayoutOptions::default()).unwrap();
        let ab: Vec<_> = l
            .argument_buffers
            .iter()
            .map(|a| (a.set, a.buffer_index, a.size))
            .collect();
        assert_eq!(ab, vec![(0, 0, 16), (2, 1, 16)]);
        let ids: Vec<_> = l.bindings.iter().map(|b| (b.id, b.byte_offset)).collect();
        assert_eq!(
            ids,
            vec![
                (Some(0), Some(0)),
                (Some(1), Some(8)),
                (Some(0), Some(0)),
                (Some(1), Some(8))
            ]
        );
        assert_eq!(
            l.push_constants,
            Some(PushConstantLayout {
                buffer_index: 2,
                size: 16
            })
        );
    }

    #[test]
    fn sparse_pinned_ids_get_struct_order_offsets() {
        let e = entry(vec![buf(0, 0), buf(0, 1), buf(0, 2)], None);
        let mut opts = LayoutOptions::default();
        opts.map.bindings.push(Pin {
            set: 0,
            binding: 1,
            id: Some(10),
            ..Default::default()
        });
        let l = layout(&e, &opts).unwrap();
        let ids: Vec<_> = l
            .bindings
            .iter()
            .map(|b| (b.id.unwrap(), b.byte_offset.unwrap()))
            .collect();
        // binding 0 -> id 0, binding 2 -> id 1 (dense around the pin), binding 1 -> id 10 at offset 16.
        assert_eq!(ids, vec![(0, 0), (10, 16), (1, 8)]);
        assert_eq!(l.argument_buffers[0].size, 24);
    }

    #[test]
    fn discrete_overflow_names_the_resources() {
        let e = entry((0..32).map(|i| buf(0, i)).collect(), None);
        let opts = LayoutOptions {
            model: BindingModel::Discrete,
            ..Default::default()
        };
        let msg = layout(&e, &opts).unwrap_err().0;
        assert!(msg.contains("(set 0, binding 31) does not fit"), "{msg}");
        assert!(msg.contains("Metal has 31 [[buffer]] slots"), "{msg}");
    }

    #[test]
    fn pinned_collision_names_both() {
        let e = entry(vec![buf(0, 0), buf(1, 0)], None);
        let mut opts = LayoutOptions {
            model: BindingModel::Discrete,
            ..Default::default()
        };
        opts.map.bindings.push(Pin {
            set: 0,
            binding: 0,
            buffer: Some(4),
            ..Default::default()
        });
        opts.map.bindings.push(Pin {
            set: 1,
            binding: 0,
            buffer: Some(4),
            ..Default::default()
        });
        let msg = layout(&e, &opts).unwrap_err().0;
        assert_eq!(
            msg,
            "(set 1, binding 0) and (set 0, binding 0) both use [[buffer]] 4"
        );
    }

    #[test]
    fn push_constants_over_4k_is_an_error() {
        let e = entry(vec![], Some(4100));
        assert!(layout(&e, &LayoutOptions::default())
            .unwrap_err()
            .0
            .contains("4100 bytes"));
    }
}
