//! Differential fuzzing of the optimizer.
//!
//! A seeded generator writes random, always-terminating programs in the
//! language of a chapter (11 or later; each feature from the chapter that
//! brings it), and that chapter compiles them, through the same
//! [`Driver`](crate::Driver) as the command line: integers, floats (`flt`
//! variables and fields, integers widened into them (chapters 13 to 16
//! store only floats into fields and elements, as `x + 0.0`: Simple's
//! stores there do not convert), float comparisons; chapter 12),
//! `if`/`else`, `while` with `break` and `continue`, structs
//! (allocation, field loads and stores, pointers copied between variables
//! so that two names alias one object, nullable pointers used only under a
//! null test; pointer fields from chapter 13), narrow integers and bitwise
//! operators (14), arrays (15: filled, scanned and swapped, indices masked
//! into bounds, and now and then one store past the end that every run
//! must report as the same fault), field initialisers and constructor
//! blocks (16), `for`, compound assignment, `++`/`--`, `var` and `?:`
//! (17), and functions (18): one to four `val` functions of `int`
//! parameters before `main`'s code, each a few statements over its own
//! parameters and locals (a function reads no variable of `main`) that may
//! call the functions before it, some recursive or mutually recursive (a
//! forward reference) on a first argument that counts down from at most 7;
//! `main` calls them and picks between two of one signature at run time
//! (`{int int -> int} !h = (e) ? g : r; ... h(x)`). A chapter's programs draw no random
//! numbers for later chapters' features, so a seed still names the
//! program it always did.
//!
//! Each program is compiled three
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
    /// An array (chapter 15 on) of at least four elements, never null.
    Array(Elem),
}

/// What the elements of an array hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elem {
    /// An integer type, by its index in [`INT_TYPES`].
    Int(usize),
    Flt,
    /// A pointer to struct number `n`, or null.
    Nullable(usize),
}

/// The integer types a program may declare; `int` first.
const INT_TYPES: [&str; 10] = [
    "int", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u1", "bool",
];

impl Elem {
    /// The kind of variable an element loads into.
    fn kind(self) -> Kind {
        match self {
            Elem::Int(_) => Kind::Int,
            Elem::Flt => Kind::Flt,
            Elem::Nullable(s) => Kind::Nullable(s),
        }
    }
}

