//! Random programs over the narrow integer types, checked against a model.
//!
//! Not a port of a Java test. Each program declares variables of the
//! integer types (`i8` to `u32`, `bool`, `int`), assigns them expressions
//! of every integer operator (the bitwise ones and the shifts included),
//! branches and loops a few times, and returns one. The test evaluates the
//! same program itself, on a syntax tree, with the meaning the chapter
//! gives it: 64-bit arithmetic that wraps, shift counts taken modulo 64,
//! division by zero giving 0, and every value cut down to the variable's
//! type when assigned. The compiler must agree on every argument, by both
//! of its evaluators, with peepholes and without: a range peephole that
//! folds a comparison it should not, or a mask dropped because a range
//! claimed too much, gives a wrong answer here.

use chapter21::eval::Value;
use chapter21::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// A tiny deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The integer types, and how a value is cut down to each.
const TYPES: [&str; 9] = ["int", "i64", "i32", "i16", "i8", "u32", "u16", "u8", "bool"];

fn narrow(ty: &str, v: i64) -> i64 {
    match ty {
        "i32" => v as i32 as i64,
        "i16" => v as i16 as i64,
        "i8" => v as i8 as i64,
        "u32" => v as u32 as i64,
        "u16" => v as u16 as i64,
        "u8" => v as u8 as i64,
        "bool" => v & 1,
        _ => v,
    }
}

const OPS: [&str; 16] = [
    "+", "-", "*", "/", "&", "|", "^", "<<", ">>", ">>>", "==", "!=", "<", "<=", ">", ">=",
];

fn apply(op: &str, a: i64, b: i64) -> i64 {
    let shift = (b & 63) as u32;
    match op {
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "*" => a.wrapping_mul(b),
        "/" if b == 0 => 0,
        "/" => a.wrapping_div(b),
        "&" => a & b,
        "|" => a | b,
        "^" => a ^ b,
        "<<" => a.wrapping_shl(shift),
        ">>" => a >> shift,
        ">>>" => ((a as u64) >> shift) as i64,
        "==" => i64::from(a == b),
        "!=" => i64::from(a != b),
        "<" => i64::from(a < b),
        "<=" => i64::from(a <= b),
        ">" => i64::from(a > b),
        ">=" => i64::from(a >= b),
        _ => unreachable!("{op}"),
    }
}

enum Expr {
    Con(i64),
    Var(usize),
    Neg(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
}

enum Stmt {
    /// `ty v = e;` (the variable is the next one) or `v = e;`.
    Assign(usize, Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// A loop of `n` trips, counted by variable `counter` (an `int`).
    Loop(usize, i64, Vec<Stmt>),
}

struct Gen {
    rng: Rng,
    /// Each variable's type; variable 0 is `arg`, an `int`. All are
    /// declared at the top.
    vars: Vec<&'static str>,
    /// The variables that count a loop's trips, which nothing else assigns.
    counters: Vec<usize>,
}

impl Gen {
    fn constant(&mut self) -> i64 {
        match self.rng.below(6) {
            0 => self.rng.next() as i64,
            1 => -(self.rng.below(300) as i64),
            2 => [i64::MIN, i64::MAX, 255, 256, 65535, 1 << 31, 4294967295][self.rng.below(7)],
            _ => self.rng.below(70) as i64,
        }
    }

    fn expr(&mut self, depth: usize) -> Expr {
        match self.rng.below(if depth == 0 { 3 } else { 9 }) {
            0 => Expr::Con(self.constant()),
            1 | 2 => Expr::Var(self.rng.below(self.vars.len())),
            3 => Expr::Neg(Box::new(self.expr(depth - 1))),
            // A shift by a count known to lie in a small range.
            4 => {
                let op = ["<<", ">>", ">>>"][self.rng.below(3)];
                let mask = [1, 3, 7, 63][self.rng.below(4)];
                let count = Expr::Bin(
                    "&",
                    Box::new(self.expr(depth - 1)),
                    Box::new(Expr::Con(mask)),
                );
                Expr::Bin(op, Box::new(self.expr(depth - 1)), Box::new(count))
            }
            _ => {
                let op = OPS[self.rng.below(OPS.len())];
                Expr::Bin(
                    op,
                    Box::new(self.expr(depth - 1)),
                    Box::new(self.expr(depth - 1)),
                )
            }
        }
    }

