//! The scenario runner: plays a [`Scenario`] in written order on a [`Backend`] and
//! produces a [`Transcript`].
//!
//! Two backends: [`TableBackend`] over the sequential [`mdl_core::table::LockTable`], and
//! [`ManagerBackend`] over the concurrent [`mdl_core::Manager`] with one OS thread per
//! session and a manual clock. After every line the backend waits until the system is
//! quiet, so both produce the same transcript for the same file.
//!
//! Transcript conventions (the spec leaves them to the project):
//! - a step: `LINE  SESSION: COMMAND  -> OUTCOME` (`-> error: MESSAGE` for a misuse);
//! - a top-level line: `LINE  kill s2  -> ok`, `LINE  advance 100  -> ok`;
//! - a wait that ends during a line: `      SESSION: (line N) -> OUTCOME`, listed after
//!   the line that ended it, in session order;
//! - an expectation: `LINE  expect ...  -> held` or `-> FAILED (seen ...)`;
//! - `assert` lines are `mdl check`'s and do not appear.

mod manager;
mod table;

pub use manager::ManagerBackend;
pub use table::TableBackend;

use crate::{Command, Expectation, Item, ParseError, Pos, Scenario};
use mdl_core::dialect::Dialect;
use mdl_core::key::MdlKey;
use mdl_core::{LockType, Outcome, WaitOption};
use serde::Serialize;

fn ser_outcome<S: serde::Serializer>(o: &Outcome, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(o.name())
}

/// What a backend reports for a step: the outcome, the error message of a misuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepOutcome {
    pub outcome: Outcome,
    pub error: Option<String>,
}

impl StepOutcome {
    pub fn of(r: Result<Outcome, String>) -> StepOutcome {
        match r {
            Ok(outcome) => StepOutcome {
                outcome,
                error: None,
            },
            Err(e) => StepOutcome {
                outcome: Outcome::Error,
                error: Some(e),
            },
        }
    }
}

/// A lock manager a scenario can be played on. Every call returns once the system is
/// quiet (every session idle or in an undecided wait, every decision delivered).
pub trait Backend {
    /// `table` or `manager`.
    fn name(&self) -> &'static str;
    /// Runs `cmd` for `session` (which is idle). Returns its outcome (`Waiting` when it
    /// waits) and the sessions whose waits ended meanwhile, with their outcomes.
    fn step(
        &mut self,
        session: usize,
        cmd: &Command,
        wait: WaitOption,
    ) -> (StepOutcome, Vec<(usize, Outcome)>);
    /// `kill SESSION`: the waits that ended (the killed one, and any that it let in).
    fn kill(&mut self, session: usize) -> Vec<(usize, Outcome)>;
    /// `advance MS`: the waits that ended.
    fn advance(&mut self, ms: u64) -> Vec<(usize, Outcome)>;
    /// `session` owns a granted lock on `key` at least as strong as `ty`.
    fn holds(&mut self, session: usize, key: &MdlKey, ty: LockType) -> bool;
    /// Ends every session (waits are killed); called once at the end of a run.
    fn finish(&mut self) {}
}

/// Which backend `mdl run` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The concurrent manager, one thread per session.
    Manager,
    /// The sequential lock table.
    Table,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepRecord {
    pub line: usize,
    pub session: String,
    pub command: String,
    #[serde(serialize_with = "ser_outcome")]
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventRecord {
    /// The line during which the wait ended.
    pub after_line: usize,
    /// The line of the step that waited.
    pub step_line: usize,
    pub session: String,
    #[serde(serialize_with = "ser_outcome")]
    pub outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExpectRecord {
    pub line: usize,
    pub session: String,
    /// The expectation as written (`granted`, `holds TABLE a.b SR`).
    pub expected: String,
    /// What was seen (`waiting`, `holds`, `not-holds`).
    pub seen: String,
    pub ok: bool,
}

/// One line of the transcript, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Entry {
    Step(StepRecord),
    Top { line: usize, text: String },
    Event(EventRecord),
    Expect(ExpectRecord),
}

/// The result of playing a scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Transcript {
    pub file: String,
    pub engine: &'static str,
    pub entries: Vec<Entry>,
}

impl Transcript {
    /// Every expectation held.
    pub fn ok(&self) -> bool {
        self.expects().all(|e| e.ok)
    }

