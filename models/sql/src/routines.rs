//! Stored routines and events as the catalog keeps them, and what routine DDL does to
//! them: `CREATE` / `DROP` / `ALTER` `PROCEDURE` | `FUNCTION` | `EVENT` (the statements
//! are classified in `classify/routine.rs`, their locks are the learned rows
//! `create_procedure`, `drop_function`, `create_event`, ...).
//!
//! The server takes the routine's (event's) X with BACKUP_DDL and the schema's IX first
//! (`lock_object_name`, MariaDB `sql/sp.cc` for `Sp_handler::sp_create_routine`,
//! `sp_drop_routine`, `sp_update_routine`; `sql/events.cc` for `Events::create_event`,
//! `drop_event`, `update_event`) and only then looks at `mysql.proc` / `mysql.event`: a
//! routine that exists (or not) is an error after the locks, as for tables.

use crate::objects::Tbl;
use std::collections::BTreeMap;

/// The MDL namespace a routine statement names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoutineKind {
    Procedure,
    Function,
    Event,
}

impl RoutineKind {
    /// The learned kinds' word (`create_procedure`, ...).
    pub fn word(self) -> &'static str {
        match self {
            RoutineKind::Procedure => "procedure",
            RoutineKind::Function => "function",
            RoutineKind::Event => "event",
        }
    }

    /// The error of a CREATE of one that exists and of a DROP / ALTER of one that does
    /// not (ER_SP_ALREADY_EXISTS / ER_SP_DOES_NOT_EXIST, sql/sp.cc;
    /// ER_EVENT_ALREADY_EXISTS / ER_EVENT_DOES_NOT_EXIST, sql/event_db_repository.cc).
    fn errors(self) -> (u32, u32) {
        match self {
            RoutineKind::Event => (ER_EVENT_ALREADY_EXISTS, ER_EVENT_DOES_NOT_EXIST),
            _ => (ER_SP_ALREADY_EXISTS, ER_SP_DOES_NOT_EXIST),
        }
    }
}

pub const ER_BAD_DB: u32 = 1049;
pub const ER_SP_ALREADY_EXISTS: u32 = 1304;
pub const ER_SP_DOES_NOT_EXIST: u32 = 1305;
pub const ER_EVENT_ALREADY_EXISTS: u32 = 1537;
pub const ER_EVENT_DOES_NOT_EXIST: u32 = 1539;
/// ALTER EVENT ... RENAME TO its own name (`Events::update_event`, sql/events.cc).
pub const ER_EVENT_SAME_NAME: u32 = 1551;
/// ALTER EVENT of a time in the past with ON COMPLETION NOT PRESERVE
/// (`Event_parse_data::check_if_in_the_past`, sql/event_parse_data.cc).
pub const ER_EVENT_CANNOT_ALTER_IN_THE_PAST: u32 = 1589;

/// What a routine's body is, as far as the model reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    /// The body names a table or calls a statement that may (its prelocking is not
    /// modelled: a statement that runs it is refused).
    pub uses_tables: bool,
    /// Its statements and expressions as SQL text (`classify/routine_block.rs`), whose
    /// tables a statement calling a stored function prelocks
    /// (`classify/routine_prelock.rs`).
    pub stmts: Vec<String>,
    /// It has control flow (IF, loops, handlers, cursors, RETURN): which of its
    /// statements run depends on the data.
    pub flow: bool,
    /// The definition after the routine's name (parameters, characteristics, body) as
    /// text: a CALL compiles it (`classify/routine_flow.rs`).
    pub src: String,
    /// An event's ON COMPLETION PRESERVE (false for routines and for NOT PRESERVE, the
    /// default): an ALTER EVENT to a past time that does not say decides by it.
    pub preserve: bool,
}

/// What an ALTER EVENT says beyond its body (`Events::update_event`, sql/events.cc;
/// `Event_db_repository::update_event`, sql/event_db_repository.cc).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EventAlter {
    /// ON COMPLETION [NOT] PRESERVE, when written.
    pub preserve: Option<bool>,
    /// Its AT or ENDS lies in the past and it writes no ON COMPLETION: the event's own
    /// decides (`Event_parse_data::check_dates`, after the locks): NOT PRESERVE is
    /// ER_EVENT_CANNOT_ALTER_IN_THE_PAST.
    pub past: bool,
    /// RENAME TO this name (its locks were taken after the old name's).
    pub rename: Option<Tbl>,
}

