//! The JSON of a SQL check (`mdl check --format json` of a file of SQL sessions): the
//! same document members as a check of lock requests (`model::report::json`,
//! `models/docs/json-output.md`), with the SQL statements in the trace steps. Symmetry
//! (`sql::symmetry`) is reported with its classes by session name and the states it
//! named by another member of their orbit (`symmetry_states_renamed`); the private
//! steps taken alone (`sql::quiet`) as `por`.

use super::check::SqlResult;
use super::{text, SqlAction, SqlCheck, SqlRecord};
use crate::model::result::Simulated;
use crate::model::search::Stop;
use serde_json::{json, Value};

fn step_json(m: &SqlCheck, r: &SqlRecord) -> Value {
    let who = m.session_name(r.action.session()).to_owned();
    let (action, line, command) = match r.action {
        SqlAction::Step(s) => {
            let st = r.step.and_then(|k| m.programs[s].get(k));
            (
                "step",
                st.map(|x| x.pos.line),
                st.map(|x| format!("sql {}", x.sql)),
            )
        }
        SqlAction::Timeout(_) => ("timeout", None, None),
        SqlAction::Kill(_) => ("kill", None, None),
    };
    let events: Vec<Value> = r
        .events
        .iter()
        .map(|(s, o, _)| json!({"session": m.session_name(*s), "outcome": o.name(), "partial": false}))
        .collect();
    let mut v = json!({
        "session": who,
        "action": action,
        "line": line,
        "command": command,
        "outcome": r.outcome.map(|(o, _)| o.name()),
        "events": events,
    });
    if let Some(e) = &r.error {
        v["error"] = format!("not modelled: {e}").into();
    } else if let Some((o, Some(c))) = r.outcome {
        v["error"] = text::outcome_text(o, Some(c)).into();
    }
    if let Some(w) = &r.waits_for {
        v["waits_for"] = w.clone().into();
    }
    v
}

/// The members of the document (all but `schema`, `command`, `file`, `status`, `exit`,
/// `error`, which the command adds).
pub fn json(m: &SqlCheck, r: &SqlResult) -> Value {
    let props: Vec<Value> = r
        .props
        .iter()
        .map(|p| {
            let status = if p.violated {
                "violated"
            } else if r.incomplete && !(m.is_sometimes(p.prop) && p.trace.is_some()) {
                "unknown"
            } else {
                "holds"
            };
            let mut v = json!({"name": p.name, "status": status});
            if let Some((recs, _)) = &p.trace {
                let steps: Vec<Value> = recs.iter().map(|x| step_json(m, x)).collect();
                if p.violated {
                    v["trace"] = steps.into();
                    v["detail"] = recs
                        .iter()
                        .find_map(|x| x.error.clone())
                        .map(|e| format!("not modelled: {e}"))
                        .into();
                    let actions: Vec<SqlAction> = recs.iter().map(|x| x.action).collect();
                    let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
                    v["replay"] = text::replay_scenario(m, &actions, &title).into();
                } else {
                    v["example"] = steps.into();
                }
            }
            v
        })
        .collect();
    let states_per_second = if r.secs > 0.0 {
        r.states as f64 / r.secs
    } else {
        0.0
    };
    json!({
        "properties": props,
        "states": r.states,
        "unique_states": r.unique,
        "max_depth": r.max_depth,
        "seconds": r.secs,
        "search_seconds": r.secs,
        "search_cpu_seconds": r.cpu_secs,
        "states_per_second": states_per_second,
        "complete": !r.incomplete,
        "limited": r.incomplete,
        "stop": r.stop.map(|s| match s {
            Stop::States => "max-states",
            Stop::Memory => "max-memory",
            Stop::Time => "max-time",
        }),
        "coverage": r.incomplete.then(|| format!(
            "explored {} states ({} unique) to depth {}, no violation so far",
            r.states, r.unique, r.max_depth
        )),
        "simulate": r.simulated.as_ref().map(Simulated::json),
        "search": if r.dfs { "dfs" } else { "bfs" },
        "search_engine": if r.stateright { "stateright" } else { "mdl" },
        "threads": r.threads,
        "switched_to_dfs": r.switched_to_dfs.map(|(d, b)| json!({"depth": d, "bytes": b})),
        "depth_bound": null,
        "depth_cut": false,
        "symmetry": r.symmetry.is_some(),
        "reduction": {
            "symmetry": r.symmetry.is_some(),
            "symmetry_groups": r.symmetry.as_ref().map_or(Vec::new(), |y| y.groups.iter().map(Vec::len).collect()),
            "symmetry_sessions": r.symmetry.as_ref().map_or(Vec::new(), |y| y.groups.clone()),
            "symmetry_states_renamed": r.symmetry.as_ref().map(|y| y.renamed),
            "por": r.por.is_some(),
            "por_states_reduced": r.por.map(|p| p.reduced),
            "por_actions_skipped": r.por.map(|p| p.skipped),
            "por_off": r.por.is_none().then_some(
                "off (--no-por, or stateright's checker): every order of the private steps"
            ),
        },
        "bytes_per_state": r.search_bytes as f64 / r.unique.max(1) as f64,
        "search_bytes": r.search_bytes,
        "heap_peak_bytes": r.heap_peak,
        "peak_rss_bytes": r.peak_rss,
        "max_memory_bytes": r.max_memory,
        "warnings": [],
        "all_hold": !r.any_violated() && !r.incomplete,
        "statement_table": {
            "dialect": m.dialect_name(),
            "name": m.table_name(),
        },
    })
}
