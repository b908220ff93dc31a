//! What the parent and a worker say to each other: a [`Request`] or a
//! [`Reply`], a small JSON header and a raw payload, each length-prefixed
//! over the worker's stdin and stdout.

use std::io::{self, Read, Write};

use serde::{Deserialize, Serialize};

use crate::msl::compile::MslOptions;
use crate::msl::layout::KernelLayout;

/// Largest message accepted over the pipe (the module plus its layout).
const MAX_MESSAGE: u32 = 256 << 20;

/// A request: a small JSON header, and the module's words as the raw
/// payload of `Validate` (encoding them as JSON numbers cost more than the
/// pipe).
#[derive(Serialize, Deserialize)]
pub(super) enum Request {
    /// Run SPIRV-Tools' validator on the payload; a valid module stays in
    /// the worker for the `Generate` requests that follow, so it crosses the
    /// pipe once, and SPIRV-Cross parses it as soon as the verdict is sent.
    /// The worker answers requests in order, so SPIRV-Cross only ever sees a
    /// module the validator accepted.
    Validate,
    /// Hold the payload as the module the `Generate` requests that follow
    /// are for, without validating it, and let SPIRV-Cross parse it at once
    /// (while the parent reflects it and lays its first kernel out): another
    /// worker validates it at the same time ([`Worker::with_validator`]),
    /// and the parent reads this worker's MSL only once that one found the
    /// module valid. No reply.
    ///
    /// [`Worker::with_validator`]: super::Worker::with_validator
    Load,
    /// Generate MSL for one entry point of the module validated or loaded
    /// last.
    Generate {
        entry: String,
        layout: KernelLayout,
        options: MslOptions,
    },
}

/// A reply; `Generated` carries the MSL source as the raw payload.
#[derive(Serialize, Deserialize)]
pub(super) enum Reply {
    Valid,
    Invalid(String),
    Generated { function_name: String },
    Err(String),
}

/// Writes `[u32 header length][JSON header][u32 payload length][payload]`;
/// the bytes written.
pub(super) fn write_msg<T: Serialize>(
    w: &mut impl Write,
    msg: &T,
    payload: &[u8],
) -> io::Result<usize> {
    let bytes = serde_json::to_vec(msg).map_err(io::Error::other)?;
    let payload_len = u32::try_from(payload.len())
        .ok()
        .filter(|n| *n <= MAX_MESSAGE)
        .ok_or_else(|| io::Error::other(format!("payload of {} bytes", payload.len())))?;
    w.write_all(&(bytes.len() as u32).to_le_bytes())?;
    w.write_all(&bytes)?;
    w.write_all(&payload_len.to_le_bytes())?;
    w.write_all(payload)?;
    w.flush()?;
    Ok(8 + bytes.len() + payload.len())
}

fn read_len(r: &mut impl Read) -> io::Result<usize> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len);
    if len > MAX_MESSAGE {
        return Err(io::Error::other(format!("message of {len} bytes")));
    }
    Ok(len as usize)
}

/// Reads one message: `None` at the end of the input.
pub(super) fn read_msg<T: for<'de> Deserialize<'de>>(
    r: &mut impl Read,
) -> io::Result<Option<(T, Vec<u8>)>> {
    let len = match read_len(r) {
        Ok(len) => len,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    let header = serde_json::from_slice(&buf).map_err(io::Error::other)?;
    let mut payload = vec![0u8; read_len(r)?];
    r.read_exact(&mut payload)?;
    Ok(Some((header, payload)))
}
