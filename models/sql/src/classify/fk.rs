//! Foreign keys (InnoDB's, as MariaDB 10.11 locks them).
//!
//! - `CREATE TABLE child (..., FOREIGN KEY (c) REFERENCES parent (p) [ON DELETE a] [ON
//!   UPDATE a])` of an InnoDB child and parent records the key in the catalog
//!   ([`ForeignKey`]; a MyISAM child's clause is parsed and ignored by the server). A
//!   parent that is not an InnoDB table of the catalog: ER_CANT_CREATE_TABLE after the
//!   locks, no table made (`catalog/fks.rs`); CREATE OR REPLACE: `classify/fk_replace.rs`;
//!   a CHECK or stored generated column over a column the key's action changes:
//!   `classify/fk_vcol.rs`.
//! - DML that writes a parent prelocks each child (`sql/sql_base.cc`:
//!   `DML_prelocking_strategy::handle_table` → `prepare_fk_prelocking_list`): SR when the
//!   statement's operation only checks the child (RESTRICT / NO ACTION, and every INSERT),
//!   SW when it changes it (CASCADE / SET NULL of its DELETE or UPDATE). Learned rows
//!   `fk_{insert,update,delete}_parent[_cascade]` (child `$n`). DML on a child takes no
//!   lock on its parent (learned: `fk_*_child` equal to the plain rows).
//! - `DROP TABLE` of a parent alone: the plain DROP's locks, then
//!   ER_ROW_IS_REFERENCED_2 (learned: `fk_drop_parent`).
//!
//! Not modelled (refused by name): a parent in a statement writing several tables, REPLACE
//! or ON DUPLICATE KEY UPDATE of a parent, a parent with several children or whose child
//! is a parent, a self-reference, LOCK TABLES / ALTER / TRUNCATE / RENAME of a table with
//! a foreign key, DROP TABLE of a parent with other tables, ALTER TABLE ... ADD FOREIGN KEY.

use super::{kw_eq, Catalog, Effect, Plan, Stmt, Tbl, Tok};
use crate::kind::Kind;
pub use crate::objects::ForeignKey;

/// ER_ROW_IS_REFERENCED_2: DROP TABLE of a parent.
pub const ER_ROW_IS_REFERENCED_2: u32 = 1451;

