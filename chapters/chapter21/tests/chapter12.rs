//! Port of Simple's chapter 19 `Chapter12Test.java`: floats.
//!
//! The Java parses and optimizes (`code.parse().opto()`), compares the
//! printed program (a constant an f32 holds exactly prints with an `f`:
//! `2.0f`) and runs its evaluator (`Eval2.eval(code, arg)`, a budget of
//! 1000 loop trips), which shows the value as text. Here both of our
//! evaluators must show the same text: `eval`, which walks the graph, and
//! `eval_scheduled`, which runs the schedule. Our own tests compare floats
//! as the doubles they are (`Value::Float(-0.0)` is not `0.0`).
//!
//! The tests after the four ports are not in the Java: they pin down the
//! language of this chapter (literals, widening, errors, fields), the
//! printing of doubles, and the peepholes that Simple has and we leave out
//! because they change a program's meaning for `-0.0` or NaN.

// 3.14 and 1.414213562373095 are the values of Simple's tests, not
// approximations of π and √2.
#![allow(clippy::approx_constant)]

use chapter21::eval::Value;
use chapter21::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// The budget of Java's `Evaluator.evaluate(stop, arg)`.
const LOOPS: usize = 1000;

/// Parses `src` with peepholes, then optimizes to a fixed point (Java:
/// `code.parse().opto()`); the printed program is compared at this point.
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

/// All the phases: parse, optimize, type check, global and local
/// scheduling.
fn compile(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().iterate().unwrap();
    code
}

/// Both evaluators, run with `arg`, return a value shown as `expected`
/// (Java: `assertEquals(expected, Eval2.eval(code, arg))`).
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

/// Both evaluators, run with `arg`, return `expected`: compared as values,
/// so that `-0.0` is not `0.0` (for our own tests).
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
    let mut code = parse_opto("return 3.14;\n");
    assert_eq!(code.print(), "return 3.14;");
    schedule(&mut code);
    assert_shows(&code, 0, "3.14");
}

#[test]
fn test_float() {
    let mut code = parse_opto("return 3.14;\n");
    assert_eq!(code.print(), "return 3.14;");
    schedule(&mut code);
    assert_shows(&code, 0, "3.14");
}

const SQUARE_ROOT: &str = "\
flt guess = arg;
while( 1 ) {
    flt next = (arg/guess + guess)/2;
    if( next == guess ) break;
    guess = next;
}
return guess;
";

#[test]
fn test_square_root() {
    let mut code = parse_opto(SQUARE_ROOT);
    assert_eq!(
        code.print(),
        "return Phi(Loop,(flt)arg,(((ToFloat/Phi_guess)+Phi_guess)/2.0f));"
    );
    schedule(&mut code);
    assert_shows(&code, 9, "3.0");
    assert_shows(&code, 2, "1.414213562373095");
}

#[test]
fn test_fp_ops() {
    let mut code = parse_opto("flt x = arg;\nreturn x+1==x;\n");
    assert_eq!(code.print(), "return ((flt)arg==(ToFloat+1.0f));");
    schedule(&mut code);
    assert_shows(&code, 1, "0");
}

// ---------------------------------------------------------------------------
// Not in the Java tests.

