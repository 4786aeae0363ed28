//! The SQL model as a library, without a server: the behaviours the server showed
//! (`models/conformance/*.mdl`, `suite/*.mdl`) through the public API, so that other tools
//! can drive it step by step.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

#[test]
fn the_module_example() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    assert_eq!(m.step(a, "LOCK TABLES t1 WRITE"), Ok(Outcome::Ok));
    assert_eq!(m.step(b, "SELECT * FROM t1"), Ok(Outcome::Waiting));
    assert!(m.is_waiting(b));
    assert_eq!(m.step(a, "UNLOCK TABLES"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(b, Outcome::Ok)]);
    assert!(!m.is_waiting(b));
}

#[test]
fn ddl_behind_ftwrl_backs_off_and_holds_nothing() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(
        m.step(b, "ALTER TABLE t1 FORCE, ALGORITHM=COPY"),
        Ok(Outcome::Waiting)
    );
    let held: Vec<String> = m.locks_of(b).into_iter().collect();
    assert_eq!(held, vec!["BACKUP - BACKUP_DDL (pending)".to_string()]);
    m.step(a, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(b, Outcome::Ok)]);
    assert!(m.locks_of(b).is_empty());
}

#[test]
fn session_rules_give_the_server_errors() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "LOCK TABLES t1 READ").unwrap();
    assert_eq!(
        m.step(a, "INSERT INTO t1 (b) VALUES (1)"),
        Ok(Outcome::Error)
    );
    assert_eq!(m.session(a).last_error, Some(1099));
    assert_eq!(m.step(a, "SELECT * FROM t2"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1100));
    assert_eq!(m.step(a, "FLUSH TABLES WITH READ LOCK"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1192));
    m.step(a, "UNLOCK TABLES").unwrap();
    m.step(a, "FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(m.step(a, "DROP TABLE t2"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1223));
}

#[test]
fn ftwrl_closes_the_sessions_handlers() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "HANDLER t1 OPEN").unwrap();
    assert!(m.locks_of(a).contains("TABLE test.t1 SR"));
    m.step(a, "FLUSH TABLES WITH READ LOCK").unwrap();
    assert!(!m.locks_of(a).contains("TABLE test.t1 SR"));
    // Closed but kept (mysql_ha_cleanup_no_free): READ opens the table again
    // (found/seed-51438).
    assert_eq!(m.session(a).handlers.len(), 1);
    assert!(!m.session(a).handlers[0].open);
    assert_eq!(m.step(a, "HANDLER t1 READ FIRST"), Ok(Outcome::Ok));
    assert!(m.locks_of(a).contains("TABLE test.t1 SR"));
}

#[test]
fn get_lock_counts_and_release_all_locks() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "SELECT GET_LOCK('u1', 0)").unwrap();
    m.step(a, "SELECT GET_LOCK('u1', 0)").unwrap();
    m.step(a, "SELECT GET_LOCK('u2', 0)").unwrap();
    m.step(a, "SELECT RELEASE_LOCK('u1')").unwrap();
    // Still held once: another session times out at once (GET_LOCK(..., 0)).
    assert_eq!(m.step(b, "SELECT GET_LOCK('u1', 0)"), Ok(Outcome::Timeout));
    // GET_LOCK's own timeout: waits, then times out when the clock passes it.
    assert_eq!(
        m.step(b, "SELECT GET_LOCK('u1', 1.5)"),
        Ok(Outcome::Waiting)
    );
    m.advance(1000);
    assert!(m.is_waiting(b));
    m.advance(600);
    assert_eq!(m.take_events(), vec![(b, Outcome::Timeout)]);
    // RELEASE_ALL_LOCKS gives back every user lock (it is not a lock-free SELECT).
    m.step(a, "SELECT RELEASE_ALL_LOCKS()").unwrap();
    assert!(m.locks_of(a).is_empty());
}

