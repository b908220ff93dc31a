//! Semantic checks of a kernel's resources: bindings sorted and complete,
//! the slots each kind needs inside Metal's argument tables and free of
//! collisions, argument-buffer members, push constants, sizes tables.

use super::kernel::KernelCheck;
use super::limits::MAX_SAMPLER_SLOTS;
use super::types::{kind_parts, Part};
use super::violation::Violation;
use crate::kernel::run;
use crate::records::opt;
use crate::schema::{BindingKind, BindingModel, MetalLimits};

/// Who holds a slot range; formatted only when a check fails (loading
/// thousands of kernels must not allocate a label per binding).
#[derive(Debug, Clone, Copy)]
enum Owner {
    Named(&'static str),
    ArgumentBuffer(u32),
    Binding(u32, u32),
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owner::Named(n) => f.write_str(n),
            Owner::ArgumentBuffer(set) => write!(f, "argument_buffers[set {set}]"),
            Owner::Binding(set, binding) => write!(f, "bindings[set {set}, binding {binding}]"),
        }
    }
}

/// Slot ranges already claimed in one Metal argument table (or inside one
/// argument buffer).
#[derive(Default)]
struct Slots {
    table: &'static str,
    limit: u64,
    used: Vec<(u64, u64, Owner)>,
}

impl Slots {
    /// Empties the table for the next kernel, keeping its allocation.
    fn reset(&mut self, table: &'static str, limit: u64) {
        self.table = table;
        self.limit = limit;
        self.used.clear();
    }

    /// Claims `[start, start + count)` for `owner`.
    fn claim(&mut self, start: u32, count: u32, owner: Owner) -> Result<(), String> {
        let (start, end) = (u64::from(start), u64::from(start) + u64::from(count));
        if end > self.limit {
            return Err(if count == 1 {
                format!("{start} is outside the {} (0..{})", self.table, self.limit)
            } else {
                format!(
                    "{start}..{end} ({count} entries) is outside the {} (0..{})",
                    self.table, self.limit
                )
            });
        }
        if let Some((s, e, other)) = self.used.iter().find(|(s, e, _)| start < *e && *s < end) {
            return Err(format!(
                "{start}..{end} in the {} collides with {other} ({s}..{e})",
                self.table
            ));
        }
        self.used.push((start, end, owner));
        Ok(())
    }
}

/// The member slots of one argument buffer.
#[derive(Default)]
struct SetSlots {
    set: u32,
    ids: Slots,
    bytes: Slots,
    /// It holds a buffer-sizes table (`sizes_id`).
    has_sizes: bool,
}

/// The slot tables of the kernel being checked, reused from kernel to kernel
/// (cleared, not reallocated): loading thousands of kernels allocates only
/// for the largest one.
#[derive(Default)]
pub(super) struct Scratch {
    buffers: Slots,
    textures: Slots,
    samplers: Slots,
    /// Its first `n_sets` (see `KernelCheck::resources`) are the current
    /// kernel's argument buffers; the rest wait for a larger kernel.
    sets: Vec<SetSlots>,
}

/// One argument-buffer member range of a binding.
struct Member {
    id: u32,
    offset: u32,
    count: u32,
}

