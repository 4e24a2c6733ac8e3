//! Graphviz output of the graph, in the style of Simple's visualizer.
//!
//! Control nodes are yellow boxes and control edges red; data nodes are
//! ellipses with black edges. Nodes are listed by id, so the text is the
//! same on every run.

use crate::graph::{Graph, NodeId};
use crate::node::{glabel, is_cfg, unique_name, NodeKind};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The graph reachable from Start.
pub fn generate(g: &Graph, src: &str) -> String {
    let all = find_all(g);
    let mut sb = String::new();
    sb.push_str("digraph chapter01 {\n");
    // The source as a comment; "*/" inside it would end the comment early.
    let _ = writeln!(sb, "/*\n{}\n*/", src.replace("*/", "* /"));
    // Bottom-to-top, keep input order, merge parallel edges.
    sb.push_str("\trankdir=BT;\n\tordering=\"in\";\n\tconcentrate=\"true\";\n");
    nodes(g, &mut sb, &all);
    node_edges(g, &mut sb, &all);
    sb.push_str("}\n");
    sb
}

fn nodes(g: &Graph, sb: &mut String, all: &BTreeSet<NodeId>) {
    sb.push_str("\tsubgraph cluster_Nodes {\n");
    for &n in all {
        let _ = write!(sb, "\t\t{} [ ", unique_name(g, n));
        let lab = glabel(g, n);
        if is_cfg(g, n) {
            sb.push_str("shape=box style=filled fillcolor=yellow ");
        }
        let _ = write!(sb, "label=\"{lab}\" ");
        sb.push_str("];\n");
    }
    sb.push_str("\t}\n");
}

fn node_edges(g: &Graph, sb: &mut String, all: &BTreeSet<NodeId>) {
    sb.push_str("\tedge [ fontname=Helvetica, fontsize=8 ];\n");
    for &n in all {
        // Constant->Start edges are noise.
        if matches!(g.kind(n), NodeKind::Constant(_)) {
            continue;
        }
        for (i, def) in g.inputs(n).iter().enumerate() {
            let Some(def) = *def else { continue };
            let name = unique_name(g, n);
            let color = if is_cfg(g, def) { " color=red" } else { "" };
            let _ = writeln!(
                sb,
                "\t{name} -> {}[taillabel={i}{color}];",
                unique_name(g, def)
            );
        }
    }
}

/// Every live node reachable from Start's uses.
fn find_all(g: &Graph) -> BTreeSet<NodeId> {
    let mut all = BTreeSet::new();
    let mut work: Vec<NodeId> = g.outputs(g.start()).to_vec();
    work.push(g.start());
    while let Some(n) = work.pop() {
        if g.is_dead(n) || !all.insert(n) {
            continue;
        }
        work.extend(g.inputs(n).iter().flatten());
        work.extend(g.outputs(n));
    }
    all
}
