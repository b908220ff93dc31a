//! Loading: structural verification with explicit limits, then the semantic
//! checks (see [`crate::verify`]) that let the rest of the crate trust the
//! file. Verification happens once, here; every accessor afterwards reads the
//! bytes in place.

use std::path::Path;

use crate::kernel::{partition_point, Kernel};
use crate::records::Library;
use crate::schema;
use crate::strings::Strings;
use crate::verify::{self, VerifyLimits, Violation};

/// Why an executable was rejected.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Larger than the limit.
    #[error("executable is {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// Size.
        size: usize,
        /// Limit.
        limit: usize,
    },
    /// Not a halc executable.
    #[error("not a halc executable (file identifier is not \"HALC\")")]
    BadIdentifier,
    /// The flatbuffers verifier rejected the bytes.
    #[error("corrupt executable: {0}")]
    Corrupt(#[from] flatbuffers::InvalidFlatbuffer),
    /// Written by an incompatible halc.
    #[error("unsupported format version {found} (this loader reads version {expected})")]
    Version {
        /// Found.
        found: u32,
        /// Expected.
        expected: u32,
    },
    /// A field violates the format's rules (semantic verification).
    #[error("invalid executable: {0}")]
    Invalid(Violation),
    /// I/O error while reading the file.
    #[error("cannot read {path}: {source}")]
    Io {
        /// Path.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
}

impl LoadError {
    /// The semantic violation, when that is why the file was rejected.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            LoadError::Invalid(v) => Some(v),
            _ => None,
        }
    }
}

/// A verified halc executable borrowed from its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Executable<'a> {
    root: schema::Executable<'a>,
    strings: Strings<'a>,
}

impl<'a> Executable<'a> {
    /// Verifies `bytes` with default limits.
    pub fn load(bytes: &'a [u8]) -> Result<Self, LoadError> {
        Self::load_with_limits(bytes, VerifyLimits::default())
    }

    /// Verifies `bytes` with explicit limits: size, identifier, the
    /// flatbuffers verifier, the format version, then every semantic rule of
    /// `schemas/halc_executable.fbs` (see [`Violation`] for what is checked).
    pub fn load_with_limits(bytes: &'a [u8], limits: VerifyLimits) -> Result<Self, LoadError> {
        if bytes.len() > limits.max_bytes {
            return Err(LoadError::TooLarge {
                size: bytes.len(),
                limit: limits.max_bytes,
            });
        }
        // `executable_buffer_has_identifier` asserts (panics) on inputs
        // shorter than a root offset plus the identifier.
        const HEADER: usize = flatbuffers::SIZE_UOFFSET + flatbuffers::FILE_IDENTIFIER_LENGTH;
        if bytes.len() < HEADER || !schema::executable_buffer_has_identifier(bytes) {
            return Err(LoadError::BadIdentifier);
        }
        let opts = flatbuffers::VerifierOptions {
            max_depth: limits.max_depth,
            max_tables: limits.max_tables,
            max_apparent_size: limits.max_bytes,
            ..Default::default()
        };
        // The version first, so that a file of another format version gets
        // the version error rather than whatever the verifier trips on
        // first in a layout it does not describe.
        let found = format_version(&opts, bytes)?;
        let expected = schema::FormatVersion::Current.0;
        if found != expected {
            return Err(LoadError::Version { found, expected });
        }
        let root = schema::root_as_executable_with_opts(&opts, bytes)?;
        let strings = verify::executable(root, &limits).map_err(LoadError::Invalid)?;
        Ok(Executable { root, strings })
    }

    /// The FlatBuffer root.
    pub fn raw(&self) -> schema::Executable<'a> {
        self.root
    }

    /// The text every `schema::Str` of the file points into.
    pub fn strings(&self) -> Strings<'a> {
        self.strings
    }

    /// Kernels, sorted by name (raw FlatBuffer structs).
    pub fn kernels(&self) -> impl ExactSizeIterator<Item = &'a schema::Kernel> + 'a {
        self.root.kernels().iter()
    }

    /// The kernel named `name` in the executable (raw FlatBuffer struct).
    pub fn kernel(&self, name: &str) -> Option<&'a schema::Kernel> {
        let kernels = self.root.kernels();
        // Loading checked that the names are sorted, bytewise, and unique.
        let name_of = |i| self.strings.str(kernels.get(i).names().name());
        let i = partition_point(0, kernels.len(), |i| name_of(i) < name);
        (i < kernels.len() && name_of(i) == name).then(|| kernels.get(i))
    }

    /// Kernels, sorted by name, as verified typed views.
    pub fn entry_points(&self) -> impl ExactSizeIterator<Item = Kernel<'a>> + 'a {
        let (root, strings) = (self.root, self.strings);
        root.kernels()
            .iter()
            .map(move |k| Kernel::new(root, strings, k))
    }

    /// The kernels' names, sorted: what an error about a name that is not
    /// there lists.
    pub fn kernel_names(&self) -> Vec<String> {
        self.entry_points().map(|k| k.name().to_string()).collect()
    }

    /// The kernel named `name` in the executable, as a verified typed
    /// view: the input of [`crate::plan`] and of the Metal runtime.
    pub fn entry_point(&self, name: &str) -> Option<Kernel<'a>> {
        self.kernel(name)
            .map(|k| Kernel::new(self.root, self.strings, k))
    }

    /// How the file was built, when it says.
    pub fn build_info(&self) -> Option<BuildInfo<'a>> {
        let strings = self.strings;
        self.root.build_info().map(|raw| BuildInfo { raw, strings })
    }

    /// Libraries.
    pub fn libraries(&self) -> impl ExactSizeIterator<Item = Library<'a>> + 'a {
        let (root, strings) = (self.root, self.strings);
        root.libraries()
            .iter()
            .map(move |l| Library::new(l, root, strings))
    }
}