/// A routine DDL statement's effect on the catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoutineOp {
    Create {
        kind: RoutineKind,
        r: Tbl,
        body: Body,
        if_not_exists: bool,
        or_replace: bool,
        /// An event whose AT or ENDS lies in the past, without ON COMPLETION PRESERVE:
        /// the server takes its locks, checks the schema and creates nothing, with a
        /// note (`Events::create_event`'s `do_not_create`, whether the event exists or
        /// not; measured).
        past: bool,
    },
    Drop {
        kind: RoutineKind,
        r: Tbl,
        if_exists: bool,
    },
    Alter {
        kind: RoutineKind,
        r: Tbl,
        ev: EventAlter,
    },
    /// A statement that calls a stored function: once it holds the function's S, the
    /// function must exist (a DROP it waited behind: ER_SP_DOES_NOT_EXIST; sp-lock.test).
    Use { kind: RoutineKind, r: Tbl },
}

impl RoutineOp {
    /// The routine or event the statement names.
    pub fn target(&self) -> &Tbl {
        match self {
            RoutineOp::Create { r, .. }
            | RoutineOp::Drop { r, .. }
            | RoutineOp::Alter { r, .. }
            | RoutineOp::Use { r, .. } => r,
        }
    }
}

/// The routines and events that exist, with their bodies. Their names are
/// case-insensitive (`CREATE FUNCTION F1` of an `f1` that exists: ER_SP_ALREADY_EXISTS),
/// but their MDL keys are the names as each statement writes them (measured: `SELECT
/// FA()`, `fa()`, `Fa()` hold three FUNCTION keys), so the catalog keys them lower case
/// and the classifier binds them as written.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Routines {
    objs: BTreeMap<(RoutineKind, Tbl), Body>,
}

fn folded(kind: RoutineKind, r: &Tbl) -> (RoutineKind, Tbl) {
    (
        kind,
        Tbl {
            db: r.db.clone(),
            name: r.name.to_lowercase(),
        },
    )
}

impl Routines {
    pub fn get(&self, kind: RoutineKind, r: &Tbl) -> Option<&Body> {
        self.objs.get(&folded(kind, r))
    }

    /// The stored functions of the catalog (their names).
    pub fn functions(&self) -> impl Iterator<Item = &Tbl> {
        self.objs
            .keys()
            .filter(|(k, _)| *k == RoutineKind::Function)
            .map(|(_, r)| r)
    }

    /// The error the statement gives once its locks are taken, or none; `has_schema`:
    /// whether the routine's schema exists (a CREATE in one that does not: ER_BAD_DB after
    /// the locks; a DROP or ALTER: the routine does not exist; measured).
    pub fn error(&self, op: &RoutineOp, has_schema: bool) -> Option<u32> {
        match op {
            RoutineOp::Create { .. } if !has_schema => Some(ER_BAD_DB),
            RoutineOp::Create { past: true, .. } => None,
            // Events::update_event checks the schema once it holds the event's lock
            // (`check_db_dir_existence`; measured: ALTER EVENT nodb9.e1 ..., 1049).
            RoutineOp::Alter {
                kind: RoutineKind::Event,
                ..
            } if !has_schema => Some(ER_BAD_DB),
            RoutineOp::Alter { kind, r, ev } if *ev != EventAlter::default() => {
                self.event_alter_error(*kind, r, ev)
            }
            RoutineOp::Create {
                kind,
                r,
                if_not_exists,
                or_replace,
                ..
            } => (self.get(*kind, r).is_some() && !if_not_exists && !or_replace)
                .then_some(kind.errors().0),
            RoutineOp::Drop { kind, r, if_exists } => {
                (self.get(*kind, r).is_none() && !if_exists).then_some(kind.errors().1)
            }
            RoutineOp::Alter { kind, r, .. } | RoutineOp::Use { kind, r } => {
                self.get(*kind, r).is_none().then_some(kind.errors().1)
            }
        }
    }

