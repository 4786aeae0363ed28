//! MariaDB 10.11's reserved words, measured: the words the server's parser refuses
//! unquoted as a name (sql/sql_yacc.yy: `ident` and `sp_decl_ident` take `IDENT_sys` or a
//! `keyword_ident` / `keyword_sp_var_and_label`; a reserved word is a keyword of none of
//! those rules, sql/lex.h lists every keyword). Each of the 254 words of
//! `INFORMATION_SCHEMA.KEYWORDS` was tried on MariaDB 10.11.19 in `CREATE PROCEDURE w()`,
//! `CREATE FUNCTION w()`, `CREATE EVENT w`, a parameter `(w INT)`, `DECLARE w INT`,
//! `DECLARE w CONDITION FOR ...`, `DECLARE w CURSOR FOR ...` (the same 245 words fail
//! with ER_PARSE_ERROR in each; 9 more of the table are operators), and as a label
//! `w: LOOP LEAVE w; END LOOP w` (`label_ident`: `keyword_label` lacks 76 more words,
//! those that start a statement such as BEGIN, COMMIT, OPEN). Every other identifier is a
//! name there.

use super::Tok;

/// Reserved in every name position measured.
const RESERVED: &[&str] = &[
    "accessible",
    "add",
    "all",
    "alter",
    "analyze",
    "and",
    "as",
    "asc",
    "asensitive",
    "before",
    "between",
    "bigint",
    "binary",
    "blob",
    "both",
    "by",
    "call",
    "cascade",
    "case",
    "change",
    "char",
    "character",
    "check",
    "collate",
    "column",
    "condition",
    "constraint",
    "continue",
    "convert",
    "create",
    "cross",
    "current_date",
    "current_role",
    "current_time",
    "current_timestamp",
    "current_user",
    "cursor",
    "databases",
    "day_hour",
    "day_microsecond",
    "day_minute",
    "day_second",
    "dec",
    "decimal",
    "declare",
    "default",
    "delayed",
    "delete",
    "delete_domain_id",
    "desc",
    "describe",
    "deterministic",
    "distinct",
    "distinctrow",
    "div",
    "do_domain_ids",
    "double",
    "drop",
    "dual",
    "each",
    "else",
    "elseif",
    "enclosed",
    "escaped",
    "except",
    "exists",
    "exit",
    "explain",
    "false",
    "fetch",
    "float",
    "float4",
    "float8",
    "for",
    "force",
    "foreign",
    "from",
    "fulltext",
    "grant",
    "group",
    "having",
    "high_priority",
    "hour_microsecond",
    "hour_minute",
    "hour_second",
    "if",
    "ignore",
    "ignore_domain_ids",
    "in",
    "index",
    "infile",
    "inner",
    "inout",
    "insensitive",
    "insert",
    "int",
    "int1",
    "int2",
    "int3",
    "int4",
    "int8",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "iterate",
    "join",
    "key",
    "keys",
    "kill",
    "leading",
    "leave",
    "left",
    "like",
    "limit",
    "linear",
    "lines",
    "load",
    "localtime",
    "localtimestamp",
    "lock",
    "long",
    "longblob",
    "longtext",
    "loop",
    "low_priority",
    "master_demote_to_replica",
    "master_demote_to_slave",
    "master_ssl_verify_server_cert",
    "match",
    "maxvalue",
    "mediumblob",
    "mediumint",
    "mediumtext",
    "middleint",
    "minute_microsecond",
    "minute_second",
    "mod",
    "modifies",
    "natural",
    "no_write_to_binlog",
    "not",
    "null",
    "numeric",
    "offset",
    "on",
    "optimize",
    "optionally",
    "or",
    "order",
    "out",
    "outer",
    "outfile",
    "over",
    "page_checksum",
    "parse_vcol_expr",
    "partition",
    "portion",
    "precision",
    "primary",
    "procedure",
    "purge",
    "range",
    "read",
    "read_write",
    "reads",
    "real",
    "recursive",
    "ref_system_id",
    "references",
    "regexp",
    "release",
    "rename",
    "repeat",
    "replace",
    "require",
    "resignal",
    "restrict",
    "return",
    "returning",
    "revoke",
    "right",
    "rlike",
    "row_number",
    "rows",
    "schemas",
    "second_microsecond",
    "select",
    "sensitive",
    "separator",
    "set",
    "show",
    "signal",
    "smallint",
    "spatial",
    "specific",
    "sql",
    "sql_big_result",
    "sql_calc_found_rows",
    "sql_small_result",
    "sqlexception",
    "sqlstate",
    "sqlwarning",
    "ssl",
    "starting",
    "stats_auto_recalc",
    "stats_persistent",
    "stats_sample_pages",
    "straight_join",
    "table",
    "terminated",
    "then",
    "tinyblob",
    "tinyint",
    "tinytext",
    "to",
    "trailing",
    "trigger",
    "true",
    "undo",
    "union",
    "unique",
    "unlock",
    "unsigned",
    "update",
    "usage",
    "use",
    "using",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "values",
    "varbinary",
    "varchar",
    "varcharacter",
    "varying",
    "when",
    "where",
    "while",
    "with",
    "write",
    "xor",
    "year_month",
    "zerofill",
];

