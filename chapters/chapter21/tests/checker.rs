//! Chapter 20's allocation checker ([`chapter21::regalloc::checker`]),
//! tested without the allocator: small programs are compiled up to the
//! local schedule, given locations by hand (and, where a value must move,
//! a split put into the graph and the local order by hand), and the
//! checker must accept each sound allocation and refuse each planted
//! fault with a message that names it. Every refusal starts from an
//! allocation shown accepted (in the same test, or by the `accepts_*`
//! test of the same builder), so that the one change made is what is
//! refused. Two tests take any program: random allocations are refused
//! and never make the checker panic, and an allocation that stores every
//! value to a slot of its own and loads it for each use (built here,
//! independently of the allocator) is accepted on every target.

use chapter21::cpu;
use chapter21::gcm::block;
use chapter21::graph::NodeId;
use chapter21::mach::select::is_value;
use chapter21::mach::{add_mach, mach, Cpu, LType, Mach, Op, RegMask, Target};
use chapter21::regalloc::checker::check_code;
use chapter21::regalloc::{Allocation, Frame, Loc};
use chapter21::{CodeGen, NodeKind};

/// All the phases up to `local_sched`, for `cpu` with System V.
fn compile(src: &str, cpu: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select(cpu, "SystemV"))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
    code
}

/// The live nodes labelled `label`, by id.
fn nodes(code: &CodeGen, label: &str) -> Vec<NodeId> {
    let g = &code.graph;
    let mut v: Vec<NodeId> = g
        .ids()
        .filter(|&n| !g.is_dead(n) && chapter21::node::label(g, n) == label)
        .collect();
    v.sort();
    v
}

/// The one live node labelled `label`.
#[track_caller]
fn node(code: &CodeGen, label: &str) -> NodeId {
    let v = nodes(code, label);
    assert_eq!(v.len(), 1, "nodes labelled {label:?}: {v:?}");
    v[0]
}

/// The functions, by their Fun nodes.
fn funs(code: &CodeGen) -> Vec<NodeId> {
    let g = &code.graph;
    let mut f: Vec<NodeId> = g
        .outputs(g.start())
        .iter()
        .copied()
        .filter(|&f| matches!(g.role(f), NodeKind::Fun { .. }))
        .collect();
    f.sort();
    f.dedup();
    f
}

