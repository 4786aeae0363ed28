//! Variables anchored to a table, a cursor or another variable (MDEV-12461, MariaDB 10.3+;
//! sql/sql_yacc.yy `sp_decl_variable_list_anchored`: `DECLARE v TYPE OF t.c`,
//! `DECLARE r ROW TYPE OF t`, `DECLARE r ROW TYPE OF cursor_name`, `DECLARE w TYPE OF v`).
//!
//! When their tables are opened (sql/sp_rcontext.cc): `sp_rcontext::create`, called as
//! the routine starts (`sp_head::rcontext_create` from `sp_head::execute_procedure` /
//! `execute_function`), resolves every anchored variable of the routine, in all its
//! blocks, before the first instruction runs: first the `TYPE OF t.c` ones
//! (`resolve_type_refs` → `resolve_type_ref`), then the `ROW TYPE OF t` ones
//! (`init_var_items` → `resolve_table_rowtype_ref`). Each opens its table on a backed-up
//! open-tables state (`reset_n_backup_open_tables_state`) with
//! `open_tables_only_view_structure` (sql/sql_base.cc: MDL_SHARED_HIGH_PRIO,
//! `MYSQL_OPEN_FAIL_ON_MDL_CONFLICT` when the session already holds locks), and gives
//! the lock back at once (`restore_backup_open_tables_state` rolls back to the MDL
//! savepoint): the same path as `SHOW COLUMNS FROM t` (`fill_schema_table_by_open`).
//! A temporary table of the name shadows the base table. A missing table is
//! ER_NO_SUCH_TABLE, a missing column ER_BAD_FIELD_ERROR, both when the routine starts,
//! before any of its statements, whatever the block that declares the variable.
//!
//! Measured on 10.11.19 (suite/sp-anchor-type-locks.mdl): a CALL whose first statement
//! waits before the block declaring `TYPE OF t9.a` fails at once with 1146; while a CALL
//! sits in a later statement nothing is held on the anchored table (in autocommit and
//! inside BEGIN); its SHARED_HIGH_PRIO shows PENDING behind another session's X
//! (a RENAME that waits for its second table); a stored function, whose statement holds
//! locks, gets ER_WARN_I_S_SKIPPED_TABLE (1684) there instead of waiting.
//!
//! The model plays each table anchor as a `SHOW COLUMNS FROM t` instruction before the
//! body (the learned `show_columns` row: no lock kept, 1146 on a missing table, temporary
//! tables first), and ER_BAD_FIELD_ERROR when the catalog knows the base table's columns
//! and the column is not one of them. Not modelled (as for SHOW COLUMNS): the wait for,
//! or the 1684 on, another session's X lock (the model keeps no momentary lock).
//!
//! `ROW TYPE OF cursor` is resolved where it is declared (`sp_instr_cursor_copy_struct::
//! exec_core`, sql/sp_head.cc: the cursor's SELECT is opened to read its columns): the
//! compiler runs the cursor's SELECT there as a statement (`routine_flow.rs`).

use super::routine_program::Instr;
use super::{kw_eq, Tok};
use crate::catalog::Catalog;
use crate::objects::Tbl;

/// ER_BAD_FIELD_ERROR (`resolve_type_ref`: the column is not in the table).
pub const ER_BAD_FIELD_ERROR: u32 = 1054;

/// What a DECLARE's type is anchored to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Anchor {
    /// `TYPE OF [db.]t.c`.
    Column {
        db: Option<String>,
        t: String,
        c: String,
    },
    /// `ROW TYPE OF [db.]t`.
    Row { db: Option<String>, t: String },
    /// `ROW TYPE OF c` of a cursor the routine declares.
    Cursor(String),
    /// `TYPE OF v` (or `TYPE OF r.f` of a declared variable): no table.
    Variable,
}

fn word(t: Option<&Tok>) -> Option<String> {
    match t? {
        Tok::Word { text, .. } => Some(text.clone()),
        _ => None,
    }
}

/// A dotted name of up to `max` parts at `s[i..]`: the parts and the index after them.
fn dotted(s: &[Tok], i: usize, max: usize) -> Option<(Vec<String>, usize)> {
    let mut parts = vec![word(s.get(i))?];
    let mut k = i + 1;
    while s.get(k) == Some(&Tok::P('.')) && parts.len() < max {
        parts.push(word(s.get(k + 1))?);
        k += 2;
    }
    Some((parts, k))
}

