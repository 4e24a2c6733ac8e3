//! `simple`: run any chapter of the Simple course on a program.
//!
//! Standard output carries only the result (the printed program, the
//! Graphviz text or the evaluated value); diagnostics and the graphs of
//! `#showGraph` statements go to standard error. Exit status: 0 on success,
//! 1 for an error in the program, 2 for a bad command line, 3 when
//! evaluation (or emulation) runs out of its budget, 70 for an internal
//! compiler error.

use clap::{Args, Parser, Subcommand};
use simple::{
    compile, evaluate, render_error, Evaluation, Failure, Options, DEFAULT_LOOPS,
    FIRST_SCHEDULE_CHAPTER, LATEST,
};
use std::io::Read;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "simple",
    version,
    about = "The Simple sea-of-nodes compiler course, in Rust: run any chapter on a program",
    after_help = "Examples:\n  simple print --chapter 4 -e 'return 1+arg+2;'    # return (arg+3);\n  simple dot --chapter 5 prog.smp > graph.dot\n  simple eval prog.smp --arg 5\n  simple ir prog.smp                               # the schedule, block by block\n  simple asm prog.smp --cpu riscv                  # machine code, block by block\n  simple legal --cpu arm                           # a CPU's legalization rules\n  simple obj prog.smp --cpu arm -o prog.o          # an ELF object\n  simple run prog.smp --arg 10                     # run it (x86-64 natively)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and optimize, then print the program as Simple prints it
    Print(Input),
    /// Parse and optimize, then write the graph in Graphviz form
    Dot(Input),
    /// Parse, optimize and schedule (global code motion), then list the
    /// program block by block (chapter 11 on)
    Ir(Input),
    /// Parse and optimize with `arg` unknown, then run the program by walking
    /// its graph and print the returned value (chapter 8 on)
    Eval(EvalInput),
    /// Differential fuzzing: random programs must evaluate the same without
    /// peepholes, with them, after the iterative optimizer, and run by the
    /// schedule (the language of the chosen chapter, the latest by default)
    Fuzz(FuzzInput),
    /// Select instructions for a CPU, legalize and schedule them (and from
    /// chapter 20 allocate registers), then list the machine program block
    /// by block in the CPU's assembler syntax (chapter 19 on)
    Asm(AsmInput),
    /// Print the legalizer's rules of a CPU, group by group (chapter 19 on)
    Legal(LegalInput),
    /// Compile for a CPU down to machine code and write it as an ELF
    /// relocatable object (chapter 21 on): the top level is the global
    /// function `simple_main`, each named function a global of its name
    Obj(ObjInput),
    /// Compile for a CPU and run the machine code's top level with `arg`,
    /// printing what it returns (chapter 21 on): x86_64_v2 natively (linked
    /// by `cc`), riscv and arm under the unicorn emulator, which needs a
    /// `simple` built with `--features emulate`
    Run(RunInput),
}

#[derive(Args)]
struct ObjInput {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    mir: MirArgs,
    #[command(flatten)]
    target: TargetArgs,
    /// Where to write the object; `-` for standard output
    #[arg(short = 'o', long = "output", value_name = "OUT.o")]
    output: String,
    /// Print `spills N weighted W` (the register allocator's splits) on
    /// standard error
    #[arg(long)]
    stats: bool,
}

#[derive(Args)]
struct RunInput {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    mir: MirArgs,
    /// The CPU: x86_64_v2 (native), riscv or arm (emulated)
    #[arg(long, default_value = "x86_64_v2")]
    cpu: String,
    /// The value of `arg`, the top level's parameter
    #[arg(long, allow_hyphen_values = true, default_value_t = 0)]
    arg: i64,
    /// Run x86_64_v2 code under the emulator too, instead of natively
    #[arg(long)]
    emulate: bool,
    /// Under the emulator, give up after this many instructions (exit
    /// status 3)
    #[arg(long, default_value_t = 1_000_000_000)]
    steps: u64,
}

/// Machine-IR passes (chapter 21 on).
#[derive(Args, Clone, Default)]
struct MirArgs {
    /// Print the machine IR after this hook on standard error (post_isel,
    /// post_legalize, pre_scheduler, post_scheduler, pre_regalloc,
    /// post_regalloc, post_prolog_epilog, preemit, final); repeatable
    #[arg(long = "print-after", value_name = "HOOK")]
    print_after: Vec<String>,
    /// Enable an example machine-IR pass (self-move-elim,
    /// block-inst-count); repeatable. What it reports goes to standard
    /// error
    #[arg(long = "pass", value_name = "NAME")]
    passes: Vec<String>,
}

