//! The concurrent shell: what an engine embeds.
//!
//! One [`Manager`] per server; one [`Context`] per connection. Every decision is made by
//! the deterministic core, with the code that [`crate::table::LockTable`] runs:
//! [`TicketBook`]'s plans for what a context already holds, [`LockState::can_grant`] for
//! an immediate grant, [`LockState::reschedule`] after every release, downgrade and end
//! of a wait, [`crate::table::sort_bulk`] for bulk requests, [`deadlock::detect`] and
//! [`deadlock::choose_victim`] for deadlocks. This module only adds latches, parking and
//! the fast path around them.
//!
//! # Objects
//!
//! - **Shards** (`Shared::shards`): 64 `RwLock<HashMap<MdlKey, Arc<LockObj>>>` keyed by
//!   the key's precomputed hash (a pass-through hasher). A new reference to a lock
//!   object is only ever handed out under its shard's lock (read or write).
//! - **Lock object** (`LockObj`, MySQL's `MDL_lock`): `fast`, an `AtomicU64` with two
//!   flags (bit 63 `SLOW`: an obtrusive ticket is granted or waiting; bit 62 `USED`:
//!   fast-path grants may exist), and `state`, a mutex over the [`LockState`] plus
//!   introspection bookkeeping and the upgrades in progress.
//! - **Context** (`Context`, `MDL_context`): the [`TicketBook`] (owned by the
//!   connection's thread, not shared) and a shared part (`CtxShared`, registered in
//!   `Shared::registry` by owner id): `locks`, the context's **pins** (one reference per
//!   lock object it uses, by key, each with the context's fast-path grants on that lock
//!   and its number of uses), and the wait slot (`slot` + `cv`, MySQL's `MDL_wait`).
//!   A pin with no use stays as a cache of the map lookup (as many as the context's
//!   last transaction used, at least `IDLE_PINS` = 64, at most `MAX_IDLE_PINS` =
//!   16,384): a connection that keeps reading the same tables finds their objects
//!   without touching the map.
//!
//! `Shared` and `CtxShared` are shared through [`DataArc`] (std's `Arc`): their
//! reference counts decide nothing, and loom's `Arc` would multiply its state space.
//! Lock objects use the facade's [`Arc`], whose count decides reclamation.
//!
//! # Costs
//!
//! An uncontended fast-path acquire + commit does no allocation once the context's
//! vectors and maps have grown, and writes no memory that another context writes: it
//! takes its own `locks` spin lock ([`crate::sync::spin`]) once to acquire (find the pin by the key's precomputed
//! hash, read the lock's flags, push the grant) and once to release; ticket ids come
//! from a per-context block of `ID_BLOCK`; the lock object's reference count and flags
//! are not written while `USED` stays set. So connections taking SR/SW on one hot table
//! share only cache lines that everybody reads. What it still pays: the two holds of
//! its spin lock (a compare-and-swap each, the unlock a plain store, on a line of its
//! own context) and a few hash-map probes (book filter, pin). The book's copy of the key
//! is recycled through the pin (`Pin::spare`), so the key's reference count is not
//! touched either. A request for a key not pinned adds the shard's read lock and one lock-object
//! reference. A release of n tickets is linear.
//!
//! The price is at the other end: the first obtrusive request after fast-path use
//! (`SLOW` clear -> set, with `USED`) visits every registered context's pins (one hash
//! probe each), where MySQL reads one packed counter. DDL is rare next to DML; while
//! obtrusive locks stay granted or queued, later ones pay nothing.
//!
//! # Lock order
//!
//! `detector` < shard < lock state (several only in the detector's validation, then in
//! address order) < `registry` < context `locks` < context wait `slot`. (A context that
//! misses its pin lets go of its `locks` before it looks the key up in the map.)
//! The shard sweep holds the shard's write lock and takes each candidate's state; no
//! code holding a lock state takes a shard lock. `foreign` (an `RwLock` read to clone
//! the `DataArc`) is taken with nothing else held. The detector is the only code that
//! holds more than one lock state at a time.
//!
//! # Observability
//!
//! `tracing` events at debug level: request, grant (fast path, immediate, after a wait,
//! materialised), wait, wait ended (with its status), timeout, kill, deadlock victim,
//! downgrade, context gone. [`ContextHandle::is_waiting`] is true only once the waiter
//! has parked, i.e. after the deadlock search its wait started: a driver that polls it
//! sees every outcome that search decided already set.
//!
//! # Invariants
//!
//! - (fast path) While `SLOW` is clear, no obtrusive ticket is granted or waiting on the
//!   lock, so an unobtrusive request (pairwise compatible with every other unobtrusive
//!   type in every matrix) can be granted without asking the lock state. The requester
//!   holds its own `locks` lock while it reads `fast`, sets `USED` if clear (by a
//!   read-modify-write whose result must still show `SLOW` clear) and pushes the grant
//!   into its pin.
//! - (materialisation) Whoever sets `SLOW` (`ensure_slow`, under the lock's state mutex)
//!   and finds `USED` set first visits every registered context's pin of the lock, under
//!   that context's `locks` lock, and moves its fast grants into [`LockState`] as
//!   ordinary granted tickets; then it clears `USED`, still under the state mutex. A
//!   fast-path requester either held its mutex before the visit (so the visit sees its
//!   grant) or after it (so it sees `SLOW`, set before the visit, and goes the slow
//!   way). So once anyone holds the state mutex with `SLOW` set, the [`LockState`] holds
//!   every grant on the lock and every decision sees them. `USED` clear means no fast
//!   grant exists: every one is made after setting or seeing `USED`, and `USED` is only
//!   cleared after a visit of every context while `SLOW` forbids new ones. `SLOW` is
//!   cleared (under the state mutex) when no obtrusive ticket is granted or waiting.
//! - (fast release) A fast grant still in its owner's pin is released by removing it
//!   under the owner's `locks` lock; one that is gone was materialised and is released
//!   through the state mutex, with a reschedule.
//! - (pins) Every held ticket, fast grant and request in progress counts as a use of its
//!   context's pin of the lock, and the pin holds a reference to the object; so a lock
//!   in use is referenced. A pin's object is the map's object for its key.
//! - (reclamation) A map entry is removed only under the shard's write lock, when its
//!   `Arc::strong_count` is 1 (every pin, waiter and caller holds a clone) and its state
//!   is idle. Since new references come only from the map under the shard lock, or from
//!   a pin (which is itself a reference), nobody can be about to use it. A shard is
//!   swept when it has grown past twice its size after the previous sweep, plus 64.
//! - (waits) A waiting ticket's owner has `slot.waiting` set and `slot.status` `None`
//!   until the first status is set (`Granted` by a reschedule, `Deadlock` by the
//!   detector, `Timeout` by the clock, `Killed` by [`ContextHandle::kill`]); later ones
//!   are refused. A waiter whose status is not `Granted` stays queued until it removes
//!   its own ticket, under the state mutex, and reschedules.
//! - (deadlocks) The detector runs under `detector`, from a waiter that has just
//!   started to wait, over the live graph (each waiter's lock's
//!   [`LockState::blockers`], waiters with a decided status having no edges, plus
//!   [`ForeignWaits`]). Before it acts it re-checks every edge of the cycle found while
//!   holding the state mutexes of all the cycle's locks, so a graph that changed during
//!   the search never yields a false deadlock.
//!
//! # Seeded bugs
//!
//! Realistic mistakes of this shell, compiled in with `MDL_BUG=NAME` (`cfg!(mdl_bug =
//! "NAME")` below), for the loom/shuttle harnesses to catch: what each one breaks and
//! which tests must catch it (`proofs/tests/`, `tests/manager_shuttle.rs`) is the
//! registry's, `ci/registry/src/bugs.rs` (layer "concurrent shell"; the table generated
//! from it is in `proofs/README.md`). `ci/seeded-proofs.sh` runs them.

