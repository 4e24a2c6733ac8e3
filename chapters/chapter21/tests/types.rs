//! Port of Simple's chapter 19 `TypeTest.java`.
//!
//! Chapter 18 rewrites the test around the nil lattice: `null` (Simple's
//! `NIL`) is a constant of no kind of pointer, its dual is `~nil`, and
//! pointers of two kinds meet at a plain pointer (`ptr`, `nptr`). The glb
//! of a struct or a pointer is read-only (its fields fall to final).
//!
//! Our sample of the lattice (`Types::gather`) is Simple's chapter 18
//! sample (nil, plain pointers, struct and function pointers, return
//! program counters, tuples, memory slices holding null or zero, an `int`
//! array) with a few more: floats as constants and `f32`, a field holding
//! zero, a function past the 64 that Simple's bit mask holds.
//! Simple also puts each field's alias in its type; ours stay with the
//! parser (see the README), so the structs here have none.
//!
//! Types are interned, so Java's `assertSame` (and `assertEquals`, which on
//! these types means the same thing) compares `TypeId`s.

use chapter21::types::{TypeId, Types};
use pretty_assertions::{assert_eq, assert_ne};

/// A struct type named `name` whose fields are all `int`, not final.
fn int_struct(t: &mut Types, name: &str, fields: &[&str]) -> TypeId {
    let fields: Vec<TypeId> = fields.iter().map(|f| t.field(f, Types::INT_BOT)).collect();
    t.struct_of(name, &fields)
}

// Basic properties and the GLB.
#[test]
fn test_type_ad_hoc() {
    let mut t = Types::new();
    // Null meets no integer short of the bottom, high or low.
    let one = t.int(1);
    assert_eq!(t.meet(one, Types::NULL), Types::BOTTOM);
    assert_eq!(t.meet(Types::INT_TOP, Types::NULL), Types::BOTTOM);

    let s1 = int_struct(&mut t, "s1", &["a", "b"]);
    let s2 = int_struct(&mut t, "s2", &["a", "b"]);
    // The glb of a struct is read-only, from itself or from its dual.
    let s1_ro = t.make_ro(s1);
    assert_eq!(t.glb(s1), s1_ro);
    let s1_dual = t.dual(s1);
    assert_ne!(s1, s1_dual);
    assert_eq!(t.glb(s1_dual), s1_ro);

    // A memory slice carries the type of what it holds.
    let m1 = t.mem_of(1, Types::NULL);
    let m2 = t.mem_of(2, Types::U16);
    let m3 = t.mem_of(3, Types::FLT_BOT);
    let m4 = t.mem_of(4, Types::INT_BOT);

    assert_ne!(m1, m2);
    assert_ne!(m2, m3);
    assert_ne!(m3, m4);

    assert_eq!(t.meet(s1, s2), Types::STRUCT_BOT);
    // Null and an int, null and a float, an int and a float: nothing in
    // common, so all of memory (Simple's alias 0 holding `Bot`).
    assert_eq!(t.meet(m1, m2), Types::MEM_BOT);
    assert_eq!(t.meet(m1, m3), Types::MEM_BOT);
    assert_eq!(t.meet(m3, m4), Types::MEM_BOT);

    // `null` is a constant of no kind: its glb is the bottom, its dual
    // `~nil`.
    assert_eq!(t.glb(m1), t.mem_of(1, Types::BOTTOM));
    assert_eq!(t.dual(m1), t.mem_of(1, Types::XNIL));
    assert_eq!(t.to_string(m1), "#1:null");
    assert_eq!(t.str(Types::XNIL), "~nil");
    let m4_glb = t.glb(m4);
    assert_eq!(t.dual(m4), t.dual(m4_glb));

    let ptr1 = t.ptr(s1, false);
    assert_eq!(t.pointee(ptr1), Some(s1));
    let ptr2 = t.ptr(s2, false);
    assert_eq!(t.pointee(ptr2), Some(s2));

    let ptr1nil = t.ptr(s1, true);
    assert_eq!(t.pointee(ptr1nil), Some(s1));
    assert!(t.is_nullable(ptr1nil));
    assert!(!t.not_null(ptr1nil));
    let ptr2nil = t.ptr(s2, true);
    assert_eq!(t.pointee(ptr2nil), Some(s2));

    assert_ne!(ptr1, ptr2);
    let ptr1_glb = t.glb(ptr1);
    assert_ne!(ptr1, ptr1_glb);
    let ptr1nil_ro = t.make_ro(ptr1nil);
    assert_eq!(ptr1_glb, ptr1nil_ro);

    let ptr1_dual = t.dual(ptr1);
    assert_eq!(t.dual(ptr1_dual), ptr1);
    let ptr1_glb_ro = t.make_ro(ptr1_glb);
    assert_eq!(t.glb(ptr1_dual), ptr1_glb_ro);
    assert_eq!(t.meet(ptr1, ptr2nil), Types::PTR_BOT);
    let ptr1_or_null = t.meet(ptr1, Types::NULL);
    assert_eq!(t.make_ro(ptr1_or_null), ptr1_glb);

    let (bot, ptr, null) = (Types::PTR_BOT, Types::VOID_PTR, Types::NULL);
    assert_eq!(t.meet(null, ptr), bot);
    assert_eq!(t.meet(ptr1, ptr2), ptr);
    // Null joined with a pointer that cannot be null is the high choice
    // of some not-null pointer.
    assert_eq!(t.join(null, ptr1), Types::XNPTR);
    assert_eq!(t.join(ptr, null), Types::XNPTR);
    // Java computes these two duals and checks nothing about them; we
    // check how they print.
    let ptr1nil_dual = t.dual(ptr1nil);
    assert_eq!(t.str(ptr1_dual), "~*s1");
    assert_eq!(t.str(ptr1nil_dual), "~*s1?");
    assert_eq!(t.str(Types::PTR_TOP), "~*$TOP?");
    assert_eq!(t.to_string(Types::PTR_TOP), "~*$TOP {}?");
    assert_eq!(t.to_string(bot), "*void?");
    assert_eq!(t.to_string(ptr), "*void");
}

