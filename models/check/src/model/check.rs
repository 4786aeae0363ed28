//! Running a check of a model: options, the search, its verdicts and warnings.

use super::lock_space::LockSpace;
use super::result::{replay, CheckResult, Coverage, PropResult, Status, Warning};
use super::search::{Search, SearchOptions, SearchResult};
use super::{mem, Action, MdlModel, PropKind};
use std::time::Instant;

/// How to check.
#[derive(Clone, Debug)]
pub struct Options {
    /// Depth-first instead of breadth-first (traces are then not the shortest).
    pub dfs: bool,
    /// Symmetry reduction over sessions with identical programs.
    pub symmetry: bool,
    /// Partial-order reduction.
    pub por: bool,
    /// Keys quiet from a state on ([`super::quiet`]): their grant order not kept, and
    /// left out of the partial-order reduction's footprints.
    pub dynamic_quiet: bool,
    pub max_depth: Option<usize>,
    /// Threads of the breadth-first search (depth-first runs on one).
    pub threads: usize,
    /// Stop (incomplete) after this many unique states.
    pub max_states: Option<u64>,
    /// Stop (incomplete) before the process's heap passes this many bytes.
    pub max_memory: u64,
    /// A live progress line on stderr.
    pub progress: bool,
    /// Stop (incomplete) after this many seconds of search.
    pub max_time: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            dfs: false,
            symmetry: true,
            por: true,
            dynamic_quiet: true,
            max_depth: None,
            threads: 1,
            max_states: None,
            max_memory: mem::default_max_memory(),
            progress: false,
            max_time: None,
        }
    }
}

/// The warnings of a complete search: steps taken only with the outcome `error`.
fn warnings(m: &MdlModel, r: &SearchResult) -> Vec<Warning> {
    let mut out = Vec::new();
    if !r.complete() {
        return out;
    }
    for (s, seen) in r.notes.iter().enumerate() {
        for (i, bits) in seen.iter().enumerate() {
            let spec = &m.programs[s][i];
            if *bits != 1 || spec.expects_error {
                continue;
            }
            // Why: take the step where it is first reached.
            let why = why_error(m, s, i).unwrap_or_default();
            out.push(Warning {
                session: s,
                step: i,
                line: spec.pos.line,
                message: format!(
                    "`{}: {}` gives `error` on every path{}",
                    m.session_name(s),
                    mdl_scenario::print::command_text(&m.dialect, &spec.cmd),
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(" ({why})")
                    }
                ),
            });
        }
    }
    out
}

/// The error a step gives when it is taken right after its session's earlier steps,
/// every other session idle: the reason of an always-`error` step.
fn why_error(m: &MdlModel, s: usize, i: usize) -> Option<String> {
    let mut st = m.initial();
    for _ in 0..=i {
        let (next, rec) = m.apply(&st, Action::Step(s as u8))?;
        if rec.step == Some(i) {
            return rec.error.map(|e| e.to_string());
        }
        st = next;
        // A wait in this lone run: take the resumes; give up on a real wait.
        while st.table.sessions()[s].resume.is_some() {
            st = m.apply(&st, Action::Resume(s as u8))?.0;
        }
        if st.table.is_waiting(mdl_core::OwnerId(s as u32)) {
            return None;
        }
    }
    None
}

/// Checks a model with the search of [`super::search`].
pub fn check(m: &MdlModel, o: &Options) -> CheckResult {
    let start = Instant::now();
    let so = SearchOptions {
        dfs: o.dfs,
        symmetry: o.symmetry,
        por: o.por,
        dynamic_quiet: o.dynamic_quiet,
        max_depth: o.max_depth,
        max_states: o.max_states,
        max_memory: o.max_memory,
        progress: o.progress,
        threads: o.threads,
        max_time: o.max_time,
    };
    let cpu0 = mem::cpu_seconds();
    let space = LockSpace::new(m, &so);
    let (search, mut r) = Search::run(&space, &so);
    r.symmetry = space.symmetry;
    r.por_off = space.por_off.clone();
    let cpu = mem::cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
    let limited = r.stop.is_some();
    let mut props = Vec::new();
    for (i, (kind, name)) in m.prop_kinds().into_iter().enumerate() {
        let sometimes = matches!(kind, PropKind::Assert(a) if m.asserts[a].is_sometimes());
        let found = r.found[i];
        let status = match (sometimes, found) {
            (true, Some(_)) => Status::Holds,
            (false, Some(_)) => Status::Violated,
            (_, None) if limited => Status::Unknown,
            (true, None) if r.depth_cut => Status::Unknown,
            (true, None) => Status::Violated,
            (false, None) if r.depth_cut => Status::HoldsToDepth,
            (false, None) => Status::Holds,
        };
        let trace = found
            .and_then(|n| search.path(n))
            .and_then(|acts| replay(m, &acts));
        props.push(PropResult {
            kind,
            name,
            status,
            trace,
        });
    }
    let warnings = warnings(m, &r);
    let coverage = Coverage::of(m, &r.notes);
    CheckResult {
        props,
        states: r.states,
        unique_states: r.unique,
        max_depth: r.max_depth,
        seconds: start.elapsed().as_secs_f64(),
        search_seconds: r.seconds,
        search_cpu_seconds: cpu,
        limited,
        stop: r.stop,
        symmetry_used: r.symmetry,
        dfs: r.dfs,
        switched_to_dfs: r.switched_to_dfs,
        depth_bound: o.max_depth,
        depth_cut: r.depth_cut,
        por: r.por,
        por_off: r.por_off.clone(),
        search_bytes: r.search_bytes,
        heap_peak: r.heap_peak,
        peak_rss: mem::peak_rss(),
        max_memory: o.max_memory,
        threads: r.threads,
        warnings,
        coverage,
        simulated: None,
        stateright: false,
        complete: r.complete(),
    }
}
