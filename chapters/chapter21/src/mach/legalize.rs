//! The legalizer: every machine operation made legal by its CPU's rules.
//!
//! Selection maps each ideal operation onto the machine vocabulary
//! ([`Op`]) without asking whether the CPU has an instruction for exactly
//! that: a sign-extension from 8 bits, a comparison giving 0 or 1, a
//! 64-bit constant, the language's total division. Each CPU declares, per
//! group of operations, an ordered list of rules (LLVM GlobalISel's
//! `LegalizerInfo`): a rule is a condition on a [`Query`], which holds
//! only the operation, its type per index and its memory size, and an
//! [`Action`]. The engine applies them to one node at a time: the rules
//! run top to bottom and the first whose condition holds decides. `Legal`
//! leaves the node; a change of type (`widen_scalar`, `min_scalar`,
//! `clamp_scalar`, `narrow_scalar`) rewrites the node's type and starts
//! again from the top; `lower` and `custom` hand the node to the CPU,
//! which replaces it by operations it has (each of them legalized in turn,
//! from the top); `libcall` turns it into a call to a C function; and
//! `unsupported`, or a rule list that runs out, is a compile error naming
//! the operation, its types and the CPU.
//!
//! A rule may only look at the query, never at the node's inputs: whether
//! an operation is legal depends on the operation alone. Once a rule has
//! said it is not, `lower` and `custom` may look at the context to decide
//! how to make it legal (a division by a divisor known not to be zero
//! needs no check).
//!
//! Some CPUs' rules widen a value's type; the nodes that convert between
//! widths on the way are *artifacts* (`Trunc`, `AnyExt`): they are no code
//! on a 64-bit register, every CPU must declare them legal between all
//! integer widths (the minimum rules, [`minimum_rules_hold`]), and at the
//! end the engine replaces each by its input.

use super::{mach, Cpu, LType, Mach, Op};
use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::node::NodeKind;
use std::fmt::{self, Write};

/// What the rules see of an operation: the operation, the type at each
/// type index, and the bytes it reads or writes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Query {
    pub op: Op,
    pub ty: [LType; 2],
    pub mem_size: u8,
}

impl Query {
    pub fn of(m: &Mach) -> Query {
        Query {
            op: m.op,
            ty: m.ty,
            mem_size: m.mem_size,
        }
    }
}

