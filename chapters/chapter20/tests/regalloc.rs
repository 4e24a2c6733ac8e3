//! Chapter 20: register allocation, on the programs of Simple's
//! `Chapter20Test.java` and of its BrainFuck and merge sort tests, for
//! x86-64 (System V, and Win64 for a few), RISC-V and ARM.
//!
//! Each program goes through every phase (Java: `parse().opto()
//! .typeCheck().instSelect(cpu, abi).GCM().localSched().regAlloc()`; ours
//! also legalizes), and the test checks Simple's printed program where
//! Simple checks it (a split prints as `mov(x)`) and pins our weighted
//! spill count: the splits left, each weighted 8^d by its loop depth d.
//! These are our own figures, kept as regression expectations; Simple's
//! are in the comments (its test allows them a slack of an eighth).
//! Every allocation also lists (`simple asm`) without a virtual register
//! left.

use chapter20::CodeGen;

#[path = "support/verify.rs"]
mod support;
use pretty_assertions::assert_eq;
use support::verify;

/// Every phase down to allocated registers.
fn alloc(src: &str, cpu: &str, abi: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select(cpu, abi))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .and_then(|c| c.reg_alloc())
        .unwrap_or_else(|e| panic!("{cpu} {abi} {src:?}: {e:?}"));
    code
}

/// Java's `testCPU(src, cpu, os, spills, stop)`, with our spill count.
#[track_caller]
fn test_cpu(src: &str, cpu: &str, abi: &str, spills: u64, stop: Option<&str>) {
    let code = alloc(src, cpu, abi);
    let a = code.alloc.as_ref().expect("allocated");
    let asm = code.asm();
    if let Err(e) = verify(&code) {
        panic!("{cpu} {abi}: {e}\n{asm}");
    }
    if std::env::var_os("LISTING").is_some() {
        eprintln!("{cpu} {abi}:\n{asm}");
    }
    if let Some(stop) = stop {
        if std::env::var_os("SPILLS").is_some() && code.print() != stop {
            eprintln!("PRINT {cpu} {abi}: {}", code.print());
        } else {
            assert_eq!(code.print(), stop, "{cpu} {abi}");
        }
    }
    assert!(
        !asm.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w.len() > 1
                && w.starts_with('v')
                && w[1..].bytes().all(|b| b.is_ascii_digit())),
        "{cpu} {abi}: a virtual register is left:\n{asm}"
    );
    if std::env::var_os("SPILLS").is_some() {
        eprintln!(
            "SPILLS {cpu} {abi}: {} (splits {}, rounds {})",
            a.splits_weighted, a.splits, a.rounds
        );
        return;
    }
    assert_eq!(
        a.splits_weighted, spills,
        "{cpu} {abi}: weighted spills\n{asm}"
    );
}

/// Our figures for x86-64, RISC-V and ARM.
#[track_caller]
fn test_all(src: &str, spills: [u64; 3], stop: Option<&str>) {
    test_cpu(src, "x86_64_v2", "SystemV", spills[0], stop);
    test_cpu(src, "riscv", "SystemV", spills[1], stop);
    test_cpu(src, "arm", "SystemV", spills[2], stop);
}

#[test]
fn test_jig() {
    let mut code = CodeGen::new("return 0;");
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .unwrap();
    assert_eq!(code.print(), "return 0;");
    test_all("return 0;", [0, 0, 0], Some("return 0;"));
}

#[test]
fn test_alloc0() {
    // Simple: 1, 1, 1.
    test_all("return new u8[arg];", [2, 1, 1], Some("return [u8];"));
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

const NEWTON_INT: &str = "\
// Newtons approximation to the square root
val sqrt = { int x ->
    int guess = x;
    while( 1 ) {
        int next = (x/guess + guess)/2;
        if( next == guess ) return guess;
        guess = next;
    }
};
return sqrt(arg) + sqrt(arg+2);
";

#[test]
fn test_newton_integer() {
    // Simple: 26, 19, 26.
    test_all(NEWTON_INT, [54, 14, 14], None);
    test_cpu(NEWTON_INT, "x86_64_v2", "Win64", 55, None);
}

const NEWTON_FLT: &str = "\
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
return sqrt(farg) + sqrt(farg+2.0);
";

#[test]
fn test_newton_float() {
    // Simple: 25, 21, 18.
    test_all(NEWTON_FLT, [24, 13, 13], None);
    test_cpu(NEWTON_FLT, "x86_64_v2", "Win64", 22, None);
}

#[test]
fn test_alloc2() {
    // Simple: 1, 1, 1.
    test_all(
        "int[] !xs = new int[3]; xs[arg]=1; return xs[arg&1];",
        [2, 0, 1],
        Some("return .[];"),
    );
}

const ARRAY1: &str = "\
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
    // Simple: 3, 1, 1.
    // Simple prints `return .[];` for x86: its last add of a load goes
    // straight to `rax`; ours is copied there, as the array's base keeps
    // `rax` (where `calloc` left it) until that load.
    test_cpu(ARRAY1, "x86_64_v2", "SystemV", 3, Some("return mov(.[]);"));
    test_cpu(
        ARRAY1,
        "riscv",
        "SystemV",
        1,
        Some("return (add,.[],(mul,.[],1000));"),
    );
    // Simple prints `(muli,.[])` for ARM: its selector keeps a multiply by
    // an immediate, which ARM has not; our legalizer (chapter 19) makes it
    // a `mul` by a constant.
    test_cpu(
        ARRAY1,
        "arm",
        "SystemV",
        1,
        Some("return (add,.[],(mul,.[],1000));"),
    );
}

