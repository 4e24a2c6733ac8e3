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
//! New (chapter 19: to their zero; the initial values are stores), whose
//! pointer projection is the object (its memory projections are the one
//! heap); an array takes its length from the New's size in bytes. A
//! narrow store keeps the low bits of its value (chapter 19). A Load or Store with a byte offset reaches an element
//! through the array's layout, and an index outside the array, or a
//! negative length, is a fault with the graph evaluator's words.

use crate::eval::{
    array_count, array_length, element_index, projection, pure_value, wrap, zero, Eval, Memory,
    Outcome, Showing, Shown, Val, Value,
};
use crate::gcm::is_block_head;
use crate::graph::{Graph, NodeId};
use crate::node::{element_offset, is_cfg, new_proj, NodeKind};
use crate::types::TypeId;
use rustc_hash::FxHashMap;

/// An object on the heap: its struct type and its fields, by index.
struct Object {
    ty: TypeId,
    fields: Vec<Option<Val>>,
    /// The elements of an array (none for a struct).
    elems: Vec<Val>,
}

/// Runs the scheduled program of `g` with `arg` bound to `arg`, allowing
/// at most `loops` trips around loop back edges.
pub fn execute(
    g: &Graph,
    first_alias: &FxHashMap<TypeId, u32>,
    local: Option<&FxHashMap<NodeId, Vec<NodeId>>>,
    arg: i64,
    loops: usize,
) -> Outcome {
    let mut m = Machine {
        g,
        first_alias,
        arg,
        regs: vec![None; g.len() + 1],
        heap: Vec::new(),
        bodies: local.cloned().unwrap_or_default(),
        frames: Vec::new(),
        returned: None,
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
    /// Chapter 18: the calls in progress, innermost last: each call and
    /// the registers its callee overwrote (node, old value), restored when
    /// the callee returns. A callee reads the values of blocks outside it
    /// (constants GCM placed at Start) from the registers as they are.
    frames: Vec<Frame>,
    /// The value the last Return handed back, for its CallEnd.
    returned: Option<Val>,
}

/// A call in progress (chapter 18).
struct Frame {
    call: NodeId,
    saved: Vec<(NodeId, Option<Val>)>,
}

/// The deepest recursion the evaluator runs before it reports a fault.
pub const MAX_CALL_DEPTH: usize = 10_000;

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
                self.set_reg(n, v);
            }
            // Chapter 18: Start enters `main`.
            if matches!(g.kind(blk), NodeKind::Start { .. }) {
                let Some(&main) = g.functions.get(&(crate::types::Types::MAIN_SIG, 0)) else {
                    return Ok(Outcome::Fallthrough);
                };
                self.enter(main, None)?;
                from = None;
                blk = main;
                continue;
            }
            // Follow control to the end of the block.
            let mut c = blk;
            let next = loop {
                // Chapter 18: a call enters its callee; a Return goes back
                // to the caller's CallEnd.
                if matches!(g.kind(c), NodeKind::Call { .. }) {
                    if loops == 0 {
                        return Ok(Outcome::Timeout);
                    }
                    loops -= 1;
                    let fun = self.callee(c)?;
                    self.enter(fun, Some(c))?;
                    break fun;
                }
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
                        let v = self.reg(g.in_(succ, 2))?;
                        let Some(frame) = self.frames.pop() else {
                            let shown = self.snapshot(&v, &mut Shown::default());
                            return Ok(Outcome::Value(shown));
                        };
                        for (n, old) in frame.saved.into_iter().rev() {
                            self.regs[n.nid() as usize] = old;
                        }
                        self.returned = Some(v);
                        match crate::node::call::cend(g, frame.call) {
                            Some(cend) => break cend,
                            None => return Ok(Outcome::Fallthrough),
                        }
                    }
                    _ => c = succ,
                }
            };
            // Control arrives at `next` from the last control node passed.
            if matches!(
                g.kind(next),
                NodeKind::Fun { .. } | NodeKind::CallEnd { .. }
            ) {
                from = None;
                blk = next;
                continue;
            }
            from = Some(if matches!(g.kind(next), NodeKind::CProj { .. }) {
                next
            } else {
                c_last(g, blk, next)
            });
            blk = next;
        }
    }

    /// Sets a register, remembering the old value if a call is running.
    fn set_reg(&mut self, n: NodeId, v: Val) {
        let old = self.regs[n.nid() as usize].replace(v);
        if let Some(frame) = self.frames.last_mut() {
            frame.saved.push((n, old));
        }
    }

    /// The Fun of the function call `c` calls (its pointer's value).
    fn callee(&self, c: NodeId) -> Eval<NodeId> {
        let g = self.g;
        match self.reg(crate::node::call::fptr(g, c))? {
            Val::Fun(t) => g
                .types
                .single_fidx(t)
                .and_then(|key| g.functions.get(&key).copied())
                .ok_or_else(|| "call of an unknown function".to_owned()),
            _ => Err("Calling a null function pointer".to_owned()),
        }
    }

    /// Enters function `fun`, from `call` (none for `main`): its
    /// parameters take the call's arguments (`main`'s `arg` the program's).
    fn enter(&mut self, fun: NodeId, call: Option<NodeId>) -> Eval<()> {
        let g = self.g;
        let parms = crate::node::fun::parms(g, fun);
        let mut values = Vec::with_capacity(parms.len());
        for &p in &parms {
            let idx = crate::node::parm::index(g, p).unwrap_or(0) as usize;
            let v = match (call, idx) {
                (_, 0) => Val::Int(0),
                (_, 1) => Val::Mem(Memory::default()),
                (None, _) => Val::Int(self.arg),
                (Some(c), i) => self.reg(g.in_(c, i))?,
            };
            values.push(v);
        }
        if let Some(c) = call {
            if self.frames.len() >= MAX_CALL_DEPTH {
                return Err(format!("Recursion deeper than {MAX_CALL_DEPTH} calls"));
            }
            self.frames.push(Frame {
                call: c,
                saved: Vec::new(),
            });
        }
        for (p, v) in parms.into_iter().zip(values) {
            self.set_reg(p, v);
        }
        Ok(())
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
            self.set_reg(p, v);
        }
        Ok(())
    }

    /// The data nodes of block `blk` other than phis, in the order the
    /// local schedule gave them (made now if it has not run).
    fn body(&mut self, blk: NodeId) -> Vec<NodeId> {
        if let Some(b) = self.bodies.get(&blk) {
            return b.clone();
        }
        let order = crate::list_sched::block_order(self.g, blk);
        self.bodies.insert(blk, order.clone());
        order
    }

    fn reg(&self, n: NodeId) -> Eval<Val> {
        let g = self.g;
        match g.kind(n) {
            // Values that belong to no block: Start's projection, and
            // those set when their New ran or their call returned.
            NodeKind::Proj { .. } if new_proj(g, n) => self.regs[n.nid() as usize]
                .clone()
                .ok_or_else(|| "new used before it was computed".to_owned()),
            NodeKind::Proj { .. } if is_call_end_proj(g, n) => self.regs[n.nid() as usize]
                .clone()
                .ok_or_else(|| "a call's result used before the call".to_owned()),
            // Start's whole memory (chapter 18: `arg` is main's Parm).
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
            // Chapter 18: what the callee returned, and memory.
            NodeKind::Proj { idx: 2, .. } if is_call_end_proj(g, n) => self
                .returned
                .clone()
                .ok_or_else(|| "a call's result without a return".to_owned())?,
            NodeKind::Proj { .. } if is_call_end_proj(g, n) => Val::Mem(Memory::default()),
            NodeKind::Proj { .. } => self.reg(n)?,
            NodeKind::New { ptr, .. } => {
                let ty = g.types.pointee(*ptr).expect("new makes a pointer");
                let count = g.types.field_count(ty);
                let mut elems = Vec::new();
                if g.types.is_array(ty) {
                    let len = array_length(Val::Int(array_count(g, ty, input(1)?.number())))?;
                    elems = vec![zero(g, g.types.field_type(ty, 1)); len as usize];
                }
                // Every field starts out zero (an array's body field is its
                // elements).
                let fields = (0..count)
                    .map(|i| Some(zero(g, g.types.field_type(ty, i))))
                    .collect();
                self.heap.push(Object { ty, fields, elems });
                Val::Ptr(self.heap.len() - 1)
            }
            NodeKind::Store {
                name,
                alias,
                declared,
                ..
            } => {
                let (o, field) = self.field(input(2)?, *alias, name)?;
                let value = wrap(g, *declared, input(3)?);
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
                    let name = self.g.types.to_string(self.g.types.field_type(obj.ty, 1));
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
            Val::Fun(t) => Value::Fun(self.g.types.to_string(*t)),
            other => Value::Int(other.number()),
        }
    }
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

/// A projection of a CallEnd (chapter 18).
fn is_call_end_proj(g: &Graph, n: NodeId) -> bool {
    g.input(n, 0)
        .is_some_and(|c| matches!(g.kind(c), NodeKind::CallEnd { .. }))
}
