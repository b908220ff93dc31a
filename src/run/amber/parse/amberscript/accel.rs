//! AmberScript's `ACCELERATION_STRUCTURE BOTTOM_LEVEL` and `TOP_LEVEL`
//! blocks, read into `runtime_loader::scene` values as amber's parser
//! (`ParseBLAS`, `ParseTLAS`, `ParseBLASInstance`) reads them: token by
//! token across lines, so numbers may spread over several lines, and
//! `FLAGS` either on one line or, when nothing follows it on its line, on
//! the lines up to an `END`.
//!
//! `BLAS_INSTANCE USE name` (amber's documentation's one-line instance,
//! which its parser does not read) is taken as the instance that
//! `BOTTOM_LEVEL_INSTANCE name END` makes: identity transform, custom
//! index 0, mask 0xFF, no flags.

use std::collections::VecDeque;

use runtime_loader::scene::{self, Aabb, Geometry, Instance, InstanceFlags, Primitives};

use super::super::error::{err, ParseError};
use super::reader::AmberParser;
use crate::run::amber::{BottomLevel, TopLevel};

/// A token, or the end of its line (`None`), with its line.
type Tok<'a> = (usize, Option<&'a str>);

/// The tokens of the block's lines, read as they are needed.
struct Tokens<'a> {
    queue: VecDeque<Tok<'a>>,
}

