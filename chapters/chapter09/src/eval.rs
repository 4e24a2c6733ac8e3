//! The graph evaluator: runs a program by walking its graph.
//!
//! There is no schedule yet, so evaluation follows control: from Start's
//! control projection, each control node says where control goes next (an
//! If by the value of its predicate, a projection or region to its one
//! control user). Data values are computed on demand from a node's inputs.
//! Phis hold state: arriving at a region through its `i`-th path sets every
//! phi of the region to its `i`-th input, all at once (values are read
//! before any phi changes, as a loop's back edge requires). A budget of loop
//! back edges stops programs that do not finish.

use crate::graph::{Graph, NodeId};
use crate::node::{is_cfg, BoolOp, NodeKind};
use rustc_hash::FxHashMap;
use std::cell::Cell;

/// How an evaluation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A `return` gave this value.
    Value(i64),
    /// Control ran off the end without a `return`.
    Fallthrough,
    /// More loop iterations than the budget allowed.
    Timeout,
}

/// Runs the program of `g` with `arg` bound to `arg`, allowing at most
/// `loops` trips around loop back edges.
pub fn evaluate(g: &Graph, arg: i64, loops: usize) -> Outcome {
    Evaluator {
        g,
        phis: FxHashMap::default(),
        memo: Cell::default(),
        arg,
    }
    .run(loops)
}

struct Evaluator<'g> {
    g: &'g Graph,
    /// The current value of every phi that control has passed.
    phis: FxHashMap<NodeId, i64>,
    /// The values worked out while answering one question, kept between
    /// questions so that the table is allocated once.
    memo: Cell<FxHashMap<NodeId, i64>>,
    arg: i64,
}

impl Evaluator<'_> {
    fn run(&mut self, mut loops: usize) -> Outcome {
        let g = self.g;
        let start = g.start();
        let mut control = projection(g, start, 0);
        let mut prev = start;
        while let Some(c) = control {
            let next = match g.kind(c) {
                NodeKind::Region { .. } | NodeKind::Loop => {
                    if matches!(g.kind(c), NodeKind::Loop) && g.input(c, 1) != Some(prev) {
                        if loops == 0 {
                            return Outcome::Timeout;
                        }
                        loops -= 1;
                    }
                    self.latch_phis(c, prev);
                    control_user(g, c)
                }
                NodeKind::If => {
                    let taken = if self.value(g.in_(c, 1)) != 0 { 0 } else { 1 };
                    projection(g, c, taken)
                }
                NodeKind::Return => return Outcome::Value(self.value(g.in_(c, 1))),
                NodeKind::Proj { .. } => control_user(g, c),
                _ => None,
            };
            prev = c;
            control = next;
        }
        Outcome::Fallthrough
    }

    /// Control enters `region` from `prev`: every phi takes its input on
    /// that path. All values are read before any phi is set.
    fn latch_phis(&mut self, region: NodeId, prev: NodeId) {
        let g = self.g;
        let Some(path) = g.inputs(region).iter().position(|&c| c == Some(prev)) else {
            return;
        };
        let phis: Vec<NodeId> = g
            .outputs(region)
            .iter()
            .copied()
            .filter(|&u| matches!(g.kind(u), NodeKind::Phi { .. }))
            .collect();
        let values: Vec<i64> = phis.iter().map(|&p| self.value(g.in_(p, path))).collect();
        for (phi, v) in phis.into_iter().zip(values) {
            self.phis.insert(phi, v);
        }
    }

    /// The value of a data node now.
    fn value(&self, n: NodeId) -> i64 {
        // One table for every question, emptied each time: making and
        // growing a new one per question was most of the evaluation time.
        let mut memo = self.memo.take();
        memo.clear();
        let v = self.value_memo(n, &mut memo);
        self.memo.set(memo);
        v
    }

    fn value_memo(&self, n: NodeId, memo: &mut FxHashMap<NodeId, i64>) -> i64 {
        if let Some(&v) = memo.get(&n) {
            return v;
        }
        let g = self.g;
        let v = stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            let mut input = |i: usize| self.value_memo(g.in_(n, i), memo);
            match g.kind(n) {
                NodeKind::Constant(t) => g.types.int_value(*t).unwrap_or(0),
                NodeKind::Proj { idx: 1, .. } => self.arg,
                NodeKind::Phi { .. } => self.phis.get(&n).copied().unwrap_or(0),
                NodeKind::Add => input(1).wrapping_add(input(2)),
                NodeKind::Sub => input(1).wrapping_sub(input(2)),
                NodeKind::Mul => input(1).wrapping_mul(input(2)),
                NodeKind::Div => {
                    let (a, b) = (input(1), input(2));
                    if b == 0 {
                        0
                    } else {
                        a.wrapping_div(b)
                    }
                }
                NodeKind::Minus => input(1).wrapping_neg(),
                NodeKind::Not => i64::from(input(1) == 0),
                NodeKind::Bool(op) => {
                    let (a, b) = (input(1), input(2));
                    i64::from(match op {
                        BoolOp::Eq => a == b,
                        BoolOp::Lt => a < b,
                        BoolOp::Le => a <= b,
                    })
                }
                // Not a value: cannot happen in a well-formed graph.
                _ => 0,
            }
        });
        memo.insert(n, v);
        v
    }
}

/// The projection `idx` of a multi node, if it has one.
fn projection(g: &Graph, multi: NodeId, idx: usize) -> Option<NodeId> {
    g.outputs(multi)
        .iter()
        .copied()
        .find(|&u| matches!(g.kind(u), NodeKind::Proj { idx: i, .. } if *i == idx))
}

/// The control node that control flows to from `n`.
fn control_user(g: &Graph, n: NodeId) -> Option<NodeId> {
    g.outputs(n).iter().copied().find(|&u| is_cfg(g, u))
}
