//! Scope: the parser's symbol tables, as a node.
//!
//! A Scope node's inputs are the current values of every variable in scope,
//! input 0 being the current control (the name `$ctrl`, which no program can
//! spell). Being inputs, these values count as used and stay alive while a
//! name refers to them. Nested blocks push and pop tables of names; a name
//! maps to an input index. An `if` duplicates the scope for its two arms and
//! merges them afterwards, making a Region and one Phi for every variable
//! whose value differs between the arms: this is how SSA form comes out of
//! parsing without a separate pass.
//!
//! Loops make phis lazily. Entering a loop, the body's scope binds every
//! variable to the loop's head scope itself, a sentinel meaning "whatever
//! the head has". Only when a variable is looked up or assigned in the loop
//! does the head get a Phi for it (`lookup`/`update` below), so variables
//! a loop never touches get no phi at all. When the body is done, each head
//! phi receives its back-edge value.
//!
//! Chapter 17 replaces chapter 13's up-casting of a tested variable by a
//! stack of *guards*. Entering an arm of `if (p)`, `p ? a : b`, a loop
//! body or a loop exit pushes a marker (the arm's control) and the facts
//! the test proves: `p` is not zero or null (a Cast of `p` to its non-zero
//! part), or on the false side it is zero or null (a Cast to zero, which
//! folds to the constant). Every variable bound to `p` is rebound to the
//! cast, and every expression the parser builds afterwards that turns out
//! to be `p` again (value numbering finds it) is replaced by the cast too
//! ([`upcast_guard`]), so `if (s.next) s.next.x` reads through a non-null
//! pointer. Leaving the arm pops back to its marker. The loop exit's
//! guards stay: after `while (arg) ...`, `arg` is 0. A copy of the scope
//! shares the stack rather than copying it (`guard_stack.rs`): after
//! thousands of loops it is thousands of entries long.

pub use super::guard_stack::{Guard, GuardStack};
use super::{cast_new, peephole, phi, print as print_node, region, scope_min, NodeKind, Printer};
use crate::graph::{Graph, NodeId};
use crate::types::{TypeId, Types};
use indexmap::IndexMap;
use std::rc::Rc;

/// The name bound to the current control.
pub const CTRL: &str = "$ctrl";
/// The name of the function's argument.
pub const ARG0: &str = "arg";
/// The name bound to the scope's memory, its ScopeMin (chapter 16), always
/// input 1.
pub const MEM: &str = "$mem";

/// The scope's ScopeMin: the state of memory, one slot per alias class.
pub fn mem(g: &Graph, scope: NodeId) -> NodeId {
    g.in_(scope, 1)
}

/// The current state of alias class `alias` (see [`scope_min::mem`]).
pub fn memory(g: &mut Graph, scope: NodeId, alias: u32) -> NodeId {
    let min = mem(g, scope);
    scope_min::mem(g, min, alias as usize, None)
}

/// Makes `st` the new state of alias class `alias`.
pub fn set_memory(g: &mut Graph, scope: NodeId, alias: u32, st: NodeId) {
    let min = mem(g, scope);
    scope_min::mem(g, min, alias as usize, Some(st));
}

/// A stack of lexical scopes, innermost last; each maps names to inputs.
/// `declared` is the declared type of each input, `finals` whether it is
/// final (chapter 16: `int !x`).
/// Names are shared (`Rc<str>`): copying the tables, as every `if` and
/// loop does from chapter 5 on, copies no string.
#[derive(Clone, Debug, Default)]
pub struct ScopeNames {
    pub levels: Vec<IndexMap<Rc<str>, usize>>,
    pub declared: Vec<TypeId>,
    pub finals: Vec<bool>,
    /// The guard stack (chapter 17), shared with the copies of the scope.
    pub guards: GuardStack,
    /// For each level of `levels`, whether it is a struct's body or a
    /// constructor's block (chapter 17), where final names may be set.
    pub in_cons: Vec<bool>,
}

pub fn new(g: &mut Graph) -> NodeId {
    let scope = g.add_node(NodeKind::Scope(Box::default()), vec![]);
    g.set_ty(scope, Types::BOTTOM);
    scope
}

fn names(g: &Graph, scope: NodeId) -> &ScopeNames {
    match g.kind(scope) {
        NodeKind::Scope(names) => names,
        _ => unreachable!("not a scope node"),
    }
}

