//! A mixed OLTP workload (issue 18, item 3): `t` connections (one thread each, for t in
//! 1, 2, 4, 8) run point reads and writes over `TABLES` tables; connection 0 runs an
//! `ALTER TABLE` every `ALTER_EVERY` of its statements and the last connection a
//! `FLUSH TABLES WITH READ LOCK` every `FTWRL_EVERY`. Each statement's locks are those a
//! MySQL server takes (sql/sql_base.cc, `open_tables`; sql/sql_table.cc,
//! `mysql_alter_table`; sql/lock.cc, `Global_read_lock::lock_global_read_lock` and
//! `make_global_read_lock_block_commit`):
//!
//! - read: `TABLE SR` (transaction), commit;
//! - write: `GLOBAL IX` (statement), `SCHEMA IX`, `TABLE SW` (transaction), commit;
//! - ALTER: `GLOBAL IX`, `SCHEMA IX`, `TABLE SU`, then the upgrade to `X` (the copy
//!   phase's end), `HOLD_US` of work under X, commit;
//! - FTWRL: `GLOBAL S` then `COMMIT S` (explicit), `HOLD_US` of work, release.
//!
//! The baselines run the same statements with what they have: the naive manager with
//! shared/exclusive modes (an ALTER takes the table exclusive at once: it has no
//! upgrade), the `DashMap` of `RwLock`s with a table lock and one global `RwLock` that
//! writes read-lock and FTWRL write-locks.
//!
//! Reported per engine and thread count: statements per second, and the wait latency
//! (the acquire calls' time) of the DDL (ALTER: from the first request to X granted;
//! FTWRL: both locks) and of the reads, as p50/p99/p999 over every run of the case
//! (warm-up included). Most reads never wait: the reads queued behind an ALTER or
//! behind a writer blocked by FTWRL are the tail (p99, p999).

use crate::baselines::{DashRw, Mode, Naive};
use crate::timing::{self, Case, Plan};
use crate::{new_manager, table_key};
use mdl_core::{Dialect, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Tables the statements pick from (uniformly).
pub const TABLES: usize = 64;
/// Connection 0 runs an ALTER every this many statements.
pub const ALTER_EVERY: u64 = 1_000;
/// The last connection runs FTWRL every this many statements.
pub const FTWRL_EVERY: u64 = 5_000;
/// Reads in a hundred statements (the rest are writes).
pub const READ_PCT: u64 = 80;
/// Work done under the ALTER's X and under FTWRL (microseconds, busy).
pub const HOLD_US: u64 = 20;

/// The latencies of one case, in nanoseconds (appended by every run).
#[derive(Default)]
pub struct Latencies {
    pub ddl: Vec<u64>,
    pub read: Vec<u64>,
}

/// p50, p99, p999 of `xs` (sorted here); None when empty.
pub fn percentiles(xs: &mut [u64]) -> Option<[f64; 3]> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_unstable();
    let at = |q: f64| xs[((xs.len() as f64 * q) as usize).min(xs.len() - 1)] as f64;
    Some([at(0.50), at(0.99), at(0.999)])
}

/// What one statement is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stmt {
    Read(usize),
    Write(usize),
    Alter(usize),
    Ftwrl,
}

/// Connection `i` of `t`: its statement number `n` (xorshift for the table and the mix).
struct Mix {
    i: usize,
    t: usize,
    n: u64,
    rng: u64,
}

impl Mix {
    fn new(i: usize, t: usize) -> Mix {
        Mix {
            i,
            t,
            n: 0,
            rng: 0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1).wrapping_mul(0xff51_afd7_ed55_8ccd),
        }
    }
    fn next(&mut self) -> Stmt {
        self.n += 1;
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let table = (self.rng % TABLES as u64) as usize;
        if self.i == 0 && self.n % ALTER_EVERY == ALTER_EVERY / 2 {
            Stmt::Alter(table)
        } else if self.i + 1 == self.t && self.n.is_multiple_of(FTWRL_EVERY) {
            Stmt::Ftwrl
        } else if (self.rng >> 32) % 100 < READ_PCT {
            Stmt::Read(table)
        } else {
            Stmt::Write(table)
        }
    }
}

fn busy(us: u64) {
    let t = Instant::now();
    while t.elapsed().as_micros() < u128::from(us) {
        std::hint::spin_loop();
    }
}