/// Not reserved as a name, but not a label either (`label_ident` / `keyword_label`).
const NOT_LABELS: &[&str] = &[
    "ascii",
    "backup",
    "begin",
    "binlog",
    "byte",
    "cache",
    "charset",
    "checkpoint",
    "checksum",
    "close",
    "column_add",
    "column_check",
    "column_create",
    "column_delete",
    "column_get",
    "comment",
    "commit",
    "compressed",
    "contains",
    "deallocate",
    "do",
    "end",
    "examined",
    "exclude",
    "execute",
    "flush",
    "following",
    "follows",
    "format",
    "get",
    "handler",
    "help",
    "host",
    "install",
    "language",
    "no",
    "open",
    "option",
    "options",
    "others",
    "owner",
    "parser",
    "period",
    "port",
    "precedes",
    "preceding",
    "prepare",
    "remove",
    "repair",
    "replica",
    "replicas",
    "reset",
    "restore",
    "rollback",
    "savepoint",
    "security",
    "server",
    "shutdown",
    "signed",
    "slave",
    "slaves",
    "socket",
    "soname",
    "start",
    "stop",
    "stored",
    "ties",
    "truncate",
    "unbounded",
    "unicode",
    "uninstall",
    "upgrade",
    "window",
    "within",
    "wrapper",
    "xa",
];

/// An unquoted word the lexer would read as an identifier (not a variable, a number or an
/// operator).
fn ident_word(text: &str) -> bool {
    !text.is_empty()
        && !text.chars().all(|c| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || !c.is_ascii())
}

/// A name of a routine, event, parameter, variable, condition or cursor: quoted, or an
/// identifier that is no reserved word.
pub(super) fn is_name(t: &Tok) -> bool {
    match t {
        Tok::Word { quoted: true, .. } => true,
        Tok::Word { text, .. } => {
            ident_word(text) && !RESERVED.iter().any(|w| text.eq_ignore_ascii_case(w))
        }
        _ => false,
    }
}

/// An unquoted reserved word: where a name must be, ER_PARSE_ERROR (measured).
pub(super) fn is_reserved(t: &Tok) -> bool {
    matches!(t, Tok::Word { text, quoted: false }
        if RESERVED.iter().any(|w| text.eq_ignore_ascii_case(w)))
}

/// A label (`label_ident`): a name that is not one of the words that start a statement.
pub(super) fn is_label(t: &Tok) -> bool {
    is_name(t)
        && !matches!(t, Tok::Word { text, quoted: false }
            if NOT_LABELS.iter().any(|w| text.eq_ignore_ascii_case(w)))
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
