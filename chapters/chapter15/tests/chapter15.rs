//! Port of Simple's chapter 15 `Chapter15Test.java`: arrays.
//!
//! As in the other ports, the Java parses and optimizes
//! (`parse().iterate()`), compares the printed program and runs its test
//! evaluator; here both of our evaluators (`eval` on the graph,
//! `eval_scheduled` on the schedule) must give the expected value. Where
//! the printed program names a node by its number (`Region69`), ours
//! differs from the Java's, which makes its nodes in another order (see
//! the README); the test says so where it does.

// 3.14 is Simple's test value, not an approximation of pi.
#![allow(clippy::approx_constant)]

use chapter15::eval::Value;
use chapter15::types::Types;
use chapter15::{CodeGen, Outcome};
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

/// Both evaluators, run with `arg`, return a value shown as `expected`.
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

/// Both evaluators, run with `arg`, stop with the fault `expected`.
#[track_caller]
fn assert_faults(code: &CodeGen, arg: i64, expected: &str) {
    let expected = Outcome::Fault(expected.into());
    assert_eq!(code.eval(arg, LOOPS), expected, "eval, arg {arg}");
    assert_eq!(
        code.eval_scheduled(arg, LOOPS),
        expected,
        "eval_scheduled, arg {arg}"
    );
}

/// The message of the error that compiling `src` gives.
fn error(src: &str) -> String {
    let mut code = CodeGen::new(src);
    match code.parse().and_then(|code| code.iterate()) {
        Ok(code) => panic!("{src:?} compiled to {:?}", code.print()),
        Err(e) => e.message.clone(),
    }
}

#[test]
fn test_jig() {
    let code = parse_iterated("return 3.14;\n");
    assert_eq!(code.print(), "return 3.14;");
    assert_returns(&code, 0, Value::Float(3.14));
}

#[test]
fn test_lifetime() {
    let code = parse_iterated(
        "\
u8[] b = new u8[5];
if (arg) {
    b[0] = b[0] + 1;
} else {
    b[1] = b[1] * 2;
}
return b[0] + b[1];
",
    );
    // The Java prints `return Phi(Region69,1,0);`: the same program, but
    // its node numbers (it makes more nodes per `new`, see the README).
    assert_eq!(code.print(), "return Phi(Region58,1,0);");
    assert_returns(&code, 0, Value::Int(0));
    assert_returns(&code, 1, Value::Int(1));
}

#[test]
fn test_cyclic() {
    let code = parse_iterated(
        "\
struct C {
    C? l;
}
C c = new C;
c.l = c;
return c;
",
    );
    assert_eq!(code.print(), "return C;");
    // The Java shows `Obj<C>@1{l=obj@1}`; ours cuts the cycle its way.
    assert_shows(&code, 0, LOOPS, "Obj<C> {\n  l=Obj<C> {...}\n}");
}

#[test]
fn test_safety_check() {
    let code = parse_iterated(
        "\
u8[] old = new u8[0];
u8[] output = new u8[1];
int i = 0;
while (i < old#) {
    output[i] = old[i];
    i = i + 1;
}
output[i] = 1;
return output;
",
    );
    assert_eq!(code.print(), "return u8[];");
    assert_shows(&code, 0, LOOPS, "\u{1}");
}

#[test]
fn test_basic1() {
    let code = parse_iterated("int[] is = new int[2];\nreturn is[1];\n");
    assert_eq!(code.print(), "return 0;");
    assert_returns(&code, 0, Value::Int(0));
}

#[test]
fn test_basic2() {
    let code = parse_iterated("int[] is = new int[2];\nint[] is2 = new int[2];\nreturn is[1];\n");
    assert_eq!(code.print(), "return 0;");
    assert_returns(&code, 0, Value::Int(0));
}

#[test]
fn test_basic3() {
    let code = parse_iterated("int[] a = new int[2];\na[0] = 1;\na[1] = 2;\nreturn a[0];\n");
    assert_eq!(code.print(), "return 1;");
    assert_returns(&code, 0, Value::Int(1));
}

#[test]
fn test_basic4() {
    let code = parse_iterated("struct A { int i; }\nA?[] a = new A?[2];\nreturn a;\n");
    assert_eq!(code.print(), "return *A?[];");
    // The Java shows `Obj<*A?[]>{#=2,[]=[null,null]}`.
    assert_shows(&code, 0, LOOPS, "Obj<*A?[]> {\n  #=2\n  []=[null,null]\n}");
}

#[test]
fn test_basic5() {
    let code = parse_iterated(
        "\
struct S { int x; flt y; }
// A new S
S s = new S; s.x=99; s.y = 3.14;

// Double-d array of Ss.  Fill in one row.
S?[]?[] iss = new S?[]?[2];
iss[0] = new S?[7];
iss[0][2] = s;

// Now pull out the filled-in value, with null checks
flt rez;
S?[]? is = iss[arg];
if( !is ) rez = 1.2;
else {
    S? i = is[2];
    if( !i ) rez = 2.3;
    else rez = i.y;
}
return rez;
",
    );
    // The Java prints `return Phi(Region118,1.2,Phi(Region115,2.3,.y));`:
    // the same program with its node numbers.
    assert_eq!(
        code.print(),
        "return Phi(Region90,1.2,Phi(Region87,2.3,.y));"
    );
    assert_returns(&code, 0, Value::Float(3.14));
}

