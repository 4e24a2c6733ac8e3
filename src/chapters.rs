//! Every chapter's driver behind the [`Driver`] trait, and the list of
//! chapters.
//!
//! Each chapter crate has its own `CodeGen` with the same methods, grown as
//! the chapters grow: chapter 2 adds peepholes (and a switch to turn them
//! off), chapter 3 `#showGraph`, chapter 4 `arg`, chapter 8 the evaluator,
//! chapter 9 the iterative optimizer, chapter 10 a null check that can fail
//! it, chapter 11 the schedule, its listing and running it. The macro
//! `chapters!` takes the list of chapters, each with the abilities it has,
//! writes the trait's methods for each and the table of chapters:
//! registering a chapter is one line in that list.

use crate::{Driver, Evaluation, Failure, Options, Run};

/// Every chapter's error has the same two fields.
macro_rules! failure {
    ($e:expr) => {{
        let e = $e;
        Failure::Program {
            message: e.message,
            offset: e.offset,
        }
    }};
}

/// A chapter's outcome of evaluation, as the command line reports it.
macro_rules! evaluation {
    ($krate:ident, $outcome:expr) => {
        match $outcome {
            $krate::Outcome::Value(v) => Evaluation::Value(v.to_string()),
            $krate::Outcome::Fallthrough => Evaluation::Fallthrough,
            $krate::Outcome::Timeout => Evaluation::Timeout,
        }
    };
    ($krate:ident, $outcome:expr, faults) => {
        match $outcome {
            $krate::Outcome::Value(v) => Evaluation::Value(v.to_string()),
            $krate::Outcome::Fallthrough => Evaluation::Fallthrough,
            $krate::Outcome::Timeout => Evaluation::Timeout,
            $krate::Outcome::Fault(why) => Evaluation::Fault(why),
        }
    };
}

