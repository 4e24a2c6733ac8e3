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
//!
//! Memory is a value like any other, which is what SSA memory edges mean.
//! The state of one alias class (one field of one struct) maps each object
//! to the value last written to it (the whole memory `$mem`, which a class
//! reads until a store splits it off, has none written); a Store's value is
//! its input state with its object's value set, and a Load looks its object
//! up in its input state. A memory phi simply holds a state. Many states
//! are alive at once (a phi's, and those the Stores after it make), so a
//! state is a persistent map ([`crate::pmap`]): a Store copies the few
//! nodes on its object's path and shares the rest with its input state,
//! which keeps its values, and a read takes those few steps however many
//! writes came before (searching a list of writes newest first, a read
//! cost a step per later write). The one effect that is not a pure
//! function of inputs is allocation: a New makes a fresh object each time
//! control passes the node it is anchored to.

use crate::graph::{Graph, NodeId};
use crate::node::{is_cfg, mem_merge_slice, BoolOp, NodeKind};
use crate::pmap::PMap;
use crate::types::{Type, TypeId};
use rustc_hash::FxHashMap;
use std::cell::{Cell, RefCell};
use std::fmt;

/// How an evaluation ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A `return` gave this value.
    Value(Value),
    /// Control ran off the end without a `return`.
    Fallthrough,
    /// More loop iterations than the budget allowed.
    Timeout,
    /// The program did something with no meaning, such as reading a field
    /// of null (possible only when the null check was not run).
    Fault(String),
}

/// A value returned by a program. An object is shown with the contents of
/// its fields when the program returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Null,
    Obj {
        name: String,
        fields: Vec<(String, Value)>,
    },
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Null => f.write_str("null"),
            Value::Obj { name, fields } => {
                write!(f, "Obj<{name}> {{")?;
                for (field, value) in fields {
                    write!(f, "\n  {field}={value}")?;
                }
                f.write_str("\n}")
            }
        }
    }
}

/// Runs the program of `g` with `arg` bound to `arg`, allowing at most
/// `loops` trips around loop back edges. `first_alias` gives, for each
/// struct type, the alias class of its first field (the others follow).
pub fn evaluate(
    g: &Graph,
    stop: NodeId,
    first_alias: &FxHashMap<TypeId, u32>,
    arg: i64,
    loops: usize,
) -> Outcome {
    let mut e = Evaluator {
        g,
        returns: reaching_returns(g, stop),
        first_alias,
        phis: FxHashMap::default(),
        memo: Cell::default(),
        news: RefCell::default(),
        objects: RefCell::default(),
        arg,
    };
    match e.run(loops) {
        Ok(outcome) => outcome,
        Err(fault) => Outcome::Fault(fault),
    }
}

/// A value inside the evaluator.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    Int(i64),
    Null,
    /// An object, by its index in `objects`.
    Ptr(usize),
    /// The state of one memory slice.
    Mem(Memory),
}

/// The state of one memory slice: the value last written to each object,
/// by the object's number, in a persistent map (see [`crate::pmap`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Memory(PMap<Val>);

impl Memory {
    /// The newest value written to `object`.
    fn read(&self, object: usize) -> Option<&Val> {
        self.0.get(object as u64)
    }

    /// This state with `value` written to `object`.
    fn write(mut self, object: usize, value: Val) -> Memory {
        self.0.insert(object as u64, value);
        self
    }
}

impl Val {
    /// The value as a number: null is 0, an object is never 0.
    pub(crate) fn number(&self) -> i64 {
        match self {
            Val::Int(v) => *v,
            Val::Null | Val::Mem(_) => 0,
            Val::Ptr(o) => *o as i64 + 1,
        }
    }

    pub(crate) fn same(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Ptr(a), Val::Ptr(b)) => a == b,
            (Val::Ptr(_), _) | (_, Val::Ptr(_)) => false,
            _ => self.number() == other.number(),
        }
    }
}

pub(crate) type Eval<T> = Result<T, String>;

