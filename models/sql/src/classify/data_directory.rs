//! `CREATE TABLE ... PARTITION BY ... (PARTITION p DATA DIRECTORY 'dir' INDEX DIRECTORY
//! 'dir' ...)` with a relative directory.
//!
//! Measured on 10.11.19 (`suite/create-partition-relative-data-directory.mdl`): a
//! partition's DATA / INDEX DIRECTORY that is not an absolute path fails with
//! ER_WRONG_ARGUMENTS (1210) after CREATE TABLE's locks (the statement waits behind FTWRL
//! first): the partition's directories are checked when the table is created
//! (`sql/sql_table.cc` `create_table_impl`, the partition handler's check of its
//! directories, as `main/partition_symlink.test` expects). A name that exists fails
//! first (1050, before it waits), as the plain CREATE TABLE of that name, whatever its
//! partitions' directories or an absolute table-level one.
//!
//! Refused by name: a table-level DATA / INDEX DIRECTORY (a relative one fails with
//! ER_WRONG_TABLE_NAME 1103 before any lock, `append_file_to_dir` in
//! `sql/sql_parse.cc`, whose place against the implicit commit is not measured), and an
//! absolute directory (the file system's answer: error 1 for MyISAM, 1005 for
//! InnoDB partitions, and InnoDB creates a table-level one; ignored with warning 1618
//! under `sql_mode=NO_DIR_IN_CREATE`, which the model's sessions do not follow).

use super::{kw_eq, Bind, Cx, Effect, Stmt, Tbl, Tok};
use crate::kind::Kind;

/// ER_WRONG_ARGUMENTS.
pub const ER_WRONG_ARGUMENTS: u32 = 1210;

/// The directories written after `DATA DIRECTORY` / `INDEX DIRECTORY`, each with whether
/// it is inside the PARTITION BY clause.
fn directories(toks: &[Tok]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut in_partitions = false;
    for (i, t) in toks.iter().enumerate() {
        if kw_eq(t, "partition") && toks.get(i + 1).is_some_and(|n| kw_eq(n, "by")) {
            in_partitions = true;
        }
        if !kw_eq(t, "directory") {
            continue;
        }
        let value = toks[i + 1..]
            .iter()
            .take(2)
            .find_map(|v| match v {
                Tok::Str(s) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_default();
        out.push((value, in_partitions));
    }
    out
}

/// The plan of a CREATE TABLE `n` with DATA / INDEX DIRECTORY (`None`: it has none, or
/// it is played as the plain CREATE TABLE).
pub fn classify(cx: &Cx, toks: &[Tok], n: &Tbl) -> Option<Result<Stmt, String>> {
    let dirs = directories(toks);
    if dirs.is_empty() {
        return None;
    }
    let sql = cx.sql;
    let relative = |d: &str| !d.starts_with('/');
    let table_relative = dirs.iter().any(|(d, part)| !part && relative(d));
    let if_not_exists = toks
        .windows(3)
        .any(|w| kw_eq(&w[0], "if") && kw_eq(&w[1], "not") && kw_eq(&w[2], "exists"));
    if !table_relative && cx.cat.exists(n) && !if_not_exists {
        // The name taken: CREATE TABLE's own answer (1050 at once, measured: before the
        // directories are looked at), played as the plain CREATE TABLE.
        return None;
    }
    let table_level = dirs.iter().any(|(_, part)| !part);
    if table_level || !dirs.iter().any(|(d, _)| relative(d)) || cx.cat.exists(n) {
        return Some(Err(format!(
            "`{sql}`: CREATE TABLE with a table's DATA / INDEX DIRECTORY, or only absolute \
             ones (the file system's answer), or IF NOT EXISTS of a name that exists, is \
             not modelled"
        )));
    }
    if !cx.cat.has_schema(&n.db) {
        return Some(Err(format!(
            "`{sql}`: a partition's relative DATA / INDEX DIRECTORY in a schema that does \
             not exist is not modelled"
        )));
    }
    let p = cx.part(
        Kind::CreateTable,
        Bind {
            n: Some(n.clone()),
            ..Bind::default()
        },
    );
    Some(cx.plan(
        Kind::CreateTable,
        vec![p],
        Effect::Fail(ER_WRONG_ARGUMENTS),
        toks,
    ))
}
