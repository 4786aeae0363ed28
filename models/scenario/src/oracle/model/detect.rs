//! Deadlocks: the wait-for graph from scratch and the detection of a waiter's cycle.

use super::Oracle;
use crate::oracle::brute::{self, Graph};
use mdl_core::Outcome;

impl Oracle {
    /// The wait-for graph, from scratch: nodes are sessions.
    pub fn graph(&self) -> Graph {
        let n = self.sessions.len();
        let mut g = Graph {
            succ: vec![Vec::new(); n],
            weight: vec![0; n],
        };
        for (x, sess) in self.sessions.iter().enumerate() {
            let Some(w) = &sess.wait else { continue };
            let st = self.strategy(&w.key);
            let l = &self.locks[&w.key];
            for h in &l.granted {
                if h.owner != x && st.conflicts(w.req.ty, h.ty) {
                    g.succ[x].push(h.owner);
                }
            }
            for q in &l.waiting {
                if q.owner != x && q.id != w.req.id && st.yields(l.idx, w.req.ty, q.ty) {
                    g.succ[x].push(q.owner);
                }
            }
            // The search visits the sessions a wait is blocked by in the granted list's
            // order, then the queue's (MDL_lock::visit_subgraph); a fast-path grant has
            // its place in that list from its owner's materialisation on.
            g.weight[x] = self.weight_of(&w.key, w.req.ty, sess.force_dml, sess.victims);
        }
        g
    }

    /// Runs from `s`, which has just started to wait, until no cycle through it is left.
    pub(super) fn detect(&mut self, s: usize) -> Outcome {
        let before = self.detecting.replace(s);
        self.self_grant = None;
        let out = loop {
            let g = self.graph();
            let found = match self.max_search_depth {
                None => brute::first_cycle(&g, s),
                Some(depth) => {
                    let waits: Vec<bool> = (0..self.sessions.len())
                        .map(|x| self.sessions[x].wait.is_some())
                        .collect();
                    brute::capped_search(&g, &waits, s, depth).map(|(p, _)| p)
                }
            };
            let Some(cycle) = found else {
                break Outcome::Waiting;
            };
            let v = brute::victim(&g, &cycle);
            self.sessions[v].victims += 1;
            if v == s {
                self.end_wait(s, Outcome::Deadlock);
                break Outcome::Deadlock;
            }
            self.end_wait(v, Outcome::Deadlock);
            if self.sessions[s].wait.is_none() {
                break Outcome::Granted;
            }
        };
        self.detecting = before;
        out
    }
}
