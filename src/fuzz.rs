//! Differential fuzzing of the optimizer.
//!
//! A seeded generator writes random, always-terminating programs in the
//! language of chapter 9 (integers, `if`/`else`, `while` with `break` and
//! `continue`). Each program is compiled three ways, without peepholes,
//! with the parse-time peepholes, and with the iterative optimizer on top,
//! and the graph evaluator runs each on several values of `arg`. Every
//! optimization must keep the meaning of the program, so all three must
//! agree. A disagreement (or a compile error, or a panic) is a bug; the
//! reducer then deletes lines while the failure persists, to hand back a
//! small reproducer.

use chapter09::{CodeGen, Outcome};
use std::fmt::Write;

/// The values of `arg` each program is run with.
const ARGS: [i64; 5] = [-7, 0, 1, 3, 100];
/// Loop back edges allowed per run; generated loops need far fewer.
const LOOP_BUDGET: usize = 100_000;

/// A small deterministic generator (xorshift64*), so a seed names a program.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Generator {
    rng: Rng,
    out: String,
    /// Variables in scope, innermost scope last.
    scopes: Vec<Vec<String>>,
    next_var: usize,
    /// Nesting of loops (break/continue are allowed when > 0).
    loops: usize,
    /// Statements left to write, bounding the program size.
    budget: usize,
}

/// A random program for `seed`, one statement per line.
pub fn generate(seed: u64) -> String {
    let mut g = Generator {
        rng: Rng::new(seed),
        out: String::new(),
        scopes: vec![Vec::new()],
        next_var: 0,
        loops: 0,
        budget: 12 + (seed % 20) as usize,
    };
    for _ in 0..2 {
        g.declaration(0);
    }
    while g.budget > 0 {
        g.statement(0);
    }
    let result = g.expression(3);
    let _ = writeln!(g.out, "return {result};");
    g.out
}

impl Generator {
    fn indent(&mut self, depth: usize) {
        self.out.push_str(&"  ".repeat(depth));
    }

    fn vars(&self) -> Vec<String> {
        self.scopes.iter().flatten().cloned().collect()
    }

    fn declaration(&mut self, depth: usize) {
        let name = format!("v{}", self.next_var);
        self.next_var += 1;
        let value = self.expression(3);
        self.indent(depth);
        let _ = writeln!(self.out, "int {name} = {value};");
        self.scopes.last_mut().expect("a scope").push(name);
    }

    fn statement(&mut self, depth: usize) {
        self.budget = self.budget.saturating_sub(1);
        let deep = depth >= 3 || self.budget == 0;
        match self.rng.below(10) {
            0 | 1 => self.declaration(depth),
            2 | 3 if !deep => self.if_statement(depth),
            4 if !deep => self.while_statement(depth),
            5 if self.loops > 0 && self.rng.chance(40) => {
                self.indent(depth);
                let word = if self.rng.chance(50) {
                    "break"
                } else {
                    "continue"
                };
                let _ = writeln!(self.out, "{word};");
            }
            _ => self.assignment(depth),
        }
    }

    fn assignment(&mut self, depth: usize) {
        let vars = self.vars();
        let name = &vars[self.rng.below(vars.len() as u64) as usize];
        let value = self.expression(3);
        self.indent(depth);
        let _ = writeln!(self.out, "{name} = {value};");
    }

    /// A block on its own lines; its declarations end with it.
    fn block(&mut self, depth: usize, statements: usize) {
        self.scopes.push(Vec::new());
        for _ in 0..statements {
            self.statement(depth);
        }
        self.scopes.pop();
    }

    fn if_statement(&mut self, depth: usize) {
        let pred = self.expression(2);
        self.indent(depth);
        let _ = writeln!(self.out, "if ({pred}) {{");
        let n = 1 + self.rng.below(3) as usize;
        self.block(depth + 1, n);
        self.indent(depth);
        if self.rng.chance(60) {
            self.out.push_str("} else {\n");
            let n = 1 + self.rng.below(3) as usize;
            self.block(depth + 1, n);
            self.indent(depth);
        }
        self.out.push_str("}\n");
    }

    /// A loop that always ends: a fresh counter, bumped first thing in the
    /// body (so `continue` cannot skip it), bounds the trip count.
    fn while_statement(&mut self, depth: usize) {
        let counter = format!("c{}", self.next_var);
        self.next_var += 1;
        let limit = 1 + self.rng.below(6);
        self.indent(depth);
        let _ = writeln!(self.out, "int {counter} = 0;");
        self.indent(depth);
        let _ = writeln!(self.out, "while ({counter} < {limit}) {{");
        self.indent(depth + 1);
        let _ = writeln!(self.out, "{counter} = {counter} + 1;");
        self.loops += 1;
        let n = 1 + self.rng.below(3) as usize;
        self.block(depth + 1, n);
        self.loops -= 1;
        self.indent(depth);
        self.out.push_str("}\n");
    }

