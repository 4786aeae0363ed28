//! ALTER TABLE of a table whose columns and keys the catalog knows
//! (`classify/columns.rs`): the server's choice of algorithm for the operations that
//! depend on them, its errors about them, and `IF [NOT] EXISTS`.
//!
//! - `handle_if_exists_options` (MariaDB sql/sql_table.cc) drops an operation whose
//!   `IF [NOT] EXISTS` finds the column or key absent (present), with a note; with no
//!   operation left, `mysql_alter_table` ends after IX, SU and BACKUP_DDL (measured on
//!   10.11.19: `DROP COLUMN IF EXISTS zz` waits behind BACKUP STAGE BLOCK_DDL, then ends
//!   with no error; behind a reader it ends at once).
//! - `mysql_prepare_alter_table` (sql/sql_table.cc) finds an unknown column
//!   (ER_BAD_FIELD_ERROR 1054), a column or key to drop that is not there
//!   (ER_CANT_DROP_FIELD_OR_KEY 1091), a duplicate column (ER_DUP_FIELDNAME 1060); then
//!   `mysql_prepare_create_table` a duplicate key name (ER_DUP_KEYNAME 1061) or a key
//!   column that is not there (ER_KEY_COLUMN_DOES_NOT_EXIST 1072): all after the same
//!   IX, SU and BACKUP_DDL (measured for 1054, 1091, 1060 behind BLOCK_DDL).
//! - The algorithm of MODIFY / CHANGE: `fill_alter_inplace_info` (sql/sql_table.cc)
//!   compares the old and new field (`Field::is_equal`), InnoDB's
//!   `ha_innobase::check_if_supported_inplace_alter` and `instant_alter_column_possible`
//!   (storage/innobase/handler/handler0alter.cc) decide. Measured on 10.11.19 by the
//!   first of ALGORITHM=INSTANT, NOCOPY, INPLACE, COPY accepted
//!   (`cargo run -p mdl-conform --example alter_measure`, table in
//!   models/conformance/README.md): the same type (a display width, a default, a
//!   position, a name, AUTO_INCREMENT of a key column changed only) INSTANT; NULL to
//!   NOT NULL or back INPLACE; a longer VARCHAR of latin1 INSTANT (indexed too); ENUM /
//!   SET values added at the end INSTANT; any other change of type, length or
//!   character set COPY. DROP COLUMN of an indexed column is in place (NOCOPY), of
//!   another INSTANT. CONVERT TO CHARACTER SET: COPY when a character column changes
//!   its character set, INSTANT otherwise. MyISAM (`ha_myisam` has no in-place ALTER
//!   but for metadata): COPY, or a change of metadata only (refused: no learned row).

use super::catalog::Engine;
use super::classify::columns::{
    self, add_key, column_def, key_def, single_byte, ColDef, Column, KeyDef, TableDef,
};

pub const ER_BAD_FIELD_ERROR: u32 = 1054;
pub const ER_DUP_FIELDNAME: u32 = 1060;
pub const ER_DUP_KEYNAME: u32 = 1061;
pub const ER_MULTIPLE_PRI_KEY: u32 = 1068;
pub const ER_KEY_COLUMN_DOES_NOT_EXIST: u32 = 1072;
pub const ER_CANT_DROP_FIELD_OR_KEY: u32 = 1091;
pub const ER_KEY_DOES_NOT_EXITS: u32 = 1176;
pub const ER_BLOB_KEY_WITHOUT_LENGTH: u32 = 1170;

const INSTANT: usize = 0;
const INPLACE: usize = 1;
const COPY: usize = 2;

/// What the server does with an ALTER TABLE's operations on a known table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The algorithm (0 INSTANT, 1 INPLACE, 2 COPY) and the table after it.
    Runs(usize, Box<TableDef>),
    /// Every operation dropped by its IF [NOT] EXISTS: nothing to do.
    Nothing,
    /// The server's error once IX, SU and BACKUP_DDL are taken.
    Fails(u32),
}

/// The state of one resolution: the table before, the table being made, the errors
/// found, the most expensive algorithm so far.
struct Run<'a> {
    old: &'a TableDef,
    new: TableDef,
    engine: Engine,
    errors: Vec<u32>,
    rank: usize,
    ops: usize,
    /// Old columns an operation already names (a second one is refused).
    touched: Vec<String>,
    /// The columns this statement adds.
    added: Vec<String>,
    /// Every word of the statement's operations.
    words: Vec<String>,
}

