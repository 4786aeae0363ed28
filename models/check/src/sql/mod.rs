//! SQL sessions in `mdl check`, `mdl run` and `mdl explore`: a file of
//! `SESSION: sql STATEMENT` steps (the conformance set's kind) played on the SQL model
//! of `mdl-sql` ([`mdl_sql::model::SqlModel`], over the learned MariaDB statement
//! table for `dialect mariadb`, the MySQL 8.0 table written from source for `dialect
//! mysql-8.0`).
//! There is one mapping from SQL to lock requests, and it is that model's: this module
//! only chooses which session runs its next statement, never what a statement locks.
//!
//! The state ([`SqlState`]) is the SQL model (lock table, catalog, sessions with their
//! statements in progress) plus each session's program counter, its latest outcome and
//! the kills still to come. The actions ([`SqlAction`]): a session that does not wait
//! runs its next statement; a wait with a timeout times out (the clock moves to its
//! deadline); a waiting session that a `kill` line names is killed. States are told apart
//! by a fingerprint ([`SqlModel::fingerprint`] and the counters).
//!
//! - [`model`]: the scenario as a stateright model with our engine's extension trait,
//!   run by our search engine ([`crate::model::search`], the one lock scenarios run on),
//!   and [`check`]: `mdl check`'s result from it;
//! - [`reference`]: stateright's checker on the same model (`--engine stateright`);
//! - [`quiet`]: the reduction (a private step taken first, alone), and [`key_por`]: a
//!   step on keys no other session touches taken first, alone;
//! - [`symmetry`]: interchangeable sessions, and a state named by its class;
//! - [`paths`]: every maximal path, for replays on a server (tests);
//! - [`written`]: the written order, with the file's `expect` lines (`mdl run`);
//! - [`text`]: traces as SQL statements per session, with outcomes and locks;
//! - [`json`]: the same as `mdl check --format json` members;
//! - [`explore`]: the same model for stateright's Explorer (`mdl explore`).
//! - [`simulate`]: `--simulate N`, random paths through the same model.

pub mod check;
#[cfg(feature = "stateright")]
pub mod explore;
pub mod json;
pub mod key_por;
pub mod model;
pub mod paths;
pub mod quiet;
#[cfg(feature = "stateright")]
pub mod reference;
pub mod simulate;
pub mod symmetry;
pub mod text;
pub mod written;

use crate::model::Conflict;
use mdl_core::Outcome;
use mdl_scenario::{AssertKind, Command, Item, ParseError, Pos, Scenario};
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// At most this many sessions in a SQL file.
pub const MAX_SESSIONS: usize = 16;

/// Is this a SQL scenario (a `sql` step or a `setup: sql` line)?
pub fn is_sql(sc: &Scenario) -> bool {
    !sc.setup.is_empty()
        || sc.lines.iter().any(|l| {
            matches!(
                l.item,
                Item::Step {
                    cmd: Command::Sql(_),
                    ..
                }
            )
        })
}

/// The learned statement table (`models/conformance/statements.tsv`), read once.
pub fn mapping() -> Result<Arc<Mapping>, String> {
    mapping_for("mariadb")
}

/// The statement table of a built-in dialect, read once: `mariadb` (learned on the
/// server) or `mysql-8.0` (`models/conformance/statements-mysql80.tsv`, written from
/// MySQL 8.0's source, not checked against a server).
pub fn mapping_for(dialect: &str) -> Result<Arc<Mapping>, String> {
    type Cell = OnceLock<Result<Arc<Mapping>, String>>;
    static MARIADB: Cell = OnceLock::new();
    static MYSQL80: Cell = OnceLock::new();
    let cell = match dialect {
        "mariadb" => &MARIADB,
        "mysql-8.0" => &MYSQL80,
        d => {
            return Err(format!(
                "SQL sessions need a statement table, and dialect `{d}` has none: SQL files \
                 take `dialect mariadb` (the learned MariaDB table) or `dialect mysql-8.0` \
                 (the MySQL 8.0 table, written from source)"
            ))
        }
    };
    cell.get_or_init(|| {
        Mapping::load_for(dialect)
            .map(Arc::new)
            .map_err(|e| e.to_string())
    })
    .clone()
}

