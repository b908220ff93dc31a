//! Compile structurally valid, mutated modules. The custom mutator keeps the
//! instruction stream well formed (word counts intact) and mutates operands,
//! opcodes and instruction order, so inputs get past the header and stream
//! checks and reach the validator, the reflection and SPIRV-Cross.
#![no_main]
use libfuzzer_sys::{fuzz_mutator, fuzz_target};

mod common;

fuzz_target!(|data: &[u8]| common::compile_and_reload(data));

/// Deterministic xorshift from libFuzzer's seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// (offset, word count) of each instruction after the header.
fn instructions(words: &[u32]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        if n == 0 || i + n > words.len() {
            break;
        }
        out.push((i, n));
        i += n;
    }
    out
}

fn mutate(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
    if size < 24 || size % 4 != 0 || data[..4] != [0x03, 0x02, 0x23, 0x07] {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    let mut words: Vec<u32> = data[..size]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let insts = instructions(&words);
    if insts.is_empty() {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    let mut rng = Rng(u64::from(seed) | 1 << 40);
    let bound = words[3].max(2);
    let (at, n) = insts[rng.below(insts.len())];
    match rng.below(8) {
        // Operand word: another id, a small literal, or a bit flip.
        0..=2 if n > 1 => {
            let w = at + 1 + rng.below(n - 1);
            words[w] = match rng.below(3) {
                0 => 1 + rng.below(bound as usize - 1) as u32,
                1 => rng.below(8) as u32,
                _ => words[w] ^ (1 << rng.below(32)),
            };
        }
        // Opcode of the same length.
        3 => words[at] = (words[at] & 0xffff_0000) | rng.below(400) as u32,
        // Delete an instruction.
        4 => {
            words.drain(at..at + n);
        }
        // Duplicate an instruction in place.
        5 => {
            let copy: Vec<u32> = words[at..at + n].to_vec();
            let pos = at + n;
            words.splice(pos..pos, copy);
        }
        // Swap with another instruction.
        6 => {
            let (b, m) = insts[rng.below(insts.len())];
            if b > at + n {
                let first: Vec<u32> = words[at..at + n].to_vec();
                let second: Vec<u32> = words[b..b + m].to_vec();
                words.splice(b..b + m, first);
                words.splice(at..at + n, second);
            }
        }
        // Header fields: version, bound.
        _ => {
            let w = 1 + rng.below(3);
            words[w] ^= 1 << rng.below(24);
        }
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if bytes.len() > max_size {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    data[..bytes.len()].copy_from_slice(&bytes);
    bytes.len()
}

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    mutate(data, size, max_size, seed)
});