use crate::book::{AcquirePlan, Held, TicketBook, UpgradePlan};
use crate::deadlock::{self, ForeignWaits, WaitGraph};
use crate::dialect::{Dialect, Strategy};
use crate::error::MdlError;
use crate::key::{KeyHashBuilder, MdlKey};
use crate::lock::{OwnerId, Rules, Ticket, TicketId};
use crate::step::{self, Abort, DeadlockShell, Decision, Grant, Lock, Resolved, Waiting};
use crate::sync::atomic::{AtomicU64, Ordering};
use crate::sync::clock::Clock;
use crate::sync::spin::SpinLock;
use crate::sync::{Arc, Condvar, DataArc, Mutex, MutexGuard, RwLock};
use crate::table::{self, BulkReq, Config};
use crate::types::{Duration, LockType, Outcome, WaitOption, WaitStatus};
use smallvec::SmallVec;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use tracing::debug;

pub mod introspect;
mod verify;

/// Shards of the lock map; a shard is swept when it reaches twice its size after the
/// last sweep plus `SWEEP_MIN`. Under loom and shuttle both are tiny, so that small
/// models reach sharing and sweeps (every shard is an object they track).
#[cfg(not(any(loom, feature = "shuttle")))]
const SHARDS: usize = 64;
#[cfg(not(any(loom, feature = "shuttle")))]
const SWEEP_MIN: usize = 64;
#[cfg(any(loom, feature = "shuttle"))]
const SHARDS: usize = 2;
#[cfg(any(loom, feature = "shuttle"))]
const SWEEP_MIN: usize = 2;

/// Up to this many locks, a release groups its slow tickets by a linear search; beyond,
/// it builds an index.
const FEW: usize = 8;

/// Idle pins (lock objects a context keeps a reference to while it holds no ticket on
/// them: a cache of map lookups) kept per context at least (see `PinCounts`).
#[cfg(not(any(loom, feature = "shuttle")))]
const IDLE_PINS: usize = 64;
#[cfg(any(loom, feature = "shuttle"))]
const IDLE_PINS: usize = 1;
/// However big the last round, at most this many idle pins are kept per context (a
/// connection that once locked a million tables does not keep their objects).
#[cfg(not(any(loom, feature = "shuttle")))]
const MAX_IDLE_PINS: usize = 16_384;
#[cfg(any(loom, feature = "shuttle"))]
const MAX_IDLE_PINS: usize = 4;

/// Ticket ids a context takes from the manager's counter at a time.
#[cfg(not(any(loom, feature = "shuttle")))]
const ID_BLOCK: u64 = 1024;
#[cfg(any(loom, feature = "shuttle"))]
const ID_BLOCK: u64 = 2;

/// `LockObj::fast`: an obtrusive ticket is granted or waiting (or being decided). Set and
/// cleared only under the lock's state mutex.
const SLOW: u64 = 1 << 63;
/// `LockObj::fast`: fast-path grants may exist on the lock. Set by a fast-path grant that
/// finds it clear (before the grant is recorded); cleared by the materialisation, under
/// the state mutex with `SLOW` set, after it has visited every context.
const USED: u64 = 1 << 62;

type KeyMap = HashMap<MdlKey, Arc<LockObj>, KeyHashBuilder>;

/// Hashes a [`TicketId`] (sequential `u64`s) with one multiplication, so that both the
/// low bits (bucket) and the top bits (control byte) of the map's hash vary.
#[derive(Default)]
struct IdHash(u64);

impl Hasher for IdHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type IdMap<V> = HashMap<TicketId, V, BuildHasherDefault<IdHash>>;

struct ShardMap {
    map: KeyMap,
    /// Sweep when the map reaches this size (twice the size after the last sweep +
    /// `SWEEP_MIN`).
    sweep_at: usize,
}

/// One lock (`MDL_lock`).
struct LockObj {
    key: MdlKey,
    /// `SLOW | USED`. A fast-path grant only reads it (and sets `USED` once after a
    /// materialisation), so contexts taking shared locks on one hot table write no
    /// common cache line.
    fast: AtomicU64,
    state: Mutex<LockInner>,
}

#[derive(Default)]
struct LockInner {
    /// The step layer's lock: every granted ticket except fast-path ones not yet
    /// materialised, every waiting ticket, the upgrades waiting.
    st: Lock,
    /// Per ticket in `st` (not the upgrade tickets): duration, wait times, and the
    /// waiter's shared context while it waits (a grant sets its status).
    meta: IdMap<Meta>,
}

/// The grant of a waiter, as the step layer asks it of the shell: granted only when its
/// wait is still undecided (see [`CtxShared::try_grant`]).
fn try_grant(meta: &IdMap<Meta>) -> impl FnMut(&Ticket) -> bool + '_ {
    |t| {
        meta.get(&t.id)
            .and_then(|m| m.waiter.as_ref())
            .is_some_and(|w| w.try_grant())
    }
}

struct Meta {
    dur: Duration,
    /// When the wait began (read only while the ticket waits; 0 for an immediate grant,
    /// so that no grant reads the clock).
    since_ms: u64,
    waited_ms: u64,
    waiter: Option<DataArc<CtxShared>>,
}

/// A fast-path grant, in its owner's pin until released or materialised.
#[derive(Clone, Copy)]
struct FastGrant {
    id: TicketId,
    ty: LockType,
    dur: Duration,
}

/// A context's reference to one lock object (MySQL keeps a ticket per lock; we keep one
/// reference per lock object in use, whatever the number of tickets on it).
struct Pin {
    obj: Arc<LockObj>,
    /// Fast-path grants on `obj` not yet materialised (usually zero or one: inline, so
    /// that a pin costs no allocation of its own).
    fast: SmallVec<[FastGrant; 1]>,
    /// The context's granted tickets on `obj` plus its request in progress, if any. An
    /// idle pin (0) is a cache entry: it keeps the object mapped and saves the next
    /// acquire its map lookup.
    uses: u32,
    /// The key of the ticket released last on this lock, kept for the next fast-path
    /// grant's book entry: a connection that takes and releases the same lock again and
    /// again then moves one key value back and forth instead of touching its reference
    /// count (keys are values: equal keys are interchangeable).
    spare: Option<MdlKey>,
}

/// The lock objects a context uses, by key.
#[derive(Default)]
struct Pins {
    map: HashMap<MdlKey, Pin, KeyHashBuilder>,
    n: PinCounts,
}

/// How many pins are in use and idle, and how many idle ones to keep: the most pins the
/// context had in use in its last round (from no pin in use to none again, e.g. a
/// transaction), but at least `IDLE_PINS` and at most `MAX_IDLE_PINS`. A connection
/// that runs the same big transaction again finds every lock object pinned; one that
/// goes back to small ones drops the surplus at the end of its next round.
struct PinCounts {
    idle: usize,
    in_use: usize,
    /// Most pins in use in this round.
    peak: usize,
    /// Idle pins kept.
    cap: usize,
}

impl Default for PinCounts {
    fn default() -> PinCounts {
        PinCounts {
            idle: 0,
            in_use: 0,
            peak: 0,
            cap: IDLE_PINS,
        }
    }
}

impl PinCounts {
    /// One more use of `p`.
    fn use_pin(&mut self, p: &mut Pin) {
        if p.uses == 0 {
            self.idle -= 1;
        }
        p.uses += 1;
        self.in_use += 1;
        self.peak = self.peak.max(self.in_use);
    }

    /// One use of `p` fewer: true when it fell idle and must go (the idle pins kept are
    /// at the cap).
    fn release_pin(&mut self, p: &mut Pin) -> bool {
        p.uses = p.uses.saturating_sub(1);
        if p.uses != 0 {
            return false;
        }
        self.in_use -= 1;
        if self.idle >= self.cap {
            return true;
        }
        self.idle += 1;
        false
    }
}

impl Pins {
    /// One more use of the pin of `key`, if there is one.
    fn take(&mut self, key: &MdlKey) -> Option<&mut Pin> {
        let p = self.map.get_mut(key)?;
        self.n.use_pin(p);
        Some(p)
    }