/// One statement of a session's program.
#[derive(Clone, Debug)]
pub struct SqlStep {
    pub sql: String,
    pub pos: Pos,
}

/// An `assert never|sometimes SESSION|* OUTCOME [at line N]` line.
#[derive(Clone, Debug)]
pub struct SqlAssert {
    pub kind: AssertKind,
    pub session: Option<usize>,
    pub outcome: Outcome,
    /// `at line N`: (session, step index) of that line.
    pub at_step: Option<(usize, usize)>,
    pub pos: Pos,
    /// The line as written (`assert never * deadlock (line 14)`).
    pub name: String,
}

/// The model of one SQL scenario.
#[derive(Clone, Debug)]
pub struct SqlCheck {
    pub scenario: Scenario,
    pub programs: Vec<Vec<SqlStep>>,
    pub kills: Vec<u8>,
    pub asserts: Vec<SqlAssert>,
    /// The SQL model after the `setup` lines, with every session added.
    pub init: SqlModel,
}

/// A session's latest outcome: the outcome, the server error code of a failed
/// statement, and the step (index into its program) it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Last {
    pub outcome: Outcome,
    pub code: Option<u32>,
    pub step: usize,
}

/// A state of the search.
#[derive(Clone, Debug)]
pub struct SqlState {
    pub model: SqlModel,
    /// Each session's next step.
    pub pc: Vec<u16>,
    pub last: Vec<Option<Last>>,
    pub kills_left: Vec<u8>,
    /// The action into this state ran a statement the model cannot play in this state
    /// (its session, step, the model's message).
    pub unmodelled: Option<(usize, usize, String)>,
    /// The action into this state granted a lock against another session's granted one.
    pub bad_grant: Option<Conflict>,
    /// The actions into this state, kept when symmetry names states ([`symmetry`]).
    pub trail: symmetry::Trail,
    fp: u64,
}

impl SqlState {
    fn seal(mut self) -> SqlState {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.model.fingerprint().hash(&mut h);
        self.pc.hash(&mut h);
        self.last.hash(&mut h);
        self.kills_left.hash(&mut h);
        self.unmodelled.hash(&mut h);
        self.bad_grant.hash(&mut h);
        self.fp = h.finish();
        self
    }

    /// The fingerprint the search tells states apart by.
    pub fn fingerprint(&self) -> u64 {
        self.fp
    }
}

/// A state's identity is its fingerprint (for stateright's checker and the Explorer as
/// for our engine).
impl PartialEq for SqlState {
    fn eq(&self, o: &Self) -> bool {
        self.fp == o.fp
    }
}
impl Eq for SqlState {}
impl Hash for SqlState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.fp.hash(h)
    }
}

/// An action of the SQL model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SqlAction {
    /// The session runs its next statement.
    Step(usize),
    /// The session's wait times out (the clock moves to its deadline).
    Timeout(usize),
    /// The session's wait is killed (`kill SESSION`).
    Kill(usize),
}

impl SqlAction {
    pub fn session(self) -> usize {
        match self {
            SqlAction::Step(s) | SqlAction::Timeout(s) | SqlAction::Kill(s) => s,
        }
    }
}

/// What one action did.
#[derive(Clone, Debug)]
pub struct SqlRecord {
    pub action: SqlAction,
    /// The statement (index into the session's program) for `Step`.
    pub step: Option<usize>,
    /// The statement's own outcome (with its error code) for `Step`.
    pub outcome: Option<(Outcome, Option<u32>)>,
    /// Statements of other sessions (or, for `Timeout`/`Kill`, of any) that the action
    /// finished: session, outcome, error code.
    pub events: Vec<(usize, Outcome, Option<u32>)>,
    /// The model could not play the statement here.
    pub error: Option<String>,
    /// For a statement that waits: the lock it waits for (`TABLE test.t1 SNRW`).
    pub waits_for: Option<String>,
}