/// The foreign keys of `CREATE TABLE child ...` (its tokens), none when it has none.
pub(super) fn create_fks(
    sql: &str,
    toks: &[Tok],
    child: &Tbl,
    db: &str,
) -> Result<Vec<ForeignKey>, String> {
    if super::fk_vcol::refused_by_server(toks) {
        // The server's 1901 (`classify/fk_vcol.rs`), not played.
        return Err(format!(
            "`{sql}`: a CHECK or stored generated column over a column a foreign key's \
             action changes (the server's 1901) is not modelled"
        ));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if !kw_eq(&toks[i], "references") {
            i += 1;
            continue;
        }
        let name = |k: usize| match toks.get(k) {
            Some(Tok::Word { text, .. }) => Some(text.clone()),
            _ => None,
        };
        let a = name(i + 1).ok_or_else(|| format!("`{sql}`: no table after REFERENCES"))?;
        let (parent, mut j) = if toks.get(i + 2) == Some(&Tok::P('.')) {
            let b = name(i + 3).ok_or_else(|| format!("`{sql}`: no table after REFERENCES"))?;
            (Tbl { db: a, name: b }, i + 4)
        } else {
            (
                Tbl {
                    db: db.to_owned(),
                    name: a,
                },
                i + 2,
            )
        };
        // (cols)
        while j < toks.len() && toks[j] != Tok::P(')') {
            j += 1;
        }
        j += 1;
        let mut fk = ForeignKey {
            child: child.clone(),
            parent: parent.clone(),
            delete_modifies: false,
            update_modifies: false,
        };
        while kw_eq_at(toks, j, "on") {
            let on_delete = kw_eq_at(toks, j + 1, "delete");
            if !on_delete && !kw_eq_at(toks, j + 1, "update") {
                break;
            }
            let modifies = if kw_eq_at(toks, j + 2, "cascade") {
                j += 3;
                true
            } else if kw_eq_at(toks, j + 2, "set") && kw_eq_at(toks, j + 3, "null") {
                j += 4;
                true
            } else if kw_eq_at(toks, j + 2, "restrict") {
                j += 3;
                false
            } else if kw_eq_at(toks, j + 2, "no") && kw_eq_at(toks, j + 3, "action") {
                j += 4;
                false
            } else {
                return Err(format!("`{sql}`: this foreign key action is not modelled"));
            };
            if on_delete {
                fk.delete_modifies = modifies;
            } else {
                fk.update_modifies = modifies;
            }
        }
        if parent == *child {
            // A key to the table itself: its DML prelocks the table it already holds (a
            // lock of the same duration, no new ticket: `MDL_context::find_ticket`), and
            // DROP / TRUNCATE ignore a self-reference (`fk_truncate_illegal_if_parent`,
            // sql/sql_truncate.cc): not kept in the catalog (measured on 10.11.19:
            // `suite/fk-myisam-parent.mdl`). ALTER ... ADD of one is refused
            // (`classify/fk_alter.rs`: no other parent).
            i = j;
            continue;
        }
        if [&parent.db, &parent.name]
            .iter()
            .any(|n| n.ends_with(' ') || n.is_empty())
        {
            // A name the server refuses (ER_WRONG_DB_NAME / ER_WRONG_TABLE_NAME, 1102 /
            // 1103: main/grant5.test's `db1 `.t1), at a point not measured.
            return Err(format!(
                "`{sql}`: a foreign key to `{parent}`, a name the server refuses, is not \
                 modelled"
            ));
        }
        // A parent that is not an InnoDB table of the catalog (missing, MyISAM, a view):
        // InnoDB's ER_CANT_CREATE_TABLE once the locks are taken (`catalog/fks.rs`).
        out.push(fk);
        i = j;
    }
    Ok(out)
}

fn kw_eq_at(toks: &[Tok], i: usize, kw: &str) -> bool {
    toks.get(i).is_some_and(|t| kw_eq(t, kw))
}

/// A table with a foreign key (parent or child) in a statement that is not modelled for
/// them; DML writing a parent gets its child's prelocking row.
pub(super) fn apply(
    sql: &str,
    toks: &[Tok],
    db: &str,
    cat: &Catalog,
    st: Stmt,
) -> Result<Stmt, String> {
    let Stmt::Learned(mut plan) = st else {
        return Ok(st);
    };
    let missing = matches!(&plan.effect, Effect::Alter { t, .. } if !cat.exists(t));
    // (GRANT's REFERENCES privilege is no foreign key: `grant_columns.rs`.)
    if plan.kind == Kind::FkAddCopy
        || matches!(plan.effect, Effect::WithFks(..))
        // (An ALTER that fails on its columns first: `classify/fk_alter.rs`.)
        || matches!(
            plan.effect,
            Effect::Alter {
                cols: crate::effect::AlterCols::Fail(_),
                ..
            }
        )
        || missing
        || matches!(plan.kind, Kind::Account | Kind::AccountColumn)
    {
        // ALTER TABLE ... ADD FOREIGN KEY (`classify/fk_alter.rs`); an ALTER of a table
        // that is not there fails at its open (1146) whatever its foreign keys.
        return Ok(Stmt::Learned(plan));
    }
    if toks.iter().any(|t| kw_eq(t, "references")) {
        let Effect::CreateTable { t, engine, .. } = &plan.effect else {
            return Err(format!(
                "`{sql}`: foreign keys outside CREATE TABLE are not modelled"
            ));
        };
        if plan.kind != Kind::CreateTable {
            return Err(format!(
                "`{sql}`: foreign keys in CREATE TABLE ... LIKE / SELECT are not modelled"
            ));
        }
        if *engine != super::Engine::InnoDb {
            // The server parses a MyISAM table's foreign keys and ignores them.
            return Ok(Stmt::Learned(plan));
        }
        let fks = create_fks(sql, toks, t, db)?;
        plan.effect = Effect::WithFks(Box::new(plan.effect), fks);
        return Ok(Stmt::Learned(plan));
    }
    let named: Vec<Tbl> = plan
        .parts
        .iter()
        .flat_map(|p| p.bind.tables())
        .cloned()
        .collect();
    if !named.iter().any(|t| cat.has_fk(t)) {
        return Ok(Stmt::Learned(plan));
    }
    let refuse = |what: &str| -> Result<Stmt, String> {
        Err(format!(
            "`{sql}`: {what} of a table with a foreign key is not modelled"
        ))
    };
    match plan.kind {
        Kind::Select
        | Kind::SelectShare
        | Kind::SelectForUpdate
        | Kind::HandlerOpen
        | Kind::ShowCreate
        | Kind::ShowColumns
        | Kind::CreateSelect
        | Kind::CreateLike => Ok(Stmt::Learned(plan)),
        Kind::Insert | Kind::Update | Kind::Delete => {
            dml(sql, cat, &mut plan)?;
            Ok(Stmt::Learned(plan))
        }
        Kind::Drop => {
            let Effect::DropTables { ts, .. } = &plan.effect else {
                return refuse("DROP");
            };
            let parents: Vec<&Tbl> = ts.iter().filter(|t| cat.is_parent(t)).collect();
            if parents.is_empty() {
                return Ok(Stmt::Learned(plan));
            }
            if ts.len() > 1 {
                return refuse("DROP TABLE of several tables, one a parent,");
            }
            plan.effect = Effect::Fail(ER_ROW_IS_REFERENCED_2);
            Ok(Stmt::Learned(plan))
        }
        // LOCK TABLES / FLUSH TABLES ... WITH READ LOCK of a child: no prelocking (only
        // a parent opened for writing prelocks its children); of a parent: not modelled.
        k if (k.is_lock_tables() || k == Kind::FtwrlTable)
            && !named.iter().any(|t| cat.is_parent(t)) =>
        {
            Ok(Stmt::Learned(plan))
        }
        k => refuse(&k.as_str().to_ascii_uppercase()),
    }
}

