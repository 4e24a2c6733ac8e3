//! Port of Simple's chapter 17 `Chapter17Test.java`: syntax sugar and
//! mutability.
//!
//! As in the other ports, the Java parses and optimizes
//! (`parse().iterate()`), compares the printed program and runs its test
//! evaluator; here both of our evaluators (`eval` on the graph,
//! `eval_scheduled` on the schedule) must give the expected value.
//!
//! Not yet here: the tests that need chapter 16's constructors
//! (`new S { x=3; }`) or final fields (testVar5, testVar7, testVar11, testVar14,
//! testVar15, testTrinary2 to 4, testForward0 and 1, testLinkedList2,
//! sieveOfEratosthenes).

use chapter17::eval::Value;
use chapter17::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// The budget of Java's `Evaluator.evaluate(stop, arg)`.
const LOOPS: usize = 1000;

fn parse_iterated(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.iterate())
        .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
    code
}

/// The message of the error `src` gives, parsing or iterating.
fn error(src: &str) -> String {
    let mut code = CodeGen::new(src);
    match code.parse().and_then(|c| c.iterate()) {
        Ok(c) => panic!("{src:?} compiled to {:?}", c.print()),
        Err(e) => e.message,
    }
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

#[track_caller]
fn assert_int(code: &CodeGen, arg: i64, expected: i64) {
    assert_returns(code, arg, Value::Int(expected));
}

/// The program prints as `printed` and returns `expected` for each `arg`.
#[track_caller]
fn check(src: &str, printed: &str, runs: &[(i64, i64)]) {
    let code = parse_iterated(src);
    assert_eq!(code.print(), printed);
    for &(arg, expected) in runs {
        assert_int(&code, arg, expected);
    }
}

#[test]
fn test_jig() {
    check("return 1;", "return 1;", &[(0, 1)]);
}

#[test]
fn test_inc0() {
    check("return arg++;\n", "return arg;", &[(0, 0)]);
}

#[test]
fn test_inc1() {
    check("return arg+++arg++;\n", "return ((arg*2)+1);", &[(0, 1)]);
}

#[test]
fn test_inc2() {
    check(
        "\
//   -(arg--)-(arg--)
return -arg---arg--;
",
        "return (-((arg*2)+-1));",
        &[(0, 1)],
    );
}

#[test]
fn test_inc3() {
    check(
        "\
int[] !xs = new int[arg];
xs[0]++;
xs[1]++;
return xs[0];
",
        "return 1;",
        &[(2, 1)],
    );
}

#[test]
fn test_inc4() {
    check(
        "\
u8[] !xs = new u8[1];
xs[0]--;
return xs[0];
",
        "return 255;",
        &[(2, 255)],
    );
}

#[test]
fn test_inc5() {
    check(
        "\
struct S { u16 x; };
S !s = new S;
s.x--;
return s.x;
",
        "return 65535;",
        &[(2, 65535)],
    );
}

#[test]
fn test_inc6() {
    check("return --arg;", "return (arg+-1);", &[(0, -1)]);
}

#[test]
fn test_inc7() {
    check("u8 x=0; return --x;", "return 255;", &[(0, 255)]);
}

#[test]
fn test_inc8() {
    check("int x; x+=2; return x+=3;", "return 5;", &[(0, 5)]);
}

#[test]
fn test_var0() {
    assert_eq!(
        error("var d; return d;"),
        "Syntax error, expected =expression: ;"
    );
}

#[test]
fn test_var1() {
    assert_eq!(
        error("val d; return d;"),
        "Syntax error, expected =expression: ;"
    );
}

#[test]
fn test_var2() {
    check(
        "int x; x=3; x++; return x; // Ok, no initializer so x is mutable ",
        "return 4;",
        &[(0, 4)],
    );
}

#[test]
fn test_var3() {
    check(
        "int x=3; x++; return x; // Ok, primitive so x is mutable despite initializer ",
        "return 4;",
        &[(0, 4)],
    );
}

#[test]
fn test_var4() {
    check(
        "struct S{int x;}; S s; s=new S; s.x++; return s.x; // Ok, no initializer so x is mutable ",
        "return 1;",
        &[(0, 1)],
    );
}

#[test]
fn test_var6() {
    assert_eq!(
        error("struct S{int x;}; S s=new S; s.x++; return s.x; // Error initializer so x is immutable "),
        "Cannot modify final field 'x'"
    );
}

#[test]
fn test_var8() {
    check(
        "struct S{int x;}; S !s=new S; s.x++; return s.x; // Ok, has '!' so s.x is mutable ",
        "return 1;",
        &[(0, 1)],
    );
}

#[test]
fn test_var9() {
    check(
        "struct S{int x;}; var s=new S; s.x++; return s.x; // Ok, has var so s.x is mutable ",
        "return 1;",
        &[(0, 1)],
    );
}

#[test]
fn test_var10() {
    assert_eq!(
        error("struct S{int x;}; val s=new S; s.x++; return s.x; // Error, has val so x is immutable "),
        "Cannot modify final field 'x'"
    );
}

#[test]
fn test_var12() {
    check(
        "\
struct Bar { int x; };
Bar !bar = new Bar;
bar.x = 3; // Ok, bar is mutable

struct Foo { Bar? !bar; int y; };
Foo !foo = new Foo;
foo.bar = bar; // Ok bar is mutable
foo.bar.x++;   // Ok foo and foo.bar and foo.bar.x are all mutable

val xfoo = foo;        // Throw away mutability
int x4 = xfoo.bar.x;   // Ok to read through xfoo, gets 4
foo.bar.x++;           // Bumps to 5
int x5 = xfoo.bar.x;   // Ok to read through xfoo, gets 5
return x4*10+x5;
",
        "return 45;",
        &[(0, 45)],
    );
}

#[test]
fn test_var13() {
    assert_eq!(error("int i,i++;\n"), "Redefining name 'i'");
}

#[test]
fn test_trinary0() {
    check(
        "return arg ? 1 : 2;\n",
        "return Phi(Region,1,2);",
        &[(0, 2), (1, 1)],
    );
}

#[test]
fn test_trinary1() {
    check("return arg ? 0 : arg;\n", "return 0;", &[(0, 0)]);
}

#[test]
fn test_trinary5() {
    let code = parse_iterated(
        "\
flt f=arg?1:1.2;
return f;   // missing widening
",
    );
    assert_eq!(code.print(), "return Phi(Region,1.0,1.2);");
    assert_returns(&code, 0, Value::Float(1.2));
}

/// The sum of `0..arg`, as the four `for` loops of the Java tests write it.
const FOR_SUM: &str = "return Phi(Loop,0,(Phi_sum+Phi(Loop,0,(Phi_i+1))));";

#[test]
fn test_for0() {
    check(
        "\
int sum=0;
for( int i=0; i<arg; i++ )
    sum += i;
return sum;
",
        FOR_SUM,
        &[(3, 3), (10, 45)],
    );
}

#[test]
fn test_for1() {
    check(
        "\
int sum=0, i=0;
for( ; i<arg; i++ )
    sum += i;
return sum;
",
        FOR_SUM,
        &[(3, 3), (10, 45)],
    );
}

#[test]
fn test_for2() {
    check(
        "\
int sum=0;
for( int i=0; ; i++ ) {
    if( i>=arg ) break;
    sum += i;
}
return sum;
",
        FOR_SUM,
        &[(3, 3), (10, 45)],
    );
}

#[test]
fn test_for3() {
    check(
        "\
int sum=0;
for( int i=0; i<arg; )
    sum += i++;
return sum;
",
        FOR_SUM,
        &[(3, 3), (10, 45)],
    );
}

#[test]
fn test_for4() {
    assert_eq!(
        error(
            "\
int sum=0;
for( int i=0; i<arg; i++ )
    sum += i;
return i;
"
        ),
        "Undefined name 'i'"
    );
}

#[test]
fn test_for5() {
    assert_eq!(
        error("for(;;arg++;) {}\n"),
        "Syntax error, expected Unexpected code after expression: ;"
    );
}

// ---------------------------------------------------------------------------
// Not in the Java tests: the other compound assignments, assignments as
// expressions, and what the lexer does not take for an increment.

#[test]
fn test_compound_assignments() {
    check(
        "int x = arg; x -= 2; x *= 3; x /= 2; return x;",
        "return (((arg-2)*3)/2);",
        &[(4, 3), (0, -3)],
    );
    check(
        "int i; int j; i = j = arg; return i + j;",
        "return (arg*2);",
        &[(5, 10)],
    );
    // `--` before no variable is two minuses; `--1` after one is `- -1`.
    check("return --12;", "return 12;", &[(0, 12)]);
    check("return arg--1;", "return (arg--1);", &[(2, 3)]);
    // A narrow variable wraps.
    check("u8 b = 255; b += 2; return b;", "return 1;", &[(0, 1)]);
    // A float takes an int operand converted (Simple's chapter 18 does so).
    let code = parse_iterated("flt f = 1.5; f += 1; return f;");
    assert_eq!(code.print(), "return 2.5;");
    assert_eq!(error("int x; x &= 1; return x;"), "Not yet implemented");
    assert_eq!(
        error("val x = 1; x += 1; return x;"),
        "Cannot reassign final 'x'"
    );
    assert_eq!(
        error("val x = 1; ++x; return x;"),
        "Cannot reassign final 'x'"
    );
    assert_eq!(
        error("val x = 1; x = 2; return x;"),
        "Cannot reassign final 'x'"
    );
}

#[test]
fn test_for_with_continue() {
    // `continue` runs the step: the odd numbers below `arg`.
    check(
        "int sum = 0; for (int i = 0; i < arg; i++) { if ((i & 1) == 0) continue; sum += i; } return sum;",
        "return Phi(Loop,0,Phi(Region,Phi_sum,(Phi_sum+Phi(Loop,0,(Phi_i+1)))));",
        &[(6, 9), (0, 0)],
    );
}

#[test]
fn test_trinary_arms_rewritten_by_the_merge() {
    // Not in the Java tests (Simple's chapter 17 fails on it with a
    // NullPointerException). Both arms assign `arg`; the merge's phi for
    // `arg` pulls the two Adds down, and the arm values must outlive it
    // (found by a random-program run: a killed node reached the `?:` phi).
    check(
        "int a=arg; return 0<arg?(arg=a+1):--arg;",
        "return (arg+Phi(Region,1,-1));",
        &[(0, -1), (3, 4)],
    );
    check(
        "int a=arg; 0<arg?(arg=a+1):--arg; return arg;",
        "return (arg+Phi(Region,1,-1));",
        &[(0, -1), (3, 4)],
    );
}
