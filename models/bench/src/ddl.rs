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
use mdl_core::{Context, Dialect, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
use std::hint::black_box;
use std::time::Instant;

/// Bytes walked before each timed DDL (more than this machine's L3).
pub const EVICT: usize = 64 << 20;

thread_local! {
    /// The walk's buffer (one per thread, made on first use).
    static WALK: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Writes one byte per cache line of `EVICT` bytes.
pub fn evict() {
    WALK.with_borrow_mut(|buf| {
        if buf.len() < EVICT {
            buf.resize(EVICT, 0);
        }
        for i in (0..buf.len()).step_by(64) {
            buf[i] = buf[i].wrapping_add(1);
        }
        black_box(&buf);
    });
}

/// One engine's set-up for the first-DDL measurement: `n` reader contexts and a DDL
/// context on one table. Each [`FirstDdl::round`] runs the readers (outside the clock),
/// evicts the caches and returns the nanoseconds of the DDL. (Also the criterion
/// bench's.)
pub enum FirstDdl {
    Naive {
        nv: Naive,
        readers: Vec<crate::baselines::NaiveCtx>,
        ddl: crate::baselines::NaiveCtx,
        key: MdlKey,
    },
    Ours {
        held: bool,
        readers: Vec<Context>,
        ddl: Context,
        key: MdlKey,
        _m: Manager,
    },
}

impl FirstDdl {
    /// The naive manager, its readers released.
    pub fn naive(n: usize) -> FirstDdl {
        let nv = Naive::new();
        FirstDdl::Naive {
            readers: (0..n).map(|_| nv.context()).collect(),
            ddl: nv.context(),
            nv,
            key: table_key(&Dialect::mysql80(), "ddl", 0),
        }
    }

    /// Ours, the readers' SR still held (`held`) or committed.
    pub fn ours(n: usize, held: bool) -> FirstDdl {
        let m = new_manager();
        FirstDdl::Ours {
            held,
            readers: (0..n).map(|_| m.context()).collect(),
            ddl: m.context(),
            key: table_key(&Dialect::mysql80(), "ddl", 0),
            _m: m,
        }
    }

    /// One round: the readers, then the timed DDL (X, no wait, and its commit).
    pub fn round(&mut self) -> u128 {
        match self {
            FirstDdl::Naive {
                nv,
                readers,
                ddl,
                key,
            } => {
                for c in readers.iter_mut() {
                    nv.acquire(c, key, Mode::Shared);
                    nv.commit(c);
                }
                evict();
                let t = Instant::now();
                nv.acquire(ddl, black_box(key), Mode::Exclusive);
                nv.commit(ddl);
                t.elapsed().as_nanos()
            }
            FirstDdl::Ours {
                held,
                readers,
                ddl,
                key,
                _m,
            } => {
                for c in readers.iter_mut() {
                    let o = c.acquire_outcome(
                        key,
                        LockType::SR,
                        Duration::Transaction,
                        WaitOption::Forever,
                    );
                    debug_assert_eq!(o, Ok(Outcome::Granted));
                    if !*held {
                        c.commit();
                    }
                }
                evict();
                let t = Instant::now();
                let o = ddl.acquire_outcome(
                    black_box(key),
                    LockType::X,
                    Duration::Transaction,
                    WaitOption::NoWait,
                );
                ddl.commit();
                let ns = t.elapsed().as_nanos();
                let want = if *held {
                    Outcome::Busy
                } else {
                    Outcome::Granted
                };
                assert_eq!(o, Ok(want), "the DDL's outcome");
                if *held {
                    readers.iter_mut().for_each(Context::commit);
                }
                ns
            }
        }
    }
}

/// The cases of the `ddl` group for the context counts `ns` (ns/op per DDL).
pub(crate) fn cases(plan: Plan, ns: &[usize], ours: bool) -> Vec<Case<'static>> {
    let mut cases: Vec<Case<'static>> = Vec::new();
    for &n in ns {
        // About 2,000,000 reader operations of set-up per sample, 3 to 50 DDLs.
        let reps = plan.ops((2_000_000 / n as u64).clamp(3, 50));
        let mut engines = vec![("naive_released", FirstDdl::naive(n))];
        if ours {
            engines.push(("ours_released", FirstDdl::ours(n, false)));
            engines.push(("ours_held", FirstDdl::ours(n, true)));
        }
        for (name, mut e) in engines {
            cases.push((
                format!("{name}_n{n}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let ns: u128 = (0..r).map(|_| e.round()).sum();
                        (ns, r)
                    })
                }),
            ));
        }
    }
    cases
}
