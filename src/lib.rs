//! The chapter registry behind the `simple` command.
//!
//! Every chapter crate is a complete compiler for the language of its
//! chapter, with the same small driver (`CodeGen`). This library puts them
//! behind one function, [`compile`], so the command line can run any
//! chapter, and says which options each chapter understands: `arg` exists
//! from chapter 4, `#showGraph` from chapter 3, peepholes from chapter 2,
//! and the graph evaluator behind [`evaluate`] from chapter 8. From chapter
//! 9 on, parsing is followed by the iterative optimizer (`iterate`), as
//! Simple's tests do; from chapter 10 that also checks for possible null
//! dereferences, which can fail the compilation.

pub mod fuzz;

/// The newest chapter; the default of `--chapter`.
pub const LATEST: u32 = 11;

/// What the command line asks of a compilation.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Compile with `arg` known to be this constant.
    pub arg: Option<i64>,
    /// Build the graph as parsed, without peephole optimization.
    pub no_peephole: bool,
    /// Evaluate by running the schedule (chapter 11 on).
    pub scheduled: bool,
}

/// The results of compiling one program.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The optimized program as Simple prints it.
    pub printed: String,
    /// The final graph in Graphviz form.
    pub dot: String,
    /// The Graphviz text of each `#showGraph` statement, in order.
    pub show_graphs: Vec<String>,
    /// The scheduled listing, block by block (chapter 11 on, when
    /// optimized).
    pub ir: Option<String>,
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

