//! Chapter 21: Simple's `Chapter21Test.java`, compiled through encoding
//! for x86-64, RISC-V and AArch64.
//!
//! Each test compiles a program down to machine code (Java:
//! `driver(Phase.Encoding, cpu, os)`) and checks the program Simple
//! prints where Simple checks it, and our weighted spill count (splits
//! left, each weighted 8^d by its loop depth d: our own figures, with
//! Simple's in the comments). The programs that Simple also runs (fib,
//! sieve, person, newton, arg_count, stringHash) run in `programs.rs`,
//! linked with C and under the emulator.

use chapter21::CodeGen;
use pretty_assertions::assert_eq;

/// Every phase down to machine code.
fn encode(src: &str, cpu: &str, abi: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select(cpu, abi))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .and_then(|c| c.reg_alloc())
        .and_then(|c| c.encode())
        .unwrap_or_else(|e| panic!("{cpu} {abi}: {e:?}"));
    code
}

/// Java's `testCPU(src, cpu, os, spills, stop)`, with our spill count.
#[track_caller]
fn test_cpu(src: &str, cpu: &str, abi: &str, spills: u64, stop: Option<&str>) {
    let code = encode(src, cpu, abi);
    let a = code.alloc.as_ref().expect("allocated");
    assert!(
        !code
            .encoded
            .as_ref()
            .expect("encoded")
            .program
            .text
            .is_empty(),
        "{cpu} {abi}: no code"
    );
    if let Some(stop) = stop {
        assert_eq!(code.print(), stop, "{cpu} {abi}");
    }
    assert_eq!(a.splits_weighted, spills, "{cpu} {abi}: weighted spills");
}

#[test]
fn test_basic1() {
    let src = "return arg | 2;";
    // Simple: 1, 0, 0.
    test_cpu(
        src,
        "x86_64_v2",
        "SystemV",
        1,
        Some("return (ori,mov(arg));"),
    );
    test_cpu(src, "riscv", "SystemV", 0, Some("return ( arg | #2 );"));
    test_cpu(src, "arm", "SystemV", 0, Some("return (ori,arg);"));
}

#[test]
fn test_infinite() {
    let src = "struct S { int i; }; S !s = new S; while(1) s.i++;";
    // Simple: 0, 2, 2.
    test_cpu(
        src,
        "x86_64_v2",
        "SystemV",
        SPILLS_INFINITE[0],
        Some("return Top;"),
    );
    test_cpu(
        src,
        "riscv",
        "SystemV",
        SPILLS_INFINITE[1],
        Some("return Top;"),
    );
    test_cpu(
        src,
        "arm",
        "SystemV",
        SPILLS_INFINITE[2],
        Some("return Top;"),
    );
}
const SPILLS_INFINITE: [u64; 3] = [0, 0, 0];

#[test]
fn test_array1() {
    let src = include_str!("progs/array1.smp");
    // Simple: -1 (not checked), 7, 5. On x86 Simple prints `return .[];`:
    // our allocator keeps a copy of the loaded value (as chapter 20's
    // test shows too).
    test_cpu(
        src,
        "x86_64_v2",
        "SystemV",
        SPILLS_ARRAY1[0],
        Some("return mov(.[]);"),
    );
    test_cpu(
        src,
        "riscv",
        "SystemV",
        SPILLS_ARRAY1[1],
        Some("return (add,.[],(mul,.[],1000));"),
    );
    test_cpu(
        src,
        "arm",
        "SystemV",
        SPILLS_ARRAY1[2],
        Some("return (add,.[],(mul,.[],1000));"),
    );
}
const SPILLS_ARRAY1: [u64; 3] = [3, 1, 1];

#[test]
fn test_anti_deps1() {
    let src = include_str!("progs/antiDep1.smp");
    // Simple: 7, 10, 10.
    for (i, cpu) in ["x86_64_v2", "riscv", "arm"].into_iter().enumerate() {
        test_cpu(
            src,
            cpu,
            "SystemV",
            SPILLS_ANTI_DEPS1[i],
            Some("return mov(mov(S));"),
        );
    }
}
const SPILLS_ANTI_DEPS1: [u64; 3] = [3, 3, 3];