#[test]
fn lock_wait_timeout_bounds_waits() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "LOCK TABLES t1 WRITE").unwrap();
    m.step(b, "SET lock_wait_timeout = 1").unwrap();
    assert_eq!(
        m.step(b, "INSERT INTO t1 (b) VALUES (1)"),
        Ok(Outcome::Waiting)
    );
    m.advance(999);
    assert!(m.is_waiting(b));
    m.advance(1);
    assert_eq!(m.take_events(), vec![(b, Outcome::Timeout)]);
    // A statement's own NOWAIT: at once.
    assert_eq!(
        m.step(b, "LOCK TABLES t1 WRITE NOWAIT"),
        Ok(Outcome::Timeout)
    );
}

#[test]
fn several_tables_in_key_order_for_ddl_and_statement_order_for_dml() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "LOCK TABLES t1 WRITE").unwrap();
    // DROP TABLE t2, t1 takes t1 first (key order): it waits with nothing on t2.
    m.step(b, "DROP TABLE t2, t1").unwrap();
    assert!(m.locks_of(b).contains("TABLE test.t1 X (pending)"));
    assert!(!m.locks_of(b).iter().any(|l| l.contains("t2")));
    m.step(a, "UNLOCK TABLES").unwrap();
    m.take_events();
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "LOCK TABLES t1 WRITE").unwrap();
    // A join takes its tables in statement order: t2 first.
    m.step(b, "SELECT * FROM t2 JOIN t1 ON t1.a=t2.a").unwrap();
    assert!(m.locks_of(b).contains("TABLE test.t2 SR"));
    assert!(m.locks_of(b).contains("TABLE test.t1 SR (pending)"));
}

#[test]
fn a_statement_outside_the_table_changes_nothing() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t1").unwrap();
    let before = m.locks_of(a);
    assert!(m.step(a, "CHECK VIEW t1").is_err());
    assert_eq!(m.locks_of(a), before);
}

#[test]
fn deadlock_victims_follow_the_servers_weights() {
    // found/seed-1794.mdl: FLUSH TABLES t1 WITH READ LOCK under the session's FTWRL closes
    // a cycle with a DML waiting for the BACKUP lock; both waits weigh DDL, and the
    // session that began the search is the victim.
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "FLUSH TABLES WITH READ LOCK").unwrap();
    let dml = "DELETE t1 FROM t1 JOIN t2 ON t1.a=t2.a WHERE t1.a=9";
    assert_eq!(m.step(b, dml), Ok(Outcome::Waiting));
    assert_eq!(
        m.step(a, "FLUSH TABLES t1 WITH READ LOCK"),
        Ok(Outcome::Deadlock)
    );
    assert!(m
        .locks_of(b)
        .contains("BACKUP - BACKUP_TRANS_DML (pending)"));
    // found/seed-328.mdl: LOCK TABLES READ at the same place waits again, heavier, and
    // the DML is the victim; it backs off and waits for its table again.
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(
        m.step(b, "INSERT INTO t1 (b) SELECT b FROM t2"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(a, "LOCK TABLES t1 READ"), Ok(Outcome::Ok));
    assert!(m.locks_of(a).contains("TABLE test.t1 SRO"));
    let held: Vec<String> = m.locks_of(b).into_iter().collect();
    assert_eq!(held, vec!["TABLE test.t1 SW (pending)".to_string()]);
}

