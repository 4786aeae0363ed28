//! The concurrent shell: what an engine embeds.
//!
//! One [`Manager`] per server; one [`Context`] per connection. Every decision is made by
//! the deterministic core, with the code that [`crate::table::LockTable`] runs:
//! [`TicketBook`]'s plans for what a context already holds, the step layer
//! ([`crate::decide::step`]: grants, queues, reschedules, the victim loop) for one lock,
//! [`crate::table::sort_bulk`] for bulk requests, [`crate::decide::deadlock`] for the search.
//! This module only carries the plans out: latches, parking, the fast path.
//!
//! # Files, one job each (their invariants are in their own docs)
//!
//! - `types.rs`: the shared data types (lock objects, a context's shared part and its
//!   handle), declared together because they refer to each other.
//! - `map.rs`: the sharded map of lock objects (`MDL_map`, `MDL_lock`) and reclamation.
//! - `pins.rs`: a context's references to the lock objects it uses, with its fast-path
//!   grants.
//! - `fast.rs`: the fast path's flags, `try_fast`, the materialisation.
//! - `wait.rs`: the wait slot (`MDL_wait`), parking, timeouts, kills, [`ContextHandle`].
//! - `wait_async.rs`: the async waits (`Context::acquire_async` and its kin): the same
//!   requests, a future instead of a parked thread, a dropped future withdrawn as a kill.
//! - `detect.rs`: the live wait-for graph and the validation of a cycle before its victim
//!   is aborted.
//! - `context.rs`: [`Context`]'s requests (acquire, bulk, upgrade, downgrade, clone).
//! - `release.rs`: what a context gives back (releases, commit, savepoints, durations).
//! - `introspect.rs`, `verify.rs`: snapshots and the shell's invariants, checked live.
//!
//! A context is the [`TicketBook`] (owned by the connection's thread, not shared) and a
//! shared part (`CtxShared`, registered in `Shared::registry` by owner id): `locks`, the
//! context's pins, and the wait slot (`slot` + `cv`, and an async waiter's `Waker` in
//! `slot`). `Shared` and `CtxShared` are shared
//! through [`DataArc`] (std's `Arc`): their reference counts decide nothing, and loom's
//! `Arc` would multiply its state space. Lock objects use the facade's [`Arc`](crate::sync::Arc), whose
//! count decides reclamation.
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
//! has parked (an async waiter: once its future registered its waker), i.e. after the
//! deadlock search its wait started: a driver that polls it sees every outcome that
//! search decided already set.
//!
//! # Seeded bugs
//!
//! Realistic mistakes of this shell, compiled in with `MDL_BUG=NAME` (`cfg!(mdl_bug =
//! "NAME")` in this folder's files), for the loom/shuttle harnesses to catch: what each
//! one breaks and which tests must catch it (`proofs/tests/`, `tests/manager_shuttle.rs`)
//! is the registry's, `ci/registry/src/bugs.rs` (layer "concurrent shell"; the table
//! generated from it is in `proofs/README.md`). `ci/seeded-proofs.sh` runs them.

use crate::decide::book::TicketBook;
use crate::decide::deadlock::ForeignWaits;
use crate::decide::dialect::{Dialect, Strategy};
use crate::decide::key::MdlKey;
use crate::decide::lock::{OwnerId, Rules};
use crate::sync::atomic::{AtomicU64, Ordering};
use crate::sync::clock::Clock;
use crate::sync::{DataArc, Mutex, RwLock};
use crate::table;
use map::{KeyMap, ShardMap, SHARDS, SWEEP_MIN};
use std::collections::BTreeMap;
use types::CtxShared;

mod context;
mod detect;
mod fast;
mod fold;
pub mod introspect;
mod map;
mod pins;
mod release;
mod types;
mod verify;
mod wait;
mod wait_async;

pub use context::Context;
use context::ID_BLOCK;
pub use types::ContextHandle;

struct Registry {
    next: u32,
    live: BTreeMap<OwnerId, DataArc<CtxShared>>,
}

struct Shared {
    /// The dialect with the configuration's deadlock settings applied.
    dialect: Dialect,
    /// The lock table's part of `settings`.
    config: table::Config,
    settings: crate::config::Config,
    clock: Clock,
    shards: Vec<RwLock<ShardMap>>,
    /// Live contexts by owner id (lock order: after every lock state).
    registry: RwLock<Registry>,
    next_ticket: AtomicU64,
    /// Serialises deadlock searches (lock order: first).
    detector: Mutex<()>,
    foreign: RwLock<Option<DataArc<dyn ForeignWaits>>>,
    /// Times async waits out with the system clock (`wait_async.rs`).
    timer: crate::sync::timer::Timer,
}

/// The lock manager: one per server, shared by every connection's [`Context`]. Cheap to
/// clone (a reference count); the last clone (with its contexts) frees it.
#[derive(Clone)]
pub struct Manager {
    sh: DataArc<Shared>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("dialect", &self.sh.dialect.name)
            .field("config", &self.sh.settings)
            .field("clock", &self.sh.clock)
            .field("contexts", &self.sh.registry.read().live.len())
            .finish_non_exhaustive()
    }
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
}

impl Manager {
    /// A manager for `dialect` with `config`, timing waits by `clock`
    /// ([`Clock::System`] for an engine; a manual clock for tests).
    pub fn new(dialect: Dialect, config: crate::config::Config, clock: Clock) -> Manager {
        let settings = config;
        let dialect = settings.apply(dialect);
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
                config: settings.table(),
                settings,
                clock,
                shards,
                registry: RwLock::new(Registry {
                    next: 0,
                    live: BTreeMap::new(),
                }),
                next_ticket: AtomicU64::new(1),
                detector: Mutex::new(()),
                foreign: RwLock::new(None),
                timer: Default::default(),
            }),
        }
    }
    /// The dialect, with the configuration's deadlock settings applied.
    pub fn dialect(&self) -> &Dialect {
        &self.sh.dialect
    }
    /// The configuration the manager was made with.
    pub fn config(&self) -> crate::config::Config {
        self.sh.settings
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
            book: TicketBook::with_filter_on_demand(),
            next_id: 0,
            end_id: 0,
            scratch: Vec::new(),
            slow: Vec::new(),
            waited: false,
        }
    }
    /// The clock that times waits.
    pub fn clock(&self) -> &Clock {
        &self.sh.clock
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
    #[doc(hidden)]
    pub fn lock_object_count(&self) -> usize {
        self.sh.shards.iter().map(|s| s.read().map.len()).sum()
    }
}
