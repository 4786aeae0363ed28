//! What exists on the server, as our model tracks it: schemas, tables with their engine,
//! views with the tables they read, triggers with their table. The fixture
//! ([`crate::mapping::FIXTURE_TABLES`]) and a scenario's `setup: sql` lines make it; a
//! statement that succeeds changes it ([`crate::classify::Effect`]). The model needs it
//! for three things: which learned row a table's engine selects (`.myisam`), which tables
//! `DROP DATABASE` locks, and the errors of a statement on a table that does not exist
//! (or already does), which the server raises after it took the locks.

use crate::effect::{AlterCols, Effect};
pub use crate::objects::{Engine, SeqNeed, TriggerBody};
use crate::objects::{ForeignKey, Tbl, ViewDef, ViewMode};
use crate::table_def::TableDef;
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
    /// The partitioned tables (`CREATE TABLE ... PARTITION BY`, or LIKE of one).
    partitioned: BTreeSet<Tbl>,
    /// The primary key's columns of the tables whose key the model knows (the fixture's:
    /// `a`; CREATE TABLE's, `alter_algorithm::primary_key`).
    pk: BTreeMap<Tbl, Vec<String>>,
    /// The columns and keys of the tables whose definition the model knows (the
    /// fixture's, CREATE TABLE's that `classify/columns.rs` reads, as ALTER TABLE
    /// changes them: `alter_columns.rs`).
    cols: BTreeMap<Tbl, TableDef>,
    /// The accounts made since the fixture, as `name@host` (accounts statements,
    /// [`crate::accounts::Accounts`]).
    pub users: super::grants::Users,
    /// The named key caches made since the fixture (`SET GLOBAL name.key_buffer_size =
    /// N`, N > 0; `classify/misc.rs`); `default` always exists.
    pub key_caches: BTreeSet<String>,
    /// InnoDB foreign keys (`classify/fk.rs`).
    fks: Vec<ForeignKey>,
    /// The triggers whose body uses tables, with their event and body statements (a DML
    /// statement firing them prelocks their tables: `classify/routine_prelock.rs`).
    prelocking: BTreeMap<Tbl, TriggerBody>,
    /// The stored routines and events made since the fixture.
    pub routines: super::routines::Routines,
    /// The tables that are sequences (`classify/sequence.rs`), with their MINVALUE and
    /// MAXVALUE when known.
    sequences: BTreeMap<Tbl, Option<(i64, i64)>>,
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
            let tbl = Tbl {
                db: "test".into(),
                name: (*t).into(),
            };
            // FIXTURE: every table's key is `a`.
            c.pk.insert(tbl.clone(), vec!["a".into()]);
            c.cols.insert(tbl, TableDef::fixture(t));
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

    /// A view's definition.
    pub fn view_def(&self, t: &Tbl) -> Option<&ViewDef> {
        match self.objs.get(t) {
            Some(Obj::View(d)) => Some(d),
            _ => None,
        }
    }

    /// The table is a parent or a child of a foreign key.
    pub fn has_fk(&self, t: &Tbl) -> bool {
        self.fks.iter().any(|f| f.child == *t || f.parent == *t)
    }

    /// The table is referenced by a foreign key.
    pub fn is_parent(&self, t: &Tbl) -> bool {
        self.fks.iter().any(|f| f.parent == *t)
    }

    /// The foreign keys that reference `t`.
    pub fn children_of(&self, t: &Tbl) -> Vec<ForeignKey> {
        self.fks
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
        match self.objs.get(t) {
            Some(Obj::Table(e)) => Some(*e),
            _ => None,
        }
    }

    /// The tables (and views) of a schema, in key order.
    pub fn tables_of(&self, db: &str) -> Vec<Tbl> {
        self.objs.keys().filter(|t| t.db == db).cloned().collect()
    }

    /// The table's primary key columns, when known (`Some(&[])`: none).
    pub fn primary_key(&self, t: &Tbl) -> Option<&[String]> {
        self.pk.get(t).map(Vec::as_slice)
    }

    /// The table's columns and keys, when known.
    pub fn columns(&self, t: &Tbl) -> Option<&TableDef> {
        self.cols.get(t)
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
    /// none.
    pub fn error_of(&self, e: &Effect) -> Option<u32> {
        match e {
            Effect::None => None,
            Effect::WithFks(e, _) => self.error_of(e),
            Effect::Fail(c) => Some(*c),
            Effect::Accounts(a) => a.error(&self.users),
            Effect::Routine(op) => self.routines.error(op, self.has_schema(&op.target().db)),
            Effect::Replace { src, .. } => src
                .iter()
                .any(|s| !self.is_table(s))
                .then_some(ER_NO_SUCH_TABLE),
            Effect::AlterDb(db) => (!self.has_schema(db)).then_some(1),
            // Measured: ALTER TABLE t1 COALESCE PARTITION 2 etc. of the fixture's tables
            // (learned rows `nopart_*`). A table made partitioned under the name while the
            // statement waited is not followed (the model has no row for its work).
            Effect::NotPartitioned(t) => Some(if self.exists(t) {
                ER_PARTITION_MGMT_ON_NONPARTITIONED
            } else {
                ER_NO_SUCH_TABLE
            }),
            // Measured (learned row `nopart_exchange`): both tables opened, then the
            // first's partitioning checked (exchange_partition, sql_partition_admin.cc).
            Effect::ExchangeNotPartitioned(t, swap) => {
                Some(if self.exists(t) && self.exists(swap) {
                    ER_PARTITION_MGMT_ON_NONPARTITIONED
                } else {
                    ER_NO_SUCH_TABLE
                })
            }
            Effect::Repartition(t) | Effect::Unpartition(t) => {
                (!self.exists(t)).then_some(ER_NO_SUCH_TABLE)
            }
            Effect::KeyCache(_) => None,
            Effect::InPlace(t) => {
                if !self.exists(t) {
                    Some(ER_NO_SUCH_TABLE)
                } else {
                    (self.engine(t) == Some(Engine::MyIsam))
                        .then_some(ER_ALTER_OPERATION_NOT_SUPPORTED)
                }
            }
            Effect::Alter { t, cols, .. } => match cols {
                _ if !self.exists(t) => Some(ER_NO_SUCH_TABLE),
                AlterCols::Fail(code) => Some(*code),
                _ => None,
            },
            Effect::AlterEngine { t, .. } => (!self.exists(t)).then_some(ER_NO_SUCH_TABLE),
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
            Effect::AlterRename { t, n, alter } => {
                if !self.is_table(t) {
                    Some(ER_NO_SUCH_TABLE)
                } else if self.exists(n) {
                    Some(ER_TABLE_EXISTS)
                } else {
                    self.error_of(alter)
                }
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
            Effect::CreateView { v, def, mode } => {
                // mysql_create_view: the tables read are opened first (ER_NO_SUCH_TABLE),
                // then ALTER reads the view (fill_defined_view_parts) and
                // mysql_register_view checks the name.
                if def.bases.iter().any(|t| !self.exists(t)) {
                    Some(ER_NO_SUCH_TABLE)
                } else if !self.has_schema(&v.db) {
                    // check_db_dir_existence (measured: lock_view.test's view of a
                    // schema that does not exist).
                    Some(ER_BAD_DB)
                } else {
                    match (mode, self.exists(v), self.is_view(v)) {
                        (ViewMode::Alter, false, _) => Some(ER_NO_SUCH_TABLE),
                        (ViewMode::Create, true, _) => Some(ER_TABLE_EXISTS),
                        (_, true, false) => Some(ER_WRONG_OBJECT),
                        _ => None,
                    }
                }
            }
            Effect::DropView { vs, if_exists } => {
                // mysql_drop_view: every name that is not a view (a table too, measured
                // on 10.11: views-drop-several.mdl) is in ER_UNKNOWN_VIEW's list.
                (!if_exists && vs.iter().any(|v| !self.is_view(v))).then_some(ER_UNKNOWN_VIEW)
            }
            Effect::CreateTrigger { tr, on, .. } => {
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
            Effect::CreateSequence {
                t,
                if_not_exists,
                replace,
                ..
            } => {
                if !self.has_schema(&t.db) {
                    Some(ER_BAD_DB)
                } else if self.exists(t) && !if_not_exists && !replace {
                    Some(ER_TABLE_EXISTS)
                } else {
                    None
                }
            }
            // mysql_rm_table_no_locks (sql_table.cc): ER_NOT_SEQUENCE2 for a table of the
            // list before ER_UNKNOWN_SEQUENCES (measured).
            Effect::DropSequences { ts, if_exists } => {
                if *if_exists {
                    None
                } else if ts.iter().any(|t| self.exists(t) && !self.is_sequence(t)) {
                    Some(crate::errors::ER_NOT_SEQUENCE2)
                } else {
                    ts.iter()
                        .any(|t| !self.exists(t))
                        .then_some(crate::errors::ER_UNKNOWN_SEQUENCES)
                }
            }
            Effect::NeedSequences(needs) => needs.iter().find_map(|n| {
                if !self.exists(&n.t) {
                    n.missing
                } else if n.sequence && !self.is_sequence(&n.t) {
                    Some(crate::errors::ER_NOT_SEQUENCE)
                } else {
                    None
                }
            }),
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

    fn set_partitioned(&mut self, t: &Tbl, on: bool) {
        if on {
            self.partitioned.insert(t.clone());
        } else {
            self.partitioned.remove(t);
        }
    }

    fn rename(&mut self, a: &Tbl, b: &Tbl) {
        if let Some(o) = self.objs.remove(a) {
            self.objs.insert(b.clone(), o);
        }
        if let Some(x) = self.sequences.remove(a) {
            self.sequences.insert(b.clone(), x);
        }
        if self.empty.remove(a) {
            self.empty.insert(b.clone());
        }
        if self.partitioned.remove(a) {
            self.partitioned.insert(b.clone());
        }
        if let Some(k) = self.pk.remove(a) {
            self.pk.insert(b.clone(), k);
        }
        if let Some(k) = self.cols.remove(a) {
            self.cols.insert(b.clone(), k);
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
            Effect::None
            | Effect::NeedTables(_)
            | Effect::Fail(_)
            | Effect::InPlace(_)
            | Effect::NotPartitioned(_)
            | Effect::ExchangeNotPartitioned(..)
            | Effect::NeedSequences(_) => {}
            Effect::AlterEngine { t, engine } => {
                if self.is_table(t) {
                    self.objs.insert(t.clone(), Obj::Table(*engine));
                }
            }
            Effect::Repartition(t) => {
                if self.exists(t) {
                    self.set_partitioned(t, true);
                }
            }
            Effect::Unpartition(t) => self.set_partitioned(t, false),
            Effect::Alter { t, forget_pk, cols } => {
                if *forget_pk {
                    self.pk.remove(t);
                }
                match cols {
                    AlterCols::Forget => {
                        self.cols.remove(t);
                    }
                    AlterCols::Set(def) => {
                        self.cols.insert(t.clone(), def.as_ref().clone());
                    }
                    AlterCols::Nothing | AlterCols::Fail(_) => {}
                }
            }
            Effect::CreateSequence {
                t,
                engine,
                replace,
                bounds,
                ..
            } => {
                if self.error_of(e).is_none() && (*replace || !self.exists(t)) {
                    // (OR REPLACE: the old table, its triggers with it, dropped first.)
                    self.objs.insert(t.clone(), Obj::Table(*engine));
                    self.sequences.insert(t.clone(), *bounds);
                    self.cols.remove(t);
                    self.empty.remove(t);
                    self.triggers.retain(|_, on| on != t);
                }
            }
            Effect::DropSequences { ts, .. } => {
                for t in ts {
                    if self.is_sequence(t) {
                        self.objs.remove(t);
                        self.sequences.remove(t);
                        self.triggers.retain(|_, on| on != t);
                    }
                }
            }
            Effect::Accounts(a) => a.apply(&mut self.users),
            Effect::WithFks(inner, fks) => {
                let made = match inner.as_ref() {
                    Effect::CreateTable { t, .. } => !self.exists(t),
                    // ALTER TABLE ... ADD FOREIGN KEY (`classify/fk_alter.rs`): the edge
                    // when the child and its parents are there.
                    Effect::Alter { t, .. } => {
                        self.is_table(t) && fks.iter().all(|k| self.is_table(&k.parent))
                    }
                    _ => false,
                };
                self.apply(inner);
                if made {
                    self.fks.extend(fks.iter().cloned());
                }
            }
            Effect::Routine(op) => {
                let has = self.has_schema(&op.target().db);
                self.routines.apply(op, has)
            }
            Effect::AlterDb(_) => {}
            Effect::KeyCache(name) => {
                self.key_caches.insert(name.clone());
            }
            Effect::Replace {
                t,
                engine,
                partitioned,
                empty,
                ..
            } => {
                if self.error_of(e).is_some() {
                    return;
                }
                self.objs.insert(t.clone(), Obj::Table(*engine));
                self.set_partitioned(t, *partitioned);
                self.pk.remove(t);
                self.cols.remove(t);
                self.sequences.remove(t);
                if *empty {
                    self.empty.insert(t.clone());
                } else {
                    self.empty.remove(t);
                }
                self.triggers.retain(|_, on| on != t);
            }
            Effect::CreateTable {
                t,
                engine,
                partitioned,
                pk,
                cols,
                ..
            } => {
                if self.error_of(e).is_none() && !self.exists(t) {
                    self.objs.insert(t.clone(), Obj::Table(*engine));
                    self.set_partitioned(t, *partitioned);
                    match pk {
                        Some(k) => self.pk.insert(t.clone(), k.clone()),
                        None => self.pk.remove(t),
                    };
                    match cols {
                        Some(k) => self.cols.insert(t.clone(), k.as_ref().clone()),
                        None => self.cols.remove(t),
                    };
                    // (CREATE TABLE ... SELECT of rows: `SqlModel::note_rows`.)
                    self.empty.insert(t.clone());
                }
            }
            Effect::DropTables { ts, .. } => {
                for t in ts {
                    if self.is_table(t) {
                        self.fks.retain(|f| f.child != *t && f.parent != *t);
                        self.objs.remove(t);
                        self.sequences.remove(t);
                        self.empty.remove(t);
                        self.partitioned.remove(t);
                        self.pk.remove(t);
                        self.cols.remove(t);
                        self.triggers.retain(|_, on| on != t);
                    }
                }
            }
            Effect::AlterRename { t, n, alter } => {
                // The operations (an `Effect::Alter` of `t`) apply to the renamed table.
                if self.error_of(e).is_none() {
                    self.rename(t, n);
                    if let Effect::Alter {
                        forget_pk, cols, ..
                    } = alter.as_ref()
                    {
                        self.apply(&Effect::Alter {
                            t: n.clone(),
                            forget_pk: *forget_pk,
                            cols: cols.clone(),
                        });
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
                self.fks.retain(|f| f.child.db != *db && f.parent.db != *db);
                self.sequences.retain(|t, _| t.db != *db);
                self.empty.retain(|t| t.db != *db);
                self.partitioned.retain(|t| t.db != *db);
                self.pk.retain(|t, _| t.db != *db);
                self.cols.retain(|t, _| t.db != *db);
                self.triggers.retain(|t, _| t.db != *db);
                self.routines.drop_schema(db);
            }
            Effect::CreateView { v, def, .. } => {
                if self.error_of(e).is_none() {
                    self.objs.insert(v.clone(), Obj::View(def.clone()));
                }
            }
            Effect::DropView { vs, .. } => {
                // The views that exist are dropped even when the statement fails.
                for v in vs {
                    if self.is_view(v) {
                        self.objs.remove(v);
                    }
                }
            }
            Effect::CreateTrigger { tr, on, prelock } => {
                if self.error_of(e).is_none() {
                    self.triggers.insert(tr.clone(), on.clone());
                    match prelock {
                        Some(b) => self.prelocking.insert(tr.clone(), (**b).clone()),
                        None => self.prelocking.remove(tr),
                    };
                }
            }
            Effect::DropTrigger { tr, .. } => {
                self.triggers.remove(tr);
            }
        }
    }
}
