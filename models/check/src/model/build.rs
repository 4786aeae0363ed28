//! Building the model of a parsed scenario ([`MdlModel::new`]): each session's program,
//! its kills and the asserts (the file's lines in order), then the keys interned, the
//! asserts' `at line N` tied to their steps, the passed-over counters' caps and the
//! symmetry classes.

use super::{AssertSpec, MdlModel, StepSpec, MAX_ASSERTS, MAX_BOUND, MAX_SESSIONS};
use mdl_core::key::{KeyHashBuilder, MdlKey};
use mdl_core::table::Config;
use mdl_core::{Outcome, WaitOption};
use mdl_scenario::{AssertKind, Command, Item, Line, ParseError, Pos, Scenario};
use std::collections::HashMap;

fn err(s: &Scenario, pos: Pos, msg: impl Into<String>) -> ParseError {
    ParseError {
        file: s.file.clone(),
        pos,
        msg: msg.into(),
    }
}

/// What the file's lines give, in file order.
struct Programs {
    programs: Vec<Vec<StepSpec>>,
    kills: Vec<u8>,
    asserts: Vec<AssertSpec>,
    /// Per assert (by index): its `at line N`, tied to a step once all are read.
    at_lines: Vec<(usize, Option<usize>)>,
    /// Per session: an assert or a kill names it (it is in no symmetry class).
    named: Vec<bool>,
}

impl MdlModel {
    /// Builds the model of a parsed scenario. `sql` steps (conformance only) and files
    /// past the limits are errors at their line.
    pub fn new(sc: &Scenario) -> Result<MdlModel, ParseError> {
        // The dialect the file was read in (a built-in one or a folder), with its
        // settings applied.
        let dialect = mdl_scenario::runner::dialect_of(sc);
        let n = sc.sessions.len();
        if n > MAX_SESSIONS {
            return Err(err(
                sc,
                sc.lines.first().map(|l| l.pos).unwrap_or_default(),
                format!(
                    "too many sessions for `mdl check`: the file has {n}, check's model \
                     takes at most {MAX_SESSIONS} (`mdl run` takes the file)"
                ),
            ));
        }
        let mut p = Programs {
            programs: vec![Vec::new(); n],
            kills: vec![0u8; n],
            asserts: Vec::new(),
            at_lines: Vec::new(),
            named: vec![false; n],
        };
        for l in &sc.lines {
            p.read_line(sc, l)?;
        }
        intern_all(&mut p.programs);
        p.tie_at_lines(sc)?;
        let passed_cap = passed_caps(&p.asserts, n);
        let has_eventually = p.asserts.iter().any(|a| a.kind == AssertKind::Eventually);
        let classes = p.symmetry_classes();
        Ok(MdlModel {
            scenario: sc.clone(),
            dialect,
            config: Config {
                max_write_lock_count: sc.settings.max_write_lock_count,
            },
            programs: p.programs,
            kills: p.kills,
            asserts: p.asserts,
            classes: classes.into(),
            passed_cap,
            has_eventually,
        })
    }
}

impl Programs {
    /// One line of the file.
    fn read_line(&mut self, sc: &Scenario, l: &Line) -> Result<(), ParseError> {
        match &l.item {
            Item::Step { session, cmd } => self.step(sc, l, *session, cmd)?,
            Item::Kill { session } => {
                self.kills[*session] = self.kills[*session].saturating_add(1);
                self.named[*session] = true;
            }
            Item::Expect {
                session,
                what: mdl_scenario::Expectation::Outcome(Outcome::Error),
            } => {
                if let Some(st) = self.programs[*session].last_mut() {
                    st.expects_error = true;
                }
            }
            Item::Advance { .. } | Item::Expect { .. } => {}
            Item::Assert {
                kind,
                session,
                outcome,
                at_line,
            } => {
                if self.asserts.len() >= MAX_ASSERTS {
                    return Err(err(
                        sc,
                        l.pos,
                        format!("mdl check takes at most {MAX_ASSERTS} assert lines"),
                    ));
                }
                if let Some(s) = session {
                    self.named[*s] = true;
                }
                let name = assert_name(sc, l.pos, *kind, *session, *outcome, *at_line)?;
                self.at_lines.push((self.asserts.len(), *at_line));
                self.asserts.push(AssertSpec {
                    kind: *kind,
                    session: *session,
                    outcome: *outcome,
                    at_step: None,
                    pos: l.pos,
                    name,
                });
            }
        }
        Ok(())
    }

    /// A step of `session`'s program.
    fn step(
        &mut self,
        sc: &Scenario,
        l: &Line,
        session: usize,
        cmd: &Command,
    ) -> Result<(), ParseError> {
        if let Command::Sql(_) = cmd {
            return Err(err(
                sc,
                l.pos,
                "`sql` steps are for `mdl conform`; `mdl check` cannot model them",
            ));
        }
        let wait = match cmd {
            Command::Acquire { wait, .. }
            | Command::AcquireAll { wait, .. }
            | Command::Upgrade { wait, .. } => wait.resolve(&sc.settings),
            _ => WaitOption::Forever,
        };
        if self.programs[session].len() >= u16::MAX as usize {
            return Err(err(sc, l.pos, "too many steps for one session"));
        }
        self.programs[session].push(StepSpec {
            cmd: cmd.clone(),
            pos: l.pos,
            wait,
            expects_error: false,
        });
        Ok(())
    }

