//! The JSON output of one file (`models/docs/json-output.md`, `check`).

use super::coverage::coverage_text;
use super::replay::replay_scenario;
use super::trace::{deadlocks, violation_detail};
use crate::model::result::{CheckResult, Simulated, Status, Trace};
use crate::model::search::Stop;
use crate::model::{Action, MdlModel};
use mdl_scenario::print::command_text;

pub(super) fn trace_json(m: &MdlModel, t: &Trace) -> serde_json::Value {
    let steps: Vec<serde_json::Value> = t
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| {
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
            let mut v = serde_json::json!({
                "session": m.session_name(s),
                "action": kind,
                "line": line,
                "command": command,
                "outcome": r.outcome.map(|o| o.name()),
                "events": events,
            });
            if let Some(e) = &r.error {
                v["error"] = e.to_string().into();
            }
            if let Some(pre) = t.states.get(i) {
                let ds: Vec<serde_json::Value> = deadlocks(m, pre, r)
                    .iter()
                    .map(|d| {
                        serde_json::json!({
                            "victim": m.session_name(d.victim),
                            "requester": m.session_name(d.requester),
                            "cycle": d.cycle.iter().map(|e| serde_json::json!({
                                "waiter": m.session_name(e.from),
                                "holder": m.session_name(e.to),
                                "key": e.key.display(&m.dialect),
                                "wants": e.wants.to_string(),
                                "type": e.ty.to_string(),
                                "edge": if e.granted { "granted" } else { "pending" },
                            })).collect::<Vec<_>>(),
                            "weights": d.weights.iter().map(|(s, w)| serde_json::json!({
                                "session": m.session_name(*s),
                                "weight": w,
                            })).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                if !ds.is_empty() {
                    v["deadlocks"] = serde_json::Value::Array(ds);
                }
            }
            v
        })
        .collect();
    serde_json::Value::Array(steps)
}

/// The check result's members of the JSON document of one file (`models/docs/json-output.md`,
/// `check`).
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
                if p.status == Status::Violated {
                    v["trace"] = trace_json(m, t);
                    v["detail"] = violation_detail(m, p).into();
                    let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
                    v["replay"] = replay_scenario(m, t, &title).into();
                } else {
                    v["example"] = trace_json(m, t);
                }
            }
            v
        })
        .collect();
    let groups: Vec<usize> = {
        let mut by: std::collections::BTreeMap<u8, usize> = Default::default();
        for c in m.classes.iter() {
            *by.entry(*c).or_default() += 1;
        }
        by.into_values().filter(|n| *n > 1).collect()
    };
    let warnings: Vec<serde_json::Value> = r
        .warnings
        .iter()
        .map(|w| {
            serde_json::json!({
                "line": w.line,
                "session": m.session_name(w.session),
                "message": w.message,
            })
        })
        .collect();
    serde_json::json!({
        "file": m.scenario.file,
        "properties": props,
        "states": r.states,
        "unique_states": r.unique_states,
        "max_depth": r.max_depth,
        "seconds": r.seconds,
        "search_seconds": r.search_seconds,
        "search_cpu_seconds": r.search_cpu_seconds,
        "states_per_second": r.states_per_second(),
        "complete": coverage_text(r).is_none(),
        "limited": r.limited,
        "stop": r.stop.map(|s| match s { Stop::Memory => "max-memory", Stop::States => "max-states", Stop::Time => "max-time" }),
        "coverage": coverage_text(r),
        "actions_covered": {
            "steps_taken": r.coverage.taken,
            "steps": r.coverage.total,
            "untaken_lines": r.coverage.untaken_lines,
        },
        "simulate": r.simulated.as_ref().map(Simulated::json),
        "search": if r.dfs { "dfs" } else { "bfs" },
        "search_engine": if r.stateright { "stateright" } else { "mdl" },
        "threads": r.threads,
        "switched_to_dfs": r.switched_to_dfs.map(|(d, b)| serde_json::json!({"depth": d, "bytes": b})),
        "depth_bound": r.depth_bound,
        "depth_cut": r.depth_cut,
        "symmetry": r.symmetry_used,
        "reduction": {
            "symmetry": r.symmetry_used,
            "symmetry_groups": if r.symmetry_used { groups } else { Vec::new() },
            "por": r.por.is_some(),
            "por_states_reduced": r.por.map(|p| p.reduced),
            "por_actions_skipped": r.por.map(|p| p.skipped),
            "por_off": r.por_off,
        },
        "bytes_per_state": r.bytes_per_state(),
        "search_bytes": r.search_bytes,
        "heap_peak_bytes": r.heap_peak,
        "peak_rss_bytes": r.peak_rss,
        "max_memory_bytes": r.max_memory,
        "warnings": warnings,
        "all_hold": r.all_hold(),
    })
}
