//! The server's state between probes: waiting until a statement has settled (done, or
//! shown waiting), cleaning a connection up, and a fresh schema for each probe.

use crate::client::{Conn, Reply, LONG};
use crate::locks::{Activity, Snapshot};
use crate::ConformError;
use mdl_sql::mapping::FIXTURE;
use std::time::Duration as StdDuration;

/// How a statement sent on a connection stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    Done(Reply),
    /// It finished (with this reply) after being seen running with no PENDING metadata
    /// lock for a while: it was blocked outside MDL first (an InnoDB lock wait that then
    /// timed out, say).
    DoneAfterBlock(Reply),
    /// It waits for a metadata lock (a PENDING row of its own).
    Waiting,
    /// It has not finished and shows no PENDING metadata lock: it waits for something
    /// outside MDL (a row lock, a table flush).
    Blocked,
}

/// Polls of a running statement: 20 ms apart, so about 2 s before one that neither
/// finishes nor waits for a metadata lock, and that the server shows waiting for
/// something else, counts as `Blocked`.
pub(super) const SETTLE_TRIES: u32 = 100;

/// Further polls (about 8 s) for a statement that shows no wait at all: it is only slow
/// (a commit's fsync or a copying ALTER on a loaded machine). After them it counts as
/// `Blocked` all the same, so that a statement stuck where we cannot see shows up as a
/// difference.
pub(super) const SLOW_TRIES: u32 = 400;

/// Snapshots with no PENDING lock (about 600 ms, far more than a statement of the fixture
/// takes) after which a statement that then finishes counts as blocked outside MDL first,
/// if the server showed it waiting outside MDL ([`Activity::waits_outside_mdl`]) during
/// them.
pub(super) const BLOCKED_POLLS: u32 = 15;

pub(super) const SETTLE_POLL: StdDuration = StdDuration::from_millis(20);

/// `INNODB_TRX` is read every this many polls (at least 160 ms apart: see
/// [`Activity::take`]).
pub(super) const INNODB_EVERY: u32 = 8;

/// Waits until each busy connection has finished or waits for a metadata lock (bounded).
/// Returns the connections' states in the order given.
///
/// Time alone does not make a statement blocked: on a loaded machine an INSERT's commit
/// was seen to take longer than the 600 ms of [`BLOCKED_POLLS`] (a CI run of
/// `insert-vs-insert.mdl`). It must also have been seen waiting outside MDL.
pub fn settle_all(
    mon: &mut Conn,
    conns: &mut [&mut Conn],
) -> Result<Vec<Option<Settled>>, ConformError> {
    let mut out: Vec<Option<Settled>> = vec![None; conns.len()];
    // "Waiting" needs two snapshots in a row that show every busy statement pending: a
    // statement the server has just woken (or one that goes from one wait to the next,
    // as an in-place ALTER does) can show pending for a moment, longer on a loaded
    // machine.
    let mut pending_seen = 0;
    // Snapshots in a row in which each busy statement showed no PENDING lock, and
    // whether one of them showed it waiting outside MDL.
    let mut unpending: Vec<u32> = vec![0; conns.len()];
    let mut outside: Vec<bool> = vec![false; conns.len()];
    for poll in 0..SETTLE_TRIES + SLOW_TRIES {
        for (i, c) in conns.iter_mut().enumerate() {
            if c.busy() {
                if let Some(r) = c.poll(SETTLE_POLL)? {
                    out[i] = Some(if unpending[i] >= BLOCKED_POLLS && outside[i] {
                        Settled::DoneAfterBlock(r)
                    } else {
                        Settled::Done(r)
                    });
                }
            }
        }
        if conns.iter().all(|c| !c.busy()) {
            return Ok(out);
        }
        let snap = Snapshot::take(mon)?;
        let act = Activity::take(mon, poll % INNODB_EVERY == INNODB_EVERY - 1)?;
        for (i, c) in conns.iter().enumerate() {
            if c.busy() && !snap.has_pending(c.id) {
                unpending[i] += 1;
                // (Seeded bug: time alone makes a statement blocked, as before.)
                outside[i] |= act.waits_outside_mdl(c.id).is_some()
                    || cfg!(mdl_bug = "conform_blocked_by_time");
            } else {
                unpending[i] = 0;
                outside[i] = false;
            }
        }
        if conns.iter().all(|c| !c.busy() || snap.has_pending(c.id)) {
            pending_seen += 1;
        } else {
            pending_seen = 0;
        }
        if pending_seen >= 2 {
            for (i, c) in conns.iter().enumerate() {
                if c.busy() {
                    out[i] = Some(Settled::Waiting);
                }
            }
            return Ok(out);
        }
        // Past the first 2 s, go on only for statements that show no wait at all.
        if poll + 1 >= SETTLE_TRIES
            && conns
                .iter()
                .enumerate()
                .all(|(i, c)| !c.busy() || snap.has_pending(c.id) || outside[i])
        {
            break;
        }
    }
    let snap = Snapshot::take(mon)?;
    for (i, c) in conns.iter().enumerate() {
        if c.busy() {
            out[i] = Some(if snap.has_pending(c.id) {
                Settled::Waiting
            } else {
                Settled::Blocked
            });
        }
    }
    Ok(out)
}

