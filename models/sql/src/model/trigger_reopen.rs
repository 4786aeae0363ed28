//! A DML statement's trigger prelocking after it waited for its table: the server opens
//! the table by name once its lock is granted and only then adds the tables of that
//! table's triggers (`DML_prelocking_strategy::handle_table`, sql/sql_base.cc, after
//! `open_table`). A RENAME the statement waited for may have moved the triggers away with
//! the old table (`Table_triggers_list::change_table_name`, sql/sql_trigger.cc): their
//! bodies' tables are then not locked (measured: open/pt-osc-triggers.mdl, the INSERT into
//! t1 waiting behind pt-osc's `RENAME TABLE t1 TO _t1_old, _t1_new TO t1` succeeds with
//! only the new t1's lock).
//!
//! The parts a trigger added carry its name (`Bind::tr`, `classify/routine_prelock.rs`);
//! once the statement's first table is granted, the parts of triggers no longer on that
//! table are dropped and the steps after the grant composed again. (Triggers that came
//! to the table meanwhile are not added.)

use super::{SqlModel, Then};
use crate::classify::{Part, Tbl};
use crate::compose::{compose, Ctx, Step};
use std::collections::VecDeque;

impl SqlModel {
    /// After session `s`'s `step` was granted: drops the parts of the triggers that left
    /// the table it opened.
    pub(super) fn trigger_parts_rebind(&mut self, s: usize, step: &Step) {
        let Step::Acquire {
            key,
            ctx: Ctx::OpenTable,
            ..
        } = step
        else {
            return;
        };
        if self.dialect.namespace(key.namespace()).name != "TABLE" {
            return;
        }
        let t = Tbl {
            db: key.db().to_owned(),
            name: key.name().to_owned(),
        };
        let Some(Then::Plan(p)) = self.sessions[s].run.as_ref().map(|r| &r.then) else {
            return;
        };
        if p.parts.first().and_then(|x| x.bind.t.as_ref()) != Some(&t) {
            return;
        }
        let left = |x: &Part| {
            !x.kind.is_trigger_ddl()
                && x.bind
                    .tr
                    .as_ref()
                    .is_some_and(|tr| self.catalog.trigger_table(tr).as_ref() != Some(&t))
        };
        if !p.parts.iter().any(left) {
            return;
        }
        let mut plan = (**p).clone();
        plan.parts.retain(|x| !left(x));
        let Ok(steps) = compose(&self.map, &self.dialect, &self.catalog, &plan) else {
            return;
        };
        let Some(at) = steps
            .iter()
            .position(|x| matches!(x, Step::Acquire { key: k, .. } if k == key))
        else {
            return;
        };
        let rest: VecDeque<Step> = steps.into_iter().skip(at + 1).collect();
        let run = self.sessions[s].run.as_mut().expect("running");
        run.steps = rest;
        run.then = Then::Plan(Box::new(plan));
    }
}