/// A function the program names (chapter 18): a `val`, or in `main` a
/// variable that holds one of two functions of the same signature. Its
/// parameters are all `int`, and it returns an `int`.
#[derive(Clone)]
struct Function {
    name: String,
    params: usize,
    /// It may recurse, counting its first argument down to 0: every call
    /// masks that argument into 0..=7, which bounds the depth.
    counted: bool,
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
    /// The functions declared so far (chapter 18), which code may call.
    functions: Vec<Function>,
    /// `main`'s variables that hold a function, chosen at run time, each
    /// with the two functions it may hold.
    function_vars: Vec<(Function, [String; 2])>,
    /// The integer that stands for `arg`: `arg` in `main`, a parameter in a
    /// function, which may read no variable of `main`.
    arg: String,
    /// Writing a function's body: nested no deeper than one `if` or loop,
    /// with `return` statements, and at most `calls_left` calls.
    in_function: bool,
    calls_left: usize,
    /// Writing a call's arguments, which call nothing themselves.
    in_call: bool,
    /// Statements written in functions so far.
    statements_in_functions: usize,
    /// Per struct, per field: its initialiser reads `arg`, so a function
    /// (which cannot see `arg`) must set it in a constructor block.
    reads_arg: Vec<Vec<bool>>,
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
        functions: Vec::new(),
        function_vars: Vec::new(),
        arg: "arg".to_owned(),
        in_function: false,
        calls_left: 0,
        in_call: false,
        statements_in_functions: 0,
        reads_arg: Vec::new(),
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
        let mut decl: Vec<String> = Vec::new();
        let mut reads_arg = Vec::new();
        for (f, kind, ty) in &fields {
            let init = g.field_initialiser(*kind);
            reads_arg.push(init.contains("arg"));
            decl.push(format!("{ty} {f}{init};"));
        }
        g.reads_arg.push(reads_arg);
        let fields = fields.into_iter().map(|(f, kind, _)| (f, kind)).collect();
        let end = g.struct_end();
        let _ = writeln!(g.out, "struct S{s} {{ {} {end}", decl.join(" "));
        g.structs.push((format!("S{s}"), fields));
    }
    // Functions come before any variable of `main`, which they could not
    // read anyway.
    if g.functions_on() {
        // The functions' statements come out of the program's budget, so
        // that a program costs about what it did before functions.
        let budget = g.budget;
        g.function_declarations();
        g.budget = budget.saturating_sub(g.statements_in_functions).max(6);
    }
    for s in 0..structs {
        g.pointer_declaration(0, s);
    }
    for _ in 0..2 {
        g.declaration(0);
    }
    // An array type must first appear in the outermost block.
    if g.arrays() {
        for _ in 0..g.rng.below(3) {
            g.array_declaration(0);
        }
    }
    if g.functions_on() {
        g.function_variables();
    }
    while g.budget > 0 {
        g.statement(0);
    }
    // Now and then return an object, to compare the contents of memory.
    let mut pointers = g.vars_of(|k| matches!(k, Kind::Ptr(_)));
    if g.arrays() {
        pointers.extend(g.vars_of(|k| matches!(k, Kind::Array(_))));
    }
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

    fn arrays(&self) -> bool {
        self.chapter >= 15
    }

    fn constructors(&self) -> bool {
        self.chapter >= 16
    }

    fn sugar(&self) -> bool {
        self.chapter >= 17
    }

    /// `value` as stored into a field or element of `kind`. In chapters 13
    /// to 16 a `flt` one takes no int (the store is refused once optimized,
    /// as in Simple, whose stores convert from chapter 17 on), so the value
    /// is made a float there. No random numbers are drawn.
    fn stored(&self, kind: Kind, value: String) -> String {
        if kind == Kind::Flt && (13..=16).contains(&self.chapter) {
            format!("({value}) + 0.0")
        } else {
            value
        }
    }

    fn functions_on(&self) -> bool {
        self.chapter >= 18
    }

    /// The end of a struct declaration: chapter 16 adds a `;`.
    fn struct_end(&self) -> &'static str {
        if self.constructors() {
            "};"
        } else {
            "}"
        }
    }

    /// A reference variable `name` of type `ty` being declared with a
    /// value. From chapter 17 such a variable is immutable, all the way
    /// down, unless marked `!`; the programs here assign them and store
    /// through them, so they are all marked.
    fn reference(&self, ty: &str, name: &str) -> String {
        if self.sugar() {
            format!("{ty} !{name}")
        } else {
            format!("{ty} {name}")
        }
    }

    /// From chapter 16, now and then a field's initial value in its
    /// struct's declaration (` = 3`): constants and `arg`, the one
    /// variable the declaration can see.
    fn field_initialiser(&mut self, kind: Kind) -> String {
        if !self.constructors() || !self.rng.chance(40) {
            return String::new();
        }
        match kind {
            Kind::Int if self.rng.chance(50) => format!(" = arg + {}", self.rng.below(10)),
            Kind::Int => format!(" = {}", self.rng.below(10)),
            Kind::Flt => " = 1.5".to_owned(),
            _ => String::new(),
        }
    }

    /// A new object of struct `s`: `new S`, or from chapter 16 now and then
    /// with a constructor block that sets some of its fields.
    ///
    /// In a function, a field whose initialiser reads `arg` is always set
    /// (the function cannot see `arg`; chapter 19 refuses the default).
    fn new_object(&mut self, s: usize) -> String {
        let name = self.structs[s].0.clone();
        let must_set: Vec<bool> = if self.in_function {
            self.reads_arg[s].clone()
        } else {
            vec![false; self.structs[s].1.len()]
        };
        if !self.constructors() || (!self.rng.chance(40) && !must_set.contains(&true)) {
            return format!("new {name}");
        }
        let mut body = String::new();
        for (i, (f, kind)) in self.structs[s].1.clone().into_iter().enumerate() {
            if self.rng.chance(60) || must_set[i] {
                // No call: a field set to a call's result is `Bottom` while
                // the constructor is parsed, which Simple (and chapter 17
                // on) reads as a field never set.
                let in_call = std::mem::replace(&mut self.in_call, true);
                let value = match kind {
                    Kind::Int | Kind::Flt => self.value_of(kind, 1),
                    _ => "null".to_owned(),
                };
                self.in_call = in_call;
                let _ = write!(body, " {f} = {value};");
            }
        }
        format!("new {name} {{{body} }}")
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
            return INT_TYPES[1 + self.rng.below(INT_TYPES.len() as u64 - 1) as usize];
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
            let var = self.reference(&format!("{ty}?"), &name);
            let _ = writeln!(self.out, "{var} = null;");
            let value = self.new_object(s);
            self.indent(depth);
            let _ = writeln!(self.out, "if ({} < {k}) {name} = {value};", self.arg);
            self.bind(&name, Kind::Nullable(s));
            return;
        }
        let same = self.vars_of(|k| k == Kind::Ptr(s));
        let value = if !same.is_empty() && self.rng.chance(30) {
            self.pick(&same)
        } else {
            self.new_object(s)
        };
        let var = self.reference(&ty, &name);
        let _ = writeln!(self.out, "{var} = {value};");
        self.bind(&name, Kind::Ptr(s));
    }

    fn statement(&mut self, depth: usize) {
        self.budget = self.budget.saturating_sub(1);
        let deep = depth >= 3 || self.budget == 0 || (self.in_function && depth >= 2);
        // Drawn only in chapter 18's functions and `main`.
        if self.in_function && self.rng.chance(8) {
            let (pred, value) = (self.expression(2), self.expression(2));
            self.indent(depth);
            let _ = writeln!(self.out, "if ({pred}) return {value};");
            return;
        }
        if !self.function_vars.is_empty() && self.rng.chance(5) {
            return self.function_assignment(depth);
        }
        // Drawn only from chapter 15 on, so earlier chapters' seeds still
        // name the programs they always did.
        if self.arrays() && self.rng.chance(30) && self.array_statement(depth, deep) {
            return;
        }
        if self.sugar() && self.rng.chance(25) {
            return self.sugar_statement(depth, deep);
        }
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
            Kind::Array(elem) => {
                let (ty, length) = (self.elem_type(elem), self.length());
                format!("new {ty}[{length}]")
            }
        }
    }

    /// A pointer to struct `s` that may be null: `null`, `new S`, or a
    /// variable.
    fn pointer_value(&mut self, s: usize) -> String {
        let same = self.vars_of(|k| k == Kind::Ptr(s) || k == Kind::Nullable(s));
        match self.rng.below(4) {
            0 => "null".to_owned(),
            1 => self.new_object(s),
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
        let value = self.stored(kind, value);
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
            _ => self.new_object(s),
        };
        self.indent(depth);
        if kind == Kind::Nullable(s) && self.rng.chance(50) {
            // As at the declaration, null on some runs only.
            let k = self.rng.below(5);
            let _ = writeln!(self.out, "if ({} < {k}) {p} = null;", self.arg);
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
            let value = self.stored(kind, value);
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
            0 => self.negate(&a),
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
        if self.functions_on() && !self.in_call && self.rng.chance(10) {
            if let Some(call) = self.call() {
                return call;
            }
        }
        if self.sugar() && self.rng.chance(8) {
            // The trinary: `?:` (chapter 17).
            let (c, a, b) = (self.expression(1), self.expression(1), self.expression(1));
            return format!("({c} ? {a} : {b})");
        }
        if self.arrays() && self.rng.chance(15) {
            if let Some(leaf) = self.array_leaf(Kind::Int) {
                return leaf;
            }
        }
        let ints = self.vars_of(|k| k == Kind::Int);
        let pointers = self.vars_of(|k| matches!(k, Kind::Ptr(_)));
        match self.rng.below(6) {
            0 => self.arg.clone(),
            1 => self.rng.below(10).to_string(),
            // A field load.
            2 if !pointers.is_empty() => {
                let p = self.pick(&pointers);
                let Kind::Ptr(s) = self.kind_of(&p) else {
                    unreachable!("picked a pointer")
                };
                match self.field_of(s, Kind::Int) {
                    Some(f) => format!("{p}.{f}"),
                    None => self.arg.clone(),
                }
            }
            // Do two pointers name the same object?
            3 if pointers.len() >= 2 && self.rng.chance(30) => {
                let (p, q) = (self.pick(&pointers), self.pick(&pointers));
                if self.kind_of(&p) == self.kind_of(&q) {
                    format!("({p} == {q})")
                } else {
                    self.arg.clone()
                }
            }
            // Comparing floats gives an integer.
            4 if self.floats() && self.rng.chance(25) => {
                let (a, b) = (self.float_expression(1), self.float_expression(1));
                let op = ["==", "!=", "<", "<=", ">", ">="][self.rng.below(6) as usize];
                format!("({a} {op} {b})")
            }
            _ if !ints.is_empty() => self.pick(&ints),
            _ => self.arg.clone(),
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
            0 => self.negate(&a),
            k => {
                let b = self.float_expression(depth - 1);
                let op = ["+", "-", "*", "/", "+"][(k - 1) as usize];
                format!("({a} {op} {b})")
            }
        }
    }

    fn float_leaf(&mut self) -> String {
        if self.arrays() && self.rng.chance(15) {
            if let Some(leaf) = self.array_leaf(Kind::Flt) {
                return leaf;
            }
        }
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
            _ => self.arg.clone(),
        }
    }

    /// `-a`. From chapter 17 `--x` decrements `x`, so a negated negation
    /// is written `-(-x)`.
    fn negate(&self, a: &str) -> String {
        if self.sugar() && a.starts_with('-') {
            format!("-({a})")
        } else {
            format!("-{a}")
        }
    }

    /// A statement of chapter 17's sugar: a compound assignment
    /// (`+= -= *= /=`), an increment or decrement (`x++ ++x x-- --x`), a
    /// `var` declaration, or a `for` loop.
    fn sugar_statement(&mut self, depth: usize, deep: bool) {
        let ints = self.vars_of(|k| k == Kind::Int);
        match self.rng.below(10) {
            0..=2 if !ints.is_empty() => {
                let v = self.pick(&ints);
                let op = ["+=", "-=", "*=", "/="][self.rng.below(4) as usize];
                let value = self.expression(2);
                self.indent(depth);
                let _ = writeln!(self.out, "{v} {op} {value};");
            }
            3..=5 if !ints.is_empty() => {
                let v = self.pick(&ints);
                let step = ["{v}++", "++{v}", "{v}--", "--{v}"][self.rng.below(4) as usize];
                self.indent(depth);
                let _ = writeln!(self.out, "{};", step.replace("{v}", &v));
            }
            6 => {
                let name = self.fresh("v");
                let value = self.expression(3);
                self.indent(depth);
                let _ = writeln!(self.out, "var {name} = {value};");
                self.bind(&name, Kind::Int);
            }
            7..=9 if !deep => self.for_statement(depth),
            _ => self.assignment(depth),
        }
    }

    /// `for (int c = 0; c < k; c++) { ... }`: the counter is bumped by the
    /// loop's own step, so `continue` cannot skip it.
    fn for_statement(&mut self, depth: usize) {
        let counter = self.fresh("c");
        let limit = 1 + self.rng.below(6);
        let step = if self.rng.chance(50) {
            format!("{counter}++")
        } else {
            format!("{counter} += 1")
        };
        self.indent(depth);
        let _ = writeln!(
            self.out,
            "for (int {counter} = 0; {counter} < {limit}; {step}) {{"
        );
        self.loops += 1;
        let n = 1 + self.rng.below(3) as usize;
        self.block(depth + 1, n);
        self.loops -= 1;
        self.indent(depth);
        self.out.push_str("}\n");
    }

    /// The array variables in scope, each with what its elements hold.
    fn arrays_in_scope(&self) -> Vec<(String, Elem)> {
        (self.scopes.iter().flatten())
            .filter_map(|v| match v.kind {
                Kind::Array(e) => Some((v.name.clone(), e)),
                _ => None,
            })
            .collect()
    }

    /// The element type of a new array: an integer of some width, a
    /// float, or a nullable pointer.
    fn elem(&mut self) -> Elem {
        match self.rng.below(4) {
            0 if !self.structs.is_empty() => {
                Elem::Nullable(self.rng.below(self.structs.len() as u64) as usize)
            }
            1 => Elem::Flt,
            _ if self.narrow() && self.rng.chance(50) => {
                Elem::Int(1 + self.rng.below(INT_TYPES.len() as u64 - 1) as usize)
            }
            _ => Elem::Int(0),
        }
    }

    fn elem_type(&self, elem: Elem) -> String {
        match elem {
            Elem::Int(t) => INT_TYPES[t].to_owned(),
            Elem::Flt => "flt".to_owned(),
            Elem::Nullable(s) => format!("{}?", self.structs[s].0),
        }
    }

    /// A length of at least four, so that an index `e & 3` is always in
    /// bounds. (Not `arg`, which would make a negative length or an index
    /// out of bounds on some runs: a load or a New whose value is never
    /// used is dead code, which the optimizer removes, fault and all, as
    /// Simple does; so such a fault is not the same every way the program
    /// runs.)
    fn length(&mut self) -> String {
        match self.rng.below(3) {
            0 => "4".to_owned(),
            1 => (4 + self.rng.below(5)).to_string(),
            _ => format!("4 + ({} & 3)", self.arg),
        }
    }

    /// An index in bounds by construction.
    fn index(&mut self) -> String {
        format!("{} & 3", self.expression(1))
    }

    /// `T[] a = new T[n];`, now and then filled by a loop.
    fn array_declaration(&mut self, depth: usize) {
        let elem = self.elem();
        let name = self.fresh("a");
        let ty = self.elem_type(elem);
        let length = self.length();
        self.indent(depth);
        let var = self.reference(&format!("{ty}[]"), &name);
        let _ = writeln!(self.out, "{var} = new {ty}[{length}];");
        self.bind(&name, Kind::Array(elem));
        if self.rng.chance(50) {
            self.array_loop(depth, &name, elem, true);
        }
    }

    /// A loop over every element of `a`: filling it, or summing it into a
    /// variable of the element's kind.
    fn array_loop(&mut self, depth: usize, a: &str, elem: Elem, fill: bool) {
        let sums = self.vars_of(|k| k == elem.kind());
        let counter = self.fresh("c");
        self.indent(depth);
        let _ = writeln!(self.out, "int {counter} = 0;");
        self.indent(depth);
        let _ = writeln!(self.out, "while ({counter} < {a}#) {{");
        self.indent(depth + 1);
        if fill || sums.is_empty() || matches!(elem, Elem::Nullable(_)) {
            let value = match self.rng.below(3) {
                0 if elem.kind() == Kind::Int => format!("{counter} * {counter}"),
                _ => self.value_of(elem.kind(), 2),
            };
            let value = self.stored(elem.kind(), value);
            let _ = writeln!(self.out, "{a}[{counter}] = {value};");
        } else {
            let sum = self.pick(&sums);
            let _ = writeln!(self.out, "{sum} = {sum} + {a}[{counter}];");
        }
        self.indent(depth + 1);
        let _ = writeln!(self.out, "{counter} = {counter} + 1;");
        self.indent(depth);
        self.out.push_str("}\n");
    }

    /// A statement on an array: a store, a load into a variable, a swap
    /// of two elements, a loop over it, a new array or another array's
    /// object, or (rarely) an index past the end. False when there is no
    /// array to use.
    fn array_statement(&mut self, depth: usize, deep: bool) -> bool {
        let arrays = self.arrays_in_scope();
        if arrays.is_empty() {
            return false;
        }
        let (a, elem) = arrays[self.rng.below(arrays.len() as u64) as usize].clone();
        let kind = elem.kind();
        match self.rng.below(20) {
            0..=5 => {
                let (i, value) = (self.index(), self.value_of(kind, 2));
                let value = self.stored(kind, value);
                self.indent(depth);
                let _ = writeln!(self.out, "{a}[{i}] = {value};");
            }
            6..=9 => {
                let targets = self.vars_of(|k| k == kind);
                if targets.is_empty() {
                    return false;
                }
                let (v, i) = (self.pick(&targets), self.index());
                self.indent(depth);
                let _ = writeln!(self.out, "{v} = {a}[{i}];");
            }
            10..=12 => {
                let (i, j) = (self.index(), self.index());
                let ty = self.elem_type(elem);
                let t = self.fresh("t");
                self.indent(depth);
                let var = if matches!(elem, Elem::Nullable(_)) {
                    self.reference(&ty, &t)
                } else {
                    format!("{ty} {t}")
                };
                let _ = writeln!(self.out, "{var} = {a}[{i}];");
                self.indent(depth);
                let _ = writeln!(self.out, "{a}[{i}] = {a}[{j}];");
                self.indent(depth);
                let _ = writeln!(self.out, "{a}[{j}] = {t};");
                self.bind(&t, kind);
            }
            13..=15 if !deep => {
                let fill = self.rng.chance(40);
                self.array_loop(depth, &a, elem, fill);
            }
            16 | 17 => {
                let same: Vec<String> = (arrays.iter())
                    .filter(|(_, e)| *e == elem)
                    .map(|(name, _)| name.clone())
                    .collect();
                let value = if self.rng.chance(50) {
                    self.pick(&same)
                } else {
                    let (ty, length) = (self.elem_type(elem), self.length());
                    format!("new {ty}[{length}]")
                };
                self.indent(depth);
                let _ = writeln!(self.out, "{a} = {value};");
            }
            18 if self.rng.chance(20) => {
                // Past the end on one value of `arg`: the same fault every
                // way the program runs, as every other index is in bounds
                // and a store is never dead code.
                let k = ARGS[self.rng.below(ARGS.len() as u64) as usize];
                let value = self.value_of(kind, 1);
                let value = self.stored(kind, value);
                self.indent(depth);
                let _ = writeln!(self.out, "if ({} == {k}) {a}[{a}#] = {value};", self.arg);
            }
            _ => return false,
        }
        true
    }

    /// An element or the length of an array, as a leaf of an expression
    /// of `kind` (an integer or a float).
    fn array_leaf(&mut self, kind: Kind) -> Option<String> {
        let arrays = self.arrays_in_scope();
        if arrays.is_empty() {
            return None;
        }
        let (a, elem) = arrays[self.rng.below(arrays.len() as u64) as usize].clone();
        if elem.kind() == kind && self.rng.chance(70) {
            let i = self.index();
            Some(format!("{a}[{i}]"))
        } else if kind == Kind::Int {
            Some(format!("{a}#"))
        } else {
            None
        }
    }
}

