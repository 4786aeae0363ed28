//! The text output of one file (`mdl check`).

use super::coverage::{actions_text, bytes_text, coverage_text, reductions};
use super::replay::replay_scenario;
use super::trace::{trace_text, violation_detail};
use crate::model::result::{CheckResult, Status};
use crate::model::{MdlModel, PropKind};
use mdl_scenario::read::thousands;
use std::fmt::Write;

/// Whether the text output shows, under each counterexample, its replay scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replays {
    /// The replay scenario under each trace (`mdl check` without `--replay`).
    Shown,
    /// Traces only (`--replay FILE` writes the scenario to a file instead).
    Omitted,
}

/// The text output of one file.
pub fn text(m: &MdlModel, r: &CheckResult, replays: Replays) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}:", m.scenario.file);
    let w = r.props.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for (i, p) in r.props.iter().enumerate() {
        let word = match (p.status, r.depth_bound) {
            (Status::HoldsToDepth, Some(d)) => format!("holds up to depth {d}"),
            (s, _) => s.word().to_string(),
        };
        // A sample says which path decided the property, and when.
        let when = match r
            .simulated
            .as_ref()
            .and_then(|s| s.found_at.get(i).copied().flatten())
        {
            Some((path, secs)) => format!(" (path {path}, after {secs:.3} s)"),
            None => String::new(),
        };
        let _ = writeln!(out, "  {:<w$}  {word}{when}", p.name);
    }
    let red = reductions(r);
    let _ = writeln!(
        out,
        "  {} states ({} unique), max depth {}, {:.3} s, {:.0} states/s; {}{}{}",
        thousands(r.states),
        thousands(r.unique_states),
        r.max_depth,
        r.seconds,
        r.states_per_second(),
        match (r.simulated.is_some(), r.stateright, r.dfs) {
            (true, _, _) => "random paths",
            (_, true, true) => "stateright's DFS",
            (_, true, false) => "stateright's BFS",
            (_, _, true) => "DFS",
            _ => "BFS",
        },
        if red.is_empty() { "" } else { ", " },
        red
    );
    if !r.stateright {
        let _ = writeln!(
            out,
            "  memory: {:.0} bytes per state ({} for the states seen and the queue){}; bound {}",
            r.bytes_per_state(),
            bytes_text(r.search_bytes),
            match r.peak_rss {
                Some(p) => format!(", peak resident {}", bytes_text(p)),
                None => String::new(),
            },
            bytes_text(r.max_memory)
        );
    }
    if let Some((d, b)) = r.switched_to_dfs {
        let _ = writeln!(
            out,
            "  breadth-first search passed half of --max-memory ({}) at depth {d}: went on \
             depth-first (traces found after that are not the shortest)",
            bytes_text(b)
        );
    }
    if let Some(why) = &r.por_off {
        let _ = writeln!(out, "  {why}");
    }
    if let Some(c) = coverage_text(r) {
        let _ = writeln!(out, "  {c}");
    }
    if (r.limited || r.simulated.is_some()) && !r.stateright {
        let _ = writeln!(out, "  {}", actions_text(r));
    }
    for wn in &r.warnings {
        let _ = writeln!(
            out,
            "  warning: {}:{}: {}",
            m.scenario.file, wn.line, wn.message
        );
    }
    for p in &r.props {
        let sometimes = matches!(p.kind, PropKind::Assert(i) if m.asserts[i].is_sometimes());
        match (p.status, sometimes) {
            (Status::Violated, _) => {}
            (Status::Holds, true) => {
                if let Some(t) = &p.trace {
                    let _ = writeln!(
                        out,
                        "\n  `{}` holds; an example ({} actions):",
                        p.name,
                        t.records.len()
                    );
                    out.push_str(&trace_text(m, t));
                }
                continue;
            }
            _ => continue,
        }
        match &p.trace {
            Some(t) => {
                let _ = writeln!(
                    out,
                    "\n  `{}` violated after {} actions{}:",
                    p.name,
                    t.records.len(),
                    if r.dfs || r.simulated.is_some() {
                        ""
                    } else {
                        " (a shortest trace)"
                    }
                );
                if let Some(d) = violation_detail(m, p) {
                    let _ = writeln!(out, "  {d}");
                }
                out.push_str(&trace_text(m, t));
                if replays == Replays::Shown {
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
