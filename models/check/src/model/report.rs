//! What `mdl check` prints: the text and JSON results, the replay scenario of a
//! counterexample, and the Markdown report with Mermaid diagrams.

use super::check::{CheckResult, PropResult, Status, Trace};
use super::{graph, Action, MdlModel, Record, State};
use mdl_core::{Outcome, WaitOption};
use mdl_scenario::print::{command_text, command_text_with_wait, settings_text, wait_text};
use mdl_scenario::Settings;
use std::fmt::Write;

/// An action as one line (`s1: acquire TABLE db.t1 SR transaction`).
pub fn action_text(m: &MdlModel, a: Action) -> String {
    let s = a.session();
    let name = m.session_name(s);
    match a {
        Action::Step(_) => format!("{name}: next step"),
        Action::Resume(_) => format!("{name}: bulk acquire goes on"),
        Action::Timeout(_) => format!("{name}: wait times out"),
        Action::Kill(_) => format!("kill {name}"),
    }
}

/// A record as one line of a trace, without the events.
pub fn record_text(m: &MdlModel, r: &Record) -> String {
    let s = r.action.session();
    let name = m.session_name(s);
    match (r.action, r.step) {
        (Action::Step(_), Some(i)) => {
            let spec = &m.programs[s][i];
            format!(
                "{name}: {}   (line {})",
                command_text(&m.dialect, &spec.cmd),
                spec.pos.line
            )
        }
        _ => action_text(m, r.action),
    }
}

fn outcome_text(r: &Record) -> Option<String> {
    r.outcome.map(|o| o.to_string())
}

fn event_text(m: &MdlModel, e: &(usize, Outcome, bool)) -> String {
    if e.2 {
        format!("{}: bulk element granted", m.session_name(e.0))
    } else {
        format!("{}: {}", m.session_name(e.0), e.1)
    }
}

/// The trace as numbered lines.
pub fn trace_text(m: &MdlModel, t: &Trace) -> String {
    let mut out = String::new();
    for (i, r) in t.records.iter().enumerate() {
        let _ = write!(out, "  {:>3}. {}", i + 1, record_text(m, r));
        if let Some(o) = outcome_text(r) {
            let _ = write!(out, " -> {o}");
        }
        out.push('\n');
        for e in &r.events {
            let _ = writeln!(out, "         => {}", event_text(m, e));
        }
    }
    if let Some(st) = t.states.last() {
        let _ = writeln!(out, "       final state: {}", state_summary(m, st));
    }
    out
}

/// A one-line summary of a state: who waits, who holds what.
pub fn state_summary(m: &MdlModel, st: &State) -> String {
    let mut parts = Vec::new();
    for (s, x) in st.table.sessions().iter().enumerate() {
        let name = m.session_name(s);
        let held: Vec<String> = x
            .book
            .held()
            .iter()
            .map(|h| format!("{} {}", h.key.display(&m.dialect), h.ty))
            .collect();
        let mut p = format!("{name} holds [{}]", held.join(", "));
        if let Some(w) = &x.wait {
            let _ = write!(p, " waits {} {}", w.key.display(&m.dialect), w.ticket.ty);
        }
        if (st.pc[s] as usize) < m.programs[s].len() {
            let _ = write!(
                p,
                " next line {}",
                m.programs[s][st.pc[s] as usize].pos.line
            );
        }
        parts.push(p);
    }
    parts.join("; ")
}

/// Why a state violates a built-in property (for the text output).
pub fn violation_detail(m: &MdlModel, p: &PropResult) -> Option<String> {
    let st = p.trace.as_ref()?.states.last()?;
    Some(match p.kind {
        super::PropKind::NoConflict => {
            let (k, a, ta, b, tb) = m.conflict(st)?;
            format!(
                "{} was granted {tb} on {} while {} holds {ta}, which the granted matrix \
                 forbids",
                m.session_name(b),
                k.display(&m.dialect),
                m.session_name(a),
            )
        }
        super::PropKind::NoLostWakeup => {
            let w = st.table.grantable_waiters(&m.dialect);
            let v: Vec<String> = w
                .iter()
                .map(|(o, k, t)| {
                    format!(
                        "{} waits for {} {t} but could be granted",
                        m.session_name(o.0 as usize),
                        k.display(&m.dialect)
                    )
                })
                .collect();
            v.join("; ")
        }
        super::PropKind::NoStuck => "no action is enabled but not every session is done".into(),
        super::PropKind::NoFalseDeadlock => format!(
            "{} got `deadlock` without a cycle through it in the wait-for graph",
            m.session_name(st.bad_deadlock? as usize)
        ),
        super::PropKind::Assert(_) => return None,
    })
}