#[test]
fn test_string() {
    let src = include_str!("progs/stringHash.smp");
    // Simple: 9, 5, 6.
    for (i, cpu) in ["x86_64_v2", "riscv", "arm"].into_iter().enumerate() {
        test_cpu(src, cpu, "SystemV", SPILLS_STRING[i], None);
    }
}
const SPILLS_STRING: [u64; 3] = [10, 2, 2];

#[test]
fn test_loop2() {
    let src = include_str!("progs/loop2.smp");
    // Simple: 0, 0, 0.
    test_cpu(
        src,
        "x86_64_v2",
        "Win64",
        0,
        Some("return (inc,Phi(Loop,0,inc));"),
    );
    test_cpu(
        src,
        "riscv",
        "SystemV",
        0,
        Some("return ( Phi(Loop,0,addi) + #1 );"),
    );
    test_cpu(
        src,
        "arm",
        "SystemV",
        0,
        Some("return (inc,Phi(Loop,0,inc));"),
    );
}

/// Simple runs these with C harnesses (x86) and its emulators; here they
/// are compiled for every CPU with their spill counts pinned, and
/// `programs.rs` runs them.
#[test]
fn test_exports() {
    let cases: [(&str, &str, [u64; 4]); 5] = [
        // Simple: C 34 (x86), 10, 10.
        (
            "newtonFloat",
            include_str!("progs/newtonFloat.smp"),
            SPILLS_NEWTON,
        ),
        // Simple: C 257, 160, 160.
        ("sieve", include_str!("progs/sieve.smp"), SPILLS_SIEVE),
        // Simple: C 24, 16, 16.
        ("fib", include_str!("progs/fib.smp"), SPILLS_FIB),
        // Simple: 0, 0, 0.
        ("person", include_str!("progs/person.smp"), SPILLS_PERSON),
        // Simple: C 15 (Win64 42), 0, 0.
        (
            "arg_count",
            include_str!("progs/arg_count.smp"),
            SPILLS_ARG_COUNT,
        ),
    ];
    for (name, src, spills) in cases {
        for (i, (cpu, abi)) in [
            ("x86_64_v2", "SystemV"),
            ("x86_64_v2", "Win64"),
            ("riscv", "SystemV"),
            ("arm", "SystemV"),
        ]
        .into_iter()
        .enumerate()
        {
            let code = encode(src, cpu, abi);
            let got = code.alloc.as_ref().expect("allocated").splits_weighted;
            assert_eq!(got, spills[i], "{name} {cpu} {abi}: weighted spills");
        }
    }
}
const SPILLS_NEWTON: [u64; 4] = [34, 34, 10, 10];
const SPILLS_SIEVE: [u64; 4] = [183, 183, 75, 75];
const SPILLS_FIB: [u64; 4] = [24, 24, 17, 17];
const SPILLS_PERSON: [u64; 4] = [1, 1, 0, 0];
const SPILLS_ARG_COUNT: [u64; 4] = [7, 16, 4, 4];

