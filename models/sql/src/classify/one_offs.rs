//! Server one-offs of no table of the test schema (issue 27's families under 90 %),
//! measured on MariaDB 10.11.19 (`models/conformance/suite/plugin-and-binlog.mdl`):
//!
//! - `INSTALL PLUGIN name SONAME 'lib'`, `INSTALL SONAME 'lib'`, `UNINSTALL PLUGIN name`,
//!   `UNINSTALL SONAME 'lib'` (sql/sql_plugin.cc: `mysql_install_plugin` and
//!   `mysql_uninstall_plugin` open `mysql.plugin` with `open_ltable(..., TL_WRITE,
//!   MYSQL_LOCK_IGNORE_TIMEOUT)` before they take `LOCK_plugin`; SQLCOM_INSTALL_PLUGIN
//!   and SQLCOM_UNINSTALL_PLUGIN commit implicitly, even when they fail): the learned
//!   rows `install_plugin`, `uninstall_plugin` (BACKUP_TRANS_DML; the SW on
//!   `mysql.plugin` is of a system schema, which the harness does not compare), with
//!   their session rules (1100 under LOCK TABLES: `open_ltable` meets a table the
//!   session did not lock; 1223 under FTWRL or BACKUP LOCK; 4145 under BACKUP STAGE).
//!   Whether the library exists and the plugin is installed is the server's plugin
//!   directory's, not the catalog's: the model answers ok (the server's 1126, 1968 or
//!   1305 come after the same locks).
//! - `BINLOG 'base64'` of a format description event alone (sql/sql_binlog.cc:
//!   `mysql_client_binlog_statement`: a FORMAT_DESCRIPTION_EVENT only sets the
//!   session's description event, it opens no table; SQLCOM_BINLOG_BASE64_EVENT does not
//!   commit, measured: the transaction's SR stays, also under LOCK TABLES): no lock.
//!   Other events (row events open their tables) are refused.

use super::{Bind, Cx, Effect, Stmt, Tok};
use crate::kind::Kind;

/// FORMAT_DESCRIPTION_EVENT's type code (sql/log_event.h, `Log_event_type`).
const FORMAT_DESCRIPTION_EVENT: u8 = 15;

/// The statement if it is one of these, else None.
pub(super) fn classify(cx: &Cx, toks: &[Tok], words: &[String]) -> Option<Result<Stmt, String>> {
    let at = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    match (at(0), at(1)) {
        ("install", "plugin" | "soname") => Some(plugin(cx, toks, Kind::InstallPlugin)),
        ("uninstall", "plugin" | "soname") => Some(plugin(cx, toks, Kind::UninstallPlugin)),
        ("binlog", _) => Some(binlog(cx.sql, toks)),
        _ => None,
    }
}

/// `[UN]INSTALL PLUGIN name [SONAME 'lib']` / `[UN]INSTALL SONAME 'lib'`.
fn plugin(cx: &Cx, toks: &[Tok], kind: Kind) -> Result<Stmt, String> {
    let sql = cx.sql;
    let shape_ok = match toks.get(1) {
        Some(t) if super::kw_eq(t, "soname") => {
            matches!(toks.get(2), Some(Tok::Str(_))) && toks.len() == 3
        }
        _ => match (kind, toks.len()) {
            (Kind::UninstallPlugin, 3) => matches!(toks.get(2), Some(Tok::Word { .. })),
            (Kind::InstallPlugin, 5) => {
                matches!(toks.get(2), Some(Tok::Word { .. }))
                    && toks.get(3).is_some_and(|t| super::kw_eq(t, "soname"))
                    && matches!(toks.get(4), Some(Tok::Str(_)))
            }
            _ => false,
        },
    };
    if !shape_ok {
        return Err(format!("`{sql}`: this form of {kind} is not modelled"));
    }
    if !(cx.has_row)(kind.as_str()) {
        return Err(format!("`{sql}`: `{kind}` is not in the learned table"));
    }
    cx.plan(
        kind,
        vec![cx.part(kind, Bind::default())],
        Effect::None,
        toks,
    )
}

/// `BINLOG 'base64'`: a format description event alone takes no lock.
fn binlog(sql: &str, toks: &[Tok]) -> Result<Stmt, String> {
    let Some(Tok::Str(b64)) = toks.get(1) else {
        return Err(format!(
            "`{sql}`: BINLOG of anything but a string is not modelled"
        ));
    };
    if toks.len() != 2 {
        return Err(format!(
            "`{sql}`: BINLOG with more than one string is not modelled"
        ));
    }
    match event_type(b64) {
        Some(FORMAT_DESCRIPTION_EVENT) => Ok(Stmt::NoLocks),
        _ => Err(format!(
            "`{sql}`: BINLOG of an event other than a format description event (row events \
             open their tables) is not modelled"
        )),
    }
}

/// The type code of the first event of `b64` (base64, blanks ignored, as
/// `my_base64_decode` skips them): the fifth byte of the event header.
fn event_type(b64: &str) -> Option<u8> {
    let vals: Vec<u8> = b64
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(8)
        .map(|c| match c {
            'A'..='Z' => Some(c as u8 - b'A'),
            'a'..='z' => Some(c as u8 - b'a' + 26),
            '0'..='9' => Some(c as u8 - b'0' + 52),
            '+' => Some(62),
            '/' => Some(63),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if vals.len() < 8 {
        return None;
    }
    // Characters 4..8 are bytes 3..6: byte 4 is the low 4 bits of the 6th character
    // and the high 4 bits of the 7th.
    Some(((vals[5] & 0x0f) << 4) | (vals[6] >> 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_description_event_is_read_from_the_header() {
        // main/flush_read_lock.test's event: type 0x0f.
        let b64 = " MfmqTA8BAAAAZwAAAGsAAAABAAQANS41LjctbTMt";
        assert_eq!(event_type(b64), Some(FORMAT_DESCRIPTION_EVENT));
        // A TABLE_MAP_EVENT (19 = 0x13): bytes 00 00 00 00 13 -> "AAAAABM".
        assert_eq!(event_type("AAAAABMB"), Some(19));
        assert_eq!(event_type("AA"), None);
    }
}
