//! What exists on the server, as our model tracks it: schemas, tables with their engine,
//! views with the tables they read, triggers with their table. The fixture
//! ([`crate::mapping::FIXTURE_TABLES`]) and a scenario's `setup: sql` lines make it; a
//! statement that succeeds changes it ([`crate::classify::Effect`]). The model needs it
//! for three things: which learned row a table's engine selects (`.myisam`), which tables
//! `DROP DATABASE` locks, and the errors of a statement on a table that does not exist
//! (or already does), which the server raises after it took the locks.

mod fks;
mod partitions;
mod rename;
mod schemas;
mod sequences;
mod tables;
mod triggers;
mod views;

use crate::effect::Effect;
pub use crate::objects::{Engine, SeqNeed, TriggerBody};
use crate::objects::{ForeignKey, Tbl, ViewDef};
use crate::routines::RoutineOp;
use crate::table_def::TableDef;
pub use fks::ER_CANT_CREATE_TABLE;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Obj {
    Table(Engine),
    View(ViewDef),
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
pub const ER_ERROR_ON_RENAME: u32 = 1025;
pub const ER_TRG_ALREADY_EXISTS: u32 = 1359;
pub const ER_TRG_DOES_NOT_EXIST: u32 = 1360;
pub const ER_UNKNOWN_VIEW: u32 = 4092;
/// ER_WRONG_OBJECT ("'db.t' is not of type 'VIEW'": `mysql_register_view`,
/// `mysqld_show_create`).
pub const ER_WRONG_OBJECT: u32 = 1347;
/// ER_UNKNOWN_TABLE ("Unknown table .. in MULTI DELETE"; the same number as HANDLER's).
pub const ER_UNKNOWN_TABLE: u32 = 1109;
pub const ER_LOCK_OR_ACTIVE_TRANSACTION: u32 = 1192;
pub const ER_ALTER_OPERATION_NOT_SUPPORTED: u32 = 1845;
pub const ER_PARTITION_MGMT_ON_NONPARTITIONED: u32 = 1505;

/// What exists, with the invariants each field keeps beside it. The files of
/// `catalog/` that change a field keep its invariant: a table dropped (DROP TABLE,
/// SEQUENCE, DATABASE, CREATE OR REPLACE) leaves every map keyed by tables, a table
/// renamed takes its entries along (`catalog/rename.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Catalog {
    /// The schemas that exist (the fixture's `test`, CREATE DATABASE's).
    schemas: BTreeSet<String>,
    /// Every table and view by name: one object a name (a view and a table never share
    /// one: CREATE of either refuses a name in use with ER_TABLE_EXISTS).
    objects: BTreeMap<Tbl, Obj>,
    /// Trigger -> its table. Its table was a table of `objects` when the trigger was
    /// made (CREATE TRIGGER refuses another, ER_NO_SUCH_TABLE); dropping the table drops
    /// its triggers, renaming it moves them.
    triggers: BTreeMap<Tbl, Tbl>,
    /// The tables known to have no row (created, or emptied by TRUNCATE, and no row
    /// inserted since): InnoDB's in-place ALTER of such a table keeps X (measured:
    /// known-differences/truncated-table-inplace-alter.mdl). A table not listed may have
    /// rows (the fixture's have; DELETE leaves its delete-marked records). Only tables
    /// of `objects` are noted (`set_no_row`); a dropped table leaves it.
    empty: BTreeSet<Tbl>,
    /// The partitioned tables (`CREATE TABLE ... PARTITION BY`, or LIKE of one).
    partitioned: BTreeSet<Tbl>,
    /// The primary key's columns of the tables whose key the model knows (the fixture's:
    /// `a`; CREATE TABLE's, `alter_algorithm::primary_key`). Absent: not known.
    primary_keys: BTreeMap<Tbl, Vec<String>>,
    /// The columns and keys of the tables whose definition the model knows (the
    /// fixture's, CREATE TABLE's that `classify/columns.rs` reads, as ALTER TABLE
    /// changes them: `alter_columns.rs`). Absent: not known.
    definitions: BTreeMap<Tbl, TableDef>,
    /// The accounts made since the fixture, as `name@host` (accounts statements,
    /// [`crate::accounts::Accounts`]).
    pub users: super::grants::Users,
    /// The foreign servers made since the fixture (`crate::servers`).
    pub servers: super::servers::Servers,
    /// The named key caches made since the fixture (`SET GLOBAL name.key_buffer_size =
    /// N`, N > 0; `classify/misc.rs`); `default` always exists.
    pub key_caches: BTreeSet<String>,
    /// The server's `read_only` (`SET GLOBAL read_only`, `classify/read_only.rs`).
    pub read_only: bool,
    /// The files SELECT ... INTO OUTFILE wrote, as `schema/name` under the data directory
    /// (`classify/into_outfile.rs`).
    pub files: BTreeSet<String>,
    /// InnoDB foreign keys (`classify/fk.rs`), added only with the CREATE TABLE that made
    /// their child; dropping either table drops them.
    foreign_keys: Vec<ForeignKey>,
    /// The triggers whose body uses tables, with their event and body statements (a DML
    /// statement firing them prelocks their tables: `classify/routine_prelock.rs`). Read
    /// only through `triggers`: an entry whose trigger is gone is never read.
    prelocking: BTreeMap<Tbl, TriggerBody>,
    /// The stored routines and events made since the fixture.
    pub routines: super::routines::Routines,
    /// The packages made since the fixture (specs and bodies).
    pub packages: super::packages::Packages,
    /// The tables that are sequences (`classify/sequence.rs`), with their MINVALUE and
    /// MAXVALUE when known. Every key is a table of `objects` (CREATE SEQUENCE inserts
    /// both; the drops remove both; a rename moves both).
    sequences: BTreeMap<Tbl, Option<(i64, i64)>>,
}

