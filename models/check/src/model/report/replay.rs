//! A counterexample as a scenario that `mdl run` accepts.

use crate::model::result::Trace;
use crate::model::{Action, MdlModel};
use mdl_core::{Outcome, WaitOption};
use mdl_scenario::print::{command_text, command_text_with_wait, settings_text, wait_text};
use mdl_scenario::Settings;
use std::fmt::Write;

/// A counterexample as a scenario that `mdl run` accepts: the steps in the interleaved
/// order, `kill` lines for kills, `advance` lines for timeouts (each timed-out request
/// gets the `timeout=` that makes it expire there, every other wait is unlimited), and
/// `expect` lines of the outcomes seen.
pub fn replay_scenario(m: &MdlModel, t: &Trace, title: &str) -> String {
    const TICK: u64 = 1000;
    enum L {
        Step {
            session: usize,
            step: usize,
            start: u64,
            expire: Option<u64>,
        },
        Text(String),
    }
    let mut lines: Vec<L> = Vec::new();
    let mut open: Vec<Option<usize>> = vec![None; m.programs.len()];
    let mut clock = 0u64;
    let expect = |lines: &mut Vec<L>, s: usize, o: Outcome| {
        lines.push(L::Text(format!("expect {} {o}", m.session_name(s))));
    };
    for (k, r) in t.records.iter().enumerate() {
        let s = r.action.session();
        match r.action {
            Action::Step(_) => {
                let step = r.step.unwrap_or(0);
                open[s] = Some(lines.len());
                lines.push(L::Step {
                    session: s,
                    step,
                    start: clock,
                    expire: None,
                });
            }
            Action::Resume(_) => {
                // `mdl run` goes on with a bulk acquire as soon as its element is granted;
                // the model may let other sessions act in between.
                let paused = |i: usize| {
                    t.states
                        .get(i)
                        .is_some_and(|st| st.table.sessions()[s].resume.is_some())
                };
                if k >= 1 && paused(k - 1) {
                    lines.push(L::Text(format!(
                        "# note: the model resumed {}'s bulk acquire only here, after other \
                         actions; `mdl run` resumes it at once, so from here the replay may \
                         differ",
                        m.session_name(s)
                    )));
                }
            }
            Action::Timeout(_) => {
                clock += TICK;
                lines.push(L::Text(format!("advance {TICK}")));
                if let Some(i) = open[s] {
                    if let L::Step { expire, .. } = &mut lines[i] {
                        *expire = Some(clock);
                    }
                }
            }
            Action::Kill(_) => {
                lines.push(L::Text(format!("kill {}", m.session_name(s))));
            }
        }
        if let Some(o) = r.outcome {
            if o != Outcome::Waiting || matches!(r.action, Action::Step(_)) {
                expect(&mut lines, s, o);
            }
        }
        for e in &r.events {
            if !e.2 {
                expect(&mut lines, e.0, e.1);
            }
        }
    }
    let settings = Settings {
        lock_wait_timeout: None,
        ..m.scenario.settings.clone()
    };
    let mut out = String::new();
    for l in title.lines() {
        let _ = writeln!(out, "# {l}");
    }
    out.push_str(&settings_text(&settings));
    out.push('\n');
    for l in &lines {
        match l {
            L::Text(s) => {
                out.push_str(s);
                out.push('\n');
            }
            L::Step {
                session,
                step,
                start,
                expire,
            } => {
                let spec = &m.programs[*session][*step];
                let text = if spec.cmd.is_request() {
                    let w = match (spec.wait, expire) {
                        (_, Some(at)) => Some(format!("timeout={}", at - start)),
                        (WaitOption::NoWait, _)
                        | (WaitOption::Timeout(std::time::Duration::ZERO), _) => {
                            wait_text(spec.wait)
                        }
                        _ => None,
                    };
                    command_text_with_wait(&m.dialect, &spec.cmd, Some(w))
                } else {
                    command_text(&m.dialect, &spec.cmd)
                };
                let _ = writeln!(
                    out,
                    "{}: {text}   # line {}",
                    m.session_name(*session),
                    spec.pos.line
                );
            }
        }
    }
    out
}
