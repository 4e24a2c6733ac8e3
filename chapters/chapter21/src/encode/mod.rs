//! Encoding (chapter 21): from the allocated machine program to bytes.
//!
//! Register allocation left every value a register or a stack slot, and
//! a local order in every block. Encoding turns that into machine code,
//! one function after another, in four steps:
//!
//! 1. **Layout.** A function's blocks are placed in reverse post-order
//!    from its entry, so a block usually follows one of its predecessors.
//! 2. **Emission.** Each machine node asks its CPU's encoder
//!    (`cpu::*::encode`) for instructions of the shared [`isa`] crate: the
//!    chapter decides which instruction, `isa` owns the bits. A branch is
//!    not encoded yet: it is a [`Piece::Branch`] to a block. Where the
//!    block a branch or a fall-through goes to comes next, no jump is
//!    needed; a two-way branch whose taken side comes next is inverted.
//! 3. **Branch forms.** Every branch starts in its short form. Then the
//!    offsets are computed, each branch whose target is out of the short
//!    form's reach grows to its long form, and this repeats until no
//!    branch grows. Sizes only grow, so this ends.
//! 4. **Patching.** With offsets final, branches are encoded, and calls
//!    from one function of the program to another are patched in place.
//!    What only a linker can settle (the C allocator `calloc`, constants
//!    in `.rodata`) becomes a relocation of the [`Program`].
//!
//! [`elf`] writes a [`Program`] as an ELF object; [`link`] places one in
//! memory for the emulator.

pub mod elf;
pub mod frame;
pub mod link;
pub mod listing;
pub mod program;

use crate::codegen::CodeGen;
use crate::error::Error;
use crate::gcm::is_block_head;
use crate::graph::{Graph, NodeId};
use crate::mach::{mach, Cpu, Mach, Target};
use crate::node::{fun, NodeKind};
use crate::regalloc::{Allocation, Loc};
use frame::FrameLayout;
use isa::{arm64, riscv, x86_64};
pub use program::{Program, Reloc, RelocTarget, Symbol};
use rustc_hash::FxHashMap;
use std::fmt;

/// One instruction of any of the three CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyInst {
    X86(x86_64::Inst),
    Arm(arm64::Inst),
    Riscv(riscv::Inst),
}

impl AnyInst {
    fn encode(&self, buf: &mut Vec<u8>) -> isa::EncodeResult {
        match self {
            AnyInst::X86(i) => i.encode(buf),
            AnyInst::Arm(i) => i.encode(buf),
            AnyInst::Riscv(i) => i.encode(buf),
        }
    }
}

impl fmt::Display for AnyInst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyInst::X86(i) => i.fmt(f),
            AnyInst::Arm(i) => i.fmt(f),
            AnyInst::Riscv(i) => i.fmt(f),
        }
    }
}

impl From<x86_64::Inst> for AnyInst {
    fn from(i: x86_64::Inst) -> Self {
        AnyInst::X86(i)
    }
}

impl From<arm64::Inst> for AnyInst {
    fn from(i: arm64::Inst) -> Self {
        AnyInst::Arm(i)
    }
}

impl From<riscv::Inst> for AnyInst {
    fn from(i: riscv::Inst) -> Self {
        AnyInst::Riscv(i)
    }
}

/// What the PC-relative or relocated field of an instruction refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ref {
    /// The entry of a function of this program (its Fun node).
    Fun(NodeId),
    /// A function outside the object, by name.
    External(&'static str),
    /// The constant at this offset of `.rodata`.
    Rodata(u64),
    /// RISC-V: the low half of an address whose high half the previous
    /// instruction (an `auipc`) computed.
    PcrelLo,
}

/// A branch's condition, in the terms of its CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// Always taken: a jump.
    Always,
    X86(x86_64::Cond),
    Arm(arm64::Cond),
    /// RISC-V compares two registers in the branch itself.
    Riscv(riscv::BCond, riscv::Reg, riscv::Reg),
}

