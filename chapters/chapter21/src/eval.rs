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
//!
//! Chapter 12 adds float values: IEEE 754 doubles, computed with Rust's
//! `f64` operators, which round exactly as Java's `double` ones do. A
//! float returned is shown as Java shows a double (`3.0`, `1.0E10`), as
//! Simple's evaluator does.
//!
//! From chapter 13 a field may hold a reference, so a returned object is
//! shown with the objects it refers to, each inside its field, the way
//! Simple's evaluator prints them. References can form cycles (a list whose
//! last node points back to its head), and shared objects would make the
//! text grow exponentially; so an object is shown once, and met again it is
//! a [`Value::Ref`] to that first showing. Past [`SHOWN_OBJECTS`] objects
//! the rest are shown as `Obj<N>{...}`.
//!
//! Chapter 14 adds the bitwise operators and the shifts, on 64-bit values
//! as Java computes them (a shift count uses its low six bits), and the
//! rounding of a float to the nearest 32-bit float. Narrow types need
//! little more: the masks and shifts that cut values down are nodes,
//! except where a narrow store keeps only the low bits of its value
//! (chapter 19: the mask that would cut it is dropped), which the store
//! does here ([`wrap`]).
//!
//! Chapter 15 adds arrays, and makes New a multi-node. A New of an array
//! takes its length from its size in bytes when control passes it (a
//! negative length is a fault); its memory projections are the memory it
//! took in (chapter 19: every field zero, which a field no store wrote
//! reads as; chapter 16's New wrote the initial values it took, which are
//! stores from chapter 19). A write
//! to the body names its element, found from the byte offset the Load or
//! Store computes and the array's layout, and an index outside the array
//! is a fault, as Simple's evaluator throws. An element never written is
//! its type's zero. Values print in Simple's chapter 15 form, on one line:
//! `Obj<S>{a=0,p=null}`, an array `Obj<[int]>{#=3,[]=[5,0,0]}`, an
//! object shown twice numbered at its first showing and named after
//! (`Obj<C>@1{l=obj@1}`); a returned `[u8]` is the characters its bytes
//! are (chapter 16: one inside an object is an array like any other, as
//! Simple's chapter 16 prints it).

use crate::graph::{Graph, NodeId};
use crate::node::{
    element_offset, is_cfg, mem_merge_slice, new_proj, round_f32, shift, BoolOp, NodeKind,
};
use crate::pmap::PMap;
use crate::types::{Type, TypeId, Types};
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
///
/// Two floats are equal when they are the same double: `0.0` is not
/// `-0.0`, and NaN is NaN (so that two runs that both give NaN agree).
#[derive(Clone, Debug)]
pub enum Value {
    Int(i64),
    Float(f64),
    Null,
    Obj {
        name: String,
        fields: Vec<(String, Value)>,
    },
    /// An array of type `name` (`[int]`) and its elements.
    Array {
        name: String,
        elems: Vec<Value>,
    },
    /// An object shown already: the `n`-th object (from 0) shown in this
    /// value, counting in the order they are printed.
    Ref(usize),
    /// An object of struct `name` not shown: too many objects were shown.
    Omitted {
        name: String,
    },
    /// Chapter 18: a function value, shown as its type prints (chapter
    /// 19: `{ int -> int #1}`, no longer the function's name).
    Fun(String),
}

/// The most objects shown in one returned value; the rest are
/// [`Value::Omitted`]. (Shared references can make the text of a small
/// heap exponentially long, and a long list a deep one.)
pub const SHOWN_OBJECTS: usize = 1000;

/// What is left to show of one returned value: the objects shown so far,
/// in order, and how many more may be.
#[derive(Default)]
pub(crate) struct Shown {
    seen: FxHashMap<usize, usize>,
}

/// How to show object `o` of a returned value.
pub(crate) enum Showing {
    /// Shown before: this reference to it.
    Again(Value),
    /// Show it here, in full.
    Here,
    /// Too many objects: show its name only.
    Omit,
}