/// Chapter 18's functions.
impl Generator {
    /// One to four functions (a pair of mutually recursive ones counts as
    /// two), each of which may call the ones before it.
    fn function_declarations(&mut self) {
        let mut left = 1 + self.rng.below(4);
        while left > 0 {
            match self.rng.below(6) {
                0 => self.recursive_function(),
                1 if left >= 2 => {
                    self.mutual_functions();
                    left -= 1;
                }
                _ => self.plain_function(),
            }
            left -= 1;
        }
    }

    /// The parameters of a new function: `params` fresh names.
    fn parameters(&mut self, params: usize) -> Vec<String> {
        (0..params).map(|_| self.fresh("n")).collect()
    }

    /// `val g = { int i, int j ->` on a line of its own.
    fn function_head(&mut self, name: &str, params: &[String]) {
        let params: Vec<String> = params.iter().map(|p| format!("int {p}")).collect();
        let _ = writeln!(self.out, "val {name} = {{ {} ->", params.join(", "));
    }

    /// Writes a function's body with `f`: its own scope (the parameters
    /// in `scope`), `reads` standing for `arg`, and no call but the
    /// `calls` allowed; `main`'s state comes back afterwards.
    fn in_function(
        &mut self,
        scope: &[String],
        reads: &str,
        calls: usize,
        f: impl FnOnce(&mut Self),
    ) {
        let vars = scope.iter().map(|name| Var {
            name: name.clone(),
            kind: Kind::Int,
        });
        let scopes = std::mem::replace(&mut self.scopes, vec![vars.collect()]);
        let arg = std::mem::replace(&mut self.arg, reads.to_owned());
        let budget = self.budget;
        self.in_function = true;
        self.calls_left = calls;
        f(self);
        self.in_function = false;
        self.calls_left = 0;
        self.budget = budget;
        self.arg = arg;
        self.scopes = scopes;
    }