impl Catalog {
    /// The fixture: schema `test` with its tables.
    pub fn fixture() -> Catalog {
        let mut c = Catalog::default();
        c.schemas.insert("test".into());
        for (t, e) in super::mapping::FIXTURE_TABLES {
            c.objects.insert(
                Tbl {
                    db: "test".into(),
                    name: (*t).into(),
                },
                Obj::Table(Engine::parse(e).expect("fixture engine")),
            );
            let tbl = Tbl {
                db: "test".into(),
                name: (*t).into(),
            };
            // FIXTURE: every table's key is `a`.
            c.primary_keys.insert(tbl.clone(), vec!["a".into()]);
            c.definitions.insert(tbl, TableDef::fixture(t));
        }
        c
    }

    pub fn has_schema(&self, db: &str) -> bool {
        self.schemas.contains(db)
    }

    pub fn exists(&self, t: &Tbl) -> bool {
        self.objects.contains_key(t)
    }

    pub fn is_table(&self, t: &Tbl) -> bool {
        matches!(self.objects.get(t), Some(Obj::Table(_)))
    }

    pub fn is_view(&self, t: &Tbl) -> bool {
        matches!(self.objects.get(t), Some(Obj::View(_)))
    }

    /// A view's definition.
    pub fn view_def(&self, t: &Tbl) -> Option<&ViewDef> {
        match self.objects.get(t) {
            Some(Obj::View(d)) => Some(d),
            _ => None,
        }
    }

    /// The table is a parent or a child of a foreign key.
    pub fn has_fk(&self, t: &Tbl) -> bool {
        self.foreign_keys
            .iter()
            .any(|f| f.child == *t || f.parent == *t)
    }

    /// The table is referenced by a foreign key.
    pub fn is_parent(&self, t: &Tbl) -> bool {
        self.foreign_keys.iter().any(|f| f.parent == *t)
    }

    /// The foreign keys that reference `t`.
    pub fn children_of(&self, t: &Tbl) -> Vec<ForeignKey> {
        self.foreign_keys
            .iter()
            .filter(|f| f.parent == *t)
            .cloned()
            .collect()
    }