/// When a rule applies.
#[derive(Copy, Clone, Debug)]
pub enum When {
    Always,
    /// The type at index 0 is one of these.
    Types0(&'static [LType]),
    /// The type pair (index 0, index 1) is one of these.
    Types01(&'static [(LType, LType)]),
    /// The type at index 0 and the memory size are one of these pairs.
    Mem(&'static [(LType, u8)]),
    /// The type at `idx` is narrower than `ty` (in bits).
    Narrower(usize, LType),
    /// The type at `idx` is wider than `ty`.
    Wider(usize, LType),
}

impl When {
    fn holds(self, q: &Query) -> bool {
        match self {
            When::Always => true,
            When::Types0(ts) => ts.contains(&q.ty[0]),
            When::Types01(ps) => ps.contains(&(q.ty[0], q.ty[1])),
            When::Mem(ms) => ms.contains(&(q.ty[0], q.mem_size)),
            When::Narrower(i, t) => q.ty[i].bits() < t.bits(),
            When::Wider(i, t) => q.ty[i].bits() > t.bits(),
        }
    }
}

/// What a rule does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Action {
    Legal,
    /// Makes the type at `idx` this (wider or narrower) type, then starts
    /// the rules again.
    Retype(usize, LType),
    /// Hands the node to the CPU, to rewrite into operations it has.
    Lower,
    Custom,
    /// Makes the operation a call of this C function.
    Libcall(&'static str),
    Unsupported,
}

/// One rule: a condition and an action, with the name of the builder
/// method that made it (for the printed table).
#[derive(Copy, Clone, Debug)]
pub struct Rule {
    pub when: When,
    pub action: Action,
    pub kind: &'static str,
}

/// The rules of a group of operations, in order.
#[derive(Clone, Debug)]
pub struct RuleSet {
    pub ops: Vec<Op>,
    pub rules: Vec<Rule>,
}

/// The builder a CPU declares its rules with, after GlobalISel's
/// `getActionDefinitionsBuilder`: `RuleSet::of(&[Op::Add, Op::Sub])
/// .legal_for(&[S64, Ptr])...`.
impl RuleSet {
    pub fn of(ops: &[Op]) -> RuleSet {
        RuleSet {
            ops: ops.to_vec(),
            rules: Vec::new(),
        }
    }

    fn rule(mut self, when: When, action: Action, kind: &'static str) -> RuleSet {
        self.rules.push(Rule { when, action, kind });
        self
    }

    /// Legal when the result type is one of these.
    pub fn legal_for(self, tys: &'static [LType]) -> RuleSet {
        self.rule(When::Types0(tys), Action::Legal, "legal_for")
    }

    /// Legal for these (result, source) type pairs.
    pub fn legal_for_pairs(self, pairs: &'static [(LType, LType)]) -> RuleSet {
        self.rule(When::Types01(pairs), Action::Legal, "legal_for")
    }

    /// Legal for these (value type, memory size) pairs.
    pub fn legal_for_mem(self, mems: &'static [(LType, u8)]) -> RuleSet {
        self.rule(When::Mem(mems), Action::Legal, "legal_for")
    }

    /// Legal whatever the types.
    pub fn always_legal(self) -> RuleSet {
        self.rule(When::Always, Action::Legal, "legal")
    }

    /// Widens the type at `idx` to `ty` when it is narrower: the
    /// operation computes in `ty` only (a RISC-V compare in 64 bits).
    pub fn widen_scalar(self, idx: usize, ty: LType) -> RuleSet {
        self.rule(
            When::Narrower(idx, ty),
            Action::Retype(idx, ty),
            "widen_scalar",
        )
    }

    /// Widens the type at `idx` to `min` when narrower, and leaves a wider
    /// one to the rules below: a lower bound among several legal widths.
    /// (Its test and change are `widen_scalar`'s; the name says which of
    /// the two a CPU means.)
    pub fn min_scalar(self, idx: usize, min: LType) -> RuleSet {
        self.rule(
            When::Narrower(idx, min),
            Action::Retype(idx, min),
            "min_scalar",
        )
    }

    /// Narrows the type at `idx` to `max` when wider.
    pub fn narrow_scalar(self, idx: usize, max: LType) -> RuleSet {
        self.rule(
            When::Wider(idx, max),
            Action::Retype(idx, max),
            "narrow_scalar",
        )
    }

    /// Keeps the type at `idx` between `min` and `max`.
    pub fn clamp_scalar(self, idx: usize, min: LType, max: LType) -> RuleSet {
        self.rule(
            When::Narrower(idx, min),
            Action::Retype(idx, min),
            "clamp_scalar",
        )
        .rule(
            When::Wider(idx, max),
            Action::Retype(idx, max),
            "clamp_scalar",
        )
    }

    pub fn lower(self) -> RuleSet {
        self.rule(When::Always, Action::Lower, "lower")
    }

    pub fn lower_for(self, tys: &'static [LType]) -> RuleSet {
        self.rule(When::Types0(tys), Action::Lower, "lower")
    }

    pub fn lower_for_pairs(self, pairs: &'static [(LType, LType)]) -> RuleSet {
        self.rule(When::Types01(pairs), Action::Lower, "lower")
    }

    pub fn custom(self) -> RuleSet {
        self.rule(When::Always, Action::Custom, "custom")
    }

    pub fn custom_for(self, tys: &'static [LType]) -> RuleSet {
        self.rule(When::Types0(tys), Action::Custom, "custom")
    }

    pub fn libcall(self, name: &'static str) -> RuleSet {
        self.rule(When::Always, Action::Libcall(name), "libcall")
    }

    pub fn unsupported(self) -> RuleSet {
        self.rule(When::Always, Action::Unsupported, "unsupported")
    }

    /// The first rule whose condition holds, if any.
    pub fn decide(&self, q: &Query) -> Option<Rule> {
        self.rules.iter().copied().find(|r| r.when.holds(q))
    }
}

/// A CPU's rules, and what it does for `lower` and `custom`.
pub struct Rules {
    pub cpu: Cpu,
    pub sets: Vec<RuleSet>,
    /// Rewrites node `n` (whose rules said `lower` or `custom`) into
    /// operations the CPU has; returns the node that now stands for it.
    pub rewrite: fn(&mut Graph, NodeId, Action) -> Result<NodeId, String>,
}

impl Rules {
    /// The rule set that lists `op`.
    pub fn set_for(&self, op: Op) -> Option<&RuleSet> {
        self.sets.iter().find(|s| s.ops.contains(&op))
    }

    /// The action the rules take on `q`, after any changes of type: the
    /// types the node ends with, and the action (or why none).
    pub fn decide(&self, q: Query) -> Result<(Query, Action), String> {
        let mut q = q;
        let set = self.set_for(q.op).ok_or_else(|| self.unsupported(&q))?;
        for _ in 0..8 {
            let Some(rule) = set.decide(&q) else {
                return Err(self.unsupported(&q));
            };
            match rule.action {
                Action::Retype(i, t) => q.ty[i] = t,
                Action::Unsupported => return Err(self.unsupported(&q)),
                a => return Ok((q, a)),
            }
        }
        Err(format!(
            "the {} rules for {} change its type for ever",
            self.cpu.name(),
            describe(&q)
        ))
    }

    fn unsupported(&self, q: &Query) -> String {
        format!("{} cannot do {}", self.cpu.name(), describe(q))
    }
}

/// `4 bytes`, `1 byte`.
fn bytes(n: u32) -> String {
    if n == 1 {
        "1 byte".into()
    } else {
        format!("{n} bytes")
    }
}

/// `Load s64 (4 bytes)`, `Add s64`, `SExt s64 <- s8`.
pub fn describe(q: &Query) -> String {
    let mut s = format!("{:?} {}", q.op, q.ty[0]);
    if q.ty[1] != q.ty[0] {
        let _ = write!(s, " <- {}", q.ty[1]);
    }
    if q.mem_size != 0 {
        let _ = write!(s, " ({})", bytes(q.mem_size.into()));
    }
    s
}

/// What legalization did, for tests and the curious.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Nodes found legal as selected (after any change of type).
    pub legal: usize,
    /// Changes of type.
    pub retyped: usize,
    /// Nodes lowered, custom-lowered, made library calls.
    pub lowered: usize,
    pub custom: usize,
    pub libcalls: usize,
    /// Artifacts removed at the end.
    pub artifacts: usize,
}

/// Makes every machine node of `g` legal for `rules.cpu`.
pub fn legalize(g: &mut Graph, rules: &Rules) -> Result<Stats, Error> {
    let mut stats = Stats::default();
    let mut work: Vec<NodeId> = g.ids().filter(|&n| mach(g, n).is_some()).collect();
    work.reverse(); // in node order
    while let Some(n) = work.pop() {
        if g.is_dead(n) {
            continue;
        }
        let Some(m) = mach(g, n) else { continue };
        let q = Query::of(m);
        let (q2, action) = rules.decide(q).map_err(|e| error_at(g, n, e))?;
        if q2.ty != q.ty {
            stats.retyped += 1;
            if let NodeKind::Mach(m) = g.kind_mut(n) {
                m.ty = q2.ty;
            }
        }
        match action {
            Action::Legal => stats.legal += 1,
            Action::Libcall(name) => {
                stats.libcalls += 1;
                let first = g.len();
                libcall(g, n, name);
                work.extend((first..g.len()).map(|i| nth(g, i)));
            }
            Action::Lower | Action::Custom => {
                if action == Action::Lower {
                    stats.lowered += 1;
                } else {
                    stats.custom += 1;
                }
                // Everything the rewrite makes is legalized in turn,
                // from the top of its rules.
                let first = g.len();
                let new = (rules.rewrite)(g, n, action).map_err(|e| error_at(g, n, e))?;
                if new != n && !g.is_dead(n) {
                    g.subsume(n, new);
                }
                let made: Vec<NodeId> = (first..g.len()).map(|i| nth(g, i)).collect();
                work.extend(made.into_iter().rev());
                if new == n && !g.is_dead(n) {
                    work.push(n);
                }
            }
            Action::Retype(..) | Action::Unsupported => unreachable!("decided above"),
        }
    }
    stats.artifacts = combine_artifacts(g);
    check_legal(g, rules)?;
    Ok(stats)
}

/// Every machine node left is legal as it stands: its rules say `Legal`
/// without changing its types. (A rewrite that made an operation its own
/// rules refuse would be a bug in the CPU's rules; this says which.)
pub fn check_legal(g: &Graph, rules: &Rules) -> Result<(), Error> {
    for n in g.ids() {
        if g.is_dead(n) {
            continue;
        }
        let Some(m) = mach(g, n) else { continue };
        let q = Query::of(m);
        match rules.decide(q) {
            Ok((q2, Action::Legal)) if q2.ty == q.ty => {}
            // A library call is what its rules asked for.
            Ok((_, Action::Libcall(name))) if m.libcall == Some(name) => {}
            Ok((_, a)) => {
                let why = format!("{} is left {a:?} after legalization", describe(&q));
                return Err(error_at(g, n, why));
            }
            Err(e) => return Err(error_at(g, n, e)),
        }
    }
    Ok(())
}

/// The node with index `i` (ids count from 1).
fn nth(g: &Graph, i: usize) -> NodeId {
    g.ids().nth(i).expect("a node made by the rewrite")
}

/// The error for node `n`: at its source position when it stands for a
/// load or store (the only nodes that keep one), else at the start.
fn error_at(g: &Graph, n: NodeId, message: String) -> Error {
    let at = match g.role(n) {
        NodeKind::Load { at, .. } | NodeKind::Store { at, .. } => *at as usize,
        _ => 0,
    };
    Error::new(message, at)
}

/// Makes node `n` a call of the C function `name`: its operation says so,
/// and its role (a New, to global code motion) stays.
fn libcall(g: &mut Graph, n: NodeId, name: &'static str) {
    if let NodeKind::Mach(m) = g.kind_mut(n) {
        m.libcall = Some(name);
    }
}

/// Replaces every `Trunc` and `AnyExt` by its input: no code on a 64-bit
/// register. Returns how many went.
fn combine_artifacts(g: &mut Graph) -> usize {
    let artifacts: Vec<NodeId> = g
        .ids()
        .filter(|&n| !g.is_dead(n) && matches!(super::op(g, n), Some(Op::Trunc | Op::AnyExt)))
        .collect();
    for &n in &artifacts {
        let input = g.in_(n, 1);
        g.subsume(n, input);
    }
    artifacts.len()
}

/// The minimum rules: a `Trunc` from every integer width to every
/// narrower one, and an `AnyExt` from every width to every wider one, are
/// legal. Returns the first pair that is not, if any.
pub fn minimum_rules_hold(rules: &Rules) -> Result<(), String> {
    for &wide in &LType::INTS {
        for &narrow in &LType::INTS {
            if narrow.bits() >= wide.bits() {
                continue;
            }
            for (op, ty) in [(Op::Trunc, [narrow, wide]), (Op::AnyExt, [wide, narrow])] {
                let q = Query {
                    op,
                    ty,
                    mem_size: 0,
                };
                match rules.decide(q) {
                    Ok((_, Action::Legal)) => {}
                    Ok((_, a)) => return Err(format!("{} is {a:?}", describe(&q))),
                    Err(e) => return Err(e),
                }
            }
        }
    }
    Ok(())
}

/// The rule table as `simple legal` prints it: each group of operations,
/// then its rules in order.
pub fn print_rules(rules: &Rules) -> String {
    let mut out = format!("legalization rules for {}\n", rules.cpu.name());
    for set in &rules.sets {
        let ops: Vec<String> = set.ops.iter().map(|o| format!("{o:?}")).collect();
        let _ = writeln!(out, "\n{}", ops.join(", "));
        for r in &set.rules {
            let _ = writeln!(out, "  {}", RuleText(r));
        }
    }
    out
}

struct RuleText<'a>(&'a Rule);

impl fmt::Display for RuleText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        let list = |ts: &[LType]| {
            ts.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (r.when, r.action) {
            (When::Types0(ts), Action::Legal) => write!(f, "legal_for({})", list(ts)),
            (When::Types01(ps), a) => {
                let pairs: Vec<String> = ps.iter().map(|(a, b)| format!("{a} <- {b}")).collect();
                let verb = if a == Action::Legal {
                    "legal_for"
                } else {
                    r.kind
                };
                write!(f, "{verb}({})", pairs.join(", "))
            }
            (When::Mem(ms), Action::Legal) => {
                let pairs: Vec<String> = ms
                    .iter()
                    .map(|(t, s)| format!("{t} ({})", bytes((*s).into())))
                    .collect();
                write!(f, "legal_for({})", pairs.join(", "))
            }
            (When::Always, Action::Legal) => write!(f, "legal"),
            (_, Action::Retype(i, t)) => write!(f, "{}({i}, {t})", r.kind),
            (When::Types0(ts), a) => write!(f, "{}({})", kind_of(a), list(ts)),
            (_, a) => write!(f, "{}", kind_of(a)),
        }
    }
}