    /// A few statements of a function's body.
    fn function_statements(&mut self, most: u64) {
        self.budget = self.rng.below(most + 1) as usize;
        self.statements_in_functions += self.budget;
        while self.budget > 0 {
            self.statement(1);
        }
    }

    /// A function of one to three parameters that may call the functions
    /// before it; it ends with `return e;` or, now and then, with the
    /// expression statement `e;`, whose value it returns.
    fn plain_function(&mut self) {
        let name = self.fresh("g");
        let params = 1 + self.rng.below(3) as usize;
        let names = self.parameters(params);
        self.function_head(&name, &names);
        self.in_function(&names, &names[0], 2, |g| {
            g.function_statements(6);
            let result = g.expression(3);
            g.indent(1);
            if g.rng.chance(30) {
                let _ = writeln!(g.out, "{result};");
            } else {
                let _ = writeln!(g.out, "return {result};");
            }
        });
        self.out.push_str("};\n");
        self.functions.push(Function {
            name,
            params,
            counted: false,
        });
    }

    /// The body of a function that calls `callee` (itself, or its mutual
    /// partner) with its first parameter `n` one less, down to 0. `n`
    /// is read but never assigned (it is not among the variables the
    /// statements see, which are the other parameters: at least one); the call's result goes through a
    /// declared `int`, as a function whose every return is its own call's
    /// result has no return type to infer.
    fn counted_body(&mut self, callee: &str, names: &[String]) {
        let n = names[0].clone();
        let others: Vec<String> = names[1..].to_vec();
        let t = self.fresh("t");
        self.in_function(&others, &n, 0, |g| {
            let base = g.expression(2);
            g.indent(1);
            let _ = writeln!(g.out, "if ({n} <= 0) return {base};");
            g.function_statements(3);
            let args: Vec<String> = (0..others.len()).map(|_| g.expression(2)).collect();
            let args: String = args.iter().map(|a| format!(", {a}")).collect();
            g.indent(1);
            let _ = writeln!(g.out, "int {t} = {callee}({n} - 1{args});");
            g.bind(&t, Kind::Int);
            let op = ["+", "-", "^", "+"][g.rng.below(4) as usize];
            let last = g.expression(2);
            g.indent(1);
            let _ = writeln!(g.out, "return {t} {op} {last};");
        });
    }

