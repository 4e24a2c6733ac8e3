//! A persistent map from `u64` keys to values, for the graph evaluator's
//! memory states.
//!
//! The graph evaluator keeps many memory states alive at once (a phi's
//! state, and every state a Store derives from it), so a state cannot be
//! one mutable table; and a list of writes, which shares old states for
//! free, makes a read search the whole history (reading a long linked list
//! was quadratic). This map shares instead: it is a hash array mapped trie,
//! a tree of nodes with up to 32 slots, each level indexed by the next five
//! bits of the key's hash. Setting a key copies only the nodes on its path
//! (at most thirteen, about `log32 n`) and shares the rest with the map it
//! came from, which stays as it was; a read walks one path. A node holds
//! only its taken slots, with a bitmap saying which they are, and a slot is
//! a leaf (one key and its value) until a second key needs it, when it
//! becomes a node one level down. The hash is a bijection of the key (the
//! splitmix64 finalizer), so two keys never share a hash: a leaf holds the
//! hash alone, and two hashes always part within the 64 bits. It spreads
//! dense keys (object numbers) evenly, so the tree stays shallow, and it
//! is deterministic. The depth is bounded, so dropping a map recurses a
//! dozen levels at most, however long the history that built it.

use std::rc::Rc;

/// Bits of the hash that index one level.
const BITS: u32 = 5;

/// A map from `u64` keys to values of type `V`; cloning it is cheap.
#[derive(Debug)]
pub(crate) struct PMap<V>(Option<Rc<Node<V>>>);

// By hand, since a derive would ask `V: Default` and `V: Clone`.
impl<V> Default for PMap<V> {
    fn default() -> Self {
        PMap(None)
    }
}

impl<V> Clone for PMap<V> {
    fn clone(&self) -> Self {
        PMap(self.0.clone())
    }
}

/// One level of the trie: the slots taken, in order of their index.
#[derive(Clone, Debug)]
struct Node<V> {
    /// Bit `i` is set when slot `i` is taken.
    taken: u32,
    slots: Vec<Slot<V>>,
}

#[derive(Clone, Debug)]
enum Slot<V> {
    /// One key, by its hash, and its value.
    Leaf(u64, V),
    /// The keys whose hashes share this slot's bits so far.
    Node(Rc<Node<V>>),
}

impl<V: Clone> PMap<V> {
    /// The value of `key`, if it has one.
    pub(crate) fn get(&self, key: u64) -> Option<&V> {
        let hash = mix(key);
        let mut node = self.0.as_deref()?;
        let mut shift = 0;
        loop {
            let slot = node.slot(hash, shift)?;
            match &node.slots[slot] {
                Slot::Leaf(h, v) => return (*h == hash).then_some(v),
                Slot::Node(next) => node = next,
            }
            shift += BITS;
        }
    }

    /// Gives `key` the value `value`. Maps that share nodes with this one
    /// keep their values: a shared node on the path is copied.
    pub(crate) fn insert(&mut self, key: u64, value: V) {
        let hash = mix(key);
        match &mut self.0 {
            Some(root) => Rc::make_mut(root).insert(hash, value, 0),
            None => {
                self.0 = Some(Rc::new(Node {
                    taken: 1 << index(hash, 0),
                    slots: vec![Slot::Leaf(hash, value)],
                }));
            }
        }
    }
}

impl<V: Clone> Node<V> {
    /// Where in `slots` the slot for `hash` at level `shift` is, if taken.
    fn slot(&self, hash: u64, shift: u32) -> Option<usize> {
        let bit = 1u32 << index(hash, shift);
        (self.taken & bit != 0).then(|| (self.taken & (bit - 1)).count_ones() as usize)
    }

    fn insert(&mut self, hash: u64, value: V, shift: u32) {
        let bit = 1u32 << index(hash, shift);
        let at = (self.taken & (bit - 1)).count_ones() as usize;
        if self.taken & bit == 0 {
            self.taken |= bit;
            self.slots.insert(at, Slot::Leaf(hash, value));
            return;
        }
        let slot = &mut self.slots[at];
        match slot {
            Slot::Leaf(h, v) if *h == hash => *v = value,
            Slot::Node(next) => Rc::make_mut(next).insert(hash, value, shift + BITS),
            Slot::Leaf(h, v) => {
                // A second key in this slot: both go one level down. (Two
                // hashes part by the last level, so `shift` stays below 64.)
                let mut node = Node {
                    taken: 0,
                    slots: Vec::new(),
                };
                node.insert(*h, v.clone(), shift + BITS);
                node.insert(hash, value, shift + BITS);
                *slot = Slot::Node(Rc::new(node));
            }
        }
    }
}

/// The slot index of `hash` at level `shift`.
fn index(hash: u64, shift: u32) -> u32 {
    ((hash >> shift) & ((1 << BITS) - 1)) as u32
}

/// A bijection of `u64` that spreads nearby keys apart (the finalizer of
/// splitmix64: each step, an xor with a right shift or a product by an
/// odd number, can be undone).
fn mix(key: u64) -> u64 {
    let x = (key ^ (key >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::PMap;

    #[test]
    fn an_older_map_keeps_its_values() {
        let mut a = PMap::default();
        for k in 0..5000u64 {
            a.insert(k, k * 2);
        }
        let mut b = a.clone();
        for k in 0..5000u64 {
            b.insert(k * 7, 1);
        }
        for k in 0..5000u64 {
            assert_eq!(a.get(k), Some(&(k * 2)));
            assert_eq!(b.get(k * 7), Some(&1));
        }
        assert_eq!(a.get(5000), None);
        assert_eq!(b.get(4999), Some(&9998));
        assert_eq!(b.get(35_000), None);
    }

    #[test]
    fn keys_far_apart_and_at_the_ends() {
        let mut m = PMap::default();
        let keys = [
            0,
            1,
            1 << 20,
            (7 << 20) | 3,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
        ];
        for (i, &k) in keys.iter().enumerate() {
            m.insert(k, i);
        }
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(m.get(k), Some(&i));
        }
        assert_eq!(m.get(2), None);
        assert_eq!(PMap::<i32>::default().get(0), None);
    }
}
