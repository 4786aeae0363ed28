//! `BINLOG 'base64'` (sql/sql_binlog.cc, `mysql_client_binlog_statement`), the errors it
//! gives before it applies an event, which open no table and take no lock (measured on
//! 10.11.19: suite/binlog-errors.mdl; SQLCOM_BINLOG_BASE64_EVENT commits nothing):
//!
//! - an empty string: ER_SYNTAX_ERROR (1149);
//! - text that is not base64 (`my_base64_decode` with MY_BASE64_DECODE_ALLOW_MULTIPLE_CHUNKS:
//!   blanks are skipped, `=` pads a chunk's end, a character outside the alphabet or a
//!   chunk cut short is an error): ER_BASE64_DECODE_ERROR (1575); only blanks: ok;
//! - an event shorter than its header's length field (fewer than 13 bytes, or a length
//!   beyond the bytes decoded): ER_SYNTAX_ERROR (1149);
//! - `check_event_type`: a format description event (or START_EVENT_V3) is always allowed
//!   and gives the session its description event (`rli_fake`'s `description_event_for_exec`,
//!   kept until the session ends); a row event or TABLE_MAP_EVENT before the session has
//!   one is ER_NO_FORMAT_DESCRIPTION_EVENT_BEFORE_BINLOG_STATEMENT (1609); any other event
//!   ER_ONLY_FD_AND_RBR_EVENTS_ALLOWED_IN_BINLOG_STATEMENT (1730).
//!
//! A row event after a description event is applied: it opens and locks its table, which
//! the model does not decode (refused). A format description event alone is
//! `classify/one_offs.rs`'s (no lock); a malformed one is the server's 1149, which the
//! model does not check (it answers ok, as before).

use super::SqlModel;
use crate::classify::Stmt;

const ER_SYNTAX_ERROR: u32 = 1149;
const ER_BASE64_DECODE_ERROR: u32 = 1575;
const ER_NO_FORMAT_DESCRIPTION_EVENT: u32 = 1609;
const ER_ONLY_FD_AND_RBR_EVENTS: u32 = 1730;

/// sql/log_event.h's `Log_event_type` codes.
const START_EVENT_V3: u8 = 1;
const FORMAT_DESCRIPTION_EVENT: u8 = 15;
/// TABLE_MAP_EVENT, the PRE_GA / V1 / V2 row events (`check_event_type`'s row cases).
const ROW_EVENTS: &[u8] = &[19, 20, 21, 22, 23, 24, 25, 30, 31, 32];
/// `EVENT_TYPE_OFFSET`, `EVENT_LEN_OFFSET` of the event header.
const TYPE_AT: usize = 4;
const LEN_AT: usize = 9;