    fn statements(&mut self, depth: usize, n: usize) -> Vec<Stmt> {
        (0..n)
            .map(|_| match self.rng.below(if depth == 0 { 1 } else { 4 }) {
                2 => {
                    let c = self.expr(2);
                    let t = self.statements(depth - 1, 2);
                    let n = self.rng.below(2);
                    let f = self.statements(depth - 1, n);
                    Stmt::If(c, t, f)
                }
                3 => {
                    let counter = self.vars.len();
                    self.vars.push("int");
                    self.counters.push(counter);
                    let trips = self.rng.below(4) as i64;
                    Stmt::Loop(counter, trips, self.statements(depth - 1, 2))
                }
                _ => {
                    let targets: Vec<usize> = (1..self.vars.len())
                        .filter(|v| !self.counters.contains(v))
                        .collect();
                    let target = targets[self.rng.below(targets.len())];
                    Stmt::Assign(target, self.expr(3))
                }
            })
            .collect()
    }
}

fn print_expr(e: &Expr, out: &mut String) {
    match e {
        // A negative literal is a negation in the source.
        Expr::Con(v) if *v < 0 => out.push_str(&format!("({v})")),
        Expr::Con(v) => out.push_str(&v.to_string()),
        Expr::Var(0) => out.push_str("arg"),
        Expr::Var(i) => out.push_str(&format!("v{i}")),
        Expr::Neg(x) => {
            out.push_str("(-");
            print_expr(x, out);
            out.push(')');
        }
        Expr::Bin(op, a, b) => {
            out.push('(');
            print_expr(a, out);
            out.push_str(op);
            print_expr(b, out);
            out.push(')');
        }
    }
}

fn print_stmts(stmts: &[Stmt], out: &mut String) {
    for s in stmts {
        match s {
            Stmt::Assign(v, e) => {
                out.push_str(&format!("v{v} = "));
                print_expr(e, out);
                out.push_str(";\n");
            }
            Stmt::If(c, t, f) => {
                out.push_str("if (");
                print_expr(c, out);
                out.push_str(") {\n");
                print_stmts(t, out);
                if f.is_empty() {
                    out.push_str("}\n");
                } else {
                    out.push_str("} else {\n");
                    print_stmts(f, out);
                    out.push_str("}\n");
                }
            }
            Stmt::Loop(counter, trips, body) => {
                out.push_str(&format!(
                    "v{counter} = 0;\nwhile (v{counter} < {trips}) {{\n"
                ));
                print_stmts(body, out);
                out.push_str(&format!("v{counter} = v{counter} + 1;\n}}\n"));
            }
        }
    }
}

fn eval_expr(e: &Expr, env: &[i64]) -> i64 {
    match e {
        Expr::Con(v) => *v,
        Expr::Var(i) => env[*i],
        Expr::Neg(x) => eval_expr(x, env).wrapping_neg(),
        Expr::Bin(op, a, b) => apply(op, eval_expr(a, env), eval_expr(b, env)),
    }
}

fn run(stmts: &[Stmt], types: &[&str], env: &mut Vec<i64>) {
    for s in stmts {
        match s {
            Stmt::Assign(v, e) => env[*v] = narrow(types[*v], eval_expr(e, env)),
            Stmt::If(c, t, f) => {
                if eval_expr(c, env) != 0 {
                    run(t, types, env)
                } else {
                    run(f, types, env)
                }
            }
            Stmt::Loop(counter, trips, body) => {
                env[*counter] = 0;
                while env[*counter] < *trips {
                    run(body, types, env);
                    env[*counter] += 1;
                }
            }
        }
    }
}

/// A program, its variables' types, and its statements.
fn program(seed: u64) -> (String, Vec<&'static str>, Vec<Stmt>, Expr) {
    let mut gen = Gen {
        rng: Rng(seed),
        vars: vec!["int"],
        counters: Vec::new(),
    };
    let declared = 1 + gen.rng.below(5);
    for _ in 0..declared {
        let ty = TYPES[gen.rng.below(TYPES.len())];
        gen.vars.push(ty);
    }
    let n = 1 + gen.rng.below(5);
    let body = gen.statements(2, n);
    let ret = gen.expr(2);
    // Every variable is declared at the top, with an initial value that
    // is itself cut down.
    let mut text = String::new();
    let types = gen.vars.clone();
    for (i, ty) in types.iter().enumerate().skip(1) {
        text.push_str(&format!("{ty} v{i} = {};\n", (i as i64) * 1000 + 7));
    }
    print_stmts(&body, &mut text);
    text.push_str("return ");
    print_expr(&ret, &mut text);
    text.push_str(";\n");
    (text, types, body, ret)
}

const ARGS: [i64; 9] = [0, 1, -1, 7, 255, 256, i64::MIN, i64::MAX, 12_345_678_901];

#[test]
fn test_random_narrow_programs() {
    let mut compiled = 0;
    for seed in 1..=400u64 {
        let (src, types, body, ret) = program(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        // A negative constant is printed negated, `(-N)`, and the digits
        // of -i64::MIN are out of range: skip those programs.
        if src.contains("9223372036854775808") {
            continue;
        }
        let mut code = CodeGen::new(&src);
        if let Err(e) = code.parse().and_then(|c| c.iterate()) {
            panic!("{src}\ndoes not compile: {}", e.message);
        }
        let mut raw = CodeGen::new(&src).without_peepholes();
        raw.parse().unwrap();
        compiled += 1;
        for arg in ARGS {
            let mut env = vec![0; types.len()];
            env[0] = arg;
            for (i, ty) in types.iter().enumerate().skip(1) {
                env[i] = narrow(ty, (i as i64) * 1000 + 7);
            }
            run(&body, &types, &mut env);
            let expected = Outcome::Value(Value::Int(eval_expr(&ret, &env)));
            assert_eq!(code.eval(arg, 100), expected, "eval, arg {arg}:\n{src}");
            assert_eq!(
                code.eval_scheduled(arg, 100),
                expected,
                "eval_scheduled, arg {arg}:\n{src}"
            );
            assert_eq!(
                raw.eval(arg, 100),
                expected,
                "no peepholes, arg {arg}:\n{src}"
            );
        }
    }
    assert!(compiled > 300, "only {compiled} programs compiled");
}
