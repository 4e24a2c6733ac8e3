//! Machine-IR passes (`chapter21::mir`): the view at every hook, hooks in
//! order on every CPU, mutations that commit or roll back whole,
//! properties set only with proof, analyses only where they exist, and a
//! final verifier no pass can skip. The programs are Simple's chapter 21
//! programs (`tests/progs/*.smp`).

use chapter21::mir::{
    self, Analysis, AnalysisResult, BlockId, Hook, InstFlags, Level, MachinePass, MirError,
    Operand, PassContext, PassDesc, Preserved, Proof, Property, Reg, RegOperand,
};
use chapter21::CodeGen;
use std::cell::RefCell;
use std::rc::Rc;

const CPUS: [&str; 3] = ["x86_64_v2", "riscv", "arm"];

/// Simple's chapter 21 programs, by name.
fn programs() -> Vec<(String, String)> {
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
