//! The parser's errors for keywords where a stored program's DECLARE names something
//! (sql/sql_yacc.yy `sp_decl_non_handler`, `sp_decl_handler`), from the measured table of
//! `classify/keywords.rs`. Each error is the parser's: the definition fails before any
//! lock (suite/funcs_1/t/storedproc.test tries every keyword in these places).

use super::keywords::{name_error, TypeWord};
use super::routine_reader::{refused, Why};
use super::{kw_eq, Tok, ER_PARSE_ERROR};

/// `DECLARE w CONDITION FOR ...`, `DECLARE w CURSOR [(...)] FOR ...` (`s`: the tokens after
/// DECLARE) with a reserved word `w`: its error (`sp_decl_ident` is IDENT_sys or a
/// `keyword_sp_decl`; measured 1064 for each of the 245 reserved words).
pub(super) fn declare_name(s: &[Tok]) -> Result<(), Why> {
    match s {
        [w, c, ..] if kw_eq(c, "condition") || kw_eq(c, "cursor") => match name_error(w) {
            Some(code) => Err(Why::Fails(code)),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// `CONTINUE | EXIT HANDLER FOR` at `t` (after DECLARE): the number of its tokens. MariaDB's
/// `sp_handler_type` is CONTINUE or EXIT alone (the grammar's UNDO alternative is commented
/// out, "not yet"; UNDO is a reserved word), and HANDLER FOR must follow: otherwise
/// ER_PARSE_ERROR (storedproc.test: `DECLARE UNDO HANDLER FOR ...`, measured 1064).
pub(super) fn handler_head(t: &[Tok]) -> Result<usize, Why> {
    match t {
        [h, k, f, ..]
            if (kw_eq(h, "continue") || kw_eq(h, "exit"))
                && kw_eq(k, "handler")
                && kw_eq(f, "for") =>
        {
            Ok(3)
        }
        _ => Err(Why::Fails(ER_PARSE_ERROR)),
    }
}

/// A variable's type at `s[i]` that `routine_decl::var_type` does not read: the parser's
/// error for it (`field_type_all`: a user-defined type's name is ER_UNKNOWN_DATA_TYPE,
/// `LEX::set_field_type_udt`; a word that is no type, or none, ER_PARSE_ERROR: both
/// measured, `DECLARE x char1` and `DECLARE date not null x` in storedproc.result are 4161),
/// or the refusal of a type the model does not read.
pub(super) fn unread_type(s: &[Tok], i: usize) -> Result<usize, Why> {
    // `name(...)`, `name%TYPE`, `db.name`, `TYPE OF`: arguments, anchors, not read.
    let udt_args = matches!(s.get(i + 1), Some(Tok::P('(' | '%' | '.')))
        || s.get(i + 1).is_some_and(|t| kw_eq(t, "of"));
    match super::keywords::type_word(s.get(i)) {
        TypeWord::Udt if !udt_args => Err(Why::Fails(super::keywords::ER_UNKNOWN_DATA_TYPE)),
        TypeWord::No => Err(Why::Fails(ER_PARSE_ERROR)),
        // A type `field_type` does not list (BOOL, JSON, a type plugin's INET6, ...) alone
        // or before DEFAULT: a variable's type takes no lock.
        TypeWord::Type if s.get(i + 1).is_none_or(|t| kw_eq(t, "default")) => Ok(i + 1),
        _ => refused("a variable of a type the model does not know"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn fails(r: Result<impl std::fmt::Debug, Why>) -> Option<u32> {
        match r {
            Err(Why::Fails(c)) => Some(c),
            _ => None,
        }
    }

    /// suite/funcs_1/r/storedproc.result's answers.
    #[test]
    fn declarations_of_keywords() {
        let t = |s: &str| tokens(s).unwrap();
        assert_eq!(
            fails(declare_name(&t(
                "accessible condition for sqlstate '02000'"
            ))),
            Some(1064)
        );
        assert_eq!(
            fails(declare_name(&t("action condition for sqlstate '02000'"))),
            None
        );
        assert_eq!(
            fails(declare_name(&t("add cursor for select 1"))),
            Some(1064)
        );
        assert_eq!(fails(declare_name(&t("x int"))), None);
        assert_eq!(
            fails(handler_head(&t("undo handler for sqlstate '02000'"))),
            Some(1064)
        );
        assert_eq!(
            fails(handler_head(&t("exit condition for sqlstate '02000'"))),
            Some(1064)
        );
        assert!(matches!(handler_head(&t("continue handler for x")), Ok(3)));
        assert_eq!(fails(unread_type(&t("x char1"), 1)), Some(4161));
        assert_eq!(fails(unread_type(&t("x default '0' char"), 1)), Some(4161));
        assert_eq!(fails(unread_type(&t("date not null x"), 1)), Some(4161));
        assert_eq!(fails(unread_type(&t("x"), 1)), Some(1064));
        assert_eq!(fails(unread_type(&t("x exit"), 1)), Some(1064));
        assert_eq!(fails(unread_type(&t("x varchar"), 1)), None);
        assert!(matches!(unread_type(&t("x inet6 default '::1'"), 1), Ok(2)));
    }
}
