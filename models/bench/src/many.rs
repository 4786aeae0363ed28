//! The `many` group's workload, one definition for the group (`lib.rs`, `Runner::many`)
//! and its two examples (`examples/ir_many.rs` under cachegrind, `examples/time_many.rs`
//! by the minimum of short rounds): SR on n table keys `many.t0 .. many.t{n-1}` in one
//! context, then commit; ours through a manager of the `mysql-8.0` dialect, the naive
//! manager through its own context.

use crate::baselines::{Mode, Naive, NaiveCtx};
use mdl_core::{Context, Dialect, LockDuration, LockType, Manager, MdlKey, WaitOption};
use std::hint::black_box;

/// The table keys `many.t0 .. many.t{n-1}`.
pub fn keys(n: usize) -> Vec<MdlKey> {
    let d = Dialect::mysql80();
    (0..n).map(|i| crate::table_key(&d, "many", i)).collect()
}

/// `keys` in another order, the same for every call (a seeded Fisher-Yates shuffle): a
/// transaction that takes the same locks as the one before in a different order, so the
/// pins' neighbour hint (`mdl-core/src/manager/pins.rs`, `Pins::find`) misses.
pub fn shuffled(keys: &[MdlKey]) -> Vec<MdlKey> {
    let mut v = keys.to_vec();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

/// A manager of the `mysql-8.0` dialect with the default configuration and clock.
pub fn manager() -> Manager {
    crate::new_manager()
}

/// One of our transactions: SR on every key of `keys` (transaction duration), then
/// commit.
#[inline]
pub fn ours_round(c: &mut Context, keys: &[MdlKey]) {
    ours_acquire_all(c, keys);
    c.commit();
}

/// SR on every key of `keys`, transaction duration, no commit.
#[inline]
pub fn ours_acquire_all(c: &mut Context, keys: &[MdlKey]) {
    for k in keys {
        let o = c.acquire_outcome(
            k,
            LockType::SR,
            LockDuration::Transaction,
            WaitOption::Forever,
        );
        black_box(o).ok();
    }
}

/// One transaction of the naive manager: every key of `keys` shared, then commit.
#[inline]
pub fn naive_round(nv: &Naive, nc: &mut NaiveCtx, keys: &[MdlKey]) {
    for k in keys {
        nv.acquire(nc, black_box(k), Mode::Shared);
    }
    nv.commit(nc);
}
