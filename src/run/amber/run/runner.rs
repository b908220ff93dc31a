//! The runner ([`Runner`]): a script's commands in order on every side,
//! pipelines prepared on first use, buffers grown to the blocks they bind,
//! and why a run stops early ([`Stop`], with the sides that say it).

use std::collections::BTreeMap;

use super::options::RunOptions;
pub(super) use super::side::Stop;
use super::side::{Prepared, Side};
use crate::run::amber::{BindKind, Command, Pipeline, Script};

pub(super) struct Runner<'s> {
    pub(super) name: &'s str,
    pub(super) script: &'s Script,
    pub(super) opts: &'s RunOptions,
    pub(super) sides: Vec<Box<dyn Side + 's>>,
    /// Each pipeline's SPIR-V ([`module`](super::module::module)).
    pub(super) modules: BTreeMap<String, Result<Vec<u8>, String>>,
    /// Compiled pipelines.
    pub(super) prepared: BTreeMap<&'s str, Prepared>,
}

impl<'s> Runner<'s> {
    pub(super) fn at(&self, line: usize) -> String {
        format!("{}:{line}", self.name)
    }

    pub(super) fn run(&mut self) -> Result<(), Stop> {
        for b in &self.script.buffers {
            for side in &mut self.sides {
                let made = match (b.image, b.format) {
                    (Some(shape), Some(format)) => side.create_image(
                        &b.name,
                        &shape.desc(format),
                        &shape.upload(format, &b.bytes),
                    ),
                    _ => side.create(&b.name, &b.bytes, b.format),
                };
                made.map_err(|e| {
                    format!(
                        "{}:{}: buffer `{}`: {}: {e}",
                        self.name,
                        b.line,
                        b.name,
                        side.label()
                    )
                })?;
            }
        }
        for sampler in &self.script.samplers {
            for side in &mut self.sides {
                side.create_sampler(&sampler.name, &sampler.desc)
                    .map_err(|e| {
                        format!(
                            "{}:{}: sampler `{}`: {}: {e}",
                            self.name,
                            sampler.line,
                            sampler.name,
                            side.label()
                        )
                    })?;
            }
        }
        // The top levels some pipeline binds (amber builds every one; a
        // structure nothing binds would only ask the device for features
        // no module of the script needs).
        for top in &self.script.top_levels {
            let bound = self
                .script
                .pipelines
                .iter()
                .flat_map(|p| &p.binds)
                .any(|b| {
                    matches!(b.kind, BindKind::AccelerationStructure { .. })
                        && b.buffer() == top.name
                });
            if !bound {
                continue;
            }
            for side in &mut self.sides {
                let label = side.label();
                side.create_acceleration_structure(&top.name, &top.scene)
                    .map_err(|s| {
                        s.within(&format!(
                            "{}:{}: acceleration structure `{}`: {label}: ",
                            self.name, top.line, top.name
                        ))
                    })?;
            }
        }
        for c in &self.script.commands {
            match c {
                Command::Run {
                    pipeline,
                    groups,
                    line,
                } => self.dispatch(pipeline, *groups, *line)?,
                Command::Write {
                    buffer,
                    offset,
                    bytes,
                    line,
                } => {
                    for side in &mut self.sides {
                        side.write(buffer, *offset, bytes)
                            .map_err(|e| format!("{}:{line}: {}: {e}", self.name, side.label()))?;
                    }
                }
                Command::Copy { from, to, line } => {
                    for side in &mut self.sides {
                        let data = side.read(from)?;
                        let len = side.read(to)?.len();
                        if len != data.len() {
                            return Err(Stop::Fail(format!(
                                "{}:{line}: COPY {from} TO {to}: {} bytes into {len} bytes",
                                self.name,
                                data.len()
                            )));
                        }
                        side.write(to, 0, &data)
                            .map_err(|e| format!("{}:{line}: {}: {e}", self.name, side.label()))?;
                    }
                }
                Command::Expect {
                    buffer,
                    check,
                    line,
                } => self.expect(buffer, check, *line)?,
            }
        }
        Ok(())
    }

    pub(super) fn pipeline(&self, name: &str) -> Result<&'s Pipeline, String> {
        self.script
            .pipelines
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("{}: unknown pipeline `{name}`", self.name))
    }

    pub(super) fn dispatch(
        &mut self,
        name: &'s str,
        groups: [u32; 3],
        line: usize,
    ) -> Result<(), Stop> {
        let at = self.at(line);
        let p = self.pipeline(name)?;
        if !self.prepared.contains_key(name) {
            let mut prepared = self
                .prepare(p)
                .map_err(|e| e.within(&format!("{at}: RUN {name}: ")))?;
            let subgroups = prepared.metal.as_ref().is_some_and(|m| m.subgroups);
            prepared.simd_width = self
                .simd_width(p, subgroups)
                .map_err(|m| Stop::Skip(format!("{at}: RUN {name}: {m}")))?;
            // `FULLY_POPULATED on` needs nothing more on the CPU: the
            // backend, as a GPU, fills SIMD groups in order, so every group
            // is full when the threadgroup is a multiple of the width. A
            // threadgroup that is not (Vulkan calls that invalid; the CTS
            // has such tests and drivers run them) ends with one partial
            // group, as on a GPU.
            self.prepared.insert(name, prepared);
        }
        self.grow_implicit(p, name)?;
        let prepared = &self.prepared[name];
        let divisions = |sides: &[Box<dyn Side + 's>]| -> u64 {
            sides.iter().map(|s| s.undefined_divisions()).sum()
        };
        let before = divisions(&self.sides);
        for side in &mut self.sides {
            let push = match p.binds.iter().find(|b| b.kind == BindKind::PushConstant) {
                Some(b) => side.read(b.buffer())?,
                None => Vec::new(),
            };
            side.dispatch(p, prepared, &push, groups)
                .map_err(|e| format!("{at}: RUN {name}: {}: {e}", side.label()))?;
        }
        // A RUN that divided by zero on the CPU is not compared: the
        // quotient is undefined on both sides (its EXPECTs still apply).
        if self.sides.len() == 2 && divisions(&self.sides) == before {
            self.compare_bound(p, line)?;
        }
        Ok(())
    }

    /// Grows the buffers sized by the script's writes (VkScript) that
    /// pipeline `p` binds to a block larger than them, with zeros, on every
    /// side ([`crate::run::amber::Buffer::implicit_size`]).
    pub(super) fn grow_implicit(&mut self, p: &Pipeline, name: &str) -> Result<(), Stop> {
        let Some(metal) = self.prepared.get(name).and_then(|x| x.metal.as_ref()) else {
            return Ok(());
        };
        let mut grow: Vec<(&str, usize)> = Vec::new();
        for b in &p.binds {
            let (BindKind::Storage { set, binding } | BindKind::Uniform { set, binding }) = b.kind
            else {
                continue;
            };
            let Some(&min) = metal.min_sizes.get(&(set, binding)) else {
                continue;
            };
            for e in &b.elements {
                let implicit = self
                    .script
                    .buffers
                    .iter()
                    .any(|d| d.name == e.buffer && d.implicit_size);
                if implicit && e.range.is_none() {
                    grow.push((&e.buffer, (e.offset + min) as usize));
                }
            }
        }
        for (buffer, size) in grow {
            for side in &mut self.sides {
                let mut data = side.read(buffer)?;
                if data.len() < size {
                    data.resize(size, 0);
                    side.create(buffer, &data, None)?;
                }
            }
        }
        Ok(())
    }
}
