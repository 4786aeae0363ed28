//! `r.f` of a ROW variable in a stored program's statement: the parser makes it the
//! variable's field (`LEX::create_item_ident` finds an SP variable of a ROW type, a
//! `ROW TYPE OF` table or cursor, or a FOR loop's record, before any table's column:
//! `Item_splocal_row_field`, sql/sql_lex.cc), a value the model does not keep and no
//! table's name, which the statement's classifier would look for (ER_UNKNOWN_TABLE 1109
//! for a SELECT without FROM). The compiler writes such a field as NULL in the
//! statement's text (the locks and the errors the model follows do not depend on a
//! value); a scalar variable's `v.x` stays a table's column, as on the server.

use super::Tok;

/// `sql` with each `r.f` whose `r` is a ROW variable (`is_row`) written as NULL.
pub(super) fn fields_as_values(sql: &str, is_row: &dyn Fn(&str) -> bool) -> String {
    let Ok(t) = super::tokens(sql) else {
        return sql.to_owned();
    };
    let row = |x: &Tok| matches!(x, Tok::Word { text, .. } if is_row(text));
    let mut out = Vec::with_capacity(t.len());
    let mut changed = false;
    let mut i = 0;
    while i < t.len() {
        let field = row(&t[i])
            && t.get(i + 1) == Some(&Tok::P('.'))
            && matches!(t.get(i + 2), Some(Tok::Word { .. }))
            && t.get(i + 3) != Some(&Tok::P('('))
            && (i == 0 || t[i - 1] != Tok::P('.'));
        if field {
            out.push(Tok::Word {
                text: "NULL".into(),
                quoted: false,
            });
            changed = true;
            i += 3;
        } else {
            out.push(t[i].clone());
            i += 1;
        }
    }
    if changed {
        super::lex::render(&out)
    } else {
        sql.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_fields_are_values() {
        let is_row = |n: &str| n.eq_ignore_ascii_case("r");
        assert_eq!(
            fields_as_values("SELECT r.a, R.b", &is_row),
            "SELECT NULL , NULL"
        );
        assert_eq!(
            fields_as_values("SELECT t1.a FROM t1", &is_row),
            "SELECT t1.a FROM t1"
        );
        assert_eq!(
            fields_as_values("SELECT db.r.a FROM db.r", &is_row),
            "SELECT db.r.a FROM db.r"
        );
        assert_eq!(fields_as_values("SELECT r.f()", &is_row), "SELECT r.f()");
    }
}
