//! AmberScript's `SHADER`: inline GLSL, SPIR-V assembly or hex, or a
//! `FILE`, and `VIRTUAL_FILE`s.

use super::super::error::{err, unsupported, ParseError};
use super::super::values::hex_bytes;
use super::reader::AmberParser;
use crate::run::amber::{Shader, ShaderSource};

impl<'a> AmberParser<'a> {
    pub(super) fn shader(&mut self, line: usize, t: &[&str]) -> Result<(), ParseError> {
        let (Some(stage), Some(name), Some(format)) = (t.get(1), t.get(2), t.get(3)) else {
            return Err(err(line, "expected `SHADER compute NAME FORMAT`"));
        };
        if *stage != "compute" {
            return Err(unsupported(
                line,
                format!("{stage} shaders: halc runs compute shaders only"),
            ));
        }
        let mut target_env = None;
        // The source: inline up to END, or from a (virtual) file.
        let mut from: Option<Vec<u8>> = None;
        let mut rest = t[4..].iter();
        while let Some(k) = rest.next() {
            match *k {
                "TARGET_ENV" => {
                    target_env = Some(
                        rest.next()
                            .ok_or_else(|| err(line, "TARGET_ENV needs a value"))?
                            .to_string(),
                    )
                }
                "FILE" => {
                    let name = rest.next().ok_or_else(|| err(line, "FILE needs a path"))?;
                    from = Some(self.file(line, name)?);
                }
                "VIRTUAL_FILE" => {
                    let name = rest
                        .next()
                        .ok_or_else(|| err(line, "VIRTUAL_FILE needs a path"))?;
                    let body = self
                        .virtual_files
                        .get(*name)
                        .ok_or_else(|| err(line, format!("unknown virtual file `{name}`")))?;
                    from = Some(body.clone().into_bytes());
                }
                other => return Err(err(line, format!("unexpected `{other}`"))),
            }
        }
        let text = |bytes: Vec<u8>| {
            String::from_utf8(bytes).map_err(|_| err(line, "the shader's FILE is not UTF-8 text"))
        };
        let inline = from.is_none();
        let (body, binary) = match from {
            Some(bytes) if *format == "SPIRV-BIN" => (String::new(), bytes),
            Some(bytes) => (text(bytes)?, Vec::new()),
            None if *format == "SPIRV-BIN" => {
                return Err(err(line, "SPIRV-BIN shaders are read from a FILE"))
            }
            None => (self.block(line, "SHADER")?, Vec::new()),
        };
        let source = match *format {
            "GLSL" => ShaderSource::Glsl(body),
            "SPIRV-ASM" => ShaderSource::SpirvAsm(body),
            "SPIRV-HEX" => ShaderSource::SpirvHex(hex_bytes(line, &body)?),
            "SPIRV-BIN" => ShaderSource::SpirvHex(binary),
            "HLSL" | "OPENCL-C" | "PASSTHROUGH" => {
                return Err(unsupported(
                    line,
                    format!("{format} shaders are not supported"),
                ))
            }
            other => return Err(err(line, format!("unknown shader format `{other}`"))),
        };
        if self.script.shaders.iter().any(|s| s.name == *name) {
            return Err(err(line, format!("shader `{name}` is declared twice")));
        }
        self.script.shaders.push(Shader {
            name: name.to_string(),
            source,
            target_env,
            line,
            inline,
        });
        Ok(())
    }
}
