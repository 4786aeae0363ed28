//! The first obtrusive request on a lock that many connections have used on the fast
//! path (issue 18, item 2): one DDL (`X`, no wait) against a table on which `n`
//! contexts took `SR` on the fast path, for n = 10 .. 10,000, in two states:
//!
//! - `released`: every context has committed (each keeps its idle pin of the lock, as a
//!   connection that keeps reading the table does); the DDL is granted, then commits.
//! - `held`: every context still holds its `SR`; the DDL is refused (`Busy`). The
//!   contexts then commit, outside the clock.
//!
//! The naive manager's DDL on the same table after the same `n` readers is the
//! baseline (it never depends on `n`). Only the DDL's acquire (+ its commit) is timed;
//! the `n` readers' rounds run outside the clock. Before each DDL, whatever `n`, a walk
//! over `EVICT` bytes pushes the caches' contents out (outside the clock): otherwise
//! the ten readers of n = 10 leave the DDL's own lines in L1 and the ten thousand of
//! n = 10,000 do not, and the figure would compare cache residency, not work.

use crate::baselines::{Mode, Naive};
use crate::timing::{self, Case, Plan};
use crate::{new_manager, table_key};
use mdl_core::{Context, Dialect, Duration, LockType, Outcome, WaitOption};
use std::hint::black_box;
use std::time::Instant;

/// Bytes walked before each timed DDL (more than this machine's L3).
const EVICT: usize = 64 << 20;

/// Writes one byte per cache line of `buf`.
fn evict(buf: &mut [u8]) {
    for i in (0..buf.len()).step_by(64) {
        buf[i] = buf[i].wrapping_add(1);
    }
    black_box(&buf);
}

/// The cases of the `ddl` group for the context counts `ns` (ns/op per DDL).
pub(crate) fn cases(plan: Plan, ns: &[usize], ours: bool) -> Vec<Case<'static>> {
    let d = Dialect::mysql80();
    let key = table_key(&d, "ddl", 0);
    let mut cases: Vec<Case<'static>> = Vec::new();
    for &n in ns {
        // About 2,000,000 reader operations of set-up per sample, 3 to 50 DDLs.
        let reps = plan.ops((2_000_000 / n as u64).clamp(3, 50));
        let nv = Naive::new();
        let mut readers: Vec<_> = (0..n).map(|_| nv.context()).collect();
        let mut ddl = nv.context();
        let k = key.clone();
        let mut buf = vec![0u8; EVICT];
        cases.push((
            format!("naive_released_n{n}"),
            Box::new(move || {
                timing::sample_units(reps, &mut |r| {
                    let mut ns = 0u128;
                    for _ in 0..r {
                        for c in &mut readers {
                            nv.acquire(c, &k, Mode::Shared);
                            nv.commit(c);
                        }
                        evict(&mut buf);
                        let t = Instant::now();
                        nv.acquire(&mut ddl, black_box(&k), Mode::Exclusive);
                        nv.commit(&mut ddl);
                        ns += t.elapsed().as_nanos();
                    }
                    (ns, r)
                })
            }),
        ));
        if !ours {
            continue;
        }
        for held in [false, true] {
            let m = new_manager();
            let mut readers: Vec<Context> = (0..n).map(|_| m.context()).collect();
            let mut ddl = m.context();
            let k = key.clone();
            let name = if held { "held" } else { "released" };
            let mut buf = vec![0u8; EVICT];
            cases.push((
                format!("ours_{name}_n{n}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let mut ns = 0u128;
                        for _ in 0..r {
                            for c in &mut readers {
                                let o = c.acquire(
                                    &k,
                                    LockType::SR,
                                    Duration::Transaction,
                                    WaitOption::Forever,
                                );
                                debug_assert_eq!(o, Ok(Outcome::Granted));
                                if !held {
                                    c.commit();
                                }
                            }
                            evict(&mut buf);
                            let t = Instant::now();
                            let o = ddl.acquire(
                                black_box(&k),
                                LockType::X,
                                Duration::Transaction,
                                WaitOption::NoWait,
                            );
                            ddl.commit();
                            ns += t.elapsed().as_nanos();
                            let want = if held {
                                Outcome::Busy
                            } else {
                                Outcome::Granted
                            };
                            assert_eq!(o, Ok(want), "the DDL's outcome");
                            if held {
                                readers.iter_mut().for_each(Context::commit);
                            }
                        }
                        (ns, r)
                    })
                }),
            ));
        }
    }
    cases
}