fn names_mut(g: &mut Graph, scope: NodeId) -> &mut ScopeNames {
    match g.kind_mut(scope) {
        NodeKind::Scope(names) => names,
        _ => unreachable!("not a scope node"),
    }
}

pub fn levels(g: &Graph, scope: NodeId) -> &[IndexMap<Rc<str>, usize>] {
    &names(g, scope).levels
}

/// Enters a nested scope.
pub fn push(g: &mut Graph, scope: NodeId) {
    push_level(g, scope, false);
}

/// Enters a struct's body or a constructor's block (chapter 17): a scope
/// in which final names may be given their values.
pub fn push_constructor(g: &mut Graph, scope: NodeId) {
    push_level(g, scope, true);
}

/// Chapter 18: enters a function's body (a level like a block's; the
/// parser remembers where each function's names start).
pub fn push_function(g: &mut Graph, scope: NodeId) {
    push_level(g, scope, false);
}

/// The level (0 outermost) a name is bound at.
pub fn level_of(g: &Graph, scope: NodeId, name: &str) -> Option<usize> {
    levels(g, scope)
        .iter()
        .rposition(|level| level.contains_key(name))
}

fn push_level(g: &mut Graph, scope: NodeId, in_con: bool) {
    let names = names_mut(g, scope);
    names.levels.push(IndexMap::new());
    names.in_cons.push(in_con);
}

/// The innermost scope is a struct's body or a constructor's block.
pub fn in_constructor(g: &Graph, scope: NodeId) -> bool {
    names(g, scope).in_cons.last().copied().unwrap_or(false)
}

/// Leaves the innermost scope, dropping its variables.
pub fn pop(g: &mut Graph, scope: NodeId) {
    let names = names_mut(g, scope);
    let level = names.levels.pop().unwrap_or_default();
    names.in_cons.pop();
    let kept = names.declared.len() - level.len();
    names.declared.truncate(kept);
    names.finals.truncate(kept);
    g.pop_n(scope, level.len());
}

/// Binds a new name of type `declared` in the innermost scope; `false` if
/// it is already bound there. A name in an outer scope may be shadowed.
pub fn define(g: &mut Graph, scope: NodeId, name: &str, declared: TypeId, value: NodeId) -> bool {
    define_var(g, scope, name, declared, false, value)
}

/// [`define`], final if `fin`: once it holds a value (not `Top`, the
/// mark of "not yet set"), it cannot be assigned again.
pub fn define_var(
    g: &mut Graph,
    scope: NodeId,
    name: &str,
    declared: TypeId,
    fin: bool,
    value: NodeId,
) -> bool {
    let index = g.n_ins(scope);
    let names = names_mut(g, scope);
    let level = names.levels.last_mut().expect("define inside a scope");
    if level.contains_key(name) {
        return false;
    }
    level.insert(name.into(), index);
    names.declared.push(declared);
    names.finals.push(fin);
    g.add_def(scope, Some(value));
    true
}

/// A bound name is final.
pub fn is_final(g: &Graph, scope: NodeId, name: &str) -> bool {
    find(g, scope, name).is_some_and(|i| names(g, scope).finals[i])
}

/// The names, declared types, finality and input indices of the
/// innermost scope, in the order they were declared (a struct body's
/// fields, chapter 16).
pub fn innermost(g: &Graph, scope: NodeId) -> Vec<(Rc<str>, TypeId, bool, usize)> {
    let names = names(g, scope);
    let level = names.levels.last().expect("inside a scope");
    level
        .iter()
        .map(|(name, &i)| (name.clone(), names.declared[i], names.finals[i], i))
        .collect()
}

/// The declared type of a bound name.
pub fn declared_type(g: &Graph, scope: NodeId, name: &str) -> Option<TypeId> {
    let i = find(g, scope, name)?;
    Some(names(g, scope).declared[i])
}

/// The input index a name is bound to, searching from the innermost scope.
fn find(g: &Graph, scope: NodeId, name: &str) -> Option<usize> {
    levels(g, scope)
        .iter()
        .rev()
        .find_map(|level| level.get(name).copied())
}

/// The value of a name, or `None` if it is not bound. Reading a variable
/// inside a loop may create its phi at the loop head.
pub fn lookup(g: &mut Graph, scope: NodeId, name: &str) -> Option<NodeId> {
    let i = find(g, scope, name)?;
    Some(resolve(g, scope, name, i))
}