struct Keys {
    tables: Vec<MdlKey>,
    global: MdlKey,
    commit: MdlKey,
    schema: MdlKey,
}

fn keys() -> Keys {
    let d = Dialect::mysql80();
    let single = |ns: &str| MdlKey::singleton(d.namespace_by_name(ns).expect("mysql-8.0"));
    Keys {
        tables: (0..TABLES).map(|i| table_key(&d, "oltp", i)).collect(),
        global: single("GLOBAL"),
        commit: single("COMMIT"),
        schema: MdlKey::parse(&d, "SCHEMA", "oltp").expect("a schema key"),
    }
}

/// Appends a worker's latencies to the case's.
fn merge(into: &Mutex<Latencies>, mine: Latencies) {
    let mut l = into.lock().unwrap_or_else(|e| e.into_inner());
    l.ddl.extend(mine.ddl);
    l.read.extend(mine.read);
}

fn ours_stmt(c: &mut mdl_core::Context, k: &Keys, s: Stmt, lat: &mut Latencies) {
    use Duration::{Explicit, Statement, Transaction};
    let get = |c: &mut mdl_core::Context, key: &MdlKey, ty, dur| {
        let o = c.acquire_outcome(key, ty, dur, WaitOption::Forever);
        debug_assert_eq!(o, Ok(Outcome::Granted));
    };
    match s {
        Stmt::Read(i) => {
            let t = Instant::now();
            get(c, &k.tables[i], LockType::SR, Transaction);
            lat.read.push(t.elapsed().as_nanos() as u64);
            c.commit();
        }
        Stmt::Write(i) => {
            get(c, &k.global, LockType::IX, Statement);
            get(c, &k.schema, LockType::IX, Transaction);
            get(c, &k.tables[i], LockType::SW, Transaction);
            c.commit();
        }
        Stmt::Alter(i) => {
            let t = Instant::now();
            get(c, &k.global, LockType::IX, Statement);
            get(c, &k.schema, LockType::IX, Transaction);
            get(c, &k.tables[i], LockType::SU, Transaction);
            let o = c.upgrade_outcome(&k.tables[i], LockType::X, WaitOption::Forever);
            debug_assert_eq!(o, Ok(Outcome::Granted));
            lat.ddl.push(t.elapsed().as_nanos() as u64);
            busy(HOLD_US);
            c.commit();
        }
        Stmt::Ftwrl => {
            let t = Instant::now();
            get(c, &k.global, LockType::S, Explicit);
            get(c, &k.commit, LockType::S, Explicit);
            lat.ddl.push(t.elapsed().as_nanos() as u64);
            busy(HOLD_US);
            c.release_explicit();
        }
    }
}

fn naive_stmt(
    nv: &Naive,
    c: &mut crate::baselines::NaiveCtx,
    k: &Keys,
    s: Stmt,
    lat: &mut Latencies,
) {
    match s {
        Stmt::Read(i) => {
            let t = Instant::now();
            nv.acquire(c, &k.tables[i], Mode::Shared);
            lat.read.push(t.elapsed().as_nanos() as u64);
            nv.commit(c);
        }
        Stmt::Write(i) => {
            nv.acquire(c, &k.global, Mode::Shared);
            nv.acquire(c, &k.schema, Mode::Shared);
            nv.acquire(c, &k.tables[i], Mode::Shared);
            nv.commit(c);
        }
        Stmt::Alter(i) => {
            let t = Instant::now();
            nv.acquire(c, &k.global, Mode::Shared);
            nv.acquire(c, &k.schema, Mode::Shared);
            nv.acquire(c, &k.tables[i], Mode::Exclusive);
            lat.ddl.push(t.elapsed().as_nanos() as u64);
            busy(HOLD_US);
            nv.commit(c);
        }
        Stmt::Ftwrl => {
            let t = Instant::now();
            nv.acquire(c, &k.global, Mode::Exclusive);
            nv.acquire(c, &k.commit, Mode::Exclusive);
            lat.ddl.push(t.elapsed().as_nanos() as u64);
            busy(HOLD_US);
            nv.commit(c);
        }
    }
}