    /// Adds a pin of `obj` for `key` with one use (or one more use of the pin there is).
    fn add(&mut self, key: &MdlKey, obj: Arc<LockObj>) -> &mut Pin {
        let p = match self.map.entry(key.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                // A new pin starts idle; its first use follows.
                self.n.idle += 1;
                e.insert(Pin {
                    obj,
                    fast: SmallVec::new(),
                    uses: 0,
                    spare: None,
                })
            }
        };
        self.n.use_pin(p);
        p
    }

    /// One use of the pin of `key` fewer.
    fn put(&mut self, key: &MdlKey) {
        let Some(p) = self.map.get_mut(key) else {
            return;
        };
        if self.n.release_pin(p) {
            self.map.remove(key);
        }
        self.end_round_if();
    }

    /// With no pin in use, a round ends: the idle pins to keep are those the round
    /// needed (at least `IDLE_PINS`); the surplus goes.
    fn end_round_if(&mut self) {
        if self.n.in_use != 0 {
            return;
        }
        self.n.cap = self.n.peak.clamp(IDLE_PINS, MAX_IDLE_PINS);
        self.n.peak = 0;
        if self.n.idle > self.n.cap {
            let mut keep = self.n.cap;
            self.map.retain(|_, p| {
                if p.uses > 0 || keep > 0 {
                    keep = keep.saturating_sub(usize::from(p.uses == 0));
                    true
                } else {
                    false
                }
            });
            self.n.idle = self.n.cap;
        }
        // Give back the table's room after a round much bigger than the ones now.
        if self.map.capacity() > 4 * (self.map.len() + IDLE_PINS) {
            self.map.shrink_to(2 * (self.map.len() + IDLE_PINS));
        }
    }
}

/// What a parked context waits for.
struct WaitFor {
    lock: Arc<LockObj>,
    ticket: Ticket,
    deadline: Option<u64>,
}

/// The wait slot (`MDL_wait`) and the detector's weight inputs.
#[derive(Default)]
struct SlotState {
    /// The wait's outcome; the first one set wins.
    status: Option<WaitStatus>,
    /// Set (under the lock's state mutex) when the ticket is enqueued; taken by the
    /// waiter when it wakes with a status.
    waiting: Option<WaitFor>,
    force_dml: bool,
    /// The waiter is parked in [`CtxShared::park`] (its deadlock search is over).
    parked: bool,
    /// Times chosen as a deadlock victim (MariaDB's overweight).
    victim_count: u32,
}

/// The part of a context that other threads touch.
struct CtxShared {
    id: OwnerId,
    /// The lock objects the context uses, with its fast-path grants not yet materialised
    /// (lock order: after `registry`). Other threads take it only to materialise, check
    /// or introspect; the owner takes it once per acquire and once per release. A spin
    /// lock: nobody holds it for long, and its unlock is a plain store.
    locks: SpinLock<Pins>,
    /// Lock order: last.
    slot: Mutex<SlotState>,
    cv: Condvar,
}

impl CtxShared {
    fn new(id: OwnerId) -> CtxShared {
        CtxShared {
            id,
            locks: SpinLock::new(Pins::default()),
            slot: Mutex::new(SlotState::default()),
            cv: Condvar::new(),
        }
    }

    /// Sets `status` if the context waits with no status yet; wakes it.
    fn try_end(&self, status: WaitStatus) -> bool {
        let mut s = self.slot.lock();
        if s.status.is_some() || s.waiting.is_none() {
            return false;
        }
        s.status = Some(status);
        self.cv.notify_all();
        true
    }

    /// A reschedule grants this context's waiting ticket: true when it was still
    /// undecided (it is then granted), false to leave it queued.
    fn try_grant(&self) -> bool {
        let mut s = self.slot.lock();
        if cfg!(mdl_bug = "grant_after_timeout") {
            // Seeded bug: the grant goes ahead even when a timeout or kill came first.
            if s.status.is_none() {
                s.status = Some(WaitStatus::Granted);
            }
            self.cv.notify_all();
            return true;
        }
        // `waiting` is gone once the waiter has consumed a status: it is on its way out
        // and will remove its ticket itself.
        if s.status.is_some() || s.waiting.is_none() {
            return false;
        }
        s.status = Some(WaitStatus::Granted);
        if !cfg!(mdl_bug = "lost_wakeup") {
            self.cv.notify_all();
        }
        true
    }

    /// Parks until the wait has a status; consumes it.
    fn park(&self, clock: &Clock) -> WaitStatus {
        let mut s = self.slot.lock();
        s.parked = true;
        loop {
            if let Some(st) = s.status.take() {
                s.parked = false;
                let w = s.waiting.take();
                drop(s);
                drop(w);
                return st;
            }
            let deadline = s.waiting.as_ref().and_then(|w| w.deadline);
            match (clock, deadline) {
                (Clock::System, Some(dl)) => {
                    let now = clock.now_ms();
                    if now >= dl {
                        s.status = Some(WaitStatus::Timeout);
                        debug!(owner = self.id.0, "mdl wait timed out");
                        continue;
                    }
                    s = self.cv.wait_timeout_ms(s, dl - now);
                }
                _ => s = self.cv.wait(s),
            }
        }
    }
}

struct Registry {
    next: u32,
    live: BTreeMap<OwnerId, DataArc<CtxShared>>,
}

struct Shared {
    dialect: Dialect,
    config: Config,
    clock: Clock,
    shards: Vec<RwLock<ShardMap>>,
    /// Live contexts by owner id (lock order: after every lock state).
    registry: RwLock<Registry>,
    next_ticket: AtomicU64,
    /// Serialises deadlock searches (lock order: first).
    detector: Mutex<()>,
    foreign: RwLock<Option<DataArc<dyn ForeignWaits>>>,
}

/// The lock manager. Cheap to clone (shared).
#[derive(Clone)]
pub struct Manager {
    sh: DataArc<Shared>,
}

/// How a wait ended, as seen by the validation of a cycle.
enum Validation {
    /// The cycle was real; this node was chosen and aborted (`true`: in a foreign
    /// subsystem).
    Victim(OwnerId, bool),
    /// The graph changed during the search.
    Stale,
    /// The victim is a foreign waiter that its subsystem would not abort.
    ForeignRefused,
}

impl Shared {
    fn ctx(&self, o: OwnerId) -> Option<DataArc<CtxShared>> {
        self.registry.read().live.get(&o).cloned()
    }

