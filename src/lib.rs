//! The chapter registry behind the `simple` command.
//!
//! Every chapter crate is a complete compiler for the language of its
//! chapter, with the same small driver (`CodeGen`) grown chapter by
//! chapter. This library puts each chapter's driver behind one trait,
//! [`Driver`], with one method per phase (`parse`, `iterate`) and per view
//! or run of the result (`print`, `dot`, `ir`, `eval`, `eval_scheduled`),
//! so that a command asks for exactly what it shows and computes nothing
//! else. [`chapters`] implements the trait for each chapter and lists them;
//! registering a chapter is one line there.
//!
//! [`compile`] checks that the options fit the chapter (`arg` exists from
//! chapter 4, peepholes from chapter 2), parses, and from chapter 9 runs
//! the iterative optimizer, as Simple's tests do; from chapter 10 that also
//! checks for possible null dereferences, which can fail the compilation,
//! and from chapter 11 it schedules the program. [`evaluate`] runs the
//! result.

pub mod chapters;
pub mod fuzz;

pub use chapters::LATEST;

/// What the command line asks of a compilation.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Compile with `arg` known to be this constant.
    pub arg: Option<i64>,
    /// Build the graph as parsed, without peephole optimization.
    pub no_peephole: bool,
    /// Chapter 20 on: check every register allocation with the
    /// independent checker, in a release build too (a debug build always
    /// checks).
    pub check_alloc: bool,
    /// Chapter 21 on: print the machine IR after each of these hooks
    /// (`post_isel` ... `final`) on standard error.
    pub print_after: Vec<String>,
    /// Chapter 21 on: enable these example machine-IR passes
    /// (`self-move-elim`, `block-inst-count`).
    pub passes: Vec<String>,
}

/// Why a compilation did not happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The program is wrong: Simple's message and the byte offset.
    Program { message: String, offset: usize },
    /// The request does not fit the chapter (no such chapter, or an option
    /// the chapter does not have).
    Usage(String),
}

/// How running a program ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// A `return` gave this value, printed as Simple's evaluator prints it
    /// (an integer, `null`, or an object with its fields).
    Value(String),
    /// Control reached the end without a `return`.
    Fallthrough,
    /// The program ran past the budget of loop iterations.
    Timeout,
    /// The program went wrong at run time, e.g. read a field of null.
    Fault(String),
}

/// One chapter's compiler, phase by phase. The views and runs a chapter
/// does not have yet answer `None`.
pub trait Driver {
    /// Parses the program, with the parse-time peepholes unless they are
    /// off.
    fn parse(&mut self) -> Result<(), Failure>;
    /// The optimizer after parsing (chapter 9 on), with the checks and
    /// scheduling that later chapters add to it. Nothing before chapter 9.
    fn iterate(&mut self) -> Result<(), Failure> {
        Ok(())
    }
    /// The program as Simple prints it, e.g. `return (arg+3);`.
    fn print(&self) -> String;
    /// The graph in Graphviz form.
    fn dot(&self) -> String;
    /// The Graphviz text of each `#showGraph` statement, in order.
    fn show_graphs(&self) -> &[String] {
        &[]
    }
    /// The scheduled listing, block by block (chapter 11 on, once
    /// `iterate` has scheduled the program).
    fn ir(&self) -> Option<String> {
        None
    }
    /// Runs the program by walking its graph (chapter 8 on), allowing at
    /// most `loops` trips around loop back edges.
    fn eval(&self, _arg: i64, _loops: usize) -> Option<Evaluation> {
        None
    }
    /// Runs the schedule block by block (chapter 11 on, once scheduled).
    fn eval_scheduled(&self, _arg: i64, _loops: usize) -> Option<Evaluation> {
        None
    }
    /// The backend after parsing (chapter 19 on): optimizes, checks types,
    /// selects instructions for `cpu` and `abi`, legalizes them and
    /// schedules the machine program.
    fn select(&mut self, _cpu: &str, _abi: &str) -> Option<Result<(), Failure>> {
        None
    }
    /// The machine program's listing, once `select` has run.
    fn asm(&self) -> Option<String> {
        None
    }
    /// The legalizer's rule table for `cpu` (chapter 19 on).
    fn legal_rules(&self, _cpu: &str) -> Option<Result<String, Failure>> {
        None
    }
    /// The splits the register allocator left, and the same weighted by
    /// 8^loop depth (chapter 20 on, once `select` has run).
    fn spills(&self) -> Option<(u32, u64)> {
        None
    }
    /// The ELF object of the machine program (chapter 21 on, once `select`
    /// has run).
    fn object(&self) -> Option<Result<Vec<u8>, Failure>> {
        None
    }
    /// Runs the machine program's top level once with each of `args`
    /// (chapter 21 on): natively (x86-64 System V on an x86-64 Linux host,
    /// linked once) or, with `emulate`, under unicorn for at most `steps`
    /// instructions each.
    fn run(&self, _args: &[i64], _emulate: bool, _steps: u64) -> Option<Result<Vec<Run>, Failure>> {
        None
    }
    /// What the machine-IR passes reported and the listings
    /// `--print-after` asked for (chapter 21 on, once `select` has run).
    fn mir_log(&self) -> Option<String> {
        None
    }
}

