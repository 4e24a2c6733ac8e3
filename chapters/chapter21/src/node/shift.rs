//! Shl, Sar and Shr: the shifts `<<`, `>>` (arithmetic: the sign bit fills
//! in from the left) and `>>>` (logical: zeros fill in), on 64-bit
//! integers (chapter 14).
//!
//! As in Java, only the low six bits of the count are used, so `x<<64` is
//! `x`, and a shift by a constant that is 0 modulo 64 is dropped. A
//! right shift by a count known to lie in `[0,63]` bounds its result: an
//! end of the result's range is an end of the shifted range shifted by an
//! end of the count's range, because shifting right moves a value towards
//! 0 (or -1) the further it shifts. So `x>>56` is an `i8` whatever `x` is,
//! which is how the parser narrows a value to a signed type: `i8 b = x`
//! stores `(x<<56)>>56`. A left shift folds constants only.
//!
//! Chapter 15 adds one rewrite for array addresses: a left shift of a sum
//! with a constant distributes over it, `(x+c)<<i` to `(x<<i)+(c<<i)`.
//!
//! Simple takes both ends of a right shift's result from the smallest
//! count only, which is wrong once the count varies (`[8,16]>>[1,3]` holds
//! 1, below `8>>1`), and for `>>>` of a range that holds -1 it misses the
//! largest result; we take the ends that can occur. On every program of
//! Simple's tests the two agree.

use super::NodeKind;
use crate::graph::{Graph, NodeId};
use crate::types::{Int, TypeId, Types};

/// The shift count Java uses: the low six bits.
pub fn count(b: i64) -> u32 {
    (b & 63) as u32
}

pub fn shl(a: i64, b: i64) -> i64 {
    a.wrapping_shl(count(b))
}

pub fn sar(a: i64, b: i64) -> i64 {
    a >> count(b)
}

pub fn shr(a: i64, b: i64) -> i64 {
    ((a as u64) >> count(b)) as i64
}

/// The type of `in(1) << in(2)`.
pub fn compute_shl(g: &mut Graph, n: NodeId) -> TypeId {
    if let Some(zero) = zero_shifted(g, n) {
        return zero;
    }
    super::int_binary(g, n, shl)
}

/// Chapter 16: 0 shifted by any count is 0.
fn zero_shifted(g: &Graph, n: NodeId) -> Option<TypeId> {
    let (t1, t2) = (g.ty(g.in_(n, 1)), g.ty(g.in_(n, 2)));
    (t1 == Types::INT_ZERO && !g.types.is_high(t2)).then_some(Types::INT_ZERO)
}

/// The type of `in(1) >> in(2)` or `in(1) >>> in(2)`: `range` gives the
/// result's range for a value range and a count range within `[0,63]`.
pub fn compute_right(
    g: &mut Graph,
    n: NodeId,
    fold: fn(i64, i64) -> i64,
    range: fn(Int, i64, i64) -> Option<(i64, i64)>,
) -> TypeId {
    if let Some(zero) = zero_shifted(g, n) {
        return zero;
    }
    super::int_binary_ranges(g, n, fold, |x, s| {
        if s.min < 0 || s.max > 63 {
            return None; // the count wraps around
        }
        range(x, s.min, s.max)
    })
}

/// `x >> s` for `x` in `x` and `s` in `[s0,s1]`: for a fixed count the
/// shift keeps order, and for a fixed value a longer shift moves it
/// towards 0 or -1.
pub fn sar_range(x: Int, s0: i64, s1: i64) -> Option<(i64, i64)> {
    let lo = sar(x.min, s0).min(sar(x.min, s1));
    let hi = sar(x.max, s0).max(sar(x.max, s1));
    Some((lo, hi))
}

/// `x >>> s` for `x` in `x` and `s` in `[s0,s1]`. Taken as unsigned,
/// values of one sign keep their order, and the shift by at least one
/// makes every result non-negative.
pub fn shr_range(x: Int, s0: i64, s1: i64) -> Option<(i64, i64)> {
    if x.min >= 0 {
        return Some((shr(x.min, s1), shr(x.max, s0)));
    }
    if s0 == 0 {
        // Negative values stay negative and others do not: no range.
        return None;
    }
    if x.max < 0 {
        return Some((shr(x.min, s1), shr(x.max, s0)));
    }
    // Both signs, so 0 and -1 (the largest unsigned value) are in range.
    Some((0, shr(-1, s0)))
}

/// A shift by a count that is 0 modulo 64 is no shift (of an integer: a
/// shift of anything else stays, to be reported).
pub fn idealize(g: &mut Graph, n: NodeId) -> Option<NodeId> {
    let (x, t2) = (g.in_(n, 1), g.ty(g.in_(n, 2)));
    let by = g.types.int_value(t2)?;
    if count(by) == 0 {
        return g.types.is_int(g.ty(x)).then_some(x);
    }
    // Chapter 15, for array addresses: `(x+c)<<i` is `(x<<i)+(c<<i)`, so
    // that the constant part of an index (`a[i+1]`) joins the array's base
    // offset: `((i+1)<<3)+8` becomes `(i<<3)+16`. Only while `c<<i` is a
    // 32-bit value, as in Simple.
    if matches!(g.kind(n), NodeKind::Shl) && matches!(g.kind(x), NodeKind::Add) {
        let c = g.types.int_value(g.ty(g.in_(x, 2)))?;
        // (Adding 0 is for Add's own rules to drop.)
        if c == 0 {
            return None;
        }
        let sum = c.wrapping_shl(count(by));
        if i32::try_from(sum).is_ok() {
            let inner = g.in_(x, 1);
            let shl = g.add_node(NodeKind::Shl, vec![None, Some(inner), Some(g.in_(n, 2))]);
            let shl = super::peephole(g, shl);
            let ty = g.types.int(sum);
            let con = super::new_constant(g, ty);
            let con = super::peephole(g, con);
            return Some(g.add_node(NodeKind::Add, vec![None, Some(shl), Some(con)]));
        }
    }
    None
}
