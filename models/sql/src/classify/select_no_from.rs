//! A SELECT with no FROM anywhere that names a column of a table (`SELECT local.x`,
//! `SELECT t1.a`): no table is in its lists, so the name's table is unknown,
//! ER_UNKNOWN_TABLE (1109) from `find_field_in_tables` (sql/sql_base.cc) while the select
//! list is fixed; the statement opens no table and takes no lock, and SELECT commits
//! nothing. Measured on 10.11.19 inside a transaction that holds a table's SR:
//! `models/conformance/suite/select-unknown-table-qualifier.mdl` (from
//! suite/sys_vars/t/automatic_sp_privileges_basic.test:156, long_query_time_basic.test:172,
//! net_read_timeout_basic.test:188, which write `SELECT local.var` for `@@local.var`).
//!
//! Only the plain shape is followed: the statement starts with SELECT, has no FROM, no
//! sequence function (`NEXT VALUE FOR s.q`) and no `(` after the qualified name (a
//! stored function of a schema, `db.f()`); `@@local.x` is one word, a variable.

use super::{kw_eq, Tok};

pub const ER_UNKNOWN_TABLE: u32 = 1109;

/// ER_UNKNOWN_TABLE for `SELECT q.name ...` with no FROM, or None.
pub fn error(toks: &[Tok]) -> Option<u32> {
    if !kw_eq(toks.first()?, "select") {
        return None;
    }
    const NOT_FOLLOWED: &[&str] = &["from", "for", "nextval", "lastval", "setval", "into"];
    if toks
        .iter()
        .any(|t| NOT_FOLLOWED.iter().any(|w| kw_eq(t, w)))
    {
        return None;
    }
    let name = |t: &Tok| matches!(t, Tok::Word { text, .. } if !text.starts_with('@'));
    toks.windows(4)
        .find_map(|w| {
            let qualified = name(&w[0]) && w[1] == Tok::P('.') && name(&w[2]);
            (qualified && w[3] != Tok::P('(') && w[3] != Tok::P('.')).then_some(ER_UNKNOWN_TABLE)
        })
        .or_else(|| {
            // The qualified name at the very end of the statement.
            let n = toks.len();
            (n >= 3 && name(&toks[n - 3]) && toks[n - 2] == Tok::P('.') && name(&toks[n - 1]))
                .then_some(ER_UNKNOWN_TABLE)
        })
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn err(sql: &str) -> Option<u32> {
        error(&tokens(sql).unwrap())
    }

    #[test]
    fn a_qualified_column_with_no_from() {
        assert_eq!(
            err("SELECT local.automatic_sp_privileges"),
            Some(ER_UNKNOWN_TABLE)
        );
        assert_eq!(
            err("SELECT session.net_read_timeout = 1, 2"),
            Some(ER_UNKNOWN_TABLE)
        );
        assert_eq!(err("SELECT @@local.long_query_time"), None);
        assert_eq!(err("SELECT test.f1()"), None);
        assert_eq!(err("SELECT t1.a FROM t1"), None);
        assert_eq!(err("SELECT NEXT VALUE FOR test.s1"), None);
        assert_eq!(err("SELECT 1.5, 'a.b'"), None);
    }
}
