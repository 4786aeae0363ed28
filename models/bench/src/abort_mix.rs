//! The abort rate of a random DDL/DML mix, with the servers' victim rule and with
//! soft-edge resolution (`deadlock_resolution soft_edges`): `mdl bench --abort-mix`.
//!
//! Each run plays K sessions on the sequential [`LockTable`] (the decision code the
//! manager runs), under a random interleaving: each session runs a few transactions,
//! each drawn from a mix of DML (read then write one table, as `SELECT` then `UPDATE`:
//! SR then SW; write two tables: SW, SW) and DDL (`ALTER TABLE`: SNW then the upgrade to
//! X; `LOCK TABLES ... WRITE`: SNRW) on a few tables, then commits. A request that ends
//! in `deadlock` makes its transaction a victim: it rolls back and is counted as
//! aborted (no retry). The same seeds give both settings the same transactions, so the
//! two counts compare one workload. This is a count, not a timing: it is deterministic.

use mdl_core::key::MdlKey;
use mdl_core::table::{Config, LockTable};
use mdl_core::{Dialect, Duration, LockType, Outcome, OwnerId, WaitOption};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct MixOptions {
    pub runs: u32,
    pub sessions: usize,
    pub tables: usize,
    /// Transactions per session and run.
    pub transactions: usize,
    pub seed: u64,
    /// Percent of transactions that are DDL (half ALTER, half LOCK TABLES WRITE).
    pub ddl_percent: u32,
}

impl Default for MixOptions {
    fn default() -> Self {
        MixOptions {
            runs: 2000,
            sessions: 4,
            tables: 2,
            transactions: 3,
            seed: 1,
            ddl_percent: 25,
        }
    }
}

/// The counts of one setting.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct MixCounts {
    pub transactions: u64,
    /// Transactions aborted as deadlock victims.
    pub victims: u64,
    pub dml_victims: u64,
    pub ddl_victims: u64,
    /// Soft-edge reorderings made (0 with the victim rule).
    pub reorderings: u64,
    /// Runs that ended with a session waiting and nothing left to wake it (must be 0).
    pub stuck: u64,
}

impl MixCounts {
    /// Victims per hundred transactions.
    pub fn abort_percent(&self) -> f64 {
        if self.transactions == 0 {
            0.0
        } else {
            100.0 * self.victims as f64 / self.transactions as f64
        }
    }
}

/// Both settings on the same workload.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MixReport {
    pub runs: u32,
    pub sessions: usize,
    pub tables: usize,
    pub transactions_per_session: usize,
    pub ddl_percent: u32,
    pub seed: u64,
    pub victim_rule: MixCounts,
    pub soft_edges: MixCounts,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Acq(usize, LockType, Duration),
    Upg(usize, LockType),
    Commit,
}

/// A transaction: its operations and whether it is DDL.
fn draw(rng: &mut ChaCha8Rng, o: &MixOptions) -> (Vec<Op>, bool) {
    let a = rng.random_range(0..o.tables);
    let b = rng.random_range(0..o.tables);
    let t = Duration::Transaction;
    if rng.random_range(0..100) < o.ddl_percent {
        if rng.random_bool(0.5) {
            // ALTER TABLE: SNW, then the upgrade to X.
            (
                vec![
                    Op::Acq(a, LockType::SNW, t),
                    Op::Upg(a, LockType::X),
                    Op::Commit,
                ],
                true,
            )
        } else {
            // LOCK TABLES a WRITE ... UNLOCK TABLES.
            (vec![Op::Acq(a, LockType::SNRW, t), Op::Commit], true)
        }
    } else if rng.random_bool(0.6) {
        // SELECT ... FROM a; UPDATE a or b; COMMIT.
        (
            vec![
                Op::Acq(a, LockType::SR, t),
                Op::Acq(b, LockType::SW, t),
                Op::Commit,
            ],
            false,
        )
    } else {
        (
            vec![
                Op::Acq(a, LockType::SW, t),
                Op::Acq(b, LockType::SW, t),
                Op::Commit,
            ],
            false,
        )
    }
}

/// One session's state in a run.
struct Sess {
    plan: Vec<(Vec<Op>, bool)>,
    /// (transaction, operation) next.
    at: (usize, usize),
    waiting: bool,
}

