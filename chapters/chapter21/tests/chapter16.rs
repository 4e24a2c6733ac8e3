//! Port of Simple's chapter 19 `Chapter16Test.java`: constructors and
//! final fields, with chapter 17's meaning of `!` (mutable).
//!
//! As in the other ports, the Java parses and optimizes
//! (`parse().iterate()`), compares the printed program and runs its test
//! evaluator; here both of our evaluators (`eval` on the graph,
//! `eval_scheduled` on the schedule) must give the expected value. After
//! the Java's sixteen tests come tests of the chapter's errors and corners.

// 3.14 is Simple's test value, not an approximation of pi.
#![allow(clippy::approx_constant)]

use chapter21::eval::Value;
use chapter21::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// The budget of Java's `Evaluator.evaluate(stop, arg)`.
const LOOPS: usize = 1000;

/// Java: `code.parse().opto()`; the printed program is compared here.
fn parse_opto(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
    code
}

/// The phases after `opto` that running the program needs (Java's
/// `Eval2.eval` runs them itself).
fn schedule(code: &mut CodeGen) {
    code.type_check()
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap_or_else(|e| panic!("{e:?}"));
}

/// All the phases: parse, optimize, type check, global and local
/// scheduling.
#[allow(dead_code)]
fn compile(src: &str) -> CodeGen {
    let mut code = parse_opto(src);
    schedule(&mut code);
    code
}

/// Both evaluators, run with `arg`, return `expected`.
#[track_caller]
fn assert_returns(code: &CodeGen, arg: i64, expected: Value) {
    let expected = Outcome::Value(expected);
    assert_eq!(code.eval(arg, LOOPS), expected, "eval, arg {arg}");
    assert_eq!(
        code.eval_scheduled(arg, LOOPS),
        expected,
        "eval_scheduled, arg {arg}"
    );
}

/// Both evaluators, run with `arg`, return a value shown as `expected`.
#[track_caller]
fn assert_shows(code: &CodeGen, arg: i64, expected: &str) {
    for (how, outcome) in [
        ("eval", code.eval(arg, LOOPS)),
        ("eval_scheduled", code.eval_scheduled(arg, LOOPS)),
    ] {
        let Outcome::Value(v) = outcome else {
            panic!("{how}, arg {arg}: {outcome:?}");
        };
        assert_eq!(v.to_string(), expected, "{how}, arg {arg}");
    }
}

/// The message and the line and column of the error that compiling `src`
/// gives.
fn error(src: &str) -> (String, (usize, usize)) {
    let mut code = CodeGen::new(src);
    match code.parse().and_then(|code| code.iterate()) {
        Ok(code) => panic!("{src:?} compiled to {:?}", code.print()),
        Err(e) => {
            let before = &src[..e.offset];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            (e.message.clone(), (line, col))
        }
    }
}

/// The message alone.
fn message(src: &str) -> String {
    error(src).0
}

#[test]
fn test_jig() {
    let mut code = parse_opto("return 3.14;\n");
    assert_eq!(code.print(), "return 3.14;");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Float(3.14));
}

#[test]
fn test_multi0() {
    let mut code = parse_opto("int x, y;\nreturn x+y;\n");
    assert_eq!(code.print(), "return 0;");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(0));
}

#[test]
fn test_multi1() {
    let mut code = parse_opto("int x=2, y=x+1;\nreturn x+y;\n");
    assert_eq!(code.print(), "return 5;");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(5));
}

// Simple's chapter 17 comments testFinal0 out: `int !x` no longer means
// final. A `val` is final.
#[test]
fn test_final0() {
    assert_eq!(
        message("val x=2;\nx=3;\nreturn x;\n"),
        "Cannot reassign final 'x'"
    );
}

#[test]
fn test_final1() {
    let src = "\
int x=2, y=3;
if( arg ) { int x = y; x = x*x; y=x; } // Shadow final x
return y;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return Phi(Region,9,3);");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(3));
    assert_returns(&code, 1, Value::Int(9));
}

#[test]
fn test_construct0() {
    let mut code = parse_opto("struct X { int x=3; };\nX z = new X;\nreturn z.x;\n");
    assert_eq!(code.print(), "return 3;");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(3));
}