/// The anchored type at `s[i..]` (`TYPE OF a[.b[.c]]`, `ROW TYPE OF a[.b]`), read
/// against `cursors` and `vars`, the names the routine declares: the anchor and the
/// index after it. None when `s[i..]` is no anchored type.
pub(super) fn anchored_type(
    s: &[Tok],
    i: usize,
    cursors: &[String],
    vars: &[String],
) -> Option<(Anchor, usize)> {
    let at = |k: usize, w: &str| s.get(k).is_some_and(|t| kw_eq(t, w));
    let declared = |n: &str, names: &[String]| names.iter().any(|x| x.eq_ignore_ascii_case(n));
    if at(i, "row") && at(i + 1, "type") && at(i + 2, "of") {
        let (p, k) = dotted(s, i + 3, 2)?;
        let a = match p.as_slice() {
            [c] if declared(c, cursors) => Anchor::Cursor(c.to_lowercase()),
            [t] => Anchor::Row {
                db: None,
                t: t.clone(),
            },
            [d, t] => Anchor::Row {
                db: Some(d.clone()),
                t: t.clone(),
            },
            _ => return None,
        };
        return Some((a, k));
    }
    if at(i, "type") && at(i + 1, "of") {
        let (p, k) = dotted(s, i + 2, 3)?;
        let a = match p.as_slice() {
            [_] => Anchor::Variable,
            [v, _] if declared(v, vars) => Anchor::Variable,
            [t, c] => Anchor::Column {
                db: None,
                t: t.clone(),
                c: c.clone(),
            },
            [d, t, c] => Anchor::Column {
                db: Some(d.clone()),
                t: t.clone(),
                c: c.clone(),
            },
            _ => return None,
        };
        return Some((a, k));
    }
    None
}

/// The names a definition DECLAREs (`DECLARE a, b ...`), and those of its cursors
/// (`DECLARE c CURSOR ...`).
pub(super) fn declared_names(def: &[Tok]) -> (Vec<String>, Vec<String>) {
    let (mut vars, mut cursors) = (Vec::new(), Vec::new());
    for (i, t) in def.iter().enumerate() {
        if !kw_eq(t, "declare") {
            continue;
        }
        let mut k = i + 1;
        while let Some(n) = word(def.get(k)) {
            if def.get(k + 1).is_some_and(|x| kw_eq(x, "cursor")) {
                cursors.push(n.to_lowercase());
            } else {
                vars.push(n.to_lowercase());
            }
            if def.get(k + 1) != Some(&Tok::P(',')) {
                break;
            }
            k += 2;
        }
    }
    (vars, cursors)
}

/// Every table anchor of a routine's definition (parameters and all blocks), in the
/// order `sp_rcontext::create` resolves them: the `TYPE OF t.c` ones, then the
/// `ROW TYPE OF t` ones.
pub(super) fn table_anchors(def: &[Tok]) -> Vec<Anchor> {
    let (vars, cursors) = declared_names(def);
    let mut cols = Vec::new();
    let mut rows = Vec::new();
    let mut i = 0;
    while i < def.len() {
        let after_row = i > 0 && kw_eq(&def[i - 1], "row");
        match anchored_type(def, i, &cursors, &vars) {
            Some((a @ Anchor::Column { .. }, k)) if !after_row => {
                cols.push(a);
                i = k;
            }
            Some((a @ Anchor::Row { .. }, k)) => {
                rows.push(a);
                i = k;
            }
            Some((_, k)) => i = k,
            None => i += 1,
        }
    }
    cols.extend(rows);
    cols
}

fn table_of(db: &Option<String>, t: &str, home: &str) -> Tbl {
    Tbl {
        db: db.clone().unwrap_or_else(|| home.to_owned()),
        name: t.to_owned(),
    }
}

fn dotted_name(db: &Option<String>, t: &str) -> String {
    match db {
        Some(d) => format!("{d}.{t}"),
        None => t.to_owned(),
    }
}

/// `SHOW COLUMNS FROM t` for each table anchor of `def` (the statement whose locks
/// resolving it takes).
pub(super) fn show_columns(def: &[Tok]) -> Vec<String> {
    table_anchors(def)
        .iter()
        .filter_map(|a| match a {
            Anchor::Column { db, t, .. } | Anchor::Row { db, t } => {
                Some(format!("SHOW COLUMNS FROM {}", dotted_name(db, t)))
            }
            _ => None,
        })
        .collect()
}

