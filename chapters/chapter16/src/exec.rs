//! Running the scheduled program, as a machine would.
//!
//! After global code motion every node has a block (`gcm::block`). This
//! evaluator runs block after block, the way compiled code will: entering a
//! block, its phis take their values from the path control came along (all
//! at once); then the block's other nodes are computed in an order that
//! respects their inputs inside the block, each value kept in a table by
//! node (a register file); finally the block's last control node says
//! where to go. Memory is one mutable heap: a Store writes it when it runs,
//! a Load reads it when it runs.
//!
//! The graph evaluator (`eval.rs`) treats memory as values and needs no
//! schedule, so the two agree only if the schedule is right: every Load
//! placed before the Stores that would overwrite what it reads (the
//! anti-dependences), every value computed before its uses. The fuzzer and
//! the tests compare them.
//!
//! Chapter 15: an object's fields and an array's elements are set by its
//! New (chapter 16: to the initial values it takes; an array's elements
//! to their zero), whose pointer projection is the object (its memory
//! projections are the one heap); an array takes its length from the
//! New's size in bytes. A Load or Store with a byte offset reaches an element
//! through the array's layout, and an index outside the array, or a
//! negative length, is a fault with the graph evaluator's words.

use crate::eval::{
    array_count, array_length, element_index, projection, pure_value, Eval, Memory, Outcome,
    Showing, Shown, Val, Value,
};
use crate::gcm::{block, is_block_head};
use crate::graph::{Graph, NodeId};
use crate::node::{element_offset, is_cfg, new_proj, NodeKind};
use crate::types::TypeId;
use rustc_hash::{FxHashMap, FxHashSet};

/// An object on the heap: its struct type and its fields, by index.
struct Object {
    ty: TypeId,
    fields: Vec<Option<Val>>,
    /// The elements of an array (none for a struct).
    elems: Vec<Val>,
}

/// Runs the scheduled program of `g` with `arg` bound to `arg`, allowing
/// at most `loops` trips around loop back edges.
pub fn execute(g: &Graph, first_alias: &FxHashMap<TypeId, u32>, arg: i64, loops: usize) -> Outcome {
    let mut m = Machine {
        g,
        first_alias,
        arg,
        regs: vec![None; g.len() + 1],
        heap: Vec::new(),
        bodies: FxHashMap::default(),
    };
    match m.run(loops) {
        Ok(outcome) => outcome,
        Err(fault) => Outcome::Fault(fault),
    }
}

struct Machine<'g> {
    g: &'g Graph,
    first_alias: &'g FxHashMap<TypeId, u32>,
    arg: i64,
    /// The last value computed by each node.
    regs: Vec<Option<Val>>,
    heap: Vec<Object>,
    /// Each block's nodes in execution order, worked out on first entry.
    bodies: FxHashMap<NodeId, Vec<NodeId>>,
}