/// INSERT / UPDATE / DELETE: a written parent's part becomes its `fk_*_parent` row.
fn dml(sql: &str, cat: &Catalog, plan: &mut Plan) -> Result<(), String> {
    let kind = plan.kind;
    let words = sql.to_ascii_lowercase();
    let written: Vec<usize> = plan
        .parts
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == kind)
        .map(|(i, _)| i)
        .collect();
    for &i in &written {
        let Some(t) = plan.parts[i].bind.t.clone() else {
            continue;
        };
        if !cat.is_parent(&t) {
            continue;
        }
        if written.len() > 1 {
            return Err(format!(
                "`{sql}`: a statement writing several tables, one a parent of a foreign \
                 key, is not modelled"
            ));
        }
        if words.starts_with("replace") || words.contains("duplicate") {
            return Err(format!(
                "`{sql}`: REPLACE / ON DUPLICATE KEY UPDATE of a parent of a foreign key \
                 is not modelled"
            ));
        }
        let kids = cat.children_of(&t);
        let [fk] = kids.as_slice() else {
            return Err(format!(
                "`{sql}`: a parent with {} foreign keys is not modelled (one)",
                kids.len()
            ));
        };
        if cat.is_parent(&fk.child) || cat.engine(&t) != Some(super::Engine::InnoDb) {
            return Err(format!("`{sql}`: a chain of foreign keys is not modelled"));
        }
        let row = match kind {
            Kind::Update if fk.update_modifies => Kind::FkUpdateParentCascade,
            Kind::Delete if fk.delete_modifies => Kind::FkDeleteParentCascade,
            Kind::Insert => Kind::FkInsertParent,
            Kind::Update => Kind::FkUpdateParent,
            Kind::Delete => Kind::FkDeleteParent,
            k => {
                return Err(format!(
                    "`{sql}`: {k} of a parent of a foreign key is not modelled"
                ))
            }
        };
        let p = &mut plan.parts[i];
        p.row = row.as_str().to_owned();
        p.kind = row;
        p.bind.n = Some(fk.child.clone());
    }
    Ok(())
}
