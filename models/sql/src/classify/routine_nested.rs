//! DDL of stored objects, and views, inside a stored program's body, as MariaDB's parser
//! takes them when the definition is created (`sql/sql_yacc.yy`: `create`, `drop`,
//! `alter` check `lex->sphead`; measured in main/sp-error.test):
//!
//! - CREATE PROCEDURE / FUNCTION / TRIGGER: ER_SP_NO_RECURSIVE_CREATE (2F003);
//! - DROP / ALTER PROCEDURE / FUNCTION: ER_SP_NO_DROP_SP (`sp_drop_routine` /
//!   `sp_a_chistics` rules);
//! - DROP TRIGGER, DROP EVENT, ALTER EVENT: stored, with the implicit commit a function or
//!   trigger may not have (`sp_get_flags_for_command`: HAS_COMMIT_OR_ROLLBACK);
//! - a view whose SELECT has INTO, INTO OUTFILE / DUMPFILE or PROCEDURE ANALYSE: the
//!   parser's ER_PARSE_ERROR (bug20953).
//!
//! Other DDL of events (CREATE EVENT: ER_EVENT_RECURSION_FORBIDDEN when it has a body)
//! and of sequences is not followed.

use super::routine_reader::{refused, Why};
use super::{kw_eq, Tok};

/// "Can't create a %s from within another stored routine".
pub const ER_SP_NO_RECURSIVE_CREATE: u32 = 1303;
/// "Can't drop or alter a %s from within another stored routine".
pub const ER_SP_NO_DROP_SP: u32 = 1357;

/// The object word of DDL statement `s` (from its verb): after CREATE's OR REPLACE, and
/// the index of that word.
fn object_at(s: &[Tok]) -> usize {
    let or_replace =
        s.get(1).is_some_and(|t| kw_eq(t, "or")) && s.get(2).is_some_and(|t| kw_eq(t, "replace"));
    if or_replace {
        3
    } else {
        1
    }
}

/// Routines, events, triggers, sequences named by DDL inside a body (`word` is the
/// statement's first word, `s` the statement): the parser's error, Ok to store it, or
/// not followed. A VIEW named outside DDL (but SHOW CREATE VIEW) is not followed.
pub(super) fn nested_objects(word: &str, s: &[Tok]) -> Result<(), Why> {
    let ddl = matches!(word, "create" | "drop" | "alter" | "rename");
    let at = |k: usize, w: &str| s.get(k).is_some_and(|t| kw_eq(t, w));
    let o = object_at(s);
    let routine = at(o, "procedure") || at(o, "function");
    match word {
        "create" if routine || at(o, "trigger") || at(o, "aggregate") => {
            return Err(Why::Fails(ER_SP_NO_RECURSIVE_CREATE))
        }
        "drop" | "alter" if routine => return Err(Why::Fails(ER_SP_NO_DROP_SP)),
        "drop" if at(1, "trigger") || at(1, "event") => return Ok(()),
        "alter" if at(1, "event") && !s.iter().any(|t| kw_eq(t, "do")) => return Ok(()),
        _ => {}
    }
    let obj = ["procedure", "function", "event", "trigger", "sequence"]
        .into_iter()
        .find(|w| s.iter().any(|t| kw_eq(t, w)));
    if let (true, Some(o)) = (ddl, obj) {
        return refused(&format!("{} {}", word.to_uppercase(), o.to_uppercase()));
    }
    let view = s.iter().any(|t| kw_eq(t, "view"));
    let show_create = word == "show" && at(1, "create") && at(2, "view");
    if view && !show_create && (!ddl || s.iter().any(|t| kw_eq(t, "into"))) {
        return refused("a VIEW statement other than plain DDL");
    }
    Ok(())
}

