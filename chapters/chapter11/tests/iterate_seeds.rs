//! The randomised check of the iterative optimizer: the worklist hands out
//! nodes in a seeded random order, and any order must reach the same
//! program. Each program is optimized under many seeds; the printed results
//! must agree once node numbers (which depend on the order nodes were made
//! in) are renumbered by first appearance, and so must the evaluated values.

use chapter11::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

const PROGRAMS: &[&str] = &[
    "int x = arg + arg; if (arg < 10) return arg + arg; else x = x + 1; return x;",
    "int sum = 0; int i = 0; while (i < arg) { i = i + 1; int j = 0; while (j < arg) { sum = sum + j; j = j + 1; } } return sum;",
    "int a = 1; int b = 2; while (a < 10) { if (a == 2) a = 3; else b = 4; b = b + 1; a = a + 1; } return b;",
    "while (arg < 10) { arg = arg + 1; if (arg == 5) break; if (arg == 6) break; } return arg;",
    "int step = 1; while (arg < 10) { arg = arg + step + 1; } return arg;",
    "int a = 1; int b = arg + 1; while (a < 10) { b = b + 1; a = a + 1; if (a == 5) continue; b = b * 2; } return b + a;",
    "int v0 = 0; while (0 == 1) while (v0) v0 = 1 + v0; return v0 + arg;",
    "int x = 1; int y = 2; if (arg) { x = y; y = x + 1; } else { y = x; x = y + 2; } return x * y - arg;",
];

/// Renumbers every `Name123` in printed output by order of first appearance.
fn normalize(printed: &str) -> String {
    let mut out = String::new();
    let mut seen: Vec<String> = Vec::new();
    let bytes: Vec<char> = printed.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() && i > 0 && bytes[i - 1].is_ascii_alphabetic() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let id: String = bytes[start..i].iter().collect();
            let k = seen.iter().position(|s| *s == id).unwrap_or_else(|| {
                seen.push(id.clone());
                seen.len() - 1
            });
            out.push_str(&format!("#{k}"));
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn optimize(src: &str, seed: u64) -> (String, Vec<Outcome>) {
    let mut code = CodeGen::new(src);
    code.parse().expect("test programs are valid");
    code.with_seed(seed)
        .iterate()
        .expect("test programs are valid");
    let values = [-3, 0, 1, 2, 7, 12]
        .map(|arg| code.eval(arg, 10_000))
        .to_vec();
    (normalize(&code.print()), values)
}

#[test]
fn every_visiting_order_reaches_the_same_program() {
    for src in PROGRAMS {
        let reference = optimize(src, 123);
        for seed in 0..64 {
            assert_eq!(optimize(src, seed), reference, "seed {seed} on {src}");
        }
    }
}

#[test]
fn normalize_renumbers_by_first_appearance() {
    assert_eq!(
        normalize("return Phi(Loop8,0,Phi(Loop21,Phi_sum,(Phi(Loop,0,2))));"),
        "return Phi(Loop#0,0,Phi(Loop#1,Phi_sum,(Phi(Loop,0,2))));"
    );
}
