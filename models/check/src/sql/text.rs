//! The text of a SQL check: the properties, then each counterexample (and each
//! `sometimes` example) as SQL statements per session with their outcomes, the
//! statements the step finished in other sessions, and every session's locks at the end.

use super::check::SqlResult;
use super::{SqlAction, SqlCheck, SqlRecord, SqlState};
use crate::model::search::Stop;
use mdl_core::Outcome;
use std::fmt::Write;

/// An outcome with the server error code of a failed statement.
pub fn outcome_text(o: Outcome, code: Option<u32>) -> String {
    match code {
        Some(c) if o == Outcome::Error => format!("{o} {c}"),
        _ => o.to_string(),
    }
}

/// The action as a line of the scenario (`s1: sql BEGIN`, `kill s2`, `s2's wait times
/// out`), with its line number for a statement.
pub fn action_text(m: &SqlCheck, a: SqlAction, step: Option<usize>) -> String {
    let who = m.session_name(a.session());
    match a {
        SqlAction::Step(s) => {
            let k = step.unwrap_or(0);
            match m.programs[s].get(k) {
                Some(st) => format!("{who}: sql {}   (line {})", st.sql, st.pos.line),
                None => format!("{who}: (no step {k})"),
            }
        }
        SqlAction::Timeout(_) => format!("{who}'s wait times out (lock_wait_timeout)"),
        SqlAction::Kill(_) => format!("kill {who}"),
    }
}

/// One record: the action, its outcome, and the statements it finished elsewhere.
pub fn record_text(m: &SqlCheck, r: &SqlRecord) -> String {
    let mut out = action_text(m, r.action, r.step);
    if let Some((o, c)) = r.outcome {
        let _ = write!(out, " -> {}", outcome_text(o, c));
        if let Some(w) = &r.waits_for {
            let _ = write!(out, " for {w}");
        }
    }
    if let Some(e) = &r.error {
        let _ = write!(out, " -> not modelled: {e}");
    }
    for (s, o, c) in &r.events {
        let _ = write!(
            out,
            "\n       => {} {}",
            m.session_name(*s),
            outcome_text(*o, *c)
        );
    }
    out
}

/// Each session's locks and where its program is, one line per session.
pub fn state_lines(m: &SqlCheck, st: &SqlState) -> Vec<String> {
    (0..m.sessions())
        .map(|s| {
            let locks: Vec<String> = st.model.locks_of(s).into_iter().collect();
            let pc = st.pc[s] as usize;
            let at = if st.model.between_instructions(s) {
                let k = pc.saturating_sub(1);
                format!(
                    "in the CALL of line {}, between two instructions",
                    m.programs[s][k].pos.line
                )
            } else if st.model.is_waiting(s) {
                let k = pc.saturating_sub(1);
                format!("waits in line {}", m.programs[s][k].pos.line)
            } else if pc < m.programs[s].len() {
                format!("next line {}", m.programs[s][pc].pos.line)
            } else {
                "done".into()
            };
            format!("{} {at}; locks [{}]", m.session_name(s), locks.join(", "))
        })
        .collect()
}

/// The reductions a search used and what they did, in words (`none` when neither).
pub fn reductions(r: &SqlResult) -> String {
    let mut v = Vec::new();
    match &r.symmetry {
        Some(y) => {
            let groups: Vec<String> = y.groups.iter().map(|g| g.join(" = ")).collect();
            v.push(format!(
                "symmetry over {} ({} states generated were named by another member of \
                 their orbit)",
                groups.join(", "),
                y.renamed
            ));
        }
        None => v.push("no symmetry (off, or no two sessions interchangeable)".into()),
    }
    match &r.por {
        Some(p) => v.push(format!(
            "private steps taken alone ({} states expanded by one action, {} actions \
             skipped)",
            p.reduced, p.skipped
        )),
        None => v.push("no partial-order reduction (--no-por)".into()),
    }
    v.join("; ")
}

