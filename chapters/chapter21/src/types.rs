//! The type lattice, hash-consed.
//!
//! Every node carries a type: what the optimizer knows about the values the
//! node can produce. Types form a lattice. `Top` means "no value has been
//! seen yet" (an unreachable or not-yet-computed value), `Bottom` means "any
//! value at all"; `meet` moves down towards `Bottom` and is how the facts of
//! several paths are combined. Control has a two-level lattice of its own:
//! `~Ctrl` (dead) above `Ctrl` (live).
//!
//! Chapter 14 makes an integer type a *range* `[min,max]` of 64-bit values
//! (see [`Int`]): `int` is the full range, a constant is a range of one,
//! and the narrow types `i8`, `u8`, `bool`... are the ranges their bits
//! can hold. The meet of two ranges is the smallest range covering both,
//! so a phi of 0 and 1 is `bool`, and what an operation knows of its
//! operands' ranges bounds its result: `(arg&15) < 0` is false.
//!
//! Chapter 12 added floats. Chapter 14 sizes them (see [`Flt`]): `flt`
//! (also `f64`) is every 64-bit IEEE double, `f32` the doubles that a
//! 32-bit float can hold exactly, and a constant is one double. An int and
//! a flt meet only at `Bottom`: they are different kinds of value, and the
//! parser converts an int to a flt explicitly where the language says so.
//!
//! Chapter 10 adds memory. A pointer type `*S` (or `*S?` when it may be
//! null) points to a struct `S`, whose fields are named typed slots. Every
//! field of every struct is its own *alias class*: a slice of memory that no
//! other field can touch, typed `MEM#alias`.
//!
//! Chapter 18 gives null a lattice of its own, because now two kinds of
//! pointer may be null: pointers to structs and pointers to functions.
//! `null` is a constant that belongs to neither; its dual `~nil` is the
//! "any null you like" above them. Every pointer type carries a four-way
//! nullness (see [`Type::MemPtr`]), and pointers of two kinds meet at a
//! plain pointer, `ptr` or `nptr` (not null), which only a null test can
//! use. So `null` meets `*S` at `*S?`, `{ -> int}` at `{ -> int}?`, and
//! `*S` meets `{ -> int}` at `nptr`.
//!
//! Chapter 13 lets a field point to a struct, its own included. A struct
//! may then be named before it is declared: the name alone is a *forward
//! reference*, a struct type without fields (`fields: None`), and stays
//! one. A field of type `N` inside `struct N` points to the forward `N`,
//! never to the full struct being declared, so no type refers to itself and
//! every type is a finite tree of ids. In the lattice a forward struct sits
//! below every full struct of its name (meeting the two gives the forward
//! one) and is its own dual. Where a program needs the fields again, the
//! parser looks the name up ("deepens" the pointer).
//!
//! Chapter 15 adds arrays. An array type is a struct like any other, named
//! after its element (`int[]`, `u8[]`, `*S?[]`), with two fields: `#`,
//! the length, and `[]`, the body of elements. Since it is a struct, its
//! fields are alias classes of their own, and its layout comes from the
//! same [`Types::struct_layout`] as a struct's: the length first (8
//! bytes), then the body at the next offset, each element the size its
//! type's [`Types::layout`] gives. An array of references holds nullable
//! pointers (every element starts out null).
//!
//! Types are interned in a [`Types`] table: each distinct type is stored once
//! and named by a small [`TypeId`], so comparing two types is comparing two
//! integers, and a tuple of types is a slice of ids. The ids of the common
//! types are fixed constants.

use crate::double;
pub use crate::idx_set::IdxSet;
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
    /// A float lattice element.
    Flt(Flt),
    /// A fixed-size collection of unrelated types, e.g. the values of `Start`.
    Tuple(Box<[TypeId]>),
    /// A slice of memory and the meet of every value it may hold
    /// (chapter 15: memory is typed by its contents). `MEM#2:0` is the
    /// slice of class 2 holding only zeros, as a `new` leaves it.
    Mem(Alias, TypeId),
    /// Chapter 18: `null`, the one constant every kind of pointer may be.
    Nil,
    /// Chapter 18: `~nil`, the dual of `null`: above every pointer.
    XNil,
    /// Chapter 18: a pointer of no particular kind, what a struct pointer
    /// and a function pointer meet at; `nil` as in [`Type::MemPtr`]:
    /// `~ptr`, `~nptr`, `nptr`, `ptr`.
    Ptr(u8),
    /// A pointer to a struct (`obj` is a [`Type::Struct`]). Chapter 18
    /// makes `nil` Simple's four-way nullness, shared by every pointer
    /// type: 0 a high choice that may be null (`~*S?`), 1 high and not null
    /// (`~*S`), 2 low and not null (`*S`), 3 low and perhaps null (`*S?`).
    /// The meet takes the larger, the dual is `3 - nil`.
    MemPtr { obj: TypeId, nil: u8 },
    /// A struct: a name and its [`Type::Field`]s, in declaration order, or
    /// `None` for a forward reference (a struct known so far by name only).
    /// `$TOP` and `$BOT` (no fields) are the top and bottom of structs.
    /// The fields in order are what a layout (offsets, alignment, size)
    /// will be computed from, in one place, once fields have sizes.
    Struct {
        name: String,
        fields: Option<Box<[TypeId]>>,
    },
    /// A named field and the type of its contents; `fin` if it is final
    /// (chapter 16: `int !x`), set once by its struct's body or a
    /// constructor and never changed after. Chapter 17 makes finality part
    /// of the lattice: a final field is the lower (the meet of final and
    /// not is final), the dual flips it.
    Field { name: String, ty: TypeId, fin: bool },
    /// Chapter 18: a pointer to a function. `sig` is the tuple of argument
    /// types, `ret` the return type, `fidxs` the set of functions it may
    /// point to (index `i` for function `i` of this signature). `nil` is
    /// the four-way nullness of [`Type::MemPtr`].
    FunPtr {
        sig: TypeId,
        ret: TypeId,
        fidxs: IdxSet,
        nil: u8,
    },
    /// Chapter 18: a set of return program counters (the CallEnds a
    /// function may return to).
    Rpc { rpcs: IdxSet },
}

/// Which memory a [`Type::Mem`] stands for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Alias {
    /// No memory at all (the lattice top).
    Top,
    /// One alias class: one field of one struct.
    Slice(u32),
    /// All of memory (the lattice bottom).
    Bot,
}

/// An integer type: the range of 64-bit values from `min` to `max`, both
/// included.
///
/// With `min < max` the range is a set of values that a node may produce,
/// below the centre line of the lattice; `int` is `[i64::MIN, i64::MAX]`.
/// With `min == max` it is a constant, on the centre line. With
/// `min > max` it lies above the centre line: the dual of the range
/// `[max,min]`, a value not yet known (`~int`, Simple's `IntTop`, is
/// `[i64::MAX, i64::MIN]`). The meet of two ranges is the smallest range
/// that covers both, `[min(a,b), max(a,b)]` of their ends, and the dual
/// swaps the ends; both formulas hold above the centre line too.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Int {
    pub min: i64,
    pub max: i64,
}

impl Int {
    /// Above the centre line: no value yet.
    pub fn is_high(self) -> bool {
        self.min > self.max
    }

    /// Exactly one value.
    pub fn is_constant(self) -> bool {
        self.min == self.max
    }

    /// The bits that some value of the range may have set (every other bit
    /// is 0 in all of them): for `u8`, 255; for `[16,18]`, 0b10011. Below
    /// the highest bit where `min` and `max` differ, every pattern occurs
    /// in the range; above it, all values share `min`'s bits. A range
    /// that holds negative and non-negative values may set any bit (-1).
    pub fn mask(self) -> i64 {
        if self.is_high() {
            return 0;
        }
        if self.is_constant() {
            return self.min;
        }
        let differ = self.min ^ self.max;
        // The highest differing bit (the sign bit when the signs differ).
        let top = (1u64 << (63 - differ.leading_zeros())) as i64;
        self.min | top.wrapping_sub(1) | top
    }
}

/// A float type, by size. A constant is kept as its bits (`f64::to_bits`),
/// so that it can be hashed and compared: `0.0` and `-0.0` are two
/// constants (they print and divide differently), and NaN is one constant
/// equal to itself ([`Types::flt`] makes every NaN the same one).
///
/// From the top: `Top` (`~flt`), `Top32` (`~f32`), the constants, `Bot32`
/// (`f32`: any double a 32-bit float holds exactly), `Bot` (`flt`, also
/// named `f64`: any double). A constant that a 32-bit float holds lies
/// above `f32`, any other only above `flt`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Flt {
    Top,
    Top32,
    Con(u64),
    Bot32,
    Bot,
}

impl Flt {
    /// The place in the lattice, top to bottom, as Simple numbers it (the
    /// size, negative above the constants).
    fn rank(self) -> i8 {
        match self {
            Flt::Top => -64,
            Flt::Top32 => -32,
            Flt::Con(_) => 0,
            Flt::Bot32 => 32,
            Flt::Bot => 64,
        }
    }