    /// `val r = { int n, ... -> if (n <= 0) return e; ...; int t = r(n - 1,
    /// ...); return t + e; };`: recursion through the name it is
    /// declaring, a forward reference.
    fn recursive_function(&mut self) {
        let name = self.fresh("r");
        let params = 2 + self.rng.below(2) as usize;
        let names = self.parameters(params);
        self.function_head(&name, &names);
        self.counted_body(&name.clone(), &names);
        self.out.push_str("};\n");
        self.functions.push(Function {
            name,
            params,
            counted: true,
        });
    }

    /// Two functions that call each other, the first through a forward
    /// reference to the second.
    fn mutual_functions(&mut self) {
        let (a, b) = (self.fresh("m"), self.fresh("m"));
        let params = 2 + self.rng.below(2) as usize;
        for (name, callee) in [(&a, &b), (&b, &a)] {
            let names = self.parameters(params);
            self.function_head(name, &names);
            self.counted_body(callee, &names);
            self.out.push_str("};\n");
        }
        for name in [a, b] {
            self.functions.push(Function {
                name,
                params,
                counted: true,
            });
        }
    }

    /// Two different functions of one signature, if there are any.
    fn function_pair(&mut self) -> Option<(Function, Function)> {
        let mut pairs = Vec::new();
        for (i, f) in self.functions.iter().enumerate() {
            for h in &self.functions[i + 1..] {
                if f.params == h.params {
                    pairs.push((f.clone(), h.clone()));
                }
            }
        }
        if pairs.is_empty() {
            return None;
        }
        let (f, h) = pairs.swap_remove(self.rng.below(pairs.len() as u64) as usize);
        Some(if self.rng.chance(50) { (f, h) } else { (h, f) })
    }