fn err(sc: &Scenario, pos: Pos, msg: impl Into<String>) -> ParseError {
    ParseError {
        file: sc.file.clone(),
        pos,
        msg: msg.into(),
    }
}

fn first_pos(sc: &Scenario) -> Pos {
    sc.lines.first().map(|l| l.pos).unwrap_or_default()
}

impl SqlCheck {
    /// Builds the model of a SQL scenario; errors at their line: a dialect with no
    /// statement table (a folder; a built-in other than `mariadb` and `mysql-8.0`), a step that is not `sql`, a `setup` line or a statement (played in
    /// written order) the model does not know, a liveness assert.
    pub fn new(sc: &Scenario) -> Result<SqlCheck, ParseError> {
        if sc.settings.dialect_path.is_some() {
            return Err(err(
                sc,
                first_pos(sc),
                "SQL sessions need a statement table, and a dialect folder has none: SQL \
                 files take `dialect mariadb` (the learned MariaDB table) or `dialect \
                 mysql-8.0` (the MySQL 8.0 table, written from source)",
            ));
        }
        let n = sc.sessions.len();
        if n > MAX_SESSIONS {
            return Err(err(
                sc,
                first_pos(sc),
                format!("a SQL check takes at most {MAX_SESSIONS} sessions, the file has {n}"),
            ));
        }
        let map = mapping_for(&sc.settings.dialect).map_err(|e| err(sc, first_pos(sc), e))?;
        let mut init = SqlModel::with_mapping(map);
        init.set_max_write_lock_count(sc.settings.max_write_lock_count);
        for (pos, q) in &sc.setup {
            init.setup(q).map_err(|m| err(sc, *pos, m))?;
        }
        for _ in 0..n {
            init.add_session();
        }
        // `KILL QUERY NAME` names a session of the file.
        init.name_sessions(&sc.sessions);
        if let Some(ms) = sc.settings.lock_wait_timeout {
            // As `mdl conform` does on each session's connection.
            let secs = ms.div_ceil(1000);
            for s in 0..n {
                init.step(s, &format!("SET lock_wait_timeout = {secs}"))
                    .map_err(|m| err(sc, first_pos(sc), m))?;
            }
        }
        let mut programs: Vec<Vec<SqlStep>> = vec![Vec::new(); n];
        let mut kills = vec![0u8; n];
        let mut asserts = Vec::new();
        let mut pending: Vec<(usize, Option<usize>)> = Vec::new();
        for l in &sc.lines {
            match &l.item {
                Item::Step { session, cmd } => {
                    let Command::Sql(q) = cmd else {
                        return Err(err(
                            sc,
                            l.pos,
                            "a SQL scenario takes only `sql` steps (lock requests and SQL \
                             statements do not mix in one file)",
                        ));
                    };
                    if programs[*session].len() >= u16::MAX as usize {
                        return Err(err(sc, l.pos, "too many steps for one session"));
                    }
                    programs[*session].push(SqlStep {
                        sql: q.clone(),
                        pos: l.pos,
                    });
                }
                Item::Kill { session } => kills[*session] = kills[*session].saturating_add(1),
                Item::Advance { .. } | Item::Expect { .. } => {}
                Item::Assert {
                    kind,
                    session,
                    outcome,
                    at_line,
                } => {
                    if asserts.len() >= crate::model::MAX_ASSERTS {
                        return Err(err(
                            sc,
                            l.pos,
                            format!(
                                "mdl check takes at most {} assert lines",
                                crate::model::MAX_ASSERTS
                            ),
                        ));
                    }
                    if !matches!(kind, AssertKind::Never | AssertKind::Sometimes) {
                        return Err(err(
                            sc,
                            l.pos,
                            "a SQL scenario takes `assert never|sometimes SESSION|* OUTCOME`; \
                             `eventually` and `bounded` are for lock requests",
                        ));
                    }
                    if *outcome == Outcome::Granted {
                        return Err(err(
                            sc,
                            l.pos,
                            "a SQL statement ends `ok`, not `granted` (outcomes: ok, error, \
                             waiting, deadlock, timeout, killed)",
                        ));
                    }
                    let word = match kind {
                        AssertKind::Never => "never",
                        _ => "sometimes",
                    };
                    let who = session.map(|s| sc.sessions[s].as_str()).unwrap_or("*");
                    let at = at_line.map(|n| format!(" at line {n}")).unwrap_or_default();
                    asserts.push(SqlAssert {
                        kind: *kind,
                        session: *session,
                        outcome: *outcome,
                        at_step: None,
                        pos: l.pos,
                        name: format!("assert {word} {who} {outcome}{at} (line {})", l.pos.line),
                    });
                    pending.push((asserts.len() - 1, *at_line));
                }
            }
        }
        // `at line N`: the line must be a step of the assert's session.
        for (i, at) in pending {
            let Some(line) = at else { continue };
            let a = &asserts[i];
            let found = programs
                .iter()
                .enumerate()
                .find_map(|(s, p)| p.iter().position(|st| st.pos.line == line).map(|k| (s, k)));
            match found {
                Some((s, k)) if a.session.is_none_or(|x| x == s) => {
                    asserts[i].at_step = Some((s, k));
                }
                _ => {
                    return Err(err(
                        sc,
                        a.pos,
                        format!("`at line {line}`: line {line} is not a step of that session"),
                    ))
                }
            }
        }
        let m = SqlCheck {
            scenario: sc.clone(),
            programs,
            kills,
            asserts,
            init,
        };
        m.check_statements()?;
        Ok(m)
    }

