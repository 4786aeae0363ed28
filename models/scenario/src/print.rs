//! Prints commands and steps back as scenario text (`shared/spec/scenario-format.md`), so
//! that a model-checker counterexample can be written as a file `mdl run` accepts.

use super::ast::{Command, Settings, WaitSpec};
use mdl_core::key::MdlKey;
use mdl_core::{Dialect, Duration, LockType, WaitOption};

/// A wait option as written after a request (`nowait`, `timeout=MS`); `None` for
/// [`WaitOption::Forever`], which has no spelling of its own.
pub fn wait_text(w: WaitOption) -> Option<String> {
    match w {
        WaitOption::NoWait => Some("nowait".into()),
        WaitOption::Timeout(d) => Some(format!("timeout={}", d.as_millis())),
        WaitOption::Forever => None,
    }
}

fn spec_text(w: WaitSpec) -> Option<String> {
    match w {
        WaitSpec::Default => None,
        WaitSpec::Given(w) => wait_text(w),
    }
}

fn key(d: &Dialect, k: &MdlKey) -> String {
    k.display(d)
}

fn push_opt(out: &mut String, s: Option<String>) {
    if let Some(s) = s {
        out.push(' ');
        out.push_str(&s);
    }
}

/// A command as a scenario writes it (`acquire TABLE db.t1 SR transaction`), with the
/// wait option as given in the command.
pub fn command_text(d: &Dialect, cmd: &Command) -> String {
    command_text_with_wait(d, cmd, None)
}

/// As [`command_text`], but a request's wait option is `wait` when given (`Some(None)`
/// writes none, so the file's `lock_wait_timeout` applies).
pub fn command_text_with_wait(d: &Dialect, cmd: &Command, wait: Option<Option<String>>) -> String {
    let w = |given: WaitSpec| match &wait {
        Some(w) => w.clone(),
        None => spec_text(given),
    };
    match cmd {
        Command::Acquire {
            key: k,
            ty,
            dur,
            wait: ws,
        } => {
            let mut s = format!("acquire {} {} {}", key(d, k), ty, dur);
            push_opt(&mut s, w(*ws));
            s
        }
        Command::AcquireAll {
            dur,
            wait: ws,
            reqs,
        } => {
            let mut s = format!("acquire_all {dur}");
            push_opt(&mut s, w(*ws));
            let list: Vec<String> = reqs
                .iter()
                .map(|(k, t)| format!("{} {}", key(d, k), t))
                .collect();
            s.push(' ');
            s.push_str(&list.join(", "));
            s
        }
        Command::Upgrade {
            key: k,
            ty,
            wait: ws,
        } => {
            let mut s = format!("upgrade {} {}", key(d, k), ty);
            push_opt(&mut s, w(*ws));
            s
        }
        Command::Downgrade { key: k, ty } => format!("downgrade {} {}", key(d, k), ty),
        Command::Clone { key: k, ty, dur } => {
            let mut s = format!("clone {}", key(d, k));
            push_opt(&mut s, ty.map(|t: LockType| t.to_string()));
            s.push(' ');
            s.push_str(dur.name());
            s
        }
        Command::Release { key: k, ty } => {
            let mut s = format!("release {}", key(d, k));
            push_opt(&mut s, ty.map(|t| t.to_string()));
            s
        }
        Command::EndStatement => "end_statement".into(),
        Command::Commit => "commit".into(),
        Command::Rollback => "rollback".into(),
        Command::ReleaseExplicit => "release_explicit".into(),
        Command::Savepoint(n) => format!("savepoint {n}"),
        Command::RollbackTo(n) => format!("rollback_to {n}"),
        Command::SetDuration(dur) => format!("set_duration {}", Duration::name(*dur)),
        Command::ForceDmlWeight(on) => {
            format!("force_dml_weight {}", if *on { "on" } else { "off" })
        }
        Command::Disconnect => "disconnect".into(),
        Command::Sql(s) => format!("sql {s}"),
    }
}

/// The settings lines of a scenario (only those that differ from the defaults).
pub fn settings_text(s: &Settings) -> String {
    let mut out = format!(
        "dialect {}\n",
        s.dialect_path.as_ref().unwrap_or(&s.dialect)
    );
    if s.max_write_lock_count != u64::MAX {
        out.push_str(&format!(
            "max_write_lock_count {}\n",
            s.max_write_lock_count
        ));
    }
    if let Some(ms) = s.lock_wait_timeout {
        out.push_str(&format!("lock_wait_timeout {ms}\n"));
    }
    if let Some(n) = s.max_search_depth {
        out.push_str(&format!("max_search_depth {n}\n"));
    }
    if let Some(on) = s.soft_edges {
        let v = if on { "soft_edges" } else { "victim" };
        out.push_str(&format!("deadlock_resolution {v}\n"));
    }
    out
}
