//! Port of Simple's chapter 19 `Chapter19Test.java`: instruction
//! selection for x86-64.
//!
//! Most tests compile a program down to x86-64 machine nodes (Java:
//! `code.parse().opto().typeCheck().instSelect("x86_64_v2", "SystemV")
//! .GCM().localSched()`; ours also runs `legalize`, which Simple does not
//! have) and compare the printed machine program with Simple's, where each
//! machine node prints as its op and its operands, `(inc,arg)`, an operand
//! folded into an immediate not shown. The first two stay in the ideal
//! graph and also run the program (Java's `Eval2.eval`, our two
//! evaluators). All 40 of the Java's tests are here, in its order.
//!
//! After them, tests of what chapter 19 changed in the ideal graph
//! (not in the Java tests): multiplying by a constant with shifts.

use chapter19::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// The budget of Java's `Eval2.eval(code, arg)`: loop back edges and
/// function entries taken.
const LOOPS: usize = 1000;

/// Parses, optimizes, type checks and schedules (Java:
/// `code.parse().opto().typeCheck()`, with or without `.GCM().localSched()`,
/// which do not change the printed program, and which Java's evaluator
/// runs itself).
fn compile(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
    code
}

/// All the phases down to scheduled x86-64 machine nodes (Java:
/// `code.parse().opto().typeCheck().instSelect("x86_64_v2", "SystemV")
/// .GCM().localSched()`).
fn x86(src: &str) -> CodeGen {
    x86_with(src, "SystemV")
}

/// `x86` with the calling convention `abi` (`SystemV` or `Win64`).
fn x86_with(src: &str, abi: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select("x86_64_v2", abi))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
    code
}

/// Selected for x86-64 but not legalized: Simple's own pipeline, whose
/// printed forms its tests pin.
fn selected_x86(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select("x86_64_v2", "SystemV"))
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
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

#[test]
fn test_jig() {
    let code = compile("return 0;\n");
    assert_eq!(code.print(), "return 0;");
    assert_shows(&code, 2, "0");
}

