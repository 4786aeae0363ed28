//! What a check found: each property's verdict and trace, the warnings, the coverage of
//! the programs' steps, and what the search (`check.rs`) or the sample (`simulate.rs`)
//! did. Both of them, the reference engine (`reference.rs`) and the reports build on
//! these types.

use super::por::PorStats;
use super::search::Stop;
use super::{Action, MdlModel, PropKind, Record, State};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Holds,
    Violated,
    /// Not violated in any interleaving up to the depth bound (`--max-depth`), which cut
    /// some interleavings short.
    HoldsToDepth,
    /// A limit stopped the search before it decided.
    Unknown,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Violated => "violated",
            Status::HoldsToDepth => "holds-to-depth",
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
    /// The counterexample of a violated property, or the example path of a `sometimes`
    /// assert that holds.
    pub trace: Option<Trace>,
}

/// A warning about the scenario: a step whose outcome is `error` on every path.
#[derive(Clone, Debug)]
pub struct Warning {
    pub session: usize,
    pub step: usize,
    pub line: usize,
    pub message: String,
}

#[derive(Clone, Debug)]
pub struct CheckResult {
    pub props: Vec<PropResult>,
    /// States generated (successors computed, revisits included).
    pub states: u64,
    pub unique_states: u64,
    pub max_depth: usize,
    /// Everything the check did: the search and the traces.
    pub seconds: f64,
    /// The search alone.
    pub search_seconds: f64,
    /// CPU time of the search (user and system), when it can be read.
    pub search_cpu_seconds: Option<f64>,
    /// A limit (`--max-states`, `--max-memory`, `--max-time`) stopped the search before
    /// it was done.
    pub limited: bool,
    pub stop: Option<Stop>,
    pub symmetry_used: bool,
    /// The search was depth-first (from the start, or after the switch).
    pub dfs: bool,
    /// Breadth-first went on depth-first at this depth, past half of `--max-memory`.
    pub switched_to_dfs: Option<(usize, u64)>,
    /// `--max-depth`.
    pub depth_bound: Option<usize>,
    /// The depth bound cut some interleavings short.
    pub depth_cut: bool,
    pub por: Option<PorStats>,
    pub por_off: Option<String>,
    /// The search's own structures at their largest (states seen and queue).
    pub search_bytes: u64,
    /// The process's largest live heap seen during the search, when counted.
    pub heap_peak: Option<u64>,
    /// The process's peak resident size when the check ended (everything so far).
    pub peak_rss: Option<u64>,
    pub max_memory: u64,
    /// Threads that expanded states.
    pub threads: usize,
    pub warnings: Vec<Warning>,
    /// The coverage of actions: which steps of the programs were taken at least once.
    pub coverage: Coverage,
    /// `--simulate`: the random paths taken and their seed.
    pub simulated: Option<Simulated>,
    /// The search ran on stateright's checker (`--engine stateright`), not ours.
    pub stateright: bool,
    /// Every reachable state (under the reductions) was expanded: no limit, no depth
    /// bound, and not stopped early because every property was decided.
    pub complete: bool,
}

/// Which steps of the sessions' programs the search took at least once.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Steps taken at least once.
    pub taken: usize,
    /// Steps in the programs.
    pub total: usize,
    /// The lines of the steps never taken, in file order.
    pub untaken_lines: Vec<usize>,
}

impl Coverage {
    /// From the search's per-step bits (bit 1: taken).
    pub fn of(m: &MdlModel, seen: &[Vec<u8>]) -> Coverage {
        let mut c = Coverage::default();
        for (s, bits) in seen.iter().enumerate() {
            for (i, b) in bits.iter().enumerate() {
                c.total += 1;
                if b & 1 != 0 {
                    c.taken += 1;
                } else {
                    c.untaken_lines.push(m.programs[s][i].pos.line);
                }
            }
        }
        c.untaken_lines.sort_unstable();
        c
    }
}

impl CheckResult {
    pub fn all_hold(&self) -> bool {
        self.props
            .iter()
            .all(|p| matches!(p.status, Status::Holds | Status::HoldsToDepth))
    }
    pub fn any_violated(&self) -> bool {
        self.props.iter().any(|p| p.status == Status::Violated)
    }
    /// Nothing violated, but some property is undecided: exit 3.
    pub fn incomplete(&self) -> bool {
        !self.any_violated() && self.props.iter().any(|p| p.status == Status::Unknown)
    }
    pub fn states_per_second(&self) -> f64 {
        if self.search_seconds > 0.0 {
            self.states as f64 / self.search_seconds
        } else {
            self.states as f64
        }
    }
    /// The search's own bytes per unique state.
    pub fn bytes_per_state(&self) -> f64 {
        self.search_bytes as f64 / (self.unique_states.max(1)) as f64
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

/// What a sample did, for the report.
#[derive(Clone, Debug)]
pub struct Simulated {
    /// Paths asked for (`--simulate N`).
    pub asked: u64,
    /// Paths taken (fewer when `--max-time` stopped the sample).
    pub paths: u64,
    pub seed: u64,
    /// The most actions a path could take.
    pub depth_cap: usize,
    /// Some path was cut at the cap with actions still enabled.
    pub capped: bool,
    /// `--max-time` stopped the sample before its last path.
    pub timed_out: bool,
    /// Per property: the path (from 0) and the seconds into the sample when it was first
    /// decided (a violation seen, a `sometimes` assert met).
    pub found_at: Vec<Option<(u64, f64)>>,
}

impl Simulated {
    /// The report's `simulate` member (models/docs/json-output.schema.json).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "paths_asked": self.asked,
            "paths": self.paths,
            "seed": self.seed,
            "depth_cap": self.depth_cap,
            "capped": self.capped,
            "timed_out": self.timed_out,
            "found_at": self.found_at.iter().map(|f| f.map(|(p, t)| serde_json::json!({"path": p, "seconds": t}))).collect::<Vec<_>>(),
        })
    }
}
