//! The parent's side of the conversation with a worker: a module sent for
//! validation (to a second worker too, [`Worker::with_validator`]), MSL
//! asked for, the verdict and the MSL read in the order they are owed, and
//! whether the request pipe has room to send the next module ahead.

use super::error::{WorkerError, VALIDATOR};
use super::handle::{Owed, Owes, Worker};
use super::protocol::{write_msg, Reply, Request};
use crate::msl::compile::{GeneratedMsl, MslOptions};
use crate::msl::layout::KernelLayout;
use crate::spirv::{SpirvError, Words};

impl Worker {
    /// This worker, generating MSL for each module while `validator`
    /// validates it, on another core: a module's MSL then waits for
    /// SPIRV-Cross alone, not for the validator and then SPIRV-Cross.
    ///
    /// SPIRV-Cross then sees modules before they are known to be valid, in
    /// its own process: [`Worker::verdict`] reads `validator`'s answer, and
    /// on a module found invalid (or a validator that failed) kills this
    /// worker, which may be crashing or looping on it, so its MSL is never
    /// read. Errors come in the order a single worker gives them: the
    /// verdict before anything SPIRV-Cross did.
    pub fn with_validator(mut self, validator: Worker) -> Worker {
        self.validator = Some(Box::new(validator));
        self
    }

    /// Whether a second worker validates this one's modules.
    pub fn has_validator(&self) -> bool {
        self.validator.is_some()
    }

    /// Sends `words` to the worker, whose validator starts at once (or
    /// once the worker is done with the requests before it);
    /// [`Worker::verdict`] waits for its answer, and meanwhile the caller may
    /// reflect the module and send its [`Worker::send_generate`] requests
    /// (which the worker takes up after the verdict, on a valid module only).
    pub fn start_validation(&mut self, words: &Words) -> Result<(), WorkerError> {
        let payload: Vec<u8> = words
            .as_slice()
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        self.start_validation_of(&payload)
    }

    /// [`Worker::start_validation`] of a module's bytes.
    fn start_validation_of(&mut self, payload: &[u8]) -> Result<(), WorkerError> {
        let sent = std::time::Instant::now();
        let bytes = match self.validator.as_mut() {
            // Killed (after a module that was not valid) or found dead.
            Some(_) if self.stdin.is_none() => {
                return Err(WorkerError::Io(
                    "the worker has stopped; start another".into(),
                ))
            }
            Some(validator) => {
                validator.start_validation_of(payload)?;
                // The MSL of the module before may still be owed: a
                // generator found dead here has died on that module, which
                // the read of its reply reports.
                self.send(&Request::Load, payload).unwrap_or(0)
            }
            None => self
                .send(&Request::Validate, payload)
                .map_err(|()| WorkerError::Crashed(VALIDATOR, self.death()))?,
        };
        // With a validator, the verdict is that worker's: this entry keeps
        // its place among the replies owed, and the bytes `Load` left in
        // this worker's pipe.
        self.owed.push_back(Owed {
            what: Owes::Verdict,
            sent,
            bytes,
        });
        Ok(())
    }

    /// Whether `words` can be sent for validation now without the write
    /// waiting for the worker: the pipe has room for the module beside every
    /// request still unanswered. A caller that sends the next module before
    /// it reads the MSL the worker is writing (whose reply may fill the
    /// other pipe) must ask first, or both processes could wait on each
    /// other.
    pub fn has_room_for(&self, words: &Words) -> bool {
        // A message is at most three writes (`write_msg` through the
        // `BufWriter`), each of which may start a new page of the pipe, and
        // its last page may be partly filled: four pages more than its bytes.
        const SLACK: usize = 4 * 4096;
        let unread: usize = self.owed.iter().map(|o| o.bytes + SLACK).sum();
        let needed = unread + 64 + 4 * words.as_slice().len() + SLACK;
        needed <= self.request_pipe
            && self
                .validator
                .as_ref()
                .is_none_or(|v| v.has_room_for(words))
    }

