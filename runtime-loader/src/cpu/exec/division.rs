//! x86-64 integer division by zero (and `INT_MIN / -1`): decoding the
//! trapping `div`/`idiv` and completing it with halc's value (see the
//! executor's documentation).

use std::ffi::c_void;

/// Completes the x86-64 `div`/`idiv` that raised SIGFPE in `ctx` with
/// halc's value (see the module documentation) and moves the instruction
/// pointer past it; false if the instruction is not one it decodes (then the
/// signal is a fault).
///
/// # Safety
/// `ctx` must be the `ucontext_t` the kernel passed to a SIGFPE handler.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
pub(super) unsafe fn complete_division(ctx: *mut c_void) -> bool {
    // SAFETY: the caller passes the handler's ucontext.
    let uc = unsafe { &mut *ctx.cast::<libc::ucontext_t>() };
    let g = &mut uc.uc_mcontext.gregs;
    let rip = g[libc::REG_RIP as usize] as u64;
    // SAFETY: the faulting instruction was just fetched from `rip`; an
    // instruction is at most 15 bytes and the code page is mapped.
    let code = unsafe { std::slice::from_raw_parts(rip as *const u8, 15) };
    let Some(d) = decode_div(code) else {
        return false;
    };
    let reg = |n: u8| -> i64 { g[GREG_OF[n as usize]] };
    let divisor_bits: u64 = match d.operand {
        Operand::Register(n) => {
            if d.width == 8 && !d.rex && (4..8).contains(&n) {
                // AH, CH, DH, BH.
                (reg(n - 4) as u64) >> 8
            } else {
                reg(n) as u64
            }
        }
        Operand::Memory {
            base,
            index,
            scale,
            disp,
        } => {
            let mut a = disp as u64;
            match base {
                Base::Register(n) => a = a.wrapping_add(reg(n) as u64),
                Base::Rip => a = a.wrapping_add(rip + u64::from(d.len)),
                Base::None => {}
            }
            if let Some(n) = index {
                a = a.wrapping_add((reg(n) as u64).wrapping_mul(u64::from(scale)));
            }
            // SAFETY: the CPU read the divisor from this address before it
            // raised #DE, so it is mapped; read unaligned, as the CPU does.
            unsafe {
                match d.width {
                    8 => u64::from(std::ptr::read_unaligned(a as *const u8)),
                    16 => u64::from(std::ptr::read_unaligned(a as *const u16)),
                    32 => u64::from(std::ptr::read_unaligned(a as *const u32)),
                    _ => std::ptr::read_unaligned(a as *const u64),
                }
            }
        }
    };
    let rax = reg(0) as u64;
    let rdx = reg(2) as u64;
    let (dividend_lo, dividend_hi) = match d.width {
        8 => (rax & 0xFFFF, 0),
        16 => (rax & 0xFFFF, rdx & 0xFFFF),
        32 => (rax & 0xFFFF_FFFF, rdx & 0xFFFF_FFFF),
        _ => (rax, rdx),
    };
    let (q, r) = division_value(d.width, d.signed, dividend_lo, dividend_hi, divisor_bits);
    let set = |g: &mut [i64; 23], n: usize, v: u64| g[GREG_OF[n]] = v as i64;
    match d.width {
        8 => {
            let ax = (q & 0xFF) | ((r & 0xFF) << 8);
            set(g, 0, (rax & !0xFFFF) | ax);
        }
        16 => {
            set(g, 0, (rax & !0xFFFF) | (q & 0xFFFF));
            set(g, 2, (rdx & !0xFFFF) | (r & 0xFFFF));
        }
        // A 32-bit result zero-extends into the 64-bit register.
        32 => {
            set(g, 0, q & 0xFFFF_FFFF);
            set(g, 2, r & 0xFFFF_FFFF);
        }
        _ => {
            set(g, 0, q);
            set(g, 2, r);
        }
    }
    g[libc::REG_RIP as usize] = (rip + u64::from(d.len)) as i64;
    true
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
pub(super) unsafe fn complete_division(_ctx: *mut c_void) -> bool {
    false
}

/// `gregs` index of x86-64 register number n (RAX, RCX, RDX, RBX, RSP, RBP,
/// RSI, RDI, R8..R15).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
const GREG_OF: [usize; 16] = [
    libc::REG_RAX as usize,
    libc::REG_RCX as usize,
    libc::REG_RDX as usize,
    libc::REG_RBX as usize,
    libc::REG_RSP as usize,
    libc::REG_RBP as usize,
    libc::REG_RSI as usize,
    libc::REG_RDI as usize,
    libc::REG_R8 as usize,
    libc::REG_R9 as usize,
    libc::REG_R10 as usize,
    libc::REG_R11 as usize,
    libc::REG_R12 as usize,
    libc::REG_R13 as usize,
    libc::REG_R14 as usize,
    libc::REG_R15 as usize,
];

/// A memory operand's base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Register(u8),
    Rip,
    None,
}

