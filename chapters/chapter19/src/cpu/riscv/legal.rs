//! The legalizer's rules for riscv (not yet written).

use crate::graph::{Graph, NodeId};
use crate::mach::legalize::{Action, Rules};
use crate::mach::Cpu;

pub fn rules() -> Rules {
    Rules {
        cpu: Cpu::Riscv,
        sets: Vec::new(),
        rewrite,
    }
}

fn rewrite(_g: &mut Graph, _n: NodeId, _action: Action) -> Result<NodeId, String> {
    Err("not written yet".into())
}
