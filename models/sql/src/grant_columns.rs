//! Column privileges of GRANT / REVOKE (`GRANT SELECT (a, b), UPDATE (a) ON t TO u`):
//! what MariaDB 10.11 does (sql/sql_acl.cc, `mysql_table_grant`):
//!
//! - GRANT with a column list opens the table with `open_normal_and_derived_tables`
//!   (after the statement's implicit commit, before the grant tables) to check each
//!   column (`find_field_in_table_ref`): a missing table is ER_NO_SUCH_TABLE whatever the
//!   privileges (the CREATE exception of `ha_table_exists` is the other branch), a missing
//!   column ER_BAD_FIELD_ERROR; its locks are the learned `account_column` row;
//! - REVOKE does not open the table (the `!revoke_grant` branch only); a column privilege
//!   the user was not given is ER_NONEXISTING_TABLE_GRANT (`replace_column_table`).
//!
//! A column privilege is kept in the user's table row as `priv (col)`.

use crate::catalog::{Catalog, ER_NO_SUCH_TABLE};
use crate::effect::{Accounts, Effect};
use crate::grants::{GrantOp, Level, Privs};
use crate::kind::Kind;
use crate::objects::Tbl;
use crate::stmt::{Bind, Plan, Stmt};

/// The privileges a column list may name (sql/privilege.h, COL_ACLS).
const COLUMN_PRIVS: &[&str] = &["select", "insert", "update", "references"];

/// `w` split at the commas outside parentheses.
pub(crate) fn items(w: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, x) in w.iter().enumerate() {
        match x.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            "," if depth == 0 => {
                out.push(&w[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&w[start..]);
    out
}

/// A privilege item with a column list (`select ( a , b )`) into `p` as `select (a)`,
/// `select (b)`; Err for a privilege that has no column form or a list it does not read.
pub(crate) fn column_item(sql: &str, item: &[String], p: &mut Privs) -> Result<(), String> {
    let open = item.iter().position(|x| x == "(").unwrap_or(item.len());
    let name = item[..open].join(" ");
    let bad = || {
        format!(
            "`{sql}`: the column privilege `{}` is not modelled",
            item.join(" ")
        )
    };
    if !COLUMN_PRIVS.contains(&name.as_str()) || item.last().map(String::as_str) != Some(")") {
        return Err(bad());
    }
    let cols = &item[open + 1..item.len() - 1];
    for c in cols.split(|x| x == ",") {
        match c {
            [col] if col != "(" && col != ")" => {
                p.columns
                    .insert(format!("{name} ({})", col.to_ascii_lowercase()));
            }
            _ => return Err(bad()),
        }
    }
    Ok(())
}

/// The columns a set of column privileges names (`select (a)` → `a`).
pub(crate) fn column_names(p: &Privs) -> impl Iterator<Item = &str> {
    p.columns
        .iter()
        .filter_map(|c| c.split_once(" (").map(|(_, col)| col.trim_end_matches(')')))
}

/// ER_BAD_FIELD_ERROR.
const ER_BAD_FIELD_ERROR: u32 = 1054;

/// The error of GRANT's open of `t` for its column list, or none; Err for a table the
/// model does not open this way (a view opens its own tables; a system schema's table
/// is the server's).
pub(crate) fn open_error(
    sql: &str,
    t: &Tbl,
    p: &Privs,
    cat: &Catalog,
) -> Result<Option<u32>, String> {
    if cat.is_view(t) || crate::objects::is_system_schema(&t.db) {
        return Err(format!(
            "`{sql}`: a column privilege on `{t}` (a view or a system table) is not modelled"
        ));
    }
    if !cat.exists(t) {
        return Ok(Some(ER_NO_SUCH_TABLE));
    }
    let Some(def) = cat.columns(t) else {
        return Ok(None);
    };
    let known = |c: &str| def.cols.iter().any(|d| d.name.eq_ignore_ascii_case(c));
    Ok(column_names(p)
        .any(|c| !known(c))
        .then_some(ER_BAD_FIELD_ERROR))
}

/// The table a GRANT opens for its column list: a GRANT (not REVOKE) with column
/// privileges on a table that exists (a missing one fails before any lock of it, played
/// as the `account` row's error as the other GRANT errors are).
pub(crate) fn opened(op: &GrantOp) -> Option<Tbl> {
    match &op.level {
        Level::Table(t)
            if !op.revoke
                && !op.privs.columns.is_empty()
                && op.missing != Some(ER_NO_SUCH_TABLE) =>
        {
            Some(t.clone())
        }
        _ => None,
    }
}

/// GRANT with a column list as the learned `account_column` row on its table, with
/// `effect` on the accounts.
pub(crate) fn plan(effect: Accounts, t: Tbl) -> Stmt {
    let bind = Bind {
        t: Some(t),
        ..Bind::default()
    };
    Stmt::Learned(Plan::single(
        Kind::AccountColumn,
        bind,
        Effect::Accounts(effect),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_column_list_is_split_and_kept_per_column() {
        let ws = w("select ( a , b ) , update");
        let it = items(&ws);
        assert_eq!(it.len(), 2);
        let mut p = Privs::default();
        column_item("x", it[0], &mut p).unwrap();
        assert!(p.columns.contains("select (a)") && p.columns.contains("select (b)"));
        assert_eq!(column_names(&p).collect::<Vec<_>>(), vec!["a", "b"]);
        assert!(column_item("x", &w("drop ( a )"), &mut p).is_err());
    }
}
