//! Chapter 19 for RISC-V: the programs of Simple's `Chapter19Test.java`
//! compiled for `riscv` (`parse`, `opto`, `type_check`, `inst_select`,
//! `legalize`, `gcm`, `local_sched`), and the legalizer's RISC-V rules.
//!
//! Simple's chapter 19 tests compile for x86 only; its chapter 20 and 21
//! tests print some of the same programs (and a few more) for `riscv`,
//! and where they do their printed forms are used here exactly
//! (`return ( arg | #2 );`, `return (add,.[],(mul,.[],1000));`,
//! `return ( Phi(Loop,0,addi) + #1 );`...). The others are pinned as this
//! compiler prints them, each checked by hand against what RISC-V runs.
//!
//! Every program also still runs: the evaluator walks the ideal graph,
//! which selection keeps, and must give the program's value. And every
//! machine node left after legalization must be legal by the rules, with
//! immediates and displacements of 12 bits. Straight-line programs are
//! also run on the machine graph itself, by a small interpreter of the
//! RISC-V instructions (`lui` sign-extends, `div` by 0 gives -1,
//! `sltiu` compares with its immediate sign-extended...), against the
//! evaluator: that checks what the lowerings of comparisons, extensions,
//! constants and division compute, not only what they print.

use chapter21::cpu::riscv;
use chapter21::graph::{Graph, NodeId};
use chapter21::mach::legalize::{self, minimum_rules_hold, Action, Query};
use chapter21::mach::{add_mach, mach, Cond, LType, Mach, Op};
use chapter21::types::Types;
use chapter21::{CodeGen, NodeKind, Outcome};
use pretty_assertions::assert_eq;

const LOOPS: usize = 1000;

/// All the phases up to `local_sched`, for `riscv`.
fn compile(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select("riscv", "SystemV"))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap_or_else(|e| panic!("{src:?}: {e:?}"));
    assert_legal(&code.graph);
    code
}

/// Compiles `src`, checks its printed form, and that the (ideal)
/// evaluator gives each value shown.
#[track_caller]
fn check(src: &str, print: &str, values: &[(i64, &str)]) -> CodeGen {
    let code = compile(src);
    assert_eq!(code.print(), print, "{src:?}");
    for &(arg, expected) in values {
        match code.eval(arg, LOOPS) {
            Outcome::Value(v) => assert_eq!(v.to_string(), expected, "{src:?}, arg {arg}"),
            other => panic!("{src:?}, arg {arg}: {other:?}"),
        }
    }
    code
}

/// `check`, and the machine graph run by the interpreter gives what the
/// evaluator gives, for every argument of `args`.
#[track_caller]
fn check_machine(src: &str, print: &str, args: &[i64]) {
    let code = compile(src);
    assert_eq!(code.print(), print, "{src:?}");
    for &arg in args {
        assert_runs_alike(&code, arg, src);
    }
}

/// The interpreter and the evaluator agree on `code` run with `arg`.
#[track_caller]
fn assert_runs_alike(code: &CodeGen, arg: i64, what: &str) {
    let Outcome::Value(chapter21::Value::Int(want)) = code.eval(arg, LOOPS) else {
        panic!("{what}: not an integer");
    };
    assert_eq!(run(code, arg), want, "{what}, arg {arg}");
}

// ---------------------------------------------------------------------------
// What the legalizer leaves, and a RISC-V interpreter for it.

fn imm12(v: i64) -> bool {
    (-2048..=2047).contains(&v)
}

/// Every machine node is legal by the RISC-V rules as it stands (no type
/// left to change), and its immediate fits its instruction.
#[track_caller]
fn assert_legal(g: &Graph) {
    let rules = riscv::legal::rules();
    for n in g.ids() {
        let Some(m) = mach(g, n).filter(|_| !g.is_dead(n)) else {
            continue;
        };
        let q = Query::of(m);
        match rules.decide(q) {
            Ok((q2, Action::Legal)) if q2 == q => {}
            // Made a call of the C function.
            Ok((q2, Action::Libcall(f))) if q2 == q && m.libcall == Some(f) => {}
            other => panic!("{n:?} {:?} is not legal: {other:?}", m.op),
        }
        let ok = match m.op {
            Op::AddI | Op::AndI | Op::OrI | Op::XorI | Op::CmpSetI(_) => imm12(m.imm),
            Op::ShlI | Op::SarI | Op::ShrI => (0..64).contains(&m.imm),
            Op::Load | Op::Store => imm12(m.imm) && g.input(n, 2).is_some(),
            Op::Int => imm12(m.imm),
            Op::Lui => m.imm & 0xFFF == 0 && i32::try_from(m.imm).is_ok(),
            _ => true,
        };
        assert!(ok, "{n:?} {:?}: immediate {} out of range", m.op, m.imm);
    }
}

/// The value `main` returns, computed by running the machine graph of a
/// straight-line program as RISC-V would.
fn run(code: &CodeGen, arg: i64) -> i64 {
    let g = &code.graph;
    let ret = g.in_(code.stop(), 0);
    assert_eq!(mach(g, ret).map(|m| m.op), Some(Op::Ret));
    value(g, g.in_(ret, 2), arg)
}

/// The value of machine node `n`; an empty operand is the register `zero`.
fn value(g: &Graph, n: NodeId, arg: i64) -> i64 {
    let m = mach(g, n).unwrap_or_else(|| panic!("{n:?} {:?} is no instruction", g.kind(n)));
    let x = |i: usize| g.input(n, i).map_or(0, |d| value(g, d, arg));
    let imm = m.imm;
    let sh = |v: i64| (v & 63) as u32;
    match m.op {
        Op::Parm => arg,
        Op::Int => imm,
        Op::AddI => x(1).wrapping_add(imm),
        // `lui` writes its 20 bits at bit 12, sign-extended from bit 31.
        Op::Lui => ((((imm >> 12) & 0xF_FFFF) << 12) as i32).into(),
        Op::Add => x(1).wrapping_add(x(2)),
        Op::Sub => x(1).wrapping_sub(x(2)),
        Op::Mul => x(1).wrapping_mul(x(2)),
        // RISC-V's `div`: -1 for x/0, MIN for MIN/-1.
        Op::Div => match (x(1), x(2)) {
            (_, 0) => -1,
            (a, b) => a.wrapping_div(b),
        },
        Op::Neg => x(1).wrapping_neg(),
        Op::And => x(1) & x(2),
        Op::AndI => x(1) & imm,
        Op::Or => x(1) | x(2),
        Op::OrI => x(1) | imm,
        Op::Xor => x(1) ^ x(2),
        Op::XorI => x(1) ^ imm,
        Op::Shl => x(1).wrapping_shl(sh(x(2))),
        Op::ShlI => x(1).wrapping_shl(sh(imm)),
        Op::Sar => x(1).wrapping_shr(sh(x(2))),
        Op::SarI => x(1).wrapping_shr(sh(imm)),
        Op::Shr => ((x(1) as u64) >> sh(x(2))) as i64,
        Op::ShrI => ((x(1) as u64) >> sh(imm)) as i64,
        Op::SExt if m.ty[1] == LType::S32 => (x(1) as i32).into(),
        Op::CmpSet(c @ (Cond::Lt | Cond::ULt)) => c.holds(x(1), x(2)).into(),
        Op::CmpSetI(c @ (Cond::Lt | Cond::ULt)) => c.holds(x(1), imm).into(),
        op => panic!("{n:?}: no instruction {op:?}"),
    }
}

