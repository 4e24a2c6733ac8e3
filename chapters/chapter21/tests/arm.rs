//! Chapter 19 on AArch64 (`arm`, System V): instruction selection and the
//! legalizer's rules for ARM.
//!
//! Simple's chapter 19 has no ARM port; its chapters 20 and 21 do, and
//! their tests assert a few printed forms on ARM (`return (ori,arg);`,
//! `return (inc,Phi(Loop,0,inc));`, `return (add,.[],(mul,.[],1000));`),
//! which are checked here as they are. The programs of Simple's
//! `Chapter19Test` are compiled for ARM as the Java compiles them for x86
//! (`parse`, `opto`, `type_check`, `inst_select`, then `legalize`, `gcm`,
//! `local_sched`), and their printed forms, where Simple has none for ARM,
//! were checked by hand: ARM has no multiply by an immediate (`(mul,arg,6)`,
//! a power of two is a shift, `lsli`), names its immediate shifts after
//! the instructions (`lsli`, `asri`, `lsri`) and its conversion `cvt`.
//!
//! Every compiled program is also checked whole: each machine node is
//! legal by ARM's rules as it stands and its immediates fit its
//! instruction's bits, and the ideal graph, which the evaluator runs,
//! still computes what the program means. The listing (`asm`) is compared
//! line by line with the virtual register and label numbers left out.
//!
//! Then the rules themselves: one test per kind of rule, the minimum
//! rules, constants of 16, 32 and 64 bits into `movz`/`movn`/`movk`,
//! bitmask immediates (against an enumeration of all 5334 of them),
//! comparisons through the flags (against a model of NZCV), the calling
//! convention's registers.

use chapter21::cpu::arm;
use chapter21::cpu::arm::select::{
    add_imm, arith_imm, decode_logical_imm, disp_ok, is_logical_imm, logical_imm, moves,
    single_move,
};
use chapter21::mach::legalize::{describe, minimum_rules_hold, Action, Query};
use chapter21::mach::{mach, Cond, LType, Op, RegMask};
use chapter21::{CodeGen, NodeKind, Outcome};
use pretty_assertions::assert_eq;
use std::collections::BTreeSet;

/// The evaluator's budget of loop trips.
const LOOPS: usize = 1000;

/// Compiles `src` for ARM through local scheduling, and checks that every
/// machine node is legal and encodable.
#[track_caller]
fn arm(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select("arm", "SystemV"))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
    assert_all_legal(&code);
    code
}

/// Every live machine node of `code` is legal by ARM's rules with the
/// types it has, and its immediates fit.
#[track_caller]
fn assert_all_legal(code: &CodeGen) {
    let g = &code.graph;
    let rules = arm::legal::rules();
    for n in g.ids() {
        if g.is_dead(n) {
            continue;
        }
        let Some(m) = mach(g, n) else { continue };
        let q = Query::of(m);
        match rules.decide(q) {
            Ok((q2, Action::Legal)) if q2 == q => {}
            // A New stays itself, made a call of `calloc`.
            Ok((q2, Action::Libcall(name))) if q2 == q && m.libcall == Some(name) => {}
            other => panic!("node {} {}: {other:?}", n.nid(), describe(&q)),
        }
        if let Err(e) = arm::ops::check_encodable(g, n, m) {
            panic!("{e}");
        }
    }
}

/// The program compiled for ARM prints as `expected`.
#[track_caller]
fn assert_print(src: &str, expected: &str) -> CodeGen {
    let code = arm(src);
    assert_eq!(code.print(), expected);
    code
}

/// The ideal graph, run with `arg`, returns a value shown as `expected`.
#[track_caller]
fn assert_eval(code: &CodeGen, arg: i64, expected: &str) {
    match code.eval(arg, LOOPS) {
        Outcome::Value(v) => assert_eq!(v.to_string(), expected, "arg {arg}"),
        other => panic!("arg {arg}: {other:?}"),
    }
}

/// The listing, each line trimmed, with the numbers of virtual registers
/// and labels left out (`add v, v, #1`, `b.lt L ; else L`).
fn asm_lines(code: &CodeGen) -> Vec<String> {
    code.asm()
        .lines()
        .map(|l| {
            let mut out = String::new();
            let mut prev = ' ';
            let mut chars = l.trim().chars().peekable();
            while let Some(c) = chars.next() {
                out.push(c);
                let starts_name = !prev.is_alphanumeric() && prev != '#' && prev != '_';
                if (c == 'v' || c == 'L') && starts_name {
                    let mut digits = false;
                    while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                        chars.next();
                        digits = true;
                    }
                    if !digits {
                        prev = c;
                        continue;
                    }
                }
                prev = c;
            }
            out
        })
        .collect()
}

/// The listing has each of `lines`, in this order (others may come
/// between).
#[track_caller]
fn assert_asm(code: &CodeGen, lines: &[&str]) {
    let all = asm_lines(code);
    let mut at = 0;
    for want in lines {
        match all[at..].iter().position(|l| l == want) {
            Some(i) => at += i + 1,
            None => panic!("no {want:?} (in order) in\n{}", all.join("\n")),
        }
    }
}

/// The machine operations of the live nodes of `code`.
fn ops(code: &CodeGen) -> Vec<Op> {
    let g = &code.graph;
    g.ids()
        .filter(|&n| !g.is_dead(n))
        .filter_map(|n| mach(g, n).map(|m| m.op))
        .collect()
}

// ---------------------------------------------------------------------------
// Simple's Chapter19Test, on ARM.

#[test]
fn test_jig() {
    let code = assert_print("return 0;", "return 0;");
    assert_eval(&code, 2, "0");
}

