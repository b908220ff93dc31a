//! The worker's side: [`serve`], the loop that answers requests in order
//! (SPIRV-Tools' validator, then SPIRV-Cross on a valid module), run by a
//! forked child or by `halc __msl-worker` ([`WORKER_ARG`]).

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::time::Duration;

use super::crash_test::{crash_for_test, CRASH_TEST_ENV};
use super::protocol::{read_msg, write_msg, Reply, Request};
use crate::msl::compile::{generate_from, parse, CrossError, GeneratedMsl, Parsed};
use crate::spirv::{SpirvError, Words};

/// The hidden subcommand that runs [`serve`].
pub const WORKER_ARG: &str = "__msl-worker";

/// The worker loop: answers requests, in order, until its input closes.
///
/// The parent sends a module to validate and, without waiting for the
/// verdict, reflects it and asks for its first kernel's MSL: the validator
/// runs while the parent reflects, and the `Generate` request waits in the
/// pipe. SPIRV-Cross runs only on a module the validator accepted, or, in
/// a worker given its modules with `Load`, beside a second worker that
/// validates them: the parent then reads its MSL only for modules that one
/// accepted ([`Worker::with_validator`]).
///
/// [`Worker::with_validator`]: super::Worker::with_validator
pub fn serve(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut input = BufReader::new(input);
    let mut output = BufWriter::new(output);
    let crash_test = std::env::var(CRASH_TEST_ENV).ok();
    // SPIRV-Cross starts on a module it is given (the injected failure
    // strikes there): it parses it for the first entry point's `Generate`
    // while the parent lays that kernel out. The parse's time counts with
    // that entry point's.
    let start_cross = |words: &Words| {
        if let Some(how) = crash_test
            .as_deref()
            .filter(|h| !h.starts_with("validate:"))
        {
            crash_for_test(how);
        }
        let start = std::time::Instant::now();
        (parse(words), start.elapsed())
    };
    let mut module: Option<Words> = None;
    let mut parsed: Option<(Result<Parsed, CrossError>, Duration)> = None;
    while let Some((req, payload)) = read_msg::<Request>(&mut input)? {
        match req {
            Request::Validate => {
                // The parse of the module before is dropped once the verdict
                // on this one is sent.
                module = None;
                let (reply, work) = match words_of(&payload) {
                    Ok(words) => {
                        let crash_test = crash_test
                            .as_deref()
                            .and_then(|h| h.strip_prefix("validate:"));
                        let (reply, work) = validate_reply(&words, crash_test);
                        if matches!(reply, Reply::Valid) {
                            module = Some(words);
                        }
                        (reply, work)
                    }
                    Err(e) => (Reply::Err(e.to_string()), Duration::ZERO),
                };
                send(&mut output, &reply, work, &[])?;
                parsed = module.as_ref().map(start_cross);
            }
            Request::Load => {
                module = words_of(&payload).ok();
                parsed = module.as_ref().map(start_cross);
            }
            Request::Generate {
                entry,
                layout,
                options,
            } => {
                let start = std::time::Instant::now();
                // The module's parse made ahead, or (for a later entry point:
                // SPIRV-Cross's compile changes what it parsed) a new one.
                let (parse_result, parse_time) = match (parsed.take(), &module) {
                    (Some(p), _) => p,
                    (None, Some(words)) => start_cross(words),
                    (None, None) => (
                        Err(CrossError("no valid module in the worker".into())),
                        Duration::ZERO,
                    ),
                };
                let start = start.checked_sub(parse_time).unwrap_or(start);
                let (reply, source, spent) =
                    match parse_result.and_then(|p| generate_from(p, &entry, &layout, &options)) {
                        Ok((
                            GeneratedMsl {
                                source,
                                function_name,
                            },
                            spent,
                        )) => (Reply::Generated { function_name }, source, Some(spent)),
                        Err(e) => (Reply::Err(e.0), String::new(), None),
                    };
                send(&mut output, &reply, start.elapsed(), source.as_bytes())?;
                // Freed once the MSL is on its way.
                drop(spent);
            }
        }
    }
    Ok(())
}

/// A request's payload as a module.
fn words_of(payload: &[u8]) -> Result<Words, SpirvError> {
    Words::from_words(
        payload
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// Runs the validator (after the injected crash, if any): the verdict and
/// the time it took.
fn validate_reply(words: &Words, crash_test: Option<&str>) -> (Reply, Duration) {
    if let Some(how) = crash_test {
        crash_for_test(how);
    }
    let start = std::time::Instant::now();
    // The verdict must be sent whatever happens.
    let result = std::panic::catch_unwind(|| crate::spirv::validate::spirv_tools(words));
    let reply = match result {
        Ok(Ok(())) => Reply::Valid,
        Ok(Err(SpirvError::Validation(m))) => Reply::Invalid(m),
        Ok(Err(e)) => Reply::Err(e.to_string()),
        Err(_) => Reply::Err("the validator's wrapper failed".into()),
    };
    (reply, start.elapsed())
}

/// Writes one reply with the time its work took.
fn send(output: &mut impl Write, reply: &Reply, work: Duration, payload: &[u8]) -> io::Result<()> {
    let nanos = u64::try_from(work.as_nanos()).unwrap_or(u64::MAX);
    write_msg(output, &(reply, nanos), payload).map(|_| ())
}