/// The ops of the live machine nodes, in node order.
fn ops(g: &Graph) -> Vec<Op> {
    g.ids()
        .filter(|&n| !g.is_dead(n))
        .filter_map(|n| mach(g, n).map(|m| m.op))
        .collect()
}

/// The lines of the listing that are instructions (not labels, phis or
/// jumps), trimmed.
fn instructions(code: &CodeGen) -> Vec<String> {
    code.asm()
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty()
                && !l.ends_with(':')
                && !l.starts_with("jmp")
                && ![" = phi", " = proj", " = parm"]
                    .iter()
                    .any(|s| l.contains(s))
        })
        .map(String::from)
        .collect()
}

// ---------------------------------------------------------------------------
// Simple's Chapter19Test, compiled for riscv.

#[test]
fn test_jig() {
    check("return 0;", "return 0;", &[(2, "0")]);
}

#[test]
fn test_basic0() {
    let code = check("return 0;", "return 0;", &[(0, "0")]);
    assert_eq!(code.asm(), "main:\n    addi v5, zero, 0\n    ret\n\n");
}

#[test]
fn test_basic1() {
    check_machine("return arg+1;", "return ( arg + #1 );", &[2, -1, i64::MAX]);
}

#[test]
fn test_basic2() {
    check_machine("return -17;", "return -17;", &[0]);
}

#[test]
fn test_basic3() {
    // `==` onto `xori` and `sltiu 1` (`seqz`).
    let code = check(
        "return arg==1;",
        "return ( ( arg ^ #1 ) <u #1 );",
        &[(1, "1"), (2, "0")],
    );
    assert_eq!(
        instructions(&code),
        ["xori v14, v9, 1", "sltiu v15, v14, 1", "ret"]
    );
    for arg in [0, 1, 2, -1, i64::MIN] {
        assert_runs_alike(&code, arg, "arg==1");
    }
}

#[test]
fn test_basic4() {
    check_machine(
        "return arg<<1;",
        "return ( arg << #1 );",
        &[3, -3, i64::MAX],
    );
}

#[test]
fn test_basic5() {
    check_machine("return arg >> 1;", "return ( arg >> #1 );", &[-7, 7]);
}

#[test]
fn test_basic6() {
    check_machine("return arg >>> 1;", "return ( arg >>> #1 );", &[-7, 7]);
    check(
        "return arg >>> 1;",
        "return ( arg >>> #1 );",
        &[(-7, "9223372036854775804")],
    );
}

#[test]
fn test_basic7() {
    // A divisor of 2 is neither 0 nor -1: a plain `div`.
    check_machine("return arg / 2;", "return (div,arg,2);", &[-7, 7, i64::MIN]);
}

#[test]
fn test_basic8() {
    // No multiply by an immediate on RISC-V.
    check_machine("return arg * 6;", "return (mul,arg,6);", &[3, -3]);
}

#[test]
fn test_basic9() {
    check_machine("return arg & 2;", "return ( arg & #2 );", &[3, 4]);
}

#[test]
fn test_basic10() {
    // Simple's chapter 20 and 21 print this for riscv.
    check_machine("return arg | 2;", "return ( arg | #2 );", &[4, 2]);
}

#[test]
fn test_basic11() {
    check_machine("return arg ^ 2;", "return ( arg ^ #2 );", &[3]);
}

#[test]
fn test_basic12() {
    check(
        "return arg + 2.0;",
        "return (addf,(cvtf,arg),2.0f);",
        &[(3, "5.0")],
    );
}

#[test]
fn test_basic13() {
    check(
        "return arg - 2.0;",
        "return (subf,(cvtf,arg),2.0f);",
        &[(3, "1.0")],
    );
}

#[test]
fn test_basic14() {
    check(
        "return arg * 2.0;",
        "return (mulf,(cvtf,arg),2.0f);",
        &[(3, "6.0")],
    );
}

#[test]
fn test_basic15() {
    let code = check(
        "return arg / 2.0;",
        "return (divf,(cvtf,arg),2.0f);",
        &[(3, "1.5")],
    );
    assert_eq!(
        instructions(&code),
        [
            "fcvt.d.l v9, v11",
            "fld v10, .LC10, t6 ; 2.0",
            "fdiv.d v5, v9, v10",
            "ret"
        ]
    );
}

#[test]
fn test_basic16() {
    // The language's division: `div` is right but for x/0 (see
    // `total_division` below).
    let src = "int arg1 =  arg + 1;\nreturn arg1 / arg;";
    check(
        src,
        "return (and,(div,( arg + #1 ),arg),( ( arg <u #1 ) + #-1 ));",
        &[(3, "1"), (0, "0"), (-1, "0")],
    );
    check_machine(
        src,
        "return (and,(div,( arg + #1 ),arg),( ( arg <u #1 ) + #-1 ));",
        &[3, 0, -1, 7, i64::MAX],
    );
}

#[test]
fn test_basic17() {
    check_machine(
        "int arg1 =  arg + 1;\nreturn arg1 * arg;",
        "return (mul,( arg + #1 ),arg);",
        &[3],
    );
}

#[test]
fn test_basic18() {
    check_machine(
        "int arg1 =  arg + 1;\nreturn arg1 << arg;",
        "return (shl,( arg + #1 ),arg);",
        &[3, 63, 64, 65, -1],
    );
}

#[test]
fn test_basic19() {
    check_machine(
        "int arg1 =  arg + 1;\nreturn arg1 >> arg;",
        "return (sar,( arg + #1 ),arg);",
        &[-9, 3, 64],
    );
}

#[test]
fn test_basic20() {
    check_machine(
        "int arg1 =  arg + 1;\nreturn arg1 >>> arg;",
        "return (shr,( arg + #1 ),arg);",
        &[62, -9, 3],
    );
}