// --- replay -----------------------------------------------------------------------------

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
                        (WaitOption::NoWait, _) | (WaitOption::Timeout(0), _) => {
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

// --- text and JSON ----------------------------------------------------------------------

/// The text output of one file.
pub fn text(m: &MdlModel, r: &CheckResult, show_replay: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}:", m.scenario.file);
    let w = r.props.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in &r.props {
        let _ = writeln!(out, "  {:<w$}  {}", p.name, p.status.word());
    }
    let _ = writeln!(
        out,
        "  {} states ({} unique), max depth {}, {:.3} s, {:.0} states/s; {}{}",
        r.states,
        r.unique_states,
        r.max_depth,
        r.seconds,
        r.states_per_second(),
        if r.dfs { "DFS" } else { "BFS" },
        if r.symmetry_used {
            ", symmetry reduction"
        } else {
            ""
        }
    );
    if r.limited {
        let _ = writeln!(
            out,
            "  state limit reached ({} states): the check is incomplete; raise --max-states \
             or shrink the scenario",
            r.states
        );
    }
    if let Some(d) = r.depth_bound {
        let _ = writeln!(out, "  bounded check: interleavings up to {d} actions deep");
    }
    for p in &r.props {
        if p.status != Status::Violated {
            continue;
        }
        match &p.trace {
            Some(t) => {
                let _ = writeln!(
                    out,
                    "\n  `{}` violated after {} actions{}:",
                    p.name,
                    t.records.len(),
                    if r.dfs { "" } else { " (a shortest trace)" }
                );
                if let Some(d) = violation_detail(m, p) {
                    let _ = writeln!(out, "  {d}");
                }
                out.push_str(&trace_text(m, t));
                if show_replay {
                    let _ = writeln!(out, "\n  replay (a scenario for `mdl run`):");
                    let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
                    for l in replay_scenario(m, t, &title).lines() {
                        let _ = writeln!(out, "    {l}");
                    }
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "\n  `{}` violated: no interleaving gives that outcome",
                    p.name
                );
            }
        }
    }
    out
}

fn trace_json(m: &MdlModel, t: &Trace) -> serde_json::Value {
    let steps: Vec<serde_json::Value> = t
        .records
        .iter()
        .map(|r| {
            let s = r.action.session();
            let (kind, line, command) = match (r.action, r.step) {
                (Action::Step(_), Some(i)) => {
                    let spec = &m.programs[s][i];
                    (
                        "step",
                        Some(spec.pos.line),
                        Some(command_text(&m.dialect, &spec.cmd)),
                    )
                }
                (Action::Resume(_), _) => ("resume", None, None),
                (Action::Timeout(_), _) => ("timeout", None, None),
                (Action::Kill(_), _) => ("kill", None, None),
                _ => ("step", None, None),
            };
            let events: Vec<serde_json::Value> = r
                .events
                .iter()
                .map(|e| {
                    serde_json::json!({
                        "session": m.session_name(e.0),
                        "outcome": e.1.name(),
                        "partial": e.2,
                    })
                })
                .collect();
            serde_json::json!({
                "session": m.session_name(s),
                "action": kind,
                "line": line,
                "command": command,
                "outcome": r.outcome.map(|o| o.name()),
                "events": events,
            })
        })
        .collect();
    serde_json::Value::Array(steps)
}

/// The JSON output of one file.
pub fn json(m: &MdlModel, r: &CheckResult) -> serde_json::Value {
    let props: Vec<serde_json::Value> = r
        .props
        .iter()
        .map(|p| {
            let mut v = serde_json::json!({
                "name": p.name,
                "status": p.status.word(),
            });
            if let Some(t) = &p.trace {
                v["trace"] = trace_json(m, t);
                v["detail"] = violation_detail(m, p).into();
                let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
                v["replay"] = replay_scenario(m, t, &title).into();
            }
            v
        })
        .collect();
    serde_json::json!({
        "file": m.scenario.file,
        "properties": props,
        "states": r.states,
        "unique_states": r.unique_states,
        "max_depth": r.max_depth,
        "seconds": r.seconds,
        "states_per_second": r.states_per_second(),
        "limited": r.limited,
        "search": if r.dfs { "dfs" } else { "bfs" },
        "depth_bound": r.depth_bound,
        "symmetry": r.symmetry_used,
        "all_hold": r.all_hold(),
    })
}

// --- Markdown ---------------------------------------------------------------------------