    /// The table has a trigger.
    pub fn has_triggers(&self, t: &Tbl) -> bool {
        self.triggers.values().any(|on| on == t)
    }

    pub fn is_sequence(&self, t: &Tbl) -> bool {
        self.sequences.contains_key(t)
    }

    pub fn sequence_bounds(&self, t: &Tbl) -> Option<(i64, i64)> {
        self.sequences.get(t).copied().flatten()
    }

    /// The class of a table's engine (`Engine::class`: InnoDB or MyISAM), which selects
    /// its learned rows.
    pub fn engine(&self, t: &Tbl) -> Option<Engine> {
        self.engine_exact(t).map(Engine::class)
    }

    /// A table's engine itself.
    pub fn engine_exact(&self, t: &Tbl) -> Option<Engine> {
        match self.objects.get(t) {
            Some(Obj::Table(e)) => Some(*e),
            _ => None,
        }
    }

    /// The tables (and views) of a schema, in key order.
    pub fn tables_of(&self, db: &str) -> Vec<Tbl> {
        self.objects
            .keys()
            .filter(|t| t.db == db)
            .cloned()
            .collect()
    }

    /// The table's primary key columns, when known (`Some(&[])`: none).
    pub fn primary_key(&self, t: &Tbl) -> Option<&[String]> {
        self.primary_keys.get(t).map(Vec::as_slice)
    }

    /// The table's columns and keys, when known.
    pub fn columns(&self, t: &Tbl) -> Option<&TableDef> {
        self.definitions.get(t)
    }

    /// The table was created partitioned.
    pub fn is_partitioned(&self, t: &Tbl) -> bool {
        self.partitioned.contains(t)
    }

    /// Table `t` has a trigger whose body uses tables.
    pub fn has_prelocking_trigger(&self, t: &Tbl) -> bool {
        self.triggers
            .iter()
            .any(|(tr, on)| on == t && self.prelocking.contains_key(tr))
    }

    /// The triggers of table `t` whose body uses tables.
    pub fn prelocking_triggers(&self, t: &Tbl) -> Vec<&TriggerBody> {
        self.triggers
            .iter()
            .filter(|(_, on)| *on == t)
            .filter_map(|(tr, _)| self.prelocking.get(tr))
            .collect()
    }

    /// The triggers of table `t` whose body uses tables, with their names.
    pub fn prelocking_triggers_named(&self, t: &Tbl) -> Vec<(&Tbl, &TriggerBody)> {
        self.triggers
            .iter()
            .filter(|(_, on)| *on == t)
            .filter_map(|(tr, _)| self.prelocking.get(tr).map(|b| (tr, b)))
            .collect()
    }

    /// The catalog without table `t`'s prelocking triggers (to classify the statement
    /// that fires them as if it had none).
    pub fn without_prelocking(&self, t: &Tbl) -> Catalog {
        let mut c = self.clone();
        let trs: Vec<Tbl> = c
            .triggers
            .iter()
            .filter(|(_, on)| *on == t)
            .map(|(tr, _)| tr.clone())
            .collect();
        for tr in trs {
            c.prelocking.remove(&tr);
        }
        c
    }

    pub fn trigger_table(&self, tr: &Tbl) -> Option<Tbl> {
        self.triggers.get(tr).cloned()
    }

