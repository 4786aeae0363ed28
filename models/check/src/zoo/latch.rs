//! The latch-level zoo: failures of the servers' concurrent machinery (latches, wait
//! slots, wake-ups), not of the lock protocol. Each old design is a seeded bug of the
//! real concurrent manager (`mdl-core/src/manager/`, `mdl-core/src/sync/`), registered in
//! `ci/registry/src/bugs.rs`; the harness that catches it is a shuttle test of
//! `proofs/tests/latch.rs`, which the current design passes.
//!
//! `mdl zoo` cannot run these schedules itself: shuttle replaces mdl-core's
//! synchronisation primitives (the `shuttle` feature of mdl-core's `sync` facade), and
//! the `mdl` binary is built with the real ones. So an entry names the exact commands
//! (the old design's, which must fail, and the current one's, which must pass), and its
//! page shows what shuttle reported when the old design was run (`models/zoo/latch/`,
//! recorded from those commands). `models/mdl/tests/zoo.rs` checks that every named test
//! exists and that every seeded bug is in the registry with that catch.

use std::fmt::Write as _;

/// One latch-level entry.
pub struct LatchEntry {
    /// Short name (`--entry NAME`).
    pub id: &'static str,
    pub title: &'static str,
    /// The bug tracker reference.
    pub bug: &'static str,
    /// Where to read about it (empty: no single tracker entry).
    pub link: &'static str,
    /// The seeded bug (`MDL_BUG=NAME`) that is the old design in the real manager.
    pub seeded_bug: &'static str,
    /// The shuttle test of `proofs/tests/latch.rs` that catches it.
    pub test: &'static str,
    /// What happened in the real server (Markdown).
    pub story: &'static str,
    /// The old design as seeded in the manager (Markdown).
    pub old_text: &'static str,
    /// How the harness catches it (Markdown).
    pub caught: &'static str,
    /// The fix, in the servers and in our manager (Markdown).
    pub fix: &'static str,
    /// What shuttle reported on the old design (recorded; `models/zoo/latch/ID.txt`).
    pub trace: &'static str,
}

/// The test file of the latch-level harnesses.
pub const TEST_FILE: &str = "proofs/tests/latch.rs";

impl LatchEntry {
    /// The command that runs the current design (must pass).
    pub fn command_new(&self) -> String {
        format!(
            "cargo test -p mdl-proofs --release --features shuttle --test latch {} -- --exact",
            self.test
        )
    }

    /// The command that runs the old design (must fail: the seeded bug is caught).
    pub fn command_old(&self) -> String {
        format!(
            "MDL_BUG={} cargo test -p mdl-proofs --release --features shuttle --test latch {} -- --exact --nocapture",
            self.seeded_bug, self.test
        )
    }
}

