//! What exists on the server, as our model tracks it: schemas, tables with their engine,
//! views with the tables they read, triggers with their table. The fixture
//! ([`crate::mapping::FIXTURE_TABLES`]) and a scenario's `setup: sql` lines make it; a
//! statement that succeeds changes it ([`crate::classify::Effect`]). The model needs it
//! for three things: which learned row a table's engine selects (`.myisam`), which tables
//! `DROP DATABASE` locks, and the errors of a statement on a table that does not exist
//! (or already does), which the server raises after it took the locks.

use super::classify::{Effect, Tbl};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    InnoDb,
    MyIsam,
}

impl Engine {
    pub fn parse(s: &str) -> Option<Engine> {
        match s.to_ascii_lowercase().as_str() {
            "innodb" => Some(Engine::InnoDb),
            "myisam" => Some(Engine::MyIsam),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Obj {
    Table(Engine),
    View(Vec<Tbl>),
}

/// Server errors of statements on missing or existing objects.
pub const ER_TABLE_EXISTS: u32 = 1050;
pub const ER_BAD_TABLE: u32 = 1051;
pub const ER_NO_SUCH_TABLE: u32 = 1146;
/// ER_TABLE_MUST_HAVE_COLUMNS.
pub const ER_TABLE_MUST_HAVE_COLUMNS: u32 = 1113;
pub const ER_DB_CREATE_EXISTS: u32 = 1007;
pub const ER_DB_DROP_EXISTS: u32 = 1008;
pub const ER_BAD_DB: u32 = 1049;
pub const ER_TRG_ALREADY_EXISTS: u32 = 1359;
pub const ER_TRG_DOES_NOT_EXIST: u32 = 1360;
pub const ER_UNKNOWN_VIEW: u32 = 4092;
/// ER_UNKNOWN_TABLE ("Unknown table .. in MULTI DELETE"; the same number as HANDLER's).
pub const ER_UNKNOWN_TABLE: u32 = 1109;
pub const ER_LOCK_OR_ACTIVE_TRANSACTION: u32 = 1192;
pub const ER_ALTER_OPERATION_NOT_SUPPORTED: u32 = 1845;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Catalog {
    schemas: BTreeSet<String>,
    objs: BTreeMap<Tbl, Obj>,
    /// trigger -> its table
    triggers: BTreeMap<Tbl, Tbl>,
    /// The tables known to have no row (created, or emptied by TRUNCATE, and no row
    /// inserted since): InnoDB's in-place ALTER of such a table keeps X (measured:
    /// known-differences/truncated-table-inplace-alter.mdl). A table not listed may have
    /// rows (the fixture's have; DELETE leaves its delete-marked records).
    empty: BTreeSet<Tbl>,
    /// The accounts made since the fixture, as `name@host` (accounts statements,
    /// [`crate::accounts::Accounts`]).
    pub users: BTreeSet<String>,
}

impl Catalog {
    /// The fixture: schema `test` with its tables.
    pub fn fixture() -> Catalog {
        let mut c = Catalog::default();
        c.schemas.insert("test".into());
        for (t, e) in super::mapping::FIXTURE_TABLES {
            c.objs.insert(
                Tbl {
                    db: "test".into(),
                    name: (*t).into(),
                },
                Obj::Table(Engine::parse(e).expect("fixture engine")),
            );
        }
        c
    }

    pub fn has_schema(&self, db: &str) -> bool {
        self.schemas.contains(db)
    }

    pub fn exists(&self, t: &Tbl) -> bool {
        self.objs.contains_key(t)
    }

    pub fn is_table(&self, t: &Tbl) -> bool {
        matches!(self.objs.get(t), Some(Obj::Table(_)))
    }

    pub fn is_view(&self, t: &Tbl) -> bool {
        matches!(self.objs.get(t), Some(Obj::View(_)))
    }

    pub fn engine(&self, t: &Tbl) -> Option<Engine> {
        match self.objs.get(t) {
            Some(Obj::Table(e)) => Some(*e),
            _ => None,
        }
    }

    /// The tables (and views) of a schema, in key order.
    pub fn tables_of(&self, db: &str) -> Vec<Tbl> {
        self.objs.keys().filter(|t| t.db == db).cloned().collect()
    }

    pub fn trigger_table(&self, tr: &Tbl) -> Option<Tbl> {
        self.triggers.get(tr).cloned()
    }

    /// The error the server gives a statement with this effect now (after its locks), or
    /// none.
    pub fn error_of(&self, e: &Effect) -> Option<u32> {
        match e {
            Effect::None => None,
            Effect::Fail(c) => Some(*c),
            Effect::Accounts(a) => a.error(&self.users),
            Effect::Replace { .. } => None,
            Effect::AlterDb(db) => (!self.has_schema(db)).then_some(1),
            Effect::InPlace(t) => {
                if !self.exists(t) {
                    Some(ER_NO_SUCH_TABLE)
                } else {
                    (self.engine(t) == Some(Engine::MyIsam))
                        .then_some(ER_ALTER_OPERATION_NOT_SUPPORTED)
                }
            }
            Effect::NeedTables(ts) => ts
                .iter()
                .any(|t| !self.exists(t))
                .then_some(ER_NO_SUCH_TABLE),
            Effect::CreateTable {
                t,
                if_not_exists,
                src,
                no_columns,
                ..
            } => {
                if src.iter().any(|x| !self.exists(x)) {
                    Some(ER_NO_SUCH_TABLE)
                } else if *no_columns && !self.exists(t) {
                    // create_table_impl finds an existing table first (ER_TABLE_EXISTS, or
                    // IF NOT EXISTS's note); mysql_prepare_create_table then refuses a
                    // table with no column before the schema's directory is looked for
                    // (measured on 10.11.19: `CREATE TABLE nodb.t9` is 1113, not 1049;
                    // suite/create-table-without-columns.mdl).
                    Some(ER_TABLE_MUST_HAVE_COLUMNS)
                } else if !self.has_schema(&t.db) {
                    Some(ER_BAD_DB)
                } else if self.exists(t) && !if_not_exists {
                    Some(ER_TABLE_EXISTS)
                } else {
                    None
                }
            }
            Effect::DropTables { ts, if_exists } => {
                (!if_exists && ts.iter().any(|t| !self.is_table(t))).then_some(ER_BAD_TABLE)
            }
            Effect::Rename(pairs) => {
                let mut c = self.clone();
                for (a, b) in pairs {
                    if !c.is_table(a) {
                        return Some(ER_NO_SUCH_TABLE);
                    }
                    if c.exists(b) {
                        return Some(ER_TABLE_EXISTS);
                    }
                    c.rename(a, b);
                }
                None
            }
            Effect::CreateDb { db, if_not_exists } => {
                (self.has_schema(db) && !if_not_exists).then_some(ER_DB_CREATE_EXISTS)
            }
            Effect::DropDb { db, if_exists } => {
                (!self.has_schema(db) && !if_exists).then_some(ER_DB_DROP_EXISTS)
            }
            Effect::CreateView {
                v,
                bases,
                or_replace,
            } => {
                if bases.iter().any(|t| !self.exists(t)) {
                    Some(ER_NO_SUCH_TABLE)
                } else if self.exists(v) && !(*or_replace && self.is_view(v)) {
                    Some(ER_TABLE_EXISTS)
                } else {
                    None
                }
            }
            Effect::DropView { v, if_exists } => {
                (!self.is_view(v) && !if_exists).then_some(ER_UNKNOWN_VIEW)
            }
            Effect::CreateTrigger { tr, on } => {
                if !self.is_table(on) {
                    Some(ER_NO_SUCH_TABLE)
                } else if self.triggers.contains_key(tr) {
                    Some(ER_TRG_ALREADY_EXISTS)
                } else {
                    None
                }
            }
            Effect::DropTrigger { tr, if_exists } => {
                (!self.triggers.contains_key(tr) && !if_exists).then_some(ER_TRG_DOES_NOT_EXIST)
            }
        }
    }

    /// The table is known to have no row (see `empty`).
    pub fn has_no_row(&self, t: &Tbl) -> bool {
        self.empty.contains(t)
    }

    /// Notes that table `t` has no row (`true`) or may have rows.
    pub fn set_no_row(&mut self, t: &Tbl, none: bool) {
        if none && self.is_table(t) {
            self.empty.insert(t.clone());
        } else {
            self.empty.remove(t);
        }
    }

    fn rename(&mut self, a: &Tbl, b: &Tbl) {
        if let Some(o) = self.objs.remove(a) {
            self.objs.insert(b.clone(), o);
        }
        if self.empty.remove(a) {
            self.empty.insert(b.clone());
        }
        let moved: Vec<Tbl> = self
            .triggers
            .iter()
            .filter(|(_, t)| *t == a)
            .map(|(tr, _)| tr.clone())
            .collect();
        for tr in moved {
            self.triggers.insert(tr, b.clone());
        }
    }

    /// Applies what a statement did (also for one that failed part way: DROP TABLE of a
    /// list drops the tables that exist).
    pub fn apply(&mut self, e: &Effect) {
        match e {
            Effect::None | Effect::NeedTables(_) | Effect::Fail(_) | Effect::InPlace(_) => {}
            Effect::Accounts(a) => a.apply(&mut self.users),
            Effect::AlterDb(_) => {}
            Effect::Replace { t, engine } => {
                self.objs.insert(t.clone(), Obj::Table(*engine));
                self.empty.insert(t.clone());
                self.triggers.retain(|_, on| on != t);
            }
            Effect::CreateTable { t, engine, .. } => {
                if self.error_of(e).is_none() && !self.exists(t) {
                    self.objs.insert(t.clone(), Obj::Table(*engine));
                    // (CREATE TABLE ... SELECT of rows: `SqlModel::note_rows`.)
                    self.empty.insert(t.clone());
                }
            }
            Effect::DropTables { ts, .. } => {
                for t in ts {
                    if self.is_table(t) {
                        self.objs.remove(t);
                        self.empty.remove(t);
                        self.triggers.retain(|_, on| on != t);
                    }
                }
            }
            Effect::Rename(pairs) => {
                if self.error_of(e).is_none() {
                    for (a, b) in pairs {
                        self.rename(a, b);
                    }
                }
            }
            Effect::CreateDb { db, .. } => {
                self.schemas.insert(db.clone());
            }
            Effect::DropDb { db, .. } => {
                self.schemas.remove(db);
                self.objs.retain(|t, _| t.db != *db);
                self.empty.retain(|t| t.db != *db);
                self.triggers.retain(|t, _| t.db != *db);
            }
            Effect::CreateView { v, bases, .. } => {
                if self.error_of(e).is_none() {
                    self.objs.insert(v.clone(), Obj::View(bases.clone()));
                }
            }
            Effect::DropView { v, .. } => {
                if self.is_view(v) {
                    self.objs.remove(v);
                }
            }
            Effect::CreateTrigger { tr, on } => {
                if self.error_of(e).is_none() {
                    self.triggers.insert(tr.clone(), on.clone());
                }
            }
            Effect::DropTrigger { tr, .. } => {
                self.triggers.remove(tr);
            }
        }
    }
}