impl Shown {
    /// Starts showing object `o`.
    pub(crate) fn enter(&mut self, o: usize) -> Showing {
        if let Some(&k) = self.seen.get(&o) {
            return Showing::Again(Value::Ref(k));
        }
        if self.seen.len() >= SHOWN_OBJECTS {
            return Showing::Omit;
        }
        let k = self.seen.len();
        self.seen.insert(o, k);
        Showing::Here
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            (Value::Null, Value::Null) => true,
            (
                Value::Obj { name, fields },
                Value::Obj {
                    name: name2,
                    fields: fields2,
                },
            ) => name == name2 && fields == fields2,
            (Value::Omitted { name }, Value::Omitted { name: name2 }) => name == name2,
            (Value::Ref(a), Value::Ref(b)) => a == b,
            (Value::Fun(a), Value::Fun(b)) => a == b,
            (
                Value::Array { name, elems },
                Value::Array {
                    name: name2,
                    elems: elems2,
                },
            ) => name == name2 && elems == elems2,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl fmt::Display for Value {
    /// Simple's chapter 19 form (its `Eval2`), all on one line: `S{a=0,p=null}`,
    /// an array as its element type and elements, `int[ 1,2,3]`, an array
    /// of `u8` as its characters, a function as its type, `{ int -> int
    /// #1}`; an object met again is `$cyclic`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => f.write_str(&crate::double::format(*v)),
            Value::Null => f.write_str("null"),
            Value::Fun(t) => f.write_str(t),
            Value::Ref(_) => f.write_str("$cyclic"),
            Value::Omitted { name } => write!(f, "{name}{{...}}"),
            Value::Obj { name, fields } => {
                write!(f, "{name}{{")?;
                for (i, (field, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{field}={value}")?;
                }
                f.write_str("}")
            }
            Value::Array { name, elems } if name == "u8" => {
                for e in elems {
                    write!(f, "{}", byte(e) as char)?;
                }
                Ok(())
            }
            Value::Array { name, elems } if elems.is_empty() => write!(f, "{name}[]"),
            Value::Array { name, elems } => {
                write!(f, "{name}[ ")?;
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// The low byte of an element of a `[u8]`.
fn byte(e: &Value) -> u8 {
    match e {
        Value::Int(v) => *v as u8,
        _ => 0,
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
        frames: Vec::new(),
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
    Float(f64),
    Null,
    /// An object, by its index in `objects`.
    Ptr(usize),
    /// The state of one memory slice.
    Mem(Memory),
    /// Chapter 18: a function value, its constant pointer type.
    Fun(TypeId),
}

/// The state of memory: for each alias class, the value last written to
/// each object (to each element, in an array's body). Both levels are
/// persistent maps (see [`crate::pmap`]): classes by alias, then values by
/// object and element. Chapter 18: a state may be a merge, all of memory
/// with some classes' states of their own (a MemMerge, which a call takes
/// and gives back), so a state holds every class, each class taken from
/// where its writes came from.
#[derive(Clone, Debug, Default)]
pub(crate) struct Memory(PMap<PMap<Val>>);

/// The low bits of a memory key, which hold the element: every index is
/// below [`MAX_ARRAY_LENGTH`], so two keys never collide.
const SLOT_BITS: u32 = 20;
const _: () = assert!(MAX_ARRAY_LENGTH <= 1 << SLOT_BITS);

impl Memory {
    /// The key of `object`'s element `slot` (0 for a field).
    fn key(object: usize, slot: i64) -> u64 {
        debug_assert!((0..1 << SLOT_BITS).contains(&slot), "element {slot}");
        ((object as u64) << SLOT_BITS) | slot as u64
    }

    /// `older` with `value` written to field `alias` of `object` (to its
    /// element `slot`, in an array's body).
    fn write(object: usize, alias: u32, slot: i64, value: Val, mut older: Memory) -> Memory {
        let alias = u64::from(alias);
        let mut class = older.0.get(alias).cloned().unwrap_or_default();
        class.insert(Memory::key(object, slot), value);
        older.0.insert(alias, class);
        older
    }

    /// All of memory `all`, with the classes of `slices` (by alias) taken
    /// from their own states.
    fn merge(mut all: Memory, slices: Vec<(u32, Memory)>) -> Memory {
        for (alias, slice) in slices {
            let alias = u64::from(alias);
            let class = slice.0.get(alias).cloned().unwrap_or_default();
            all.0.insert(alias, class);
        }
        all
    }

    /// The newest value written to field `alias` of `object` (to its
    /// element `slot`, in an array's body).
    fn read(&self, object: usize, alias: u32, slot: i64) -> Option<&Val> {
        self.0.get(u64::from(alias))?.get(Memory::key(object, slot))
    }
}

impl Val {
    /// The value as a number: null is 0, an object is never 0. (A float is
    /// never asked: an operator with a float operand is a float operator.)
    pub(crate) fn number(&self) -> i64 {
        match self {
            Val::Int(v) => *v,
            Val::Float(v) => *v as i64,
            Val::Null | Val::Mem(_) => 0,
            Val::Ptr(o) => *o as i64 + 1,
            // A function is never null (0).
            Val::Fun(t) => i64::from(t.index()) + 1,
        }
    }

    /// The value as a float: an int converted (ToFloat), a float itself.
    pub(crate) fn float(&self) -> f64 {
        match self {
            Val::Float(v) => *v,
            other => other.number() as f64,
        }
    }

    /// The value as a condition: zero, null and a float zero (`0.0` or
    /// `-0.0`) are false; everything else, NaN included, is true.
    pub(crate) fn truthy(&self) -> bool {
        match self {
            Val::Float(v) => *v != 0.0,
            other => other.number() != 0,
        }
    }

    pub(crate) fn same(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Ptr(a), Val::Ptr(b)) => a == b,
            (Val::Fun(a), Val::Fun(b)) => a == b,
            (Val::Fun(_), _) | (_, Val::Fun(_)) => false,
            (Val::Float(_), _) | (_, Val::Float(_)) => self.float() == other.float(),
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
            Type::Flt(_) => Val::Float(g.types.flt_value(*t).unwrap_or(0.0)),
            // A pointer to no function is null.
            Type::FunPtr { fidxs, .. } if fidxs.is_empty() => Val::Null,
            Type::FunPtr { .. } => Val::Fun(*t),
            _ => Val::Null,
        })),
        NodeKind::Add => both(i64::wrapping_add),
        NodeKind::Sub => both(i64::wrapping_sub),
        NodeKind::Mul => both(i64::wrapping_mul),
        // Division by zero gives 0, as in Simple.
        NodeKind::Div => both(|a, b| if b == 0 { 0 } else { a.wrapping_div(b) }),
        NodeKind::Minus => Some(input(1).map(|a| Val::Int(a.number().wrapping_neg()))),
        NodeKind::And => both(|a, b| a & b),
        NodeKind::Or => both(|a, b| a | b),
        NodeKind::Xor => both(|a, b| a ^ b),
        NodeKind::Shl => both(shift::shl),
        NodeKind::Sar => both(shift::sar),
        NodeKind::Shr => both(shift::shr),
        NodeKind::RoundF32 => Some(input(1).map(|a| Val::Float(round_f32::round(a.float())))),
        NodeKind::Not => Some(input(1).map(|a| Val::Int(i64::from(!a.truthy())))),
        NodeKind::AddF => floats(&mut input, |a, b| a + b),
        NodeKind::SubF => floats(&mut input, |a, b| a - b),
        NodeKind::MulF => floats(&mut input, |a, b| a * b),
        // IEEE division: by zero gives an infinity or NaN, as the constant
        // folding in `div_f.rs` does. (Simple's evaluator gives 0.)
        NodeKind::DivF => floats(&mut input, |a, b| a / b),
        NodeKind::MinusF => Some(input(1).map(|a| Val::Float(-a.float()))),
        NodeKind::ToFloat => Some(input(1).map(|a| Val::Float(a.number() as f64))),
        NodeKind::BoolF(op) => {
            let op = *op;
            let (a, b) = match (input(1), input(2)) {
                (Ok(a), Ok(b)) => (a.float(), b.float()),
                (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
            };
            int(i64::from(match op {
                BoolOp::Eq => a == b,
                BoolOp::Lt => a < b,
                BoolOp::Le => a <= b,
            }))
        }
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
        NodeKind::Cast { .. } | NodeKind::ReadOnly => Some(input(1)),
        // A forward reference is its definition; without peepholes it
        // never folds into it.
        NodeKind::FRef { .. } => Some(input(1)),
        _ => None,
    }
}

/// A float operator applied to inputs 1 and 2.
fn floats(input: &mut impl FnMut(usize) -> Eval<Val>, f: fn(f64, f64) -> f64) -> Option<Eval<Val>> {
    let (a, b) = match (input(1), input(2)) {
        (Ok(a), Ok(b)) => (a.float(), b.float()),
        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
    };
    Some(Ok(Val::Float(f(a, b))))
}

/// A call in progress: the Call, and the caller's phis and objects,
/// given back when the callee returns (a recursive call passes the same
/// News again; the caller's own objects must not change under it).
struct Frame {
    call: NodeId,
    phis: FxHashMap<NodeId, Val>,
    news: FxHashMap<NodeId, usize>,
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
    /// The struct type of every object made so far, and its length if it
    /// is an array.
    objects: RefCell<Vec<(TypeId, i64)>>,
    arg: i64,
    /// The control nodes from which a Return can be reached.
    returns: Vec<bool>,
    /// Chapter 18: the calls in progress, innermost last, each with the
    /// caller's phis and objects, restored when the callee returns.
    frames: Vec<Frame>,
}

impl Evaluator<'_> {
    fn run(&mut self, mut loops: usize) -> Eval<Outcome> {
        let g = self.g;
        let start = g.start();
        // Chapter 18: the program is `main`, entered from Start.
        let mut control = g
            .functions
            .get(&(crate::types::Types::MAIN_SIG, 0))
            .copied();
        if let Some(main) = control {
            self.enter(main, None)?;
        }
        let mut prev = start;
        while let Some(c) = control {
            let next = match g.kind(c) {
                NodeKind::Fun { .. } => {
                    if loops == 0 {
                        return Ok(Outcome::Timeout);
                    }
                    loops -= 1;
                    self.allocate(c)?;
                    self.control_user(c)
                }
                NodeKind::Call { .. } => {
                    let fptr = self.value(crate::node::call::fptr(g, c))?;
                    let Val::Fun(t) = fptr else {
                        return Err("Calling a null function pointer".into());
                    };
                    let fun = g
                        .types
                        .single_fidx(t)
                        .and_then(|key| g.functions.get(&key).copied())
                        .ok_or_else(|| "call of an unknown function".to_owned())?;
                    self.enter(fun, Some(c))?;
                    Some(fun)
                }
                NodeKind::CallEnd { .. } => projection(g, c, 0),
                NodeKind::Return if !self.frames.is_empty() => {
                    let v = self.value(g.in_(c, 2))?;
                    let m = self.value(g.in_(c, 1))?;
                    // The objects the callee made stay: the caller reads
                    // them through the memory and pointers it returned.
                    // Which object each New stands for is the caller's
                    // again (a recursive call passed the same News).
                    let Frame { call, phis, news } = self.frames.pop().expect("a call in progress");
                    self.phis = phis;
                    *self.news.borrow_mut() = news;
                    let cend = crate::node::call::cend(g, call);
                    if let Some(cend) = cend {
                        for &u in g.outputs(cend) {
                            match g.kind(u) {
                                NodeKind::Proj { idx: 1, .. } => {
                                    self.phis.insert(u, m.clone());
                                }
                                NodeKind::Proj { idx: 2, .. } => {
                                    self.phis.insert(u, v.clone());
                                }
                                _ => {}
                            }
                        }
                    }
                    cend
                }
                NodeKind::Region | NodeKind::Loop => {
                    if matches!(g.kind(c), NodeKind::Loop) && g.input(c, 1) != Some(prev) {
                        if loops == 0 {
                            return Ok(Outcome::Timeout);
                        }
                        loops -= 1;
                    }
                    self.latch_phis(c, prev)?;
                    self.allocate(c)?;
                    self.control_user(c)
                }
                NodeKind::If | NodeKind::Never => {
                    let taken = if self.value(g.in_(c, 1))?.truthy() {
                        0
                    } else {
                        1
                    };
                    projection(g, c, taken)
                }
                NodeKind::Return => {
                    // Memory is computed on demand, so a store that nothing
                    // reads would never run: run every store of the final
                    // memory now, so that one out of bounds faults here too.
                    if let Some(mem) = g.input(c, 1) {
                        let slices = match g.kind(mem) {
                            NodeKind::MemMerge => g.inputs(mem)[1..].to_vec(),
                            _ => vec![Some(mem)],
                        };
                        for slice in slices.into_iter().flatten() {
                            self.value(slice)?;
                        }
                    }
                    let v = self.value(g.in_(c, 2))?;
                    let shown = &mut Shown::default();
                    return Ok(Outcome::Value(self.snapshot(c, &v, shown)?));
                }
                NodeKind::CProj { .. } => {
                    self.allocate(c)?;
                    self.control_user(c)
                }
                _ => None,
            };
            prev = c;
            control = next;
        }
        Ok(Outcome::Fallthrough)
    }

    /// Enters function `fun` from `call` (none for `main`): its Parms take
    /// the call's arguments, and the caller's state is saved.
    fn enter(&mut self, fun: NodeId, call: Option<NodeId>) -> Eval<()> {
        let g = self.g;
        let parms = crate::node::fun::parms(g, fun);
        let mut values = Vec::with_capacity(parms.len());
        for &p in &parms {
            let idx = crate::node::parm::index(g, p).unwrap_or(0) as usize;
            values.push(match (call, idx) {
                (_, 0) => Val::Int(0),
                (None, 1) => Val::Mem(Memory::default()),
                (None, _) => Val::Int(self.arg),
                (Some(c), i) => self.value(g.in_(c, i))?,
            });
        }
        if let Some(c) = call {
            if self.frames.len() >= crate::exec::MAX_CALL_DEPTH {
                return Err(format!(
                    "Recursion deeper than {} calls",
                    crate::exec::MAX_CALL_DEPTH
                ));
            }
            self.frames.push(Frame {
                call: c,
                phis: self.phis.clone(),
                news: self.news.borrow().clone(),
            });
        }
        for (p, v) in parms.into_iter().zip(values) {
            self.phis.insert(p, v);
        }
        Ok(())
    }

    /// Control passes `ctrl`: every New anchored there makes a new object.
    fn allocate(&mut self, ctrl: NodeId) -> Eval<()> {
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
                if let NodeKind::New { ptr, .. } = g.kind(n) {
                    let obj = g.types.pointee(*ptr).expect("new makes a pointer");
                    self.make(n, obj)?;
                }
            }
        }
        Ok(())
    }