/// A CPU and a calling convention.
#[derive(Args, Clone)]
struct TargetArgs {
    /// The CPU: x86_64_v2, riscv or arm
    #[arg(long, default_value = "x86_64_v2")]
    cpu: String,
    /// The calling convention: SystemV, or Win64 on x86_64_v2
    #[arg(long, default_value = "SystemV")]
    abi: String,
}

#[derive(Args)]
struct AsmInput {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    mir: MirArgs,
    #[command(flatten)]
    target: TargetArgs,
    /// Check the register allocation with the independent checker
    /// (chapter 20 on; a debug build always checks)
    #[arg(long)]
    check: bool,
    /// Print `spills N weighted W` (the register allocator's splits) on
    /// standard error (chapter 20 on)
    #[arg(long)]
    stats: bool,
}

#[derive(Args)]
struct LegalInput {
    /// The CPU whose rules to print: x86_64_v2, riscv or arm
    #[arg(long, default_value = "x86_64_v2")]
    cpu: String,
    /// Which chapter's rules (19 on)
    #[arg(long, short, default_value_t = LATEST, value_parser = clap::value_parser!(u32).range(simple::FIRST_BACKEND_CHAPTER as i64..=LATEST as i64))]
    chapter: u32,
}

#[derive(Args, Clone)]
struct FuzzInput {
    /// How many programs to generate and check
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// The seed of the first program (program i uses seed + i)
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print each program before checking it
    #[arg(long)]
    verbose: bool,
    /// Also run each program's machine code on every CPU and compare it
    /// with the evaluator (chapter 21 on): x86_64_v2 natively, riscv and
    /// arm under the emulator (a `simple` built with `--features emulate`)
    #[arg(long)]
    run: bool,
    /// With --run: run x86_64_v2 under the emulator too (much faster than
    /// linking every program with `cc`)
    #[arg(long, requires = "run")]
    emulate: bool,
    /// Which chapter's language to write and compiler to check (11 on)
    #[arg(long, short, default_value_t = LATEST, value_parser = clap::value_parser!(u32).range(simple::fuzz::FIRST_FUZZ_CHAPTER as i64..=LATEST as i64))]
    chapter: u32,
}

#[derive(Args)]
struct EvalInput {
    #[command(flatten)]
    source: Source,
    /// The value of `arg` when the program runs
    #[arg(long, allow_hyphen_values = true, default_value_t = 0)]
    arg: i64,
    /// Give up after this many trips around loop back edges (exit status
    /// 3). Ten million by default: real programs finish, and a loop that
    /// never ends stops within seconds
    #[arg(long, default_value_t = DEFAULT_LOOPS)]
    loops: usize,
    /// Run the scheduled program block by block instead of walking the
    /// graph (chapter 11 on)
    #[arg(long)]
    scheduled: bool,
}

#[derive(Args)]
struct Input {
    #[command(flatten)]
    source: Source,
    /// Compile with `arg` known to be this constant (chapters 4 to 17)
    #[arg(long, allow_hyphen_values = true)]
    arg: Option<i64>,
}

/// Which compiler, and which program.
#[derive(Args)]
struct Source {
    /// Which chapter's compiler to use
    #[arg(long, short, default_value_t = LATEST, value_parser = clap::value_parser!(u32).range(1..=LATEST as i64))]
    chapter: u32,
    /// Turn peephole optimization off (chapter 2 on)
    #[arg(long)]
    no_peephole: bool,
    /// The program text, instead of a file
    #[arg(
        short = 'e',
        long = "expr",
        value_name = "SRC",
        conflicts_with = "file"
    )]
    source: Option<String>,
    /// A file with the program, or `-` for standard input
    #[arg(value_name = "FILE", required_unless_present = "source")]
    file: Option<String>,
}

