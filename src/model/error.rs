//! Why a compile failed: each stage's error ([`SpirvError`],
//! [`LayoutError`], [`CrossError`], [`WorkerError`]) and the error a caller
//! gets ([`Error`]: one of them with the file and entry point it concerns).

/// `OpName` for an opcode number, `Op<n>` when unknown.
pub fn op_name(opcode: u16) -> String {
    match rspirv::spirv::Op::from_u32(u32::from(opcode)) {
        Some(op) => format!("Op{op:?}"),
        None => format!("Op{opcode} (unknown opcode)"),
    }
}

/// Errors found while reading or reflecting a SPIR-V module.
#[derive(Debug, thiserror::Error)]
pub enum SpirvError {
    /// Zero-length input.
    #[error("empty file: not a SPIR-V module")]
    Empty,
    /// Input length is not a multiple of four bytes.
    #[error("{0} bytes is not a whole number of 32-bit words: not a SPIR-V module")]
    NotWordAligned(usize),
    /// Fewer words than a header.
    #[error("truncated SPIR-V: {words} words, the header alone needs 5")]
    Truncated {
        /// Words present.
        words: usize,
    },
    /// The first word is not the SPIR-V magic number in either byte order.
    #[error("bad magic number {0:#010x}: not a SPIR-V module")]
    BadMagic(u32),
    /// Unsupported version word.
    #[error("unsupported SPIR-V version word {0:#010x} (halc reads SPIR-V 1.0 to 1.6)")]
    UnsupportedVersion(u32),
    /// The id bound is zero.
    #[error("SPIR-V header declares an id bound of 0")]
    ZeroIdBound,
    /// An instruction with word count zero.
    #[error("instruction at word {offset} has a word count of 0")]
    ZeroWordCount {
        /// Word offset.
        offset: usize,
    },
    /// An instruction runs past the end of the module.
    #[error("instruction {} at word {offset} runs past the end of the module", op_name(*.opcode))]
    InstructionPastEnd {
        /// Word offset.
        offset: usize,
        /// Opcode number.
        opcode: u16,
    },
    /// The instruction stream is malformed (an unknown opcode, a missing
    /// operand, a literal string without its nul).
    #[error("malformed SPIR-V: {0}")]
    Parse(String),
    /// The module is not something halc can compile.
    #[error("{0}")]
    Unsupported(String),
    /// A structural problem in the module (dangling id, bad type).
    #[error("invalid SPIR-V: {0}")]
    Invalid(String),
    /// A `--spec` value problem.
    #[error("{0}")]
    Spec(String),
    /// A limit checked before work starts.
    #[error("{0}")]
    Limit(String),
    /// The SPIR-V validator rejected the module.
    #[error("invalid SPIR-V: {0}")]
    Validation(String),
}

/// A layout error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LayoutError(pub String);

/// SPIRV-Cross rejected or failed on the module.
#[derive(Debug, Clone, thiserror::Error)]
#[error("SPIRV-Cross: {0}")]
pub struct CrossError(pub String);

/// Why a worker request failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// SPIRV-Cross reported an error.
    #[error("SPIRV-Cross: {0}")]
    Cross(String),
    /// The worker died.
    #[error("{0} crashed ({1}); the module was not compiled")]
    Crashed(&'static str, String),
    /// A request ran past the time limit; the worker was killed.
    #[error("{0} did not finish within the time limit of {1} s; the module was not compiled")]
    TimedOut(&'static str, u64),
    /// The worker could not be started or talked to.
    #[error("cannot run the SPIRV-Cross worker process: {0}")]
    Io(String),
}

/// What went wrong, without the location.
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// Reading or reflecting SPIR-V.
    #[error(transparent)]
    Spirv(#[from] SpirvError),
    /// The layout cannot be built.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// SPIRV-Cross failed.
    #[error(transparent)]
    Cross(#[from] CrossError),
    /// The input is not something halc compiles.
    #[error("{0}")]
    Rejected(String),
    /// The kernel needs more than Metal provides (threads per threadgroup,
    /// threadgroup memory, a read-write texture format): no translation
    /// could run it.
    #[error("{0}")]
    MetalLimit(String),
    /// The kernel needs a newer MSL than the one asked for (`--msl-version`).
    #[error("{what} needs MSL {needs} or newer; this build targets MSL {target} (--msl-version)")]
    MslVersion {
        /// What needs it, with where it is.
        what: String,
        /// The oldest MSL version that has it.
        needs: crate::model::msl::MslVersion,
        /// The version asked for.
        target: crate::model::msl::MslVersion,
    },
    /// Bad options (unknown entry point, unused --spec, ...).
    #[error("{0}")]
    Options(String),
    /// The SPIRV-Cross worker failed or crashed.
    #[error(transparent)]
    Worker(WorkerError),
    /// halc produced something inconsistent; a bug, never silent.
    #[error("internal error: {0}")]
    Internal(String),
}

/// An error with the file and entry point it concerns.
#[derive(Debug)]
pub struct Error {
    /// Input file, when the error concerns one.
    pub file: Option<String>,
    /// Entry point, when the error concerns one.
    pub entry: Option<String>,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if let Some(entry) = &self.entry {
            write!(f, "entry point `{entry}`: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for Error {}

impl Error {
    pub(crate) fn new(file: Option<&str>, entry: Option<&str>, kind: impl Into<ErrorKind>) -> Self {
        Error {
            file: file.map(str::to_string),
            entry: entry.map(str::to_string),
            kind: kind.into(),
        }
    }
}