/// CREATE / ALTER VIEW whose SELECT has INTO (a variable, OUTFILE, DUMPFILE) or PROCEDURE
/// ANALYSE: ER_PARSE_ERROR in a body (main/sp-error.test bug20953, each measured).
pub(super) fn view_clause(word: &str, s: &[Tok]) -> Result<(), Why> {
    let view_ddl = matches!(word, "create" | "alter") && s.iter().any(|t| kw_eq(t, "view"));
    let bad = s.iter().any(|t| kw_eq(t, "into") || kw_eq(t, "analyse"));
    if view_ddl && bad {
        return Err(Why::Fails(super::ER_PARSE_ERROR));
    }
    Ok(())
}

/// `SET STATEMENT v = x, ... FOR stmt` (`set_stmt_option_list`, sql_yacc.yy): the first
/// word of the statement after FOR (at parenthesis depth 0) and that statement.
pub(super) fn set_statement_inner<'t>(word: &str, s: &'t [Tok]) -> Option<(String, &'t [Tok])> {
    if word != "set" || !s.get(1).is_some_and(|t| kw_eq(t, "statement")) {
        return None;
    }
    let mut depth = 0i32;
    for (i, t) in s.iter().enumerate() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ if depth == 0 && kw_eq(t, "for") => {
                let inner = &s[i + 1..];
                let Some(Tok::Word {
                    text,
                    quoted: false,
                }) = inner.first()
                else {
                    return None;
                };
                return Some((text.to_ascii_lowercase(), inner));
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::routine_block::{read, Ctx};
    use super::super::tokens;
    use super::*;

    fn fails(sql: &str, ctx: Ctx) -> Option<u32> {
        match read(&tokens(sql).unwrap(), ctx) {
            Err(Why::Fails(c)) => Some(c),
            _ => None,
        }
    }

    /// Each measured on MariaDB 10.11 (main/sp-error.test, main/ps.test, main/events_2.test,
    /// main/sp-bugs.test, main/set_statement.test).
    #[test]
    fn ddl_of_stored_objects_in_a_body() {
        let (p, f) = (Ctx::Procedure, Ctx::Function);
        assert_eq!(fails("create procedure bar() set @x=3", p), Some(1303));
        assert_eq!(
            fails("create function bar() returns double return 2.3", p),
            Some(1303)
        );
        let trigger =
            "BEGIN create trigger tr2 before insert on t1 for each row do select 1; return 1; END";
        assert_eq!(fails(trigger, f), Some(1303));
        assert_eq!(fails("drop procedure bug4344", p), Some(1357));
        assert_eq!(
            fails("BEGIN alter function f; return 0; END", f),
            Some(1357)
        );
        assert_eq!(fails("BEGIN drop event xyz; return 1; END", f), Some(1422));
        assert_eq!(
            fails("BEGIN alter event xyz comment 'x'; return 1; END", f),
            Some(1422)
        );
        assert!(read(&tokens("drop event xyz").unwrap(), p).is_ok());
        assert!(read(&tokens("DROP TRIGGER tr1").unwrap(), p).is_ok());
        assert!(read(&tokens("show create view v1").unwrap(), p).is_ok());
        assert_eq!(fails("CREATE VIEW v AS SELECT 1 INTO @a", p), Some(1064));
        assert_eq!(
            fails("CREATE VIEW v AS SELECT 1 INTO OUTFILE 'f'", p),
            Some(1064)
        );
        assert_eq!(
            fails("BEGIN load index into cache t1; return 1; END", f),
            Some(1415)
        );
        assert_eq!(
            fails("BEGIN uninstall plugin p; return 1; END", f),
            Some(1422)
        );
        assert!(read(&tokens("BEGIN start slave; return 1; END").unwrap(), f).is_ok());
        let set_for = "BEGIN SET STATEMENT sort_buffer_size=300000 FOR PREPARE s FROM 'SELECT 1'; RETURN 1; END";
        assert_eq!(fails(set_for, f), Some(1336));
        assert!(read(&tokens("show grants for 'root'@'localhost'").unwrap(), p).is_ok());
        assert!(read(&tokens("insert into t values (repeat('a', 3))").unwrap(), p).is_ok());
        assert!(read(&tokens("WITH c AS (SELECT 1) SELECT * FROM c").unwrap(), p).is_ok());
    }
}
