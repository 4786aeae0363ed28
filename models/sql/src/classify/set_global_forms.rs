//! SET GLOBAL forms beside `misc::set_global`'s one-literal assignments (sql/sys_vars.cc,
//! sql/set_var.cc `set_var::check` / `set_var::update`: a global variable takes no
//! metadata lock and commits nothing; the learned `set_global` row):
//!
//! - the debug variables of a debug build (`debug`, `debug_dbug`, `debug_sync`): the
//!   harness's server is a release build (DBUG_OFF, no ENABLED_DEBUG_SYNC), where
//!   sys_vars.cc does not declare them, so the parser's `find_sys_var` fails with
//!   ER_UNKNOWN_SYSTEM_VARIABLE before anything runs;
//! - `SET GLOBAL TRANSACTION ISOLATION LEVEL ...` and `... READ WRITE` (the defaults of new
//!   sessions: `Sys_var_tx_isolation`, `Sys_var_tx_read_only`; the model never makes the
//!   global READ ONLY, so READ WRITE changes nothing it plays);
//! - a variable set to its own session value (`SET GLOBAL v = @@session.v`,
//!   `@@local.v`, `@@v`): a value the variable always takes.
//!
//! Measured: suite/set-global-forms.mdl.

use super::{Cx, Effect, Stmt, Tok};
use crate::kind::Kind;
use crate::stmt::Bind;

/// ER_UNKNOWN_SYSTEM_VARIABLE.
pub const ER_UNKNOWN_SYSTEM_VARIABLE: u32 = 1193;

/// The variables of a debug build only.
const DEBUG_ONLY: &[&str] = &["debug", "debug_dbug", "debug_sync"];

/// One assignment of a SET: the variable's name (lower case) and its value's tokens.
pub(super) struct Assign<'a> {
    pub(super) name: String,
    pub(super) value: &'a [Tok],
}

/// The statement if it is one of this file's forms (`toks`: the whole `SET GLOBAL ...`).
pub(super) fn classify(cx: &Cx, toks: &[Tok], words: &[String]) -> Option<Result<Stmt, String>> {
    let rest = &toks[1.min(toks.len())..];
    let list = assignments(rest);
    if list.iter().any(|a| DEBUG_ONLY.contains(&a.name.as_str())) {
        return Some(Ok(Stmt::Fails(ER_UNKNOWN_SYSTEM_VARIABLE)));
    }
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let no_lock = || {
        Some(cx.plan(
            Kind::SetGlobal,
            vec![cx.part(Kind::SetGlobal, Bind::default())],
            Effect::None,
            toks,
        ))
    };
    match w.as_slice() {
        ["set", "global", "transaction", "isolation", "level", "read", "uncommitted" | "committed"]
        | ["set", "global", "transaction", "isolation", "level", "repeatable", "read"]
        | ["set", "global", "transaction", "isolation", "level", "serializable"] => {
            return no_lock()
        }
        ["set", "global", "transaction", "read", "write"] => return no_lock(),
        _ => {}
    }
    if !list.is_empty() && list.iter().all(own_session_value) {
        return no_lock();
    }
    None
}

/// `v = @@session.v` (or `@@local.v`, `@@v`).
fn own_session_value(a: &Assign) -> bool {
    let word =
        |t: &Tok, w: &str| matches!(t, Tok::Word { text, .. } if text.eq_ignore_ascii_case(w));
    let name = |t: &Tok| matches!(t, Tok::Word { text, .. } if text.eq_ignore_ascii_case(&a.name));
    match a.value {
        [v] => word(v, &format!("@@{}", a.name)),
        [scope, Tok::P('.'), n] => (word(scope, "@@session") || word(scope, "@@local")) && name(n),
        _ => false,
    }
}

/// The assignments of `GLOBAL a = v, [GLOBAL] b = v, @@global.c = v` (a top-level comma
/// ends one); those that are not `name = value` are left out.
pub(super) fn assignments(toks: &[Tok]) -> Vec<Assign<'_>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for i in 0..=toks.len() {
        match toks.get(i) {
            Some(Tok::P('(')) => depth += 1,
            Some(Tok::P(')')) => depth -= 1,
            Some(Tok::P(',')) if depth == 0 => {}
            None => {}
            _ => continue,
        }
        if i < toks.len() && toks[i] != Tok::P(',') {
            continue;
        }
        if let Some(a) = assignment(&toks[start..i]) {
            out.push(a);
        }
        start = i + 1;
    }
    out
}

fn assignment(a: &[Tok]) -> Option<Assign<'_>> {
    let word = |t: Option<&Tok>| match t {
        Some(Tok::Word { text, .. }) => Some(text.to_ascii_lowercase()),
        _ => None,
    };
    let mut i = 0;
    match word(a.first()).as_deref() {
        Some("global" | "session" | "local") => i = 1,
        Some("@@global" | "@@session" | "@@local") if a.get(1) == Some(&Tok::P('.')) => i = 2,
        _ => {}
    }
    let name = word(a.get(i))?;
    let eq = a.iter().position(|t| *t == Tok::P('='))?;
    (eq == i + 1 || (eq == i + 2 && a.get(i + 1) == Some(&Tok::P(':')))).then_some(Assign {
        name,
        value: &a[eq + 1..],
    })
}
