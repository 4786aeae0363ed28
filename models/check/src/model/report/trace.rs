//! What a trace and a state say in words: actions, records, events, the trace as numbered
//! lines, a state as a table, the labelled wait-for edges, the deadlocks a step resolved
//! and why a state violates a property.

use crate::model::result::{PropResult, Trace};
use crate::model::{Action, MdlModel, PropKind, Record, State};
use mdl_core::key::MdlKey;
use mdl_core::{LockType, Outcome, OwnerId};
use mdl_scenario::print::command_text;
use mdl_scenario::Command;
use std::fmt::Write;

/// An action as one line, without knowing the step (`s1: next step`).
pub fn action_text(m: &MdlModel, a: Action) -> String {
    action_name(m, a, None)
}

/// An action by name: the step's text and line when the step is known
/// (`s1: acquire TABLE db.t1 SR transaction (line 3)`).
pub fn action_name(m: &MdlModel, a: Action, step: Option<usize>) -> String {
    let s = a.session();
    let name = m.session_name(s);
    let spec = step.and_then(|i| m.programs[s].get(i));
    match (a, spec) {
        (Action::Step(_), Some(sp)) => format!(
            "{name}: {}   (line {})",
            command_text(&m.dialect, &sp.cmd),
            sp.pos.line
        ),
        (Action::Step(_), None) => format!("{name}: next step"),
        (Action::Resume(_), Some(sp)) => {
            format!("{name}: bulk acquire of line {} goes on", sp.pos.line)
        }
        (Action::Resume(_), None) => format!("{name}: bulk acquire goes on"),
        (Action::Timeout(_), _) => format!("{name}: wait times out"),
        (Action::Kill(_), _) => format!("kill {name}"),
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

pub(super) fn outcome_text(r: &Record) -> Option<String> {
    r.outcome.map(|o| o.to_string())
}

/// A wait that an action ended (`s2: granted`).
pub fn event_text(m: &MdlModel, e: &(usize, Outcome, bool)) -> String {
    if e.2 {
        format!("{}: bulk element granted", m.session_name(e.0))
    } else {
        format!("{}: {}", m.session_name(e.0), e.1)
    }
}

/// The trace as numbered lines; a step that ends in a deadlock shows the cycle and why
/// that victim.
pub fn trace_text(m: &MdlModel, t: &Trace) -> String {
    let mut out = String::new();
    for (i, r) in t.records.iter().enumerate() {
        let _ = write!(out, "  {:>3}. {}", i + 1, record_text(m, r));
        if let Some(o) = outcome_text(r) {
            let _ = write!(out, " -> {o}");
        }
        out.push('\n');
        for (a, b) in &r.reorders {
            let _ = writeln!(
                out,
                "         => {} moved ahead of {}'s pending request (a soft edge reversed)",
                m.session_name(*a),
                m.session_name(*b)
            );
        }
        for e in &r.events {
            let _ = writeln!(out, "         => {}", event_text(m, e));
        }
        if let Some(pre) = t.states.get(i) {
            for d in deadlocks(m, pre, r) {
                for l in d.lines(m) {
                    let _ = writeln!(out, "         {l}");
                }
            }
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

/// A state as a lock table with session names: each lock's granted and waiting
/// tickets, then each session's place in its program (the Explorer's state view).
pub fn state_table(m: &MdlModel, st: &State) -> String {
    let d = &m.dialect;
    let name = |o: OwnerId| m.session_name(o.0 as usize).to_string();
    let mut out = String::new();
    let locks: Vec<_> = st.table.locks().collect();
    if locks.is_empty() {
        out.push_str("locks: none\n");
    } else {
        out.push_str("locks:\n");
    }
    for (k, l) in locks {
        let g: Vec<String> = l
            .granted()
            .iter()
            .map(|t| format!("{} {}", name(t.owner), t.ty))
            .collect();
        let w: Vec<String> = l
            .waiting()
            .iter()
            .map(|t| format!("{} {}", name(t.owner), t.ty))
            .collect();
        let _ = write!(out, "  {:<24} granted: {}", k.display(d), g.join(", "));
        if !w.is_empty() {
            let _ = write!(out, "; waiting: {}", w.join(", "));
        }
        if l.hog_count() > 0 || l.piglet_count() > 0 || l.pending_index() > 0 {
            let _ = write!(
                out,
                " (hogs {}, piglets {}, pending matrix {})",
                l.hog_count(),
                l.piglet_count(),
                l.pending_index()
            );
        }
        out.push('\n');
    }
    out.push_str("sessions:\n");
    for (s, x) in st.table.sessions().iter().enumerate() {
        let _ = write!(out, "  {:<10}", m.session_name(s));
        let pc = st.pc[s] as usize;
        if let Some(w) = &x.wait {
            let _ = write!(out, " waits for {} {}", w.key.display(d), w.ticket.ty);
        } else if x.resume.is_some() {
            out.push_str(" bulk acquire goes on next");
        } else if let Some(sp) = m.programs[s].get(pc) {
            let _ = write!(
                out,
                " next: {} (line {})",
                command_text(d, &sp.cmd),
                sp.pos.line
            );
        } else {
            out.push_str(" done");
        }
        if let Some(o) = st.last[s] {
            let _ = write!(out, "; latest outcome {o}");
        }
        if st.passed[s] > 0 {
            let _ = write!(out, "; passed over {} times", st.passed[s]);
        }
        out.push('\n');
    }
    out
}

/// A labelled wait-for edge: `from` waits for `to` on `key`, where `to` holds a granted
/// ticket of type `ty` (`granted`) or has a pending one that takes priority.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub key: MdlKey,
    /// The waiter's requested type.
    pub wants: LockType,
    /// The blocker's ticket type.
    pub ty: LockType,
    pub granted: bool,
}

impl Edge {
    /// `s1 waits for s2 on TABLE db.t1 (wants X; s2 holds SR, granted)`.
    pub fn text(&self, m: &MdlModel) -> String {
        format!(
            "{} waits for {} on {} (wants {}; {} {} {}, {})",
            m.session_name(self.from),
            m.session_name(self.to),
            self.key.display(&m.dialect),
            self.wants,
            m.session_name(self.to),
            if self.granted { "holds" } else { "queued" },
            self.ty,
            if self.granted {
                "granted"
            } else {
                "pending, ahead by priority"
            }
        )
    }
    /// A short label for a graph edge: `TABLE db.t1: SR granted`.
    pub fn label(&self, m: &MdlModel) -> String {
        format!(
            "{}: {} {}",
            self.key.display(&m.dialect),
            self.ty,
            if self.granted { "granted" } else { "pending" }
        )
    }
}

pub(super) fn push_edges(
    _m: &MdlModel,
    st: &State,
    from: usize,
    key: &MdlKey,
    ty: LockType,
    out: &mut Vec<Edge>,
) {
    let Some(l) = st.table.lock(key) else { return };
    let r = st.table.rules(key);
    let t = mdl_core::lock::Ticket {
        id: mdl_core::lock::TicketId(u64::MAX),
        owner: OwnerId(from as u32),
        ty,
    };
    for (b, granted) in l.blocking_tickets(&r, &t) {
        let e = Edge {
            from,
            to: b.owner.0 as usize,
            key: key.clone(),
            wants: ty,
            ty: b.ty,
            granted,
        };
        if !out.contains(&e) {
            out.push(e);
        }
    }
}

/// The labelled wait-for edges of a state.
pub fn labelled_edges(_m: &MdlModel, st: &State) -> Vec<Edge> {
    let mut out = Vec::new();
    for (s, x) in st.table.sessions().iter().enumerate() {
        if let Some(w) = &x.wait {
            let Some(l) = st.table.lock(&w.key) else {
                continue;
            };
            let r = st.table.rules(&w.key);
            for (b, granted) in l.blocking_tickets(&r, &w.ticket) {
                let e = Edge {
                    from: s,
                    to: b.owner.0 as usize,
                    key: w.key.clone(),
                    wants: w.ticket.ty,
                    ty: b.ty,
                    granted,
                };
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
    }
    out
}

/// The edges a step's new request(s) would add in the state before it.
pub(super) fn request_edges(m: &MdlModel, pre: &State, r: &Record) -> Vec<Edge> {
    let s = r.action.session();
    let mut out = Vec::new();
    match (r.action, r.step) {
        (Action::Step(_), Some(i)) => match &m.programs[s][i].cmd {
            Command::Acquire { key, ty, .. } | Command::Upgrade { key, ty, .. } => {
                push_edges(m, pre, s, key, *ty, &mut out)
            }
            Command::AcquireAll { reqs, .. } => {
                for (k, t) in reqs {
                    push_edges(m, pre, s, k, *t, &mut out);
                }
            }
            _ => {}
        },
        (Action::Resume(_), _) => {
            if let Some(res) = &pre.table.sessions()[s].resume {
                for b in &res.rest {
                    push_edges(m, pre, s, &b.key, b.ty, &mut out);
                }
            }
        }
        _ => {}
    }
    out
}

/// A deadlock an action resolved: the cycle through the victim and the weights.
#[derive(Clone, Debug)]
pub struct DeadlockView {
    pub victim: usize,
    /// The cycle's edges, starting at the victim (empty if none was found: a false
    /// deadlock).
    pub cycle: Vec<Edge>,
    /// Each session on the cycle with its wait's deadlock weight.
    pub weights: Vec<(usize, u32)>,
    /// The session whose new wait closed the cycle.
    pub requester: usize,
}

impl DeadlockView {
    /// The explanation, one line each.
    pub fn lines(&self, m: &MdlModel) -> Vec<String> {
        let mut v = Vec::new();
        if self.cycle.is_empty() {
            v.push(format!(
                "deadlock: no cycle through {} in the wait-for graph",
                m.session_name(self.victim)
            ));
            return v;
        }
        let mut names: Vec<&str> = self.cycle.iter().map(|e| m.session_name(e.from)).collect();
        names.push(m.session_name(self.victim));
        v.push(format!("deadlock cycle: {}", names.join(" -> ")));
        for e in &self.cycle {
            v.push(format!("  {}", e.text(m)));
        }
        let w: Vec<String> = self
            .weights
            .iter()
            .map(|(s, w)| format!("{} {w} ({})", m.session_name(*s), weight_kind(m, *w)))
            .collect();
        let min = self.weights.iter().map(|x| x.1).min().unwrap_or(0);
        let tie = self.weights.iter().filter(|x| x.1 == min).count() > 1;
        v.push(format!(
            "victim {}: the lowest deadlock weight on the cycle ({}){}",
            m.session_name(self.victim),
            w.join(", "),
            if tie {
                format!(
                    "; on a tie the requester ({}) or the session nearest it on the cycle",
                    m.session_name(self.requester)
                )
            } else {
                String::new()
            }
        ));
        v
    }
}

pub(super) fn weight_kind(m: &MdlModel, w: u32) -> String {
    let ws = &m.dialect.weights;
    let base = [
        (ws.dml, "DML"),
        (ws.ull, "user-level lock"),
        (ws.ddl, "DDL"),
    ];
    match base.iter().find(|(b, _)| *b == w) {
        Some((_, n)) => (*n).to_string(),
        None => match base.iter().filter(|(b, _)| *b <= w).max_by_key(|(b, _)| *b) {
            Some((b, n)) if ws.victim_overweight > 0 => {
                format!("{n} + {} for earlier victimhood", w - b)
            }
            _ => "weight".to_string(),
        },
    }
}

/// The deadlocks that action `r`, taken from `pre`, resolved.
pub fn deadlocks(m: &MdlModel, pre: &State, r: &Record) -> Vec<DeadlockView> {
    let s = r.action.session();
    let mut victims: Vec<usize> = r
        .events
        .iter()
        .filter(|e| e.1 == Outcome::Deadlock)
        .map(|e| e.0)
        .collect();
    if r.outcome == Some(Outcome::Deadlock) {
        victims.push(s);
    }
    if victims.is_empty() {
        return Vec::new();
    }
    let mut edges = labelled_edges(m, pre);
    for e in request_edges(m, pre, r) {
        if !edges.contains(&e) {
            edges.push(e);
        }
    }
    victims
        .into_iter()
        .map(|v| {
            let cycle = shortest_cycle(&edges, v);
            let weights = cycle
                .iter()
                .map(|e| {
                    let x = &pre.table.sessions()[e.from];
                    let w = if e.from == s && x.wait.is_none() {
                        // The requester's new wait.
                        m.dialect.weight(
                            e.key.namespace(),
                            e.wants,
                            mdl_core::WeightRule::forced_if(x.force_dml),
                            x.victim_count,
                        )
                    } else {
                        pre.table.wait_weight(OwnerId(e.from as u32))
                    };
                    (e.from, w)
                })
                .collect();
            DeadlockView {
                victim: v,
                cycle,
                weights,
                requester: s,
            }
        })
        .collect()
}

/// The shortest cycle through `v` (breadth-first), as its edges from `v`.
pub(super) fn shortest_cycle(edges: &[Edge], v: usize) -> Vec<Edge> {
    let mut q = std::collections::VecDeque::new();
    // Edge indices; the first hop leaves v.
    for (i, e) in edges.iter().enumerate() {
        if e.from == v && e.to != v {
            q.push_back(i);
        }
    }
    let mut via: std::collections::HashMap<usize, usize> = Default::default();
    for &i in &q {
        via.entry(edges[i].to).or_insert(i);
    }
    while let Some(i) = q.pop_front() {
        let at = edges[i].to;
        if at == v {
            // Walk back.
            let mut path = vec![i];
            let mut cur = edges[i].from;
            while cur != v {
                let j = via[&cur];
                path.push(j);
                cur = edges[j].from;
            }
            path.reverse();
            return path.into_iter().map(|j| edges[j].clone()).collect();
        }
        for (j, e) in edges.iter().enumerate() {
            if e.from == at && (e.to == v || !via.contains_key(&e.to)) {
                if e.to != v {
                    via.insert(e.to, j);
                }
                q.push_back(j);
            }
        }
    }
    Vec::new()
}

/// Why a state violates a built-in property (for the text output).
pub fn violation_detail(m: &MdlModel, p: &PropResult) -> Option<String> {
    let st = p.trace.as_ref()?.states.last()?;
    Some(match p.kind {
        PropKind::NoConflict => {
            let (k, a, ta, b, tb) = m.conflict(st)?;
            format!(
                "{} was granted {tb} on {} while {} holds {ta}, which the granted matrix \
                 forbids",
                m.session_name(b),
                k.display(&m.dialect),
                m.session_name(a),
            )
        }
        PropKind::NoLostWakeup => {
            let w = st.table.grantable_waiters();
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
        PropKind::NoStuck => {
            let e: Vec<String> = labelled_edges(m, st).iter().map(|e| e.text(m)).collect();
            if e.is_empty() {
                "no action is enabled but not every session is done".into()
            } else {
                format!(
                    "no action is enabled but not every session is done: {}",
                    e.join("; ")
                )
            }
        }
        PropKind::NoFalseDeadlock => format!(
            "{} got `deadlock` without a cycle through it in the wait-for graph",
            m.session_name(st.bad_deadlock? as usize)
        ),
        PropKind::NoCycle => format!(
            "{} is on a cycle of the wait-for graph that no deadlock search broke",
            m.session_name(st.bad_cycle? as usize)
        ),
        PropKind::ReorderOnCycle => format!(
            "a reordering of a wait queue involving {} (moved ahead, or passed over) is not \
             the reversal of an edge of the cycle being resolved",
            m.session_name(st.bad_reorder? as usize)
        ),
        PropKind::ReorderBounded => {
            let w = st.bad_jumps? as usize;
            format!(
                "{}'s wait was passed over by {} reorderings (max_write_lock_count {})",
                m.session_name(w),
                st.jumps[w],
                m.config.max_write_lock_count
            )
        }
        PropKind::Assert(i) => {
            let a = &m.asserts[i];
            let w = a.session?;
            let name = m.session_name(w);
            match a.kind {
                mdl_scenario::AssertKind::Bounded(n) => format!(
                    "{name} was passed over by {} grant{} to other sessions while it waited \
                     (at most {n} allowed)",
                    st.passed[w],
                    if st.passed[w] == 1 { "" } else { "s" }
                ),
                mdl_scenario::AssertKind::Eventually => {
                    if st.last[w] == Some(Outcome::Deadlock) {
                        format!("{name}'s request ended in `deadlock`, not in a grant")
                    } else if st.starved & (1u64 << w) != 0 {
                        format!(
                            "{name} was passed over and its lock came back to the configuration \
                             it had when {name} began to wait: the others can repeat that for \
                             ever while {name} waits (starvation)"
                        )
                    } else {
                        format!("{name} waits and no action is enabled")
                    }
                }
                _ => return None,
            }
        }
    })
}
