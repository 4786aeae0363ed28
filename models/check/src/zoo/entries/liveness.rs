//! A liveness entry: a stream of LOCK TABLES WRITE starves a waiting reader (the hog
//! counter and `max_write_lock_count`), checked with `assert bounded` and `assert
//! eventually` on programs that run for ever.

use super::{tbl, Entry};
use crate::zoo::engine::*;
use mdl_core::dialect::Dialect;
use mdl_core::table::Config;
use mdl_core::types::{Duration, LockType};

use Duration::{Explicit as EXPL, Statement as STMT};

/// The #13058122 design with `max_write_lock_count` = `limit`.
pub fn snrw_stream(limit: u64) -> Design {
    let d = Dialect::mysql80();
    let t = tbl(&d, "t");
    let writer = |name| {
        let mut p = Program::new(
            name,
            vec![
                (
                    Op::Acq(t.clone(), LockType::SNRW, EXPL),
                    "LOCK TABLES t WRITE",
                ),
                (Op::Unlock, "UNLOCK TABLES"),
            ],
        );
        p.rounds = 0;
        p
    };
    let mut m = Design::new(
        d,
        vec![
            writer("w1"),
            writer("w2"),
            Program::new(
                "reader",
                vec![
                    (Op::Acq(t.clone(), LockType::SR, STMT), "SELECT * FROM t"),
                    (Op::EndStmt, "end of SELECT"),
                ],
            ),
        ],
    );
    m.config = Config {
        max_write_lock_count: limit,
    };
    m.watch = Some((2, t));
    m.starve_bound = 1;
    m.checks = vec![
        Check::Bounded,
        Check::Eventually,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::GrantedAfterPassedOver,
    ];
    m
}

/// MySQL bug #13058122: a stream of SNRW starves readers.
pub fn snrw_starves_readers() -> Entry {
    Entry {
        id: "snrw-starves-readers",
        title: "A stream of LOCK TABLES WRITE starves a waiting reader",
        bug: "MySQL bug #13058122",
        link: "",
        story: "Two connections run `LOCK TABLES t WRITE; UNLOCK TABLES` in a loop (MDL \
`SNRW`, one of the \"hog\" types `SNW`, `SNRW`, `X`). A `SELECT` waits for `SR`. A pending \
`SNRW` has priority over a pending `SR` (the pending matrix), so whenever one writer \
unlocks, the other writer's waiting request is granted before the reader's, for ever. \
MySQL's fix counts the hog grants made while lower-priority requests wait \
(`m_hog_lock_count`) and, once `max_write_lock_count` is reached, switches to a pending \
matrix in which those requests no longer yield (`MDL_lock::reschedule_waiters`: \"If \
number of successively granted high-prio, strong locks has exceeded max_write_lock_count \
give a way to low-prio, weak locks to avoid their starvation\"). The default \
`max_write_lock_count` is unlimited, which is the old behaviour; the fix takes effect with \
a finite setting (here 1). Read: `reschedule_waiters` in MySQL 5.5.62's `sql/mdl.cc`, \
`MDL_OBJECT_HOG_LOCK_TYPES` in 5.7's (\"Locks of these types can easily starve out lower \
priority locks. To prevent this we only grant them max_write_lock_count times in a row \
while other lock types are waiting\"), the tests `HogLockTest1`/`HogLockTest2` in 5.7's \
`unittest/gunit/mdl-t.cc`, and the manual's \"Metadata Locking\" page on the \
`max_write_lock_count` exception. The bug number is the one the project's issue gives; \
the bug's own page (Oracle's internal tracker) was not read.",
        old_text: "The real lock table with `max_write_lock_count` unlimited (the MDL of \
before the fix had no hog counter; the limit then only affected THR_LOCK). The writers' \
programs loop for ever (the model's states are compared up to the renaming of ticket ids, \
so the loops close). The two properties, as `mdl check` names them: `assert bounded \
reader 1`: in every reachable state, at most 1 request of another session on `t` has been \
granted since the reader's request started to wait; `assert eventually reader granted`: \
no reachable cycle of states along which the reader waits throughout (the writers loop, \
so such a cycle is a run in which they go on for ever and the reader never gets its \
lock). A counterexample to the second is a lasso: a run, then a loop.",
        fix: "The real lock table with `max_write_lock_count = 1`: after one hog grant \
while the reader waits, the pending matrix switches and the reader is granted next. Both \
`assert bounded` (N = 1) and `assert eventually` hold.",
        old: snrw_stream(u64::MAX),
        new: snrw_stream(1),
        variants: Vec::new(),
    }
}
