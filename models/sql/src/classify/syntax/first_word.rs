//! A statement whose first token begins no production of MariaDB 10.11's grammar
//! (`sql/sql_yacc.yy`: `query` -> `verb_clause`, the compound statements a client may send
//! (`BEGIN NOT ATOMIC`, IF, CASE, LOOP, WHILE, REPEAT, FOR, a label), and the ORACLE mode's
//! anonymous blocks): the parser fails on that token with ER_PARSE_ERROR and nothing runs.
//! The suite sends such text on purpose (`a;` in main/ctype_errors.test, `'т';` in
//! main/ctype_sjis.test, `garbage` in main/mysqltest.test, `prepare_garbage ...` in
//! main/ps_1general.test) and by way of mysqltest commands the corpus reader takes for SQL.
//! And the forms of a statement word the grammar has no production for:
//! `BACKUP TABLE` / `RESTORE TABLE` / `LOAD TABLE ... FROM MASTER` / `LOAD DATA FROM
//! MASTER` (removed statements, main/deprecated_features.test), `PREPARE` without
//! `name FROM` (`prepare_src` of sql_yacc.yy, main/ps_1general.test), `SHUTDOWN` with an
//! argument, a parenthesised statement that is no query (`(a(b 'т'))`, main/ctype_sjis.test).
//!
//! The list of words is generous (every word that begins a statement in any sql_mode, and
//! those of stored-program bodies): a word on it is left to the other rules, so the rule
//! never calls a statement of the server's a syntax error.

use super::super::{kw_eq, Tok};

/// Words that may begin a statement (sql_yacc.yy's `verb_clause`, `compound_statement`,
/// `sp_proc_stmt`, sql_yacc_ora's anonymous blocks), lower case.
const STARTS: &[&str] = &[
    "alter",
    "analyze",
    "backup",
    "begin",
    "binlog",
    "cache",
    "call",
    "case",
    "change",
    "check",
    "checksum",
    "close",
    "commit",
    "create",
    "deallocate",
    "declare",
    "delete",
    "desc",
    "describe",
    "do",
    "drop",
    "else",
    "elsif",
    "end",
    "exception",
    "execute",
    "exit",
    "explain",
    "fetch",
    "flush",
    "for",
    "get",
    "goto",
    "grant",
    "handler",
    "help",
    "if",
    "insert",
    "install",
    "iterate",
    "kill",
    "leave",
    "load",
    "lock",
    "loop",
    "null",
    "open",
    "optimize",
    "prepare",
    "purge",
    "raise",
    "release",
    "rename",
    "repair",
    "repeat",
    "replace",
    "reset",
    "resignal",
    "return",
    "revoke",
    "rollback",
    "savepoint",
    "select",
    "set",
    "show",
    "shutdown",
    "signal",
    "start",
    "stop",
    "table",
    "truncate",
    "undo",
    "uninstall",
    "unlock",
    "update",
    "use",
    "values",
    "when",
    "while",
    "with",
    "xa",
];

/// Why the parser rejects the statement at its first words, or None.
pub(super) fn rules(toks: &[Tok]) -> Option<&'static str> {
    let first = toks.first()?;
    let at = |i: usize, w: &str| toks.get(i).is_some_and(|t| kw_eq(t, w));
    match first {
        // A label (`l1: BEGIN ... END`) is a name followed by `:`.
        Tok::Word { quoted: false, .. } | Tok::Word { quoted: true, .. }
            if toks.get(1) == Some(&Tok::P(':')) =>
        {
            return None
        }
        Tok::Word {
            text,
            quoted: false,
        } => {
            let w = text.to_ascii_lowercase();
            if !STARTS.contains(&w.as_str()) && !w.starts_with('@') {
                return Some("no statement begins with this word");
            }
        }
        // A parenthesised statement is a query (`query_expression_parens`).
        Tok::P('(') => {
            let query = match toks.get(1) {
                Some(Tok::Word {
                    text,
                    quoted: false,
                }) => ["select", "with", "values", "table"]
                    .iter()
                    .any(|w| text.eq_ignore_ascii_case(w)),
                Some(Tok::P('(')) => true,
                _ => false,
            };
            return (!query).then_some("a parenthesised statement is a query");
        }
        Tok::Word { quoted: true, .. } | Tok::Str(_) | Tok::Num(_) => {
            return Some("a statement does not begin with a name, a string or a number")
        }
        // A backslash (the mysql client's `\! cmd`), `|`, `!` or `--name` (mysqltest's
        // commands): no token of the lexer begins an expression here.
        Tok::P('\\' | '|' | '!' | '-') => return Some("a statement does not begin with this sign"),
        Tok::P(_) => return None,
    }
    if at(0, "backup") && at(1, "table") {
        return Some("BACKUP TABLE is no statement (removed)");
    }
    if at(0, "load") && (at(1, "table") || (at(1, "data") && at(2, "from"))) {
        return Some("LOAD TABLE / LOAD DATA FROM MASTER are no statements (removed)");
    }
    // `SHUTDOWN [WAIT FOR ALL SLAVES | REPLICAS]` (`shutdown_option`): no number, no other
    // word (plugin/rocksdb's force_shutdown.test sends `shutdown 1` to its own client).
    if at(0, "shutdown") && toks.len() > 1 && !at(1, "wait") {
        return Some("SHUTDOWN takes only WAIT FOR ALL SLAVES");
    }
    if at(0, "prepare") && !prepare_shape(toks) {
        return Some("PREPARE takes `name FROM source`");
    }
    name_expected(toks)
}

