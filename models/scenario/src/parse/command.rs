//! The statements: the top-level lines (`kill`, `advance`, `expect`, `assert`) and a
//! step's command, with the parsers of their words (numbers, outcomes, keys, lock
//! types, durations and waits).

/// `expect SESSION error N` (version 5): the server's error code N after `error`.
pub(super) fn error_code(w: &mut Words) -> PResult<Expectation> {
    let n = number(w, "an error code after `error`")?;
    let code = u32::try_from(n).map_err(|_| (w.here(), "error code too large".to_owned()))?;
    Ok(Expectation::ErrorCode(code))
}

use super::lex::{found, is_session_name, split_commas, sql_text, PResult, SrcLine, Word, Words};
use super::{Parser, COMMANDS, OUTCOMES};
use crate::ast::{AssertKind, Command, Expectation, Item, WaitSpec};
use mdl_core::dialect::Dialect;
use mdl_core::key::MdlKey;
use mdl_core::{Duration, LockType, Outcome, WaitOption};
use std::collections::HashMap;

impl Parser<'_> {
    pub(super) fn top(
        &self,
        d: &Dialect,
        index: &HashMap<&str, usize>,
        l: &SrcLine,
        kw: &str,
    ) -> PResult<Item> {
        let mut w = Words {
            toks: &l.toks[1..],
            i: 0,
            end_col: l.end_col,
        };
        let item = match kw {
            "kill" => Item::Kill {
                session: session_ref(&mut w, index)?,
            },
            "advance" => Item::Advance {
                ms: number(&mut w, "a number of milliseconds")?,
            },
            "expect" => {
                let session = session_ref(&mut w, index)?;
                let t = w.next();
                let what = match t.map(|t| t.text.to_ascii_lowercase()) {
                    Some(x) if x == "tickets" => {
                        // `tickets N` or `tickets NS KEY N`.
                        let key = if w.toks.len() - w.i >= 3 {
                            Some(ns_key(d, &mut w)?)
                        } else {
                            None
                        };
                        let n = number(&mut w, "a number of tickets")?;
                        Expectation::Tickets {
                            key,
                            n: usize::try_from(n).map_err(|_| (w.here(), "too many".into()))?,
                        }
                    }
                    Some(x) if x == "holds" || x == "not-holds" => {
                        let (key, ty) = ns_key_type(d, &mut w)?;
                        if x == "holds" {
                            Expectation::Holds { key, ty }
                        } else {
                            Expectation::NotHolds { key, ty }
                        }
                    }
                    _ => match t.and_then(|t| Outcome::parse(&t.text)) {
                        Some(Outcome::Error) if w.peek().is_some() => error_code(&mut w)?,
                        Some(o) => Expectation::Outcome(o),
                        None => {
                            return Err((
                                t.map(|t| t.col).unwrap_or_else(|| w.here()),
                                format!(
                                    "expected an outcome ({OUTCOMES}), `holds`, \
                                     `not-holds` or `tickets`, found {}",
                                    found(t)
                                ),
                            ))
                        }
                    },
                };
                Item::Expect { session, what }
            }
            _ => {
                let t = w.next();
                let kind = match t.map(|t| t.text.to_ascii_lowercase()).as_deref() {
                    Some("never") => AssertKind::Never,
                    Some("sometimes") => AssertKind::Sometimes,
                    Some("eventually") => AssertKind::Eventually,
                    Some("bounded") => AssertKind::Bounded(0),
                    _ => {
                        return Err((
                            t.map(|t| t.col).unwrap_or_else(|| w.here()),
                            format!(
                                "expected `never`, `sometimes`, `eventually` or `bounded`, \
                                 found {}",
                                found(t)
                            ),
                        ))
                    }
                };
                let liveness = matches!(kind, AssertKind::Eventually | AssertKind::Bounded(_));
                let session = if !liveness && w.peek().is_some_and(|t| t.text == "*") {
                    w.next();
                    None
                } else {
                    Some(session_ref(&mut w, index)?)
                };
                let (kind, outcome) = match kind {
                    AssertKind::Bounded(_) => {
                        let n = number(&mut w, "a number of grants")?;
                        let n = u32::try_from(n)
                            .map_err(|_| (w.here(), format!("the bound {n} is too large")))?;
                        (AssertKind::Bounded(n), Outcome::Granted)
                    }
                    AssertKind::Eventually => {
                        let t = w.next();
                        if t.map(|t| t.text.to_ascii_lowercase()).as_deref() != Some("granted") {
                            return Err((
                                t.map(|t| t.col).unwrap_or_else(|| w.here()),
                                format!("expected `granted`, found {}", found(t)),
                            ));
                        }
                        (kind, Outcome::Granted)
                    }
                    k => (k, outcome(&mut w)?),
                };
                let at_line = if w.peek().is_some_and(|t| t.text.eq_ignore_ascii_case("at")) {
                    w.next();
                    let t = w.next();
                    if t.map(|t| t.text.to_ascii_lowercase()).as_deref() != Some("line") {
                        return Err((
                            t.map(|t| t.col).unwrap_or_else(|| w.here()),
                            format!("expected `line` after `at`, found {}", found(t)),
                        ));
                    }
                    Some(number(&mut w, "a line number")? as usize)
                } else {
                    None
                };
                Item::Assert {
                    kind,
                    session,
                    outcome,
                    at_line,
                }
            }
        };
        done(&w)?;
        Ok(item)
    }

    pub(super) fn command(
        &self,
        d: &Dialect,
        l: &SrcLine,
        toks: &[Word],
        end: usize,
    ) -> PResult<Command> {
        let mut w = Words {
            toks,
            i: 0,
            end_col: end,
        };
        let Some(t) = w.next() else {
            return Err((
                end,
                format!("expected a command ({COMMANDS}), found end of line"),
            ));
        };
        let name = t.text.to_ascii_lowercase();
        let cmd = match name.as_str() {
            "acquire" => {
                let (key, ty) = ns_key_type(d, &mut w)?;
                let (dur, wait) = dur_wait(
                    &mut w,
                    Options {
                        duration: true,
                        last: true,
                    },
                )?;
                Command::Acquire {
                    key,
                    ty,
                    dur: dur.unwrap_or(Duration::Transaction),
                    wait,
                }
            }
            "acquire_all" => acquire_all(d, &mut w, toks, end)?,
            "upgrade" => {
                let (key, ty) = ns_key_type(d, &mut w)?;
                let (_, wait) = dur_wait(
                    &mut w,
                    Options {
                        duration: false,
                        last: true,
                    },
                )?;
                Command::Upgrade { key, ty, wait }
            }
            "downgrade" => {
                let (key, ty) = ns_key_type(d, &mut w)?;
                Command::Downgrade { key, ty }
            }
            "clone" => clone(d, &mut w)?,
            "release" => {
                let key = ns_key(d, &mut w)?;
                let ty = match w.peek() {
                    None => None,
                    Some(_) => Some(lock_type(d, &mut w)?),
                };
                Command::Release { key, ty }
            }
            "end_statement" => Command::EndStatement,
            "commit" => Command::Commit,
            "rollback" => Command::Rollback,
            "release_explicit" => Command::ReleaseExplicit,
            "savepoint" | "rollback_to" => {
                let n = w.next().ok_or_else(|| {
                    (
                        w.here(),
                        "expected a savepoint name, found end of line".into(),
                    )
                })?;
                if name == "savepoint" {
                    Command::Savepoint(n.text.clone())
                } else {
                    Command::RollbackTo(n.text.clone())
                }
            }
            "set_duration" => Command::SetDuration(duration(&mut w)?),
            "force_dml_weight" => Command::ForceDmlWeight(on_off(&mut w)?),
            "disconnect" => Command::Disconnect,
            "sql" => {
                let text = sql_text(l.raw, t.off + t.text.len());
                if text.is_empty() {
                    return Err((t.end_col(), "expected an SQL statement after `sql`".into()));
                }
                w.i = toks.len();
                Command::Sql(text)
            }
            _ => {
                return Err((
                    t.col,
                    format!("expected a command ({COMMANDS}), found `{}`", t.text),
                ))
            }
        };
        done(&w)?;
        Ok(cmd)
    }
}