fn dash_stmt(
    dm: &DashRw,
    global: &parking_lot::RwLock<()>,
    k: &Keys,
    s: Stmt,
    lat: &mut Latencies,
) {
    match s {
        Stmt::Read(i) => {
            let t = Instant::now();
            dm.with(&k.tables[i], Mode::Shared, || {
                lat.read.push(t.elapsed().as_nanos() as u64);
            });
        }
        Stmt::Write(i) => {
            let _g = global.read();
            dm.with(&k.tables[i], Mode::Shared, || {});
        }
        Stmt::Alter(i) => {
            let t = Instant::now();
            let _g = global.read();
            dm.with(&k.tables[i], Mode::Exclusive, || {
                lat.ddl.push(t.elapsed().as_nanos() as u64);
                busy(HOLD_US);
            });
        }
        Stmt::Ftwrl => {
            let t = Instant::now();
            let _g = global.write();
            lat.ddl.push(t.elapsed().as_nanos() as u64);
            busy(HOLD_US);
        }
    }
}

/// An engine of the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    DashRw,
    Naive,
    Ours,
}

impl Engine {
    pub const ALL: [Engine; 3] = [Engine::DashRw, Engine::Naive, Engine::Ours];
    pub fn name(self) -> &'static str {
        match self {
            Engine::DashRw => "dashmap_rwlock",
            Engine::Naive => "naive",
            Engine::Ours => "ours",
        }
    }
}

/// A sampler of the workload on `engine` with `t` connections: each call runs `k`
/// statements per connection and returns statements per second; the latencies go to
/// `lat`. (Also the criterion bench's.)
pub fn sampler(engine: Engine, t: usize, lat: Arc<Mutex<Latencies>>) -> Box<dyn FnMut(u64) -> f64> {
    let k = Arc::new(keys());
    match engine {
        Engine::DashRw => {
            let dm = Arc::new(DashRw::new());
            k.tables.iter().for_each(|x| dm.insert(x));
            let global = Arc::new(parking_lot::RwLock::new(()));
            Box::new(move |per_thread| {
                timing::sample_throughput(t, per_thread, &|i| {
                    let (dm, global, k, lat) = (dm.clone(), global.clone(), k.clone(), lat.clone());
                    let mut mix = Mix::new(i, t);
                    move |n: u64| {
                        let mut mine = Latencies::default();
                        for _ in 0..n {
                            dash_stmt(&dm, &global, &k, mix.next(), &mut mine);
                        }
                        merge(&lat, mine);
                    }
                })
            })
        }
        Engine::Naive => {
            let nv = Naive::new();
            Box::new(move |per_thread| {
                timing::sample_throughput(t, per_thread, &|i| {
                    let (nv, k, lat) = (nv.clone(), k.clone(), lat.clone());
                    let mut c = nv.context();
                    let mut mix = Mix::new(i, t);
                    move |n: u64| {
                        let mut mine = Latencies::default();
                        for _ in 0..n {
                            naive_stmt(&nv, &mut c, &k, mix.next(), &mut mine);
                        }
                        merge(&lat, mine);
                    }
                })
            })
        }
        Engine::Ours => {
            let m: Manager = new_manager();
            Box::new(move |per_thread| {
                timing::sample_throughput(t, per_thread, &|i| {
                    let (k, lat) = (k.clone(), lat.clone());
                    let mut c = m.context();
                    let mut mix = Mix::new(i, t);
                    move |n: u64| {
                        let mut mine = Latencies::default();
                        for _ in 0..n {
                            ours_stmt(&mut c, &k, mix.next(), &mut mine);
                        }
                        merge(&lat, mine);
                    }
                })
            })
        }
    }
}

/// Where each case's latencies go, by case name.
pub type LatencySinks = Vec<(String, Arc<Mutex<Latencies>>)>;

/// The cases of the `oltp` group (ops/s) and, per case, where its latencies go.
pub(crate) fn cases(
    plan: Plan,
    threads: &[usize],
    ours: bool,
) -> (Vec<Case<'static>>, LatencySinks) {
    let per_thread = plan.ops(200_000);
    let mut cases: Vec<Case<'static>> = Vec::new();
    let mut lats = Vec::new();
    for &t in threads {
        for e in Engine::ALL {
            if e == Engine::Ours && !ours {
                continue;
            }
            let name = format!("{}_t{t}", e.name());
            let lat = Arc::new(Mutex::new(Latencies::default()));
            lats.push((name.clone(), lat.clone()));
            let mut f = sampler(e, t, lat);
            cases.push((name, Box::new(move || f(per_thread))));
        }
    }
    (cases, lats)
}
