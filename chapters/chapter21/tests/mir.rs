//! Machine-IR passes (`chapter21::mir`): the view at every hook, hooks in
//! order on every CPU, mutations that commit or roll back whole,
//! properties set only with proof, analyses only where they exist, and a
//! final verifier no pass can skip. The programs are Simple's chapter 21
//! programs (`tests/progs/*.smp`).

use chapter21::mir::{
    self, Analysis, AnalysisResult, Hook, InstFlags, Level, MachinePass, MirError, Operand,
    PassContext, PassDesc, Preserved, Proof, Property, Reg, RegOperand,
};
use chapter21::CodeGen;
use std::cell::RefCell;
use std::rc::Rc;

const CPUS: [&str; 3] = ["x86_64_v2", "riscv", "arm"];

/// Simple's chapter 21 programs, by name.
fn progs() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/progs");
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "smp"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// The programs, and an infinite loop (whose `Never` ends a block with
/// two ways out).
fn programs() -> Vec<(String, String)> {
    let mut out = progs();
    let forever = "struct S { int i; }; S !s = new S; while(1) s.i++;";
    out.push(("infinite".into(), forever.into()));
    out
}

/// A program with a loop, a call, a float and an `if`.
const SMALL: &str = "
val sq = { int x -> x*x; };
int s = 0;
for (int i = 0; i < arg; i++) { if (i & 1) s = s + sq(i); else s = s - 1; }
flt f = arg;
return s + (f*0.5 > 2.0 ? 1 : 0);
";

/// Every phase, with `setup` registering passes first.
fn compile(
    src: &str,
    cpu: &str,
    setup: impl FnOnce(&mut mir::Pipeline),
) -> Result<CodeGen, String> {
    let mut code = CodeGen::new(src);
    setup(&mut code.mir);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select(cpu, "SystemV"))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .and_then(|c| c.reg_alloc())
        .and_then(|c| c.encode())
        .map_err(|e| format!("{cpu}: {e}"))?;
    Ok(code)
}

fn object(code: &CodeGen) -> Vec<u8> {
    code.object().unwrap()
}

/// A pass made of a closure.
struct Closure<F> {
    desc: PassDesc,
    run: F,
}

impl<F: FnMut(&mut PassContext<'_>) -> Result<Preserved, String>> MachinePass for Closure<F> {
    fn desc(&self) -> PassDesc {
        self.desc.clone()
    }
    fn run(&mut self, cx: &mut PassContext<'_>) -> Result<Preserved, String> {
        (self.run)(cx)
    }
}

