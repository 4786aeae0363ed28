//! Releases: tickets given back one at a time or in a batch, by duration, and the lock
//! dropped once idle.

use super::{Oracle, ReleaseMode};
use mdl_core::{Duration, MdlKey};

impl Oracle {
    /// Gives back tickets in the order given: all, then each lock rescheduled once
    /// ([`ReleaseMode::Batch`]), or rescheduling after each ([`ReleaseMode::PerTicket`]).
    pub(super) fn release_ids(&mut self, s: usize, ids: &[u64]) {
        if self.release_mode == ReleaseMode::Batch {
            let mut keys: Vec<MdlKey> = Vec::new();
            for id in ids {
                let Some(i) = self.sessions[s].held.iter().position(|h| h.id == *id) else {
                    continue;
                };
                let h = self.sessions[s].held.remove(i);
                if let Some(l) = self.locks.get_mut(&h.key) {
                    l.granted.retain(|g| g.id != *id);
                }
                if !keys.contains(&h.key) {
                    keys.push(h.key);
                }
            }
            for k in keys {
                self.reschedule(&k);
            }
            return;
        }
        for id in ids {
            let Some(i) = self.sessions[s].held.iter().position(|h| h.id == *id) else {
                continue;
            };
            let h = self.sessions[s].held.remove(i);
            if let Some(l) = self.locks.get_mut(&h.key) {
                l.granted.retain(|g| g.id != *id);
            }
            self.reschedule(&h.key);
        }
    }

    /// Releases `s`'s tickets of the durations, one duration after the other, each list
    /// from its front, only those put there at or after `since` (a savepoint).
    pub(super) fn release_durations(&mut self, s: usize, durs: &[Duration], since: u64) {
        let mut ids = Vec::new();
        for d in durs {
            ids.extend(self.list(s, *d, |h| h.order >= since));
        }
        self.release_ids(s, &ids);
    }

    pub(super) fn drop_if_idle(&mut self, key: &MdlKey) {
        if self
            .locks
            .get(key)
            .is_some_and(|l| l.granted.is_empty() && l.waiting.is_empty())
        {
            self.locks.remove(key);
        }
    }
}