    /// A constant that a 32-bit float holds exactly: rounding it to `f32`
    /// and back gives the same double. (NaN counts: it rounds to NaN.)
    pub fn is_f32(self) -> bool {
        match self {
            Flt::Con(bits) => {
                let v = f64::from_bits(bits);
                ((v as f32) as f64).to_bits() == bits || v.is_nan()
            }
            _ => false,
        }
    }

    /// The meet of two different float types.
    fn meet(self, other: Flt) -> Flt {
        // `lo` is the higher in the lattice, `hi` the lower (larger rank).
        let (lo, hi) = if self.rank() < other.rank() {
            (self, other)
        } else {
            (other, self)
        };
        match (lo, hi) {
            (_, Flt::Bot) => Flt::Bot,
            (Flt::Top, _) => hi,
            // `f32` and a constant it cannot hold meet at `flt`.
            (Flt::Con(_), Flt::Bot32) if !lo.is_f32() => Flt::Bot,
            (_, Flt::Bot32) => Flt::Bot32,
            // `~f32` is above the f32 constants only.
            (Flt::Top32, Flt::Con(_)) if hi.is_f32() => hi,
            (Flt::Top32, _) => Flt::Bot,
            // Two different constants: any f32, or any double.
            _ if lo.is_f32() && hi.is_f32() => Flt::Bot32,
            _ => Flt::Bot,
        }
    }

    fn dual(self) -> Flt {
        match self {
            Flt::Top => Flt::Bot,
            Flt::Top32 => Flt::Bot32,
            Flt::Con(_) => self,
            Flt::Bot32 => Flt::Top32,
            Flt::Bot => Flt::Top,
        }
    }
}

/// How a value of a type is laid out in memory, in bytes. Every narrow
/// type takes its size from here, and so will the backend's loads and
/// stores.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Layout {
    pub size: u32,
    pub align: u32,
}

/// Where each field of a struct lies, in bytes from the start of the
/// object, and the object's size and alignment. For an array, `offsets`
/// are those of the length (`#`) and of element 0 (`[]`), and `size` is
/// that of an empty array; element `i` lies at `offsets[1] + i * elem`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StructLayout {
    pub offsets: Vec<u32>,
    pub size: u32,
    pub align: u32,
    /// For an array, log2 of the size of one element (the shift that
    /// turns an index into a byte offset); 0 for a struct.
    pub scale: u32,
}

/// The primitive types a program can name, with the types they stand for.
/// `i64` is `int`, `f64` is `flt`, `byte` is `u8` and `bool` is `u1`.
pub const PRIMITIVE_TYPES: [(&str, TypeId); 14] = [
    ("int", Types::INT_BOT),
    ("i64", Types::INT_BOT),
    ("i32", Types::I32),
    ("i16", Types::I16),
    ("i8", Types::I8),
    ("u32", Types::U32),
    ("u16", Types::U16),
    ("u8", Types::U8),
    ("byte", Types::U8),
    ("u1", Types::BOOL),
    ("bool", Types::BOOL),
    ("flt", Types::FLT_BOT),
    ("f64", Types::FLT_BOT),
    ("f32", Types::F32_BOT),
];

/// The table of interned types.
#[derive(Clone)]
pub struct Types {
    list: Vec<Type>,
    ids: FxHashMap<Type, TypeId>,
    /// Chapter 18: the next function index of each signature.
    next_fidx: FxHashMap<TypeId, u32>,
    /// Chapter 18: the name a function was declared with, by signature and
    /// function index. It is for printing only (the last declaration of a
    /// function value names it), so it is kept beside the interned types.
    fun_names: FxHashMap<(TypeId, u32), String>,
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
    pub const MEM_TOP: TypeId = TypeId(11);
    pub const MEM_BOT: TypeId = TypeId(12);
    /// The top and bottom of structs.
    pub const STRUCT_TOP: TypeId = TypeId(13);
    pub const STRUCT_BOT: TypeId = TypeId(14);
    /// Any struct pointer, or null: `*void?`.
    pub const PTR_BOT: TypeId = TypeId(15);
    /// The dual of [`Types::PTR_BOT`], `~*$TOP?`.
    pub const PTR_TOP: TypeId = TypeId(16);
    /// The null pointer, `null` (chapter 18: Simple's `NIL`).
    pub const NULL: TypeId = TypeId(17);
    /// Some struct pointer that is certainly not null, `*void`.
    pub const VOID_PTR: TypeId = TypeId(18);
    pub const FLT_TOP: TypeId = TypeId(19);
    pub const FLT_BOT: TypeId = TypeId(20);
    pub const FLT_ZERO: TypeId = TypeId(21);
    /// `bool` (also `u1`): the range `[0,1]`, what comparisons produce.
    pub const BOOL: TypeId = TypeId(22);
    /// The narrow integer types, as ranges.
    pub const I8: TypeId = TypeId(23);
    pub const I16: TypeId = TypeId(24);
    pub const I32: TypeId = TypeId(25);
    pub const U8: TypeId = TypeId(26);
    pub const U16: TypeId = TypeId(27);
    pub const U32: TypeId = TypeId(28);
    /// `~f32` and `f32`.
    pub const F32_TOP: TypeId = TypeId(29);
    pub const F32_BOT: TypeId = TypeId(30);
    /// Chapter 18: every return program counter, `$[ALL]`.
    pub const RPC_BOT: TypeId = TypeId(31);
    /// Chapter 18: `main`'s signature, one `int`.
    pub const MAIN_SIG: TypeId = TypeId(32);
    /// Chapter 18: the empty tuple, the signature of a function without
    /// arguments (Simple's `TypeTuple.BOT`, printed `[BOT]`).
    pub const NO_ARGS: TypeId = TypeId(33);
    /// Chapter 18: any function pointer or null, `{ -> Bot #ALL}?`.
    pub const FUN_BOT: TypeId = TypeId(34);
    /// Chapter 18: `~nil`, the dual of [`Types::NULL`].
    pub const XNIL: TypeId = TypeId(35);
    /// Chapter 18: pointers of no particular kind, from the bottom up:
    /// `ptr` (perhaps null), `nptr` (not null), and their duals.
    pub const PTR: TypeId = TypeId(36);
    pub const NPTR: TypeId = TypeId(37);
    pub const XNPTR: TypeId = TypeId(38);
    pub const XPTR: TypeId = TypeId(39);

