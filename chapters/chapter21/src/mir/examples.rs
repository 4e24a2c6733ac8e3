//! Two example passes, which `simple --pass NAME` enables.
//!
//! - `self-move-elim` ([`SelfMoveElim`], at `post_regalloc`): deletes the
//!   moves from a register (or stack slot) to itself that allocation
//!   left: a copy, a truncation or an extension whose result got the
//!   location of its input. Such a move emits nothing (the encoder skips
//!   it), so the machine code stays byte for byte the same; what changes
//!   is the machine function, which has fewer instructions for every
//!   later pass to walk.
//! - `block-inst-count` ([`BlockInstCount`], at `preemit`): reports, for
//!   every block, how many instructions it has and how many of them are
//!   pseudo-instructions that emit no code. It changes nothing.

use super::function::*;
use super::pass::{Level, MachinePass, PassContext, PassDesc, Preserved};
use super::Hook;
use crate::mach::Op;

/// The passes by name, as `--pass` takes them.
pub const NAMES: [&str; 2] = ["self-move-elim", "block-inst-count"];

/// A new instance of the example pass called `name`.
pub fn by_name(name: &str) -> Option<Box<dyn MachinePass>> {
    match name {
        "self-move-elim" => Some(Box::new(SelfMoveElim::default())),
        "block-inst-count" => Some(Box::new(BlockInstCount)),
        _ => None,
    }
}

/// Deletes moves from a location to itself (see the module's
/// documentation). It runs at `post_regalloc`; [`SelfMoveElim::at`] puts
/// it elsewhere (a test shows it on the moves a pass makes).
pub struct SelfMoveElim {
    hook: Hook,
}

impl Default for SelfMoveElim {
    fn default() -> Self {
        SelfMoveElim {
            hook: Hook::PostRegalloc,
        }
    }
}

impl SelfMoveElim {
    pub fn at(hook: Hook) -> Self {
        SelfMoveElim { hook }
    }
}

/// A move whose one read and one write are the same location.
pub fn is_self_move(inst: &MachineInst) -> bool {
    let is_move = match inst.op {
        Some((op, ..)) => matches!(op, Op::Split | Op::Trunc | Op::AnyExt),
        None => inst.opcode == "COPY",
    };
    if !is_move {
        return false;
    }
    let place = |o: &Operand| match o {
        Operand::Reg(r) => Some((Some(r.reg), None, r.def)),
        Operand::Stack { object, def } => Some((None, Some(*object), *def)),
        _ => None,
    };
    let places: Vec<_> = inst.operands.iter().filter_map(place).collect();
    match places[..] {
        [(r1, s1, true), (r2, s2, false)] => (r1, s1) == (r2, s2),
        _ => false,
    }
}

impl MachinePass for SelfMoveElim {
    fn desc(&self) -> PassDesc {
        PassDesc {
            id: "self-move-elim",
            hook: self.hook,
            level: Level::Function,
            requires: Vec::new(),
            preserves: Preserved::Cfg,
            deterministic: true,
        }
    }

    fn run(&mut self, cx: &mut PassContext<'_>) -> Result<Preserved, String> {
        let f = cx
            .function_index()
            .ok_or("a function pass runs on a function")?;
        let mf = cx.function();
        let moves: Vec<InstId> = mf
            .placed()
            .map(|(_, i)| i)
            .filter(|&i| is_self_move(mf.inst(i)))
            .collect();
        if moves.is_empty() {
            return Ok(Preserved::All);
        }
        let name = mf.name.clone();
        let mut m = cx.begin(f);
        for &i in &moves {
            m.erase_inst(i).map_err(|e| e.to_string())?;
        }
        cx.commit(m).map_err(|e| e.to_string())?;
        cx.report(format!(
            "self-move-elim: {name}: deleted {} move{} from a location to itself",
            moves.len(),
            if moves.len() == 1 { "" } else { "s" }
        ));
        Ok(Preserved::Cfg)
    }
}

/// Reports the instructions of every block (see the module's
/// documentation).
pub struct BlockInstCount;

impl MachinePass for BlockInstCount {
    fn desc(&self) -> PassDesc {
        PassDesc {
            id: "block-inst-count",
            hook: Hook::Preemit,
            level: Level::Block,
            requires: Vec::new(),
            preserves: Preserved::All,
            deterministic: true,
        }
    }

    fn run(&mut self, cx: &mut PassContext<'_>) -> Result<Preserved, String> {
        let b = cx.block().ok_or("a block pass runs on a block")?;
        let mf = cx.function();
        let insts = &mf.block(b).insts;
        let pseudo = insts.iter().filter(|&&i| mf.inst(i).flags.pseudo).count();
        let line = format!(
            "block-inst-count: {} {}: {} instructions, {} pseudo",
            mf.name,
            mf.label(b),
            insts.len(),
            pseudo
        );
        cx.report(line);
        Ok(Preserved::All)
    }
}