/// The value of a node that computes from its inputs alone: a constant,
/// arithmetic, a comparison or a cast. `None` for any other node. Both
/// evaluators use it; they differ in where inputs come from.
pub(crate) fn pure_value(
    g: &Graph,
    n: NodeId,
    mut input: impl FnMut(usize) -> Eval<Val>,
) -> Option<Eval<Val>> {
    let int = |v: i64| Some(Ok(Val::Int(v)));
    let mut both = |f: fn(i64, i64) -> i64| -> Option<Eval<Val>> {
        let a = match input(1) {
            Ok(a) => a.number(),
            Err(e) => return Some(Err(e)),
        };
        match input(2) {
            Ok(b) => Some(Ok(Val::Int(f(a, b.number())))),
            Err(e) => Some(Err(e)),
        }
    };
    match g.kind(n) {
        NodeKind::Constant(t) => Some(Ok(match g.types.get(*t) {
            Type::Int(_) => Val::Int(g.types.int_value(*t).unwrap_or(0)),
            _ => Val::Null,
        })),
        NodeKind::Add => both(i64::wrapping_add),
        NodeKind::Sub => both(i64::wrapping_sub),
        NodeKind::Mul => both(i64::wrapping_mul),
        // Division by zero gives 0, as in Simple.
        NodeKind::Div => both(|a, b| if b == 0 { 0 } else { a.wrapping_div(b) }),
        NodeKind::Minus => Some(input(1).map(|a| Val::Int(a.number().wrapping_neg()))),
        NodeKind::Not => Some(input(1).map(|a| Val::Int(i64::from(a.number() == 0)))),
        NodeKind::Bool(op) => {
            let op = *op;
            let (a, b) = match (input(1), input(2)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
            };
            int(i64::from(match op {
                BoolOp::Eq => a.same(&b),
                BoolOp::Lt => a.number() < b.number(),
                BoolOp::Le => a.number() <= b.number(),
            }))
        }
        NodeKind::Cast { .. } => Some(input(1)),
        _ => None,
    }
}

struct Evaluator<'g> {
    g: &'g Graph,
    first_alias: &'g FxHashMap<TypeId, u32>,
    /// The current value of every phi that control has passed.
    phis: FxHashMap<NodeId, Val>,
    /// The values worked out while answering one question, kept between
    /// questions so that the table is allocated once.
    memo: Cell<FxHashMap<NodeId, Val>>,
    /// The object each New made when control last passed it.
    news: RefCell<FxHashMap<NodeId, usize>>,
    /// The struct type of every object made so far.
    objects: RefCell<Vec<TypeId>>,
    arg: i64,
    /// The control nodes from which a Return can be reached.
    returns: Vec<bool>,
}

