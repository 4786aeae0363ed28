//! The harness's own findings in the servers (models/FINDINGS.md): the server's design as
//! the old one, a small patch as the new one.

use super::{tbl, Entry};
use crate::zoo::engine::*;
use mdl_core::dialect::{Dialect, Starvation};
use mdl_core::table::Config;
use mdl_core::types::{Duration, LockType};

use Duration::{Explicit as EXPL, Statement as STMT, Transaction as TXN};

/// Finding 1: MariaDB's skipped hog, as `models/conformance/skipped-hog-stall.mdl` plays
/// it; `repass` turns on the patch (`Starvation::MariadbRepass`).
pub fn skipped_hog_design(repass: bool) -> Design {
    let mut d = Dialect::mariadb();
    if repass {
        d.starvation = Starvation::MariadbRepass;
    }
    let t = tbl(&d, "t1");
    let prog = |name, ty, dur, what, end: Op, end_what| {
        Program::new(
            name,
            vec![(Op::Acq(t.clone(), ty, dur), what), (end, end_what)],
        )
    };
    let mut m = Design::new(
        d.clone(),
        vec![
            prog(
                "s0",
                LockType::SNRW,
                EXPL,
                "LOCK TABLES t1 WRITE",
                Op::Unlock,
                "UNLOCK TABLES",
            ),
            prog(
                "s4",
                LockType::SNRW,
                EXPL,
                "LOCK TABLES t1 WRITE",
                Op::Unlock,
                "UNLOCK TABLES",
            ),
            prog(
                "s2",
                LockType::SNW,
                EXPL,
                "FLUSH TABLES t1 WITH READ LOCK",
                Op::Unlock,
                "UNLOCK TABLES",
            ),
            prog(
                "s1",
                LockType::SR,
                TXN,
                "BEGIN; SELECT * FROM t1",
                Op::Commit,
                "COMMIT",
            ),
        ],
    );
    m.config = Config {
        max_write_lock_count: 1,
    };
    m.checks = vec![
        Check::NoLostWakeup,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
    ];
    m
}

/// Finding 1 (models/FINDINGS.md): MariaDB's `reschedule_waiters` leaves a compatible
/// hog waiting.
pub fn mariadb_skipped_hog() -> Entry {
    Entry {
        id: "mariadb-skipped-hog",
        title: "MariaDB: a waiting SNW compatible with every granted lock stays waiting",
        bug: "this project's finding 1 (models/FINDINGS.md), MariaDB 10.11",
        link: "",
        story: "Found by the harness and confirmed on MariaDB 10.11.19 \
(`models/conformance/skipped-hog-stall.mdl`, `server_option max_write_lock_count 1`). \
`MDL_lock::reschedule_waiters` (sql/mdl.cc) decides `skip_high_priority` once, before its \
loop (`m_hog_lock_count >= max_write_lock_count` with a non-hog waiting), skips every \
waiting hog (`SNW`, `SNRW`, `X`) in that pass, and at its end resets the count when no \
non-hog is left waiting, with no second pass. `s0` holds `LOCK TABLES t1 WRITE`; `s4` \
(`LOCK TABLES t1 WRITE`), `s2` (`FLUSH TABLES t1 WITH READ LOCK`, `SNW`) and `s1` (`SELECT` \
in a transaction, `SR`) wait in that order. `s0`'s unlock grants `s4` (count 1); `s4`'s \
unlock skips `s2`, grants `s1`, and resets the count: `s2`'s `SNW`, compatible with the \
granted `SR`, waits until `s1` commits. The same decision taken once also keeps an `SR` \
behind a pending hog after a hog granted in the pass reached the limit (the shortest trace \
below).",
        old_text: "The real lock table in the `mariadb` dialect with \
`max_write_lock_count = 1` (the server's `reschedule_waiters`). Property: no request is \
left waiting while the lock's own rule (as its next reschedule would apply it) grants it.",
        fix: "The same, with `reschedule_waiters` passing again whenever a pass changed \
its own `skip_high_priority` decision (`starvation mariadb-repass`, \
`LockState::reschedule`): after the reset the skipped hogs are looked at again, and after a \
hog reaches the limit the non-hogs are. Each extra pass follows a grant, so it ends.",
        old: skipped_hog_design(false),
        new: skipped_hog_design(true),
        variants: Vec::new(),
    }
}

