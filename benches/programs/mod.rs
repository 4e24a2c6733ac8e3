//! The generated programs that the benchmarks compile: `compile`
//! (criterion, every chapter's group), `commands` (every command of the
//! latest chapter) and `growth` (chapter 11's 1k and 100k programs timed
//! alternately), and the compile pipelines of chapters 11, 14, 15 and 18.
//!
//! Each generator writes the language of the chapter it is given: the
//! same program, spelled as that chapter wants it (chapter 16 ends a
//! struct declaration with `;`, chapter 17 marks a reference variable that
//! changes with `!`).

use std::fmt::Write;

/// Variables live at once: real programs keep their scopes small, and
/// Simple's scopes are copied at every `if`.
const VARS: usize = 8;

fn declarations(src: &mut String) {
    for v in 0..VARS {
        let _ = writeln!(src, "int v{v} = arg + {v};");
    }
}

/// The end of a struct declaration in `chapter`'s language.
fn struct_end(chapter: u32) -> &'static str {
    if chapter >= 16 {
        "};"
    } else {
        "}"
    }
}

/// A reference variable named `name` that the program assigns again (or
/// stores through): chapter 17 makes one with an initialiser immutable
/// unless it is marked `!`.
fn reference(chapter: u32, ty: &str, name: &str) -> String {
    if chapter >= 17 {
        format!("{ty} !{name}")
    } else {
        format!("{ty} {name}")
    }
}