    /// The error the server gives a statement with this effect now (after its locks), or
    /// none. Each family of effects has its file (`catalog/*.rs`); this match routes every
    /// variant by name, so a new one is routed before it compiles.
    pub fn error_of(&self, e: &Effect) -> Option<u32> {
        match e {
            Effect::None | Effect::KeyCache(_) | Effect::ReadOnly(_) | Effect::Server(_) => None,
            Effect::WithFks(e, fks) => self.fk_error(e, fks),
            Effect::Fail(c) | Effect::FailBeforeLocks(c) => Some(*c),
            Effect::WriteFile { path, need } => self
                .table_error(&Effect::NeedTables(need.clone()))
                .or_else(|| {
                    self.files
                        .contains(path)
                        .then_some(crate::errors::ER_FILE_EXISTS)
                }),
            Effect::Accounts(a) => a.error(&self.users),
            Effect::Routine(op) => self.routines.error(op, self.has_schema(&op.target().db)),
            Effect::Package(op) => self.packages.error(op, self.has_schema(&op.target().db)),
            Effect::AlterDb(_) | Effect::CreateDb { .. } | Effect::DropDb { .. } => {
                self.schema_error(e)
            }
            Effect::NotPartitioned(_)
            | Effect::ExchangeNotPartitioned(..)
            | Effect::Repartition(_)
            | Effect::Unpartition(_) => self.partition_error(e),
            Effect::Replace { .. }
            | Effect::InPlace(_)
            | Effect::Alter { .. }
            | Effect::AlterEngine { .. }
            | Effect::NeedTables(_)
            | Effect::CreateTable { .. }
            | Effect::DropTables { .. } => self.table_error(e),
            Effect::AlterRename { .. } | Effect::Rename(_) => self.rename_error(e),
            Effect::CreateView { .. } | Effect::DropView { .. } => self.view_error(e),
            Effect::CreateTrigger { .. } | Effect::DropTrigger { .. } => self.trigger_error(e),
            Effect::CreateSequence { .. }
            | Effect::DropSequences { .. }
            | Effect::DropThenFail { .. }
            | Effect::NeedSequences(_) => self.sequence_error(e),
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

    /// Applies what a statement did (also for one that failed part way: DROP TABLE of a
    /// list drops the tables that exist). Routed by family as [`Catalog::error_of`] is.
    pub fn apply(&mut self, e: &Effect) {
        match e {
            Effect::None
            | Effect::NeedTables(_)
            | Effect::Fail(_)
            | Effect::FailBeforeLocks(_)
            | Effect::InPlace(_)
            | Effect::NotPartitioned(_)
            | Effect::ExchangeNotPartitioned(..)
            | Effect::NeedSequences(_)
            | Effect::AlterDb(_) => {}
            Effect::Accounts(a) => a.apply(&mut self.users),
            Effect::Server(op) => self.servers.apply(op),
            Effect::WithFks(inner, fks) => self.apply_with_fks(inner, fks),
            Effect::Routine(op) => {
                let has = self.has_schema(&op.target().db);
                if let RoutineOp::Drop { kind, r, .. } = op {
                    // sql_parse.cc, SQLCOM_DROP_PROCEDURE / FUNCTION: `sp_revoke_privileges`
                    // drops the routine's rows of mysql.procs_priv.
                    self.users.drop_routine(*kind, r);
                }
                self.routines.apply(op, has)
            }
            Effect::Package(op) => {
                let has = self.has_schema(&op.target().db);
                self.packages.apply(op, has)
            }
            Effect::KeyCache(name) => {
                self.key_caches.insert(name.clone());
            }
            Effect::ReadOnly(on) => self.read_only = *on,
            Effect::WriteFile { path, .. } => {
                self.files.insert(path.clone());
            }
            Effect::Repartition(_) | Effect::Unpartition(_) => self.apply_partition(e),
            Effect::AlterEngine { .. }
            | Effect::Alter { .. }
            | Effect::Replace { .. }
            | Effect::CreateTable { .. }
            | Effect::DropTables { .. } => self.apply_table(e),
            Effect::AlterRename { .. } | Effect::Rename(_) => self.apply_rename(e),
            Effect::CreateSequence { .. }
            | Effect::DropSequences { .. }
            | Effect::DropThenFail { .. } => self.apply_sequence(e),
            Effect::CreateDb { .. } | Effect::DropDb { .. } => self.apply_schema(e),
            Effect::CreateView { .. } | Effect::DropView { .. } => self.apply_view(e),
            Effect::CreateTrigger { .. } | Effect::DropTrigger { .. } => self.apply_trigger(e),
        }
    }
}