impl Cond {
    /// The condition that holds exactly when this one does not.
    pub fn invert(self) -> Cond {
        match self {
            Cond::Always => Cond::Always,
            Cond::X86(c) => Cond::X86(c.invert()),
            Cond::Arm(c) => Cond::Arm(c.invert()),
            Cond::Riscv(c, a, b) => Cond::Riscv(c.invert(), a, b),
        }
    }
}

/// An item of a function's code before its offsets are known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// An instruction, with what its PC-relative field refers to.
    Inst(AnyInst, Option<Ref>),
    /// A branch to the block headed by this node.
    Branch(Cond, NodeId),
    /// Where a block starts.
    Label(NodeId),
}

/// A function's instructions as they are emitted: what a CPU's encoder
/// writes into, and what it asks about the program.
pub struct Emit<'a> {
    pub g: &'a Graph,
    pub target: Target,
    pub frame: &'a FrameLayout,
    loc: &'a FxHashMap<NodeId, Loc>,
    pub pieces: Vec<Piece>,
    rodata: &'a mut Rodata,
    /// The block laid out after the one being emitted.
    next_block: Option<NodeId>,
    /// Each function's Fun node, by function index.
    funs: &'a FxHashMap<(crate::types::TypeId, u32), NodeId>,
}

impl Emit<'_> {
    /// Where value `n` lives.
    pub fn loc(&self, n: NodeId) -> Result<Loc, Error> {
        self.loc
            .get(&n)
            .copied()
            .ok_or_else(|| internal(format!("node {} has no location", n.nid())))
    }

    /// The register of value `n`, which must be in one.
    pub fn reg(&self, n: NodeId) -> Result<u8, Error> {
        match self.loc(n)? {
            Loc::Reg(r) => Ok(r),
            l => Err(internal(format!(
                "node {} is on the stack ({l:?}) where a register is needed",
                n.nid()
            ))),
        }
    }

    /// The register of input `i` of node `n`.
    pub fn in_reg(&self, n: NodeId, i: usize) -> Result<u8, Error> {
        let x = self
            .g
            .input(n, i)
            .ok_or_else(|| internal(format!("node {} has no input {i}", n.nid())))?;
        self.reg(x)
    }

    /// Appends an instruction.
    pub fn inst(&mut self, i: impl Into<AnyInst>) {
        self.pieces.push(Piece::Inst(i.into(), None));
    }

    /// Appends an instruction whose PC-relative field refers to `r`.
    pub fn inst_ref(&mut self, i: impl Into<AnyInst>, r: Ref) {
        self.pieces.push(Piece::Inst(i.into(), Some(r)));
    }

    /// A jump to block `to`, left out when `to` comes next.
    pub fn jump(&mut self, to: NodeId) {
        if self.next_block != Some(to) {
            self.pieces.push(Piece::Branch(Cond::Always, to));
        }
    }

    /// A two-way branch: to `taken` when `cond` holds, else to
    /// `not_taken`; inverted when `taken` comes next.
    pub fn branch(&mut self, cond: Cond, taken: NodeId, not_taken: NodeId) {
        if self.next_block == Some(taken) {
            self.pieces.push(Piece::Branch(cond.invert(), not_taken));
        } else {
            self.pieces.push(Piece::Branch(cond, taken));
            self.jump(not_taken);
        }
    }

    /// The two arms of branch node `n`: taken (when its condition holds)
    /// and not taken.
    pub fn arms(&self, n: NodeId) -> Result<(NodeId, NodeId), Error> {
        let succ = crate::asm::successors(self.g, n);
        match succ[..] {
            [t, f] => Ok((t, f)),
            _ => Err(internal(format!(
                "branch {} has {} arms",
                n.nid(),
                succ.len()
            ))),
        }
    }

    /// The block laid out after the one being emitted.
    pub fn next_block(&self) -> Option<NodeId> {
        self.next_block
    }

    /// The Fun node of the function a constant function pointer of type
    /// `ptr` points to. A function is known by its signature and its index
    /// among the functions of that signature, as the types number them.
    pub fn fun(&self, ptr: crate::types::TypeId) -> Result<NodeId, Error> {
        self.g
            .types
            .single_fidx(ptr)
            .and_then(|key| self.funs.get(&key).copied())
            .ok_or_else(|| {
                internal(format!(
                    "no function of type {}",
                    self.g.types.to_string(ptr)
                ))
            })
    }

    /// The Fun node a direct call `n` (with machine node `m`) calls: the
    /// one its constant function pointer names. (A call may still be
    /// linked to more than one Fun: one it could reach before the
    /// optimizer resolved its pointer keeps it as a call site.)
    pub fn callee(&self, n: NodeId, m: &Mach) -> Result<NodeId, Error> {
        if let Some(ptr) = m.callee {
            return self.fun(ptr);
        }
        self.g
            .outputs(n)
            .iter()
            .copied()
            .find(|&u| matches!(self.g.role(u), NodeKind::Fun { .. }))
            .ok_or_else(|| internal(format!("call {} names no function", n.nid())))
    }

    /// The offset in `.rodata` of the 8-byte constant `bits` (one entry
    /// per distinct value).
    pub fn constant(&mut self, bits: u64) -> u64 {
        self.rodata.entry(bits)
    }

    /// The offset in `.rodata` of a 16-byte constant (low 8 bytes `lo`),
    /// aligned to 16 bytes, as x86's packed operations need.
    pub fn constant16(&mut self, lo: u64, hi: u64) -> u64 {
        self.rodata.entry16(lo, hi)
    }

    /// The stack-pointer-relative offset of a stack location.
    pub fn stack_offset(&self, l: Loc) -> i64 {
        self.frame.offset(l) as i64
    }
}

