//! Graphviz output of the graph, in the style of Simple's visualizer.
//!
//! Control nodes are yellow boxes and control edges red; data nodes are
//! ellipses with black edges, memory edges blue, and the edge that anchors
//! a New to its control green; phis are light yellow and drawn dotted to their
//! region. Multi-valued nodes (Start, If) are tables with one cell per
//! projection. Scopes are drawn below the graph as tables of names with
//! dashed blue edges to the values they bind. Nodes are listed by id, so the
//! text is the same on every run.

use crate::graph::{Graph, NodeId};
use crate::node::{glabel, is_cfg, is_mem, is_multi, scope, unique_name, NodeKind};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The graph reachable from Start and the scopes, with the scopes drawn.
pub fn generate(g: &Graph, src: &str, scopes: &[NodeId]) -> String {
    let all = find_all(g, scopes);
    let mut sb = String::new();
    sb.push_str("digraph chapter21 {\n");
    // The source as a comment; "*/" inside it would end the comment early.
    let _ = writeln!(sb, "/*\n{}\n*/", src.replace("*/", "* /"));
    // Bottom-to-top. Unlike earlier chapters, no input ordering (poor
    // layouts once memory edges cross the graph) and no merging of parallel
    // edges (Graphviz then drops some edges into Start's memory ports).
    sb.push_str("\trankdir=BT;\n");
    nodes(g, &mut sb, &all);
    for &s in scopes {
        scope_tables(g, &mut sb, s);
    }
    node_edges(g, &mut sb, &all);
    for &s in scopes {
        scope_edges(g, &mut sb, s);
    }
    sb.push_str("}\n");
    sb
}

fn nodes(g: &Graph, sb: &mut String, all: &BTreeSet<NodeId>) {
    sb.push_str("\tsubgraph cluster_Nodes {\n");
    for &n in all {
        // The one dead control is not drawn.
        if matches!(
            g.kind(n),
            NodeKind::Proj { .. } | NodeKind::CProj { .. } | NodeKind::Scope(_) | NodeKind::XCtrl
        ) {
            continue; // drawn inside their multi node, or as scopes
        }
        let _ = write!(sb, "\t\t{} [ ", unique_name(g, n));
        let lab = glabel(g, n);
        if is_multi(g, n) {
            multi_table(g, sb, n, &lab);
        } else {
            if is_cfg(g, n) {
                sb.push_str("shape=box style=filled fillcolor=yellow ");
            }
            if matches!(g.kind(n), NodeKind::Phi { .. }) {
                sb.push_str("style=filled fillcolor=lightyellow ");
            }
            let _ = write!(sb, "label=\"{lab}\" ");
        }
        sb.push_str("];\n");
    }
    // Line each region up with its phis.
    for &n in all {
        if g.kind(n).is_region() {
            let _ = write!(sb, "\t\t{{ rank=same; {};", unique_name(g, n));
            for &phi in g.outputs(n) {
                if matches!(g.kind(phi), NodeKind::Phi { .. }) {
                    let _ = write!(sb, "{};", unique_name(g, phi));
                }
            }
            sb.push_str("}\n");
        }
    }
    sb.push_str("\t}\n");
}

/// A multi node as a table: its name on top, its projections below.
fn multi_table(g: &Graph, sb: &mut String, n: NodeId, lab: &str) {
    sb.push_str("shape=plaintext label=<\n");
    sb.push_str(
        "\t\t\t<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"4\">\n",
    );
    let _ = writeln!(sb, "\t\t\t<TR><TD BGCOLOR=\"yellow\">{lab}</TD></TR>");
    let projs: Vec<NodeId> = g
        .outputs(n)
        .iter()
        .copied()
        .filter(|&u| matches!(g.kind(u), NodeKind::Proj { .. } | NodeKind::CProj { .. }))
        .collect();
    // Chapter 18: Start may have no projection left (Graphviz rejects an
    // empty row).
    if !projs.is_empty() {
        sb.push_str("\t\t\t<TR>");
        sb.push_str(
            "<TD>\n\t\t\t\t<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\">\n\t\t\t\t<TR>",
        );
        for p in projs {
            if let NodeKind::Proj { idx, .. } | NodeKind::CProj { idx, .. } = g.kind(p) {
                let _ = write!(sb, "<TD PORT=\"p{idx}\"");
            }
            if is_cfg(g, p) {
                sb.push_str(" BGCOLOR=\"yellow\"");
            }
            let _ = write!(sb, ">{}</TD>", glabel(g, p));
        }
        sb.push_str("</TR>\n\t\t\t\t</TABLE>\n\t\t\t</TD>");
        sb.push_str("</TR>\n");
    }
    sb.push_str("\t\t\t</TABLE>>\n\t\t");
}

