//! The lock map and the lock objects (MySQL's `MDL_map` and `MDL_lock`).
//!
//! - **Shards** (`Shared::shards`): `SHARDS` (64) `RwLock<HashMap<MdlKey, Arc<LockObj>>>`
//!   keyed by the key's precomputed hash (a pass-through hasher). A new reference to a
//!   lock object is only ever handed out under its shard's lock (read or write).
//! - **Lock object** (`LockObj`): `fast`, the fast path's two flags (`fast.rs`), and
//!   `state`, a mutex over the step layer's [`Lock`] plus introspection bookkeeping
//!   (`Meta`).
//!
//! # Invariants
//!
//! - (reclamation) A map entry is removed only under the shard's write lock, when its
//!   `Arc::strong_count` is 1 (every pin, waiter and caller holds a clone) and its state
//!   is idle (`reclaimable`). Since new references come only from the map under the
//!   shard lock, or from a pin (which is itself a reference), nobody can be about to use
//!   it. A shard is swept when it has grown past twice its size after the previous sweep,
//!   plus `SWEEP_MIN`.
//! - (decisions) Every change of a lock object's [`Lock`] is a step-layer call made under
//!   its `state` mutex; the shell books the grants it returns (`Shared::granted`).

use super::types::{Counts, IdMap, LockInner, LockObj, Meta, StateLatch};
use super::Shared;
use crate::decide::key::{KeyHashBuilder, MdlKey};
use crate::decide::lock::Ticket;
use crate::decide::step::Grant;
use crate::decide::types::LockDuration;
use crate::sync::atomic::AtomicU64;
use crate::sync::{Arc, RwLock};
use std::collections::HashMap;
use tracing::debug;

/// Shards of the lock map; a shard is swept when it reaches twice its size after the
/// last sweep plus `SWEEP_MIN`. Under loom and shuttle both are tiny, so that small
/// models reach sharing and sweeps (every shard is an object they track).
#[cfg(not(any(loom, feature = "shuttle")))]
pub(super) const SHARDS: usize = 64;
#[cfg(not(any(loom, feature = "shuttle")))]
pub(super) const SWEEP_MIN: usize = 64;
#[cfg(any(loom, feature = "shuttle"))]
pub(super) const SHARDS: usize = 2;
#[cfg(any(loom, feature = "shuttle"))]
pub(super) const SWEEP_MIN: usize = 2;

pub(super) type KeyMap = HashMap<MdlKey, Arc<LockObj>, KeyHashBuilder>;

pub(super) struct ShardMap {
    pub(super) map: KeyMap,
    /// Sweep when the map reaches this size (twice the size after the last sweep +
    /// `SWEEP_MIN`).
    pub(super) sweep_at: usize,
}

impl Meta {
    /// A ticket granted without waiting.
    pub(super) fn granted(dur: LockDuration) -> Meta {
        Meta {
            dur,
            since_ms: 0,
            waited_ms: 0,
            waiter: None,
        }
    }
}

/// The grant of a waiter, as the step layer asks it of the shell: granted only when its
/// wait is still undecided (see [`CtxShared::try_grant`]).
pub(super) fn try_grant(meta: &IdMap<Meta>) -> impl FnMut(&Ticket) -> bool + '_ {
    |t| {
        meta.get(&t.id)
            .and_then(|m| m.waiter.as_ref())
            .is_some_and(|w| w.try_grant())
    }
}

impl Shared {
    pub(super) fn shard(&self, key: &MdlKey) -> &RwLock<ShardMap> {
        // Fibonacci hashing: the top bits of the product depend on every bit of the
        // key's hash (the map itself uses the hash's low and top bits).
        let h = key.hash_value().wrapping_mul(0x9e37_79b9_7f4a_7c15);
        &self.shards[((h >> 58) as usize) % SHARDS]
    }

    /// The lock object of `key`, made if missing (a reference handed out under the
    /// shard lock).
    pub(super) fn lookup(&self, key: &MdlKey) -> Arc<LockObj> {
        let shard = self.shard(key);
        if let Some(o) = shard.read().map.get(key) {
            return o.clone();
        }
        let mut w = shard.write();
        if let Some(o) = w.map.get(key) {
            return o.clone();
        }
        if w.map.len() >= w.sweep_at {
            w.map.retain(|_, o| !reclaimable(o));
            w.sweep_at = 2 * w.map.len() + SWEEP_MIN;
        }
        let o = Arc::new(LockObj {
            key: key.clone(),
            fast: AtomicU64::new(0),
            counts: Counts::default(),
            state: StateLatch::new(LockInner::default()),
        });
        w.map.insert(key.clone(), o.clone());
        o
    }

    pub(super) fn all_objects(&self) -> Vec<Arc<LockObj>> {
        let mut out = Vec::new();
        for s in &self.shards {
            out.extend(s.read().map.values().cloned());
        }
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out
    }

    /// Books the grants the step layer made on `obj`: the waits' times (the grant itself
    /// already set each waiter's status), and an upgrade's on the ticket it retyped.
    pub(super) fn granted(&self, obj: &LockObj, meta: &mut IdMap<Meta>, grants: Vec<Grant>) {
        let mut now = None;
        for Grant {
            ticket: t,
            upgraded,
        } in grants
        {
            let mut waited = 0;
            if let Some(m) = meta.get_mut(&t.id) {
                let now = *now.get_or_insert_with(|| self.clock.now_ms());
                waited = now.saturating_sub(m.since_ms);
                m.waited_ms = waited;
                m.waiter = None;
            }
            if let Some(old) = upgraded {
                meta.remove(&t.id);
                if let Some(m) = meta.get_mut(&old) {
                    m.waited_ms = waited;
                }
            }
            debug!(owner = t.owner.0, key = ?obj.key, ty = %t.ty, waited_ms = waited, "mdl grant");
        }
    }
}

pub(super) fn reclaimable(o: &Arc<LockObj>) -> bool {
    if cfg!(mdl_bug = "reclaim_early") {
        // Seeded bug: only the state is looked at, not who still refers to the object.
        return o.state.lock().st.is_idle();
    }
    // Every fast-path grant, held ticket and wait is on a pin, and every caller holds a
    // reference: a count of 1 (the map's) means nobody uses the object.
    Arc::strong_count(o) == 1 && o.state.lock().st.is_idle()
}