/// The whole text report of one file.
pub fn text(m: &SqlCheck, r: &SqlResult) -> String {
    let mut out = format!("{}:\n", m.scenario.file);
    let w = r.props.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in &r.props {
        let word = if p.violated {
            "violated"
        } else if m.is_sometimes(p.prop) && p.trace.is_some() {
            // (Met on some path: holds, in a sample as in a search.)
            "holds"
        } else if r.incomplete {
            "incomplete"
        } else {
            "holds"
        };
        let _ = writeln!(out, "  {:w$}  {word}", p.name);
    }
    let mut seen: Vec<String> = Vec::new();
    for s in 0..m.sessions() {
        let os: Vec<&str> = r
            .outcomes
            .iter()
            .filter(|(x, _)| *x == s)
            .map(|(_, o)| o.name())
            .collect();
        seen.push(format!("{} {}", m.session_name(s), os.join("/")));
    }
    let _ = writeln!(out, "  outcomes seen: {}", seen.join("; "));
    let _ = writeln!(
        out,
        "  {} states ({} unique), max depth {}, {:.3} s; {} over SQL statements ({}){}",
        r.states,
        r.unique,
        r.max_depth,
        r.secs,
        match (r.simulated.is_some(), r.dfs) {
            (true, _) => "random paths",
            (false, true) => "DFS",
            (false, false) => "BFS",
        },
        m.table_name(),
        if r.stateright {
            ", stateright's checker"
        } else {
            ""
        }
    );
    if r.simulated.is_none() && !r.stateright {
        let _ = writeln!(out, "  reductions: {}", reductions(r));
    }
    if let Some(x) = &r.simulated {
        let _ = writeln!(
            out,
            "  simulated: {} random paths of {} (seed {}, at most {} actions each){}",
            x.paths,
            x.asked,
            x.seed,
            x.depth_cap,
            if x.timed_out {
                ", stopped by --max-time"
            } else {
                ""
            }
        );
    } else if r.incomplete {
        let why = match r.stop {
            Some(Stop::States) => "stopped at the state limit (--max-states)",
            Some(Stop::Memory) => "stopped at the memory bound (--max-memory)",
            Some(Stop::Time) => "stopped at the time bound (--max-time)",
            None => "the depth bound (--max-depth) cut it",
        };
        let _ = writeln!(out, "  incomplete: {why}");
    }
    for p in &r.props {
        let Some((recs, st)) = &p.trace else { continue };
        let sometimes = m.is_sometimes(p.prop);
        if sometimes && p.violated {
            continue;
        }
        let _ = writeln!(out);
        if sometimes {
            let _ = writeln!(
                out,
                "  `{}` holds: an example after {} actions:",
                p.name,
                recs.len()
            );
        } else {
            let _ = writeln!(
                out,
                "  `{}` violated after {} actions (a shortest trace):",
                p.name,
                recs.len()
            );
        }
        for (i, rec) in recs.iter().enumerate() {
            let _ = writeln!(out, "    {}. {}", i + 1, record_text(m, rec));
        }
        let _ = writeln!(out, "       final state:");
        for l in state_lines(m, st) {
            let _ = writeln!(out, "         {l}");
        }
    }
    out
}

/// A trace as a SQL scenario that `mdl run` replays and `mdl conform` plays on the
/// server: the statements in the trace's order, each followed by the outcomes the model
/// gave (`expect` lines), `kill` lines, and `advance` to a timed-out wait's deadline.
pub fn replay_scenario(m: &SqlCheck, actions: &[SqlAction], title: &str) -> String {
    let sc = &m.scenario;
    let mut out = format!(
        "# {title}\n# Written by `mdl check --replay`.\ndialect {}\n",
        m.dialect_name()
    );
    if let Some(ms) = sc.settings.lock_wait_timeout {
        let _ = writeln!(out, "lock_wait_timeout {ms}");
    }
    for (_, q) in &sc.setup {
        let _ = writeln!(out, "setup: sql {q}");
    }
    let mut st = m.initial();
    for a in actions {
        let s = a.session();
        let name = m.session_name(s);
        let before = st.model.now();
        let resumed = st.model.between_instructions(s);
        let (next, rec) = m.apply(&st, *a);
        // A CALL that stopped between two instructions has no outcome yet: its expect
        // comes with the step that ends it (`mdl run` and the server play its
        // instructions on at once; a path through the window, where another session ran
        // between two of them, is not one they can play: `paths::maximal_paths` leaves
        // those out).
        let paused = next.model.between_instructions(s);
        match a {
            SqlAction::Step(_) => {
                let k = rec.step.unwrap_or(0);
                if resumed {
                    let _ = writeln!(out, "# {name}: its CALL's next instruction");
                } else {
                    let _ = writeln!(out, "{name}: sql {}", m.programs[s][k].sql);
                }
                match rec.outcome {
                    Some((o, _)) if !paused => {
                        let _ = writeln!(out, "expect {name} {o}");
                    }
                    _ => {}
                }
            }
            SqlAction::Kill(_) => {
                let _ = writeln!(out, "kill {name}");
            }
            SqlAction::Timeout(_) => {
                let _ = writeln!(
                    out,
                    "advance {}",
                    next.model.now().saturating_sub(before).max(1)
                );
            }
        }
        for (i, o, _) in &rec.events {
            if !(matches!(a, SqlAction::Step(_)) && *i == s) {
                let _ = writeln!(out, "expect {} {o}", m.session_name(*i));
            }
        }
        st = next;
    }
    out
}
