//! Port of Simple's chapter 14 `Chapter14Test.java`: narrow types.
//!
//! The Java parses, optimizes and schedules (`parse(false).iterate()`; the
//! flags only ask for pictures), compares the printed program and runs its
//! test evaluator (`Evaluator.evaluate(stop, arg)`, a budget of 1000 loop
//! trips). Here both of our evaluators must give the expected value:
//! `eval`, which walks the graph, and `eval_scheduled`, which runs the
//! schedule. An int is compared as the integer (`Value::Int(67)` for Java's
//! `67L`), a float as the double it is.
//!
//! The tests after the twenty ports are not in the Java: they pin down the
//! ranges the operators compute, the masks and shifts an assignment makes,
//! the rounding to `f32`, the bitwise operators' precedence, their errors,
//! and the sizes of the narrow types.

// 3.14 and 1.414213562373095 are Simple's test values, not approximations
// of pi and the square root of 2.
#![allow(clippy::approx_constant)]

use chapter14::eval::Value;
use chapter14::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// The budget of Java's `Evaluator.evaluate(stop, arg)`.
const LOOPS: usize = 1000;

/// Parses `src` with peepholes, then optimizes to a fixed point and
/// schedules (Java: `parser.parse(false).iterate(false)`).
fn parse_iterated(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().iterate().unwrap();
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

/// The message of the error that compiling `src` gives, and where (line
/// and column).
fn error(src: &str) -> (String, (usize, usize)) {
    let mut code = CodeGen::new(src);
    match code.parse().and_then(|code| code.iterate()) {
        Ok(code) => panic!("{src:?} compiled to {:?}", code.print()),
        Err(e) => (e.message.clone(), e.line_col(src)),
    }
}

#[test]
fn test_jig() {
    let code = parse_iterated("return 3.14;\n");
    assert_eq!(code.print(), "return 3.14;");
    assert_returns(&code, 0, Value::Float(3.14));
}

#[test]
fn test_range() {
    let code = parse_iterated(
        "\
int b;
if( arg ) b=1; else b=0;
int c = 99;
if( b < 0 ) c = -1;
if( b > 2 ) c =  1;
return c;
",
    );
    assert_eq!(code.print(), "return 99;");
    assert_returns(&code, 0, Value::Int(99));
}

#[test]
fn test_u8() {
    let code = parse_iterated(
        "\
u8 b = 123;
b = b + 456;// Truncate
return b;
",
    );
    assert_eq!(code.print(), "return 67;");
    assert_returns(&code, 0, Value::Int(67));
}

#[test]
fn test_u8_while() {
    let code = parse_iterated(
        "\
u8 b = 123;
while( b ) b = b + 456;// Truncate
return b;
",
    );
    assert_eq!(code.print(), "return Phi(Loop9,123,((Phi_b+456)&255));");
    // Not in the Java test: b runs 123, 67, 11, 211, 155, 99, 43, 243,
    // 187, 131, 75, 19, 219, 163, 107, 51, 251, ... and never reaches 0
    // (456 is 200 modulo 256, and 123 is odd).
    assert_eq!(code.eval(0, LOOPS), Outcome::Timeout);
    assert_eq!(code.eval_scheduled(0, LOOPS), Outcome::Timeout);
}

#[test]
fn test_u1() {
    let code = parse_iterated(
        "\
bool b = 123;
b = b + 456;// Truncate
u1 c = b;   // No more truncate needed
return c;
",
    );
    assert_eq!(code.print(), "return 1;");
    assert_returns(&code, 0, Value::Int(1));
}

#[test]
fn test_and() {
    let code = parse_iterated(
        "\
int b = 123;
b = b+456 & 31;                 // Precedence
return b;
",
    );
    assert_eq!(code.print(), "return 3;");
    assert_returns(&code, 0, Value::Int(3));
}

#[test]
fn test_ref_load() {
    let code = parse_iterated(
        "\
struct Foo { u1 b; }
Foo f = new Foo;
f.b = 123;
return f.b;
",
    );
    assert_eq!(code.print(), "return 1;");
    assert_returns(&code, 0, Value::Int(1));
}

#[test]
fn test_signed() {
    let code = parse_iterated(
        "\
i8 b = 255;                     // Chopped
return b;                       // Sign extend
",
    );
    assert_eq!(code.print(), "return -1;");
    assert_returns(&code, 0, Value::Int(-1));
}

#[test]
fn test_i8() {
    let code = parse_iterated(
        "\
i8 b = arg;
b = b + 1;// Truncate
return b;
",
    );
    assert_eq!(code.print(), "return (((((arg<<56)>>56)+1)<<56)>>56);");
    assert_returns(&code, 0, Value::Int(1));
    // Not in the Java test: the byte wraps around.
    assert_returns(&code, 127, Value::Int(-128));
    assert_returns(&code, 255, Value::Int(0));
    assert_returns(&code, -129, Value::Int(-128));
}

#[test]
fn test_mask() {
    let code = parse_iterated(
        "\
u16 mask = (1<<16)-1;           // AND mask
int c = 123456789 & mask;
return c;                       //
",
    );
    assert_eq!(code.print(), "return 52501;");
    assert_returns(&code, 0, Value::Int(52501));
}

#[test]
fn test_wrap_minus() {
    let code = parse_iterated(
        "\
int MAX = 9223372036854775807; //0x7FFFFFFFFFFFFFFF;
int i = (arg&MAX) + -MAX + -1; // Basically (e0) + Long.MIN_VALUE
int j = -i; // Negating Long.MIN_VALUE wraps, cannot constant fold
if (arg) j = 1;
return j;
",
    );
    // PHASE A: Simple's chapter 14 says Region28; the difference is chapter
    // 13's node ids (a null test on the false arm of `if (arg)`), which come with the merge of chapter 13.
    assert_eq!(
        code.print(),
        "return Phi(Region26,1,(-((arg&9223372036854775807)+-9223372036854775808)));"
    );
    assert_returns(&code, 0, Value::Int(i64::MIN));
    assert_returns(&code, 1, Value::Int(1));
}

#[test]
fn test_wrap_shr() {
    let code = parse_iterated("return (arg >>> 1)==0;\n");
    assert_eq!(code.print(), "return (!(arg>>>1));");
    assert_returns(&code, 0, Value::Int(1));
    assert_returns(&code, 1, Value::Int(1));
    assert_returns(&code, 2, Value::Int(0));
    // Not in the Java test: a negative number shifted logically is large.
    assert_returns(&code, -1, Value::Int(0));
}

#[test]
fn test_or() {
    let code = parse_iterated("return (arg | 123 ^ 456) >>> 1;\n");
    assert_eq!(code.print(), "return (((arg|123)^456)>>>1);");
    assert_returns(&code, 0, Value::Int(217));
    // Not in the Java test: ((-1|123)^456)>>>1 = (-1^456)>>>1.
    assert_returns(&code, -1, Value::Int((((-1i64) ^ 456) as u64 >> 1) as i64));
}

#[test]
fn test_mask_float() {
    let src = "\
flt f = arg;
arg = f & 0;
return arg;
";
    // Reported after optimizing, at the operator.
    assert_eq!(error(src), ("Cannot '&' FltBot".into(), (2, 9)));
}

#[test]
fn test_load_bug() {
    let code = parse_iterated(
        "\
struct A { int i; }
struct B { int i; }
A a = new A;
A t1 = new A;
B b = new B;
B t2 = new B;
int i;
if (arg) i = a.i;
else     i = b.i;
return i;
",
    );
    // Loads are never pulled below a phi: `Phi(.i,.i)` stays, where
    // chapter 13 made one load from a phi of pointers to two structs.
    // PHASE A: Simple's chapter 14 says Region31; the difference is chapter
    // 13's node ids (a constant per field in `new`), which come with the merge of chapter 13.
    assert_eq!(code.print(), "return Phi(Region26,.i,.i);");
    assert_returns(&code, 0, Value::Int(0));
}

#[test]
fn test_bug2() {
    let code = parse_iterated(
        "\
int z = 0;
while (1) {
    int j;
    if (arg&3) {
        j = arg >> 2;
    } else {
        j = (arg >> 3)+z;
    }
    return j+1;
}
",
    );
    assert_eq!(code.print(), "return ((arg>>Phi(Region32,2,3))+1);");
    assert_returns(&code, 0, Value::Int(1));
    assert_returns(&code, 1, Value::Int(1));
    assert_returns(&code, 7, Value::Int(2));
    assert_returns(&code, 8, Value::Int(2));
}

#[test]
fn test_bug3() {
    let code = parse_iterated(
        "\
flt f = arg;
bool b;
if (arg&3) b = f == 1.0;
else       b = f == 2.0;
if (arg&5) b = arg == 1;
return b;
",
    );
    // The comparison pulled below the phi of the two float comparisons is
    // a float comparison.
    // PHASE A: Simple's chapter 14 says Region37; the difference is chapter
    // 13's node ids (a null test on the false arm of `if (arg&5)`), which come with the merge of chapter 13.
    assert_eq!(
        code.print(),
        "return Phi(Region36,(arg==1),((flt)arg==Phi(Region23,1.0,2.0)));"
    );
    assert_returns(&code, 1, Value::Int(1));
    assert_returns(&code, 2, Value::Int(0));
    assert_returns(&code, 3, Value::Int(0));
}

#[test]
fn test_bug4() {
    let code = parse_iterated(
        "\
int i;
if (arg&7) i=3;
else       i=2;
return (arg == i) == 1;
",
    );
    assert_eq!(code.print(), "return (arg==Phi(Region18,3,2));");
    assert_returns(&code, 0, Value::Int(0));
    assert_returns(&code, 1, Value::Int(0));
    assert_returns(&code, 2, Value::Int(0));
    assert_returns(&code, 3, Value::Int(1));
}

#[test]
fn test_bug5() {
    let code = parse_iterated(
        "\
int d = -1;
while (1) {
    int i = (arg & 7) + (9223372036854775807 - 7);
    if (arg & 1) i = ((arg&3) + (9223372036854775807 - 3)) & d;
    return i + -1;
}
",
    );
    // One Add below the phi would overflow (`[0-7] + 9223372036854775800`
    // and `[0-3] + 9223372036854775804` merge into a sum that can exceed
    // the largest int), so the phi keeps its two.
    // PHASE A: Simple's chapter 14 says Region43; the difference is chapter
    // 13's node ids (a null test on the false arm of `if (arg & 1)`), which come with the merge of chapter 13.
    assert_eq!(
        code.print(),
        "return (Phi(Region42,((arg&3)+9223372036854775804),((arg&7)+9223372036854775800))+-1);"
    );
    assert_returns(&code, 0, Value::Int(0x7FFF_FFFF_FFFF_FFF7));
    assert_returns(&code, 1, Value::Int(0x7FFF_FFFF_FFFF_FFFC));
}

#[test]
fn test_types() {
    let code = parse_iterated(
        "\
i8  xi8  = 123456789;  if( xi8  !=        21 ) return -8;
i16 xi16 = 123456789;  if( xi16 !=    -13035 ) return -16;
i32 xi32 = 123456789;  if( xi32 != 123456789 ) return -32;
i64 xi64 = 123456789;  if( xi64 != 123456789 ) return -64;
int xint = 123456789;  if( xint != 123456789 ) return -64;

u1  ui1  = 123456789;  if( ui1  !=         1 ) return 1;
u8  ui8  = 123456789;  if( ui8  !=        21 ) return 8;
u16 ui16 = 123456789;  if( ui16 !=     52501 ) return 16;
u32 ui32 = 123456789;  if( ui32 != 123456789 ) return 32;

flt fflt = 3.141592653589793;  if( fflt != 3.141592653589793 ) return 3;
f64 ff64 = 3.141592653589793;  if( ff64 != 3.141592653589793 ) return 3;
f32 ff32 = 3.141592653589793;  if( ff32 != 3.1415927410125732) return 5;

return 0;
",
    );
    assert_eq!(code.print(), "return 0;");
    assert_returns(&code, 0, Value::Int(0));
}