fn run_one(o: &MixOptions, soft: bool, seed: u64, keys: &[MdlKey], c: &mut MixCounts) {
    let mut d = Dialect::mysql80();
    d.soft_edges = soft;
    let mut t = LockTable::new(Arc::new(d), Config::default());
    let mut sessions: Vec<Sess> = (0..o.sessions)
        .map(|i| {
            let mut r = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(1000).wrapping_add(i as u64));
            t.add_session();
            Sess {
                plan: (0..o.transactions).map(|_| draw(&mut r, o)).collect(),
                at: (0, 0),
                waiting: false,
            }
        })
        .collect();
    c.transactions += (o.sessions * o.transactions) as u64;
    let mut sched = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_5eed);
    let abort = |s: &mut Sess, c: &mut MixCounts| {
        c.victims += 1;
        if s.plan[s.at.0].1 {
            c.ddl_victims += 1;
        } else {
            c.dml_victims += 1;
        }
        s.at = (s.at.0 + 1, 0);
        s.waiting = false;
    };
    loop {
        let ready: Vec<usize> = (0..sessions.len())
            .filter(|&i| !sessions[i].waiting && sessions[i].at.0 < sessions[i].plan.len())
            .collect();
        if ready.is_empty() {
            if sessions.iter().any(|s| s.waiting) {
                c.stuck += 1;
                if std::env::var_os("MIX_DEBUG").is_some() {
                    eprintln!("stuck seed {seed} soft {soft}: {:?}", t.wait_edges());
                    for (k, l) in t.locks() {
                        eprintln!(
                            "  {k:?}: granted {:?} waiting {:?}",
                            l.granted(),
                            l.waiting()
                        );
                    }
                    for (i, s) in sessions.iter().enumerate() {
                        eprintln!(
                            "  s{i}: at {:?} waiting {} plan {:?}",
                            s.at, s.waiting, s.plan
                        );
                    }
                }
            }
            return;
        }
        let i = ready[sched.random_range(0..ready.len())];
        let me = OwnerId(i as u32);
        let s = &mut sessions[i];
        let op = s.plan[s.at.0].0[s.at.1];
        let out = match op {
            Op::Acq(k, ty, dur) => t.acquire(me, &keys[k], ty, dur, WaitOption::Forever),
            Op::Upg(k, ty) => t.upgrade(me, &keys[k], ty, WaitOption::Forever),
            Op::Commit => t.commit(me),
        }
        .expect("the mix only makes valid requests");
        match out {
            Outcome::Waiting => s.waiting = true,
            Outcome::Deadlock => {
                abort(s, c);
                t.commit(me).expect("rollback");
            }
            _ => {
                if op == Op::Commit {
                    s.at = (s.at.0 + 1, 0);
                } else {
                    s.at.1 += 1;
                }
            }
        }
        // A victim's rollback may grant others: until nothing more happens.
        loop {
            let events = t.take_events();
            if events.is_empty() {
                break;
            }
            for (w, out) in events {
                let w = w.0 as usize;
                let s = &mut sessions[w];
                match out {
                    Outcome::Granted => {
                        s.waiting = false;
                        s.at.1 += 1;
                    }
                    _ => {
                        abort(s, c);
                        t.commit(OwnerId(w as u32)).expect("rollback");
                    }
                }
            }
        }
        c.reorderings += t.take_reorders().len() as u64;
    }
}

/// Runs the mix with the victim rule and with soft-edge resolution.
pub fn run(o: MixOptions) -> MixReport {
    let d = Dialect::mysql80();
    let ns = d.namespace_by_name("TABLE").expect("TABLE");
    let keys: Vec<MdlKey> = (0..o.tables)
        .map(|i| MdlKey::new(ns, "test", &format!("t{i}")))
        .collect();
    let mut victim_rule = MixCounts::default();
    let mut soft_edges = MixCounts::default();
    for r in 0..o.runs {
        let seed = o.seed.wrapping_add(u64::from(r));
        run_one(&o, false, seed, &keys, &mut victim_rule);
        run_one(&o, true, seed, &keys, &mut soft_edges);
    }
    MixReport {
        runs: o.runs,
        sessions: o.sessions,
        tables: o.tables,
        transactions_per_session: o.transactions,
        ddl_percent: o.ddl_percent,
        seed: o.seed,
        victim_rule,
        soft_edges,
    }
}

/// The report as text.
pub fn render(r: &MixReport) -> String {
    let mut out = format!(
        "abort rate of a random DDL/DML mix: {} runs x {} sessions x {} transactions, {} \
         tables, {}% DDL, seed {}\n",
        r.runs, r.sessions, r.transactions_per_session, r.tables, r.ddl_percent, r.seed
    );
    out.push_str(
        "setting         transactions  victims (DML/DDL)   abort rate  reorderings  stuck\n",
    );
    for (name, c) in [
        ("victim rule", &r.victim_rule),
        ("soft edges", &r.soft_edges),
    ] {
        out.push_str(&format!(
            "{name:<15} {:>12}  {:>7} ({}/{}) {:>10.2}%  {:>11}  {:>5}\n",
            c.transactions,
            c.victims,
            c.dml_victims,
            c.ddl_victims,
            c.abort_percent(),
            c.reorderings,
            c.stuck
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mix_runs_and_is_deterministic() {
        let o = MixOptions {
            runs: 50,
            ..MixOptions::default()
        };
        let a = run(o);
        let b = run(o);
        assert_eq!(a.victim_rule.victims, b.victim_rule.victims);
        assert_eq!(a.soft_edges.victims, b.soft_edges.victims);
        assert_eq!(a.victim_rule.stuck + a.soft_edges.stuck, 0);
        assert_eq!(a.victim_rule.reorderings, 0);
    }
}
