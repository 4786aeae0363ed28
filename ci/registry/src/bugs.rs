//! The registry of seeded bugs: one row of [`BUGS`] per `cfg(mdl_bug = "NAME")` in the tree.
//!
//! # Adding a seeded bug (one row)
//!
//! 1. Add a row to [`BUGS`]: `bug(NAME, LAYER, WHERE, WHAT IT BREAKS, &[HOW IT IS CAUGHT])`,
//!    the catches built with [`check`], [`loom`], [`shuttle`], [`differential`] or
//!    [`seeded_test`] (see [`Harness`] for what each one runs and expects).
//! 2. Write the bug where the row says: `#[cfg(mdl_bug = "NAME")]` or `cfg!(mdl_bug = "NAME")`.
//! 3. `cargo run -p mdl-ci -- sync` rewrites what is generated from this table: the
//!    `check-cfg` lists of `Cargo.toml` and `fuzz/Cargo.toml` and the seeded-bug tables of
//!    the docs. `cargo test -p mdl-ci` fails while any of them is stale, while a name is
//!    used in the source and not registered (or registered and used nowhere), and while a
//!    catch names a file, test or scenario that does not exist.
//!
//! A bug is selected with `MDL_BUG=NAME` (every crate's build script turns it into
//! `--cfg mdl_bug="NAME"`; [`crate::build_script`]) or `RUSTFLAGS='--cfg mdl_bug="NAME"'`.
//! A name that is not in this table fails the build, both ways; a misspelt name in the
//! source fails it too (`unexpected_cfgs` is denied and lists exactly these names).
//!
//! The CI scripts read this table through `mdl-ci bugs` (`ci/seeded-model.sh` the
//! [`Harness::Check`] catches, `ci/seeded-proofs.sh` [`Harness::Loom`] and
//! [`Harness::Shuttle`], `ci/seeded-fuzz.sh` [`Harness::Differential`],
//! `ci/seeded-tests.sh` [`Harness::SeededTest`]); each fails when a catch is missed, and
//! when it has nothing to run.

/// Where a seeded bug lives, by the design's layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// The deterministic decision code of mdl-core (lock, book, deadlock, table, dialect).
    CoreDecision,
    /// The concurrent manager (`manager/`, `sync/`).
    ConcurrentShell,
    /// The stateright model of a scenario (`models/check`).
    Model,
    /// The independent reference oracle (`models/scenario/src/oracle`).
    Oracle,
    /// The `mdl run` engines (`models/scenario/src/runner`).
    Runner,
    /// The MariaDB conformance harness (`models/conform`).
    Conformance,
    /// The fuzz targets (`fuzz/`).
    Fuzz,
}

impl Layer {
    pub const ALL: [Layer; 7] = [
        Layer::CoreDecision,
        Layer::ConcurrentShell,
        Layer::Model,
        Layer::Oracle,
        Layer::Runner,
        Layer::Conformance,
        Layer::Fuzz,
    ];

    /// The name in docs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Layer::CoreDecision => "core decision",
            Layer::ConcurrentShell => "concurrent shell",
            Layer::Model => "model",
            Layer::Oracle => "oracle",
            Layer::Runner => "runner",
            Layer::Conformance => "conformance",
            Layer::Fuzz => "fuzz",
        }
    }

    /// One word, for filters (`mdl-ci bugs --layer core`).
    pub fn slug(self) -> &'static str {
        match self {
            Layer::CoreDecision => "core",
            Layer::ConcurrentShell => "shell",
            Layer::Model => "model",
            Layer::Oracle => "oracle",
            Layer::Runner => "runner",
            Layer::Conformance => "conformance",
            Layer::Fuzz => "fuzz",
        }
    }
}