/// `acquire_all [DURATION] [WAIT] NS KEY TYPE, NS KEY TYPE, ...`: the words after
/// `acquire_all`.
fn acquire_all(d: &Dialect, w: &mut Words, toks: &[Word], end: usize) -> PResult<Command> {
    let (dur, wait) = dur_wait(
        w,
        Options {
            duration: true,
            last: false,
        },
    )?;
    let rest = split_commas(&toks[w.i..]);
    let mut b = Words {
        toks: &rest,
        i: 0,
        end_col: end,
    };
    let mut reqs = Vec::new();
    loop {
        reqs.push(ns_key_type(d, &mut b)?);
        match b.next() {
            None => break,
            Some(c) if c.text == "," => continue,
            Some(c) => {
                return Err((
                    c.col,
                    format!("expected `,` or end of line, found `{}`", c.text),
                ))
            }
        }
    }
    w.i = toks.len();
    Ok(Command::AcquireAll {
        dur: dur.unwrap_or(Duration::Transaction),
        wait,
        reqs,
    })
}

/// `clone NS KEY [TYPE] [DURATION]`: the words after `clone`.
fn clone(d: &Dialect, w: &mut Words) -> PResult<Command> {
    let key = ns_key(d, w)?;
    let mut ty = None;
    let mut dur = None;
    while let Some(t) = w.peek() {
        if let Some(x) = Duration::parse(&t.text) {
            if dur.replace(x).is_some() {
                return Err((t.col, "the duration is given twice".into()));
            }
        } else if let Some(x) = type_named(d, &t.text) {
            if ty.replace(x).is_some() {
                return Err((t.col, "the lock type is given twice".into()));
            }
        } else {
            return Err((
                t.col,
                format!(
                    "expected a lock type, a duration or end of line, found `{}`",
                    t.text
                ),
            ));
        }
        w.next();
    }
    Ok(Command::Clone {
        key,
        ty,
        dur: dur.unwrap_or(Duration::Explicit),
    })
}