/// The divisor of a `div`/`idiv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operand {
    Register(u8),
    Memory {
        base: Base,
        index: Option<u8>,
        scale: u8,
        disp: i32,
    },
}

/// A decoded `div`/`idiv` (F6 /6, F6 /7, F7 /6, F7 /7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Div {
    /// Instruction length in bytes.
    len: u8,
    /// Operand width: 8, 16, 32 or 64.
    width: u8,
    signed: bool,
    /// A REX prefix is present (byte registers 4..7 are SPL..DIL, not AH..BH).
    rex: bool,
    operand: Operand,
}

/// Decodes `code` as a `div`/`idiv`: legacy prefixes (operand size 66,
/// segment overrides of CS/SS/DS/ES, which are no-ops in 64-bit mode;
/// FS/GS and address-size overrides are refused), REX, opcode, ModRM, SIB,
/// displacement.
fn decode_div(code: &[u8]) -> Option<Div> {
    let mut i = 0;
    let mut opsize16 = false;
    loop {
        match *code.get(i)? {
            0x66 => opsize16 = true,
            0x2E | 0x36 | 0x3E | 0x26 | 0xF2 | 0xF3 => {}
            _ => break,
        }
        i += 1;
    }
    let mut rex = 0u8;
    if (0x40..=0x4F).contains(code.get(i)?) {
        rex = code[i];
        i += 1;
    }
    let op = *code.get(i)?;
    i += 1;
    let width = match op {
        0xF6 => 8,
        0xF7 if rex & 8 != 0 => 64,
        0xF7 if opsize16 => 16,
        0xF7 => 32,
        _ => return None,
    };
    let modrm = *code.get(i)?;
    i += 1;
    let (md, reg, rm) = (modrm >> 6, (modrm >> 3) & 7, modrm & 7);
    let signed = match reg {
        6 => false,
        7 => true,
        _ => return None,
    };
    let rex_b = (rex & 1) << 3;
    let rex_x = (rex & 2) << 2;
    let operand = if md == 3 {
        Operand::Register(rm | rex_b)
    } else {
        let (mut base, mut index, mut scale) = (Base::Register(rm | rex_b), None, 1u8);
        if rm == 4 {
            let sib = *code.get(i)?;
            i += 1;
            scale = 1 << (sib >> 6);
            let idx = ((sib >> 3) & 7) | rex_x;
            if idx != 4 {
                index = Some(idx);
            }
            let b = sib & 7;
            base = if b == 5 && md == 0 {
                Base::None
            } else {
                Base::Register(b | rex_b)
            };
        } else if rm == 5 && md == 0 {
            base = Base::Rip;
        }
        let disp_len = match (md, base) {
            (0, Base::Rip | Base::None) => 4,
            (0, _) => 0,
            (1, _) => 1,
            _ => 4,
        };
        let bytes = code.get(i..i + disp_len)?;
        i += disp_len;
        let disp = match disp_len {
            0 => 0,
            1 => i32::from(bytes[0] as i8),
            _ => i32::from_le_bytes(bytes.try_into().ok()?),
        };
        Operand::Memory {
            base,
            index,
            scale,
            disp,
        }
    };
    Some(Div {
        len: i as u8,
        width,
        signed,
        rex: rex != 0,
        operand,
    })
}

