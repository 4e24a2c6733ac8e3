//! Port of Simple's chapter 19 `Chapter08Test.java`.

use chapter21::{CodeGen, NodeKind, Outcome};
use pretty_assertions::assert_eq;

/// Parses `src` with peepholes, then optimizes to a fixed point (Java:
/// `code.parse().opto()`).
fn parse_opto(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().opto().unwrap();
    code
}

/// The phases after `opto` that running the program needs (Java's
/// `Eval2.eval` runs them itself).
fn schedule(code: &mut CodeGen) {
    code.type_check()
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap();
}

/// Both evaluators, run with `arg` (Java's `Eval2.eval(code, arg)`, a
/// budget of 1000 loop trips), return a value shown as `expected`.
#[track_caller]
fn assert_shows(code: &CodeGen, arg: i64, expected: &str) {
    for (how, outcome) in [
        ("eval", code.eval(arg, 1000)),
        ("eval_scheduled", code.eval_scheduled(arg, 1000)),
    ] {
        let Outcome::Value(v) = outcome else {
            panic!("{how}, arg {arg}: {outcome:?}");
        };
        assert_eq!(v.to_string(), expected, "{how}, arg {arg}");
    }
}

/// The error message of a program that must not compile. (`unwrap_err`
/// would need `CodeGen: Debug`.)
fn error(src: &str) -> String {
    match CodeGen::new(src).parse() {
        Ok(code) => panic!("{src:?} compiled to {:?}", code.print()),
        Err(err) => err.message,
    }
}

/// The kind of the control input of the program's single Return (Java:
/// `stop.ret().ctrl()`).
fn ret_ctrl(code: &CodeGen) -> &NodeKind {
    let ctrl = code.graph.in_(code.ret().unwrap(), 0);
    code.graph.kind(ctrl)
}

/// Java's `instanceof RegionNode`, which a `LoopNode` is too.
fn is_region(kind: &NodeKind) -> bool {
    matches!(kind, NodeKind::Region | NodeKind::Loop)
}

#[test]
fn test_ex6() {
    let mut code = parse_opto(
        "\
while(arg < 10) {
    arg = arg + 1;
    if (arg == 5)
        break;
    if (arg == 6)
        break;
}
return arg;
",
    );
    assert_eq!(
        code.print(),
        "return Phi(Region,Phi(Region,Phi(Loop,arg,(Phi_arg+1)),Add),Add);"
    );
    assert!(is_region(ret_ctrl(&code)));
    schedule(&mut code);
    assert_shows(&code, 1, "5");
    assert_shows(&code, 6, "10");
}

#[test]
fn test_ex5() {
    let code = parse_opto(
        "\
int a = 1;
while(arg < 10) {
    arg = arg + 1;
    if (arg == 5)
        continue;
    if (arg == 7)
        continue;
    a = a + 1;
}
return a;
",
    );
    assert_eq!(
        code.print(),
        "return Phi(Loop,1,Phi(Region,Phi_a,(Phi_a+1)));"
    );
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_ex4() {
    let code = parse_opto(
        "\
while(arg < 10) {
    arg = arg + 1;
    if (arg == 5)
        continue;
    if (arg == 6)
        break;
}
return arg;
",
    );
    assert_eq!(
        code.print(),
        "return Phi(Region,Phi(Loop,arg,(Phi_arg+1)),Add);"
    );
    assert!(is_region(ret_ctrl(&code)));
}

#[test]
fn test_ex3() {
    let code = parse_opto(
        "\
while(arg < 10) {
    arg = arg + 1;
    if (arg == 6)
        break;
}
return arg;
",
    );
    assert_eq!(
        code.print(),
        "return Phi(Region,Phi(Loop,arg,(Phi_arg+1)),Add);"
    );
    assert!(is_region(ret_ctrl(&code)));
}

#[test]
fn test_ex2() {
    let code = parse_opto(
        "\
while(arg < 10) {
    arg = arg + 1;
    if (arg == 5)
        continue;
    if (arg == 6)
        continue;
}
return arg;
",
    );
    assert_eq!(code.print(), "return Phi(Loop,arg,(Phi_arg+1));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_ex1() {
    let code = parse_opto(
        "\
while(arg < 10) {
    arg = arg + 1;
    if (arg == 5)
        continue;
}
return arg;
",
    );
    assert_eq!(code.print(), "return Phi(Loop,arg,(Phi_arg+1));");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { .. }));
}

#[test]
fn test_regress1() {
    let code = parse_opto(
        "\
while( arg < 10 ) {
    int a = arg+2;
    if( a > 4 )
        break;
}
return arg;
",
    );
    assert_eq!(code.print(), "return arg;");
}

#[test]
fn test_regress2() {
    let code = parse_opto("if(1) return 0;  else while(arg>- -arg) arg=arg+1; return 0;");
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_break_outside_loop() {
    assert_eq!(
        error(
            "\
if(arg <= 10) {
    break;
    arg = arg + 1;
}
return arg;
"
        ),
        "No active loop for a break or continue"
    );
}

#[test]
fn test_regress3() {
    let code = parse_opto(
        "\
while(arg < 10) {
    break;
}
return arg;
",
    );
    assert_eq!(code.print(), "return arg;");
}

#[test]
fn test_regress4() {
    let code = parse_opto(
        "\
int a = 1;
while(arg < 10) {
    a = a + 1;
    if (arg > 2) {
        int a = 17;
        break;
    }
}
return a;
",
    );
    assert_eq!(
        code.print(),
        "return Phi(Region,Phi(Loop,1,(Phi_a+1)),Add);"
    );
    assert!(is_region(ret_ctrl(&code)));
}

#[test]
fn test_regress5() {
    let code = parse_opto(
        "\
int a = 1;
while(1) {
    a = a + 1;
    if (a<10) continue;
    break;
}
return a;
",
    );
    assert_eq!(code.print(), "return (Phi(Loop,1,Add)+1);");
    assert!(matches!(ret_ctrl(&code), NodeKind::CProj { idx: 1, .. }));
}
