//! `SET GLOBAL gtid_slave_pos = ...` and `SET GLOBAL gtid_binlog_state = ...` on the
//! harness's server (binary log off, no replication running), measured on 10.11.19
//! (suite/set-global-gtid-pos.mdl, from suite/rpl's `rpl_gtid_*` tests):
//!
//! - `DEFAULT` is ER_NO_DEFAULT (1230) for both, before anything else (`set_var::check`,
//!   sql/set_var.cc: neither variable has a default); for `gtid_slave_pos` a NULL is
//!   ER_WRONG_VALUE_FOR_VAR (1231) and a number ER_WRONG_TYPE_FOR_VAR (1232), also there;
//! - `Sys_var_gtid_slave_pos::do_check` / `Sys_var_gtid_binlog_state::do_check`
//!   (sql/sys_vars.cc): in an active transaction ER_CANT_DO_THIS_DURING_AN_TRANSACTION
//!   (1179: after BEGIN, or with autocommit off once a statement ran), then the value:
//!   `gtid_parse_string_to_list` (sql/rpl_gtid.cc, `gtid_parser_helper`: each GTID is
//!   `domain-server-seq`, each number read by `my_strtoll10`, so spaces and a `+` may lead
//!   it, a `-` may not; domain and server ids fit 32 bits; GTIDs are separated by `,` with
//!   nothing after the last) fails with ER_INCORRECT_GTID_STATE (1941), two GTIDs of one
//!   domain with ER_DUPLICATE_GTID_DOMAIN (1943);
//! - `gtid_binlog_state`'s update needs the binary log: ER_FLUSH_MASTER_BINLOG_CLOSED (1186)
//!   for any other value, also under LOCK TABLES or FTWRL;
//! - `gtid_slave_pos`'s update (`rpl_gtid_slave_state_set`, sql/rpl_gtid.cc) first empties
//!   the table `mysql.gtid_slave_pos` (`rpl_slave_state::truncate_state_table`:
//!   `open_and_lock_tables` of the table with MDL_EXCLUSIVE, then `ha_truncate`), then
//!   writes its rows (`record_gtid`): the locks of TRUNCATE TABLE of that table (the learned
//!   `truncate` row: BACKUP_DDL first, so behind another session's FTWRL it waits for
//!   BACKUP_DDL (measured); under LOCK TABLES that do not name it 1100, under the
//!   session's own FTWRL 1223), all released when the statement ends.
//!
//! Not modelled (refused): a value other than a string literal, DEFAULT, NULL, a number or
//! `@@global.gtid_binlog_pos` (which is empty with the binary log off); several
//! assignments; autocommit off outside a transaction (whether the table's locks outlive
//! the statement there was not measured).

use super::SqlModel;
use crate::classify::{classify, Stmt};
use crate::effect::Effect;

/// ER_NO_DEFAULT.
const ER_NO_DEFAULT: u32 = 1230;
/// ER_WRONG_VALUE_FOR_VAR.
const ER_WRONG_VALUE_FOR_VAR: u32 = 1231;
/// ER_WRONG_TYPE_FOR_VAR.
const ER_WRONG_TYPE_FOR_VAR: u32 = 1232;
/// ER_CANT_DO_THIS_DURING_AN_TRANSACTION.
const ER_CANT_DO_THIS_DURING_AN_TRANSACTION: u32 = 1179;
/// ER_INCORRECT_GTID_STATE.
const ER_INCORRECT_GTID_STATE: u32 = 1941;
/// ER_DUPLICATE_GTID_DOMAIN.
const ER_DUPLICATE_GTID_DOMAIN: u32 = 1943;
/// ER_FLUSH_MASTER_BINLOG_CLOSED.
const ER_FLUSH_MASTER_BINLOG_CLOSED: u32 = 1186;
/// ER_GLOBAL_VARIABLE: a GLOBAL-only variable set for the session.
const ER_GLOBAL_VARIABLE: u32 = 1229;

/// The value of the assignment, as the model reads it.
#[derive(Debug, PartialEq, Eq)]
enum Value {
    Default,
    Null,
    Number,
    Text(String),
}

/// Which variable, for which scope, set to what; None when the statement is not one
/// assignment of `gtid_slave_pos` / `gtid_binlog_state`, or its value is not read.
fn assignment(sql: &str) -> Option<(&'static str, bool, Option<Value>)> {
    let body = sql.trim().trim_end_matches(';').trim();
    let rest = strip_word(body, "set")?;
    let (global, rest) = if let Some(r) = strip_word(rest, "global") {
        (true, r)
    } else if let Some(r) = strip_prefix_ci(rest, "@@global.") {
        (true, r)
    } else if let Some(r) = strip_word(rest, "session").or_else(|| strip_word(rest, "local")) {
        (false, r)
    } else if let Some(r) = strip_prefix_ci(rest, "@@session.") {
        (false, r)
    } else {
        (false, rest)
    };
    let name = ["gtid_slave_pos", "gtid_binlog_state"]
        .into_iter()
        .find(|n| {
            strip_prefix_ci(rest, n).is_some_and(|r| r.trim_start().starts_with(['=', ':']))
        })?;
    let r = strip_prefix_ci(rest, name)?.trim_start();
    let v = r.strip_prefix(":=").or_else(|| r.strip_prefix('='))?.trim();
    Some((name, global, value(v)))
}

fn value(v: &str) -> Option<Value> {
    let lower = v.to_ascii_lowercase();
    match lower.as_str() {
        "default" => return Some(Value::Default),
        "null" => return Some(Value::Null),
        "@@global.gtid_binlog_pos" | "@@gtid_binlog_pos" => {
            return Some(Value::Text(String::new()))
        }
        _ => {}
    }
    if !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Some(Value::Number);
    }
    let q = v.chars().next()?;
    if (q == '\'' || q == '"') && v.len() >= 2 && v.ends_with(q) {
        let inner = &v[1..v.len() - 1];
        if !inner.contains(q) && !inner.contains('\\') {
            return Some(Value::Text(inner.to_owned()));
        }
    }
    None
}