#[test]
fn backup_block_ddl_tries_again_after_a_deadlock() {
    // found/seed-150240.mdl: BACKUP STAGE BLOCK_COMMIT (through BLOCK_DDL) closes a cycle
    // with a copying ALTER (X behind a reader) and that reader's GET_LOCK, every wait
    // weighing DDL. BACKUP STAGE is the first victim; backup_block_ddl (sql/backup.cc)
    // tries again, one heavier (inc_deadlock_overweight), and the ALTER is the victim.
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    let c = m.add_session();
    assert_eq!(m.step(a, "BACKUP STAGE START"), Ok(Outcome::Ok));
    m.step(c, "BEGIN").unwrap();
    m.step(c, "SELECT * FROM t2").unwrap();
    assert_eq!(m.step(a, "SELECT GET_LOCK('u2', 1)"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(c, "SELECT GET_LOCK('u2', 100000)"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(
        m.step(b, "ALTER TABLE t2 FORCE, ALGORITHM=COPY"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(a, "BACKUP STAGE BLOCK_COMMIT"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(b, Outcome::Deadlock)]);
    assert!(m.locks_of(b).is_empty());
    assert!(m.locks_of(a).contains("BACKUP - BACKUP_WAIT_COMMIT"));
}

#[test]
fn victims_that_back_off_give_back_before_either_opens_again() {
    // found/seed-191826.mdl: the FTWRL holder's LOCK TABLES t2 READ LOCAL waits for SRO
    // behind two LOCK TABLES ... WRITE CONCURRENT, each holding SW on t2 and waiting for
    // the BACKUP lock behind the FTWRL. The reader is the first victim and waits again,
    // heavier; both writers are then victims, back off, and find SRO granted when they
    // open t2 again.
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    let c = m.add_session();
    m.step(c, "FLUSH TABLES WITH READ LOCK").unwrap();
    for (s, sql) in [
        (b, "LOCK TABLES t2 WRITE CONCURRENT, t1 WRITE CONCURRENT"),
        (a, "LOCK TABLES t2 WRITE CONCURRENT, t1 READ LOCAL"),
    ] {
        assert_eq!(m.step(s, sql), Ok(Outcome::Waiting));
    }
    assert_eq!(m.step(c, "LOCK TABLES t2 READ LOCAL"), Ok(Outcome::Ok));
    assert!(m.locks_of(c).contains("TABLE test.t2 SRO"));
    for s in [a, b] {
        let held: Vec<String> = m.locks_of(s).into_iter().collect();
        assert_eq!(held, vec!["TABLE test.t2 SW (pending)".to_string()]);
    }
}

#[test]
fn a_victim_that_backs_off_asks_again_after_the_sessions_it_let_in() {
    // known-differences/woken-race-201610.mdl (as 16 of 19 server runs): LOCK TABLES t1
    // WRITE, t2 READ again lets in the other
    // session's LOCK TABLES t2 WRITE, t1 READ, which is then the victim of a cycle over t1
    // and t2; it backs off, and asks for SNRW on t2 again only after the first moved its
    // t2 to SRO: it waits, no second deadlock.
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    assert_eq!(m.step(b, "LOCK TABLES t1 WRITE, t2 READ"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "LOCK TABLES t2 WRITE, t1 READ"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(b, "LOCK TABLES t1 WRITE, t2 READ"), Ok(Outcome::Ok));
    assert!(m.take_events().is_empty());
    assert!(m.locks_of(b).contains("TABLE test.t2 SRO"));
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert_eq!(
        held,
        vec![
            "SCHEMA test IX".to_string(),
            "TABLE test.t2 SNRW (pending)".to_string()
        ]
    );
}

#[test]
fn truncate_forgets_a_handler_that_was_closed_and_kept() {
    // found/seed-200108.mdl: the SELECT's start closes the HANDLER on m1 that a RENAME
    // waits for, keeping it; TRUNCATE TABLE m1 forgets it (mysql_ha_rm_tables), so a new
    // HANDLER m1 OPEN is no duplicate.
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(b, "HANDLER m1 OPEN").unwrap();
    assert_eq!(m.step(a, "RENAME TABLE t4 TO m1"), Ok(Outcome::Waiting));
    assert_eq!(m.step(b, "SELECT * FROM t2"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(a, Outcome::Error)]);
    assert_eq!(m.step(b, "TRUNCATE TABLE m1"), Ok(Outcome::Ok));
    assert_eq!(m.step(b, "HANDLER m1 OPEN"), Ok(Outcome::Ok));
    assert!(m.locks_of(b).contains("TABLE test.m1 SR"));
}

#[test]
fn ddl_under_lock_tables_waits_for_x_behind_a_backup_lock() {
    // lock-tables-x-behind-backup-lock.mdl, found/seed-210725.mdl: TRUNCATE (and the
    // other DDL, FLUSH TABLES) under LOCK TABLES ... WRITE move the table up to X, which
    // waits for another session's BACKUP LOCK (SH); ANALYZE does not.
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "LOCK TABLES t1 WRITE").unwrap();
    assert_eq!(m.step(b, "BACKUP LOCK t1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "ANALYZE TABLE t1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "TRUNCATE TABLE t1"), Ok(Outcome::Waiting));
    assert!(m.locks_of(a).contains("TABLE test.t1 X (pending)"));
    m.step(b, "BACKUP UNLOCK").unwrap();
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
    assert!(m.locks_of(a).contains("TABLE test.t1 SNRW"));
    assert!(!m.locks_of(a).iter().any(|l| l.contains(" X")));
    m.step(b, "BACKUP LOCK t1").unwrap();
    assert_eq!(m.step(a, "FLUSH TABLES"), Ok(Outcome::Waiting));
}

#[test]
fn a_failed_backup_stage_leaves_the_last_stage_it_finished() {
    // found/seed-210158.mdl: BLOCK_COMMIT from START, killed in BLOCK_DDL's wait for
    // BACKUP_WAIT_FLUSH: the session is at FLUSH with BACKUP_FLUSH (run_backup_stage).
    let mut m = model();
    let a = m.add_session();
    let c = m.add_session();
    m.step(a, "BACKUP STAGE START").unwrap();
    m.step(c, "LOCK TABLES t1 WRITE, m1 READ").unwrap();
    assert_eq!(m.step(a, "BACKUP STAGE BLOCK_COMMIT"), Ok(Outcome::Waiting));
    assert!(m.kill(a));
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert_eq!(held, vec!["BACKUP - BACKUP_FLUSH".to_string()]);
    assert_eq!(m.step(a, "BACKUP STAGE FLUSH"), Ok(Outcome::Error));
    m.step(c, "UNLOCK TABLES").unwrap();
    assert_eq!(m.step(a, "BACKUP STAGE BLOCK_DDL"), Ok(Outcome::Ok));
}

#[test]
fn an_ftwrl_victim_asks_again_before_its_winner_goes_on() {
    // found/seed-211601.mdl: FTWRL, the victim of the copying ALTER's move back to
    // BACKUP_DDL, asks for BACKUP_FTWRL1 again before the ALTER ends, and gets it before
    // the LOCK TABLES that waited for the ALTER's table tries BACKUP_DDL.
    let mut m = model();
    let s1 = m.add_session();
    let s2 = m.add_session();
    let s3 = m.add_session();
    m.step(s3, "LOCK TABLES t1 WRITE CONCURRENT").unwrap();
    assert_eq!(
        m.step(s2, "ALTER TABLE t1 FORCE, ALGORITHM=COPY"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(
        m.step(s1, "FLUSH TABLES WITH READ LOCK"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(s3, "LOCK TABLES t1 WRITE"), Ok(Outcome::Waiting));
    assert_eq!(m.take_events(), vec![(s2, Outcome::Ok), (s1, Outcome::Ok)]);
    let held: Vec<String> = m.locks_of(s3).into_iter().collect();
    assert_eq!(held, vec!["BACKUP - BACKUP_DDL (pending)".to_string()]);
}

#[test]
fn a_handler_stays_open_for_a_copying_alters_late_x() {
    // found/seed-211382-2.mdl: UNLOCK TABLES lets a copying ALTER on; its X after the
    // copy waits for the session's HANDLER, which the next statement closes.
    let mut m = model();
    let s1 = m.add_session();
    let s3 = m.add_session();
    m.step(s3, "HANDLER t1 OPEN").unwrap();
    m.step(s3, "LOCK TABLES m1 WRITE, t1 WRITE").unwrap();
    assert_eq!(
        m.step(s1, "ALTER TABLE t1 FORCE, ALGORITHM=COPY"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(s3, "UNLOCK TABLES"), Ok(Outcome::Ok));
    assert!(m.take_events().is_empty());
    assert!(m.locks_of(s3).contains("TABLE test.t1 SR"));
    assert_eq!(m.step(s3, "SELECT * FROM t2"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(s1, Outcome::Ok)]);
}

#[test]
fn a_multi_table_update_needs_write_only_for_the_tables_it_sets() {
    // found/seed-10008.mdl: under LOCK TABLES t1 WRITE, t2 READ [LOCAL] the server runs
    // UPDATE t1, t2 SET t1.b=t2.b (t2 is only read: Multiupdate_prelocking_strategy
    // gives it a read lock type before lock_tables checks it), and refuses SET t2.b=...
    // with ER_TABLE_NOT_LOCKED_FOR_WRITE.
    let mut m = model();
    let a = m.add_session();
    m.step(a, "LOCK TABLES t1 WRITE, t2 READ LOCAL").unwrap();
    for q in [
        "UPDATE t1, t2 SET t1.b=t2.b WHERE t1.a=t2.a",
        "UPDATE t1 JOIN t2 ON t1.a=t2.a SET t1.b=t2.b",
        "UPDATE test.t1, t2 SET test.t1.b=(SELECT 1) WHERE t1.a=t2.a",
    ] {
        assert_eq!(m.step(a, q), Ok(Outcome::Ok), "{q}");
    }
    assert_eq!(
        m.step(a, "UPDATE t1, t2 SET t2.b=t1.b WHERE t1.a=t2.a"),
        Ok(Outcome::Error)
    );
    assert_eq!(m.session(a).last_error, Some(1099));
    // Which table an unqualified column belongs to is not known: a clear error.
    let e = m
        .step(a, "UPDATE t1, t2 SET b=1 WHERE t1.a=t2.a")
        .unwrap_err();
    assert!(e.contains("not qualified"), "{e}");
    // Aliases under the session's own LOCK TABLES are refused, naming the alias.
    let e = m
        .step(a, "UPDATE t1 AS x, t2 AS y SET x.b=y.b WHERE x.a=y.a")
        .unwrap_err();
    assert!(e.contains("`test.t1 AS x`"), "{e}");
    assert_eq!(m.step(a, "UNLOCK TABLES"), Ok(Outcome::Ok));
    // Without LOCK TABLES both are fine.
    assert_eq!(
        m.step(a, "UPDATE t1 AS x, t2 AS y SET x.b=y.b WHERE x.a=y.a"),
        Ok(Outcome::Ok)
    );
}

#[test]
fn a_statement_end_keeps_a_handler_its_implicit_commit_let_a_waiter_ask_for() {
    // known-differences/woken-race-10970.mdl: REPAIR's implicit commit ends the DELETE's
    // transaction, which lets the RENAME on from t1 to wait for t2, where the HANDLER holds
    // SR. REPAIR's flush (mysql_ha_flush, at the start of its open_tables) came before
    // that request, and nothing flushes at a statement's end: the HANDLER stays, the
    // RENAME waits (through the protocol client, every run; the old harness's end marker,
    // a SELECT, flushed it in a race with the woken RENAME).
    let mut m = model();
    let s1 = m.add_session();
    let s3 = m.add_session();
    m.step(s3, "HANDLER t2 OPEN").unwrap();
    m.step(s3, "BEGIN").unwrap();
    m.step(s3, "DELETE FROM t1 WHERE a=5").unwrap();
    assert_eq!(
        m.step(s1, "RENAME TABLE t2 TO t3, t1 TO t2"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(s3, "REPAIR TABLE m1"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![]);
    assert_eq!(m.locks_of(s3).len(), 1);
    assert!(m.is_waiting(s1));
}

#[test]
fn an_alter_of_a_missing_table_fails_before_its_upgrade() {
    // found/seed-250006: the failed UPDATE of a dropped table keeps its SW on the name for
    // the transaction; ALTER TABLE of that name takes SU (compatible), then open_tables
    // finds no table: ER_NO_SUCH_TABLE before the move up to SNW, which would wait.
    let mut m = model();
    let s1 = m.add_session();
    let s2 = m.add_session();
    m.step(s2, "DROP TABLE m1").unwrap();
    m.step(s1, "BEGIN").unwrap();
    assert_eq!(
        m.step(s1, "UPDATE m1 SET b=b+1 WHERE a=1"),
        Ok(Outcome::Error)
    );
    for alter in [
        "ALTER TABLE m1 FORCE, ALGORITHM=COPY",
        "ALTER TABLE m1 FORCE, ALGORITHM=INPLACE",
    ] {
        assert_eq!(m.step(s2, alter), Ok(Outcome::Error), "{alter}");
        assert_eq!(m.session(s2).last_error, Some(1146), "{alter}");
        assert!(m.locks_of(s2).is_empty(), "{alter}");
    }
}

#[test]
fn lock_tables_write_protects_by_the_engine_of_the_table_it_opened() {
    // found/seed-251009: LOCK TABLES t1 WRITE, t2 READ LOCAL gives back the session's
    // old LOCK TABLES, which lets in the RENAME that puts MyISAM m1 under the name t1;
    // the WRITE table opened is MyISAM, so it takes BACKUP_DML (lock_write.myisam).
    let mut m = model();
    let s2 = m.add_session();
    let s3 = m.add_session();
    m.step(s2, "LOCK TABLES t2 READ, t1 READ").unwrap();
    assert_eq!(
        m.step(s3, "RENAME TABLE t1 TO t3, m1 TO t1"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(
        m.step(s2, "LOCK TABLES t1 WRITE, t2 READ LOCAL"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.take_events(), vec![(s3, Outcome::Ok)]);
    assert!(m.locks_of(s2).contains("BACKUP - BACKUP_DML"));
}

#[test]
fn drop_trigger_finds_the_table_of_a_trigger_made_while_it_waited() {
    // known-differences/woken-race-251249.mdl (as 9 of 10 server runs): DROP TRIGGER IF EXISTS tr1 waits for the trigger's X behind a
    // CREATE TRIGGER that waits for the HANDLER on t2; LOCK TABLES t2 WRITE CONCURRENT
    // closes the HANDLER, the CREATE TRIGGER ends, and the DROP TRIGGER, which now finds
    // tr1, asks for SNW on t2: it waits behind the LOCK TABLES' SW.
    let mut m = model();
    let s1 = m.add_session();
    let s2 = m.add_session();
    let s3 = m.add_session();
    m.step(s2, "HANDLER t2 OPEN").unwrap();
    assert_eq!(
        m.step(
            s3,
            "CREATE TRIGGER tr1 BEFORE INSERT ON t2 FOR EACH ROW SET @x=1"
        ),
        Ok(Outcome::Waiting)
    );
    assert_eq!(
        m.step(s1, "DROP TRIGGER IF EXISTS tr1"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(
        m.step(s2, "LOCK TABLES t2 WRITE CONCURRENT"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.take_events(), vec![(s3, Outcome::Ok)]);
    let held: Vec<String> = m.locks_of(s1).into_iter().collect();
    assert_eq!(
        held,
        vec![
            "SCHEMA test IX".to_string(),
            "TABLE test.t2 SNW (pending)".to_string(),
            "TRIGGER test.tr1 X".to_string()
        ]
    );
    m.step(s2, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(s1, Outcome::Ok)]);
}

/// Issue 26: a refusal names the statement family it saw (a CREATE OR REPLACE FUNCTION
/// was refused with a message about CREATE OR REPLACE TABLE).
#[test]
fn refusals_name_the_family_they_saw() {
    let mut m = model();
    let a = m.add_session();
    // (Routine and event DDL is played now: classify/routine.rs.)
    for (sql, family) in [
        (
            "CREATE EVENT e1 ON SCHEDULE AT '2027-01-01 00:00:00' DO SELECT 1",
            "CREATE EVENT",
        ),
        (
            "ALTER EVENT e1 ON SCHEDULE EVERY @step SECOND",
            "ALTER EVENT",
        ),
    ] {
        let e = m.step(a, sql).expect_err(sql);
        assert!(e.contains(family), "{sql}: {e}");
        assert!(!e.contains("TABLE"), "{sql}: {e}");
    }
}
