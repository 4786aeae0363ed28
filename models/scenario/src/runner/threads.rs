//! The runner's thread engine over the real concurrent [`Manager`] (`mdl run --engine
//! threads`): one OS thread per session, each owning its [`Context`] and blocking in
//! its waits, and a manual clock. (The default `manager` engine plays the same manager
//! with sessions as tasks on one thread: `tasks.rs`.)
//!
//! After every line the runner waits until the system is quiet: every session thread is
//! idle (its last call returned and its outcome is delivered), parked in a wait whose
//! outcome is not decided ([`ContextHandle::is_waiting`]), or paused in a bulk request
//! between a granted wait and its next element ([`Context::acquire_all_paced`]). It
//! polls those states with `yield_now`, never sleeps, and asks for two quiet polls in a
//! row. Then it lets the paused bulk requests go on one at a time, in the table engine's
//! order (the stepping session's own first, then the lowest session), each until it is
//! quiet again. Timeouts are not the manager's to fire: the runner moves the manual clock
//! and times out one wait at a time ([`ContextHandle::time_out`]). So no outcome depends
//! on thread timing.
//!
//! A hang guard (a generous wall-clock limit, [`ThreadBackend::GUARD`]) turns a manager
//! that never settles into an `error` outcome instead of a hung tool; it decides nothing
//! in a correct run.

use super::inspect::{self, panic_text};
use super::{Backend, StepOutcome};
use crate::{Command, Scenario};
use mdl_core::key::MdlKey;
use mdl_core::table::Config;
use mdl_core::{Clock, Context, ContextHandle, LockType, Manager, Outcome, WaitOption};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

enum Msg {
    Run(Command, WaitOption),
    Stop,
}

#[derive(Default)]
struct Slot {
    /// A command was sent and its result is not stored yet.
    busy: AtomicBool,
    /// The session's bulk request waits in its pause for the runner's go.
    paused: AtomicBool,
    result: Mutex<Option<StepOutcome>>,
}

struct SessionThread {
    tx: Sender<Msg>,
    /// Lets a paused bulk request go on.
    go: Sender<()>,
    handle: Option<ContextHandle>,
    slot: Arc<Slot>,
    join: Option<JoinHandle<()>>,
    /// The runner saw this session's last step waiting and has not seen it end.
    pending: bool,
}

pub struct ThreadBackend {
    mgr: Option<Manager>,
    sessions: Vec<SessionThread>,
    /// Set when the manager panicked or did not settle.
    broken: Option<String>,
}

/// A bulk request's pause: tell the runner, wait for its go (or for the runner to be gone).
fn pause(slot: &Slot, go: &Receiver<()>) {
    slot.paused.store(true, Ordering::SeqCst);
    let _ = go.recv();
}

fn exec(
    ctx: &mut Option<Context>,
    cmd: &Command,
    wait: WaitOption,
    pause: &mut dyn FnMut(),
) -> Result<Outcome, String> {
    cmd.apply_to_context(ctx, wait, pause)
        .map_err(|e| e.to_string())
}

