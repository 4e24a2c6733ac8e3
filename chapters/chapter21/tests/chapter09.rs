//! Port of Simple's chapter 19 `Chapter09Test.java`.

use chapter21::types::Types;
use chapter21::{CodeGen, Outcome};
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

/// Both evaluators, run with `arg` and at most `loops` loop trips (Java's
/// `Eval2.eval(code, arg, loops)`; 1000 when not given), return a value
/// shown as `expected`.
#[track_caller]
fn assert_shows(code: &CodeGen, arg: i64, loops: usize, expected: &str) {
    for (how, outcome) in [
        ("eval", code.eval(arg, loops)),
        ("eval_scheduled", code.eval_scheduled(arg, loops)),
    ] {
        let Outcome::Value(v) = outcome else {
            panic!("{how}, arg {arg}: {outcome:?}");
        };
        assert_eq!(v.to_string(), expected, "{how}, arg {arg}");
    }
}

// testJig is @Ignore'd in Java (a scratch pad asserting nothing).

#[test]
fn test_gvn1() {
    let mut code = parse_opto(
        "\
int x = arg + arg;
if(arg < 10) {
    return arg + arg;
}
else {
    x = x + 1;
}
return x;
",
    );
    assert_eq!(code.print(), "return Phi(Region,(arg<<1),(Shl+1));");
    schedule(&mut code);
    assert_shows(&code, 1, 1000, "2");
    assert_shows(&code, 11, 1000, "23");
}

#[test]
fn test_gvn2() {
    let mut code = parse_opto(
        "\
return arg*arg-arg*arg;
",
    );
    assert_eq!(code.print(), "return 0;");
    schedule(&mut code);
    assert_shows(&code, 1, 1, "0");
}

#[test]
fn test_worklist1() {
    let mut code = parse_opto(
        "\
int step = 1;
while (arg < 10) {
    arg = arg + step + 1;
}
return arg;
",
    );
    assert_eq!(code.print(), "return Phi(Loop,arg,(Phi_arg+2));");
    schedule(&mut code);
    assert_shows(&code, 1, 1000, "11");
}

#[test]
fn test_worklist2() {
    let mut code = parse_opto(
        "\
int cond = 0;
int one = 1;
while (arg < 10) {
    if (cond) one = 2;
    arg = arg + one*3 + 1;
}
return arg;
",
    );
    assert_eq!(code.print(), "return Phi(Loop,arg,(Phi_arg+4));");
    schedule(&mut code);
    assert_shows(&code, 1, 1000, "13");
}

#[test]
fn test_worklist3() {
    let code = parse_opto(
        "\
int v1 = 0;
int v2 = 0;
int v3 = 0;
int v4 = 0;
int v5 = 0;
int v6 = 0;
int v7 = 0;
int v8 = 0;
while (arg) {
    if (v1) v2 = 1;
    if (v2) v3 = 1;
    if (v3) v4 = 1;
    if (v4) v5 = 1;
    if (v5) v6 = 1;
    if (v6) v7 = 1;
    if (v7) v8 = 1;
    arg = arg + v8 + 1;
}
return arg;
",
    );
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_region_peep_bug() {
    let code = parse_opto(
        "\
int v0=0;
int v1=0;
while(v1+arg) {
    arg=0;
    int v2=v0;
    while(arg+1) {}
    v0=1;
    v1=v2;
}
",
    );
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_while0() {
    let code = parse_opto("while(0) continue; if(0) arg=0;");
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_while1() {
    let code = parse_opto(
        "\
if(0) while(0) {
    int arg=arg;
    while(0) {}
}
",
    );
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_precedence() {
    let code = parse_opto("return 3-1+2;");
    assert_eq!(code.print(), "return 4;");
}

#[test]
fn test_swap2() {
    let code = parse_opto("return 1+(1+1);");
    assert_eq!(code.print(), "return 3;");
}

#[test]
fn test_fuzz0() {
    let code = parse_opto(
        "\
int one = 1;
int a = 0;
int zero = 0;
while(arg) {
    a = -(one + a + 2);
    arg = arg + 1;
    one = one + zero;
}
return a;
",
    );
    assert_eq!(code.print(), "return Phi(Loop,0,(-(Phi_a+3)));");
}

#[test]
fn test_fuzz1() {
    let code = parse_opto(
        "\
while(1) {}
while(arg) break;
while(arg) arg=0;
arg=0;
int v0=0!=0<-0;
return -0+0+0;
",
    );
    assert_eq!(code.print(), "return Top;");
}

#[test]
fn test_fuzz2() {
    let code = parse_opto("return 0+-0;");
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_fuzz3() {
    let code = parse_opto("int v0=0; while(0==69) while(v0) return 0;");
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_fuzz4() {
    let code = parse_opto(
        "\
while(1) {
    arg=0<=0;
    if(1<0) while(arg==-0) arg=arg-arg;
}
",
    );
    assert_eq!(code.print(), "return Top;");
}

#[test]
fn test_fuzz5() {
    let code = parse_opto(
        "\
{
    int v0=0;
    while(1)
            int v1=0--0;
    while(v0)
        break;
    while(-v0) {
        while(0+0+v0) continue;
        break;
    }
    if(-0!=-0+0+v0) while(0+0+0+0)
                break;
}
return 0!=0;
",
    );
    assert_eq!(code.print(), "return Top;");
}

#[test]
fn test_fuzz6() {
    let code = parse_opto(
        "\
int v0=0;
while(0==1) while(v0)
        v0=1+v0;
",
    );
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_fuzz7() {
    let code = parse_opto(
        "\
while(1) {}
int v0=0;
while(v0)
    {}
int v1=0;
while(1)
        v1=1;
return v1+v0;
",
    );
    assert_eq!(code.print(), "return Top;");
}

#[test]
fn test_fuzz8() {
    let code = parse_opto("while(arg) arg = arg - 1;  return arg;");
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_meet() {
    let mut types = Types::new();
    let (t1, t2) = (Types::TOP, Types::INT_TOP);
    assert_eq!(types.meet(t1, t2), Types::INT_TOP);
    assert_eq!(types.meet(t2, t1), Types::INT_TOP);
    let (t1, t2) = (Types::BOTTOM, Types::INT_BOT);
    assert_eq!(types.meet(t1, t2), Types::BOTTOM);
    assert_eq!(types.meet(t2, t1), Types::BOTTOM);
}