    pub fn new() -> Self {
        let mut types = Types {
            list: Vec::new(),
            ids: FxHashMap::default(),
            next_fidx: FxHashMap::default(),
            fun_names: FxHashMap::default(),
        };
        let fixed = [
            (Type::Bottom, Self::BOTTOM),
            (Type::Top, Self::TOP),
            (Type::Ctrl, Self::CTRL),
            (Type::XCtrl, Self::XCTRL),
            (Self::range(i64::MAX, i64::MIN), Self::INT_TOP),
            (Self::range(i64::MIN, i64::MAX), Self::INT_BOT),
            (Self::range(0, 0), Self::INT_ZERO),
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
            (Type::Mem(Alias::Top, Self::TOP), Self::MEM_TOP),
            (Type::Mem(Alias::Bot, Self::BOTTOM), Self::MEM_BOT),
            (Self::struct_type("$TOP"), Self::STRUCT_TOP),
            (Self::struct_type("$BOT"), Self::STRUCT_BOT),
            (Self::ptr_type(Self::STRUCT_BOT, 3), Self::PTR_BOT),
            (Self::ptr_type(Self::STRUCT_TOP, 0), Self::PTR_TOP),
            (Type::Nil, Self::NULL),
            (Self::ptr_type(Self::STRUCT_BOT, 2), Self::VOID_PTR),
            (Type::Flt(Flt::Top), Self::FLT_TOP),
            (Type::Flt(Flt::Bot), Self::FLT_BOT),
            (Type::Flt(Flt::Con(0.0f64.to_bits())), Self::FLT_ZERO),
            (Self::range(0, 1), Self::BOOL),
            (Self::range(-128, 127), Self::I8),
            (Self::range(-32768, 32767), Self::I16),
            (Self::range(i32::MIN.into(), i32::MAX.into()), Self::I32),
            (Self::range(0, 255), Self::U8),
            (Self::range(0, 65535), Self::U16),
            (Self::range(0, u32::MAX.into()), Self::U32),
            (Type::Flt(Flt::Top32), Self::F32_TOP),
            (Type::Flt(Flt::Bot32), Self::F32_BOT),
            (
                Type::Rpc {
                    rpcs: IdxSet::all(),
                },
                Self::RPC_BOT,
            ),
            (Type::Tuple([Self::INT_BOT].into()), Self::MAIN_SIG),
            (Type::Tuple([].into()), Self::NO_ARGS),
            (
                Type::FunPtr {
                    sig: Self::NO_ARGS,
                    ret: Self::BOTTOM,
                    fidxs: IdxSet::all(),
                    nil: 3,
                },
                Self::FUN_BOT,
            ),
            (Type::XNil, Self::XNIL),
            (Type::Ptr(3), Self::PTR),
            (Type::Ptr(2), Self::NPTR),
            (Type::Ptr(1), Self::XNPTR),
            (Type::Ptr(0), Self::XPTR),
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

    fn range(min: i64, max: i64) -> Type {
        Type::Int(Int { min, max })
    }

    /// The integer constant `value`.
    pub fn int(&mut self, value: i64) -> TypeId {
        self.intern(Self::range(value, value))
    }

    /// The integers from `min` to `max` (above the centre line if
    /// `min > max`).
    pub fn int_range(&mut self, min: i64, max: i64) -> TypeId {
        self.intern(Self::range(min, max))
    }

    /// The range of an integer type.
    pub fn int_bounds(&self, id: TypeId) -> Option<Int> {
        match self.get(id) {
            Type::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The float constant `value`.
    pub fn flt(&mut self, value: f64) -> TypeId {
        let value = if value.is_nan() { f64::NAN } else { value };
        self.intern(Type::Flt(Flt::Con(value.to_bits())))
    }

    pub fn tuple(&mut self, elems: &[TypeId]) -> TypeId {
        self.intern(Type::Tuple(elems.into()))
    }

    fn struct_type(name: &str) -> Type {
        Type::Struct {
            name: name.into(),
            fields: Some(Box::new([])),
        }
    }

    fn ptr_type(obj: TypeId, nil: u8) -> Type {
        Type::MemPtr { obj, nil }
    }

    /// The memory slice of alias class `alias`, holding anything.
    pub fn mem(&mut self, alias: u32) -> TypeId {
        self.intern(Type::Mem(Alias::Slice(alias), Self::BOTTOM))
    }

    /// The memory slice of alias class `alias` whose values are all of
    /// type `contents`.
    pub fn mem_of(&mut self, alias: u32, contents: TypeId) -> TypeId {
        self.intern(Type::Mem(Alias::Slice(alias), contents))
    }

    /// What memory of type `t` holds in alias class `alias`: what its slice
    /// of that class says; nothing (top) for memory where nothing was
    /// stored yet (Start's) or dead; anything (bottom) for all of memory.
    pub fn held_in(&self, t: TypeId, alias: u32) -> TypeId {
        match self.get(t) {
            Type::Top | Type::Mem(Alias::Top, _) => Self::TOP,
            Type::Mem(Alias::Slice(a), held) if *a == alias => *held,
            _ => Self::BOTTOM,
        }
    }

    /// What a memory type says its values are: for the whole memory, top
    /// if nothing was stored yet (Start's), else bottom.
    pub fn mem_contents(&self, id: TypeId) -> Option<TypeId> {
        match self.get(id) {
            Type::Mem(_, t) => Some(*t),
            _ => None,
        }
    }

    /// A pointer to struct `obj`; `nullable` if it may be null.
    pub fn ptr(&mut self, obj: TypeId, nullable: bool) -> TypeId {
        self.intern(Self::ptr_type(obj, if nullable { 3 } else { 2 }))
    }

    /// The field `name` holding values of type `ty`.
    pub fn field(&mut self, name: &str, ty: TypeId) -> TypeId {
        self.field_of(name, ty, false)
    }

    /// The field `name` holding values of type `ty`, final if `fin`.
    pub fn field_of(&mut self, name: &str, ty: TypeId, fin: bool) -> TypeId {
        self.intern(Type::Field {
            name: name.into(),
            ty,
            fin,
        })
    }

    /// Field `idx` of a struct type is final.
    pub fn field_is_final(&self, obj: TypeId, idx: usize) -> bool {
        matches!(
            self.get(self.fields(obj)[idx]),
            Type::Field { fin: true, .. }
        )
    }

    /// Chapter 17: the read-only view of a type. A pointer points to its
    /// struct read-only, whose fields are all final and read-only in turn,
    /// so nothing reachable through it may be stored into. (A field final
    /// already is kept as it is.) Other types are their own view.
    pub fn make_ro(&mut self, id: TypeId) -> TypeId {
        if self.is_final(id) {
            return id;
        }
        match self.get(id).clone() {
            Type::MemPtr { obj, nil } => {
                let obj = self.make_ro(obj);
                self.intern(Self::ptr_type(obj, nil))
            }
            Type::Struct {
                name,
                fields: Some(fields),
            } => {
                let ro: Vec<TypeId> = fields.iter().map(|&f| self.make_ro(f)).collect();
                self.struct_of(&name, &ro)
            }
            Type::Field {
                name,
                ty,
                fin: false,
            } => {
                let ty = self.make_ro(ty);
                self.field_of(&name, ty, true)
            }
            _ => id,
        }
    }

    /// Chapter 17: nothing can be stored through this type: a pointer to
    /// a struct whose fields are all final, and their types final too. A
    /// forward reference counts as final; so does every type that is no
    /// pointer.
    pub fn is_final(&self, id: TypeId) -> bool {
        match self.get(id) {
            Type::MemPtr { obj, .. } => self.is_final(*obj),
            Type::Struct { fields: None, .. } => true,
            Type::Struct {
                fields: Some(fields),
                ..
            } => fields.iter().all(|&f| self.is_final(f)),
            Type::Field { ty, fin, .. } => *fin && self.is_final(*ty),
            _ => true,
        }
    }

    /// The struct `name` with `fields` (each made by [`Types::field`]).
    pub fn struct_of(&mut self, name: &str, fields: &[TypeId]) -> TypeId {
        self.intern(Type::Struct {
            name: name.into(),
            fields: Some(fields.into()),
        })
    }

    /// The forward reference to struct `name`: known by name, not yet by
    /// its fields.
    pub fn struct_forward(&mut self, name: &str) -> TypeId {
        self.intern(Type::Struct {
            name: name.into(),
            fields: None,
        })
    }

    /// A struct type known by name only.
    pub fn is_forward(&self, obj: TypeId) -> bool {
        matches!(self.get(obj), Type::Struct { fields: None, .. })
    }

    /// The fields of a struct type; none for a forward reference.
    fn fields(&self, obj: TypeId) -> &[TypeId] {
        match self.get(obj) {
            Type::Struct {
                fields: Some(fields),
                ..
            } => fields,
            _ => &[],
        }
    }

    /// Pointer type `ptr` pointing to `obj` instead, as null or not as
    /// before (Simple's `make_from`).
    pub fn ptr_to(&mut self, ptr: TypeId, obj: TypeId) -> TypeId {
        let nil = self.nil_of(ptr).unwrap_or(2);
        self.intern(Self::ptr_type(obj, nil))
    }

    /// The position of field `name` in struct `obj`.
    pub fn field_index(&self, obj: TypeId, name: &str) -> Option<usize> {
        self.fields(obj)
            .iter()
            .position(|&f| matches!(self.get(f), Type::Field { name: n, .. } if n == name))
    }

    /// The name of a struct type.
    pub fn struct_name(&self, obj: TypeId) -> Option<&str> {
        match self.get(obj) {
            Type::Struct { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The number of fields of a struct type.
    pub fn field_count(&self, obj: TypeId) -> usize {
        self.fields(obj).len()
    }

    /// The name of field `idx` of a struct type.
    pub fn field_name(&self, obj: TypeId, idx: usize) -> String {
        match self.get(self.fields(obj)[idx]) {
            Type::Field { name, .. } => name.clone(),
            _ => unreachable!("a struct's fields are fields"),
        }
    }

    /// The type of field `idx` of a struct type.
    pub fn field_type(&self, obj: TypeId, idx: usize) -> TypeId {
        match self.get(self.fields(obj)[idx]) {
            Type::Field { ty, .. } => *ty,
            _ => unreachable!("a struct's fields are fields"),
        }
    }

    /// The struct a pointer type points to.
    pub fn pointee(&self, ptr: TypeId) -> Option<TypeId> {
        match self.get(ptr) {
            Type::MemPtr { obj, .. } => Some(*obj),
            _ => None,
        }
    }

    pub fn is_ptr(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::MemPtr { .. })
    }

    /// Chapter 18: the four-way nullness of a pointer type of any kind
    /// (see [`Type::MemPtr`]); `None` for `null` itself and other types.
    pub fn nil_of(&self, id: TypeId) -> Option<u8> {
        match *self.get(id) {
            Type::Ptr(nil) | Type::MemPtr { nil, .. } | Type::FunPtr { nil, .. } => Some(nil),
            _ => None,
        }
    }

    /// A pointer type that admits null (low, and null among its values).
    pub fn is_nullable(&self, id: TypeId) -> bool {
        self.nil_of(id) == Some(3)
    }

    /// A pointer type that is certainly not null (Simple's `notNull`).
    pub fn not_null(&self, id: TypeId) -> bool {
        matches!(self.nil_of(id), Some(1 | 2))
    }

    /// The same pointer type (of any kind) with another nullness (Simple's
    /// `makeFrom(nil)`); any other type is returned as it is.
    pub fn with_nil(&mut self, id: TypeId, nil: u8) -> TypeId {
        match *self.get(id) {
            Type::Ptr(_) => self.intern(Type::Ptr(nil)),
            Type::MemPtr { obj, .. } => self.intern(Self::ptr_type(obj, nil)),
            Type::FunPtr { .. } => self.fun_changed(id, None, Some(nil)),
            _ => id,
        }
    }

    /// The alias class of a memory slice type.
    pub fn mem_alias(&self, id: TypeId) -> Option<u32> {
        match self.get(id) {
            Type::Mem(Alias::Slice(a), _) => Some(*a),
            _ => None,
        }
    }

    pub fn is_mem(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Mem(..))
    }

    /// `a` is at least as precise as `b`: `meet(a, b) == b`.
    pub fn isa(&mut self, a: TypeId, b: TypeId) -> bool {
        self.meet(a, b) == b
    }

    /// The value a variable of this type has before it is assigned: 0 for
    /// integers, 0.0 for floats, null for pointers.
    pub fn make_init(&self, id: TypeId) -> Option<TypeId> {
        match self.get(id) {
            Type::Int(_) => Some(Self::INT_ZERO),
            Type::Flt(_) => Some(Self::FLT_ZERO),
            Type::Nil | Type::Ptr(_) | Type::MemPtr { .. } | Type::FunPtr { .. } => {
                Some(Self::NULL)
            }
            _ => None,
        }
    }

    /// Chapter 17: what a value of this type is known to be where a test
    /// found it not zero: an int range without its zero end (`[0,255]`
    /// becomes `[1,255]`), any pointer not null (chapter 18: `nptr`, whose
    /// join with a pointer of any kind is that pointer, not null); other
    /// types learn nothing (their bottom).
    pub fn non_zero(&mut self, id: TypeId) -> TypeId {
        match self.get(id).clone() {
            Type::Int(i) if i.is_high() => id,
            Type::Int(i) if i.min == 0 => self.int_range(1, i.max.max(1)),
            Type::Int(i) if i.max == 0 => self.int_range(i.min, -1),
            Type::Int(_) => id,
            Type::Nil | Type::Ptr(_) | Type::MemPtr { .. } | Type::FunPtr { .. } => Self::NPTR,
            _ => self.glb(id),
        }
    }

    /// Chapter 17: the zero of a type, what a value tested false is, and
    /// what `c ? x` gives when `c` is false: 0, 0.0 or null.
    pub fn make_zero(&self, id: TypeId) -> Option<TypeId> {
        self.make_init(id)
    }

    /// A sample of the lattice, closed under dual, for checking lattice
    /// laws: Simple's sample (chapter 18's `Type.gather`) and a few more.
    pub fn gather(&mut self) -> Vec<TypeId> {
        let field = self.field("test", Self::INT_ZERO);
        // Simple's test field holds null, once not final and once final.
        let nil_field = self.field("test", Self::NULL);
        let nil_field_final = self.field_of("test", Self::NULL, true);
        let test = self.struct_of("test", &[nil_field]);
        let test_ptr = self.ptr(test, false);
        let tuple = self.tuple(&[Self::INT_BOT, test_ptr]);
        // Chapter 15: a slice holding only zeros, as Simple's sample has;
        // chapter 18: and one holding only null.
        let mem1 = self.mem_of(1, Self::INT_ZERO);
        let mem1_nil = self.mem_of(1, Self::NULL);
        let (i1, int_ary) = (self.int_range(-1, 0), self.array(Self::INT_BOT));
        let int_ary = int_ary.expect("ints make an array");
        // Chapter 18: function pointers over Simple's test signature, one
        // of them past the 64 functions a bit mask holds, and `main`.
        let fun1 = self.fun_ptr(tuple, Self::INT_BOT, IdxSet::one(1), 2);
        let fun01 = self.fun_ptr(tuple, Self::INT_BOT, IdxSet::one(0), 3);
        let fun01 = self.meet(fun01, fun1);
        let fun70 = self.fun_ptr(tuple, Self::INT_BOT, IdxSet::one(70), 2);
        let main = self.main_function();
        let rpc2 = self.rpc(2);
        let pi = self.flt(std::f64::consts::PI);
        let (s1, s2) = self.cyclic_pair();
        // Chapter 15: an array, as Simple's sample has (`flt[]`).
        let ary = self.array(Self::FLT_BOT).expect("floats make an array");
        let ary_ptr = self.ptr(ary, true);
        // Chapter 16: Start's tuple (control, memory, `arg`), longer than
        // the other tuple: tuples of different lengths meet at bottom.
        let start = self.tuple(&[Self::CTRL, Self::MEM_TOP, Self::INT_BOT]);
        let mut ts = vec![
            Self::BOTTOM,
            Self::CTRL,
            field,
            Self::INT_ZERO,
            Self::INT_BOT,
            Self::BOOL,
            Self::U8,
            Self::FLT_ZERO,
            Self::FLT_BOT,
            Self::F32_BOT,
            pi,
            mem1,
            Self::MEM_BOT,
            Self::NULL,
            Self::PTR_BOT,
            test_ptr,
            test,
            Self::STRUCT_BOT,
            s1,
            s2,
            tuple,
            ary,
            ary_ptr,
            start,
            Self::XNIL,
            Self::PTR,
            Self::NPTR,
            Self::VOID_PTR,
            nil_field,
            nil_field_final,
            mem1_nil,
            Self::I32,
            i1,
            int_ary,
            Self::NO_ARGS,
            Self::MAIN_SIG,
            Self::IF_TRUE,
            fun1,
            fun01,
            fun70,
            Self::FUN_BOT,
            main,
            Self::RPC_BOT,
            rpc2,
        ];
        let duals: Vec<TypeId> = ts.iter().map(|&t| self.dual(t)).collect();
        ts.extend(duals);
        ts
    }

    /// Two structs that point to each other, as Simple's tests have them:
    /// `S1 { a :int; s2 :*S2; }` and `S2 { b :FltBot; s1 :*S1; }`, each
    /// field pointing to the other's forward reference.
    pub fn cyclic_pair(&mut self) -> (TypeId, TypeId) {
        let (s1f, s2f) = (self.struct_forward("S1"), self.struct_forward("S2"));
        let (to_s1, to_s2) = (self.ptr(s1f, false), self.ptr(s2f, false));
        let a = self.field("a", Self::INT_BOT);
        let s2_field = self.field("s2", to_s2);
        let s1 = self.struct_of("S1", &[a, s2_field]);
        let b = self.field("b", Self::FLT_BOT);
        let s1_field = self.field("s1", to_s1);
        let s2 = self.struct_of("S2", &[b, s1_field]);
        (s1, s2)
    }

    /// The lowest type of the same kind: what a phi declared with this type
    /// may fall to. Its dual is where the phi's type starts
    /// ([`Types::lub`]). Fields fall to final (chapter 17 made final the
    /// lower), so the dual starts them writable; `null` is a constant of
    /// no kind, and falls to bottom.
    pub fn glb(&mut self, id: TypeId) -> TypeId {
        match self.get(id).clone() {
            Type::Ctrl => Self::XCTRL,
            Type::XCtrl | Type::Bottom | Type::Top | Type::Nil | Type::XNil => Self::BOTTOM,
            Type::Ptr(_) => Self::PTR,
            Type::Int(_) => Self::INT_BOT,
            Type::Flt(_) => Self::FLT_BOT,
            // A memory slice keeps its class; its contents fall.
            Type::Mem(Alias::Slice(a), t) => {
                let t = self.glb(t);
                self.mem_of(a, t)
            }
            Type::Mem(..) => id,
            Type::Tuple(elems) => {
                let low: Vec<TypeId> = elems.iter().map(|&e| self.glb(e)).collect();
                self.tuple(&low)
            }
            Type::MemPtr { obj, .. } => {
                let obj = self.glb(obj);
                self.ptr(obj, true)
            }
            // A forward reference has no fields to lower.
            Type::Struct { fields: None, .. } => id,
            Type::Struct {
                name,
                fields: Some(fields),
            } => {
                let low: Vec<TypeId> = fields.iter().map(|&f| self.glb(f)).collect();
                self.struct_of(&name, &low)
            }
            Type::Field { name, ty, .. } => {
                let ty = self.glb(ty);
                self.field_of(&name, ty, true)
            }
            // Chapter 18: any function of the signature, or null.
            Type::FunPtr { sig, ret, .. } => self.fun_ptr(sig, ret, IdxSet::all(), 3),
            Type::Rpc { .. } => Self::RPC_BOT,
        }
    }

    /// Chapter 17: the top of a type's own lattice, where a phi declared
    /// with it starts: the dual of its [`Types::glb`], so its fields start
    /// writable and fall to final only if some input is.
    pub fn lub(&mut self, id: TypeId) -> TypeId {
        let low = self.glb(id);
        self.dual(low)
    }

    /// The value of an integer constant type, or `None`.
    pub fn int_value(&self, id: TypeId) -> Option<i64> {
        match self.get(id) {
            Type::Int(i) if i.is_constant() => Some(i.min),
            _ => None,
        }
    }

    /// The width in bits of the narrow type whose range is `id`: 8 for
    /// `i8` and `u8`, 1 for `bool`, 64 for `int`; for any other range
    /// below the centre line, the fewest bits that hold it (with a sign
    /// bit when it holds a negative value).
    pub fn int_bits(&self, id: TypeId) -> Option<u32> {
        let i = self.int_bounds(id)?;
        if i.is_high() {
            return None;
        }
        Some(if i.min >= 0 {
            (64 - i.max.leading_zeros()).max(1)
        } else {
            // The magnitude bits of the larger end, and a sign bit.
            let max_sign_bits = if i.max < 0 { 64 } else { i.max.leading_zeros() };
            65 - i.min.leading_ones().min(max_sign_bits)
        })
    }

    /// The size and alignment in memory of a value of a primitive type:
    /// the fewest whole bytes, a power of two, that hold its bits (a
    /// `bool` takes a byte); 8 for a pointer. `None` for other types.
    pub fn layout(&self, id: TypeId) -> Option<Layout> {
        let bits = match self.get(id) {
            Type::Int(_) => self.int_bits(id)?,
            Type::Flt(Flt::Bot32) => 32,
            Type::Flt(_) => 64,
            // Chapter 18: every pointer (a function's too) is 64 bits.
            Type::Nil | Type::Ptr(_) | Type::MemPtr { .. } | Type::FunPtr { .. } => 64,
            _ => return None,
        };
        let size = bits.div_ceil(8).next_power_of_two();
        Some(Layout { size, align: size })
    }

    /// The layout of struct `obj`, computed here and nowhere else: the
    /// fields are placed largest first (so no padding is needed between
    /// them), in declaration order among fields of one size, and the
    /// object is padded to a multiple of 8 bytes. An array's body holds
    /// any number of elements, so it counts as none for the size; it
    /// starts right after the 4-byte length (chapter 19, as Simple's: at
    /// offset 4 for elements smaller than 8 bytes, at 8 for 8-byte ones,
    /// which stay aligned). `None` for a forward reference or a field
    /// whose type has no layout.
    pub fn struct_layout(&self, obj: TypeId) -> Option<StructLayout> {
        let Type::Struct {
            fields: Some(fields),
            ..
        } = self.get(obj)
        else {
            return None;
        };
        let sizes = fields
            .iter()
            .map(|&f| match self.get(f) {
                Type::Field { ty, .. } => self.layout(*ty).map(|l| l.size),
                _ => None,
            })
            .collect::<Option<Vec<u32>>>()?;
        let is_array = self.is_array(obj);
        let mut offsets = vec![0; sizes.len()];
        let mut off = 0;
        for size in [8, 4, 2, 1] {
            for (i, &s) in sizes.iter().enumerate() {
                if s == size {
                    offsets[i] = off;
                    if !(is_array && i == 1) {
                        off += s;
                    }
                }
            }
        }
        // The body of an array comes after its length whatever its size.
        if is_array {
            let base = if sizes[1] < 8 { 4 } else { 8 };
            offsets = vec![0, base];
            off = base;
        }
        let scale = if is_array {
            sizes[1].trailing_zeros()
        } else {
            0
        };
        Some(StructLayout {
            offsets,
            size: off.div_ceil(8) * 8,
            align: 8,
            scale,
        })
    }

    /// The array type whose elements are of type `elem`: a struct named
    /// `[elem]` (by the element's short name; chapter 16's spelling) with
    /// a final length `#` and a body `[]`. `None` if the element is a
    /// non-null pointer: an array of references starts out all null, so
    /// its elements must allow it. Chapter 19: the length is a `u32`.
    pub fn array(&mut self, elem: TypeId) -> Option<TypeId> {
        if self.is_ptr(elem) && self.not_null(elem) {
            return None;
        }
        let name = format!("[{}]", self.str(elem));
        // Chapter 17: the length is final, the elements are not.
        let len = self.field_of("#", Self::U32, true);
        let body = self.field("[]", elem);
        Some(self.struct_of(&name, &[len, body]))
    }

    /// A struct type that is an array: fields `#` and `[]` (no program
    /// can name a field so).
    pub fn is_array(&self, obj: TypeId) -> bool {
        let fields = self.fields(obj);
        fields.len() == 2 && matches!(self.get(fields[1]), Type::Field { name, .. } if name == "[]")
    }

    pub fn is_int(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Int(_))
    }

    /// The value of a float constant type, or `None`.
    pub fn flt_value(&self, id: TypeId) -> Option<f64> {
        match self.get(id) {
            Type::Flt(Flt::Con(bits)) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    pub fn is_flt(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Flt(_))
    }

    /// An integer or float constant.
    pub fn is_constant(&self, id: TypeId) -> bool {
        match self.get(id) {
            Type::Int(i) => i.is_constant(),
            Type::Flt(f) => matches!(f, Flt::Con(_)),
            // Chapter 16: `null` is a constant.
            Type::Nil => true,
            // Chapter 18: a pointer to exactly one function.
            Type::FunPtr { fidxs, nil, .. } => {
                (*nil == 2 && fidxs.single().is_some()) || (*nil == 3 && fidxs.is_empty())
            }
            Type::Rpc { rpcs } => rpcs.single().is_some(),
            _ => false,
        }
    }

    /// Above the centre line: the type of a value not produced yet (or
    /// never): `Top`, `~Ctrl`, a high integer range, `~flt`, `~f32`, and
    /// the top pointer.
    pub fn is_high(&self, id: TypeId) -> bool {
        match self.get(id) {
            Type::Top | Type::XCtrl => true,
            Type::Int(i) => i.is_high(),
            Type::Flt(f) => matches!(f, Flt::Top | Flt::Top32),
            Type::FunPtr { fidxs, nil, .. } => *nil <= 1 || (*nil == 2 && fidxs.is_empty()),
            // Chapter 18: `~nil`, and pointers above the centre line.
            Type::XNil => true,
            Type::Ptr(nil) | Type::MemPtr { nil, .. } => *nil <= 1,
            _ => false,
        }
    }

    /// Types a Constant node can stand for: constants, and the high types
    /// (`Top`, `~Ctrl`, high integer ranges, `~flt`, `~f32`) that say the
    /// value is never produced.
    pub fn is_high_or_const(&self, id: TypeId) -> bool {
        match self.get(id) {
            Type::Top | Type::XCtrl => true,
            Type::Int(i) => i.min >= i.max,
            Type::Flt(f) => matches!(f, Flt::Top | Flt::Top32 | Flt::Con(_)),
            // Chapter 16: so are `null` and the high pointers.
            Type::Nil | Type::XNil | Type::Ptr(_) | Type::MemPtr { .. } => {
                self.is_high(id) || self.is_constant(id)
            }
            Type::FunPtr { .. } | Type::Rpc { .. } => self.is_high(id) || self.is_constant(id),
            _ => false,
        }
    }

    /// The mirror image of a type across the lattice: top and bottom swap,
    /// constants stay.
    pub fn dual(&mut self, id: TypeId) -> TypeId {
        match self.get(id).clone() {
            Type::Bottom => Self::TOP,
            Type::Top => Self::BOTTOM,
            Type::Ctrl => Self::XCTRL,
            Type::XCtrl => Self::CTRL,
            Type::Int(i) => self.int_range(i.max, i.min),
            Type::Flt(f) => self.intern(Type::Flt(f.dual())),
            Type::Tuple(elems) => {
                let duals: Vec<TypeId> = elems.iter().map(|&e| self.dual(e)).collect();
                self.tuple(&duals)
            }
            Type::Mem(Alias::Top, _) => Self::MEM_BOT,
            Type::Mem(Alias::Bot, _) => Self::MEM_TOP,
            Type::Mem(Alias::Slice(a), t) => {
                let t = self.dual(t);
                self.mem_of(a, t)
            }
            Type::Nil => Self::XNIL,
            Type::XNil => Self::NULL,
            Type::Ptr(nil) => self.intern(Type::Ptr(3 - nil)),
            Type::MemPtr { obj, nil } => {
                let obj = self.dual(obj);
                self.intern(Self::ptr_type(obj, 3 - nil))
            }
            Type::Struct { name, fields } => match (id, fields) {
                (Self::STRUCT_TOP, _) => Self::STRUCT_BOT,
                (Self::STRUCT_BOT, _) => Self::STRUCT_TOP,
                // A forward reference is its own dual.
                (_, None) => id,
                (_, Some(fields)) => {
                    let duals: Vec<TypeId> = fields.iter().map(|&f| self.dual(f)).collect();
                    self.struct_of(&name, &duals)
                }
            },
            // Chapter 17: the dual flips finality.
            Type::Field { name, ty, fin } => {
                let ty = self.dual(ty);
                self.field_of(&name, ty, !fin)
            }
            Type::FunPtr {
                sig,
                ret,
                fidxs,
                nil,
            } => {
                let (sig, ret) = (self.dual(sig), self.dual(ret));
                self.fun_ptr(sig, ret, fidxs.complement(), 3 - nil)
            }
            Type::Rpc { rpcs } => self.intern(Type::Rpc {
                rpcs: rpcs.complement(),
            }),
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
            // The smallest range covering both.
            (&Type::Int(x), &Type::Int(y)) => self.int_range(x.min.min(y.min), x.max.max(y.max)),
            (&Type::Flt(x), &Type::Flt(y)) => self.intern(Type::Flt(x.meet(y))),
            // Two slices of one class hold what either holds; of two
            // classes, some memory (`MEM#BOT`) holding what either holds.
            (&Type::Mem(x, tx), &Type::Mem(y, ty)) => match (x, y) {
                (_, Alias::Top) => a,
                (Alias::Top, _) => b,
                _ if a == Self::MEM_BOT || b == Self::MEM_BOT => Self::MEM_BOT,
                _ => {
                    let alias = if x == y { x } else { Alias::Bot };
                    let t = self.meet(tx, ty);
                    self.intern(Type::Mem(alias, t))
                }
            },
            // Chapter 18: null and its dual against everything else.
            (Type::Nil, Type::XNil) | (Type::XNil, Type::Nil) => Self::PTR,
            (Type::Nil, _) => self.meet_nil(b),
            (_, Type::Nil) => self.meet_nil(a),
            (Type::XNil, _) => self.meet_xnil(b),
            (_, Type::XNil) => self.meet_xnil(a),
            (&Type::Ptr(x), &Type::Ptr(y)) => self.intern(Type::Ptr(x.max(y))),
            (&Type::MemPtr { obj: x, nil: xn }, &Type::MemPtr { obj: y, nil: yn }) => {
                let obj = self.meet(x, y);
                self.intern(Self::ptr_type(obj, xn.max(yn)))
            }
            (
                Type::Struct {
                    name: x,
                    fields: xf,
                },
                Type::Struct {
                    name: y,
                    fields: yf,
                },
            ) => {
                match (a, b) {
                    (Self::STRUCT_TOP, _) => b,
                    (_, Self::STRUCT_TOP) => a,
                    (Self::STRUCT_BOT, _) | (_, Self::STRUCT_BOT) => Self::STRUCT_BOT,
                    // Struct names are unique in a program: different names
                    // are different structs, and all we know is "a struct".
                    _ if x != y => Self::STRUCT_BOT,
                    // The forward reference is the bottom of its name.
                    _ if xf.is_none() => a,
                    _ if yf.is_none() => b,
                    _ if xf.as_ref().map(|f| f.len()) != yf.as_ref().map(|f| f.len()) => {
                        Self::STRUCT_BOT
                    }
                    _ => {
                        let name = x.clone();
                        let xf = xf.clone().expect("not a forward reference");
                        let yf = yf.clone().expect("not a forward reference");
                        let fields: Vec<TypeId> = xf
                            .iter()
                            .zip(yf.iter())
                            .map(|(&p, &q)| self.meet(p, q))
                            .collect();
                        self.struct_of(&name, &fields)
                    }
                }
            }
            (
                Type::Field {
                    name,
                    ty: x,
                    fin: f,
                },
                Type::Field { ty: y, fin: g, .. },
            ) => {
                let (name, x, y, fin) = (name.clone(), *x, *y, *f || *g);
                let ty = self.meet(x, y);
                self.field_of(&name, ty, fin)
            }
            (
                Type::FunPtr {
                    sig: xs,
                    ret: xr,
                    fidxs: xf,
                    nil: xn,
                },
                Type::FunPtr {
                    sig: ys,
                    ret: yr,
                    fidxs: yf,
                    nil: yn,
                },
            ) => {
                let (xs, xr, ys, yr, nil) = (*xs, *xr, *ys, *yr, *xn.max(yn));
                let fidxs = xf.union(yf);
                let (sig, ret) = (self.meet(xs, ys), self.meet(xr, yr));
                self.fun_ptr(sig, ret, fidxs, nil)
            }
            // Chapter 18: pointers of two kinds.
            (&Type::Ptr(x), _) if self.nil_of(b).is_some() => self.meet_plain_ptr(x, b),
            (_, &Type::Ptr(y)) if self.nil_of(a).is_some() => self.meet_plain_ptr(y, a),
            (
                Type::MemPtr { .. } | Type::FunPtr { .. },
                Type::MemPtr { .. } | Type::FunPtr { .. },
            ) => {
                let (x, y) = (self.nil_of(a).unwrap_or(3), self.nil_of(b).unwrap_or(3));
                match (x, y) {
                    (0, 0) => Self::XNIL,
                    _ if x <= 2 && y <= 2 => Self::NPTR,
                    _ => Self::PTR,
                }
            }
            (Type::Rpc { rpcs: x }, Type::Rpc { rpcs: y }) => {
                let rpcs = x.union(y);
                self.intern(Type::Rpc { rpcs })
            }
            // Unrelated kinds of type (tuples included) meet at bottom.
            _ => Self::BOTTOM,
        }
    }

    /// Chapter 18: `null` meets a type: a pointer of any kind takes null
    /// in (a high one falls to the low pointer, perhaps null, to the same
    /// struct or functions: no deep dual across the centre line); the high
    /// plain pointers fall to `null` itself; nothing else has a null.
    fn meet_nil(&mut self, other: TypeId) -> TypeId {
        match *self.get(other) {
            Type::Ptr(nil) if nil <= 1 => Self::NULL,
            Type::Ptr(_) => Self::PTR,
            Type::MemPtr { .. } | Type::FunPtr { .. } => self.with_nil(other, 3),
            _ => Self::BOTTOM,
        }
    }

    /// Chapter 18: `~nil` meets a type: above every pointer, it leaves a
    /// pointer's kind behind and keeps only whether it may be null.
    fn meet_xnil(&mut self, other: TypeId) -> TypeId {
        match self.nil_of(other) {
            Some(0) => Self::XNIL,
            Some(1 | 2) => Self::NPTR,
            Some(_) => Self::PTR,
            None => Self::BOTTOM,
        }
    }

    /// Chapter 18: the plain pointer of nullness `nil` meets a pointer of
    /// a kind: a high plain pointer gives way to it, a low one wins.
    fn meet_plain_ptr(&mut self, nil: u8, other: TypeId) -> TypeId {
        let other_nil = self.nil_of(other).unwrap_or(3);
        match nil {
            0 => other,
            1 => self.with_nil(other, other_nil.max(1)),
            2 if other_nil == 3 => Self::PTR,
            2 => Self::NPTR,
            _ => Self::PTR,
        }
    }

    /// Appends the printed form of a type, as Simple prints it.
    pub fn print(&self, id: TypeId, out: &mut String) {
        match self.get(id) {
            Type::Bottom => out.push_str("Bot"),
            Type::Top => out.push_str("Top"),
            Type::Ctrl => out.push_str("Ctrl"),
            Type::XCtrl => out.push_str("~Ctrl"),
            // An integer type prints as a program would name it.
            Type::Int(_) => out.push_str(&self.str(id)),
            // Chapter 18: floats print as a program names them, and a
            // constant a 32-bit float holds exactly with an `f`.
            Type::Flt(_) => out.push_str(&self.str(id)),
            Type::Tuple(elems) => {
                out.push_str("[  ");
                for (i, &e) in elems.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.print(e, out);
                }
                out.push(']');
            }
            Type::Mem(alias, t) => match alias {
                Alias::Top => out.push_str("#TOP"),
                Alias::Bot => out.push_str("#BOT"),
                Alias::Slice(n) => {
                    let _ = write!(out, "#{n}:");
                    self.print(*t, out);
                }
            },
            Type::Nil => out.push_str("null"),
            Type::XNil => out.push_str("~nil"),
            Type::Ptr(nil) => out.push_str(["~ptr", "~nptr", "nptr", "ptr"][*nil as usize]),
            Type::MemPtr { obj, nil } => match id {
                Self::VOID_PTR => out.push_str("*void"),
                Self::PTR_BOT => out.push_str("*void?"),
                _ => {
                    // `~` above the centre line, `?` if null is among the
                    // choices (high) or the values (low).
                    if *nil <= 1 {
                        out.push('~');
                    }
                    out.push('*');
                    self.print(*obj, out);
                    if *nil == 0 || *nil == 3 {
                        out.push('?');
                    }
                }
            },
            Type::Struct { name, fields } => {
                out.push_str(name);
                // A forward reference prints as its name alone.
                let Some(fields) = fields else { return };
                // Chapter 17 prints each field as a declaration, `!` for
                // one that may change: `S {int x; int !y; }`.
                out.push_str(" {");
                for &f in fields.iter() {
                    if let Type::Field { name, ty, fin } = self.get(f) {
                        self.print(*ty, out);
                        out.push_str(if *fin { " " } else { " !" });
                        out.push_str(name);
                        out.push_str("; ");
                    }
                }
                out.push('}');
            }
            Type::Field { name, ty, fin } => {
                // Chapter 17: `!` marks a field that may change.
                if !*fin {
                    out.push('!');
                }
                out.push_str(name);
                out.push_str(" :");
                self.print(*ty, out);
            }
            Type::FunPtr { .. } => self.print_fun_ptr(id, out),
            Type::Rpc { rpcs } => {
                let (rpcs, any) = rpcs.parts();
                let sign = if any { "-" } else { "" };
                out.push_str("$[");
                match rpcs {
                    [] => out.push_str(if any { "ALL" } else { "" }),
                    [one] => {
                        let _ = write!(out, "{sign}{one}");
                    }
                    _ => {
                        let shown: Vec<String> = rpcs.iter().map(u32::to_string).collect();
                        let _ = write!(out, "{sign}[{}]", shown.join(", "));
                    }
                }
                out.push(']');
            }
        }
    }

    /// Chapter 18: `{ int flt -> int #1}`; `~` before a high one, `?`
    /// after one that may be null. (Chapter 19: a named function's type
    /// no longer prints as its name, `{ sq}`; a constant does.)
    fn print_fun_ptr(&self, id: TypeId, out: &mut String) {
        let Type::FunPtr {
            sig,
            ret,
            fidxs,
            nil,
        } = self.get(id)
        else {
            return;
        };
        let (sig, ret, nil) = (*sig, *ret, *nil);
        let high = self.is_high(id);
        if high {
            out.push('~');
        }
        out.push_str("{ ");
        for &arg in self.tuple_elems(sig) {
            self.print(arg, out);
            out.push(' ');
        }
        out.push_str("-> ");
        self.print(ret, out);
        out.push_str(" #");
        if high {
            out.push('~');
        }
        if high {
            fidxs.complement().print(out);
        } else {
            fidxs.print(out);
        }
        out.push('}');
        if nil == 0 || nil == 3 {
            out.push('?');
        }
    }

    /// The elements of a tuple type (none for any other type).
    pub fn tuple_elems(&self, id: TypeId) -> &[TypeId] {
        match self.get(id) {
            Type::Tuple(elems) => elems,
            _ => &[],
        }
    }

    /// Chapter 18: a function pointer type.
    pub fn fun_ptr(&mut self, sig: TypeId, ret: TypeId, fidxs: IdxSet, nil: u8) -> TypeId {
        self.intern(Type::FunPtr {
            sig,
            ret,
            fidxs,
            nil,
        })
    }

    /// Chapter 18: the type of a new function of signature `args -> ret`:
    /// not null, with the next function index of that signature.
    pub fn new_function(&mut self, args: &[TypeId], ret: TypeId) -> TypeId {
        let sig = self.tuple(args);
        // `main` is function 0 of its signature.
        let first = u32::from(sig == Self::MAIN_SIG);
        let next = self.next_fidx.entry(sig).or_insert(first);
        let fidx = *next;
        *next += 1;
        self.fun_ptr(sig, ret, IdxSet::one(fidx), 2)
    }

    /// Chapter 18: `main`'s type, `{ int -> Bot #0}`, named `main`.
    pub fn main_function(&mut self) -> TypeId {
        let t = self.fun_ptr(Self::MAIN_SIG, Self::BOTTOM, IdxSet::one(0), 2);
        self.set_fun_name(t, "main");
        t
    }

    /// The one function a function pointer type names: its signature and
    /// index, if its set has exactly one member.
    pub fn single_fidx(&self, id: TypeId) -> Option<(TypeId, u32)> {
        match self.get(id) {
            Type::FunPtr { sig, fidxs, .. } => Some((*sig, fidxs.single()?)),
            _ => None,
        }
    }

    /// Names the function a single-function pointer type points to (the
    /// last name given wins, as in Simple).
    pub fn set_fun_name(&mut self, id: TypeId, name: &str) {
        if let Some(key) = self.single_fidx(id) {
            self.fun_names.insert(key, name.to_owned());
        }
    }

    /// The name of the function a single-function pointer type points to.
    pub fn fun_name(&self, id: TypeId) -> Option<&str> {
        // Only the function's own (not null) type carries its name.
        if !matches!(self.get(id), Type::FunPtr { nil: 2, .. }) {
            return None;
        }
        self.single_fidx(id)
            .and_then(|key| self.fun_names.get(&key))
            .map(String::as_str)
    }

    /// Parts of a function pointer type: (signature, return, nil).
    pub fn fun_parts(&self, id: TypeId) -> Option<(TypeId, TypeId, u8)> {
        match *self.get(id) {
            Type::FunPtr { sig, ret, nil, .. } => Some((sig, ret, nil)),
            _ => None,
        }
    }

    /// The functions a function pointer type may name.
    pub fn fidxs(&self, id: TypeId) -> Option<&IdxSet> {
        match self.get(id) {
            Type::FunPtr { fidxs, .. } => Some(fidxs),
            _ => None,
        }
    }

    pub fn is_fun_ptr(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::FunPtr { .. })
    }

    /// The same function pointer type with another return type.
    pub fn fun_with_ret(&mut self, id: TypeId, ret: TypeId) -> TypeId {
        self.fun_changed(id, Some(ret), None)
    }

    /// A function pointer type with its return type or nullness replaced
    /// (any other type is returned as it is).
    fn fun_changed(&mut self, id: TypeId, ret: Option<TypeId>, nil: Option<u8>) -> TypeId {
        let Type::FunPtr {
            sig,
            ret: old_ret,
            fidxs,
            nil: old_nil,
        } = self.get(id)
        else {
            return id;
        };
        let (sig, fidxs) = (*sig, fidxs.clone());
        let (ret, nil) = (ret.unwrap_or(*old_ret), nil.unwrap_or(*old_nil));
        self.fun_ptr(sig, ret, fidxs, nil)
    }

    /// Chapter 18: the return program counter of one call site.
    pub fn rpc(&mut self, call_end: u32) -> TypeId {
        self.intern(Type::Rpc {
            rpcs: IdxSet::one(call_end),
        })
    }

    pub fn to_string(&self, id: TypeId) -> String {
        let mut s = String::new();
        self.print(id, &mut s);
        s
    }

    /// The short form used in error messages: `int`, `u8`, `[0-7]`, `flt`,
    /// `1.5f` (a constant that is an f32), `*Bar?`, `null`.
    pub fn str(&self, id: TypeId) -> String {
        match self.get(id) {
            Type::Int(i) => match id {
                Self::INT_TOP => "~int".into(),
                Self::INT_BOT => "int".into(),
                Self::BOOL => "bool".into(),
                Self::I8 => "i8".into(),
                Self::I16 => "i16".into(),
                Self::I32 => "i32".into(),
                Self::U8 => "u8".into(),
                Self::U16 => "u16".into(),
                Self::U32 => "u32".into(),
                _ if i.is_constant() => i.min.to_string(),
                _ => format!("[{}-{}]", i.min, i.max),
            },
            Type::Flt(Flt::Top) => "~flt".into(),
            Type::Flt(Flt::Top32) => "~f32".into(),
            Type::Flt(Flt::Bot32) => "f32".into(),
            Type::Flt(Flt::Bot) => "flt".into(),
            &Type::Flt(f @ Flt::Con(bits)) => {
                let v = f64::from_bits(bits);
                let suffix = if f.is_f32() && !v.is_nan() { "f" } else { "" };
                format!("{}{suffix}", double::format(v))
            }
            Type::MemPtr { obj, nil } if !matches!(id, Self::VOID_PTR | Self::PTR_BOT) => {
                let high = if *nil <= 1 { "~" } else { "" };
                let null = if *nil == 0 || *nil == 3 { "?" } else { "" };
                format!("{high}*{}{null}", self.str(*obj))
            }
            Type::Struct { name, .. } | Type::Field { name, .. } => name.clone(),
            // Chapter 15: a tuple names its elements short too (a New's).
            Type::Tuple(elems) => {
                let shown: Vec<String> = elems.iter().map(|&e| self.str(e)).collect();
                format!("[  {}]", shown.join(", "))
            }
            _ => self.to_string(id),
        }
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
        let one_two = t.int_range(1, 2);
        assert_eq!(t.meet(one, two), one_two);
        assert_eq!(t.meet(Types::INT_ZERO, one), Types::BOOL);
        assert_eq!(t.meet(Types::INT_TOP, two), two);
        assert_eq!(t.meet(Types::XCTRL, Types::CTRL), Types::CTRL);
        assert_eq!(t.meet(Types::XCTRL, Types::XCTRL), Types::XCTRL);
        assert_eq!(t.meet(Types::TOP, one), one);
        assert_eq!(t.meet(Types::CTRL, one), Types::BOTTOM);
        assert_eq!(t.meet(Types::IF_TRUE, Types::IF_FALSE), Types::IF_BOTH);
    }

    #[test]
    fn floats_form_a_lattice_of_their_own() {
        let mut t = Types::new();
        let (half, two) = (t.flt(0.5), t.flt(2.0));
        assert_eq!(t.flt(0.0), Types::FLT_ZERO);
        assert_ne!(t.flt(-0.0), Types::FLT_ZERO);
        assert_eq!(t.flt(f64::NAN), t.flt(-f64::NAN));
        // Both are f32s.
        assert_eq!(t.meet(half, two), Types::F32_BOT);
        assert_eq!(t.meet(Types::FLT_TOP, half), half);
        assert_eq!(t.meet(Types::F32_TOP, half), half);
        assert_eq!(t.join(half, two), Types::F32_TOP);
        // 0.1 is not.
        let tenth = t.flt(0.1);
        assert_eq!(t.meet(half, tenth), Types::FLT_BOT);
        assert_eq!(t.meet(Types::F32_BOT, tenth), Types::FLT_BOT);
        assert_eq!(t.meet(Types::F32_TOP, tenth), Types::FLT_BOT);
        assert_eq!(t.meet(Types::F32_TOP, Types::F32_BOT), Types::F32_BOT);
        assert_eq!(t.dual(Types::FLT_BOT), Types::FLT_TOP);
        assert_eq!(t.dual(half), half);
        // An int and a flt have nothing in common but Bottom.
        let one = t.int(1);
        assert_eq!(t.meet(one, half), Types::BOTTOM);
        assert_eq!(t.meet(Types::INT_BOT, Types::FLT_BOT), Types::BOTTOM);
        // Chapter 18: types print as a program names them.
        assert_eq!(t.to_string(half), "0.5f");
        assert_eq!(t.to_string(Types::FLT_BOT), "flt");
        assert_eq!(t.str(Types::FLT_TOP), "~flt");
        let big = t.flt(1e10);
        assert_eq!(t.str(big), "1.0E10f");
        assert_eq!(t.str(tenth), "0.1");
        assert_eq!(t.to_string(tenth), "0.1");
        assert_eq!(t.str(Types::F32_BOT), "f32");
        assert_eq!(t.to_string(Types::F32_BOT), "f32");
        assert_eq!(t.make_init(Types::FLT_BOT), Some(Types::FLT_ZERO));
    }

    #[test]
    fn forward_references_sit_below_their_struct() {
        let mut t = Types::new();
        let fwd = t.struct_forward("N");
        let next = t.ptr(fwd, true);
        let field = t.field("next", next);
        let full = t.struct_of("N", &[field]);
        assert!(t.is_forward(fwd) && !t.is_forward(full));
        assert_eq!(t.meet(fwd, full), fwd);
        assert_eq!(t.meet(full, fwd), fwd);
        assert_eq!(t.dual(fwd), fwd);
        assert_eq!(t.glb(fwd), fwd);
        let other = t.struct_forward("M");
        assert_eq!(t.meet(fwd, other), Types::STRUCT_BOT);
        assert_eq!(t.to_string(next), "*N?");
        assert_eq!(t.to_string(full), "N {*N? !next; }");
        assert_eq!(t.field_count(fwd), 0);
        assert_eq!(t.field_index(fwd, "next"), None);
        assert_eq!(t.field_index(full, "next"), Some(0));
    }

    #[test]
    fn join_is_the_dual_of_meet() {
        let mut t = Types::new();
        let (one, two) = (t.int(1), t.int(2));
        let high = t.int_range(2, 1);
        assert_eq!(t.join(one, two), high);
        assert_eq!(t.join(Types::INT_ZERO, two), t.int_range(2, 0));
        assert_eq!(t.join(Types::INT_BOT, one), one);
        assert_eq!(t.join(Types::CTRL, Types::XCTRL), Types::XCTRL);
        assert_eq!(t.dual(Types::IF_TRUE), Types::IF_FALSE);
    }

    #[test]
    fn ranges_print_as_simple_names_them() {
        let mut t = Types::new();
        let shown: Vec<String> = [
            Types::INT_TOP,
            Types::INT_BOT,
            Types::BOOL,
            Types::I8,
            Types::I16,
            Types::I32,
            Types::U8,
            Types::U16,
            Types::U32,
            Types::INT_ZERO,
        ]
        .iter()
        .map(|&id| t.to_string(id))
        .collect();
        assert_eq!(
            shown,
            ["~int", "int", "bool", "i8", "i16", "i32", "u8", "u16", "u32", "0"]
        );
        let r = t.int_range(0, 7);
        assert_eq!(t.str(r), "[0-7]");
        let r = t.int_range(-5, -1);
        assert_eq!(t.str(r), "[-5--1]");
        let r = t.int_range(1, 0);
        assert_eq!(t.str(r), "[1-0]");
        assert!(t.is_high(r) && t.is_high_or_const(r) && !t.is_constant(r));
    }

    #[test]
    fn masks_keep_the_bits_a_range_may_set() {
        let mask = |min, max| Int { min, max }.mask();
        assert_eq!(mask(0, 255), 255);
        assert_eq!(mask(16, 18), 0b10011);
        assert_eq!(mask(456, 711), 1023);
        assert_eq!(mask(7, 7), 7);
        assert_eq!(mask(i64::MIN, i64::MAX), -1);
        assert_eq!(mask(-128, 127), -1);
        assert_eq!(mask(-8, -5), -5);
        assert_eq!(mask(1, 0), 0);
    }

    #[test]
    fn layouts_follow_from_the_ranges() {
        let t = Types::new();
        let sizes: Vec<(&str, u32, u32)> = PRIMITIVE_TYPES
            .iter()
            .map(|&(name, id)| {
                let l = t.layout(id).unwrap();
                (name, l.size, l.align)
            })
            .collect();
        assert_eq!(
            sizes,
            [
                ("int", 8, 8),
                ("i64", 8, 8),
                ("i32", 4, 4),
                ("i16", 2, 2),
                ("i8", 1, 1),
                ("u32", 4, 4),
                ("u16", 2, 2),
                ("u8", 1, 1),
                ("byte", 1, 1),
                ("u1", 1, 1),
                ("bool", 1, 1),
                ("flt", 8, 8),
                ("f64", 8, 8),
                ("f32", 4, 4),
            ]
        );
        let bits: Vec<u32> = [
            Types::BOOL,
            Types::I8,
            Types::U8,
            Types::I16,
            Types::I32,
            Types::U32,
        ]
        .iter()
        .map(|&id| t.int_bits(id).unwrap())
        .collect();
        assert_eq!(bits, [1, 8, 8, 16, 32, 32]);
        assert_eq!(t.layout(Types::NULL), Some(Layout { size: 8, align: 8 }));
        assert_eq!(t.layout(Types::CTRL), None);
    }

    /// Chapter 18: function pointers and return program counters form
    /// lattices (commutative, associative, and symmetric through the
    /// dual), together with null, its dual and the plain pointers.
    #[test]
    fn function_pointers_and_return_addresses_form_lattices() {
        let mut t = Types::new();
        let sig = t.tuple(&[Types::INT_BOT]);
        let fun1 = t.fun_ptr(sig, Types::INT_BOT, IdxSet::one(1), 2);
        let fun2 = t.fun_ptr(sig, Types::INT_BOT, IdxSet::one(2), 2);
        // Past Simple's 64-bit mask.
        let fun70 = t.fun_ptr(sig, Types::INT_BOT, IdxSet::one(70), 2);
        let fun_any = t.fun_ptr(sig, Types::INT_BOT, IdxSet::all(), 3);
        let main = t.main_function();
        let rpc2 = t.rpc(2);
        let rpc5 = t.rpc(5);
        let mut ts = vec![
            fun1,
            fun2,
            fun70,
            fun_any,
            Types::FUN_BOT,
            main,
            Types::RPC_BOT,
            rpc2,
            rpc5,
            Types::NULL,
            Types::NPTR,
            Types::VOID_PTR,
        ];
        let duals: Vec<TypeId> = ts.iter().map(|&x| t.dual(x)).collect();
        ts.extend(duals);
        ts.push(Types::BOTTOM);
        ts.push(Types::TOP);
        for &a in &ts {
            let da = t.dual(a);
            assert_eq!(t.dual(da), a);
            for &b in &ts {
                let (ab, ba) = (t.meet(a, b), t.meet(b, a));
                assert_eq!(ab, ba, "{} meet {}", t.to_string(a), t.to_string(b));
                let (da, db, dab) = (t.dual(a), t.dual(b), t.dual(ab));
                assert_eq!(
                    t.meet(dab, da),
                    da,
                    "{} and {}",
                    t.to_string(a),
                    t.to_string(b)
                );
                assert_eq!(
                    t.meet(dab, db),
                    db,
                    "{} and {}",
                    t.to_string(a),
                    t.to_string(b)
                );
                for &c in &ts {
                    let (bc, ab) = (t.meet(b, c), t.meet(a, b));
                    let (ab_c, a_bc) = (t.meet(ab, c), t.meet(a, bc));
                    assert_eq!(ab_c, a_bc);
                }
            }
        }
        // Two functions of one signature make a set of two. A name shows
        // only on one function's own type, and (chapter 19) not in how
        // the type prints.
        let both = t.meet(fun1, fun2);
        assert_eq!(t.to_string(both), "{ int -> int #b110}");
        let shown = t.to_string(fun1);
        t.set_fun_name(fun1, "sq");
        assert_eq!(t.fun_name(fun1), Some("sq"));
        assert_eq!(t.fun_name(both), None);
        assert_eq!(t.to_string(fun1), shown);
        assert_eq!(t.to_string(Types::FUN_BOT), "{ -> Bot #ALL}?");
        assert_eq!(t.to_string(Types::RPC_BOT), "$[ALL]");
        assert_eq!(t.to_string(rpc2), "$[2]");
        let low = t.meet(rpc2, rpc5);
        assert_eq!(t.to_string(low), "$[[2, 5]]");
    }
}