    pub fn expects(&self) -> impl Iterator<Item = &ExpectRecord> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Expect(x) => Some(x),
            _ => None,
        })
    }

    pub fn steps(&self) -> impl Iterator<Item = &StepRecord> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Step(x) => Some(x),
            _ => None,
        })
    }

    pub fn events(&self) -> impl Iterator<Item = &EventRecord> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Event(x) => Some(x),
            _ => None,
        })
    }

    /// The transcript as text, one line per entry (the engine's name is not in it, so
    /// transcripts of the two engines compare equal).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            match e {
                Entry::Step(s) => {
                    out.push_str(&format!(
                        "{:<4} {}: {}  -> {}",
                        s.line, s.session, s.command, s.outcome
                    ));
                    if let Some(m) = &s.error {
                        out.push_str(&format!(": {m}"));
                    }
                }
                Entry::Top { line, text } => out.push_str(&format!("{line:<4} {text}  -> ok")),
                Entry::Event(v) => out.push_str(&format!(
                    "{:<4} {}: (line {}) -> {}",
                    "", v.session, v.step_line, v.outcome
                )),
                Entry::Expect(x) => {
                    out.push_str(&format!(
                        "{:<4} expect {} {}  -> ",
                        x.line, x.session, x.expected
                    ));
                    if x.ok {
                        out.push_str("held");
                    } else {
                        out.push_str(&format!("FAILED (seen {})", x.seen));
                    }
                }
            }
            out.push('\n');
        }
        out
    }

    /// The JSON document of `mdl run --format json`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "file": self.file,
            "engine": self.engine,
            "ok": self.ok(),
            "steps": self.steps().collect::<Vec<_>>(),
            "events": self.events().collect::<Vec<_>>(),
            "expects": self.expects().collect::<Vec<_>>(),
            "transcript": self.entries,
        })
    }
}

/// The dialect a scenario names.
pub fn dialect_of(sc: &Scenario) -> Dialect {
    Dialect::builtin(&sc.settings.dialect).unwrap_or_else(Dialect::mysql80)
}

/// Plays `sc` on the backend the engine names.
pub fn run_engine(sc: &Scenario, engine: Engine) -> Result<Transcript, ParseError> {
    match engine {
        Engine::Table => run(sc, TableBackend::new(sc)),
        Engine::Manager => run(sc, ManagerBackend::new(sc)),
    }
}

/// Plays `sc` on `backend` in written order. An `Err` is an invalid scenario (a step of
/// a session whose previous step still waits).
pub fn run<B: Backend>(sc: &Scenario, mut backend: B) -> Result<Transcript, ParseError> {
    let r = play(sc, &mut backend);
    backend.finish();
    r
}

fn play<B: Backend>(sc: &Scenario, b: &mut B) -> Result<Transcript, ParseError> {
    let d = dialect_of(sc);
    let n = sc.sessions.len();
    // Per session: (line of its latest step, its outcome now).
    let mut latest: Vec<Option<(usize, Outcome)>> = vec![None; n];
    let mut entries = Vec::new();
    let name = |s: usize| sc.sessions[s].clone();
    let push_events = |entries: &mut Vec<Entry>,
                       latest: &mut [Option<(usize, Outcome)>],
                       line: usize,
                       mut ev: Vec<(usize, Outcome)>| {
        ev.sort_by_key(|e| e.0);
        for (s, o) in ev {
            let step_line = match &mut latest[s] {
                Some((l, cur)) => {
                    *cur = o;
                    *l
                }
                None => 0,
            };
            entries.push(Entry::Event(EventRecord {
                after_line: line,
                step_line,
                session: sc.sessions[s].clone(),
                outcome: o,
            }));
        }
    };
    for l in &sc.lines {
        let line = l.pos.line;
        match &l.item {
            Item::Step { session, cmd } => {
                let s = *session;
                if let Some((wl, Outcome::Waiting)) = latest[s] {
                    return Err(ParseError {
                        file: sc.file.clone(),
                        pos: l.pos,
                        msg: format!(
                            "a step for session `{}`, whose previous step (line {wl}) is still \
                             waiting",
                            sc.sessions[s]
                        ),
                    });
                }
                let wait = match cmd {
                    Command::Acquire { wait, .. }
                    | Command::AcquireAll { wait, .. }
                    | Command::Upgrade { wait, .. } => wait.resolve(&sc.settings),
                    _ => WaitOption::Forever,
                };
                let (out, ev) = b.step(s, cmd, wait);
                latest[s] = Some((line, out.outcome));
                entries.push(Entry::Step(StepRecord {
                    line,
                    session: name(s),
                    command: command_text(cmd, &d),
                    outcome: out.outcome,
                    error: out.error,
                }));
                push_events(&mut entries, &mut latest, line, ev);
            }
            Item::Kill { session } => {
                let ev = b.kill(*session);
                entries.push(Entry::Top {
                    line,
                    text: format!("kill {}", name(*session)),
                });
                push_events(&mut entries, &mut latest, line, ev);
            }
            Item::Advance { ms } => {
                let ev = b.advance(*ms);
                entries.push(Entry::Top {
                    line,
                    text: format!("advance {ms}"),
                });
                push_events(&mut entries, &mut latest, line, ev);
            }
            Item::Expect { session, what } => {
                let s = *session;
                let (expected, seen, ok) = match what {
                    Expectation::Outcome(o) => {
                        let now = latest[s].map(|x| x.1);
                        let seen = now.map_or("no step yet".to_owned(), |x| x.to_string());
                        (o.to_string(), seen, now == Some(*o))
                    }
                    Expectation::Holds { key, ty } | Expectation::NotHolds { key, ty } => {
                        let h = b.holds(s, key, *ty);
                        let want = matches!(what, Expectation::Holds { .. });
                        let word = if want { "holds" } else { "not-holds" };
                        let seen = if h { "holds" } else { "not-holds" };
                        (
                            format!("{word} {} {}", key.display(&d), ty),
                            seen.to_owned(),
                            h == want,
                        )
                    }
                };
                entries.push(Entry::Expect(ExpectRecord {
                    line,
                    session: name(s),
                    expected,
                    seen,
                    ok,
                }));
            }
            Item::Assert { .. } => {}
        }
    }
    Ok(Transcript {
        file: sc.file.clone(),
        engine: b.name(),
        entries,
    })
}