/// Every latch-level entry.
pub fn all() -> Vec<LatchEntry> {
    vec![
        LatchEntry {
            id: "detector-nested-read",
            title: "The deadlock detector deadlocked on the lock's reader-writer latch",
            bug: "MySQL bug #56405",
            link: "https://bugs.mysql.com/bug.php?id=56405",
            seeded_bug: "detector_nested_read",
            test: "search_meets_a_lock_twice_while_it_is_released",
            story: "MySQL 5.5's deadlock detector (`MDL_context::find_deadlock`, \
`MDL_lock::visit_subgraph` in sql/mdl.cc) holds each lock's `m_rwlock` for read while it \
visits the subgraph behind the lock, and when the search reaches the same lock again \
further down the path (another waiter on it) it read-locks `m_rwlock` again, nested. That \
is safe only with a latch that prefers readers. The report (RQG, 5.5-runtime, Linux) found \
the detector's thread stuck in `pthread_rwlock_rdlock` under `MDL_lock::visit_subgraph`: a \
thread releasing a ticket on that lock (a write lock on `m_rwlock`) had come between the \
two reads and waited for the first one to end, and the nested read waited behind the \
writer; the detector, the releasing thread and everyone waiting for them hung. The fix \
(5.5.8: \"on platforms where read-write lock implementation does not prefer readers by \
default (Windows, Solaris) server might have deadlocked while detecting MDL deadlock\") \
added a portable reader-preferring lock, `rw_pr_lock_t` (mysys/thr_rwlock.c, \
`rw_pr_rdlock`), made `MDL_lock::m_rwlock` one (`mysql_prlock_t`), and wrote down in its \
comment that the detector relies on readers being preferred.",
            old_text: "The lock object's state latch is a writer-preferring reader-writer \
latch (`mdl-core/src/sync/latch.rs`, built from the `sync` facade's mutex and condition \
variable so that shuttle schedules it), and the search (`LiveGraph::successors`, \
`mdl-core/src/manager/detect.rs`) takes a read hold on the state of each lock it visits \
and keeps it until the search ends, as MySQL 5.5 held `m_rwlock` over the visit of the \
subgraph. Every change of the state (request, release, reschedule) takes the write hold.",
            caught: "A holds SU on `t1` and waits to upgrade to X behind B's SR; S asks \
for X on `t1`, and its search goes S -> A (a read hold on `t1`) -> A's wait on `t1` (a \
nested read hold) while B writes `t1`'s state (three SH requests that B's SR covers, each a \
clone of its ticket added under the write hold and released at the statement's end, then \
its commit). In the schedules where one of B's writes queues between S's two reads, S \
waits behind B, B waits for S's first read, A waits for B's release: every task is \
blocked, and shuttle reports a deadlock (found in the first few random schedules).",
            fix: "MySQL: a reader-preferring latch (`mysql_prlock_t`). Ours: the search \
never holds a lock's latch across a visit. It reads a waiter's blockers under the lock's \
mutex and lets it go (`LiveGraph::successors`); a cycle it found is validated under the \
mutexes of all the cycle's locks at once, taken in address order, each once \
(`Shared::validate_and_abort`), so no latch is ever taken twice by one thread. The same \
harness passes: every schedule ends with everyone granted.",
            trace: include_str!("../../../zoo/latch/detector-nested-read.txt"),
        },
        LatchEntry {
            id: "granted-not-awake",
            title: "A waiter granted but not yet awake closes a false cycle",
            bug: "MySQL sql/mdl.cc, `MDL_lock::visit_subgraph` (the granted-but-not-updated race)",
            link: "",
            seeded_bug: "detector_trusts_waiting_for",
            test: "granted_waiter_not_yet_awake_is_no_edge",
            story: "A reschedule grants a waiting ticket (moves it to the granted queue and \
sets the waiter's `MDL_wait` status) before the waiter wakes up and clears its \
`m_waiting_for`. MySQL's `MDL_lock::visit_subgraph` describes the race in a comment: \
thread 1 owns SNW on `t1`, thread 2 waits for SW; thread 1 releases SNW (granting the SW) \
and asks for SNW again, which waits for the now granted SW. A search that trusts \
`m_waiting_for` sees thread 2 still waiting for SW, blocked by thread 1's pending SNW: a \
cycle, and a deadlock error, where there is none. The server checks, under the lock's \
latch, that the waiter's `MDL_wait` status is still `EMPTY` \
(`MDL_wait::get_status()`; `MDL_wait::set_status` sets it under `m_LOCK_wait_status`) \
and treats a decided wait as no edge.",
            old_text: "The search and the validation of a cycle \
(`mdl-core/src/manager/detect.rs`: `LiveGraph::successors`, `is_waiting`, `weight`, \
`Shared::validate_and_abort`) trust a context's `waiting` (our `m_waiting_for`) without \
checking its wait slot's status, nor that the ticket is still queued: the conflicts of \
the old request stand as edges until the waiter wakes.",
            caught: "MySQL's example under LOCK TABLES (so the SNRW's deadlock weight is \
DML's, `force_dml_weight`): `lt` holds SNRW on `t1`, `dml` waits for SW; `lt` commits, \
which grants the SW, and asks for SNRW again. In the schedules where `dml` has not woken \
yet, the search from `lt` finds `lt` -> `dml` (the granted SW) -> `lt` (the stale SW \
blocked by the pending SNRW), two waits of equal weight, and aborts the requester: `lt` \
gets a deadlock error, and the test's assertion (no deadlock error: nothing waits in a \
cycle) fails.",
            fix: "The search reads a node's wait under its slot's mutex and follows it \
only while the status is undecided; the validation re-checks, under the mutexes of the \
cycle's locks, that each ticket is still queued and its status still undecided \
(`Shared::validate_and_abort`). A granted waiter has no edge, so `lt` waits until `dml` \
commits.",
            trace: include_str!("../../../zoo/latch/granted-not-awake.txt"),
        },
        LatchEntry {
            id: "reentrant-behind-writer",
            title: "A holder's repeated request queued behind a writer that waits for it",
            bug: "THR_LOCK lost wakeup (mysys/thr_lock.c, `has_old_lock`)",
            link: "",
            seeded_bug: "reentrant_request_queued",
            test: "held_lock_asked_again_behind_a_pending_writer",
            story: "THR_LOCK (mysys/thr_lock.c, `thr_lock`) lets a read request pass a \
waiting writer only when the thread already holds a read lock on the table \
(`has_old_lock`): without that check, a thread that holds a read lock and asks again \
(a table used twice in a statement, a re-entrant open) queues behind a writer that \
itself waits for the thread's first read lock. THR_LOCK has no deadlock detector: both \
hang until a timeout, and nobody wakes the reader. MySQL's MDL never asks the lock for \
what the context already holds: `MDL_context::try_acquire_lock_impl` (sql/mdl.cc) first \
calls `find_ticket`, and returns the held ticket (or `clone_ticket`s it for another \
duration) without looking at the queue.",
            old_text: "A request that a ticket the context holds covers \
(`TicketBook::plan_acquire` says reuse or clone) goes to the lock as a new ticket \
(`Context::acquire_planned`, `mdl-core/src/manager/context.rs`), so the step layer \
queues it behind a pending conflicting request.",
            caught: "`h` holds SR on `t1` and asks for SR again (transaction, then \
statement duration) while `w` asks for X. In the schedules where `w` queued first, `h`'s \
second SR waits behind the pending X, which waits for `h`'s first SR. Our detector sees \
the cycle (THR_LOCK's waits had none) and aborts `h`, the lighter: a deadlock error for \
a lock it already holds, where THR_LOCK hung. The test's assertion (a request covered by \
a held lock is granted at once) fails.",
            fix: "The context's book answers first: a covered request is granted with no \
grant decision (`AcquirePlan::Reuse`, or `AcquirePlan::CloneOf` for another duration, \
`Context::grant_unchecked`), as MySQL's `find_ticket` / `clone_ticket`. The same \
harness passes: `h` is granted at once, and `w` gets X after `h` commits.",
            trace: include_str!("../../../zoo/latch/reentrant-behind-writer.txt"),
        },
    ]
}