/// `set_duration DURATION`: the duration.
fn duration(w: &mut Words) -> PResult<Duration> {
    let t = w.next();
    match t.and_then(|t| Duration::parse(&t.text)) {
        Some(x) => Ok(x),
        None => Err((
            t.map(|t| t.col).unwrap_or_else(|| w.here()),
            format!(
                "expected a duration (statement, transaction, explicit), \
                 found {}",
                found(t)
            ),
        )),
    }
}

/// `force_dml_weight on|off`: true for `on`.
fn on_off(w: &mut Words) -> PResult<bool> {
    let t = w.next();
    match t.map(|t| t.text.to_ascii_lowercase()).as_deref() {
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        _ => Err((
            t.map(|t| t.col).unwrap_or_else(|| w.here()),
            format!("expected `on` or `off`, found {}", found(t)),
        )),
    }
}

pub(super) fn done(w: &Words) -> PResult<()> {
    match w.peek() {
        None => Ok(()),
        Some(t) => Err((t.col, format!("expected end of line, found `{}`", t.text))),
    }
}

pub(super) fn number(w: &mut Words, what: &str) -> PResult<u64> {
    let t = w.next();
    t.and_then(|t| t.text.parse::<u64>().ok()).ok_or_else(|| {
        (
            t.map(|t| t.col).unwrap_or_else(|| w.here()),
            format!("expected {what}, found {}", found(t)),
        )
    })
}

pub(super) fn outcome(w: &mut Words) -> PResult<Outcome> {
    let t = w.next();
    t.and_then(|t| Outcome::parse(&t.text)).ok_or_else(|| {
        (
            t.map(|t| t.col).unwrap_or_else(|| w.here()),
            format!("expected an outcome ({OUTCOMES}), found {}", found(t)),
        )
    })
}

pub(super) fn session_ref(w: &mut Words, index: &HashMap<&str, usize>) -> PResult<usize> {
    let t = w.next();
    let Some(t) = t else {
        return Err((
            w.here(),
            "expected a session name, found end of line".into(),
        ));
    };
    if !is_session_name(&t.text) {
        return Err((
            t.col,
            format!("expected a session name, found `{}`", t.text),
        ));
    }
    index.get(t.text.as_str()).copied().ok_or_else(|| {
        (
            t.col,
            format!("unknown session `{}`: it has no step in this file", t.text),
        )
    })
}