/// The bytes of `text` as `my_base64_decode` reads it, chunk after chunk; None when it is
/// not base64.
fn decode(text: &str) -> Option<Vec<u8>> {
    let val = |c: char| match c {
        'A'..='Z' => Some(c as u32 - 'A' as u32),
        'a'..='z' => Some(c as u32 - 'a' as u32 + 26),
        '0'..='9' => Some(c as u32 - '0' as u32 + 52),
        '+' => Some(62),
        '/' => Some(63),
        _ => None,
    };
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    for quad in chars.chunks(4) {
        if quad.len() < 4 {
            return None;
        }
        let pad = quad.iter().rev().take_while(|c| **c == '=').count();
        if pad > 2 || quad[..4 - pad].contains(&'=') {
            return None;
        }
        let mut n = 0u32;
        for c in &quad[..4 - pad] {
            n = (n << 6) | val(*c)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

/// What the statement's events give: an error before any lock, ok with no lock (a
/// description event, or no event), or a row event to apply (None).
fn events(text: &str, has_fd: &mut bool) -> Option<Option<u32>> {
    if text.is_empty() {
        return Some(Some(ER_SYNTAX_ERROR));
    }
    let Some(bytes) = decode(text) else {
        return Some(Some(ER_BASE64_DECODE_ERROR));
    };
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        if rest.len() < LEN_AT + 4 {
            return Some(Some(ER_SYNTAX_ERROR));
        }
        let len = u32::from_le_bytes([
            rest[LEN_AT],
            rest[LEN_AT + 1],
            rest[LEN_AT + 2],
            rest[LEN_AT + 3],
        ]) as usize;
        if len > rest.len() {
            return Some(Some(ER_SYNTAX_ERROR));
        }
        match rest[TYPE_AT] {
            START_EVENT_V3 | FORMAT_DESCRIPTION_EVENT => *has_fd = true,
            t if ROW_EVENTS.contains(&t) => {
                if !*has_fd {
                    return Some(Some(ER_NO_FORMAT_DESCRIPTION_EVENT));
                }
                return None;
            }
            _ => return Some(Some(ER_ONLY_FD_AND_RBR_EVENTS)),
        }
        if len == 0 {
            // (`read_log_event` refuses an empty event: the server's 1149.)
            return Some(Some(ER_SYNTAX_ERROR));
        }
        at += len;
    }
    Some(None)
}

/// `BINLOG 'text'`: the string's text, when the statement is that (no escapes in it).
fn binlog_text(sql: &str) -> Option<&str> {
    let body = sql.trim().trim_end_matches(';').trim();
    let (w, rest) = body.split_at(body.find(char::is_whitespace)?);
    if !w.eq_ignore_ascii_case("binlog") {
        return None;
    }
    let rest = rest.trim();
    let q = rest.chars().next()?;
    if !(q == '\'' || q == '"') || rest.len() < 2 || !rest.ends_with(q) {
        return None;
    }
    let inner = &rest[1..rest.len() - 1];
    (!inner.contains(q) && !inner.contains('\\')).then_some(inner)
}

impl SqlModel {
    /// The BINLOG statement of session `s` when its events decide it before any lock,
    /// else None (`classify/one_offs.rs` reads it).
    pub(super) fn binlog_classify(&mut self, s: usize, sql: &str) -> Option<Result<Stmt, String>> {
        let text = binlog_text(sql)?;
        let mut fd = self.sessions[s].session.binlog_fd;
        let out = events(text, &mut fd);
        // The description event stays the session's, whatever the statement's end.
        self.sessions[s].session.binlog_fd = fd;
        match out? {
            Some(code) => Some(Ok(Stmt::Fails(code))),
            None => Some(Ok(Stmt::NoLocks)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, fd: bool) -> (Option<Option<u32>>, bool) {
        let mut fd = fd;
        (events(text, &mut fd), fd)
    }

    #[test]
    fn binlog_events() {
        assert_eq!(run("", false).0, Some(Some(ER_SYNTAX_ERROR)));
        assert_eq!(run("   ", false).0, Some(None));
        assert_eq!(run("123", false).0, Some(Some(ER_BASE64_DECODE_ERROR)));
        assert_eq!(
            run("-2079193929", false).0,
            Some(Some(ER_BASE64_DECODE_ERROR))
        );
        assert_eq!(run("AAAA", false).0, Some(Some(ER_SYNTAX_ERROR)));
        assert_eq!(
            run("AAAAAAAAAAAAAAAAAAAA", false).0,
            Some(Some(ER_ONLY_FD_AND_RBR_EVENTS))
        );
        let rows = " SVtYRxMBAAAAKQAAADQBAAAAABAAAAAAAAAABHRlc3QAAnQxAAEDAAE= \
                    SVtYRxcBAAAAIgAAAFYBAAAQABAAAAAAAAEAAf/+AgAAAA== ";
        assert_eq!(
            run(rows, false).0,
            Some(Some(ER_NO_FORMAT_DESCRIPTION_EVENT))
        );
        assert_eq!(run(rows, true).0, None);
        assert_eq!(binlog_text("BINLOG ''"), Some(""));
        assert_eq!(binlog_text("BINLOG @a, @b"), None);
    }
}