    /// `at line N`: a step of the assert's session (of any session for `*`).
    fn tie_at_lines(&mut self, sc: &Scenario) -> Result<(), ParseError> {
        for &(i, line) in &self.at_lines {
            let Some(line) = line else { continue };
            let a = &mut self.asserts[i];
            let found = (0..self.programs.len()).find_map(|s| {
                self.programs[s]
                    .iter()
                    .position(|st| st.pos.line == line)
                    .map(|k| (s, k))
            });
            match found {
                Some((s, k)) if a.session.is_none_or(|x| x == s) => a.at_step = Some((s, k)),
                Some((s, _)) => {
                    return Err(err(
                        sc,
                        a.pos,
                        format!(
                            "line {line} is a step of `{}`, not of `{}`",
                            sc.sessions[s],
                            a.session.map_or("*", |x| sc.sessions[x].as_str())
                        ),
                    ))
                }
                None => {
                    return Err(err(sc, a.pos, format!("line {line} is not a step")));
                }
            }
        }
        Ok(())
    }

    /// Symmetry classes: sessions with the same program (by its text) and the same
    /// number of kills are interchangeable, unless an assert or kill names them.
    fn symmetry_classes(&self) -> Vec<u8> {
        let mut classes = vec![0u8; self.programs.len()];
        let mut keys: Vec<String> = Vec::new();
        for (s, class) in classes.iter_mut().enumerate() {
            let key = if self.named[s] {
                format!("#unique {s}")
            } else {
                let mut k = format!("{}|", self.kills[s]);
                for st in &self.programs[s] {
                    k.push_str(&format!("{:?};{:?}|", st.cmd, st.wait));
                }
                k
            };
            let c = match keys.iter().position(|x| *x == key) {
                Some(c) => c,
                None => {
                    keys.push(key);
                    keys.len() - 1
                }
            };
            *class = c as u8;
        }
        classes
    }
}

/// The name of an assert line, as reports show it (`assert never s1 deadlock (line 7)`).
fn assert_name(
    sc: &Scenario,
    pos: Pos,
    kind: AssertKind,
    session: Option<usize>,
    outcome: Outcome,
    at_line: Option<usize>,
) -> Result<&'static str, ParseError> {
    let who = session.map_or("*".to_string(), |s| sc.sessions[s].clone());
    let what = match kind {
        AssertKind::Never => format!("never {who} {outcome}"),
        AssertKind::Sometimes => format!("sometimes {who} {outcome}"),
        AssertKind::Eventually => format!("eventually {who} granted"),
        AssertKind::Bounded(n) => {
            if n > MAX_BOUND {
                return Err(err(
                    sc,
                    pos,
                    format!("mdl check takes bounds up to {MAX_BOUND}, not {n}"),
                ));
            }
            format!("bounded {who} {n}")
        }
    };
    let at = match at_line {
        Some(n) => format!(" at line {n}"),
        None => String::new(),
    };
    Ok(Box::leak(
        format!("assert {what}{at} (line {})", pos.line).into_boxed_str(),
    ))
}

/// Per session: the most the passed-over counter needs to count (0: not watched).
fn passed_caps(asserts: &[AssertSpec], n: usize) -> Vec<u8> {
    let mut passed_cap = vec![0u8; n];
    for a in asserts {
        if let (true, Some(s)) = (a.is_liveness(), a.session) {
            let need = match a.kind {
                AssertKind::Bounded(b) => b as u8 + 1,
                _ => 1,
            };
            passed_cap[s] = passed_cap[s].max(need);
        }
    }
    passed_cap
}

/// One key object per distinct key: every state then shares it, and comparisons of keys
/// (the lock table's map, the codec's index) stop at the pointer.
fn intern_all(programs: &mut [Vec<StepSpec>]) {
    let mut interned: HashMap<MdlKey, MdlKey, KeyHashBuilder> = Default::default();
    for p in programs {
        for st in p {
            intern_keys(&mut st.cmd, &mut interned);
        }
    }
}

/// Replaces each key of a command by the first object of that key seen.
fn intern_keys(cmd: &mut Command, seen: &mut HashMap<MdlKey, MdlKey, KeyHashBuilder>) {
    let mut one = |k: &mut MdlKey| {
        *k = seen.entry(k.clone()).or_insert_with(|| k.clone()).clone();
    };
    match cmd {
        Command::Acquire { key, .. }
        | Command::Upgrade { key, .. }
        | Command::Downgrade { key, .. }
        | Command::Clone { key, .. }
        | Command::Release { key, .. } => one(key),
        Command::AcquireAll { reqs, .. } => {
            for (k, _) in reqs {
                one(k);
            }
        }
        _ => {}
    }
}
