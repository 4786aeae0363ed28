//! The order a SELECT opens its tables in: the written order, except that the first table
//! of the outermost SELECT's FROM goes first. The parser puts every table into the
//! statement's global list as it reads it, so a subquery in the select list puts its
//! tables before the FROM's; `mysql_execute_command` (MariaDB `sql/sql_parse.cc`) calls
//! `LEX::first_lists_tables_same()` (sql/sql_lex.cc) first, which moves the first table
//! of the outermost SELECT_LEX's local list to the head of the global list, and
//! `open_tables` then takes them in that order. Measured on 10.11.19:
//! found/seed-340187.mdl (`SELECT (SELECT COUNT(*) FROM t2) FROM m1` waits for m1
//! holding nothing; `... FROM m1 JOIN t1` opens m1, t2, t1).

use super::{from_tables, kw_eq, Tbl, Tok};

/// Moves the first table of the outermost FROM of `toks` to the front of `tables` (the
/// statement's tables in written order).
pub(super) fn first_table_first(toks: &[Tok], db: &str, tables: &mut [Tbl]) -> Result<(), String> {
    let mut depth = 0i32;
    let mut from = None;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ if depth == 0 && kw_eq(t, "from") => {
                from = Some(i);
                break;
            }
            _ => {}
        }
    }
    // (A derived table first in FROM is no table of the global list: unchanged.)
    let Some(at) = from.filter(|&i| toks.get(i + 1) != Some(&Tok::P('('))) else {
        return Ok(());
    };
    let Some(first) = from_tables(&toks[at..], db)?.into_iter().next() else {
        return Ok(());
    };
    if let Some(i) = tables.iter().position(|t| *t == first) {
        tables[..=i].rotate_right(1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(sql: &str) -> Vec<String> {
        let toks = super::super::tokens(sql).expect("tokens");
        let mut ts = from_tables(&toks, "test").expect("tables");
        first_table_first(&toks, "test", &mut ts).expect("order");
        ts.into_iter().map(|t| t.name).collect()
    }

    #[test]
    fn the_outermost_first_table_goes_first() {
        assert_eq!(
            order("SELECT (SELECT COUNT(*) FROM t2) FROM m1"),
            ["m1", "t2"]
        );
        assert_eq!(
            order("SELECT (SELECT a FROM t2) FROM m1 JOIN t1 ON m1.a=t1.a"),
            ["m1", "t2", "t1"]
        );
        assert_eq!(
            order("SELECT * FROM t1 WHERE a IN (SELECT a FROM t2)"),
            ["t1", "t2"]
        );
        assert_eq!(
            order("SELECT (SELECT a FROM t2) FROM t1, m1"),
            ["t1", "t2", "m1"]
        );
    }
}
