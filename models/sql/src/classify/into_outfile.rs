//! `SELECT ... INTO OUTFILE 'file' [options]` and `... INTO DUMPFILE 'file'`: the SELECT's
//! locks, then the file (sql/sql_class.cc, `select_export::prepare` /
//! `select_dump::prepare` call `create_file` once the tables are open and locked, in
//! `JOIN::prepare`):
//!
//! - `create_file` puts a name without a directory in the session's schema's directory
//!   (`mysql_real_data_home` + `thd->db`), a relative path under the data directory;
//! - a path outside `secure_file_priv` is ER_OPTION_PREVENTS_STATEMENT (the harness's
//!   server sets none: `--no-defaults`, and the Debian build's default is empty);
//! - a file that exists is ER_FILE_EXISTS_ERROR (1086): `create_file` never overwrites.
//!
//! The model knows the files its own statements wrote (the catalog's `files`): the first
//! write of a name succeeds, a second is 1086, after the tables' own errors (1146 comes
//! from `open_tables`, before `create_file`). What it cannot know is left refused: a path
//! outside the data directory (absolute, or with `..`: the machine's files, which outlive
//! the server), a directory other than a schema the catalog has, a file name that is not a
//! string literal. The harness clears the files of the `test` schema's directory when it
//! resets the server (`mdl-conform`'s `learn/settle.rs`), so each scenario starts with
//! none, as the model does. EXPLAIN writes no file (`query_shapes::explained` refuses the
//! effect); ANALYZE runs the statement and writes it.
//!
//! Measured: suite/into-outfile.mdl (main/outfile.test, main/union.test).

use super::{Cx, Effect, Stmt, Tok};

/// Where the INTO OUTFILE / DUMPFILE clause is in `toks`: its first and end index, and
/// the file's name, or None when there is none.
fn clause(toks: &[Tok]) -> Option<(usize, usize, Option<String>)> {
    let word = |i: usize, ws: &[&str]| {
        matches!(toks.get(i), Some(Tok::Word { text, quoted: false })
            if ws.iter().any(|w| text.eq_ignore_ascii_case(w)))
    };
    let at =
        (0..toks.len()).find(|&i| word(i, &["into"]) && word(i + 1, &["outfile", "dumpfile"]))?;
    let name = match toks.get(at + 2) {
        Some(Tok::Str(s)) => Some(s.clone()),
        _ => None,
    };
    // The clause's options (CHARACTER SET, FIELDS / COLUMNS ..., LINES ...) are words and
    // strings; it ends at the query's next clause or at the end.
    const NEXT: &[&str] = &[
        "from",
        "where",
        "group",
        "having",
        "order",
        "limit",
        "for",
        "lock",
        "union",
        "except",
        "intersect",
        "window",
    ];
    let mut end = at + 3;
    while end < toks.len() && !word(end, NEXT) && toks[end] != Tok::P(')') {
        end += 1;
    }
    Some((at, end, name))
}

/// Whether the statement writes a file (`INTO OUTFILE` / `INTO DUMPFILE`).
pub(super) fn writes_file(toks: &[Tok]) -> bool {
    clause(toks).is_some()
}

/// The file's path under the data directory (`schema/name`), or why the model cannot
/// tell it.
fn path(cx: &Cx, name: &str) -> Result<String, String> {
    let sql = cx.sql;
    let outside = || {
        Err(format!(
            "`{sql}`: SELECT ... INTO OUTFILE of a path outside the data directory's schemas \
             (`{name}`: the machine's files, which the model does not know) is not modelled"
        ))
    };
    if name.is_empty() || name.starts_with('/') || name.contains("..") || name.contains('\\') {
        return outside();
    }
    match name.split('/').collect::<Vec<_>>().as_slice() {
        [file] => Ok(format!("{}/{file}", cx.db)),
        [schema, file] if !file.is_empty() && cx.cat.has_schema(schema) => {
            Ok(format!("{schema}/{file}"))
        }
        _ => outside(),
    }
}

/// The SELECT ... INTO OUTFILE / DUMPFILE statement without its clause (the text the
/// SELECT's own classifier reads), and the file's path.
pub(super) fn strip(cx: &Cx, toks: &[Tok]) -> Result<(String, String), String> {
    let sql = cx.sql;
    let Some((at, end, name)) = clause(toks) else {
        return Err(format!("`{sql}`: expected INTO OUTFILE"));
    };
    let Some(name) = name else {
        return Err(format!(
            "`{sql}`: INTO OUTFILE of a name that is not a string literal is not modelled"
        ));
    };
    let path = path(cx, &name)?;
    let mut rest: Vec<Tok> = toks[..at].to_vec();
    rest.extend_from_slice(&toks[end..]);
    if clause(&rest).is_some() {
        return Err(format!(
            "`{sql}`: two INTO OUTFILE clauses are not modelled"
        ));
    }
    Ok((super::lex::render(&rest), path))
}

/// The SELECT's plan `st` (of the text [`strip`] gave) with its effect made
/// [`Effect::WriteFile`] of `path`.
pub(super) fn with_file(sql: &str, st: Stmt, path: String) -> Result<Stmt, String> {
    match st {
        Stmt::Learned(mut p) => {
            let need = match std::mem::take(&mut p.effect) {
                Effect::NeedTables(ts) => ts,
                Effect::None => Vec::new(),
                _ => {
                    return Err(format!(
                        "`{sql}`: INTO OUTFILE of this SELECT is not modelled"
                    ))
                }
            };
            p.effect = Effect::WriteFile { path, need };
            Ok(Stmt::Learned(p))
        }
        _ => Err(format!(
            "`{sql}`: SELECT ... INTO OUTFILE of no table is not modelled (the file is written \
             with no lock)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::lex::tokens;

    fn cut(sql: &str) -> (String, Option<String>) {
        let t = tokens(sql).unwrap();
        let (at, end, name) = clause(&t).unwrap();
        let mut rest = t[..at].to_vec();
        rest.extend_from_slice(&t[end..]);
        (super::super::lex::render(&rest), name)
    }

    #[test]
    fn clauses() {
        let (r, n) = cut("select * into outfile 'f' from t1");
        assert_eq!(n.as_deref(), Some("f"));
        assert!(r.to_ascii_lowercase().contains("from t1"), "{r}");
        let (r, _) = cut(
            "SELECT * INTO OUTFILE 'x' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' \
             LINES TERMINATED BY '\\r\\n' FROM t1",
        );
        assert!(!r.to_ascii_lowercase().contains("fields"), "{r}");
        let (r, _) = cut("select a from t1 union select a from t1 into outfile 'u'");
        assert!(!r.to_ascii_lowercase().contains("into"), "{r}");
        assert!(!writes_file(&tokens("select * from t1").unwrap()));
    }
}
