//! Introspection: the lock snapshot (`performance_schema.metadata_locks`), the real
//! conflicts (`sys.schema_table_lock_waits`) and the wait-for graph.
//!
//! Each lock is read under its own mutex, one at a time, so a snapshot taken while other
//! threads work is a consistent picture of every lock but not of all locks at one
//! instant. Fast-path grants are read from their owners' lists first and the locks
//! after; a grant materialised in between shows once, as an ordinary granted row.
use super::detect::LiveGraph;
use super::Shared;
use crate::decide::deadlock;
use crate::decide::key::MdlKey;
use crate::decide::lock::{OwnerId, TicketId};
use crate::decide::types::{LockDuration, LockType};
use std::collections::HashSet;
use std::fmt::Write as _;

/// One row of the lock snapshot, as `performance_schema.metadata_locks`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LockRow {
    /// The lock's key.
    pub key: MdlKey,
    /// The type granted or requested.
    pub ty: LockType,
    /// `None` for a pending request.
    pub duration: Option<LockDuration>,
    /// Granted (true) or pending (false).
    pub granted: bool,
    /// The context holding or requesting it.
    pub owner: OwnerId,
    /// How long it has waited (pending) or waited before its grant, in ms of the clock.
    pub waited_ms: u64,
    /// Granted by the fast path and not yet materialised.
    pub fast_path: bool,
}

/// A real conflict: `waiter` waits for `blocker` on `key`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LockWait {
    /// The lock waited on.
    pub key: MdlKey,
    /// The context that waits.
    pub waiter: OwnerId,
    /// The type it waits for.
    pub waiting_type: LockType,
    /// The context it waits for.
    pub blocker: OwnerId,
    /// The type that blocks it.
    pub blocking_type: LockType,
    /// true: the blocker's lock is granted; false: it is a pending request with priority.
    pub blocker_granted: bool,
    /// How long the waiter has waited, in ms of the manager's clock.
    pub waited_ms: u64,
}

/// Rows sorted by key, granted before pending, then in ticket order.
pub(super) fn snapshot(m: &Shared) -> Vec<LockRow> {
    let now = m.clock.now_ms();
    let mut fast: Vec<(TicketId, LockRow)> = Vec::new();
    {
        let reg = m.registry.read();
        for cs in reg.live.values() {
            let p = cs.locks.lock();
            for (e, key) in p
                .iter()
                .flat_map(|pin| pin.fast.iter().map(move |e| (e, &pin.obj.key)))
            {
                fast.push((
                    e.id,
                    LockRow {
                        key: key.clone(),
                        ty: e.ty,
                        duration: Some(e.dur),
                        granted: true,
                        owner: cs.id,
                        waited_ms: 0,
                        fast_path: true,
                    },
                ));
            }
        }
    }
    let mut rows: Vec<(TicketId, LockRow)> = Vec::new();
    for o in m.all_objects() {
        let g = o.state.lock();
        for t in g.st.granted() {
            let meta = g.meta.get(&t.id);
            rows.push((
                t.id,
                LockRow {
                    key: o.key.clone(),
                    ty: t.ty,
                    duration: meta.map(|x| x.dur),
                    granted: true,
                    owner: t.owner,
                    waited_ms: meta.map_or(0, |x| x.waited_ms),
                    fast_path: false,
                },
            ));
        }
        for t in g.st.waiting() {
            let since = g.meta.get(&t.id).map_or(now, |x| x.since_ms);
            rows.push((
                t.id,
                LockRow {
                    key: o.key.clone(),
                    ty: t.ty,
                    duration: None,
                    granted: false,
                    owner: t.owner,
                    waited_ms: now.saturating_sub(since),
                    fast_path: false,
                },
            ));
        }
    }
    let seen: HashSet<TicketId> = rows.iter().map(|r| r.0).collect();
    rows.extend(fast.into_iter().filter(|r| !seen.contains(&r.0)));
    rows.sort_by(|a, b| {
        a.1.key
            .cmp(&b.1.key)
            .then(b.1.granted.cmp(&a.1.granted))
            .then(a.0.cmp(&b.0))
    });
    rows.into_iter().map(|r| r.1).collect()
}

/// Every waiting request whose wait is undecided, with each ticket that holds it back
/// (a granted conflicting lock, or a pending request it yields to whose wait is
/// undecided too).
pub(super) fn lock_waits(m: &Shared) -> Vec<LockWait> {
    let now = m.clock.now_ms();
    let mut out = Vec::new();
    for o in m.all_objects() {
        let g = o.state.lock();
        let r = m.rules(&o.key);
        let undecided = |id: TicketId| {
            g.meta
                .get(&id)
                .and_then(|x| x.waiter.as_ref())
                .is_some_and(|cs| cs.slot.lock().status.is_none())
        };
        for w in g.st.waiting() {
            if !undecided(w.id) {
                continue;
            }
            let since = g.meta.get(&w.id).map_or(now, |x| x.since_ms);
            for (b, granted) in g.st.blocking_tickets(&r, w) {
                if !granted && !undecided(b.id) {
                    continue;
                }
                out.push(LockWait {
                    key: o.key.clone(),
                    waiter: w.owner,
                    waiting_type: w.ty,
                    blocker: b.owner,
                    blocking_type: b.ty,
                    blocker_granted: granted,
                    waited_ms: now.saturating_sub(since),
                });
            }
        }
    }
    out
}

/// (waiter, blocker) pairs of the live wait-for graph, MDL and foreign, sorted, unique.
pub(super) fn wait_edges(m: &Shared) -> Vec<(OwnerId, OwnerId)> {
    let g = LiveGraph::new(m);
    let owners: Vec<OwnerId> = m.registry.read().live.keys().copied().collect();
    deadlock::edges(&g, owners)
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The wait-for graph in Graphviz DOT: one node per context, one edge per real conflict
/// (labelled with the key and both types), plus foreign waits (dashed).
pub(super) fn wait_for_graph_dot(m: &Shared) -> String {
    let waits = lock_waits(m);
    let mut nodes: Vec<OwnerId> = m.registry.read().live.keys().copied().collect();
    let mut foreign_edges = Vec::new();
    if let Some(f) = m.foreign.read().clone() {
        for n in &nodes {
            let mut v = Vec::new();
            f.waits_for(*n, &mut v);
            v.sort();
            v.dedup();
            foreign_edges.extend(v.into_iter().map(|b| (*n, b)));
        }
    }
    for w in &waits {
        nodes.push(w.waiter);
        nodes.push(w.blocker);
    }
    for (a, b) in &foreign_edges {
        nodes.push(*a);
        nodes.push(*b);
    }
    nodes.sort();
    nodes.dedup();
    let mut s = String::from("digraph wait_for {\n  rankdir=LR;\n  node [shape=box];\n");
    for n in &nodes {
        let _ = writeln!(s, "  s{} [label=\"session {}\"];", n.0, n.0);
    }
    for w in &waits {
        let _ = writeln!(
            s,
            "  s{} -> s{} [label=\"{} {} {} {}{}\"];",
            w.waiter.0,
            w.blocker.0,
            esc(&w.key.display(&m.dialect)),
            w.waiting_type,
            if w.blocker_granted { "held" } else { "pending" },
            w.blocking_type,
            if w.waited_ms > 0 {
                format!(" ({} ms)", w.waited_ms)
            } else {
                String::new()
            }
        );
    }
    for (a, b) in &foreign_edges {
        let _ = writeln!(
            s,
            "  s{} -> s{} [style=dashed, label=\"foreign\"];",
            a.0, b.0
        );
    }
    s.push_str("}\n");
    s
}
