//! The scenario runner: plays a [`Scenario`] in written order on a [`Backend`] and
//! produces a [`Transcript`].
//!
//! Three backends: [`TableBackend`] over the sequential [`mdl_core::table::LockTable`];
//! [`TaskBackend`] over the concurrent [`mdl_core::Manager`] with every session a task
//! (a future over the manager's async waits) polled on the runner's thread, and a
//! manual clock (the `manager` engine, `mdl run`'s default); [`ThreadBackend`] over the
//! same manager with one OS thread per session blocking in its waits (the `threads`
//! engine). After every line the backend waits until the system is quiet, so all three
//! produce the same transcript for the same file.
//!
//! Transcript conventions (the spec leaves them to the project):
//! - a step: `LINE  SESSION: COMMAND  -> OUTCOME` (`-> error: MESSAGE` for a misuse);
//! - a top-level line: `LINE  kill s2  -> ok`, `LINE  advance 100  -> ok`;
//! - a wait that ends during a line: `      SESSION: (line N) -> OUTCOME`, listed after
//!   the line that ended it, in session order;
//! - an expectation: `LINE  expect ...  -> held` or `-> FAILED (seen ...)`;
//! - a session still waiting when the file ends: `end   SESSION: (line N) still waiting
//!   -> expected (line M)` when a held `expect SESSION waiting` after its step covers it,
//!   `-> FAILED (no expect SESSION waiting)` otherwise;
//! - `assert` lines are `mdl check`'s and do not appear.
//!
//! A file that turns out invalid midway (a step for a session whose previous step still
//! waits) keeps the transcript up to the line before it, with every expectation seen so
//! far, and the error in [`Transcript::invalid`].
//!
//! # Order and quiescence
//!
//! Every engine resolves every line the same way, so the transcript never depends on
//! thread timing:
//! - after a line, every consequence is carried out before the next line: grants made by
//!   a release, a timeout, a kill or a deadlock abort, the victims' clean-up;
//! - a bulk request (`acquire_all`) whose element was granted after a wait goes on to its
//!   next elements at once when the grant came from its own request (its own deadlock
//!   search aborted a victim); otherwise it goes on after everything else the line
//!   caused has settled, one session at a time, the lowest session first (each runs until
//!   it waits again or ends);
//! - `advance MS` moves the clock deadline by deadline: the waits whose deadlines pass
//!   are timed out one at a time, earliest deadline first, and on equal deadlines in
//!   request order (the earlier step line first); each timeout's consequences settle
//!   before the next wait is looked at, so a wait granted by an earlier timeout is not
//!   timed out. A wait that starts meanwhile (a bulk request going on) starts at the
//!   deadline being processed.

mod inspect;
mod table;
mod tasks;
mod threads;

pub use table::TableBackend;
pub use tasks::TaskBackend;
pub use threads::ThreadBackend;

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
/// quiet (every session idle or in an undecided wait, every decision delivered, every
/// bulk request that could go on gone on: see the module's "Order and quiescence").
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
    /// The sessions in an undecided wait with a timeout, each with its deadline.
    fn deadlines(&mut self) -> Vec<(usize, u64)>;
    /// Moves the scenario clock forward to `ms` (never back); times nothing out.
    fn set_clock(&mut self, ms: u64);
    /// Ends `session`'s wait with `timeout` (its deadline has passed): the waits that
    /// ended (that one, and any that its timeout decided).
    fn time_out(&mut self, session: usize) -> Vec<(usize, Outcome)>;
    /// `session` owns a granted lock on `key` at least as strong as `ty`.
    fn holds(&mut self, session: usize, key: &MdlKey, ty: LockType) -> bool;
    /// The number of granted tickets `session` holds on `key` (on every key for `None`).
    fn tickets(&mut self, session: usize, key: Option<&MdlKey>) -> usize;
    /// Ends every session (waits are killed); called once at the end of a run.
    fn finish(&mut self) {}
}

/// Which backend `mdl run` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The concurrent manager, every session a task polled on the runner's thread.
    Manager,
    /// The sequential lock table.
    Table,
    /// The concurrent manager, one OS thread per session (blocking waits).
    Threads,
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

/// A session still waiting when the file ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeftWaiting {
    pub session: String,
    /// The line of the step that waits.
    pub step_line: usize,
    /// The line of a held `expect SESSION waiting` after that step, which says the wait
    /// is meant to last (null: nothing covers it, and the run fails).
    pub covered_by: Option<usize>,
}