/// `driver!(chapterNN: ability, ...)` implements [`Driver`] and [`New`]
/// for the chapter's `CodeGen`. The abilities: `peepholes` (the
/// `--no-peephole` switch), `show_graphs`, `arg` (a compile-time `arg`),
/// `eval` or `eval_faults` (an evaluator, without or with run-time
/// faults), `iterate` or `checked_iterate` (the iterative optimizer, which
/// cannot or can fail), `schedule` (`ir` and `eval_scheduled`).
macro_rules! driver {
    ($krate:ident $(: $($ability:ident),*)?) => {
        impl Driver for $krate::CodeGen {
            fn parse(&mut self) -> Result<(), Failure> {
                $krate::CodeGen::parse(self).map(|_| ()).map_err(|e| failure!(e))
            }
            fn print(&self) -> String {
                $krate::CodeGen::print(self)
            }
            fn dot(&self) -> String {
                $krate::CodeGen::dot(self)
            }
            $($(driver!(@method $krate $ability);)*)?
        }
        impl New for $krate::CodeGen {
            fn new(src: &str, _options: &Options) -> Self {
                #[allow(unused_mut)]
                let mut code = $krate::CodeGen::new(src);
                $($(driver!(@option $krate code _options $ability);)*)?
                code
            }
        }
    };

    (@option $krate:ident $code:ident $options:ident peepholes) => {
        $code.disable_peephole = $options.no_peephole
    };
    (@option $krate:ident $code:ident $options:ident arg) => {
        $code.arg = $options.arg
    };
    (@option $krate:ident $code:ident $options:ident regalloc) => {
        $code.check_alloc = $options.check_alloc
    };
    // Chapter 21 on: machine-IR passes and listings (names checked by
    // `check_mir_options`).
    (@option $krate:ident $code:ident $options:ident encode) => {{
        $code.check_alloc = $options.check_alloc;
        for hook in $options.print_after.iter().filter_map(|h| $krate::mir::Hook::from_name(h)) {
            $code.mir.print_after(hook);
        }
        for pass in $options.passes.iter().filter_map(|p| $krate::mir::examples::by_name(p)) {
            // An example pass registers once; a repeated name is ignored.
            let _ = $code.mir.register(pass);
        }
    }};
    (@option $krate:ident $code:ident $options:ident $other:ident) => {};

    (@method $krate:ident show_graphs) => {
        fn show_graphs(&self) -> &[String] {
            &self.show_graphs
        }
    };
    (@method $krate:ident iterate) => {
        fn iterate(&mut self) -> Result<(), Failure> {
            $krate::CodeGen::iterate(self);
            Ok(())
        }
    };
    (@method $krate:ident checked_iterate) => {
        fn iterate(&mut self) -> Result<(), Failure> {
            $krate::CodeGen::iterate(self).map(|_| ()).map_err(|e| failure!(e))
        }
    };
    (@method $krate:ident eval) => {
        fn eval(&self, arg: i64, loops: usize) -> Option<Evaluation> {
            Some(evaluation!($krate, $krate::CodeGen::eval(self, arg, loops)))
        }
    };
    (@method $krate:ident eval_faults) => {
        fn eval(&self, arg: i64, loops: usize) -> Option<Evaluation> {
            Some(evaluation!($krate, $krate::CodeGen::eval(self, arg, loops), faults))
        }
    };
    (@method $krate:ident schedule) => {
        fn ir(&self) -> Option<String> {
            self.schedule.is_some().then(|| $krate::CodeGen::ir(self))
        }
        fn eval_scheduled(&self, arg: i64, loops: usize) -> Option<Evaluation> {
            self.schedule.as_ref()?;
            let run = $krate::CodeGen::eval_scheduled(self, arg, loops);
            Some(evaluation!($krate, run, faults))
        }
    };
    (@method $krate:ident select) => {
        driver!(@backend $krate;);
    };
    // Chapter 20 on: the backend allocates registers as well.
    (@method $krate:ident regalloc) => {
        driver!(@backend $krate; reg_alloc);
        driver!(@spills $krate);
    };
    // Chapter 21 on: and encodes the machine code, which runs.
    (@method $krate:ident encode) => {
        driver!(@backend $krate; reg_alloc encode);
        driver!(@spills $krate);
        fn object(&self) -> Option<Result<Vec<u8>, Failure>> {
            self.encoded.as_ref()?;
            Some($krate::CodeGen::object(self).map_err(|e| failure!(e)))
        }
        fn mir_log(&self) -> Option<String> {
            Some(self.mir.log_text())
        }
        fn run(&self, args: &[i64], emulate: bool, steps: u64) -> Option<Result<Vec<Run>, Failure>> {
            let program = &self.encoded.as_ref()?.program;
            let returns = self.returns();
            if !emulate {
                return Some(
                    $krate::run::native(program, returns, args)
                        .map(|vs| vs.into_iter().map(|v| Run::Value(v, None)).collect())
                        .map_err(Failure::Usage),
                );
            }
            #[cfg(feature = "emulate")]
            {
                use $krate::run::EmuFailure;
                let runs: Result<Vec<Run>, Failure> = args
                    .iter()
                    .map(|&arg| match $krate::run::emulate(program, returns, arg, steps) {
                        Ok(r) => Ok(Run::Value(r.value, Some(r.steps))),
                        Err(EmuFailure::StepLimit(n)) => Ok(Run::StepLimit(n)),
                        Err(EmuFailure::Error(e)) => Err(Failure::Usage(e)),
                    })
                    .collect();
                Some(runs)
            }
            #[cfg(not(feature = "emulate"))]
            {
                let _ = steps;
                Some(Err(Failure::Usage(
                    "this simple was built without the emulator: build it with \
                     `cargo build --release --features emulate` (unicorn-engine, GPL-2.0) \
                     to run AArch64 and RISC-V code"
                        .into(),
                )))
            }
        }
    };
    (@spills $krate:ident) => {
        fn spills(&self) -> Option<(u32, u64)> {
            self.alloc.as_ref().map(|a| (a.splits, a.splits_weighted))
        }
    };
    (@method $krate:ident $other:ident) => {};

    (@backend $krate:ident; $($later:ident)*) => {
        fn select(&mut self, cpu: &str, abi: &str) -> Option<Result<(), Failure>> {
            let phases = (|| -> Result<(), $krate::Error> {
                $krate::CodeGen::opto(self)?
                    .type_check()?
                    .inst_select(cpu, abi)?
                    .legalize()?
                    .gcm()?
                    .local_sched()?
                    $(.$later()?)*;
                Ok(())
            })();
            Some(phases.map_err(|e| failure!(e)))
        }
        fn asm(&self) -> Option<String> {
            self.target.is_some().then(|| $krate::CodeGen::asm(self))
        }
        fn legal_rules(&self, cpu: &str) -> Option<Result<String, Failure>> {
            Some(match $krate::mach::Cpu::from_name(cpu) {
                Some(c) => Ok($krate::mach::legalize::print_rules(&$krate::cpu::rules(c))),
                None => Err(Failure::Usage(format!(
                    "unknown CPU '{cpu}': the CPUs are x86_64_v2, riscv and arm"
                ))),
            })
        }
    };
}

