//! `spill-stats`: the register allocator's copies, program by program.
//!
//! Compiles the allocator suite with chapter 21 (the latest chapter that
//! allocates registers) and prints one row per program, CPU and calling
//! convention: the splits left after allocation (register-to-register
//! moves as well as spills and reloads) and the same weighted by 8^d for
//! a split at loop depth d. Two groups, as seed `003_*` reports them:
//!
//! - **chapter 20**: Simple's chapter 20 allocation inputs, BrainFuck and
//!   merge sort among them, on the three System V targets;
//! - **chapter 21**: Simple's chapter 21 tests and programs, BrainFuck and
//!   merge sort, on x86-64 System V and Win64, RISC-V and AArch64.
//!
//! Then the totals per group and overall. Every row is compared with the
//! expectations in `tests/progs/spill/expected.txt` (both with and without
//! coalescing); every mismatch is reported, none stops the run, and the
//! exit status is 1 if there was any. `--no-coalesce` turns coalescing and
//! copy forwarding off, to show what they remove. The trivial structural
//! test `return 0;` is left out.

use chapter21::CodeGen;
use clap::Parser;
use std::collections::BTreeMap;
use std::process::ExitCode;

/// `println!` that stops quietly when the reader has gone
/// (`spill-stats | head`), where `println!` would panic.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("error: cannot write the table: {e}");
                std::process::exit(1);
            }
            std::process::exit(0);
        }
    }};
}

#[derive(Parser)]
#[command(
    name = "spill-stats",
    about = "The register allocator's copies on the allocator suite, checked against tests/progs/spill/expected.txt"
)]
struct Cli {
    /// Allocate without coalescing and copy forwarding
    #[arg(long)]
    no_coalesce: bool,
    /// Rewrite the expectations file with what this run measured (both
    /// with and without coalescing) instead of checking it
    #[arg(long)]
    update: bool,
}

const SYSTEM_V: &[(&str, &str)] = &[
    ("x86_64_v2", "SystemV"),
    ("riscv", "SystemV"),
    ("arm", "SystemV"),
];
const ALL_TARGETS: &[(&str, &str)] = &[
    ("x86_64_v2", "SystemV"),
    ("x86_64_v2", "Win64"),
    ("riscv", "SystemV"),
    ("arm", "SystemV"),
];

macro_rules! prog {
    ($file:literal) => {
        (
            $file,
            include_str!(concat!("../../tests/progs/spill/", $file, ".smp")),
        )
    };
}

/// Chapter 20's group: Simple's `Chapter20Test` inputs.
const CHAPTER20: &[(&str, &str)] = &[
    prog!("alloc0"),
    prog!("basic1"),
    prog!("newton_int"),
    prog!("newton_flt"),
    prog!("alloc2"),
    prog!("array1"),
    prog!("string"),
    prog!("cast"),
    prog!("flt_arg"),
    prog!("flags1"),
    prog!("flags2"),
    prog!("brainfuck"),
    prog!("merge_sort"),
];

/// Chapter 21's group: Simple's `Chapter21Test` inputs and programs.
const CHAPTER21: &[(&str, &str)] = &[
    prog!("basic1"),
    prog!("ch21_infinite"),
    prog!("ch21_array1"),
    prog!("ch21_antiDep1"),
    prog!("ch21_stringHash"),
    prog!("ch21_loop2"),
    prog!("ch21_newtonFloat"),
    prog!("ch21_sieve"),
    prog!("ch21_fib"),
    prog!("ch21_person"),
    prog!("ch21_arg_count"),
    prog!("brainfuck"),
    prog!("merge_sort"),
];

/// The splits left and their loop-weighted sum, with coalescing or not.
fn measure(src: &str, cpu: &str, abi: &str, coalesce: bool) -> Result<(u32, u64), String> {
    let mut code = CodeGen::new(src);
    code.coalesce = coalesce;
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select(cpu, abi))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .and_then(|c| c.reg_alloc())
        .map_err(|e| e.message.clone())?;
    let a = code.alloc.as_ref().ok_or("no allocation")?;
    Ok((a.splits, a.splits_weighted))
}

/// A group: its name, its programs (name, source), its targets.
type Group = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [(&'static str, &'static str)],
);

const EXPECTED: &str = "tests/progs/spill/expected.txt";

