//! `ALTER TABLE t ... DROP FOREIGN KEY IF EXISTS name ...` of a table with no foreign key:
//! MariaDB's `handle_if_exists_options` (sql/sql_table.cc, called by `mysql_alter_table`
//! once `open_tables` holds SU and BACKUP_DDL) drops the operation with a note
//! (ER_CANT_DROP_FIELD_OR_KEY as a warning); the statement goes on with the others, and
//! with none left ends there (the "nothing to do" path: `AlterCols::Nothing`, the steps
//! cut after BACKUP_DDL). Played as the ALTER without those operations (classified
//! again). Any other foreign key operation in ALTER TABLE is refused
//! (`alter_algorithm::operation`).

use super::alter_rename::{split_ops, text};
use super::{AlterCols, Cx, Effect, Stmt, Tbl, Tok};
use crate::kind::Kind;

/// Whether one operation's tokens are `DROP FOREIGN KEY IF EXISTS name`.
fn drops_fk_if_exists(op: &[Tok]) -> bool {
    let words: Vec<String> = op
        .iter()
        .map(|t| match t {
            Tok::Word {
                text,
                quoted: false,
            } => text.to_ascii_lowercase(),
            _ => String::new(),
        })
        .collect();
    op.len() == 6 && words[..5] == ["drop", "foreign", "key", "if", "exists"]
}

/// The plan of an ALTER TABLE with `DROP FOREIGN KEY IF EXISTS` operations (`at` the
/// token index after the table name) of a table the catalog knows has no foreign key;
/// `None` when it has none of these operations.
pub fn classify(cx: &Cx, toks: &[Tok], t: &Tbl, at: usize) -> Option<Result<Stmt, String>> {
    let ops = split_ops(toks, at);
    let (dropped, kept): (Vec<_>, Vec<_>) = ops
        .iter()
        .partition(|&&(s, e)| drops_fk_if_exists(&toks[s..e]));
    if dropped.is_empty() {
        return None;
    }
    let sql = cx.sql;
    if !cx.cat.exists(t) || cx.cat.has_fk(t) {
        return Some(Err(format!(
            "`{sql}`: DROP FOREIGN KEY IF EXISTS of a table with foreign keys, or not there, \
             is not modelled"
        )));
    }
    if kept.is_empty() {
        // Nothing left: IX, SU and BACKUP_DDL, then the end (`AlterCols::Nothing`).
        let effect = Effect::Alter {
            t: t.clone(),
            forget_pk: false,
            cols: AlterCols::Nothing,
        };
        return Some(
            cx.on_table(Kind::AlterInstant, t)
                .and_then(|p| cx.plan(Kind::AlterInstant, vec![p], effect, toks)),
        );
    }
    let mut rest: Vec<Tok> = toks[..at].to_vec();
    for (i, &(s, e)) in kept.iter().enumerate() {
        if i > 0 {
            rest.push(Tok::P(','));
        }
        rest.extend_from_slice(&toks[s..e]);
    }
    Some(
        super::classify(&text(&rest), cx.db, cx.cat, cx.has_row)
            .map_err(|e| format!("`{sql}`: without its DROP FOREIGN KEY IF EXISTS: {e}")),
    )
}