#[test]
fn test_construct1() {
    let mut code = parse_opto("struct X { int !x; };\nX z = new X { x=3; };\nreturn z.x;\n");
    assert_eq!(code.print(), "return 3;");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(3));
}

#[test]
fn test_construct2() {
    let mut code = parse_opto("struct X { int x=3; };\nX z = new X { x = 4; };\nreturn z.x;\n");
    assert_eq!(code.print(), "return 4;");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(4));
}

#[test]
fn test_struct_final0() {
    let src = "\
struct Point { int !x, !y; };
Point p = new Point { x=3; y=4; };
return p;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return (const)Point;");
    schedule(&mut code);
    assert_shows(&code, 0, "Point{x=3,y=4}");
}

#[test]
fn test_struct_final1() {
    let src = "\
struct Point { int x=3, y=4; };
Point p = new Point { x=5; y=6; };
p.x++;
return p;
";
    assert_eq!(message(src), "Cannot modify final field 'x'");
}

#[test]
fn test_struct_final2() {
    let src = "\
struct Point { int x=3, y=4; };
Point p = new Point;
p.x++;
return p;
";
    assert_eq!(message(src), "Cannot modify final field 'x'");
}

#[test]
fn test_struct_final3() {
    let src = "\
struct Point { var x; var y; };
Point p = new Point;
p.x++;
return p;
";
    assert_eq!(
        message(src),
        "'Point' is not fully initialized, field 'x' needs to be set in a constructor"
    );
}

#[test]
fn test_struct_final4() {
    let src = "\
struct Point { val x=3; val y=4; };
Point p = new Point;
p.x++;
return p;
";
    assert_eq!(message(src), "Cannot reassign final 'x'");
}

#[test]
fn test_struct_final5() {
    let src = "\
struct Point { var x=3; var y=4; };
Point !p = new Point;
p.x++;
return p;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return Point;");
    schedule(&mut code);
    assert_shows(&code, 0, "Point{x=4,y=4}");
}

#[test]
fn test_linked_list1() {
    let src = "\
struct LLI { LLI? next; int i; };
LLI? !head = null;
while( arg ) {
    head = new LLI { next=head; i=arg; };
    arg = arg-1;
}
if( !head ) return 0;
LLI? next = head.next;
if( !next ) return 1;
return next.i;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return Phi(Region,0,1,.i);");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(0));
    assert_returns(&code, 1, Value::Int(1));
    assert_returns(&code, 3, Value::Int(2));
}

#[test]
fn test_linked_list2() {
    let src = "\
struct LLI { LLI? next; int i; };
LLI? !head = null;
while( arg ) {
    head = new LLI {
        next=head;
        // Any old code in the constructor
        int !tmp=arg;
        while( arg > 10 ) {
            tmp = tmp + arg;
            arg = arg - 1;
        }
        i=tmp;
    };
    arg = arg-1;
}
if( !head ) return 0;
LLI? next = head.next;
if( !next ) return 1;
return next.i;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return Phi(Region,0,1,.i);");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(0));
    assert_returns(&code, 1, Value::Int(1));
    assert_returns(&code, 11, Value::Int(2));
}

#[test]
fn test_square() {
    let src = "\
struct Square {
    flt !side = arg;
    // Newtons approximation to the square root, computed in a constructor.
    // The actual allocation will copy in this result as the initial
    // value for 'diag'.
    flt !diag = arg*arg/2;
    while( 1 ) {
        flt next = (side/diag + diag)/2;
        if( next == diag ) break;
        diag = next;
    }
};
return new Square;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return Square;");
    schedule(&mut code);
    assert_shows(&code, 3, "Square{side=3.0,diag=1.7320508075688772}");
    assert_shows(&code, 4, "Square{side=4.0,diag=2.0}");
}

// ---------------------------------------------------------------------------
// Not in the Java tests: the chapter's errors, in Simple's words, and
// corners of the language.

