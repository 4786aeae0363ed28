//! The Markdown report: the properties table, and per counterexample a Mermaid sequence
//! diagram and the wait-for graph (Mermaid and Graphviz DOT).

use super::coverage::{bytes_text, coverage_text, reductions};
use super::trace::{labelled_edges, request_edges, trace_text, violation_detail, Edge};
use crate::model::result::{CheckResult, Status, Trace};
use crate::model::{graph, Action, MdlModel};
use mdl_core::Outcome;
use mdl_scenario::print::command_text;
use mdl_scenario::read::thousands;
use std::fmt::Write;

/// Text for a Mermaid label or message: every character but ASCII letters, digits,
/// space and `._-,=` becomes an entity code (`#35;` for `#`), which Mermaid shows as the
/// character, so no key can end a label, start a comment or close a node early.
pub fn mermaid_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || " ._-,=".contains(c) {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", c as u32);
        }
    }
    out
}

/// A Graphviz DOT string literal (with its quotes).
pub fn dot_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub(super) fn sequence_diagram(m: &MdlModel, t: &Trace) -> String {
    let mut out = String::from("```mermaid\nsequenceDiagram\n");
    for s in 0..m.programs.len() {
        let _ = writeln!(
            out,
            "    participant P{s} as {}",
            mermaid_text(m.session_name(s))
        );
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

/// The labelled wait-for edges at the end of a trace: the step's graph (before it and
/// its new request) when its last action resolved a deadlock, the final state's otherwise.
pub(super) fn final_edges(m: &MdlModel, t: &Trace) -> Vec<Edge> {
    let n = t.records.len();
    if let (Some(r), Some(pre)) = (
        t.records.last(),
        n.checked_sub(1).and_then(|i| t.states.get(i)),
    ) {
        if r.step_edges.is_some() {
            let mut e = labelled_edges(m, pre);
            for x in request_edges(m, pre, r) {
                if !e.contains(&x) {
                    e.push(x);
                }
            }
            return e;
        }
    }
    t.states
        .last()
        .map(|s| labelled_edges(m, s))
        .unwrap_or_default()
}

/// The wait-for graph at the end of a trace as a Mermaid flowchart with labelled edges.
pub fn wait_for_graph(m: &MdlModel, t: &Trace) -> String {
    let edges = final_edges(m, t);
    let n = m.programs.len();
    let mut out = String::from("```mermaid\ngraph LR\n");
    for s in 0..n {
        let _ = writeln!(out, "    P{s}[\"{}\"]", mermaid_text(m.session_name(s)));
    }
    for e in &edges {
        let _ = writeln!(
            out,
            "    P{} -->|\"{}\"| P{}",
            e.from,
            mermaid_text(&e.label(m)),
            e.to
        );
    }
    let plain: Vec<(usize, usize)> = edges.iter().map(|e| (e.from, e.to)).collect();
    let cyc = graph::on_cycles(n, &plain);
    if !cyc.is_empty() {
        out.push_str("    classDef cycle fill:#f96,stroke:#c30\n");
        let ids: Vec<String> = cyc.iter().map(|c| format!("P{c}")).collect();
        let _ = writeln!(out, "    class {} cycle", ids.join(","));
    }
    out.push_str("```\n");
    out
}

/// The same graph in Graphviz DOT.
pub fn wait_for_dot(m: &MdlModel, t: &Trace) -> String {
    let edges = final_edges(m, t);
    let n = m.programs.len();
    let plain: Vec<(usize, usize)> = edges.iter().map(|e| (e.from, e.to)).collect();
    let cyc = graph::on_cycles(n, &plain);
    let mut out = String::from("digraph waits {\n    rankdir=LR;\n");
    for s in 0..n {
        let _ = writeln!(
            out,
            "    P{s} [label={}{}];",
            dot_string(m.session_name(s)),
            if cyc.contains(&s) {
                ", style=filled, fillcolor=\"#ff9966\""
            } else {
                ""
            }
        );
    }
    for e in &edges {
        let _ = writeln!(
            out,
            "    P{} -> P{} [label={}{}];",
            e.from,
            e.to,
            dot_string(&e.label(m)),
            if e.granted { "" } else { ", style=dashed" }
        );
    }
    out.push_str("}\n");
    out
}

/// The Markdown report of one file: the properties table and, per counterexample, a
/// sequence diagram and the wait-for graph at the failing state.
pub fn markdown(m: &MdlModel, r: &CheckResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## `{}`\n", m.scenario.file.replace('`', "'"));
    out.push_str("| property | result |\n|---|---|\n");
    for p in &r.props {
        let _ = writeln!(
            out,
            "| {} | {} |",
            p.name.replace('|', "\\|"),
            p.status.word()
        );
    }
    let red = reductions(r);
    let _ = writeln!(
        out,
        "\n{} states ({} unique), max depth {}, {:.3} s, {:.0} states/s ({}{}{}); {:.0} bytes \
         per state{}.\n",
        thousands(r.states),
        thousands(r.unique_states),
        r.max_depth,
        r.seconds,
        r.states_per_second(),
        if r.dfs { "DFS" } else { "BFS" },
        if red.is_empty() { "" } else { ", " },
        red,
        r.bytes_per_state(),
        match r.peak_rss {
            Some(p) => format!(", peak resident {}", bytes_text(p)),
            None => String::new(),
        },
    );
    if let Some(c) = coverage_text(r) {
        let _ = writeln!(out, "{c}.\n");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "- warning, line {}: {}", w.line, w.message);
    }
    if !r.warnings.is_empty() {
        out.push('\n');
    }
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
        out.push_str(
            "\nWait-for graph at the failing state (edge: the key, the blocker's \
                      ticket, granted or pending):\n\n",
        );
        out.push_str(&wait_for_graph(m, t));
        out.push_str("\n<details><summary>The same graph in DOT</summary>\n\n```dot\n");
        out.push_str(&wait_for_dot(m, t));
        out.push_str("```\n\n</details>\n\n");
    }
    out
}
