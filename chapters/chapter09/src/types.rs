//! The type lattice, hash-consed.
//!
//! Every node carries a type: what the optimizer knows about the values the
//! node can produce. Types form a lattice. `Top` means "no value has been
//! seen yet" (an unreachable or not-yet-computed value), `Bottom` means "any
//! value at all"; `meet` moves down towards `Bottom` and is how the facts of
//! several paths are combined. Integers form a three-level lattice of their
//! own: `IntTop`, every constant, `IntBot`. Control has a two-level one:
//! `~Ctrl` (dead) above `Ctrl` (live).
//!
//! Types are interned in a [`Types`] table: each distinct type is stored once
//! and named by a small [`TypeId`], so comparing two types is comparing two
//! integers, and a tuple of types is a slice of ids. The ids of the common
//! types are fixed constants.

use rustc_hash::FxHashMap;
use std::fmt::Write;

/// A handle to an interned type; equal ids mean equal types.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct TypeId(u32);

impl TypeId {
    /// The position of the type in its table.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// The structure of a type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// All values: the lattice bottom.
    Bottom,
    /// No value: the lattice top.
    Top,
    /// Live control flow.
    Ctrl,
    /// Dead control flow.
    XCtrl,
    /// An integer lattice element.
    Int(Int),
    /// A fixed-size collection of unrelated types, e.g. the values of `Start`.
    Tuple(Box<[TypeId]>),
}

/// The integer lattice: top, one constant, or bottom.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Int {
    Top,
    Con(i64),
    Bot,
}

/// The table of interned types.
pub struct Types {
    list: Vec<Type>,
    ids: FxHashMap<Type, TypeId>,
}

impl Types {
    pub const BOTTOM: TypeId = TypeId(0);
    pub const TOP: TypeId = TypeId(1);
    pub const CTRL: TypeId = TypeId(2);
    pub const XCTRL: TypeId = TypeId(3);
    pub const INT_TOP: TypeId = TypeId(4);
    pub const INT_BOT: TypeId = TypeId(5);
    pub const INT_ZERO: TypeId = TypeId(6);
    /// Both arms of an `If` are reachable.
    pub const IF_BOTH: TypeId = TypeId(7);
    /// Neither arm of an `If` is reachable.
    pub const IF_NEITHER: TypeId = TypeId(8);
    /// Only the true arm is reachable.
    pub const IF_TRUE: TypeId = TypeId(9);
    /// Only the false arm is reachable.
    pub const IF_FALSE: TypeId = TypeId(10);

    pub fn new() -> Self {
        let mut types = Types {
            list: Vec::new(),
            ids: FxHashMap::default(),
        };
        let fixed = [
            (Type::Bottom, Self::BOTTOM),
            (Type::Top, Self::TOP),
            (Type::Ctrl, Self::CTRL),
            (Type::XCtrl, Self::XCTRL),
            (Type::Int(Int::Top), Self::INT_TOP),
            (Type::Int(Int::Bot), Self::INT_BOT),
            (Type::Int(Int::Con(0)), Self::INT_ZERO),
            (Type::Tuple([Self::CTRL, Self::CTRL].into()), Self::IF_BOTH),
            (
                Type::Tuple([Self::XCTRL, Self::XCTRL].into()),
                Self::IF_NEITHER,
            ),
            (Type::Tuple([Self::CTRL, Self::XCTRL].into()), Self::IF_TRUE),
            (
                Type::Tuple([Self::XCTRL, Self::CTRL].into()),
                Self::IF_FALSE,
            ),
        ];
        for (ty, id) in fixed {
            let got = types.intern(ty);
            debug_assert_eq!(got, id);
        }
        types
    }

    /// The id of `ty`, adding it to the table if it is new.
    pub fn intern(&mut self, ty: Type) -> TypeId {
        if let Some(&id) = self.ids.get(&ty) {
            return id;
        }
        let id = TypeId(self.list.len() as u32);
        self.list.push(ty.clone());
        self.ids.insert(ty, id);
        id
    }

    pub fn get(&self, id: TypeId) -> &Type {
        &self.list[id.0 as usize]
    }

    /// The integer constant `value`.
    pub fn int(&mut self, value: i64) -> TypeId {
        self.intern(Type::Int(Int::Con(value)))
    }

    pub fn tuple(&mut self, elems: &[TypeId]) -> TypeId {
        self.intern(Type::Tuple(elems.into()))
    }