/// Chapter 18: the value of a name and whether it is final, without
/// making a lazy phi: a function reads the final names of the code around
/// it, whose value is the same all around a loop (a phi of them would be
/// the enclosing function's node).
pub fn peek(g: &Graph, scope: NodeId, name: &str) -> Option<(NodeId, bool)> {
    let i = find(g, scope, name)?;
    let mut value = g.in_(scope, i);
    while matches!(g.kind(value), NodeKind::Scope(_)) {
        value = g.in_(value, i);
    }
    Some((value, names(g, scope).finals[i]))
}

/// The value in input slot `i`, a lazy phi made real.
pub fn lookup_slot(g: &mut Graph, scope: NodeId, i: usize) -> NodeId {
    let name = reverse_names(g, scope)[i].clone();
    resolve(g, scope, &name, i)
}

/// Rebinds a name to `value`; `false` if the name is not bound.
pub fn update(g: &mut Graph, scope: NodeId, name: &str, value: NodeId) -> bool {
    match find(g, scope, name) {
        Some(i) => {
            resolve(g, scope, name, i);
            g.set_def(scope, i, Some(value));
            true
        }
        None => false,
    }
}

/// The value in slot `i`, turning a lazy sentinel (a loop head scope) into
/// that head's phi for the name, made now if the head has none yet. The
/// phi's entry value is looked up in the head itself, which may be lazy in
/// turn for an outer loop.
fn resolve(g: &mut Graph, scope: NodeId, name: &str, i: usize) -> NodeId {
    let old = g.in_(scope, i);
    if !matches!(g.kind(old), NodeKind::Scope(_)) {
        return old;
    }
    let head = old;
    let head_ctrl = ctrl(g, head);
    let current = g.in_(head, i);
    let phi = match g.kind(current) {
        NodeKind::Phi { .. } if g.input(current, 0) == Some(head_ctrl) => current,
        _ => {
            // One level per enclosing loop: deep nests need a deep stack.
            let entry = stacker::maybe_grow(64 * 1024, 1024 * 1024, || resolve(g, head, name, i));
            // A number's phi is declared with its kind's lowest type (a
            // `u32` as `int`), as Simple's lazy phis are: while the loop
            // is parsed the phi has its declared type, and a narrow one
            // would let `if (v)` cast `v` to `[1-4294967295]`, and the
            // optimizer then lift the loop's range one value per round,
            // some four billion rounds (`u32 v = 0; while (...) { if (v)
            // v = v - 1; }`).
            // A reference keeps its type, to be loaded or called through.
            let declared = names(g, scope).declared[i];
            let declared = if g.types.is_ptr(declared) || g.types.is_fun_ptr(declared) {
                declared
            } else {
                g.types.glb(declared)
            };
            let kind = NodeKind::Phi {
                label: name.into(),
                declared,
                parm: None,
            };
            let p = g.add_node(kind, vec![Some(head_ctrl), Some(entry), None]);
            let p = peephole(g, p);
            g.set_def(head, i, Some(p));
            p
        }
    };
    g.set_def(scope, i, Some(phi));
    phi
}

pub fn ctrl(g: &Graph, scope: NodeId) -> NodeId {
    g.in_(scope, 0)
}

/// Makes `ctrl` the current control; returns it.
pub fn set_ctrl(g: &mut Graph, scope: NodeId, ctrl: NodeId) -> NodeId {
    g.set_def(scope, 0, Some(ctrl));
    ctrl
}

/// The names of the inputs, by index (a shadowed name appears at each of
/// its indices).
pub fn reverse_names(g: &Graph, scope: NodeId) -> Vec<String> {
    let mut names = vec![String::new(); g.n_ins(scope)];
    for level in levels(g, scope) {
        for (name, &i) in level {
            names[i] = name.to_string();
        }
    }
    names
}