    /// `{int int -> int} !h = (e) ? f : g;` in `main`: a function chosen
    /// at run time, in a variable that may change (`!`). The type is
    /// written out: `var` would take the type of
    /// the value, and with peepholes a constant `e` picks one function,
    /// whose return type (`bool` for a comparison) the other may not fit.
    fn function_variables(&mut self) {
        for _ in 0..self.rng.below(3) {
            let Some((f, h)) = self.function_pair() else {
                return;
            };
            let name = self.fresh("h");
            let pred = self.expression(2);
            let ty = format!("{{{} -> int}}", vec!["int"; f.params].join(" "));
            let _ = writeln!(
                self.out,
                "{ty} !{name} = ({pred}) ? {} : {};",
                f.name, h.name
            );
            let var = Function {
                name,
                params: f.params,
                counted: f.counted || h.counted,
            };
            self.function_vars.push((var, [f.name, h.name]));
        }
    }

    /// `h = (e) ? g : f;` or `h = f;`: another choice between the two
    /// functions a variable was declared with.
    fn function_assignment(&mut self, depth: usize) {
        let k = self.rng.below(self.function_vars.len() as u64) as usize;
        let (name, [f, g]) = self.function_vars[k].clone();
        let value = match self.rng.below(3) {
            0 => f,
            1 => g,
            _ => format!("({}) ? {g} : {f}", self.expression(2)),
        };
        self.indent(depth);
        let _ = writeln!(self.out, "{} = {value};", name.name);
    }