/// Simple's program less its `equals`, which our type checker rejects
/// (`self.cs#` of a field that starts out null: "Might be null accessing
/// '#'"); `equals` is never called, and the rest is all inlined.
#[test]
fn test_string() {
    let code = assert_print(
        "
struct String {
    u8[] cs;
    int _hashCode;
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
        "return Phi(Region,123456789,Phi(Loop,0,(add,.[],(sub,(lsli,Phi_hash),Phi_hash))));",
    );
    // 123456789 is 0x75bcd15: two moves. The bytes at constant offsets
    // take the displacement (the body of a byte array is at offset 4).
    assert_asm(&code, &["strb v, [v, #4]", "strb v, [v, #5]"]);
    assert_asm(
        &code,
        &["movz v, #0xcd15", "movk v, #0x75b, lsl #16 ; v = v"],
    );
    // hash*31 is (hash<<5)-hash.
    assert_asm(
        &code,
        &[
            "lsl v, v, #5",
            "sub v, v, v",
            "ldrb v, [v, v]",
            "add v, v, v",
        ],
    );
    assert_eval(&code, 2, "-2449306563677080489");
}

#[test]
fn test_basic0() {
    let code = assert_print("return 0;", "return 0;");
    assert_eval(&code, 0, "0");
}

#[test]
fn test_basic1() {
    let code = assert_print("return arg+1;", "return (inc,arg);");
    assert_asm(&code, &["v = parm", "add v, v, #1", "ret"]);
    assert_eval(&code, 5, "6");
}

#[test]
fn test_basic2() {
    let code = assert_print("return -17;", "return -17;");
    // `movn` writes the inverse of its immediate: !16 is -17.
    assert_asm(&code, &["movn v, #0x10"]);
    assert_eval(&code, 5, "-17");
}

#[test]
fn test_basic3() {
    let code = assert_print("return arg==1;", "return (set==,(cmp,arg));");
    assert_asm(&code, &["cmp v, #1", "cset v, eq"]);
    assert_eval(&code, 1, "1");
    assert_eval(&code, 2, "0");
}

#[test]
fn test_basic4() {
    let code = assert_print("return arg<<1;", "return (lsli,arg);");
    assert_asm(&code, &["lsl v, v, #1"]);
    assert_eval(&code, 5, "10");
}

#[test]
fn test_basic5() {
    let code = assert_print("return arg >> 1;", "return (asri,arg);");
    assert_asm(&code, &["asr v, v, #1"]);
    assert_eval(&code, -5, "-3");
}

#[test]
fn test_basic6() {
    let code = assert_print("return arg >>> 1;", "return (lsri,arg);");
    assert_asm(&code, &["lsr v, v, #1"]);
    assert_eval(&code, -2, "9223372036854775807");
}

#[test]
fn test_basic7() {
    // A divisor of 2 is neither 0 nor -1: the plain division.
    let code = assert_print("return arg / 2;", "return (div,arg,2);");
    assert!(ops(&code).contains(&Op::Div));
    assert_asm(&code, &["movz v, #0x2", "sdiv v, v, v"]);
    assert_eval(&code, 7, "3");
    assert_eval(&code, -7, "-3");
}

#[test]
fn test_basic8() {
    // No multiply by an immediate: 6 in a register.
    let code = assert_print("return arg * 6;", "return (mul,arg,6);");
    assert_asm(&code, &["movz v, #0x6", "mul v, v, v"]);
    assert_eval(&code, 7, "42");
}

#[test]
fn test_basic9() {
    let code = assert_print("return arg & 2;", "return (andi,arg);");
    assert_asm(&code, &["and v, v, #0x2"]);
    assert_eval(&code, 7, "2");
}

#[test]
fn test_basic10() {
    let code = assert_print("return arg | 2;", "return (ori,arg);");
    assert_asm(&code, &["orr v, v, #0x2"]);
    assert_eval(&code, 5, "7");
}

#[test]
fn test_basic11() {
    let code = assert_print("return arg ^ 2;", "return (xori,arg);");
    assert_asm(&code, &["eor v, v, #0x2"]);
    assert_eval(&code, 7, "5");
}

#[test]
fn test_basic12() {
    let code = assert_print("return arg + 2.0;", "return (addf,(cvt,arg),2.0f);");
    assert_asm(&code, &["scvtf v, v", "fmov v, #2.0", "fadd v, v, v"]);
    assert_eval(&code, 1, "3.0");
}

#[test]
fn test_basic13() {
    let code = assert_print("return arg - 2.0;", "return (subf,(cvt,arg),2.0f);");
    assert_asm(&code, &["fsub v, v, v"]);
    assert_eval(&code, 1, "-1.0");
}

#[test]
fn test_basic14() {
    let code = assert_print("return arg * 2.0;", "return (mulf,(cvt,arg),2.0f);");
    assert_asm(&code, &["fmul v, v, v"]);
    assert_eval(&code, 3, "6.0");
}

#[test]
fn test_basic15() {
    let code = assert_print("return arg / 2.0;", "return (divf,(cvt,arg),2.0f);");
    assert_asm(&code, &["fdiv v, v, v"]);
    assert_eval(&code, 3, "1.5");
}

#[test]
fn test_basic16() {
    // The divisor may be 0 or -1: the language's total division, which
    // `sdiv` is already (x/0 == 0, MIN/-1 == MIN).
    let code = assert_print(
        "int arg1 =  arg + 1;\nreturn arg1 / arg;",
        "return (div,(inc,arg),arg);",
    );
    assert!(ops(&code).contains(&Op::DivTotal));
    assert_asm(&code, &["add v, v, #1", "sdiv v, v, v", "ret"]);
    assert_eval(&code, 3, "1");
    assert_eval(&code, 0, "0");
    assert_eval(&code, -1, "0");
}

#[test]
fn test_basic17() {
    let code = assert_print(
        "int arg1 =  arg + 1;\nreturn arg1 * arg;",
        "return (mul,(inc,arg),arg);",
    );
    assert_eval(&code, 3, "12");
}

#[test]
fn test_basic18() {
    let code = assert_print(
        "int arg1 =  arg + 1;\nreturn arg1 << arg;",
        "return (shl,(inc,arg),arg);",
    );
    // `lslv` takes the count modulo 64, as the language does.
    assert_asm(&code, &["lsl v, v, v"]);
    assert_eval(&code, 3, "32");
    assert_eval(&code, 65, "132");
}

#[test]
fn test_basic19() {
    let code = assert_print(
        "int arg1 =  arg + 1;\nreturn arg1 >> arg;",
        "return (sar,(inc,arg),arg);",
    );
    assert_asm(&code, &["asr v, v, v"]);
    assert_eval(&code, 2, "0");
    assert_eval(&code, -9, "-1");
}

#[test]
fn test_basic20() {
    let code = assert_print(
        "int arg1 =  arg + 1;\nreturn arg1 >>> arg;",
        "return (shr,(inc,arg),arg);",
    );
    assert_asm(&code, &["lsr v, v, v"]);
    assert_eval(&code, 1, "1");
}

#[test]
fn test_to_float() {
    let code = assert_print(
        "int a = arg;\nreturn a + 2.0;",
        "return (addf,(cvt,arg),2.0f);",
    );
    assert_eval(&code, 2, "4.0");
}

#[test]
fn test_if_stmt() {
    let code = assert_print(
        "int a = 1;\nif (arg == 1)\n    a = arg+2;\nelse {\n    a = arg-3;\n}\nreturn a;",
        "return Phi(Region,(addi,arg),(addi,arg));",
    );
    // `arg-3` is an add of -3: a `sub` of 3.
    assert_asm(&code, &["cmp v, #1", "b.eq L ; else L"]);
    assert!(asm_lines(&code).contains(&"sub v, v, #3".to_string()));
    assert!(asm_lines(&code).contains(&"add v, v, #2".to_string()));
    assert_eval(&code, 1, "3");
    assert_eval(&code, 5, "2");
}

#[test]
fn test_if_merge2() {
    let code = assert_print(
        "int a=arg+1;\nint b=arg+2;\nif( arg==1 )\n    b=b+a;\nelse\n    a=b+1;\nreturn a+b;",
        "return (add,(add,Phi(Region,(lsli,arg),arg),arg),Phi(Region,4,5));",
    );
    assert_eval(&code, 1, "7");
    assert_eval(&code, 5, "15");
}

#[test]
fn test_loop() {
    let code = assert_print(
        "int sum=0;\nfor( int i=0; i<arg; i++ )\n    sum += i;\nreturn sum;",
        "return Phi(Loop,0,(add,Phi_sum,Phi(Loop,0,(inc,Phi_i))));",
    );
    assert_asm(
        &code,
        &["cmp v, v", "b.lt L ; else L", "add v, v, v", "add v, v, #1"],
    );
    assert_eval(&code, 10, "45");
}

#[test]
fn test_alloc1() {
    let code = assert_print("struct S { int a; S? c; };\nreturn new S;", "return S;");
    // calloc(1, 16): the size in x1, the count set by the call's code.
    assert_asm(&code, &["movz v, #0x10", "mov x0, #1; bl calloc"]);
    assert_eval(&code, 0, "S{a=0,c=null}");
}

#[test]
fn test_lea1() {
    // ARM has no three-operand address arithmetic: an add and an add.
    let code = assert_print(
        "int x = arg/3; return arg+x+7;",
        "return (addi,(add,arg,(div,arg,3)));",
    );
    assert_eval(&code, 9, "19");
}

#[test]
fn test_lea2() {
    let code = assert_print(
        "int x = arg/3; return arg+x*4+7;",
        "return (addi,(add,arg,(lsli,(div,arg,3))));",
    );
    assert_eval(&code, 9, "28");
}

#[test]
fn test_lea3() {
    let code = assert_print(
        "int x = arg/3; return x*4+arg;",
        "return (add,arg,(lsli,(div,arg,3)));",
    );
    assert_eval(&code, 9, "21");
}

#[test]
fn test_alloc2() {
    let code = assert_print(
        "int[] !xs = new int[3]; xs[arg]=1; return xs[arg&1];",
        "return .[];",
    );
    // An element: the header added to the base, the index shifted by the
    // access size.
    assert_asm(
        &code,
        &[
            "and v, v, #0x1",
            "add v, v, #8",
            "str v, [v, v, lsl #3]",
            "ldr v, [v, v, lsl #3]",
        ],
    );
    assert_eval(&code, 1, "1");
    assert_eval(&code, 2, "0");
}

#[test]
fn test_alloc3() {
    let code = assert_print(
        "int[] !xs = new int[3]; xs[arg]=1; return xs[arg&1]+3;",
        "return (addi,.[]);",
    );
    assert_eval(&code, 1, "4");
    assert_eval(&code, 2, "3");
}

const ARRAY1: &str = "
int[] !ary = new int[arg];
// Fill [0,1,2,3,4,...]
for( int i=0; i<ary#; i++ )
    ary[i] = i;
// Fill [0,1,3,6,10,...]
for( int i=0; i<ary#-1; i++ )
    ary[i+1] += ary[i];
return ary[1] * 1000 + ary[3]; // 1 * 1000 + 6
";

#[test]
fn test_array1() {
    // Simple's chapter 20 and 21 tests print this on ARM.
    let code = assert_print(ARRAY1, "return (add,.[],(mul,.[],1000));");
    // Fields at constant offsets use the displacement.
    assert_asm(
        &code,
        &[
            "ldr v, [v, #16]",
            "movz v, #0x3e8",
            "mul v, v, v",
            "ldr v, [v, #32]",
        ],
    );
    assert_eval(&code, 10, "1006");
}

#[test]
fn test_array2() {
    let code = assert_print(
        "
flt[] !A = new flt[arg], !B = new flt[arg];
// Fill [0,1,2,3,4,...]
for( int i=0; i<A#; i++ )
    A[i] = i;
for( int i=0; i<A#; i++ )
    B[i] += A[i];
",
        "return 0;",
    );
    assert_asm(&code, &["scvtf v, v", "str v, [v, v, lsl #3]"]);
    assert_eval(&code, 10, "0");
}

#[test]
fn test_array3() {
    let code = assert_print(
        "
byte[] !A = new byte[arg];
for( int i=0; i<A#; i++ )
    A[i]++;
return A[1];
",
        "return .[];",
    );
    // Bytes: loaded and stored one byte wide, the index unshifted.
    // (An array of bytes has its body at offset 4, after its u32 length;
    // the store of a byte needs no mask.)
    assert_asm(&code, &["ldrb v, [v, #5]"]);
    assert_asm(&code, &["ldrb v, [v, v]", "add v, v, #1", "strb v, [v, v]"]);
    assert_eval(&code, 3, "1");
}

#[test]
fn test_newton() {
    let code = assert_print(
        "
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
",
        "return Phi(Loop,(cvt,arg),(divf,(addf,(divf,cvt,Phi_guess),Phi_guess),2.0f));",
    );
    assert_asm(
        &code,
        &[
            "fdiv v, v, v",
            "fadd v, v, v",
            "fdiv v, v, v",
            "fcmp v, v",
            "b.eq L ; else L",
        ],
    );
    assert_eval(&code, 4, "2.0");
}

#[test]
fn sieve_of_eratosthenes() {
    let code = assert_print(
        "
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
",
        "return [int];",
    );
    assert_eval(&code, 20, "int[ 2,3,5,7,11,13,17,19]");
}

#[test]
fn test_fcn1() {
    let code = assert_print(
        "
val fcn = arg ? { int x -> x*x; } : { int x -> x+x; };
return fcn(2)*10 + fcn(3);
",
        "Stop[ return (add,Phi(Region,{ int -> int #1},{ int -> int #2})( 3),(mul,Phi_( 2),10)); return (mul,Parm_x($fun,int,2,3),x); return (lsli,Parm_x($fun,int,2,3)); ]",
    );
    // Calls through a register: `blr`.
    assert_asm(&code, &["blr v", "blr v"]);
    assert_eval(&code, 0, "46");
    assert_eval(&code, 1, "49");
}

#[test]
fn test_fcn2() {
    let code = assert_print(
        "
val sq = { int x -> x*x; };
return sq(arg) + sq(3);
",
        "Stop[ return (add,sq(),sq()); return (mul,Parm_x(sq,int,3,arg),x); ]",
    );
    assert_asm(&code, &["bl sq", "bl sq"]);
    assert_eval(&code, 4, "25");
}

// ---------------------------------------------------------------------------
// ARM's printed forms in Simple's chapter 20 and 21 tests.

#[test]
fn test_alloc0() {
    let code = assert_print("return new u8[arg];", "return [u8];");
    assert_eval(&code, 2, "\0\0");
}

#[test]
fn test_loop2() {
    let code = assert_print(
        "
int i = 0;
while(true) {
    i += 1;
    if( i==0 ) continue;
    if( i==1 ) continue;
    if( i==2 ) break;
    continue;
}
return i;
",
        "return (inc,Phi(Loop,0,inc));",
    );
    assert_eval(&code, 0, "2");
}

#[test]
fn test_flags1() {
    let code = assert_print(
        "
bool b1 = arg == 1;
bool b2 = arg == 2;
if (b2) if (b1) return 1;
if (b1) return 2;
return 0;
",
        "return Phi(Region,1,2,0);",
    );
    assert_eval(&code, 1, "2");
    assert_eval(&code, 2, "0");
    assert_eval(&code, 3, "0");
}

#[test]
fn test_flags2() {
    let code = assert_print(
        "
bool b1 = arg == 1;
while (arg > 0) {
    arg--;
    if (b1) arg--;
}
return arg;
",
        "return Phi(Loop,arg,(add,Phi_arg,Phi(Region,-2,-1)));",
    );
    assert_eval(&code, 5, "0");
    assert_eval(&code, 1, "-1");
}

#[test]
fn test_infinite() {
    let code = assert_print(
        "struct S { int i; }; S !s = new S; while(1) s.i++;",
        "return Top;",
    );
    assert_eq!(code.eval(0, LOOPS), Outcome::Timeout);
}

#[test]
fn test_cast() {
    let code = assert_print(
        "struct Bar { int x; }; var b = arg ? new Bar;  return b ? b.x++ + b.x++ : -1;",
        "return Phi(Region,(inc,(lsli,.x)),-1);",
    );
    assert_eval(&code, 1, "1");
    assert_eval(&code, 0, "-1");
}

#[test]
fn test_flt_arg() {
    let code = assert_print(
        "return {int i, flt f, int j->return i+f+j;};",
        "Stop[ return { int flt int -> flt #0}; return (addf,(addf,(cvt,Parm_i($fun,int)),Parm_f($fun,flt)),(cvt,Parm_j($fun,int))); ]",
    );
    assert_asm(&code, &["adr v, fn0"]);
    // i and j in x0 and x1, f in d0: the kinds are counted apart.
    let g = &code.graph;
    let mut parms: Vec<(String, Option<RegMask>)> = g
        .ids()
        .filter(|&n| !g.is_dead(n))
        .filter_map(|n| {
            let m = mach(g, n)?;
            let NodeKind::Phi {
                label,
                parm: Some(_),
                ..
            } = &m.role
            else {
                return None;
            };
            Some((label.to_string(), arm::ops::out_mask(g, n, m)))
        })
        .collect();
    parms.sort_by(|a, b| a.0.cmp(&b.0));
    let reg = |r: u8| Some(RegMask::of(r));
    assert!(parms.contains(&("i".into(), reg(arm::X0))), "{parms:?}");
    assert!(parms.contains(&("j".into(), reg(arm::X1))), "{parms:?}");
    assert!(parms.contains(&("f".into(), reg(arm::D0))), "{parms:?}");
    assert!(parms.contains(&("$rpc".into(), reg(arm::X30))), "{parms:?}");
}

#[test]
fn test_anti_deps1() {
    let code = assert_print(
        "
struct S { int f; };
var v0 = new S;
S? v1;
if (arg) v1 = new S;
if (v1) {
    v0.f = v1.f;
} else {
    v0.f = 2;
}
return v0;
",
        "return S;",
    );
    assert_eval(&code, 1, "S{f=0}");
    assert_eval(&code, 0, "S{f=2}");
}

// ---------------------------------------------------------------------------
// The legalizer's rules, one kind at a time.

/// What ARM's rules decide for `op` with types `ty0`, `ty1`.
fn decide(op: Op, ty0: LType, ty1: LType) -> Result<(Query, Action), String> {
    let q = Query {
        op,
        ty: [ty0, ty1],
        mem_size: 0,
    };
    arm::legal::rules().decide(q)
}

/// The rules decide `action` for `op` with types `ty0`, `ty1`, changing
/// no type.
#[track_caller]
fn assert_action(op: Op, ty0: LType, ty1: LType, action: Action) {
    match decide(op, ty0, ty1) {
        Ok((q, a)) => {
            assert_eq!(a, action, "{}", describe(&q));
            assert_eq!(q.ty, [ty0, ty1], "{}", describe(&q));
        }
        Err(e) => panic!("{op:?}: {e}"),
    }
}

/// The program after selection only, and after legalization too.
fn selected_and_legal(src: &str) -> (CodeGen, CodeGen) {
    let select = |legal: bool| {
        let mut code = CodeGen::new(src);
        code.parse()
            .and_then(|c| c.opto())
            .and_then(|c| c.type_check())
            .and_then(|c| c.inst_select("arm", "SystemV"))
            .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
        if legal {
            code.legalize().unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
        }
        code
    };
    (select(false), select(true))
}

#[test]
fn minimum_rules() {
    assert_eq!(minimum_rules_hold(&arm::legal::rules()), Ok(()));
    // Trunc and AnyExt between every pair of widths, both ways round.
    for a in LType::INTS {
        for b in LType::INTS {
            assert_action(Op::Trunc, a, b, Action::Legal);
            assert_action(Op::AnyExt, a, b, Action::Legal);
        }
    }
}

#[test]
fn rules_legal() {
    use LType::*;
    for op in [
        Op::Add,
        Op::AddI,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::And,
        Op::OrI,
        Op::SarI,
        Op::Shr,
    ] {
        assert_action(op, S64, S64, Action::Legal);
        assert_action(op, Ptr, Ptr, Action::Legal);
    }
    // `sdiv` gives x/0 == 0 and MIN/-1 == MIN: nothing to do (x86 must).
    assert_action(Op::DivTotal, S64, S64, Action::Legal);
    assert_eq!(
        chapter21::cpu::rules(chapter21::mach::Cpu::X86_64)
            .decide(Query {
                op: Op::DivTotal,
                ty: [S64, S64],
                mem_size: 0
            })
            .map(|(_, a)| a),
        Ok(Action::Custom)
    );
    // One instruction each: sxtb, sxth, sxtw; uxtb, uxth, a 32-bit mov.
    for from in [S8, S16, S32] {
        assert_action(Op::SExt, S64, from, Action::Legal);
        assert_action(Op::ZExt, S64, from, Action::Legal);
    }
    assert!(decide(Op::SExt, S64, S64).is_err());
    // Constants one move makes; float constants (fmov, or a literal
    // pool); null.
    assert_action(Op::Int, S8, S8, Action::Legal);
    assert_action(Op::Int, S16, S16, Action::Legal);
    assert_action(Op::Int, Ptr, Ptr, Action::Legal);
    assert_action(Op::Flt, F64, F64, Action::Legal);
    assert_action(Op::MovK, S64, S64, Action::Legal);
    for c in [Cond::Lt, Cond::ULe] {
        assert_action(Op::Jcc(c), S64, S64, Action::Legal);
    }
    assert_action(Op::Cmp, S64, S64, Action::Legal);
    assert_action(Op::FCmp, S64, F64, Action::Legal);
}

#[test]
fn rules_widen_scalar() {
    // `cset` writes the whole register: its truth value is widened.
    assert_eq!(
        decide(Op::Set(Cond::Eq), LType::S1, LType::S1),
        Ok((
            Query {
                op: Op::Set(Cond::Eq),
                ty: [LType::S64, LType::S1],
                mem_size: 0
            },
            Action::Legal
        ))
    );
    let (_, code) = selected_and_legal("return arg < 3;");
    let stats = code.legalized.clone().expect("legalized");
    assert_eq!(stats.retyped, 1, "{stats:?}");
    assert_eval(&code, 2, "1");
}

#[test]
fn rules_lower() {
    use LType::*;
    for op in [
        Op::CmpSet(Cond::Lt),
        Op::CmpSetI(Cond::Eq),
        Op::FCmpSet(Cond::Le),
        Op::Branch(Cond::Ne),
        Op::MulI,
        Op::StoreI,
    ] {
        assert_action(op, S64, S64, Action::Lower);
    }
    // A comparison giving 0 or 1 becomes a compare and a `cset`; a branch
    // a compare and a `b.cond`.
    let (sel, code) = selected_and_legal("if (arg < 3) return arg == 7; return 2;");
    assert!(
        ops(&sel).contains(&Op::CmpSetI(Cond::Eq)),
        "{:?}",
        ops(&sel)
    );
    assert!(ops(&sel).contains(&Op::Branch(Cond::Lt)), "{:?}", ops(&sel));
    let after = ops(&code);
    assert!(
        after.contains(&Op::Set(Cond::Eq)) && after.contains(&Op::Jcc(Cond::Lt)),
        "{after:?}"
    );
    assert!(after
        .iter()
        .all(|o| !matches!(o, Op::CmpSet(_) | Op::CmpSetI(_) | Op::Branch(_))));
    assert_eq!(
        after.iter().filter(|&&o| o == Op::CmpI).count(),
        2,
        "{after:?}"
    );
    assert_eq!(code.legalized.clone().expect("legalized").lowered, 2);
    assert_eval(&code, 7, "2");
    assert_eval(&code, 2, "0");
}

#[test]
fn rules_custom() {
    // The rules cannot see a constant's value, only its width: the
    // rewrite looks.
    assert_action(Op::Int, LType::S32, LType::S32, Action::Custom);
    assert_action(Op::Int, LType::S64, LType::S64, Action::Custom);
    let (_, code) = selected_and_legal("return 305419896;");
    assert_eq!(code.legalized.clone().expect("legalized").custom, 1);
    assert_eval(&code, 0, "305419896");
}

#[test]
fn rules_libcall() {
    assert_action(Op::New, LType::Ptr, LType::Ptr, Action::Libcall("calloc"));
    let code = arm("struct S { int a; }; return new S;");
    assert_eq!(code.legalized.clone().expect("legalized").libcalls, 1);
    assert_eval(&code, 0, "S{a=0}");
    let g = &code.graph;
    let new = g
        .ids()
        .find(|&n| !g.is_dead(n) && mach(g, n).is_some_and(|m| m.op == Op::New))
        .expect("a New");
    let m = mach(g, new).expect("a machine node");
    assert_eq!(m.libcall, Some("calloc"));
    // calloc(1, size): the size in x1, the object back in x0; a call
    // changes the caller-saved registers.
    assert_eq!(arm::ops::in_mask(g, new, m, 1), Some(RegMask::of(1)));
    assert_eq!(arm::ops::out_mask(g, new, m), Some(RegMask::of(arm::X0)));
    assert_eq!(arm::ops::kill_mask(m), Some(arm::caller_saved()));
}

#[test]
fn rules_unsupported() {
    // x86's address arithmetic and memory operands, RISC-V's `lui`.
    for op in [
        Op::Lea,
        Op::Lui,
        Op::AddMem,
        Op::FAddMem,
        Op::CmpMem,
        Op::MemAdd,
    ] {
        assert_eq!(
            decide(op, LType::S64, LType::S64),
            Err(format!("arm cannot do {op:?} s64"))
        );
    }
    // A rule list that runs out: a 3-byte load.
    let q = Query {
        op: Op::Load,
        ty: [LType::S64, LType::S64],
        mem_size: 3,
    };
    assert_eq!(
        arm::legal::rules().decide(q),
        Err("arm cannot do Load s64 (3 bytes)".to_string())
    );
}

// ---------------------------------------------------------------------------
// Constants: 16, 32 and 64 bits.

/// The value the constant chain ending at `n` leaves in its register:
/// the first move's, then each `movk`'s 16 bits put in place.
fn chain_value(code: &CodeGen, n: chapter21::NodeId) -> i64 {
    let g = &code.graph;
    let m = mach(g, n).expect("a machine node");
    match m.op {
        Op::Int => {
            assert!(single_move(m.imm), "{:#x}", m.imm);
            m.imm
        }
        Op::MovK => {
            assert!(matches!(m.scale, 16 | 32 | 48) && (0..=0xFFFF).contains(&m.imm));
            // Two-address: the register of input 1.
            assert_eq!(arm::ops::two_address(m), Some(1));
            let below = chain_value(code, g.in_(n, 1)) as u64;
            ((below & !(0xFFFFu64 << m.scale)) | ((m.imm as u64) << m.scale)) as i64
        }
        op => panic!("{op:?} in a constant"),
    }
}

/// `return v;` for ARM: the value the machine code makes, how many
/// `movk`s, and the listing.
#[track_caller]
fn constant(v: i64) -> (i64, usize, Vec<String>) {
    constant_of(&format!("return {v};"), v)
}

/// [`constant`] of a program that returns `v`.
#[track_caller]
fn constant_of(src: &str, v: i64) -> (i64, usize, Vec<String>) {
    let code = assert_print(src, &format!("return {v};"));
    assert_eval(&code, 0, &v.to_string());
    let g = &code.graph;
    let ret = g
        .ids()
        .find(|&n| !g.is_dead(n) && mach(g, n).is_some_and(|m| m.op == Op::Ret))
        .expect("a return");
    let made = chain_value(&code, g.in_(ret, 2));
    let movks = ops(&code).iter().filter(|&&o| o == Op::MovK).count();
    (made, movks, asm_lines(&code))
}

#[test]
fn constants_16_bits() {
    // One `movz` or `movn`, legal as selected.
    for v in [0, 1, 1000, 32767, -1, -1000, -32768] {
        let (made, movks, _) = constant(v);
        assert_eq!((made, movks), (v, 0));
    }
    let (_, _, asm) = constant(1000);
    assert!(asm.contains(&"movz v, #0x3e8".into()), "{asm:?}");
    let (_, _, asm) = constant(-1000);
    assert!(asm.contains(&"movn v, #0x3e7".into()), "{asm:?}");
    let (_, code) = selected_and_legal("return 1000;");
    assert_eq!(code.legalized.clone().expect("legalized").custom, 0);
}

#[test]
fn constants_32_bits() {
    // One move, shifted or not.
    for (v, line) in [
        (65535, "movz v, #0xffff"),
        (65536, "movz v, #0x1, lsl #16"),
        (-65536, "movn v, #0xffff"),
        (0x7FFF_0000, "movz v, #0x7fff, lsl #16"),
    ] {
        let (made, movks, asm) = constant(v);
        assert_eq!((made, movks), (v, 0));
        assert!(asm.contains(&line.to_string()), "{asm:?}");
    }
    // Two: 0x12345678.
    let (made, movks, asm) = constant(0x1234_5678);
    assert_eq!((made, movks), (0x1234_5678, 1));
    let lines = ["movz v, #0x5678", "movk v, #0x1234, lsl #16 ; v = v"];
    assert!(asm.windows(2).any(|w| w == lines), "{asm:?}");
    // -0x12345678 is mostly ones: `movn` first.
    let (made, movks, asm) = constant(-0x1234_5678);
    assert_eq!((made, movks), (-0x1234_5678, 1));
    assert!(asm.contains(&"movn v, #0x5677".to_string()), "{asm:?}");
}

#[test]
fn constants_64_bits() {
    let v = 0x1234_5678_9ABC_DEF0;
    let (made, movks, asm) = constant(v);
    assert_eq!((made, movks), (v, 3));
    let lines = [
        "movz v, #0xdef0",
        "movk v, #0x9abc, lsl #16 ; v = v",
        "movk v, #0x5678, lsl #32 ; v = v",
        "movk v, #0x1234, lsl #48 ; v = v",
    ];
    assert!(asm.windows(4).any(|w| w == lines), "{asm:?}");
    // Chunks of zeros are skipped: 0x0000_1234_0000_5678.
    let (made, movks, asm) = constant(0x1234_0000_5678);
    assert_eq!((made, movks), (0x1234_0000_5678, 1));
    assert!(
        asm.contains(&"movk v, #0x1234, lsl #32 ; v = v".to_string()),
        "{asm:?}"
    );
    // Mostly ones: `movn`, the chunks of ones skipped.
    let v = -0x1_2345_6789;
    let (made, movks, asm) = constant(v);
    assert_eq!((made, movks), (v, 2));
    assert!(asm.contains(&"movn v, #0x6788".to_string()), "{asm:?}");
    // A bitmask immediate: one `orr` from the zero register.
    let v = 0x5555_5555_5555_5555;
    let (made, movks, asm) = constant(v);
    assert_eq!((made, movks), (v, 0));
    assert!(
        asm.contains(&"orr v, xzr, #0x5555555555555555".to_string()),
        "{asm:?}"
    );
    // The extremes.
    for v in [i64::MAX, i64::MIN + 1, 0x7FFF_FFFF_FFFF_0000] {
        let (made, _, _) = constant(v);
        assert_eq!(made, v);
    }
    let (made, movks, asm) = constant_of("return -9223372036854775807-1;", i64::MIN);
    assert_eq!((made, movks), (i64::MIN, 0));
    assert!(
        asm.contains(&"movz v, #0x8000, lsl #48".to_string()),
        "{asm:?}"
    );
}

#[test]
fn constant_moves() {
    assert_eq!(moves(0), 1);
    assert_eq!(moves(-1), 1);
    assert_eq!(moves(0xFFFF_0000), 1);
    assert_eq!(moves(0xFFFF_0000_FFFF_0000_u64 as i64), 1); // a bitmask
    assert_eq!(moves(0x1234_5678), 2);
    assert_eq!(moves(0x1234_0000_5678), 2);
    assert_eq!(moves(0x1234_5678_9ABC_DEF0), 4);
    assert_eq!(moves(-0x1_2345_6789), 3);
    assert_eq!(moves(0x1234_5678_9ABC_0000), 3);
}

// ---------------------------------------------------------------------------
// Immediates.

#[test]
fn arithmetic_immediates() {
    for v in [0, 1, 4095, 4096, 0x1000 * 4095, 0x123000] {
        assert!(arith_imm(v), "{v:#x}");
        assert!(add_imm(v) && add_imm(-v), "{v:#x}");
    }
    for v in [4097, 0x1000001, 0x1000000, -1, 0x123001] {
        assert!(!arith_imm(v), "{v:#x}");
    }
    assert!(!add_imm(i64::MIN) && !add_imm(4097) && !add_imm(-4097));
    // An add of a constant too wide is an add of a register.
    let code = assert_print("return arg + 4097;", "return (add,arg,4097);");
    assert_asm(&code, &["movz v, #0x1001", "add v, v, v"]);
    assert_eval(&code, 1, "4098");
    let code = assert_print("return arg + 8192;", "return (addi,arg);");
    assert_asm(&code, &["add v, v, #2, lsl #12"]);
    assert_eval(&code, 1, "8193");
    let code = assert_print("return arg - 4095;", "return (addi,arg);");
    assert_asm(&code, &["sub v, v, #4095"]);
    assert_eval(&code, 1, "-4094");
}

#[test]
fn memory_displacements() {
    assert!(disp_ok(0, 8) && disp_ok(8, 8) && disp_ok(4095 * 8, 8));
    assert!(!disp_ok(4096 * 8, 8));
    // Unscaled, signed 9 bits.
    assert!(disp_ok(12, 8) && disp_ok(-8, 8) && disp_ok(255, 8) && disp_ok(-256, 1));
    assert!(!disp_ok(300, 8) && !disp_ok(-257, 1));
    assert!(disp_ok(4095, 1) && !disp_ok(4096, 1));
    // An element at a constant offset too far: the offset in a register.
    let code = assert_print(
        "val get = { int[] a -> a[5000]; }; int[] !a = new int[arg]; a[5000] = arg; return get(a) + get(a);",
        "Stop[ return (add,get(),get()); return .[]; ]",
    );
    // 8 + 5000*8 = 40008 = 0x9c48, in a register.
    assert_asm(&code, &["ldr v, [v, v]"]);
    assert_asm(&code, &["str v, [v, v]"]);
    let g = &code.graph;
    let mut far = 0;
    for n in g.ids().filter(|&n| !g.is_dead(n)) {
        let Some(m) = mach(g, n) else { continue };
        let idx = match m.op {
            Op::Load => g.input(n, 3),
            Op::Store if matches!(&m.role, NodeKind::Store { name, .. } if &**name == "[]") => {
                g.input(n, 4)
            }
            _ => continue,
        };
        let idx = idx.expect("the offset in a register");
        assert_eq!(mach(g, idx).map(|k| (k.op, k.imm)), Some((Op::Int, 40008)));
        assert_eq!((m.imm, m.scale), (0, 0));
        far += 1;
    }
    assert_eq!(far, 2);
    assert_eval(&code, 6000, "12000");
}

/// Every bitmask immediate, made as the architecture defines them: an
/// element of 2 to 64 bits holding a run of 1 to size-1 ones, rotated,
/// repeated.
fn all_bitmasks() -> BTreeSet<u64> {
    let mut all = BTreeSet::new();
    for size in [2u32, 4, 8, 16, 32, 64] {
        let mask = if size == 64 {
            u64::MAX
        } else {
            (1u64 << size) - 1
        };
        for ones in 1..size {
            let run = (1u64 << ones) - 1;
            for rot in 0..size {
                let elt = if rot == 0 {
                    run
                } else {
                    ((run >> rot) | (run << (size - rot))) & mask
                };
                let mut v = 0u64;
                for k in 0..64 / size {
                    v |= elt << (k * size);
                }
                all.insert(v);
            }
        }
    }
    all
}

#[test]
fn logical_immediates_known() {
    let yes: [u64; 20] = [
        2,
        0xFF,
        0xFFFF,
        0xFFFF_FFFF,
        0x5555_5555_5555_5555,
        0xAAAA_AAAA_AAAA_AAAA,
        0x0F0F_0F0F_0F0F_0F0F,
        0xF0F0_F0F0_F0F0_F0F0,
        0x8000_0000_0000_0001,
        0x8000_0000_0000_0000,
        0x7FFF_FFFF_FFFF_FFFF,
        0xFFFF_FFFF_FFFF_FFFE,
        0x0000_FFFF_0000_FFFF,
        0xFFFF_0000_FFFF_0000,
        0x1111_1111_1111_1111,
        0x0101_0101_0101_0101,
        0x0000_0001_0000_0001,
        0x3FFC,
        0xFFFF_FFFF_FFFF_0000,
        0x8181_8181_8181_8181,
    ];
    for v in yes {
        assert!(is_logical_imm(v as i64), "{v:#x}");
    }
    let no: [u64; 10] = [
        0,
        u64::MAX,
        0x1234,
        5,
        0xFF00_FF00_FF00_FF01,
        0x5555_5555_5555_5554,
        0x00FF_00FF_00FF_00FE,
        0x8000_0000_0000_0002,
        0x0000_0001_0000_0002,
        0x0F0F_0F0F_0F0F_0F0E,
    ];
    for v in no {
        assert!(!is_logical_imm(v as i64), "{v:#x}");
    }
    // The fields, as an assembler encodes them (N, immr, imms).
    assert_eq!(logical_imm(0xFF), Some((1, 0, 7)));
    assert_eq!(logical_imm(2), Some((1, 63, 0)));
    assert_eq!(logical_imm(0x5555_5555_5555_5555), Some((0, 0, 0b11_1100)));
    assert_eq!(logical_imm(0xAAAA_AAAA_AAAA_AAAA), Some((0, 1, 0b11_1100)));
    assert_eq!(logical_imm(0xFFFF_0000_FFFF_0000), Some((0, 16, 0b00_1111)));
    assert_eq!(logical_imm(0x8000_0000_0000_0001), Some((1, 1, 1)));
    assert_eq!(logical_imm(0x0F0F_0F0F_0F0F_0F0F), Some((0, 0, 0b11_0011)));
}

#[test]
fn logical_immediates_all() {
    let all = all_bitmasks();
    assert_eq!(all.len(), 5334);
    for &v in &all {
        let (n, immr, imms) = logical_imm(v).unwrap_or_else(|| panic!("{v:#x}"));
        assert_eq!(decode_logical_imm(n, immr, imms), Some(v), "{v:#x}");
    }
    // Every field combination decodes to one of them, or is reserved.
    let mut decoded = BTreeSet::new();
    for n in 0..2 {
        for immr in 0..64 {
            for imms in 0..64 {
                if let Some(v) = decode_logical_imm(n, immr, imms) {
                    assert!(all.contains(&v), "{n} {immr} {imms}: {v:#x}");
                    decoded.insert(v);
                }
            }
        }
    }
    assert_eq!(decoded, all);
    // Values near them, and pseudo-random ones, are accepted exactly when
    // they are one.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut tried = 0;
    for &v in &all {
        for w in [
            v ^ 1,
            v ^ (1 << 63),
            v.wrapping_add(1),
            v.rotate_left(7) ^ 0x10,
        ] {
            assert_eq!(is_logical_imm(w as i64), all.contains(&w), "{w:#x}");
            tried += 1;
        }
    }
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        assert_eq!(is_logical_imm(x as i64), all.contains(&x), "{x:#x}");
        tried += 1;
    }
    assert!(tried > 100_000);
}

#[test]
fn logical_immediates_in_code() {
    // Each of `&`, `|`, `^` takes a bitmask immediate, and no other.
    let code = assert_print("return arg & 1085102592571150095;", "return (andi,arg);");
    assert_asm(&code, &["and v, v, #0xf0f0f0f0f0f0f0f"]);
    assert_eval(&code, 0x1FF, "271");
    let code = assert_print("return arg | -6148914691236517206;", "return (ori,arg);");
    assert_asm(&code, &["orr v, v, #0xaaaaaaaaaaaaaaaa"]);
    assert_eval(&code, 1, "-6148914691236517205");
    let code = assert_print("return arg ^ 5;", "return (xor,arg,5);");
    assert_asm(&code, &["movz v, #0x5", "eor v, v, v"]);
    assert_eval(&code, 1, "4");
    let code = assert_print("return arg & 4660;", "return (and,arg,4660);");
    assert_asm(&code, &["movz v, #0x1234", "and v, v, v"]);
    assert_eval(&code, 0xFFFF, "4660");
}

// ---------------------------------------------------------------------------
// Comparisons through the flags.

/// NZCV as a flag-setting compare leaves them.
#[derive(Copy, Clone, Debug)]
struct Nzcv {
    n: bool,
    z: bool,
    c: bool,
    v: bool,
}

/// `cmp a, b` (a `subs`).
fn cmp_flags(a: i64, b: i64) -> Nzcv {
    let r = a.wrapping_sub(b);
    Nzcv {
        n: r < 0,
        z: r == 0,
        c: (a as u64) >= (b as u64),
        v: ((a ^ b) & (a ^ r)) < 0,
    }
}

/// `fcmp a, b`: less 1000, equal 0110, greater 0010, unordered 0011.
fn fcmp_flags(a: f64, b: f64) -> Nzcv {
    let f = |n, z, c, v| Nzcv { n, z, c, v };
    if a.is_nan() || b.is_nan() {
        f(false, false, true, true)
    } else if a < b {
        f(true, false, false, false)
    } else if a == b {
        f(false, true, true, false)
    } else {
        f(false, false, true, false)
    }
}

/// Whether condition code `cc` holds on `f`, as the architecture defines
/// each.
fn holds(cc: &str, f: Nzcv) -> bool {
    match cc {
        "eq" => f.z,
        "ne" => !f.z,
        "hs" => f.c,
        "lo" => !f.c,
        "mi" => f.n,
        "pl" => !f.n,
        "vs" => f.v,
        "vc" => !f.v,
        "hi" => f.c && !f.z,
        "ls" => !f.c || f.z,
        "ge" => f.n == f.v,
        "lt" => f.n != f.v,
        "gt" => !f.z && f.n == f.v,
        "le" => f.z || f.n != f.v,
        _ => panic!("no condition code {cc}"),
    }
}

const CONDS: [Cond; 10] = [
    Cond::Eq,
    Cond::Ne,
    Cond::Lt,
    Cond::Le,
    Cond::Gt,
    Cond::Ge,
    Cond::ULt,
    Cond::ULe,
    Cond::UGt,
    Cond::UGe,
];

#[test]
fn integer_conditions() {
    let vals = [
        i64::MIN,
        i64::MIN + 1,
        -2,
        -1,
        0,
        1,
        2,
        i64::MAX - 1,
        i64::MAX,
    ];
    for a in vals {
        for b in vals {
            for c in CONDS {
                let cc = arm::ops::cc(c, false);
                assert_eq!(
                    holds(cc, cmp_flags(a, b)),
                    c.holds(a, b),
                    "{a} {} {b} ({cc})",
                    c.symbol()
                );
            }
        }
    }
}

#[test]
fn float_conditions() {
    let vals = [
        f64::NAN,
        f64::NEG_INFINITY,
        -1.5,
        -0.0,
        0.0,
        1.5,
        f64::INFINITY,
    ];
    for a in vals {
        for b in vals {
            for c in CONDS {
                // The ordered comparisons are false on NaN, `!=` is true;
                // the unsigned ones mean "or unordered".
                let unordered = a.is_nan() || b.is_nan();
                let want = match c {
                    Cond::Eq => a == b,
                    Cond::Ne => a != b,
                    Cond::Lt => a < b,
                    Cond::Le => a <= b,
                    Cond::Gt => a > b,
                    Cond::Ge => a >= b,
                    Cond::ULt => unordered || a < b,
                    Cond::ULe => unordered || a <= b,
                    Cond::UGt => unordered || a > b,
                    Cond::UGe => unordered || a >= b,
                };
                let cc = arm::ops::cc(c, true);
                assert_eq!(
                    holds(cc, fcmp_flags(a, b)),
                    want,
                    "{a} {} {b} ({cc})",
                    c.symbol()
                );
            }
        }
    }
    // The codes for the language's comparisons.
    let codes: Vec<&str> = [Cond::Eq, Cond::Lt, Cond::Le, Cond::Gt, Cond::Ge]
        .iter()
        .map(|&c| arm::ops::cc(c, true))
        .collect();
    assert_eq!(codes, ["eq", "mi", "ls", "gt", "ge"]);
}

#[test]
fn compare_immediates() {
    let code = assert_print("return arg < 5;", "return (set<,(cmp,arg));");
    assert_asm(&code, &["cmp v, #5", "cset v, lt"]);
    assert_eval(&code, 4, "1");
    assert_eval(&code, 5, "0");
    // A negative constant: `cmn` of its negation.
    let code = assert_print("return arg < -5;", "return (set<,(cmp,arg));");
    assert_asm(&code, &["cmn v, #5", "cset v, lt"]);
    assert_eval(&code, -6, "1");
    // Too wide for `cmp`: in a register.
    let code = assert_print("return arg == 4097;", "return (set==,(cmp,arg,4097));");
    assert!(ops(&code).contains(&Op::Cmp));
    assert_asm(&code, &["movz v, #0x1001", "cmp v, v", "cset v, eq"]);
    assert_eval(&code, 4097, "1");
    // `!x` is `x == 0`.
    let code = assert_print("return !arg;", "return (set==,(test,arg));");
    assert_asm(&code, &["cmp v, #0", "cset v, eq"]);
    assert_eval(&code, 0, "1");
}

#[test]
fn branches() {
    let code = assert_print(
        "if (arg < 10) return 1; return 2;",
        "return Phi(Region,1,2);",
    );
    // The compare is in the branch's block, before it.
    assert_asm(&code, &["v = parm", "cmp v, #10", "b.lt L ; else L"]);
    assert_eval(&code, 3, "1");
    assert_eval(&code, 30, "2");
    // On a value that is no comparison: branch when it is not 0.
    let code = assert_print(
        "int x = arg & 6; if (x) return 1; return 2;",
        "return Phi(Region,1,2);",
    );
    assert_asm(&code, &["and v, v, #0x6", "cmp v, #0", "b.ne L ; else L"]);
    assert_eval(&code, 1, "2");
    // Floats: `fcmp` and the code false on NaN.
    let code = assert_print(
        "flt f = arg; if (f <= 2.5) return 1; return 2;",
        "return Phi(Region,1,2);",
    );
    assert_asm(
        &code,
        &["scvtf v, v", "fmov v, #2.5", "fcmp v, v", "b.ls L ; else L"],
    );
    assert_eval(&code, 2, "1");
    assert_eval(&code, 3, "2");
}

#[test]
fn float_compares() {
    for (src, print, cc) in [
        (
            "flt f = arg; return f < 2.5;",
            "return (set<,(cmpf,(cvt,arg),2.5f));",
            "cset v, mi",
        ),
        (
            "flt f = arg; return f <= 2.5;",
            "return (set<=,(cmpf,(cvt,arg),2.5f));",
            "cset v, ls",
        ),
        (
            "flt f = arg; return f == 2.0;",
            "return (set==,(cmpf,(cvt,arg),2.0f));",
            "cset v, eq",
        ),
    ] {
        let code = assert_print(src, print);
        assert_asm(&code, &["fcmp v, v", cc]);
        assert_eval(&code, 2, "1");
        assert_eval(&code, 3, "0");
    }
    // A literal pool for a double `fmov` cannot hold.
    let code = assert_print(
        "flt f = arg; return f < 0.1;",
        "return (set<,(cmpf,(cvt,arg),0.1));",
    );
    assert_asm(
        &code,
        &["ldr v, =0.1 ; literal pool", "fcmp v, v", "cset v, mi"],
    );
    // NaN compares false, `!=` true.
    let code = arm("flt f = arg; flt n = f/0.0 - f/0.0; return (f < n) + (f <= n)*2 + (f == n)*4 + (f != n)*8;");
    assert_eval(&code, 1, "8");
    assert_eval(&code, 0, "8");
}

#[test]
fn fmov_immediates() {
    use arm::ops::fmov_imm;
    for f in [2.0, 2.5, -1.0, 0.125, 31.0, 1.9375, 0.1328125, -17.0] {
        assert!(fmov_imm(f64::to_bits(f)), "{f}");
    }
    for f in [0.0, 0.1, 33.0, 0.0625, 1e10, f64::NAN, f64::INFINITY] {
        assert!(!fmov_imm(f64::to_bits(f)), "{f}");
    }
}

// ---------------------------------------------------------------------------
// Narrow values, memory, calls.

#[test]
fn extensions() {
    // The language narrows with a shift left and back: one instruction.
    for (ty, print, line, arg, value) in [
        ("i8", "return (sxtb,arg);", "sxtb v, v", 200, "-56"),
        ("i16", "return (sxth,arg);", "sxth v, v", 40000, "-25536"),
        (
            "i32",
            "return (sxtw,arg);",
            "sxtw v, v",
            3_000_000_000,
            "-1294967296",
        ),
    ] {
        let code = assert_print(&format!("{ty} x = arg; return x;"), print);
        assert!(ops(&code).contains(&Op::SExt));
        assert_asm(&code, &[line]);
        assert_eval(&code, arg, value);
    }
    let code = assert_print("return (arg << 48) >>> 48;", "return (uxth,arg);");
    assert_asm(&code, &["uxth v, v"]);
    assert_eval(&code, 0x12345, "9029");
    let code = assert_print("return (arg << 32) >>> 32;", "return (uxtw,arg);");
    assert_asm(&code, &["ubfx v, v, #0, #32"]);
    assert_eval(&code, -1, "4294967295");
    // Unsigned narrow types are masks: a bitmask immediate.
    let code = assert_print("u8 x = arg; return x;", "return (andi,arg);");
    assert_asm(&code, &["and v, v, #0xff"]);
    assert_eval(&code, 300, "44");
    // Shifts that are no extension stay shifts.
    let code = assert_print("return (arg << 8) >> 7;", "return (asri,(lsli,arg));");
    assert_eval(&code, 1, "2");
}

#[test]
fn f32_fields() {
    let code = assert_print(
        "struct S { f32 x; }; val get = { S s -> s.x; }; S !s = new S; s.x = arg; return get(s) + get(s);",
        "Stop[ return (addf,get(),get()); return (f4f8,.x); ]",
    );
    // Loaded as a single and widened; rounded once and stored as one.
    assert_asm(
        &code,
        &["ldr v, [v] ; single", "fcvt v, v ; single to double"],
    );
    assert_asm(
        &code,
        &[
            "scvtf v, v",
            "fcvt v, v ; double to single",
            "str v, [v] ; single",
        ],
    );
    assert_eval(&code, 3, "6.0");
}

#[test]
fn calling_convention() {
    use arm::{arg_masks, caller_saved, ret_mask, CALLEE_SAVED, WRITABLE};
    let reg = |r: u8| Some(RegMask::of(r));
    // Integers and floats are counted apart, eight of each in registers.
    assert_eq!(
        arg_masks(&[LType::F64, LType::S64, LType::F64, LType::Ptr]),
        vec![reg(arm::D0), reg(arm::X0), reg(arm::D0 + 1), reg(arm::X1)]
    );
    let nine = arg_masks(&[LType::S64; 9]);
    assert_eq!(nine[7], reg(7));
    assert_eq!(nine[8], None);
    let nine = arg_masks(&[LType::F64; 9]);
    assert_eq!(nine[7], reg(arm::D0 + 7));
    assert_eq!(nine[8], None);
    assert_eq!(ret_mask(LType::S64), RegMask::of(arm::X0));
    assert_eq!(ret_mask(LType::F64), RegMask::of(arm::D0));
    // Never a value's: sp, x18 (the platform's), x29 (the frame pointer).
    for r in [arm::SP, arm::X18, arm::X29] {
        assert!(
            !WRITABLE.contains(r) && !caller_saved().contains(r),
            "{}",
            arm::ops::reg_name(r)
        );
    }
    assert!(WRITABLE.contains(arm::X30) && WRITABLE.contains(0) && WRITABLE.contains(28));
    assert_eq!(WRITABLE.len(), 29);
    // x19-x28 and d8-d15 are kept by a callee (d8 too, which Simple
    // leaves out); everything else a call may change, flags and the link
    // register included.
    for r in (arm::X19..=arm::X28).chain(arm::D8..=arm::D15) {
        assert!(
            CALLEE_SAVED.contains(r) && !caller_saved().contains(r),
            "{}",
            arm::ops::reg_name(r)
        );
    }
    for r in (0..=17)
        .chain([arm::X30, arm::FLAGS])
        .chain(arm::D0..arm::D8)
        .chain(arm::D15 + 1..64)
    {
        assert!(caller_saved().contains(r), "{}", arm::ops::reg_name(r));
    }
    assert_eq!(CALLEE_SAVED.len(), 18);
}

#[test]
fn call_registers() {
    let code = assert_print(
        "val f = { int a, flt b, int c -> a + b + c; }; return f(arg, 1.5, 3) + f(1, 2.5, arg);",
        // A call prints its arguments but the last, as Simple's does.
        "Stop[ return (addf,f( arg,1.5f),f( 1,2.5f)); return (addf,(addf,(cvt,Parm_a(f,int,arg,1)),Parm_b(f,flt,1.5f,2.5f)),(cvt,Parm_c(f,int,3,arg))); ]",
    );
    assert_asm(&code, &["bl f", "bl f"]);
    assert_eval(&code, 2, "12.0");
    let g = &code.graph;
    let calls: Vec<_> = g
        .ids()
        .filter(|&n| !g.is_dead(n) && mach(g, n).is_some_and(|m| m.op == Op::Call))
        .collect();
    assert_eq!(calls.len(), 2);
    for call in calls {
        let m = mach(g, call).expect("a machine node");
        let masks: Vec<Option<RegMask>> = (0..g.n_ins(call))
            .map(|i| arm::ops::in_mask(g, call, m, i))
            .collect();
        let reg = |r: u8| Some(RegMask::of(r));
        assert_eq!(
            masks,
            vec![None, None, reg(arm::X0), reg(arm::D0), reg(arm::X1)]
        );
        assert_eq!(arm::ops::kill_mask(m), Some(arm::caller_saved()));
        assert_eq!(arm::ops::out_mask(g, call, m), None);
    }
    // The function returns a double in d0, to the address in x30.
    let ret = g
        .ids()
        .find(|&n| {
            !g.is_dead(n)
                && mach(g, n).is_some_and(|m| m.op == Op::Ret)
                && arm::ops::in_mask(g, n, mach(g, n).expect("mach"), 2)
                    == Some(RegMask::of(arm::D0))
        })
        .expect("f's return");
    let m = mach(g, ret).expect("a machine node");
    assert_eq!(arm::ops::in_mask(g, ret, m, 3), Some(RegMask::of(arm::X30)));
}

#[test]
fn operand_registers() {
    let code = arm("int[] !a = new int[arg]; a[arg-1] = arg; flt[] !b = new flt[2]; b[1] = arg; return a[0] + b[1];");
    assert_eval(&code, 3, "3.0");
    let g = &code.graph;
    for n in g.ids().filter(|&n| !g.is_dead(n)) {
        let Some(m) = mach(g, n) else { continue };
        let ins: Vec<Option<RegMask>> = (0..g.n_ins(n))
            .map(|i| arm::ops::in_mask(g, n, m, i))
            .collect();
        match m.op {
            // The base may be sp, an index may not; memory is no register.
            Op::Load => {
                assert_eq!(ins[1], None);
                assert_eq!(ins[2], Some(arm::GPRS));
                assert_eq!(
                    arm::ops::out_mask(g, n, m),
                    Some(if m.ty[0].is_float() {
                        arm::FPRS
                    } else {
                        arm::WRITABLE
                    })
                );
            }
            Op::Store => {
                assert_eq!(ins[2], Some(arm::GPRS));
                let value = if m.ty[0].is_float() {
                    arm::FPRS
                } else {
                    arm::WRITABLE
                };
                assert_eq!(ins[3], Some(value), "{}", arm::ops::asm(g, n, m));
                if g.input(n, 4).is_some() {
                    assert_eq!(ins[4], Some(arm::WRITABLE));
                }
            }
            Op::Cmp | Op::CmpI | Op::FCmp => {
                assert_eq!(arm::ops::out_mask(g, n, m), Some(arm::FLAGS_MASK))
            }
            Op::Set(_) | Op::Jcc(_) => assert_eq!(ins[1], Some(arm::FLAGS_MASK)),
            _ => {}
        }
        // Three-address: only `movk` ties its result to an input.
        assert_eq!(arm::ops::two_address(m), None, "{:?}", m.op);
    }
}

/// A load from one array that walked past a store to another array may
/// read memory from before the store while its index is read after it;
/// ARM addresses the element from the body's address (the array's
/// pointer plus 8), and global code motion once saw no object behind that
/// sum: it ordered the load before the store, and the loop's block had a
/// cycle (the fuzz test's seed 190). Every instruction is scheduled.
#[test]
fn test_load_of_another_array_past_a_store() {
    let src = "int[] !a = new int[4];
int[] !b = new int[4];
int v = 0;
for (int i = 0; i < arg; i++) {
    a[i&3] = v;
    v = b[a[1]&3];
}
return v;";
    let code = assert_print(src, "return Phi(Loop,0,.[]);");
    assert_eval(&code, 5, "0");
    let lines = asm_lines(&code);
    let loads = lines.iter().filter(|l| l.starts_with("ldr ")).count();
    let stores = lines.iter().filter(|l| l.starts_with("str ")).count();
    // The element store and the length stores of the two arrays.
    assert_eq!((loads, stores), (2, 3), "{lines:?}");
}