/// Compiles `src` with chapter `chapter`.
pub fn compile(chapter: u32, src: &str, options: &Options) -> Result<Compiled, Failure> {
    if options.arg.is_some() && chapter < 4 {
        return Err(Failure::Usage(format!(
            "--arg needs chapter 4 or later: chapter {chapter} has no `arg`"
        )));
    }
    if options.no_peephole && chapter < 2 {
        return Err(Failure::Usage(
            "--no-peephole needs chapter 2 or later: chapter 1 has no peepholes".into(),
        ));
    }
    // Every chapter's error has the same two fields.
    macro_rules! failure {
        () => {
            |e| Failure::Program {
                message: e.message,
                offset: e.offset,
            }
        };
    }
    let peep = options.no_peephole;
    // Chapters 4 on share one driver surface: peepholes, `arg`, #showGraph,
    // and from chapter 9 the iterative optimizer after parsing.
    macro_rules! with_arg {
        // From chapter 10, `iterate` can fail.
        ($krate:ident, checked) => {{
            let mut code = $krate::CodeGen::new(src);
            (code.disable_peephole, code.arg) = (peep, options.arg);
            let done = code.parse().map_err(failure!())?;
            if !peep {
                done.iterate().map_err(failure!())?;
            }
            Ok(compiled(done.print(), done.dot(), done.show_graphs.clone()))
        }};
        ($krate:ident $(, $iterate:ident)?) => {{
            let mut code = $krate::CodeGen::new(src);
            (code.disable_peephole, code.arg) = (peep, options.arg);
            let done = code.parse().map_err(failure!())?;
            $( if !peep { done.$iterate(); } )?
            Ok(compiled(done.print(), done.dot(), done.show_graphs.clone()))
        }};
    }
    match chapter {
        1 => {
            let mut code = chapter01::CodeGen::new(src);
            let done = code.parse().map_err(failure!())?;
            Ok(compiled(done.print(), done.dot(), Vec::new()))
        }
        2 => {
            let mut code = chapter02::CodeGen::new(src);
            code.disable_peephole = peep;
            let done = code.parse().map_err(failure!())?;
            Ok(compiled(done.print(), done.dot(), Vec::new()))
        }
        3 => {
            let mut code = chapter03::CodeGen::new(src);
            code.disable_peephole = peep;
            let done = code.parse().map_err(failure!())?;
            Ok(compiled(done.print(), done.dot(), done.show_graphs.clone()))
        }
        4 => with_arg!(chapter04),
        5 => with_arg!(chapter05),
        6 => with_arg!(chapter06),
        7 => with_arg!(chapter07),
        8 => with_arg!(chapter08),
        9 => with_arg!(chapter09, iterate),
        10 => with_arg!(chapter10, checked),
        11 => {
            let mut code = chapter11::CodeGen::new(src);
            (code.disable_peephole, code.arg) = (peep, options.arg);
            let done = code.parse().map_err(failure!())?;
            if !peep {
                done.iterate().map_err(failure!())?;
            }
            let ir = (!peep).then(|| done.ir());
            let mut out = compiled(done.print(), done.dot(), done.show_graphs.clone());
            out.ir = ir;
            Ok(out)
        }
        _ => Err(Failure::Usage(format!(
            "there is no chapter {chapter}: chapters 1 to {LATEST} exist"
        ))),
    }
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

/// The first chapter with a graph evaluator.
pub const FIRST_EVAL_CHAPTER: u32 = 8;

/// Compiles `src` with chapter `chapter` (`arg` unknown at compile time,
/// peepholes as `options` say) and runs it with `arg` = `arg`, allowing at
/// most `loops` loop iterations.
pub fn evaluate(
    chapter: u32,
    src: &str,
    options: &Options,
    arg: i64,
    loops: usize,
) -> Result<Evaluation, Failure> {
    let failure = |e_message: String, e_offset: usize| Failure::Program {
        message: e_message,
        offset: e_offset,
    };
    macro_rules! run {
        ($krate:ident, checked) => {{
            let mut code = $krate::CodeGen::new(src);
            code.disable_peephole = options.no_peephole;
            let done = code.parse().map_err(|e| failure(e.message, e.offset))?;
            if !options.no_peephole {
                done.iterate().map_err(|e| failure(e.message, e.offset))?;
            }
            Ok(match done.eval(arg, loops) {
                $krate::Outcome::Value(v) => Evaluation::Value(v.to_string()),
                $krate::Outcome::Fallthrough => Evaluation::Fallthrough,
                $krate::Outcome::Timeout => Evaluation::Timeout,
                $krate::Outcome::Fault(why) => Evaluation::Fault(why),
            })
        }};
        ($krate:ident $(, $iterate:ident)?) => {{
            let mut code = $krate::CodeGen::new(src);
            code.disable_peephole = options.no_peephole;
            let done = code.parse().map_err(|e| failure(e.message, e.offset))?;
            $( if !options.no_peephole { done.$iterate(); } )?
            Ok(match done.eval(arg, loops) {
                $krate::Outcome::Value(v) => Evaluation::Value(v.to_string()),
                $krate::Outcome::Fallthrough => Evaluation::Fallthrough,
                $krate::Outcome::Timeout => Evaluation::Timeout,
            })
        }};
    }
    if options.arg.is_some() {
        return Err(Failure::Usage(
            "eval takes the argument's value with --arg, not a compile-time constant".into(),
        ));
    }
    if options.scheduled && chapter < 11 {
        return Err(Failure::Usage(format!(
            "--scheduled needs chapter 11 or later: chapter {chapter} has no schedule"
        )));
    }
    match chapter {
        8 => run!(chapter08),
        9 => run!(chapter09, iterate),
        10 => run!(chapter10, checked),
        11 if options.scheduled => {
            if options.no_peephole {
                return Err(Failure::Usage(
                    "--scheduled needs the optimizer: only `iterate` schedules".into(),
                ));
            }
            let mut code = chapter11::CodeGen::new(src);
            let done = code.parse().map_err(|e| failure(e.message, e.offset))?;
            done.iterate().map_err(|e| failure(e.message, e.offset))?;
            Ok(evaluation11(done.eval_scheduled(arg, loops)))
        }
        11 => {
            let mut code = chapter11::CodeGen::new(src);
            code.disable_peephole = options.no_peephole;
            let done = code.parse().map_err(|e| failure(e.message, e.offset))?;
            if !options.no_peephole {
                done.iterate().map_err(|e| failure(e.message, e.offset))?;
            }
            Ok(evaluation11(done.eval(arg, loops)))
        }
        _ => Err(Failure::Usage(format!(
            "eval needs chapter {FIRST_EVAL_CHAPTER} or later: chapter {chapter} has no evaluator"
        ))),
    }
}

fn compiled(printed: String, dot: String, show_graphs: Vec<String>) -> Compiled {
    Compiled {
        printed,
        dot,
        show_graphs,
        ir: None,
    }
}

fn evaluation11(outcome: chapter11::Outcome) -> Evaluation {
    match outcome {
        chapter11::Outcome::Value(v) => Evaluation::Value(v.to_string()),
        chapter11::Outcome::Fallthrough => Evaluation::Fallthrough,
        chapter11::Outcome::Timeout => Evaluation::Timeout,
        chapter11::Outcome::Fault(why) => Evaluation::Fault(why),
    }
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
