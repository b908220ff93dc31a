//! Which of the two forms a file is in (`#!amber` first, or `[…]`
//! sections), and the entry points that parse it as that form.

use std::path::Path;

use super::amberscript::reader::AmberParser;
use super::error::{err, ParseError};
use super::vkscript::vkscript;
use crate::run::amber::Script;

/// Parses an AmberScript or VkScript file whose `FILE`s (buffer data,
/// shaders) are named relative to the working directory.
pub fn parse(text: &str) -> Result<Script, ParseError> {
    parse_in(text, Path::new(""))
}

/// Parses an AmberScript or VkScript file whose `FILE`s are named relative
/// to `dir` (the script's directory, as the amber tool reads them).
pub fn parse_in(text: &str, dir: &Path) -> Result<Script, ParseError> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if first.starts_with("#!amber") {
        AmberParser::new(text, dir).script()
    } else if text.lines().any(|l| l.trim_start().starts_with('[')) {
        vkscript(text)
    } else {
        Err(err(
            1,
            "neither AmberScript (first line `#!amber`) nor VkScript (`[test]` sections)",
        ))
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::amber::{Check, Command, RequiredSize, ShaderSource, Tolerance};

    const AMBER: &str = "#!amber
# a comment
SHADER compute add GLSL
#version 450
layout(set = 0, binding = 0) buffer B { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] += 1u; }
END

BUFFER data DATA_TYPE uint32 DATA
1 2 3
4
END
BUFFER series DATA_TYPE vec3<float> STD430 SIZE 2 SERIES_FROM 1.0 INC_BY 0.5
BUFFER push DATA_TYPE uint32 DATA 7 END

PIPELINE compute p
  ATTACH add ENTRY_POINT main SPECIALIZE 3 AS uint32 16
  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER push AS push_constant
END
DERIVE_PIPELINE q FROM p
  BIND BUFFER series AS storage DESCRIPTOR_SET 0 BINDING 0
END