/// The result of playing a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transcript {
    pub file: String,
    pub engine: &'static str,
    /// Every line played, in order (up to the line before [`Transcript::invalid`]).
    pub entries: Vec<Entry>,
    /// Sessions still waiting at the end of the file (none when the file is invalid).
    pub left_waiting: Vec<LeftWaiting>,
    /// The line that made the file invalid midway: a step for a session whose previous
    /// step still waits. The transcript stops before it.
    pub invalid: Option<ParseError>,
}

impl Transcript {
    /// Every expectation held, every session left waiting is covered by an `expect
    /// SESSION waiting`, and the file was valid to the end.
    pub fn ok(&self) -> bool {
        self.invalid.is_none()
            && self.expects().all(|e| e.ok)
            && self.left_waiting.iter().all(|l| l.covered_by.is_some())
    }

    /// The transcript of a file valid to its end, or the error that made it invalid.
    pub fn valid(self) -> Result<Transcript, ParseError> {
        match self.invalid {
            Some(e) => Err(e),
            None => Ok(self),
        }
    }

    /// The exit status of `mdl run` for this transcript: 2 invalid, 1 an expectation
    /// failed or a session was left waiting uncovered, 0 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.invalid.is_some() {
            2
        } else if self.ok() {
            0
        } else {
            1
        }
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
        for l in &self.left_waiting {
            out.push_str(&format!(
                "end  {}: (line {}) still waiting  -> ",
                l.session, l.step_line
            ));
            match l.covered_by {
                Some(c) => out.push_str(&format!("expected (line {c})")),
                None => out.push_str(&format!("FAILED (no expect {} waiting)", l.session)),
            }
            out.push('\n');
        }
        out
    }

    /// The members that `mdl run --format json` adds to a file's document
    /// (`models/docs/json-output.md`).
    pub fn json_members(&self) -> serde_json::Map<String, serde_json::Value> {
        let v = serde_json::json!({
            "engine": self.engine,
            "steps": self.steps().collect::<Vec<_>>(),
            "events": self.events().collect::<Vec<_>>(),
            "expects": self.expects().collect::<Vec<_>>(),
            "left_waiting": self.left_waiting,
            "transcript": self.entries,
        });
        match v {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        }
    }
}

/// The dialect a scenario is read in, with its settings applied (`max_search_depth`).
pub fn dialect_of(sc: &Scenario) -> Dialect {
    let mut d = (*sc.dialect).clone();
    if let Some(n) = sc.settings.max_search_depth {
        d.max_search_depth = Some(n);
    }
    if let Some(on) = sc.settings.soft_edges {
        d.soft_edges = on;
    }
    d
}

/// Plays `sc` on the backend the engine names.
pub fn run_engine(sc: &Scenario, engine: Engine) -> Transcript {
    match engine {
        Engine::Table => run(sc, TableBackend::new(sc)),
        Engine::Manager => run(sc, TaskBackend::new(sc)),
        Engine::Threads => run(sc, ThreadBackend::new(sc)),
    }
}

/// Plays `sc` on `backend` in written order.
pub fn run<B: Backend>(sc: &Scenario, mut backend: B) -> Transcript {
    let t = play(sc, &mut backend);
    backend.finish();
    t
}

/// What the runner knows of each session.
struct Play<'s> {
    sc: &'s Scenario,
    /// Per session: (line of its latest step, its outcome now).
    latest: Vec<Option<(usize, Outcome)>>,
    entries: Vec<Entry>,
    /// The scenario clock.
    now: u64,
}

impl Play<'_> {
    /// Records the waits that ended during `line`, in session order.
    fn events(&mut self, line: usize, mut ev: Vec<(usize, Outcome)>) {
        ev.sort_by_key(|e| e.0);
        for (s, o) in ev {
            let step_line = match &mut self.latest[s] {
                Some((l, cur)) => {
                    *cur = o;
                    *l
                }
                None => 0,
            };
            self.entries.push(Entry::Event(EventRecord {
                after_line: line,
                step_line,
                session: self.sc.sessions[s].clone(),
                outcome: o,
            }));
        }
    }

    /// `advance MS`: deadline by deadline, equal deadlines in request order (the
    /// earlier step line first), each timeout settled before the next is looked at.
    fn advance<B: Backend>(&mut self, b: &mut B, ms: u64) -> Vec<(usize, Outcome)> {
        let target = self.now.saturating_add(ms);
        let mut ev = Vec::new();
        loop {
            let latest = &self.latest;
            let due = b
                .deadlines()
                .into_iter()
                .filter(|&(_, d)| d <= target)
                .min_by_key(|&(s, d)| (d, latest[s].map_or(0, |x| x.0), s));
            let Some((s, d)) = due else { break };
            if d > self.now {
                self.now = d;
                b.set_clock(d);
            }
            ev.extend(b.time_out(s));
        }
        self.now = target;
        b.set_clock(target);
        ev
    }
}

