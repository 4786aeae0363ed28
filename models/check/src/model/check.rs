//! Running the checker on a model: options, results, traces.

// Without stateright only the types, `shortest` and `replay` are left.
#![cfg_attr(not(feature = "stateright"), allow(unused))]

use super::{Action, MdlModel, PropKind, Record, State};
use mdl_scenario::AssertKind;
#[cfg(feature = "stateright")]
use stateright::{Checker, Model};
use std::io::Write;
use std::time::Instant;

/// How to check.
#[derive(Clone, Debug)]
pub struct Options {
    /// Depth-first instead of breadth-first (traces are then not the shortest).
    pub dfs: bool,
    /// Symmetry reduction over sessions with identical programs (takes effect with DFS
    /// only in stateright 0.31).
    pub symmetry: bool,
    pub max_depth: Option<usize>,
    pub threads: usize,
    /// Stop (incomplete) after this many states.
    pub max_states: usize,
    /// A live progress line on stderr.
    pub progress: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            dfs: false,
            symmetry: true,
            max_depth: None,
            threads: 1,
            max_states: 2_000_000,
            progress: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Holds,
    Violated,
    /// The search stopped at `--max-states` before deciding.
    Unknown,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Violated => "violated",
            Status::Unknown => "unknown",
        }
    }
}

/// A trace: the actions from the initial state, what each did, and the states.
#[derive(Clone, Debug)]
pub struct Trace {
    pub records: Vec<Record>,
    /// `states[0]` is the initial state, `states[i + 1]` the state after `records[i]`.
    pub states: Vec<State>,
}

#[derive(Clone, Debug)]
pub struct PropResult {
    pub kind: PropKind,
    pub name: &'static str,
    pub status: Status,
    /// The counterexample of a violated `always` property.
    pub trace: Option<Trace>,
}

#[derive(Clone, Debug)]
pub struct CheckResult {
    pub props: Vec<PropResult>,
    pub states: usize,
    pub unique_states: usize,
    pub max_depth: usize,
    pub seconds: f64,
    /// The state limit stopped the search before it was done.
    pub limited: bool,
    pub symmetry_used: bool,
    pub dfs: bool,
    /// `--max-depth`: a bounded check.
    pub depth_bound: Option<usize>,
}

impl CheckResult {
    pub fn all_hold(&self) -> bool {
        self.props.iter().all(|p| p.status == Status::Holds)
    }
    pub fn any_violated(&self) -> bool {
        self.props.iter().any(|p| p.status == Status::Violated)
    }
    pub fn states_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.states as f64 / self.seconds
        } else {
            self.states as f64
        }
    }
}

/// Replays actions from the initial state, recording what each did.
pub fn replay(m: &MdlModel, actions: &[Action]) -> Option<Trace> {
    let mut st = m.initial();
    let mut states = vec![st.clone()];
    let mut records = Vec::new();
    for a in actions {
        let (next, rec) = m.apply(&st, *a)?;
        records.push(rec);
        states.push(next.clone());
        st = next;
    }
    Some(Trace { records, states })
}

fn progress_line(states: usize, unique: usize, depth: usize, secs: f64) {
    let rate = if secs > 0.0 {
        states as f64 / secs
    } else {
        0.0
    };
    eprint!(
        "\r\x1b[2K{states} states ({unique} unique), {rate:.0} states/s, depth {depth}, {secs:.1} s"
    );
    let _ = std::io::stderr().flush();
}

