//! Port of Simple's chapter 19 `Chapter01Test.java`.

use chapter21::{CodeGen, NodeKind};
use pretty_assertions::assert_eq;

fn print(src: &str) -> String {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().print()
}

/// The error message of a program that must not compile. (`unwrap_err`
/// would need `CodeGen: Debug`.)
fn error(src: &str) -> String {
    match CodeGen::new(src).parse() {
        Ok(code) => panic!("{src:?} compiled to {:?}", code.print()),
        Err(err) => err.message,
    }
}

#[test]
fn test_simple_program() {
    let mut code = CodeGen::new("return 1;");
    code.parse().unwrap();
    let start = code.graph.start();
    // Stop's first input is the Return of `main`; its value is input 2
    // (after control and memory), as in Java's `ReturnNode.expr()`.
    let ret = code.graph.in_(code.stop(), 0);
    assert!(matches!(code.graph.kind(ret), NodeKind::Return));
    let expr = code.graph.in_(ret, 2);
    assert!(matches!(code.graph.kind(expr), NodeKind::Constant(_)));
    assert_eq!(code.graph.in_(expr, 0), start);
    let one = code.graph.types.int(1);
    assert_eq!(code.graph.ty(expr), one);
}

#[test]
fn test_zero() {
    let mut code = CodeGen::new("return 0;");
    code.parse().unwrap();
    let zero = code.graph.types.int(0);
    let start = code.graph.start();
    let mut constants = 0;
    for &used in code.graph.outputs(start) {
        // Integer constants only: since chapter 9, dead control is a
        // constant too.
        let ty = code.graph.ty(used);
        if matches!(code.graph.kind(used), NodeKind::Constant(_)) && code.graph.types.is_int(ty) {
            assert_eq!(ty, zero);
            constants += 1;
        }
    }
    // Not in the Java test: make sure the loop above saw the constant.
    assert!(constants > 0);
}

#[test]
fn test_bad1() {
    assert_eq!(error("ret;"), "Undefined name 'ret'");
}

#[test]
fn test_bad2() {
    assert_eq!(
        error("return 0123;"),
        "Syntax error: integer values cannot start with '0'"
    );
}

#[test]
fn test_not_bad3() {
    // this test used to fail in chapter 1
    assert_eq!(print("return - -12;"), "return 12;");
}

#[test]
fn test_bad4() {
    assert_eq!(error("return 100"), "Syntax error, expected ;: ");
}

#[test]
fn test_not_bad5() {
    // this test used to fail in chapter 1
    assert_eq!(print("return -100;"), "return -100;");
}

#[test]
fn test_bad6() {
    assert_eq!(error("return100;"), "Undefined name 'return100'");
}

#[test]
fn test_bad7() {
    assert_eq!(error("return 1;}"), "Syntax error, unexpected: }");
}