#[test]
fn test_string() {
    let code = compile(
        "\
struct String {
    u8[] cs;
    int _hashCode;
};

val equals = { String self, String s ->
    if( self == s ) return true;
    if( self.cs# != s.cs# ) return false;
    for( int i=0; i< self.cs#; i++ )
        if( self.cs[i] != s.cs[i] )
            return false;
    return true;
};

val hashCode = { String self ->
    self._hashCode
    ?  self._hashCode
    : (self._hashCode = _hashCodeString(self));
};

val _hashCodeString = { String self ->
    int hash=0;
    if( self.cs ) {
        for( int i=0; i< self.cs#; i++ )
            hash = hash*31 + self.cs[i];
    }
    if( !hash ) hash = 123456789;
    return hash;
};

String !s = new String { cs = new u8[17]; };
s.cs[0] =  67; // C
s.cs[1] = 108; // l
hashCode(s);",
    );
    assert_eq!(
        code.print(),
        "Stop[ return Phi(Region,123456789,Phi(Loop,0,(.[]+((Phi_hash<<5)-Phi_hash)))); return Phi(Region,1,0,0,1); ]"
    );
    assert_shows(&code, 2, "-2449306563677080489");
}

#[test]
fn test_basic0() {
    assert_eq!(x86("return 0;").print(), "return 0;");
}

#[test]
fn test_basic1() {
    assert_eq!(x86("return arg+1;").print(), "return (inc,arg);");
}

#[test]
fn test_basic2() {
    assert_eq!(x86("return -17;").print(), "return -17;");
}

#[test]
fn test_basic3() {
    assert_eq!(x86("return arg==1;").print(), "return (set==,(cmp,arg));");
}

#[test]
fn test_basic4() {
    assert_eq!(x86("return arg<<1;").print(), "return (shli,arg);");
}

#[test]
fn test_basic5() {
    assert_eq!(x86("return arg >> 1;").print(), "return (sari,arg);");
}

#[test]
fn test_basic6() {
    assert_eq!(x86("return arg >>> 1;").print(), "return (shri,arg);");
}

#[test]
fn test_basic7() {
    assert_eq!(x86("return arg / 2;").print(), "return (div,arg,2);");
}

#[test]
fn test_basic8() {
    assert_eq!(x86("return arg * 6;").print(), "return (muli,arg);");
}

#[test]
fn test_basic9() {
    assert_eq!(x86("return arg & 2;").print(), "return (andi,arg);");
}

#[test]
fn test_basic10() {
    assert_eq!(x86("return arg | 2;").print(), "return (ori,arg);");
}

#[test]
fn test_basic11() {
    assert_eq!(x86("return arg ^ 2;").print(), "return (xori,arg);");
}

#[test]
fn test_basic12() {
    assert_eq!(
        x86("return arg + 2.0;").print(),
        "return (addf,(i2f8,arg),2.0f);"
    );
}

#[test]
fn test_basic13() {
    assert_eq!(
        x86("return arg - 2.0;").print(),
        "return (subf,(i2f8,arg),2.0f);"
    );
}

#[test]
fn test_basic14() {
    assert_eq!(
        x86("return arg * 2.0;").print(),
        "return (mulf,(i2f8,arg),2.0f);"
    );
}

#[test]
fn test_basic15() {
    assert_eq!(
        x86("return arg / 2.0;").print(),
        "return (divf,(i2f8,arg),2.0f);"
    );
}

#[test]
fn test_basic16() {
    let src = "\
int arg1 =  arg + 1;
return arg1 / arg;";
    // As selected (Simple has no legalizer): x86's `idiv`.
    assert_eq!(selected_x86(src).print(), "return (div,(inc,arg),arg);");
    // Legalized: `idiv` traps where the language's `x/0` is 0 and
    // `MIN/-1` is MIN, so the divisor is made safe first: 0 and -1 become
    // 1; the quotient is then negated where the divisor was -1 (wrapping
    // MIN to MIN) and masked to 0 where it was 0.
    assert_eq!(
        x86(src).print(),
        "return (and,(mul,(div,(inc,arg),(add,(add,arg,(set==,(test,arg))),(shli,(set==,(cmp,arg))))),(inc,(neg,shli))),(dec,set==));"
    );
}

#[test]
fn test_basic17() {
    let code = x86("\
int arg1 =  arg + 1;
return arg1 * arg;
");
    assert_eq!(code.print(), "return (mul,(inc,arg),arg);");
}

#[test]
fn test_basic18() {
    let code = x86("\
int arg1 =  arg + 1;
return arg1 << arg;
");
    assert_eq!(code.print(), "return (shl,(inc,arg),arg);");
}

#[test]
fn test_basic19() {
    let code = x86("\
int arg1 =  arg + 1;
return arg1 >> arg;
");
    assert_eq!(code.print(), "return (sar,(inc,arg),arg);");
}

#[test]
fn test_basic20() {
    let code = x86("\
int arg1 =  arg + 1;
return arg1 >>> arg;
");
    assert_eq!(code.print(), "return (shr,(inc,arg),arg);");
}

#[test]
fn test_to_float() {
    let code = x86("\
int a = arg;
return a + 2.0;
");
    assert_eq!(code.print(), "return (addf,(i2f8,arg),2.0f);");
}

#[test]
fn test_if_stmt() {
    let code = x86("\
int a = 1;
if (arg == 1)
    a = arg+2;
else {
    a = arg-3;
}
return a;");
    assert_eq!(code.print(), "return Phi(Region,(addi,arg),(addi,arg));");
}

#[test]
fn test_if_merge2() {
    let code = x86("\
int a=arg+1;
int b=arg+2;
if( arg==1 )
    b=b+a;
else
    a=b+1;
return a+b;");
    assert_eq!(
        code.print(),
        "return (add,(add,Phi(Region,(shli,arg),arg),arg),Phi(Region,4,5));"
    );
}

#[test]
fn test_loop() {
    let code = x86("\
int sum=0;
for( int i=0; i<arg; i++ )
    sum += i;
return sum;");
    assert_eq!(
        code.print(),
        "return Phi(Loop,0,(add,Phi_sum,Phi(Loop,0,(inc,Phi_i))));"
    );
}

#[test]
fn test_alloc1() {
    let code = x86("\
struct S { int a; S? c; };
return new S;");
    assert_eq!(code.print(), "return S;");
}

#[test]
fn test_lea1() {
    let code = x86("int x = arg/3; return arg+x+7;");
    assert_eq!(code.print(), "return (lea,arg,(div,arg,3));");
}

#[test]
fn test_lea2() {
    let code = x86("int x = arg/3; return arg+x*4+7;");
    assert_eq!(code.print(), "return (lea,arg,(div,arg,3));");
}

#[test]
fn test_lea3() {
    let code = x86("int x = arg/3; return x*4+arg;");
    assert_eq!(code.print(), "return (lea,arg,(div,arg,3));");
}

#[test]
fn test_alloc2() {
    let code = x86("int[] !xs = new int[3]; xs[arg]=1; return xs[arg&1];");
    assert_eq!(code.print(), "return .[];");
}

#[test]
fn test_alloc3() {
    let code = x86("int[] !xs = new int[3]; xs[arg]=1; return xs[arg&1]+3;");
    assert_eq!(code.print(), "return .[];");
}

#[test]
fn test_array1() {
    let code = x86("\
int[] !ary = new int[arg];
// Fill [0,1,2,3,4,...]
for( int i=0; i<ary#; i++ )
    ary[i] = i;
// Fill [0,1,3,6,10,...]
for( int i=0; i<ary#-1; i++ )
    ary[i+1] += ary[i];
return ary[1] * 1000 + ary[3]; // 1 * 1000 + 6
");
    assert_eq!(code.print(), "return .[];");
}

#[test]
fn test_array2() {
    let code = x86("\
flt[] !A = new flt[arg], !B = new flt[arg];
// Fill [0,1,2,3,4,...]
for( int i=0; i<A#; i++ )
    A[i] = i;
for( int i=0; i<A#; i++ )
    B[i] += A[i];
");
    assert_eq!(code.print(), "return 0;");
}

#[test]
fn test_array3() {
    let code = x86("\
byte[] !A = new byte[arg];
for( int i=0; i<A#; i++ )
    A[i]++;
return A[1];
");
    assert_eq!(code.print(), "return .[];");
}

#[test]
fn test_newton() {
    let code = x86("\
// Newtons approximation to the square root
val sqrt = { flt x ->
    flt guess = x;
    while( 1 ) {
        flt next = (x/guess + guess)/2;
        if( next == guess ) return guess;
        guess = next;
    }
};
flt farg = arg;
return sqrt(farg);
");
    assert_eq!(
        code.print(),
        "return Phi(Loop,(i2f8,arg),(divf,(addf,(divf,i2f8,Phi_guess),Phi_guess),2.0f));"
    );
}

#[test]
fn sieve_of_eratosthenes() {
    let code = x86("\
var ary = new bool[arg], primes = new int[arg];
var nprimes=0, p=0;
// Find primes while p^2 < arg
for( p=2; p*p < arg; p++ ) {
    // skip marked non-primes
    while( ary[p] ) p++;
    // p is now a prime
    primes[nprimes++] = p;
    // Mark out the rest non-primes
    for( int i = p + p; i < ary#; i += p )
        ary[i] = true;
}
// Now just collect the remaining primes, no more marking
for( ; p < arg; p++ )
    if( !ary[p] )
        primes[nprimes++] = p;
// Copy/shrink the result array
var !rez = new int[nprimes];
for( int j=0; j<nprimes; j++ )
    rez[j] = primes[j];
return rez;
");
    assert_eq!(code.print(), "return [int];");
    // (The Java leaves its run commented out; the graph evaluator still
    // runs the ideal program, which selection keeps. The scheduled one
    // would run the machine schedule: chapter 21 runs that, as code.)
    let Outcome::Value(v) = code.eval(20, LOOPS) else {
        panic!("the sieve runs");
    };
    assert_eq!(v.to_string(), "int[ 2,3,5,7,11,13,17,19]");
}

#[test]
fn test_fcn1() {
    let code = x86("\
val fcn = arg ? { int x -> x*x; } : { int x -> x+x; };
return fcn(2)*10 + fcn(3);
");
    // Simple prints `Parm_x($fun,int,3,2)`: its optimizer links the call
    // `fcn(3)` to the functions first. A Parm's inputs are in the order the
    // calls are linked, which follows the pseudo-random worklist (Java's
    // generator, as Simple's), and so the node numbers: ours differ from
    // Simple's in this program, and `fcn(2)` is linked first.
    assert_eq!(
        code.print(),
        "Stop[ return (add,Phi(Region,{ int -> int #1},{ int -> int #2})( 3),(muli,Phi_( 2))); return (mul,Parm_x($fun,int,2,3),x); return (shli,Parm_x($fun,int,2,3)); ]"
    );
}

#[test]
fn test_fcn2() {
    let code = x86("\
val sq = { int x -> x*x; };
return sq(arg) + sq(3);
");
    assert_eq!(
        code.print(),
        "Stop[ return (add,sq(),sq()); return (mul,Parm_x(sq,int,3,arg),x); ]"
    );
}

// ---------------------------------------------------------------------------
// Not in the Java tests: what chapter 19 changed in the ideal graph.

/// Parses and optimizes (Java: `code.parse().opto()`), then checks the
/// printed program and, after scheduling, what it returns for some args.
#[track_caller]
fn check(src: &str, printed: &str, runs: &[(i64, &str)]) {
    let code = compile(src);
    assert_eq!(code.print(), printed, "{src:?}");
    for &(arg, expected) in runs {
        assert_shows(&code, arg, expected);
    }
}

/// A multiply by a power of two is a shift left; by one more or one less
/// than a power of two, a shift and an add or a subtract. Other constants
/// stay a multiply. (The sum sorts `arg`, a Parm and so a phi, first.)
#[test]
fn test_mul_by_constant_is_shifts() {
    check(
        "return arg*8;",
        "return (arg<<3);",
        &[(3, "24"), (-5, "-40")],
    );
    check(
        "return arg*9;",
        "return (arg+(arg<<3));",
        &[(3, "27"), (-5, "-45")],
    );
    check(
        "return arg*31;",
        "return ((arg<<5)-arg);",
        &[(3, "93"), (-5, "-155")],
    );
    check("return 31*arg;", "return ((arg<<5)-arg);", &[(2, "62")]);
    check("return arg*6;", "return (arg*6);", &[(3, "18")]);
    check("return arg*-8;", "return (arg*-8);", &[(3, "-24")]);
    // Each multiply is rewritten as it is parsed: `arg*2` is a shift
    // before `*3` sees it (Simple does not fold shifts together).
    check(
        "return arg*2*3;",
        "return (((arg<<1)<<1)+Shl);",
        &[(7, "42")],
    );
    check("return arg*0;", "return 0;", &[(7, "0")]);
    check("return arg*1;", "return arg;", &[(7, "7")]);
    // x+x is a shift too.
    check("return arg+arg;", "return (arg<<1);", &[(21, "42")]);
}

/// The edges of a 64-bit multiply: by MIN (a power of two: 1<<63), by
/// MAX (2^63-1, one less than the power of two MIN) and by MIN+1 (one
/// more than it), as Java's wrapping multiply computes them.
#[test]
fn test_mul_by_constant_edges() {
    check(
        "return arg*(-9223372036854775807-1);",
        "return (arg<<63);",
        &[
            (1, "-9223372036854775808"),
            (2, "0"),
            (3, "-9223372036854775808"),
        ],
    );
    check(
        "return arg*9223372036854775807;",
        "return ((arg<<63)-arg);",
        &[
            (1, "9223372036854775807"),
            (2, "-2"),
            (-1, "-9223372036854775807"),
        ],
    );
    check(
        "return arg*(-9223372036854775807);",
        "return (arg+(arg<<63));",
        &[
            (1, "-9223372036854775807"),
            (2, "2"),
            (-1, "9223372036854775807"),
        ],
    );
}

/// Simple rewrites `x*-1` as `(x<<64)-x`, taking -1 for one less than
/// 2^64: a shift by 64 is no shift, so the result is 0. It stays a
/// multiply here.
#[test]
fn test_mul_by_minus_one_is_not_zero() {
    check(
        "return arg*-1;",
        "return (arg*-1);",
        &[(5, "-5"), (-7, "7"), (0, "0")],
    );
}

/// A loop's value is 0 now: a function (here `main`) that falls off its
/// end after a loop returns 0, not the body's last value (chapter 18
/// returned `i`'s value after the loop here).
#[test]
fn test_loop_value_is_zero() {
    check(
        "int i = arg; while (i < 10) i = i + 1;",
        "return 0;",
        &[(0, "0"), (15, "0")],
    );
    check(
        "val f = { int x -> for (int j = 0; j < x; j++) x = x - 1; };\nreturn f(arg) + 5;",
        "return 5;",
        &[(3, "5")],
    );
}

/// The message of the error that `code.parse().opto().typeCheck()` gives.
fn error(src: &str) -> String {
    let mut code = CodeGen::new(src);
    match code
        .parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
    {
        Ok(c) => panic!("{src:?} compiled to {:?}", c.print()),
        Err(e) => e.message,
    }
}

/// `#` and `[]` of a non-pointer want an array, `.` a reference (chapter
/// 18 said `Expected reference but got 3` for all three).
#[test]
fn test_expected_array_or_reference() {
    assert_eq!(
        error("int x = 3;\nreturn x#;"),
        "Expected array but found 3"
    );
    assert_eq!(
        error("int x = 3;\nreturn x[0];"),
        "Expected array but found 3"
    );
    assert_eq!(
        error("int x = 3;\nreturn x.y;"),
        "Expected reference but found 3"
    );
}

/// A New leaves every field zero, and each initial value that is not
/// zero is a store into the new object (an array's length too); a load
/// from the object that no store wrote reads the zero. The stores of
/// initial values may set final fields.
#[test]
fn test_new_stores_initial_values() {
    let code = compile("struct S { int x = 3; flt f; S? p; };\nS !s = new S;\nreturn s;");
    assert_eq!(code.print(), "return S;");
    assert_shows(&code, 0, "S{x=3,f=0.0,p=null}");
    // One store, of the 3, and none of the zeros.
    let ir = code.ir();
    assert_eq!(ir.lines().filter(|l| l.contains(".x=")).count(), 1, "{ir}");
    assert!(!ir.contains(".f=") && !ir.contains(".p="), "{ir}");
    check(
        "struct S { int x; flt f; S? p; };\nS !s = new S;\nreturn s.f;",
        "return 0.0f;",
        &[(0, "0.0")],
    );
    // A `val` field is final, and so is an array's `#`: the stores of
    // their initial values are no error. (`a#` is the length stored, cut
    // to a `u32`, the length's type.)
    check(
        "struct P { val x = 3; };\nP !p = new P;\nint[] !a = new int[arg];\nreturn p.x + a#;",
        "return ((arg&4294967295)+3);",
        &[(2, "5")],
    );
}

/// A store into a narrow field keeps the low bits of its value, so the
/// mask that would cut a `u8` down is dropped; the evaluators keep the
/// low bits as the store does. Here the load reads memory through the
/// loop, not the stored value.
#[test]
fn test_narrow_store_keeps_low_bits() {
    let src = "struct S { u8 b; i16 h; };\nS !s = new S;\nint i = 0;\n\
               while (i < 2) { s.b = arg + i; s.h = arg - i; i = i + 1; }\nreturn s;";
    let code = compile(src);
    assert_eq!(code.print(), "return S;");
    // No mask is left: the stores take `arg+i` as it is. (The i16 still
    // shifts: only an And is dropped.)
    assert!(!code.ir().contains("And"), "{}", code.ir());
    assert_shows(&code, 300, "S{b=45,h=299}");
    assert_shows(&code, 255, "S{b=0,h=254}");
    assert_shows(&code, -40000, "S{b=193,h=25535}");
}

/// Chapter 19: an array's length is a `u32`, and its body starts right
/// after it, at offset 4, unless its elements are 8 bytes wide (then at
/// 8, aligned). The evaluators find elements by that layout.
#[test]
fn test_array_layout() {
    check(
        "u8[] !a = new u8[arg];\na[arg-1] = 7;\nreturn a;",
        "return [u8];",
        &[(2, "\0\u{7}")],
    );
    check(
        "i32[] !a = new i32[arg];\na[arg-1] = -7;\nreturn a;",
        "return [i32];",
        &[(3, "i32[ 0,0,-7]")],
    );
    // (`array_layouts` in chapter15.rs checks the offsets themselves.)
    assert_eq!(
        error("int[]?? x;"),
        "Type *[int] {u32 #; int ![]; }? already allows null"
    );
}

/// Found by the robustness tests: parsed without peepholes, `one*3`
/// becomes shifts and adds only when the optimizer runs, and `one` is the
/// constant 1 by then; a constant sum that one rewrite of the adds made
/// and left unfolded (`(x+2)+(1+1)`) another took apart again, forever.
/// The optimizer peepholes what its rewrites make, whatever the parser
/// did.
#[test]
fn test_optimizing_an_unpeepholed_graph_ends() {
    let src = "int cond = 0;\nint one = 1;\nwhile (arg < 10) {\n    if (cond) one = 2;\n    arg = arg + one*3 + 1;\n}\nreturn arg;";
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut code = CodeGen::new(src).without_peepholes();
        code.parse().and_then(|c| c.opto()).unwrap();
        let _ = done.send(code.print());
    });
    let printed = finished
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the optimizer ends");
    assert_eq!(printed, "return Phi(Loop,arg,(Phi_arg+4));");
}

/// A function's parameter may be of a struct declared later (a forward
/// reference, as in Simple's chapter 19): `{ T? t -> ...}`.
#[test]
fn test_forward_reference_parameter() {
    check(
        "val f = { T? t -> t ? 1 : 0; };\nstruct T { int x; };\nT !t = new T;\nreturn f(t) + f(null);\n",
        "Stop[ return (f( null)+f( T)); return Phi(Region,1,0); ]",
        &[(0, "1")],
    );
}

/// A New calls `calloc(1, size)`: the size goes in the second integer
/// argument register of the ABI, `rsi` for SystemV, `rdx` for Win64.
#[test]
fn test_new_size_register_per_abi() {
    use chapter19::cpu::x86_64::{self, ops::in_mask};
    use chapter19::mach::{mach, Abi, Op, RegMask};
    for (name, abi, reg) in [
        ("SystemV", Abi::SystemV, x86_64::RSI),
        ("Win64", Abi::Win64, x86_64::RDX),
    ] {
        let code = x86_with("return new int[arg];", name);
        let g = &code.graph;
        let new = g
            .ids()
            .find(|&n| !g.is_dead(n) && mach(g, n).is_some_and(|m| m.op == Op::New))
            .expect("a New");
        let m = mach(g, new).expect("a machine node");
        assert_eq!(in_mask(g, new, m, 1, abi), Some(RegMask::of(reg)), "{name}");
    }
}

/// A field initialiser that reads `arg` is a value of `main`: a function
/// may allocate the struct only by setting that field itself, as machine
/// code compiles each function on its own.
#[test]
fn test_a_function_cannot_take_mains_field_initialiser() {
    let src = "struct S { int f = arg + 1; }; val g = { int x -> S s = new S; return s.f + x; }; return g(2);";
    let err = CodeGen::new(src).parse().map(|_| ()).expect_err("refused");
    assert_eq!(
        err.to_string(),
        "Field 'f' of 'S' is initialized out of function scope and must be set in the constructor or be a final constant"
    );
    let ok = compile(
        "struct S { int f = arg + 1; }; val g = { int x -> S s = new S { f = x; }; return s.f + x; }; S t = new S; return g(2) + t.f;",
    );
    assert_shows(&ok, 5, "10");
}

/// Fuzz seed 56800: a load folded into a compare (`cmp qword ptr [..]`)
/// runs where the compare runs, after the call that makes its other
/// operand, and so after the store to the element it read. The load must
/// stay a load of its own, ahead of the store.
#[test]
fn test_a_load_is_not_folded_past_a_store_to_its_element() {
    let src = "val f = { int n -> return n + 5; };
val g = { int n -> return n + 6; };
{int -> int} !h = arg ? f : g;
int[] !a = new int[4];
a[1] = arg;
int v = a[arg & 1];
a[1] = 7;
return v < h(arg);";
    let code = x86(src);
    let asm = code.asm();
    assert!(!asm.contains("cmp qword ptr"), "{asm}");
    let load = asm.find(", qword ptr [").expect("a load of its own");
    let store = asm.find("+ 16], 7").expect("the store of 7");
    assert!(load < store, "{asm}");
}

/// Fuzz seed 50656: `v ? arg / v : 1` divides by a value a cast proves
/// nonzero only under the test. The cast generates no code and the
/// division floats above the test (out of the inner loop), so it must
/// stay the language's division, not a plain `idiv` that traps on 0.
#[test]
fn test_a_division_proved_safe_only_under_a_test_keeps_its_checks() {
    use chapter19::mach::{mach, Op};
    let src = "u8 v = arg == 5;
int r = 0;
for (int i = 0; i < 3; i++) {
  for (int j = 0; j < 2; j++) {
    r = r + (v ? arg / v : 1);
  }
  v = v + r;
}
return r;";
    let code = selected_x86(src);
    let g = &code.graph;
    let total = g
        .ids()
        .filter(|&n| !g.is_dead(n))
        .any(|n| mach(g, n).is_some_and(|m| m.op == Op::DivTotal));
    assert!(total, "{}", code.asm());
    assert_shows(&compile(src), 1, "2");
}

/// Fuzz seed 11465: a call that control never reaches has the value
/// `Top`, which a `var` widens to `Bot`; shifting that in the dead code
/// is no error while parsing (the code goes away), as it is not without
/// peepholes, where the dead code is not known to be dead.
#[test]
fn test_a_shift_of_a_dead_calls_value_is_no_error() {
    let src = "val m4 = { int a, int b -> };
if (arg != arg) {
  var v = m4(1, 2);
  for (int i = 0; i < 1; i++) v = v << 1;
  return v;
}
return 0;";
    assert_eq!(compile(src).print(), "Stop[ return 0; return 0; ]");
    let mut plain = CodeGen::new(src).without_peepholes();
    plain
        .parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .unwrap();
}

/// Fuzz seed 28624: the index's `0.0` (of `0 >= p.f2`) and the zero the
/// load of a new `flt` array folds to are one constant; killing the dead
/// offset killed it while it was the load's value, and the `+ 1` after
/// it was made an int Add of a dead node (`Cannot 'Add' 0.0f` once
/// optimized).
#[test]
fn test_a_loaded_constant_outlives_its_offset() {
    let src = "struct S0 { flt f2 = 1.5; };
val g0 = { int n1 -> };
S0 !p14 = new S0;
g0(arg);
flt[] !a17 = new flt[4];
p14.f2 = -0 + (a17[((0 >= p14.f2) * arg) & 3] + 1);";
    let code = compile(src);
    assert_eq!(code.print(), "return 1.0f;");
    assert_shows(&code, 3, "1.0");
}

/// Fuzz seeds 8721, 55199, 91897: a constructor in code that never runs
/// sets a field to the value of a call there, `Top`; the field was set
/// (only a field never set is `'S' is not fully initialized`), as the
/// same program without peepholes, which does not know the code is dead,
/// agrees.
#[test]
fn test_a_field_set_in_dead_code_is_set() {
    let src = "struct S { int f = arg + 1; };
val g = { int x -> return x; };
S !p = new S { f = 2; };
if (arg != arg) {
  S !q = new S { f = g(1); };
  return q.f;
}
return p.f + g(arg);";
    let code = compile(src);
    assert_eq!(code.print(), "return (arg+2);");
    let mut plain = CodeGen::new(src).without_peepholes();
    plain
        .parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .unwrap();
    // A field never set is still an error there.
    let unset = "struct T { int x; }; struct S { T f; int k; }; if (0) { S? s = new S { k = 1; }; } return 1;";
    let err = CodeGen::new(unset)
        .parse()
        .map(|_| ())
        .expect_err("f is never set");
    assert_eq!(
        err.to_string(),
        "'S' is not fully initialized, field 'f' needs to be set in a constructor"
    );
}
