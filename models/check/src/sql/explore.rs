//! SQL scenarios in the Explorer (`mdl explore`, through the one adapter
//! [`crate::model::explore::Explorer`]): states shown as each session's place in its
//! program and its locks, actions as the SQL statements.

use super::model::SqlScenario;
use super::text::{action_text, record_text, state_lines};
use super::{SqlAction, SqlCheck, SqlState};
use crate::model::engine_model::Explain;
use crate::model::explore::Explorer;
use std::sync::Arc;

/// `mdl explore`'s model of a SQL scenario.
pub type ExploreSql = Explorer<SqlScenario>;

/// A SQL scenario without the reduction (the Explorer's).
impl From<SqlCheck> for SqlScenario {
    fn from(m: SqlCheck) -> SqlScenario {
        SqlScenario::new(Arc::new(m), false)
    }
}

impl Explain for SqlScenario {
    fn state_text(&self, st: &SqlState) -> String {
        state_lines(&self.m, st).join("\n")
    }
    fn step_of(&self, st: &SqlState, a: SqlAction) -> Option<usize> {
        // A CALL stopped between instructions: the step is the CALL's.
        matches!(a, SqlAction::Step(_)).then(|| {
            let x = a.session();
            st.pc[x] as usize - usize::from(st.model.between_instructions(x))
        })
    }
    fn action_text(&self, a: SqlAction, step: Option<usize>) -> String {
        action_text(&self.m, a, step)
    }
    fn step_text(&self, st: &SqlState, a: SqlAction) -> Option<String> {
        let (_, rec) = self.m.apply(st, a);
        Some(record_text(&self.m, &rec))
    }
}