const STRING: &str = "\
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
hashCode(s);
";

#[test]
fn test_string() {
    // Simple: 18, 3, 3.
    test_all(STRING, [12, 4, 4], None);
}

#[test]
fn test_cast() {
    // Simple: 0, 0, 0.
    test_all(
        "struct Bar { int x; }; var b = arg ? new Bar;  return b ? b.x++ + b.x++ : -1;",
        [1, 0, 0],
        None,
    );
}

#[test]
fn test_flt_arg() {
    // Simple: 0, 0, 0.
    let src = "return {int i, flt f, int j->return i+f+j;};";
    test_all(src, [1, 0, 0], None);
    test_cpu(src, "x86_64_v2", "Win64", 0, None);
}

#[test]
fn test_flags1() {
    let src = "\
bool b1 = arg == 1;
bool b2 = arg == 2;
if (b2) if (b1) return 1;
if (b1) return 2;
return 0;
";
    // Simple: 0, 0, 0.
    test_all(src, [0, 0, 0], Some("return Phi(Region,1,2,0);"));
}

#[test]
fn test_flags2() {
    let src = "\
bool b1 = arg == 1;
while (arg > 0) {
    arg--;
    if (b1) arg--;
}
return arg;
";
    // Simple: 3, 2, 2.
    test_all(src, [1, 10, 2], None);
}

