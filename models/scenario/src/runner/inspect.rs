//! What both manager engines (`threads.rs`, `tasks.rs`) read of the manager for the
//! runner, written once: the sessions' wait deadlines, the manual clock, and what a
//! session holds. Each read is guarded: a manager that panics answers "nothing"
//! (the engine reports it as broken elsewhere).

use mdl_core::key::MdlKey;
use mdl_core::{Clock, ContextHandle, LockType, Manager};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The text of a caught panic.
pub(super) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".into()
    }
}

/// The deadlines of the waits the runner saw start and not end: `(session, ms)` for
/// each `(pending, handle)` of the sessions, in order.
pub(super) fn deadlines<'a>(
    sessions: impl Iterator<Item = (bool, Option<&'a ContextHandle>)>,
) -> Vec<(usize, u64)> {
    let mut out = Vec::new();
    for (i, (pending, handle)) in sessions.enumerate() {
        if !pending {
            continue;
        }
        if let Some(h) = handle {
            if let Ok(Some(d)) = catch_unwind(AssertUnwindSafe(|| h.wait_deadline())) {
                out.push((i, d));
            }
        }
    }
    out
}

/// Moves the manager's manual clock forward to `ms` (never back).
pub(super) fn set_clock(mgr: Option<&Manager>, ms: u64) {
    if let Some(Clock::Manual(c)) = mgr.map(|m| m.clock()) {
        let now = c.now_ms();
        if ms > now {
            c.advance(ms - now);
        }
    }
}

/// Whether `session` holds a granted lock on `key` that covers `ty`.
pub(super) fn holds(mgr: Option<&Manager>, session: usize, key: &MdlKey, ty: LockType) -> bool {
    let Some(m) = mgr else { return false };
    catch_unwind(AssertUnwindSafe(|| {
        let st = m.dialect().strategy(key.namespace());
        m.snapshot().iter().any(|r| {
            r.granted && r.owner.0 as usize == session && &r.key == key && st.covers(r.ty, ty)
        })
    }))
    .unwrap_or(false)
}

/// How many granted tickets `session` has (on `key`, or on any key).
pub(super) fn tickets(mgr: Option<&Manager>, session: usize, key: Option<&MdlKey>) -> usize {
    let Some(m) = mgr else { return 0 };
    catch_unwind(AssertUnwindSafe(|| {
        m.snapshot()
            .iter()
            .filter(|r| {
                r.granted && r.owner.0 as usize == session && key.is_none_or(|k| &r.key == k)
            })
            .count()
    }))
    .unwrap_or(0)
}