#[test]
fn test_square_root_listing() {
    // The scheduled listing of `testSquareRoot`: the conversion of `arg`
    // and the constant 2.0 are computed once, before the loop. Chapter 18:
    // the program is `main`, whose entry (L8) has its Parms.
    let code = compile(SQUARE_ROOT);
    let expected = "\
START:                            [[   ]]  
  15 #int       2                 [[    16       ]]  int
   9 #$[ALL]    2                 [[    10       ]]  $[ALL]
  12 ##BOT      2                 [[    13       ]]  #BOT

L8:                               [[  START      ]]  
  10 $rpc       8    9            [[    64       ]]  $[ALL]
  13 $mem       8   12            [[    64       ]]  #BOT
  16 arg        8   15            [[    17       ]]  int
  39 #2.0f      8                 [[    37       ]]  2.0f
  17 ToFloat    8   16            [[    30   31  ]]  flt

LOOP18:                           [[  L8        L45        ]]  
  30 Phi_gue   18   17   37       [[    42   34   31   64  ]]  flt
  31 DivF      18   17   30       [[    34       ]]  flt
  42 EQF       18   30   37       [[    43       ]]  bool
  34 AddF      18   31   30       [[    37       ]]  flt
  37 DivF      18   34   39       [[    30   42  ]]  flt
  43 If        18   42            [[    44   45  ]]  [  Ctrl, Ctrl]

L44:                              [[  LOOP18     ]]  
  64 Return    44   13   30   10  [[     3       ]]  [  Ctrl, flt]

L45:                              [[  LOOP18     ]]  

L3:                               [[  L44        ]]  

";
    assert_eq!(code.ir(), expected);
    assert_returns(&code, 100, Value::Float(10.0));
    assert_returns(&code, 10, Value::Float(3.162277660168379));
    // Newton's step from 0 is 0/0, NaN, and NaN equals nothing, not even
    // itself: the loop never ends. (Simple's evaluator divides by zero to 0
    // and returns 0.0.)
    assert_eq!(code.eval(0, LOOPS), Outcome::Timeout);
    assert_eq!(code.eval_scheduled(0, LOOPS), Outcome::Timeout);
}

#[test]
fn test_harmonic_sum() {
    let mut code = parse_opto(
        "flt sum = 0;\nint i = 1;\nwhile (i <= arg) {\n    sum = sum + 1.0/i;\n    i = i + 1;\n}\nreturn sum;\n",
    );
    assert_eq!(
        code.print(),
        "return Phi(Loop,0.0f,(Phi_sum+(1.0f/(flt)Phi(Loop,1,(Phi_i+1)))));"
    );
    schedule(&mut code);
    assert_returns(&code, 0, Value::Float(0.0));
    assert_returns(&code, 2, Value::Float(1.5));
    assert_returns(&code, 10, Value::Float(2.9289682539682538));
}

#[test]
fn test_float_literals() {
    for (src, printed) in [
        ("return 0.5;", "return 0.5f;"),
        ("return 18.0;", "return 18.0f;"),
        ("return 2.;", "return 2.0f;"),
        ("return 1e10;", "return 1.0E10f;"),
        ("return 1.5e3;", "return 1500.0f;"),
        ("return 1.e3;", "return 1000.0f;"),
        ("return 12345678.9;", "return 1.23456789E7;"),
        ("return 0.001;", "return 0.001;"),
        ("return 0.0001;", "return 1.0E-4;"),
        // A leading zero is fine in a float; only ints refuse it.
        ("return 01.5;", "return 1.5f;"),
        ("return 1e400;", "return Infinityf;"),
        // Chapter 21: a negative exponent.
        ("return 1e-400;", "return 0.0f;"),
        ("return 2.5e-3;", "return 0.0025;"),
        ("return 0.0;", "return 0.0f;"),
        ("return -0.0;", "return -0.0f;"),
        ("return 0.1+0.2;", "return 0.30000000000000004;"),
        ("return 1.0/100000;", "return 1.0E-5;"),
        ("return 1/0.0;", "return Infinityf;"),
        ("return -1/0.0;", "return -Infinityf;"),
        ("return 0.0/0.0;", "return NaN;"),
        (
            "return 9223372036854775807 + 0.0;",
            "return 9.223372036854776E18f;",
        ),
    ] {
        let mut code = CodeGen::new(src);
        let got = match code.parse() {
            Ok(code) => code.print(),
            Err(e) => e.message,
        };
        assert_eq!(got, printed, "{src}");
    }
}

#[test]
fn test_malformed_float_literals() {
    // The lexer takes digits, `.` and `e` as Simple's does, then the text
    // must read as a double. From chapter 21 a minus may follow an `e`.
    for (src, bad) in [
        ("return 1.2.3;", "1.2.3"),
        ("return 1e;", "1e"),
        ("return 1e-;", "1e-"),
        ("return 1e5e5;", "1e5e5"),
        ("return 1..;", "1.."),
    ] {
        assert_eq!(
            error(src),
            (
                format!("Syntax error: malformed float literal: {bad}"),
                (1, 8)
            ),
            "{src}"
        );
    }
    // `.5` is no number at all.
    assert_eq!(
        error("return .5;").0,
        "Syntax error, expected an identifier or expression: ."
    );
}