/// A copy of the scope with the same tables and the same bound values, in
/// the same input order so the two can be merged slot by slot. For a loop
/// body (`is_loop`), every variable is bound instead to `scope` itself, the
/// lazy-phi sentinel (see the module doc).
pub fn dup(g: &mut Graph, scope: NodeId, is_loop: bool) -> NodeId {
    let copy = new(g);
    // The copy shares the guard stack, and with it the pins its entries
    // hold (see `guard_stack.rs`).
    let tables = names(g, scope).clone();
    *names_mut(g, copy) = tables;
    let ctrl = g.input(scope, 0);
    g.add_def(copy, ctrl);
    // Memory: a ScopeMin of its own, slot by slot (every slot lazy in a
    // loop body, even one the outer scope has not made yet).
    let min = mem(g, scope);
    let sentinel = |s: Option<NodeId>| if is_loop { Some(scope) } else { s };
    let min_copy = scope_min::new(g, sentinel(g.input(min, 1)));
    for a in 2..g.n_ins(min) {
        let s = sentinel(g.input(min, a));
        g.add_def(min_copy, s);
    }
    g.add_def(copy, Some(min_copy));
    for i in 2..g.n_ins(scope) {
        let value = if is_loop {
            Some(scope)
        } else {
            g.input(scope, i)
        };
        g.add_def(copy, value);
    }
    copy
}

/// Closes a loop whose head scope is `head`: the back edge comes from
/// `back` (the scope at the end of the body), each head phi gets its
/// back-edge value, the `exit` scope's lazy sentinels become the head's
/// values, and phis that turn out useless (the same value on both paths)
/// are replaced everywhere by that value. `back` is killed.
pub fn end_loop(g: &mut Graph, head: NodeId, back: NodeId, exit: NodeId) {
    let ctrl = ctrl(g, head);
    debug_assert!(matches!(g.kind(ctrl), NodeKind::Loop) && region::in_progress(g, ctrl));
    let back_ctrl = g.input(back, 0);
    g.set_def(ctrl, 2, back_ctrl);
    let (head_min, back_min, exit_min) = (mem(g, head), mem(g, back), mem(g, exit));
    scope_min::end_loop(g, head_min, head, back_min, exit_min);
    for i in 2..g.n_ins(head) {
        let value = g.in_(back, i);
        // The body touched the variable, so the head has its phi (chapter
        // 18: unless it is a final name, whose value is the same all around
        // the loop and which a function's call reads without one).
        let phi = g.in_(head, i);
        let own_phi = matches!(g.kind(phi), NodeKind::Phi { .. }) && g.input(phi, 0) == Some(ctrl);
        if value != head && own_phi {
            g.set_def(phi, 2, Some(value));
        }
        if g.input(exit, i) == Some(head) {
            let at_head = g.input(head, i);
            g.set_def(exit, i, at_head);
        }
    }
    kill(g, back);
    // Remove useless phis at once, memory first.
    scope_min::remove_useless(g, head_min);
    for i in 2..g.n_ins(head) {
        let phi = g.in_(head, i);
        if matches!(g.kind(phi), NodeKind::Phi { .. }) {
            settle_phi(g, head, i, phi);
        }
    }
}

/// A loop head's `phi`, in slot `i` of `holder` (a scope or a ScopeMin),
/// is complete: it is optimized, and replaced in `holder` if it is no
/// longer needed.
pub(super) fn settle_phi(g: &mut Graph, holder: NodeId, i: usize, phi: NodeId) {
    let better = peephole(g, phi);
    // The phi is complete now: its users may optimize further.
    g.push_outputs(phi);
    g.move_deps_to_worklist(phi);
    if better != phi {
        // The parser may still hold the phi (kept); it is replaced in the
        // head all the same.
        if !g.is_kept(phi) {
            g.subsume(phi, better);
        }
        g.set_def(holder, i, Some(better));
    }
}

/// Merges `that` into `this` at a new Region, with a Phi for each name
/// whose values differ. `that` is killed. Returns the Region (peepholed).
pub fn merge(g: &mut Graph, this: NodeId, that: NodeId) -> NodeId {
    let r = merge_unoptimized(g, this, that);
    peephole(g, r)
}