pub(super) fn ns_key(d: &Dialect, w: &mut Words) -> PResult<MdlKey> {
    let t = w.next();
    let Some(t) = t else {
        return Err((
            w.here(),
            format!("expected a namespace of {}, found end of line", d.name),
        ));
    };
    let Some(ns) = d.namespace_by_name(&t.text) else {
        let names: Vec<&str> = d.namespaces.iter().map(|n| n.name.as_str()).collect();
        return Err((
            t.col,
            format!(
                "expected a namespace of {} ({}), found `{}`",
                d.name,
                names.join(", "),
                t.text
            ),
        ));
    };
    let k = w.next();
    let Some(k) = k else {
        return Err((w.here(), "expected a key, found end of line".into()));
    };
    MdlKey::in_namespace(d, ns, &k.text).map_err(|m| (k.col, format!("bad key `{}`: {m}", k.text)))
}

/// The type `s` names: one of the dialect's types, else a built-in type (which a
/// namespace of the dialect does not take: the step's outcome is then `error`, as for a
/// built-in type a namespace does not take under version 1).
pub(super) fn type_named(d: &Dialect, s: &str) -> Option<LockType> {
    d.parse_type(s).or_else(|| LockType::parse(s))
}

pub(super) fn lock_type(d: &Dialect, w: &mut Words) -> PResult<LockType> {
    let t = w.next();
    t.and_then(|t| type_named(d, &t.text)).ok_or_else(|| {
        (
            t.map(|t| t.col).unwrap_or_else(|| w.here()),
            format!("expected a lock type, found {}", found(t)),
        )
    })
}

pub(super) fn ns_key_type(d: &Dialect, w: &mut Words) -> PResult<(MdlKey, LockType)> {
    let k = ns_key(d, w)?;
    let t = lock_type(d, w)?;
    Ok((k, t))
}

/// A wait option word, if `t` is one.
pub(super) fn wait_word(t: &Word) -> Option<PResult<WaitOption>> {
    let low = t.text.to_ascii_lowercase();
    if low == "nowait" {
        return Some(Ok(WaitOption::NoWait));
    }
    let ms = low.strip_prefix("timeout=")?;
    Some(ms.parse::<u64>().map(WaitOption::millis).map_err(|_| {
        (
            t.col + "timeout=".len(),
            format!(
                "expected a number of milliseconds after `timeout=`, found `{}`",
                &t.text["timeout=".len()..]
            ),
        )
    }))
}

/// Which option words a command takes after its key (see [`dur_wait`]).
#[derive(Clone, Copy)]
pub(super) struct Options {
    /// A `DURATION` word may come (`upgrade` takes none).
    pub(super) duration: bool,
    /// The options end the line: any other word is an error (`acquire_all`'s requests
    /// follow its options).
    pub(super) last: bool,
}

/// Optional `[DURATION]` and `[WAIT]` words, in either order, each at most once. Stops
/// at the first word that is neither.
pub(super) fn dur_wait(w: &mut Words, opts: Options) -> PResult<(Option<Duration>, WaitSpec)> {
    let Options {
        duration: allow_dur,
        last: tail,
    } = opts;
    let mut dur = None;
    let mut wait = WaitSpec::Default;
    while let Some(t) = w.peek() {
        if allow_dur {
            if let Some(x) = Duration::parse(&t.text) {
                if dur.replace(x).is_some() {
                    return Err((t.col, "the duration is given twice".into()));
                }
                w.next();
                continue;
            }
        }
        if let Some(x) = wait_word(t) {
            let x = x?;
            if wait != WaitSpec::Default {
                return Err((t.col, "the wait option is given twice".into()));
            }
            wait = WaitSpec::Given(x);
            w.next();
            continue;
        }
        if tail {
            let what = if allow_dur {
                "a duration (statement, transaction, explicit), a wait option (nowait, \
                 timeout=MS)"
            } else {
                "a wait option (nowait, timeout=MS)"
            };
            return Err((
                t.col,
                format!("expected {what} or end of line, found `{}`", t.text),
            ));
        }
        break;
    }
    Ok((dur, wait))
}
