//! The randomised check of the iterative optimizer: the worklist hands out
//! nodes in a seeded random order, and any order must reach the same
//! program. Each program is optimized under many seeds; the printed results
//! must agree once node numbers (which depend on the order nodes were made
//! in) are renumbered by first appearance, and so must the evaluated values,
//! by both evaluators: the graph walk and the run of the schedule that
//! `iterate` ends with. The schedule itself may list blocks of equal depth
//! in another order, and its nodes have other numbers; as a bag of lines
//! with the numbers taken out, it must be the same.

use chapter21::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

const PROGRAMS: &[&str] = &[
    "int x = arg + arg; if (arg < 10) return arg + arg; else x = x + 1; return x;",
    "int sum = 0; int i = 0; while (i < arg) { i = i + 1; int j = 0; while (j < arg) { sum = sum + j; j = j + 1; } } return sum;",
    "int a = 1; int b = 2; while (a < 10) { if (a == 2) a = 3; else b = 4; b = b + 1; a = a + 1; } return b;",
    "while (arg < 10) { arg = arg + 1; if (arg == 5) break; if (arg == 6) break; } return arg;",
    "int step = 1; while (arg < 10) { arg = arg + step + 1; } return arg;",
    "int a = 1; int b = arg + 1; while (a < 10) { b = b + 1; a = a + 1; if (a == 5) continue; b = b * 2; } return b + a;",
    "int v0 = 0; while (0 == 1) while (v0) v0 = 1 + v0; return v0 + arg;",
    "int x = 1; int y = 2; if (arg) { x = y; y = x + 1; } else { y = x; x = y + 2; } return x * y - arg;",
    // Chapter 11: comments, loops without an exit, loads and stores.
    "if( arg < 2 ) return 0;\nint primeCount = 1;\nint prime = 3;\nwhile( prime <= arg ) {\n    int isPrime = 1;\n    // Check for even case, so the next loop need only check odds\n    if( (prime/2)*2 == prime )\n        continue;\n    // Check odds up to sqrt of prime\n    int j = 3;\n    while( j*j <= prime ) {\n        if( (prime/j)*j == prime ) {\n            isPrime = 0;\n            break;\n        }\n        j = j + 2;\n    }\n    if( isPrime )\n        primeCount = primeCount + 1;\n    prime = prime + 2;\n}\nreturn primeCount;\n",
    "while(arg) { while(1) arg=arg+1; } if(arg) return 1;",
    "int a = 0; while(1) { a = a + arg; if (a > 10) a = 0; }",
    "struct S { int f; };\nS !v = new S;\nS !t = new S;\nwhile(arg) {\n    arg=arg-1;\n    int f = v.f;\n    v.f = 2;\n    if (arg) arg = f;\n    else v.f = 3;\n}\nreturn arg;\n",
    "struct S { int f; }; S !s = new S; if (arg == 0) s.f = 1; else if (arg == 1) s.f = 1; return s.f;",
    "struct S { int f; }; S !v = new S; int i = arg; while (arg > 0) { int j = i / 3; if (arg == 5) v.f = j; arg = arg - 1; } return v.f;",
    // Chapter 12: floats.
    "flt guess = arg;\nwhile( 1 ) {\n    flt next = (arg/guess + guess)/2;\n    if( next == guess ) break;\n    guess = next;\n}\nreturn guess;\n",
    "flt sum = 0; int i = 1; while (i <= arg) { sum = sum + 1.0/i; i = i + 1; } return sum;",
    "struct P { flt x; flt y; }; P !p = new P; p.y = arg; while (arg > 0) { p.x = p.x * 0.5 + p.y; if (p.x > 3) p.y = -p.y; arg = arg - 1; } return p;",
    "flt a = arg; flt r; if (arg) r = a*2; else r = (a+1)*2; return r < 2.5 + a;",
    // Chapter 13: references, a list built and walked, a tree searched.
    "struct N { N? next; int v; };\nN? !head = null;\nint i = 0;\nwhile (i < arg) {\n    N !n = new N;\n    n.next = head;\n    n.v = i * i;\n    head = n;\n    i = i + 1;\n}\nint sum = 0;\nwhile (1) {\n    if (!head) break;\n    sum = sum + head.v;\n    head = head.next;\n}\nreturn sum;\n",
    "struct A { B? b; int x; }; struct B { A? a; int y; }; A !a = new A; B !b = new B; a.b = b; b.a = a; if (arg) { B? !c = a.b; if (c) c.y = arg; } return b.y + a.x;",
    "struct Tree { Node? root; };\nstruct Node { Node? left; Node? right; int key; };\nTree !t = new Tree;\nint k = 0;\nwhile( k < 7 ) {\n    int key = k*5 - (k/2)*9;\n    Node !n = new Node;\n    n.key = key;\n    Node? !at = t.root;\n    if( !at ) t.root = n;\n    while( 1 ) {\n        if( !at ) break;\n        if( key < at.key ) {\n            Node? !l = at.left;\n            if( !l ) at.left = n;\n            at = l;\n        } else {\n            Node? !r = at.right;\n            if( !r ) at.right = n;\n            at = r;\n        }\n    }\n    k = k + 1;\n}\nNode? !x = t.root;\nint depth = 0;\nwhile( 1 ) {\n    if( !x ) return -1;\n    if( x.key == arg ) return depth;\n    if( arg < x.key ) x = x.left;\n    else x = x.right;\n    depth = depth + 1;\n}\n",
    // Chapter 14: narrow types, ranges, the bitwise operators and shifts.
    "u8 b = arg; int n = 0; while (b != 0) { b = b + 1; n = n + 1; } return n;",
    "int x = arg; int n = 0; while (x != 0) { n = n + (x & 1); x = x >>> 1; } return n;",
    "i8 c = arg; i16 s = 0; while (c < 100) { s = s + c; c = c + 7; } return s;",
    "int d = -1; while (1) { int i = (arg & 7) + (9223372036854775807 - 7); if (arg & 1) i = ((arg&3) + (9223372036854775807 - 3)) & d; return i + -1; }",
    "int z = 0; while (1) { int j; if (arg&3) { j = arg >> 2; } else { j = (arg >> 3)+z; } return j+1; }",
    "f32 s = 0; int i = 0; while (i < arg) { s = s + 0.1; i = i + 1; } return s;",
    "struct P { u8 r; i16 g; f32 b; }; P !p = new P; int i = 0; while (i < arg) { p.r = p.r + 100; p.g = p.g * 3 + i; p.b = p.b + i; i = i + 1; } return p;",
];