/// `Executable.format_version`, read with only the root table and that field
/// verified: every format version has it in the same place.
fn format_version(
    opts: &flatbuffers::VerifierOptions,
    bytes: &[u8],
) -> Result<u32, flatbuffers::InvalidFlatbuffer> {
    let mut verifier = flatbuffers::Verifier::new(opts, bytes);
    let root = verifier.get_uoffset(0)? as usize;
    let mut table = verifier.visit_table(root)?;
    let Some(pos) = table.deref(schema::Executable::VT_FORMAT_VERSION)? else {
        return Ok(schema::FormatVersion::Unknown.0);
    };
    table.verifier().in_buffer::<u32>(pos)?;
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[pos..pos + 4]);
    Ok(u32::from_le_bytes(word))
}

/// `Executable.build_info`, with its strings.
#[derive(Debug, Clone, Copy)]
pub struct BuildInfo<'a> {
    raw: schema::BuildInfo<'a>,
    strings: Strings<'a>,
}

impl<'a> BuildInfo<'a> {
    fn text(&self, s: Option<&schema::Str>) -> &'a str {
        s.map_or("", |s| self.strings.str(s))
    }

    /// The version of halc that wrote the file.
    pub fn halc_version(&self) -> &'a str {
        self.text(self.raw.halc_version())
    }

    /// The version of SPIRV-Cross that generated its MSL.
    pub fn spirv_cross_version(&self) -> &'a str {
        self.text(self.raw.spirv_cross_version())
    }

    /// Options that affect the output, canonical `key=value` lines.
    pub fn options(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let strings = self.strings;
        self.raw
            .options()
            .unwrap_or_default()
            .iter()
            .map(move |s| strings.str(s))
    }

    /// SHA-256 (hex) over the inputs' bytes.
    pub fn inputs_sha256(&self) -> &'a str {
        self.text(self.raw.inputs_sha256())
    }
}

/// An executable that owns its bytes: read from a file (or taken from a
/// `Vec`), verified once at construction.
#[derive(Debug, Clone)]
pub struct OwnedExecutable {
    bytes: Vec<u8>,
}

impl OwnedExecutable {
    /// Reads and verifies the file at `path` with default limits.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        Self::read_with_limits(path, VerifyLimits::default())
    }

    /// Reads and verifies the file at `path` with explicit limits. The file
    /// size is checked against `limits.max_bytes` before it is read.
    pub fn read_with_limits(
        path: impl AsRef<Path>,
        limits: VerifyLimits,
    ) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let io = |source| LoadError::Io {
            path: path.display().to_string(),
            source,
        };
        let len = std::fs::metadata(path).map_err(io)?.len();
        if len > limits.max_bytes as u64 {
            return Err(LoadError::TooLarge {
                size: usize::try_from(len).unwrap_or(usize::MAX),
                limit: limits.max_bytes,
            });
        }
        let bytes = std::fs::read(path).map_err(io)?;
        Self::from_vec_with_limits(bytes, limits)
    }

    /// Verifies `bytes` with default limits and keeps them.
    pub fn from_vec(bytes: Vec<u8>) -> Result<Self, LoadError> {
        Self::from_vec_with_limits(bytes, VerifyLimits::default())
    }

    /// Verifies `bytes` with explicit limits and keeps them.
    pub fn from_vec_with_limits(bytes: Vec<u8>, limits: VerifyLimits) -> Result<Self, LoadError> {
        Executable::load_with_limits(&bytes, limits)?;
        Ok(OwnedExecutable { bytes })
    }

    /// The verified executable.
    pub fn executable(&self) -> Executable<'_> {
        // SAFETY: `self.bytes` passed `Executable::load_with_limits` (the
        // flatbuffers verifier and the semantic checks) in the constructor and
        // is never mutated afterwards: there is no `&mut` access to it.
        let root = unsafe { schema::root_as_executable_unchecked(&self.bytes) };
        // SAFETY: as above: loading checked that these bytes are UTF-8.
        let strings =
            Strings::new(unsafe { std::str::from_utf8_unchecked(root.strings().bytes()) });
        Executable { root, strings }
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}