/// The latch-level entries whose id is `only` (or all); empty when none matches.
pub fn select(only: Option<&str>) -> Vec<LatchEntry> {
    all()
        .into_iter()
        .filter(|e| only.is_none_or(|o| o == e.id))
        .collect()
}

/// How each old design fails under its harness (for the tables).
pub fn failure(e: &LatchEntry) -> &'static str {
    match e.id {
        "detector-nested-read" => "shuttle: deadlock, every task blocked on the latch",
        "granted-not-awake" => "a deadlock error without a cycle",
        "reentrant-behind-writer" => "a held lock asked again is not granted at once",
        _ => "the harness fails",
    }
}

/// The latch-level entries as a text table (for `mdl zoo`).
pub fn table(es: &[LatchEntry]) -> String {
    let mut out = String::new();
    if es.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\nlatch level: old designs are seeded bugs of the real manager, caught by shuttle \
(`mdl zoo` cannot run shuttle: run these from the repository root)"
    );
    for e in es {
        let _ = writeln!(out, "{:<24} {}: {}", e.id, e.bug, failure(e));
        let _ = writeln!(out, "    old (must fail): {}", e.command_old());
        let _ = writeln!(out, "    new (must pass): {}", e.command_new());
    }
    let _ = writeln!(
        out,
        "{} latch-level entries (run: cargo test -p mdl-proofs --release --features shuttle --test latch; \
ci/seeded-proofs.sh runs the old designs)",
        es.len()
    );
    out
}

/// The latch-level part of the zoo's README: a summary table and a page per entry,
/// numbered after the `first - 1` protocol-level pages.
pub fn report(es: &[LatchEntry], first: usize) -> String {
    let mut out = String::new();
    if es.is_empty() {
        return out;
    }
    out.push_str(
        "## Latch level\n\n\
These entries are failures of the concurrent machinery (latches, wait slots, wake-ups), not of \
the protocol, so they are not models: each old design is a seeded bug of the real manager \
(`MDL_BUG=NAME`, `ci/registry/src/bugs.rs`), caught by a shuttle test of \
`proofs/tests/latch.rs` over the real `mdl_core::Manager`, and the current design passes the \
same test. `mdl zoo` lists them with the commands (it cannot run shuttle itself: shuttle \
replaces mdl-core's synchronisation primitives, the `mdl` binary has the real ones); \
`ci/proofs.sh` runs the current designs and `ci/seeded-proofs.sh` the old ones. The trace on \
each page is what the old design's command printed: shuttle's verdict, the schedule that \
failed, and the manager's `tracing` events of that schedule, each with the task that emitted \
it (recorded in `models/zoo/latch/`).\n\n",
    );
    out.push_str(
        "| entry | bug | seeded bug (old design) | caught by shuttle | current design |\n",
    );
    out.push_str("|---|---|---|---|---|\n");
    for e in es {
        let _ = writeln!(
            out,
            "| [{}](#{}) | {} | `{}` | `{}`: {} | passes |",
            e.id,
            e.id,
            e.bug,
            e.seeded_bug,
            e.test,
            failure(e)
        );
    }
    out.push('\n');
    for (i, e) in es.iter().enumerate() {
        super::page_head(&mut out, e.id, first + i, e.title, e.bug, e.link, e.story);
        let _ = writeln!(
            out,
            "**Old design (seeded bug `{}`).** {}\n",
            e.seeded_bug, e.old_text
        );
        let _ = writeln!(out, "**How shuttle catches it.** {}\n", e.caught);
        let _ = writeln!(
            out,
            "**What shuttle reported** (`{}`):\n\n```text\n{}```\n",
            e.command_old(),
            e.trace
        );
        let _ = writeln!(out, "**The fix.** {}\n", e.fix);
        let _ = writeln!(
            out,
            "**Checked.** `{}` passes with the current design (random and PCT schedules, \
`MDL_SHUTTLE_ITERS` each, default 300).\n",
            e.command_new()
        );
    }
    out
}