    /// An ALTER EVENT's error once its locks are taken: RENAME TO a name that exists
    /// first (ER_EVENT_ALREADY_EXISTS), then the event itself, then a past time
    /// (`Event_db_repository::update_event`; measured: suite/event-schedule-rename.mdl).
    /// (RENAME TO a missing schema is ER_BAD_DB: the classifier's `Effect::Fail`.)
    fn event_alter_error(&self, kind: RoutineKind, r: &Tbl, ev: &EventAlter) -> Option<u32> {
        let (exists, missing) = kind.errors();
        if ev
            .rename
            .as_ref()
            .is_some_and(|n| self.get(kind, n).is_some())
        {
            return Some(exists);
        }
        let Some(body) = self.get(kind, r) else {
            return Some(missing);
        };
        (ev.past && !body.preserve).then_some(ER_EVENT_CANNOT_ALTER_IN_THE_PAST)
    }

    pub fn apply(&mut self, op: &RoutineOp, has_schema: bool) {
        match op {
            RoutineOp::Create { past: true, .. } => {}
            RoutineOp::Alter { kind, r, ev } => {
                if self.error(op, has_schema).is_some() {
                    return;
                }
                let key = folded(*kind, r);
                if let Some(mut b) = self.objs.remove(&key) {
                    if let Some(p) = ev.preserve {
                        b.preserve = p;
                    }
                    let to = ev.rename.as_ref().map_or(key, |n| folded(*kind, n));
                    self.objs.insert(to, b);
                }
            }
            RoutineOp::Create {
                kind,
                r,
                body,
                if_not_exists,
                ..
            } => {
                if self.error(op, has_schema).is_none()
                    && !(*if_not_exists && self.get(*kind, r).is_some())
                {
                    self.objs.insert(folded(*kind, r), body.clone());
                }
            }
            RoutineOp::Drop { kind, r, .. } => {
                self.objs.remove(&folded(*kind, r));
            }
            RoutineOp::Use { .. } => {}
        }
    }

    /// DROP DATABASE drops the schema's routines and events (`mysql_rm_db`:
    /// `sp_drop_db_routines`, `Events::drop_schema_events`).
    pub fn drop_schema(&mut self, db: &str) {
        self.objs.retain(|(_, r), _| r.db != db);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p1() -> Tbl {
        Tbl {
            db: "test".into(),
            name: "p1".into(),
        }
    }

    /// The clause of a CREATE PROCEDURE about a name that exists.
    #[derive(Clone, Copy)]
    enum Clause {
        Plain,
        IfNotExists,
        OrReplace,
    }

    fn create(clause: Clause) -> RoutineOp {
        RoutineOp::Create {
            kind: RoutineKind::Procedure,
            r: p1(),
            body: Body {
                uses_tables: false,
                stmts: Vec::new(),
                flow: false,
                src: String::new(),
                preserve: false,
            },
            if_not_exists: matches!(clause, Clause::IfNotExists),
            or_replace: matches!(clause, Clause::OrReplace),
            past: false,
        }
    }

    #[test]
    fn create_then_drop_and_their_errors() {
        let mut c = Routines::default();
        let drop = RoutineOp::Drop {
            kind: RoutineKind::Procedure,
            r: p1(),
            if_exists: false,
        };
        assert_eq!(c.error(&drop, true), Some(ER_SP_DOES_NOT_EXIST));
        assert_eq!(c.error(&create(Clause::Plain), true), None);
        c.apply(&create(Clause::Plain), true);
        assert_eq!(
            c.error(&create(Clause::Plain), true),
            Some(ER_SP_ALREADY_EXISTS)
        );
        assert_eq!(c.error(&create(Clause::IfNotExists), true), None);
        assert_eq!(c.error(&create(Clause::OrReplace), true), None);
        assert_eq!(c.error(&drop, true), None);
        c.apply(&drop, true);
        assert!(c.get(RoutineKind::Procedure, &p1()).is_none());
        assert_eq!(c.error(&create(Clause::Plain), false), Some(ER_BAD_DB));
    }

    #[test]
    fn names_are_case_insensitive() {
        let mut c = Routines::default();
        c.apply(&create(Clause::Plain), true);
        let upper = Tbl {
            db: "test".into(),
            name: "P1".into(),
        };
        assert!(c.get(RoutineKind::Procedure, &upper).is_some());
        assert!(c.get(RoutineKind::Function, &upper).is_none());
    }

    #[test]
    fn events_have_their_own_errors_and_names() {
        let c = Routines::default();
        let alter = RoutineOp::Alter {
            kind: RoutineKind::Event,
            r: p1(),
            ev: EventAlter::default(),
        };
        assert_eq!(c.error(&alter, true), Some(ER_EVENT_DOES_NOT_EXIST));
    }
}