    fn rules(&self, key: &MdlKey) -> Rules<'_> {
        table::rules(&self.dialect, self.config, key)
    }

    fn strategy(&self, key: &MdlKey) -> &Strategy {
        self.dialect.strategy(key.namespace())
    }

    /// A block of `ID_BLOCK` ticket ids (unique; each context hands out its block in
    /// increasing order).
    fn ticket_block(&self) -> u64 {
        // Only uniqueness matters (every read-modify-write of one atomic is in its single
        // modification order), not ordering with other memory: `Relaxed` suffices.
        self.next_ticket.fetch_add(ID_BLOCK, Ordering::Relaxed)
    }

    fn shard(&self, key: &MdlKey) -> &RwLock<ShardMap> {
        // Fibonacci hashing: the top bits of the product depend on every bit of the
        // key's hash (the map itself uses the hash's low and top bits).
        let h = key.hash_value().wrapping_mul(0x9e37_79b9_7f4a_7c15);
        &self.shards[((h >> 58) as usize) % SHARDS]
    }

    /// The lock object of `key`, made if missing (a reference handed out under the
    /// shard lock).
    fn lookup(&self, key: &MdlKey) -> Arc<LockObj> {
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
            state: Mutex::new(LockInner::default()),
        });
        w.map.insert(key.clone(), o.clone());
        o
    }

    fn all_objects(&self) -> Vec<Arc<LockObj>> {
        let mut out = Vec::new();
        for s in &self.shards {
            out.extend(s.read().map.values().cloned());
        }
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out
    }

    /// Sets SLOW; if it was clear and fast-path grants may exist (`USED`), materialises
    /// them: visits every registered context's pin of this lock, moves its fast grants
    /// into the lock state, then clears `USED`.
    fn ensure_slow(&self, obj: &LockObj, g: &mut LockInner) {
        let prev = obj.fast.fetch_or(SLOW, Ordering::SeqCst);
        if prev & SLOW != 0 || prev & USED == 0 {
            return;
        }
        if cfg!(mdl_bug = "no_materialize") {
            return;
        }
        let reg = self.registry.read();
        for cs in reg.live.values() {
            let mut p = cs.locks.lock();
            let Some(pin) = p.map.get_mut(&obj.key) else {
                continue;
            };
            if !std::ptr::eq(&*pin.obj, obj) {
                // Cannot happen: a pinned object stays mapped, and a key maps to one
                // object. Its grants are not on this lock.
                continue;
            }
            for e in pin.fast.drain(..) {
                g.st.state_mut().grant_in_id_order(Ticket {
                    id: e.id,
                    owner: cs.id,
                    ty: e.ty,
                });
                g.meta.insert(
                    e.id,
                    Meta {
                        dur: e.dur,
                        since_ms: 0,
                        waited_ms: 0,
                        waiter: None,
                    },
                );
                debug!(owner = cs.id.0, key = ?obj.key, ty = %e.ty, "mdl fast-path grant materialised");
            }
        }
        // Every context registered now has been visited, and none can add a fast grant
        // while SLOW is set: none is left.
        obj.fast.fetch_and(!USED, Ordering::SeqCst);
    }

    /// Clears SLOW when nothing obtrusive is granted or waiting.
    fn clear_slow_if(&self, obj: &LockObj, g: &LockInner) {
        if obj.fast.load(Ordering::SeqCst) & SLOW != 0
            && g.st.obtrusive_count(self.strategy(&obj.key)) == 0
        {
            obj.fast.fetch_and(!SLOW, Ordering::SeqCst);
        }
    }

    /// Books the grants the step layer made on `obj`: the waits' times (the grant itself
    /// already set each waiter's status), and an upgrade's on the ticket it retyped.
    fn granted(&self, obj: &LockObj, meta: &mut IdMap<Meta>, grants: Vec<Grant>) {
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

    /// Sets the victim's status (or aborts its foreign wait).
    fn abort_victim(
        &self,
        v: OwnerId,
        start: OwnerId,
        foreign_start: bool,
        foreign: &Option<DataArc<dyn ForeignWaits>>,
    ) -> bool {
        if let Some(cs) = self.ctx(v) {
            let mut s = cs.slot.lock();
            s.victim_count += 1;
            if s.waiting.is_some() {
                // An MDL wait: abort it, unless it has just ended some other way (then
                // the cycle is gone all the same).
                if s.status.is_none() {
                    s.status = Some(WaitStatus::Deadlock);
                    cs.cv.notify_all();
                    debug!(victim = v.0, requester = start.0, "mdl deadlock victim");
                }
                return true;
            }
        }
        if v == start && foreign_start {
            debug!(victim = v.0, "mdl deadlock victim (foreign requester)");
            return true;
        }
        match foreign {
            Some(f) => {
                let ok = f.abort_wait(v);
                debug!(
                    victim = v.0,
                    requester = start.0,
                    aborted = ok,
                    "mdl deadlock victim (foreign wait)"
                );
                ok
            }
            None => false,
        }
    }

    /// Runs the victim loop ([`step::resolve`]) from `start` under `detector`. Returns
    /// true when `start` itself was chosen.
    fn detect(&self, start: OwnerId, foreign_start: bool) -> bool {
        let _d = self.detector.lock();
        let mut shell = LiveShell {
            g: LiveGraph {
                m: self,
                foreign: self.foreign.read().clone(),
            },
            foreign_start,
            foreign_victims: Vec::new(),
        };
        step::resolve(&mut shell, start) == Resolved::StartIsVictim
    }

    fn validate_and_abort(
        &self,
        g: &LiveGraph<'_>,
        dl: &deadlock::Deadlock<OwnerId>,
        start: OwnerId,
        foreign_start: bool,
        foreign: &Option<DataArc<dyn ForeignWaits>>,
    ) -> Validation {
        let cycle: &[OwnerId] = &dl.cycle;
        type NodeWait = Option<(Arc<LockObj>, Ticket, DataArc<CtxShared>)>;
        // What each node waits for, as first seen.
        let waits: Vec<NodeWait> = cycle
            .iter()
            .map(|n| {
                let cs = self.ctx(*n)?;
                let s = cs.slot.lock();
                if s.status.is_some() {
                    return None;
                }
                let w = s.waiting.as_ref()?;
                let r = (w.lock.clone(), w.ticket, cs.clone());
                drop(s);
                Some(r)
            })
            .collect();
        let mut objs: Vec<Arc<LockObj>> = waits.iter().flatten().map(|w| w.0.clone()).collect();
        objs.sort_by_key(|o| Arc::as_ptr(o) as usize);
        objs.dedup_by(|a, b| Arc::ptr_eq(a, b));
        let guards: Vec<MutexGuard<'_, LockInner>> = objs.iter().map(|o| o.state.lock()).collect();
        for (i, a) in cycle.iter().enumerate() {
            // A path the depth cap ended has no closing edge: its last node must still
            // wait (the search entered it), for anyone.
            let b = match cycle.get(i + 1) {
                Some(b) => Some(*b),
                None if dl.capped => None,
                None => Some(cycle[0]),
            };
            let mut ok = false;
            if let Some((o, t, cs)) = &waits[i] {
                let still = {
                    let s = cs.slot.lock();
                    s.status.is_none() && s.waiting.as_ref().is_some_and(|w| w.ticket.id == t.id)
                };
                if still {
                    let gi = objs
                        .iter()
                        .position(|x| Arc::ptr_eq(x, o))
                        .expect("locked above");
                    let r = self.rules(&o.key);
                    let st = &guards[gi].st;
                    ok =
                        st.is_waiting(t.id) && b.is_none_or(|b| st.blockers(&r, t).any(|x| x == b));
                }
            }
            if !ok {
                if let Some(f) = foreign {
                    ok = match b {
                        Some(b) => {
                            let mut v = Vec::new();
                            f.waits_for(*a, &mut v);
                            v.contains(&b)
                        }
                        None => f.weight(*a).is_some(),
                    };
                }
            }
            if !ok {
                return Validation::Stale;
            }
        }
        let victim = deadlock::choose_victim(g, cycle);
        let mdl_wait = waits[cycle.iter().position(|n| *n == victim).unwrap_or(0)].is_some();
        let aborted = self.abort_victim(victim, start, foreign_start, foreign);
        if cfg!(mdl_bug = "two_victims") && victim != start {
            // Seeded bug: the requester is aborted as well.
            self.abort_victim(start, start, foreign_start, foreign);
        }
        drop(guards);
        if aborted {
            Validation::Victim(victim, !mdl_wait)
        } else {
            Validation::ForeignRefused
        }
    }
}

fn reclaimable(o: &Arc<LockObj>) -> bool {
    if cfg!(mdl_bug = "reclaim_early") {
        // Seeded bug: only the state is looked at, not who still refers to the object.
        return o.state.lock().st.is_idle();
    }
    // Every fast-path grant, held ticket and wait is on a pin, and every caller holds a
    // reference: a count of 1 (the map's) means nobody uses the object.
    Arc::strong_count(o) == 1 && o.state.lock().st.is_idle()
}

/// The wait-for graph over the live state.
struct LiveGraph<'a> {
    m: &'a Shared,
    foreign: Option<DataArc<dyn ForeignWaits>>,
}

impl WaitGraph for LiveGraph<'_> {
    type Node = OwnerId;
    fn successors(&self, n: OwnerId, out: &mut Vec<OwnerId>) {
        if let Some(cs) = self.m.ctx(n) {
            let w = {
                let s = cs.slot.lock();
                match (&s.status, &s.waiting) {
                    (None, Some(w)) => Some((w.lock.clone(), w.ticket)),
                    _ => None,
                }
            };
            if let Some((o, t)) = w {
                o.state.lock().st.wait_for(&self.m.rules(&o.key), &t, out);
            }
        }
        if let Some(f) = &self.foreign {
            f.waits_for(n, out);
        }
    }
    fn is_waiting(&self, n: OwnerId) -> bool {
        let mdl = self.m.ctx(n).is_some_and(|cs| {
            let s = cs.slot.lock();
            s.status.is_none() && s.waiting.is_some()
        });
        mdl || self.foreign.as_ref().is_some_and(|f| f.weight(n).is_some())
    }
    fn weight(&self, n: OwnerId) -> u32 {
        let mut victims = 0;
        let mut force_dml = false;
        if let Some(cs) = self.m.ctx(n) {
            let s = cs.slot.lock();
            victims = s.victim_count;
            force_dml = s.force_dml;
            if let (None, Some(w)) = (&s.status, &s.waiting) {
                let mdl = Waiting::Mdl {
                    key_ns: w.lock.key.namespace(),
                    ty: w.ticket.ty,
                };
                return step::wait_weight(&self.m.dialect, mdl, force_dml, victims);
            }
        }
        match self.foreign.as_ref().and_then(|f| f.weight(n)) {
            Some(wt) => {
                step::wait_weight(&self.m.dialect, Waiting::Foreign(wt), force_dml, victims)
            }
            None => 0,
        }
    }
}