/// The instructions that resolve a routine's table anchors as it starts (see the
/// module's comment): `SHOW COLUMNS FROM t` per anchor, and ER_BAD_FIELD_ERROR after
/// the first whose column the catalog's base table does not have. `home`: the
/// routine's schema.
pub(super) fn start_instrs(def: &[Tok], cat: &Catalog, home: &str) -> Vec<Instr> {
    let mut out = Vec::new();
    for a in table_anchors(def) {
        let (db, t) = match &a {
            Anchor::Column { db, t, .. } | Anchor::Row { db, t } => (db, t),
            _ => continue,
        };
        out.push(Instr::Stmt {
            sql: format!("SHOW COLUMNS FROM {}", dotted_name(db, t)),
            into: Vec::new(),
        });
        if let Anchor::Column { c, .. } = &a {
            let known = cat.columns(&table_of(db, t, home));
            if known.is_some_and(|d| d.col(c).is_none()) {
                out.push(Instr::Raise {
                    code: ER_BAD_FIELD_ERROR,
                    state: "42S22".into(),
                });
                break;
            }
        }
    }
    out
}

/// Why a statement calling stored function `f` (definition `def`) is refused for its
/// anchors: a table anchor whose table or column the catalog does not hold (the server's
/// 1146 / 1054 come when the function starts, after the statement's prelocking, which
/// the model does not play). None when every anchored table and column is there (their
/// SHARED_HIGH_PRIO is given back at once: nothing to add to the statement).
pub(super) fn function_refusal(def: &[Tok], cat: &Catalog, home: &str) -> Option<String> {
    table_anchors(def).into_iter().find_map(|a| {
        let (db, t, c) = match &a {
            Anchor::Column { db, t, c } => (db, t, Some(c)),
            Anchor::Row { db, t } => (db, t, None),
            _ => return None,
        };
        let tbl = table_of(db, t, home);
        // A column is checked when the catalog knows the table's definition.
        let there = cat.exists(&tbl)
            && c.is_none_or(|c| cat.columns(&tbl).is_none_or(|d| d.col(c).is_some()));
        (!there).then(|| {
            format!(
                "a variable of the stored function anchored to `{t}` (TYPE OF / ROW TYPE OF), \
                 a table or column the catalog does not hold (the error after the prelocking, \
                 or a temporary table, is not modelled)"
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn at(sql: &str) -> Option<(Anchor, usize)> {
        let c = ["cur".to_owned()];
        let v = ["rec".to_owned()];
        anchored_type(&tokens(sql).unwrap(), 0, &c, &v)
    }

    /// The shapes of main/sp-anchor-type.test and sp-anchor-row-type-*.test.
    #[test]
    fn anchored_types_are_read() {
        let col = |db: Option<&str>| Anchor::Column {
            db: db.map(str::to_owned),
            t: "t1".into(),
            c: "a".into(),
        };
        assert_eq!(at("TYPE OF t1.a DEFAULT 1"), Some((col(None), 5)));
        assert_eq!(at("TYPE OF test.t1.a"), Some((col(Some("test")), 7)));
        assert_eq!(at("TYPE OF v"), Some((Anchor::Variable, 3)));
        assert_eq!(at("TYPE OF rec.a"), Some((Anchor::Variable, 5)));
        let row = Anchor::Row {
            db: None,
            t: "t1".into(),
        };
        assert_eq!(at("ROW TYPE OF t1"), Some((row, 4)));
        assert_eq!(
            at("ROW TYPE OF cur"),
            Some((Anchor::Cursor("cur".into()), 4))
        );
        assert_eq!(at("INT"), None);
        assert_eq!(at("TYPE OF"), None);
    }

    #[test]
    fn anchors_resolve_columns_first() {
        let def = tokens(
            "() BEGIN DECLARE r ROW TYPE OF t2; DECLARE c CURSOR FOR SELECT 1; \
             BEGIN DECLARE a TYPE OF t1.a; DECLARE s ROW TYPE OF c; DECLARE b TYPE OF a; END; END",
        )
        .unwrap();
        let a = table_anchors(&def);
        assert_eq!(a.len(), 2);
        assert!(matches!(&a[0], Anchor::Column { t, .. } if t == "t1"));
        assert!(matches!(&a[1], Anchor::Row { t, .. } if t == "t2"));
    }

    #[test]
    fn start_instructions_name_the_tables() {
        let cat = Catalog::fixture();
        let def = tokens("() BEGIN DECLARE a TYPE OF t1.a; DECLARE z TYPE OF t1.zz; END").unwrap();
        let code = start_instrs(&def, &cat, "test");
        assert_eq!(code.len(), 3);
        assert!(matches!(&code[0], Instr::Stmt { sql, .. } if sql == "SHOW COLUMNS FROM t1"));
        assert!(matches!(
            &code[2],
            Instr::Raise {
                code: ER_BAD_FIELD_ERROR,
                ..
            }
        ));
        assert!(function_refusal(&def, &cat, "test").is_some());
        let ok = tokens("() RETURNS INT BEGIN DECLARE a TYPE OF t1.b; RETURN 1; END").unwrap();
        assert!(function_refusal(&ok, &cat, "test").is_none());
    }
}
