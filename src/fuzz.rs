//! Differential fuzzing of the optimizer.
//!
//! A seeded generator writes random, always-terminating programs in the
//! language of chapter 12 (which every later chapter accepts), and the
//! latest chapter compiles them, through the same [`Driver`](crate::Driver)
//! as the command line: integers, floats (`flt` variables and fields,
//! integers widened into them, float comparisons), `if`/`else`, `while`
//! with `break` and `continue`, and structs (allocation, field loads and stores, pointers
//! copied between variables so that two names alias one object, nullable
//! pointers used only under a null test). Each program is compiled three
//! ways, without peepholes, with the parse-time peepholes, and with the
//! iterative optimizer on top, and the graph evaluator runs each on several
//! values of `arg`; the optimized program is also run a fourth way, block
//! by block by its global code motion schedule with one mutable heap, which
//! checks the schedule (a Load placed after a Store that overwrites what it
//! reads would read the new value). Every optimization must keep the
//! meaning of the program, so all four must agree. A disagreement (or a
//! compile error, or a panic) is a bug; the reducer then deletes lines
//! while the failure persists, to hand back a small reproducer.

use crate::{chapters, Evaluation, Failure, Options, LATEST};
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

/// What a variable holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    /// A float (`flt`, chapter 12 on).
    Flt,
    /// A pointer to struct number `n`, never null.
    Ptr(usize),
    /// A pointer to struct number `n`, or null.
    Nullable(usize),
}

#[derive(Clone)]
struct Var {
    name: String,
    kind: Kind,
}

struct Generator {
    rng: Rng,
    /// The chapter whose language to write: floats from 12, fields that
    /// point to structs from 13, narrow integers and bitwise operators
    /// from 14.
    chapter: u32,
    out: String,
    /// The structs declared: each a name and its fields, with the kind
    /// (`Int` or `Flt`) each holds.
    structs: Vec<(String, Vec<(String, Kind)>)>,
    /// Variables in scope, innermost scope last.
    scopes: Vec<Vec<Var>>,
    next_var: usize,
    /// Nesting of loops (break/continue are allowed when > 0).
    loops: usize,
    /// Statements left to write, bounding the program size.
    budget: usize,
}

/// A random program for `seed` in the latest chapter's language, one
/// statement per line.
pub fn generate(seed: u64) -> String {
    generate_for(seed, LATEST)
}

/// A random program for `seed` in the language of `chapter` (11 or later).
pub fn generate_for(seed: u64, chapter: u32) -> String {
    let mut g = Generator {
        rng: Rng::new(seed),
        chapter,
        out: String::new(),
        structs: Vec::new(),
        scopes: vec![Vec::new()],
        next_var: 0,
        loops: 0,
        budget: 12 + (seed % 20) as usize,
    };
    // Most programs use structs; a few stay with integers only.
    let structs = [0, 1, 1, 2][g.rng.below(4) as usize];
    for s in 0..structs {
        let fields: Vec<(String, Kind, String)> = (0..1 + g.rng.below(3))
            .map(|f| {
                let (kind, ty) = g.field_type(structs);
                (format!("f{f}"), kind, ty)
            })
            .collect();
        let decl: Vec<String> = fields
            .iter()
            .map(|(f, _, ty)| format!("{ty} {f};"))
            .collect();
        let fields = fields.into_iter().map(|(f, kind, _)| (f, kind)).collect();
        let _ = writeln!(g.out, "struct S{s} {{ {} }}", decl.join(" "));
        g.structs.push((format!("S{s}"), fields));
    }
    for s in 0..structs {
        g.pointer_declaration(0, s);
    }
    for _ in 0..2 {
        g.declaration(0);
    }
    while g.budget > 0 {
        g.statement(0);
    }
    // Now and then return an object, to compare the contents of memory.
    let pointers = g.vars_of(|k| matches!(k, Kind::Ptr(_)));
    let result = if !pointers.is_empty() && g.rng.chance(20) {
        g.pick(&pointers)
    } else if g.floats() && g.rng.chance(20) {
        g.float_expression(3)
    } else {
        g.expression(3)
    };
    let _ = writeln!(g.out, "return {result};");
    g.out
}

