//! Port of Simple's chapter 19 `Chapter07Test.java`.

use chapter21::{CodeGen, NodeKind};
use pretty_assertions::assert_eq;

/// Parses `src` with peepholes, then optimizes to a fixed point (Java:
/// `code.parse().opto()`).
fn parse_opto(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().opto().unwrap();
    code
}

/// Parses `src` with peepholes, without the whole-program optimization.
/// (Chapter 19: Java no longer turns peepholes off; chapter 18's tests
/// did first, but its `CodeGen.parse()` reset the flag, so they ran with
/// peepholes on too.)
fn parse_only(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse().unwrap();
    code
}

/// The kind of the control input of the program's single Return (Java:
/// `stop.ret().ctrl()`).
fn ret_ctrl(code: &CodeGen) -> &NodeKind {
    let ctrl = code.graph.in_(code.ret().unwrap(), 0);
    code.graph.kind(ctrl)
}

/// Shared by `test_while` and `test_while_peep`.
const WHILE: &str = "\
int a = 1;
while(a < 10) {
    a = a + 1;
    a = a + 2;
}
return a;
";

/// Shared by `test_while2` and `test_while2_peep`.
const WHILE2: &str = "\
int a = 1;
while(arg) a = 2;
return a;
";

/// Shared by `test_while3` and `test_while3_peep`.
const WHILE3: &str = "\
int a = 1;
while(a < 10) {
    int b = a + 1;
    a = b + 2;
}
return a;
";

/// Shared by `test_while4` and `test_while4_peep`.
const WHILE4: &str = "\
int a = 1;
int b = 2;
while(a < 10) {
    int b = a + 1;
    a = b + 2;
}
return a;
";

#[test]
fn test_example() {
    let code = parse_only(
        "\
while(arg < 10) {
    arg = arg + 1;
}
return arg;
",
    );
    assert_eq!(code.print(), "return Phi(Loop,arg,(Phi_arg+1));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_regression() {
    let code = parse_opto(
        "\
int a = 1;
if(arg){}else{
    while(a < 10) {
        a = a + 1;
    }
}
return a;
",
    );
    assert_eq!(code.print(), "return Phi(Region,1,Phi(Loop,1,(Phi_a+1)));");
}

#[test]
fn test_while_nested() {
    let code = parse_opto(
        "\
int sum = 0;
int i = 0;
while(i < arg) {
    i = i + 1;
    int j = 0;
    while( j < arg ) {
        sum = sum + j;
        j = j + 1;
    }
}
return sum;
",
    );
    assert_eq!(
        code.print(),
        "return Phi(Loop,0,Phi(Loop,Phi_sum,(Phi_sum+Phi(Loop,0,(Phi_j+1)))));"
    );
}

#[test]
fn test_while_scope() {
    let code = parse_only(
        "\
int a = 1;
int b = 2;
while(a < 10) {
    if (a == 2) a = 3;
    else b = 4;
}
return b;
",
    );
    assert_eq!(code.print(), "return Phi(Loop,2,Phi(Region,Phi_b,4));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while_nested_if_and_inc() {
    let code = parse_opto(
        "\
int a = 1;
int b = 2;
while(a < 10) {
    if (a == 2) a = 3;
    else b = 4;
    b = b + 1;
    a = a + 1;
}
return b;
",
    );
    assert_eq!(code.print(), "return Phi(Loop,2,(Phi(Region,Phi_b,4)+1));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while() {
    let code = parse_only(WHILE);
    assert_eq!(code.print(), "return Phi(Loop,1,(Phi_a+3));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while_peep() {
    let code = parse_opto(WHILE);
    assert_eq!(code.print(), "return Phi(Loop,1,(Phi_a+3));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while2() {
    let code = parse_only(WHILE2);
    assert_eq!(code.print(), "return Phi(Loop,1,2);");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while2_peep() {
    let code = parse_opto(WHILE2);
    assert_eq!(code.print(), "return Phi(Loop,1,2);");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while3() {
    let code = parse_only(WHILE3);
    assert_eq!(code.print(), "return Phi(Loop,1,(Phi_a+3));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while3_peep() {
    let code = parse_opto(WHILE3);
    assert_eq!(code.print(), "return Phi(Loop,1,(Phi_a+3));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while4() {
    let code = parse_only(WHILE4);
    assert_eq!(code.print(), "return Phi(Loop,1,(Phi_a+3));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_while4_peep() {
    let code = parse_opto(WHILE4);
    assert_eq!(code.print(), "return Phi(Loop,1,(Phi_a+3));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}
