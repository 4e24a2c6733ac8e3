//! Bad input never panics (DESIGN.md, "The chapter contract"), here for the
//! lazy phis of chapter 8: a name read inside many nested loops, and bound
//! outside all of them, gets its phi at every loop head on the way out.
//!
//! Not a port of a Java test. Kept apart from `robustness.rs` because a
//! stack overflow aborts the whole test binary. (Simple overflows its stack
//! on this program too, from a few thousand loops on.)

use chapter08::CodeGen;
use pretty_assertions::assert_eq;

/// Deeper than a machine stack segment holds frames of the recursive
/// phi lookup (about 380 bytes each in a debug build).
const LOOPS: usize = 3000;

/// What Simple prints for `int a=0;` and `n` nested loops that increment
/// `a` in the innermost, 7 node ids apart.
fn counter(n: usize) -> String {
    let mut out = String::from("return Phi(Loop7,0,");
    for k in 1..n {
        out.push_str(&format!("Phi(Loop{},Phi_a,", 7 + 7 * k));
    }
    out.push_str("(Phi_a+1)");
    out.push_str(&")".repeat(n));
    out.push(';');
    out
}

#[test]
fn test_deep_lazy_phis() {
    let src = format!(
        "int a=0; {}a=a+1;{} return a;",
        "while(arg) { ".repeat(LOOPS),
        " }".repeat(LOOPS)
    );
    // On a thread of 1 MiB, so that the lookup starts on a stack that is no
    // bigger than the parser's own growth segments: the same on every
    // machine.
    let printed = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let mut code = CodeGen::new(&src);
            code.parse().map(|code| code.print()).map_err(|e| e.message)
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(printed, Ok(counter(LOOPS)));
}