impl Generator {
    fn floats(&self) -> bool {
        self.chapter >= 12
    }

    fn references(&self) -> bool {
        self.chapter >= 13
    }

    fn narrow(&self) -> bool {
        self.chapter >= 14
    }

    /// The type of a new field: an integer of some width, a float, or
    /// (chapter 13 on) a nullable pointer to any of the `structs` structs,
    /// itself or one declared later included. Its kind, and the type as
    /// written.
    fn field_type(&mut self, structs: usize) -> (Kind, String) {
        if self.references() && self.rng.chance(25) {
            let s = self.rng.below(structs as u64) as usize;
            return (Kind::Nullable(s), format!("S{s}?"));
        }
        if self.floats() && self.rng.chance(25) {
            return (Kind::Flt, "flt".to_owned());
        }
        (Kind::Int, self.int_type().to_owned())
    }

    /// `int`, or from chapter 14 now and then a narrower integer type.
    fn int_type(&mut self) -> &'static str {
        if self.narrow() && self.rng.chance(40) {
            let types = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u1", "bool"];
            return types[self.rng.below(types.len() as u64) as usize];
        }
        "int"
    }

    fn indent(&mut self, depth: usize) {
        self.out.push_str(&"  ".repeat(depth));
    }

    /// The names of the variables in scope whose kind passes `want`.
    fn vars_of(&self, want: impl Fn(Kind) -> bool) -> Vec<String> {
        self.scopes
            .iter()
            .flatten()
            .filter(|v| want(v.kind))
            .map(|v| v.name.clone())
            .collect()
    }

    fn kind_of(&self, name: &str) -> Kind {
        let var = self.scopes.iter().flatten().rev().find(|v| v.name == name);
        var.expect("a variable in scope").kind
    }

    fn pick(&mut self, names: &[String]) -> String {
        names[self.rng.below(names.len() as u64) as usize].clone()
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_var += 1;
        format!("{prefix}{}", self.next_var - 1)
    }

    fn bind(&mut self, name: &str, kind: Kind) {
        let var = Var {
            name: name.to_owned(),
            kind,
        };
        self.scopes.last_mut().expect("a scope").push(var);
    }

    /// `int v = expr;`, or now and then `flt x = expr;`.
    fn declaration(&mut self, depth: usize) {
        if self.floats() && self.rng.chance(25) {
            let name = self.fresh("x");
            let value = self.float_expression(3);
            self.indent(depth);
            let _ = writeln!(self.out, "flt {name} = {value};");
            self.bind(&name, Kind::Flt);
            return;
        }
        let name = self.fresh("v");
        let value = self.expression(3);
        let ty = self.int_type();
        self.indent(depth);
        let _ = writeln!(self.out, "{ty} {name} = {value};");
        self.bind(&name, Kind::Int);
    }

    /// `S p = new S;`, `S p = q;` or, nullable, `S? p = null;`.
    fn pointer_declaration(&mut self, depth: usize, s: usize) {
        let name = self.fresh("p");
        let ty = self.structs[s].0.clone();
        self.indent(depth);
        if self.rng.chance(25) {
            // Null on some runs only: a pointer known to be null everywhere
            // has no fields to access, even under a test.
            let k = self.rng.below(5);
            let _ = writeln!(self.out, "{ty}? {name} = null;");
            self.indent(depth);
            let _ = writeln!(self.out, "if (arg < {k}) {name} = new {ty};");
            self.bind(&name, Kind::Nullable(s));
            return;
        }
        let same = self.vars_of(|k| k == Kind::Ptr(s));
        let value = if !same.is_empty() && self.rng.chance(30) {
            self.pick(&same)
        } else {
            format!("new {ty}")
        };
        let _ = writeln!(self.out, "{ty} {name} = {value};");
        self.bind(&name, Kind::Ptr(s));
    }

    fn statement(&mut self, depth: usize) {
        self.budget = self.budget.saturating_sub(1);
        let deep = depth >= 3 || self.budget == 0;
        let has_structs = !self.structs.is_empty();
        match self.rng.below(14) {
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
            6 | 7 if has_structs => self.store(depth),
            8 if has_structs => {
                let s = self.rng.below(self.structs.len() as u64) as usize;
                self.pointer_declaration(depth, s);
            }
            9 if has_structs => self.pointer_assignment(depth),
            10 if has_structs => self.null_guarded(depth),
            _ => self.assignment(depth),
        }
    }

    fn assignment(&mut self, depth: usize) {
        let vars = self.vars_of(|k| k == Kind::Int || k == Kind::Flt);
        let name = self.pick(&vars);
        let value = self.value_of(self.kind_of(&name), 3);
        self.indent(depth);
        let _ = writeln!(self.out, "{name} = {value};");
    }

    /// A random field of struct `s`, with the kind it holds.
    fn field(&mut self, s: usize) -> (String, Kind) {
        let fields = &self.structs[s].1;
        fields[self.rng.below(fields.len() as u64) as usize].clone()
    }

    /// A random field of struct `s` that holds `kind`, if it has one.
    fn field_of(&mut self, s: usize, kind: Kind) -> Option<String> {
        let fields: Vec<String> = (self.structs[s].1.iter())
            .filter(|(_, k)| *k == kind)
            .map(|(f, _)| f.clone())
            .collect();
        (!fields.is_empty()).then(|| self.pick(&fields))
    }

    /// An expression whose value fits a variable or field of `kind` (an
    /// integer widens to a float).
    fn value_of(&mut self, kind: Kind, depth: usize) -> String {
        match kind {
            Kind::Flt => self.float_expression(depth),
            Kind::Int => self.expression(depth),
            Kind::Ptr(s) | Kind::Nullable(s) => self.pointer_value(s),
        }
    }

    /// A pointer to struct `s` that may be null: `null`, `new S`, or a
    /// variable.
    fn pointer_value(&mut self, s: usize) -> String {
        let same = self.vars_of(|k| k == Kind::Ptr(s) || k == Kind::Nullable(s));
        match self.rng.below(4) {
            0 => "null".to_owned(),
            1 => format!("new {}", self.structs[s].0),
            _ if !same.is_empty() => self.pick(&same),
            _ => "null".to_owned(),
        }
    }

    /// `q = p.f;`: a nullable pointer read from a field (chapter 13 on),
    /// used later only under a null test like any nullable variable.
    fn pointer_load(&mut self, depth: usize) -> bool {
        let mut loads = Vec::new();
        for v in self.scopes.iter().flatten() {
            let Kind::Ptr(s) = v.kind else { continue };
            for (f, kind) in &self.structs[s].1 {
                if let Kind::Nullable(t) = kind {
                    for q in self.scopes.iter().flatten() {
                        if q.kind == Kind::Nullable(*t) {
                            loads.push(format!("{} = {}.{f};", q.name, v.name));
                        }
                    }
                }
            }
        }
        if loads.is_empty() {
            return false;
        }
        let line = self.pick(&loads);
        self.indent(depth);
        let _ = writeln!(self.out, "{line}");
        true
    }

    /// `p.f = expr;` through a pointer that cannot be null.
    fn store(&mut self, depth: usize) {
        let pointers = self.vars_of(|k| matches!(k, Kind::Ptr(_)));
        if pointers.is_empty() {
            return self.assignment(depth);
        }
        let p = self.pick(&pointers);
        let Kind::Ptr(s) = self.kind_of(&p) else {
            unreachable!("picked a pointer")
        };
        let (f, kind) = self.field(s);
        let value = self.value_of(kind, 3);
        self.indent(depth);
        let _ = writeln!(self.out, "{p}.{f} = {value};");
    }

    /// `p = new S;`, `p = q;` (now both name one object), or for a nullable
    /// pointer also `if (arg < k) p = null;`.
    fn pointer_assignment(&mut self, depth: usize) {
        let pointers = self.vars_of(|k| matches!(k, Kind::Ptr(_) | Kind::Nullable(_)));
        if pointers.is_empty() {
            return self.assignment(depth);
        }
        let p = self.pick(&pointers);
        let kind = self.kind_of(&p);
        let (Kind::Ptr(s) | Kind::Nullable(s)) = kind else {
            unreachable!("picked a pointer")
        };
        let load = kind == Kind::Nullable(s) && self.references() && self.rng.chance(40);
        if load && self.pointer_load(depth) {
            return;
        }
        let same = self.vars_of(|k| k == Kind::Ptr(s) || k == kind);
        let value = match self.rng.below(3) {
            0 => self.pick(&same),
            _ => format!("new {}", self.structs[s].0),
        };
        self.indent(depth);
        if kind == Kind::Nullable(s) && self.rng.chance(50) {
            // As at the declaration, null on some runs only.
            let k = self.rng.below(5);
            let _ = writeln!(self.out, "if (arg < {k}) {p} = null;");
            return;
        }
        let _ = writeln!(self.out, "{p} = {value};");
    }

    /// `if (q) q.f = expr;` or `if (q) v = q.f;`: a nullable pointer used
    /// where the test proves it is not null.
    fn null_guarded(&mut self, depth: usize) {
        let nullable = self.vars_of(|k| matches!(k, Kind::Nullable(_)));
        if nullable.is_empty() {
            return self.store(depth);
        }
        let q = self.pick(&nullable);
        let Kind::Nullable(s) = self.kind_of(&q) else {
            unreachable!("picked a nullable")
        };
        let (f, kind) = self.field(s);
        let same = self.vars_of(|k| k == kind);
        self.indent(depth);
        if self.rng.chance(50) || same.is_empty() {
            let value = self.value_of(kind, 2);
            let _ = writeln!(self.out, "if ({q}) {q}.{f} = {value};");
        } else if matches!(kind, Kind::Nullable(_)) {
            let v = self.pick(&same);
            let _ = writeln!(self.out, "if ({q}) {v} = {q}.{f};");
        } else {
            let v = self.pick(&same);
            let _ = writeln!(self.out, "if ({q}) {v} = {q}.{f} + {v};");
        }
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
                let mut op =
                    ["+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">="][(k - 2) as usize];
                if self.narrow() && self.rng.chance(30) {
                    op = ["&", "|", "^", "<<", ">>", ">>>"][self.rng.below(6) as usize];
                }
                format!("({a} {op} {b})")
            }
        }
    }

    fn leaf(&mut self) -> String {
        let ints = self.vars_of(|k| k == Kind::Int);
        let pointers = self.vars_of(|k| matches!(k, Kind::Ptr(_)));
        match self.rng.below(6) {
            0 => "arg".to_owned(),
            1 => self.rng.below(10).to_string(),
            // A field load.
            2 if !pointers.is_empty() => {
                let p = self.pick(&pointers);
                let Kind::Ptr(s) = self.kind_of(&p) else {
                    unreachable!("picked a pointer")
                };
                match self.field_of(s, Kind::Int) {
                    Some(f) => format!("{p}.{f}"),
                    None => "arg".to_owned(),
                }
            }
            // Do two pointers name the same object?
            3 if pointers.len() >= 2 && self.rng.chance(30) => {
                let (p, q) = (self.pick(&pointers), self.pick(&pointers));
                if self.kind_of(&p) == self.kind_of(&q) {
                    format!("({p} == {q})")
                } else {
                    "arg".to_owned()
                }
            }
            // Comparing floats gives an integer.
            4 if self.floats() && self.rng.chance(25) => {
                let (a, b) = (self.float_expression(1), self.float_expression(1));
                let op = ["==", "!=", "<", "<=", ">", ">="][self.rng.below(6) as usize];
                format!("({a} {op} {b})")
            }
            _ if !ints.is_empty() => self.pick(&ints),
            _ => "arg".to_owned(),
        }
    }

    /// A float expression: float variables, fields and literals, and
    /// integer expressions, which widen to floats.
    fn float_expression(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.chance(30) {
            return self.float_leaf();
        }
        let a = self.float_expression(depth - 1);
        match self.rng.below(6) {
            0 => format!("-{a}"),
            k => {
                let b = self.float_expression(depth - 1);
                let op = ["+", "-", "*", "/", "+"][(k - 1) as usize];
                format!("({a} {op} {b})")
            }
        }
    }

    fn float_leaf(&mut self) -> String {
        let floats = self.vars_of(|k| k == Kind::Flt);
        let pointers = self.vars_of(|k| matches!(k, Kind::Ptr(_)));
        match self.rng.below(6) {
            0 => ["0.5", "1.25", "2.0", "0.1", "3.0", "0.0"][self.rng.below(6) as usize].to_owned(),
            1 => self.expression(1),
            2 if !pointers.is_empty() => {
                let p = self.pick(&pointers);
                let Kind::Ptr(s) = self.kind_of(&p) else {
                    unreachable!("picked a pointer")
                };
                match self.field_of(s, Kind::Flt) {
                    Some(f) => format!("{p}.{f}"),
                    None => "1.5".to_owned(),
                }
            }
            _ if !floats.is_empty() => self.pick(&floats),
            _ => "arg".to_owned(),
        }
    }
}

