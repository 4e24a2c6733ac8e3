//! The encoding table: every encoder form over a spread of edge-case
//! operands, one line per instruction, `<assembly text>\t<hex bytes>`.
//!
//! It is the idea of Cranelift's x64 `emit_tests.rs` (rows of instruction,
//! bytes and text that sweep register and displacement edges), except that
//! nobody writes the bytes by hand: we encode each [`Inst`](crate::x86_64::Inst),
//! print it, and `tests/llvm_roundtrip.rs` asks LLVM whether the bytes mean
//! the text. The same generator feeds `examples/encoding-table.rs`.
//!
//! What the sweeps aim at:
//! * x86-64: every register in every ModRM/SIB field (REX.R/X/B for r8..r15,
//!   rsp/r12 needing a SIB, rbp/r13 needing a disp8, spl..dil needing a
//!   REX), disp8/disp32 and imm8/imm32 boundaries (127/128, -128/-129,
//!   `i32::MIN`/`MAX`), short and near branches.
//! * AArch64: x0..x30, sp versus xzr in the fields that mean one or the
//!   other, imm12 with and without `lsl #12`, scaled and unscaled offsets,
//!   bitmask immediates, branch ranges at both ends.
//! * RISC-V: x0..x31 and f0..f31, 12-bit and 20-bit immediate edges, branch
//!   and jump ranges, the constant-building sequences.

use crate::{arm64, riscv, x86_64, EncodeError, Isa};
use std::fmt::Write;

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub bytes: Vec<u8>,
}

impl Line {
    /// `0x4d 0x03 0xca`, the byte syntax of `llvm-mc --disassemble`.
    pub fn hex_llvm(&self) -> String {
        let mut s = String::with_capacity(self.bytes.len() * 5);
        for (i, b) in self.bytes.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            write!(s, "{b:#04x}").unwrap();
        }
        s
    }
    /// `4d 03 ca`
    pub fn hex(&self) -> String {
        let mut s = String::with_capacity(self.bytes.len() * 3);
        for (i, b) in self.bytes.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            write!(s, "{b:02x}").unwrap();
        }
        s
    }
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}\t{}", self.text, self.hex())
    }
}

/// The table of one ISA. Every instruction in it must encode: an error
/// here is a bug in the generator or the encoder.
pub fn lines(isa: Isa) -> Result<Vec<Line>, EncodeError> {
    match isa {
        Isa::X86_64 => encode_all(x86_64_insts(), |i, b| i.encode(b)),
        Isa::Aarch64 => encode_all(arm64_insts(), |i, b| i.encode(b)),
        Isa::Riscv64 => encode_all(riscv_insts(), |i, b| i.encode(b)),
    }
}

fn encode_all<I: std::fmt::Display>(
    insts: Vec<I>,
    encode: impl Fn(&I, &mut Vec<u8>) -> crate::EncodeResult,
) -> Result<Vec<Line>, EncodeError> {
    insts
        .iter()
        .map(|inst| {
            let mut bytes = Vec::new();
            encode(inst, &mut bytes)?;
            Ok(Line {
                text: inst.to_string(),
                bytes,
            })
        })
        .collect()
}

