//! Keys by index: the index of the scenario's keys that the encoding keeps
//! ([`KeyIndex`], implemented by `encode.rs`'s `Codec`), sets of key indices (the
//! footprints of `por.rs`, the quiet keys of `quiet.rs`), and the keys a command names.

use mdl_core::key::MdlKey;
use mdl_scenario::Command;

/// The scenario's keys by index.
pub trait KeyIndex {
    /// Every key the scenario names, in index (key) order.
    fn keys(&self) -> &[MdlKey];
    /// The index of a key the scenario names.
    fn key_index(&self, k: &MdlKey) -> usize;
    /// Is key `i` quiet for the whole scenario (nobody ever waits on it)?
    fn is_quiet(&self, i: usize) -> bool;
}

/// The keys a command names.
pub fn command_keys(cmd: &Command) -> Vec<MdlKey> {
    match cmd {
        Command::Acquire { key, .. }
        | Command::Upgrade { key, .. }
        | Command::Downgrade { key, .. }
        | Command::Clone { key, .. }
        | Command::Release { key, .. } => vec![key.clone()],
        Command::AcquireAll { reqs, .. } => reqs.iter().map(|(k, _)| k.clone()).collect(),
        _ => Vec::new(),
    }
}

/// A set of key indices (at most [`MAX_KEYS`]).
pub type KeySet = [u64; 4];
/// The reduction is off for scenarios that name more keys than this.
pub const MAX_KEYS: usize = 256;

pub fn add(s: &mut KeySet, i: usize) {
    s[i / 64] |= 1 << (i % 64);
}
pub fn union(a: &mut KeySet, b: &KeySet) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= *y;
    }
}
pub fn disjoint(a: &KeySet, b: &KeySet) -> bool {
    a.iter().zip(b).all(|(x, y)| x & y == 0)
}

/// Is key `i` in the set?
pub fn contains(q: &KeySet, i: usize) -> bool {
    q[i / 64] & (1 << (i % 64)) != 0
}