fn kind_of(a: Action) -> String {
    match a {
        Action::Legal => "legal".into(),
        Action::Retype(..) => "retype".into(),
        Action::Lower => "lower".into(),
        Action::Custom => "custom".into(),
        Action::Libcall(name) => format!("libcall({name})"),
        Action::Unsupported => "unsupported".into(),
    }
}

#[cfg(test)]
mod tests {
    //! The engine on a rule table of its own, so that every kind of rule
    //! and action is seen at work whatever the CPUs happen to need.
    use super::*;
    use crate::mach::{add_mach, Cpu, LType::*};
    use crate::types::Types;

    /// A made-up CPU: adds of 32 and 64 bits; narrower adds widen, wider
    /// types narrow (there are none wider than 64, so a `Ptr` add is
    /// narrowed to 64 to show the rule); shifts clamp their count type;
    /// multiplies lower to shifts and adds (here: to an add of the operand
    /// with itself, a stand-in); divisions are custom, `New` a library
    /// call, `Lui` unsupported.
    fn rules() -> Rules {
        Rules {
            cpu: Cpu::Riscv,
            sets: vec![
                RuleSet::of(&[Op::Add])
                    .legal_for(&[S32, S64])
                    .widen_scalar(0, S32)
                    .narrow_scalar(0, S64),
                RuleSet::of(&[Op::Shl])
                    .clamp_scalar(1, S8, S32)
                    .legal_for_pairs(&[(S64, S8), (S64, S16), (S64, S32)]),
                RuleSet::of(&[Op::Sub]).min_scalar(0, S64).legal_for(&[S64]),
                RuleSet::of(&[Op::Mul]).lower(),
                RuleSet::of(&[Op::Div]).custom(),
                RuleSet::of(&[Op::New]).libcall("calloc"),
                RuleSet::of(&[Op::Trunc, Op::AnyExt, Op::Int]).always_legal(),
                RuleSet::of(&[Op::Lui]).unsupported(),
            ],
            rewrite: |g, n, action| {
                let m = mach(g, n).expect("a machine node").clone();
                let a = g.input(n, 1);
                // Both `lower` and `custom` make an add of input 1 with
                // itself, of the node's type.
                let add = Mach::new(m.role.clone(), Op::Add, m.ty[0]);
                let _ = action;
                Ok(add_mach(g, add, &[None, a, a], g.ty(n)))
            },
        }
    }