/// The `.rodata` section being built: 8-byte constants (and a few of 16
/// bytes), each once.
#[derive(Default)]
struct Rodata {
    bytes: Vec<u8>,
    at: FxHashMap<u64, u64>,
    at16: FxHashMap<(u64, u64), u64>,
}

impl Rodata {
    fn entry(&mut self, bits: u64) -> u64 {
        *self.at.entry(bits).or_insert_with(|| {
            let off = self.bytes.len() as u64;
            self.bytes.extend_from_slice(&bits.to_le_bytes());
            off
        })
    }

    fn entry16(&mut self, lo: u64, hi: u64) -> u64 {
        *self.at16.entry((lo, hi)).or_insert_with(|| {
            self.bytes.resize(self.bytes.len().next_multiple_of(16), 0);
            let off = self.bytes.len() as u64;
            self.bytes.extend_from_slice(&lo.to_le_bytes());
            self.bytes.extend_from_slice(&hi.to_le_bytes());
            off
        })
    }
}

/// An error of the encoder itself: a state the phases before it promise
/// never to leave.
fn internal(message: String) -> Error {
    Error::new(format!("internal error in encoding: {message}"), 0)
}

/// One instruction of the encoded program, for the listing.
#[derive(Clone, Debug)]
pub struct Line {
    pub offset: u64,
    pub len: u8,
    pub inst: AnyInst,
    /// Where a branch or a call within the program goes.
    pub target: Option<u64>,
}

/// The encoded program and, function by function, what was encoded.
pub struct Encoded {
    pub program: Program,
    /// Per function (in the order of [`Program::functions`]), its lines.
    pub lines: Vec<Vec<Line>>,
}

/// What each CPU's encoder provides.
struct CpuEncoder {
    emit: fn(&mut Emit, NodeId, &Mach) -> Result<(), Error>,
    copy: fn(&mut Emit, Loc, Loc, bool) -> Result<(), Error>,
    prologue: fn(&mut Emit) -> Result<(), Error>,
    /// The instructions of a branch by `disp` bytes from the branch's
    /// first byte, in the short or the long form (`None`: out of reach).
    branch: fn(Cond, i64, bool) -> Option<Vec<AnyInst>>,
    /// Filler between functions.
    pad: fn(&mut Vec<u8>, usize),
    align: usize,
}

