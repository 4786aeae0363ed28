//! A table's columns and keys as the model knows them (CREATE TABLE's definition, what
//! ALTER TABLE changes): the data the catalog keeps; the parsing is
//! `classify/columns.rs`'s.

/// A column's type, normalised: `int(11)` is `int`, `integer` is `int`, `bool` is
/// `tinyint(1)`, `numeric` is `decimal`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColType {
    pub base: String,
    /// The words between the type's parentheses (lengths, ENUM / SET values).
    pub args: Vec<String>,
    pub unsigned: bool,
    /// CHARACTER SET, when named (otherwise the table's).
    pub charset: Option<String>,
    /// BINARY or COLLATE: a collation the model does not follow.
    pub collation: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub ty: ColType,
    pub not_null: bool,
    pub auto_inc: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// `primary` for the primary key.
    pub name: String,
    pub cols: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDef {
    pub cols: Vec<Column>,
    pub keys: Vec<Key>,
    /// The table's default character set.
    pub charset: String,
    /// The names of its CHECK constraints (an unnamed one is `constraint_N`).
    pub checks: Vec<String>,
}

/// The server's default character set (MariaDB 10.11's `character_set_server`).
pub const SERVER_CHARSET: &str = "latin1";

/// Single-byte character sets: a longer VARCHAR keeps its length bytes' meaning
/// (measured INSTANT for latin1 only).
pub fn single_byte(cs: &str) -> bool {
    matches!(cs, "latin1" | "ascii" | "binary")
}

impl TableDef {
    /// The fixture's tables (`mapping.rs` FIXTURE): `a INT [AUTO_INCREMENT] PRIMARY
    /// KEY`, and `b INT` but for t0.
    pub fn fixture(name: &str) -> TableDef {
        let int = |n: &str, nn: bool, ai: bool| Column {
            name: n.into(),
            ty: ColType {
                base: "int".into(),
                args: Vec::new(),
                unsigned: false,
                charset: None,
                collation: false,
            },
            not_null: nn,
            auto_inc: ai,
        };
        let cols = if name == "t0" {
            vec![int("a", true, false)]
        } else {
            vec![int("a", true, true), int("b", false, false)]
        };
        TableDef {
            cols,
            keys: vec![Key {
                name: "primary".into(),
                cols: vec!["a".into()],
            }],
            charset: SERVER_CHARSET.into(),
            checks: Vec::new(),
        }
    }

    /// The name the server gives a CHECK constraint of no name (`CONSTRAINT_1`, ...).
    pub fn check_name(&self) -> String {
        (1..)
            .map(|i| format!("constraint_{i}"))
            .find(|n| !self.checks.contains(n))
            .expect("a free name")
    }

    pub fn col(&self, name: &str) -> Option<&Column> {
        self.cols.iter().find(|c| c.name == name)
    }

    pub fn key(&self, name: &str) -> Option<&Key> {
        self.keys.iter().find(|k| k.name == name)
    }

    /// The column is part of a key.
    pub fn indexed(&self, col: &str) -> bool {
        self.keys.iter().any(|k| k.cols.iter().any(|c| c == col))
    }

    /// The character set a column's type uses, when it has one.
    pub fn charset_of(&self, ty: &ColType) -> Option<String> {
        ty.is_text()
            .then(|| ty.charset.clone().unwrap_or_else(|| self.charset.clone()))
    }

    /// The name the server gives a key of no name on `first` (`make_unique_key_name`,
    /// sql/sql_table.cc: the column's name, then `_2`, `_3`, ...).
    pub fn key_name_for(&self, first: &str) -> String {
        if self.key(first).is_none() && first != "primary" {
            return first.to_owned();
        }
        (2..)
            .map(|i| format!("{first}_{i}"))
            .find(|n| self.key(n).is_none())
            .expect("a free name")
    }
}

impl ColType {
    /// A character type (its character set matters).
    pub fn is_text(&self) -> bool {
        matches!(
            self.base.as_str(),
            "char" | "varchar" | "tinytext" | "text" | "mediumtext" | "longtext" | "enum" | "set"
        )
    }
}