fn at(op: &[String], i: usize) -> &str {
    op.get(i).map(String::as_str).unwrap_or("")
}

/// IF [NOT] EXISTS drops an operation (seeded bug `conform_alter_if_exists_ignored`:
/// it does not).
fn if_honoured() -> bool {
    !cfg!(mdl_bug = "conform_alter_if_exists_ignored")
}

/// `[COLUMN] [IF [NOT] EXISTS]` after the verb: (the index after them, IF given).
fn column_prefix(op: &[String]) -> (usize, bool) {
    let mut i = 1;
    if at(op, i) == "column" {
        i += 1;
    }
    if at(op, i) == "if" {
        i += if at(op, i + 1) == "not" { 3 } else { 2 };
        return (i, if_honoured());
    }
    (i, false)
}

impl Run<'_> {
    fn touch(&mut self, name: &str) -> Result<(), String> {
        if self.touched.iter().any(|t| t == name) {
            return Err(format!(
                "several operations on column `{name}` in one ALTER TABLE are not modelled"
            ));
        }
        self.touched.push(name.to_owned());
        Ok(())
    }

    /// The old column `name`; a column the same statement adds is refused (the server
    /// lets ALTER COLUMN and MODIFY name it; not modelled).
    fn old_col(&self, name: &str) -> Result<Option<Column>, String> {
        if self.added.iter().any(|a| a == name) {
            return Err(format!(
                "an operation on column `{name}` that the same ALTER TABLE adds is not modelled"
            ));
        }
        Ok(self.old.col(name).cloned())
    }

    /// The new name `to` of a column is already taken: ER_DUP_FIELDNAME, unless another
    /// operation of the statement names it (the server checks the names at the end: a
    /// swap of two names is allowed; not modelled).
    fn taken(&mut self, to: &str) -> Result<bool, String> {
        if self.new.col(to).is_none() {
            return Ok(false);
        }
        if self.words.iter().filter(|w| *w == to).count() > 1 {
            return Err(format!(
                "a new name `{to}` another operation of the ALTER TABLE names is not modelled"
            ));
        }
        self.errors.push(ER_DUP_FIELDNAME);
        Ok(true)
    }

    fn cost(&mut self, r: usize) {
        self.rank = self.rank.max(r);
        self.ops += 1;
    }

    /// A change of metadata only: INSTANT of InnoDB; of MyISAM refused.
    fn metadata(&mut self) -> Result<(), String> {
        if self.engine == Engine::MyIsam {
            return Err(
                "a change of metadata only of a MyISAM table is done in place, \
                        which no learned row has"
                    .into(),
            );
        }
        self.cost(INSTANT);
        Ok(())
    }

    /// The position words FIRST / AFTER x: an unknown x is ER_BAD_FIELD_ERROR.
    fn position(&mut self, d: &ColDef) -> bool {
        if let Some(a) = &d.after {
            if self.new.col(a).is_none() {
                self.errors.push(ER_BAD_FIELD_ERROR);
            }
        }
        d.after.is_some() || d.first
    }

    fn add_column(&mut self, op: &[String]) -> Result<(), String> {
        let (i, if_not) = column_prefix(op);
        if at(op, i) == "(" {
            // ADD [COLUMN] (a INT, b INT): each one as its own ADD.
            let (inner, next) = columns::group(op, i).ok_or("an unclosed ADD COLUMN (")?;
            if next != op.len() || if_not {
                return Err(format!("`{}` is not read", op.join(" ")));
            }
            for def in columns::split_commas(inner) {
                let mut one = vec!["add".to_owned()];
                one.extend(def.iter().cloned());
                self.add_column(&one)?;
            }
            return Ok(());
        }
        let d = column_def(&op[i..])
            .ok_or_else(|| format!("the column definition `{}` is not read", op.join(" ")))?;
        if self.new.col(&d.col.name).is_some() {
            if if_not {
                return Ok(());
            }
            self.errors.push(ER_DUP_FIELDNAME);
            return Ok(());
        }
        if d.col.auto_inc {
            return Err("ADD COLUMN ... AUTO_INCREMENT is not measured".into());
        }
        self.position(&d);
        let keyed = d.primary || d.unique;
        if d.primary {
            if self.new.key("primary").is_some() {
                self.errors.push(ER_MULTIPLE_PRI_KEY);
            }
            add_key(
                &mut self.new,
                Some("primary".into()),
                vec![d.col.name.clone()],
            );
        } else if d.unique {
            add_key(&mut self.new, None, vec![d.col.name.clone()]);
        }
        self.added.push(d.col.name.clone());
        self.new.cols.push(d.col);
        self.cost(match self.engine {
            // (Only InnoDB and MyISAM tables come here: alter_cols::known.)
            Engine::MyIsam | Engine::Aria | Engine::Memory | Engine::Csv | Engine::Merge => COPY,
            Engine::InnoDb if keyed => INPLACE,
            Engine::InnoDb => INSTANT,
        });
        Ok(())
    }

    fn drop_column(&mut self, op: &[String]) -> Result<(), String> {
        let (i, if_exists) = column_prefix(op);
        let name = at(op, i).to_owned();
        if self.old_col(&name)?.is_none() {
            if !if_exists {
                self.errors.push(ER_CANT_DROP_FIELD_OR_KEY);
            }
            return Ok(());
        }
        self.touch(&name)?;
        let indexed = self.old.indexed(&name);
        self.new.cols.retain(|c| c.name != name);
        for k in &mut self.new.keys {
            k.cols.retain(|c| *c != name);
        }
        self.new.keys.retain(|k| !k.cols.is_empty());
        if self.new.cols.is_empty() {
            return Err("DROP of every column (ER_CANT_REMOVE_ALL_FIELDS) is not modelled".into());
        }
        // (A primary key column dropped is a copy: alter_algorithm::drops_primary_key.)
        self.cost(match self.engine {
            // (Only InnoDB and MyISAM tables come here: alter_cols::known.)
            Engine::MyIsam | Engine::Aria | Engine::Memory | Engine::Csv | Engine::Merge => COPY,
            Engine::InnoDb if indexed => INPLACE,
            Engine::InnoDb => INSTANT,
        });
        Ok(())
    }

    /// MODIFY (`change` false) or CHANGE.
    fn change_column(&mut self, op: &[String], change: bool) -> Result<(), String> {
        let (i, if_exists) = column_prefix(op);
        let name = at(op, i).to_owned();
        let def_at = if change { i + 1 } else { i };
        let d = column_def(&op[def_at..])
            .ok_or_else(|| format!("the column definition `{}` is not read", op.join(" ")))?;
        let Some(old) = self.old_col(&name)? else {
            if !if_exists {
                self.errors.push(ER_BAD_FIELD_ERROR);
            }
            return Ok(());
        };
        self.touch(&name)?;
        if d.primary || d.unique {
            return Err("MODIFY / CHANGE with a key of its own is not measured".into());
        }
        let moved = self.position(&d);
        let mut col = d.col;
        if self
            .old
            .key("primary")
            .is_some_and(|k| k.cols.contains(&name))
        {
            col.not_null = true;
        }
        if col.auto_inc && !old.auto_inc {
            return Err("MODIFY / CHANGE that adds AUTO_INCREMENT is not measured".into());
        }
        if col.name != name && self.taken(&col.name.clone())? {
            return Ok(());
        }
        if is_blob(&col.ty) && self.old.indexed(&name) {
            // mysql_prepare_create_table: ER_BLOB_KEY_WITHOUT_LENGTH (measured before the
            // ALGORITHM's ER_ALTER_OPERATION_NOT_SUPPORTED_REASON).
            self.errors.push(ER_BLOB_KEY_WITHOUT_LENGTH);
            return Ok(());
        }
        let r = change_rank(self.old, &old, &col, moved, self.engine)?;
        for k in &mut self.new.keys {
            for c in &mut k.cols {
                if *c == name {
                    *c = col.name.clone();
                }
            }
        }
        match self.new.cols.iter_mut().find(|c| c.name == name) {
            Some(c) => *c = col,
            None => return Err("a column changed twice is not modelled".into()),
        }
        match r {
            Some(r) => self.cost(r),
            None => self.metadata()?,
        }
        Ok(())
    }

    /// ALTER [COLUMN] x SET DEFAULT / DROP DEFAULT, RENAME COLUMN x TO y.
    fn rename_or_default(&mut self, op: &[String]) -> Result<(), String> {
        let rename = op[0] == "rename";
        let (i, if_exists) = column_prefix(op);
        let name = at(op, i).to_owned();
        if !rename && !matches!(at(op, i + 1), "set" | "drop") {
            return Err(format!("`{}` is not modelled", op.join(" ")));
        }
        if !rename && at(op, i + 2) != "default" {
            return Err(format!("`{}` is not modelled", op.join(" ")));
        }
        // (Measured: ALTER COLUMN / RENAME COLUMN IF EXISTS of a column that is not there
        // do nothing, as DROP COLUMN IF EXISTS.)
        if self.old_col(&name)?.is_none() {
            if !if_exists {
                self.errors.push(ER_BAD_FIELD_ERROR);
            }
            return Ok(());
        }
        self.touch(&name)?;
        if rename {
            let to = at(op, i + 2).to_owned();
            if at(op, i + 1) != "to" || to.is_empty() {
                return Err(format!("`{}` is not read", op.join(" ")));
            }
            if to == name {
                // No change (measured: the ALTER ends after BACKUP_DDL).
                return Ok(());
            }
            if self.taken(&to)? {
                return Ok(());
            }
            for c in &mut self.new.cols {
                if c.name == name {
                    c.name = to.clone();
                }
            }
            for k in &mut self.new.keys {
                for c in &mut k.cols {
                    if *c == name {
                        *c = to.clone();
                    }
                }
            }
        }
        self.metadata()
    }

    fn add_key(&mut self, op: &[String]) -> Result<(), String> {
        let if_not = op.windows(2).any(|w| w[0] == "if" && w[1] == "not") && if_honoured();
        let KeyDef::Key { name, cols } = key_def(&op[1..]) else {
            return Err(format!("`{}` is not modelled", op.join(" ")));
        };
        if op.iter().any(|w| w == "spatial" || w == "fulltext") {
            return Err(
                "FULLTEXT and SPATIAL keys (the column's type decides) are not modelled".into(),
            );
        }
        // mysql_prepare_create_table checks each key's columns (1072, then a prefix of a
        // column that takes none: ER_WRONG_SUB_KEY 1089, not modelled) before the
        // second primary key (1068): measured.
        // handle_if_exists_options first drops the key whose name is there.
        if if_not && name.as_ref().is_some_and(|n| self.new.key(n).is_some()) {
            return Ok(());
        }
        if cols.iter().any(|c| self.new.col(c).is_none()) {
            self.errors.push(ER_KEY_COLUMN_DOES_NOT_EXIST);
            return Ok(());
        }
        if prefixed(op) {
            return Err("a key on a prefix of a column is not modelled".into());
        }
        if let Some(n) = &name {
            if self.new.key(n).is_some() {
                if if_not {
                    return Ok(());
                }
                self.errors.push(if n == "primary" {
                    ER_MULTIPLE_PRI_KEY
                } else {
                    ER_DUP_KEYNAME
                });
                return Ok(());
            }
        }
        add_key(&mut self.new, name, cols);
        self.cost(if self.engine == Engine::MyIsam {
            COPY
        } else {
            INPLACE
        });
        Ok(())
    }

    fn drop_key(&mut self, op: &[String]) -> Result<(), String> {
        let primary = at(op, 1) == "primary";
        let mut i = 2;
        let if_given = at(op, i) == "if";
        if if_given {
            i += 2;
        }
        let if_exists = if_given && if_honoured();
        let name = if primary {
            "primary".to_owned()
        } else {
            at(op, i).to_owned()
        };
        if self.new.key(&name).is_none() {
            if !if_exists {
                self.errors.push(ER_CANT_DROP_FIELD_OR_KEY);
            }
            return Ok(());
        }
        self.new.keys.retain(|k| k.name != name);
        self.cost(if self.engine == Engine::MyIsam {
            COPY
        } else {
            INPLACE
        });
        Ok(())
    }

    fn rename_key(&mut self, op: &[String]) -> Result<(), String> {
        let if_exists = at(op, 2) == "if";
        let op = if if_exists { &op[2..] } else { op };
        let (from, to) = (at(op, 2).to_owned(), at(op, 4).to_owned());
        if at(op, 3) != "to" || to.is_empty() {
            return Err(format!("`{}` is not read", op.join(" ")));
        }
        match self.new.keys.iter_mut().find(|k| k.name == from) {
            Some(k) => k.name = to,
            None if if_exists => {
                // The operation is dropped but the ALTER still runs (measured: `rename key
                // if exists d to e` of the fixture's t1 waits for X).
                return self.metadata();
            }
            None => {
                self.errors.push(ER_KEY_DOES_NOT_EXITS);
                return Ok(());
            }
        }
        self.metadata()
    }

    /// ADD [CONSTRAINT [name]] CHECK (expr): a copy (measured, both engines: the rows
    /// are checked). An expression on an AUTO_INCREMENT column fails
    /// (ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED, not measured where): refused.
    fn add_check(&mut self, op: &[String]) -> Result<(), String> {
        let Some(Some(name)) = columns::check_def(&op[1..]) else {
            return Err(format!("`{}` is not read", op.join(" ")));
        };
        let auto = self.new.cols.iter().filter(|c| c.auto_inc);
        if auto.map(|c| &c.name).any(|n| op.contains(n)) {
            return Err("a CHECK on an AUTO_INCREMENT column (error 1901) is not modelled".into());
        }
        let name = name.unwrap_or_else(|| self.new.check_name());
        if self.new.checks.contains(&name) {
            return Err("a CHECK constraint's name twice is not modelled".into());
        }
        self.new.checks.push(name);
        self.cost(COPY);
        Ok(())
    }

    /// DROP CONSTRAINT [IF EXISTS] name: a CHECK (metadata: INSTANT, measured) or a key.
    fn drop_constraint(&mut self, op: &[String]) -> Result<(), String> {
        let if_exists = at(op, 2) == "if";
        let name = at(op, if if_exists { 4 } else { 2 }).to_owned();
        if self.new.checks.contains(&name) {
            self.new.checks.retain(|c| *c != name);
            return self.metadata();
        }
        if self.new.key(&name).is_some() {
            self.new.keys.retain(|k| k.name != name);
            self.cost(if self.engine == Engine::MyIsam {
                COPY
            } else {
                INPLACE
            });
            return Ok(());
        }
        if if_exists {
            // Dropped, but the ALTER still runs (measured: waits for X behind a reader).
            return self.metadata();
        }
        self.errors.push(ER_CANT_DROP_FIELD_OR_KEY);
        Ok(())
    }

    /// CONVERT TO CHARACTER SET cs: a copy when a character column changes its set.
    fn convert(&mut self, op: &[String]) -> Result<(), String> {
        let cs = match (at(op, 2), at(op, 3)) {
            ("character", "set") => at(op, 4),
            ("charset", _) => at(op, 3),
            _ => "",
        };
        let cs = if cs == "=" { at(op, 5) } else { cs };
        // DEFAULT is the schema's character set (the fixture's schemas have the
        // server's); `utf8` is `utf8mb3` (crate::collations).
        let cs = match cs {
            "default" => crate::table_def::SERVER_CHARSET,
            _ => crate::collations::charset(cs).unwrap_or(cs),
        };
        if cs.is_empty() || !convert_collation(op, cs, &self.new) {
            return Err(format!("`{}` is not modelled", op.join(" ")));
        }
        let changes = self.new.cols.iter().any(|c| {
            self.new
                .charset_of(&c.ty)
                .is_some_and(|x| x != cs && c.ty.base != "binary")
        });
        for c in &mut self.new.cols {
            if c.ty.is_text() {
                c.ty.charset = Some(cs.to_owned());
            }
        }
        self.new.charset = cs.to_owned();
        self.cost(match self.engine {
            // (Only InnoDB and MyISAM tables come here: alter_cols::known.)
            Engine::MyIsam | Engine::Aria | Engine::Memory | Engine::Csv | Engine::Merge => COPY,
            Engine::InnoDb if changes => COPY,
            Engine::InnoDb => INSTANT,
        });
        Ok(())
    }

    fn operation(&mut self, op: &[String]) -> Result<(), String> {
        const KEY_WORDS: &[&str] = &[
            "index",
            "key",
            "unique",
            "fulltext",
            "spatial",
            "primary",
            "constraint",
            "foreign",
            "check",
        ];
        let check = columns::check_def(&op[1..]).is_some();
        match (at(op, 0), at(op, 1)) {
            ("add", _) if check => self.add_check(op),
            ("drop", "constraint") => self.drop_constraint(op),
            ("add", w) if KEY_WORDS.contains(&w) => self.add_key(op),
            ("add", "partition" | "period" | "system") => {
                Err(format!("`{}` is not modelled", op.join(" ")))
            }
            ("add", _) => self.add_column(op),
            ("drop", "index" | "key" | "primary") => self.drop_key(op),
            ("drop", w) if KEY_WORDS.contains(&w) || w == "partition" || w == "period" => {
                Err(format!("`{}` is not modelled", op.join(" ")))
            }
            ("drop", "system") => Err(format!("`{}` is not modelled", op.join(" "))),
            ("drop", _) => self.drop_column(op),
            ("modify", _) => self.change_column(op, false),
            ("change", _) => self.change_column(op, true),
            ("alter", "index" | "key") => Err(format!("`{}` is not modelled", op.join(" "))),
            ("alter", _) | ("rename", "column") => self.rename_or_default(op),
            ("rename", "index" | "key") => self.rename_key(op),
            ("convert", _) => self.convert(op),
            _ => {
                let r = super::alter_algorithm::operation(op, self.engine)?;
                self.cost(r);
                Ok(())
            }
        }
    }
}