/// The newest chapter; the default of `--chapter`.
pub const LATEST: u32 = 21;

/// `chapters!` lists the chapters in order, each with its abilities (see
/// `driver!`): it implements the trait for each and makes the table.
macro_rules! chapters {
    ($($krate:ident $(: $($ability:ident),*)?;)*) => {
        $(driver!($krate $(: $($ability),*)?);)*
        /// The chapters, in order: chapter `i + 1` at index `i`.
        const CHAPTERS: &[fn(&str, &Options) -> Box<dyn Driver>] = &[$(make::<$krate::CodeGen>),*];
    };
}

chapters! {
    chapter01;
    chapter02: peepholes;
    chapter03: peepholes, show_graphs;
    chapter04: peepholes, show_graphs, arg;
    chapter05: peepholes, show_graphs, arg;
    chapter06: peepholes, show_graphs, arg;
    chapter07: peepholes, show_graphs, arg;
    chapter08: peepholes, show_graphs, arg, eval;
    chapter09: peepholes, show_graphs, arg, eval, iterate;
    chapter10: peepholes, show_graphs, arg, eval_faults, checked_iterate;
    chapter11: peepholes, show_graphs, arg, eval_faults, checked_iterate, schedule;
    chapter12: peepholes, show_graphs, arg, eval_faults, checked_iterate, schedule;
    chapter13: peepholes, show_graphs, arg, eval_faults, checked_iterate, schedule;
    chapter14: peepholes, show_graphs, arg, eval_faults, checked_iterate, schedule;
    chapter15: peepholes, show_graphs, arg, eval_faults, checked_iterate, schedule;
    chapter16: peepholes, show_graphs, arg, eval_faults, checked_iterate, schedule;
    chapter17: peepholes, show_graphs, arg, eval_faults, checked_iterate, schedule;
    chapter18: peepholes, show_graphs, eval_faults, checked_iterate, schedule;
    chapter19: peepholes, show_graphs, eval_faults, checked_iterate, schedule, select;
    chapter20: peepholes, show_graphs, eval_faults, checked_iterate, schedule, regalloc;
    chapter21: peepholes, show_graphs, eval_faults, checked_iterate, schedule, encode;
}

/// Making a chapter's driver with the options it has set.
trait New: Driver + Sized + 'static {
    fn new(src: &str, options: &Options) -> Self;
}

fn make<D: New>(src: &str, options: &Options) -> Box<dyn Driver> {
    Box::new(D::new(src, options))
}

/// Chapter `chapter`'s driver for `src`, or `None` if there is no such
/// chapter. Options the chapter does not have are ignored here; `compile`
/// refuses them first.
pub fn driver(chapter: u32, src: &str, options: &Options) -> Option<Box<dyn Driver>> {
    let make = CHAPTERS.get(usize::try_from(chapter).ok()?.checked_sub(1)?)?;
    Some(make(src, options))
}