#[test]
fn test_to_float() {
    check(
        "int a = arg;\nreturn a + 2.0;",
        "return (addf,(cvtf,arg),2.0f);",
        &[(3, "5.0")],
    );
}

#[test]
fn test_if_stmt() {
    let src = "int a = 1;\nif (arg == 1)\n    a = arg+2;\nelse {\n    a = arg-3;\n}\nreturn a;";
    let code = check(
        src,
        "return Phi(Region,( arg + #2 ),( arg + #-3 ));",
        &[(1, "3"), (5, "2")],
    );
    // The branch compares with the constant in a register.
    assert!(
        instructions(&code).iter().any(|l| l.starts_with("beq v")),
        "{}",
        code.asm()
    );
}

#[test]
fn test_if_merge2() {
    check(
        "int a=arg+1;\nint b=arg+2;\nif( arg==1 )\n    b=b+a;\nelse\n    a=b+1;\nreturn a+b;",
        "return (add,(add,Phi(Region,( arg << #1 ),arg),arg),Phi(Region,4,5));",
        &[(1, "7"), (5, "15")],
    );
}

#[test]
fn test_loop() {
    let code = check(
        "int sum=0;\nfor( int i=0; i<arg; i++ )\n    sum += i;\nreturn sum;",
        "return Phi(Loop,0,(add,Phi_sum,Phi(Loop,0,( Phi_i + #1 ))));",
        &[(10, "45"), (0, "0")],
    );
    assert!(
        instructions(&code).iter().any(|l| l.starts_with("blt v")),
        "{}",
        code.asm()
    );
}

#[test]
fn test_alloc1() {
    let code = check(
        "struct S { int a; S? c; };\nreturn new S;",
        "return S;",
        &[(0, "S{a=0,c=null}")],
    );
    assert_eq!(code.legalized.as_ref().map(|s| s.libcalls), Some(1));
    assert!(code.asm().contains("call calloc"), "{}", code.asm());
}

#[test]
fn test_lea1() {
    // No `lea` on RISC-V: an add and an add of the constant.
    check(
        "int x = arg/3; return arg+x+7;",
        "return ( (add,arg,(div,arg,3)) + #7 );",
        &[(10, "20")],
    );
    check_machine(
        "int x = arg/3; return arg+x+7;",
        "return ( (add,arg,(div,arg,3)) + #7 );",
        &[10, -10],
    );
}

#[test]
fn test_lea2() {
    check(
        "int x = arg/3; return arg+x*4+7;",
        "return ( (add,arg,( (div,arg,3) << #2 )) + #7 );",
        &[(10, "29")],
    );
}

#[test]
fn test_lea3() {
    check(
        "int x = arg/3; return x*4+arg;",
        "return (add,arg,( (div,arg,3) << #2 ));",
        &[(10, "22")],
    );
}

#[test]
fn test_alloc2() {
    // Simple's chapter 21 prints this for riscv.
    let code = check(
        "int[] !xs = new int[3]; xs[arg]=1; return xs[arg&1];",
        "return .[];",
        &[(0, "1"), (1, "1"), (2, "0")],
    );
    // An element's address: the index shifted, added to the base, and the
    // array's header as the displacement.
    let asm = instructions(&code);
    assert!(asm.contains(&"andi v12, v13, 1".to_string()), "{asm:?}");
    assert!(asm.contains(&"slli v11, v12, 3".to_string()), "{asm:?}");
    assert!(asm.contains(&"add v5, v10, v11".to_string()), "{asm:?}");
    assert!(asm.contains(&"ld v6, 8(v5)".to_string()), "{asm:?}");
}

#[test]
fn test_alloc3() {
    check(
        "int[] !xs = new int[3]; xs[arg]=1; return xs[arg&1]+3;",
        "return ( .[] + #3 );",
        &[(0, "4"), (1, "4"), (2, "3")],
    );
}

const ARRAY1: &str = "int[] !ary = new int[arg];
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
    // Simple's chapter 20 and 21 print this for riscv.
    let code = check(ARRAY1, "return (add,.[],(mul,.[],1000));", &[(10, "1006")]);
    // `ary[i+1] += ary[i]`: one shift of `i`, the two elements eight bytes
    // apart in the displacements.
    let asm = code.asm();
    assert!(
        asm.contains("ld v34, 8(v33)") && asm.contains("ld v36, 16(v35)"),
        "{asm}"
    );
    assert!(asm.contains("sd v32, 16(v25)"), "{asm}");
    assert_eq!(asm.matches("slli v27, v28, 3").count(), 1, "{asm}");
}

