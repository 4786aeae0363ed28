//! The runner's backend over the real concurrent [`Manager`] (the `manager` engine,
//! `mdl run`'s default): every session is a task, a future over the manager's async
//! waits ([`Command::apply_to_context_async`]) that the runner polls on its own thread,
//! and a manual clock. No thread per session: a waiting session is a pending future
//! whose ticket waits in its lock's queue and whose wait slot holds its waker, so
//! 10,000 sessions cost 10,000 contexts and futures, not 10,000 stacks and allocator
//! heaps (the figures: `models/scenario/README.md`).
//!
//! The requests, grants, queues, deadlock searches, victims and wake-ups are the
//! manager's own (`mdl-core/src/manager/wait_async.rs` is the contract: the request and
//! its deadlock search run in the first poll, a waiting future is woken once, when its
//! wait is decided). The wakers only record the session (a waker may be called under a
//! lock's state mutex); the runner polls the woken sessions, the lowest first, until
//! none is left: then the system is quiet, with no polling of thread states and no
//! wall-clock wait. As in the thread engine ([`super::ThreadBackend`]), a bulk request
//! whose element was granted after a wait stops in a pause
//! ([`mdl_core::Context::acquire_all_paced_async`]) until the runner lets it go on, in
//! the table engine's order (the stepping session's own first, then the lowest
//! session), and timeouts are the runner's: it moves the manual clock and times out one
//! wait at a time ([`ContextHandle::time_out`]).
//!
//! What differs from the thread engine: the consequences of one line (the waiters a
//! release wakes, a victim's clean-up) are carried out one session at a time on the
//! runner's thread instead of on as many threads at once. The outcomes are the same (the
//! engines' agreement tests play every bundled scenario on both); the manager's own
//! concurrency is the loom and shuttle proofs' and the thread engine's.

use super::inspect::{self, panic_text};
use super::{Backend, StepOutcome};
use crate::{Command, Scenario};
use mdl_core::key::MdlKey;
use mdl_core::table::Config;
use mdl_core::{Clock, Context, ContextHandle, LockType, Manager, Outcome, WaitOption};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskCx, Poll, Wake, Waker};

/// A command under way: it gives the context back with its result.
type Run = Pin<Box<dyn Future<Output = (Option<Context>, Result<Outcome, String>)>>>;

/// The sessions whose futures were woken and are to be polled.
#[derive(Default)]
struct Woken(Mutex<BTreeSet<usize>>);

impl Woken {
    fn pop(&self) -> Option<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop_first()
    }
}

/// A session's waker: records the session, polls nothing.
struct SessionWaker {
    session: usize,
    woken: Arc<Woken>,
}

impl Wake for SessionWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let mut w = self.woken.0.lock().unwrap_or_else(|e| e.into_inner());
        w.insert(self.session);
    }
}

/// The sessions whose bulk request waits in its pause for the runner's go.
type Paused = Rc<RefCell<BTreeSet<usize>>>;

/// A bulk request's pause: pending from its first poll until the runner takes the
/// session out of the paused set (and polls it).
struct Pause {
    session: usize,
    paused: Paused,
    asked: bool,
}