#[test]
fn test_widening() {
    // Simple's README: ints widen to floats in a float expression, and so
    // do booleans (which are ints).
    let code = parse_opto("flt f = 0.5;\nint x = 2;\nf = f+x;\nf = f+true;\nreturn f;\n");
    assert_eq!(code.print(), "return 3.5f;");
    let mut code = parse_opto("flt f = arg; int i = arg; return f*i + i;");
    assert_eq!(code.print(), "return (((flt)arg*ToFloat)+ToFloat);");
    schedule(&mut code);
    assert_returns(&code, 3, Value::Float(12.0));
    // An int given to a flt variable is converted where it is given.
    let code = parse_opto("flt f = 1; f = arg; return f;");
    assert_eq!(code.print(), "return (flt)arg;");
    // A declaration without a value is 0.0.
    assert_eq!(parse_opto("flt f; return f;").print(), "return 0.0f;");
    // Mixed comparisons compare floats; `!=` is `!(==)`.
    let mut code = parse_opto("return arg < 2.5;");
    assert_eq!(code.print(), "return ((flt)arg<2.5f);");
    schedule(&mut code);
    assert_returns(&code, 2, Value::Int(1));
    assert_returns(&code, 3, Value::Int(0));
    let code = parse_opto("return arg >= 2.5;");
    assert_eq!(code.print(), "return (2.5f<=(flt)arg);");
    let mut code = parse_opto("return arg != 2.0;");
    assert_eq!(code.print(), "return (!((flt)arg==2.0f));");
    schedule(&mut code);
    assert_returns(&code, 2, Value::Int(0));
    // Large ints round to the nearest double.
    let code = compile("return arg + 0.0;");
    assert_returns(&code, (1 << 53) + 1, Value::Float(9007199254740992.0));
}

#[test]
fn test_no_way_back_to_int() {
    // Simple's README: there is no way to round a flt back to an int.
    assert_eq!(
        error("int x = 3.14;"),
        ("Type 3.14 is not of declared type int".into(), (1, 5))
    );
    assert_eq!(
        error("flt f = arg; int x = f;"),
        ("Type flt is not of declared type int".into(), (1, 18))
    );
    assert_eq!(
        error("int x = 1; x = x * 1.5;"),
        // (From chapter 14 a constant that an f32 holds shows as one.)
        ("Type 1.5f is not of declared type int".into(), (1, 12))
    );
    assert_eq!(
        error("int flt = 1;"),
        ("Expected an identifier, found 'flt'".into(), (1, 5))
    );
    // A pointer is no number, in float arithmetic as in int arithmetic.
    assert_eq!(
        error("struct S{int f;}; S p = new S; flt f = p + 1.0;"),
        ("Type Bot is not of declared type flt".into(), (1, 36))
    );
}

#[test]
fn test_float_fields() {
    let src = "\
struct Point { flt x; flt y; int n; };
Point !p = new Point;
p.x = 3;
p.y = arg;
while (p.n < 10) {
    p.x = p.x * 0.5 + p.y;
    p.n = p.n + 1;
}
return p;
";
    let mut code = parse_opto(src);
    assert_eq!(code.print(), "return Point;");
    schedule(&mut code);
    assert_shows(&code, 1, "Point{x=2.0009765625,y=1.0,n=10}");
    assert_shows(&code, 0, "Point{x=0.0029296875,y=0.0,n=10}");
    // A new object's flt field holds 0.0 (Simple stores the int 0).
    let code = compile("struct S { flt f; }; return new S;");
    assert_shows(&code, 0, "S{f=0.0}");
    let code = parse_opto("struct S { flt f; }; S !s = new S; return s.f;");
    assert_eq!(code.print(), "return 0.0f;");
    // A float does not go into an int field: since chapter 13 the store
    // is checked once the program is optimized, as in Simple.
    assert_eq!(
        error("struct S { int i; }; S !s = new S; s.i = 1.5; return s;"),
        ("Type 1.5f is not of declared type int".into(), (1, 38))
    );
    // A struct's body is a block since chapter 16: a lone name there is
    // an expression statement (chapter 17: read as an expression, so the
    // name must be defined).
    assert_eq!(
        error("struct S { foo; };"),
        ("Undefined name 'foo'".into(), (1, 12))
    );
    assert_eq!(
        error("struct S { bool; };"),
        ("Expected an identifier, found 'null'".into(), (1, 16))
    );
}