fn cpu_encoder(cpu: Cpu) -> CpuEncoder {
    use crate::cpu::{arm, riscv as rv, x86_64 as x86};
    match cpu {
        Cpu::X86_64 => CpuEncoder {
            emit: x86::encode::emit,
            copy: x86::encode::copy,
            prologue: x86::encode::prologue,
            branch: x86::encode::branch,
            pad: x86::encode::pad,
            align: 16,
        },
        Cpu::Riscv => CpuEncoder {
            emit: rv::encode::emit,
            copy: rv::encode::copy,
            prologue: rv::encode::prologue,
            branch: rv::encode::branch,
            pad: rv::encode::pad,
            align: 4,
        },
        Cpu::Arm => CpuEncoder {
            emit: arm::encode::emit,
            copy: arm::encode::copy,
            prologue: arm::encode::prologue,
            branch: arm::encode::branch,
            pad: arm::encode::pad,
            align: 4,
        },
    }
}

/// Encodes the allocated program of `code`.
pub fn encode(code: &CodeGen) -> Result<Encoded, Error> {
    let (Some(target), Some(alloc), Some(local)) = (code.target, &code.alloc, &code.local) else {
        return Err(internal("encoding needs an allocated program".into()));
    };
    let g = &code.graph;
    let enc = cpu_encoder(target.cpu);
    let mut rodata = Rodata::default();
    let mut text: Vec<u8> = Vec::new();
    let mut functions = Vec::new();
    let mut lines = Vec::new();
    let mut relocs = Vec::new();
    // Calls between functions of the program, patched once all are placed.
    let mut calls: Vec<(isa::Fixup, NodeId, usize, usize)> = Vec::new();
    let mut fun_at: FxHashMap<NodeId, usize> = FxHashMap::default();
    let mut taken: rustc_hash::FxHashSet<String> = Default::default();
    let order = crate::regalloc::build::functions(g);
    let mut funs: FxHashMap<(crate::types::TypeId, u32), NodeId> = FxHashMap::default();
    for &f in &order {
        if let NodeKind::Fun { sig, .. } = *g.role(f) {
            if let Some(key) = g.types.single_fidx(sig) {
                funs.insert(key, f);
            }
        }
    }
    for f in order {
        let pieces = emit_function(g, target, alloc, local, f, &enc, &mut rodata, &funs)?;
        let gap = text.len().next_multiple_of(enc.align) - text.len();
        (enc.pad)(&mut text, gap);
        let start = text.len();
        fun_at.insert(f, start);
        let mut fun_lines = Vec::new();
        let fun_no = lines.len();
        place(
            &pieces,
            &enc,
            start,
            &mut text,
            &mut fun_lines,
            &mut |fixup, r, line| match r {
                Ref::Fun(callee) => calls.push((fixup, *callee, fun_no, line)),
                Ref::External(name) => relocs.push(Reloc {
                    offset: fixup.offset as u64,
                    kind: fixup.kind,
                    target: RelocTarget::External(name.to_string()),
                    addend: fixup.addend,
                }),
                Ref::Rodata(off) => relocs.push(Reloc {
                    offset: fixup.offset as u64,
                    kind: fixup.kind,
                    target: RelocTarget::Rodata(*off),
                    addend: fixup.addend,
                }),
                Ref::PcrelLo => relocs.push(Reloc {
                    offset: fixup.offset as u64,
                    kind: fixup.kind,
                    // The auipc is the instruction before.
                    target: RelocTarget::PcrelHi(fixup.offset as u64 - 4),
                    addend: 0,
                }),
            },
        )?;
        let (name, global) = symbol_name(g, f, &mut taken);
        functions.push(Symbol {
            name,
            offset: start as u64,
            size: (text.len() - start) as u64,
            global,
        });
        lines.push(fun_lines);
    }
    for (fixup, callee, fun_no, line) in calls {
        let to = *fun_at
            .get(&callee)
            .ok_or_else(|| internal(format!("call of a function {} not compiled", callee.nid())))?;
        patch(target.cpu, &mut text, &fixup, to)?;
        lines[fun_no][line].target = Some(to as u64);
    }
    Ok(Encoded {
        program: Program {
            isa: match target.cpu {
                Cpu::X86_64 => isa::Isa::X86_64,
                Cpu::Riscv => isa::Isa::Riscv64,
                Cpu::Arm => isa::Isa::Aarch64,
            },
            text,
            functions,
            rodata: rodata.bytes,
            relocs,
        },
        lines,
    })
}

