//! Region: a merge point of control flow.
//!
//! Input 0 is unused; inputs 1.. are the incoming paths, and each Phi on the
//! region has one value per path.

use super::NodeKind;
use crate::graph::{Graph, NodeId};

pub fn new(g: &mut Graph, paths: &[Option<NodeId>]) -> NodeId {
    let mut inputs = vec![None];
    inputs.extend_from_slice(paths);
    g.add_node(NodeKind::Region, inputs)
}
