//! A SELECT of several user-level lock functions (`SELECT GET_LOCK('a', 10), GET_LOCK('b',
//! 10)`, with RELEASE_LOCK, RELEASE_ALL_LOCKS, IS_FREE_LOCK, IS_USED_LOCK among them): one
//! call per column, in order. The server evaluates the select list left to right
//! (`Protocol::send_result_set_row`, sql/protocol.cc, sends each item in turn and stops at
//! the first error), and each function does its own work as it is evaluated
//! (sql/item_func.cc: `Item_func_get_lock::val_int` acquires its USER_LOCK with its own
//! timeout, `Item_func_release_lock::val_int` and `Item_func_release_all_locks::val_int`
//! release at once); the model plays the calls one after the other
//! (`model/user_locks.rs`).

use super::{kw_eq, Tok};
use crate::stmt::{Plan, UserLockCall};

/// The user-lock functions.
const FUNCS: [&str; 5] = [
    "get_lock",
    "release_lock",
    "release_all_locks",
    "is_free_lock",
    "is_used_lock",
];

/// `toks` call a user-lock function: a statement other than the SELECT [`calls`] reads
/// (DO, SET, a SELECT with FROM) is refused rather than played with no lock (`DO` goes on
/// past a failed call and is always ok, `mysql_do`: not modelled).
pub(super) fn mentions(toks: &[Tok]) -> bool {
    toks.windows(2).any(|w| {
        w[1] == Tok::P('(')
            && matches!(&w[0], Tok::Word { text, quoted: false }
                if FUNCS.iter().any(|f| text.eq_ignore_ascii_case(f)) && !text.to_ascii_lowercase().starts_with("is_"))
    })
}

/// The calls of `SELECT f(...) [[AS] alias], ...` when every column is one user-lock
/// function of literal arguments and there is no FROM: None when the statement is not such
/// a SELECT (no user-lock function, or a shape the caller refuses). `get` makes a
/// GET_LOCK's plan from its name and timeout (ms, `u64::MAX` for none).
pub(super) fn calls(
    toks: &[Tok],
    get: &dyn Fn(String, u64) -> Plan,
) -> Option<Result<Vec<UserLockCall>, String>> {
    if !toks.first().is_some_and(|t| kw_eq(t, "select")) {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    while i < toks.len() {
        let Some(Tok::Word {
            text,
            quoted: false,
        }) = toks.get(i)
        else {
            return None;
        };
        let f = text.to_ascii_lowercase();
        if !FUNCS.contains(&f.as_str()) || toks.get(i + 1) != Some(&Tok::P('(')) {
            return None;
        }
        let close = i + 2 + toks[i + 2..].iter().position(|t| *t == Tok::P(')'))?;
        let args: Vec<&Tok> = toks[i + 2..close]
            .iter()
            .filter(|t| **t != Tok::P(','))
            .collect();
        out.push(call(&f, &args, get));
        i = close + 1;
        // An alias: `AS x`, or a bare word.
        if toks.get(i).is_some_and(|t| kw_eq(t, "as")) {
            i += 1;
        }
        if matches!(toks.get(i), Some(Tok::Word { .. } | Tok::Str(_))) {
            i += 1;
        }
        match toks.get(i) {
            None => break,
            Some(Tok::P(',')) => i += 1,
            Some(_) => return None,
        }
    }
    Some(out.into_iter().collect())
}

fn call(f: &str, args: &[&Tok], get: &dyn Fn(String, u64) -> Plan) -> Result<UserLockCall, String> {
    let name = || match args.first() {
        Some(Tok::Str(s)) => Ok(s.clone()),
        _ => Err(format!("{f}: the lock name must be a string literal")),
    };
    Ok(match f {
        "release_all_locks" => UserLockCall::ReleaseAll,
        "release_lock" => UserLockCall::Release(name()?),
        "is_free_lock" => UserLockCall::IsFree(name()?),
        "is_used_lock" => UserLockCall::IsUsed(name()?),
        _ => {
            let n = name()?;
            match timeout_ms(&args[1..])? {
                Some(ms) => UserLockCall::Get(n.clone(), Box::new(get(n, ms))),
                None => UserLockCall::BadTimeout,
            }
        }
    })
}

/// GET_LOCK's timeout in milliseconds; None for a negative or NULL one, which
/// `Item_func_get_lock::val_int` refuses (ER_WRONG_VALUE_FOR_TYPE as a warning, the value
/// NULL, no lock: MDEV-4017, main/func_misc.result).
pub(super) fn timeout_ms(args: &[&Tok]) -> Result<Option<u64>, String> {
    match args {
        [Tok::Num(s)] => s
            .parse::<f64>()
            .map(|secs| Some((secs * 1000.0).round() as u64))
            .map_err(|_| format!("bad GET_LOCK timeout `{s}`")),
        [Tok::P('-'), Tok::Num(_)] => Ok(None),
        [t] if kw_eq(t, "null") => Ok(None),
        [] => Err("GET_LOCK needs a timeout".into()),
        t => Err(format!("bad GET_LOCK timeout {t:?}")),
    }
}

/// The columns of `sql`'s result that are GET_LOCK calls (with a valid timeout), when `sql` is a SELECT of
/// user-lock functions (see [`calls`]): how the harness reads a GET_LOCK's result
/// (1 got it, 0 timed out, NULL killed) from the server's row.
pub fn get_lock_columns(sql: &str) -> Option<Vec<usize>> {
    let toks = super::tokens(sql).ok()?;
    let dummy = |_: String, _: u64| {
        super::Plan::of(crate::kind::Kind::GetLock, Vec::new(), super::Effect::None)
    };
    let calls = calls(&toks, &dummy)?.ok()?;
    Some(
        calls
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c, UserLockCall::Get(..)))
            .map(|(i, _)| i)
            .collect(),
    )
}
