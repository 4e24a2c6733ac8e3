//! The operations arm runs (not yet written).

use crate::graph::{Graph, NodeId};
use crate::mach::{Mach, RegMask};

pub fn name(m: &Mach) -> String {
    format!("{:?}", m.op)
}

pub fn asm(_g: &Graph, _n: NodeId, m: &Mach) -> String {
    name(m)
}

pub fn in_mask(_g: &Graph, _n: NodeId, _m: &Mach, _i: usize) -> Option<RegMask> {
    None
}

pub fn out_mask(_g: &Graph, _n: NodeId, _m: &Mach) -> Option<RegMask> {
    None
}

pub fn print(_g: &Graph, _n: NodeId, _m: &Mach, _out: &mut crate::node::Printer) -> bool {
    false
}