/// The manager's side of the victim loop: the live graph, and the validation of a cycle
/// before its victim is aborted.
struct LiveShell<'a> {
    g: LiveGraph<'a>,
    foreign_start: bool,
    /// Foreign victims already aborted: one chosen again means its subsystem still
    /// reports the wait, and aborting it again would not end the loop.
    foreign_victims: Vec<OwnerId>,
}

impl<'a> DeadlockShell for LiveShell<'a> {
    type Graph<'g>
        = &'g LiveGraph<'a>
    where
        Self: 'g;
    fn graph(&self) -> &LiveGraph<'a> {
        &self.g
    }
    fn max_depth(&self) -> Option<u32> {
        self.g.m.dialect.max_search_depth
    }
    fn abort(&mut self, dl: &deadlock::Deadlock<OwnerId>, start: OwnerId) -> Abort {
        let m = self.g.m;
        match m.validate_and_abort(&self.g, dl, start, self.foreign_start, &self.g.foreign) {
            Validation::Victim(v, true) if v != start => {
                if self.foreign_victims.contains(&v) {
                    return Abort::Stop;
                }
                self.foreign_victims.push(v);
                Abort::Victim(v)
            }
            Validation::Victim(v, _) => Abort::Victim(v),
            Validation::Stale => Abort::Again,
            Validation::ForeignRefused => Abort::Stop,
        }
    }
}

impl Manager {
    /// A manager for `dialect` with `config` (max_write_lock_count), timing waits by `clock`.
    pub fn new(dialect: Dialect, config: Config, clock: Clock) -> Manager {
        let shards = (0..SHARDS)
            .map(|_| {
                RwLock::new(ShardMap {
                    map: KeyMap::default(),
                    sweep_at: SWEEP_MIN,
                })
            })
            .collect();
        Manager {
            sh: DataArc::new(Shared {
                dialect,
                config,
                clock,
                shards,
                registry: RwLock::new(Registry {
                    next: 0,
                    live: BTreeMap::new(),
                }),
                next_ticket: AtomicU64::new(1),
                detector: Mutex::new(()),
                foreign: RwLock::new(None),
            }),
        }
    }
    pub fn dialect(&self) -> &Dialect {
        &self.sh.dialect
    }
    pub fn config(&self) -> Config {
        self.sh.config
    }
    /// A new context (connection). Owner ids are 0, 1, 2, ... in creation order.
    pub fn context(&self) -> Context {
        let mut r = self.sh.registry.write();
        let id = OwnerId(r.next);
        r.next += 1;
        let cs = DataArc::new(CtxShared::new(id));
        r.live.insert(id, cs.clone());
        drop(r);
        Context {
            mgr: self.clone(),
            sh: cs,
            book: TicketBook::new(),
            next_id: 0,
            end_id: 0,
            scratch: Vec::new(),
            rel: Vec::new(),
            slow: Vec::new(),
            waited: false,
        }
    }
    pub fn clock(&self) -> &Clock {
        &self.sh.clock
    }
    /// With a manual clock: move time forward by `ms` and time out every wait whose
    /// deadline has passed (each such waiter's outcome becomes `Timeout`). With the
    /// system clock time is not moved, but expired waits are timed out all the same.
    pub fn advance_clock(&self, ms: u64) {
        if let Clock::Manual(m) = &self.sh.clock {
            m.advance(ms);
        }
        let now = self.sh.clock.now_ms();
        let reg = self.sh.registry.read();
        for cs in reg.live.values() {
            let mut s = cs.slot.lock();
            let expired = s.status.is_none()
                && s.waiting
                    .as_ref()
                    .and_then(|w| w.deadline)
                    .is_some_and(|d| d <= now);
            if expired {
                s.status = Some(WaitStatus::Timeout);
                cs.cv.notify_all();
                debug!(owner = cs.id.0, now_ms = now, "mdl wait timed out");
            }
        }
    }
    /// Joins another subsystem's waits to the wait-for graph.
    pub fn set_foreign_waits(&self, f: crate::sync::DataArc<dyn ForeignWaits>) {
        *self.sh.foreign.write() = Some(f);
    }
    /// Runs the detector from `owner`, which has just started a wait in a foreign
    /// subsystem; aborts victims until no cycle through it is left. Returns true when
    /// `owner` itself is the victim (its own wait is not aborted through
    /// [`ForeignWaits::abort_wait`]: the caller ends it). Call it holding none of the
    /// locks that the [`ForeignWaits`] methods take: the search calls them.
    pub fn detect_from(&self, owner: OwnerId) -> bool {
        self.sh.detect(owner, true)
    }
    /// Every lock, granted and pending (`performance_schema.metadata_locks`).
    pub fn snapshot(&self) -> Vec<introspect::LockRow> {
        introspect::snapshot(&self.sh)
    }
    /// Real conflicts only (`sys.schema_table_lock_waits`).
    pub fn lock_waits(&self) -> Vec<introspect::LockWait> {
        introspect::lock_waits(&self.sh)
    }
    /// The wait-for graph in Graphviz DOT.
    pub fn wait_for_graph_dot(&self) -> String {
        introspect::wait_for_graph_dot(&self.sh)
    }
    /// The wait-for edges (waiter, blocker) of the live graph, MDL and foreign, sorted.
    pub fn wait_edges(&self) -> Vec<(OwnerId, OwnerId)> {
        introspect::wait_edges(&self.sh)
    }
    /// Lock objects currently in the map (for the reclamation test).
    pub fn lock_object_count(&self) -> usize {
        self.sh.shards.iter().map(|s| s.read().map.len()).sum()
    }
}

/// A handle on a context that other threads may use: kill its wait, see whether it waits.
#[derive(Clone)]
pub struct ContextHandle {
    sh: DataArc<CtxShared>,
}

impl ContextHandle {
    pub fn id(&self) -> OwnerId {
        self.sh.id
    }
    /// Aborts the context's pending wait (its outcome becomes `Killed`). Returns false
    /// when it was not waiting (or its wait had already ended).
    pub fn kill(&self) -> bool {
        let ok = self.sh.try_end(WaitStatus::Killed);
        if ok {
            debug!(owner = self.sh.id.0, "mdl wait killed");
        }
        ok
    }
    /// Ends the context's pending wait with `Timeout` now, whatever its deadline. Returns
    /// false when it was not waiting (or its wait had already ended). For a driver that
    /// orders timeouts itself with a manual clock (the scenario runner times out the waits
    /// an `advance` passes one at a time, in a fixed order: [`Manager::advance_clock`]
    /// ends them all at once, and their wake-ups then race).
    pub fn time_out(&self) -> bool {
        let ok = self.sh.try_end(WaitStatus::Timeout);
        if ok {
            debug!(owner = self.sh.id.0, "mdl wait timed out (by the driver)");
        }
        ok
    }
    /// The deadline (a clock reading) of the context's undecided wait, if it waits with
    /// a timeout.
    pub fn wait_deadline(&self) -> Option<u64> {
        let s = self.sh.slot.lock();
        match (&s.status, &s.waiting) {
            (None, Some(w)) => w.deadline,
            _ => None,
        }
    }
    /// The context is parked in a wait whose outcome is not decided yet. (Parked: the
    /// deadlock search its wait started is over, and every outcome that search decided
    /// for others is set.)
    pub fn is_waiting(&self) -> bool {
        let s = self.sh.slot.lock();
        s.parked && s.status.is_none() && s.waiting.is_some()
    }
}