impl KernelCheck<'_, '_> {
    /// Bindings, slots, argument buffers, push constants, sizes tables.
    pub(super) fn resources(&self, scratch: &mut Scratch) -> Result<(), Violation> {
        let k = self.view.raw();
        let model = k.binding_model();
        let Scratch {
            buffers,
            textures,
            samplers,
            sets,
        } = scratch;
        let buffer_limit = u64::from(MetalLimits::MaxBufferSlots.0);
        buffers.reset("buffer argument table", buffer_limit);
        textures.reset(
            "texture argument table",
            u64::from(MetalLimits::MaxTextureSlots.0),
        );
        samplers.reset("sampler argument table", u64::from(MAX_SAMPLER_SLOTS));

        let members = run(
            self.view.exe().push_constant_members(),
            k.push_constant_members(),
        );
        let push = k.push_constants();
        if opt(push.buffer_index()).is_none() {
            if push.size() != 0 {
                return self.fail(
                    "push_constants.size",
                    format!("is {} but buffer_index is Unset", push.size()),
                );
            }
            if members.len() != 0 {
                return self.fail(
                    "push_constant_members",
                    format!("{} members without push_constants", members.len()),
                );
            }
        }
        if let Some(p) = self.view.push_constants() {
            let limit = MetalLimits::MaxPushConstantBytes.0;
            if p.size == 0 || p.size > limit {
                return self.fail(
                    "push_constants.size",
                    format!(
                        "{} bytes is outside 1..={limit} (the setBytes limit)",
                        p.size
                    ),
                );
            }
            buffers
                .claim(p.buffer_index, 1, Owner::Named("push_constants"))
                .or_else(|m| self.fail("push_constants.buffer_index", m))?;
            let mut end_of_previous = 0u64;
            for (i, m) in members.enumerate() {
                self.text(|| format!("push_constant_members[{i}].name"), m.name())?;
                self.text(|| format!("push_constant_members[{i}].type"), m.type_())?;
                let end = u64::from(m.offset()) + u64::from(m.size());
                if u64::from(m.offset()) < end_of_previous || end > u64::from(p.size) {
                    return self.fail(
                        format!("push_constant_members[{i}]"),
                        format!(
                            "bytes {}..{end} overlap the previous member or pass the block's {} bytes",
                            m.offset(),
                            p.size
                        ),
                    );
                }
                end_of_previous = end;
            }
        }

        let entries = k.sizes_buffer_entries();
        match k.sizes_buffer_index() {
            Some(index) => {
                let max = MetalLimits::MaxPushConstantBytes.0 / 4;
                // 0 is fine: with argument buffers the kernel declares the
                // table but reads the sizes from the argument buffer.
                if entries > max {
                    return self.fail(
                        "sizes_buffer_entries",
                        format!("{entries} is over {max} (the table is bound with setBytes)"),
                    );
                }
                buffers
                    .claim(index, 1, Owner::Named("sizes_buffer_index"))
                    .or_else(|m| self.fail("sizes_buffer_index", m))?;
            }
            None if entries != 0 => {
                return self.fail(
                    "sizes_buffer_entries",
                    format!("is {entries} but the kernel has no sizes_buffer_index"),
                );
            }
            None => {}
        }

        // Argument buffers, with the member slots each one holds.
        let abs = self.view.argument_buffers();
        if model == BindingModel::Discrete && abs.len() != 0 {
            return self.fail(
                "argument_buffers",
                format!(
                    "{} argument buffers in a kernel with discrete bindings",
                    abs.len()
                ),
            );
        }
        let mut n_sets = 0;
        for (i, ab) in abs.enumerate() {
            let set = ab.set();
            let field = |f: &str| format!("argument_buffers[set {set}].{f}");
            if self.view.argument_buffers().take(i).any(|o| o.set() == set) {
                return self.fail(field("set"), format!("set {set} has two argument buffers"));
            }
            buffers
                .claim(ab.buffer_index(), 1, Owner::ArgumentBuffer(set))
                .or_else(|m| self.fail(field("buffer_index"), m))?;
            let size = ab.size();
            let max = self.limits.max_argument_buffer_bytes;
            let slot = MetalLimits::ArgumentBufferSlotBytes.0;
            if size == 0 || size % slot != 0 || size > max {
                return self.fail(
                    field("size"),
                    format!("{size} bytes is not a nonzero multiple of {slot} up to {max}"),
                );
            }
            if n_sets == sets.len() {
                sets.push(SetSlots::default());
            }
            let SetSlots {
                set: entry_set,
                ids,
                bytes,
                has_sizes: entry_has_sizes,
            } = &mut sets[n_sets];
            *entry_set = set;
            ids.reset("argument buffer's ids", u64::from(u32::MAX) + 1);
            bytes.reset("argument buffer's bytes", u64::from(size));
            let has_sizes = match (ab.sizes_id(), ab.sizes_byte_offset()) {
                (None, None) => false,
                (Some(id), Some(off)) => {
                    if off % slot != 0 {
                        return self.fail(
                            field("sizes_byte_offset"),
                            format!("{off} is not a multiple of {slot}"),
                        );
                    }
                    ids.claim(id, 1, Owner::Named("the sizes table"))
                        .or_else(|m| self.fail(field("sizes_id"), m))?;
                    bytes
                        .claim(off, slot, Owner::Named("the sizes table"))
                        .or_else(|m| self.fail(field("sizes_byte_offset"), m))?;
                    true
                }
                (Some(_), None) => {
                    return self.fail(field("sizes_byte_offset"), "missing (sizes_id is set)")
                }
                (None, Some(_)) => {
                    return self.fail(field("sizes_id"), "missing (sizes_byte_offset is set)")
                }
            };
            *entry_has_sizes = has_sizes;
            n_sets += 1;
        }
        let members = &mut sets[..n_sets];

        for (i, s) in run(self.view.exe().binding_names(), k.bindings()).enumerate() {
            self.text(|| format!("binding_names[{i}]"), s)?;
        }
        let mut previous: Option<(u32, u32)> = None;
        for b in self.view.bindings() {
            let key = (b.set(), b.binding());
            let owner = Owner::Binding(key.0, key.1);
            let field = |f: &str| format!("{owner}.{f}");
            if let Some(prev) = previous {
                if prev >= key {
                    return self.fail(
                        field("binding"),
                        format!(
                            "bindings must be sorted by (set, binding) without duplicates, but ({}, {}) follows ({}, {})",
                            key.0, key.1, prev.0, prev.1
                        ),
                    );
                }
            }
            previous = Some(key);
            let count = b.count();
            if count == 0 {
                return self.fail(field("count"), "is 0");
            }
            let Some((part, has_sampler)) = kind_parts(b.kind()) else {
                return self.fail(
                    field("kind"),
                    format!("unknown binding kind {}", b.kind().0),
                );
            };
            if b.access().variant_name().is_none() {
                return self.fail(field("access"), format!("unknown access {}", b.access().0));
            }
            let ab_index = members.iter().position(|m| m.set == key.0);

            // The buffer/texture part.
            let (slot_field, other_slot_field, table) = match part {
                Some(Part::Buffer | Part::AccelerationStructure) => {
                    ("buffer_index", "texture_index", Some(&mut *buffers))
                }
                Some(Part::Texture) => ("texture_index", "buffer_index", Some(&mut *textures)),
                None => ("texture_index", "buffer_index", None),
            };
            let takes_buffer_slot =
                matches!(part, Some(Part::Buffer | Part::AccelerationStructure));
            let slot_value = if takes_buffer_slot {
                b.buffer_index()
            } else {
                b.texture_index()
            };
            let other_slot = if takes_buffer_slot {
                b.texture_index()
            } else {
                b.buffer_index()
            };
            if other_slot.is_some() {
                return self.fail(
                    field(other_slot_field),
                    format!(
                        "set on a {} binding",
                        b.kind().variant_name().unwrap_or("?")
                    ),
                );
            }
            match table {
                None => {
                    // Pure sampler: no buffer/texture part at all.
                    if slot_value.is_some() {
                        return self.fail(field(slot_field), "set on a Sampler binding");
                    }
                    if b.id().is_some() {
                        return self.fail(
                            field("id"),
                            "set on a Sampler binding (its member id is sampler_id)",
                        );
                    }
                    if b.byte_offset().is_some() {
                        return self.fail(
                            field("byte_offset"),
                            "set on a Sampler binding (its offset is sampler_byte_offset)",
                        );
                    }
                }
                Some(table) => {
                    let in_ab = self.member_or_slot(
                        model,
                        &field,
                        (b.id(), "id"),
                        (b.byte_offset(), "byte_offset"),
                        (slot_value, slot_field),
                    )?;
                    if in_ab {
                        let m = Member {
                            id: b.id().unwrap_or(0),
                            offset: b.byte_offset().unwrap_or(0),
                            count,
                        };
                        self.claim_member(members, ab_index, owner, m, ("id", "byte_offset"))?;
                    } else {
                        table
                            .claim(slot_value.unwrap_or(0), count, owner)
                            .or_else(|m| self.fail(field(slot_field), m))?;
                    }
                    // sizes_index: which table it indexes follows the part's placement.
                    if let Some(si) = b.sizes_index() {
                        if part != Some(Part::Buffer) {
                            return self.fail(
                                field("sizes_index"),
                                "set on a binding that is not a buffer",
                            );
                        }
                        let end = u64::from(si) + u64::from(count);
                        if in_ab {
                            let ab = ab_index.unwrap_or(0);
                            if !members[ab].has_sizes {
                                return self.fail(
                                    field("sizes_index"),
                                    format!("the argument buffer of set {} has no sizes table (sizes_id)", key.0),
                                );
                            }
                            let max = u64::from(self.limits.max_argument_buffer_bytes / 4);
                            if end > max {
                                return self.fail(
                                    field("sizes_index"),
                                    format!("entries {si}..{end} exceed the {max}-entry limit"),
                                );
                            }
                        } else {
                            let Some(_) = k.sizes_buffer_index() else {
                                return self.fail(
                                    field("sizes_index"),
                                    "set but the kernel has no sizes_buffer_index",
                                );
                            };
                            if end > u64::from(entries) {
                                return self.fail(
                                    field("sizes_index"),
                                    format!("entries {si}..{end} exceed sizes_buffer_entries ({entries})"),
                                );
                            }
                        }
                    }
                }
            }
            if part != Some(Part::Buffer) && b.sizes_index().is_some() {
                return self.fail(
                    field("sizes_index"),
                    "set on a binding that is not a buffer",
                );
            }

            // The sampler part.
            if has_sampler {
                let in_ab = self.member_or_slot(
                    model,
                    &field,
                    (b.sampler_id(), "sampler_id"),
                    (b.sampler_byte_offset(), "sampler_byte_offset"),
                    (b.sampler_index(), "sampler_index"),
                )?;
                if in_ab {
                    let m = Member {
                        id: b.sampler_id().unwrap_or(0),
                        offset: b.sampler_byte_offset().unwrap_or(0),
                        count,
                    };
                    self.claim_member(
                        members,
                        ab_index,
                        owner,
                        m,
                        ("sampler_id", "sampler_byte_offset"),
                    )?;
                } else {
                    samplers
                        .claim(b.sampler_index().unwrap_or(0), count, owner)
                        .or_else(|m| self.fail(field("sampler_index"), m))?;
                }
            } else {
                for (v, f) in [
                    (b.sampler_index(), "sampler_index"),
                    (b.sampler_id(), "sampler_id"),
                    (b.sampler_byte_offset(), "sampler_byte_offset"),
                ] {
                    if v.is_some() {
                        return self.fail(
                            field(f),
                            format!(
                                "set on a {} binding",
                                b.kind().variant_name().unwrap_or("?")
                            ),
                        );
                    }
                }
            }

            // The companion buffer of emulated image atomics: only on a
            // plain storage image, placed as the image is.
            let raw = b.raw();
            let atomic_fields = [
                (raw.atomic_buffer_index(), "atomic_buffer_index"),
                (raw.atomic_id(), "atomic_id"),
                (raw.atomic_byte_offset(), "atomic_byte_offset"),
            ];
            match b.atomic_buffer() {
                None => {
                    if let Some((_, f)) = atomic_fields.iter().find(|(v, _)| opt(*v).is_some()) {
                        return self.fail(field(f), "set without atomic_row_alignment");
                    }
                }
                Some(a) => {
                    if b.kind() != BindingKind::StorageImage || count != 1 {
                        return self.fail(
                            field("atomic_row_alignment"),
                            "set on a binding that is not a single storage image",
                        );
                    }
                    if !a.row_alignment.is_power_of_two() || a.row_alignment < 4 {
                        return self.fail(
                            field("atomic_row_alignment"),
                            format!("{} is not a power of two of at least 4", a.row_alignment),
                        );
                    }
                    let in_ab = self.member_or_slot(
                        model,
                        &field,
                        (a.id, "atomic_id"),
                        (a.byte_offset, "atomic_byte_offset"),
                        (a.buffer_index, "atomic_buffer_index"),
                    )?;
                    if in_ab != b.id().is_some() {
                        return self.fail(
                            field("atomic_id"),
                            "the companion buffer must be placed as the image is (both in the argument buffer or both discrete)",
                        );
                    }
                    if in_ab {
                        let m = Member {
                            id: a.id.unwrap_or(0),
                            offset: a.byte_offset.unwrap_or(0),
                            count: 1,
                        };
                        self.claim_member(
                            members,
                            ab_index,
                            owner,
                            m,
                            ("atomic_id", "atomic_byte_offset"),
                        )?;
                    } else {
                        buffers
                            .claim(a.buffer_index.unwrap_or(0), 1, owner)
                            .or_else(|m| self.fail(field("atomic_buffer_index"), m))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Claims one argument-buffer member range (ids and bytes) in the
    /// argument buffer `ab` (`None`: the set has none).
    fn claim_member(
        &self,
        members: &mut [SetSlots],
        ab: Option<usize>,
        owner: Owner,
        m: Member,
        fields: (&str, &str),
    ) -> Result<(), Violation> {
        let field = |f: &str| format!("{owner}.{f}");
        let Some(ab) = ab else {
            return self.fail(field(fields.0), "the binding's set has no argument buffer");
        };
        let slot = MetalLimits::ArgumentBufferSlotBytes.0;
        if m.offset % slot != 0 {
            return self.fail(
                field(fields.1),
                format!("{} is not a multiple of {slot}", m.offset),
            );
        }
        let entry = &mut members[ab];
        entry
            .ids
            .claim(m.id, m.count, owner)
            .or_else(|e| self.fail(field(fields.0), e))?;
        let len = u32::try_from(u64::from(m.count) * u64::from(slot)).unwrap_or(u32::MAX);
        entry
            .bytes
            .claim(m.offset, len, owner)
            .or_else(|e| self.fail(field(fields.1), e))
    }

    /// Decides whether one part of a binding is an argument-buffer member
    /// (`Ok(true)`) or in a discrete slot (`Ok(false)`), rejecting half-set
    /// or doubly-set fields.
    fn member_or_slot(
        &self,
        model: BindingModel,
        field: &dyn Fn(&str) -> String,
        id: (Option<u32>, &str),
        offset: (Option<u32>, &str),
        slot: (Option<u32>, &str),
    ) -> Result<bool, Violation> {
        let member = match (id.0, offset.0) {
            (Some(_), Some(_)) => true,
            (None, None) => false,
            (Some(_), None) => {
                return self.fail(field(offset.1), format!("missing ({} is set)", id.1))
            }
            (None, Some(_)) => {
                return self.fail(field(id.1), format!("missing ({} is set)", offset.1))
            }
        };
        match (model, member, slot.0.is_some()) {
            (BindingModel::Discrete, true, _) => {
                self.fail(field(id.1), "set in a kernel with discrete bindings")
            }
            (BindingModel::Discrete, false, false) => {
                self.fail(field(slot.1), "missing (discrete bindings need a slot)")
            }
            (_, true, true) => self.fail(
                field(slot.1),
                format!("set on an argument-buffer member (it has {})", id.1),
            ),
            (_, false, false) => self.fail(
                field(id.1),
                format!(
                    "missing: neither an argument-buffer member nor a {}",
                    slot.1
                ),
            ),
            (_, member, _) => Ok(member),
        }
    }
}
