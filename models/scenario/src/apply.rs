//! One place that applies a scenario [`Command`] to a lock engine: [`Command::apply`] for
//! the sequential [`LockTable`] (the model checker's steps, the `table` runner, the
//! oracle's comparison runner) and [`Command::apply_to_context`] for a connection of the
//! concurrent manager (the `manager` runner, the `concurrent` fuzz target). What a command
//! means is written here once; the callers keep only their own bookkeeping (waits,
//! deadlines, events).

use crate::ast::Command;
use mdl_core::lock::OwnerId;
use mdl_core::table::{BulkReq, LockTable};
use mdl_core::{Context, LockType, MdlError, MdlKey, Outcome, WaitOption};

/// The message of a `sql` step outside the conformance harness.
pub const SQL_UNSUPPORTED: &str = "sql steps need a server (mdl conform)";

/// Why a command was not applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The engine refused it (a misuse: no such savepoint, an upgrade of nothing, ...).
    #[error("{0}")]
    Mdl(#[from] MdlError),
    /// An `sql` line (the conformance extension): only the conformance harness plays it.
    #[error("{}", SQL_UNSUPPORTED)]
    Sql,
    /// The session has disconnected (its context is gone).
    #[error("the session has disconnected")]
    Disconnected,
}

fn bulk(reqs: &[(MdlKey, LockType)]) -> Vec<BulkReq> {
    reqs.iter()
        .map(|(key, ty)| BulkReq {
            key: key.clone(),
            ty: *ty,
        })
        .collect()
}

impl Command {
    /// Applies this command of session `s` to the lock table with the wait option in
    /// force (`wait`, the caller's resolution of the command's own [`crate::WaitSpec`]):
    /// its outcome for `s` (`Waiting` when it queued). Other sessions' outcomes are the
    /// table's events ([`LockTable::take_events`]); a bulk acquire whose element was
    /// granted after a wait goes on with [`LockTable::resume_bulk`], which the caller
    /// schedules.
    pub fn apply(
        &self,
        t: &mut LockTable,
        s: OwnerId,
        wait: WaitOption,
    ) -> Result<Outcome, ApplyError> {
        let r = match self {
            Command::Acquire { key, ty, dur, .. } => t.acquire(s, key, *ty, *dur, wait),
            Command::AcquireAll { dur, reqs, .. } => t.acquire_all(s, &bulk(reqs), *dur, wait),
            Command::Upgrade { key, ty, .. } => t.upgrade(s, key, *ty, wait),
            Command::Downgrade { key, ty } => t.downgrade(s, key, *ty),
            Command::Clone { key, ty, dur } => t.clone_ticket(s, key, *ty, *dur),
            Command::Release { key, ty } => t.release(s, key, *ty),
            Command::EndStatement => t.end_statement(s),
            Command::Commit | Command::Rollback => t.commit(s),
            Command::ReleaseExplicit => t.release_explicit(s),
            Command::Savepoint(n) => t.savepoint(s, n),
            Command::RollbackTo(n) => t.rollback_to(s, n),
            Command::SetDuration(d) => t.set_duration(s, *d),
            Command::ForceDmlWeight(on) => t.force_dml_weight(s, *on),
            Command::Disconnect => t.disconnect(s),
            Command::Sql(_) => return Err(ApplyError::Sql),
        };
        Ok(r?)
    }

    /// Applies this command to a connection of the concurrent manager, blocking while it
    /// waits. `Disconnect` drops the context (`*ctx = None`); a command of a disconnected
    /// session is [`ApplyError::Disconnected`]. `pause` is called whenever an element of
    /// a bulk acquire was granted after a wait and more remain
    /// ([`Context::acquire_all_paced`]; `&mut || {}` for none).
    pub fn apply_to_context(
        &self,
        ctx: &mut Option<Context>,
        wait: WaitOption,
        pause: &mut dyn FnMut(),
    ) -> Result<Outcome, ApplyError> {
        let Some(c) = ctx.as_mut() else {
            return Err(ApplyError::Disconnected);
        };
        let unit = |r: Result<(), MdlError>| r.map(|()| Outcome::Ok);
        let r = match self {
            Command::Acquire { key, ty, dur, .. } => c.acquire_outcome(key, *ty, *dur, wait),
            Command::AcquireAll { dur, reqs, .. } => {
                c.acquire_all_paced(&bulk(reqs), *dur, wait, pause)
            }
            Command::Upgrade { key, ty, .. } => c.upgrade_outcome(key, *ty, wait),
            Command::Downgrade { key, ty } => unit(c.downgrade(key, *ty)),
            Command::Clone { key, ty, dur } => unit(c.clone_ticket(key, *ty, *dur).map(|_| ())),
            Command::Release { key, ty } => unit(c.release(key, *ty)),
            Command::EndStatement => {
                c.end_statement();
                Ok(Outcome::Ok)
            }
            Command::Commit | Command::Rollback => {
                c.commit();
                Ok(Outcome::Ok)
            }
            Command::ReleaseExplicit => {
                c.release_explicit();
                Ok(Outcome::Ok)
            }
            Command::Savepoint(n) => {
                c.savepoint(n);
                Ok(Outcome::Ok)
            }
            Command::RollbackTo(n) => unit(c.rollback_to(n)),
            Command::SetDuration(d) => {
                c.set_duration(*d);
                Ok(Outcome::Ok)
            }
            Command::ForceDmlWeight(on) => {
                c.force_dml_weight(*on);
                Ok(Outcome::Ok)
            }
            Command::Disconnect => {
                *ctx = None;
                return Ok(Outcome::Ok);
            }
            Command::Sql(_) => return Err(ApplyError::Sql),
        };
        Ok(r?)
    }
    /// [`Command::apply_to_context`] as a future over the manager's async waits
    /// ([`Context::acquire_outcome_async`] and its twins): the same outcomes, and a
    /// request that waits leaves the future pending instead of blocking the thread.
    /// `pause()` is awaited where the blocking form calls `pause`
    /// ([`Context::acquire_all_paced_async`]). The commands that never wait are the
    /// blocking form's.
    pub async fn apply_to_context_async<P: std::future::Future<Output = ()>>(
        &self,
        ctx: &mut Option<Context>,
        wait: WaitOption,
        pause: impl FnMut() -> P,
    ) -> Result<Outcome, ApplyError> {
        let r = match (self, ctx.as_mut()) {
            (Command::Acquire { key, ty, dur, .. }, Some(c)) => {
                c.acquire_outcome_async(key, *ty, *dur, wait).await
            }
            (Command::AcquireAll { dur, reqs, .. }, Some(c)) => {
                c.acquire_all_paced_async(&bulk(reqs), *dur, wait, pause)
                    .await
            }
            (Command::Upgrade { key, ty, .. }, Some(c)) => {
                c.upgrade_outcome_async(key, *ty, wait).await
            }
            _ => return self.apply_to_context(ctx, wait, &mut || {}),
        };
        Ok(r?)
    }
}