fn pass<F>(id: &'static str, hook: Hook, level: Level, run: F) -> Box<dyn MachinePass>
where
    F: FnMut(&mut PassContext<'_>) -> Result<Preserved, String> + 'static,
{
    Box::new(Closure {
        desc: PassDesc {
            id,
            hook,
            level,
            requires: Vec::new(),
            preserves: Preserved::None,
            deterministic: true,
        },
        run,
    })
}

#[test]
fn every_view_of_every_program_verifies() {
    for cpu in CPUS {
        for (name, src) in programs() {
            let views = Rc::new(RefCell::new(0usize));
            let seen = views.clone();
            let code = compile(&src, cpu, |p| {
                for hook in Hook::ALL {
                    let seen = seen.clone();
                    let id: &'static str = Box::leak(format!("check-{hook}").into_boxed_str());
                    p.register(pass(id, hook, Level::Function, move |cx| {
                        let mf = cx.function();
                        if let Err(e) = mir::verify(mf) {
                            return Err(format!("{hook}: {e}\n{mf}"));
                        }
                        *seen.borrow_mut() += 1;
                        Ok(Preserved::All)
                    }))
                    .unwrap();
                }
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                code.mir.log.is_empty(),
                "{name} on {cpu}: {}",
                code.mir.log_text()
            );
            assert!(*views.borrow() >= 9, "{name} on {cpu}");
        }
    }
}

#[test]
fn every_hook_is_reached_in_order_on_every_cpu() {
    for cpu in CPUS {
        let order = Rc::new(RefCell::new(Vec::new()));
        let code = compile(SMALL, cpu, |p| {
            for hook in Hook::ALL {
                let order = order.clone();
                let id: &'static str = Box::leak(format!("trace-{hook}").into_boxed_str());
                p.register(pass(id, hook, Level::Module, move |cx| {
                    order.borrow_mut().push(cx.hook());
                    Ok(Preserved::All)
                }))
                .unwrap();
            }
        })
        .unwrap();
        assert_eq!(*order.borrow(), Hook::ALL.to_vec(), "{cpu}");
        let mut expected: Vec<&str> = Hook::ALL.iter().map(|h| h.name()).collect();
        expected.push("final_verify");
        assert_eq!(code.mir.trace, expected, "{cpu}");
    }
}

/// Registers at `hook` a function pass that makes one mutation with
/// `edit` and records what the commit answered and whether the function
/// came back exactly as it was.
fn one_mutation<E>(
    hook: Hook,
    edit: E,
) -> (impl FnOnce(&mut mir::Pipeline), Rc<RefCell<Vec<String>>>)
where
    E: Fn(&mut mir::Mutation) -> Result<(), MirError> + 'static,
{
    let answers = Rc::new(RefCell::new(Vec::new()));
    let out = answers.clone();
    let setup = move |p: &mut mir::Pipeline| {
        p.register(pass("breaker", hook, Level::Function, move |cx| {
            let f = cx.function_index().unwrap();
            let before = cx.function().clone();
            let mut m = cx.begin(f);
            edit(&mut m).map_err(|e| e.to_string())?;
            let answer = cx.commit(m);
            if answer.is_err() {
                // Exactly as before: blocks, instructions, operands, edges,
                // properties.
                assert!(
                    *cx.function() == before,
                    "a refused mutation left the function changed"
                );
            }
            out.borrow_mut().push(match answer {
                Ok(()) => "committed".to_string(),
                Err(e) => e.to_string(),
            });
            Ok(Preserved::None)
        }))
        .unwrap();
    };
    (setup, answers)
}

#[test]
fn a_mutation_that_breaks_the_cfg_is_rolled_back() {
    for cpu in CPUS {
        let plain = object(&compile(SMALL, cpu, |_| {}).unwrap());
        // Drop the entry block's edge to its successor (both lists): its
        // jump still goes there.
        let (setup, answers) = one_mutation(Hook::PostRegalloc, |m| {
            let entry = m.function().order[0];
            let succ = m.function().block(entry).succs[0];
            m.remove_edge(entry, succ)
        });
        let code = compile(SMALL, cpu, setup).unwrap();
        let answers = answers.borrow();
        assert!(!answers.is_empty());
        for a in answers.iter() {
            assert!(
                a.contains("rolled back") && a.contains("(terminators)"),
                "{cpu}: {a}"
            );
        }
        assert!(code.mir.log_text().contains("machine verifier"), "{cpu}");
        assert_eq!(object(&code), plain, "{cpu}: the object changed");

        // Only one side of an edge: the structural pre-check refuses.
        let (setup, answers) = one_mutation(Hook::PostScheduler, |m| {
            let b = m.create_block();
            let entry = m.function().order[0];
            m.add_edge(entry, b)?;
            m.erase_block(b)
        });
        let code = compile(SMALL, cpu, setup).unwrap();
        for a in answers.borrow().iter() {
            assert!(
                a.contains("(structure)") && a.contains("not laid out"),
                "{cpu}: {a}"
            );
        }
        assert_eq!(object(&code), plain, "{cpu}: the object changed");
    }
}

#[test]
fn a_mutation_that_reads_an_undefined_register_is_rolled_back() {
    for cpu in CPUS {
        let plain = object(&compile(SMALL, cpu, |_| {}).unwrap());
        // After allocation: an add that reads a register nothing writes.
        let (setup, answers) = one_mutation(Hook::PostRegalloc, |m| {
            let mf = m.function();
            let written: Vec<Reg> = mf
                .all_insts()
                .flat_map(|i| mf.inst(i).defs().map(|r| r.reg).collect::<Vec<_>>())
                .collect();
            let r = (0..32u8)
                .find(|&r| !written.contains(&Reg::Phys(r)))
                .unwrap();
            let entry = mf.order[0];
            let last = *mf.block(entry).insts.last().unwrap();
            let i = m.create_inst(entry, Some(last), "add", InstFlags::default())?;
            let mask = chapter21::mach::RegMask::of(r);
            m.append_operand(i, Operand::Reg(RegOperand::def(Reg::Phys(r), mask)))?;
            m.append_operand(i, Operand::Reg(RegOperand::use_(Reg::Phys(r), mask)))?;
            Ok(())
        });
        let code = compile(SMALL, cpu, setup).unwrap();
        for a in answers.borrow().iter() {
            assert!(
                a.contains("(defined on every path)") && a.contains("not written on every path"),
                "{cpu}: {a}"
            );
        }
        assert_eq!(object(&code), plain, "{cpu}: the object changed");

        // Before allocation: a fresh virtual register.
        let (setup, answers) = one_mutation(Hook::PreRegalloc, |m| {
            let v = m.create_vreg();
            let mf = m.function();
            let b = *mf.order.last().unwrap();
            let last = *mf.block(b).insts.last().unwrap();
            let i = m.create_inst(b, Some(last), "add", InstFlags::default())?;
            let all = chapter21::mach::RegMask(u128::MAX);
            m.append_operand(i, Operand::Reg(RegOperand::use_(v, all)))?;
            Ok(())
        });
        let code = compile(SMALL, cpu, setup).unwrap();
        assert!(!answers.borrow().is_empty());
        for a in answers.borrow().iter() {
            assert!(a.contains("(defined on every path)"), "{cpu}: {a}");
        }
        assert_eq!(object(&code), plain, "{cpu}: the object changed");
    }
}

#[test]
fn a_valid_edit_that_the_code_cannot_carry_is_rolled_back_too() {
    // A new instruction after scheduling verifies, but only erasing and
    // moving scheduled instructions reaches the code.
    let plain = object(&compile(SMALL, "riscv", |_| {}).unwrap());
    let (setup, answers) = one_mutation(Hook::PostRegalloc, |m| {
        let entry = m.function().order[0];
        let last = *m.function().block(entry).insts.last().unwrap();
        m.create_inst(entry, Some(last), "nop", InstFlags::default())?;
        Ok(())
    });
    let code = compile(SMALL, "riscv", setup).unwrap();
    for a in answers.borrow().iter() {
        assert!(a.contains("gained a new instruction"), "{a}");
    }
    assert_eq!(object(&code), plain);
    // At post_isel the view is for looking: the same edit commits.
    let (setup, answers) = one_mutation(Hook::PostIsel, |m| {
        let entry = m.function().order[0];
        let last = *m.function().block(entry).insts.last().unwrap();
        m.create_inst(entry, Some(last), "nop", InstFlags::default())?;
        Ok(())
    });
    let code = compile(SMALL, "riscv", setup).unwrap();
    assert_eq!(*answers.borrow(), ["committed"]);
    assert_eq!(object(&code), plain);
}

#[test]
fn a_property_claimed_falsely_is_refused() {
    for cpu in CPUS {
        let answers = Rc::new(RefCell::new(Vec::new()));
        let out = answers.clone();
        compile(SMALL, cpu, |p| {
            let out2 = out.clone();
            p.register(pass(
                "claims-ssa",
                Hook::PostRegalloc,
                Level::Function,
                move |cx| {
                    let f = cx.function_index().unwrap();
                    assert!(!cx.function().props.has(Property::IsSsa));
                    let mut m = cx.begin(f);
                    // Registers are written many times after allocation.
                    let claim = m.set_property(Property::IsSsa, Proof::StructuralCheck);
                    out.borrow_mut().push(format!("{claim:?}"));
                    // Giving a guarantee up is always allowed.
                    m.set_property(Property::NoVregs, Proof::Invalidation)
                        .unwrap();
                    cx.commit(m).unwrap();
                    assert!(!cx.function().props.has(Property::NoVregs));
                    // And claiming it back runs the check, which holds.
                    let mut m = cx.begin(f);
                    m.set_property(Property::NoVregs, Proof::StructuralCheck)
                        .unwrap();
                    cx.commit(m).unwrap();
                    Ok(Preserved::None)
                },
            ))
            .unwrap();
            p.register(pass(
                "claims-no-phis",
                Hook::PostIsel,
                Level::Function,
                move |cx| {
                    let f = cx.function_index().unwrap();
                    let mut m = cx.begin(f);
                    let claim = m.set_property(Property::NoPhis, Proof::StructuralCheck);
                    out2.borrow_mut().push(format!("{claim:?}"));
                    // Exact kill flags are a claim too: only once they are set.
                    let mut m = cx.begin(f);
                    let claim = m.set_property(Property::TracksLiveness, Proof::StructuralCheck);
                    out2.borrow_mut().push(format!("{claim:?}"));
                    Ok(Preserved::All)
                },
            ))
            .unwrap();
            p.register(pass(
                "tracks-liveness",
                Hook::PreRegalloc,
                Level::Function,
                |cx| {
                    let f = cx.function_index().unwrap();
                    let mut m = cx.begin(f);
                    m.mark_liveness_flags();
                    m.set_property(Property::TracksLiveness, Proof::StructuralCheck)
                        .map_err(|e| e.to_string())?;
                    cx.commit(m).map_err(|e| e.to_string())?;
                    assert!(cx.function().props.has(Property::TracksLiveness));
                    Ok(Preserved::Cfg)
                },
            ))
            .unwrap();
        })
        .unwrap();
        let answers = answers.borrow();
        assert_eq!(answers.len(), 3, "{cpu}");
        assert!(
            answers[0].contains("PropertyRefused") && answers[0].contains("NoPhis"),
            "{cpu}: {}",
            answers[0]
        );
        assert!(
            answers[1].contains("PropertyRefused") && answers[1].contains("TracksLiveness"),
            "{cpu}: {}",
            answers[1]
        );
        assert!(
            answers[2].contains("PropertyRefused") && answers[2].contains("IsSsa"),
            "{cpu}: {}",
            answers[2]
        );
    }
}

#[test]
fn an_analysis_asked_for_too_early_is_refused() {
    // At registration...
    let mut p = mir::Pipeline::default();
    let mut early = Closure {
        desc: PassDesc {
            id: "needs-liveness",
            hook: Hook::PostIsel,
            level: Level::Function,
            requires: vec![Analysis::Liveness],
            preserves: Preserved::All,
            deterministic: true,
        },
        run: |_: &mut PassContext<'_>| Ok(Preserved::All),
    };
    assert_eq!(
        p.register(Box::new(Closure {
            desc: early.desc.clone(),
            run: |_: &mut PassContext<'_>| Ok(Preserved::All),
        })),
        Err(MirError::Unavailable {
            analysis: Analysis::Liveness,
            hook: Hook::PostIsel
        })
    );
    early.desc.hook = Hook::PostRegalloc;
    assert_eq!(p.register(Box::new(early)), Ok(()));
    // ...and when asked for.
    let seen = Rc::new(RefCell::new(Vec::new()));
    let out = seen.clone();
    compile(SMALL, "arm", |p| {
        for hook in [Hook::PostIsel, Hook::PreScheduler, Hook::PostRegalloc] {
            let out = out.clone();
            let id: &'static str = Box::leak(format!("asks-{hook}").into_boxed_str());
            p.register(pass(id, hook, Level::Function, move |cx| {
                let f = cx.function_index().unwrap();
                let live = cx.analysis(f, Analysis::Liveness).map(|_| ());
                out.borrow_mut()
                    .push((hook, live.map_err(|e| e.to_string())));
                if let Ok(AnalysisResult::Loops(l)) = cx.analysis(f, Analysis::Loops) {
                    assert_eq!(l.headers.len(), 1, "one loop");
                }
                let order = cx.function().order.clone();
                if let Ok(AnalysisResult::Dominators(d)) = cx.analysis(f, Analysis::DominatorTree) {
                    assert!(order.iter().all(|&b| d.dominates(order[0], b)));
                }
                Ok(Preserved::All)
            }))
            .unwrap();
        }
    })
    .unwrap();
    let seen = seen.borrow();
    assert_eq!(
        seen[0].1,
        Err("analysis liveness is unavailable at post_isel".to_string())
    );
    assert_eq!(
        seen[1].1,
        Err("analysis liveness is unavailable at pre_scheduler".to_string())
    );
    assert_eq!(seen[2].1, Ok(()));
}

#[test]
fn preserving_all_after_a_committed_change_is_refused() {
    let plain = object(&compile(SMALL, "x86_64_v2", |_| {}).unwrap());
    let after = Rc::new(RefCell::new(None));
    let out = after.clone();
    let code = compile(SMALL, "x86_64_v2", |p| {
        p.register(pass("liar", Hook::PostRegalloc, Level::Function, |cx| {
            let f = cx.function_index().unwrap();
            let mut m = cx.begin(f);
            m.set_property(Property::Selected, Proof::Invalidation)
                .unwrap();
            cx.commit(m).map_err(|e| e.to_string())?;
            Ok(Preserved::All)
        }))
        .unwrap();
        p.register(pass(
            "looks",
            Hook::PostRegalloc,
            Level::Function,
            move |cx| {
                *out.borrow_mut() = Some(cx.function().props.has(Property::Selected));
                Ok(Preserved::All)
            },
        ))
        .unwrap();
    })
    .unwrap();
    assert!(
        code.mir
            .log_text()
            .contains("pass liar at post_regalloc refused: it claims to preserve all"),
        "{}",
        code.mir.log_text()
    );
    // Its committed change was undone before the next pass ran.
    assert_eq!(*after.borrow(), Some(true));
    assert_eq!(object(&code), plain);
}

#[test]
fn no_pass_can_skip_the_final_verifier() {
    // There is no hook of that name to register at.
    assert_eq!(Hook::from_name("final_verify"), None);
    assert_eq!(Hook::from_name("final"), Some(Hook::Final));
    for cpu in CPUS {
        // Passes at the last slot that give up every guarantee: it runs
        // after them all the same.
        let code = compile(SMALL, cpu, |p| {
            p.register(pass("drops-all", Hook::Final, Level::Function, |cx| {
                let f = cx.function_index().unwrap();
                let mut m = cx.begin(f);
                for prop in Property::ALL {
                    m.set_property(prop, Proof::Invalidation).unwrap();
                }
                cx.commit(m).map_err(|e| e.to_string())?;
                Ok(Preserved::None)
            }))
            .unwrap();
        })
        .unwrap();
        assert_eq!(code.mir.trace.last(), Some(&"final_verify"));
        assert_eq!(code.mir.trace[code.mir.trace.len() - 2], "final");

        // And it checks what was encoded: a return value moved out of the
        // return register by hand, after allocation, is refused.
        let mut code = CodeGen::new(SMALL);
        code.parse()
            .and_then(|c| c.opto())
            .and_then(|c| c.type_check())
            .and_then(|c| c.inst_select(cpu, "SystemV"))
            .and_then(|c| c.legalize())
            .and_then(|c| c.gcm())
            .and_then(|c| c.local_sched())
            .and_then(|c| c.reg_alloc())
            .unwrap();
        let view = mir::build::module(&code, Hook::PostRegalloc).unwrap();
        let mf = &view.functions[0];
        let ret = mf
            .placed()
            .map(|(_, i)| mf.inst(i))
            .find(|i| i.flags.ret)
            .unwrap();
        let n = ret.origin.node().unwrap();
        let target = code.target.unwrap();
        let elsewhere = chapter21::cpu::callee_saved(target).first().unwrap();
        let alloc = code.alloc.as_mut().unwrap();
        for i in 1..code.graph.n_ins(n) {
            if let Some(x) = code.graph.input(n, i) {
                if let Some(l @ chapter21::regalloc::Loc::Reg(_)) = alloc.loc.get_mut(&x) {
                    *l = chapter21::regalloc::Loc::Reg(elsewhere);
                }
            }
        }
        let err = code.encode().err().expect("the final verifier refuses");
        assert!(
            err.message.starts_with("final_verify refused the program"),
            "{cpu}: {}",
            err.message
        );
        assert_eq!(code.mir.trace.last(), Some(&"final_verify"));
    }
}

/// Instructions in blocks at `hook` (the view after the hook's passes),
/// summed over the functions.
fn count_at(hook: Hook, p: &mut mir::Pipeline) -> Rc<RefCell<usize>> {
    let count = Rc::new(RefCell::new(0));
    let out = count.clone();
    let id: &'static str = Box::leak(format!("count-{hook}").into_boxed_str());
    p.register(pass(id, hook, Level::Module, move |cx| {
        *out.borrow_mut() += cx
            .module()
            .functions
            .iter()
            .map(|f| f.placed_count())
            .sum::<usize>();
        Ok(Preserved::All)
    }))
    .unwrap();
    count
}

fn encoded_instructions(code: &CodeGen) -> usize {
    code.encoded
        .as_ref()
        .unwrap()
        .lines
        .iter()
        .map(Vec::len)
        .sum()
}

#[test]
fn self_move_elim_deletes_only_moves_that_emit_nothing() {
    // Measured on Simple's chapter 21 programs, every CPU: instructions of
    // the machine function at preemit, and instructions encoded.
    let mut total = [0usize; 4];
    for cpu in CPUS {
        let (mut view_before, mut view_after, mut deleted) = (0, 0, 0);
        for (name, src) in progs() {
            let mut before = None;
            let plain = compile(&src, cpu, |p| before = Some(count_at(Hook::Preemit, p))).unwrap();
            let mut after = None;
            let elim = compile(&src, cpu, |p| {
                p.register(mir::examples::by_name("self-move-elim").unwrap())
                    .unwrap();
                after = Some(count_at(Hook::Preemit, p));
            })
            .unwrap();
            let (b, a) = (*before.unwrap().borrow(), *after.unwrap().borrow());
            let reported: usize = elim
                .mir
                .log
                .iter()
                .filter_map(|l| l.split("deleted ").nth(1))
                .map(|r| r.split(' ').next().unwrap().parse::<usize>().unwrap())
                .sum();
            assert_eq!(b - a, reported, "{name} on {cpu}: it deletes what it says");
            // The moves emitted nothing: the machine code is the same.
            assert_eq!(object(&plain), object(&elim), "{name} on {cpu}");
            assert_eq!(encoded_instructions(&plain), encoded_instructions(&elim));
            total[3] += encoded_instructions(&plain);
            view_before += b;
            view_after += a;
            deleted += reported;
        }
        eprintln!(
            "self-move-elim on {cpu}: machine-function instructions at preemit {view_before} -> {view_after} ({deleted} deleted)"
        );
        total[0] += view_before;
        total[1] += view_after;
        total[2] += deleted;
    }
    eprintln!(
        "self-move-elim, all CPUs: {} -> {} instructions ({} deleted); encoded instructions {} both ways",
        total[0], total[1], total[2], total[3]
    );
}

#[test]
fn block_inst_count_reports_every_block_and_changes_nothing() {
    for cpu in CPUS {
        let plain = compile(SMALL, cpu, |_| {}).unwrap();
        let mut blocks = 0;
        let counted = compile(SMALL, cpu, |p| {
            p.register(mir::examples::by_name("block-inst-count").unwrap())
                .unwrap();
        })
        .unwrap();
        let view = mir::build::module(&counted, Hook::Preemit).unwrap();
        for mf in &view.functions {
            blocks += mf.order.len();
            for &b in &mf.order {
                let line = format!(
                    "block-inst-count: {} {}: {} instructions, ",
                    mf.name,
                    mf.label(b),
                    mf.block(b).insts.len()
                );
                assert!(
                    counted.mir.log.iter().any(|l| l.starts_with(&line)),
                    "{cpu}: {line}"
                );
            }
        }
        assert_eq!(counted.mir.log.len(), blocks, "{cpu}: one line per block");
        assert_eq!(object(&plain), object(&counted), "{cpu}");
    }
}

/// The operands' registers and stack objects an instruction touches,
/// with what a call or an x86 flag-setter destroys.
fn touches(inst: &mir::MachineInst) -> (Vec<Operand>, chapter21::mach::RegMask) {
    let mut places = Vec::new();
    let mut clobbers = chapter21::mach::RegMask::EMPTY;
    for o in &inst.operands {
        match o {
            Operand::Reg(r) => places.push(Operand::Reg(RegOperand::use_(
                r.reg,
                chapter21::mach::RegMask::EMPTY,
            ))),
            Operand::Stack { object, .. } => places.push(Operand::Stack {
                object: *object,
                def: false,
            }),
            Operand::RegMask(m) => clobbers = clobbers.or(*m),
            _ => {}
        }
    }
    (places, clobbers)
}

fn independent(a: &mir::MachineInst, b: &mir::MachineInst) -> bool {
    use chapter21::mach::Op;
    let plain = |i: &mir::MachineInst| {
        matches!(i.origin, mir::Origin::Local(_))
            && i.op.is_some_and(|(op, ..)| {
                !matches!(
                    op,
                    Op::Load
                        | Op::Store
                        | Op::StoreI
                        | Op::AddMem
                        | Op::FAddMem
                        | Op::CmpMem
                        | Op::MemAdd
                        | Op::Call
                        | Op::CallR
                        | Op::New
                        | Op::Parm
                        | Op::Proj
                )
            })
    };
    let (pa, ca) = touches(a);
    let (pb, cb) = touches(b);
    let hit = |p: &[Operand], c: chapter21::mach::RegMask| {
        p.iter()
            .any(|o| matches!(o, Operand::Reg(r) if matches!(r.reg, Reg::Phys(x) if c.contains(x))))
    };
    plain(a) && plain(b) && pa.iter().all(|o| !pb.contains(o)) && !hit(&pa, cb) && !hit(&pb, ca)
}

#[test]
fn moving_a_scheduled_instruction_reaches_the_code() {
    // At preemit, swap the first two independent instructions of the
    // local schedule: the object changes, its size does not, and x86-64
    // still runs to the same answers.
    for cpu in CPUS {
        let plain = compile(SMALL, cpu, |_| {}).unwrap();
        let swapped = Rc::new(RefCell::new(0));
        let out = swapped.clone();
        let moved = compile(SMALL, cpu, |p| {
            p.register(pass("swap", Hook::Preemit, Level::Function, move |cx| {
                let f = cx.function_index().unwrap();
                let mf = cx.function();
                for &b in &mf.order {
                    let insts = &mf.block(b).insts;
                    for w in insts.windows(2) {
                        if independent(mf.inst(w[0]), mf.inst(w[1])) {
                            let mut m = cx.begin(f);
                            m.move_inst(w[1], b, Some(w[0]))
                                .map_err(|e| e.to_string())?;
                            cx.commit(m).map_err(|e| e.to_string())?;
                            *out.borrow_mut() += 1;
                            return Ok(Preserved::Cfg);
                        }
                    }
                }
                Ok(Preserved::All)
            }))
            .unwrap();
        })
        .unwrap();
        assert_eq!(*swapped.borrow(), 1, "{cpu}: found a pair to swap");
        assert_ne!(
            object(&plain),
            object(&moved),
            "{cpu}: the move reached the code"
        );
        assert_eq!(
            plain.encoded.as_ref().unwrap().program.text.len(),
            moved.encoded.as_ref().unwrap().program.text.len(),
            "{cpu}"
        );
        if cpu == "x86_64_v2" && cfg!(all(target_arch = "x86_64", target_os = "linux")) {
            let args = [0, 1, 5, 10, 37];
            let run = |c: &CodeGen| {
                chapter21::run::native(&c.encoded.as_ref().unwrap().program, c.returns(), &args)
                    .unwrap()
            };
            assert_eq!(run(&plain), run(&moved));
        }
    }
}

#[test]
fn self_move_elim_deletes_the_moves_a_pass_makes() {
    // The allocator leaves none (see the measurement above), so a pass
    // makes one where the view is for looking: `%v = COPY %v` at the top
    // of each function (giving up SSA, which the copy breaks), and the
    // example pass, put at the same hook, deletes it.
    let code = compile(SMALL, "arm", |p| {
        p.register(pass(
            "make-self-move",
            Hook::PostIsel,
            Level::Function,
            |cx| {
                let f = cx.function_index().unwrap();
                let mf = cx.function();
                let entry = mf.order[0];
                let parm = mf.block(entry).insts[0];
                let Some(Operand::Reg(r)) = mf.inst(parm).operands.first().cloned() else {
                    return Ok(Preserved::All);
                };
                let last = *mf.block(entry).insts.last().unwrap();
                let mut m = cx.begin(f);
                m.set_property(Property::IsSsa, Proof::Invalidation)
                    .unwrap();
                let copy = m
                    .create_inst(entry, Some(last), "COPY", InstFlags::default())
                    .unwrap();
                m.append_operand(copy, Operand::Reg(RegOperand::def(r.reg, r.mask)))
                    .unwrap();
                m.append_operand(copy, Operand::Reg(RegOperand::use_(r.reg, r.mask)))
                    .unwrap();
                cx.commit(m).map_err(|e| e.to_string())?;
                Ok(Preserved::Cfg)
            },
        ))
        .unwrap();
        p.register(Box::new(mir::examples::SelfMoveElim::at(Hook::PostIsel)))
            .unwrap();
    })
    .unwrap();
    assert_eq!(
        code.mir.log,
        ["self-move-elim: simple_main: deleted 1 move from a location to itself"]
    );
}
