//! MariaDB 10.11's reserved words, measured: the words the server's parser refuses
//! unquoted as a name (sql/sql_yacc.yy: `ident` and `sp_decl_ident` take `IDENT_sys` or a
//! `keyword_ident` / `keyword_sp_var_and_label`; a reserved word is a keyword of none of
//! those rules, sql/lex.h lists every keyword). The table is `classify/keywords.rs`'s
//! (`models/conformance/keywords.tsv`: each word of `INFORMATION_SCHEMA.KEYWORDS` tried on
//! MariaDB 10.11.19 as a routine's, parameter's, variable's, condition's and cursor's name,
//! 245 of them ER_PARSE_ERROR in each, and as a label, `label_ident`: `keyword_label`
//! lacks 76 more words, those that start a statement such as BEGIN, COMMIT, OPEN). Every
//! other identifier is a name there.

use super::keywords::{ident_word, label_error, name_error};
use super::Tok;

/// A name of a routine, event, parameter, variable, condition or cursor: quoted, or an
/// identifier that is no reserved word.
pub(super) fn is_name(t: &Tok) -> bool {
    match t {
        Tok::Word { quoted: true, .. } => true,
        Tok::Word { text, .. } => ident_word(text) && name_error(t).is_none(),
        _ => false,
    }
}

/// An unquoted reserved word: where a name must be, ER_PARSE_ERROR (measured).
pub(super) fn is_reserved(t: &Tok) -> bool {
    name_error(t).is_some()
}

/// A label (`label_ident`): a name that is not one of the words that start a statement.
pub(super) fn is_label(t: &Tok) -> bool {
    is_name(t) && label_error(t).is_none()
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn tok(s: &str) -> Tok {
        tokens(s).unwrap().remove(0)
    }

    /// Measured on MariaDB 10.11.19 (`CREATE PROCEDURE w() BEGIN END`, `w: LOOP ...`).
    #[test]
    fn the_servers_reserved_words() {
        for w in [
            "add",
            "if",
            "current_user",
            "condition",
            "SQL",
            "int1",
            "row_number",
        ] {
            assert!(!is_name(&tok(w)), "{w}");
        }
        for w in [
            "p1",
            "only",
            "name",
            "value",
            "action",
            "language",
            "end",
            "`add`",
            "sql_cache",
        ] {
            assert!(is_name(&tok(w)), "{w}");
        }
        for w in ["begin", "commit", "open", "end", "help"] {
            assert!(is_name(&tok(w)) && !is_label(&tok(w)), "{w}");
        }
        for w in ["l1", "of", "skip", "locked", "nowait", "`begin`"] {
            assert!(is_label(&tok(w)), "{w}");
        }
        assert!(
            is_reserved(&tok("ADD")) && !is_reserved(&tok("`add`")) && !is_reserved(&tok("p1"))
        );
        assert!(!is_name(&tok("@a")));
        assert!(!is_name(&tok("12")));
    }
}