    /// Every statement is one the model knows: played in written order (as `mdl
    /// conform` checks a file before it starts a server).
    fn check_statements(&self) -> Result<(), ParseError> {
        let mut st = self.initial_written();
        for l in &self.scenario.lines {
            if let Item::Step { session, .. } = &l.item {
                let s = *session;
                if st.model.is_waiting(s) {
                    // Not playable in this order: `mdl run` says so; here only the
                    // statement's text is checked, by the search.
                    st.pc[s] += 1;
                    continue;
                }
                let (next, rec) = self.apply(&st, SqlAction::Step(s));
                if let Some(e) = rec.error {
                    return Err(err(&self.scenario, l.pos, e));
                }
                st = next;
            }
        }
        Ok(())
    }

    pub fn sessions(&self) -> usize {
        self.programs.len()
    }

    /// The statement table the model plays, for reports: `learned MariaDB statement
    /// table` or `MySQL 8.0 statement table, written from source`.
    pub fn table_name(&self) -> &'static str {
        match self.init.mapping().dialect_name() {
            "mysql-8.0" => "MySQL 8.0 statement table, written from source",
            _ => "learned MariaDB statement table",
        }
    }

    /// The dialect of the statement table (`mariadb`, `mysql-8.0`).
    pub fn dialect_name(&self) -> &str {
        self.init.mapping().dialect_name()
    }

    pub fn session_name(&self, s: usize) -> &str {
        &self.scenario.sessions[s]
    }

    /// The search's initial state: CALLs stop between their instructions, so that the
    /// other sessions' statements are explored there (`SqlModel::set_stepwise_calls`).
    pub fn initial(&self) -> SqlState {
        let mut st = self.initial_written();
        st.model.set_stepwise_calls(true);
        st.seal()
    }

    /// The initial state of a written order: a CALL runs its instructions on until one
    /// waits, as `mdl conform` and `mdl run` play it.
    pub fn initial_written(&self) -> SqlState {
        let n = self.sessions();
        SqlState {
            model: self.init.clone(),
            pc: vec![0; n],
            last: vec![None; n],
            kills_left: self.kills.clone(),
            unmodelled: None,
            bad_grant: None,
            trail: symmetry::Trail::default(),
            fp: 0,
        }
        .seal()
    }

    /// The session has run every statement and does not wait.
    pub fn finished(&self, st: &SqlState, s: usize) -> bool {
        st.pc[s] as usize >= self.programs[s].len() && !st.model.is_waiting(s)
    }

    /// The actions enabled in `st`, in session order: steps, then kills, then timeouts.
    pub fn enabled(&self, st: &SqlState, out: &mut Vec<SqlAction>) {
        if st.unmodelled.is_some() {
            return;
        }
        for s in 0..self.sessions() {
            // (A CALL between two instructions runs on by a step of its session.)
            let next = !st.model.is_waiting(s) && (st.pc[s] as usize) < self.programs[s].len();
            if next || st.model.between_instructions(s) {
                out.push(SqlAction::Step(s));
            }
        }
        for s in 0..self.sessions() {
            let waits = st.model.is_waiting(s) && !st.model.between_instructions(s);
            if waits && st.kills_left[s] > 0 {
                out.push(SqlAction::Kill(s));
            }
        }
        for s in 0..self.sessions() {
            if st.model.wait_deadline(s).is_some() {
                out.push(SqlAction::Timeout(s));
            }
        }
    }

    /// Takes one action.
    pub fn apply(&self, pre: &SqlState, a: SqlAction) -> (SqlState, SqlRecord) {
        let mut st = pre.clone();
        st.unmodelled = None;
        st.bad_grant = None;
        let mut rec = SqlRecord {
            action: a,
            step: None,
            outcome: None,
            events: Vec::new(),
            error: None,
            waits_for: None,
        };
        match a {
            SqlAction::Step(s) => {
                // A CALL between two instructions runs its next one (`SqlModel::
                // call_continue`); its step is still the CALL's.
                let resumed = st.model.between_instructions(s);
                let k = st.pc[s] as usize - usize::from(resumed);
                rec.step = Some(k);
                st.pc[s] += u16::from(!resumed);
                let played = if resumed {
                    st.model.call_continue(s)
                } else {
                    st.model.step(s, &self.programs[s][k].sql)
                };
                match played {
                    Ok(o) => {
                        let code = (o == Outcome::Error)
                            .then(|| st.model.session(s).last_error)
                            .flatten();
                        rec.outcome = Some((o, code));
                        if o == Outcome::Waiting {
                            rec.waits_for = st
                                .model
                                .locks_of(s)
                                .into_iter()
                                .find_map(|l| l.strip_suffix(" (pending)").map(str::to_owned));
                        }
                        st.last[s] = Some(Last {
                            outcome: o,
                            code,
                            step: k,
                        });
                    }
                    Err(e) => {
                        st.unmodelled = Some((s, k, e.clone()));
                        rec.error = Some(e);
                    }
                }
            }
            SqlAction::Timeout(s) => {
                if let Some(dl) = st.model.wait_deadline(s) {
                    let now = st.model.now();
                    st.model.advance(dl.saturating_sub(now));
                }
            }
            SqlAction::Kill(s) => {
                st.kills_left[s] = st.kills_left[s].saturating_sub(1);
                st.model.kill(s);
            }
        }
        self.take_events(&mut st, &mut rec);
        st.bad_grant = crate::model::new_conflict_between(
            &st.model.dialect,
            &pre.model.table,
            &st.model.table,
        );
        (st.seal(), rec)
    }

    /// Moves the clock (`advance MS` of the written order): waits whose timeout passes
    /// end.
    pub fn advance(
        &self,
        pre: &SqlState,
        ms: u64,
    ) -> (SqlState, Vec<(usize, Outcome, Option<u32>)>) {
        let mut st = pre.clone();
        st.unmodelled = None;
        st.bad_grant = None;
        st.model.advance(ms);
        let mut rec = SqlRecord {
            action: SqlAction::Timeout(0),
            step: None,
            outcome: None,
            events: Vec::new(),
            error: None,
            waits_for: None,
        };
        self.take_events(&mut st, &mut rec);
        (st.seal(), rec.events)
    }

    /// The statements of waiting sessions that the action finished: each session's
    /// latest outcome becomes theirs.
    fn take_events(&self, st: &mut SqlState, rec: &mut SqlRecord) {
        for (i, o) in st.model.take_events() {
            let code = (o == Outcome::Error)
                .then(|| st.model.session(i).last_error)
                .flatten();
            rec.events.push((i, o, code));
            if cfg!(mdl_bug = "sql_ignore_woken") {
                // Seeded bug: the woken session's outcome is lost (it looks waiting).
                continue;
            }
            let step = (st.pc[i] as usize).saturating_sub(1);
            st.last[i] = Some(Last {
                outcome: o,
                code,
                step,
            });
        }
    }

    /// Some session has not finished, and nothing but a timeout can move any session on:
    /// no session can run a statement, no wait can be killed.
    pub fn stuck(&self, st: &SqlState) -> bool {
        if st.unmodelled.is_some() {
            return false;
        }
        let n = self.sessions();
        if (0..n).all(|s| self.finished(st, s)) {
            return false;
        }
        let mut v = Vec::new();
        self.enabled(st, &mut v);
        !v.iter()
            .any(|a| matches!(a, SqlAction::Step(_) | SqlAction::Kill(_)))
    }

    /// A waiting request the lock table could grant now.
    pub fn lost_wakeup(&self, st: &SqlState) -> bool {
        !st.model.table.grantable_waiters().is_empty()
    }

    /// The state shows assert `i`'s outcome (for `never`: a violation; for `sometimes`:
    /// a witness).
    pub fn assert_occurs(&self, i: usize, st: &SqlState) -> bool {
        let a = &self.asserts[i];
        (0..self.sessions()).any(|s| {
            a.session.is_none_or(|x| x == s)
                && st.last[s].is_some_and(|l| {
                    l.outcome == a.outcome && a.at_step.is_none_or(|(x, k)| x == s && k == l.step)
                })
        })
    }
}