fn brainfuck() -> String {
    let program = "++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]>>.>---.+++++++..+++.>>.<-.<.+++.------.--------.>>+.>++.";
    let mut src = format!("u8[] !program = new u8[{}];", program.len());
    for (i, b) in program.bytes().enumerate() {
        src.push_str(&format!("program[{i}] = {b};"));
    }
    src.push_str(
        "
int d = 0;
u8[] !output = new u8[0];
u8[] !data = new u8[100];

for( int pc = 0; pc < program#; pc++ ) {
    var command = program[pc];
    if (command == 62) {
        d++;
    } else if (command == 60) {
        d--;
    } else if (command == 43) {
        data[d]++;
    } else if (command == 45) {
        data[d]--;
    } else if (command == 46) {
        // Output a byte; increase the output array size
        var old = output;
        output = new u8[output# + 1];
        for( int i = 0; i < old#; i++ )
            output[i] = old[i];
        output[old#] = data[d]; // Add the extra byte on the end
    } else if (command == 44) {
        data[d] = 42;
    } else if (command == 91) {
        if (data[d] == 0) {
            for( int d = 1; d > 0; ) {
                command = program[++pc];
                if (command == 91) d++;
                if (command == 93) d--;
            }
        }
    } else if (command == 93) {
        if (data[d]) {
            for( int d = 1; d > 0; ) {
                command = program[--pc];
                if (command == 93) d++;
                if (command == 91) d--;
            }
        }
    }
}
return output;
",
    );
    src
}

#[test]
fn test_brainfuck() {
    // Simple: 28, 18, 12.
    test_all(&brainfuck(), [52, 52, 81], None);
}

const MERGE_SORT: &str = "\
// based on the top-down version from https://en.wikipedia.org/wiki/Merge_sort

val merge_sort = { int[] a, int[] b, int n ->
    copy_array(a, 0, n, b);
    split_merge(a, 0, n, b);
};

val split_merge = { int[] b, int begin, int end, int[] a ->
    if (end - begin <= 1)
        return 0;
    int middle = (end + begin) / 2;
    split_merge(a, begin, middle, b);
    split_merge(a, middle, end, b);
    merge(b, begin, middle, end, a);
    return 0;
};

val merge = { int[] b, int begin, int middle, int end, int[] a ->
    int i = begin, j = middle;

    for (int k = begin; k < end; k++) {
        // && and ||
        bool cond = false;
        if (i < middle) {
            if (j >= end)          cond = true;
            else if (a[i] <= a[j]) cond = true;
        }
        if (cond) b[k] = a[i++];
        else      b[k] = a[j++];
    }
};

val copy_array = { int[] a, int begin, int end, int[] b ->
    for (int k = begin; k < end; k++)
        b[k] = a[k];
};

int[] !a = new int[arg];
int[] !b = new int[a#];

for (int i = 0; i < a#; i++)
    a[i] = a# - i;

merge_sort(a, b, a#);

return a;
";

#[test]
fn test_merge_sort() {
    // Simple: 46, 36, 37, each printing "Stop[ return mov(mov([int])); return 0; ]".
    test_all(MERGE_SORT, [66, 45, 41], None);
    test_cpu(MERGE_SORT, "x86_64_v2", "Win64", 73, None);
}

/// The check above finds a wrong location.
#[test]
fn verify_catches_a_wrong_register() {
    use chapter20::regalloc::Loc;
    let mut code = alloc(NEWTON_INT, "riscv", "SystemV");
    verify(&code).unwrap();
    let a = code.alloc.as_mut().unwrap();
    let mut keys: Vec<_> = a.loc.keys().copied().collect();
    keys.sort();
    let mut caught = 0;
    for k in keys {
        let old = a.loc[&k];
        let new = match old {
            Loc::Reg(r) if r < 32 => Loc::Reg(if r == 5 { 6 } else { 5 }),
            _ => continue,
        };
        code.alloc.as_mut().unwrap().loc.insert(k, new);
        if verify(&code).is_err() {
            caught += 1;
        }
        code.alloc.as_mut().unwrap().loc.insert(k, old);
        break;
    }
    assert_eq!(caught, 1);
}

/// Fuzz seed 72657: a live range that may take any register took `rcx`,
/// the only register of a shift count beside it; splitting the count
/// again met the same choice every round, and x86 gave up after 12.
/// Colouring now leaves a neighbour its only register when another will
/// do.
#[test]
fn a_neighbour_keeps_its_only_register() {
    let src = r#"
struct S0 { flt f0 = 1.5; flt f1; };
val r0 = { int n1, int n2, int n3 ->
};
val g5 = { int n6, int n7, int n8 ->
};
S0 !p10 = new S0 { f0 = (0.1 + 2.0); };
i64 v11 = (((arg + arg) + (arg < r0(((arg + arg)) & 7, (arg * arg), (arg + 5)))) ^ arg);
flt x12 = ((-p10.f1 / p10.f1) / -3.0);
flt[] !a13 = new flt[4 + (arg & 3)];
S0?[] !a14 = new S0?[4 + (arg & 3)];
for (int c16 = 0; c16 < 4; c16 += 1) {
  v11 = (((arg * 8) ? (7 * (x12 >= ((v11) / x12))) : (a14# | 4)) ^ ((arg << v11) - (r0(((v11)) & 7, v11, (arg / v11)) - v11)));
  if (((a14# >= v11) > (arg <= arg))) {
  }
}
v11--;
for (int c18 = 0; c18 < 3; c18 += 1) {
  int c19 = 0;
  while (c19 < 5) {
    c19 = c19 + 1;
    int c20 = 0;
    while (c20 < 5) {
      c20 = c20 + 1;
      p10.f0 = a13[((((((x12 / p10.f1) >= ((a14# & v11) - x12)) << v11) ? (6 >= arg) : (arg > v11)) ? v11 : ((arg < v11) ? (7 >>> v11) : (v11 == a14#))) == a13#) & 3];
    }
  }
}
flt x21 = (v11 ^ arg);
v11 += a13#;
int v22 = ((arg * -arg) << ((v11 & ((v11 > r0(((v11 & (v11 ? (a14# >> a14#) : ((0.5 <= (x12 + x12)) >= v11)))) & 7, (a13# < v11), v11)) ? -a13# : (a14# > 2))) ^ -v11));
S0? !t23 = a14[(arg - ((0.0 * x21) > (x21 + (v22 + arg)))) & 3];
"#;
    for (cpu, abi) in [
        ("x86_64_v2", "SystemV"),
        ("x86_64_v2", "Win64"),
        ("riscv", "SystemV"),
        ("arm", "SystemV"),
    ] {
        let code = alloc(src, cpu, abi);
        verify(&code).unwrap_or_else(|e| panic!("{cpu} {abi}: {e}"));
        let rounds = code.alloc.as_ref().expect("allocated").rounds;
        assert!(rounds <= 6, "{cpu} {abi}: {rounds} rounds");
    }
}