#[cfg(feature = "stateright")]
fn run<C: Checker<MdlModel>>(c: C, progress: bool, start: Instant) -> C {
    if progress {
        while !c.is_done() {
            progress_line(
                c.state_count(),
                c.unique_state_count(),
                c.max_depth(),
                start.elapsed().as_secs_f64(),
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        eprint!("\r\x1b[2K");
    }
    c.join()
}

/// A shortest path from the initial state to a state where `kind` does not hold, no
/// longer than `limit` actions: a plain breadth-first search of the model's own.
pub fn shortest(m: &MdlModel, kind: PropKind, limit: usize) -> Option<Vec<Action>> {
    use std::collections::HashSet;
    use std::hash::{Hash, Hasher};
    let fp = |st: &State| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        st.hash(&mut h);
        h.finish()
    };
    // (state, parent index, action from the parent, depth)
    let mut nodes: Vec<(State, usize, Option<Action>, usize)> = vec![(m.initial(), 0, None, 0)];
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(fp(&nodes[0].0));
    let mut i = 0;
    let mut acts = Vec::new();
    while i < nodes.len() {
        if !m.holds_in(kind, &nodes[i].0) {
            let mut path = Vec::new();
            let mut j = i;
            while let Some(a) = nodes[j].2 {
                path.push(a);
                j = nodes[j].1;
            }
            path.reverse();
            return Some(path);
        }
        if nodes[i].3 < limit {
            acts.clear();
            m.enabled(&nodes[i].0, &mut acts);
            for a in acts.drain(..) {
                if let Some((next, _)) = m.apply(&nodes[i].0, a) {
                    if seen.insert(fp(&next)) {
                        let d = nodes[i].3 + 1;
                        nodes.push((next, i, Some(a), d));
                    }
                }
            }
        }
        i += 1;
    }
    None
}

#[cfg(feature = "stateright")]
/// Checks a model with stateright.
pub fn check(m: &MdlModel, o: &Options) -> CheckResult {
    let symmetry = o.symmetry && o.dfs && m.has_symmetry();
    let mut b = m
        .clone()
        .checker()
        .threads(o.threads.max(1))
        .target_state_count(o.max_states.max(1));
    if let Some(d) = o.max_depth {
        b = b.target_max_depth(d.max(1));
    }
    if symmetry {
        b = b.symmetry();
    }
    let start = Instant::now();
    let (states, unique, depth, discoveries) = if o.dfs {
        let c = run(b.spawn_dfs(), o.progress, start);
        (
            c.state_count(),
            c.unique_state_count(),
            c.max_depth(),
            c.discoveries(),
        )
    } else {
        let c = run(b.spawn_bfs(), o.progress, start);
        (
            c.state_count(),
            c.unique_state_count(),
            c.max_depth(),
            c.discoveries(),
        )
    };
    let seconds = start.elapsed().as_secs_f64();
    // Stopping early because every property has a discovery is not a limit.
    let all_found = m
        .prop_kinds()
        .iter()
        .all(|(_, n)| discoveries.contains_key(n));
    let limited = !all_found && states >= o.max_states;
    let mut props = Vec::new();
    for (kind, name) in m.prop_kinds() {
        let sometimes =
            matches!(kind, PropKind::Assert(i) if m.asserts[i].kind == AssertKind::Sometimes);
        let found = discoveries.get(name);
        let (status, trace) = match (sometimes, found) {
            (true, Some(_)) => (Status::Holds, None),
            (true, None) if limited => (Status::Unknown, None),
            (true, None) => (Status::Violated, None),
            (false, Some(p)) => {
                let found = p.clone().into_actions();
                // stateright 0.31 keeps the last violating path it met, not the first:
                // after a BFS, search again (no deeper than that path) for a shortest one.
                let actions = if o.dfs {
                    found
                } else {
                    shortest(m, kind, found.len()).unwrap_or(found)
                };
                (Status::Violated, replay(m, &actions))
            }
            (false, None) if limited => (Status::Unknown, None),
            (false, None) => (Status::Holds, None),
        };
        props.push(PropResult {
            kind,
            name,
            status,
            trace,
        });
    }
    CheckResult {
        props,
        states,
        unique_states: unique,
        max_depth: depth,
        seconds,
        limited,
        symmetry_used: symmetry,
        dfs: o.dfs,
        depth_bound: o.max_depth,
    }
}