pub fn settle(mon: &mut Conn, c: &mut Conn) -> Result<Settled, ConformError> {
    Ok(settle_all(mon, &mut [c])?
        .pop()
        .flatten()
        .unwrap_or(Settled::Waiting))
}

/// Ends whatever a connection runs or holds, then closes it.
pub fn cleanup(mon: &mut Conn, mut c: Conn) -> Result<(), ConformError> {
    if c.busy() {
        mon.query(&format!("KILL QUERY {}", c.id))?;
        if c.poll(LONG)?.is_none() {
            return Err(ConformError::Server(
                "a killed statement did not end".into(),
            ));
        }
    }
    for s in [
        "ROLLBACK",
        "UNLOCK TABLES",
        "BACKUP STAGE END",
        "SELECT RELEASE_ALL_LOCKS()",
    ] {
        let _ = c.exec(s)?;
    }
    Ok(())
}

/// Waits (bounded) until no connection but the monitor holds or waits for a lock.
pub fn quiesce(mon: &mut Conn) -> Result<(), ConformError> {
    for _ in 0..SETTLE_TRIES * 5 {
        if Snapshot::take(mon)?.by_conn.values().all(|v| v.is_empty()) {
            return Ok(());
        }
        std::thread::sleep(SETTLE_POLL);
    }
    Err(ConformError::Server(
        "locks of closed connections linger".into(),
    ))
}

/// The schemas the server itself needs; every other one but `test` is dropped by
/// [`fresh`].
pub(super) const SYSTEM_SCHEMAS: &[&str] = &[
    "mysql",
    "information_schema",
    "performance_schema",
    "sys",
    "test",
];

/// What exists: schemas, tables with their columns and indexes, views, triggers, stored
/// routines and events. Equal to the value right after the fixture was made, nothing needs making again (rows may
/// differ; they decide no metadata lock).
pub(super) const SIGNATURE: &str = "SELECT CONCAT_WS('|', \
(SELECT GROUP_CONCAT(SCHEMA_NAME ORDER BY SCHEMA_NAME) FROM information_schema.SCHEMATA), \
(SELECT GROUP_CONCAT(CONCAT(TABLE_SCHEMA,'.',TABLE_NAME,':',TABLE_TYPE,':',IFNULL(ENGINE,'')) \
 ORDER BY TABLE_SCHEMA, TABLE_NAME) FROM information_schema.TABLES \
 WHERE TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys')), \
(SELECT GROUP_CONCAT(CONCAT(TABLE_NAME,'.',COLUMN_NAME) ORDER BY TABLE_NAME, COLUMN_NAME) \
 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='test'), \
(SELECT GROUP_CONCAT(CONCAT(TABLE_NAME,'.',INDEX_NAME) ORDER BY TABLE_NAME, INDEX_NAME) \
 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='test'), \
(SELECT COUNT(*) FROM information_schema.TRIGGERS), \
(SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA='test'), \
(SELECT COUNT(*) FROM information_schema.EVENTS))";