impl<'a> AmberParser<'a> {
    /// The next token of a block, reading a line when the queue is empty.
    /// `None` at the end of the file.
    fn tok(&mut self, t: &mut Tokens<'a>) -> Option<Tok<'a>> {
        if t.queue.is_empty() {
            let (line, words) = self.line()?;
            t.queue.extend(words.into_iter().map(|w| (line, Some(w))));
            t.queue.push_back((line, None));
        }
        t.queue.pop_front()
    }

    /// `ACCELERATION_STRUCTURE BOTTOM_LEVEL|TOP_LEVEL name` and its block.
    pub(super) fn acceleration_structure(
        &mut self,
        line: usize,
        t: &[&'a str],
    ) -> Result<(), ParseError> {
        let kind = t.get(1).ok_or_else(|| {
            err(
                line,
                "ACCELERATION_STRUCTURE needs TOP_LEVEL or BOTTOM_LEVEL",
            )
        })?;
        let name = t
            .get(2)
            .ok_or_else(|| err(line, format!("ACCELERATION_STRUCTURE {kind} needs a name")))?;
        if let Some(extra) = t.get(3) {
            return Err(err(
                line,
                format!("unexpected `{extra}` after the structure's name (a new line is expected)"),
            ));
        }
        match *kind {
            "BOTTOM_LEVEL" => {
                if self.script.bottom_levels.iter().any(|b| b.name == *name) {
                    return Err(err(
                        line,
                        format!("bottom-level acceleration structure `{name}` is declared twice"),
                    ));
                }
                let level = self.bottom_level(line)?;
                self.script.bottom_levels.push(BottomLevel {
                    name: name.to_string(),
                    level,
                    line,
                });
            }
            "TOP_LEVEL" => {
                if self.script.top_levels.iter().any(|b| b.name == *name) {
                    return Err(err(
                        line,
                        format!("top-level acceleration structure `{name}` is declared twice"),
                    ));
                }
                let scene = self.top_level(line)?;
                self.script.top_levels.push(TopLevel {
                    name: name.to_string(),
                    scene,
                    line,
                });
            }
            other => {
                return Err(err(
                    line,
                    format!(
                        "unknown acceleration structure kind `{other}` (TOP_LEVEL or BOTTOM_LEVEL)"
                    ),
                ))
            }
        }
        Ok(())
    }

    /// A bottom level's `GEOMETRY` blocks up to its `END`.
    fn bottom_level(&mut self, line: usize) -> Result<scene::BottomLevel, ParseError> {
        let mut t = Tokens {
            queue: VecDeque::new(),
        };
        let mut level = scene::BottomLevel::default();
        loop {
            let Some((l, tok)) = self.tok(&mut t) else {
                return Err(err(line, "ACCELERATION_STRUCTURE BOTTOM_LEVEL has no END"));
            };
            match tok {
                None => continue,
                Some("END") => break,
                Some("GEOMETRY") => {
                    let (triangles, l) = match self.tok(&mut t) {
                        Some((l, Some("TRIANGLES"))) => (true, l),
                        Some((l, Some("AABBS"))) => (false, l),
                        Some((l, other)) => {
                            return Err(err(
                                l,
                                format!(
                                    "GEOMETRY needs TRIANGLES or AABBS, not {}",
                                    other
                                        .map_or("the end of the line".into(), |o| format!("`{o}`"))
                                ),
                            ))
                        }
                        None => return Err(err(l, "GEOMETRY has no END")),
                    };
                    level.geometries.push(self.geometry(l, triangles, &mut t)?);
                }
                Some(other) => {
                    return Err(err(
                        l,
                        format!("unexpected `{other}` in a bottom level (GEOMETRY or END)"),
                    ))
                }
            }
        }
        if let Some(first) = level.geometries.first() {
            let kind = matches!(first.primitives, Primitives::Triangles(_));
            if level
                .geometries
                .iter()
                .any(|g| matches!(g.primitives, Primitives::Triangles(_)) != kind)
            {
                return Err(err(
                    line,
                    "a bottom level mixes GEOMETRY TRIANGLES and AABBS (one kind per structure)",
                ));
            }
        }
        Ok(level)
    }

    /// One `GEOMETRY TRIANGLES|AABBS` block's numbers and `FLAGS` up to
    /// its `END`.
    fn geometry(
        &mut self,
        line: usize,
        triangles: bool,
        t: &mut Tokens<'a>,
    ) -> Result<Geometry, ParseError> {
        let mut values: Vec<f32> = Vec::new();
        let mut opaque = false;
        let mut no_duplicate_any_hit = false;
        loop {
            let Some((l, tok)) = self.tok(t) else {
                return Err(err(line, "GEOMETRY has no END"));
            };
            match tok {
                None => continue,
                Some("END") => break,
                Some("FLAGS") => {
                    for (l, flag) in self.flags(l, t)? {
                        match flag {
                            "OPAQUE" => opaque = true,
                            "NO_DUPLICATE_ANY_HIT" => no_duplicate_any_hit = true,
                            other => {
                                return Err(err(
                                    l,
                                    format!("unknown geometry flag `{other}` (OPAQUE, NO_DUPLICATE_ANY_HIT)"),
                                ))
                            }
                        }
                    }
                }
                Some(word) => values.push(number(l, word)?),
            }
        }
        let primitives = if triangles {
            if values.is_empty() {
                return Err(err(line, "GEOMETRY TRIANGLES has no triangles"));
            }
            if values.len() % 9 != 0 {
                return Err(err(
                    line,
                    format!(
                        "GEOMETRY TRIANGLES has {} coordinates: each triangle is three vertices of three",
                        values.len()
                    ),
                ));
            }
            let v = |c: &[f32]| [c[0], c[1], c[2]];
            Primitives::Triangles(
                values
                    .chunks_exact(9)
                    .map(|c| [v(&c[0..3]), v(&c[3..6]), v(&c[6..9])])
                    .collect(),
            )
        } else {
            if values.is_empty() {
                return Err(err(line, "GEOMETRY AABBS has no boxes"));
            }
            if values.len() % 6 != 0 {
                return Err(err(
                    line,
                    format!(
                        "GEOMETRY AABBS has {} coordinates: each box is two corners of three",
                        values.len()
                    ),
                ));
            }
            Primitives::Boxes(
                values
                    .chunks_exact(6)
                    .map(|c| Aabb {
                        min: [c[0], c[1], c[2]],
                        max: [c[3], c[4], c[5]],
                    })
                    .collect(),
            )
        };
        Ok(Geometry {
            primitives,
            opaque,
            no_duplicate_any_hit,
        })
    }

    /// The words of a `FLAGS`: the rest of its line, or, when nothing
    /// follows it there, the lines up to an `END` (amber's rule).
    fn flags(
        &mut self,
        line: usize,
        t: &mut Tokens<'a>,
    ) -> Result<Vec<(usize, &'a str)>, ParseError> {
        let mut out = Vec::new();
        let mut multiline = None;
        loop {
            let Some((l, tok)) = self.tok(t) else {
                return Err(err(line, "FLAGS has no END"));
            };
            match tok {
                None => {
                    let multi = *multiline.get_or_insert(out.is_empty());
                    if !multi {
                        return Ok(out);
                    }
                }
                Some("END") => return Ok(out),
                Some(word) => out.push((l, word)),
            }
        }
    }

    /// A top level's instances up to its `END`, and the bottom levels
    /// they place.
    fn top_level(&mut self, line: usize) -> Result<scene::TopLevel, ParseError> {
        let mut t = Tokens {
            queue: VecDeque::new(),
        };
        let mut top = scene::TopLevel::default();
        // Which script bottom level each of `top.bottom` is.
        let mut used: Vec<usize> = Vec::new();
        loop {
            let Some((l, tok)) = self.tok(&mut t) else {
                return Err(err(line, "ACCELERATION_STRUCTURE TOP_LEVEL has no END"));
            };
            let name = match tok {
                None => continue,
                Some("END") => break,
                Some("BOTTOM_LEVEL_INSTANCE") => self.name_token(l, &mut t)?,
                Some("BLAS_INSTANCE") => {
                    match self.tok(&mut t) {
                        Some((_, Some("USE"))) => {}
                        _ => return Err(err(l, "expected `BLAS_INSTANCE USE name`")),
                    }
                    self.name_token(l, &mut t)?
                }
                Some(other) => {
                    return Err(err(
                        l,
                        format!(
                            "unexpected `{other}` in a top level (BOTTOM_LEVEL_INSTANCE or END)"
                        ),
                    ))
                }
            };
            let index = self
                .script
                .bottom_levels
                .iter()
                .position(|b| b.name == name)
                .ok_or_else(|| {
                    err(
                        l,
                        format!("unknown bottom-level acceleration structure `{name}`"),
                    )
                })?;
            let bottom = match used.iter().position(|u| *u == index) {
                Some(b) => b,
                None => {
                    used.push(index);
                    top.bottom
                        .push(self.script.bottom_levels[index].level.clone());
                    used.len() - 1
                }
            };
            let mut instance = Instance::of(bottom);
            if tok == Some("BOTTOM_LEVEL_INSTANCE") {
                self.instance(l, &mut t, &mut instance)?;
            }
            top.instances.push(instance);
        }
        Ok(top)
    }

    /// The next token, which must be a name on line `line`'s command.
    fn name_token(&mut self, line: usize, t: &mut Tokens<'a>) -> Result<&'a str, ParseError> {
        match self.tok(t) {
            Some((_, Some(name))) => Ok(name),
            _ => Err(err(
                line,
                "expected a bottom-level acceleration structure name",
            )),
        }
    }

    /// A `BOTTOM_LEVEL_INSTANCE`'s `INDEX`, `OFFSET`, `MASK`, `FLAGS` and
    /// `TRANSFORM` up to its `END`.
    fn instance(
        &mut self,
        line: usize,
        t: &mut Tokens<'a>,
        instance: &mut Instance,
    ) -> Result<(), ParseError> {
        loop {
            let Some((l, tok)) = self.tok(t) else {
                return Err(err(line, "BOTTOM_LEVEL_INSTANCE has no END"));
            };
            match tok {
                None => continue,
                Some("END") => return Ok(()),
                Some(key @ ("INDEX" | "OFFSET" | "MASK")) => {
                    let value = match self.tok(t) {
                        Some((_, Some(v))) => integer(l, key, v)?,
                        _ => return Err(err(l, format!("{key} needs a value"))),
                    };
                    let wide = |bits: u32| {
                        err(
                            l,
                            format!("{key} {value} does not fit in {bits} bits"),
                        )
                    };
                    match key {
                        "INDEX" if value <= u64::from(scene::MAX_24_BIT) => {
                            instance.custom_index = value as u32
                        }
                        "OFFSET" if value <= u64::from(scene::MAX_24_BIT) => {
                            instance.sbt_offset = value as u32
                        }
                        "MASK" => instance.mask = u8::try_from(value).map_err(|_| wide(8))?,
                        _ => return Err(wide(24)),
                    }
                }
                Some("FLAGS") => {
                    let mut flags = InstanceFlags::default();
                    for (l, flag) in self.flags(l, t)? {
                        let bits = match flag {
                            "TRIANGLE_FACING_CULL_DISABLE" => 0x1,
                            "TRIANGLE_FLIP_FACING" => 0x2,
                            "FORCE_OPAQUE" => 0x4,
                            "FORCE_NO_OPAQUE" => 0x8,
                            "FORCE_OPACITY_MICROMAP_2_STATE" => 0x10,
                            "DISABLE_OPACITY_MICROMAPS" => 0x20,
                            other if other.starts_with(|c: char| c.is_ascii_digit()) => {
                                integer(l, "instance flags", other)?
                            }
                            other => {
                                return Err(err(l, format!("unknown instance flag `{other}`")))
                            }
                        };
                        if bits > 0xFF {
                            return Err(err(
                                l,
                                format!("instance flags {bits:#x} do not fit in 8 bits"),
                            ));
                        }
                        // 0x10 and 0x20 (FORCE_OPACITY_MICROMAP_2_STATE,
                        // DISABLE_OPACITY_MICROMAPS) act on geometries
                        // with an opacity micromap, which a script's never
                        // have: they change nothing (the Vulkan CTS's
                        // ray_tracing/basic2.amber sets one).
                        if bits & !0x3F != 0 {
                            return Err(err(
                                l,
                                format!("instance flags {bits:#x}: no such VkGeometryInstanceFlagBitsKHR"),
                            ));
                        }
                        flags.triangle_facing_cull_disable |= bits & 0x1 != 0;
                        flags.triangle_flip_facing |= bits & 0x2 != 0;
                        flags.force_opaque |= bits & 0x4 != 0;
                        flags.force_no_opaque |= bits & 0x8 != 0;
                    }
                    instance.flags = flags;
                }
                Some("TRANSFORM") => {
                    let mut m = Vec::with_capacity(12);
                    loop {
                        match self.tok(t) {
                            None => return Err(err(l, "TRANSFORM has no END")),
                            Some((_, None)) => continue,
                            Some((_, Some("END"))) => break,
                            Some((ml, Some(word))) => m.push(number(ml, word)?),
                        }
                    }
                    if m.len() != 12 {
                        return Err(err(
                            l,
                            format!(
                                "TRANSFORM has {} numbers: a 3 x 4 matrix, row by row, has 12",
                                m.len()
                            ),
                        ));
                    }
                    for (i, v) in m.into_iter().enumerate() {
                        instance.transform[i / 4][i % 4] = v;
                    }
                }
                Some(other) => {
                    return Err(err(
                        l,
                        format!("unexpected `{other}` in BOTTOM_LEVEL_INSTANCE (INDEX, OFFSET, FLAGS, MASK, TRANSFORM or END)"),
                    ))
                }
            }
        }
    }
}

/// A coordinate: a decimal number (amber's integer or double token).
fn number(line: usize, word: &str) -> Result<f32, ParseError> {
    let numeric = word.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c))
        && !word.starts_with("0x");
    match word.parse::<f32>() {
        Ok(v) if numeric && v.is_finite() => Ok(v),
        _ => Err(err(
            line,
            format!("`{word}` is not a number (END expected)"),
        )),
    }
}

/// A non-negative integer, decimal or `0x` hexadecimal.
fn integer(line: usize, what: &str, word: &str) -> Result<u64, ParseError> {
    let v = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => word.parse().ok(),
    };
    v.ok_or_else(|| {
        err(
            line,
            format!("{what} `{word}` is not a non-negative integer (decimal or 0x hex)"),
        )
    })
}

