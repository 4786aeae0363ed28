//! `references` of MariaDB 10.11's grammar (sql/sql_yacc.yy): `REFERENCES table_ident
//! opt_ref_list opt_match_clause opt_on_update_delete`, where `opt_match_clause` is one
//! `MATCH FULL | PARTIAL | SIMPLE` and `opt_on_update_delete` one `ON UPDATE` and one `ON
//! DELETE` in either order. A second MATCH, a MATCH after the ON clauses, or one event
//! twice is ER_PARSE_ERROR before any lock (main/foreign_key.test, lines 50-105,
//! `references t3 (a) match full match partial`, `on delete set default match full`, `on
//! update set default on update set default`).

use super::{kw_eq, Tok};
use crate::classify::lex::matching_paren;

/// The first rule of a CREATE / ALTER TABLE's REFERENCES clauses that the parser refuses.
pub(super) fn rules(toks: &[Tok]) -> Option<&'static str> {
    if !toks
        .first()
        .is_some_and(|t| kw_eq(t, "create") || kw_eq(t, "alter"))
    {
        return None;
    }
    let kw = |i: usize, w: &str| toks.get(i).is_some_and(|t| kw_eq(t, w));
    for (i, t) in toks.iter().enumerate() {
        if !kw_eq(t, "references") || !matches!(toks.get(i + 1), Some(Tok::Word { .. })) {
            continue;
        }
        let mut j = i + 2;
        if toks.get(j) == Some(&Tok::P('.')) {
            j += 2;
        }
        if toks.get(j) == Some(&Tok::P('(')) {
            j = matching_paren(toks, j)? + 1;
        }
        if kw(j, "match") {
            j += 2;
        }
        let (mut delete, mut update) = (false, false);
        while kw(j, "on") && (kw(j + 1, "delete") || kw(j + 1, "update")) {
            let seen = if kw(j + 1, "delete") {
                &mut delete
            } else {
                &mut update
            };
            if *seen {
                return Some("REFERENCES: ON DELETE / ON UPDATE twice");
            }
            *seen = true;
            j += 2;
            j += if kw(j, "set") || kw(j, "no") { 2 } else { 1 };
        }
        if kw(j, "match") {
            return Some("REFERENCES: MATCH twice, or after ON DELETE / ON UPDATE");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::rules;
    use crate::classify::lex::tokens;

    #[test]
    fn the_suites_forms() {
        let f = |s: &str| rules(&tokens(s).unwrap());
        let t = "create table t (a int, foreign key (a) references t3 (a) ";
        assert!(f(&format!("{t}match full match partial)")).is_some());
        assert!(f(&format!("{t}on delete set default match full)")).is_some());
        assert!(f(&format!("{t}on update cascade on update restrict)")).is_some());
        assert!(f(&format!(
            "{t}match full on delete cascade on update set null)"
        ))
        .is_none());
        assert!(f(&format!("{t}on delete no action on update no action)")).is_none());
        assert!(f("grant references on t1 to u").is_none());
    }
}