impl Future for Pause {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut TaskCx<'_>) -> Poll<()> {
        if !self.asked {
            self.asked = true;
            self.paused.borrow_mut().insert(self.session);
            return Poll::Pending;
        }
        if self.paused.borrow().contains(&self.session) {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

enum State {
    /// Between commands: the context (`None` once the session disconnected).
    Idle(Option<Context>),
    /// A command under way (waiting, paused, or woken and not polled yet).
    Running(Run),
}

struct Session {
    state: State,
    handle: Option<ContextHandle>,
    waker: Waker,
    /// The outcome of the last command, once it finished, until the runner takes it.
    result: Option<StepOutcome>,
    /// The runner saw this session's last step waiting and has not seen it end.
    pending: bool,
}

pub struct TaskBackend {
    mgr: Option<Manager>,
    sessions: Vec<Session>,
    woken: Arc<Woken>,
    paused: Paused,
    /// Sessions whose command finished since the runner last looked.
    finished: Vec<usize>,
    /// Set when the manager panicked or did not settle.
    broken: Option<String>,
}

impl TaskBackend {
    /// The hang guard: a line whose consequences are still being polled after this
    /// long (a manager that wakes for ever) ends the run with an `error` outcome.
    pub const GUARD: std::time::Duration = std::time::Duration::from_secs(60);

    pub fn new(sc: &Scenario) -> TaskBackend {
        let woken = Arc::new(Woken::default());
        let mut b = TaskBackend {
            mgr: None,
            sessions: Vec::new(),
            woken: woken.clone(),
            paused: Paused::default(),
            finished: Vec::new(),
            broken: None,
        };
        let d = super::dialect_of(sc);
        let cfg = Config {
            max_write_lock_count: sc.settings.max_write_lock_count,
        };
        let made = catch_unwind(AssertUnwindSafe(|| {
            let mgr = Manager::new(d, cfg.into(), Clock::manual());
            let ctxs: Vec<(Context, ContextHandle)> = (0..sc.sessions.len())
                .map(|_| {
                    let c = mgr.context();
                    let h = c.handle();
                    (c, h)
                })
                .collect();
            (mgr, ctxs)
        }));
        let (mgr, ctxs) = match made {
            Ok(x) => x,
            Err(p) => {
                b.broken = Some(format!(
                    "internal: the manager panicked: {}",
                    panic_text(&*p)
                ));
                return b;
            }
        };
        b.mgr = Some(mgr);
        for (session, (ctx, handle)) in ctxs.into_iter().enumerate() {
            let waker = Waker::from(Arc::new(SessionWaker {
                session,
                woken: woken.clone(),
            }));
            b.sessions.push(Session {
                state: State::Idle(Some(ctx)),
                handle: Some(handle),
                waker,
                result: None,
                pending: false,
            });
        }
        b
    }

    fn busy(&self, s: usize) -> bool {
        matches!(self.sessions[s].state, State::Running(_))
    }

    /// Polls `s`'s command once; stores its result when it finishes.
    fn poll(&mut self, s: usize) {
        let sess = &mut self.sessions[s];
        let State::Running(fut) = &mut sess.state else {
            return;
        };
        let mut cx = TaskCx::from_waker(&sess.waker);
        let r = match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut cx))) {
            Ok(Poll::Pending) => return,
            Ok(Poll::Ready((ctx, r))) => {
                sess.state = State::Idle(ctx);
                r
            }
            Err(p) => {
                let msg = format!("internal: the manager panicked: {}", panic_text(&*p));
                let old = std::mem::replace(&mut sess.state, State::Idle(None));
                let _ = catch_unwind(AssertUnwindSafe(move || drop(old)));
                self.broken = Some(msg.clone());
                Err(msg)
            }
        };
        self.sessions[s].result = Some(StepOutcome::of(r));
        self.finished.push(s);
    }

    /// Polls the woken sessions, the lowest first, until none is left (the wakes a poll
    /// causes join the set).
    fn run_woken(&mut self) {
        let start = std::time::Instant::now();
        while let Some(s) = self.woken.pop() {
            if self.broken.is_some() {
                return;
            }
            self.poll(s);
            if start.elapsed() > Self::GUARD {
                self.broken = Some("internal: the manager did not settle".into());
                return;
            }
        }
    }

    /// Lets `s`'s paused bulk request go on until it is no longer paused once quiet.
    fn go_on(&mut self, s: usize) {
        loop {
            self.run_woken();
            if self.broken.is_some() || !self.paused.borrow_mut().remove(&s) {
                return;
            }
            self.poll(s);
        }
    }

    /// Settles a line: the paused bulk requests go on one at a time, the lowest session
    /// first, each until it waits, ends or fails (the table engine's order).
    fn settle(&mut self) {
        loop {
            self.run_woken();
            if self.broken.is_some() {
                return;
            }
            let first = self.paused.borrow().first().copied();
            let Some(s) = first else { return };
            self.go_on(s);
        }
    }

    fn take(&mut self, s: usize) -> Option<StepOutcome> {
        if self.busy(s) {
            return None;
        }
        self.sessions[s].result.take()
    }

    /// The waits that ended since the last look.
    fn ended(&mut self, except: Option<usize>) -> Vec<(usize, Outcome)> {
        let mut out = Vec::new();
        let mut keep = Vec::new();
        for s in std::mem::take(&mut self.finished) {
            if Some(s) == except {
                keep.push(s);
                continue;
            }
            if !self.sessions[s].pending {
                continue;
            }
            if let Some(r) = self.take(s) {
                self.sessions[s].pending = false;
                out.push((s, r.outcome));
            }
        }
        self.finished = keep;
        out
    }

    fn broken_outcome(&self) -> StepOutcome {
        StepOutcome::of(Err(self
            .broken
            .clone()
            .unwrap_or_else(|| "internal: no result".into())))
    }

    /// Starts `cmd` as `session`'s task (not polled yet).
    fn start(&mut self, session: usize, cmd: &Command, wait: WaitOption) -> Result<(), String> {
        let sess = &mut self.sessions[session];
        let ctx = match std::mem::replace(&mut sess.state, State::Idle(None)) {
            State::Idle(c) => c,
            running @ State::Running(_) => {
                sess.state = running;
                return Err("internal: the session is still running a command".into());
            }
        };
        let cmd = cmd.clone();
        let paused = self.paused.clone();
        sess.result = None;
        sess.state = State::Running(Box::pin(async move {
            let mut ctx = ctx;
            let pause = move || Pause {
                session,
                paused: paused.clone(),
                asked: false,
            };
            let r = cmd.apply_to_context_async(&mut ctx, wait, pause).await;
            (ctx, r.map_err(|e| e.to_string()))
        }));
        Ok(())
    }

    /// Calls `f` on `session`'s handle (a kill, a timeout), then settles.
    fn end_wait(&mut self, session: usize, f: fn(&ContextHandle) -> bool) {
        if let Some(h) = &self.sessions[session].handle {
            let _ = catch_unwind(AssertUnwindSafe(|| f(h)));
        }
        self.settle();
    }
}