// Not in the Java test: how pointers of the two kinds meet, through null
// and the plain pointers.
#[test]
fn struct_and_function_pointers_meet_through_nil() {
    let mut t = Types::new();
    let s1 = int_struct(&mut t, "s1", &["a"]);
    let ptr1 = t.ptr(s1, false);
    let fun = t.new_function(&[Types::INT_BOT], Types::INT_BOT);
    let fun_or_null = t.meet(fun, Types::NULL);
    assert_eq!(t.to_string(fun_or_null), "{ int -> int #1}?");
    assert!(t.is_nullable(fun_or_null));
    // Two kinds, neither null: some pointer, not null.
    assert_eq!(t.meet(ptr1, fun), Types::NPTR);
    assert_eq!(t.meet(ptr1, fun_or_null), Types::PTR);
    assert_eq!(t.to_string(Types::NPTR), "nptr");
    assert_eq!(t.to_string(Types::PTR), "ptr");
    // Null and its dual meet at the plain pointer that may be null.
    assert_eq!(t.meet(Types::NULL, Types::XNIL), Types::PTR);
    // `~nil` is above every pointer: it keeps only the nullness.
    assert_eq!(t.meet(Types::XNIL, ptr1), Types::NPTR);
    let ptr1nil = t.ptr(s1, true);
    assert_eq!(t.meet(Types::XNIL, ptr1nil), Types::PTR);
    // A test that a pointer is not null: `nptr` joined with it.
    let nz = t.non_zero(fun_or_null);
    assert_eq!(t.join(nz, fun_or_null), fun);
    let nz = t.non_zero(ptr1nil);
    assert_eq!(t.join(nz, ptr1nil), ptr1);
    // And that it is: null.
    assert_eq!(t.join(Types::NULL, ptr1nil), Types::NULL);
    // Every pointer is 8 bytes in memory, a function's too.
    assert_eq!(t.layout(fun).map(|l| l.size), Some(8));
}