/// The harness that must catch a seeded bug, and what "caught" means for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Harness {
    /// `mdl check` on the scenario `models/mdl/tests/check_scenarios/FILE` exits 1 with the
    /// property violated, and 0 without the bug; the `#[cfg(mdl_bug = ...)]` test of
    /// `models/mdl/tests/check_model.rs` passes. Run by `ci/seeded-model.sh`.
    Check,
    /// The loom model TEST of FILE (`--cfg loom`, release) fails in a child process (a
    /// loom deadlock aborts it) and passes without the bug. Run by `ci/seeded-proofs.sh`.
    Loom,
    /// The shuttle test TEST of FILE (feature `shuttle`, release) fails and passes
    /// without the bug. Run by `ci/seeded-proofs.sh` (`MDL_SEEDED_HARNESS=shuttle|both`).
    Shuttle,
    /// The proptest `models/scenario/tests/prop_sequence.rs` and the `sequence` fuzz target
    /// both report a disagreement with the oracle, and both pass without the bug. Run by
    /// `ci/seeded-fuzz.sh`.
    Differential,
    /// The test TEST of FILE, compiled only with the bug (`#[cfg(mdl_bug = "NAME")]`),
    /// passes: it asserts that the harness reports the bug (its bug-free counterpart runs
    /// in the ordinary steps). Run by `ci/seeded-tests.sh`, with the catch's environment.
    SeededTest,
}

impl Harness {
    pub const ALL: [Harness; 5] = [
        Harness::Check,
        Harness::Loom,
        Harness::Shuttle,
        Harness::Differential,
        Harness::SeededTest,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Harness::Check => "check",
            Harness::Loom => "loom",
            Harness::Shuttle => "shuttle",
            Harness::Differential => "differential",
            Harness::SeededTest => "test",
        }
    }

    /// The CI script that runs this harness's catches.
    pub fn script(self) -> &'static str {
        match self {
            Harness::Check => "ci/seeded-model.sh",
            Harness::Loom | Harness::Shuttle => "ci/seeded-proofs.sh",
            Harness::Differential => "ci/seeded-fuzz.sh",
            Harness::SeededTest => "ci/seeded-tests.sh",
        }
    }
}

/// One way a harness catches a bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Catch {
    pub harness: Harness,
    /// `Check`: the scenario's file name under `models/mdl/tests/check_scenarios/`;
    /// `Loom`, `Shuttle`, `SeededTest`: the test file, from the repository root;
    /// `Differential`: empty.
    pub file: &'static str,
    /// `Check`: the property as `mdl check` names it; otherwise the test function
    /// (empty for `Differential`).
    pub test: &'static str,
    /// The failure the harness reports (for the docs).
    pub failure: &'static str,
    /// Environment the run needs (`VAR=value` words), e.g. `MDL_CONFORM=1`.
    pub env: &'static str,
}

impl Catch {
    /// The same catch, run with `env` (`VAR=value` words).
    pub const fn with_env(self, env: &'static str) -> Catch {
        Catch { env, ..self }
    }
}

/// A seeded bug: a realistic mistake compiled in with `cfg(mdl_bug = "NAME")`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bug {
    pub name: &'static str,
    pub layer: Layer,
    /// The file (or folder) holding its `cfg`, and the function.
    pub site: &'static str,
    /// The property it breaks (what goes wrong).
    pub breaks: &'static str,
    /// Every harness that must catch it; never empty.
    pub catches: &'static [Catch],
}

pub const fn bug(
    name: &'static str,
    layer: Layer,
    site: &'static str,
    breaks: &'static str,
    catches: &'static [Catch],
) -> Bug {
    Bug {
        name,
        layer,
        site,
        breaks,
        catches,
    }
}

const fn catch(
    harness: Harness,
    file: &'static str,
    test: &'static str,
    failure: &'static str,
) -> Catch {
    Catch {
        harness,
        file,
        test,
        failure,
        env: "",
    }
}

/// `mdl check SCENARIO` reports PROPERTY violated ([`Harness::Check`]).
pub const fn check(scenario: &'static str, property: &'static str) -> Catch {
    catch(Harness::Check, scenario, property, "")
}

/// The loom model TEST of `proofs/tests/loom.rs` fails with FAILURE ([`Harness::Loom`]).
pub const fn loom(test: &'static str, failure: &'static str) -> Catch {
    catch(Harness::Loom, "proofs/tests/loom.rs", test, failure)
}