/// How running machine code ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run {
    /// The top level returned this value; under the emulator, after this
    /// many instructions.
    Value(String, Option<u64>),
    /// The emulator stopped after this many instructions.
    StepLimit(u64),
}

/// The first chapter with peepholes (and so `--no-peephole`).
pub const FIRST_PEEPHOLE_CHAPTER: u32 = 2;
/// The first chapter with `arg`.
pub const FIRST_ARG_CHAPTER: u32 = 4;

/// The last chapter that compiles with `arg` known: from chapter 18 `arg`
/// is the parameter of `main`, and a program that wants a known value
/// assigns it (`arg = 5;`), as Simple's chapter 18 tests do.
pub const LAST_ARG_CHAPTER: u32 = 17;
/// The first chapter with the graph evaluator.
pub const FIRST_EVAL_CHAPTER: u32 = 8;
/// The first chapter that schedules (`ir`, `eval --scheduled`).
pub const FIRST_SCHEDULE_CHAPTER: u32 = 11;
/// The first chapter that selects instructions (`asm`, `legal`).
pub const FIRST_BACKEND_CHAPTER: u32 = 19;
/// The first chapter that encodes machine code (`obj`, `run`).
pub const FIRST_ENCODING_CHAPTER: u32 = 21;

/// The default budget of loop trips for `eval`: enough for real programs
/// (ten million trips), small enough that a loop that never ends stops
/// within seconds.
pub const DEFAULT_LOOPS: usize = 10_000_000;

/// Parses `src` with chapter `chapter` and, from chapter 9 on and unless
/// peepholes are off, optimizes it. The result answers the views.
pub fn compile(chapter: u32, src: &str, options: &Options) -> Result<Box<dyn Driver>, Failure> {
    if options.arg.is_some() && chapter < FIRST_ARG_CHAPTER {
        return Err(Failure::Usage(format!(
            "--arg needs chapter {FIRST_ARG_CHAPTER} or later: chapter {chapter} has no `arg`"
        )));
    }
    if options.arg.is_some() && chapter > LAST_ARG_CHAPTER {
        return Err(Failure::Usage(format!(
            "--arg when compiling is for chapters {FIRST_ARG_CHAPTER} to {LAST_ARG_CHAPTER}: in chapter {chapter} `arg` is main's parameter; assign it in the program (`arg = 5;`) or give it to `eval --arg`"
        )));
    }
    if options.no_peephole && chapter < FIRST_PEEPHOLE_CHAPTER {
        return Err(Failure::Usage(format!(
            "--no-peephole needs chapter {FIRST_PEEPHOLE_CHAPTER} or later: chapter {chapter} has no peepholes"
        )));
    }
    let mut driver = chapters::driver(chapter, src, options).ok_or_else(|| {
        Failure::Usage(format!(
            "there is no chapter {chapter}: chapters 1 to {LATEST} exist"
        ))
    })?;
    driver.parse()?;
    if !options.no_peephole {
        driver.iterate()?;
    }
    Ok(driver)
}

/// Compiles `src` with chapter `chapter` (`arg` unknown at compile time,
/// peepholes as `options` say) and runs it with `arg` = `arg`, allowing at
/// most `loops` loop iterations; by walking the graph, or with `scheduled`
/// by running the schedule.
pub fn evaluate(
    chapter: u32,
    src: &str,
    options: &Options,
    arg: i64,
    loops: usize,
    scheduled: bool,
) -> Result<Evaluation, Failure> {
    if options.arg.is_some() {
        return Err(Failure::Usage(
            "eval takes the argument's value with --arg, not a compile-time constant".into(),
        ));
    }
    if chapter < FIRST_EVAL_CHAPTER {
        return Err(Failure::Usage(format!(
            "eval needs chapter {FIRST_EVAL_CHAPTER} or later: chapter {chapter} has no evaluator"
        )));
    }
    if scheduled && chapter < FIRST_SCHEDULE_CHAPTER {
        return Err(Failure::Usage(format!(
            "--scheduled needs chapter {FIRST_SCHEDULE_CHAPTER} or later: chapter {chapter} has no schedule"
        )));
    }
    if scheduled && options.no_peephole {
        return Err(Failure::Usage(
            "--scheduled needs the optimizer: only `iterate` schedules".into(),
        ));
    }
    let driver = compile(chapter, src, options)?;
    let run = if scheduled {
        driver.eval_scheduled(arg, loops)
    } else {
        driver.eval(arg, loops)
    };
    run.ok_or_else(|| Failure::Usage(format!("chapter {chapter} cannot run this program")))
}

