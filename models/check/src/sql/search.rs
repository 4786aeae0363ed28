//! Every interleaving of a SQL scenario, breadth-first: the first state that shows a
//! property (a violation, or a `sometimes` witness) is at the fewest actions from the
//! start, and its trace is replayed from the actions on the path.

use super::{SqlAction, SqlCheck, SqlProp, SqlRecord, SqlState};
use mdl_core::Outcome;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::time::Instant;

/// The default `--max-states` of a SQL check.
pub const DEFAULT_MAX_STATES: u64 = 200_000;

/// The result of one property.
#[derive(Clone, Debug)]
pub struct PropResult {
    pub prop: SqlProp,
    pub name: String,
    /// Violated (a counterexample was found; for a `sometimes`: no witness in a complete
    /// search).
    pub violated: bool,
    /// The actions to the counterexample or the witness, and the state reached.
    pub trace: Option<(Vec<SqlRecord>, SqlState)>,
}

/// The result of a SQL check.
#[derive(Clone, Debug)]
pub struct SqlResult {
    pub props: Vec<PropResult>,
    /// States generated (with repeats) and unique states.
    pub states: u64,
    pub unique: u64,
    pub max_depth: usize,
    pub secs: f64,
    /// The search stopped at the state limit.
    pub incomplete: bool,
    /// Every (session, outcome) a statement reached in some interleaving.
    pub outcomes: BTreeSet<(usize, Outcome)>,
}

impl SqlResult {
    pub fn any_violated(&self) -> bool {
        self.props.iter().any(|p| p.violated)
    }
}

struct Node {
    parent: u32,
    action: Option<SqlAction>,
}

/// Explores every interleaving of `m` (at most `max_states` unique states).
pub fn check(m: &SqlCheck, max_states: u64) -> SqlResult {
    let t0 = Instant::now();
    let props = m.props();
    // Per property: the node that first showed it.
    let mut found: Vec<Option<u32>> = vec![None; props.len()];
    let mut nodes: Vec<Node> = vec![Node {
        parent: 0,
        action: None,
    }];
    let init = m.initial();
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(init.fingerprint());
    let mut queue: VecDeque<(u32, usize, SqlState)> = VecDeque::new();
    let mut outcomes = BTreeSet::new();
    let mut states = 1u64;
    let mut max_depth = 0;
    let mut incomplete = false;
    let look = |st: &SqlState, node: u32, found: &mut Vec<Option<u32>>| {
        for (i, p) in props.iter().enumerate() {
            if found[i].is_none() && m.occurs(*p, st) {
                found[i] = Some(node);
            }
        }
    };
    look(&init, 0, &mut found);
    queue.push_back((0, 0, init));
    let mut acts = Vec::new();
    'search: while let Some((node, depth, st)) = queue.pop_front() {
        max_depth = max_depth.max(depth);
        acts.clear();
        m.enabled(&st, &mut acts);
        for a in acts.iter().copied() {
            let (next, rec) = m.apply(&st, a);
            states += 1;
            if let Some((o, _)) = rec.outcome {
                outcomes.insert((a.session(), o));
            }
            for (s, o, _) in &rec.events {
                outcomes.insert((*s, *o));
            }
            if !seen.insert(next.fingerprint()) {
                continue;
            }
            if seen.len() as u64 > max_states {
                incomplete = true;
                break 'search;
            }
            let id = nodes.len() as u32;
            nodes.push(Node {
                parent: node,
                action: Some(a),
            });
            look(&next, id, &mut found);
            queue.push_back((id, depth + 1, next));
        }
    }
    let results = props
        .iter()
        .zip(&found)
        .map(|(p, f)| {
            let sometimes = m.is_sometimes(*p);
            let violated = if sometimes {
                f.is_none() && !incomplete
            } else {
                f.is_some()
            };
            PropResult {
                prop: *p,
                name: m.prop_name(*p),
                violated,
                trace: f.map(|n| replay(m, &path(&nodes, n))),
            }
        })
        .collect();
    SqlResult {
        props: results,
        states,
        unique: seen.len() as u64,
        max_depth,
        secs: t0.elapsed().as_secs_f64(),
        incomplete,
        outcomes,
    }
}

fn path(nodes: &[Node], mut n: u32) -> Vec<SqlAction> {
    let mut v = Vec::new();
    while let Some(a) = nodes[n as usize].action {
        v.push(a);
        n = nodes[n as usize].parent;
    }
    v.reverse();
    v
}

/// Plays `actions` from the initial state: their records and the state reached.
pub fn replay(m: &SqlCheck, actions: &[SqlAction]) -> (Vec<SqlRecord>, SqlState) {
    let mut st = m.initial();
    let mut recs = Vec::new();
    for a in actions {
        let (next, rec) = m.apply(&st, *a);
        recs.push(rec);
        st = next;
    }
    (recs, st)
}

/// Every maximal path from the initial state (to a state where no action is enabled),
/// without timeouts (a replay on the server would sleep for them), in depth-first order,
/// at most `cap` of them. For playing each interleaving elsewhere (on the server:
/// models/check/tests/sql_server.rs).
pub fn maximal_paths(m: &SqlCheck, cap: usize) -> Vec<Vec<SqlAction>> {
    fn walk(
        m: &SqlCheck,
        st: &SqlState,
        cur: &mut Vec<SqlAction>,
        out: &mut Vec<Vec<SqlAction>>,
        cap: usize,
    ) {
        if out.len() >= cap {
            return;
        }
        let mut acts = Vec::new();
        m.enabled(st, &mut acts);
        acts.retain(|a| !matches!(a, SqlAction::Timeout(_)));
        if acts.is_empty() {
            out.push(cur.clone());
            return;
        }
        for a in acts {
            let (next, _) = m.apply(st, a);
            cur.push(a);
            walk(m, &next, cur, out, cap);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    walk(m, &m.initial(), &mut Vec::new(), &mut out, cap);
    out
}