fn strip_prefix_ci<'a>(s: &'a str, p: &str) -> Option<&'a str> {
    (s.len() >= p.len() && s.is_char_boundary(p.len()) && s[..p.len()].eq_ignore_ascii_case(p))
        .then(|| &s[p.len()..])
}

/// `s` without its first word `w` and the spaces after it.
fn strip_word<'a>(s: &'a str, w: &str) -> Option<&'a str> {
    let r = strip_prefix_ci(s, w)?;
    r.starts_with(char::is_whitespace).then(|| r.trim_start())
}

/// The error `gtid_parse_string_to_list` gives the text, or None when it is a list of
/// GTIDs with one per domain.
fn gtid_list_error(s: &str) -> Option<u32> {
    if s.is_empty() {
        return None;
    }
    let mut domains = Vec::new();
    for g in s.split(',') {
        let parts: Vec<&str> = g.split('-').collect();
        let [d, sv, seq] = parts.as_slice() else {
            return Some(ER_INCORRECT_GTID_STATE);
        };
        // The last number is followed by `,` or the end; the first two by `-`.
        let (Some(d), Some(_), Some(_)) = (
            number(d, u32::MAX.into()),
            number(sv, u32::MAX.into()),
            number(seq, u64::MAX),
        ) else {
            return Some(ER_INCORRECT_GTID_STATE);
        };
        if domains.contains(&d) {
            return Some(ER_DUPLICATE_GTID_DOMAIN);
        }
        domains.push(d);
    }
    None
}

/// A number as `my_strtoll10` reads it: spaces, an optional `+`, digits, nothing after
/// (a space after the number is not skipped), at most `max`.
fn number(s: &str, max: u64) -> Option<u64> {
    let t = s.trim_start();
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<u64>().ok().filter(|n| *n <= max)
}

impl SqlModel {
    /// The statement of session `s` if it sets `gtid_slave_pos` or `gtid_binlog_state`
    /// in a way this file reads, else None (`misc::set_global` refuses it).
    pub(super) fn gtid_pos_classify(&self, s: usize, sql: &str) -> Option<Result<Stmt, String>> {
        let (name, global, v) = assignment(sql)?;
        if !global {
            return Some(Ok(Stmt::Fails(ER_GLOBAL_VARIABLE)));
        }
        let v = v?;
        let st = &self.sessions[s].session;
        let code = match (&v, name) {
            (Value::Default, _) => Some(ER_NO_DEFAULT),
            (Value::Null, "gtid_slave_pos") => Some(ER_WRONG_VALUE_FOR_VAR),
            (Value::Number, "gtid_slave_pos") => Some(ER_WRONG_TYPE_FOR_VAR),
            _ if st.in_txn => Some(ER_CANT_DO_THIS_DURING_AN_TRANSACTION),
            (_, "gtid_binlog_state") => Some(ER_FLUSH_MASTER_BINLOG_CLOSED),
            (Value::Text(t), _) => gtid_list_error(t),
            _ => return None,
        };
        if let Some(code) = code {
            return Some(Ok(Stmt::Fails(code)));
        }
        if !st.autocommit {
            return Some(Err(format!(
                "`{sql}`: SET GLOBAL gtid_slave_pos with autocommit off is not modelled"
            )));
        }
        // The table emptied as TRUNCATE does (the catalog has no `mysql` table: no effect).
        let has = |r: &str| self.map.kind(r).is_some();
        let trunc = "TRUNCATE TABLE mysql.gtid_slave_pos";
        Some(
            classify(trunc, &st.db, &self.catalog, &has)
                .map(|st| match st {
                    Stmt::Learned(mut p) => {
                        p.effect = Effect::None;
                        Stmt::Learned(p)
                    }
                    st => st,
                })
                .map_err(|e| format!("`{sql}`: the write of mysql.gtid_slave_pos: {e}")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtid_lists() {
        for ok in ["", "0-1-2", " 1-2-3", "1-2-3, 2-4-6", " +1- 2- 3", "01-2-3"] {
            assert_eq!(gtid_list_error(ok), None, "{ok}");
        }
        for bad in [
            "1-2-3,2-4",
            "1-2-3 ",
            "1-2 -3",
            "-1-2-3",
            "abc",
            "1-2-3,",
            ",",
            "   ",
            "4294967296-1-1",
            "1-2-3x",
        ] {
            assert_eq!(gtid_list_error(bad), Some(ER_INCORRECT_GTID_STATE), "{bad}");
        }
        assert_eq!(
            gtid_list_error("0-1-10,0-2-20"),
            Some(ER_DUPLICATE_GTID_DOMAIN)
        );
    }

    #[test]
    fn assignments() {
        let a = assignment("SET GLOBAL gtid_slave_pos= '1-2-3'").unwrap();
        assert_eq!(
            a,
            ("gtid_slave_pos", true, Some(Value::Text("1-2-3".into())))
        );
        let a = assignment("set @@global.gtid_slave_pos=@@global.gtid_binlog_pos").unwrap();
        assert_eq!(a.2, Some(Value::Text(String::new())));
        let a = assignment("SET GLOBAL gtid_binlog_state = @old_state").unwrap();
        assert_eq!(a.2, None);
        assert!(!assignment("SET gtid_slave_pos = ''").unwrap().1);
        assert!(assignment("SET GLOBAL gtid_strict_mode = 1").is_none());
    }
}