/// Renders an error in the style of rustc: the message, the place as
/// `FILE:LINE:COL`, and the source line with a caret under the column.
pub fn render_error(message: &str, file: &str, src: &str, offset: usize) -> String {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[offset..].find('\n').map_or(src.len(), |i| offset + i);
    let line_no = src[..offset].matches('\n').count() + 1;
    let col = src[line_start..offset].chars().count() + 1;
    let text = src[line_start..line_end].trim_end_matches('\r');
    let gutter = " ".repeat(line_no.to_string().len());
    let pad: String = src[line_start..offset]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!(
        "error: {message}\n{gutter}--> {file}:{line_no}:{col}\n{gutter} |\n{line_no} | {text}\n{gutter} | {pad}^\n"
    )
}

/// Parses `src` with chapter `chapter` (19 on) and compiles it for `cpu`
/// and `abi` as far as the machine program's schedule; the result lists
/// it (`asm`).
pub fn assemble(
    chapter: u32,
    src: &str,
    options: &Options,
    cpu: &str,
    abi: &str,
) -> Result<Box<dyn Driver>, Failure> {
    if chapter < FIRST_BACKEND_CHAPTER {
        return Err(Failure::Usage(format!(
            "asm needs chapter {FIRST_BACKEND_CHAPTER} or later: chapter {chapter} has no backend"
        )));
    }
    if options.no_peephole {
        return Err(Failure::Usage(
            "asm needs the optimizer: selection runs on the optimized graph".into(),
        ));
    }
    check_target(cpu, abi)?;
    check_mir_options(chapter, options)?;
    let mut driver = chapters::driver(chapter, src, options).ok_or_else(|| {
        Failure::Usage(format!(
            "there is no chapter {chapter}: chapters 1 to {LATEST} exist"
        ))
    })?;
    driver.parse()?;
    driver
        .select(cpu, abi)
        .unwrap_or_else(|| Err(Failure::Usage(format!("chapter {chapter} has no backend"))))?;
    Ok(driver)
}

/// `--print-after HOOK` and `--pass NAME` need chapter 21's machine IR,
/// a hook that exists and an example pass that exists.
pub fn check_mir_options(chapter: u32, options: &Options) -> Result<(), Failure> {
    if options.print_after.is_empty() && options.passes.is_empty() {
        return Ok(());
    }
    if chapter < FIRST_ENCODING_CHAPTER {
        return Err(Failure::Usage(format!(
            "--print-after and --pass need chapter {FIRST_ENCODING_CHAPTER} or later: chapter {chapter} has no machine-IR passes"
        )));
    }
    for hook in &options.print_after {
        if chapter21::mir::Hook::from_name(hook).is_none() {
            let names: Vec<&str> = chapter21::mir::Hook::ALL.iter().map(|h| h.name()).collect();
            return Err(Failure::Usage(format!(
                "unknown hook '{hook}': the hooks are {}",
                names.join(", ")
            )));
        }
    }
    for name in &options.passes {
        if chapter21::mir::examples::by_name(name).is_none() {
            return Err(Failure::Usage(format!(
                "unknown pass '{name}': the passes are {}",
                chapter21::mir::examples::NAMES.join(", ")
            )));
        }
    }
    Ok(())
}

/// The legalizer's rules for `cpu`, as chapter `chapter` (19 on) declares
/// them.
pub fn legal_rules(chapter: u32, cpu: &str) -> Result<String, Failure> {
    if chapter < FIRST_BACKEND_CHAPTER {
        return Err(Failure::Usage(format!(
            "legal needs chapter {FIRST_BACKEND_CHAPTER} or later: chapter {chapter} has no backend"
        )));
    }
    let options = Options::default();
    let driver = chapters::driver(chapter, "", &options).ok_or_else(|| {
        Failure::Usage(format!(
            "there is no chapter {chapter}: chapters 1 to {LATEST} exist"
        ))
    })?;
    driver
        .legal_rules(cpu)
        .unwrap_or_else(|| Err(Failure::Usage(format!("chapter {chapter} has no backend"))))
}

/// The CPUs and calling conventions the backend knows: `x86_64_v2` with
/// `SystemV` or `Win64`, `riscv` and `arm` with `SystemV`. A name it does
/// not know is a bad command line.
pub fn check_target(cpu: &str, abi: &str) -> Result<(), Failure> {
    if !["x86_64_v2", "riscv", "arm"].contains(&cpu) {
        return Err(Failure::Usage(format!(
            "unknown CPU '{cpu}': the CPUs are x86_64_v2, riscv and arm"
        )));
    }
    match abi {
        "SystemV" => Ok(()),
        "Win64" if cpu == "x86_64_v2" => Ok(()),
        "Win64" => Err(Failure::Usage(format!(
            "{cpu} has no Win64 calling convention"
        ))),
        _ => Err(Failure::Usage(format!(
            "unknown ABI '{abi}': the ABIs are SystemV and Win64"
        ))),
    }
}