/// One connection's locks. Not shared between threads; dropping it releases everything
/// and wakes whoever waited on it.
pub struct Context {
    mgr: Manager,
    sh: DataArc<CtxShared>,
    book: TicketBook,
    /// The next ticket id of this context's block, and the block's end.
    next_id: u64,
    end_id: u64,
    /// Reused by [`Context::release_ids`]'s callers (no allocation per commit).
    scratch: Vec<TicketId>,
    /// Reused by [`Context::release_ids`]: empty between calls.
    rel: Vec<Held>,
    /// Reused by [`Context::release_ids`]: empty between calls.
    slow: Vec<(Arc<LockObj>, TicketId)>,
    /// The last request waited before it was granted (read by
    /// [`Context::acquire_all_paced`]).
    waited: bool,
}

/// The timeout of a wait, in ms (`None`: forever).
fn timeout_of(wait: WaitOption) -> Option<u64> {
    match wait {
        WaitOption::Timeout(ms) => Some(ms),
        WaitOption::NoWait | WaitOption::Forever => None,
    }
}

/// Tries the fast path on a pinned lock: `SLOW` clear, `USED` set (setting it if needed),
/// then the grant is recorded in the pin. The caller holds its `locks` lock throughout,
/// so a materialisation (which sets `SLOW` first, then takes that mutex) either sees the
/// grant or makes this call see `SLOW`.
fn try_fast(pin: &mut Pin, grant: FastGrant) -> bool {
    let v = pin.obj.fast.load(Ordering::SeqCst);
    if v & SLOW != 0 {
        return false;
    }
    // `USED` clear: the first fast grant since the last materialisation. Setting it with
    // a read-modify-write tells us whether `SLOW` came meanwhile.
    if v & USED == 0
        && !cfg!(mdl_bug = "used_not_set")
        && pin.obj.fast.fetch_or(USED, Ordering::SeqCst) & SLOW != 0
    {
        return false;
    }
    pin.fast.push(grant);
    true
}

impl Context {
    pub fn id(&self) -> OwnerId {
        self.sh.id
    }
    pub fn handle(&self) -> ContextHandle {
        ContextHandle {
            sh: self.sh.clone(),
        }
    }
    pub fn manager(&self) -> &Manager {
        &self.mgr
    }

    fn m(&self) -> &Shared {
        &self.mgr.sh
    }

    /// A new ticket id: unique in the manager, increasing within the context.
    fn new_ticket(&mut self) -> TicketId {
        if self.next_id == self.end_id {
            self.next_id = self.mgr.sh.ticket_block();
            self.end_id = self.next_id + ID_BLOCK;
        }
        let id = self.next_id;
        self.next_id += 1;
        TicketId(id)
    }

    /// Runs `f` on our pin of `key` (made if missing) with one more use counted.
    fn pin_with<R>(&self, key: &MdlKey, f: impl FnOnce(&mut Pin) -> R) -> R {
        let mut p = self.sh.locks.lock();
        if let Some(pin) = p.take(key) {
            return f(pin);
        }
        drop(p);
        // The map's shard lock comes before our `locks` lock in the lock order.
        let obj = self.m().lookup(key);
        f(self.sh.locks.lock().add(key, obj))
    }

    /// One use of our pin of `key` fewer (a request that was not granted).
    fn unpin(&self, key: &MdlKey) {
        self.sh.locks.lock().put(key);
    }

    /// The object of a key we hold a ticket on (no new use).
    fn pinned(&self, key: &MdlKey) -> Option<Arc<LockObj>> {
        self.sh.locks.lock().map.get(key).map(|p| p.obj.clone())
    }

    /// Granted, Busy (NoWait), Timeout, Deadlock or Killed. Blocks while it waits.
    pub fn acquire(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: Duration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        let plan = self.book.plan_acquire(&self.mgr.sh.dialect, key, ty, dur)?;
        Ok(self.acquire_planned(key, ty, dur, wait, plan).0)
    }

    /// Carries out an acquire plan; returns the outcome and the ticket added, if any.
    fn acquire_planned(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: Duration,
        wait: WaitOption,
        plan: AcquirePlan,
    ) -> (Outcome, Option<TicketId>) {
        match plan {
            AcquirePlan::Reuse(_) => (Outcome::Granted, None),
            AcquirePlan::CloneOf(_) => {
                let id = self.new_ticket();
                self.grant_unchecked(key, id, ty, dur);
                (Outcome::Granted, Some(id))
            }
            AcquirePlan::New => {
                let id = self.new_ticket();
                self.request(key, id, ty, dur, wait)
            }
        }
    }

    /// Adds a granted ticket without asking the lock (a clone of a held one; MySQL:
    /// sql/mdl.cc, `MDL_context::clone_ticket`: not counted, no reschedule).
    fn grant_unchecked(&mut self, key: &MdlKey, id: TicketId, ty: LockType, dur: Duration) {
        let me = self.id();
        let obj = self.pin_with(key, |pin| pin.obj.clone());
        {
            let m = &self.mgr.sh;
            let mut g = obj.state.lock();
            if !m.strategy(&obj.key).is_unobtrusive(ty) {
                m.ensure_slow(&obj, &mut g);
            }
            g.st.grant_unchecked(Ticket { id, owner: me, ty });
            g.meta.insert(
                id,
                Meta {
                    dur,
                    since_ms: 0,
                    waited_ms: 0,
                    waiter: None,
                },
            );
        }
        self.book.add(id, key.clone(), ty, dur);
    }

    /// A new ticket `id` on `key`: fast path, immediate grant, or wait.
    fn request(
        &mut self,
        key: &MdlKey,
        id: TicketId,
        ty: LockType,
        dur: Duration,
        wait: WaitOption,
    ) -> (Outcome, Option<TicketId>) {
        let me = self.id();
        debug!(owner = me.0, key = ?key, ty = %ty, ?dur, ?wait, "mdl request");
        let unobtrusive = self.m().strategy(key).is_unobtrusive(ty);
        let fast = FastGrant { id, ty, dur };
        // The fast path, or the object to ask (our pin counts the request as a use).
        let slow = self.pin_with(key, |pin| {
            if unobtrusive && try_fast(pin, fast) {
                Ok(pin.spare.take())
            } else {
                Err(pin.obj.clone())
            }
        });
        let obj = match slow {
            Ok(spare) => {
                self.book
                    .add(id, spare.unwrap_or_else(|| key.clone()), ty, dur);
                debug!(owner = me.0, key = ?key, ty = %ty, "mdl grant (fast path)");
                return (Outcome::Granted, Some(id));
            }
            Err(obj) => obj,
        };
        // Borrows `self.mgr` only: no reference count traffic on the manager.
        let m: &Shared = &self.mgr.sh;
        let t = Ticket { id, owner: me, ty };
        let r = m.rules(key);
        let mut g = obj.state.lock();
        if !unobtrusive {
            m.ensure_slow(&obj, &mut g);
        }
        // (A fast-path grant is never counted as a hog or piglet, as in the servers: it
        // happens only while nothing obtrusive, hence no SRO or hog, is granted or
        // waiting.)
        let LockInner { st, meta } = &mut *g;
        match st.request(&r, t, None, wait, try_grant(meta)) {
            Decision::Granted { woken } => {
                g.meta.insert(
                    id,
                    Meta {
                        dur,
                        since_ms: 0,
                        waited_ms: 0,
                        waiter: None,
                    },
                );
                m.granted(&obj, &mut g.meta, woken);
                drop(g);
                self.book.add(id, key.clone(), ty, dur);
                debug!(owner = me.0, key = ?key, ty = %ty, "mdl grant");
                return (Outcome::Granted, Some(id));
            }
            Decision::Refused(out) => {
                m.clear_slow_if(&obj, &g);
                drop(g);
                self.unpin(key);
                return (out, None);
            }
            Decision::Queued => {}
        }
        self.enqueue(&obj, &mut g, t, dur, timeout_of(wait));
        drop(g);
        self.waited = true;
        match self.wait_ending(&obj, t) {
            WaitStatus::Granted => {
                self.book.add(id, key.clone(), ty, dur);
                (Outcome::Granted, Some(id))
            }
            other => {
                drop(obj);
                self.unpin(key);
                (other.outcome(), None)
            }
        }
    }