// The lattice laws: the lattice is complete, bounded and symmetric (it has
// a dual, and join is the dual of the meet of the duals); meet is
// commutative and associative.
#[test]
fn test_lattice_theory() {
    let mut t = Types::new();
    let ts = t.gather();
    // Not in the Java test: the sample has floats in it, and Simple's
    // nil lattice.
    assert!(ts.contains(&Types::FLT_BOT) && ts.contains(&Types::FLT_TOP));
    assert!(ts.contains(&Types::NULL) && ts.contains(&Types::XNIL));
    assert!(ts.contains(&Types::NPTR) && ts.contains(&Types::XNPTR));

    // Commutative and complete.
    for &t0 in &ts {
        for &t1 in &ts {
            check_commute(&mut t, t0, t1);
            check_symmetric(&mut t, t0, t1);
        }
    }

    // Associative.
    for &t0 in &ts {
        for &t1 in &ts {
            for &t2 in &ts {
                assoc(&mut t, t0, t1, t2);
            }
        }
    }

    // Symmetry: if A isa B, then A join C isa B join C.
    for &t0 in &ts {
        for &t1 in &ts {
            if t.isa(t0, t1) {
                for &t2 in &ts {
                    let t02 = t.join(t0, t2);
                    let t12 = t.join(t1, t2);
                    let mt = t.meet(t02, t12);
                    assert_eq!(
                        mt,
                        t12,
                        "{} isa {}, joined with {}",
                        t.to_string(t0),
                        t.to_string(t1),
                        t.to_string(t2)
                    );
                }
            }
        }
    }
}

/// `t0 meet t1 == t1 meet t0`. (Java skips pairs whose meet flips its
/// arguments into a fixed order; our meet is symmetric throughout, so every
/// pair is checked.)
fn check_commute(t: &mut Types, t0: TypeId, t1: TypeId) {
    if t0 == t1 {
        return;
    }
    let mta = t.meet(t0, t1);
    let mtb = t.meet(t1, t0);
    assert_eq!(
        mta,
        mtb,
        "meet of {} and {} is not commutative",
        t.to_string(t0),
        t.to_string(t1)
    );
}

/// With `A meet B == MT`: `~A meet ~MT == ~A` and `~B meet ~MT == ~B`.
fn check_symmetric(t: &mut Types, t0: TypeId, t1: TypeId) {
    if t1 == t0 {
        return;
    }
    let mt = t.meet(t0, t1);
    let mt_dual = t.dual(mt);
    let (t0_dual, t1_dual) = (t.dual(t0), t.dual(t1));
    let ta = t.meet(mt_dual, t1_dual);
    let tb = t.meet(mt_dual, t0_dual);
    let pair = format!("{} and {}", t.to_string(t0), t.to_string(t1));
    assert_eq!(ta, t1_dual, "{pair}");
    assert_eq!(tb, t0_dual, "{pair}");
}

/// `(t0 meet t1) meet t2 == t0 meet (t1 meet t2)`.
fn assoc(t: &mut Types, t0: TypeId, t1: TypeId, t2: TypeId) {
    let t01 = t.meet(t0, t1);
    let t12 = t.meet(t1, t2);
    let t01_2 = t.meet(t01, t2);
    let t0_12 = t.meet(t0, t12);
    assert_eq!(
        t01_2,
        t0_12,
        "meet of {}, {} and {} is not associative",
        t.to_string(t0),
        t.to_string(t1),
        t.to_string(t2)
    );
}

// Cyclic types: `S1` points to `S2` and back, each through a forward
// reference, and the dual of the dual is the very same type.
#[test]
fn test_cyclic0() {
    let mut t = Types::new();
    let (s1, _) = t.cyclic_pair();
    let d0 = t.dual(s1);
    let d1 = t.dual(d0);
    assert_eq!(d1, s1);
}