/// Finding 2: MySQL 8.0's matrix switch closes a cycle no search sees; `search` turns on
/// the patch ([`Design::search_on_switch`]).
pub fn switch_cycle_design(search: bool) -> Design {
    let d = Dialect::mysql80();
    let t = tbl(&d, "t1");
    let mut m = Design::new(
        d.clone(),
        vec![
            Program::new(
                "c",
                vec![
                    (
                        Op::Acq(t.clone(), LockType::SU, STMT),
                        "ALTER TABLE t1 ... ALGORITHM=COPY: SU",
                    ),
                    (Op::Upg(t.clone(), LockType::SNW), "its copy phase: SNW"),
                    (Op::EndStmt, "end of ALTER (an error before its X)"),
                ],
            ),
            Program::new(
                "a",
                vec![
                    (
                        Op::Acq(t.clone(), LockType::SRO, EXPL),
                        "LOCK TABLES t1 READ: SRO",
                    ),
                    (
                        Op::Upg(t.clone(), LockType::SNRW),
                        "an upgrade to SNRW (its statement under LOCK TABLES)",
                    ),
                    (Op::Unlock, "UNLOCK TABLES"),
                ],
            ),
            Program::new(
                "b",
                vec![
                    (Op::Acq(t.clone(), LockType::SW, TXN), "INSERT INTO t1: SW"),
                    (Op::Commit, "COMMIT"),
                ],
            ),
        ],
    );
    m.config = Config {
        max_write_lock_count: 1,
    };
    m.search_on_switch = search;
    m.checks = vec![
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
    ];
    if search {
        m.checks.push(Check::DeadlockReported);
    }
    m
}

/// Finding 2 (models/FINDINGS.md): a switch of pending matrix closes a wait-for cycle.
pub fn mysql_switch_cycle() -> Entry {
    Entry {
        id: "mysql-switch-cycle",
        title: "MySQL 8.0: a switch of pending matrix closes a wait-for cycle no search sees",
        bug: "this project's finding 2 (models/FINDINGS.md), MySQL 8.0",
        link: "",
        story: "Found by the harness (shuttle, `random_mix_of_commands` with \
`max_write_lock_count` 1; proofs/README.md), minimised by `mdl check`. In MySQL 8.0 a \
granted hog counts toward `max_write_lock_count` while a non-hog waits \
(`MDL_lock::count_piglets_and_hogs`, called from `try_acquire_lock_impl` for a lock granted \
at once); at the limit the lock switches to the pending matrix in which hogs yield \
(`switch_incompatible_waiting_types_bitmap_if_needed`, `m_current_waiting_incompatible_idx`). \
`c` holds `SU`, `a` holds `SRO` and waits to upgrade to `SNRW` (blocked by `c`'s `SU`), `b` \
waits for `SW` (blocked by `a`'s `SRO`). `c`'s upgrade to `SNW` is granted at once and \
switches the matrix: `a`'s pending `SNRW` now also yields to `b`'s pending `SW`. `a` waits \
for `b`, `b` for `a`: a cycle made by the switch, not by a new wait, so no deadlock search \
runs (`MDL_context::acquire_lock` searches only when a wait begins); it lasts until \
`lock_wait_timeout`.",
        old_text: "The real lock table in the `mysql-8.0` dialect with \
`max_write_lock_count = 1`: the detector searches when a wait begins, as the server's.",
        fix: "The same, plus a deadlock search from each waiter of a lock whose pending \
matrix switched, in queue order, after the step that switched it (`LockTable::search_from`; \
in the server: in `count_piglets_and_hogs`'s caller, when \
`switch_incompatible_waiting_types_bitmap_if_needed` changed the index, wake the waiters to \
search again, or search from them). `b` (DML, the lighter) is the victim at once.",
        old: switch_cycle_design(false),
        new: switch_cycle_design(true),
        variants: Vec::new(),
    }
}