/// The symbol of function `f` and whether it is global. The program's
/// top level is `simple_main` (C has its own `main`); a function is
/// known by its name, and the first of several of one name takes it
/// (the others, and functions without a name, get `name.N`, N the
/// number of their Fun node, and stay local: C could not name them).
pub(crate) fn symbol_name(
    g: &Graph,
    f: NodeId,
    taken: &mut rustc_hash::FxHashSet<String>,
) -> (String, bool) {
    let label = fun::label(g, f);
    let name = if label == "main" {
        "simple_main".to_string()
    } else {
        label
    };
    let plain = !name.starts_with('$') && taken.insert(name.clone());
    if plain {
        return (name, true);
    }
    let base = name.trim_start_matches('$');
    let local = format!("{base}.{}", f.nid());
    taken.insert(local.clone());
    (local, false)
}

fn patch(cpu: Cpu, code: &mut [u8], fixup: &isa::Fixup, to: usize) -> Result<(), Error> {
    let r = match cpu {
        Cpu::X86_64 => x86_64::patch(code, fixup, to),
        Cpu::Riscv => riscv::patch(code, fixup, to),
        Cpu::Arm => arm64::patch(code, fixup, to),
    };
    r.map_err(|e| internal(e.to_string()))
}

#[allow(clippy::too_many_arguments)]
/// Emits the pieces of function `f`: its prologue, then its blocks in
/// layout order.
fn emit_function(
    g: &Graph,
    target: Target,
    alloc: &Allocation,
    local: &FxHashMap<NodeId, Vec<NodeId>>,
    f: NodeId,
    enc: &CpuEncoder,
    rodata: &mut Rodata,
    funs: &FxHashMap<(crate::types::TypeId, u32), NodeId>,
) -> Result<Vec<Piece>, Error> {
    let blocks = crate::asm::reverse_post_order(g, f);
    let frame = FrameLayout::new(g, alloc, target, f, &blocks, local);
    let mut e = Emit {
        g,
        target,
        frame: &frame,
        loc: &alloc.loc,
        pieces: Vec::new(),
        rodata,
        next_block: None,
        funs,
    };
    (enc.prologue)(&mut e)?;
    for (i, &blk) in blocks.iter().enumerate() {
        e.next_block = blocks.get(i + 1).copied();
        e.pieces.push(Piece::Label(blk));
        for &n in local.get(&blk).map(Vec::as_slice).unwrap_or(&[]) {
            node(&mut e, enc, n)?;
        }
        // The control nodes that end the block.
        let mut c = blk;
        loop {
            let next = g
                .outputs(c)
                .iter()
                .copied()
                .find(|&u| crate::node::is_cfg(g, u) && !g.is_dead(u) && !is_block_head(g, u));
            match next {
                Some(u) => {
                    node(&mut e, enc, u)?;
                    c = u;
                }
                None => break,
            }
        }
        // A block that does not end in a branch or a return flows into
        // its one successor: a jump, unless that block comes next.
        let ends = mach(g, c).is_some_and(|m| {
            matches!(
                m.op,
                crate::mach::Op::Jcc(_) | crate::mach::Op::Branch(_) | crate::mach::Op::Ret
            )
        });
        if !ends {
            if let [succ] = crate::asm::successors(g, c)[..] {
                e.jump(succ);
            }
        }
    }
    Ok(e.pieces)
}

