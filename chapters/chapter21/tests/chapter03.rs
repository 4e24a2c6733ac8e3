//! Port of Simple's chapter 19 `Chapter03Test.java`.

use chapter21::CodeGen;
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
fn test_var_decl() {
    assert_eq!(print("int a=1; return a;"), "return 1;");
}

#[test]
fn test_var_add() {
    assert_eq!(print("int a=1; int b=2; return a+b;"), "return 3;");
}

#[test]
fn test_var_scope() {
    assert_eq!(
        print("int a=1; int b=2; int c=0; { int b=3; c=a+b; } return c;"),
        "return 4;"
    );
}

/// Chapter 19: peepholes always run now (in Simple's chapter 19 test too).
#[test]
fn test_var_scope_no_peephole() {
    assert_eq!(
        print("int a=1; int b=2; int !c=0; { int b=3; c=a+b;  } return c; "),
        "return 4;"
    );
}

#[test]
fn test_var_dist() {
    assert_eq!(
        print("int x0=1; int y0=2; int x1=3; int y1=4; return (x0-x1)*(x0-x1) + (y0-y1)*(y0-y1); "),
        "return 8;"
    );
}

#[test]
fn test_self_assign() {
    assert_eq!(error("int a=a; return a;"), "Undefined name 'a'");
}

#[test]
fn test_redeclare_var() {
    assert_eq!(
        error("int a=1; int b=2; int c=0; int b=3; c=a+b;"),
        "Redefining name 'b'"
    );
}

#[test]
fn test_bad1() {
    assert_eq!(
        error("int a=1; int b=2; int !c=0; { int b=3; c=a+b;"),
        "Syntax error, expected }: "
    );
}