impl Evaluator<'_> {
    fn run(&mut self, mut loops: usize) -> Eval<Outcome> {
        let g = self.g;
        let start = g.start();
        let mut control = projection(g, start, 0);
        let mut prev = start;
        while let Some(c) = control {
            let next = match g.kind(c) {
                NodeKind::Region | NodeKind::Loop => {
                    if matches!(g.kind(c), NodeKind::Loop) && g.input(c, 1) != Some(prev) {
                        if loops == 0 {
                            return Ok(Outcome::Timeout);
                        }
                        loops -= 1;
                    }
                    self.latch_phis(c, prev)?;
                    self.allocate(c);
                    self.control_user(c)
                }
                NodeKind::If | NodeKind::Never => {
                    let taken = if self.value(g.in_(c, 1))?.number() != 0 {
                        0
                    } else {
                        1
                    };
                    projection(g, c, taken)
                }
                NodeKind::Return => {
                    let v = self.value(g.in_(c, 1))?;
                    return Ok(Outcome::Value(self.snapshot(c, &v, &mut Vec::new())?));
                }
                NodeKind::CProj { .. } => {
                    self.allocate(c);
                    self.control_user(c)
                }
                _ => None,
            };
            prev = c;
            control = next;
        }
        Ok(Outcome::Fallthrough)
    }

    /// Control passes `ctrl`: every New anchored there makes a new object.
    fn allocate(&mut self, ctrl: NodeId) {
        let g = self.g;
        let mut anchored = vec![ctrl];
        // A bypassed empty `if` (see `control_user`) still anchors what was
        // made after it: passing its If's control passes it too.
        for &u in g.outputs(ctrl) {
            if matches!(g.kind(u), NodeKind::If) {
                anchored.extend(bypassed_merge(g, u));
            }
        }
        for c in anchored {
            for &n in g.outputs(c) {
                if let NodeKind::New { ptr } = g.kind(n) {
                    let obj = g.types.pointee(*ptr).expect("new makes a pointer");
                    self.make(n, obj);
                }
            }
        }
    }

    /// A new object of struct type `obj`, made by New `n`.
    fn make(&self, n: NodeId, obj: TypeId) -> usize {
        let mut objects = self.objects.borrow_mut();
        self.news.borrow_mut().insert(n, objects.len());
        objects.push(obj);
        objects.len() - 1
    }

    /// Control enters `region` from `prev`: every phi takes its input on
    /// that path. All values are read before any phi is set.
    fn latch_phis(&mut self, region: NodeId, prev: NodeId) -> Eval<()> {
        let g = self.g;
        let Some(path) = g.inputs(region).iter().position(|&c| c == Some(prev)) else {
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
            values.push(self.value(g.in_(p, path))?);
        }
        for (phi, v) in phis.into_iter().zip(values) {
            self.phis.insert(phi, v);
        }
        Ok(())
    }

    /// The value of a data node now.
    fn value(&self, n: NodeId) -> Eval<Val> {
        // One table for every question, emptied each time: making and
        // growing a new one per question was most of the evaluation time.
        let mut memo = self.memo.take();
        memo.clear();
        let v = self.value_memo(n, &mut memo);
        self.memo.set(memo);
        v
    }

    fn value_memo(&self, n: NodeId, memo: &mut FxHashMap<NodeId, Val>) -> Eval<Val> {
        if let Some(v) = memo.get(&n) {
            return Ok(v.clone());
        }
        let g = self.g;
        let v = stacker::maybe_grow(64 * 1024, 1024 * 1024, || -> Eval<Val> {
            let mut input = |i: usize| self.value_memo(g.in_(n, i), memo);
            if let Some(v) = pure_value(g, n, &mut input) {
                return v;
            }
            Ok(match g.kind(n) {
                NodeKind::Proj { idx: 1, .. } => Val::Int(self.arg),
                // The initial state of a memory slice: nothing written.
                NodeKind::Proj { .. } => Val::Mem(Memory::default()),
                NodeKind::Phi { .. } => self.phis.get(&n).cloned().unwrap_or(Val::Int(0)),
                NodeKind::New { ptr } => {
                    let made = self.news.borrow().get(&n).copied();
                    match made {
                        Some(o) => Val::Ptr(o),
                        // Anchored to a merge that parsing bypassed (see
                        // `allocate`) that control never passed: it runs
                        // where its value is first wanted.
                        None => {
                            let obj = g.types.pointee(*ptr).expect("new makes a pointer");
                            Val::Ptr(self.make(n, obj))
                        }
                    }
                }
                NodeKind::Store { name, .. } => {
                    let mem = memory(input(1)?);
                    let object = object(input(2)?, name)?;
                    let value = input(3)?;
                    Val::Mem(mem.write(object, value))
                }
                NodeKind::Load { name, .. } => {
                    let mem = memory(input(1)?);
                    let object = object(input(2)?, name)?;
                    match mem.read(object) {
                        Some(v) => v.clone(),
                        None => return Err(format!("field '{name}' read before it was set")),
                    }
                }
                // Not a value: cannot happen in a well-formed graph.
                _ => Val::Int(0),
            })
        })?;
        memo.insert(n, v.clone());
        Ok(v)
    }

    /// The value returned by `ret`, with objects read out of the final
    /// memory state (the Return's memory inputs). `path` holds the objects
    /// being shown, so that a cycle of references ends.
    fn snapshot(&self, ret: NodeId, v: &Val, path: &mut Vec<usize>) -> Eval<Value> {
        let o = match v {
            Val::Ptr(o) => *o,
            Val::Null => return Ok(Value::Null),
            other => return Ok(Value::Int(other.number())),
        };
        let g = self.g;
        let ty = self.objects.borrow()[o];
        let name = g.types.struct_name(ty).unwrap_or("?").to_owned();
        if path.contains(&o) {
            let fields = Vec::new();
            return Ok(Value::Obj { name, fields });
        }
        path.push(o);
        let mut fields = Vec::new();
        let first = self.first_alias.get(&ty).copied().unwrap_or(0);
        for idx in 0..g.types.field_count(ty) {
            let alias = first + idx as u32;
            // The Return's memory: a merge of split-off slices, or the
            // whole memory when nothing was split.
            let slice = g.input(ret, 2).map(|m| match g.kind(m) {
                NodeKind::MemMerge => mem_merge_slice(g, m, alias),
                _ => m,
            });
            let value = match slice {
                Some(m) => match memory(self.value(m)?).read(o) {
                    Some(fv) => self.snapshot(ret, &fv.clone(), path)?,
                    None => Value::Null,
                },
                None => Value::Null,
            };
            fields.push((g.types.field_name(ty, idx), value));
        }
        path.pop();
        Ok(Value::Obj { name, fields })
    }
}