    /// A call of a function or of a variable holding one, its arguments
    /// expressions (a counted function's first masked into 0..=7). None
    /// where a call could cost too much: inside a function, within a loop
    /// or past its allowance; in `main`, within two loops.
    fn call(&mut self) -> Option<String> {
        if self.in_function {
            if self.loops > 0 || self.calls_left == 0 {
                return None;
            }
        } else if self.loops > 1 {
            return None;
        }
        let vars = self.function_vars.iter().map(|(var, _)| var);
        let callees: Vec<Function> = self.functions.iter().chain(vars).cloned().collect();
        if callees.is_empty() {
            return None;
        }
        let f = callees[self.rng.below(callees.len() as u64) as usize].clone();
        self.calls_left = self.calls_left.saturating_sub(1);
        self.in_call = true;
        let args: Vec<String> = (0..f.params)
            .map(|k| {
                let e = self.expression(1);
                if k == 0 && f.counted {
                    format!("({e}) & 7")
                } else {
                    e
                }
            })
            .collect();
        self.in_call = false;
        Some(format!("{}({})", f.name, args.join(", ")))
    }
}

/// Compiles `src` three ways with `chapter` and runs each; the
/// optimized program is also run by its schedule (global code motion), as
/// a machine would run it. `Err` describes a disagreement.
pub fn check(src: &str, chapter: u32) -> Result<(), String> {
    check_with(src, chapter, Execute::No)
}

/// Instructions an emulated run may take: far more than the evaluator's
/// budget of loop trips needs.
const STEP_LIMIT: u64 = 50_000_000;

/// Whether, and how, the fuzzer runs machine code (chapter 21 on).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Execute {
    /// Compile for every CPU, run nothing.
    No,
    /// x86-64 natively (on an x86-64 Linux host), the others emulated.
    Native,
    /// Every CPU under the emulator, x86-64 too: many times faster than
    /// linking each program with `cc`, for long sweeps.
    Emulated,
}