/// The (quotient, remainder) halc gives a `width`-bit division that traps:
/// the dividend is `hi:lo` (for 8 bits, `lo` is AX), the divisor
/// `divisor`'s low `width` bits. Divisor 0: quotient all ones, remainder the
/// dividend's low `width` bits; otherwise (overflow: `INT_MIN / -1`, or a
/// quotient wider than `width` bits) the exact result's low `width` bits.
fn division_value(width: u8, signed: bool, lo: u64, hi: u64, divisor: u64) -> (u64, u64) {
    let w = u32::from(width);
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let divisor = divisor & mask;
    // The dividend: 2w bits (for 8 bits, AX's 16).
    let dividend = if w == 8 {
        u128::from(lo & 0xFFFF)
    } else {
        (u128::from(hi & mask) << w) | u128::from(lo & mask)
    };
    if divisor == 0 {
        return (mask, dividend as u64 & mask);
    }
    let bits = 2 * w;
    if signed {
        let sext = |v: u128, n: u32| ((v << (128 - n)) as i128) >> (128 - n);
        let n = sext(dividend, bits);
        let d = sext(u128::from(divisor), w);
        (
            (n.wrapping_div(d)) as u64 & mask,
            (n.wrapping_rem(d)) as u64 & mask,
        )
    } else {
        let d = u128::from(divisor);
        ((dividend / d) as u64 & mask, (dividend % d) as u64 & mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn div_and_idiv_are_decoded_with_their_operands() {
        let mem = |base, index, scale, disp| Operand::Memory {
            base,
            index,
            scale,
            disp,
        };
        // (code, (length, width, signed, divisor))
        type Decoded = Option<(u8, u8, bool, Operand)>;
        let cases: [(&[u8], Decoded); 9] = [
            // div ecx
            (&[0xF7, 0xF1], Some((2, 32, false, Operand::Register(1)))),
            // idiv qword ptr [rsp + 8]
            (
                &[0x48, 0xF7, 0x7C, 0x24, 0x08],
                Some((5, 64, true, mem(Base::Register(4), None, 1, 8))),
            ),
            // div r8d
            (
                &[0x41, 0xF7, 0xF0],
                Some((3, 32, false, Operand::Register(8))),
            ),
            // div ah (no REX: register 4 is AH)
            (&[0xF6, 0xF4], Some((2, 8, false, Operand::Register(4)))),
            // div bx
            (
                &[0x66, 0xF7, 0xF3],
                Some((3, 16, false, Operand::Register(3))),
            ),
            // div dword ptr [rip + 0x10]
            (
                &[0xF7, 0x35, 0x10, 0, 0, 0],
                Some((6, 32, false, mem(Base::Rip, None, 1, 0x10))),
            ),
            // idiv dword ptr [rbx + r9*4 - 4]
            (
                &[0x42, 0xF7, 0x7C, 0x8B, 0xFC],
                Some((5, 32, true, mem(Base::Register(3), Some(9), 4, -4))),
            ),
            // neg eax (F7 /3): not a division
            (&[0xF7, 0xD8], None),
            // idiv dword ptr fs:[rax]: FS is refused
            (&[0x64, 0xF7, 0x38], None),
        ];
        for (code, want) in cases {
            let got = decode_div(code).map(|d| (d.len, d.width, d.signed, d.operand));
            assert_eq!(got, want, "{code:02x?}");
        }
    }

    #[test]
    fn trapping_divisions_get_all_ones_and_the_dividend_or_the_wrapped_result() {
        // (width, signed, lo, hi, divisor) -> (quotient, remainder)
        let m32 = 0xFFFF_FFFF;
        assert_eq!(division_value(32, false, 7, 0, 0), (m32, 7));
        assert_eq!(
            division_value(32, true, (-7i32) as u32 as u64, m32, 0),
            (m32, (-7i32) as u32 as u64)
        );
        assert_eq!(
            division_value(32, true, 0x8000_0000, m32, m32),
            (0x8000_0000, 0)
        );
        assert_eq!(
            division_value(64, true, i64::MIN as u64, u64::MAX, u64::MAX),
            (i64::MIN as u64, 0)
        );
        assert_eq!(division_value(64, false, 5, 0, 0), (u64::MAX, 5));
        assert_eq!(
            division_value(16, true, 0x8000, 0xFFFF, 0xFFFF),
            (0x8000, 0)
        );
        // 8 bits: the dividend is AX.
        assert_eq!(division_value(8, false, 0x0007, 0, 0), (0xFF, 7));
        assert_eq!(division_value(8, true, 0xFF80, 0, 0xFF), (0x80, 0));
    }
}
