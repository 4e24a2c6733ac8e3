//! `simple`: run any chapter of the Simple course on a program.
//!
//! Standard output carries only the result (the printed program or the
//! Graphviz text); diagnostics and the graphs of `#showGraph` statements go
//! to standard error. Exit status: 0 on success, 1 for an error in the
//! program, 2 for a bad command line, 70 for an internal compiler error.

use clap::{Args, Parser, Subcommand};
use simple::{compile, render_error, Failure, Options, LATEST};
use std::io::Read;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "simple",
    version,
    about = "The Simple sea-of-nodes compiler course, in Rust: run any chapter on a program",
    after_help = "Examples:\n  simple print --chapter 4 -e 'return 1+arg+2;'    # return (arg+3);\n  simple dot --chapter 5 prog.smp > graph.dot"
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
}

#[derive(Args)]
struct Input {
    /// Which chapter's compiler to use
    #[arg(long, short, default_value_t = LATEST, value_parser = clap::value_parser!(u32).range(1..=LATEST as i64))]
    chapter: u32,
    /// Compile with `arg` known to be this constant (chapter 4 on)
    #[arg(long, allow_hyphen_values = true)]
    arg: Option<i64>,
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (input, want_dot) = match &cli.command {
        Command::Print(input) => (input, false),
        Command::Dot(input) => (input, true),
    };
    let (name, src) = match read_source(input) {
        Ok(found) => found,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        arg: input.arg,
        no_peephole: input.no_peephole,
    };
    let chapter = input.chapter;
    // Deep programs recurse deeply; give the compiler a roomy stack.
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || (compile(chapter, &src, &options), src));
    let (result, src) = match worker.map(|handle| handle.join()) {
        Ok(Ok(done)) => done,
        _ => {
            // A panic is a compiler bug; say so rather than exit with 101.
            eprintln!("error: internal compiler error (please report it with the program)");
            return ExitCode::from(70);
        }
    };
    match result {
        Ok(compiled) => {
            for (i, graph) in compiled.show_graphs.iter().enumerate() {
                eprintln!("// #showGraph {}\n{graph}", i + 1);
            }
            if want_dot {
                print!("{}", compiled.dot);
            } else {
                println!("{}", compiled.printed);
            }
            ExitCode::SUCCESS
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

/// The program's display name and text, from `-e`, a file or stdin.
fn read_source(input: &Input) -> Result<(String, String), String> {
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