/// CONVERT TO CHARACTER SET `cs` [COLLATE name]: a COLLATE the model follows: none,
/// DEFAULT, or a collation of `cs` when the table has no character column (whose
/// collation would change: not measured). A collation of another set than one named is
/// the parser's error (classify/alter_charset.rs); of another set than DEFAULT's it
/// fails later (1253, measured): not followed.
fn convert_collation(op: &[String], cs: &str, def: &TableDef) -> bool {
    let Some(i) = op.iter().position(|w| w == "collate") else {
        return true;
    };
    let name = match at(op, i + 1) {
        "=" => at(op, i + 2),
        n => n,
    };
    if name == "default" {
        return true;
    }
    let of_cs = match crate::collations::collation(name) {
        Some((_, "")) => crate::collations::collation(&format!("{cs}_{name}")).is_some(),
        Some((_, c)) => c == cs,
        None => false,
    };
    of_cs && !def.cols.iter().any(|c| c.ty.is_text())
}

/// The algorithm of MODIFY / CHANGE of column `old` to `new` (`moved`: FIRST / AFTER);
/// `None`: a change of metadata only (no stored data changes).
fn change_rank(
    def: &TableDef,
    old: &Column,
    new: &Column,
    moved: bool,
    engine: Engine,
) -> Result<Option<usize>, String> {
    let (a, b) = (&old.ty, &new.ty);
    if (a.collation || b.collation)
        && a.base == b.base
        && a.unsigned == b.unsigned
        && a.is_text() == b.is_text()
    {
        // (A type of another kind is copied whatever its collation: below.)
        return Err(
            "MODIFY / CHANGE with BINARY, COLLATE or ZEROFILL (a collation) is not \
                    measured"
                .into(),
        );
    }
    let cs_old = def.charset_of(a);
    let cs_new = def.charset_of(b);
    let same_kind = a.base == b.base && a.unsigned == b.unsigned && cs_old == cs_new;
    let null_rank = if old.not_null == new.not_null {
        None
    } else {
        Some(INPLACE)
    };
    let type_rank = if same_kind && a.args == b.args {
        None
    } else if same_kind && a.base == "varchar" && longer(&a.args, &b.args) {
        match cs_old.as_deref() {
            Some(cs) if single_byte(cs) => Some(INSTANT),
            _ => {
                return Err("a longer VARCHAR of a multi-byte character set is not measured".into())
            }
        }
    } else if same_kind && matches!(a.base.as_str(), "enum" | "set") && appended(a, b) {
        Some(INSTANT)
    } else {
        Some(COPY)
    };
    if engine == Engine::MyIsam {
        // Measured: a position, a longer VARCHAR, NOT NULL: COPY; the same type (a
        // default, a name) and ENUM values added: metadata.
        return Ok(match (type_rank, null_rank) {
            (Some(COPY), _) | (_, Some(_)) => Some(COPY),
            _ if moved => Some(COPY),
            (Some(_), _) if a.base == "varchar" => Some(COPY),
            _ => None,
        });
    }
    Ok(Some(
        type_rank
            .unwrap_or(INSTANT)
            .max(null_rank.unwrap_or(INSTANT)),
    ))
}