/// Fuzz seed 5021: a call whose function pointer the optimizer resolved
/// stays linked to the function it could reach before (`g7`, the other
/// arm of `h13`); the call must go to the function its pointer names.
#[test]
fn a_resolved_call_goes_to_its_named_function() {
    let src = r#"struct S0 { bool f0; S0? f1; S0? f2; };
val g0 = { int n1 ->
  return ((n1 + (6 ^ (((n1 ? (7 > n1) : (n1 >> n1)) != n1) ? (n1 >>> (2 ? (8 <= n1) : n1)) : n1))) * ((n1 - n1) < (4 != 1)));
};
val g2 = { int n3, int n4, int n5 ->
  int c6 = 0;
  while (c6 < 3) {
    c6 = c6 + 1;
  }
};
val g7 = { int n8 ->
};
S0 !p9 = new S0;
int v10 = ((-p9.f0 - 2) >= 5);
int v11 = (((((v10 | v10) ? (7) : -arg) >>> g2((1 ^ v10), 2, v10)) >>> (7 & v10)) * (p9.f0 * 2));
{int -> int} !h12 = (((v11 < v11) != (3))) ? g7 : g0;
{int -> int} !h13 = (v11) ? g7 : g0;
int v14 = -((5 < arg) + (v10 - v11));
for (int c15 = 0; c15 < 1; c15 += 1) {
}
v10 = -h13(4);
v11 *= (((v14 ? (h12(((p9.f0 >> arg) ? (v11 < arg) : (((v11 << 2) ? (v10 * v11) : (0 * p9.f0)) > v11))) ^ v10) : (v14 != arg)) < v14) > (v14 == v14));
return ((p9.f0 != ((v11 / v11) ? (g2(v10, (v14 * arg), v14) >= v10) : -v11)) | (v10 - arg));
"#;
    let mut eval = CodeGen::new(src);
    eval.parse().and_then(|c| c.opto()).unwrap();
    let chapter21::Outcome::Value(want) = eval.eval(-7, 1000) else {
        panic!("the evaluator returns a value");
    };
    let code = encode(src, "x86_64_v2", "SystemV");
    let program = &code.encoded.as_ref().unwrap().program;
    let got = chapter21::run::native(program, code.returns(), &[-7]).unwrap();
    assert_eq!(got, [want.to_string()]);
}

/// Fuzz seed 56800: a load folded into a compare ran after the call that
/// makes the compare's other operand, so after the store of 7 to the
/// element it read; it must read `arg`.
#[test]
fn a_folded_load_reads_before_the_store_after_it() {
    let src = "val f = { int n -> return n + 5; };
val g = { int n -> return n + 6; };
{int -> int} !h = arg ? f : g;
int[] !a = new int[4];
a[1] = arg;
int v = a[arg & 1];
a[1] = 7;
return v < h(arg);";
    let code = encode(src, "x86_64_v2", "SystemV");
    let program = &code.encoded.as_ref().unwrap().program;
    let got = chapter21::run::native(program, code.returns(), &[1]).unwrap();
    assert_eq!(got, ["1"]);
}

/// Fuzz seed 50656: a division by `v` under `v ? .. : ..` floated out of
/// the loop above the test as a plain `idiv` and trapped when `v` was 0.
#[test]
fn a_division_floated_above_its_test_does_not_trap() {
    let src = "u8 v = arg == 5;
int r = 0;
for (int i = 0; i < 3; i++) {
  for (int j = 0; j < 2; j++) {
    r = r + (v ? arg / v : 1);
  }
  v = v + r;
}
return r;";
    let code = encode(src, "x86_64_v2", "SystemV");
    let program = &code.encoded.as_ref().unwrap().program;
    let got = chapter21::run::native(program, code.returns(), &[1]).unwrap();
    assert_eq!(got, ["2"]);
}

/// Fuzz seed 24598: a constant stored into a narrow field is written as
/// its low bytes; the immediate of x86's `movb` holds 65529 as -7.
#[test]
fn a_wide_constant_stored_into_a_byte_field_is_its_low_byte() {
    let src = "struct S { u8 b; };
val get = { S s -> return s.b; };
S !s = new S;
S !t = new S;
u16 v = -(-(-7));
for (int i = 0; i < 4; i += 1) { s.b = v; }
return get(arg ? s : t);";
    for abi in ["SystemV", "Win64"] {
        let code = encode(src, "x86_64_v2", abi);
        assert!(code.encoded.is_some(), "{abi}");
    }
    let code = encode(src, "x86_64_v2", "SystemV");
    let program = &code.encoded.as_ref().unwrap().program;
    let got = chapter21::run::native(program, code.returns(), &[1]).unwrap();
    assert_eq!(got, ["249"]);
}
