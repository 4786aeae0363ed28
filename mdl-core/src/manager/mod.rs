//! The concurrent shell: what an engine embeds. (API contract; implementation pending.)
//!
//! One [`Manager`] per server; one [`Context`] per connection. Lock objects live in a
//! sharded map and are reclaimed when unused; unobtrusive requests take a fast path (one
//! compare-and-swap on a packed per-lock counter); everything else goes through the
//! lock's mutex and the decision code of [`crate::lock::LockState`]. A request that must
//! wait parks on its context's wait slot; the first status set there wins.

use crate::book::Held;
use crate::deadlock::ForeignWaits;
use crate::dialect::Dialect;
use crate::error::MdlError;
use crate::key::MdlKey;
use crate::lock::{OwnerId, TicketId};
use crate::sync::clock::Clock;
use crate::table::{BulkReq, Config};
use crate::types::{Duration, LockType, Outcome, WaitOption};

pub mod introspect;

/// The lock manager. Cheap to clone (shared).
#[derive(Clone)]
pub struct Manager {}

impl Manager {
    /// A manager for `dialect` with `config` (max_write_lock_count), timing waits by `clock`.
    pub fn new(dialect: Dialect, config: Config, clock: Clock) -> Manager {
        let _ = (dialect, config, clock);
        todo!()
    }
    pub fn dialect(&self) -> &Dialect {
        todo!()
    }
    pub fn config(&self) -> Config {
        todo!()
    }
    /// A new context (connection). Owner ids are 0, 1, 2, ... in creation order.
    pub fn context(&self) -> Context {
        todo!()
    }
    pub fn clock(&self) -> &Clock {
        todo!()
    }
    /// With a manual clock: move time forward by `ms` and time out every wait whose
    /// deadline has passed (each such waiter's outcome becomes `Timeout`).
    pub fn advance_clock(&self, ms: u64) {
        let _ = ms;
        todo!()
    }
    /// Joins another subsystem's waits to the wait-for graph.
    pub fn set_foreign_waits(&self, f: crate::sync::DataArc<dyn ForeignWaits>) {
        let _ = f;
        todo!()
    }
    /// Runs the detector from `owner`, which has just started a wait in a foreign
    /// subsystem; aborts victims until no cycle through it is left. Returns true when
    /// `owner` itself is the victim.
    pub fn detect_from(&self, owner: OwnerId) -> bool {
        let _ = owner;
        todo!()
    }
    /// Every lock, granted and pending (`performance_schema.metadata_locks`).
    pub fn snapshot(&self) -> Vec<introspect::LockRow> {
        todo!()
    }
    /// Real conflicts only (`sys.schema_table_lock_waits`).
    pub fn lock_waits(&self) -> Vec<introspect::LockWait> {
        todo!()
    }
    /// The wait-for graph in Graphviz DOT.
    pub fn wait_for_graph_dot(&self) -> String {
        todo!()
    }
    /// Lock objects currently in the map (for the reclamation test).
    pub fn lock_object_count(&self) -> usize {
        todo!()
    }
}

/// A handle on a context that other threads may use: kill its wait, see whether it waits.
#[derive(Clone)]
pub struct ContextHandle {}

impl ContextHandle {
    pub fn id(&self) -> OwnerId {
        todo!()
    }
    /// Aborts the context's pending wait (its outcome becomes `Killed`). Returns false
    /// when it was not waiting (or its wait had already ended).
    pub fn kill(&self) -> bool {
        todo!()
    }
    /// The context is parked in a wait whose outcome is not decided yet.
    pub fn is_waiting(&self) -> bool {
        todo!()
    }
}

/// One connection's locks. Not shared between threads; dropping it releases everything
/// and wakes whoever waited on it.
pub struct Context {}

impl Context {
    pub fn id(&self) -> OwnerId {
        todo!()
    }
    pub fn handle(&self) -> ContextHandle {
        todo!()
    }
    pub fn manager(&self) -> &Manager {
        todo!()
    }
    /// Granted, Busy (NoWait), Timeout, Deadlock or Killed. Blocks while it waits.
    pub fn acquire(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: Duration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        let _ = (key, ty, dur, wait);
        todo!()
    }
    /// All or nothing, in key order, stronger type first on one key.
    pub fn acquire_all(
        &mut self,
        reqs: &[BulkReq],
        dur: Duration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        let _ = (reqs, dur, wait);
        todo!()
    }
    pub fn upgrade(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        let _ = (key, ty, wait);
        todo!()
    }
    pub fn downgrade(&mut self, key: &MdlKey, ty: LockType) -> Result<(), MdlError> {
        let _ = (key, ty);
        todo!()
    }
    pub fn clone_ticket(
        &mut self,
        key: &MdlKey,
        ty: Option<LockType>,
        dur: Duration,
    ) -> Result<TicketId, MdlError> {
        let _ = (key, ty, dur);
        todo!()
    }
    /// One ticket of `ty` (the latest), or every ticket on `key`.
    pub fn release(&mut self, key: &MdlKey, ty: Option<LockType>) -> Result<(), MdlError> {
        let _ = (key, ty);
        todo!()
    }
    pub fn release_ticket(&mut self, id: TicketId) -> Result<(), MdlError> {
        let _ = id;
        todo!()
    }
    pub fn end_statement(&mut self) {
        todo!()
    }
    /// Commit or rollback: statement and transaction locks go.
    pub fn commit(&mut self) {
        todo!()
    }
    pub fn release_explicit(&mut self) {
        todo!()
    }
    pub fn savepoint(&mut self, name: &str) {
        let _ = name;
        todo!()
    }
    pub fn rollback_to(&mut self, name: &str) -> Result<(), MdlError> {
        let _ = name;
        todo!()
    }
    pub fn set_duration(&mut self, dur: Duration) {
        let _ = dur;
        todo!()
    }
    pub fn set_ticket_duration(&mut self, id: TicketId, dur: Duration) -> Result<(), MdlError> {
        let _ = (id, dur);
        todo!()
    }
    pub fn force_dml_weight(&mut self, on: bool) {
        let _ = on;
        todo!()
    }
    pub fn owns_equal_or_stronger(&self, key: &MdlKey, ty: LockType) -> bool {
        let _ = (key, ty);
        todo!()
    }
    pub fn held(&self) -> &[Held] {
        todo!()
    }
}
