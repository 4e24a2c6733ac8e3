//! Port of Simple's chapter 1 `Chapter01Test.java`.

use chapter01::{CodeGen, NodeKind};
use pretty_assertions::assert_eq;

/// The error message of a program that must not compile. (`unwrap_err`
/// would need `CodeGen: Debug`.)
fn error(src: &str) -> String {
    match CodeGen::new(src).parse() {
        Ok(code) => panic!("{src:?} compiled to {:?}", code.print()),
        Err(err) => err.message,
    }
}

/// The value of constant node `n` (Java's `ConstantNode._value`).
fn constant_value(code: &CodeGen, n: chapter01::NodeId) -> Option<i64> {
    match code.graph.kind(n) {
        NodeKind::Constant(t) => code.graph.types.int_value(*t),
        _ => None,
    }
}

#[test]
fn test_simple_program() {
    let mut code = CodeGen::new("return 1;");
    code.parse().unwrap();
    let ret = code.ret().unwrap();
    let start = code.graph.start();
    assert!(matches!(code.graph.kind(ret), NodeKind::Return));

    assert_eq!(code.graph.in_(ret, 0), start);
    let expr = code.graph.in_(ret, 1);
    assert!(matches!(code.graph.kind(expr), NodeKind::Constant(_)));
    assert_eq!(code.graph.in_(expr, 0), start);
    assert_eq!(constant_value(&code, expr), Some(1));
}

#[test]
fn test_zero() {
    let mut code = CodeGen::new("return 0;");
    code.parse().unwrap();
    let start = code.graph.start();
    let mut constants = 0;
    for &used in code.graph.outputs(start) {
        if let NodeKind::Constant(_) = code.graph.kind(used) {
            assert_eq!(constant_value(&code, used), Some(0));
            constants += 1;
        }
    }
    // Not in the Java test: make sure the loop above saw the constant.
    assert!(constants > 0);
}

#[test]
fn test_bad1() {
    assert_eq!(error("ret"), "Syntax error, expected a statement: ret");
}

#[test]
fn test_bad2() {
    assert_eq!(
        error("return 0123;"),
        "Syntax error: integer values cannot start with '0'"
    );
}

#[test]
fn test_bad3() {
    assert_eq!(
        error("return --12;"),
        "Syntax error, expected integer literal"
    );
}

#[test]
fn test_bad4() {
    assert_eq!(error("return 100"), "Syntax error, expected ;: ");
}

// Negative numbers require unary operator support that is not in scope
#[test]
fn test_bad5() {
    assert_eq!(
        error("return -100;"),
        "Syntax error, expected integer literal"
    );
}

#[test]
fn test_bad6() {
    assert_eq!(
        error("return100"),
        "Syntax error, expected a statement: return100"
    );
}

#[test]
fn test_bad7() {
    assert_eq!(error("return 1;}"), "Syntax error, unexpected }");
}