/// The x86-64 rows.
pub fn x86_64_insts() -> Vec<x86_64::Inst> {
    use x86_64::{Alu, Amode, Cond, Ext, FOp, Inst::*, Prec, Reg, Shift, Size, Width, Xmm};
    let r = |n: u8| Reg::new(n).unwrap();
    let x = |n: u8| Xmm::new(n).unwrap();
    let mut v = Vec::new();
    let imms: [i32; 9] = [0, 1, -1, 127, -128, 128, -129, i32::MAX, i32::MIN];
    let disps: [i32; 9] = [0, 1, -1, 127, -128, 128, -129, i32::MAX, i32::MIN];
    // Memory operands: every base, displacement edges on the special bases,
    // SIB forms with special bases and indexes, RIP-relative.
    let mut amodes: Vec<Amode> = Reg::all().map(|b| Amode::base(b, 0)).collect();
    for base in [Reg::RBP, Reg::RSP, Reg::R12, Reg::R13, Reg::RAX] {
        for d in disps.into_iter().skip(1) {
            amodes.push(Amode::base(base, d));
        }
    }
    for (i, base) in [Reg::RAX, Reg::RBP, Reg::R13, Reg::RSP, Reg::R12, Reg::R15]
        .into_iter()
        .enumerate()
    {
        for (j, index) in [Reg::RCX, Reg::R12, Reg::R15, Reg::RBP]
            .into_iter()
            .enumerate()
        {
            let scale = 1 << ((i + j) % 4);
            let disp = [0, 8, -1024, i32::MAX][(i * 4 + j) % 4];
            amodes.push(Amode::indexed(base, index, scale, disp));
        }
    }
    for disp in [0, -1, 4096, i32::MAX, i32::MIN] {
        amodes.push(Amode::Rip { disp });
    }
    for (index, scale, disp) in [(Reg::RCX, 4, 0), (Reg::R12, 8, -8), (Reg::RBP, 2, 4096)] {
        amodes.push(Amode::IndexOnly { index, scale, disp });
    }
    // A shorter list for forms that do not need every memory edge again.
    let few_amodes = [
        Amode::base(Reg::RAX, 0),
        Amode::base(Reg::RSP, 8),
        Amode::base(Reg::R13, 0),
        Amode::base(Reg::R12, -129),
        Amode::indexed(Reg::RBP, Reg::R9, 8, -8),
        Amode::Rip { disp: 0 },
    ];

    for op in Alu::ALL {
        for d in 0..16 {
            v.push(AluRR {
                op,
                size: Size::S64,
                dst: r(d),
                src: r((d + 7) % 16),
            });
        }
        v.push(AluRR {
            op,
            size: Size::S32,
            dst: r(3),
            src: r(12),
        });
        for (i, imm) in imms.into_iter().enumerate() {
            v.push(AluRI {
                op,
                size: if i % 3 == 2 { Size::S32 } else { Size::S64 },
                dst: r([0, 4, 12, 15, 5, 8, 1, 13, 7][i]),
                imm,
            });
        }
    }
    for (a, b) in [(0, 0), (4, 12), (15, 8), (7, 13)] {
        v.push(Test {
            size: Size::S64,
            a: r(a),
            b: r(b),
        });
    }
    v.push(Test {
        size: Size::S32,
        a: r(9),
        b: r(2),
    });
    for op in Shift::ALL {
        for (amount, dst) in [(0, 0), (1, 9), (31, 4), (63, 15)] {
            v.push(ShiftRI {
                op,
                size: Size::S64,
                dst: r(dst),
                amount,
            });
        }
        v.push(ShiftRI {
            op,
            size: Size::S32,
            dst: r(13),
            amount: 31,
        });
        v.push(ShiftRCl {
            op,
            size: Size::S64,
            dst: r(10),
        });
        v.push(ShiftRCl {
            op,
            size: Size::S32,
            dst: r(6),
        });
    }
    for (d, s) in [(0, 1), (8, 15), (12, 5), (4, 13)] {
        v.push(Imul {
            size: Size::S64,
            dst: r(d),
            src: r(s),
        });
    }
    for imm in [-1, 127, 128, i32::MIN] {
        v.push(ImulRI {
            size: Size::S64,
            dst: r(9),
            src: r(4),
            imm,
        });
    }
    for d in [0, 4, 8, 15] {
        v.push(Neg {
            size: Size::S64,
            dst: r(d),
        });
        v.push(Not {
            size: Size::S64,
            dst: r(d),
        });
    }
    v.push(Neg {
        size: Size::S32,
        dst: r(9),
    });
    v.push(Not {
        size: Size::S32,
        dst: r(1),
    });
    v.push(SignExtendRax { size: Size::S64 });
    v.push(SignExtendRax { size: Size::S32 });
    for s in [1, 8, 13, 15] {
        v.push(Idiv {
            size: Size::S64,
            src: r(s),
        });
        v.push(Div {
            size: Size::S64,
            src: r(s),
        });
    }
    v.push(Idiv {
        size: Size::S32,
        src: r(11),
    });
    for (i, cond) in Cond::ALL.into_iter().enumerate() {
        v.push(Setcc {
            cond,
            dst: r(i as u8),
        });
    }
    for (d, s) in [(0, 0), (1, 4), (9, 7), (15, 12)] {
        v.push(Movzx8 {
            dst: r(d),
            src: r(s),
        });
    }
    for (d, s) in [(0, 0), (1, 4), (9, 7), (15, 12), (6, 13)] {
        for from in [Width::W8, Width::W16, Width::W32] {
            v.push(Movsx {
                from,
                dst: r(d),
                src: r(s),
            });
        }
        v.push(Movzx16 {
            dst: r(d),
            src: r(s),
        });
    }
    for (i, addr) in few_amodes.into_iter().enumerate() {
        for op in [Alu::Add, Alu::Sub, Alu::Cmp, Alu::Xor] {
            for size in [Size::S64, Size::S32] {
                v.push(AluRM {
                    op,
                    size,
                    dst: r([0, 7, 9, 15, 4, 13][i]),
                    addr,
                });
                v.push(AluMR {
                    op,
                    size,
                    addr,
                    src: r([3, 8, 12, 5, 14, 1][i]),
                });
            }
            for imm in [0, -128, 128, i32::MIN] {
                v.push(AluMI {
                    op,
                    size: Size::S64,
                    addr,
                    imm,
                });
            }
        }
        v.push(FArithM {
            op: FOp::Add,
            prec: Prec::F64,
            dst: x([0, 8, 15, 3, 9, 1][i] as u8),
            addr,
        });
        v.push(FArithM {
            op: FOp::Mul,
            prec: Prec::F32,
            dst: x(2),
            addr,
        });
        v.push(PushM { addr });
        v.push(PopM { addr });
        v.push(XorpdM {
            dst: x([0, 8, 15, 3, 9, 1][i] as u8),
            addr,
        });
    }
    for (d, s) in [(0, 4), (4, 0), (5, 13), (12, 15), (15, 8)] {
        v.push(MovRR {
            size: Size::S64,
            dst: r(d),
            src: r(s),
        });
    }
    v.push(MovRR {
        size: Size::S32,
        dst: r(2),
        src: r(10),
    });
    for (imm, d) in [(0, 0), (1, 8), (u32::MAX as i64, 15), (-1, 3)] {
        v.push(MovRI {
            size: Size::S32,
            dst: r(d),
            imm,
        });
    }
    for (imm, d) in [(-1, 0), (i32::MIN as i64, 12), (i32::MAX as i64, 5)] {
        v.push(MovRI {
            size: Size::S64,
            dst: r(d),
            imm,
        });
    }
    for (imm, d) in [(i64::MIN, 0), (i64::MAX, 8), (1 << 32, 15), (-1, 4)] {
        v.push(MovAbs { dst: r(d), imm });
    }
    // Loads: every width and extension over the full memory sweep (spread
    // over different destinations), the narrow ones over a shorter list.
    for (i, addr) in amodes.iter().enumerate() {
        v.push(Load {
            width: Width::W64,
            ext: Ext::Zero,
            dst: r((i % 16) as u8),
            addr: *addr,
        });
    }
    for width in Width::ALL {
        for ext in [Ext::Zero, Ext::Sign] {
            for (i, addr) in few_amodes.iter().enumerate() {
                v.push(Load {
                    width,
                    ext,
                    dst: r([0, 15, 4, 9, 7, 12][i]),
                    addr: *addr,
                });
            }
        }
    }
    for (i, addr) in amodes.iter().enumerate().step_by(2) {
        v.push(Store {
            width: Width::W64,
            src: r(((i + 5) % 16) as u8),
            addr: *addr,
        });
    }
    for width in Width::ALL {
        for (i, addr) in few_amodes.iter().enumerate() {
            v.push(Store {
                width,
                src: r([6, 13, 0, 4, 10, 7][i]),
                addr: *addr,
            });
        }
    }
    for (width, imm) in [
        (Width::W8, -128),
        (Width::W8, 255),
        (Width::W16, -1),
        (Width::W16, 65535),
        (Width::W32, i32::MIN),
        (Width::W64, -1),
        (Width::W64, i32::MAX),
    ] {
        for addr in [few_amodes[1], few_amodes[4], few_amodes[5]] {
            v.push(StoreImm { width, imm, addr });
        }
    }
    for (i, addr) in amodes.iter().enumerate().step_by(3) {
        v.push(Lea {
            dst: r(((i + 3) % 16) as u8),
            addr: *addr,
        });
    }
    for reg in Reg::all() {
        v.push(Push { src: reg });
        v.push(Pop { dst: reg });
    }
    for disp in [0, 1, -1, 127, -128, -2] {
        v.push(JmpShort { disp });
    }
    for disp in [0, 128, -129, i32::MAX, i32::MIN] {
        v.push(JmpNear { disp });
    }
    for (i, cond) in Cond::ALL.into_iter().enumerate() {
        v.push(JccShort {
            cond,
            disp: [0, 127, -128, -2][i % 4],
        });
        v.push(JccNear {
            cond,
            disp: [0, 128, i32::MIN, i32::MAX][i % 4],
        });
    }
    for disp in [0, -5, i32::MAX, i32::MIN] {
        v.push(Call { disp });
    }
    for t in [0, 4, 5, 11, 12, 15] {
        v.push(CallInd { target: r(t) });
        v.push(JmpInd { target: r(t) });
    }
    v.push(Ret);
    v.push(Nop);
    for prec in [Prec::F64, Prec::F32] {
        for op in FOp::ALL {
            for (d, s) in [(0, 1), (8, 15), (15, 0)] {
                v.push(FArith {
                    op,
                    prec,
                    dst: x(d),
                    src: x(s),
                });
            }
        }
        for (a, b) in [(0, 1), (9, 14)] {
            v.push(Ucomi {
                prec,
                a: x(a),
                b: x(b),
            });
        }
        for size in [Size::S64, Size::S32] {
            for (f, g) in [(0, 0), (15, 12), (7, 9)] {
                v.push(CvtIntToF {
                    prec,
                    size,
                    dst: x(f),
                    src: r(g),
                });
                v.push(CvtFToInt {
                    prec,
                    size,
                    dst: r(g),
                    src: x(f),
                });
            }
        }
        for (i, addr) in few_amodes.iter().enumerate() {
            v.push(FLoad {
                prec,
                dst: x([0, 8, 15, 3, 11, 1][i]),
                addr: *addr,
            });
            v.push(FStore {
                prec,
                src: x([15, 2, 9, 0, 7, 12][i]),
                addr: *addr,
            });
        }
    }
    for (d, s) in [(0, 1), (10, 3), (15, 15)] {
        v.push(CvtFToF {
            from: Prec::F32,
            dst: x(d),
            src: x(s),
        });
        v.push(CvtFToF {
            from: Prec::F64,
            dst: x(s),
            src: x(d),
        });
        v.push(MovXX {
            dst: x(d),
            src: x(s),
        });
        v.push(Xorps {
            dst: x(s),
            src: x(s),
        });
    }
    for size in [Size::S64, Size::S32] {
        for (f, g) in [(0, 0), (15, 12), (8, 5), (3, 15)] {
            v.push(MovToXmm {
                size,
                dst: x(f),
                src: r(g),
            });
            v.push(MovFromXmm {
                size,
                dst: r(g),
                src: x(f),
            });
        }
    }
    v
}