    /// The validator's answer on the module sent first among those still
    /// owed: `Ok(Err(_))` is an invalid module (the worker's answers to the
    /// `Generate` requests already sent for it, refusals, are read and
    /// dropped), `Err(_)` a crash or time-out of the validator. With a
    /// validating worker ([`Worker::with_validator`]) the answer is that
    /// worker's, and unless the module is valid this one is killed.
    pub fn verdict(&mut self) -> Result<Result<(), SpirvError>, WorkerError> {
        let sent = match self.owed.front() {
            Some(o) if o.what == Owes::Verdict => o.sent,
            _ => return Err(WorkerError::Io("no module is being validated".into())),
        };
        let marker = self.owed.pop_front();
        if let Some(validator) = self.validator.as_mut() {
            // The verdict says nothing of this worker's pipe: its `Load` is
            // known read only once a reply to a later request comes, so its
            // bytes count with the next request owed (`has_room_for`).
            if let (Some(marker), Some(next)) = (marker, self.owed.front_mut()) {
                next.bytes += marker.bytes;
            }
            let verdict = validator.verdict();
            self.last_work = validator.last_work;
            self.last_wait = validator.last_wait;
            if !matches!(verdict, Ok(Ok(()))) {
                // This worker may be crashing or looping on a module that is
                // not valid (or not known to be): nothing it says is read.
                self.kill();
            }
            return verdict;
        }
        let received = self.receive(VALIDATOR, sent);
        let reply = match received? {
            (Reply::Valid, _) => Ok(()),
            (Reply::Invalid(m), _) => Err(SpirvError::Validation(m)),
            (Reply::Err(m), _) => Err(SpirvError::Parse(m)),
            (Reply::Generated { .. }, _) => return Err(WorkerError::Io("unexpected reply".into())),
        };
        if reply.is_err() {
            // The worker refuses to generate for a module it holds as
            // invalid: drop those answers (a worker that died meanwhile is
            // found dead by the next request).
            while let Some(o) = self.owed.front().copied() {
                if o.what != Owes::Generated {
                    break;
                }
                self.owed.pop_front();
                if self.receive("SPIRV-Cross", o.sent).is_err() {
                    break;
                }
            }
        }
        Ok(reply)
    }

    /// Asks the worker for the MSL of `entry` in the module sent last. While
    /// that module's verdict is owed the request waits in the pipe for it;
    /// read the verdict ([`Worker::verdict`]) before [`Worker::generated`].
    pub fn send_generate(&mut self, entry: &str, layout: &KernelLayout, options: &MslOptions) {
        let req = Request::Generate {
            entry: entry.to_string(),
            layout: layout.clone(),
            options: *options,
        };
        let sent = std::time::Instant::now();
        // A worker that died here still owes its verdict (or its crash):
        // the reads that follow find out which.
        let bytes = self.send(&req, &[]).unwrap_or(0);
        self.owed.push_back(Owed {
            what: Owes::Generated,
            sent,
            bytes,
        });
    }

    /// The MSL asked for first among those still owed
    /// ([`Worker::send_generate`]).
    pub fn generated(&mut self) -> Result<GeneratedMsl, WorkerError> {
        if self.owed.front().is_some_and(|o| o.what == Owes::Verdict) {
            self.verdict()?
                .map_err(|e| WorkerError::Io(format!("the module is not valid: {e}")))?;
        }
        let sent = match self.owed.front() {
            Some(o) if o.what == Owes::Generated => o.sent,
            _ => return Err(WorkerError::Io("no MSL was asked for".into())),
        };
        self.owed.pop_front();
        match self.receive("SPIRV-Cross", sent)? {
            (Reply::Generated { function_name }, source) => Ok(GeneratedMsl {
                source: String::from_utf8(source)
                    .map_err(|_| WorkerError::Io("MSL that is not UTF-8".into()))?,
                function_name,
            }),
            (Reply::Err(e), _) => Err(WorkerError::Cross(e)),
            (Reply::Valid | Reply::Invalid(_), _) => {
                Err(WorkerError::Io("unexpected reply".into()))
            }
        }
    }

    /// Writes one request; its size in bytes, `Err(())` if the worker is
    /// gone.
    fn send(&mut self, req: &Request, payload: &[u8]) -> Result<usize, ()> {
        match self.stdin.as_mut() {
            Some(w) => write_msg(w, req, payload).map_err(|_| ()),
            None => Err(()),
        }
    }
}