/// Runs `work` on a thread with a 256 MiB stack: deep programs recurse
/// deeply in the compiler. `None` if it panicked (a compiler bug).
fn on_roomy_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(work);
    worker.ok()?.join().ok()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let source = match &cli.command {
        Command::Print(input) | Command::Dot(input) | Command::Ir(input) => &input.source,
        Command::Eval(input) => &input.source,
        Command::Asm(input) => &input.source,
        Command::Obj(input) => &input.source,
        Command::Run(input) => &input.source,
        Command::Legal(input) => {
            return match simple::legal_rules(input.chapter, &input.cpu) {
                Ok(table) => {
                    write_stdout(&table);
                    ExitCode::SUCCESS
                }
                Err(Failure::Usage(message) | Failure::Program { message, .. }) => {
                    eprintln!("error: {message}");
                    ExitCode::from(2)
                }
            };
        }
        Command::Fuzz(input) => {
            // The generated programs recurse (chapter 18), and a debug
            // build's evaluators take deep frames.
            let input = input.clone();
            return on_roomy_stack(move || fuzz(&input)).unwrap_or(ExitCode::from(70));
        }
    };
    let (name, src) = match read_source(source) {
        Ok(found) => found,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let chapter = source.chapter;
    let no_peephole = source.no_peephole;
    let job = match &cli.command {
        Command::Print(input) => Job::Print(input.arg, View::Text),
        Command::Dot(input) => Job::Print(input.arg, View::Dot),
        Command::Ir(input) => Job::Print(input.arg, View::Ir),
        Command::Eval(input) => Job::Eval(input.arg, input.loops, input.scheduled),
        Command::Asm(input) => Job::Asm(
            input.target.clone(),
            input.check,
            input.stats,
            input.mir.clone(),
        ),
        Command::Obj(input) => Job::Obj(
            input.target.clone(),
            input.output.clone(),
            input.stats,
            input.mir.clone(),
        ),
        Command::Run(input) => Job::Run {
            cpu: input.cpu.clone(),
            arg: input.arg,
            emulate: input.emulate || input.cpu != "x86_64_v2",
            steps: input.steps,
            mir: input.mir.clone(),
        },
        Command::Fuzz(_) | Command::Legal(_) => unreachable!("returned above"),
    };
    let worker = on_roomy_stack(move || {
        let result = job.run(chapter, &src, no_peephole);
        (result, src)
    });
    let (result, src) = match worker {
        Some(done) => done,
        None => {
            // A panic is a compiler bug; say so rather than exit with 101.
            eprintln!("error: internal compiler error (please report it with the program)");
            return ExitCode::from(70);
        }
    };
    match result {
        Ok(output) => {
            for (i, graph) in output.show_graphs.iter().enumerate() {
                eprintln!("// #showGraph {}\n{graph}", i + 1);
            }
            write_stdout(&output.stdout);
            if !output.binary.is_empty() {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                if let Err(e) = out.write_all(&output.binary).and_then(|()| out.flush()) {
                    eprintln!("error: cannot write the object: {e}");
                    return ExitCode::from(1);
                }
            }
            if let Some(message) = &output.stderr {
                eprintln!("{message}");
            }
            ExitCode::from(output.status)
        }
        Err(Failure::Program { message, offset }) => {
            eprint!("{}", render_error(&message, &name, &src, offset));
            ExitCode::from(1)
        }
        Err(Failure::Usage(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Writes `text` to standard output. A reader that went away (`simple
/// fuzz | head`) is no error: the rest is not wanted. (`print!` would
/// panic on the broken pipe.)
fn write_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write the output: {e}");
        }
    }
}

/// Runs the differential fuzzer; exit status 1 if any program failed.
fn fuzz(input: &FuzzInput) -> ExitCode {
    let seeds = input.seed..input.seed.saturating_add(input.count);
    let mut report = simple::fuzz::Report {
        programs: 0,
        failures: Vec::new(),
    };
    for s in seeds {
        // Each program is printed before it is checked, so that a crash
        // the fuzzer cannot catch (a stack overflow) names its seed.
        if input.verbose {
            eprintln!(
                "// seed {s}\n{}",
                simple::fuzz::generate_for(s, input.chapter)
            );
        }
        let how = match (input.run, input.emulate) {
            (false, _) => simple::fuzz::Execute::No,
            (true, false) => simple::fuzz::Execute::Native,
            (true, true) => simple::fuzz::Execute::Emulated,
        };
        let one = simple::fuzz::run_with(s, 1, input.chapter, how);
        report.programs += one.programs;
        report.failures.extend(one.failures);
    }
    for (seed, message, reduced) in &report.failures {
        write_stdout(&format!(
            "seed {seed}: {message}\nreduced program:\n{reduced}\n"
        ));
    }
    write_stdout(&format!(
        "{} programs, {} failed\n",
        report.programs,
        report.failures.len()
    ));
    if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// What to do with the program.
enum Job {
    /// Print it in one of three views, `arg` as given.
    Print(Option<i64>, View),
    /// Run it with this `arg` and loop budget (by its schedule, if set).
    Eval(i64, usize, bool),
    /// Compile it for a CPU and list the machine program (checked, with
    /// the spill counts).
    Asm(TargetArgs, bool, bool, MirArgs),
    /// Compile it for a CPU and write the object to a file (`-`: stdout).
    Obj(TargetArgs, String, bool, MirArgs),
    /// Compile it for a CPU and run it.
    Run {
        cpu: String,
        arg: i64,
        emulate: bool,
        steps: u64,
        mir: MirArgs,
    },
}

/// How to show a compiled program.
#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Text,
    Dot,
    Ir,
}

/// What a job writes, and its exit status.
struct Output {
    stdout: String,
    /// Bytes written to standard output after `stdout` (an object).
    binary: Vec<u8>,
    stderr: Option<String>,
    show_graphs: Vec<String>,
    status: u8,
}

impl Job {
    fn run(self, chapter: u32, src: &str, no_peephole: bool) -> Result<Output, Failure> {
        match self {
            Job::Print(arg, view) => {
                let options = Options {
                    arg,
                    no_peephole,
                    ..Options::default()
                };
                let compiled = compile(chapter, src, &options)?;
                // Only the view asked for is computed.
                let stdout = match view {
                    View::Text => format!("{}\n", compiled.print()),
                    View::Dot => compiled.dot(),
                    View::Ir => match compiled.ir() {
                        Some(ir) => ir,
                        None => {
                            return Err(Failure::Usage(format!(
                                "ir needs chapter {FIRST_SCHEDULE_CHAPTER} or later (and \
                                 peepholes on): chapter {chapter} does not schedule"
                            )))
                        }
                    },
                };
                Ok(Output {
                    stdout,
                    binary: Vec::new(),
                    stderr: None,
                    show_graphs: compiled.show_graphs().to_vec(),
                    status: 0,
                })
            }
            Job::Asm(target, check_alloc, stats, mir) => {
                let options = Options {
                    arg: None,
                    no_peephole,
                    check_alloc,
                    print_after: mir.print_after,
                    passes: mir.passes,
                };
                let compiled = simple::assemble(chapter, src, &options, &target.cpu, &target.abi)?;
                Ok(Output {
                    stdout: compiled.asm().unwrap_or_default(),
                    binary: Vec::new(),
                    stderr: with_mir_log(
                        compiled.as_ref(),
                        spill_line(stats, compiled.as_ref(), chapter)?,
                    ),
                    show_graphs: compiled.show_graphs().to_vec(),
                    status: 0,
                })
            }
            Job::Obj(target, path, stats, mir) => {
                let options = Options {
                    arg: None,
                    no_peephole,
                    check_alloc: false,
                    print_after: mir.print_after,
                    passes: mir.passes,
                };
                encoding_chapter("obj", chapter)?;
                let compiled = simple::assemble(chapter, src, &options, &target.cpu, &target.abi)?;
                let bytes = compiled
                    .object()
                    .unwrap_or_else(|| Err(Failure::Usage("no object".into())))?;
                let stderr = with_mir_log(
                    compiled.as_ref(),
                    spill_line(stats, compiled.as_ref(), chapter)?,
                );
                let binary = if path == "-" {
                    bytes
                } else {
                    std::fs::write(&path, &bytes)
                        .map_err(|e| Failure::Usage(format!("cannot write {path}: {e}")))?;
                    Vec::new()
                };
                Ok(Output {
                    stdout: String::new(),
                    binary,
                    stderr,
                    show_graphs: compiled.show_graphs().to_vec(),
                    status: 0,
                })
            }
            Job::Run {
                cpu,
                arg,
                emulate,
                steps,
                mir,
            } => {
                let options = Options {
                    arg: None,
                    no_peephole,
                    check_alloc: false,
                    print_after: mir.print_after,
                    passes: mir.passes,
                };
                encoding_chapter("run", chapter)?;
                let compiled = simple::assemble(chapter, src, &options, &cpu, "SystemV")?;
                let run = compiled
                    .run(&[arg], emulate, steps)
                    .unwrap_or_else(|| Err(Failure::Usage("no machine code".into())))?
                    .pop()
                    .ok_or_else(|| Failure::Usage("no run".into()))?;
                let (stdout, stderr, status) = match run {
                    simple::Run::Value(v, None) => (format!("{v}\n"), None, 0),
                    simple::Run::Value(v, Some(n)) => (
                        format!("{v}\n"),
                        Some(format!("{n} instructions executed")),
                        0,
                    ),
                    simple::Run::StepLimit(n) => (
                        String::new(),
                        Some(format!(
                            "error: the emulator stopped after {n} instructions \
                             (raise the limit with --steps N)"
                        )),
                        3,
                    ),
                };
                Ok(Output {
                    stdout,
                    binary: Vec::new(),
                    stderr: with_mir_log(compiled.as_ref(), stderr),
                    show_graphs: compiled.show_graphs().to_vec(),
                    status,
                })
            }
            Job::Eval(arg, loops, scheduled) => {
                let options = Options {
                    arg: None,
                    no_peephole,
                    ..Options::default()
                };
                let outcome = evaluate(chapter, src, &options, arg, loops, scheduled)?;
                let (stdout, stderr, status) = match outcome {
                    Evaluation::Value(v) => (format!("{v}\n"), None, 0),
                    Evaluation::Fallthrough => (
                        String::new(),
                        Some("error: the program ended without a return".to_owned()),
                        1,
                    ),
                    Evaluation::Timeout => (
                        String::new(),
                        Some(format!(
                            "error: evaluation stopped after {loops} loop iterations \
                             (raise the budget with --loops N)"
                        )),
                        3,
                    ),
                    Evaluation::Fault(why) => {
                        (String::new(), Some(format!("error: at run time: {why}")), 1)
                    }
                };
                Ok(Output {
                    stdout,
                    binary: Vec::new(),
                    stderr,
                    show_graphs: Vec::new(),
                    status,
                })
            }
        }
    }
}

/// `obj` and `run` need a chapter that encodes.
fn encoding_chapter(command: &str, chapter: u32) -> Result<(), Failure> {
    if chapter < simple::FIRST_ENCODING_CHAPTER {
        return Err(Failure::Usage(format!(
            "{command} needs chapter {} or later: chapter {chapter} does not encode machine code",
            simple::FIRST_ENCODING_CHAPTER
        )));
    }
    Ok(())
}

/// What the machine-IR passes logged (`--pass`, `--print-after`), before
/// the command's own diagnostics.
fn with_mir_log(compiled: &dyn simple::Driver, rest: Option<String>) -> Option<String> {
    let log = compiled.mir_log().unwrap_or_default();
    let log = log.trim_end_matches('\n');
    match (log.is_empty(), rest) {
        (true, rest) => rest,
        (false, None) => Some(log.to_string()),
        (false, Some(rest)) => Some(format!("{log}\n{rest}")),
    }
}

/// `spills N weighted W`, when `--stats` asks for it.
fn spill_line(
    stats: bool,
    compiled: &dyn simple::Driver,
    chapter: u32,
) -> Result<Option<String>, Failure> {
    if !stats {
        return Ok(None);
    }
    match compiled.spills() {
        Some((n, w)) => Ok(Some(format!("spills {n} weighted {w}"))),
        None => Err(Failure::Usage(format!(
            "--stats needs chapter 20 or later: chapter {chapter} allocates no registers"
        ))),
    }
}

/// The program's display name and text, from `-e`, a file or stdin.
fn read_source(input: &Source) -> Result<(String, String), String> {
    if let Some(src) = &input.source {
        return Ok(("<-e>".into(), src.clone()));
    }
    match input.file.as_deref() {
        Some("-") | None => {
            let mut src = String::new();
            std::io::stdin()
                .read_to_string(&mut src)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(("<stdin>".into(), src))
        }
        Some(path) => std::fs::read_to_string(path)
            .map(|src| (path.to_owned(), src))
            .map_err(|e| format!("cannot read {path}: {e}")),
    }
}