fn scope_tables(g: &Graph, sb: &mut String, s: NodeId) {
    sb.push_str("\tnode [shape=plaintext];\n");
    let levels = scope::levels(g, s);
    for (level, names) in levels.iter().enumerate() {
        let scope_name = format!("{}_{level}", unique_name(g, s));
        let _ = writeln!(sb, "\tsubgraph cluster_{scope_name} {{");
        let _ = writeln!(sb, "\t\t{scope_name} [label=<");
        sb.push_str("\t\t\t<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\">\n");
        let _ = write!(sb, "\t\t\t<TR><TD BGCOLOR=\"cyan\">{level}</TD>");
        for name in names.keys() {
            let _ = write!(sb, "<TD PORT=\"{scope_name}_{name}\">{name}</TD>");
        }
        sb.push_str("</TR>\n\t\t\t</TABLE>>];\n");
    }
    // Scope clusters nest, one inside the next; close them all here.
    sb.push_str(&"\t}\n".repeat(levels.len()));
}

/// Where an edge to `def` lands: a projection is a port of its multi node.
fn edge_target(g: &Graph, def: NodeId) -> String {
    match g.kind(def) {
        NodeKind::Proj { idx, .. } | NodeKind::CProj { idx, .. } => {
            format!("{}:p{idx}", unique_name(g, g.in_(def, 0)))
        }
        _ => unique_name(g, def),
    }
}

fn node_edges(g: &Graph, sb: &mut String, all: &BTreeSet<NodeId>) {
    sb.push_str("\tedge [ fontname=Helvetica, fontsize=8 ];\n");
    for &n in all {
        // Constant->Start edges are noise; projections and scopes are drawn
        // elsewhere.
        if matches!(
            g.kind(n),
            NodeKind::Constant(_)
                | NodeKind::Proj { .. }
                | NodeKind::CProj { .. }
                | NodeKind::Scope(_)
                | NodeKind::XCtrl
        ) {
            continue;
        }
        for (i, def) in g.inputs(n).iter().enumerate() {
            let Some(def) = *def else { continue };
            let name = unique_name(g, n);
            if matches!(g.kind(n), NodeKind::Phi { .. }) && g.kind(def).is_region() {
                let _ = writeln!(
                    sb,
                    "\t{name} -> {} [style=dotted taillabel={i}];",
                    unique_name(g, def)
                );
            } else {
                // The edge from a New to its control only anchors it.
                let color = if matches!(g.kind(n), NodeKind::New { .. }) {
                    " color=green"
                } else if is_cfg(g, def) {
                    " color=red"
                } else if is_mem(g, def) {
                    " color=blue"
                } else {
                    ""
                };
                // A back edge must not pull the loop body above the loop.
                let back = i == 2 && matches!(g.kind(n), NodeKind::Phi { .. } | NodeKind::Loop);
                let constraint = if back { " constraint=false" } else { "" };
                let _ = writeln!(
                    sb,
                    "\t{name} -> {}[taillabel={i}{color}{constraint}];",
                    edge_target(g, def)
                );
            }
        }
    }
}

fn scope_edges(g: &Graph, sb: &mut String, s: NodeId) {
    sb.push_str("\tedge [style=dashed color=cornflowerblue];\n");
    for (level, names) in scope::levels(g, s).iter().enumerate() {
        let scope_name = format!("{}_{level}", unique_name(g, s));
        for (name, &i) in names {
            let Some(mut def) = g.input(s, i) else {
                continue;
            };
            // A lazy sentinel stands for the loop head's value.
            while matches!(g.kind(def), NodeKind::Scope(_)) {
                match g.input(def, i) {
                    Some(d) => def = d,
                    None => break,
                }
            }
            let _ = writeln!(
                sb,
                "\t{scope_name}:\"{scope_name}_{name}\" -> {};",
                edge_target(g, def)
            );
        }
    }
}

/// Every live node reachable from Start's uses and from the scopes.
fn find_all(g: &Graph, scopes: &[NodeId]) -> BTreeSet<NodeId> {
    let mut all = BTreeSet::new();
    let mut work: Vec<NodeId> = g.outputs(g.start()).to_vec();
    work.push(g.start());
    for &s in scopes {
        work.extend(g.inputs(s).iter().flatten());
    }
    while let Some(n) = work.pop() {
        if g.is_dead(n) || !all.insert(n) {
            continue;
        }
        work.extend(g.inputs(n).iter().flatten());
        work.extend(g.outputs(n));
    }
    all
}