    /// A new object of struct type `obj`, made by New `n`; an array takes
    /// its length from the New's size in bytes.
    fn make(&self, n: NodeId, obj: TypeId) -> Eval<usize> {
        let len = if self.g.types.is_array(obj) {
            let size = self.value(self.g.in_(n, 1))?.number();
            array_length(Val::Int(array_count(self.g, obj, size)))?
        } else {
            0
        };
        let mut objects = self.objects.borrow_mut();
        self.news.borrow_mut().insert(n, objects.len());
        objects.push((obj, len));
        Ok(objects.len() - 1)
    }

    /// The element of an array that a Load or Store `n` at byte offset
    /// `off` names, checked against the array's length.
    fn element(&self, n: NodeId, object: usize, off: Val) -> Eval<i64> {
        let (ty, len) = self.objects.borrow()[object];
        element_index(self.g, n, ty, len, off.number())
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
                // A New's pointer, and its slices: the slice it took in,
                // with the field's initial value written (a field never
                // written reads as its zero, so a zero is not written, nor
                // an array's body, all of it one element's zero).
                // Chapter 18: a call's memory and result, set when it
                // returned.
                NodeKind::Proj { .. }
                    if g.input(n, 0)
                        .is_some_and(|c| matches!(g.kind(c), NodeKind::CallEnd { .. })) =>
                {
                    self.phis.get(&n).cloned().unwrap_or(Val::Int(0))
                }
                NodeKind::Proj { idx: 1, .. } if new_proj(g, n) => input(0)?,
                &NodeKind::Proj { idx, .. } if new_proj(g, n) => {
                    // The new object's fields read as zero, unwritten.
                    let made = g.in_(n, 0);
                    self.value_memo(g.in_(made, idx), memo)?
                }
                // The initial state of memory (Start's): nothing written.
                NodeKind::Proj { .. } => Val::Mem(Memory::default()),
                NodeKind::Phi { .. } => self.phis.get(&n).cloned().unwrap_or(Val::Int(0)),
                NodeKind::New { ptr, .. } => {
                    let made = self.news.borrow().get(&n).copied();
                    match made {
                        Some(o) => Val::Ptr(o),
                        // Anchored to a merge that parsing bypassed (see
                        // `allocate`) that control never passed: it runs
                        // where its value is first wanted.
                        None => {
                            let obj = g.types.pointee(*ptr).expect("new makes a pointer");
                            Val::Ptr(self.make(n, obj)?)
                        }
                    }
                }
                NodeKind::Store {
                    name,
                    alias,
                    declared,
                    ..
                } => {
                    let alias = *alias;
                    let mem = memory(input(1)?);
                    let object = object(input(2)?, name)?;
                    let slot = match element_offset(g, n) {
                        Some(_) => self.element(n, object, input(4)?)?,
                        None => 0,
                    };
                    let value = wrap(g, *declared, input(3)?);
                    Val::Mem(Memory::write(object, alias, slot, value, mem))
                }
                // Chapter 18: all of memory with its split-off classes.
                NodeKind::MemMerge => {
                    let all = memory(input(1)?);
                    let mut slices = Vec::new();
                    for a in 2..g.n_ins(n) {
                        if let Some(x) = g.input(n, a) {
                            slices.push((a as u32, memory(self.value_memo(x, memo)?)));
                        }
                    }
                    Val::Mem(Memory::merge(all, slices))
                }
                NodeKind::Load {
                    name,
                    declared,
                    alias,
                    ..
                } => {
                    let alias = *alias;
                    let mem = memory(input(1)?);
                    let object = object(input(2)?, name)?;
                    let slot = match element_offset(g, n) {
                        Some(_) => Some(self.element(n, object, input(3)?)?),
                        None => None,
                    };
                    match mem.read(object, alias, slot.unwrap_or(0)) {
                        Some(v) => v.clone(),
                        // Never written, not even by its New: a zero.
                        None => zero(g, *declared),
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
    /// memory state (the Return's memory inputs), and the objects their
    /// fields refer to in turn. A deep structure (a long list returned)
    /// nests a level per object shown: the stack grows rather than
    /// overflows.
    fn snapshot(&self, ret: NodeId, v: &Val, shown: &mut Shown) -> Eval<Value> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.snapshot_here(ret, v, shown))
    }

    fn snapshot_here(&self, ret: NodeId, v: &Val, shown: &mut Shown) -> Eval<Value> {
        let o = match v {
            Val::Ptr(o) => *o,
            Val::Null => return Ok(Value::Null),
            Val::Float(v) => return Ok(Value::Float(*v)),
            Val::Fun(t) => return Ok(Value::Fun(self.g.types.to_string(*t))),
            other => return Ok(Value::Int(other.number())),
        };
        let g = self.g;
        let (ty, len) = self.objects.borrow()[o];
        let name = g.types.struct_name(ty).unwrap_or("?").to_owned();
        match shown.enter(o) {
            Showing::Again(r) => return Ok(r),
            Showing::Omit => return Ok(Value::Omitted { name }),
            Showing::Here => {}
        }
        let mut fields = Vec::new();
        let first = self.first_alias.get(&ty).copied().unwrap_or(0);
        // The Return's memory of one alias class: a merge of split-off
        // slices, or the whole memory when nothing was split.
        let slice = |alias: u32| {
            g.input(ret, 1).map(|m| match g.kind(m) {
                NodeKind::MemMerge => mem_merge_slice(g, m, alias),
                _ => m,
            })
        };
        if g.types.is_array(ty) {
            let body = match slice(first + 1) {
                Some(m) => memory(self.value(m)?),
                None => Memory::default(),
            };
            let elem = g.types.field_type(ty, 1);
            let mut elems = Vec::new();
            for i in 0..len {
                let v = match body.read(o, first + 1, i) {
                    Some(v) => v.clone(),
                    None => zero(g, elem),
                };
                elems.push(self.snapshot(ret, &v, shown)?);
            }
            let name = g.types.to_string(elem);
            return Ok(Value::Array { name, elems });
        }
        for idx in 0..g.types.field_count(ty) {
            let alias = first + idx as u32;
            let value = match slice(alias) {
                Some(m) => match memory(self.value(m)?).read(o, alias, 0) {
                    Some(fv) => self.snapshot(ret, &fv.clone(), shown)?,
                    None => self.snapshot(ret, &zero(g, g.types.field_type(ty, idx)), shown)?,
                },
                None => self.snapshot(ret, &zero(g, g.types.field_type(ty, idx)), shown)?,
            };
            fields.push((g.types.field_name(ty, idx), value));
        }
        Ok(Value::Obj { name, fields })
    }
}

/// The most elements an array may have in the evaluators, which hold
/// every element of an array made (a machine would run out of memory
/// somewhere too; here the fault has words, not an abort).
pub const MAX_ARRAY_LENGTH: i64 = 1 << 20;

/// The length of a new array, which must not be negative (nor more than
/// [`MAX_ARRAY_LENGTH`]).
pub(crate) fn array_length(v: Val) -> Eval<i64> {
    match v.number() {
        len if len < 0 => Err(format!("Negative array length {len}")),
        len if len > MAX_ARRAY_LENGTH => Err(format!(
            "Array length {len} is more than the evaluator holds ({MAX_ARRAY_LENGTH})"
        )),
        len => Ok(len),
    }
}

/// The element that byte offset `off` names in an array of type `ty` and
/// length `len`, for Load or Store `n`: `(off - base) >> scale`, with the
/// base and scale of the array's layout. An index outside the array is a
/// fault.
pub(crate) fn element_index(g: &Graph, n: NodeId, ty: TypeId, len: i64, off: i64) -> Eval<i64> {
    let Some(layout) = g.types.struct_layout(ty).filter(|_| g.types.is_array(ty)) else {
        return Err(format!(
            "{} of an element of no array",
            crate::node::label(g, n)
        ));
    };
    let index = off.wrapping_sub(layout.offsets[1].into()) >> layout.scale;
    if index < 0 || index >= len {
        return Err(format!(
            "Array index {index} out of bounds for length {len}"
        ));
    }
    Ok(index)
}

/// The number of elements of an array of type `ty` that `size` bytes
/// hold: `(size - base) >> scale`, the New's size read back.
pub(crate) fn array_count(g: &Graph, ty: TypeId, size: i64) -> i64 {
    match g.types.struct_layout(ty) {
        Some(l) => size.wrapping_sub(l.offsets[1].into()) >> l.scale,
        None => 0,
    }
}

/// The zero of a type: what an array element holds until it is written.
pub(crate) fn zero(g: &Graph, ty: TypeId) -> Val {
    if g.types.is_flt(ty) {
        Val::Float(0.0)
    } else if g.types.make_init(ty) == Some(Types::NULL) {
        // A reference of either kind, struct or function.
        Val::Null
    } else {
        Val::Int(0)
    }
}

/// Chapter 19: an integer stored into a field of narrow type `ty` as the
/// store keeps it, its low bits: of an unsigned type the value masked
/// (`u8`: `v & 255`), of a signed one the low bits sign-extended. (A
/// value that fits is unchanged; the parser's masks make most fit.)
pub(crate) fn wrap(g: &Graph, ty: TypeId, v: Val) -> Val {
    let (Val::Int(x), Some(t)) = (&v, g.types.int_bounds(ty)) else {
        return v;
    };
    if t.is_high() || (t.min..=t.max).contains(x) {
        return v;
    }
    let Some(bits) = g.types.int_bits(ty).filter(|&b| b < 64) else {
        return v;
    };
    let unused = 64 - bits;
    Val::Int(if t.min >= 0 {
        ((*x as u64) << unused >> unused) as i64
    } else {
        (*x << unused) >> unused
    })
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
