//! What `mdl check` prints: the text and JSON results, the replay scenario of a
//! counterexample, and the Markdown report with Mermaid diagrams.

use super::result::{CheckResult, PropResult, Simulated, Status, Trace};
use super::search::Stop;
use super::{graph, Action, MdlModel, PropKind, Record, State};
use mdl_core::key::MdlKey;
use mdl_core::{LockType, Outcome, OwnerId, WaitOption};
use mdl_scenario::print::{command_text, command_text_with_wait, settings_text, wait_text};
use mdl_scenario::read::thousands;
use mdl_scenario::{Command, Settings};
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

fn outcome_text(r: &Record) -> Option<String> {
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

fn push_edges(
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
fn request_edges(m: &MdlModel, pre: &State, r: &Record) -> Vec<Edge> {
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

fn weight_kind(m: &MdlModel, w: u32) -> String {
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
                        m.dialect
                            .weight(e.key.namespace(), e.wants, x.force_dml, x.victim_count)
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
fn shortest_cycle(edges: &[Edge], v: usize) -> Vec<Edge> {
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
        super::PropKind::NoConflict => {
            let (k, a, ta, b, tb) = m.conflict(st)?;
            format!(
                "{} was granted {tb} on {} while {} holds {ta}, which the granted matrix \
                 forbids",
                m.session_name(b),
                k.display(&m.dialect),
                m.session_name(a),
            )
        }
        super::PropKind::NoLostWakeup => {
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
        super::PropKind::NoStuck => {
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
        super::PropKind::NoFalseDeadlock => format!(
            "{} got `deadlock` without a cycle through it in the wait-for graph",
            m.session_name(st.bad_deadlock? as usize)
        ),
        super::PropKind::NoCycle => format!(
            "{} is on a cycle of the wait-for graph that no deadlock search broke",
            m.session_name(st.bad_cycle? as usize)
        ),
        super::PropKind::ReorderOnCycle => format!(
            "a reordering of a wait queue involving {} (moved ahead, or passed over) is not \
             the reversal of an edge of the cycle being resolved",
            m.session_name(st.bad_reorder? as usize)
        ),
        super::PropKind::ReorderBounded => {
            let w = st.bad_jumps? as usize;
            format!(
                "{}'s wait was passed over by {} reorderings (max_write_lock_count {})",
                m.session_name(w),
                st.jumps[w],
                m.config.max_write_lock_count
            )
        }
        super::PropKind::Assert(i) => {
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

// --- replay -----------------------------------------------------------------------------

/// A counterexample as a scenario that `mdl run` accepts: the steps in the interleaved
/// order, `kill` lines for kills, `advance` lines for timeouts (each timed-out request
/// gets the `timeout=` that makes it expire there, every other wait is unlimited), and
/// `expect` lines of the outcomes seen.
pub fn replay_scenario(m: &MdlModel, t: &Trace, title: &str) -> String {
    const TICK: u64 = 1000;
    enum L {
        Step {
            session: usize,
            step: usize,
            start: u64,
            expire: Option<u64>,
        },
        Text(String),
    }
    let mut lines: Vec<L> = Vec::new();
    let mut open: Vec<Option<usize>> = vec![None; m.programs.len()];
    let mut clock = 0u64;
    let expect = |lines: &mut Vec<L>, s: usize, o: Outcome| {
        lines.push(L::Text(format!("expect {} {o}", m.session_name(s))));
    };
    for (k, r) in t.records.iter().enumerate() {
        let s = r.action.session();
        match r.action {
            Action::Step(_) => {
                let step = r.step.unwrap_or(0);
                open[s] = Some(lines.len());
                lines.push(L::Step {
                    session: s,
                    step,
                    start: clock,
                    expire: None,
                });
            }
            Action::Resume(_) => {
                // `mdl run` goes on with a bulk acquire as soon as its element is granted;
                // the model may let other sessions act in between.
                let paused = |i: usize| {
                    t.states
                        .get(i)
                        .is_some_and(|st| st.table.sessions()[s].resume.is_some())
                };
                if k >= 1 && paused(k - 1) {
                    lines.push(L::Text(format!(
                        "# note: the model resumed {}'s bulk acquire only here, after other \
                         actions; `mdl run` resumes it at once, so from here the replay may \
                         differ",
                        m.session_name(s)
                    )));
                }
            }
            Action::Timeout(_) => {
                clock += TICK;
                lines.push(L::Text(format!("advance {TICK}")));
                if let Some(i) = open[s] {
                    if let L::Step { expire, .. } = &mut lines[i] {
                        *expire = Some(clock);
                    }
                }
            }
            Action::Kill(_) => {
                lines.push(L::Text(format!("kill {}", m.session_name(s))));
            }
        }
        if let Some(o) = r.outcome {
            if o != Outcome::Waiting || matches!(r.action, Action::Step(_)) {
                expect(&mut lines, s, o);
            }
        }
        for e in &r.events {
            if !e.2 {
                expect(&mut lines, e.0, e.1);
            }
        }
    }
    let settings = Settings {
        lock_wait_timeout: None,
        ..m.scenario.settings.clone()
    };
    let mut out = String::new();
    for l in title.lines() {
        let _ = writeln!(out, "# {l}");
    }
    out.push_str(&settings_text(&settings));
    out.push('\n');
    for l in &lines {
        match l {
            L::Text(s) => {
                out.push_str(s);
                out.push('\n');
            }
            L::Step {
                session,
                step,
                start,
                expire,
            } => {
                let spec = &m.programs[*session][*step];
                let text = if spec.cmd.is_request() {
                    let w = match (spec.wait, expire) {
                        (_, Some(at)) => Some(format!("timeout={}", at - start)),
                        (WaitOption::NoWait, _)
                        | (WaitOption::Timeout(std::time::Duration::ZERO), _) => {
                            wait_text(spec.wait)
                        }
                        _ => None,
                    };
                    command_text_with_wait(&m.dialect, &spec.cmd, Some(w))
                } else {
                    command_text(&m.dialect, &spec.cmd)
                };
                let _ = writeln!(
                    out,
                    "{}: {text}   # line {}",
                    m.session_name(*session),
                    spec.pos.line
                );
            }
        }
    }
    out
}

// --- text and JSON ----------------------------------------------------------------------

/// A byte count for people (`12.3 MB`).
pub fn bytes_text(b: u64) -> String {
    let b = b as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.2} GB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.1} MB", b / (1u64 << 20) as f64)
    } else if b >= 1024.0 {
        format!("{:.1} KB", b / 1024.0)
    } else {
        format!("{b:.0} B")
    }
}

/// The reductions in force, in words.
fn reductions(r: &CheckResult) -> String {
    let mut v = Vec::new();
    if r.symmetry_used {
        v.push("symmetry reduction".to_string());
    }
    if let Some(p) = &r.por {
        v.push(format!(
            "partial-order reduction ({} states expanded by one action, {} actions skipped)",
            thousands(p.reduced),
            thousands(p.skipped)
        ));
    }
    v.join(", ")
}

/// What a `--simulate` sample covered, one line.
fn sample_text(r: &CheckResult, s: &Simulated) -> String {
    let found = if r.any_violated() {
        "a violation found"
    } else {
        "no violation found"
    };
    let cut = if s.timed_out {
        format!(
            " (stopped at --max-time after {} of them)",
            thousands(s.paths)
        )
    } else {
        String::new()
    };
    format!(
        "sampled {} random paths{cut} (seed {}, at most {} actions each{}): {} states ({} \
         distinct) to depth {}, {found}; a sample decides only what it finds, the check is \
         incomplete",
        thousands(s.asked),
        s.seed,
        s.depth_cap,
        if s.capped { ", some cut there" } else { "" },
        thousands(r.states),
        thousands(r.unique_states),
        r.max_depth
    )
}

/// Which steps the search took, one line (for a search cut short or a sample).
pub fn actions_text(r: &CheckResult) -> String {
    const SHOWN: usize = 12;
    let c = &r.coverage;
    let mut out = format!(
        "actions covered: {} of {} steps taken at least once",
        thousands(c.taken),
        thousands(c.total)
    );
    if !c.untaken_lines.is_empty() {
        let lines: Vec<String> = c
            .untaken_lines
            .iter()
            .take(SHOWN)
            .map(|l| l.to_string())
            .collect();
        out.push_str(&format!(
            "; never taken: line{} {}",
            if c.untaken_lines.len() == 1 { "" } else { "s" },
            lines.join(", ")
        ));
        if c.untaken_lines.len() > SHOWN {
            out.push_str(&format!(" and {} more", c.untaken_lines.len() - SHOWN));
        }
    }
    out
}

/// What the search covered, one line; `None` for a complete search.
pub fn coverage_text(r: &CheckResult) -> Option<String> {
    if let Some(s) = &r.simulated {
        return Some(sample_text(r, s));
    }
    let so_far = if r.any_violated() {
        "violations so far as shown"
    } else {
        "no violation so far"
    };
    match r.stop {
        Some(Stop::Time) => Some(format!(
            "stopped at --max-time (after {:.1} s): explored {} states ({} unique) to depth {}, \
             {so_far}; the check is incomplete",
            r.search_seconds,
            thousands(r.states),
            thousands(r.unique_states),
            r.max_depth
        )),
        Some(Stop::Memory) => Some(format!(
            "stopped at --max-memory ({}): explored {} states ({} unique) to depth {}, no \
             violation so far; the check is incomplete",
            bytes_text(r.max_memory),
            thousands(r.states),
            thousands(r.unique_states),
            r.max_depth
        )),
        Some(Stop::States) => Some(format!(
            "stopped at --max-states: explored {} states ({} unique) to depth {}, no \
             violation so far; the check is incomplete",
            thousands(r.states),
            thousands(r.unique_states),
            r.max_depth
        )),
        None if r.depth_cut => Some(format!(
            "complete up to depth {} (--max-depth): deeper interleavings were not explored, \
             so `holds` means `holds up to depth {}`",
            r.depth_bound.unwrap_or(r.max_depth),
            r.depth_bound.unwrap_or(r.max_depth)
        )),
        None => None,
    }
}

/// The text output of one file.
pub fn text(m: &MdlModel, r: &CheckResult, show_replay: bool) -> String {
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
                if show_replay {
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

fn trace_json(m: &MdlModel, t: &Trace) -> serde_json::Value {
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
        "simulate": r.simulated.as_ref().map(|s| serde_json::json!({
            "paths_asked": s.asked,
            "paths": s.paths,
            "seed": s.seed,
            "depth_cap": s.depth_cap,
            "capped": s.capped,
            "timed_out": s.timed_out,
            "found_at": s.found_at.iter().map(|f| f.map(|(p, t)| serde_json::json!({"path": p, "seconds": t}))).collect::<Vec<_>>(),
        })),
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

// --- Markdown ---------------------------------------------------------------------------

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

fn sequence_diagram(m: &MdlModel, t: &Trace) -> String {
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
fn final_edges(m: &MdlModel, t: &Trace) -> Vec<Edge> {
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