/// A `(` or `!` where the grammar wants the name of the statement's object: `DELETE FROM
/// (SELECT ...)`, `INSERT INTO (SELECT ...)` (`table_ident`: a derived table is no target;
/// main/derived.test), `DROP EVENT (SELECT ...)` (main/events_bugs.test), `CREATE
/// PROCEDURE !_sp1` (`sp_name`; suite/funcs_1/t/storedproc.test).
fn name_expected(toks: &[Tok]) -> Option<&'static str> {
    let at = |i: usize, w: &str| toks.get(i).is_some_and(|t| kw_eq(t, w));
    let mut i = 1;
    while [
        "low_priority",
        "quick",
        "ignore",
        "delayed",
        "high_priority",
    ]
    .iter()
    .any(|w| at(i, w))
    {
        i += 1;
    }
    let after = if (at(0, "delete") && at(i, "from"))
        || (at(0, "insert") || at(0, "replace")) && at(i, "into")
    {
        toks.get(i + 1)
    } else if (at(0, "drop") && at(1, "event"))
        || (at(0, "create") && (at(1, "procedure") || at(1, "function")))
    {
        toks.get(2)
    } else {
        None
    };
    matches!(after, Some(Tok::P('(' | '!'))).then_some("a name is expected here")
}

/// `PREPARE name FROM <something>` (sql_yacc.yy: `PREPARE_SYM ident FROM prepare_src`).
fn prepare_shape(toks: &[Tok]) -> bool {
    let name = matches!(toks.get(1), Some(Tok::Word { quoted: true, .. }))
        || matches!(toks.get(1), Some(Tok::Word { text, quoted: false })
            if !text.eq_ignore_ascii_case("from"));
    name && toks.get(2).is_some_and(|t| kw_eq(t, "from")) && toks.len() > 3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::lex::tokens;

    fn rejects(sql: &str) -> bool {
        rules(&tokens(sql).unwrap()).is_some()
    }

    #[test]
    fn first_words() {
        for sql in [
            "a",
            "garbage",
            "'т'",
            "10",
            "query select 1",
            "prepare",
            "prepare stmt1",
            "prepare stmt1 from",
            "prepare_garbage stmt1 from ' select 1 '",
            "prepare stmt1 from_garbage ' select 1 '",
            "prepare from ' select 1 '",
            "prepare stmt1 ' select 1 '",
            "backup table t1 to 'data.txt'",
            "restore table t1 from 'data.txt'",
            "load table t1 from master",
            "load data from master",
            "delete from (select * from t1)",
            "insert into (select * from t1) values (5)",
            "drop event (select a from t2)",
            "CREATE PROCEDURE !_sp1( f1 char(20) ) SELECT * from t1 where f2 = f1",
            "(a(b 'x'))",
            "shutdown 1",
            "SHUTDOWN 127 read_only",
        ] {
            assert!(rejects(sql), "{sql}");
        }
        for sql in [
            "select 1",
            "(select 1)",
            "l1: begin end",
            "prepare s from 'select 1'",
            "load data infile 'x' into table t1",
            "backup stage start",
            "with c as (select 1) select * from c",
            "table t1",
            "((select 1))",
            "shutdown",
            "shutdown wait for all slaves",
        ] {
            assert!(!rejects(sql), "{sql}");
        }
    }
}