/// The AArch64 rows.
pub fn arm64_insts() -> Vec<arm64::Inst> {
    use arm64::{AddSub, Cond, FOp, FReg, Inst::*, LdSt, Logic, PairMode, Prec, Reg, Shift, Size};
    let x = |n: u8| Reg::x(n).unwrap();
    let f = |n: u8| FReg::new(n).unwrap();
    let (sp, zr) = (Reg::SP, Reg::XZR);
    let mut v = Vec::new();
    // Register triples that visit every register in every field, plus
    // x29/x30 and xzr where the field allows it.
    let triples: Vec<(Reg, Reg, Reg)> = (0..31)
        .map(|i| (x(i), x((i + 11) % 31), x((i + 22) % 31)))
        .chain([(zr, x(1), x(2)), (x(0), zr, x(30)), (x(29), x(30), zr)])
        .collect();
    for op in [AddSub::Add, AddSub::Sub] {
        for flags in [false, true] {
            for (i, &(rd, rn, rm)) in triples
                .iter()
                .enumerate()
                .step_by(if flags { 5 } else { 2 })
            {
                v.push(AluRR {
                    op,
                    flags,
                    size: if i % 3 == 0 { Size::S32 } else { Size::S64 },
                    rd,
                    rn,
                    rm,
                });
            }
            // Immediates: 0, 1, 4095, with and without lsl #12; sp operands
            // (only without flags for rd).
            for (i, (imm12, lsl12)) in [
                (0, false),
                (1, false),
                (4095, false),
                (1, true),
                (4095, true),
            ]
            .into_iter()
            .enumerate()
            {
                let (rd, rn) = match (i, flags) {
                    (0, false) => (sp, sp),
                    (1, false) => (x(0), sp),
                    (2, false) => (sp, x(30)),
                    (_, true) if i == 4 => (zr, sp), // cmp sp, #..
                    _ => (x(i as u8 * 7), x(29)),
                };
                v.push(AluRI {
                    op,
                    flags,
                    size: if i == 3 { Size::S32 } else { Size::S64 },
                    rd,
                    rn,
                    imm12,
                    lsl12,
                });
            }
        }
    }
    for op in [
        Logic::And,
        Logic::Orr,
        Logic::Eor,
        Logic::Ands,
        Logic::Bic,
        Logic::Orn,
    ] {
        for (i, &(rd, rn, rm)) in triples.iter().enumerate().step_by(4) {
            v.push(LogicRR {
                op,
                size: if i % 8 == 4 { Size::S32 } else { Size::S64 },
                rd,
                rn,
                rm,
            });
        }
    }
    // Bitmask immediates: every element size, rotations, wrap-around runs.
    let masks64: [u64; 12] = [
        1,
        0xff,
        0xffff_ffff,
        0x7fff_ffff_ffff_ffff,
        0x8000_0000_0000_0000,
        0xffff_fffe_ffff_ffff,
        0x5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaa,
        0x3333_3333_3333_3333,
        0x0f0f_0f0f_0f0f_0f0f,
        0x00ff_00ff_00ff_00ff,
        0x8000_0001_8000_0001,
    ];
    for (i, imm) in masks64.into_iter().enumerate() {
        let op = [Logic::And, Logic::Orr, Logic::Eor, Logic::Ands][i % 4];
        let rd = match (op, i) {
            (Logic::Ands, _) => x(i as u8),
            (_, 1) => sp, // and sp, x0, #0xff: rd means sp here
            _ => x(30 - i as u8),
        };
        v.push(LogicRI {
            op,
            size: Size::S64,
            rd,
            rn: if i == 2 { zr } else { x(i as u8 + 3) },
            imm,
        });
    }
    for (i, imm) in [
        1u64,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fffe,
        0x5555_5555,
        0xf0f0_f0f0,
    ]
    .into_iter()
    .enumerate()
    {
        v.push(LogicRI {
            op: [Logic::And, Logic::Orr, Logic::Eor, Logic::Ands][i % 4],
            size: Size::S32,
            rd: x(i as u8 + 9),
            rn: x(28 - i as u8),
            imm,
        });
    }
    for op in [Shift::Lsl, Shift::Lsr, Shift::Asr] {
        for &(rd, rn, rm) in triples.iter().step_by(10) {
            v.push(ShiftRR {
                op,
                size: Size::S64,
                rd,
                rn,
                rm,
            });
        }
        v.push(ShiftRR {
            op,
            size: Size::S32,
            rd: x(5),
            rn: x(6),
            rm: x(7),
        });
        for (amount, size) in [
            (0, Size::S64),
            (1, Size::S64),
            (63, Size::S64),
            (31, Size::S32),
            (1, Size::S32),
        ] {
            v.push(ShiftRI {
                op,
                size,
                rd: x(amount % 31),
                rn: x(30 - amount % 31),
                amount,
            });
        }
    }
    for (signed, from_bits) in [(true, 8), (true, 16), (true, 32), (false, 8), (false, 16)] {
        v.push(Extend {
            signed,
            from_bits,
            rd: x(from_bits % 31),
            rn: x(30 - from_bits % 29),
        });
    }
    for &(rd, rn, rm) in triples.iter().step_by(6) {
        v.push(MulAdd {
            sub: false,
            size: Size::S64,
            rd,
            rn,
            rm,
            ra: zr,
        });
        v.push(MulAdd {
            sub: true,
            size: Size::S64,
            rd,
            rn,
            rm,
            ra: x(17),
        });
        v.push(Div {
            signed: true,
            size: Size::S64,
            rd,
            rn,
            rm,
        });
    }
    v.push(MulAdd {
        sub: false,
        size: Size::S32,
        rd: x(1),
        rn: x(2),
        rm: x(3),
        ra: x(4),
    });
    v.push(Div {
        signed: false,
        size: Size::S32,
        rd: x(30),
        rn: x(29),
        rm: x(28),
    });
    for (i, cond) in Cond::ALL.into_iter().enumerate() {
        let i = i as u8;
        if !matches!(cond, Cond::Al | Cond::Nv) {
            v.push(Cset {
                size: if i & 1 == 0 { Size::S64 } else { Size::S32 },
                rd: x(i * 2),
                cond,
            });
        }
        v.push(Csel {
            size: Size::S64,
            rd: x(30 - i),
            rn: x(i),
            rm: x(i + 1),
            cond,
        });
        v.push(BCond {
            cond,
            offset: [0, 4, -4, 1_048_572, -1_048_576][i as usize % 5],
        });
    }
    for (rd, rn) in [
        (x(0), x(1)),
        (x(29), x(30)),
        (x(0), sp),
        (sp, x(0)),
        (sp, x(29)),
        (x(7), zr),
    ] {
        v.push(Mov {
            size: Size::S64,
            rd,
            rn,
        });
    }
    v.push(Mov {
        size: Size::S32,
        rd: x(3),
        rn: x(4),
    });
    for (imm16, hw) in [(0u16, 0u8), (1, 1), (0xffff, 2), (0x8000, 3)] {
        let rd = x(hw * 10);
        v.push(Movz {
            size: Size::S64,
            rd,
            imm16,
            hw,
        });
        v.push(Movn {
            size: Size::S64,
            rd,
            imm16,
            hw,
        });
        v.push(Movk {
            size: Size::S64,
            rd,
            imm16,
            hw,
        });
    }
    v.push(Movz {
        size: Size::S32,
        rd: x(30),
        imm16: 0xffff,
        hw: 1,
    });
    v.push(Movk {
        size: Size::S32,
        rd: x(29),
        imm16: 0x1234,
        hw: 0,
    });
    // Constant sequences: the table shows the instructions they expand to.
    for value in [
        0u64,
        0x1234_5678_9abc_def0,
        0xffff_ffff_ffff_0000,
        0x0000_ffff_0000_ffff,
    ] {
        v.extend(arm64::load_const(x(9), value));
    }
    for offset in [0, 4, -4, 134_217_724, -134_217_728] {
        v.push(B { offset });
        v.push(Bl { offset });
    }
    for (i, offset) in [0, 8, -8, 1_048_572, -1_048_576].into_iter().enumerate() {
        v.push(Cbz {
            nonzero: i % 2 == 1,
            size: if i == 2 { Size::S32 } else { Size::S64 },
            rt: [x(0), x(30), zr, x(15), x(29)][i],
            offset,
        });
    }
    for r in [x(0), x(16), x(29), x(30)] {
        v.push(Br { rn: r });
        v.push(Blr { rn: r });
        v.push(Ret { rn: r });
    }
    for (i, offset) in [0, 1, -1, 1_048_575, -1_048_576].into_iter().enumerate() {
        v.push(Adr {
            rd: x(i as u8 * 7),
            offset,
        });
    }
    for (i, offset) in [0i64, 4096, -4096, (1 << 32) - 4096, -(1 << 32)]
        .into_iter()
        .enumerate()
    {
        v.push(Adrp {
            rd: x(30 - i as u8),
            offset,
        });
    }
    // The loads `load64_pair` puts after its adrp, whose offset field a
    // linker fills (R_AARCH64_LDST64_ABS_LO12_NC): here with a filled one.
    v.push(Mem {
        op: LdSt::LdrX,
        rt: x(17),
        rn: x(17),
        offset: 4088,
    });
    v.push(FMem {
        load: true,
        prec: Prec::F64,
        rt: f(0),
        rn: x(16),
        offset: 8,
    });
    for (rd, rn, offset) in [(x(16), x(16), 0), (x(0), x(30), 8), (sp, sp, 4095)] {
        v.push(AddLo12 { rd, rn, offset });
    }
    // Loads and stores: every width, bases x0..x30 and sp, the scaled
    // range ends, unscaled -256..255, register offsets.
    for (i, op) in LdSt::ALL.into_iter().enumerate() {
        let size = op.bytes() as i32;
        let i8_ = i as u8;
        for (j, (offset, rn)) in [
            (0, sp),
            (size, x(29)),
            (4095 * size, x(i8_)),
            (8 * size, x(30)),
        ]
        .into_iter()
        .enumerate()
        {
            v.push(Mem {
                op,
                rt: [x(i8_ + 1), zr, x(30), x(7)][j],
                rn,
                offset,
            });
        }
        for (j, offset) in [-256, -1, 1, 255].into_iter().enumerate() {
            v.push(MemUnscaled {
                op,
                rt: x((i8_ * 3 + j as u8) % 31),
                rn: if j == 0 { sp } else { x(30 - j as u8) },
                offset,
            });
        }
        for scaled in [false, true] {
            v.push(MemReg {
                op,
                rt: x(i8_ + 2),
                rn: if scaled { sp } else { x(20) },
                rm: if scaled { x(30) } else { zr },
                scaled,
            });
        }
    }
    for load in [false, true] {
        for (mode, offset) in [
            (PairMode::PreIndex, -16),
            (PairMode::PostIndex, 16),
            (PairMode::Offset, 0),
            (PairMode::Offset, 504),
            (PairMode::Offset, -512),
        ] {
            v.push(Pair {
                load,
                mode,
                rt: x(29),
                rt2: x(30),
                rn: sp,
                offset,
            });
        }
        v.push(Pair {
            load,
            mode: PairMode::Offset,
            rt: x(0),
            rt2: zr,
            rn: x(1),
            offset: 8,
        });
    }
    // Floating point: f0..f31 across the fields.
    for prec in [Prec::F64, Prec::F32] {
        for op in FOp::ALL {
            for i in [0u8, 9, 31] {
                v.push(FArith {
                    op,
                    prec,
                    rd: f(i),
                    rn: f((i + 1) % 32),
                    rm: f(31 - i),
                });
            }
        }
        for op in [
            arm64::FUnary::Mov,
            arm64::FUnary::Abs,
            arm64::FUnary::Neg,
            arm64::FUnary::Sqrt,
        ] {
            v.push(arm64::Inst::FUnary {
                op,
                prec,
                rd: f(31),
                rn: f(16),
            });
        }
        for (a, b) in [(0, 1), (31, 15)] {
            v.push(Fcmp {
                prec,
                rn: f(a),
                rm: f(b),
            });
        }
        for size in [Size::S64, Size::S32] {
            for (fi, ri) in [(0u8, zr), (31, x(30)), (8, x(9))] {
                v.push(Scvtf {
                    prec,
                    size,
                    rd: f(fi),
                    rn: ri,
                });
                v.push(Fcvtzs {
                    prec,
                    size,
                    rd: ri,
                    rn: f(fi),
                });
            }
        }
        for (fi, ri) in [(0u8, zr), (31, x(30)), (17, x(3))] {
            v.push(FmovToF {
                prec,
                rd: f(fi),
                rn: ri,
            });
            v.push(FmovFromF {
                prec,
                rd: ri,
                rn: f(fi),
            });
        }
        let size = if prec == Prec::F64 { 8 } else { 4 };
        for load in [true, false] {
            for (i, (offset, rn)) in [(0, sp), (size, x(0)), (4095 * size, x(30))]
                .into_iter()
                .enumerate()
            {
                v.push(FMem {
                    load,
                    prec,
                    rt: f([0, 15, 31][i]),
                    rn,
                    offset,
                });
            }
            for (i, offset) in [-256, 255].into_iter().enumerate() {
                v.push(FMemUnscaled {
                    load,
                    prec,
                    rt: f([7, 24][i]),
                    rn: if i == 0 { sp } else { x(29) },
                    offset,
                });
            }
        }
    }
    for (d, n) in [(0, 1), (31, 30)] {
        v.push(Fcvt {
            to: Prec::F64,
            rd: f(d),
            rn: f(n),
        });
        v.push(Fcvt {
            to: Prec::F32,
            rd: f(n),
            rn: f(d),
        });
    }
    v.push(Nop);
    v
}