/// The graph of `n` nodes with these edges has a cycle (iterative colouring DFS).
fn has_cycle(n: usize, edges: &[(mdl_core::OwnerId, mdl_core::OwnerId)]) -> bool {
    let mut adj = vec![Vec::new(); n];
    for (a, b) in edges {
        let (a, b) = (a.0 as usize, b.0 as usize);
        if a < n && b < n && a != b {
            adj[a].push(b);
        }
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut colour = vec![0u8; n];
    for root in 0..n {
        if colour[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        colour[root] = 1;
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            if let Some(&w) = adj[v].get(*i) {
                *i += 1;
                match colour[w] {
                    0 => {
                        colour[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => return true,
                    _ => {}
                }
            } else {
                colour[v] = 2;
                stack.pop();
            }
        }
    }
    false
}

impl ThreadBackend {
    /// The hang guard.
    pub const GUARD: std::time::Duration = std::time::Duration::from_secs(60);

    pub fn new(sc: &Scenario) -> ThreadBackend {
        let d = super::dialect_of(sc);
        let cfg = Config {
            max_write_lock_count: sc.settings.max_write_lock_count,
        };
        let made = catch_unwind(AssertUnwindSafe(|| {
            let mgr = Manager::new(d, cfg.into(), Clock::manual());
            let ctxs: Vec<Context> = sc.sessions.iter().map(|_| mgr.context()).collect();
            (mgr, ctxs)
        }));
        let (mgr, ctxs) = match made {
            Ok(x) => x,
            Err(p) => {
                return ThreadBackend {
                    mgr: None,
                    sessions: Vec::new(),
                    broken: Some(format!(
                        "internal: the manager panicked: {}",
                        panic_text(&*p)
                    )),
                }
            }
        };
        let mut sessions = Vec::new();
        let mut broken = None;
        for ctx in ctxs {
            let handle = catch_unwind(AssertUnwindSafe(|| ctx.handle())).ok();
            if handle.is_none() {
                broken = Some("internal: the manager panicked in Context::handle".into());
            }
            let slot = Arc::new(Slot::default());
            let (tx, rx) = channel::<Msg>();
            let (go, go_rx) = channel::<()>();
            let slot2 = slot.clone();
            let join = std::thread::Builder::new()
                .name("mdl-run-session".into())
                .spawn(move || {
                    let mut ctx = Some(ctx);
                    let mut p = || pause(&slot2, &go_rx);
                    while let Ok(Msg::Run(cmd, wait)) = rx.recv() {
                        let r =
                            catch_unwind(AssertUnwindSafe(|| exec(&mut ctx, &cmd, wait, &mut p)))
                                .unwrap_or_else(|p| {
                                    Err(format!(
                                        "internal: the manager panicked: {}",
                                        panic_text(&*p)
                                    ))
                                });
                        *slot2.result.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(StepOutcome::of(r));
                        slot2.busy.store(false, Ordering::SeqCst);
                    }
                    // Dropping the context releases what it still holds.
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(ctx)));
                })
                .ok();
            sessions.push(SessionThread {
                tx,
                go,
                handle,
                slot,
                join,
                pending: false,
            });
        }
        ThreadBackend {
            mgr: Some(mgr),
            sessions,
            broken,
        }
    }

    fn is_parked(&self, s: &SessionThread) -> bool {
        match &s.handle {
            Some(h) => catch_unwind(AssertUnwindSafe(|| h.is_waiting())).unwrap_or(false),
            None => false,
        }
    }

    /// Every session is idle, paused or in an undecided wait.
    fn idle_or_parked(&self) -> bool {
        self.sessions.iter().all(|s| {
            !s.slot.busy.load(Ordering::SeqCst)
                || s.slot.paused.load(Ordering::SeqCst)
                || self.is_parked(s)
        })
    }

    /// No deadlock decision is pending. (`ContextHandle::is_waiting` turns true once the
    /// waiter has parked, after its deadlock search; while the wait-for graph has a
    /// cycle, a decision may still be on its way all the same.) The graph costs a scan of
    /// every waiter's queue, so it is asked once a line looks quiet, not at every poll.
    fn no_cycle(&self) -> bool {
        let Some(m) = &self.mgr else { return true };
        if !self
            .sessions
            .iter()
            .any(|s| s.pending || s.slot.busy.load(Ordering::SeqCst))
        {
            return true;
        }
        match catch_unwind(AssertUnwindSafe(|| m.wait_edges())) {
            Ok(edges) => !has_cycle(self.sessions.len(), &edges),
            Err(_) => true,
        }
    }

    /// Settles a line: the paused bulk requests go on one at a time, the lowest session
    /// first, each until it waits, ends or fails (the table engine's order). (A step's
    /// own bulk request goes on first: [`ThreadBackend::go_on`] in `step`.)
    fn settle(&mut self) {
        loop {
            self.wait_quiet();
            if self.broken.is_some() {
                return;
            }
            let Some(s) = (0..self.sessions.len())
                .find(|&s| self.sessions[s].slot.paused.load(Ordering::SeqCst))
            else {
                return;
            };
            self.go_on(s);
        }
    }

    /// Lets `s`'s paused bulk request go on until it is no longer paused once quiet.
    fn go_on(&mut self, s: usize) {
        loop {
            self.wait_quiet();
            let sess = &self.sessions[s];
            if self.broken.is_some() || !sess.slot.paused.load(Ordering::SeqCst) {
                return;
            }
            sess.slot.paused.store(false, Ordering::SeqCst);
            if sess.go.send(()).is_err() {
                self.broken = Some("internal: the session thread is gone".into());
                return;
            }
        }
    }

    /// Polls until two passes in a row find every session idle, paused or parked, and
    /// then no cycle in the wait-for graph.
    fn wait_quiet(&mut self) {
        if self.broken.is_some() {
            return;
        }
        let start = std::time::Instant::now();
        let mut streak = 0;
        while streak < 2 {
            if self.idle_or_parked() {
                streak += 1;
                // Two quiet polls in a row: quiet if no decision is on its way.
                if streak == 2 && !(self.idle_or_parked() && self.no_cycle()) {
                    streak = 0;
                }
            } else {
                streak = 0;
            }
            std::thread::yield_now();
            if streak == 0 && start.elapsed() > Self::GUARD {
                self.broken = Some("internal: the manager did not settle".into());
                return;
            }
        }
    }

    fn take(&self, s: usize) -> Option<StepOutcome> {
        let slot = &self.sessions[s].slot;
        if slot.busy.load(Ordering::SeqCst) {
            return None;
        }
        slot.result.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// The waits that ended since the last look.
    fn ended(&mut self, except: Option<usize>) -> Vec<(usize, Outcome)> {
        let mut out = Vec::new();
        for s in 0..self.sessions.len() {
            if Some(s) == except || !self.sessions[s].pending {
                continue;
            }
            if let Some(r) = self.take(s) {
                self.sessions[s].pending = false;
                out.push((s, r.outcome));
            }
        }
        out
    }

    fn broken_outcome(&self) -> StepOutcome {
        StepOutcome::of(Err(self
            .broken
            .clone()
            .unwrap_or_else(|| "internal: no result".into())))
    }
}

impl Backend for ThreadBackend {
    fn name(&self) -> &'static str {
        "threads"
    }

    fn step(
        &mut self,
        session: usize,
        cmd: &Command,
        wait: WaitOption,
    ) -> (StepOutcome, Vec<(usize, Outcome)>) {
        if self.broken.is_some() {
            return (self.broken_outcome(), Vec::new());
        }
        let s = &self.sessions[session];
        // Seeded bug `mdl_bug="run_report_early"`: the step's outcome is reported before
        // the system is quiet (before the session's thread has even run the command), so
        // every step looks `waiting`. The engine-agreement test catches it.
        #[cfg(mdl_bug = "run_report_early")]
        {
            s.slot.busy.store(true, Ordering::SeqCst);
            let _ = s.tx.send(Msg::Run(cmd.clone(), wait));
            self.sessions[session].pending = true;
            let out = StepOutcome {
                outcome: Outcome::Waiting,
                error: None,
            };
            return (out, self.ended(Some(session)));
        }
        #[allow(unreachable_code)]
        s.slot.busy.store(true, Ordering::SeqCst);
        if s.tx.send(Msg::Run(cmd.clone(), wait)).is_err() {
            s.slot.busy.store(false, Ordering::SeqCst);
            return (
                StepOutcome::of(Err("internal: the session thread is gone".into())),
                Vec::new(),
            );
        }
        // The step's own part: its request, its own deadlock search and what that
        // decided, a bulk request going on through grants that came from it.
        self.go_on(session);
        let out = match self.take(session) {
            Some(r) => r,
            None if self.broken.is_none() => {
                self.sessions[session].pending = true;
                StepOutcome {
                    outcome: Outcome::Waiting,
                    error: None,
                }
            }
            None => self.broken_outcome(),
        };
        self.settle();
        let ev = self.ended(None);
        (out, ev)
    }

    fn kill(&mut self, session: usize) -> Vec<(usize, Outcome)> {
        if let Some(h) = &self.sessions[session].handle {
            let _ = catch_unwind(AssertUnwindSafe(|| h.kill()));
        }
        self.settle();
        self.ended(None)
    }

    fn deadlines(&mut self) -> Vec<(usize, u64)> {
        inspect::deadlines(self.sessions.iter().map(|s| (s.pending, s.handle.as_ref())))
    }

    fn set_clock(&mut self, ms: u64) {
        inspect::set_clock(self.mgr.as_ref(), ms)
    }

    fn time_out(&mut self, session: usize) -> Vec<(usize, Outcome)> {
        if let Some(h) = &self.sessions[session].handle {
            let _ = catch_unwind(AssertUnwindSafe(|| h.time_out()));
        }
        self.settle();
        self.ended(None)
    }

    fn holds(&mut self, session: usize, key: &MdlKey, ty: LockType) -> bool {
        inspect::holds(self.mgr.as_ref(), session, key, ty)
    }

    fn tickets(&mut self, session: usize, key: Option<&MdlKey>) -> usize {
        inspect::tickets(self.mgr.as_ref(), session, key)
    }

    fn finish(&mut self) {
        for s in &self.sessions {
            if self.broken.is_none() && s.slot.busy.load(Ordering::SeqCst) {
                if let Some(h) = &s.handle {
                    let _ = catch_unwind(AssertUnwindSafe(|| h.kill()));
                }
            }
        }
        self.settle();
        // A bulk acquire that was killed may have let another waiter in, and so on.
        for _ in 0..self.sessions.len() {
            if self.broken.is_some() {
                break;
            }
            let mut any = false;
            for s in &self.sessions {
                if s.slot.busy.load(Ordering::SeqCst) {
                    if let Some(h) = &s.handle {
                        any |= catch_unwind(AssertUnwindSafe(|| h.kill())).unwrap_or(false);
                    }
                }
            }
            if !any {
                break;
            }
            self.settle();
        }
        for s in &self.sessions {
            let _ = s.tx.send(Msg::Stop);
        }
        let stuck = self.broken.is_some();
        for s in &mut self.sessions {
            if let Some(j) = s.join.take() {
                if !stuck || j.is_finished() {
                    let _ = j.join();
                }
            }
        }
    }
}

impl Drop for ThreadBackend {
    fn drop(&mut self) {
        if self.sessions.iter().any(|s| s.join.is_some()) {
            self.finish();
        }
    }
}