/// `n` assignments mixing every arithmetic operator and `arg`.
pub fn straight_line(n: usize, _chapter: u32) -> String {
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
pub fn if_heavy(n: usize, _chapter: u32) -> String {
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
pub fn loop_heavy(n: usize, _chapter: u32) -> String {
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
pub fn struct_heavy(n: usize, chapter: u32) -> String {
    let mut src = format!("struct P {{ int x; int y; {}\n", struct_end(chapter));
    declarations(&mut src);
    for (ty, name, value) in [("P", "p", "new P"), ("P", "q", "p"), ("P?", "r", "null")] {
        let _ = writeln!(src, "{} = {value};", reference(chapter, ty, name));
    }
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

/// Float variables live at once in the mixed program.
const FLOATS: usize = 4;

/// About `n` statements in chapter 14's language: floats and narrow
/// integers (each store into an `i32`, `u8` or `f32` field truncates or
/// rounds), bitwise operators, and structs that point to structs: a list
/// of bodies, each with a position, built and read under null tests.
pub fn mixed(n: usize, chapter: u32) -> String {
    let end = struct_end(chapter);
    let mut src = format!(
        "struct Vec {{ flt x; flt y; {end}
struct Body {{ Body? next; Vec? pos; i32 id; u8 tag; f32 mass; {end}
"
    );
    declarations(&mut src);
    for f in 0..FLOATS {
        let _ = writeln!(src, "flt f{f} = arg * 0.5 + {f};");
    }
    for (ty, name, value) in [("Body", "b", "new Body"), ("Body?", "list", "null")] {
        let _ = writeln!(src, "{} = {value};", reference(chapter, ty, name));
    }
    src.push_str("b.pos = new Vec;\n");
    let _ = writeln!(src, "{} = null;", reference(chapter, "Vec?", "w"));
    let mut i = VARS;
    while i < n {
        let (dst, a, c) = (i % VARS, (i + 3) % VARS, (i + 5) % VARS);
        let (fd, fa) = (i % FLOATS, (i + 1) % FLOATS);
        let (line, statements) = match i % 8 {
            0 => (format!("b.id = b.id + v{a};"), 1),
            1 => (format!("b.tag = v{a} + {i};"), 1),
            2 => (format!("f{fd} = f{fa} * 0.5 + v{c};"), 1),
            3 => (format!("w = b.pos; if (w) w.x = f{fa} - w.y;"), 2),
            4 => (format!("if (list) v{dst} = list.id + v{dst};"), 1),
            5 => (
                "b = new Body; b.pos = new Vec; b.next = list; list = b;".to_owned(),
                4,
            ),
            6 => (format!("v{dst} = (v{a} & 255) ^ (v{c} >> 3);"), 1),
            _ => (format!("b.mass = {}.5;", i % 10), 1),
        };
        let _ = writeln!(src, "{line}");
        i += statements;
    }
    let _ = writeln!(src, "return v0 + b.id + b.tag + f0;");
    src
}

/// Elements in each array of the array-heavy program.
const ELEMENTS: usize = 64;

/// About `n` statements of array traffic (chapter 15 on): two `int`
/// arrays and a `flt` array, filled by loops, scanned by loops that sum
/// into the variables, and elements swapped at computed indices (masked
/// into bounds); now and then the two `int` arrays trade places, so that
/// a name may denote either object.
pub fn array_heavy(n: usize, chapter: u32) -> String {
    let mut src = String::new();
    declarations(&mut src);
    for (ty, name) in [("int[]", "a"), ("int[]", "b"), ("flt[]", "f")] {
        let elem = &ty[..ty.len() - 2];
        let var = reference(chapter, ty, name);
        let _ = writeln!(src, "{var} = new {elem}[{ELEMENTS}];");
    }
    let _ = writeln!(src, "{} = a;", reference(chapter, "int[]", "t"));
    src.push_str("int i = 0;\nint s = 0;\nflt g = 0.5;\n");
    let mask = ELEMENTS - 1;
    let mut k = VARS;
    while k < n {
        let (dst, a, c) = (k % VARS, (k + 3) % VARS, (k + 5) % VARS);
        let (line, statements) = match k % 6 {
            // Fill.
            0 => (
                format!("i = 0; while (i < a#) {{ a[i] = i * v{a} + arg; i = i + 1; }}"),
                4,
            ),
            // Scan, summing.
            1 => (
                format!("i = 0; while (i < b#) {{ v{dst} = v{dst} + b[i]; i = i + 1; }}"),
                4,
            ),
            // Swap two elements.
            2 => (
                format!(
                    "s = a[v{a} & {mask}]; a[v{a} & {mask}] = a[v{c} & {mask}]; a[v{c} & {mask}] = s;"
                ),
                3,
            ),
            // Floats: fill and scan in one loop.
            3 => (
                format!("i = 0; while (i < f#) {{ f[i] = f[i] * 0.5 + v{a}; g = g + f[i]; i = i + 1; }}"),
                5,
            ),
            // Copy between the arrays.
            4 => (format!("b[v{a} & {mask}] = a[v{c} & {mask}] + v{dst};"), 1),
            // The two int arrays trade places.
            _ => ("t = a; a = b; b = t;".to_owned(), 3),
        };
        let _ = writeln!(src, "{line}");
        k += statements;
    }
    let _ = writeln!(src, "return v0 + a[3] + b[5] + (g > 1.0);");
    src
}

/// Lines of each function of the many-functions program: its head, eight
/// statements and the closing `};`.
const FUNCTION_LINES: usize = 10;

/// About `n` lines in chapter 18's language: `n / 10` functions of eight
/// statements each, every one calling up to two of those before it (an
/// acyclic call graph, no recursion), then `main` calling five of them,
/// spread over the whole program, the last one included.
/// Each function takes a depth `d` and calls only while `d > 0`, one less
/// each time, so that a run makes a handful of calls however many
/// functions there are; the compiler still sees every call.
pub fn many_functions(n: usize, _chapter: u32) -> String {
    let functions = (n / FUNCTION_LINES).max(2);
    let mut src = String::new();
    for i in 0..functions {
        // Two callees among the earlier functions (the first two call none).
        let (j, k) = (i.saturating_sub(1 + i % 7), i.saturating_sub(2 + i % 13));
        let _ = writeln!(src, "val g{i} = {{ int d, int a, int b ->");
        let _ = writeln!(src, "  int x = a * {} + b;", i % 9 + 1);
        let _ = writeln!(src, "  int y = b - {};", i % 5);
        if i >= 2 {
            let _ = writeln!(src, "  if (d > 0) y = g{j}(d - 1, x, b);");
        } else {
            let _ = writeln!(src, "  if (d > 0) y = y + d;");
        }
        let _ = writeln!(src, "  if (x < y) x = y - {}; else y = x + b;", i % 11);
        if i >= 2 {
            let _ = writeln!(src, "  int z = d > 1 ? g{k}(d - 2, y, a) : a;");
        } else {
            let _ = writeln!(src, "  int z = d > 1 ? y : a;");
        }
        let _ = writeln!(src, "  x = x ^ (z >> 2);");
        let _ = writeln!(src, "  y = y + z * {};", i % 3 + 2);
        let _ = writeln!(src, "  return x + y;");
        src.push_str("};\n");
    }
    src.push_str("int s = 0;\n");
    for i in (0..functions).step_by(functions / 4 + 1) {
        let _ = writeln!(src, "s = s + g{i}(2, arg, s);");
    }
    let _ = writeln!(src, "s = s + g{}(3, s, arg);", functions - 1);
    src.push_str("return s;\n");
    src
}

/// A program shape: its name and its generator, which takes the size and
/// the chapter whose language to write.
pub type Shape = (&'static str, fn(usize, u32) -> String);

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

/// Chapter 14's pipeline, the same phases as chapter 11's.
pub fn compile_schedule_14(src: &str) -> usize {
    let mut code = chapter14::CodeGen::new(src);
    code.parse()
        .expect("generated programs are valid")
        .iterate()
        .expect("generated programs pass the checks");
    code.graph.len()
}

/// Chapter 18's pipeline, the same phases, over many functions.
pub fn compile_schedule_18(src: &str) -> usize {
    let mut code = chapter18::CodeGen::new(src);
    code.parse()
        .expect("generated programs are valid")
        .iterate()
        .expect("generated programs pass the checks");
    code.graph.len()
}

/// Chapter 15's pipeline, the same phases again, over arrays.
pub fn compile_schedule_15(src: &str) -> usize {
    let mut code = chapter15::CodeGen::new(src);
    code.parse()
        .expect("generated programs are valid")
        .iterate()
        .expect("generated programs pass the checks");
    code.graph.len()
}