fn mermaid_text(s: &str) -> String {
    s.replace('#', "#35;").replace(';', "#59;")
}

fn sequence_diagram(m: &MdlModel, t: &Trace) -> String {
    let mut out = String::from("```mermaid\nsequenceDiagram\n");
    for s in 0..m.programs.len() {
        let _ = writeln!(out, "    participant P{s} as {}", m.session_name(s));
    }
    out.push_str("    participant LM as lock manager\n");
    for r in &t.records {
        let s = r.action.session();
        match (r.action, r.step) {
            (Action::Step(_), Some(i)) => {
                let spec = &m.programs[s][i];
                let _ = writeln!(
                    out,
                    "    P{s}->>LM: {}",
                    mermaid_text(&command_text(&m.dialect, &spec.cmd))
                );
            }
            (Action::Resume(_), _) => {
                let _ = writeln!(out, "    P{s}->>LM: bulk acquire goes on");
            }
            (Action::Timeout(_), _) => {
                let _ = writeln!(out, "    Note over P{s}: wait times out");
            }
            (Action::Kill(_), _) => {
                let _ = writeln!(out, "    Note over P{s}: kill");
            }
            _ => {}
        }
        if let Some(o) = r.outcome {
            let arrow = match o {
                Outcome::Deadlock | Outcome::Timeout | Outcome::Killed | Outcome::Busy => "-x",
                Outcome::Error => "--x",
                _ => "-->>",
            };
            let _ = writeln!(out, "    LM{arrow}P{s}: {o}");
        }
        for e in &r.events {
            let (arrow, text) = match (e.1, e.2) {
                (Outcome::Granted, true) => ("-->>", "bulk element granted".to_string()),
                (Outcome::Granted, false) => ("-->>", "granted (wait ends)".to_string()),
                (o, _) => ("-x", format!("{o} (wait ends)")),
            };
            let _ = writeln!(out, "    LM{arrow}P{}: {text}", e.0);
        }
    }
    out.push_str("```\n");
    out
}

fn wait_for_graph(m: &MdlModel, t: &Trace) -> String {
    let edges = t
        .records
        .last()
        .and_then(|r| r.step_edges.clone())
        .or_else(|| t.states.last().map(|s| m.edges(s)))
        .unwrap_or_default();
    let n = m.programs.len();
    let mut out = String::from("```mermaid\ngraph LR\n");
    for s in 0..n {
        let _ = writeln!(out, "    P{s}[\"{}\"]", m.session_name(s));
    }
    for (a, b) in &edges {
        let _ = writeln!(out, "    P{a} --> P{b}");
    }
    let cyc = graph::on_cycles(n, &edges);
    if !cyc.is_empty() {
        out.push_str("    classDef cycle fill:#f96,stroke:#c30\n");
        let ids: Vec<String> = cyc.iter().map(|c| format!("P{c}")).collect();
        let _ = writeln!(out, "    class {} cycle", ids.join(","));
    }
    out.push_str("```\n");
    out
}

/// The Markdown report of one file: the properties table and, per counterexample, a
/// sequence diagram and the wait-for graph at the failing state.
pub fn markdown(m: &MdlModel, r: &CheckResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## `{}`\n", m.scenario.file);
    out.push_str("| property | result |\n|---|---|\n");
    for p in &r.props {
        let _ = writeln!(out, "| {} | {} |", p.name, p.status.word());
    }
    let _ = writeln!(
        out,
        "\n{} states ({} unique), max depth {}, {:.3} s, {:.0} states/s ({}{}){}.\n",
        r.states,
        r.unique_states,
        r.max_depth,
        r.seconds,
        r.states_per_second(),
        if r.dfs { "DFS" } else { "BFS" },
        if r.symmetry_used {
            ", symmetry reduction"
        } else {
            ""
        },
        if r.limited {
            "; state limit reached, incomplete"
        } else {
            ""
        }
    );
    for p in &r.props {
        if p.status != Status::Violated {
            continue;
        }
        let _ = writeln!(out, "### `{}` violated\n", p.name);
        let Some(t) = &p.trace else {
            out.push_str("No interleaving gives that outcome.\n\n");
            continue;
        };
        if let Some(d) = violation_detail(m, p) {
            let _ = writeln!(out, "{d}.\n");
        }
        out.push_str("Trace:\n\n```text\n");
        out.push_str(&trace_text(m, t));
        out.push_str("```\n\n");
        out.push_str(&sequence_diagram(m, t));
        out.push_str("\nWait-for graph at the failing state:\n\n");
        out.push_str(&wait_for_graph(m, t));
        out.push('\n');
    }
    out
}