/// A command as a scenario writes it (canonical spelling).
pub fn command_text(cmd: &Command, d: &Dialect) -> String {
    use crate::WaitSpec;
    let wait = |w: &WaitSpec| match w {
        WaitSpec::Default => String::new(),
        WaitSpec::Given(WaitOption::NoWait) => " nowait".into(),
        WaitSpec::Given(WaitOption::Timeout(ms)) => format!(" timeout={ms}"),
        WaitSpec::Given(WaitOption::Forever) => String::new(),
    };
    match cmd {
        Command::Acquire {
            key,
            ty,
            dur,
            wait: w,
        } => {
            format!("acquire {} {ty} {dur}{}", key.display(d), wait(w))
        }
        Command::AcquireAll { dur, wait: w, reqs } => {
            let r: Vec<String> = reqs
                .iter()
                .map(|(k, t)| format!("{} {t}", k.display(d)))
                .collect();
            format!("acquire_all {dur}{} {}", wait(w), r.join(", "))
        }
        Command::Upgrade { key, ty, wait: w } => {
            format!("upgrade {} {ty}{}", key.display(d), wait(w))
        }
        Command::Downgrade { key, ty } => format!("downgrade {} {ty}", key.display(d)),
        Command::Clone { key, ty, dur } => match ty {
            Some(t) => format!("clone {} {t} {dur}", key.display(d)),
            None => format!("clone {} {dur}", key.display(d)),
        },
        Command::Release { key, ty } => match ty {
            Some(t) => format!("release {} {t}", key.display(d)),
            None => format!("release {}", key.display(d)),
        },
        Command::EndStatement => "end_statement".into(),
        Command::Commit => "commit".into(),
        Command::Rollback => "rollback".into(),
        Command::ReleaseExplicit => "release_explicit".into(),
        Command::Savepoint(n) => format!("savepoint {n}"),
        Command::RollbackTo(n) => format!("rollback_to {n}"),
        Command::SetDuration(x) => format!("set_duration {x}"),
        Command::ForceDmlWeight(on) => {
            format!("force_dml_weight {}", if *on { "on" } else { "off" })
        }
        Command::Disconnect => "disconnect".into(),
        Command::Sql(q) => format!("sql {q}"),
    }
}

/// The message of a `sql` step outside the conformance harness.
pub const SQL_UNSUPPORTED: &str = "sql steps need a server (mdl conform)";

/// `FILE:LINE:COL: message` for a position.
pub fn at(file: &str, pos: Pos, msg: &str) -> String {
    format!("{file}:{}:{}: {msg}", pos.line, pos.col)
}