thread_local! {
    /// The signature right after the fixture was last made (per monitor connection id).
    static FIXTURE_SIGNATURE: std::cell::RefCell<Option<(u64, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// A fresh fixture, with no other connection holding anything, and no schema left from
/// an earlier scenario's setup.
pub fn fresh(mon: &mut Conn) -> Result<(), ConformError> {
    quiesce(mon)?;
    // A prepared XA transaction outlives its connection (sql/xa.cc, MariaDB 10.5+) with
    // its locks: an earlier scenario's is rolled back (measured: else the fixture's DROP
    // TABLE waits for it). A server without `FORMAT='SQL'` answers an error: none there.
    let xids = mon.exec("XA RECOVER FORMAT='SQL'")?;
    for r in xids.rows {
        if let Some(xid) = r.get(3) {
            mon.query(&format!("XA ROLLBACK {xid}"))?;
        }
    }
    // A scenario's SET GLOBAL lock_wait_timeout is the next connections' value
    // (suite/set-global-lock-wait-timeout.mdl): the next scenario starts from the default.
    mon.query("SET GLOBAL lock_wait_timeout = DEFAULT")?;
    // And SET GLOBAL read_only = 1 (model/read_only.rs) is undone.
    mon.query("SET GLOBAL read_only = 0")?;
    // And the files a SELECT ... INTO OUTFILE wrote (the model starts with none:
    // mdl_sql's classify/into_outfile.rs).
    super::outfiles::clear(mon)?;
    let sig = mon.query_one(SIGNATURE)?;
    let same = FIXTURE_SIGNATURE.with(|f| f.borrow().as_ref() == Some(&(mon.id, sig.clone())));
    if same {
        mon.query("USE test")?;
        return Ok(());
    }
    for r in mon.query("SHOW DATABASES")? {
        if let Some(db) = r.first() {
            if !SYSTEM_SCHEMAS.contains(&db.as_str()) {
                mon.query(&format!("DROP DATABASE `{}`", db.replace('`', "``")))?;
            }
        }
    }
    // Tables, views and triggers an earlier scenario made go with the schema (the
    // fixture alone is only made again: quicker).
    let fixture: Vec<&str> = mdl_sql::mapping::FIXTURE_TABLES
        .iter()
        .map(|(t, _)| *t)
        .collect();
    let extra = mon
        .query(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA='test' \
             UNION ALL SELECT TRIGGER_NAME FROM information_schema.TRIGGERS \
             WHERE TRIGGER_SCHEMA='test' UNION ALL SELECT ROUTINE_NAME FROM \
             information_schema.ROUTINES WHERE ROUTINE_SCHEMA='test' UNION ALL SELECT \
             EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA='test'",
        )?
        .into_iter()
        .any(|r| r.first().is_none_or(|t| !fixture.contains(&t.as_str())));
    if extra {
        drop_test_schema(mon)?;
    }
    mon.query("CREATE DATABASE IF NOT EXISTS test")?;
    mon.query("USE test")?;
    // Users outlive the schema: the ones `mdl conform --random` makes go too (the
    // model's catalog starts with none; seeds 330053, 330070 met a u1 an earlier
    // scenario made).
    mon.query("DROP USER IF EXISTS u1, u2")?;
    mon.query(FIXTURE)?;
    let sig = mon.query_one(SIGNATURE)?;
    FIXTURE_SIGNATURE.with(|f| *f.borrow_mut() = Some((mon.id, sig)));
    Ok(())
}

/// DROP DATABASE test. A statement of the suite may have written a file of its own into
/// the schema's directory (`SELECT ... INTO OUTFILE 'f'`, relative to it), which the
/// server refuses to remove: 1010 (ER_DB_DROP_RMDIR, `mysql_rm_db` finds a file it does
/// not know). Such files are the harness's to clear: it removes them and drops again.
fn drop_test_schema(mon: &mut Conn) -> Result<(), ConformError> {
    let e = match mon.exec("DROP DATABASE IF EXISTS test")?.error {
        None => return Ok(()),
        Some((1010, m)) => m,
        Some((c, m)) => {
            return Err(ConformError::Server(format!(
                "`DROP DATABASE IF EXISTS test`: error {c}: {m}"
            )))
        }
    };
    let data = mon.query_one("SELECT @@datadir")?;
    let dir = std::path::Path::new(&data).join("test");
    let io =
        |x: std::io::Error| ConformError::Io(format!("{}: {x} (after 1010: {e})", dir.display()));
    for f in std::fs::read_dir(&dir).map_err(io)? {
        let p = f.map_err(io)?.path();
        if p.is_file() {
            std::fs::remove_file(&p).map_err(io)?;
        }
    }
    mon.query("DROP DATABASE IF EXISTS test").map(|_| ())
}

pub(super) fn run_all(c: &mut Conn, stmts: &[&str]) -> Result<(), ConformError> {
    for s in stmts {
        if let Some((code, m)) = c.exec(s)?.error {
            return Err(ConformError::Server(format!("`{s}`: error {code}: {m}")));
        }
    }
    Ok(())
}
