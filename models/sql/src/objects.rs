//! The objects a statement names and the catalog keeps: tables (and views) by name,
//! their engines, views' definitions, triggers' bodies, foreign keys and the sequences a
//! statement needs. At the bottom of the crate: the classifier, the catalog and the model
//! all use them, and they use none of those.

/// A table (or view) name, schema-qualified.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tbl {
    pub db: String,
    pub name: String,
}

impl std::fmt::Display for Tbl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.db, self.name)
    }
}

/// A table's storage engine: the engines MariaDB 10.11.19 loads by default
/// (`information_schema.ENGINES`: InnoDB, MyISAM, Aria, MEMORY, CSV, MRG_MyISAM; also
/// SEQUENCE and PERFORMANCE_SCHEMA, which make no table of CREATE TABLE's). Their names
/// and the errors of the others: `classify/engines.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    InnoDb,
    MyIsam,
    Aria,
    Memory,
    Csv,
    /// MRG_MyISAM (MERGE): opens its children (`ha_myisammrg::add_children_list`).
    Merge,
}

impl Engine {
    /// The engine named `s` (case-insensitive, with the server's aliases), when loaded.
    pub fn parse(s: &str) -> Option<Engine> {
        match s.to_ascii_lowercase().as_str() {
            "innodb" => Some(Engine::InnoDb),
            "myisam" => Some(Engine::MyIsam),
            "aria" | "maria" => Some(Engine::Aria),
            "memory" | "heap" => Some(Engine::Memory),
            "csv" => Some(Engine::Csv),
            "mrg_myisam" | "merge" | "mrg_isam" => Some(Engine::Merge),
            _ => None,
        }
    }

    /// The engine whose learned rows a table of this one follows: InnoDB's, or MyISAM's
    /// (`.myisam`: CSV's DML takes BACKUP_DML and its ALTER copies, `handler`'s default
    /// `check_if_supported_inplace_alter`). The statements that open an Aria, MEMORY or
    /// MERGE table are refused (`classify/engines.rs`): their class only names them.
    pub fn class(self) -> Engine {
        match self {
            Engine::InnoDb => Engine::InnoDb,
            _ => Engine::MyIsam,
        }
    }
}

/// A trigger whose body uses tables: what fires it and its body's statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriggerBody {
    /// `insert`, `update` or `delete`.
    pub event: String,
    pub stmts: Vec<String>,
}

/// What a statement needs of an object it opens (`Effect::NeedSequences`): that it
/// exists (else the error `missing`; `None`: IF EXISTS, no error) and, when `sequence`,
/// that it is a sequence (else ER_NOT_SEQUENCE).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqNeed {
    pub t: Tbl,
    pub missing: Option<u32>,
    pub sequence: bool,
}

/// How a statement creates a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewMode {
    Create,
    OrReplace,
    Alter,
}

/// A view's definition as the catalog keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewDef {
    /// The tables and views its SELECT reads, in order, each once.
    pub bases: Vec<Tbl>,
    /// Not `ALGORITHM=TEMPTABLE` and nothing that stops a merge (`LEX::can_be_merged`:
    /// aggregates, DISTINCT, GROUP BY, HAVING, LIMIT, UNION, a subquery in the select
    /// list). Only a mergeable view passes the statement's lock type to its tables.
    pub merge: bool,
}

/// A foreign key: `child` references `parent`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignKey {
    pub child: Tbl,
    pub parent: Tbl,
    /// ON DELETE CASCADE / SET NULL (`fk_modifies_child`).
    pub delete_modifies: bool,
    /// ON UPDATE CASCADE / SET NULL.
    pub update_modifies: bool,
}

/// The schemas every server has, whose tables the catalog does not know.
pub(crate) const SYSTEM_SCHEMAS: [&str; 4] =
    ["information_schema", "mysql", "performance_schema", "sys"];

/// One of the server's own schemas (they always exist; their tables are not in the
/// catalog).
pub fn is_system_schema(db: &str) -> bool {
    SYSTEM_SCHEMAS.iter().any(|x| db.eq_ignore_ascii_case(x))
}
