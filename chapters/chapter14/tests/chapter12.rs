//! Port of Simple's chapter 14 `Chapter12Test.java`: floats.
//!
//! The Java parses, optimizes and schedules (`parse().iterate(false)`; the
//! flag only asks for a picture), compares the printed program and runs its
//! test evaluator (`Evaluator.evaluate(stop, arg)`, a budget of 1000 loop
//! trips). Here both of our evaluators must give the expected value.

// 3.14 and 1.414213562373095 are Simple's test values, not approximations
// of pi and the square root of 2.
#![allow(clippy::approx_constant)]

use chapter14::eval::Value;
use chapter14::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// The budget of Java's `Evaluator.evaluate(stop, arg)`.
const LOOPS: usize = 1000;

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

#[test]
fn test_jig() {
    let code = parse_iterated("return 3.14;\n");
    assert_eq!(code.print(), "return 3.14;");
    assert_returns(&code, 0, Value::Float(3.14));
}

#[test]
fn test_float() {
    let code = parse_iterated("return 3.14;\n");
    assert_eq!(code.print(), "return 3.14;");
    assert_returns(&code, 0, Value::Float(3.14));
}

#[test]
fn test_square_root() {
    let code = parse_iterated(
        "\
flt guess = arg;
while( 1 ) {
    flt next = (arg/guess + guess)/2;
    if( next == guess ) break;
    guess = next;
}
return guess;
",
    );
    assert_eq!(
        code.print(),
        "return Phi(Loop9,(flt)arg,(((ToFloat/Phi_guess)+Phi_guess)/2.0));"
    );
    assert_returns(&code, 9, Value::Float(3.0));
    assert_returns(&code, 2, Value::Float(1.414213562373095));
}

#[test]
fn test_fp_ops() {
    let code = parse_iterated("flt x = arg;\nreturn x+1==x;\n");
    assert_eq!(code.print(), "return ((flt)arg==(ToFloat+1.0));");
    assert_returns(&code, 1, Value::Int(0));
}