/// A BLOB or TEXT type (a key on it needs a prefix length).
fn is_blob(t: &columns::ColType) -> bool {
    t.base.ends_with("blob") || t.base.ends_with("text")
}

/// A key part with a length: `name (n)` inside the key's parentheses.
fn prefixed(op: &[String]) -> bool {
    op.windows(3)
        .any(|w| w[1] == "(" && w[2].parse::<u64>().is_ok() && w[0] != "(")
}

/// `b` is a VARCHAR length greater than `a`'s.
fn longer(a: &[String], b: &[String]) -> bool {
    match (a.first(), b.first()) {
        (Some(x), Some(y)) => match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => y > x,
            _ => false,
        },
        _ => false,
    }
}

/// ENUM / SET values added at the end, in the same storage size (an ENUM of up to 255
/// values is one byte; a SET of n values takes (n+7)/8 bytes, 3 as 4, 5 to 7 as 8).
fn appended(a: &columns::ColType, b: &columns::ColType) -> bool {
    if b.args.len() <= a.args.len() || !b.args.starts_with(&a.args) {
        return false;
    }
    let set_bytes = |n: usize| match n.div_ceil(8) {
        3 => 4,
        5..=7 => 8,
        x => x,
    };
    match a.base.as_str() {
        "enum" => (a.args.len() <= 255) == (b.args.len() <= 255),
        _ => set_bytes(a.args.len()) == set_bytes(b.args.len()),
    }
}

