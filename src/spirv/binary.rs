//! SPIR-V binary handling at the word level: header checks, byte order, the
//! instruction stream.

use super::SpirvError;

/// The SPIR-V magic number in the module's own byte order.
pub const MAGIC: u32 = 0x0723_0203;
/// Number of words in the module header.
pub const HEADER_WORDS: usize = 5;
/// Highest SPIR-V version halc accepts (1.6).
pub const MAX_VERSION: (u8, u8) = (1, 6);

/// The bytes of a nul-terminated literal string packed little-endian into
/// words (up to the nul, or all of them when there is none).
pub(crate) fn literal_bytes(words: &[u32]) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect()
}

/// A SPIR-V module as native-endian words, with its header already checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    words: Vec<u32>,
    /// Whether the input was big-endian and had to be swapped.
    pub swapped: bool,
}

impl Words {
    /// Reads a module from raw bytes in either byte order.
    ///
    /// Checks the length, the magic number (swapping a big-endian module), the
    /// version and the id bound. Nothing here looks past the header.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SpirvError> {
        if bytes.is_empty() {
            return Err(SpirvError::Empty);
        }
        if bytes.len() % 4 != 0 {
            return Err(SpirvError::NotWordAligned(bytes.len()));
        }
        if bytes.len() < HEADER_WORDS * 4 {
            return Err(SpirvError::Truncated {
                words: bytes.len() / 4,
            });
        }
        let le = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let swapped = if le == MAGIC {
            false
        } else if le.swap_bytes() == MAGIC {
            true
        } else {
            return Err(SpirvError::BadMagic(le));
        };
        // The bytes copied as they are, then put in the host's byte order
        // (nothing to do for a little-endian module on a little-endian
        // host): reading word by word with the order tested per word was
        // not vectorised (a batch's modules took 6 M instructions).
        let mut words = vec![0u32; bytes.len() / 4];
        bytemuck::cast_slice_mut::<u32, u8>(&mut words).copy_from_slice(bytes);
        if swapped {
            words.iter_mut().for_each(|w| *w = u32::from_be(*w));
        } else {
            words.iter_mut().for_each(|w| *w = u32::from_le(*w));
        }
        let this = Words { words, swapped };
        this.check_header()?;
        Ok(this)
    }

    /// Wraps native-endian words that start with a valid header.
    pub fn from_words(words: Vec<u32>) -> Result<Self, SpirvError> {
        if words.len() < HEADER_WORDS {
            return Err(SpirvError::Truncated { words: words.len() });
        }
        if words[0] != MAGIC {
            return Err(SpirvError::BadMagic(words[0]));
        }
        let this = Words {
            words,
            swapped: false,
        };
        this.check_header()?;
        Ok(this)
    }

    fn check_header(&self) -> Result<(), SpirvError> {
        let (major, minor) = self.version();
        let version_word = self.words[1];
        if version_word & 0xff00_00ff != 0 || (major, minor) > MAX_VERSION || major == 0 {
            return Err(SpirvError::UnsupportedVersion(version_word));
        }
        let bound = self.words[3];
        if bound == 0 {
            return Err(SpirvError::ZeroIdBound);
        }
        Ok(())
    }

    /// The module's version as (major, minor).
    pub fn version(&self) -> (u8, u8) {
        let v = self.words[1];
        (((v >> 16) & 0xff) as u8, ((v >> 8) & 0xff) as u8)
    }

    /// The id bound from the header.
    pub fn bound(&self) -> u32 {
        self.words[3]
    }

    /// All words, header included.
    pub fn as_slice(&self) -> &[u32] {
        &self.words
    }

    /// The module as little-endian bytes.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Iterates over the instructions after the header as
    /// `(word offset, opcode, words including the first)`.
    pub fn instructions(&self) -> Instructions<'_> {
        Instructions {
            words: &self.words,
            offset: HEADER_WORDS,
        }
    }

    /// Replaces the body (everything after the header) with `body`.
    pub(crate) fn with_body(&self, body: Vec<u32>) -> Words {
        let mut words = self.words[..HEADER_WORDS].to_vec();
        words.extend(body);
        Words {
            words,
            swapped: self.swapped,
        }
    }
}

/// One raw instruction.
#[derive(Debug, Clone, Copy)]
pub struct RawInstruction<'a> {
    /// Word offset of the instruction in the module.
    pub offset: usize,
    /// The opcode.
    pub opcode: u16,
    /// All words of the instruction, the opcode word included.
    pub words: &'a [u32],
}

/// Iterator over raw instructions; yields an error once on a malformed stream.
pub struct Instructions<'a> {
    words: &'a [u32],
    offset: usize,
}

impl<'a> Iterator for Instructions<'a> {
    type Item = Result<RawInstruction<'a>, SpirvError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.offset >= self.words.len() {
            return None;
        }
        let first = self.words[self.offset];
        let count = (first >> 16) as usize;
        let opcode = (first & 0xffff) as u16;
        let offset = self.offset;
        if count == 0 {
            self.offset = self.words.len();
            return Some(Err(SpirvError::ZeroWordCount { offset }));
        }
        if offset + count > self.words.len() {
            self.offset = self.words.len();
            return Some(Err(SpirvError::InstructionPastEnd { offset, opcode }));
        }
        self.offset += count;
        Some(Ok(RawInstruction {
            offset,
            opcode,
            words: &self.words[offset..offset + count],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Vec<u32> {
        vec![MAGIC, 0x0001_0000, 0, 10, 0]
    }

    #[test]
    fn big_endian_input_is_swapped_to_the_same_words() {
        let words = header();
        let le: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        let a = Words::from_bytes(&le).unwrap();
        let b = Words::from_bytes(&be).unwrap();
        assert!(!a.swapped);
        assert!(b.swapped);
        assert_eq!(a.as_slice(), b.as_slice());
    }

    #[test]
    fn header_errors() {
        assert!(matches!(Words::from_bytes(&[]), Err(SpirvError::Empty)));
        assert!(matches!(
            Words::from_bytes(&[1, 2, 3]),
            Err(SpirvError::NotWordAligned(3))
        ));
        assert!(matches!(
            Words::from_bytes(&[0; 8]),
            Err(SpirvError::Truncated { words: 2 })
        ));
        assert!(matches!(
            Words::from_bytes(&[0; 20]),
            Err(SpirvError::BadMagic(0))
        ));
        let mut w = header();
        w[1] = 0x0002_0000;
        assert!(matches!(
            Words::from_words(w),
            Err(SpirvError::UnsupportedVersion(_))
        ));
        let mut w = header();
        w[3] = 0;
        assert!(matches!(Words::from_words(w), Err(SpirvError::ZeroIdBound)));
    }

    #[test]
    fn zero_word_count_is_reported_with_its_offset() {
        let mut w = header();
        w.push(0);
        let m = Words::from_words(w).unwrap();
        let errs: Vec<_> = m.instructions().collect();
        assert_eq!(errs.len(), 1);
        assert!(matches!(
            errs[0],
            Err(SpirvError::ZeroWordCount { offset: 5 })
        ));
    }
}
