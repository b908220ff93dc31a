//! AmberScript (`#!amber`): the parser's state and line reader
//! (`reader.rs`) and its commands, one file per kind: the command loop with
//! `RUN`, `EXPECT`, `COPY`, `REPEAT` (`commands.rs`), `SHADER`
//! (`shader.rs`), `BUFFER` (`buffer.rs`), `IMAGE` and `SAMPLER` with the
//! texel formats (`image.rs`), `PIPELINE` with its `BIND`s and `SUBGROUP`
//! (`pipeline.rs`), `ACCELERATION_STRUCTURE` (`accel.rs`).

mod accel;
mod buffer;
mod commands;
mod image;
mod pipeline;
pub(super) mod reader;
mod shader;
