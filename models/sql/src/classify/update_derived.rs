//! The derived tables and subqueries of a multi-table UPDATE's table list
//! (`UPDATE (SELECT a FROM t1) dt JOIN t1 t ON ... SET t.a = 1`): their tables are read.
//!
//! MariaDB sql/sql_yacc.yy `update`: `Select->set_lock_for_tables($3, ...)` gives the
//! write lock (TL_WRITE_DEFAULT, MDL_SHARED_WRITE) to the tables of the UPDATE's own
//! SELECT_LEX, the names of its join list; a derived table's query is a SELECT_LEX of
//! its own, whose tables keep the read lock of the parser (MDL_SHARED_READ), and
//! `mysql_multi_update_prepare` (sql/sql_update.cc) materializes a derived table that
//! reads a table the statement updates (`unique_table` / `TABLE_LIST::set_materialized_derived`)
//! rather than merge it. So a table only in a derived table holds SR; one both in a
//! derived table and updated holds SR and SW when the derived table comes first in the
//! list, and only SW when it comes after (`open_tables` asks the MDL of each table in
//! the order they were parsed, and a request finds the stronger ticket the session
//! already has: `MDL_context::find_ticket`, sql/mdl.cc). Measured on 10.11.19:
//! `suite/update-derived-reads.mdl`, from main/cte_nonrecursive.test:1970.

use super::{from_tables, Tbl, Tok};

/// ER_NON_UPDATABLE_TABLE: a SET of a derived table's column (`mysql_multi_update_prepare`:
/// a derived table is not `single_table_updatable`; measured on 10.11.19, after the
/// locks of the other tables, and before any lock when the list has no table).
pub(super) const ER_NON_UPDATABLE_TABLE: u32 = 1288;

/// An UPDATE's table list split by [`split`].
pub(super) struct Split {
    /// The list with each query in parentheses written as `dual` (no table; its alias
    /// kept).
    pub(super) list: Vec<Tok>,
    /// The tables those queries read, each with the number of the list's own tables
    /// named before it (the tables are opened, and their MDL asked, in the order they
    /// were parsed: `open_tables` along `next_global`).
    pub(super) read: Vec<(usize, Tbl)>,
    /// The derived tables' aliases.
    pub(super) aliases: Vec<String>,
}

/// Splits the UPDATE's table list (the tokens between UPDATE's options and SET).
pub(super) fn split(toks: &[Tok], db: &str) -> Result<Split, String> {
    let mut list = Vec::with_capacity(toks.len());
    let mut read = Vec::new();
    let mut aliases = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] != Tok::P('(') || !super::query_ctes::starts_query(toks, i) {
            list.push(toks[i].clone());
            i += 1;
            continue;
        }
        let len = super::lex::matching_paren(toks, i)
            .ok_or_else(|| "a query's parenthesis is not closed".to_string())?
            - i;
        let mut head = vec![Tok::Word {
            text: "update".into(),
            quoted: false,
        }];
        head.extend(list.iter().cloned());
        let before = super::from_tables_aliased(&head, db)?.len();
        for t in from_tables(&toks[i..=i + len], db)? {
            read.push((before, t));
        }
        list.push(Tok::Word {
            text: "dual".into(),
            quoted: false,
        });
        i += len + 1;
        aliases.extend(super::tables::alias_at(toks, i).0);
    }
    Ok(Split {
        list,
        read,
        aliases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str) -> Tbl {
        Tbl {
            db: "test".into(),
            name: name.into(),
        }
    }

    #[test]
    fn a_derived_tables_tables_are_read() {
        let toks = super::super::tokens(
            "update (select a from t1 where a in (select a from t2)) dt join t1 t on t.a = dt.a",
        )
        .unwrap();
        let s = split(&toks[1..], "test").unwrap();
        assert_eq!(s.read, vec![(0, t("t1")), (0, t("t2"))]);
        assert_eq!(s.aliases, vec!["dt".to_string()]);
        let mut list = vec![toks[0].clone()];
        list.extend(s.list);
        let written = super::super::from_tables_aliased(&list, "test").unwrap();
        assert_eq!(written, vec![(t("t1"), Some("t".into()))]);
    }
}