fn play<B: Backend>(sc: &Scenario, b: &mut B) -> Transcript {
    let d = dialect_of(sc);
    let n = sc.sessions.len();
    let mut p = Play {
        sc,
        latest: vec![None; n],
        entries: Vec::new(),
        now: 0,
    };
    let name = |s: usize| sc.sessions[s].clone();
    let mut invalid = None;
    for l in &sc.lines {
        let line = l.pos.line;
        match &l.item {
            Item::Step { session, cmd } => {
                let s = *session;
                if let Some((wl, Outcome::Waiting)) = p.latest[s] {
                    invalid = Some(ParseError {
                        file: sc.file.clone(),
                        pos: l.pos,
                        msg: format!(
                            "a step for session `{}`, whose previous step (line {wl}) is still \
                             waiting",
                            sc.sessions[s]
                        ),
                    });
                    break;
                }
                let wait = match cmd {
                    Command::Acquire { wait, .. }
                    | Command::AcquireAll { wait, .. }
                    | Command::Upgrade { wait, .. } => wait.resolve(&sc.settings),
                    _ => WaitOption::Forever,
                };
                let (out, ev) = b.step(s, cmd, wait);
                p.latest[s] = Some((line, out.outcome));
                p.entries.push(Entry::Step(StepRecord {
                    line,
                    session: name(s),
                    command: command_text(cmd, &d),
                    outcome: out.outcome,
                    error: out.error,
                }));
                p.events(line, ev);
            }
            Item::Kill { session } => {
                let ev = b.kill(*session);
                p.entries.push(Entry::Top {
                    line,
                    text: format!("kill {}", name(*session)),
                });
                p.events(line, ev);
            }
            Item::Advance { ms } => {
                let ev = p.advance(b, *ms);
                p.entries.push(Entry::Top {
                    line,
                    text: format!("advance {ms}"),
                });
                p.events(line, ev);
            }
            Item::Expect { session, what } => {
                let s = *session;
                let (expected, seen, ok) = match what {
                    Expectation::Outcome(o) => {
                        let now = p.latest[s].map(|x| x.1);
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
                    // Lock steps have no server error codes: fail closed.
                    Expectation::ErrorCode(c) => (
                        format!("error {c}"),
                        "no error code (error codes are for SQL sessions)".to_owned(),
                        false,
                    ),
                    Expectation::Tickets { key, n } => {
                        let have = b.tickets(s, key.as_ref());
                        let on = key
                            .as_ref()
                            .map_or(String::new(), |k| format!("{} ", k.display(&d)));
                        (
                            format!("tickets {on}{n}"),
                            format!("{have} tickets"),
                            have == *n,
                        )
                    }
                };
                p.entries.push(Entry::Expect(ExpectRecord {
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
    let left_waiting = if invalid.is_some() {
        Vec::new()
    } else {
        left_waiting(sc, &p.latest, &p.entries)
    };
    Transcript {
        file: sc.file.clone(),
        engine: b.name(),
        entries: p.entries,
        left_waiting,
        invalid,
    }
}

/// The sessions still waiting at the end, each with the held `expect SESSION waiting`
/// after its step that covers it, if any.
fn left_waiting(
    sc: &Scenario,
    latest: &[Option<(usize, Outcome)>],
    entries: &[Entry],
) -> Vec<LeftWaiting> {
    let mut out = Vec::new();
    for (s, l) in latest.iter().enumerate() {
        let Some((step_line, Outcome::Waiting)) = *l else {
            continue;
        };
        let name = &sc.sessions[s];
        let covered_by = entries.iter().find_map(|e| match e {
            Entry::Expect(x)
                if x.ok
                    && x.line > step_line
                    && &x.session == name
                    && x.expected == Outcome::Waiting.to_string() =>
            {
                Some(x.line)
            }
            _ => None,
        });
        out.push(LeftWaiting {
            session: name.clone(),
            step_line,
            covered_by,
        });
    }
    out
}

/// A command as a scenario writes it (canonical spelling).
pub fn command_text(cmd: &Command, d: &Dialect) -> String {
    use crate::WaitSpec;
    let wait = |w: &WaitSpec| match w {
        WaitSpec::Default => String::new(),
        WaitSpec::Given(WaitOption::NoWait) => " nowait".into(),
        WaitSpec::Given(WaitOption::Timeout(d)) => format!(" timeout={}", d.as_millis()),
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

pub use crate::apply::SQL_UNSUPPORTED;

/// `FILE:LINE:COL: message` for a position.
pub fn at(file: &str, pos: Pos, msg: &str) -> String {
    format!("{file}:{}:{}: {msg}", pos.line, pos.col)
}