fn memory(v: Val) -> Memory {
    match v {
        Val::Mem(m) => m,
        _ => Memory::default(),
    }
}

/// The object a pointer value points to; reading through null is a fault.
fn object(v: Val, field: &str) -> Eval<usize> {
    match v {
        Val::Ptr(o) => Ok(o),
        _ => Err(format!("null pointer accessing '{field}'")),
    }
}

/// The projection `idx` of a multi node, if it has one.
pub(crate) fn projection(g: &Graph, multi: NodeId, idx: usize) -> Option<NodeId> {
    g.outputs(multi)
        .iter()
        .copied()
        .find(|&u| matches!(g.kind(u), NodeKind::CProj { idx: i, .. } if *i == idx))
}

impl Evaluator<'_> {
    /// The control node that control flows to from `n`. Before `iterate`
    /// a control node can have a second, stale control user: an `if` with
    /// empty arms was bypassed, but a Store made under its merge still
    /// holds the merge. The live user is the one that leads to a Return
    /// (or, in a loop that never returns, any).
    fn control_user(&self, n: NodeId) -> Option<NodeId> {
        let g = self.g;
        let mut users = g
            .outputs(n)
            .iter()
            .copied()
            .filter(|&u| is_cfg(g, u) && !matches!(g.kind(u), NodeKind::XCtrl));
        let first = users.next()?;
        let returns = |u: NodeId| self.returns.get(u.nid() as usize) == Some(&true);
        if returns(first) {
            return Some(first);
        }
        Some(users.find(|&u| returns(u)).unwrap_or(first))
    }
}

/// The merge of an `if` whose arms both go straight to it and which
/// control no longer passes (it has no control user), if `iff` is one.
fn bypassed_merge(g: &Graph, iff: NodeId) -> Option<NodeId> {
    let arms: Vec<NodeId> = g.outputs(iff).to_vec();
    let [a, b] = arms[..] else { return None };
    let merge = *g.outputs(a).first()?;
    let straight = g.kind(merge).is_region()
        && g.outputs(a).len() == 1
        && g.outputs(b) == [merge]
        && g.n_ins(merge) == 3;
    let bypassed = !g.outputs(merge).iter().any(|&u| is_cfg(g, u));
    (straight && bypassed).then_some(merge)
}

/// Marks the control nodes from which Stop can be reached, walking back
/// from Stop over control inputs.
fn reaching_returns(g: &Graph, stop: NodeId) -> Vec<bool> {
    let mut seen = vec![false; g.len() + 1];
    let mut work = vec![stop];
    while let Some(n) = work.pop() {
        if std::mem::replace(&mut seen[n.nid() as usize], true) {
            continue;
        }
        let first = match g.kind(n) {
            NodeKind::Stop => 0,
            k if k.is_region() => 1,
            _ => {
                work.extend(g.input(n, 0).filter(|&c| is_cfg(g, c)));
                continue;
            }
        };
        work.extend(
            g.inputs(n)[first.min(g.n_ins(n))..]
                .iter()
                .flatten()
                .copied(),
        );
    }
    seen
}