/// Compiles `src` three ways with `chapter` and runs each; the
/// optimized program is also run by its schedule (global code motion), as
/// a machine would run it. `Err` describes a disagreement.
pub fn check(src: &str, chapter: u32) -> Result<(), String> {
    let variants: [(&str, bool, bool); 3] = [
        ("no peepholes", false, false),
        ("parse peepholes", true, false),
        ("iterated", true, true),
    ];
    let mut results: Vec<(&str, Vec<Evaluation>)> = Vec::new();
    for (name, peepholes, iterate) in variants {
        let options = Options {
            arg: None,
            no_peephole: !peepholes,
        };
        let mut code = chapters::driver(chapter, src, &options).expect("a registered chapter");
        let compile_error = |e: Failure| match e {
            Failure::Program { message, .. } => message,
            Failure::Usage(message) => message,
        };
        match code.parse().map_err(compile_error) {
            Ok(()) => {}
            // The peepholes can prove a pointer null everywhere (`if (arg)
            // ... else { if (arg < 1) p = null; if (p) p.f = 1; }`, where
            // `arg` is 0 on the else arm); a null pointer has no fields, so
            // the access is an error, as in Simple. Not a bug.
            Err(message) if peepholes && known_null(&message) => return Ok(()),
            Err(message) => return Err(format!("{name}: compile error: {message}")),
        }
        let run = |f: &dyn Fn(i64) -> Option<Evaluation>| -> Vec<Evaluation> {
            ARGS.iter()
                .map(|&a| f(a).expect("the latest chapter evaluates"))
                .collect()
        };
        if iterate {
            code.iterate()
                .map_err(|e| format!("{name}: compile error: {}", compile_error(e)))?;
            let scheduled = run(&|a| code.eval_scheduled(a, LOOP_BUDGET));
            results.push(("scheduled", scheduled));
        }
        results.push((name, run(&|a| code.eval(a, LOOP_BUDGET))));
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

/// A field access through a pointer the optimizer knows to be null.
fn known_null(message: &str) -> bool {
    let unknown = message.starts_with("Accessing unknown field")
        && (message.ends_with("from 'null'") || message.ends_with("from '*$TOP'"));
    // Chapter 12 on says it in Simple's newer words.
    let from_null = message.starts_with("Accessing field") && message.ends_with("from null");
    unknown || from_null
}

/// `check`, with a panic inside the compiler reported as a failure.
pub fn check_catching(src: &str, chapter: u32) -> Result<(), String> {
    match std::panic::catch_unwind(|| check(src, chapter)) {
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

/// The first chapter the fuzzer can check: it runs the schedule too.
pub const FIRST_FUZZ_CHAPTER: u32 = crate::FIRST_SCHEDULE_CHAPTER;

/// Generates and checks `count` programs from `seed` on, in the language
/// of `chapter` and compiled by it.
pub fn run(seed: u64, count: u64, chapter: u32) -> Report {
    let mut failures = Vec::new();
    for s in seed..seed.saturating_add(count) {
        let src = generate_for(s, chapter);
        if let Err(message) = check_catching(&src, chapter) {
            let reduced = reduce(&src, |p| {
                check_catching(p, chapter).is_err_and(|m| same_kind(&m, &message))
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
    if a.starts_with("panic") || b.starts_with("panic") {
        return a.split(':').next() == b.split(':').next();
    }
    // The same compile error, not just any: deleting lines easily makes a
    // syntax error.
    if a.contains("compile error") || b.contains("compile error") {
        return a == b;
    }
    head(a) == head(b)
}