impl Backend for TaskBackend {
    fn name(&self) -> &'static str {
        "manager"
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
        if let Err(e) = self.start(session, cmd, wait) {
            return (StepOutcome::of(Err(e)), Vec::new());
        }
        // Seeded bug `mdl_bug="run_report_early"`: the step's outcome is reported before
        // the system is quiet (before its own task has settled), so every step looks
        // `waiting`. The engine-agreement test catches it.
        #[cfg(mdl_bug = "run_report_early")]
        {
            self.poll(session);
            self.sessions[session].pending = true;
            let out = StepOutcome {
                outcome: Outcome::Waiting,
                error: None,
            };
            return (out, self.ended(Some(session)));
        }
        // The step's own part: its request, its own deadlock search and what that
        // decided, a bulk request going on through grants that came from it.
        #[allow(unreachable_code)]
        self.poll(session);
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
        self.end_wait(session, ContextHandle::kill);
        self.ended(None)
    }

    fn deadlines(&mut self) -> Vec<(usize, u64)> {
        inspect::deadlines(self.sessions.iter().map(|s| (s.pending, s.handle.as_ref())))
    }

    fn set_clock(&mut self, ms: u64) {
        inspect::set_clock(self.mgr.as_ref(), ms)
    }

    fn time_out(&mut self, session: usize) -> Vec<(usize, Outcome)> {
        self.end_wait(session, ContextHandle::time_out);
        self.ended(None)
    }

    fn holds(&mut self, session: usize, key: &MdlKey, ty: LockType) -> bool {
        inspect::holds(self.mgr.as_ref(), session, key, ty)
    }

    fn tickets(&mut self, session: usize, key: Option<&MdlKey>) -> usize {
        inspect::tickets(self.mgr.as_ref(), session, key)
    }

    fn finish(&mut self) {
        // Kill every wait; a killed bulk acquire may let another waiter in, and so on.
        for _ in 0..=self.sessions.len() {
            if self.broken.is_some() {
                break;
            }
            let mut any = false;
            for s in &self.sessions {
                if let (State::Running(_), Some(h)) = (&s.state, &s.handle) {
                    any |= catch_unwind(AssertUnwindSafe(|| h.kill())).unwrap_or(false);
                }
            }
            self.settle();
            if !any {
                break;
            }
        }
        // Dropping a task withdraws what it still waits for; dropping a context releases
        // what it holds.
        for s in &mut self.sessions {
            let old = std::mem::replace(&mut s.state, State::Idle(None));
            let _ = catch_unwind(AssertUnwindSafe(move || drop(old)));
        }
    }
}
