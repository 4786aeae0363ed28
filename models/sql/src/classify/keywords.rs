//! MariaDB 10.11's keywords as the names of a stored program: what the server's parser
//! makes of each word of sql/lex.h's `symbols[]` as a label, as a condition's, variable's,
//! cursor's, parameter's or routine's name, as a handler's condition and as a variable's
//! type. The table is data, measured on the server word by word
//! (`models/conformance/keywords.tsv`, with how it was measured); the grammar rules that
//! decide (sql/sql_yacc.yy) are `label_ident` (IDENT_sys | `keyword_label`),
//! `sp_decl_ident` / `ident_directly_assignable` / `sp_param_name` (IDENT_sys | the
//! `keyword_sp_decl` / `keyword_directly_assignable` families), `sp_hcond` and
//! `field_type_all` (a type's name that is IDENT_sys, `reserved_keyword_udt` or
//! `non_reserved_keyword_udt` is a user-defined type's: `LEX::set_field_type_udt` fails
//! with ER_UNKNOWN_DATA_TYPE unless a type plugin has that name).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::Tok;

/// The measured table, compiled in.
const TABLE: &str = include_str!("../../../conformance/keywords.tsv");

/// ER_UNKNOWN_DATA_TYPE: a user-defined type's name no type plugin has (sql_type.cc,
/// `Type_handler::handler_by_name_or_error`, from `LEX::set_field_type_udt`).
pub const ER_UNKNOWN_DATA_TYPE: u32 = 4161;

/// What a word is where a variable's type must be (`field_type_all`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TypeWord {
    /// A type of its own (INT, DATE, INET6, ...).
    Type,
    /// The first word of a type that needs more (VARCHAR(n), ENUM(...), ROW(...)).
    Part,
    /// A user-defined type's name: ER_UNKNOWN_DATA_TYPE.
    Udt,
    /// Not a type: ER_PARSE_ERROR.
    No,
}

/// One keyword's row: the server's error in each position (0: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    label: u32,
    name: u32,
    handler: u32,
    ty: TypeWord,
}

fn row(line: &str) -> Option<(&str, Row)> {
    let f: Vec<&str> = line.split('\t').collect();
    let [w, label, name, handler, ty] = f[..] else {
        return None;
    };
    let ty = match ty {
        "type" => TypeWord::Type,
        "part" => TypeWord::Part,
        "udt" => TypeWord::Udt,
        "no" => TypeWord::No,
        _ => return None,
    };
    Some((
        w,
        Row {
            label: label.parse().ok()?,
            name: name.parse().ok()?,
            handler: handler.parse().ok()?,
            ty,
        },
    ))
}

fn table() -> &'static BTreeMap<&'static str, Row> {
    static T: OnceLock<BTreeMap<&'static str, Row>> = OnceLock::new();
    T.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("word\t"))
            .filter_map(row)
            .collect()
    })
}

/// An unquoted word the lexer reads as an identifier (not a variable, a number or an
/// operator).
pub(super) fn ident_word(text: &str) -> bool {
    !text.is_empty()
        && !text.chars().all(|c| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || !c.is_ascii())
}

/// The row of an unquoted identifier-like word; None for anything else (a quoted name, an
/// identifier that is no keyword, a number, a string, punctuation).
fn keyword(t: &Tok) -> Option<Row> {
    match t {
        Tok::Word {
            text,
            quoted: false,
        } if ident_word(text) => table().get(text.to_ascii_lowercase().as_str()).copied(),
        _ => None,
    }
}

fn error(code: u32) -> Option<u32> {
    (code != 0).then_some(code)
}

/// The server's error for `t` as a label (`t: BEGIN`, `t: LOOP`); None when it is one.
pub(super) fn label_error(t: &Tok) -> Option<u32> {
    keyword(t).and_then(|r| error(r.label))
}

/// The server's error for `t` as a condition's, variable's, cursor's, parameter's or
/// routine's name (a reserved word: ER_PARSE_ERROR); None when it is one.
pub(super) fn name_error(t: &Tok) -> Option<u32> {
    keyword(t).and_then(|r| error(r.name))
}

/// The server's error for `t` as a handler's declared condition (`FOR t`).
pub(super) fn handler_error(t: &Tok) -> Option<u32> {
    keyword(t).and_then(|r| error(r.handler))
}

/// What `t` is where a type must be: a keyword by its row, any other identifier (quoted
/// too) a user-defined type's name, anything else (punctuation, a string, a number, the
/// end) no type.
pub(super) fn type_word(t: Option<&Tok>) -> TypeWord {
    match t {
        Some(Tok::Word { quoted: true, .. }) => TypeWord::Udt,
        Some(t @ Tok::Word { text, .. }) if ident_word(text) => {
            keyword(t).map_or(TypeWord::Udt, |r| r.ty)
        }
        _ => TypeWord::No,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn tok(s: &str) -> Tok {
        tokens(s).unwrap().remove(0)
    }

    /// Every line of the file is a row: none is dropped by a typo.
    #[test]
    fn the_table_reads_whole() {
        let lines = TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("word\t"))
            .count();
        assert_eq!(table().len(), lines);
        assert_eq!(lines, 687 + 11);
    }

    /// Measured on 10.11.19 (suite/funcs_1/r/storedproc.result has the same answers).
    #[test]
    fn the_servers_answers() {
        assert_eq!(label_error(&tok("accessible")), Some(1064));
        assert_eq!(label_error(&tok("begin")), Some(1064));
        assert_eq!(label_error(&tok("compressed")), Some(1064));
        assert_eq!(label_error(&tok("help")), Some(1314));
        assert_eq!(label_error(&tok("action")), None);
        assert_eq!(label_error(&tok("l1")), None);
        assert_eq!(label_error(&tok("`begin`")), None);
        assert_eq!(name_error(&tok("add")), Some(1064));
        assert_eq!(name_error(&tok("begin")), None);
        assert_eq!(handler_error(&tok("system_time")), Some(1064));
        assert_eq!(name_error(&tok("system_time")), None);
        assert_eq!(type_word(Some(&tok("int"))), TypeWord::Type);
        assert_eq!(type_word(Some(&tok("INET6"))), TypeWord::Type);
        assert_eq!(type_word(Some(&tok("varchar"))), TypeWord::Part);
        assert_eq!(type_word(Some(&tok("char1"))), TypeWord::Udt);
        assert_eq!(type_word(Some(&tok("default"))), TypeWord::Udt);
        assert_eq!(type_word(Some(&tok("`int`"))), TypeWord::Udt);
        assert_eq!(type_word(Some(&tok("exit"))), TypeWord::No);
        assert_eq!(type_word(Some(&tok("("))), TypeWord::No);
        assert_eq!(type_word(None), TypeWord::No);
    }
}