/// A row's key in the expectations file: `group/program cpu abi`.
type Key = (String, String, String);

/// The expectations: per row, (splits, weighted) with and without
/// coalescing.
fn read_expected() -> Result<BTreeMap<Key, [u64; 4]>, String> {
    let text = std::fs::read_to_string(EXPECTED)
        .map_err(|e| format!("cannot read {EXPECTED} (run from the repository root): {e}"))?;
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        let nums: Option<Vec<u64>> = w
            .get(3..7)
            .and_then(|n| n.iter().map(|x| x.parse().ok()).collect());
        match (w.len(), nums) {
            (7, Some(n)) => {
                out.insert(
                    (w[0].to_string(), w[1].to_string(), w[2].to_string()),
                    [n[0], n[1], n[2], n[3]],
                );
            }
            _ => return Err(format!("{EXPECTED}:{}: malformed line: {line}", i + 1)),
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let expected = if cli.update {
        BTreeMap::new()
    } else {
        match read_expected() {
            Ok(e) => e,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let coalesce = !cli.no_coalesce;
    let groups: [Group; 2] = [
        ("chapter20", CHAPTER20, SYSTEM_V),
        ("chapter21", CHAPTER21, ALL_TARGETS),
    ];
    out!(
        "{:<28} {:<10} {:<8} {:>7} {:>9}",
        "group/program",
        "cpu",
        "abi",
        "splits",
        "weighted"
    );
    let mut mismatches = Vec::new();
    let mut updated = Vec::new();
    let (mut all_n, mut all_s, mut all_w) = (0u32, 0u64, 0u64);
    for (group, programs, targets) in groups {
        let (mut n, mut s, mut w) = (0u32, 0u64, 0u64);
        for &(name, src) in programs {
            for &(cpu, abi) in targets {
                let key = (format!("{group}/{name}"), cpu.to_string(), abi.to_string());
                let row = |co| measure(src, cpu, abi, co);
                let got = match row(coalesce) {
                    Ok(r) => r,
                    Err(e) => {
                        mismatches.push(format!("{} {cpu} {abi}: does not compile: {e}", key.0));
                        continue;
                    }
                };
                out!(
                    "{:<28} {:<10} {:<8} {:>7} {:>9}",
                    key.0,
                    cpu,
                    abi,
                    got.0,
                    got.1
                );
                n += 1;
                s += u64::from(got.0);
                w += got.1;
                if cli.update {
                    let other = row(!coalesce).unwrap_or(got);
                    let (on, off) = if coalesce { (got, other) } else { (other, got) };
                    updated.push(format!(
                        "{} {cpu} {abi} {} {} {} {}",
                        key.0, on.0, on.1, off.0, off.1
                    ));
                    continue;
                }
                let want =
                    expected
                        .get(&key)
                        .map(|e| if coalesce { (e[0], e[1]) } else { (e[2], e[3]) });
                match want {
                    Some(want) if want == (u64::from(got.0), got.1) => {}
                    Some(want) => mismatches.push(format!(
                        "{} {cpu} {abi}: expected {} splits, {} weighted; got {}, {}",
                        key.0, want.0, want.1, got.0, got.1
                    )),
                    None => mismatches.push(format!("{} {cpu} {abi}: no expectation", key.0)),
                }
            }
        }
        out!("total {group}: {n} compiles, {s} splits, {w} weighted");
        all_n += n;
        all_s += s;
        all_w += w;
    }
    out!("total: {all_n} compiles, {all_s} splits, {all_w} weighted");
    if cli.update {
        let mut text = String::from(
            "# spill-stats expectations: group/program cpu abi, then splits and\n\
             # weighted splits with coalescing, then the same without.\n\
             # Written by `cargo run --release --bin spill-stats -- --update`.\n",
        );
        for l in updated {
            text.push_str(&l);
            text.push('\n');
        }
        if let Err(e) = std::fs::write(EXPECTED, text) {
            eprintln!("error: cannot write {EXPECTED}: {e}");
            return ExitCode::from(2);
        }
        eprintln!("wrote {EXPECTED}");
    }
    for m in &mismatches {
        eprintln!("mismatch: {m}");
    }
    if mismatches.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("{} mismatches", mismatches.len());
        ExitCode::from(1)
    }
}