#[cfg(test)]
mod tests {
    use runtime_loader::scene::{self, Aabb, Geometry, Instance, InstanceFlags, Primitives};

    use crate::run::amber::{parse, BindKind, ParseError};

    const SCRIPT: &str = "#!amber
ACCELERATION_STRUCTURE BOTTOM_LEVEL tris
  GEOMETRY TRIANGLES
    0 0 0   1 0 0
    0 1 0
    2.5 0 -1  3 0 -1  2.5 1 -1
  END
  GEOMETRY TRIANGLES
    FLAGS OPAQUE NO_DUPLICATE_ANY_HIT
    0 0 0 1 0 0 0 1 0
  END
END
ACCELERATION_STRUCTURE BOTTOM_LEVEL boxes
  GEOMETRY AABBS
    FLAGS
      OPAQUE
    END
    0 0 0 1 1 1
    -2 -2 -2 -1.5 -1 -1
  END
END
ACCELERATION_STRUCTURE TOP_LEVEL scene
  BOTTOM_LEVEL_INSTANCE boxes
    INDEX 0xABCDEF
    OFFSET 5
    MASK 0x0F
    FLAGS TRIANGLE_FACING_CULL_DISABLE 8
    TRANSFORM
      1 0 0 10
      0 1 0 0.5
      0 0 1 -2
    END
  END
  BOTTOM_LEVEL_INSTANCE tris
    MASK 3
    FLAGS
      TRIANGLE_FLIP_FACING
      0x4
    END
  END
  BLAS_INSTANCE USE boxes
END
SHADER compute s GLSL
void main() {}
END
PIPELINE compute p
  ATTACH s
  BIND ACCELERATION_STRUCTURE scene DESCRIPTOR_SET 1 BINDING 2
END
";

