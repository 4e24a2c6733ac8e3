//! The generated programs that both benchmarks compile: `compile`
//! (criterion, every chapter's group) and `growth` (chapter 11's 1k and
//! 100k programs timed alternately), and chapter 11's compile, which both
//! time.

use std::fmt::Write;

/// Variables live at once: real programs keep their scopes small, and
/// Simple's scopes are copied at every `if`.
const VARS: usize = 8;

fn declarations(src: &mut String) {
    for v in 0..VARS {
        let _ = writeln!(src, "int v{v} = arg + {v};");
    }
}

/// `n` assignments mixing every arithmetic operator and `arg`.
pub fn straight_line(n: usize) -> String {
    let mut src = String::new();
    declarations(&mut src);
    for i in VARS..n {
        let (dst, a, b) = (i % VARS, (i + 3) % VARS, (i + 5) % VARS);
        let _ = writeln!(
            src,
            "v{dst} = (v{a} / 3) * {} + v{b} - arg * {};",
            i % 7 + 1,
            i % 5 + 2
        );
    }
    let _ = writeln!(src, "return v0 + v1;");
    src
}

/// `n` statements, half of them `if`/`else` on a fresh comparison.
pub fn if_heavy(n: usize) -> String {
    let mut src = String::new();
    declarations(&mut src);
    for i in VARS..n {
        let (dst, a, b) = (i % VARS, (i + 3) % VARS, (i + 5) % VARS);
        if i % 2 == 0 {
            let _ = writeln!(
                src,
                "if (v{a} < {i}) v{dst} = v{b} + {}; else v{dst} = v{b} - arg;",
                i % 11
            );
        } else {
            let _ = writeln!(src, "v{dst} = v{a} * 2 + v{b} / {};", i % 3 + 1);
        }
    }
    let _ = writeln!(src, "return v0 + v1;");
    src
}

/// About `n` statements as short loops in a row, each summing into the
/// variables; a third of them `break` out early. The counter is reused, so
/// the scope stays small.
pub fn loop_heavy(n: usize) -> String {
    let mut src = String::new();
    declarations(&mut src);
    src.push_str("int i = 0;\n");
    let mut k = VARS;
    while k < n {
        let (dst, a) = (k % VARS, (k + 3) % VARS);
        let _ = writeln!(src, "i = 0;");
        let _ = writeln!(src, "while (i < arg) {{");
        let _ = writeln!(src, "  v{dst} = v{dst} + v{a} * i;");
        if k.is_multiple_of(3) {
            let _ = writeln!(src, "  if (v{dst} > {k}) break;");
        }
        let _ = writeln!(src, "  i = i + 1;");
        let _ = writeln!(src, "}}");
        k += 5;
    }
    let _ = writeln!(src, "return v0 + v1;");
    src
}

/// About `n` statements of struct traffic: two pointers that sometimes
/// name one object, fresh allocations, stores, loads, and a nullable
/// pointer used under a null test.
pub fn struct_heavy(n: usize) -> String {
    let mut src = String::from(
        "struct P { int x; int y; }
",
    );
    declarations(&mut src);
    src.push_str(
        "P p = new P;
P q = p;
P? r = null;
",
    );
    for i in VARS..n {
        let (dst, a) = (i % VARS, (i + 3) % VARS);
        let line = match i % 8 {
            0 => format!("p.x = v{a} + {i};"),
            1 => format!("v{dst} = p.x + q.y;"),
            2 => format!("q.y = v{a} * 2;"),
            3 => format!("if (v{a} < {i}) q = new P; else q = p;"),
            4 => format!("v{dst} = q.x - p.y;"),
            5 => format!("if (arg < {i}) r = q;"),
            6 => format!("if (r) v{dst} = r.x + v{dst};"),
            _ => "p = new P;".to_owned(),
        };
        let _ = writeln!(src, "{line}");
    }
    let _ = writeln!(src, "return v0 + p.x + q.y;");
    src
}

/// A program shape: its name and its generator.
pub type Shape = (&'static str, fn(usize) -> String);

/// Chapter 11's pipeline: parse, optimize, null check and global code
/// motion; dropping the graph is part of the time.
pub fn compile_schedule(src: &str) -> usize {
    let mut code = chapter11::CodeGen::new(src);
    code.parse()
        .expect("generated programs are valid")
        .iterate()
        .expect("generated programs pass the null check");
    code.graph.len()
}