    fn expression(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.chance(30) {
            return self.leaf();
        }
        let a = self.expression(depth - 1);
        match self.rng.below(12) {
            0 => format!("-{a}"),
            1 => format!("({a})"),
            k => {
                let b = self.expression(depth - 1);
                let op = ["+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">="][(k - 2) as usize];
                format!("({a} {op} {b})")
            }
        }
    }

    fn leaf(&mut self) -> String {
        let vars = self.vars();
        match self.rng.below(4) {
            0 => "arg".to_owned(),
            1 => self.rng.below(10).to_string(),
            _ if !vars.is_empty() => vars[self.rng.below(vars.len() as u64) as usize].clone(),
            _ => "arg".to_owned(),
        }
    }
}

/// Compiles `src` three ways and runs each; `Err` describes a disagreement.
pub fn check(src: &str) -> Result<(), String> {
    let variants: [(&str, bool, bool); 3] = [
        ("no peepholes", false, false),
        ("parse peepholes", true, false),
        ("iterated", true, true),
    ];
    let mut results: Vec<(&str, Vec<Outcome>)> = Vec::new();
    for (name, peepholes, iterate) in variants {
        let mut code = CodeGen::new(src);
        code.disable_peephole = !peepholes;
        let done = code
            .parse()
            .map_err(|e| format!("{name}: compile error: {}", e.message))?;
        if iterate {
            done.iterate();
        }
        let outcomes = ARGS.iter().map(|&a| done.eval(a, LOOP_BUDGET)).collect();
        results.push((name, outcomes));
    }
    let (base_name, base) = &results[0];
    for (name, outcomes) in &results[1..] {
        for (i, (a, b)) in base.iter().zip(outcomes).enumerate() {
            if a != b {
                return Err(format!(
                    "arg={}: {base_name} gives {a:?}, {name} gives {b:?}",
                    ARGS[i]
                ));
            }
        }
    }
    Ok(())
}

/// `check`, with a panic inside the compiler reported as a failure.
pub fn check_catching(src: &str) -> Result<(), String> {
    match std::panic::catch_unwind(|| check(src)) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(format!("panic: {message}"))
        }
    }
}

/// Deletes lines of `src` while `fails` still holds, to a small program
/// that fails the same way.
pub fn reduce(src: &str, fails: impl Fn(&str) -> bool) -> String {
    let mut lines: Vec<&str> = src.lines().collect();
    let mut chunk = lines.len().max(1);
    while chunk > 0 {
        let mut i = 0;
        let mut progress = false;
        while i < lines.len() {
            let end = (i + chunk).min(lines.len());
            let candidate: Vec<&str> = lines[..i].iter().chain(&lines[end..]).copied().collect();
            let text = candidate.join("\n") + "\n";
            if !candidate.is_empty() && fails(&text) {
                lines = candidate;
                progress = true;
            } else {
                i += chunk;
            }
        }
        if !progress {
            chunk /= 2;
        }
    }
    lines.join("\n") + "\n"
}

/// The outcome of a fuzzing run.
pub struct Report {
    pub programs: u64,
    /// Each failing seed, its message, and the reduced program.
    pub failures: Vec<(u64, String, String)>,
}

/// Generates and checks `count` programs from `seed` on.
pub fn run(seed: u64, count: u64) -> Report {
    let mut failures = Vec::new();
    for s in seed..seed.saturating_add(count) {
        let src = generate(s);
        if let Err(message) = check_catching(&src) {
            let reduced = reduce(&src, |p| {
                check_catching(p).is_err_and(|m| same_kind(&m, &message))
            });
            failures.push((s, message, reduced));
        }
    }
    Report {
        programs: count,
        failures,
    }
}

/// Two failures are of the same kind when they start the same way (the
/// same variants disagree, or the same compile error or panic).
fn same_kind(a: &str, b: &str) -> bool {
    let head = |s: &str| {
        let s = s.split_once(": ").map_or(s, |(_, rest)| rest);
        s.split(" gives ").next().unwrap_or(s).to_owned()
    };
    if a.starts_with("panic") || b.starts_with("panic") || a.contains("compile error") {
        return a.split(':').next() == b.split(':').next();
    }
    head(a) == head(b)
}