#[test]
fn test_tree() {
    let code = parse_iterated(
        "\
// Can we define a forward-reference array?
struct Tree { Tree?[] _kids; }
Tree root = new Tree;
root._kids = new Tree?[2];
root._kids[0] = new Tree;
return root;
",
    );
    assert_eq!(code.print(), "return Tree;");
    // The Java shows
    // `Obj<Tree>{_kids=Obj<*Tree?[]>{#=2,[]=[Obj<Tree>{_kids=null},null]}}`.
    assert_shows(
        &code,
        0,
        LOOPS,
        "Obj<Tree> {\n  _kids=Obj<*Tree?[]> {\n  #=2\n  []=[Obj<Tree> {\n  _kids=null\n},null]\n}\n}",
    );
}

#[test]
fn test_nested_struct_add_mem_proj() {
    let mut code = CodeGen::new("struct S {\n    int a;\n    int[] b;\n}\nreturn 0;\n");
    code.parse().unwrap();
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_rolling_sum() {
    let code = parse_iterated(
        "\
int[] ary = new int[arg];
// Fill [0,1,2,3,4,...]
int i=0;
while( i < ary# ) {
    ary[i] = i;
    i = i+1;
}
// Fill [0,1,3,6,10,...]
i=0;
while( i < ary# - 1 ) {
    ary[i+1] = ary[i+1] + ary[i];
    i = i+1;
}
return ary[1] * 1000 + ary[3]; // 1 * 1000 + 6
",
    );
    assert_eq!(code.print(), "return (.[]+(.[]*1000));");
    assert_returns(&code, 4, Value::Int(1006));
}

#[test]
fn sieve_o_eratosthenes() {
    let mut code = parse_iterated(
        "\
int[] ary = new int[arg];
int[] primes = new int[arg];
int nprimes = 0;
// Find primes
int j=2;
while( j*j < arg ) {
    while( ary[j]==1 ) j = j + 1;
    // j is now a prime
    primes[nprimes] = j;  nprimes = nprimes + 1;
    // Mark out the rest non-primes
    int i = j + j;
    while( i < ary# ) {
        ary[i] = 1;
        i = i + j;
    }
    j = j + 1;
}
// Now just collect the remaining primes
while( j < arg ) {
    if( ary[j] == 0 ) {
        primes[nprimes] = j;  nprimes = nprimes + 1;
    }
    j = j + 1;
}
// Shrink the result array to size
int[] rez = new int[nprimes];
j = 0;
while( j < nprimes ) {
    rez[j] = primes[j];
    j = j + 1;
}

return rez;
",
    );
    assert_eq!(code.print(), "return int[];");
    // The Java checks the struct type, the length 8 and the elements.
    let primes = [2, 3, 5, 7, 11, 13, 17, 19].map(Value::Int).to_vec();
    let rez = Outcome::Value(Value::Array {
        name: "int[]".into(),
        elems: primes,
    });
    assert_eq!(code.eval(20, LOOPS), rez);
    assert_eq!(code.eval_scheduled(20, LOOPS), rez);
    let types = &mut code.graph.types;
    let ary = types.array(Types::INT_BOT).unwrap();
    assert_eq!(types.to_string(ary), "int[] {\n  # :int;\n  [] :int;\n}");
}

#[test]
fn test_new_node_init() {
    let code = parse_iterated(
        "\
struct S {int i; flt f;}
S s1 = new S;
S s2 = new S;
s2.i = 3;
s2.f = 2.0;
if (arg) s1 = new S;
return s1.i + s1.f;
",
    );
    assert_eq!(code.print(), "return ((flt).i+.f);");
    assert_returns(&code, 0, Value::Float(0.0));
}

#[test]
fn test_bad0() {
    assert_eq!(error("return new flt;"), "Cannot allocate a flt");
}

#[test]
fn test_bad1() {
    assert_eq!(
        error("int is = new int[2];"),
        "Type *int[] is not of declared type int"
    );
}

#[test]
fn test_bad2() {
    assert_eq!(
        error("int[] is = new int[3.14];\nreturn is[1];"),
        "Cannot allocate an array with length 3.14"
    );
}

#[test]
fn test_bad3() {
    let code = parse_iterated("int[] is = new int[arg];\nreturn is[1];");
    assert_eq!(code.print(), "return 0;");
    assert_returns(&code, 4, Value::Int(0));
    // The Java's load is folded away, so index 1 of an empty array is
    // never read and the value is 0; a negative length is a fault.
    assert_returns(&code, 0, Value::Int(0));
    assert_faults(&code, -1, "Negative array length -1");
}
