//! Instruction selection for arm (not yet written).

use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::mach::select::Pattern;
use crate::mach::Target;

pub fn select(_g: &Graph, _n: NodeId, _target: Target) -> Result<Pattern, Error> {
    Err(Error::new(
        "arm: instruction selection is not written yet",
        0,
    ))
}