    fn q(op: Op, t0: LType, t1: LType) -> Query {
        Query {
            op,
            ty: [t0, t1],
            mem_size: 0,
        }
    }

    #[test]
    fn every_kind_of_rule_decides() {
        let r = rules();
        let decide = |op, t0, t1| r.decide(q(op, t0, t1));
        assert_eq!(
            decide(Op::Add, S64, S64),
            Ok((q(Op::Add, S64, S64), Action::Legal))
        );
        // widen_scalar, then the rules again from the top: legal.
        assert_eq!(
            decide(Op::Add, S8, S8),
            Ok((q(Op::Add, S32, S8), Action::Legal))
        );
        // min_scalar.
        assert_eq!(
            decide(Op::Sub, S16, S16),
            Ok((q(Op::Sub, S64, S16), Action::Legal))
        );
        // clamp_scalar on type index 1, both ways.
        assert_eq!(
            decide(Op::Shl, S64, S1),
            Ok((q(Op::Shl, S64, S8), Action::Legal))
        );
        assert_eq!(
            decide(Op::Shl, S64, S64),
            Ok((q(Op::Shl, S64, S32), Action::Legal))
        );
        assert_eq!(decide(Op::Mul, S64, S64).map(|d| d.1), Ok(Action::Lower));
        assert_eq!(decide(Op::Div, S64, S64).map(|d| d.1), Ok(Action::Custom));
        assert_eq!(
            decide(Op::New, Ptr, Ptr).map(|d| d.1),
            Ok(Action::Libcall("calloc"))
        );
        assert_eq!(
            decide(Op::Lui, S64, S64),
            Err("riscv cannot do Lui s64".into())
        );
        // No rule set at all, or a rule list that runs out.
        assert_eq!(
            decide(Op::Xor, S64, S64),
            Err("riscv cannot do Xor s64".into())
        );
        assert_eq!(
            decide(Op::Shl, S1, S8),
            Err("riscv cannot do Shl s1 <- s8".into())
        );
    }