/// The built-in properties of a SQL check, in report order.
pub const PROPS: [&str; 4] = [
    crate::model::NO_CONFLICT,
    crate::model::NO_LOST_WAKEUP,
    crate::model::NO_STUCK,
    "every statement modelled",
];

/// Which property a result is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlProp {
    NoConflict,
    NoLostWakeup,
    NoStuck,
    Modelled,
    Assert(usize),
}

impl SqlCheck {
    /// Every property, built-ins first.
    pub fn props(&self) -> Vec<SqlProp> {
        let mut v = vec![
            SqlProp::NoConflict,
            SqlProp::NoLostWakeup,
            SqlProp::NoStuck,
            SqlProp::Modelled,
        ];
        v.extend((0..self.asserts.len()).map(SqlProp::Assert));
        v
    }

    pub fn prop_name(&self, p: SqlProp) -> String {
        match p {
            SqlProp::NoConflict => PROPS[0].into(),
            SqlProp::NoLostWakeup => PROPS[1].into(),
            SqlProp::NoStuck => PROPS[2].into(),
            SqlProp::Modelled => PROPS[3].into(),
            SqlProp::Assert(i) => self.asserts[i].name.clone(),
        }
    }

    /// Is `p` a `sometimes` (holds when some state shows it)?
    pub fn is_sometimes(&self, p: SqlProp) -> bool {
        matches!(p, SqlProp::Assert(i) if self.asserts[i].kind == AssertKind::Sometimes)
    }

    /// Does `st` show `p`: a violation for the others, a witness for a `sometimes`.
    pub fn occurs(&self, p: SqlProp, st: &SqlState) -> bool {
        match p {
            SqlProp::NoConflict => st.bad_grant.is_some(),
            SqlProp::NoLostWakeup => self.lost_wakeup(st),
            SqlProp::NoStuck => self.stuck(st),
            SqlProp::Modelled => st.unmodelled.is_some(),
            SqlProp::Assert(i) => self.assert_occurs(i, st),
        }
    }
}