#[test]
fn test_store_into_a_flt_field_in_dead_code() {
    // In the dead arm, `p` is a phi whose type is the dual of `*S`, with
    // the field `~flt`; the store is checked against the field as
    // declared. (Found by `simple fuzz`.)
    let src = "struct S { flt f; };\nS !p = new S;\nif (1) {\n} else {\n    if (arg) p = new S;\n    p.f = 3.0;\n}\nreturn p.f;\n";
    let code = parse_opto(src);
    assert_eq!(code.print(), "return 0.0f;");
    let mut raw = CodeGen::new(src).without_peepholes();
    raw.parse().unwrap();
    assert_eq!(raw.eval(1, LOOPS), Outcome::Value(Value::Float(0.0)));
}

#[test]
fn test_float_truth() {
    // A float is false only when it is zero, either zero.
    let mut code = parse_opto("flt x = arg; if (x) return 1; return 2;");
    assert_eq!(code.print(), "return Phi(Region,1,2);");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(2));
    assert_returns(&code, 3, Value::Int(1));
    let mut code = parse_opto("flt x = arg; return !(x*0.5);");
    assert_eq!(code.print(), "return (!((flt)arg*0.5f));");
    schedule(&mut code);
    assert_returns(&code, 1, Value::Int(0));
    assert_returns(&code, 0, Value::Int(1));
    for (src, printed) in [
        ("if (0.5) return 1; return 2;", "return 1;"),
        ("if (-0.0) return 1; return 2;", "return 2;"),
        ("if (0.0/0.0) return 1; return 2;", "return 1;"),
        ("return !0.5;", "return 0;"),
        ("return !-0.0;", "return 1;"),
    ] {
        assert_eq!(parse_opto(src).print(), printed, "{src}");
    }
}

#[test]
fn test_float_peepholes() {
    for (src, printed) in [
        // Constants go right, and `x*1.0`, `x/1.0`, `x-0.0`, `x+(-0.0)`
        // and `-(-x)` are `x`.
        ("flt x = arg; return 2*x;", "return ((flt)arg*2.0f);"),
        ("flt x = arg; return x*1;", "return (flt)arg;"),
        ("flt x = arg; return 1.0*x;", "return (flt)arg;"),
        ("flt x = arg; return x/1;", "return (flt)arg;"),
        ("flt x = arg; return x-0;", "return (flt)arg;"),
        ("flt x = arg; return x+-0.0;", "return (flt)arg;"),
        // (Chapter 17: `--x` decrements `x`; `- -x` is the double minus.)
        ("flt x = arg; return - -x;", "return (flt)arg;"),
        // Float arithmetic is not associative: no folding across.
        (
            "flt x = arg; return x*2*3;",
            "return (((flt)arg*2.0f)*3.0f);",
        ),
        (
            "flt x = arg; return x+1+2;",
            "return (((flt)arg+1.0f)+2.0f);",
        ),
        // Equality puts its constant right.
        ("flt x = arg; return 1.5==x;", "return ((flt)arg==1.5f);"),
        ("flt x = arg; x = x*0.5; return x<x;", "return 0;"),
        // An int converted is never -0.0 nor NaN: adding 0.0 changes
        // nothing, and it equals itself.
        ("flt x = arg; return x+0;", "return (flt)arg;"),
        ("flt x = arg; return x- -0.0;", "return (flt)arg;"),
        ("flt x = arg; return x==arg;", "return 1;"),
        ("flt x = arg; return x<=x;", "return 1;"),
    ] {
        assert_eq!(parse_opto(src).print(), printed, "{src}");
    }
}

// Simple folds the following; each is wrong for some float, so we do not.

#[test]
fn test_adding_zero_keeps_the_sign_of_zero() {
    // `x+0.0` is 0.0, not x, for x = -0.0.
    let mut code = parse_opto("flt x = arg; x = x * -0.0; return x + 0.0;");
    assert_eq!(code.print(), "return (((flt)arg*-0.0f)+0.0f);");
    schedule(&mut code);
    assert_returns(&code, 1, Value::Float(0.0));
    // `x-(-0.0)` is `x+0.0`.
    let code = compile("flt x = arg; x = x * -0.0; return x - -0.0;");
    assert_returns(&code, 1, Value::Float(0.0));
}