#[test]
fn test_array2() {
    check(
        "flt[] !A = new flt[arg], !B = new flt[arg];
// Fill [0,1,2,3,4,...]
for( int i=0; i<A#; i++ )
    A[i] = i;
for( int i=0; i<A#; i++ )
    B[i] += A[i];
",
        "return 0;",
        &[(10, "0")],
    );
}

#[test]
fn test_array3() {
    let code = check(
        "byte[] !A = new byte[arg];\nfor( int i=0; i<A#; i++ )\n    A[i]++;\nreturn A[1];",
        "return .[];",
        &[(10, "1")],
    );
    // A byte is loaded as a byte, zero-extended, and stored as one.
    let asm = instructions(&code);
    // (An array of bytes has its body at offset 4, after its u32 length.)
    assert!(asm.contains(&"lbu v5, 5(v11)".to_string()), "{asm:?}");
    assert!(asm.contains(&"lbu v28, 4(v27)".to_string()), "{asm:?}");
    assert!(asm.contains(&"sb v26, 4(v20)".to_string()), "{asm:?}");
}

#[test]
fn test_newton() {
    let code = check(
        "// Newtons approximation to the square root
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
        "return Phi(Loop,(cvtf,arg),(divf,(addf,(divf,cvtf,Phi_guess),Phi_guess),2.0f));",
        &[(16, "4.0"), (2, "1.414213562373095")],
    );
    // No float branch: `feq.d`, then a branch on it.
    let asm = instructions(&code);
    assert!(asm.contains(&"feq.d v23, v5, v12".to_string()), "{asm:?}");
    assert!(
        asm.contains(&"bne v23, zero, L3 ; else L18".to_string()),
        "{asm:?}"
    );
}

#[test]
fn sieve_of_eratosthenes() {
    check(
        "var ary = new bool[arg], primes = new int[arg];
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
        &[(20, "int[ 2,3,5,7,11,13,17,19]")],
    );
}

#[test]
fn test_fcn1() {
    let code = check(
        "val fcn = arg ? { int x -> x*x; } : { int x -> x+x; };\nreturn fcn(2)*10 + fcn(3);",
        "Stop[ return (add,Phi(Region,{ int -> int #1},{ int -> int #2})( 3),(mul,Phi_( 2),10)); \
         return (mul,Parm_x($fun,int,2,3),x); return ( Parm_x($fun,int,2,3) << #1 ); ]",
        &[(0, "46"), (1, "49")],
    );
    // Calls through a register.
    assert!(code.asm().contains("jalr v"), "{}", code.asm());
}

#[test]
fn test_fcn2() {
    let code = check(
        "val sq = { int x -> x*x; };\nreturn sq(arg) + sq(3);",
        "Stop[ return (add,sq(),sq()); return (mul,Parm_x(sq,int,3,arg),x); ]",
        &[(3, "18")],
    );
    assert_eq!(code.asm().matches("call sq").count(), 2, "{}", code.asm());
}

// ---------------------------------------------------------------------------
// Programs Simple's chapter 20 and 21 tests compile for riscv.

#[test]
fn test_loop2() {
    // Simple's chapter 21 prints this for riscv.
    check(
        "int i = 0;
while(true) {
    i += 1;
    if( i==0 ) continue;
    if( i==1 ) continue;
    if( i==2 ) break;
    continue;
}
return i;",
        "return ( Phi(Loop,0,addi) + #1 );",
        &[(0, "2")],
    );
}

#[test]
fn test_alloc0() {
    let code = check("return new u8[arg];", "return [u8];", &[(3, "\0\0\0")]);
    // `new u8[arg]`: `calloc(1, arg+4)`, then the length, a u32.
    assert_eq!(
        instructions(&code),
        [
            "addi v10, v13, 4",
            "li a0, 1 ; mv a1, v10 ; call calloc",
            "sw v13, 0(v5)",
            "ret"
        ]
    );
}

#[test]
fn test_infinite() {
    let code = compile("struct S { int i; }; S !s = new S; while(1) s.i++;");
    assert_eq!(code.print(), "return Top;");
    assert_eq!(code.eval(0, LOOPS), Outcome::Timeout);
}

#[test]
fn test_cast() {
    check(
        "struct Bar { int x; }; var b = arg ? new Bar;  return b ? b.x++ + b.x++ : -1;",
        "return Phi(Region,( ( .x << #1 ) + #1 ),-1);",
        &[(0, "-1"), (1, "1")],
    );
}

#[test]
fn test_flags1() {
    // Simple's chapter 20 and 21 print this for riscv.
    check(
        "bool b1 = arg == 1;
bool b2 = arg == 2;
if (b2) if (b1) return 1;
if (b1) return 2;
return 0;
",
        "return Phi(Region,1,2,0);",
        &[(1, "2"), (2, "0"), (3, "0")],
    );
}

#[test]
fn test_flags2() {
    let code = check(
        "bool b1 = arg == 1;
while (arg > 0) {
    arg--;
    if (b1) arg--;
}
return arg;
",
        "return Phi(Loop,arg,(add,Phi_arg,Phi(Region,-2,-1)));",
        &[(3, "0"), (4, "0"), (-2, "-2")],
    );
    // `arg > 0` compares `zero` with `arg`.
    assert!(
        code.asm().contains("blt zero, v5, L20 ; else L3"),
        "{}",
        code.asm()
    );
}

#[test]
fn test_anti_deps1() {
    check(
        "struct S { int f; };
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
        &[(0, "S{f=2}"), (1, "S{f=0}")],
    );
}

#[test]
fn test_flt_arg() {
    let code = check(
        "return {int i, flt f, int j->return i+f+j;};",
        "Stop[ return { int flt int -> flt #0}; \
         return (addf,(addf,(cvtf,Parm_i($fun,int)),Parm_f($fun,flt)),(cvtf,Parm_j($fun,int))); ]",
        &[(1, "{ int flt int -> flt #0}")],
    );
    assert!(code.asm().contains("lla v"), "{}", code.asm());
}

// ---------------------------------------------------------------------------
// The rules.

#[test]
fn minimum_rules() {
    assert_eq!(minimum_rules_hold(&riscv::legal::rules()), Ok(()));
}

/// The action the rules take on `op` with types `ty`, and the types they
/// end with.
fn decide(op: Op, ty: [LType; 2], mem_size: u8) -> Result<(Query, Action), String> {
    riscv::legal::rules().decide(Query { op, ty, mem_size })
}

#[test]
fn each_kind_of_rule() {
    use LType::*;
    let q = |op, ty| Query {
        op,
        ty,
        mem_size: 0,
    };
    // Legal as it stands.
    assert_eq!(
        decide(Op::Add, [S64, S64], 0),
        Ok((q(Op::Add, [S64, S64]), Action::Legal))
    );
    assert_eq!(
        decide(Op::SExt, [S64, S32], 0),
        Ok((q(Op::SExt, [S64, S32]), Action::Legal))
    );
    assert_eq!(
        decide(Op::Int, [S8, S8], 0),
        Ok((q(Op::Int, [S8, S8]), Action::Legal))
    );
    assert_eq!(
        decide(Op::Branch(Cond::Le), [S64, S64], 0),
        Ok((q(Op::Branch(Cond::Le), [S64, S64]), Action::Legal))
    );
    assert_eq!(
        decide(Op::Load, [S64, S64], 2),
        Ok((
            Query {
                op: Op::Load,
                ty: [S64, S64],
                mem_size: 2
            },
            Action::Legal
        ))
    );
    // Widened: `slt` writes the whole register.
    for op in [Op::CmpSet(Cond::Lt), Op::CmpSetI(Cond::ULt)] {
        assert_eq!(
            decide(op, [S1, S64], 0),
            Ok((q(op, [S64, S64]), Action::Legal))
        );
    }
    assert_eq!(
        decide(Op::FCmpSet(Cond::Le), [S1, F64], 0),
        Ok((q(Op::FCmpSet(Cond::Le), [S64, F64]), Action::Legal))
    );
    // Lowered.
    for (op, ty) in [
        (Op::CmpSet(Cond::Eq), [S1, S64]),
        (Op::CmpSetI(Cond::Le), [S1, S64]),
        (Op::SExt, [S64, S8]),
        (Op::SExt, [S64, S16]),
        (Op::ZExt, [S64, S8]),
        (Op::ZExt, [S64, S32]),
        (Op::Int, [S16, S16]),
        (Op::Int, [S32, S32]),
        (Op::FCmpSet(Cond::Gt), [S1, F64]),
        (Op::Branch(Cond::Lt), [S64, F64]),
    ] {
        assert_eq!(
            decide(op, ty, 0),
            Ok((q(op, ty), Action::Lower)),
            "{op:?} {ty:?}"
        );
    }
    // Custom.
    assert_eq!(
        decide(Op::Int, [S64, S64], 0),
        Ok((q(Op::Int, [S64, S64]), Action::Custom))
    );
    assert_eq!(
        decide(Op::DivTotal, [S64, S64], 0),
        Ok((q(Op::DivTotal, [S64, S64]), Action::Custom))
    );
    // A library call.
    assert_eq!(
        decide(Op::New, [Ptr, Ptr], 0),
        Ok((q(Op::New, [Ptr, Ptr]), Action::Libcall("calloc")))
    );
}

#[test]
fn unsupported_operations() {
    use LType::*;
    let expect = [
        (Op::Cmp, [S64, S64], 0, "riscv cannot do Cmp s64"),
        (Op::Set(Cond::Eq), [S1, S1], 0, "riscv cannot do Set(Eq) s1"),
        (
            Op::Jcc(Cond::Lt),
            [S64, S64],
            0,
            "riscv cannot do Jcc(Lt) s64",
        ),
        (Op::FCmp, [S64, F64], 0, "riscv cannot do FCmp s64 <- f64"),
        (Op::Lea, [Ptr, Ptr], 0, "riscv cannot do Lea ptr"),
        (Op::MovK, [S64, S64], 0, "riscv cannot do MovK s64"),
        (Op::MulI, [S64, S64], 0, "riscv cannot do MulI s64"),
        (
            Op::AddMem,
            [S64, S64],
            8,
            "riscv cannot do AddMem s64 (8 bytes)",
        ),
        (
            Op::StoreI,
            [S64, S64],
            8,
            "riscv cannot do StoreI s64 (8 bytes)",
        ),
        (
            Op::FCmpSet(Cond::ULt),
            [S1, F64],
            0,
            "riscv cannot do FCmpSet(ULt) s1 <- f64",
        ),
        // No rule holds: a load of 3 bytes, a 32-bit add.
        (
            Op::Load,
            [S64, S64],
            3,
            "riscv cannot do Load s64 (3 bytes)",
        ),
        (Op::Add, [S32, S32], 0, "riscv cannot do Add s32"),
    ];
    for (op, ty, size, message) in expect {
        assert_eq!(decide(op, ty, size), Err(message.to_string()));
    }
}

#[test]
fn the_printed_rules() {
    let text = legalize::print_rules(&riscv::legal::rules());
    for line in [
        "legalization rules for riscv",
        "DivTotal\n  custom\n",
        "SExt\n  legal_for(s64 <- s32)\n  lower(s64 <- s8, s64 <- s16)\n",
        "ZExt\n  lower(s64 <- s8, s64 <- s16, s64 <- s32)\n",
        "Int\n  legal_for(s8, ptr)\n  lower(s16, s32)\n  custom(s64)\n",
        "CmpSet(Lt), CmpSet(ULt), CmpSetI(Lt), CmpSetI(ULt)\n  widen_scalar(0, s64)\n  \
         legal_for(s64 <- s64, s64 <- ptr)\n",
        "New\n  libcall(calloc)\n",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
}

#[test]
fn legalizer_statistics() {
    // `==`: the comparison lowered, and its `sltiu` widened.
    let code = compile("return arg==1;");
    let stats = code.legalized.clone().expect("legalized");
    assert_eq!((stats.lowered, stats.custom, stats.libcalls), (1, 0, 0));
    assert_eq!(stats.retyped, 1);
    // The total division, custom; a 64-bit constant, custom.
    let stats = compile("return arg / (arg + 1);")
        .legalized
        .expect("legalized");
    assert_eq!(stats.custom, 1);
    let stats = compile("return arg + 81985529216486895;")
        .legalized
        .expect("legalized");
    assert_eq!(stats.custom, 1);
    // A sign-extension from 8 bits: lowered; from 32 bits: legal.
    let stats = compile("i8 x = arg; return x;")
        .legalized
        .expect("legalized");
    assert_eq!(stats.lowered, 1);
    let stats = compile("i32 x = arg; return x;")
        .legalized
        .expect("legalized");
    assert_eq!(stats.lowered, 0);
}

// ---------------------------------------------------------------------------
// Lowerings, run.

#[test]
fn equal_onto_sub_and_seqz() {
    let code = compile("return arg == (arg >> 1);");
    assert_eq!(code.print(), "return ( (sub,arg,( arg >> #1 )) <u #1 );");
    assert_eq!(
        instructions(&code),
        [
            "srai v10, v9, 1",
            "sub v15, v9, v10",
            "sltiu v16, v15, 1",
            "ret"
        ]
    );
    for arg in [0, 1, -1, 2, i64::MIN] {
        assert_runs_alike(&code, arg, "==");
    }
}

#[test]
fn not_equal_onto_sub_and_snez() {
    // `!=` is `!(a==b)`: the opposite comparison, `0 <u (a-b)`.
    let code = compile("return arg != (arg >> 1);");
    assert_eq!(code.print(), "return (sltu,zero,(sub,arg,( arg >> #1 )));");
    assert_eq!(
        instructions(&code),
        [
            "srai v10, v9, 1",
            "sub v15, v9, v10",
            "sltu v16, zero, v15",
            "ret"
        ]
    );
    for arg in [0, 1, -1, 2, i64::MIN] {
        assert_runs_alike(&code, arg, "!=");
    }
}

#[test]
fn less_or_equal_onto_swapped_slt_and_xori() {
    let code = compile("return arg <= (arg >> 1);");
    assert_eq!(code.print(), "return ( (slt,( arg >> #1 ),arg) ^ #1 );");
    assert_eq!(
        instructions(&code),
        [
            "srai v10, v9, 1",
            "slt v15, v10, v9",
            "xori v16, v15, 1",
            "ret"
        ]
    );
    for arg in [0, 1, -1, 2, -2, i64::MIN, i64::MAX] {
        assert_runs_alike(&code, arg, "<=");
    }
}

#[test]
fn comparisons_with_constants() {
    // Every comparison the language has, with constants around the ends
    // of the 12-bit immediates, on both sides.
    let consts = [
        0,
        1,
        -1,
        5,
        2046,
        2047,
        2048,
        -2047,
        -2048,
        -2049,
        100_000,
        i64::MAX,
    ];
    let ops = ["==", "!=", "<", "<=", ">", ">="];
    for c in consts {
        for op in ops {
            for src in [
                format!("return arg {op} {c};"),
                format!("return {c} {op} arg;"),
            ] {
                let code = compile(&src);
                for arg in [
                    c.wrapping_sub(1),
                    c,
                    c.wrapping_add(1),
                    0,
                    -1,
                    i64::MIN,
                    i64::MAX,
                    3000,
                    -3000,
                ] {
                    assert_runs_alike(&code, arg, &src);
                }
            }
        }
    }
}

#[test]
fn comparisons_of_registers() {
    for op in ["==", "!=", "<", "<=", ">", ">="] {
        for src in [
            format!("return arg {op} (arg >> 1);"),
            format!("return !(arg {op} (arg >> 1));"),
            format!("return (arg * 3) {op} arg;"),
        ] {
            let code = compile(&src);
            for arg in [0, 1, -1, 2, -2, 7, i64::MIN, i64::MAX] {
                assert_runs_alike(&code, arg, &src);
            }
        }
    }
}

#[test]
fn extensions_onto_shift_pairs() {
    let cases = [
        ("i8", "return ( ( arg << #56 ) >> #56 );"),
        ("i16", "return ( ( arg << #48 ) >> #48 );"),
        ("i32", "return (sext.w,arg);"),
        ("u8", "return ( arg & #255 );"),
        ("u16", "return ( ( arg << #48 ) >>> #48 );"),
        ("u32", "return ( ( arg << #32 ) >>> #32 );"),
    ];
    for (ty, print) in cases {
        let src = format!("{ty} x = arg; return x;");
        check_machine(
            &src,
            print,
            &[
                0,
                1,
                -1,
                127,
                128,
                255,
                256,
                32767,
                32768,
                65535,
                65536,
                i64::MIN,
            ],
        );
        check_machine(
            &src,
            print,
            &[i32::MAX.into(), i32::MIN.into(), 1 << 31, u32::MAX.into()],
        );
    }
    // The sign-extension from 8 bits was lowered onto two shifts.
    let code = compile("i8 x = arg; return x;");
    assert_eq!(
        instructions(&code),
        ["slli v14, v9, 56", "srai v15, v14, 56", "ret"]
    );
    let code = compile("i32 x = arg; return x;");
    assert_eq!(instructions(&code), ["sext.w v5, v9", "ret"]);
}

#[test]
fn constants_of_32_bits() {
    // `lui` and `addi`; bit 11 set makes the `addi` negative and the
    // `lui` one more.
    let code = compile("return arg + 4097;");
    assert_eq!(code.print(), "return (add,arg,( 4096 + #1 ));");
    assert_eq!(
        instructions(&code),
        ["lui v15, 0x1", "addi v16, v15, 1", "add v5, v9, v16", "ret"]
    );
    let code = compile("return arg + 6144;");
    assert_eq!(code.print(), "return (add,arg,( 8192 + #-2048 ));");
    // A multiple of 4096: `lui` alone.
    let code = compile("return arg + 1048576;");
    assert_eq!(code.print(), "return (add,arg,1048576);");
    assert_eq!(
        instructions(&code),
        ["lui v15, 0x100", "add v5, v9, v15", "ret"]
    );
    // Just below 2^31 the rounded upper part would be 2^31, which `lui`
    // sign-extends: the 64-bit sequence instead.
    let code = compile("return arg + 2147483647;");
    assert_eq!(code.print(), "return (add,arg,( ( 1 << #31 ) + #-1 ));");
}

#[test]
fn constants_of_64_bits() {
    let code = compile("return arg + 4294967296;");
    assert_eq!(code.print(), "return (add,arg,( 1 << #32 ));");
    let code = compile("return arg + 81985529216486895;");
    assert_eq!(
        code.print(),
        "return (add,arg,( ( ( ( ( ( ( 598016 + #-1493 ) << #12 ) + #965 ) << #13 ) + #-1347 ) << #12 ) + #-529 ));"
    );
    assert_eq!(
        instructions(&code),
        [
            "lui v15, 0x92",
            "addi v16, v15, -1493",
            "slli v17, v16, 12",
            "addi v18, v17, 965",
            "slli v19, v18, 13",
            "addi v20, v19, -1347",
            "slli v21, v20, 12",
            "addi v22, v21, -529",
            "add v5, v9, v22",
            "ret"
        ]
    );
}

#[test]
fn every_constant_is_made_right() {
    let mut values = vec![
        0,
        2047,
        2048,
        -2048,
        -2049,
        4095,
        4096,
        0x7FF,
        0x800,
        0xFFF,
        0x7FFF_F7FF,
        0x7FFF_F800,
        0x7FFF_FFFF,
        -0x8000_0000,
        -0x8000_0001,
        0x8000_0000,
        0xFFFF_FFFF,
        0x1_0000_0000,
        0x1234_5678_9ABC_DEF0,
        -0x1234_5678_9ABC_DEF0,
        i64::MAX,
        i64::MIN + 1,
        0x7FFF_FFFF_FFFF_F800,
        0x8000_0000_0000_07FF_u64 as i64,
    ];
    // And some at random (a fixed sequence), of every width.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..200 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        values.push((x >> (i % 60)) as i64);
    }
    for v in values {
        // Written as the language reads it (the most negative number is
        // no literal).
        let src = if v == i64::MIN {
            "return arg + (-9223372036854775807 - 1);".to_string()
        } else {
            format!("return arg ^ {v};")
        };
        let code = compile(&src);
        assert_runs_alike(&code, 0, &src);
        assert_runs_alike(&code, -1, &src);
    }
}

#[test]
fn total_division() {
    // `div` gives -1 for x/0: masked away by `(d == 0) - 1`. MIN/-1 is
    // MIN on RISC-V, as in the language.
    let src = "return (arg - 5) / (arg - 4);";
    let code = compile(src);
    assert_eq!(
        code.print(),
        "return (and,(div,( arg + #-5 ),( arg + #-4 )),( ( addi <u #1 ) + #-1 ));"
    );
    assert_eq!(
        instructions(&code),
        [
            "addi v9, v11, -5",
            "addi v10, v11, -4",
            "div v16, v9, v10",
            "sltiu v17, v10, 1",
            "addi v18, v17, -1",
            "and v19, v16, v18",
            "ret"
        ]
    );
    for arg in [4, 3, 5, 0, 100, i64::MIN + 5] {
        assert_runs_alike(&code, arg, src);
    }
    // MIN / -1.
    let src = "int m = -9223372036854775807 - 1; return m / (arg - 4);";
    let code = compile(src);
    for arg in [3, 4, 5, 2] {
        assert_runs_alike(&code, arg, src);
    }
}

#[test]
fn float_comparisons() {
    // `!x` of a float is `x == 0.0`; a branch on a float compares first.
    let code = check(
        "flt f = arg; return !f;",
        "return (set==,(cvtf,arg),0.0f);",
        &[(0, "1"), (3, "0")],
    );
    assert!(instructions(&code).contains(&"feq.d v6, v10, v5".to_string()));
    let code = check(
        "flt f = arg; if (f) return 1; return 2;",
        "return Phi(Region,1,2);",
        &[(0, "2"), (3, "1")],
    );
    let asm = instructions(&code);
    assert!(asm.iter().any(|l| l.starts_with("feq.d")), "{asm:?}");
    assert!(asm.iter().any(|l| l.starts_with("beq v")), "{asm:?}");
    let code = check(
        "flt f = arg; if (f < 2.5) return 1; return 2;",
        "return Phi(Region,1,2);",
        &[(0, "1"), (3, "2")],
    );
    let asm = instructions(&code);
    assert!(asm.iter().any(|l| l.starts_with("flt.d")), "{asm:?}");
    assert!(asm.iter().any(|l| l.starts_with("bne v")), "{asm:?}");
}

#[test]
fn narrow_fields() {
    // A field is stored in its own bytes (a new object's initial values
    // too, an f32 rounded first)...
    let src = "struct S { i8 a; u16 c; u32 e; f32 f; i16 b; i32 d; };
val get = { S s -> s.a + s.c + s.e + s.b + s.d; };
val getf = { S s -> s.f; };
S !t = new S { a = -2; c = 3; e = 4; f = 0.5; b = 5; d = 6; };
return get(t) + get(t) + getf(t) + getf(t);";
    let code = check(
        src,
        "Stop[ return (addf,(addf,(cvtf,(add,get(),get())),getf()),getf()); \
         return (add,(add,(add,(add,.d,.b),.e),.c),.a); return (f4f8,.f); ]",
        &[(0, "33.0")],
    );
    let asm = code.asm();
    for line in [
        "sb v51, 16(v16)",
        "sh v49, 12(v16)",
        "sw v47, 0(v16)",
        "fcvt.s.d v36, v44",
        "fsw v36, 4(v16)",
    ] {
        assert!(asm.contains(line), "{line} in\n{asm}");
    }
    // ... and loaded from them, sign- or zero-extended as the field's type
    // says (a load's own type is the value, widened); an f32 is loaded as
    // one and widened to a double.
    assert!(
        asm.contains("getf:\n    v52 = parm\n    flw v7, 4(v52)\n    fcvt.d.s v8, v7\n    ret\n"),
        "{asm}"
    );
    for line in [
        "lw v65, 8(v60)",
        "lh v66, 14(v60)",
        "lwu v64, 0(v60)",
        "lhu v62, 12(v60)",
        "lb v59, 16(v60)",
    ] {
        assert!(asm.contains(line), "{line} in\n{asm}");
    }
}

#[test]
fn registers_and_calling_convention() {
    use chapter21::mach::RegMask;
    use riscv::{arg_masks, callee_saved, caller_saved, ret_mask, REGS, WRITABLE};
    let reg = |name: &str| REGS.iter().position(|&r| r == name).expect(name) as u8;
    assert_eq!(
        (reg("zero"), reg("ra"), reg("sp"), reg("a0"), reg("t6")),
        (0, 1, 2, 10, 31)
    );
    assert_eq!((reg("ft0"), reg("fa0"), reg("ft11")), (32, 42, 63));
    // Never a value in `zero`, `sp`, `gp`, `tp`.
    for r in ["zero", "sp", "gp", "tp"] {
        assert!(!WRITABLE.contains(reg(r)), "{r}");
    }
    assert_eq!(WRITABLE.len(), 28);
    // Integers and floats counted apart; a float past fa7 takes the next
    // integer register; the rest on the stack.
    let (i, f) = (LType::S64, LType::F64);
    let masks = arg_masks(&[i, f, i, f]);
    let names: Vec<&str> = masks
        .iter()
        .map(|m| REGS[m.and_then(RegMask::first).unwrap() as usize])
        .collect();
    assert_eq!(names, ["a0", "fa0", "a1", "fa1"]);
    let mut nine = vec![f; 9];
    nine.push(i);
    let masks = arg_masks(&nine);
    assert_eq!(masks[7].and_then(RegMask::first), Some(reg("fa7")));
    assert_eq!(masks[8].and_then(RegMask::first), Some(reg("a0")));
    assert_eq!(masks[9].and_then(RegMask::first), Some(reg("a1")));
    let masks = arg_masks(&[i; 9]);
    assert_eq!(masks[8], None);
    assert_eq!(ret_mask(f).first(), Some(reg("fa0")));
    assert_eq!(ret_mask(i).first(), Some(reg("a0")));
    // Caller- and callee-saved: apart, and together every register but
    // `zero`, `sp`, `gp` and `tp`.
    let (caller, callee) = (caller_saved(), callee_saved());
    assert!(caller.and(callee).is_empty());
    assert_eq!(caller.len() + callee.len(), 60);
    for r in ["ra", "t0", "a7", "t6", "ft0", "fa7", "ft11"] {
        assert!(caller.contains(reg(r)), "{r}");
    }
    for r in ["s0", "s1", "s2", "s11", "fs0", "fs1", "fs11"] {
        assert!(callee.contains(reg(r)), "{r}");
    }
}

// ---------------------------------------------------------------------------
// Lowerings no program of the language makes (unsigned comparisons, float
// `>`), on graphs made by hand.

/// A machine graph with `arg` (a parameter) and the nodes `make` adds on
/// it, whose last is returned (by a `Ret`); legalized by the RISC-V rules.
fn legalized(make: impl FnOnce(&mut Graph, NodeId) -> NodeId) -> (Graph, NodeId) {
    let mut g = Graph::new();
    g.close_gvn();
    let start = g.add_node(
        NodeKind::Start {
            args: Types::BOTTOM,
        },
        Vec::new(),
    );
    g.set_start(start);
    let parm = add_mach(
        &mut g,
        Mach::new(NodeKind::Add, Op::Parm, LType::S64),
        &[Some(start)],
        Types::INT_BOT,
    );
    let value = make(&mut g, parm);
    let ret = Mach::new(NodeKind::Return, Op::Ret, LType::S64);
    let ret = add_mach(
        &mut g,
        ret,
        &[Some(start), None, Some(value)],
        Types::BOTTOM,
    );
    legalize::legalize(&mut g, &riscv::legal::rules()).expect("legal");
    assert_legal(&g);
    (g, ret)
}

#[test]
fn unsigned_comparisons_by_hand() {
    let conds = [
        Cond::ULt,
        Cond::ULe,
        Cond::UGt,
        Cond::UGe,
        Cond::Gt,
        Cond::Ge,
        Cond::Le,
        Cond::Eq,
        Cond::Ne,
    ];
    for cond in conds {
        for c in [0, 1, -1, 5, 2047, -2048, 3000, i64::MIN] {
            for imm_form in [false, true] {
                let (g, ret) = legalized(|g, arg| {
                    let cmp = |op| Mach::new(NodeKind::Add, op, LType::S1).with_src(LType::S64);
                    if imm_form && imm12(c) {
                        add_mach(
                            g,
                            cmp(Op::CmpSetI(cond)).with_imm(c),
                            &[None, Some(arg)],
                            Types::BOOL,
                        )
                    } else {
                        let t = g.types.int(c);
                        let k = add_mach(
                            g,
                            Mach::new(
                                NodeKind::Constant(t),
                                Op::Int,
                                chapter21::mach::select::int_width(c),
                            )
                            .with_imm(c),
                            &[Some(g.start())],
                            t,
                        );
                        add_mach(
                            g,
                            cmp(Op::CmpSet(cond)),
                            &[None, Some(arg), Some(k)],
                            Types::BOOL,
                        )
                    }
                });
                for arg in [
                    c,
                    c.wrapping_add(1),
                    c.wrapping_sub(1),
                    0,
                    -1,
                    i64::MIN,
                    i64::MAX,
                    2048,
                ] {
                    let got = value(&g, g.in_(ret, 2), arg);
                    assert_eq!(
                        got,
                        i64::from(cond.holds(arg, c)),
                        "{cond:?} {c} imm {imm_form}, arg {arg}"
                    );
                }
            }
        }
    }
}

#[test]
fn float_comparisons_by_hand() {
    // `a > b` is `b < a`, `a >= b` is `b <= a`, `a != b` is `!(a == b)`.
    for (cond, want) in [
        (Cond::Gt, vec![Op::FCmpSet(Cond::Lt)]),
        (Cond::Ge, vec![Op::FCmpSet(Cond::Le)]),
        (Cond::Ne, vec![Op::FCmpSet(Cond::Eq), Op::XorI]),
    ] {
        let mut operands = (None, None);
        let (g, ret) = legalized(|g, _| {
            let one = g.types.flt(1.0);
            let two = g.types.flt(2.0);
            let flt = |g: &mut Graph, t, v: f64| {
                let m = Mach::new(NodeKind::Constant(t), Op::Flt, LType::F64)
                    .with_imm(v.to_bits() as i64);
                add_mach(g, m, &[Some(g.start())], t)
            };
            let a = flt(g, one, 1.0);
            let b = flt(g, two, 2.0);
            operands = (Some(a), Some(b));
            let m = Mach::new(NodeKind::Add, Op::FCmpSet(cond), LType::S1).with_src(LType::F64);
            add_mach(g, m, &[None, Some(a), Some(b)], Types::BOOL)
        });
        let made: Vec<Op> = ops(&g)
            .into_iter()
            .filter(|op| !matches!(op, Op::Parm | Op::Ret | Op::Flt))
            .collect();
        assert_eq!(made, want, "{cond:?}");
        let cmp = g
            .ids()
            .find(|&n| !g.is_dead(n) && matches!(mach(&g, n).map(|m| m.op), Some(Op::FCmpSet(_))))
            .expect("a comparison");
        let (a, b) = operands;
        let expect = if cond == Cond::Ne { (a, b) } else { (b, a) };
        assert_eq!((g.input(cmp, 1), g.input(cmp, 2)), expect, "{cond:?}");
        let _ = ret;
    }
}

#[test]
fn register_masks() {
    use chapter21::cpu::riscv::ops::{in_mask, kill_mask, out_mask, two_address};
    use riscv::{caller_saved, FPRS, GPRS, REGS, WRITABLE};
    let code = compile(
        "val f = { int i, flt x, int j -> i + x + j; };
int[] !a = new int[arg];
return f(arg, 2.0, 3) + f(1, 0.5, a#);",
    );
    let g = &code.graph;
    let reg = |mask: Option<chapter21::mach::RegMask>| {
        mask.and_then(|m| m.first()).map(|r| REGS[r as usize])
    };
    let (mut calls, mut news, mut float_rets) = (0, 0, 0);
    for n in g.ids().filter(|&n| !g.is_dead(n)) {
        let Some(m) = mach(g, n) else { continue };
        // No two-address instruction on RISC-V.
        assert_eq!(two_address(m), None);
        match m.op {
            Op::Call => {
                calls += 1;
                // Memory, then the arguments: integers and floats apart.
                assert_eq!(in_mask(g, n, m, 1), None);
                let args: Vec<_> = (2..5).map(|i| reg(in_mask(g, n, m, i))).collect();
                assert_eq!(args, [Some("a0"), Some("fa0"), Some("a1")]);
                assert_eq!(kill_mask(m), Some(caller_saved()));
            }
            Op::New => {
                news += 1;
                assert_eq!(reg(in_mask(g, n, m, 1)), Some("a1"));
                assert_eq!(reg(out_mask(g, n, m)), Some("a0"));
                assert_eq!(kill_mask(m), Some(caller_saved()));
            }
            // Both functions return their double in fa0.
            Op::Ret if g.input(n, 2).is_some_and(|v| g.types.is_flt(g.ty(v))) => {
                float_rets += 1;
                assert_eq!(reg(in_mask(g, n, m, 2)), Some("fa0"));
            }
            Op::FAdd | Op::I2F | Op::Flt => assert_eq!(out_mask(g, n, m), Some(FPRS)),
            Op::Add | Op::AddI => {
                assert_eq!(out_mask(g, n, m), Some(WRITABLE));
                assert_eq!(in_mask(g, n, m, 1), Some(GPRS));
            }
            Op::Store | Op::Load => {
                assert_eq!(in_mask(g, n, m, 1), None);
                assert_eq!(in_mask(g, n, m, 2), Some(GPRS));
            }
            _ => {}
        }
        if m.op == Op::Flt {
            // The constant pool's address goes through t6.
            assert_eq!(reg(kill_mask(m)), Some("t6"));
        }
    }
    assert_eq!((calls, news, float_rets), (2, 1, 2));
}

/// A load from one array that walked past a store to another array (they
/// are different objects) may read memory from before the store while
/// its index is read after it. RISC-V computes the load's address with an
/// `add` of the array's pointer and the scaled index; global code motion
/// once saw no object behind that sum, ordered the load before the store,
/// and the block had a cycle (the fuzz test's seed 190). Every
/// instruction of the loop is scheduled.
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
    let code = check(src, "return Phi(Loop,0,.[]);", &[(0, "0"), (5, "0")]);
    let body = instructions(&code);
    assert_eq!(
        body.iter().filter(|l| l.starts_with("sd ")).count(),
        1,
        "{body:?}"
    );
    assert_eq!(
        body.iter().filter(|l| l.starts_with("ld ")).count(),
        2,
        "{body:?}"
    );
}