    #[test]
    fn narrow_scalar_narrows_a_wide_type() {
        // A rule list whose only way to legal is down.
        let r = Rules {
            cpu: Cpu::Arm,
            sets: vec![RuleSet::of(&[Op::And])
                .narrow_scalar(0, S32)
                .legal_for(&[S32])],
            rewrite: |_, n, _| Ok(n),
        };
        assert_eq!(
            r.decide(q(Op::And, S64, S64)),
            Ok((q(Op::And, S32, S64), Action::Legal))
        );
    }

    #[test]
    fn rewrites_are_legalized_from_the_top_and_artifacts_go() {
        let mut g = Graph::new();
        let start = g.add_node(
            NodeKind::Start {
                args: Types::BOTTOM,
            },
            vec![],
        );
        g.set_start(start);
        let int = |g: &mut Graph, v: i64| {
            let m = Mach::new(NodeKind::Constant(Types::BOTTOM), Op::Int, S64).with_imm(v);
            add_mach(g, m, &[Some(start)], Types::BOTTOM)
        };
        let a = int(&mut g, 3);
        // A multiply (lowered), a division (custom), an 8-bit add (made
        // 32-bit), a truncation (an artifact).
        let mul = add_mach(
            &mut g,
            Mach::new(NodeKind::Mul, Op::Mul, S64),
            &[None, Some(a), Some(a)],
            Types::BOTTOM,
        );
        let div = add_mach(
            &mut g,
            Mach::new(NodeKind::Div, Op::Div, S64),
            &[None, Some(mul), Some(a)],
            Types::BOTTOM,
        );
        let narrow = add_mach(
            &mut g,
            Mach::new(NodeKind::Add, Op::Add, S8),
            &[None, Some(div), Some(a)],
            Types::BOTTOM,
        );
        let trunc = add_mach(
            &mut g,
            Mach::new(NodeKind::Add, Op::Trunc, S32).with_src(S64),
            &[None, Some(narrow)],
            Types::BOTTOM,
        );
        let keep = g.add_node(NodeKind::Return, vec![None, None, Some(trunc)]);
        let stats = legalize(&mut g, &rules()).expect("all legal");
        assert_eq!(
            stats,
            Stats {
                legal: 5,
                retyped: 1,
                lowered: 1,
                custom: 1,
                libcalls: 0,
                artifacts: 1
            }
        );
        // The Return now reads the add, which was widened to 32 bits.
        let add = g.in_(keep, 2);
        assert_eq!(mach(&g, add).map(|m| (m.op, m.ty[0])), Some((Op::Add, S32)));
        assert!(check_legal(&g, &rules()).is_ok());
    }

    #[test]
    fn an_operation_no_rule_makes_legal_is_an_error() {
        let mut g = Graph::new();
        let start = g.add_node(
            NodeKind::Start {
                args: Types::BOTTOM,
            },
            vec![],
        );
        g.set_start(start);
        add_mach(
            &mut g,
            Mach::new(NodeKind::Add, Op::Lui, S64),
            &[None],
            Types::BOTTOM,
        );
        let e = legalize(&mut g, &rules()).expect_err("no Lui");
        assert_eq!(e.message, "riscv cannot do Lui s64");
    }

    #[test]
    fn every_cpu_keeps_the_minimum_rules() {
        for cpu in Cpu::ALL {
            assert_eq!(
                minimum_rules_hold(&crate::cpu::rules(cpu)),
                Ok(()),
                "{}",
                cpu.name()
            );
        }
    }
}