/// `check`, and from chapter 21 with `run_code` also the machine code of
/// every CPU run on each `arg` the evaluator answered: x86-64 natively
/// (on an x86-64 Linux host; elsewhere emulated), AArch64 and RISC-V
/// under unicorn (the crate's feature `emulate`). Their values must be
/// the evaluator's. An object, whose fields machine code does not
/// describe, is only known to be an object.
pub fn check_with(src: &str, chapter: u32, run_code: Execute) -> Result<(), String> {
    let variants: [(&str, bool, bool); 3] = [
        ("no peepholes", false, false),
        ("parse peepholes", true, false),
        ("iterated", true, true),
    ];
    let mut results: Vec<(&str, Vec<Evaluation>)> = Vec::new();
    for (name, peepholes, iterate) in variants {
        let options = Options {
            no_peephole: !peepholes,
            ..Options::default()
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
            // the access is an error, as in Simple. Not a bug. From chapter
            // 15 memory is typed by what it holds, so even without
            // peepholes a pointer loaded from a field never set is typed
            // null (`p = q.next; if (p) p.x = 1;`).
            Err(message) if (peepholes || chapter >= 15) && known_null(&message) => return Ok(()),
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
    // Chapter 19 on: the optimized program compiles for every CPU (the
    // legalizer checks that every operation it leaves is legal).
    if chapter >= crate::FIRST_BACKEND_CHAPTER {
        // Chapter 20 on, every allocation is checked, in a release build too.
        let options = Options {
            check_alloc: true,
            ..Options::default()
        };
        for (cpu, abi) in [
            ("x86_64_v2", "SystemV"),
            ("riscv", "SystemV"),
            ("arm", "SystemV"),
        ] {
            let compiled = match crate::assemble(chapter, src, &options, cpu, abi) {
                Ok(c) => c,
                Err(e) => {
                    let message = match e {
                        Failure::Program { message, .. } | Failure::Usage(message) => message,
                    };
                    return Err(format!("{cpu}: {message}"));
                }
            };
            if run_code != Execute::No && chapter >= crate::FIRST_ENCODING_CHAPTER {
                let evaluated = &results.last().expect("the iterated program ran").1;
                run_machine_code(compiled.as_ref(), cpu, evaluated, run_code)?;
            }
        }
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

/// Runs `compiled` (for `cpu`) on each of [`ARGS`] the evaluator gave a
/// value for, `evaluated` in the order of `ARGS`, and compares.
fn run_machine_code(
    compiled: &dyn crate::Driver,
    cpu: &str,
    evaluated: &[Evaluation],
    how: Execute,
) -> Result<(), String> {
    let wanted: Vec<(i64, &str)> = ARGS
        .iter()
        .zip(evaluated)
        .filter_map(|(&a, e)| match e {
            Evaluation::Value(v) => Some((a, v.as_str())),
            _ => None,
        })
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let native = how == Execute::Native
        && cpu == "x86_64_v2"
        && cfg!(all(target_arch = "x86_64", target_os = "linux"));
    if !native && !cfg!(feature = "emulate") {
        return Ok(());
    }
    let args: Vec<i64> = wanted.iter().map(|&(a, _)| a).collect();
    let runs = match compiled.run(&args, !native, STEP_LIMIT) {
        None => return Ok(()),
        Some(Err(Failure::Program { message, .. } | Failure::Usage(message))) => {
            return Err(format!("{cpu}: machine code: {message}"))
        }
        Some(Ok(runs)) => runs,
    };
    for ((arg, want), run) in wanted.iter().zip(runs) {
        let got = match run {
            crate::Run::Value(v, _) => v,
            crate::Run::StepLimit(n) => {
                return Err(format!(
                    "arg={arg}: {cpu} machine code ran past {n} instructions"
                ))
            }
        };
        let is_object = |v: &str| v != "null" && v.parse::<f64>().is_err();
        let agree = got == *want || (got == "object" && is_object(want));
        if !agree {
            return Err(format!(
                "arg={arg}: the evaluator gives {want}, {cpu} machine code gives {got}"
            ));
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
    check_catching_with(src, chapter, Execute::No)
}

/// `check_with`, with a panic inside the compiler reported as a failure.
pub fn check_catching_with(src: &str, chapter: u32, run_code: Execute) -> Result<(), String> {
    match std::panic::catch_unwind(|| check_with(src, chapter, run_code)) {
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
    run_with(seed, count, chapter, Execute::No)
}

/// `run`, and with `run_code` the machine code run too (see
/// [`check_with`]).
pub fn run_with(seed: u64, count: u64, chapter: u32, run_code: Execute) -> Report {
    let mut failures = Vec::new();
    for s in seed..seed.saturating_add(count) {
        let src = generate_for(s, chapter);
        if let Err(message) = check_catching_with(&src, chapter, run_code) {
            let reduced = reduce(&src, |p| {
                check_catching_with(p, chapter, run_code).is_err_and(|m| same_kind(&m, &message))
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
    // The same panic: its message with the numbers in it (node ids,
    // lengths) left out, as deleting lines renumbers the nodes.
    if a.starts_with("panic") || b.starts_with("panic") {
        let digitless = |s: &str| s.replace(|c: char| c.is_ascii_digit(), "");
        return digitless(a) == digitless(b);
    }
    // The same compile error, not just any: deleting lines easily makes a
    // syntax error.
    if a.contains("compile error") || b.contains("compile error") {
        return a == b;
    }
    head(a) == head(b)
}