/// [`merge`], returning the Region not yet peepholed: the `?:` operator
/// hangs its value's Phi on it first.
pub fn merge_unoptimized(g: &mut Graph, this: NodeId, that: NodeId) -> NodeId {
    let paths = [ctrl(g, this), ctrl(g, that)];
    let r = region::new(g, &paths);
    g.keep(r);
    set_ctrl(g, this, r);
    let (this_min, that_min) = (mem(g, this), mem(g, that));
    scope_min::merge(g, this_min, that_min, r);
    let bound = reverse_names(g, this);
    // Slot 0 is the control, now the region itself; slot 1 the memory.
    for (i, name) in bound.iter().enumerate().skip(2) {
        if g.input(this, i) != g.input(that, i) {
            // Looking the name up makes any lazy phi real.
            let a = lookup(g, this, name).expect("merged scopes bind the same names");
            let b = lookup(g, that, name).expect("merged scopes bind the same names");
            let declared = names(g, this).declared[i];
            let p = phi::new(g, name, declared, r, &[a, b]);
            let p = peephole(g, p);
            g.set_def(this, i, Some(p));
        }
    }
    kill(g, that);
    g.work.push(r);
    g.unkeep(r)
}

/// Kills a scope, first letting go of the values its guards pin.
pub fn kill(g: &mut Graph, scope: NodeId) {
    drop_guards(g, scope);
    g.kill(scope);
}

/// Empties the guard stack, letting go of the values that only its own
/// entries pin (the entries it shares with a copy are the copy's now).
pub fn drop_guards(g: &mut Graph, scope: NodeId) {
    let guards = names_mut(g, scope).guards.release();
    for guard in guards {
        if let Guard::Cast { pred, cast } = guard {
            unkill(g, cast);
            unkill(g, pred);
        }
    }
}

/// Drops a pin; a node left unused dies.
fn unkill(g: &mut Graph, n: NodeId) {
    g.unkeep(n);
    if g.is_unused(n) && !g.is_dead(n) {
        g.kill(n);
    }
}

/// Entering the arm of a test of `pred` that starts at `ctrl` (the false
/// arm when `invert`): pushes the arm's marker and what the test proves.
/// On the true side `pred` is not zero (a pointer not null): it is cast
/// to its non-zero part, if that says more than its type. When the
/// (possibly inverted) predicate is `!x`, `x` is zero or null, and the
/// cast to zero folds to the constant. Every variable bound to the
/// predicate is rebound to its cast. `pred` is `None` for a bare marker.
pub fn add_guards(g: &mut Graph, scope: NodeId, ctrl: NodeId, pred: Option<NodeId>, invert: bool) {
    names_mut(g, scope).guards.push(Guard::Marker(ctrl));
    let Some(mut pred) = pred else { return };
    if g.ty(ctrl) == Types::XCTRL || g.is_dead(pred) {
        return;
    }
    if invert {
        pred = if matches!(g.kind(pred), NodeKind::Not) {
            g.in_(pred, 1)
        } else {
            let not = g.add_node(NodeKind::Not, vec![None, Some(pred)]);
            let not = peephole(g, not);
            g.work.push(not);
            not
        };
    }
    let t = g.ty(pred);
    let non_zero = g.types.non_zero(t);
    let joined = g.types.join(non_zero, t);
    if joined != t && !g.types.is_high(joined) {
        guard(g, scope, ctrl, pred, non_zero);
    }
    if matches!(g.kind(pred), NodeKind::Not) {
        let x = g.in_(pred, 1);
        let t = g.ty(x);
        // A float tested false may be `-0.0`, which is not the constant
        // `0.0` (Simple casts it all the same).
        if let Some(zero) = g.types.make_zero(t).filter(|_| !g.types.is_flt(t)) {
            let joined = g.types.join(zero, t);
            // A value that cannot be zero or null never gets here: with
            // peepholes the arm is dead already; without them, a cast to
            // nothing would break the type its variables were declared with.
            if joined != t && !g.types.is_high(joined) {
                guard(g, scope, ctrl, x, zero);
            }
        }
    }
}

/// Pushes the guard "`pred` is `ty` below `ctrl`" and rebinds the
/// variables bound to `pred`.
fn guard(g: &mut Graph, scope: NodeId, ctrl: NodeId, pred: NodeId, ty: TypeId) {
    g.keep(pred);
    let cast = cast_new(g, ty, ctrl, pred);
    let cast = peephole(g, cast);
    g.keep(cast);
    names_mut(g, scope).guards.push(Guard::Cast { pred, cast });
    replace(g, scope, pred, cast);
}