impl Machine<'_> {
    fn run(&mut self, mut loops: usize) -> Eval<Outcome> {
        let g = self.g;
        let mut blk = g.start();
        let mut from: Option<NodeId> = None;
        loop {
            if g.kind(blk).is_region() {
                if matches!(g.kind(blk), NodeKind::Loop) && g.input(blk, 1) != from {
                    if loops == 0 {
                        return Ok(Outcome::Timeout);
                    }
                    loops -= 1;
                }
                self.latch_phis(blk, from)?;
            }
            let body = self.body(blk);
            for &n in &body {
                let v = self.compute(n)?;
                self.regs[n.nid() as usize] = Some(v);
            }
            // Follow control to the end of the block.
            let mut c = blk;
            let next = loop {
                let Some(succ) = control_user(g, c) else {
                    return Ok(Outcome::Fallthrough);
                };
                if is_block_head(g, succ) {
                    break succ;
                }
                match g.kind(succ) {
                    NodeKind::If | NodeKind::Never => {
                        let taken = if self.reg(g.in_(succ, 1))?.truthy() {
                            0
                        } else {
                            1
                        };
                        match projection(g, succ, taken) {
                            Some(p) => break p,
                            None => return Ok(Outcome::Fallthrough),
                        }
                    }
                    NodeKind::Return => {
                        let v = self.reg(g.in_(succ, 1))?;
                        let shown = self.snapshot(&v, &mut Shown::default());
                        return Ok(Outcome::Value(shown));
                    }
                    _ => c = succ,
                }
            };
            // Control arrives at `next` from the last control node passed.
            from = Some(if matches!(g.kind(next), NodeKind::CProj { .. }) {
                next
            } else {
                c_last(g, blk, next)
            });
            blk = next;
        }
    }

    /// Entering `region` along the path from `from`: every phi takes its
    /// input on that path, all read before any is set.
    fn latch_phis(&mut self, region: NodeId, from: Option<NodeId>) -> Eval<()> {
        let g = self.g;
        let Some(path) = g
            .inputs(region)
            .iter()
            .position(|&c| c.is_some() && c == from)
        else {
            return Ok(());
        };
        let phis: Vec<NodeId> = g
            .outputs(region)
            .iter()
            .copied()
            .filter(|&u| matches!(g.kind(u), NodeKind::Phi { .. }))
            .collect();
        let mut values = Vec::with_capacity(phis.len());
        for &p in &phis {
            values.push(self.reg(g.in_(p, path))?);
        }
        for (p, v) in phis.into_iter().zip(values) {
            self.regs[p.nid() as usize] = Some(v);
        }
        Ok(())
    }

    /// The data nodes of block `blk` other than phis, each after its inputs
    /// in the same block (an anti-dependence is such an input too).
    fn body(&mut self, blk: NodeId) -> Vec<NodeId> {
        if let Some(b) = self.bodies.get(&blk) {
            return b.clone();
        }
        let g = self.g;
        let mut members: Vec<NodeId> = Vec::new();
        let mut work: Vec<NodeId> = g.outputs(blk).to_vec();
        // Pinned nodes hang off a control node that need not be the head
        // (a New after an If in the same block); look one level down too.
        // The sets are the block's size, not the graph's: there is a body
        // per block.
        let mut seen: FxHashSet<NodeId> = FxHashSet::default();
        while let Some(n) = work.pop() {
            if !seen.insert(n) {
                continue;
            }
            if is_cfg(g, n) {
                if !is_block_head(g, n) && block_head_of(g, n) == Some(blk) {
                    work.extend(g.outputs(n).iter().copied());
                }
                continue;
            }
            if matches!(g.kind(n), NodeKind::Phi { .. }) || block_head_of(g, n) != Some(blk) {
                continue;
            }
            // A New's projections come with it.
            if matches!(g.kind(n), NodeKind::New { .. }) {
                work.extend(g.outputs(n).iter().copied());
            }
            members.push(n);
        }
        members.sort();
        // Order by dependences inside the block, depth first.
        let inside: FxHashSet<NodeId> = members.iter().copied().collect();
        let mut done: FxHashSet<NodeId> = FxHashSet::default();
        let mut order = Vec::with_capacity(members.len());
        for &n in &members {
            let mut stack = vec![(n, 0usize)];
            while let Some((x, i)) = stack.pop() {
                if i == 0 && done.contains(&x) {
                    continue;
                }
                if let Some(def) = (i..g.n_ins(x)).find_map(|j| {
                    g.input(x, j)
                        .filter(|d| {
                            (j > 0 || new_proj(g, x)) && inside.contains(d) && !done.contains(d)
                        })
                        .map(|d| (j, d))
                }) {
                    stack.push((x, def.0 + 1));
                    stack.push((def.1, 0));
                    continue;
                }
                if done.insert(x) {
                    order.push(x);
                }
            }
        }
        self.bodies.insert(blk, order.clone());
        order
    }

    fn reg(&self, n: NodeId) -> Eval<Val> {
        let g = self.g;
        match g.kind(n) {
            // Values that belong to no block: Start's projections.
            NodeKind::Proj { .. } if new_proj(g, n) => self.regs[n.nid() as usize]
                .clone()
                .ok_or_else(|| "new used before it was computed".to_owned()),
            NodeKind::Proj { idx: 2, .. } => Ok(Val::Int(self.arg)),
            NodeKind::Proj { .. } => Ok(Val::Mem(Memory::default())),
            _ => self.regs[n.nid() as usize]
                .clone()
                .ok_or_else(|| format!("{} used before it was computed", crate::node::label(g, n))),
        }
    }

    /// Computes `n`, whose inputs have their values.
    fn compute(&mut self, n: NodeId) -> Eval<Val> {
        let g = self.g;
        let input = |i: usize| self.reg(g.in_(n, i));
        if let Some(v) = pure_value(g, n, input) {
            return v;
        }
        Ok(match g.kind(n) {
            // A New's pointer; its slices are the one heap.
            NodeKind::Proj { idx: 1, .. } if new_proj(g, n) => self.reg(g.in_(n, 0))?,
            NodeKind::Proj { .. } if new_proj(g, n) => Val::Mem(Memory::default()),
            NodeKind::Proj { .. } => self.reg(n)?,
            NodeKind::New { ptr, .. } => {
                let ty = g.types.pointee(*ptr).expect("new makes a pointer");
                let count = g.types.field_count(ty);
                let mut elems = Vec::new();
                if g.types.is_array(ty) {
                    let len = array_length(Val::Int(array_count(g, ty, input(1)?.number())))?;
                    elems = vec![input(2 + count + 1)?; len as usize];
                }
                // Every field starts out at its initial value, the New's
                // input (an array's body field is its elements).
                let fields = (0..count)
                    .map(|i| input(2 + count + i).map(Some))
                    .collect::<Eval<_>>()?;
                self.heap.push(Object { ty, fields, elems });
                Val::Ptr(self.heap.len() - 1)
            }
            NodeKind::Store { name, alias, .. } => {
                let (o, field) = self.field(input(2)?, *alias, name)?;
                let value = input(3)?;
                match element_offset(g, n) {
                    Some(_) => {
                        let i = self.element(n, o, input(4)?)?;
                        self.heap[o].elems[i] = value;
                    }
                    None => self.heap[o].fields[field] = Some(value),
                }
                Val::Mem(Memory::default())
            }
            // One heap holds all of memory; a merge of its slices is no work.
            NodeKind::MemMerge => Val::Mem(Memory::default()),
            NodeKind::Load { name, alias, .. } => {
                let (o, field) = self.field(input(2)?, *alias, name)?;
                if element_offset(g, n).is_some() {
                    let i = self.element(n, o, input(3)?)?;
                    return Ok(self.heap[o].elems[i].clone());
                }
                self.heap[o].fields[field]
                    .clone()
                    .ok_or_else(|| format!("field '{name}' read before it was set"))?
            }
            // Not a value: cannot happen in a well-formed schedule.
            _ => Val::Int(0),
        })
    }

    /// The object and field index that a pointer and an alias class name.
    fn field(&self, ptr: Val, alias: u32, name: &str) -> Eval<(usize, usize)> {
        let Val::Ptr(o) = ptr else {
            return Err(format!("null pointer accessing '{name}'"));
        };
        let first = self.first_alias.get(&self.heap[o].ty).copied().unwrap_or(0);
        let field = alias.wrapping_sub(first) as usize;
        if field >= self.heap[o].fields.len() {
            return Err(format!("field '{name}' is not in this object"));
        }
        Ok((o, field))
    }

    /// The element of array `o` that Load or Store `n` at byte offset
    /// `off` names.
    fn element(&self, n: NodeId, o: usize, off: Val) -> Eval<usize> {
        let obj = &self.heap[o];
        let i = element_index(self.g, n, obj.ty, obj.elems.len() as i64, off.number())?;
        Ok(i as usize)
    }

    /// What the program returns, with objects shown by their fields now,
    /// and the objects those refer to in turn. A deep structure (a long
    /// list returned) nests a level per object shown: the stack grows
    /// rather than overflows.
    fn snapshot(&self, v: &Val, shown: &mut Shown) -> Value {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.snapshot_here(v, shown))
    }

    fn snapshot_here(&self, v: &Val, shown: &mut Shown) -> Value {
        match v {
            Val::Ptr(o) => {
                let obj = &self.heap[*o];
                let name = self.g.types.struct_name(obj.ty).unwrap_or("?").to_owned();
                match shown.enter(*o) {
                    Showing::Again(r) => return r,
                    Showing::Omit => return Value::Omitted { name },
                    Showing::Here => {}
                }
                if self.g.types.is_array(obj.ty) {
                    let elems = obj.elems.iter().map(|e| self.snapshot(e, shown)).collect();
                    return Value::Array { name, elems };
                }
                let fields = (0..obj.fields.len())
                    .map(|i| {
                        let value = match &obj.fields[i] {
                            Some(f) => self.snapshot(f, shown),
                            None => Value::Null,
                        };
                        (self.g.types.field_name(obj.ty, i), value)
                    })
                    .collect();
                Value::Obj { name, fields }
            }
            Val::Null => Value::Null,
            Val::Float(v) => Value::Float(*v),
            other => Value::Int(other.number()),
        }
    }
}

/// The block head a node belongs to: its block, or for a pinned node
/// hanging off a control node inside a block, that node's block.
fn block_head_of(g: &Graph, n: NodeId) -> Option<NodeId> {
    let mut b = block(g, n)?;
    while !is_block_head(g, b) {
        b = g.input(b, 0)?;
    }
    Some(b)
}

/// The control node that ends block `blk` and leads into `next` (for a
/// region, the input it arrives by).
fn c_last(g: &Graph, blk: NodeId, next: NodeId) -> NodeId {
    let mut c = blk;
    while let Some(succ) = control_user(g, c) {
        if succ == next {
            return c;
        }
        c = succ;
    }
    blk
}

/// The control node that control flows to from `n` (not the dead control).
fn control_user(g: &Graph, n: NodeId) -> Option<NodeId> {
    g.outputs(n)
        .iter()
        .copied()
        .find(|&u| is_cfg(g, u) && !matches!(g.kind(u), NodeKind::XCtrl))
}