    /// The value of an integer constant type, or `None`.
    pub fn int_value(&self, id: TypeId) -> Option<i64> {
        match self.get(id) {
            Type::Int(Int::Con(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn is_int(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Int(_))
    }

    /// An integer constant.
    pub fn is_constant(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Int(Int::Con(_)))
    }

    /// Types a Constant node can stand for: constants, and the high types
    /// (`Top`, `~Ctrl`, `IntTop`) that say the value is never produced.
    pub fn is_high_or_const(&self, id: TypeId) -> bool {
        matches!(
            self.get(id),
            Type::Top | Type::XCtrl | Type::Int(Int::Con(_) | Int::Top)
        )
    }

    /// The mirror image of a type across the lattice: top and bottom swap,
    /// constants stay.
    pub fn dual(&mut self, id: TypeId) -> TypeId {
        match self.get(id).clone() {
            Type::Bottom => Self::TOP,
            Type::Top => Self::BOTTOM,
            Type::Ctrl => Self::XCTRL,
            Type::XCtrl => Self::CTRL,
            Type::Int(Int::Top) => Self::INT_BOT,
            Type::Int(Int::Bot) => Self::INT_TOP,
            Type::Int(Int::Con(_)) => id,
            Type::Tuple(elems) => {
                let duals: Vec<TypeId> = elems.iter().map(|&e| self.dual(e)).collect();
                self.tuple(&duals)
            }
        }
    }

    /// The least upper bound of two types: the dual of the meet of the duals.
    pub fn join(&mut self, a: TypeId, b: TypeId) -> TypeId {
        if a == b {
            return a;
        }
        let (da, db) = (self.dual(a), self.dual(b));
        let m = self.meet(da, db);
        self.dual(m)
    }

    /// Element `i` of a tuple type.
    pub fn tuple_elem(&self, id: TypeId, i: usize) -> Option<TypeId> {
        match self.get(id) {
            Type::Tuple(elems) => elems.get(i).copied(),
            _ => None,
        }
    }

    /// The greatest lower bound of two types.
    pub fn meet(&mut self, a: TypeId, b: TypeId) -> TypeId {
        if a == b {
            return a;
        }
        match (self.get(a), self.get(b)) {
            (Type::Bottom, _) | (_, Type::Top) => a,
            (Type::Top, _) | (_, Type::Bottom) => b,
            (Type::Ctrl | Type::XCtrl, Type::Ctrl | Type::XCtrl) => Self::CTRL,
            (Type::Tuple(x), Type::Tuple(y)) if x.len() == y.len() => {
                let (x, y) = (x.clone(), y.clone());
                let elems: Vec<TypeId> = x
                    .iter()
                    .zip(y.iter())
                    .map(|(&p, &q)| self.meet(p, q))
                    .collect();
                self.tuple(&elems)
            }
            (Type::Int(x), Type::Int(y)) => match (*x, *y) {
                (Int::Bot, _) | (_, Int::Top) => a,
                (Int::Top, _) | (_, Int::Bot) => b,
                // Two different constants: the values could be either.
                (Int::Con(_), Int::Con(_)) => Self::INT_BOT,
            },
            // Unrelated kinds of type (tuples included) meet at bottom.
            _ => Self::BOTTOM,
        }
    }

    /// Appends the printed form of a type, as Simple prints it.
    pub fn print(&self, id: TypeId, out: &mut String) {
        match self.get(id) {
            Type::Bottom => out.push_str("Bot"),
            Type::Top => out.push_str("Top"),
            Type::Ctrl => out.push_str("Ctrl"),
            Type::XCtrl => out.push_str("~Ctrl"),
            Type::Int(Int::Top) => out.push_str("IntTop"),
            Type::Int(Int::Bot) => out.push_str("IntBot"),
            Type::Int(Int::Con(v)) => {
                let _ = write!(out, "{v}");
            }
            Type::Tuple(elems) => {
                out.push('[');
                for (i, &e) in elems.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.print(e, out);
                }
                out.push(']');
            }
        }
    }

    pub fn to_string(&self, id: TypeId) -> String {
        let mut s = String::new();
        self.print(id, &mut s);
        s
    }
}

impl Default for Types {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_gives_one_id_per_type() {
        let mut t = Types::new();
        assert_eq!(t.int(0), Types::INT_ZERO);
        assert_eq!(t.int(7), t.int(7));
        assert_ne!(t.int(7), t.int(8));
    }

    #[test]
    fn meet_follows_the_lattice() {
        let mut t = Types::new();
        let (one, two) = (t.int(1), t.int(2));
        assert_eq!(t.meet(one, one), one);
        assert_eq!(t.meet(one, two), Types::INT_BOT);
        assert_eq!(t.meet(Types::INT_TOP, two), two);
        assert_eq!(t.meet(Types::XCTRL, Types::CTRL), Types::CTRL);
        assert_eq!(t.meet(Types::XCTRL, Types::XCTRL), Types::XCTRL);
        assert_eq!(t.meet(Types::TOP, one), one);
        assert_eq!(t.meet(Types::CTRL, one), Types::BOTTOM);
        assert_eq!(t.meet(Types::IF_TRUE, Types::IF_FALSE), Types::IF_BOTH);
    }

    #[test]
    fn join_is_the_dual_of_meet() {
        let mut t = Types::new();
        let (one, two) = (t.int(1), t.int(2));
        assert_eq!(t.join(one, two), Types::INT_TOP);
        assert_eq!(t.join(Types::INT_BOT, one), one);
        assert_eq!(t.join(Types::CTRL, Types::XCTRL), Types::XCTRL);
        assert_eq!(t.dual(Types::IF_TRUE), Types::IF_FALSE);
    }
}