/// Leaving the arm that starts at `ctrl`: pops its guards and its marker.
pub fn remove_guards(g: &mut Graph, scope: NodeId, ctrl: NodeId) {
    while let Some((guard, last)) = names_mut(g, scope).guards.pop() {
        match guard {
            Guard::Marker(m) if m == ctrl => break,
            Guard::Marker(_) => {}
            // An entry a copy of the scope still has keeps its pins.
            Guard::Cast { .. } if !last => {}
            Guard::Cast { pred, cast } => {
                unkill(g, cast);
                unkill(g, pred);
            }
        }
    }
}

/// A node the parser just built that is a guarded predicate becomes its
/// cast (Simple's `upcastGuard`), the innermost guard first.
pub fn upcast_guard(g: &Graph, scope: NodeId, n: NodeId) -> NodeId {
    names(g, scope).guards.upcast(n).unwrap_or(n)
}

/// Rebinds every variable bound to `old` to `new`.
fn replace(g: &mut Graph, scope: NodeId, old: NodeId, new: NodeId) -> NodeId {
    for i in 0..g.n_ins(scope) {
        if g.input(scope, i) == Some(old) {
            g.set_def(scope, i, Some(new));
        }
    }
    new
}

/// `Scope[a:1, b:arg][c:2]`: each level's bindings.
pub fn print(g: &Graph, n: NodeId, out: &mut Printer) {
    out.push_str("Scope");
    for level in levels(g, n) {
        out.push('[');
        for (j, (name, &i)) in level.iter().enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            out.push_str(name);
            out.push(':');
            match g.input(n, i) {
                Some(v) => print_node(g, v, out),
                None => out.push_str("null"),
            }
        }
        out.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::{dup, kill, names_mut, new, remove_guards, upcast_guard, Guard};
    use crate::graph::{Graph, NodeId};
    use crate::node::{scope_min, NodeKind};

    /// A scope with its control and memory slots, as `dup` wants it.
    fn scope(g: &mut Graph) -> NodeId {
        let s = new(g);
        let ctrl = g.add_node(NodeKind::ScopeMin, vec![]);
        g.add_def(s, Some(ctrl));
        let all = g.add_node(NodeKind::ScopeMin, vec![]);
        let min = scope_min::new(g, Some(all));
        g.add_def(s, Some(min));
        s
    }

    /// What the parser's guard does: pins the two nodes, then pushes.
    fn push_cast(g: &mut Graph, s: NodeId, pred: NodeId, cast: NodeId) {
        g.keep(pred);
        g.keep(cast);
        names_mut(g, s).guards.push(Guard::Cast { pred, cast });
    }

    /// Copying a scope pins its guarded nodes no more: the copies share
    /// the entries, and an entry's pins go with the last scope that has
    /// it. (Each copy used to pin every guard again, and a loop's exit
    /// guards stay on the stack: a function of many loops parsed in
    /// quadratic time.)
    #[test]
    fn copies_share_the_pins_of_the_guards() {
        let mut g = Graph::new();
        let s = scope(&mut g);
        let nodes: Vec<NodeId> = (0..4)
            .map(|_| g.add_node(NodeKind::ScopeMin, vec![]))
            .collect();
        let (pred, cast, marker, inner) = (nodes[0], nodes[1], nodes[2], nodes[3]);
        push_cast(&mut g, s, pred, cast);
        let copies: Vec<NodeId> = (0..100).map(|_| dup(&mut g, s, false)).collect();
        assert_eq!((g.keeps(pred), g.keeps(cast)), (1, 1));
        // A copy's own guard hides the shared one, in the copy only.
        let c = copies[0];
        names_mut(&mut g, c).guards.push(Guard::Marker(marker));
        push_cast(&mut g, c, pred, inner);
        assert_eq!(upcast_guard(&g, c, pred), inner);
        assert_eq!(upcast_guard(&g, s, pred), cast);
        remove_guards(&mut g, c, marker);
        assert!(!g.is_kept(inner), "the copy's own entry let go");
        assert_eq!(upcast_guard(&g, c, pred), cast);
        // Popping a shared entry leaves its pins to the other scopes.
        remove_guards(&mut g, copies[1], marker);
        assert_eq!(upcast_guard(&g, copies[1], pred), pred);
        assert!(g.is_kept(pred) && g.is_kept(cast));
        for &c in &copies {
            kill(&mut g, c);
            assert!(g.is_kept(pred) && g.is_kept(cast));
        }
        kill(&mut g, s);
        assert!(!g.is_kept(pred) && !g.is_kept(cast));
    }
}