#[test]
fn test_errors() {
    // Chapter 18: a constructor sets only the fields the body left
    // unset, not one the body gave a value; nor may code outside it
    // change a final field.
    assert_eq!(
        error("struct S { val x = 3; };\nS s = new S { x = 4; };\nreturn s.x;\n"),
        ("Cannot reassign final 'x'".into(), (2, 15))
    );
    // Chapter 18: a `val` field has its value's very type, which 4 is not
    // of (Simple says `Type -4`, its mask of 4 to the constant type 3).
    assert_eq!(
        error("struct S { val x = 3; };\nS !s = new S;\ns.x = 4;\nreturn s.x;\n"),
        ("Type 4 is not of declared type 3".into(), (3, 3))
    );
    // A `var` field without a value, or a not-null one, must have its
    // value by the end of `new`. (Simple lets the second through, and its
    // evaluator then fails.)
    assert_eq!(
        error("struct S { var x; };\nS s = new S;\nreturn s.x;\n"),
        (
            "'S' is not fully initialized, field 'x' needs to be set in a constructor".into(),
            (2, 11)
        )
    );
    assert_eq!(
        message("struct N { N? next; N must; };\nN n = new N;\nreturn n;\n"),
        "'N' is not fully initialized, field 'must' needs to be set in a constructor"
    );
    // In the constructor, a field yet to be set cannot be read.
    assert_eq!(
        message("struct S { var x; };\nS s = new S { int y = x; x = 1; };\nreturn s.x;\n"),
        "Cannot read uninitialized field 'x'"
    );
    assert_eq!(
        message("struct S { int x; };\nS s = new S { y = 3; };\nreturn s;\n"),
        "Undefined name 'y'"
    );
    // Names declared twice in one scope, fields included.
    assert_eq!(message("int x, x;"), "Redefining name 'x'");
    assert_eq!(
        message("struct S { int x; int x; };\n"),
        "Redefining name 'x'"
    );
    // The type check comes before the name is defined.
    assert_eq!(
        message("int x = 1; int x = 1.5;"),
        "Type 1.5f is not of declared type int"
    );
    // A struct declaration ends with `;`, and is made only outside `if`s
    // and loops (Simple names the very next character, a blank here).
    assert_eq!(
        message("struct S { int x; }\nreturn 0;\n"),
        "Syntax error, expected ;: return"
    );
    assert_eq!(
        message("if (arg) { struct T { int y; }; }\nreturn 0;\n"),
        "struct declarations can only appear in top level scope"
    );
    assert_eq!(
        message("struct S { int x; };\nstruct S { int y; };\n"),
        "struct 'S' cannot be redefined"
    );
    assert_eq!(message("int x 3;"), "Syntax error, expected ;: 3");
    // An array type has no constructor: `new` of one needs a length.
    assert_eq!(message("return new int[];"), "Unknown struct type '[int]'");
    // From chapter 18 a not-null reference needs a value where it is
    // declared (outside a constructor).
    assert_eq!(
        error("struct S { int x; };\nS s;\nreturn s;"),
        ("Syntax error, expected =expression: ;".into(), (2, 4))
    );
}

#[test]
fn test_bodies_and_constructors() {
    // A struct and an array type may be declared in a nested block, and
    // the body may hold any code; its own blocks' names are no fields.
    // (Chapter 17: not another struct, a struct's body is no longer the
    // top level.)
    let src = "\
{ struct T { int y; }; struct S { int x; T? t; { int z = 2; } u8[] b = new u8[arg]; }; return new S; }
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return S;");
    schedule(&mut code);
    // A `u8[]` shows as its characters, here two NULs.
    assert_shows(&code, 2, "S{x=0,t=null,b=\0\0}");
    assert_eq!(
        message("struct S { int x; struct T { int y; }; };\n"),
        "struct declarations can only appear in top level scope"
    );
    // A body may return (the struct then has its fields only on the other
    // path).
    let src = "\
struct Buffer { if( arg < 0 ) return null; u8[] buffer = new u8[arg]; };
return new Buffer;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return Phi(Region,null,Buffer);");
    schedule(&mut code);
    assert_shows(&code, -1, "null");
    assert_shows(&code, 3, "Buffer{buffer=\0\0\0}");
    // A constructor sees the variables around it, and `new` is an
    // expression.
    let src = "\
struct P { int !x; int y = 2; };
int k = arg * 10;
return new P { x = k; y = y + 1; }.x + new P { x = 1; }.y;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return ((arg*10)+2);");
    schedule(&mut code);
    assert_returns(&code, 4, Value::Int(42));
    // A field is mutable unless declared `val` (or a reference with a
    // value); through a mutable reference (`!`) it can be stored into.
    let mut code = parse_opto("struct S { int x = 1; };\nS !s = new S;\ns.x = 5;\nreturn s.x;\n");
    assert_eq!(code.print(), "return 5;");
    schedule(&mut code);
    // Chapter 18: null has no fields, in dead code too.
    let src = "struct s0 { int f0; };\nreturn new s0;\nint v0=null.f0;\nint v1 = null[3];\n";
    assert_eq!(
        error(src),
        ("Accessing unknown field 'f0' from 'null'".into(), (3, 13))
    );
}

