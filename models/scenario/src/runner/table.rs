//! The runner's backend over the sequential [`LockTable`]: deterministic, no threads.
//! The scenario clock is kept here: a wait with `timeout=MS` gets a deadline when it
//! starts (a bulk request's each time it waits again); the runner times out the waits
//! an `advance` passes one at a time ([`Backend::time_out`]), in its order.

use super::{Backend, StepOutcome};
use crate::{Command, Scenario};
use mdl_core::key::MdlKey;
use mdl_core::lock::OwnerId;
use mdl_core::table::{Config, LockTable};
use mdl_core::{LockType, Outcome, WaitOption};

pub struct TableBackend {
    table: LockTable,
    now: u64,
    /// Per session: the deadline of its current wait, if it waits with a timeout.
    deadline: Vec<Option<u64>>,
    /// Per session: the wait option of its current request (bulk waits restart it).
    wait: Vec<WaitOption>,
}

impl TableBackend {
    pub fn new(sc: &Scenario) -> TableBackend {
        let d = super::dialect_of(sc);
        let mut table = LockTable::new(
            std::sync::Arc::new(d.clone()),
            Config {
                max_write_lock_count: sc.settings.max_write_lock_count,
            },
        );
        for _ in &sc.sessions {
            table.add_session();
        }
        let n = sc.sessions.len();
        TableBackend {
            table,
            now: 0,
            deadline: vec![None; n],
            wait: vec![WaitOption::Forever; n],
        }
    }

    /// The lock table (for tests).
    pub fn table(&self) -> &LockTable {
        &self.table
    }

    fn started_wait(&mut self, s: usize) {
        self.deadline[s] = self.wait[s]
            .timeout_ms()
            .map(|ms| self.now.saturating_add(ms));
    }

    /// Drains the table's events and resumes bulk acquires whose element was granted
    /// (the table emits no event for such a partial grant), one at a time, the lowest
    /// session first, until none is left (the manager's runner releases them in the same
    /// order). Returns the final outcomes of the waits that ended.
    fn settle(&mut self) -> Vec<(usize, Outcome)> {
        let mut out = Vec::new();
        loop {
            for (o, outcome) in self.table.take_events() {
                self.deadline[o.0 as usize] = None;
                out.push((o.0 as usize, outcome));
            }
            let next = (0..self.deadline.len()).find(|&s| {
                self.table
                    .session(OwnerId(s as u32))
                    .is_some_and(|x| x.resume.is_some())
            });
            let Some(s) = next else {
                return out;
            };
            match self.table.resume_bulk(OwnerId(s as u32)) {
                Ok(Outcome::Waiting) => self.started_wait(s),
                r => {
                    self.deadline[s] = None;
                    out.push((s, r.unwrap_or(Outcome::Error)));
                }
            }
        }
    }
}

impl Backend for TableBackend {
    fn name(&self) -> &'static str {
        "table"
    }

    fn step(
        &mut self,
        session: usize,
        cmd: &Command,
        wait: WaitOption,
    ) -> (StepOutcome, Vec<(usize, Outcome)>) {
        let s = OwnerId(session as u32);
        self.wait[session] = wait;
        let r = cmd
            .apply(&mut self.table, s, wait)
            .map_err(|e| e.to_string());
        let out = StepOutcome::of(r);
        if out.outcome == Outcome::Waiting {
            self.started_wait(session);
        }
        let ev = self.settle();
        (out, ev)
    }

    fn kill(&mut self, session: usize) -> Vec<(usize, Outcome)> {
        self.table.kill(OwnerId(session as u32));
        self.settle()
    }

    fn deadlines(&mut self) -> Vec<(usize, u64)> {
        (0..self.deadline.len())
            .filter(|&s| self.table.is_waiting(OwnerId(s as u32)))
            .filter_map(|s| self.deadline[s].map(|d| (s, d)))
            .collect()
    }

    fn set_clock(&mut self, ms: u64) {
        self.now = self.now.max(ms);
    }

    fn time_out(&mut self, session: usize) -> Vec<(usize, Outcome)> {
        self.deadline[session] = None;
        self.table.timeout(OwnerId(session as u32));
        self.settle()
    }

    fn holds(&mut self, session: usize, key: &MdlKey, ty: LockType) -> bool {
        self.table
            .owns_equal_or_stronger(OwnerId(session as u32), key, ty)
    }

    fn tickets(&mut self, session: usize, key: Option<&MdlKey>) -> usize {
        self.table.session(OwnerId(session as u32)).map_or(0, |x| {
            x.book
                .held()
                .iter()
                .filter(|h| key.is_none_or(|k| &h.key == k))
                .count()
        })
    }
}
