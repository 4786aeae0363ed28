//! Group `async`: [`mdl_core::Context::acquire_async`] against the blocking
//! [`mdl_core::Context::acquire`], uncontended SR acquire + commit on one table, side by
//! side in one interleaved run (issue 18: async within 1.5x of sync for an uncontended
//! grant; reported, never asserted). The future is polled by hand with a no-op waker:
//! an uncontended grant resolves in its first poll, so this is the cost of the future
//! itself, not of an executor's scheduling.

use super::*;
use std::future::Future;
use std::task::{Context as TaskCx, Poll, Waker};

/// Our async acquire + commit of one lock, polled once (an uncontended grant).
#[inline]
fn ours_async_op(c: &mut Context, k: &MdlKey, ty: LockType) {
    let mut cx = TaskCx::from_waker(Waker::noop());
    let o = {
        let f = std::pin::pin!(c.acquire_outcome_async(
            k,
            ty,
            Duration::Transaction,
            WaitOption::Forever
        ));
        match f.poll(&mut cx) {
            Poll::Ready(o) => o,
            Poll::Pending => panic!("an uncontended async acquire waited"),
        }
    };
    debug_assert_eq!(o, Ok(mdl_core::Outcome::Granted));
    black_box(o).ok();
    c.commit();
}

impl Runner {
    pub(crate) fn async_vs_sync(&mut self) {
        if !self.ours {
            return;
        }
        let k = self.opts.plan.ops(1_000_000);
        let d = Dialect::mysql80();
        let key = table_key(&d, "db", 0);
        let mut cases: Vec<timing::Case<'_>> = Vec::new();
        type Op = fn(&mut Context, &MdlKey, LockType);
        for (name, op) in [
            ("sync_sr", ours_op as Op),
            ("async_sr", ours_async_op as Op),
        ] {
            let m = new_manager();
            let mut c = m.context();
            let kk = &key;
            cases.push((
                name.into(),
                Box::new(move || {
                    timing::sample_ops(k, &mut |n| {
                        for _ in 0..n {
                            op(&mut c, black_box(kk), LockType::SR);
                        }
                    })
                }),
            ));
        }
        self.group("async", "ns/op", cases);
    }
}

/// The group's target: async over sync.
pub(crate) fn targets(r: &Report) -> Vec<Target> {
    vec![crate::targets::target(
        r,
        "async SR within 1.5x of sync (uncontended)",
        ("async", "async_sr"),
        ("async", "sync_sr"),
        crate::verdict::Limit::AtMost(1.5),
    )]
}