/// The shuttle test TEST of FILE fails with FAILURE ([`Harness::Shuttle`]).
pub const fn shuttle(file: &'static str, test: &'static str, failure: &'static str) -> Catch {
    catch(Harness::Shuttle, file, test, failure)
}

/// proptest and the `sequence` fuzz target see FAILURE ([`Harness::Differential`]).
pub const fn differential(failure: &'static str) -> Catch {
    catch(Harness::Differential, "", "", failure)
}

/// The cfg'd test TEST of FILE passes: it sees FAILURE ([`Harness::SeededTest`]).
pub const fn seeded_test(file: &'static str, test: &'static str, failure: &'static str) -> Catch {
    catch(Harness::SeededTest, file, test, failure)
}

use Layer::*;

const SHUTTLE: &str = "proofs/tests/shuttle.rs";
const SMOKE: &str = "mdl-core/tests/manager_shuttle.rs";
const LATCH: &str = "proofs/tests/latch.rs";

/// Every seeded bug. One row each; keep the rows grouped by layer.
#[rustfmt::skip]
pub const BUGS: &[Bug] = &[
    bug("soft_reorder_outside_cycle", CoreDecision, "mdl-core/src/decide/step.rs (Lock::reorder)", "soft-edge resolution stays on the cycle: every other waiter that yields to the passed request is moved ahead of it too", &[check("soft_outside_cycle.mdl", "reorderings stay on the cycle")]),
    bug("soft_reorder_unbounded", CoreDecision, "mdl-core/src/decide/step.rs (Lock::reorder)", "soft-edge resolution starves nobody: a waiter is passed over by reorderings with no limit (max_write_lock_count ignored)", &[check("soft_unbounded.mdl", "reorderings pass a waiter at most max_write_lock_count times")]),
    bug("grant_ignores_conflict", CoreDecision, "mdl-core/src/decide/lock.rs (LockState::can_grant)", "no conflicting grants: an SR request ignores granted conflicts (SR and X held together)", &[check("two_readers_wake.mdl", "no conflicting grants")]),
    bug("skip_second_waiter", CoreDecision, "mdl-core/src/decide/lock.rs (bug_skip_grant, in reschedule)", "no lost wakeup: a reschedule never grants the second waiter of the queue in one pass", &[check("lost_wakeup.mdl", "no lost wakeup")]),
    bug("fifo", CoreDecision, "mdl-core/src/decide/lock.rs (LockState::reschedule)", "FIFO among equal priorities: the queue is served from the back", &[differential("events differ from the oracle's")]),
    bug("pending_cell", CoreDecision, "mdl-core/src/decide/dialect/parse.rs (read_matrices)", "the pending matrix: object matrix 0, row SR, column X flipped, so SR overtakes a waiting X", &[differential("outcome differs from the oracle's")]),
    bug("no_deadlock_detection", CoreDecision, "mdl-core/src/decide/deadlock.rs (detect)", "deadlock detection: the detector never finds a cycle", &[check("deadlock_plain.mdl", "no stuck state")]),
    bug("false_deadlock", CoreDecision, "mdl-core/src/decide/deadlock.rs (find_cycle)", "no false deadlock: a wait chain of two is taken for a cycle", &[check("chain.mdl", "no false deadlock")]),
    bug("blockers_in_owner_order", CoreDecision, "mdl-core/src/decide/step.rs (Lock::wait_for)", "the deadlock search's successor order is the servers' granted list (MDL_lock::visit_subgraph), fast-path grants placed when their owner materialises them: blockers are visited in owner order instead, so in mysql-8.0 a wait that closes two cycles finds the other one and gets an extra victim", &[seeded_test("models/scenario/tests/run_scenarios.rs", "seeded_blockers_in_owner_order_is_caught", "fast-path-search-order.mdl: `expect p waiting` fails on both engines (p is aborted too)")]),
    bug("heaviest_victim", CoreDecision, "mdl-core/src/decide/deadlock.rs (choose_victim)", "the victim rule: the heaviest waiter on the cycle is chosen", &[check("victim_dml.mdl", "assert never s2 deadlock")]),
    bug("hog_count_off", CoreDecision, "mdl-core/src/decide/lock.rs (LockState::count_piglets_and_hogs)", "bounded waiting: hog grants are not counted, so max_write_lock_count never lets a waiting SR reader in ahead of a stream of SNRW", &[check("starve_hogs.mdl", "assert bounded reader 1")]),
    bug("no_pending_priority", CoreDecision, "mdl-core/src/decide/lock.rs (LockState::can_grant)", "starvation freedom: the pending matrices are ignored (as before MySQL's fix of #54673), so DML keeps passing a waiting FTWRL", &[check("starve_ftwrl.mdl", "assert eventually ftwrl granted")]),
    bug("conflicts_either_way", CoreDecision, "mdl-core/src/decide/dialect.rs (Strategy::conflicts)", "the grant-order rule of the invariant checks: the granted matrix is read both ways, so a legal state on MariaDB's asymmetric BACKUP matrix (BACKUP_FLUSH granted beside a BACKUP_DML) is reported as conflicting grants", &[loom("backup_dml_vs_flush", "check_invariants: conflicting grants (mariadb)"), shuttle(SHUTTLE, "random_mix_of_commands", "invariant: conflicting grants (mariadb)")]),
    bug("lost_wakeup", ConcurrentShell, "mdl-core/src/manager/ (grant of a waiter)", "no lost wakeup: a grant sets the waiter's status but does not notify it", &[loom("release_vs_new_waiter", "loom deadlock (the process aborts)"), shuttle(SHUTTLE, "timeout_or_kill_wakes_the_queue", "shuttle deadlock"), shuttle(SMOKE, "pending_waiters_are_all_woken", "shuttle deadlock")]),
    bug("no_reschedule_on_timeout", ConcurrentShell, "mdl-core/src/manager/ (end of a wait)", "no lost wakeup: a waiter that timed out, was killed or chosen as victim leaves without rescheduling the lock", &[loom("timeout_wakes_queue", "lost-wakeup invariant"), shuttle(SHUTTLE, "timeout_or_kill_wakes_the_queue", "shuttle deadlock"), shuttle(SMOKE, "kill_wakes_those_it_held_back", "shuttle deadlock")]),
    bug("no_materialize", ConcurrentShell, "mdl-core/src/manager/ (obtrusive acquire)", "no conflicting grants: an obtrusive request sets SLOW but leaves the fast-path grants out of the lock state", &[loom("fast_path_vs_obtrusive", "X granted beside a fast SR"), shuttle(SHUTTLE, "random_mix_of_commands", "invariant: conflicting grants"), shuttle(SMOKE, "fast_path_never_overlaps_x", "X granted beside a fast SR")]),
    bug("used_not_set", ConcurrentShell, "mdl-core/src/manager/ (fast-path grant)", "no conflicting grants: a fast-path grant is not counted in the lock's fast-path count, so the next obtrusive request that finds it at zero skips the materialisation", &[loom("fast_path_vs_obtrusive", "X granted beside a fast SR"), shuttle(SHUTTLE, "random_mix_of_commands", "invariant: conflicting grants"), shuttle(SMOKE, "fast_path_never_overlaps_x", "X granted beside a fast SR")]),
    bug("count_not_decremented", ConcurrentShell, "mdl-core/src/manager/fast.rs (uncount_fast)", "the lock's count of fast-path grants equals the grants in the pins: a grant that leaves its pin (released or materialised) is not taken off, so every later DDL visits every context", &[loom("fast_path_vs_obtrusive", "invariant: the count of fast-path grants"), shuttle(SHUTTLE, "random_mix_of_commands", "invariant: the count of fast-path grants")]),
    bug("spin_check_then_set", ConcurrentShell, "mdl-core/src/sync/spin.rs (SpinLock::lock)", "mutual exclusion of the spin lock: test, then set, as two steps", &[loom("fast_path_vs_obtrusive", "loom: concurrent access to the spin lock's cell")]),
    bug("reclaim_early", ConcurrentShell, "mdl-core/src/manager/ (reclamation sweep)", "one lock object per key: the sweep removes an entry while fast grants or references remain", &[loom("reclaim_vs_acquire", "X granted on a second lock object"), shuttle(SHUTTLE, "random_mix_of_commands", "invariant: fast entry off the map"), shuttle(SMOKE, "reclamation_spares_fast_grants", "X granted beside a fast SR")]),
    bug("two_victims", ConcurrentShell, "mdl-core/src/manager/ (deadlock detection)", "one victim per cycle: the detector aborts the victim and the requester", &[loom("two_waiters_close_a_cycle", "two Deadlock outcomes"), shuttle(SHUTTLE, "cycle_has_one_victim", "two Deadlock outcomes"), shuttle(SMOKE, "lock_tables_deadlock", "both sessions get Deadlock")]),
    bug("grant_after_timeout", ConcurrentShell, "mdl-core/src/manager/ (grant racing a timeout)", "no leaked grant: a grant that lost the race against a timeout or kill is still moved to the granted list", &[loom("timeout_vs_grant", "leaked grant"), shuttle(SHUTTLE, "random_mix_of_commands", "locks left at the end"), shuttle(SMOKE, "timeout_races_grant", "leaked grant")]),
    bug("detector_nested_read", ConcurrentShell, "mdl-core/src/manager/detect.rs (LiveGraph::successors), mdl-core/src/sync/latch.rs", "no deadlock on the latches (MySQL bug #56405): the lock state's latch is a writer-preferring rwlock and the deadlock search holds it for read while it goes on, so a search that meets a lock again read-locks it again behind a writer that queued in between", &[shuttle(LATCH, "search_meets_a_lock_twice_while_it_is_released", "shuttle deadlock (every thread blocked)")]),
    bug("detector_trusts_waiting_for", ConcurrentShell, "mdl-core/src/manager/detect.rs (LiveGraph, validate_and_abort)", "no deadlock error without a real cycle (MDL_lock::visit_subgraph's status check): the search trusts a waiter's waiting_for without checking its wait slot's status, so a waiter granted but not yet awake closes a false cycle", &[shuttle(LATCH, "granted_waiter_not_yet_awake_is_no_edge", "a Deadlock outcome without a cycle")]),
    bug("reentrant_request_queued", ConcurrentShell, "mdl-core/src/manager/context.rs (Context::begin_planned)", "a request covered by what the context holds is granted at once (MDL_context::try_acquire_lock_impl, find_ticket / clone_ticket; THR_LOCK's has_old_lock): it goes to the lock instead and queues behind a pending writer that waits for the context", &[shuttle(LATCH, "held_lock_asked_again_behind_a_pending_writer", "the holder's second request is not granted at once (Deadlock)")]),
    bug("async_waker_after_check", ConcurrentShell, "mdl-core/src/manager/wait.rs (CtxShared::poll_status)", "no lost wakeup, async: a future registers its waker in a second hold of the wait slot, after it found no status, so a grant in between wakes nobody", &[loom("async_grant_wakes_waiter", "loom deadlock (the process aborts)")]),
    bug("fold_ignores_uses", ConcurrentShell, "mdl-core/src/manager/fold.rs (Pins::take_unheld)", "a big round's acquires plan by the pins (a key whose pin has no use is not held): the use count is not asked, so a lock held is asked for again and granted a second ticket instead of reused (MDL_context::find_ticket)", &[seeded_test("mdl-core/tests/manager_diff.rs", "seeded_fold_ignores_uses_is_caught", "session N holds different tickets")]),
    bug("async_no_timer", ConcurrentShell, "mdl-core/src/manager/wait_async.rs (WaitFuture::schedule_timeout)", "async waits time out on their own with the system clock: no timer is scheduled, so a waiting future nobody polls again never times out", &[seeded_test("mdl-core/tests/manager_async.rs", "seeded_async_no_timer_is_caught", "the wait did not time out on its own")]),
    bug("por_release_independent", Model, "models/check/src/model/por.rs (Por::footprint)", "partial-order reduction: a commit's released keys are left out of its footprint, so a dependent pair is taken for independent", &[seeded_test("models/mdl/tests/reduction_verdicts.rs", "the_comparison_catches_the_seeded_reduction_bug", "verdicts with and without the reduction differ")]),
    bug("quiet_ignores_future", Model, "models/check/src/model/quiet.rs (Quiet::keys)", "keys quiet from a state on: the sessions' remaining requests are left out, so a key two sessions will ask for in conflicting types looks quiet and their requests are taken for independent", &[seeded_test("models/mdl/tests/reduction_verdicts.rs", "the_comparison_catches_the_seeded_quiet_bug", "verdicts with and without keys quiet from a state on differ")]),
    bug("search_drops_state", Model, "models/check/src/model/search.rs (Search::run)", "the search engine: every 7th new state is marked seen but never expanded", &[seeded_test("models/mdl/tests/engines_agree.rs", "the_comparison_catches_a_dropped_state", "the engines' unique state counts differ")]),
    bug("cycle_ignores_pending", Model, "models/check/src/model/cycle.rs (pending_cycle)", "the checker's cycle search (liveness, `assert eventually`): every state counts as pending, so any cycle is taken for a starving run", &[seeded_test("models/mdl/tests/zoo.rs", "seeded_cycle_ignores_pending_is_caught", "the fixed snrw-starves-readers design fails `assert eventually`")]),
    bug("oracle_imports_decision", Oracle, "models/scenario/src/oracle/brute.rs (imports)", "the oracle is independent of the code it checks: its cycle search imports the core's (mdl_core::deadlock::find_cycle)", &[seeded_test("models/scenario/tests/oracle_independent.rs", "seeded_oracle_imports_decision_is_caught", "the independence check reports deadlock::find_cycle at src/oracle/brute.rs")]),
    bug("run_report_early", Runner, "models/scenario/src/runner/ (tasks.rs and threads.rs, step)", "`mdl run`'s manager engines (tasks and threads) report a step before the system is quiet: every step looks waiting", &[seeded_test("models/scenario/tests/run_scenarios.rs", "seeded_run_report_early_is_caught", "the engines' transcripts differ on every bundled scenario, on both manager engines")]),
    bug("sql_quiet_any_step", Model, "models/sql/src/model/quiet.rs (SqlModel::private_step)", "the SQL check's reduction takes any statement of a session that does not wait for a private step, alone, so orders in which another session's statement comes first are never explored", &[seeded_test("models/check/tests/sql_reduction.rs", "the_comparison_catches_the_seeded_sql_quiet_bug", "verdicts with and without the SQL reduction differ")]),
    bug("sql_por_no_statement_keys", Model, "models/check/src/sql/key_por.rs (KeyPor::step_footprint)", "the SQL check's lock-key reduction leaves a statement's BACKUP types (its statement-duration protection request, MDL_BACKUP_DML and its kind) out of the step's keys, so a DML statement is taken alone beside a session that will run FLUSH TABLES WITH READ LOCK", &[seeded_test("models/check/tests/sql_reduction.rs", "the_comparison_catches_the_seeded_sql_por_bug", "verdicts with and without the SQL reduction differ on the DML-against-FTWRL file")]),
    bug("sql_symmetry_ignores_asserts", Model, "models/check/src/sql/symmetry.rs (classes)", "the SQL check's symmetry takes sessions an assert names for interchangeable, so a state in which the named session did what the assert watches is named by one in which its twin did, and never explored", &[seeded_test("models/check/tests/sql_reduction.rs", "the_comparison_catches_the_seeded_sql_symmetry_bug", "verdicts with and without SQL symmetry differ")]),
    bug("sql_ignore_woken", Model, "models/check/src/sql/mod.rs (SqlCheck::take_events)", "the SQL check drops the outcomes of statements a step finished in other sessions (a woken session still looks waiting)", &[seeded_test("models/check/tests/sql_check.rs", "seeded_sql_ignore_woken_is_caught", "the written order disagrees with the outcomes the server gave")]),
    bug("sql_ftwrl_one_lock", Conformance, "models/sql/src/model/dialect.rs (SqlModel::release_ftwrl_rest)", "UNLOCK TABLES gives back only the last of FTWRL's locks (MySQL 8.0's GLOBAL S stays after COMMIT S goes)", &[seeded_test("models/check/tests/sql_mysql8.rs", "seeded_sql_ftwrl_one_lock_is_caught", "a session holds GLOBAL S after UNLOCK TABLES")]),
    bug("conform_ignore_upgrades", Conformance, "models/sql/src/model/run.rs (SQL model, upgrades)", "the SQL model skips learned upgrades (LOCK TABLES ... WRITE after READ)", &[seeded_test("models/conform/tests/conform_matrix.rs", "seeded_bug_conform_ignore_upgrades_is_caught", "unexplained statement-matrix differences")]),
    bug("conform_skip_backoff", Conformance, "models/sql/src/model/run.rs (SQL model, back-off)", "the SQL model takes BACKUP_DDL's back-off lock as a plain acquire", &[seeded_test("models/conform/tests/conform_server.rs", "seeded_bug_conform_skip_backoff_is_caught", "a SQL scenario differs from the server").with_env("MDL_CONFORM=1")]),
    bug("conform_no_session_rules", Conformance, "models/sql/src/model/plan.rs (SqlModel::run_plan, session rules)", "the SQL model ignores the learned session rules (what a session may not run under its own LOCK TABLES / FTWRL / BACKUP STAGE)", &[seeded_test("models/conform/tests/conform_server.rs", "seeded_bug_conform_no_session_rules_is_caught", "a SQL scenario differs from the server").with_env("MDL_CONFORM=1")]),
    bug("conform_no_ha_flush", Conformance, "models/sql/src/model/handlers.rs (SqlModel::ha_flush)", "statements no longer close the session's HANDLERs another session waits for (mysql_ha_flush)", &[seeded_test("models/conform/tests/conform_server.rs", "seeded_bug_conform_no_ha_flush_is_caught", "a SQL scenario differs from the server").with_env("MDL_CONFORM=1")]),
    bug("conform_user_lock_rows", Conformance, "models/sql/src/model/user_locks.rs (RELEASE_ALL_LOCKS)", "RELEASE_ALL_LOCKS of a SELECT of several user-lock functions gives the number of the session's lock names, not the sum of their counts", &[seeded_test("models/conform/tests/conform_server.rs", "seeded_bug_conform_user_lock_rows_is_caught", "a user-lock SELECT's row differs from the server's").with_env("MDL_CONFORM=1")]),
    bug("conform_no_syntax_rules", Conformance, "models/sql/src/model.rs (SqlModel::step, syntax errors)", "the SQL model plays statements MariaDB's parser rejects as if they were valid (the rules of classify/syntax.rs are skipped)", &[seeded_test("models/conform/tests/conform_syntax_errors.rs", "seeded_bug_conform_no_syntax_rules_is_caught", "syntax errors of the server's test suite are played ok with locks")]),
    bug("conform_skip_implicit_commit", Conformance, "models/sql/src/model/plan.rs (SqlModel::run_plan, implicit commit)", "DDL and LOCK TABLES no longer commit the session's open transaction first", &[seeded_test("models/conform/tests/conform_random.rs", "seeded_bug_conform_skip_implicit_commit_is_caught", "a random SQL scenario differs from the server").with_env("MDL_CONFORM=1")]),
    bug("conform_rerun_excuses_all", Conformance, "models/conform/src/random.rs (agrees_on_rerun)", "mdl conform --random counts a difference as a race on the server without a rerun agreeing", &[seeded_test("models/conform/tests/conform_random.rs", "seeded_bug_conform_rerun_excuses_all_is_caught", "a deterministic difference (an InnoDB row lock) is excused as a race").with_env("MDL_CONFORM=1")]),
    bug("conform_end_marker", Conformance, "models/conform/src/client.rs (run)", "the protocol client sends a statement of its own after every statement (the old harness's end marker, SELECT 'MDLDONE')", &[seeded_test("models/conform/tests/conform_client.rs", "seeded_bug_conform_end_marker_is_caught", "the marker closes the HANDLER ROLLBACK TO SAVEPOINT left open").with_env("MDL_CONFORM=1")]),
    bug("conform_nextval_reads", Conformance, "models/sql/src/classify/sequence.rs (calls)", "NEXTVAL is played as LASTVAL: SR on the sequence where the server takes SW (LEX::create_item_func_nextval)", &[seeded_test("models/sql/tests/sql_sequences.rs", "seeded_bug_conform_nextval_reads_is_caught", "NEXTVAL holds SR, and ALTER SEQUENCE waits for it as for a write")]),
    bug("sql_sequence_insert_sw", Conformance, "models/sql/src/classify/sequence_write.rs (insert_rows)", "an INSERT into a sequence keeps its SW where ha_sequence::write_row upgrades it to X", &[seeded_test("models/sql/tests/sql_sequences.rs", "seeded_bug_sql_sequence_insert_sw_is_caught", "the INSERT's transaction holds SW on the sequence, not X")]),
    bug("sql_immediate_no_prepare", Conformance, "models/sql/src/model/prepare_open.rs (immediate_prefix)", "EXECUTE IMMEDIATE plays its statement alone, without the prepare's moment of S on its tables (Prepared_statement::execute_immediate prepares first)", &[seeded_test("models/sql/tests/sql_dynamic.rs", "seeded_bug_sql_immediate_no_prepare_is_caught", "the EXECUTE IMMEDIATE behind a pending X waits for SW, not S")]),
    bug("sql_sequence_columns_unchecked", Conformance, "models/sql/src/classify/sequence_table.rs (sequence_plan)", "CREATE TABLE ... SEQUENCE=1 makes a sequence of any column list where check_sequence_fields fails it with ER_SEQUENCE_INVALID_TABLE_STRUCTURE", &[seeded_test("models/sql/tests/sql_sequences.rs", "seeded_bug_sql_sequence_columns_unchecked_is_caught", "CREATE TABLE s9 (a INT) SEQUENCE=1 succeeds")]),
    bug("conform_alter_if_exists_ignored", Conformance, "models/sql/src/alter_columns.rs (if_honoured)", "ALTER TABLE's IF [NOT] EXISTS no longer drops an operation whose column or key is absent (present): handle_if_exists_options", &[seeded_test("models/sql/tests/sql_alter_columns.rs", "seeded_bug_conform_alter_if_exists_ignored_is_caught", "the measured no-op ALTERs become errors")]),
    bug("conform_no_prelocking", Conformance, "models/sql/src/classify/routine_prelock.rs (body_parts)", "a statement calling a stored function, or firing a trigger, no longer prelocks the tables the body uses (DML_prelocking_strategy::handle_routine / handle_table)", &[seeded_test("models/sql/tests/sql_routines.rs", "seeded_bug_conform_no_prelocking_is_caught", "a LOCK TABLES WRITE of a table the caller's function body writes is granted at once")]),
    bug("conform_call_first_instruction_only", Conformance, "models/sql/src/model/call.rs (SqlModel::call_next)", "a CALL of a multi-statement procedure runs only its body's first instruction (sp_head::execute runs them all, each with its own locks)", &[seeded_test("models/sql/tests/sql_call.rs", "seeded_bug_conform_call_first_instruction_only_is_caught", "the transaction holds the first instruction's table only, and the ALTER of the second's is granted at once")]),
    bug("conform_call_branch_inverted", Conformance, "models/sql/src/model/call_flow.rs (SqlModel::flow_one)", "a CALL's IF / WHILE / REPEAT conditions take the other way (sp_instr_jump_if_not::exec_core jumps when the condition is not true)", &[seeded_test("models/sql/tests/sql_call_flow.rs", "seeded_bug_conform_call_branch_inverted_is_caught", "the IF's branch that locks t2 is not taken: an ALTER of t2 is granted at once, one of t1 waits")]),
    bug("conform_blocked_by_time", Conformance, "models/conform/src/learn/settle.rs (settle_all)", "the harness counts a statement blocked outside MDL by time alone, without the server showing a wait", &[seeded_test("models/conform/tests/conform_settle.rs", "seeded_bug_conform_blocked_by_time_is_caught", "a statement that only runs long (SELECT SLEEP) counts as blocked").with_env("MDL_CONFORM=1")]),
];

/// The bug called `name`.
pub fn find(name: &str) -> Option<&'static Bug> {
    BUGS.iter().find(|b| b.name == name)
}