/// A field that must be set and is left unset is an error in dead code
/// too, as in Simple: with no constructor, or with one that does not set
/// it.
#[test]
fn test_dead_new_must_set_fields() {
    let unset = "'S' is not fully initialized, field 'f' needs to be set in a constructor";
    for src in [
        "struct T { int x; }; struct S { T f; }; if (0) { S? s = new S; } return 1;",
        "struct T { int x; }; struct S { T f; }; if (0) { S? s = new S { }; } return 1;",
        "struct T { int x; }; struct S { T f; }; if (arg) return 0; else return 1; S? s = new S; return 2;",
    ] {
        assert_eq!(message(src), unset, "{src}");
    }
    let code = compile(
        "struct T { int x; }; struct S { T f; }; T !t = new T; if (0) { S? s = new S { f = t; }; } return 1;",
    );
    assert_eq!(code.print(), "return 1;");
}

/// Found by `simple fuzz` (chapter 16, seeds 15, 452, 900, 1656, 1959):
/// chapters 16 and 17 read a field on an arm that never runs as `Top`
/// and check nothing there. Chapter 18 reads it as anywhere else, as
/// Simple's chapter 18 does: `p0.f0` is the `null` the New stored, and
/// `p1.f2` reads a field of `null`, an error while parsing. Without
/// peepholes the arm is not known to be dead, `p0.f0` is a load, and the
/// program compiles.
#[test]
fn test_dead_arm_is_checked() {
    let src = "\
struct S0 { S0? f0; int f2; };
S0 !p0 = new S0;
S0? !p1 = null;
if (0) {
  p1 = p0.f0;
  if (p1) p1.f2 = 1;
  p0 = new S0 { f2 = p0.f2; };
}
return p0.f2;
";
    assert_eq!(
        error(src),
        ("Accessing unknown field 'f2' from 'null'".into(), (6, 14))
    );
    let mut raw = CodeGen::new(src).without_peepholes();
    assert!(raw.parse().is_ok());
}

/// Found by `simple fuzz` (chapter 17 seed 8444): where an arm is dead (seen so with one
/// set of peepholes and not the other), a variable can hold `Top` (a field
/// read in dead code) or a value typed `Bottom`. Neither is a name read
/// before it was set: only a final or not-null name declared without a
/// value, or a field a constructor has yet to set, is.
#[test]
fn test_dead_values_are_not_unset_names() {
    let src = "\
struct S0 { int f0; S0? f1; };
struct S1 { int f0; };
S0 !p0 = new S0;
S1 !p1 = new S1;
flt x2 = arg;
i8 v3 = ((arg - p1.f0) - ((arg / (p1 == p1)) < (p1.f0 - arg)));
int[] !a4 = new int[4];
int c5 = 0;
while (c5 < a4#) {
}
int[] !a6 = new int[4];
int c7 = 0;
while (c7 < a6#) {
}
S0 !p8 = new S0;
if (a6#) {
} else {
  var v10 = a4[a6[(a4[(v3 != ((x2 + x2) != 1.5)) & 3] & v3) & 3] & 3];
  int c11 = 0;
  while (c11 < 5) {
    v10 = ((a4[(v10 ^ (p0 == p8)) & 3] == (4 - a4#)) >> (-a6[(v10 + ((p1.f0 < arg) ? (v10 & v3) : (arg))) & 3] <= (p1.f0 * a6#)));
  }
}
";
    let code = parse_opto(src);
    // Chapter 18: the first `while` never ends, so `main` never returns.
    assert_eq!(code.print(), "return Top;");
    let mut raw = CodeGen::new(src).without_peepholes();
    assert!(raw.parse().is_ok());
}
