//! The commands on one key's tickets other than a request: a downgrade, a clone of a held
//! ticket, and the release of a key's tickets.

use super::{Oracle, Request};
use mdl_core::{Duration, LockType, MdlKey, Outcome};

impl Oracle {
    /// `downgrade KEY TYPE` of session `s`.
    pub(super) fn downgrade(&mut self, s: usize, key: &MdlKey, ty: LockType) -> Outcome {
        use Outcome::{Error, Ok};
        if !self.strategy(key).takes(ty) {
            return Error;
        }
        let Some(h) = self.strongest(s, key) else {
            return Error;
        };
        let st = self.strategy(key);
        let strat = self.tables.namespaces[key.namespace().0 as usize].strategy;
        // MDL_ticket::downgrade_lock: "Do nothing if already downgraded" (the same
        // type, or one the held type is not stronger than); then only from the
        // types it asserts; the ticket leaves m_granted and is added back.
        if h.ty == ty || !st.covers(h.ty, ty) {
            return Ok;
        }
        if !self.tables.downgrade_from[strat].contains(&h.ty) {
            return Error;
        }
        self.upgrade_ticket(s, key, h.id, ty);
        self.reschedule(key);
        Ok
    }

    /// `clone KEY [TYPE] [DURATION]` of session `s`: a new granted ticket beside one it
    /// holds that covers it.
    pub(super) fn clone_ticket(
        &mut self,
        s: usize,
        key: &MdlKey,
        ty: Option<LockType>,
        dur: Duration,
    ) -> Outcome {
        use Outcome::{Error, Ok};
        let Some(h) = self.strongest(s, key) else {
            return Error;
        };
        let ty = ty.unwrap_or(h.ty);
        let st = self.strategy(key);
        if !st.takes(ty) {
            return Error;
        }
        let ok = self.sessions[s]
            .held
            .iter()
            .any(|x| x.key == *key && st.covers(x.ty, ty));
        if !ok {
            return Error;
        }
        let id = self.new_id();
        self.locks
            .entry(key.clone())
            .or_default()
            .granted
            .push(Request { id, owner: s, ty });
        self.add_ticket(s, id, key, ty, dur);
        Ok
    }

    /// `release KEY [TYPE]` of session `s`.
    pub(super) fn release_key(&mut self, s: usize, key: &MdlKey, ty: Option<LockType>) -> Outcome {
        use Outcome::{Error, Ok};
        let ids: Vec<u64> = match ty {
            // The latest ticket of that type.
            Some(t) => self.sessions[s]
                .held
                .iter()
                .rev()
                .find(|h| h.key == *key && h.ty == t)
                .map(|h| vec![h.id])
                .unwrap_or_default(),
            // All on the key, list by list from the front
            // (release_all_locks_for_name walks the explicit list so).
            None => [
                Duration::Statement,
                Duration::Transaction,
                Duration::Explicit,
            ]
            .iter()
            .flat_map(|d| self.list(s, *d, |h| h.key == *key))
            .collect(),
        };
        if ids.is_empty() {
            return Error;
        }
        self.release_ids(s, &ids);
        Ok
    }
}