/// The function named `name`.
fn fun(code: &CodeGen, name: &str) -> NodeId {
    funs(code)
        .into_iter()
        .find(|&f| chapter21::node::fun::label(&code.graph, f) == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// A split (copy) of `x` put into block `blk`'s local order at `pos`
/// (past the end: last).
fn split(code: &mut CodeGen, x: NodeId, blk: NodeId, pos: usize) -> NodeId {
    let s = mk_split(code, x, blk);
    let list = code.local.as_mut().unwrap().entry(blk).or_default();
    let pos = pos.min(list.len());
    list.insert(pos, s);
    s
}

/// The nodes the allocator must give a location: what the checker's
/// documentation lists, found here on its own.
fn values(code: &CodeGen) -> Vec<NodeId> {
    let g = &code.graph;
    let target = code.target.unwrap();
    let mut v: Vec<NodeId> = g
        .ids()
        .filter(|&n| !g.is_dead(n) && block(g, n).is_some_and(|b| b != g.start()))
        .filter(|&n| {
            let valued = g.ty_opt(n).is_some_and(|t| is_value(&g.types, t));
            match (mach(g, n), g.role(n)) {
                (Some(m), _) if m.op == Op::Split => true,
                // ARM's return address (`$rpc`) is no value: the prologue
                // keeps it.
                (_, NodeKind::Phi { .. }) => valued,
                (_, NodeKind::Proj { .. }) => {
                    valued && !matches!(g.role(g.in_(n, 0)), NodeKind::Start { .. })
                }
                (Some(m), _) => {
                    !matches!(m.op, Op::New | Op::Parm | Op::Proj | Op::CallEnd | Op::Fun)
                        && cpu::out_mask(target, g, n, m).is_some()
                }
                _ => false,
            }
        })
        .collect();
    v.sort();
    v
}

/// An allocation by hand: the values in `fixed` where it says, every
/// other value a register of its own from `pool` (none of them used in
/// `fixed`), every function an empty frame.
#[track_caller]
fn hand(code: &CodeGen, pool: &[u8], fixed: &[(NodeId, Loc)]) -> Allocation {
    let mut alloc = Allocation::default();
    let taken: Vec<Loc> = fixed.iter().map(|&(_, l)| l).collect();
    let mut free = pool
        .iter()
        .map(|&r| Loc::Reg(r))
        .filter(|l| !taken.contains(l));
    for n in values(code) {
        let l = match fixed.iter().find(|&&(m, _)| m == n) {
            Some(&(_, l)) => l,
            None => free
                .next()
                .unwrap_or_else(|| panic!("the pool runs out at node {}", n.nid())),
        };
        alloc.loc.insert(n, l);
    }
    for f in funs(code) {
        alloc.frames.insert(f, Frame::default());
    }
    alloc
}

#[track_caller]
fn accepted(code: &CodeGen, alloc: &Allocation) {
    if let Err(e) = check_code(code, alloc) {
        panic!("refused a sound allocation: {e}\n{}", code.asm());
    }
}

/// Refused, with a message holding every one of `parts`.
#[track_caller]
fn refused(code: &CodeGen, alloc: &Allocation, parts: &[&str]) -> String {
    match check_code(code, alloc) {
        Ok(()) => panic!("accepted a wrong allocation\n{}", code.asm()),
        Err(e) => {
            for p in parts {
                assert!(e.contains(p), "{p:?} is not in the message: {e}");
            }
            e
        }
    }
}

// RISC-V registers.
const SP: u8 = 2;
const T0: u8 = 5;
const T1: u8 = 6;
const T2: u8 = 7;
const S1: u8 = 9;
const A0: u8 = 10;
const T3: u8 = 28;
const FA1: u8 = 43;
const RV_POOL: [u8; 10] = [T0, T1, T2, 28, 29, 30, 11, 12, 13, 14];

fn reg(r: u8) -> Loc {
    Loc::Reg(r)
}

/// `return arg+1;` on RISC-V: `addi a0, a0, 1`.
fn rv_add() -> (CodeGen, NodeId, NodeId) {
    let code = compile("return arg+1;", "riscv");
    let (arg, add) = (node(&code, "arg"), node(&code, "addi"));
    (code, arg, add)
}

#[test]
fn accepts_a_straight_line() {
    let (code, arg, add) = rv_add();
    accepted(
        &code,
        &hand(&code, &RV_POOL, &[(arg, reg(A0)), (add, reg(A0))]),
    );
}

#[test]
fn refuses_a_result_outside_its_mask() {
    let (code, arg, add) = rv_add();
    // `sp` is no register a value may be written to.
    let alloc = hand(&code, &RV_POOL, &[(arg, reg(A0)), (add, reg(SP))]);
    refused(
        &code,
        &alloc,
        &["node", "addi", "its result is in sp, not in its mask"],
    );
    // Nor is a float register, for an integer `ori`.
    let code = compile("return arg | 2;", "riscv");
    let (arg, or) = (node(&code, "arg"), node(&code, "ori"));
    accepted(
        &code,
        &hand(&code, &RV_POOL, &[(arg, reg(A0)), (or, reg(A0))]),
    );
    let alloc = hand(&code, &RV_POOL, &[(arg, reg(A0)), (or, reg(FA1))]);
    refused(&code, &alloc, &["ori", "its result is in fa1"]);
    // Nor a register the CPU has not.
    let alloc = hand(&code, &RV_POOL, &[(arg, reg(A0)), (or, reg(200))]);
    refused(
        &code,
        &alloc,
        &["ori", "its result is in register 200 (which riscv has not)"],
    );
}

#[test]
fn refuses_an_operand_outside_its_mask() {
    let (code, arg, add) = rv_add();
    // The returned value must be in a0.
    let alloc = hand(&code, &RV_POOL, &[(arg, reg(A0)), (add, reg(T0))]);
    refused(
        &code,
        &alloc,
        &[
            "function main",
            "ret",
            "input 2 is in t0, not in its mask {a0}",
        ],
    );
    // The parameter arrives in a0, not anywhere else.
    let alloc = hand(&code, &RV_POOL, &[(arg, reg(T1)), (add, reg(A0))]);
    refused(&code, &alloc, &["arg", "the parameter is in t1"]);
}

#[test]
fn refuses_a_value_without_a_location_or_frame() {
    let (code, arg, add) = rv_add();
    let mut alloc = hand(&code, &RV_POOL, &[(arg, reg(A0)), (add, reg(A0))]);
    alloc.loc.remove(&add);
    refused(&code, &alloc, &["addi", "has no location"]);
    let mut alloc = hand(&code, &RV_POOL, &[(arg, reg(A0)), (add, reg(A0))]);
    alloc.frames.clear();
    refused(&code, &alloc, &["function main", "no frame"]);
}

#[test]
fn refuses_two_live_values_in_one_register() {
    let code = compile("return (arg+1)*(arg+2);", "riscv");
    let (arg, mul) = (node(&code, "arg"), node(&code, "mul"));
    let (x, y) = (code.graph.in_(mul, 1), code.graph.in_(mul, 2));
    let fixed = [(arg, reg(A0)), (mul, reg(A0)), (x, reg(T0)), (y, reg(T1))];
    accepted(&code, &hand(&code, &RV_POOL, &fixed));
    // Both sums in t0: the later one overwrites the earlier while it is
    // still to be used.
    let fixed = [(arg, reg(A0)), (mul, reg(A0)), (x, reg(T0)), (y, reg(T0))];
    refused(
        &code,
        &hand(&code, &RV_POOL, &fixed),
        &[
            "mul",
            "from t0, which should hold the value of node",
            "but holds the value of node",
        ],
    );
    // The sum in the parameter's register, while the parameter is still
    // to be read by the other sum.
    let local = &code.local.as_ref().unwrap()[&fun(&code, "main")];
    let first = if local.iter().position(|&n| n == x) < local.iter().position(|&n| n == y) {
        x
    } else {
        y
    };
    let second = if first == x { y } else { x };
    let fixed = [
        (arg, reg(A0)),
        (mul, reg(A0)),
        (first, reg(A0)),
        (second, reg(T1)),
    ];
    refused(
        &code,
        &hand(&code, &RV_POOL, &fixed),
        &[
            &format!("node {} (addi)", second.nid()),
            "reads node",
            "from a0",
        ],
    );
}

/// The loop on RISC-V, allocated by hand: the sum in t1, `i` in t2, the
/// initial 0 made in t1 and copied to t2, the sum copied to a0 for the
/// return. Gives the program, the allocation and the named nodes.
struct Loop {
    code: CodeGen,
    alloc: Allocation,
    add: NodeId,
    zero_copy: NodeId,
}

fn rv_loop() -> Loop {
    let mut code = compile(
        "int sum=0; for(int i=0;i<arg;i++) sum+=i; return sum;",
        "riscv",
    );
    let main = fun(&code, "main");
    let (arg, sum, i) = (
        node(&code, "arg"),
        node(&code, "Phi_sum"),
        node(&code, "Phi_i"),
    );
    let (add, inc) = (node(&code, "add"), node(&code, "addi"));
    let zero = code.graph.in_(sum, 1);
    let ret = node(&code, "ret");
    let exit = code.graph.in_(ret, 0);
    let zero_copy = split(&mut code, zero, main, usize::MAX);
    let out = split(&mut code, sum, exit, usize::MAX);
    code.graph.set_def(ret, 2, Some(out));
    let fixed = [
        (arg, reg(A0)),
        (zero, reg(T1)),
        (zero_copy, reg(T2)),
        (sum, reg(T1)),
        (i, reg(T2)),
        (add, reg(T1)),
        (inc, reg(T2)),
        (out, reg(A0)),
    ];
    let alloc = hand(&code, &RV_POOL, &fixed);
    Loop {
        code,
        alloc,
        add,
        zero_copy,
    }
}

#[test]
fn accepts_a_loop() {
    let l = rv_loop();
    accepted(&l.code, &l.alloc);
}

#[test]
fn refuses_a_phi_input_not_in_the_phis_register() {
    // The new sum in t3: at the end of the loop's body, t1 still holds the
    // old one.
    let mut l = rv_loop();
    l.alloc.loc.insert(l.add, reg(T3));
    refused(
        &l.code,
        &l.alloc,
        &[
            "at the jump to L",
            "t1 (the phi's location) should hold input 2 of the phi",
            &format!("the value of node {} (add)", l.add.nid()),
        ],
    );
    // The copy of 0 in t0 instead of t2: on entry, t2 holds nothing.
    let mut l = rv_loop();
    l.alloc.loc.insert(l.zero_copy, reg(T0));
    refused(
        &l.code,
        &l.alloc,
        &[
            "block entry, at the jump to L",
            "t2 (the phi's location) should hold input 1",
            "but holds nothing",
        ],
    );
}

/// Two calls of `f` on RISC-V, and `arg` live across both: it is copied
/// to the callee-saved s1 first, which main's frame saves.
struct Calls {
    code: CodeGen,
    alloc: Allocation,
    keep: NodeId,
    main: NodeId,
}

fn rv_calls() -> Calls {
    let mut code = compile("val f={int x->x*2;}; return f(f(arg))+arg;", "riscv");
    let main = fun(&code, "main");
    let arg = node(&code, "arg");
    let add = node(&code, "add");
    let keep = split(&mut code, arg, main, 0);
    assert_eq!(code.graph.input(add, 1), Some(arg));
    code.graph.set_def(add, 1, Some(keep));
    // Everything else in a0: the parameters, the results, the sum, f's
    // shift.
    let mut fixed = vec![(keep, reg(S1))];
    for n in values(&code) {
        if n != keep {
            fixed.push((n, reg(A0)));
        }
    }
    let mut alloc = hand(&code, &RV_POOL, &fixed);
    alloc.frames.insert(
        main,
        Frame {
            callee_saved: RegMask::of(S1),
            ..Frame::default()
        },
    );
    Calls {
        code,
        alloc,
        keep,
        main,
    }
}

#[test]
fn accepts_calls() {
    let c = rv_calls();
    accepted(&c.code, &c.alloc);
}

#[test]
fn refuses_a_value_clobbered_by_a_call() {
    // The copy of `arg` in the caller-saved t0: the calls destroy it.
    let mut c = rv_calls();
    c.alloc.loc.insert(c.keep, reg(T0));
    refused(
        &c.code,
        &c.alloc,
        &[
            "add",
            "input 1",
            "from t0",
            "holds what node",
            "(call) clobbered",
        ],
    );
    // No copy at all: the sum reads `arg` from a0, where the second call's
    // result now is.
    let code = compile("val f={int x->x*2;}; return f(f(arg))+arg;", "riscv");
    let fixed: Vec<(NodeId, Loc)> = values(&code).into_iter().map(|n| (n, reg(A0))).collect();
    let alloc = hand(&code, &RV_POOL, &fixed);
    refused(
        &code,
        &alloc,
        &[
            "add",
            "input 1 reads node",
            "(arg) from a0",
            "holds the value of node",
        ],
    );
    // Nor may a value have the scratch register of copies between stack
    // slots.
    let code = compile("return arg+1;", "riscv");
    let fixed = [
        (node(&code, "arg"), reg(A0)),
        (node(&code, "addi"), reg(31)),
    ];
    refused(
        &code,
        &hand(&code, &RV_POOL, &fixed),
        &[
            "(addi)",
            "it is in t6, which holds the return address or is the scratch register",
        ],
    );
}

#[test]
fn accepts_a_spill_across_calls() {
    // `arg` spilled to a slot before the calls and reloaded after them.
    let mut code = compile("val f={int x->x*2;}; return f(f(arg))+arg;", "riscv");
    let main = fun(&code, "main");
    let (arg, add) = (node(&code, "arg"), node(&code, "add"));
    let spill = split(&mut code, arg, main, 0);
    let sum_block = code.graph.in_(add, 0);
    let reload = split(&mut code, spill, sum_block, 0);
    code.graph.set_def(add, 1, Some(reload));
    let mut fixed: Vec<(NodeId, Loc)> = vec![(spill, Loc::Slot(0)), (reload, reg(T0))];
    for n in values(&code) {
        if n != spill && n != reload {
            fixed.push((n, reg(A0)));
        }
    }
    let mut alloc = hand(&code, &RV_POOL, &fixed);
    alloc.frames.get_mut(&main).unwrap().slots = 1;
    accepted(&code, &alloc);
    // The slot outside the frame.
    alloc.frames.get_mut(&main).unwrap().slots = 0;
    refused(
        &code,
        &alloc,
        &["stack slot 0 is outside the frame (0 slots"],
    );
}

#[test]
fn refuses_an_unsaved_callee_saved_register() {
    let mut c = rv_calls();
    c.alloc.frames.insert(c.main, Frame::default());
    refused(
        &c.code,
        &c.alloc,
        &[
            "function main",
            "mov",
            "writes the callee-saved register s1, which the frame does not save",
        ],
    );
}

// x86-64 registers.
const RAX: u8 = 0;
const RCX: u8 = 1;
const RDX: u8 = 2;
const RDI: u8 = 7;
const FLAGS: u8 = 32;
const X86_POOL: [u8; 6] = [RCX, RDX, 6, 8, 9, 10];

/// `return arg+1;` on x86: `inc rdi` (two-address), then `mov rax, rdi`.
#[test]
fn x86_two_address() {
    let mut code = compile("return arg+1;", "x86_64_v2");
    let (arg, inc, ret) = (node(&code, "arg"), node(&code, "inc"), node(&code, "ret"));
    let main = fun(&code, "main");
    let out = split(&mut code, inc, main, usize::MAX);
    code.graph.set_def(ret, 2, Some(out));
    let fixed = [(arg, reg(RDI)), (inc, reg(RDI)), (out, reg(RAX))];
    accepted(&code, &hand(&code, &X86_POOL, &fixed));
    // The result straight into rax: `inc` cannot put it there.
    let fixed = [(arg, reg(RDI)), (inc, reg(RAX)), (out, reg(RAX))];
    refused(
        &code,
        &hand(&code, &X86_POOL, &fixed),
        &[
            "inc",
            "two-address: its result must be in the register of input 1",
            "rdi, but is in rax",
        ],
    );
}

/// The loop on x86: the comparison writes the flags, the branch reads
/// them; `add` and `inc` are two-address.
#[test]
fn x86_loop() {
    let mut code = compile(
        "int sum=0; for(int i=0;i<arg;i++) sum+=i; return sum;",
        "x86_64_v2",
    );
    let main = fun(&code, "main");
    let (arg, sum, i) = (
        node(&code, "arg"),
        node(&code, "Phi_sum"),
        node(&code, "Phi_i"),
    );
    let (add, inc, cmp) = (node(&code, "add"), node(&code, "inc"), node(&code, "cmp"));
    let zero = code.graph.in_(sum, 1);
    let ret = node(&code, "ret");
    let exit = code.graph.in_(ret, 0);
    let zero_copy = split(&mut code, zero, main, usize::MAX);
    let out = split(&mut code, sum, exit, usize::MAX);
    code.graph.set_def(ret, 2, Some(out));
    let fixed = [
        (arg, reg(RDI)),
        (zero, reg(RCX)),
        (zero_copy, reg(RDX)),
        (sum, reg(RCX)),
        (i, reg(RDX)),
        (add, reg(RCX)),
        (inc, reg(RDX)),
        (cmp, reg(FLAGS)),
        (out, reg(RAX)),
    ];
    let alloc = hand(&code, &X86_POOL, &fixed);
    accepted(&code, &alloc);
    // The sum's add into rsi: not its first operand's register.
    let mut wrong = alloc.clone();
    wrong.loc.insert(add, reg(6));
    refused(&code, &wrong, &["add", "two-address", "rcx, but is in rsi"]);
    // The comparison's result in a general register: it writes the flags.
    let mut wrong = alloc.clone();
    wrong.loc.insert(cmp, reg(RAX));
    refused(
        &code,
        &wrong,
        &["cmp", "its result is in rax, not in its mask {flags}"],
    );
}

/// A New on RISC-V: `calloc` takes the size in a1 and gives the object
/// in a0, and destroys every caller-saved register, so `arg`, stored
/// into the object after it, waits in s1.
#[test]
fn new_calls_calloc() {
    let mut code = compile(
        "struct S{int x;}; S !s = new S; s.x = arg; return s;",
        "riscv",
    );
    let main = fun(&code, "main");
    let (arg, store, size) = (node(&code, "arg"), node(&code, "st8"), node(&code, "#8"));
    let ptr = node(&code, "S");
    let keep = split(&mut code, arg, main, 0);
    assert_eq!(code.graph.input(store, 3), Some(arg));
    code.graph.set_def(store, 3, Some(keep));
    let fixed = [
        (arg, reg(A0)),
        (keep, reg(S1)),
        (size, reg(11)),
        (ptr, reg(A0)),
    ];
    let mut alloc = hand(&code, &RV_POOL, &fixed);
    alloc.frames.get_mut(&main).unwrap().callee_saved = RegMask::of(S1);
    accepted(&code, &alloc);
    // The object's pointer comes back in a0, nowhere else.
    let mut wrong = alloc.clone();
    wrong.loc.insert(ptr, reg(T0));
    refused(
        &code,
        &wrong,
        &["(S)", "the projection is in t0, not in its mask {a0}"],
    );
    // `arg` kept in t0: `calloc` may change it.
    let mut wrong = alloc.clone();
    wrong.loc.insert(keep, reg(T0));
    refused(
        &code,
        &wrong,
        &["st8", "input 3", "from t0", "(alloc) clobbered"],
    );
    // The size in a0.
    let mut wrong = alloc;
    wrong.loc.insert(size, reg(T1));
    refused(
        &code,
        &wrong,
        &["alloc", "input 1 is in t1, not in its mask {a1}"],
    );
}

/// A function of nine arguments on RISC-V: the ninth goes on the stack.
/// Each call's arguments are copied where the convention wants them
/// (a1-a7, and the outgoing stack argument 0) right before the call; the
/// callee reloads its ninth parameter from the incoming stack argument 0.
struct Stack {
    code: CodeGen,
    alloc: Allocation,
    /// The copies to the outgoing stack argument, one per call.
    out: Vec<NodeId>,
    /// f's ninth parameter.
    ninth: NodeId,
}

fn rv_stack_args() -> Stack {
    let mut code = compile(
        "val f={int a,int b,int c,int d,int e,int f2,int g,int h,int i->a+i;}; \
         return f(arg,arg,arg,arg,arg,arg,arg,arg,arg) + f(1,1,1,1,1,1,1,1,1);",
        "riscv",
    );
    let (main, f) = (fun(&code, "main"), fun(&code, "f"));
    let mut fixed: Vec<(NodeId, Loc)> = Vec::new();
    let mut out = Vec::new();
    for call in nodes(&code, "call") {
        let blk = code.graph.in_(call, 0);
        let first = code.graph.in_(call, 2);
        fixed.push((first, reg(A0)));
        for i in 3..=10 {
            let x = code.graph.in_(call, i);
            let s = split(&mut code, x, blk, usize::MAX);
            code.graph.set_def(call, i, Some(s));
            if i == 10 {
                fixed.push((s, Loc::OutArg(0)));
                out.push(s);
            } else {
                fixed.push((s, reg(A0 + (i as u8 - 2))));
            }
        }
    }
    // The first call's result waits in s1 through the second call.
    let sum = nodes(&code, "add")
        .into_iter()
        .find(|&n| code.graph.in_(n, 0) != f)
        .unwrap();
    let first_result = code.graph.in_(sum, 2);
    let result_block = block(&code.graph, first_result).unwrap();
    let keep = split(&mut code, first_result, result_block, usize::MAX);
    code.graph.set_def(sum, 2, Some(keep));
    fixed.push((keep, reg(S1)));
    // f: `a` in a0, `i` on the stack, reloaded into t0.
    let fsum = nodes(&code, "add")
        .into_iter()
        .find(|&n| code.graph.in_(n, 0) == f)
        .unwrap();
    let ninth = node(&code, "i");
    assert_eq!(code.graph.input(fsum, 1), Some(ninth));
    let reload = split(&mut code, ninth, f, 0);
    code.graph.set_def(fsum, 1, Some(reload));
    fixed.push((ninth, Loc::InArg(0)));
    fixed.push((reload, reg(T0)));
    // Everything else (main's `arg`, the results, the sums, `a`) in a0.
    for n in values(&code) {
        if !fixed.iter().any(|&(m, _)| m == n) {
            fixed.push((n, reg(A0)));
        }
    }
    let mut alloc = hand(&code, &RV_POOL, &fixed);
    let frame = alloc.frames.get_mut(&main).unwrap();
    frame.callee_saved = RegMask::of(S1);
    frame.out_args = 1;
    Stack {
        code,
        alloc,
        out,
        ninth,
    }
}

#[test]
fn accepts_stack_arguments() {
    let s = rv_stack_args();
    accepted(&s.code, &s.alloc);
}

#[test]
fn refuses_misplaced_stack_arguments() {
    // A stack argument in the wrong outgoing slot.
    let mut s = rv_stack_args();
    s.alloc.loc.insert(s.out[0], Loc::OutArg(1));
    s.alloc.frames.values_mut().for_each(|f| f.out_args = 2);
    refused(
        &s.code,
        &s.alloc,
        &[
            "(call)",
            "stack argument 0 (input 10",
            "must be a split at outgoing stack argument 0",
        ],
    );
    // No room for it in the frame.
    let mut s = rv_stack_args();
    s.alloc.frames.values_mut().for_each(|f| f.out_args = 0);
    refused(
        &s.code,
        &s.alloc,
        &["outgoing stack argument 0 is outside the frame"],
    );
    // The callee's ninth parameter where the caller did not put it.
    let mut s = rv_stack_args();
    s.alloc.loc.insert(s.ninth, Loc::InArg(1));
    let e = refused(
        &s.code,
        &s.alloc,
        &["function f", "(i)", "incoming stack argument 1"],
    );
    assert!(
        e.contains("outside the frame") || e.contains("is passed as incoming stack argument 0"),
        "{e}"
    );
    // The second call's copy to its stack argument left out of the
    // schedule: what the first call's copy left there is the callee's
    // once the call is made, gone.
    let mut s = rv_stack_args();
    let blk = block(&s.code.graph, s.out[1]).unwrap();
    s.code
        .local
        .as_mut()
        .unwrap()
        .get_mut(&blk)
        .unwrap()
        .retain(|&n| n != s.out[1]);
    refused(
        &s.code,
        &s.alloc,
        &[
            "(call)",
            "input 10 reads",
            "from outgoing stack argument 0",
            "holds what node",
            "(call) clobbered",
        ],
    );
}

/// ARM: the return address arrives in x30, which `ret` reads; it is no
/// value to allocate (the prologue of a function that calls keeps it), and
/// no value may have x30, nor x16, the scratch register of copies between
/// stack slots.
#[test]
fn arm_return_address() {
    const X0: u8 = 0;
    const ARM_POOL: [u8; 4] = [9, 10, 11, 12];
    let code = compile("return (arg+1)*(arg+2);", "arm");
    let arg = node(&code, "arg");
    let mul = code.graph.in_(node(&code, "ret"), 2);
    let (x, y) = (code.graph.in_(mul, 1), code.graph.in_(mul, 2));
    let fixed = [(arg, reg(X0)), (mul, reg(X0)), (x, reg(9)), (y, reg(10))];
    accepted(&code, &hand(&code, &ARM_POOL, &fixed));
    for (r, name) in [(30, "x30"), (16, "x16")] {
        let fixed = [(arg, reg(X0)), (mul, reg(X0)), (x, reg(r)), (y, reg(10))];
        refused(
            &code,
            &hand(&code, &ARM_POOL, &fixed),
            &[&format!("it is in {name}, which holds the return address")],
        );
    }
}

/// x86 division: the dividend in rax, the quotient back in rax, and rdx
/// (and the flags) destroyed, so `arg`, wanted after it, waits elsewhere.
#[test]
fn x86_division_clobbers_rdx() {
    let mut code = compile("return arg / 7 + arg;", "x86_64_v2");
    let g = &code.graph;
    let div = g
        .ids()
        .find(|&n| {
            !g.is_dead(n) && matches!(mach(g, n).map(|m| m.op), Some(Op::Div | Op::DivTotal))
        })
        .expect("a division");
    let (arg, ret, main) = (node(&code, "arg"), node(&code, "ret"), fun(&code, "main"));
    let seven = g.in_(div, 2);
    let sum = g.in_(ret, 2);
    assert_eq!((g.input(div, 1), g.input(sum, 1)), (Some(arg), Some(arg)));
    // Before the division: `arg` copied to rax for it, and to a register
    // the sum can use after it.
    let at = code.local.as_ref().unwrap()[&main]
        .iter()
        .position(|&n| n == div)
        .unwrap();
    let dividend = split(&mut code, arg, main, at);
    let keep = split(&mut code, arg, main, at);
    code.graph.set_def(div, 1, Some(dividend));
    code.graph.set_def(sum, 1, Some(keep));
    let out = split(&mut code, sum, main, usize::MAX);
    code.graph.set_def(ret, 2, Some(out));
    let fixed = |kept: u8| {
        [
            (arg, reg(RDI)),
            (dividend, reg(RAX)),
            (keep, reg(kept)),
            (seven, reg(RCX)),
            (div, reg(RAX)),
            (sum, reg(kept)),
            (out, reg(RAX)),
        ]
    };
    accepted(&code, &hand(&code, &X86_POOL, &fixed(6)));
    let e = refused(
        &code,
        &hand(&code, &X86_POOL, &fixed(RDX)),
        &[
            "input 1 reads node",
            "from rdx",
            "holds what node",
            "clobbered",
        ],
    );
    assert!(e.contains(&format!("node {} (", div.nid())), "{e}");
}

#[test]
fn refuses_phis_sharing_a_register() {
    // Both phis in t1: on entry both take 0 (t1 holds it), but they are
    // two values from then on.
    let mut l = rv_loop();
    let i = node(&l.code, "Phi_i");
    l.alloc.loc.insert(i, reg(T1));
    refused(
        &l.code,
        &l.alloc,
        &[
            "block L",
            "(Phi_i): shares t1 with node",
            "(Phi_sum), which enters the block at the same time",
        ],
    );
}

#[test]
fn refuses_a_value_on_one_path_only() {
    // The loop's test reads a copy of `arg` made at the end of the body:
    // on the first trip nothing made it.
    let mut l = rv_loop();
    let (arg, test) = (node(&l.code, "arg"), node(&l.code, "b<"));
    let body = l.code.graph.in_(l.add, 0);
    assert_eq!(l.code.graph.input(test, 2), Some(arg));
    let copy = split(&mut l.code, arg, body, usize::MAX);
    l.code.graph.set_def(test, 2, Some(copy));
    l.alloc.loc.insert(copy, reg(T0));
    refused(
        &l.code,
        &l.alloc,
        &[
            "(b<): input 2 reads node",
            "from t0",
            "holds different values on different paths into the block",
        ],
    );
    // Made before the loop too (in the same register), it is sound.
    let main = fun(&l.code, "main");
    let first = split(&mut l.code, arg, main, 0);
    l.alloc.loc.insert(first, reg(T0));
    accepted(&l.code, &l.alloc);
}

/// Programs of every kind, for the tests that take any program.
const PROGRAMS: [&str; 11] = [
    "return arg + 2.0;",
    "int x = arg/3; return arg+x*4+7;",
    "int a=arg+1; int b=arg+2; if( arg==1 ) b=b+a; else a=b+1; return a+b;",
    "int sum=0; for(int i=0;i<arg;i++) for(int j=0;j<i;j++) sum+=i*j; return sum;",
    "val f={int x->x*2;}; return f(f(arg))+arg;",
    "val f={int a,int b,int c,int d,int e,int f2,int g,int h,int i->a+i;}; \
         return f(arg,arg,arg,arg,arg,arg,arg,arg,arg) + f(1,1,1,1,1,1,1,1,1);",
    "val f={flt x->x*2.0;}; return f(arg*1.0)+f(1.5);",
    "val sq={int x->x*x;}; val dbl={int x->x+x;}; var g = arg ? sq : dbl; return g(arg)+g(3);",
    "struct S{int x; flt y;}; S !s = new S; s.x = arg; s.y = arg*0.5; return s;",
    "int[] !a = new int[arg+1]; for(int i=0;i<a#;i++) a[i]=i*i; return a[arg];",
    "while(1) { arg = arg + 1; if (arg > 10) break; } return arg;",
];

const TARGETS: [(&str, &str); 4] = [
    ("riscv", "SystemV"),
    ("arm", "SystemV"),
    ("x86_64_v2", "SystemV"),
    ("x86_64_v2", "Win64"),
];

/// Whatever the allocation, the checker answers: no location at all,
/// locations drawn at random (registers, slots, stack arguments, numbers
/// past the CPU's registers), on programs with floats, branches, loops,
/// calls, function pointers and objects, for every target. It never
/// panics, and it never accepts a random allocation of a program that
/// has values.
#[test]
fn never_panics() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for src in PROGRAMS {
        for (cpu, abi) in TARGETS {
            let mut code = CodeGen::new(src);
            code.parse()
                .and_then(|c| c.opto())
                .and_then(|c| c.type_check())
                .and_then(|c| c.inst_select(cpu, abi))
                .and_then(|c| c.legalize())
                .and_then(|c| c.gcm())
                .and_then(|c| c.local_sched())
                .unwrap_or_else(|e| panic!("{src:?} {cpu}: {e:?}"));
            let empty = Allocation::default();
            assert!(check_code(&code, &empty).is_err(), "{src:?} {cpu}");
            for _ in 0..20 {
                let mut alloc = Allocation::default();
                for f in funs(&code) {
                    alloc.frames.insert(f, Frame::default());
                }
                for n in values(&code) {
                    let r = next();
                    let l = match r % 8 {
                        0 => Loc::Slot((r >> 8) as u32 % 3),
                        1 => Loc::InArg((r >> 8) as u32 % 2),
                        2 => Loc::OutArg((r >> 8) as u32 % 2),
                        3 => Loc::Reg((r >> 8) as u8),
                        _ => Loc::Reg((r >> 8) as u8 % 40),
                    };
                    alloc.loc.insert(n, l);
                }
                for f in alloc.frames.values_mut() {
                    f.slots = (next() % 4) as u32;
                    f.out_args = (next() % 2) as u32;
                    f.callee_saved = RegMask(u128::from(next()));
                }
                let result = check_code(&code, &alloc);
                assert!(
                    result.is_err() || values(&code).is_empty(),
                    "{src:?} {cpu}: a random allocation accepted"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// A sound allocation of any program: every value is stored to a slot of
// its own right after it is made, and loaded into a register right before
// each instruction that reads it. Nothing but an instruction's operands
// and result is ever in a register (besides the flags, which go straight
// from a comparison to its user), so any program gets one; the checker
// must accept them all.

fn t_bank(t: Target, lt: LType) -> RegMask {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::bank(lt),
        Cpu::Riscv => cpu::riscv::bank(lt),
        Cpu::Arm => cpu::arm::bank(lt),
    }
}

fn t_callee_saved(t: Target) -> RegMask {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::WRITABLE
            .or(cpu::x86_64::XMMS)
            .without(cpu::x86_64::caller_saved(t.abi)),
        Cpu::Riscv => cpu::riscv::callee_saved(),
        Cpu::Arm => cpu::arm::CALLEE_SAVED,
    }
}

fn t_two_address(t: Target, m: &Mach) -> Option<usize> {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::ops::two_address(m),
        Cpu::Riscv => cpu::riscv::ops::two_address(m),
        Cpu::Arm => cpu::arm::ops::two_address(m),
    }
}

fn t_arg_masks(t: Target, kinds: &[LType]) -> Vec<Option<RegMask>> {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::arg_masks(t.abi, kinds),
        Cpu::Riscv => cpu::riscv::arg_masks(kinds),
        Cpu::Arm => cpu::arm::arg_masks(kinds),
    }
}

fn t_ret_mask(t: Target, lt: LType) -> RegMask {
    match t.cpu {
        Cpu::X86_64 => cpu::x86_64::ret_mask(lt),
        Cpu::Riscv => cpu::riscv::ret_mask(lt),
        Cpu::Arm => cpu::arm::ret_mask(lt),
    }
}

fn lt_of(code: &CodeGen, n: NodeId) -> LType {
    let g = &code.graph;
    g.ty_opt(n)
        .map_or(LType::S64, |t| chapter21::mach::select::ltype(&g.types, t))
}

/// The first register of `mask` not in `used`, not callee-saved if that
/// can be.
fn pick(t: Target, mask: RegMask, used: RegMask) -> u8 {
    // Not the return address's register, nor the scratch register of
    // copies between stack slots.
    let reserved = match t.cpu {
        Cpu::X86_64 => RegMask::EMPTY,
        Cpu::Riscv => RegMask::of(1).or(RegMask::of(31)),
        Cpu::Arm => RegMask::of(30).or(RegMask::of(16)),
    };
    let free = mask.without(used).without(reserved);
    free.without(t_callee_saved(t))
        .first()
        .or(free.first())
        .unwrap_or_else(|| panic!("no register left in {mask:?}"))
}

/// The control nodes that end block `head` (as the checker walks them).
fn enders(code: &CodeGen, head: NodeId) -> Vec<NodeId> {
    let g = &code.graph;
    let mut out = Vec::new();
    let mut c = head;
    loop {
        if matches!(g.role(c), NodeKind::Return) {
            break;
        }
        let next = g
            .outputs(c)
            .iter()
            .copied()
            .filter(|&u| {
                chapter21::node::is_cfg(g, u)
                    && !g.is_dead(u)
                    && !chapter21::gcm::is_block_head(g, u)
            })
            .min();
        match next {
            Some(u) => {
                out.push(u);
                c = u;
            }
            None => break,
        }
    }
    out
}

/// A split of `x` in block `blk` (not scheduled). Its low-level type is
/// the value's: ARM reads an operand's bank from it.
fn mk_split(code: &mut CodeGen, x: NodeId, blk: NodeId) -> NodeId {
    let ty = code.graph.ty(x);
    let lt = match mach(&code.graph, x) {
        Some(m) => m.ty[0],
        None => lt_of(code, x),
    };
    add_mach(
        &mut code.graph,
        Mach::new(NodeKind::ReadOnly, Op::Split, lt),
        &[Some(blk), Some(x)],
        ty,
    )
}

fn spill_everything(code: &mut CodeGen) -> Allocation {
    let t = code.target.unwrap();
    let regs = t_bank(t, LType::S64).or(t_bank(t, LType::F64));
    let vals = values(code);
    let mut alloc = Allocation::default();
    for f in funs(code) {
        alloc.frames.insert(f, Frame::default());
    }
    // Where each value is made.
    let mut slots: std::collections::HashMap<NodeId, u32> = Default::default();
    let heads: Vec<NodeId> = {
        let mut h: Vec<NodeId> = code.local.as_ref().unwrap().keys().copied().collect();
        h.retain(|&b| b != code.graph.start() && !matches!(code.graph.role(b), NodeKind::Stop));
        h.sort();
        h
    };
    let fun_of = |code: &CodeGen, mut b: NodeId| -> NodeId {
        let g = &code.graph;
        for _ in 0..g.len() {
            if matches!(g.role(b), NodeKind::Fun { .. }) {
                return b;
            }
            b = if matches!(g.role(b), NodeKind::Region | NodeKind::Loop) {
                g.in_(b, 1)
            } else {
                g.in_(b, 0)
            };
        }
        panic!("no function above {}", b.nid())
    };
    // Phis: registers of their own in their block; parameters: where the
    // convention passes them.
    for &b in &heads {
        let g = &code.graph;
        let mut used = RegMask::EMPTY;
        let mut phis: Vec<NodeId> = g
            .outputs(b)
            .iter()
            .copied()
            .filter(|p| {
                vals.contains(p)
                    && matches!(g.role(*p), NodeKind::Phi { .. })
                    && g.input(*p, 0) == Some(b)
            })
            .collect();
        phis.sort();
        phis.dedup();
        for p in phis {
            let l = match (g.role(p), mach(g, p)) {
                (
                    NodeKind::Phi {
                        parm: Some(idx), ..
                    },
                    Some(m),
                ) => match cpu::out_mask(t, g, p, m) {
                    Some(mask) => Loc::Reg(mask.first().unwrap()),
                    None => {
                        let NodeKind::Fun { sig, .. } = *g.role(b) else {
                            panic!()
                        };
                        let (args, _, _) = g.types.fun_parts(sig).unwrap();
                        let kinds: Vec<LType> = g
                            .types
                            .tuple_elems(args)
                            .iter()
                            .map(|&ty| chapter21::mach::select::ltype(&g.types, ty))
                            .collect();
                        let masks = t_arg_masks(t, &kinds);
                        let i = *idx as usize - 2;
                        match masks[i] {
                            Some(mask) => Loc::Reg(mask.first().unwrap()),
                            None => {
                                Loc::InArg(masks[..i].iter().filter(|m| m.is_none()).count() as u32)
                            }
                        }
                    }
                },
                _ => {
                    let r = pick(t, t_bank(t, lt_of(code, p)), used);
                    used = used.or(RegMask::of(r));
                    Loc::Reg(r)
                }
            };
            alloc.loc.insert(p, l);
        }
    }
    let mut out_args: std::collections::HashMap<NodeId, u32> = Default::default();
    let mut spill_of: std::collections::HashMap<NodeId, NodeId> = Default::default();
    // Pass 1: the store (spill) of every value, so that pass 2 finds it
    // whatever order it takes the blocks in.
    for &b in &heads {
        let list = code
            .local
            .as_ref()
            .unwrap()
            .get(&b)
            .cloned()
            .unwrap_or_default();
        let mut defs: Vec<NodeId> = code
            .graph
            .outputs(b)
            .iter()
            .copied()
            .filter(|p| {
                alloc.loc.contains_key(p)
                    && matches!(code.graph.role(*p), NodeKind::Phi { .. })
                    && code.graph.input(*p, 0) == Some(b)
            })
            .collect();
        defs.sort();
        defs.dedup();
        defs.extend(list.iter().copied().filter(|n| vals.contains(n)));
        for v in defs {
            if matches!(alloc.loc.get(&v), Some(Loc::InArg(_))) {
                continue;
            }
            let flags = match code.graph.kind(v) {
                NodeKind::Mach(m) => cpu::out_mask(t, &code.graph, v, m)
                    .is_some_and(|mask| mask.without(regs) == mask),
                _ => false,
            };
            if flags {
                continue;
            }
            let s = mk_split(code, v, b);
            let f = fun_of(code, b);
            let k = slots.entry(f).or_insert(0);
            alloc.loc.insert(s, Loc::Slot(*k));
            *k += 1;
            spill_of.insert(v, s);
        }
    }
    // Pass 2: each block rewritten.
    for &b in &heads {
        let f = fun_of(code, b);
        let old = code
            .local
            .as_ref()
            .unwrap()
            .get(&b)
            .cloned()
            .unwrap_or_default();
        let mut new = Vec::new();
        // The phis' (parameters') spills.
        let mut phis: Vec<NodeId> = code
            .graph
            .outputs(b)
            .iter()
            .copied()
            .filter(|p| {
                spill_of.contains_key(p)
                    && matches!(code.graph.role(*p), NodeKind::Phi { .. })
                    && code.graph.input(*p, 0) == Some(b)
            })
            .collect();
        phis.sort();
        phis.dedup();
        for p in phis {
            new.push(spill_of[&p]);
        }
        let ends = enders(code, b);
        for n in old.iter().copied().chain(ends.iter().copied()) {
            let is_end = ends.contains(&n);
            if let Some(m) = mach(&code.graph, n).cloned() {
                if !matches!(
                    m.op,
                    Op::Parm | Op::Proj | Op::CallEnd | Op::Fun | Op::Split
                ) {
                    // The operands, fixed registers first.
                    let g = &code.graph;
                    let call = matches!(m.op, Op::Call | Op::CallR);
                    let mut ops: Vec<(usize, NodeId, Option<RegMask>)> = Vec::new();
                    for i in 1..g.n_ins(n) {
                        let Some(x) = g.input(n, i) else { continue };
                        match cpu::in_mask(t, g, n, &m, i) {
                            Some(mask) => ops.push((i, x, Some(mask))),
                            None if call && i >= 2 && vals.contains(&x) => ops.push((i, x, None)),
                            None => {}
                        }
                    }
                    ops.sort_by_key(|&(i, _, mask)| (mask.map_or(u32::MAX, |m| m.len()), i));
                    let mut used = RegMask::EMPTY;
                    let mut loaded: Vec<(NodeId, NodeId, u8)> = Vec::new();
                    let mut stack_k = 0u32;
                    let mut stack_ops: Vec<(usize, NodeId)> = ops
                        .iter()
                        .filter(|o| o.2.is_none())
                        .map(|o| (o.0, o.1))
                        .collect();
                    stack_ops.sort();
                    let mut reg_of_operand: Vec<(usize, u8)> = Vec::new();
                    for (i, x, mask) in ops {
                        let Some(mask) = mask else { continue };
                        let src = match spill_of.get(&x) {
                            Some(&s) => s,
                            None if matches!(alloc.loc.get(&x), Some(Loc::InArg(_))) => x,
                            None => continue, // flags
                        };
                        let mask = mask.and(regs.or(mask.without(regs)));
                        if let Some(&(_, r, reg)) =
                            loaded.iter().find(|l| l.0 == x && mask.contains(l.2))
                        {
                            code.graph.set_def(n, i, Some(r));
                            reg_of_operand.push((i, reg));
                            continue;
                        }
                        let reg = pick(t, mask.and(regs), used);
                        used = used.or(RegMask::of(reg));
                        let r = mk_split(code, src, b);
                        alloc.loc.insert(r, Loc::Reg(reg));
                        new.push(r);
                        code.graph.set_def(n, i, Some(r));
                        loaded.push((x, r, reg));
                        reg_of_operand.push((i, reg));
                    }
                    for (i, x) in stack_ops {
                        let src = spill_of.get(&x).copied().unwrap_or(x);
                        let reg = pick(t, t_bank(t, lt_of(code, x)), used);
                        used = used.or(RegMask::of(reg));
                        let r = mk_split(code, src, b);
                        alloc.loc.insert(r, Loc::Reg(reg));
                        new.push(r);
                        let o = mk_split(code, r, b);
                        alloc.loc.insert(o, Loc::OutArg(stack_k));
                        new.push(o);
                        code.graph.set_def(n, i, Some(o));
                        stack_k += 1;
                    }
                    let e = out_args.entry(f).or_insert(0);
                    *e = (*e).max(stack_k);
                    // The result.
                    if vals.contains(&n) {
                        let g = &code.graph;
                        let mask = cpu::out_mask(t, g, n, &m).unwrap();
                        let reg = match t_two_address(t, &m) {
                            Some(i) => reg_of_operand
                                .iter()
                                .find(|o| o.0 == i)
                                .map(|o| o.1)
                                .unwrap_or_else(|| pick(t, mask, RegMask::EMPTY)),
                            None => pick(t, mask, RegMask::EMPTY),
                        };
                        alloc.loc.insert(n, Loc::Reg(reg));
                    }
                }
            }
            // Projections: where their node leaves them.
            if !alloc.loc.contains_key(&n) && vals.contains(&n) {
                let g = &code.graph;
                let parent = g.in_(n, 0);
                let reg = match (g.role(parent), mach(g, parent)) {
                    (NodeKind::New { .. }, Some(m)) => {
                        cpu::out_mask(t, g, parent, m).unwrap().first().unwrap()
                    }
                    _ => t_ret_mask(t, lt_of(code, n)).first().unwrap(),
                };
                alloc.loc.insert(n, Loc::Reg(reg));
            }
            if !is_end {
                new.push(n);
                if let Some(&s) = spill_of.get(&n) {
                    new.push(s);
                }
            }
        }
        // Into a merge: each phi's input loaded into the phi's register.
        let last = ends.last().copied().unwrap_or(b);
        let succ: Vec<NodeId> = code
            .graph
            .outputs(last)
            .iter()
            .copied()
            .filter(|&s| matches!(code.graph.role(s), NodeKind::Region | NodeKind::Loop))
            .collect();
        for s in succ {
            let g = &code.graph;
            let i = (1..g.n_ins(s))
                .find(|&i| g.input(s, i) == Some(last))
                .unwrap();
            let mut phis: Vec<NodeId> = g
                .outputs(s)
                .iter()
                .copied()
                .filter(|p| {
                    vals.contains(p) && matches!(g.role(*p), NodeKind::Phi { parm: None, .. })
                })
                .collect();
            phis.sort();
            phis.dedup();
            for p in phis {
                let x = code.graph.in_(p, i);
                let src = spill_of.get(&x).copied().unwrap_or(x);
                let r = mk_split(code, src, b);
                alloc.loc.insert(r, alloc.loc[&p]);
                new.push(r);
            }
        }
        code.local.as_mut().unwrap().insert(b, new);
    }
    for (f, frame) in alloc.frames.iter_mut() {
        frame.slots = slots.get(f).copied().unwrap_or(0);
        frame.out_args = out_args.get(f).copied().unwrap_or(0);
    }
    // The callee-saved registers written.
    let saved = t_callee_saved(t);
    let locs: Vec<(NodeId, Loc)> = alloc.loc.iter().map(|(&n, &l)| (n, l)).collect();
    for (n, l) in locs {
        if let Loc::Reg(r) = l {
            if saved.contains(r) {
                let mut b = block(&code.graph, n).unwrap();
                if !matches!(code.graph.role(b), NodeKind::Fun { .. }) {
                    b = fun_of(code, b);
                }
                let frame = alloc.frames.get_mut(&b).unwrap();
                frame.callee_saved = frame.callee_saved.or(RegMask::of(r));
            }
        }
    }
    alloc
}

/// Every program of [`never_panics`], on every target, spilled
/// everywhere: accepted.
#[test]
fn accepts_spilling_everything() {
    for src in PROGRAMS {
        for (cpu, abi) in TARGETS {
            let mut code = CodeGen::new(src);
            code.parse()
                .and_then(|c| c.opto())
                .and_then(|c| c.type_check())
                .and_then(|c| c.inst_select(cpu, abi))
                .and_then(|c| c.legalize())
                .and_then(|c| c.gcm())
                .and_then(|c| c.local_sched())
                .unwrap_or_else(|e| panic!("{src:?} {cpu}: {e:?}"));
            let alloc = spill_everything(&mut code);
            if let Err(e) = check_code(&code, &alloc) {
                panic!("{src:?} {cpu} {abi}: {e}\n{}", code.asm());
            }
            // One store left out (the first in main's entry): refused.
            let main = fun(&code, "main");
            let list = code.local.as_mut().unwrap().get_mut(&main).unwrap();
            let at = list
                .iter()
                .position(|n| matches!(alloc.loc.get(n), Some(Loc::Slot(_))))
                .expect("a store");
            let gone = list.remove(at);
            let e = check_code(&code, &alloc).expect_err("a store left out");
            assert!(
                e.contains("stack slot"),
                "{src:?} {cpu} {abi}, node {}: {e}",
                gone.nid()
            );
        }
    }
}