REPEAT 2
RUN p 4 1 1
END
EXPECT data IDX 4 EQ 4 5
EXPECT series IDX 0 TOLERANCE 0.01 1% EQ 1 1.5 2
EXPECT data EQ_BUFFER data
";

    #[test]
    fn amberscript_compute_subset() {
        let s = parse(AMBER).unwrap();
        assert_eq!(s.shaders.len(), 1);
        assert!(
            matches!(&s.shaders[0].source, ShaderSource::Glsl(src) if src.contains("gl_GlobalInvocationID"))
        );
        let data = &s.buffers[0];
        assert_eq!(data.bytes.len(), 16);
        assert_eq!(&data.bytes[4..8], &2u32.to_le_bytes());
        let series = &s.buffers[1];
        assert_eq!(series.bytes.len(), 32); // vec3 stride 16
        assert_eq!(&series.bytes[16..20], &2.5f32.to_le_bytes());
        let p = &s.pipelines[0];
        assert_eq!(p.specialize[0].id, 3);
        assert_eq!(p.binds.len(), 2);
        let q = &s.pipelines[1];
        assert_eq!(q.binds.len(), 2);
        assert!(q.binds.iter().any(|b| b.buffer() == "series"));
        let runs = s
            .commands
            .iter()
            .filter(|c| matches!(c, Command::Run { .. }))
            .count();
        assert_eq!(runs, 2);
        match &s.commands[3] {
            Command::Expect {
                check: Check::Values { tolerance, .. },
                line,
                ..
            } => {
                assert_eq!(*line, 29);
                assert_eq!(
                    tolerance,
                    &[Tolerance::Absolute(0.01), Tolerance::Percent(1.0)]
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// A buffer past the limit is refused naming the buffer, its size and
    /// the limit, before anything is allocated (a script is untrusted).
    #[test]
    fn a_buffer_past_the_limit_names_the_buffer_and_the_limit() {
        let e =
            parse("#!amber\nBUFFER big DATA_TYPE uint32 SIZE 999999999999 FILL 0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: buffer `big`: SIZE 999999999999 of 4-byte elements is 3999999999996 bytes, past halc test's limit of 1073741824 bytes (1 GiB) per buffer"
        );
        let e =
            parse("#!amber\nBUFFER v DATA_TYPE vec4<float> SIZE 67108865 FILL 0\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("buffer `v`: SIZE 67108865 of 16-byte elements"),
            "{e}"
        );
        let s = parse("#!amber\nBUFFER ok DATA_TYPE uint32 SIZE 4 FILL 7\n").unwrap();
        assert_eq!(s.buffers[0].bytes, [7u8, 0, 0, 0].repeat(4));
    }

    /// A FILE that is not a regular file (a device that never ends, a
    /// directory) or is past the buffer limit is refused before it is read.
    #[test]
    fn a_file_is_read_only_when_regular_and_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let script = |file: &str| format!("#!amber\nBUFFER b DATA_TYPE uint8 FILE BINARY {file}\n");
        let e = parse_in(&script("/dev/zero"), dir.path()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: cannot read FILE `/dev/zero`: not a regular file"
        );
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let e = parse_in(&script("d"), dir.path()).unwrap_err();
        assert!(e.to_string().ends_with("/d`: not a regular file"), "{e}");
        // Sparse: one byte past the limit, nothing written.
        let big = std::fs::File::create(dir.path().join("big")).unwrap();
        big.set_len((1 << 30) + 1).unwrap();
        let e = parse_in(&script("big"), dir.path()).unwrap_err();
        assert!(
            e.to_string().ends_with("/big`: 1073741825 bytes, past halc test's limit of 1073741824 bytes (1 GiB) per buffer"),
            "{e}"
        );
        std::fs::write(dir.path().join("ok"), [1u8, 2, 3]).unwrap();
        let s = parse_in(&script("ok"), dir.path()).unwrap();
        assert_eq!(s.buffers[0].bytes, [1, 2, 3]);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("#!amber\nBUFFER b DATA_TYPE uint33 DATA 1 END\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: unknown data type `uint33`");
        assert!(!e.unsupported);
        let e = parse("#!amber\nRUN nope 1 1 1\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: unknown pipeline `nope`");
        let e = parse("#!amber\nSHADER compute s GLSL\nvoid main(){}\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: SHADER has no END");
        let e = parse("#!amber\nBUFFER b DATA_TYPE uint8 DATA 1.5 END\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: `1.5` is not a valid uint8");
        let e = parse("#!amber\nSHADER vertex v PASSTHROUGH\n").unwrap_err();
        assert!(e.unsupported, "{e}");
        assert!(parse("hello").is_err());
    }

    #[test]
    fn subgroup_required_size() {
        let script = |body: &str| {
            format!(
                "#!amber\nSHADER compute k GLSL\nvoid main(){{}}\nEND\nPIPELINE compute p\n  ATTACH k\n  SUBGROUP k\n{body}  END\nEND\n"
            )
        };
        let s = parse(&script("    FULLY_POPULATED off\n    REQUIRED_SIZE 8\n")).unwrap();
        assert_eq!(s.pipelines[0].subgroup_size, Some(RequiredSize::Exact(8)));
        assert!(!s.pipelines[0].full_subgroups);
        let s = parse(&script("    VARYING_SIZE on\n    FULLY_POPULATED on\n")).unwrap();
        assert_eq!(s.pipelines[0].subgroup_size, None);
        assert!(s.pipelines[0].full_subgroups);
        let s = parse(&script("    REQUIRED_SIZE MAX\n")).unwrap();
        assert_eq!(s.pipelines[0].subgroup_size, Some(RequiredSize::Max));
        let e = parse(&script("    REQUIRED_SIZE 12\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 8: REQUIRED_SIZE 12: a subgroup size is a power of two up to 128"
        );
        let e = parse(&script("    FULLY_POPULATED maybe\n")).unwrap_err();
        assert_eq!(e.to_string(), "line 8: FULLY_POPULATED needs on or off");
        let e = parse(&script("    REQUIRED_SIZE 8\n").replace("SUBGROUP k", "SUBGROUP nope"))
            .unwrap_err();
        assert_eq!(e.to_string(), "line 7: unknown shader `nope`");
    }

    /// What the amber tool reads beyond the basics: continued lines,
    /// descriptor arrays, dynamic offsets, buffer and shader files, virtual
    /// files, `[]` types, timed runs, optimization passes, properties.
    #[test]
    fn amberscript_as_the_amber_tool_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("v.txt"), "1 2 # a comment\n3\n").unwrap();
        std::fs::write(dir.path().join("v.bin"), [1u8, 0, 0, 0, 2, 0, 0, 0]).unwrap();
        std::fs::write(dir.path().join("k.spv"), [3u8, 2, 0x23, 7]).unwrap();
        let text = "#!amber
DEVICE_PROPERTY FloatControlsProperties.shaderDenormPreserveFloat16
VIRTUAL_FILE k.comp
void main() {}
END
SHADER compute k GLSL VIRTUAL_FILE k.comp
SHADER compute bin SPIRV-BIN FILE k.spv
BUFFER t DATA_TYPE uint32 SIZE 99 FILE TEXT v.txt
BUFFER b DATA_TYPE uint32 FILE BINARY v.bin
BUFFER f DATA_TYPE int32 SIZE 2 FILL 0.0
BUFFER a DATA_TYPE float[] STD140 DATA 1 2 END
BUFFER w DATA_TYPE int16 DATA 40206 -1 END
PIPELINE compute p
  ATTACH k
  BIND BUFFER_ARRAY t b AS storage DESCRIPTOR_SET 0 BINDING 0 \\
    DESCRIPTOR_OFFSET 0 4 DESCRIPTOR_RANGE -1 4
  BIND BUFFER f AS storage_dynamic DESCRIPTOR_SET 0 BINDING 1 OFFSET 256 DESCRIPTOR_OFFSET 16
  BIND BUFFER_ARRAY a a AS uniform_dynamic DESCRIPTOR_SET 1 BINDING 0 OFFSET 0 32
  SHADER_OPTIMIZATION k
    --eliminate-dead-code-aggressive
    --merge-blocks
  END
END
RUN TIMED_EXECUTION p 1 1 1
";
        let s = parse_in(text, dir.path()).unwrap();
        assert_eq!(
            s.properties,
            [(
                "FloatControlsProperties.shaderDenormPreserveFloat16".into(),
                2
            )]
        );
        assert_eq!(
            s.shaders[0].source,
            ShaderSource::Glsl("void main() {}\n".into())
        );
        assert_eq!(
            s.shaders[1].source,
            ShaderSource::SpirvHex(vec![3, 2, 0x23, 7])
        );
        let bytes = |n: &str| {
            s.buffers
                .iter()
                .find(|b| b.name == n)
                .unwrap()
                .bytes
                .clone()
        };
        let words = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|w| w.to_le_bytes()).collect() };
        assert_eq!(bytes("t"), words(&[1, 2, 3]));
        assert_eq!(bytes("b"), words(&[1, 2]));
        assert_eq!(bytes("f"), words(&[0, 0]));
        assert_eq!(
            bytes("a").len(),
            32,
            "float[] elements take 16 bytes in std140"
        );
        assert_eq!(bytes("w"), [0x0e, 0x9d, 0xff, 0xff]);
        let p = &s.pipelines[0];
        let el = |b: usize| -> Vec<(String, u64, Option<u64>)> {
            p.binds[b]
                .elements
                .iter()
                .map(|e| (e.buffer.clone(), e.offset, e.range))
                .collect()
        };
        assert_eq!(el(0), [("t".into(), 0, None), ("b".into(), 4, Some(4))]);
        assert_eq!(el(1), [("f".into(), 272, None)]);
        assert_eq!(el(2), [("a".into(), 0, None), ("a".into(), 32, None)]);
        assert_eq!(
            p.optimizations,
            ["--eliminate-dead-code-aggressive", "--merge-blocks"]
        );
        assert!(matches!(
            s.commands[0],
            Command::Run {
                groups: [1, 1, 1],
                ..
            }
        ));
        // What stays an error, naming the line.
        for (text, want) in [
            (
                "#!amber\nBUFFER b DATA_TYPE uint32 FILE TEXT nope.txt\n",
                "line 2: cannot read FILE",
            ),
            (
                "#!amber\nBUFFER b DATA_TYPE uint32 DATA 1 END\nSHADER compute k GLSL\nEND\nPIPELINE compute p\nATTACH k\nBIND BUFFER b AS storage_dynamic DESCRIPTOR_SET 0 BINDING 0\nEND\n",
                "line 7: a storage_dynamic binding needs OFFSET",
            ),
            (
                "#!amber\nBUFFER b DATA_TYPE uint32 DATA 1 END\nSHADER compute k GLSL\nEND\nPIPELINE compute p\nATTACH k\nBIND BUFFER_ARRAY b b b AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 0 4\nEND\n",
                "line 7: DESCRIPTOR_OFFSET has 2 values for 3 buffers",
            ),
            (
                "#!amber\nSHADER compute k GLSL VIRTUAL_FILE nope\n",
                "line 2: unknown virtual file `nope`",
            ),
        ] {
            let e = parse_in(text, dir.path()).unwrap_err();
            assert!(e.to_string().starts_with(want), "{e}");
        }
    }

    #[test]
    fn vkscript_ubo_data_is_std140() {
        let s = parse(
            "[compute shader spirv hex]
03 02 23 07
[test]
uniform ubo 0:1 mat2 0 1 2 3 4
ssbo 0:0 subdata mat2 0 1 2 3 4
",
        )
        .unwrap();
        let len = |n: &str| s.buffers.iter().find(|b| b.name == n).unwrap().bytes.len();
        assert_eq!(len("ubo 0:1"), 32, "std140 pads matrix columns to 16 bytes");
        assert_eq!(len("ssbo 0:0"), 16);
    }

    #[test]
    fn vkscript_compute_subset() {
        let s = parse(
            "[require]
VK_KHR_storage_buffer_storage_class

[compute shader spirv hex]
03 02 23 07

[test]
ssbo 0:1 subdata int 0 1 2 \\
  3
uniform ubo 0 vec2 0 1.5 2.5
push uint 4 9
tolerance 0.5
compute 2 1 1
probe ssbo int 0:1 4 == 2 3
probe ssbo float 0:1 0 ~= 1
",
        )
        .unwrap();
        assert_eq!(
            s.shaders[0].source,
            ShaderSource::SpirvHex(vec![3, 2, 0x23, 7])
        );
        assert_eq!(s.requirements[0].0, "VK_KHR_storage_buffer_storage_class");
        let names: Vec<_> = s.buffers.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["push", "ssbo 0:1", "ubo 0:0"]);
        assert_eq!(s.buffers[0].bytes.len(), 8);
        assert_eq!(s.buffers[1].bytes.len(), 12);
        assert_eq!(s.pipelines[0].binds.len(), 3);
        match &s.commands[5] {
            Command::Expect {
                check: Check::Values { tolerance, .. },
                ..
            } => assert_eq!(tolerance, &[Tolerance::Absolute(0.5)]),
            other => panic!("{other:?}"),
        }
    }
}