#[test]
fn test_nan_is_not_equal_to_itself() {
    // `x==x` and `x<=x` are false for NaN.
    let nan = "flt x = arg; x = x / 0.0 * 0.0;";
    let code = compile(&format!("{nan} return x == x;"));
    assert_returns(&code, 1, Value::Int(0));
    assert_returns(&code, 0, Value::Int(0));
    let code = compile(&format!("{nan} return x <= x;"));
    assert_returns(&code, 1, Value::Int(0));
    let code = compile(&format!("{nan} return x != x;"));
    assert_returns(&code, 1, Value::Int(1));
}

#[test]
fn test_a_false_float_is_either_zero() {
    // On the false arm of `if (x)`, x is 0.0 or -0.0: a phi of x and 0.0
    // is not x, and `!x` does not make x the constant 0.0.
    let code = compile("flt x = arg; x = x * -0.0; flt r = 0.0; if (x) r = x; return r;");
    assert_returns(&code, 1, Value::Float(0.0));
    let code = compile("flt x = arg; x = x * -0.0; if (!x) return x; return 1.0;");
    assert_returns(&code, 1, Value::Float(-0.0));
    assert_returns(&code, -1, Value::Float(0.0));
}

#[test]
fn test_float_comparison_folds_into_a_phi_of_constants() {
    // Chapter 14, as Simple's, no longer pushes a comparison into a phi of
    // constants: the comparison stays.
    let mut code = parse_opto("flt f = 1.5; if (arg) f = 2.5; return f < 2;");
    assert_eq!(code.print(), "return (Phi(Region,2.5f,1.5f)<2.0f);");
    schedule(&mut code);
    assert_returns(&code, 0, Value::Int(1));
    assert_returns(&code, 1, Value::Int(0));
    let mut code = parse_opto("flt f = 1.5; if (arg) f = 2.5; int b = f < 2; return b;");
    assert_eq!(code.print(), "return (Phi(Region,2.5f,1.5f)<2.0f);");
    schedule(&mut code);
    assert_returns(&code, 1, Value::Int(0));
}

#[test]
fn test_phi_pulls_float_operators_down() {
    // Phi(a*2.0, b*2.0) is Phi(a,b)*2.0, as for ints.
    let mut code = parse_opto("flt a = arg; flt r; if (arg) r = a*2; else r = (a+1)*2; return r;");
    assert_eq!(
        code.print(),
        "return (Phi(Region,(flt)arg,(ToFloat+1.0f))*2.0f);"
    );
    schedule(&mut code);
    assert_returns(&code, 0, Value::Float(2.0));
    assert_returns(&code, 3, Value::Float(6.0));
}

#[test]
fn test_printing_doubles() {
    // The evaluators show floats as Java shows doubles.
    for (value, shown) in [
        (3.14, "3.14"),
        (18.0, "18.0"),
        (1e10, "1.0E10"),
        (1e-5, "1.0E-5"),
        (f64::NAN, "NaN"),
        (f64::INFINITY, "Infinity"),
        (-0.0, "-0.0"),
        (1e7, "1.0E7"),
        (0.001, "0.001"),
    ] {
        assert_eq!(Value::Float(value).to_string(), shown);
    }
    // A float equals itself as a double: NaN is NaN, -0.0 is not 0.0.
    assert_eq!(Value::Float(f64::NAN), Value::Float(f64::NAN));
    assert_ne!(Value::Float(-0.0), Value::Float(0.0));
    assert_ne!(Value::Float(1.0), Value::Int(1));
}

#[test]
fn test_graph_of_floats() {
    let mut code = parse_opto("flt x = arg; return -x/2;");
    assert_eq!(code.print(), "return ((-(flt)arg)/2.0f);");
    schedule(&mut code);
    let dot = code.dot();
    for label in [
        "label=\"(flt)\"",
        "label=\"-\"",
        "label=\"/\"",
        "label=\"#2.0f\"",
    ] {
        assert!(dot.contains(label), "{label} in {dot}");
    }
    assert_returns(&code, 3, Value::Float(-1.5));
}