/// Resolves the operations `ops` (alter_algorithm::operations) of an ALTER TABLE of a
/// table `def` of `engine`. `Err`: the model cannot tell.
pub fn resolve(def: &TableDef, ops: &[Vec<String>], engine: Engine) -> Result<Resolved, String> {
    let mut run = Run {
        old: def,
        new: def.clone(),
        engine,
        errors: Vec::new(),
        rank: INSTANT,
        ops: 0,
        touched: Vec::new(),
        added: Vec::new(),
        words: ops.iter().flatten().cloned().collect(),
    };
    for op in ops {
        run.operation(op)?;
    }
    let mut errors = run.errors.clone();
    errors.sort_unstable();
    errors.dedup();
    match errors.as_slice() {
        [] if run.ops == 0 => Ok(Resolved::Nothing),
        [] => Ok(Resolved::Runs(run.rank, Box::new(run.new))),
        [e] => Ok(Resolved::Fails(*e)),
        several => first_error(several).map(Resolved::Fails).ok_or_else(|| {
            "several errors in one ALTER TABLE (the server's order is not modelled)".into()
        }),
    }
}

/// The error the server gives first of several (distinct, sorted) that one ALTER TABLE
/// has, whatever the order of its operations: `mysql_prepare_alter_table` (sql/
/// sql_table.cc) walks the old columns, then the new ones (an unknown column of CHANGE /
/// MODIFY / ALTER COLUMN / AFTER: 1054), then the drops left over (1091), the keys to
/// rename (1176), and the new columns' names (1060); then the new keys' columns (1072);
/// `mysql_prepare_create_table` then the key names (1061) before a blob column's key
/// without a length (1170). Measured on 10.11.19, each pair in both orders, on `(a INT
/// AUTO_INCREMENT PRIMARY KEY, b INT, KEY kb (b))`. ER_MULTIPLE_PRI_KEY (1068) against
/// 1061 or 1170 follows the keys' order (not modelled: None), as do the other errors.
fn first_error(errors: &[u32]) -> Option<u32> {
    const ORDER: [u32; 7] = [
        ER_BAD_FIELD_ERROR,
        ER_CANT_DROP_FIELD_OR_KEY,
        ER_KEY_DOES_NOT_EXITS,
        ER_DUP_FIELDNAME,
        ER_KEY_COLUMN_DOES_NOT_EXIST,
        ER_DUP_KEYNAME,
        ER_BLOB_KEY_WITHOUT_LENGTH,
    ];
    let rank = |e: &u32| ORDER.iter().position(|o| o == e);
    let first = errors
        .iter()
        .copied()
        .min_by_key(|e| rank(e).unwrap_or(usize::MAX))?;
    let late = [ER_DUP_KEYNAME, ER_BLOB_KEY_WITHOUT_LENGTH];
    let known = errors
        .iter()
        .all(|e| rank(e).is_some() || *e == ER_MULTIPLE_PRI_KEY);
    // 1068 is ordered only behind the errors of mysql_prepare_alter_table.
    let pk_after = !errors.contains(&ER_MULTIPLE_PRI_KEY) || !late.contains(&first);
    (known && pk_after && rank(&first).is_some()).then_some(first)
}