    /// Prepares the wait slot of `t`, which the step layer queued (under the lock's state
    /// mutex, so no grant can come before the slot is ready).
    fn enqueue(
        &self,
        obj: &Arc<LockObj>,
        g: &mut LockInner,
        t: Ticket,
        dur: Duration,
        timeout: Option<u64>,
    ) {
        let now = self.m().clock.now_ms();
        g.meta.insert(
            t.id,
            Meta {
                dur,
                since_ms: now,
                waited_ms: 0,
                waiter: Some(self.sh.clone()),
            },
        );
        let mut s = self.sh.slot.lock();
        s.status = None;
        s.waiting = Some(WaitFor {
            lock: obj.clone(),
            ticket: t,
            deadline: timeout.map(|ms| now.saturating_add(ms)),
        });
        debug!(owner = t.owner.0, key = ?obj.key, ty = %t.ty, ?timeout, "mdl wait");
    }

    /// Runs the detector, parks, and cleans up a wait that did not end in a grant.
    fn wait_ending(&self, obj: &Arc<LockObj>, t: Ticket) -> WaitStatus {
        let m = self.m();
        m.detect(t.owner, false);
        let status = self.sh.park(&m.clock);
        // MySQL: sql/mdl.cc, MDL_context::acquire_lock: a wait that ends without a grant
        // removes its ticket (MDL_lock::remove_ticket from m_waiting, which reschedules).
        if status != WaitStatus::Granted {
            let mut g = obj.state.lock();
            g.meta.remove(&t.id);
            let LockInner { st, meta } = &mut *g;
            if cfg!(mdl_bug = "no_reschedule_on_timeout") {
                // Seeded bug: the ticket leaves the queue but nobody reschedules.
                st.forget_wait(t.id);
            } else {
                let woken = st.abandon(&m.rules(&obj.key), t.id, try_grant(meta));
                m.granted(obj, meta, woken);
            }
            m.clear_slow_if(obj, &g);
            debug!(owner = t.owner.0, key = ?obj.key, ty = %t.ty, ?status, "mdl wait ended");
        }
        status
    }

    /// All or nothing, in key order, stronger type first on one key.
    pub fn acquire_all(
        &mut self,
        reqs: &[BulkReq],
        dur: Duration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        self.acquire_all_paced(reqs, dur, wait, &mut || {})
    }

    /// [`Context::acquire_all`], calling `pause` whenever an element was granted after
    /// a wait and more elements remain, before the next one is requested. A driver that
    /// must decide the order in which woken bulk requests go on (the scenario runner:
    /// two bulk requests woken by one release would otherwise race for their next keys)
    /// blocks in `pause` until it is this context's turn. It changes no decision.
    pub fn acquire_all_paced(
        &mut self,
        reqs: &[BulkReq],
        dur: Duration,
        wait: WaitOption,
        pause: &mut dyn FnMut(),
    ) -> Result<Outcome, MdlError> {
        if reqs.is_empty() {
            return Err(MdlError::EmptyBulk);
        }
        let d = &self.mgr.sh.dialect;
        for r in reqs {
            TicketBook::check_type(d, &r.key, r.ty)?;
        }
        let mut sorted = reqs.to_vec();
        table::sort_bulk(&mut sorted);
        let mut taken: Vec<TicketId> = Vec::new();
        for (i, r) in sorted.iter().enumerate() {
            self.waited = false;
            let plan = match self
                .book
                .plan_acquire(&self.mgr.sh.dialect, &r.key, r.ty, dur)
            {
                Ok(p) => p,
                Err(e) => {
                    taken.reverse();
                    self.release_ids(&taken);
                    return Err(e);
                }
            };
            match self.acquire_planned(&r.key, r.ty, dur, wait, plan) {
                (Outcome::Granted, new) => {
                    taken.extend(new);
                    if self.waited && i + 1 < sorted.len() {
                        pause();
                    }
                }
                (failed, _) => {
                    // MySQL: sql/mdl.cc, MDL_context::acquire_locks: rollback, latest first.
                    taken.reverse();
                    self.release_ids(&taken);
                    return Ok(failed);
                }
            }
        }
        Ok(Outcome::Granted)
    }

    pub fn upgrade(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        let old = match self.book.plan_upgrade(&self.mgr.sh.dialect, key, ty)? {
            UpgradePlan::NoOp(_) => return Ok(Outcome::Granted),
            UpgradePlan::Retype(old) => {
                // MySQL: sql/mdl.cc, MDL_context::upgrade_shared_lock: the acquire found a
                // covering ticket (no grant decision); the merge retypes `old`.
                self.retype(key, old, ty)?;
                return Ok(Outcome::Granted);
            }
            UpgradePlan::Upgrade(old) => old,
        };
        let obj = self.pinned(key).ok_or(MdlError::NotHeld)?;
        let dur = self.book.get(old).map_or(Duration::Transaction, |h| h.dur);
        let id = self.new_ticket();
        let m: &Shared = &self.mgr.sh;
        let me = self.id();
        let t = Ticket { id, owner: me, ty };
        let r = m.rules(key);
        debug!(owner = me.0, key = ?key, ty = %ty, ?wait, "mdl upgrade request");
        let mut g = obj.state.lock();
        if !m.strategy(key).is_unobtrusive(ty) || g.st.find_granted(old).is_none() {
            m.ensure_slow(&obj, &mut g);
        }
        let LockInner { st, meta } = &mut *g;
        match st.request(&r, t, Some(old), wait, try_grant(meta)) {
            Decision::Granted { woken } => {
                m.granted(&obj, meta, woken);
                m.clear_slow_if(&obj, &g);
                drop(g);
                self.book.set_type(old, ty);
                debug!(owner = me.0, key = ?key, ty = %ty, "mdl grant (upgrade)");
                return Ok(Outcome::Granted);
            }
            Decision::Refused(out) => {
                m.clear_slow_if(&obj, &g);
                return Ok(out);
            }
            Decision::Queued => {}
        }
        self.enqueue(&obj, &mut g, t, dur, timeout_of(wait));
        drop(g);
        let st = self.wait_ending(&obj, t);
        if st == WaitStatus::Granted {
            self.book.set_type(old, ty);
        }
        Ok(st.outcome())
    }

    pub fn downgrade(&mut self, key: &MdlKey, ty: LockType) -> Result<(), MdlError> {
        let Some(id) = self.book.plan_downgrade(&self.mgr.sh.dialect, key, ty)? else {
            // MySQL: sql/mdl.cc, MDL_ticket::downgrade_lock: "Do nothing if already
            // downgraded".
            return Ok(());
        };
        self.retype(key, id, ty)?;
        debug!(owner = self.sh.id.0, key = ?key, ty = %ty, "mdl downgrade");
        Ok(())
    }

    /// Gives held ticket `id` the type `ty` (to the back of the granted list) and
    /// reschedules: a downgrade (MySQL: sql/mdl.cc, `MDL_ticket::downgrade_lock`), or the
    /// merge of an upgrade that found a covering ticket.
    fn retype(&mut self, key: &MdlKey, id: TicketId, ty: LockType) -> Result<(), MdlError> {
        let obj = self.pinned(key).ok_or(MdlError::NotHeld)?;
        let m = &self.mgr.sh;
        {
            let mut g = obj.state.lock();
            if g.st.find_granted(id).is_none() || !m.strategy(key).is_unobtrusive(ty) {
                // A fast grant (to be retyped in the lock state), or an obtrusive type.
                m.ensure_slow(&obj, &mut g);
            }
            let LockInner { st, meta } = &mut *g;
            let woken = st.retype(&m.rules(key), id, ty, try_grant(meta));
            m.granted(&obj, meta, woken);
            m.clear_slow_if(&obj, &g);
        }
        self.book.set_type(id, ty);
        Ok(())
    }

