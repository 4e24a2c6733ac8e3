//! Sets of small indices, for the lattice: which functions a function
//! pointer may name, which call sites a function may return to.
//!
//! Simple keeps both sets in a 64-bit mask, so a program has at most 63
//! functions of one signature. A compiler course's generated tests and
//! benchmarks go past that, so here a set is a sorted list of members, or
//! the complement of one. The complement is what makes the set a lattice
//! with a dual: the meet is the union, the dual is the complement, the
//! empty set is the top and the complement of the empty set ("every index")
//! is the bottom. Union of two sorted lists is a merge, linear in their
//! lengths.

use std::cmp::Ordering;

/// A set of indices: exactly `members`, or, if `complement`, every index
/// but them.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct IdxSet {
    members: Box<[u32]>,
    complement: bool,
}

impl IdxSet {
    /// No index at all.
    pub fn empty() -> IdxSet {
        IdxSet {
            members: [].into(),
            complement: false,
        }
    }

    /// Every index.
    pub fn all() -> IdxSet {
        IdxSet {
            members: [].into(),
            complement: true,
        }
    }

    /// Just `idx`.
    pub fn one(idx: u32) -> IdxSet {
        IdxSet {
            members: [idx].into(),
            complement: false,
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.complement && self.members.is_empty()
    }

    pub fn is_all(&self) -> bool {
        self.complement && self.members.is_empty()
    }

    /// The one member of a set of one.
    pub fn single(&self) -> Option<u32> {
        match *self.members {
            [idx] if !self.complement => Some(idx),
            _ => None,
        }
    }

    /// The members of a finite set, in increasing order (`None` for a
    /// complement, which is infinite).
    pub fn members(&self) -> Option<&[u32]> {
        (!self.complement).then_some(&*self.members)
    }

    /// The listed indices, and whether the set is their complement.
    pub fn parts(&self) -> (&[u32], bool) {
        (&self.members, self.complement)
    }

    /// The set as Simple's 64-bit mask, if every index fits one (a
    /// complement is a negative mask).
    pub fn as_mask(&self) -> Option<i64> {
        let mut mask = 0i64;
        for &idx in self.members.iter() {
            if idx >= 64 {
                return None;
            }
            mask |= 1 << idx;
        }
        Some(if self.complement { !mask } else { mask })
    }

    /// Every index not in this set: the dual.
    pub fn complement(&self) -> IdxSet {
        IdxSet {
            members: self.members.clone(),
            complement: !self.complement,
        }
    }

    /// The union: the meet.
    pub fn union(&self, other: &IdxSet) -> IdxSet {
        let (x, y) = (&*self.members, &*other.members);
        let (members, complement) = match (self.complement, other.complement) {
            (false, false) => (merge(x, y, Keep::Either), false),
            // Not x, or not y: not both.
            (true, true) => (merge(x, y, Keep::Both), true),
            // x, or not y: not (y but not x).
            (false, true) => (merge(y, x, Keep::FirstOnly), true),
            (true, false) => (merge(x, y, Keep::FirstOnly), true),
        };
        IdxSet {
            members: members.into(),
            complement,
        }
    }

    /// Writes the set the way Simple prints a mask (`ALL`, `3`, `b101`);
    /// a set that no mask holds prints its members (`[1, 70]`, `-[70]`).
    pub fn print(&self, out: &mut String) {
        use std::fmt::Write;
        match self.as_mask() {
            Some(-1) => out.push_str("ALL"),
            Some(0) => {}
            Some(mask) if mask.count_ones() == 1 => {
                let _ = write!(out, "{}", mask.trailing_zeros());
            }
            Some(mask) => {
                let _ = write!(out, "b{mask:b}");
            }
            None => {
                let shown: Vec<String> = self.members.iter().map(u32::to_string).collect();
                let sign = if self.complement { "-" } else { "" };
                let _ = write!(out, "{sign}[{}]", shown.join(", "));
            }
        }
    }
}

/// Which members of two sorted lists a merge keeps.
#[derive(Copy, Clone)]
enum Keep {
    Either,
    Both,
    FirstOnly,
}

/// Merges two sorted lists of distinct members into one.
fn merge(x: &[u32], y: &[u32], keep: Keep) -> Vec<u32> {
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        let order = match (x.get(i), y.get(j)) {
            (Some(a), Some(b)) => a.cmp(b),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match order {
            Ordering::Less => {
                if matches!(keep, Keep::Either | Keep::FirstOnly) {
                    out.push(x[i]);
                }
                i += 1;
            }
            Ordering::Greater => {
                if matches!(keep, Keep::Either) {
                    out.push(y[j]);
                }
                j += 1;
            }
            Ordering::Equal => {
                if matches!(keep, Keep::Either | Keep::Both) {
                    out.push(x[i]);
                }
                i += 1;
                j += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::IdxSet;

    fn set(members: &[u32]) -> IdxSet {
        members
            .iter()
            .fold(IdxSet::empty(), |s, &m| s.union(&IdxSet::one(m)))
    }

    #[test]
    fn union_and_complement_agree_with_masks() {
        let sets = [
            IdxSet::empty(),
            IdxSet::all(),
            set(&[1]),
            set(&[1, 3]),
            set(&[2, 3, 5]),
            set(&[1]).complement(),
            set(&[0, 3]).complement(),
        ];
        for a in &sets {
            assert_eq!(a.complement().as_mask(), a.as_mask().map(|m| !m));
            for b in &sets {
                let (ma, mb) = (a.as_mask().unwrap(), b.as_mask().unwrap());
                assert_eq!(a.union(b).as_mask(), Some(ma | mb), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn large_indices_stay_distinct() {
        let s = set(&[70, 64, 200]);
        assert_eq!(s.members(), Some(&[64, 70, 200][..]));
        assert_eq!(s.as_mask(), None);
        assert_eq!(set(&[70]).single(), Some(70));
        let mut out = String::new();
        s.complement().print(&mut out);
        assert_eq!(out, "-[64, 70, 200]");
        assert!(s.complement().union(&s).is_all());
    }
}
