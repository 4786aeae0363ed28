//! How the harness tells, on a real MariaDB server, a statement blocked outside MDL from
//! one that is only slow (`learn::settle_all`). A statement that holds no PENDING metadata
//! lock for a while counts as blocked only if the server also shows it waiting: an InnoDB
//! lock wait (`INNODB_TRX`) or a `Waiting ...` processlist state. Time alone made a slow
//! commit on a loaded CI machine look blocked (`insert-vs-insert.mdl`, interleaving 14).
//! Runs only with `MDL_CONFORM=1`.
//!
//! Seeded bug `mdl_bug="conform_blocked_by_time"`: time alone makes a statement blocked
//! again; `a_slow_statement_is_not_blocked` must catch it.

use mdl_conform::client::Conn;
use mdl_conform::learn::{cleanup, fresh, settle, Settled};
use mdl_conform::locks::Activity;
use mdl_conform::server::Server;
use std::time::Duration;

fn enabled() -> bool {
    if std::env::var("MDL_CONFORM").as_deref() == Ok("1") {
        return true;
    }
    println!("skipped: set MDL_CONFORM=1 to run the harness's settle tests on MariaDB");
    false
}

fn session(server: &Server) -> Conn {
    let mut c = server.connect().unwrap_or_else(|e| panic!("{e}"));
    c.query("USE test").unwrap();
    c
}

/// A throwaway server with the fixture, and its monitor connection.
fn start() -> (Server, Conn) {
    let server = Server::start().unwrap_or_else(|e| panic!("{e}"));
    let mut mon = server.connect().unwrap();
    fresh(&mut mon).unwrap();
    (server, mon)
}

fn kind(s: &Settled) -> &'static str {
    match s {
        Settled::Done(_) => "done",
        Settled::DoneAfterBlock(_) => "done after a block",
        Settled::Waiting => "waiting",
        Settled::Blocked => "blocked",
    }
}

/// How a statement that runs for 1.5 s without waiting for anything (it sleeps) settles.
fn slow_statement() -> Settled {
    let (server, mut mon) = start();
    let mut s1 = session(&server);
    s1.send("SELECT SLEEP(1.5)").unwrap();
    let got = settle(&mut mon, &mut s1).unwrap();
    cleanup(&mut mon, s1).unwrap();
    got
}

/// A slow statement is done, not "done after a block".
#[cfg(not(mdl_bug = "conform_blocked_by_time"))]
#[test]
fn a_slow_statement_is_not_blocked() {
    if !enabled() {
        return;
    }
    let got = slow_statement();
    assert_eq!(
        kind(&got),
        "done",
        "a statement that only runs long: {got:?}"
    );
}

#[cfg(mdl_bug = "conform_blocked_by_time")]
#[test]
fn seeded_bug_conform_blocked_by_time_is_caught() {
    if !enabled() {
        return;
    }
    let got = slow_statement();
    assert_ne!(
        kind(&got),
        "done",
        "the slow-statement test missed the seeded bug: {got:?}"
    );
}

/// An UPDATE behind another transaction's row lock is blocked, and `INNODB_TRX` shows it
/// when read more than 100 ms after the last read (InnoDB's cache of that table).
#[test]
fn an_innodb_row_lock_wait_is_blocked() {
    if !enabled() {
        return;
    }
    let (server, mut mon) = start();
    let (mut s1, mut s2) = (session(&server), session(&server));
    // A read of INNODB_TRX before the wait begins fills InnoDB's cache.
    assert_eq!(
        Activity::take(&mut mon, true).unwrap().innodb_waits.len(),
        0
    );
    s1.query("BEGIN").unwrap();
    s1.query("UPDATE t1 SET b=b+1 WHERE a=1").unwrap();
    s2.query("BEGIN").unwrap();
    s2.send("UPDATE t1 SET b=b+1 WHERE a=1").unwrap();
    let got = settle(&mut mon, &mut s2).unwrap();
    assert_eq!(kind(&got), "blocked", "{got:?}");
    std::thread::sleep(Duration::from_millis(200));
    let act = Activity::take(&mut mon, true).unwrap();
    assert_eq!(
        act.waits_outside_mdl(s2.id).as_deref(),
        Some("an InnoDB lock wait"),
        "{act:?}"
    );
    s1.query("COMMIT").unwrap();
    let after = settle(&mut mon, &mut s2).unwrap();
    // It was woken at once: done, with no time blocked in this settle.
    assert_eq!(kind(&after), "done", "{after:?}");
    cleanup(&mut mon, s1).unwrap();
    cleanup(&mut mon, s2).unwrap();
}

/// LOCK TABLES t1 READ behind another session's LOCK TABLES t1 WRITE CONCURRENT gets its
/// SR, then waits in the table-level lock with no PENDING metadata lock (the server shows
/// `Waiting for table metadata lock` all the same) and times out after lock_wait_timeout:
/// done after a block (known-differences/lock-read-behind-write-concurrent.mdl).
#[test]
fn a_table_level_lock_wait_then_timeout_is_done_after_a_block() {
    if !enabled() {
        return;
    }
    let (server, mut mon) = start();
    let (mut s2, mut s3) = (session(&server), session(&server));
    s2.query("SET lock_wait_timeout = 1").unwrap();
    s3.query("LOCK TABLES t1 WRITE CONCURRENT").unwrap();
    s2.send("LOCK TABLES t1 READ").unwrap();
    let got = settle(&mut mon, &mut s2).unwrap();
    match &got {
        Settled::DoneAfterBlock(r) => {
            assert_eq!(r.error.as_ref().map(|e| e.0), Some(1205), "{r:?}")
        }
        other => panic!("expected done after a block (a timeout), got {other:?}"),
    }
    cleanup(&mut mon, s2).unwrap();
    cleanup(&mut mon, s3).unwrap();
}