    #[test]
    fn bottom_and_top_levels_read_as_amber_reads_them() {
        let s = parse(SCRIPT).unwrap();
        let tris = &s.bottom_levels[0];
        assert_eq!((tris.name.as_str(), tris.line), ("tris", 2));
        assert_eq!(
            tris.level.geometries,
            [
                Geometry {
                    primitives: Primitives::Triangles(vec![
                        [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                        [[2.5, 0.0, -1.0], [3.0, 0.0, -1.0], [2.5, 1.0, -1.0]],
                    ]),
                    opaque: false,
                    no_duplicate_any_hit: false,
                },
                Geometry {
                    primitives: Primitives::Triangles(vec![[
                        [0.0; 3],
                        [1.0, 0.0, 0.0],
                        [0.0, 1.0, 0.0]
                    ]]),
                    opaque: true,
                    no_duplicate_any_hit: true,
                },
            ]
        );
        let boxes = &s.bottom_levels[1].level;
        assert_eq!(
            boxes.geometries,
            [Geometry {
                primitives: Primitives::Boxes(vec![
                    Aabb {
                        min: [0.0; 3],
                        max: [1.0; 3]
                    },
                    Aabb {
                        min: [-2.0; 3],
                        max: [-1.5, -1.0, -1.0]
                    },
                ]),
                opaque: true,
                no_duplicate_any_hit: false,
            }]
        );
        let top = &s.top_levels[0];
        assert_eq!((top.name.as_str(), top.line), ("scene", 22));
        // The bottom levels in the order the instances first place them.
        assert_eq!(top.scene.bottom, [boxes.clone(), tris.level.clone()]);
        assert_eq!(
            top.scene.instances,
            [
                Instance {
                    bottom: 0,
                    transform: [
                        [1.0, 0.0, 0.0, 10.0],
                        [0.0, 1.0, 0.0, 0.5],
                        [0.0, 0.0, 1.0, -2.0]
                    ],
                    custom_index: 0xAB_CDEF,
                    mask: 0x0F,
                    sbt_offset: 5,
                    flags: InstanceFlags {
                        triangle_facing_cull_disable: true,
                        force_no_opaque: true,
                        ..Default::default()
                    },
                },
                Instance {
                    mask: 3,
                    flags: InstanceFlags {
                        triangle_flip_facing: true,
                        force_opaque: true,
                        ..Default::default()
                    },
                    ..Instance::of(1)
                },
                Instance::of(0),
            ]
        );
        assert_eq!(top.scene.check(), Ok(()));
        let bind = &s.pipelines[0].binds[0];
        assert_eq!(
            bind.kind,
            BindKind::AccelerationStructure { set: 1, binding: 2 }
        );
        assert_eq!(bind.buffer(), "scene");
        assert!(!bind.kind.writable());
        // Defaults: identity, custom index 0, mask 0xFF (amber's).
        assert_eq!(Instance::of(0).transform, scene::IDENTITY);
    }

    fn error(text: &str) -> ParseError {
        parse(&format!("#!amber\n{text}")).unwrap_err()
    }

    #[track_caller]
    fn fails(text: &str, line: usize, message: &str) {
        let e = error(text);
        assert_eq!((e.line, e.message.as_str()), (line, message), "{text}");
        assert!(!e.unsupported, "{e}");
    }

    /// Negative controls: each malformed block is an error naming its
    /// line.
    #[test]
    fn malformed_blocks_are_errors_naming_the_line() {
        let tri = "ACCELERATION_STRUCTURE BOTTOM_LEVEL t\nGEOMETRY TRIANGLES\n0 0 0 1 0 0 0 1 0\nEND\nEND\n";
        fails(
            "ACCELERATION_STRUCTURE MIDDLE_LEVEL x\nEND",
            2,
            "unknown acceleration structure kind `MIDDLE_LEVEL` (TOP_LEVEL or BOTTOM_LEVEL)",
        );
        fails(
            "ACCELERATION_STRUCTURE BOTTOM_LEVEL t\nGEOMETRY TRIANGLES\n0 0 0 1 0 0\n0 1\nEND\nEND",
            3,
            "GEOMETRY TRIANGLES has 8 coordinates: each triangle is three vertices of three",
        );
        fails(
            "ACCELERATION_STRUCTURE BOTTOM_LEVEL t\nGEOMETRY AABBS\n0 0 0 1 1 x\nEND\nEND",
            4,
            "`x` is not a number (END expected)",
        );
        fails(
            "ACCELERATION_STRUCTURE BOTTOM_LEVEL t\nGEOMETRY TRIANGLES\nFLAGS OPAQUE SHINY\n0 0 0 1 0 0 0 1 0\nEND\nEND",
            4,
            "unknown geometry flag `SHINY` (OPAQUE, NO_DUPLICATE_ANY_HIT)",
        );
        fails(
            "ACCELERATION_STRUCTURE BOTTOM_LEVEL t\nGEOMETRY TRIANGLES\n0 0 0 1 0 0 0 1 0\nEND\nGEOMETRY AABBS\n0 0 0 1 1 1\nEND\nEND",
            2,
            "a bottom level mixes GEOMETRY TRIANGLES and AABBS (one kind per structure)",
        );
        fails(
            "ACCELERATION_STRUCTURE BOTTOM_LEVEL t\nGEOMETRY TRIANGLES\n0 0 0 1 0 0 0 1 0\n",
            3,
            "GEOMETRY has no END",
        );
        fails(
            &format!("{tri}ACCELERATION_STRUCTURE TOP_LEVEL s\nBOTTOM_LEVEL_INSTANCE u\nEND\nEND"),
            8,
            "unknown bottom-level acceleration structure `u`",
        );
        fails(
            &format!("{tri}ACCELERATION_STRUCTURE TOP_LEVEL s\nBOTTOM_LEVEL_INSTANCE t\nMASK 256\nEND\nEND"),
            9,
            "MASK 256 does not fit in 8 bits",
        );
        fails(
            &format!("{tri}ACCELERATION_STRUCTURE TOP_LEVEL s\nBOTTOM_LEVEL_INSTANCE t\nINDEX 16777216\nEND\nEND"),
            9,
            "INDEX 16777216 does not fit in 24 bits",
        );
        fails(
            &format!("{tri}ACCELERATION_STRUCTURE TOP_LEVEL s\nBOTTOM_LEVEL_INSTANCE t\nTRANSFORM 1 0 0 0 0 1 0 0 0 0 1 END\nEND\nEND"),
            9,
            "TRANSFORM has 11 numbers: a 3 x 4 matrix, row by row, has 12",
        );
        fails(
            &format!("{tri}ACCELERATION_STRUCTURE TOP_LEVEL s\nBOTTOM_LEVEL_INSTANCE t\nFLAGS FORCE_OPAQUE SIDEWAYS\nEND\nEND"),
            9,
            "unknown instance flag `SIDEWAYS`",
        );
        fails(
            &format!("{tri}ACCELERATION_STRUCTURE TOP_LEVEL s\nBOTTOM_LEVEL_INSTANCE t\nEND\n"),
            7,
            "ACCELERATION_STRUCTURE TOP_LEVEL has no END",
        );
        fails(
            &format!("{tri}SHADER compute s GLSL\nvoid main() {{}}\nEND\nPIPELINE compute p\nATTACH s\nBIND ACCELERATION_STRUCTURE t DESCRIPTOR_SET 0 BINDING 0\nEND"),
            12,
            "`t` is a bottom-level acceleration structure: a kernel binds a top level",
        );
        fails(
            &format!("{tri}SHADER compute s GLSL\nvoid main() {{}}\nEND\nPIPELINE compute p\nATTACH s\nBIND ACCELERATION_STRUCTURE none DESCRIPTOR_SET 0 BINDING 0\nEND"),
            12,
            "unknown top-level acceleration structure `none`",
        );
        // Opacity micromap flags act on no geometry of a script: nothing.
        let s = parse(&format!(
            "#!amber\n{tri}ACCELERATION_STRUCTURE TOP_LEVEL s\nBOTTOM_LEVEL_INSTANCE t\nFLAGS FORCE_OPAQUE DISABLE_OPACITY_MICROMAPS 0x10\nEND\nEND"
        ))
        .unwrap();
        assert_eq!(
            s.top_levels[0].scene.instances[0].flags,
            InstanceFlags {
                force_opaque: true,
                ..Default::default()
            }
        );
        fails(
            &format!("{tri}ACCELERATION_STRUCTURE TOP_LEVEL s\nBOTTOM_LEVEL_INSTANCE t\nFLAGS 0x40\nEND\nEND"),
            9,
            "instance flags 0x40: no such VkGeometryInstanceFlagBitsKHR",
        );
    }
}