/// Emits node `n`: a split's copy, or the CPU's instructions.
fn node(e: &mut Emit, enc: &CpuEncoder, n: NodeId) -> Result<(), Error> {
    let Some(m) = mach(e.g, n) else {
        return Ok(());
    };
    if m.op == crate::mach::Op::Split {
        let src = e.g.in_(n, 1);
        let float = m.ty[0].is_float();
        let (dst, src) = (e.loc(n)?, e.loc(src)?);
        if dst != src {
            (enc.copy)(e, dst, src, float)?;
        }
        return Ok(());
    }
    (enc.emit)(e, n, m)
}

/// Settles the branch forms of `pieces`, then encodes them at `start`
/// of `text`; `fixup` gets every field the layout cannot patch itself.
fn place(
    pieces: &[Piece],
    enc: &CpuEncoder,
    start: usize,
    text: &mut Vec<u8>,
    lines: &mut Vec<Line>,
    fixup: &mut dyn FnMut(isa::Fixup, &Ref, usize),
) -> Result<(), Error> {
    // Sizes of the fixed instructions, once.
    let mut scratch = Vec::new();
    let mut size = Vec::with_capacity(pieces.len());
    for p in pieces {
        size.push(match p {
            Piece::Inst(i, _) => {
                scratch.clear();
                i.encode(&mut scratch)
                    .map_err(|e| internal(format!("{i}: {e}")))?;
                scratch.len()
            }
            Piece::Branch(..) => 0,
            Piece::Label(_) => 0,
        });
    }
    let branch_len = |c: Cond, long: bool| -> Result<usize, Error> {
        let insts = (enc.branch)(c, 0, long).ok_or_else(|| internal("no branch form".into()))?;
        let mut buf = Vec::new();
        for i in insts {
            i.encode(&mut buf).map_err(|e| internal(e.to_string()))?;
        }
        Ok(buf.len())
    };
    let mut long = vec![false; pieces.len()];
    for (i, p) in pieces.iter().enumerate() {
        if let Piece::Branch(c, _) = p {
            size[i] = branch_len(*c, false)?;
        }
    }
    // Grow branches out of reach until none is.
    let mut offset = vec![0usize; pieces.len() + 1];
    loop {
        let mut label_at: FxHashMap<NodeId, usize> = FxHashMap::default();
        let mut at = start;
        for (i, p) in pieces.iter().enumerate() {
            offset[i] = at;
            if let Piece::Label(b) = p {
                label_at.insert(*b, at);
            }
            at += size[i];
        }
        offset[pieces.len()] = at;
        let mut grew = false;
        for (i, p) in pieces.iter().enumerate() {
            if let Piece::Branch(c, to) = p {
                if long[i] {
                    continue;
                }
                let disp = label_at[to] as i64 - offset[i] as i64;
                if (enc.branch)(*c, disp, false).is_none() {
                    long[i] = true;
                    size[i] = branch_len(*c, true)?;
                    grew = true;
                }
            }
        }
        if !grew {
            // Encode.
            for (i, p) in pieces.iter().enumerate() {
                debug_assert_eq!(text.len(), offset[i]);
                match p {
                    Piece::Label(_) => {}
                    Piece::Inst(inst, r) => {
                        let at = text.len();
                        let fx = inst
                            .encode(text)
                            .map_err(|e| internal(format!("{inst}: {e}")))?;
                        lines.push(Line {
                            offset: at as u64,
                            len: (text.len() - at) as u8,
                            inst: *inst,
                            target: None,
                        });
                        if let (Some(fx), Some(r)) = (fx, r) {
                            fixup(fx, r, lines.len() - 1);
                        }
                    }
                    Piece::Branch(c, to) => {
                        let disp = label_at[to] as i64 - offset[i] as i64;
                        let insts = (enc.branch)(*c, disp, long[i]).ok_or_else(|| {
                            internal("a branch out of reach of its long form".into())
                        })?;
                        for inst in insts {
                            let at = text.len();
                            inst.encode(text)
                                .map_err(|e| internal(format!("{inst}: {e}")))?;
                            lines.push(Line {
                                offset: at as u64,
                                len: (text.len() - at) as u8,
                                inst,
                                target: Some(label_at[to] as u64),
                            });
                        }
                    }
                }
            }
            return Ok(());
        }
    }
}