/// Renumbers every `Name123` in printed output by order of first appearance.
fn normalize(printed: &str) -> String {
    let mut out = String::new();
    let mut seen: Vec<String> = Vec::new();
    let bytes: Vec<char> = printed.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() && i > 0 && bytes[i - 1].is_ascii_alphabetic() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let id: String = bytes[start..i].iter().collect();
            let k = seen.iter().position(|s| *s == id).unwrap_or_else(|| {
                seen.push(id.clone());
                seen.len() - 1
            });
            out.push_str(&format!("#{k}"));
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The lines of a schedule listing, with every number replaced by `N`
/// and every run of blanks by one (the columns are padded to the width of
/// the numbers, which may differ: node 99 in one order is node 101 in
/// another), sorted.
fn listing_shape(listing: &str) -> Vec<String> {
    let mut lines: Vec<String> = listing
        .lines()
        .map(|line| {
            let mut out = String::new();
            for c in line.chars() {
                if c.is_ascii_digit() {
                    if !out.ends_with('N') {
                        out.push('N');
                    }
                } else if c == ' ' {
                    if !out.ends_with(' ') {
                        out.push(' ');
                    }
                } else {
                    out.push(c);
                }
            }
            out
        })
        .collect();
    lines.sort();
    lines
}

/// What must not depend on the seed: the printed program (renumbered), the
/// values of the graph walk and of the schedule, and the shape of the
/// schedule's listing.
type Optimized = (String, Vec<Outcome>, Vec<Outcome>, Vec<String>);

fn optimize(src: &str, seed: u64) -> Optimized {
    let mut code = CodeGen::new(src);
    code.parse().expect("test programs are valid");
    code.with_seed(seed)
        .iterate()
        .expect("test programs are valid");
    const ARGS: [i64; 7] = [-3, 0, 1, 2, 7, 12, 100];
    let values = ARGS.map(|arg| code.eval(arg, 1000)).to_vec();
    let scheduled = ARGS.map(|arg| code.eval_scheduled(arg, 1000)).to_vec();
    (
        normalize(&code.print()),
        values,
        scheduled,
        listing_shape(&code.ir()),
    )
}

#[test]
fn every_visiting_order_reaches_the_same_program() {
    for src in PROGRAMS {
        let reference = optimize(src, 123);
        // The schedule runs as the graph does.
        assert_eq!(reference.2, reference.1, "the schedule of {src}");
        for seed in 0..64 {
            assert_eq!(optimize(src, seed), reference, "seed {seed} on {src}");
        }
    }
}

#[test]
fn listing_shape_ignores_numbers_and_order() {
    assert_eq!(
        listing_shape("L12: [[ L6 ]]\n  13 #10  6 [[ 12 ]] 10\nSTART:"),
        [" N #N N [[ N ]] N", "LN: [[ LN ]]", "START:"]
    );
    // Nor the padding that the width of the numbers makes.
    assert_eq!(
        listing_shape("  99 Add    8   7\n 101 Add    8 100"),
        [" N Add N N", " N Add N N"]
    );
}

#[test]
fn normalize_renumbers_by_first_appearance() {
    assert_eq!(
        normalize("return Phi(Loop8,0,Phi(Loop21,Phi_sum,(Phi(Loop,0,2))));"),
        "return Phi(Loop#0,0,Phi(Loop#1,Phi_sum,(Phi(Loop,0,2))));"
    );
}
