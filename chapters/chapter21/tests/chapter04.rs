//! Port of Simple's chapter 19 `Chapter04Test.java`.

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
fn test_peephole() {
    assert_eq!(print("return 1+arg+2; "), "return (arg+3);");
}

#[test]
fn test_peephole2() {
    assert_eq!(print("return (1+arg)+2;"), "return (arg+3);");
}

#[test]
fn test_add0() {
    assert_eq!(print("return 0+arg;"), "return arg;");
}

#[test]
fn test_add_add_mul() {
    assert_eq!(print("return arg+0+arg;"), "return (arg<<1);");
}

#[test]
fn test_peephole3() {
    assert_eq!(print("return 1+arg+2+arg+3; "), "return ((arg<<1)+6);");
}

#[test]
fn test_mul1() {
    assert_eq!(print("return 1*arg;"), "return arg;");
}

#[test]
fn test_var_arg() {
    let mut code = CodeGen::new("return arg; ");
    code.parse().unwrap();
    // Main's Return: control from its function entry, and `arg` is the
    // function's parameter (Return inputs: control, memory, value).
    let ret = code.graph.in_(code.stop(), 0);
    let ctrl = code.graph.in_(ret, 0);
    let expr = code.graph.in_(ret, 2);
    assert!(matches!(code.graph.kind(ctrl), NodeKind::Fun { .. }));
    assert!(matches!(
        code.graph.kind(expr),
        NodeKind::Phi { parm: Some(_), .. }
    ));
}

// testConstantArg is @Ignore'd in Java's chapter 18 (a constant `arg` is
// no longer given from outside; chapter 6's tests assign it instead).

#[test]
fn test_comp_eq() {
    assert_eq!(print("return 3==3; "), "return 1;");
}

#[test]
fn test_comp_eq2() {
    assert_eq!(print("return 3==4; "), "return 0;");
}

#[test]
fn test_comp_n_eq() {
    assert_eq!(print("return 3!=3; "), "return 0;");
}

#[test]
fn test_comp_n_eq2() {
    assert_eq!(print("return 3!=4; "), "return 1;");
}

#[test]
fn test_bug1() {
    assert_eq!(
        print("int a=arg+1; int !b=a; b=1; return a+2; "),
        "return (arg+3);"
    );
}

#[test]
fn test_bug2() {
    assert_eq!(print("int !a=arg+1; a=a; return a; "), "return (arg+1);");
}

#[test]
fn test_bug3() {
    assert_eq!(error("inta=1; return a;"), "Undefined name 'inta'");
}

#[test]
fn test_bug4() {
    assert_eq!(print("return -arg;"), "return (-arg);");
}

#[test]
fn test_bug5() {
    assert_eq!(print("return arg--2;"), "return (arg--2);");
}