/// The RISC-V rows.
pub fn riscv_insts() -> Vec<riscv::Inst> {
    use riscv::{BCond, FOp, FReg, ImmOp, Inst::*, IntTy, LoadOp, Prec, Reg, RegOp, Sgnj, StoreOp};
    let x = |n: u8| Reg::x(n).unwrap();
    let f = |n: u8| FReg::new(n).unwrap();
    let mut v = Vec::new();
    // x0..x31 in every field.
    for i in 0..32u8 {
        v.push(Op {
            op: RegOp::Add,
            rd: x(i),
            rs1: x((i + 11) % 32),
            rs2: x((i + 22) % 32),
        });
    }
    for (k, op) in RegOp::ALL.into_iter().enumerate().skip(1) {
        let k = k as u8;
        v.push(Op {
            op,
            rd: x(k % 32),
            rs1: x((k * 3) % 32),
            rs2: x((k * 7 + 1) % 32),
        });
        v.push(Op {
            op,
            rd: x(31 - k % 32),
            rs1: x(10),
            rs2: x(0),
        });
    }
    for (k, op) in ImmOp::ALL.into_iter().enumerate() {
        let k = k as u8;
        let imms: &[i32] = match op {
            ImmOp::Slli | ImmOp::Srli | ImmOp::Srai => &[0, 1, 31, 32, 63],
            ImmOp::Slliw | ImmOp::Srliw | ImmOp::Sraiw => &[0, 1, 31],
            _ => &[0, 1, -1, 2047, -2048],
        };
        for (j, &imm) in imms.iter().enumerate() {
            v.push(OpImm {
                op,
                rd: x((k * 5 + j as u8 * 7) % 32),
                rs1: x((k * 3 + j as u8 * 13 + 2) % 32),
                imm,
            });
        }
    }
    for (j, imm20) in [0u32, 1, 0x7ffff, 0x80000, 0xfffff].into_iter().enumerate() {
        v.push(Lui {
            rd: x(j as u8 * 7 + 1),
            imm20,
        });
        v.push(Auipc {
            rd: x(31 - j as u8 * 7),
            imm20,
        });
    }
    // The first halves of pairs a fixup fills, and the load of a pair.
    for (rd, kind) in [
        (1, crate::FixupKind::RiscvCall),
        (31, crate::FixupKind::RiscvPcrelHi20),
        (10, crate::FixupKind::RiscvPcrelHi20),
    ] {
        v.push(AuipcFixup { rd: x(rd), kind });
    }
    for (prec, d, s) in [(Prec::F64, 0, 31), (Prec::F32, 31, 2), (Prec::F64, 10, 10)] {
        v.push(FLoadPcrelLo {
            prec,
            rd: f(d),
            rs1: x(s),
        });
    }
    // Constant-building sequences across the 12/32/64-bit boundaries.
    for value in [
        2047i64,
        -2048,
        2048,
        0x7fff_f800,
        0x7fff_ffff,
        -0x8000_0000,
        0x8000_0000,
        0x1234_5678_9abc_def0,
        i64::MIN,
    ] {
        v.extend(riscv::load_const(x(10), value));
    }
    for (k, cond) in BCond::ALL.into_iter().enumerate() {
        for (j, offset) in [0, 4, -4, 4094, -4096, 2].into_iter().enumerate() {
            let k8 = (k * 6 + j) as u8;
            v.push(Branch {
                cond,
                rs1: x(k8 % 32),
                rs2: x(31 - k8 % 32),
                offset,
            });
        }
    }
    for (j, offset) in [0, 2, -2, 2048, 1_048_574, -1_048_576]
        .into_iter()
        .enumerate()
    {
        v.push(Jal {
            rd: [x(0), x(1), x(5), x(31), x(10), x(1)][j],
            offset,
        });
    }
    for (j, offset) in [0, -1, 2047, -2048].into_iter().enumerate() {
        v.push(Jalr {
            rd: [x(0), x(1), x(31), x(5)][j],
            rs1: [x(1), x(10), x(0), x(31)][j],
            offset,
        });
    }
    for (k, op) in LoadOp::ALL.into_iter().enumerate() {
        for (j, offset) in [0, 8, -8, 2047, -2048].into_iter().enumerate() {
            let k8 = (k * 5 + j) as u8;
            v.push(Load {
                op,
                rd: x((k8 * 3) % 32),
                rs1: if j == 1 { x(2) } else { x(31 - k8 % 32) },
                offset,
            });
        }
    }
    for (k, op) in StoreOp::ALL.into_iter().enumerate() {
        for (j, offset) in [0, 8, -8, 2047, -2048].into_iter().enumerate() {
            let k8 = (k * 5 + j) as u8;
            v.push(Store {
                op,
                rs2: x((k8 * 7) % 32),
                rs1: if j == 1 { x(2) } else { x((k8 + 3) % 32) },
                offset,
            });
        }
    }
    // Floating point: f0..f31 in every field.
    for i in 0..32u8 {
        v.push(FArith {
            op: FOp::Add,
            prec: if i % 2 == 0 { Prec::F64 } else { Prec::F32 },
            rd: f(i),
            rs1: f((i + 11) % 32),
            rs2: f((i + 22) % 32),
        });
    }
    for prec in [Prec::F64, Prec::F32] {
        for op in [FOp::Sub, FOp::Mul, FOp::Div] {
            v.push(FArith {
                op,
                prec,
                rd: f(10),
                rs1: f(11),
                rs2: f(31),
            });
        }
        for op in [Sgnj::J, Sgnj::Jn, Sgnj::Jx] {
            v.push(FSgnj {
                op,
                prec,
                rd: f(0),
                rs1: f(31),
                rs2: f(31),
            });
        }
        for op in [riscv::FCmp::Eq, riscv::FCmp::Lt, riscv::FCmp::Le] {
            v.push(riscv::Inst::FCmp {
                op,
                prec,
                rd: x(31),
                rs1: f(0),
                rs2: f(17),
            });
        }
        for int in [IntTy::W, IntTy::Wu, IntTy::L, IntTy::Lu] {
            v.push(FCvtFromInt {
                prec,
                int,
                rd: f(int as u8 * 10),
                rs1: x(31 - int as u8),
            });
            v.push(FCvtToInt {
                prec,
                int,
                rd: x(int as u8 * 10),
                rs1: f(31 - int as u8),
            });
        }
        for (j, (fr, xr)) in [(0u8, 0u8), (31, 31), (10, 10)].into_iter().enumerate() {
            v.push(FMvToF {
                prec,
                rd: f(fr),
                rs1: x(xr),
            });
            v.push(FMvFromF {
                prec,
                rd: x(xr),
                rs1: f(fr),
            });
            let offset = [0, 2047, -2048][j];
            v.push(FLoad {
                prec,
                rd: f(fr),
                rs1: x(2 + xr % 29),
                offset,
            });
            v.push(FStore {
                prec,
                rs2: f(31 - fr),
                rs1: x(2 + xr % 29),
                offset,
            });
        }
    }
    for (d, s) in [(0, 31), (10, 11)] {
        v.push(FCvtFF {
            to: Prec::F64,
            rd: f(d),
            rs1: f(s),
        });
        v.push(FCvtFF {
            to: Prec::F32,
            rd: f(s),
            rs1: f(d),
        });
    }
    v.push(Nop);
    v
}
