//! The legalizer's rules for arm (not yet written).

use crate::graph::{Graph, NodeId};
use crate::mach::legalize::{Action, Rules};
use crate::mach::Cpu;

pub fn rules() -> Rules {
    Rules {
        cpu: Cpu::Arm,
        sets: Vec::new(),
        rewrite,
    }
}

fn rewrite(_g: &mut Graph, _n: NodeId, _action: Action) -> Result<NodeId, String> {
    Err("not written yet".into())
}
