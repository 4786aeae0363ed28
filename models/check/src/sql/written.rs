//! The written order of a SQL scenario (`mdl run`): the file's lines in order through the
//! same actions as the search ([`SqlCheck::apply`]), with its `expect` lines checked.
//! The conformance files' `expect` lines are what `mdl conform` saw on MariaDB, so this
//! is how a SQL file's check is tied to the server.

use super::text::{outcome_text, record_text};
use super::{SqlAction, SqlCheck};
use mdl_scenario::{Expectation, Item};

/// What playing the written order gave.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// One line per step, event and expectation.
    pub transcript: Vec<String>,
    /// `FILE:LINE: expected ..., seen ...` for each expectation that failed.
    pub failures: Vec<String>,
    /// Sessions still waiting at the end without an `expect SESSION waiting` after their
    /// last step: (line of that step, session).
    pub left_waiting: Vec<(usize, String)>,
    /// The file cannot be played in its order (a step of a session that still waits):
    /// the line and why. The rest of the file is not played.
    pub invalid: Option<(usize, usize, String)>,
}

impl Written {
    /// 0 every expectation holds; 1 one failed or a session was left waiting; 2 the
    /// file cannot be played in its order.
    pub fn exit_code(&self) -> i32 {
        if self.invalid.is_some() {
            2
        } else if !self.failures.is_empty() || !self.left_waiting.is_empty() {
            1
        } else {
            0
        }
    }
}

/// Plays the file's lines in written order.
pub fn play(m: &SqlCheck) -> Written {
    let file = &m.scenario.file;
    let mut w = Written::default();
    let mut st = m.initial_written();
    // Per session: the line of its last step, and whether an `expect ... waiting`
    // followed it.
    let mut last_line: Vec<Option<usize>> = vec![None; m.sessions()];
    let mut waiting_expected = vec![false; m.sessions()];
    for l in &m.scenario.lines {
        let line = l.pos.line;
        match &l.item {
            Item::Step { session, .. } => {
                let s = *session;
                if st.model.is_waiting(s) {
                    w.invalid = Some((
                        line,
                        l.pos.col,
                        format!(
                            "session {} is still waiting: a session takes its next step only \
                             when its statement has finished",
                            m.session_name(s)
                        ),
                    ));
                    return w;
                }
                let (next, rec) = m.apply(&st, SqlAction::Step(s));
                w.transcript.push(record_text(m, &rec));
                if let Some(e) = rec.error {
                    w.invalid = Some((line, l.pos.col, e));
                    return w;
                }
                st = next;
                last_line[s] = Some(line);
                waiting_expected[s] = false;
            }
            Item::Kill { session } => {
                let s = *session;
                if st.model.is_waiting(s) {
                    let (next, rec) = m.apply(&st, SqlAction::Kill(s));
                    w.transcript
                        .push(format!("{line}: {}", record_text(m, &rec)));
                    st = next;
                } else {
                    w.transcript
                        .push(format!("{line}: kill {} (not waiting)", m.session_name(s)));
                }
            }
            Item::Advance { ms } => {
                let (next, events) = m.advance(&st, *ms);
                let mut t = format!("{line}: advance {ms}");
                for (s, o, c) in events {
                    t.push_str(&format!(
                        "\n       => {} {}",
                        m.session_name(s),
                        outcome_text(o, c)
                    ));
                }
                w.transcript.push(t);
                st = next;
            }
            Item::Expect { session, what } => {
                let s = *session;
                let name = m.session_name(s);
                let (ok, want, seen) = match what {
                    Expectation::Outcome(o) => {
                        let seen = st.last[s]
                            .map(|x| outcome_text(x.outcome, x.code))
                            .unwrap_or_else(|| "nothing".into());
                        if *o == mdl_core::Outcome::Waiting {
                            waiting_expected[s] = true;
                        }
                        (
                            st.last[s].is_some_and(|x| x.outcome == *o),
                            o.to_string(),
                            seen,
                        )
                    }
                    Expectation::ErrorCode(c) => {
                        let seen = st.last[s]
                            .map(|x| outcome_text(x.outcome, x.code))
                            .unwrap_or_else(|| "nothing".into());
                        (
                            st.last[s].is_some_and(|x| {
                                x.outcome == mdl_core::Outcome::Error && x.code == Some(*c)
                            }),
                            format!("error {c}"),
                            seen,
                        )
                    }
                    Expectation::Holds { key, ty } | Expectation::NotHolds { key, ty } => {
                        let want = matches!(what, Expectation::Holds { .. });
                        let d = &st.model.dialect;
                        let ns = &d.namespace(key.namespace()).name;
                        let text = format!(
                            "{ns} {} {}",
                            mdl_sql::key_text::key_text(ns, key.db(), key.name()),
                            ty
                        );
                        let locks = st.model.locks_of(s);
                        let has = locks.contains(&text);
                        (
                            has == want,
                            format!("{} {text}", if want { "holds" } else { "not-holds" }),
                            format!("[{}]", locks.into_iter().collect::<Vec<_>>().join(", ")),
                        )
                    }
                    Expectation::Tickets { .. } => (
                        false,
                        "tickets".into(),
                        "not available for SQL sessions (their locks are compared by \
                         `holds`)"
                            .into(),
                    ),
                };
                w.transcript.push(format!(
                    "{line}: expect {name} {want}: {}",
                    if ok { "ok" } else { "FAILED" }
                ));
                if !ok {
                    w.failures.push(format!(
                        "{file}:{line}: expectation failed: expected {name} {want}, seen {seen}"
                    ));
                }
            }
            Item::Assert { .. } => {}
        }
    }
    for s in 0..m.sessions() {
        if st.model.is_waiting(s) && !waiting_expected[s] {
            w.left_waiting
                .push((last_line[s].unwrap_or(0), m.session_name(s).to_string()));
        }
    }
    w
}