    pub fn clone_ticket(
        &mut self,
        key: &MdlKey,
        ty: Option<LockType>,
        dur: Duration,
    ) -> Result<TicketId, MdlError> {
        let (_src, ty) = self.book.plan_clone(&self.mgr.sh.dialect, key, ty)?;
        let id = self.new_ticket();
        self.grant_unchecked(key, id, ty, dur);
        Ok(id)
    }

    /// One ticket of `ty` (the latest), or every ticket on `key`.
    pub fn release(&mut self, key: &MdlKey, ty: Option<LockType>) -> Result<(), MdlError> {
        let ids = self.book.plan_release(key, ty)?;
        self.release_ids(&ids);
        Ok(())
    }

    pub fn release_ticket(&mut self, id: TicketId) -> Result<(), MdlError> {
        if self.book.get(id).is_none() {
            return Err(MdlError::NotHeld);
        }
        self.release_ids(&[id]);
        Ok(())
    }

    /// Gives back tickets: fast ones under our `locks` lock (one hold for all), the
    /// others lock by lock (removal and a reschedule after each, under one hold of the
    /// lock's mutex),
    /// locks in the order of their first ticket in `ids`. Linear in `ids`: a ticket is
    /// found in the book from the back (releases come latest first) and in its pin by
    /// key; slow tickets are grouped by lock through an index once there are more than
    /// a few locks.
    fn release_ids(&mut self, ids: &[TicketId]) {
        if ids.is_empty() {
            return;
        }
        let mut rel = std::mem::take(&mut self.rel);
        let mut slow = std::mem::take(&mut self.slow);
        rel.clear();
        slow.clear();
        for id in ids {
            if let Some(h) = self.book.remove(*id) {
                rel.push(h);
            }
        }
        {
            let mut p = self.sh.locks.lock();
            let Pins { map, n } = &mut *p;
            for h in rel.drain(..) {
                let Some(pin) = map.get_mut(&h.key) else {
                    continue;
                };
                match pin.fast.iter().rposition(|e| e.id == h.id) {
                    Some(i) => {
                        pin.fast.swap_remove(i);
                    }
                    // Not (or no longer) a fast grant: materialised or slow.
                    None => slow.push((pin.obj.clone(), h.id)),
                }
                // `Pins::put` without a second probe while the pin stays.
                if n.release_pin(pin) {
                    map.remove(&h.key);
                } else {
                    pin.spare = Some(h.key);
                }
            }
            p.end_round_if();
        }
        rel.clear();
        self.rel = rel;
        let m = &self.mgr.sh;
        // MySQL: sql/mdl.cc, MDL_context::release_lock -> MDL_lock::remove_ticket: one
        // ticket at a time, each followed by reschedule_waiters (under one hold of the
        // lock's mutex here; other locks do not see the difference).
        let give_back = |o: &LockObj, ids: &mut dyn Iterator<Item = TicketId>| {
            let mut g = o.state.lock();
            let r = m.rules(&o.key);
            for id in ids {
                g.meta.remove(&id);
                let LockInner { st, meta } = &mut *g;
                let woken = st.release(&r, id, try_grant(meta));
                m.granted(o, meta, woken);
            }
            m.clear_slow_if(o, &g);
        };
        if let [(o, id)] = slow.as_slice() {
            give_back(o, &mut std::iter::once(*id));
        } else if !slow.is_empty() {
            // Group by lock, in the order of first appearance: a linear search among a
            // few groups, an index (object address -> group) beyond.
            let mut groups: Vec<(Arc<LockObj>, Vec<TicketId>)> = Vec::new();
            let mut index: HashMap<usize, usize> = HashMap::new();
            for (o, id) in slow.drain(..) {
                let addr = Arc::as_ptr(&o) as usize;
                let gi = if groups.len() <= FEW {
                    groups
                        .iter()
                        .position(|(x, _)| Arc::as_ptr(x) as usize == addr)
                } else {
                    if index.is_empty() {
                        for (i, (x, _)) in groups.iter().enumerate() {
                            index.insert(Arc::as_ptr(x) as usize, i);
                        }
                    }
                    index.get(&addr).copied()
                };
                match gi {
                    Some(i) => groups[i].1.push(id),
                    None => {
                        if !index.is_empty() {
                            index.insert(addr, groups.len());
                        }
                        groups.push((o, vec![id]));
                    }
                }
            }
            for (o, ids) in groups {
                give_back(&o, &mut ids.into_iter());
            }
        }
        slow.clear();
        self.slow = slow;
    }

    /// Releases the tickets of `durs` (latest first), through the reused scratch list.
    fn release_durations(&mut self, durs: &[Duration]) {
        let mut ids = std::mem::take(&mut self.scratch);
        ids.clear();
        self.book.of_durations_into(durs, &mut ids);
        self.release_ids(&ids);
        ids.clear();
        self.scratch = ids;
    }

    /// MySQL: sql/mdl.cc, `MDL_context::release_statement_locks`.
    pub fn end_statement(&mut self) {
        self.release_durations(&[Duration::Statement]);
    }
    /// Commit or rollback: statement and transaction locks go (MySQL: sql/mdl.cc,
    /// `MDL_context::release_transactional_locks`).
    pub fn commit(&mut self) {
        self.release_durations(&[Duration::Statement, Duration::Transaction]);
        self.book.clear_savepoints();
    }
    pub fn release_explicit(&mut self) {
        self.release_durations(&[Duration::Explicit]);
    }
    pub fn savepoint(&mut self, name: &str) {
        self.book.savepoint(name);
    }
    /// MySQL: sql/mdl.cc, `MDL_context::rollback_to_savepoint`.
    pub fn rollback_to(&mut self, name: &str) -> Result<(), MdlError> {
        let ids = self.book.plan_rollback_to(name)?;
        self.release_ids(&ids);
        self.book.forget_savepoints_after(name);
        Ok(())
    }
    /// MySQL: sql/mdl.cc, `MDL_context::set_explicit_duration_for_all_locks` and
    /// `set_transaction_duration_for_all_locks`.
    pub fn set_duration(&mut self, dur: Duration) {
        self.book.set_duration_all(dur);
        let ids: Vec<TicketId> = self.book.held().iter().map(|h| h.id).collect();
        for id in ids {
            self.note_duration(id, dur);
        }
    }
    pub fn set_ticket_duration(&mut self, id: TicketId, dur: Duration) -> Result<(), MdlError> {
        if self.book.get(id).is_none() {
            return Err(MdlError::NotHeld);
        }
        self.book.set_duration(id, dur);
        self.note_duration(id, dur);
        Ok(())
    }
    /// Keeps the introspection copy of a ticket's duration in step with the book.
    fn note_duration(&self, id: TicketId, dur: Duration) {
        let Some(key) = self.book.get(id).map(|h| h.key.clone()) else {
            return;
        };
        let obj = {
            let mut p = self.sh.locks.lock();
            let Some(pin) = p.map.get_mut(&key) else {
                return;
            };
            if let Some(e) = pin.fast.iter_mut().find(|e| e.id == id) {
                e.dur = dur;
                return;
            }
            pin.obj.clone()
        };
        let mut g = obj.state.lock();
        if let Some(m) = g.meta.get_mut(&id) {
            m.dur = dur;
        }
    }
    pub fn force_dml_weight(&mut self, on: bool) {
        self.sh.slot.lock().force_dml = on;
    }
    /// MySQL: sql/mdl.cc, `MDL_context::owns_equal_or_stronger_lock` (MariaDB:
    /// `is_lock_owner`).
    pub fn owns_equal_or_stronger(&self, key: &MdlKey, ty: LockType) -> bool {
        let s = self.mgr.sh.strategy(key);
        self.book.on_key(key).any(|h| s.covers(h.ty, ty))
    }
    pub fn held(&self) -> &[Held] {
        self.book.held()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        let ids = self.book.all();
        self.release_ids(&ids);
        // Idle pins go now, not when the last handle on the shared part does.
        *self.sh.locks.lock() = Pins::default();
        self.mgr.sh.registry.write().live.remove(&self.sh.id);
        debug!(owner = self.sh.id.0, "mdl context gone");
    }
}
