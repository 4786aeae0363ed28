//! `ALTER TABLE child ADD FOREIGN KEY ... REFERENCES parent` (`classify/fk_alter.rs`),
//! played on the model alone (suite/fk-alter-add-foreign-key.mdl compares it with the
//! server): the learned `fk_add_copy` row (the child's ALTER ... COPY, the parent SNW),
//! and the catalog's edge afterwards.

use mdl_core::Outcome;
use mdl_sql::classify::{classify, Stmt};
use mdl_sql::kind::Kind;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

#[test]
fn a_writer_of_the_parent_makes_it_wait_and_a_reader_does_not() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let [app, ddl] = [(); 2].map(|_| m.add_session());
    m.step(app, "BEGIN").unwrap();
    m.step(app, "SELECT * FROM t1").unwrap();
    let add = "ALTER TABLE t2 ADD FOREIGN KEY IF NOT EXISTS fk (b) REFERENCES t1 (a)";
    assert_eq!(m.step(ddl, add).unwrap(), Outcome::Ok);
    m.step(app, "COMMIT").unwrap();
    m.step(app, "BEGIN").unwrap();
    m.step(app, "INSERT INTO t0 VALUES (9)").unwrap();
    let add0 = "ALTER TABLE t1 ADD CONSTRAINT c FOREIGN KEY (b) REFERENCES t0 (a)";
    assert_eq!(m.step(ddl, add0).unwrap(), Outcome::Waiting);
    m.step(app, "COMMIT").unwrap();
    assert_eq!(m.take_events(), vec![(ddl, Outcome::Ok)]);
}

#[test]
fn the_key_makes_the_parent_prelock_its_child() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let [app, ddl] = [(); 2].map(|_| m.add_session());
    let add = "ALTER TABLE t2 ADD FOREIGN KEY (b) REFERENCES t1 (a) ON DELETE CASCADE";
    assert_eq!(m.step(ddl, add).unwrap(), Outcome::Ok);
    m.step(app, "BEGIN").unwrap();
    m.step(app, "DELETE FROM t1 WHERE a=4").unwrap();
    assert_eq!(m.step(ddl, "DROP TABLE t2").unwrap(), Outcome::Waiting);
    m.step(app, "COMMIT").unwrap();
    assert_eq!(m.take_events(), vec![(ddl, Outcome::Ok)]);
}

#[test]
fn the_row_and_the_refusals() {
    let map = Mapping::load().unwrap();
    let cat = mdl_sql::catalog::Catalog::fixture();
    let has = |r: &str| map.kinds.iter().any(|k| k.name == r);
    let st = classify(
        "ALTER TABLE t2 ADD FOREIGN KEY (b) REFERENCES t1 (a), ALGORITHM=COPY",
        "test",
        &cat,
        &has,
    );
    let Ok(Stmt::Learned(p)) = st else {
        panic!("{st:?}")
    };
    assert_eq!(p.kind, Kind::FkAddCopy);
    for sql in [
        "ALTER TABLE t2 ADD FOREIGN KEY (b) REFERENCES t1 (a), ALGORITHM=INPLACE",
        "ALTER TABLE t2 ADD FOREIGN KEY (b) REFERENCES t1 (a), ADD COLUMN c INT",
        "ALTER TABLE m1 ADD FOREIGN KEY (b) REFERENCES m2 (a)",
        "ALTER TABLE t2 ADD FOREIGN KEY (b) REFERENCES t2 (a)",
    ] {
        let e = classify(sql, "test", &cat, &has).unwrap_err();
        assert!(e.contains("not modelled"), "{sql}: {e}");
    }
}

/// A parent InnoDB does not find (missing, MyISAM): ER_CANT_CREATE_TABLE once the
/// statement's locks are taken (`catalog/fks.rs`, `model/fk_checks.rs`;
/// suite/fk-myisam-parent.mdl compares it with the server).
#[test]
fn a_parent_that_is_not_innodb_fails_with_1005() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let [app, ddl] = [(); 2].map(|_| m.add_session());
    m.step(app, "LOCK TABLES m1 WRITE").unwrap();
    // CREATE TABLE locks no parent: no wait for m1, no table afterwards.
    let create = "CREATE TABLE c1 (a INT, FOREIGN KEY (a) REFERENCES m1 (a)) ENGINE=InnoDB";
    assert_eq!(m.step(ddl, create).unwrap(), Outcome::Error);
    assert_eq!(m.step(ddl, "SELECT * FROM c1").unwrap(), Outcome::Error);
    // ALTER opens the parent SNW: it waits for the LOCK TABLES, then fails.
    let alter = "ALTER TABLE t2 ADD FOREIGN KEY (b) REFERENCES m1 (a)";
    assert_eq!(m.step(ddl, alter).unwrap(), Outcome::Waiting);
    m.step(app, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(ddl, Outcome::Error)]);
    // A missing parent: the ALTER stops before its X (a reader of the child does not
    // stop it), and the child keeps no key (DML on it prelocks nothing).
    m.step(app, "BEGIN").unwrap();
    m.step(app, "SELECT * FROM t2").unwrap();
    let missing = "ALTER TABLE t2 ADD FOREIGN KEY (b) REFERENCES t9 (a)";
    assert_eq!(m.step(ddl, missing).unwrap(), Outcome::Error);
    m.step(app, "COMMIT").unwrap();
}

/// While a session has foreign_key_checks off, its statements with keys are refused;
/// back on, they are played again.
#[test]
fn foreign_key_checks_off_refuses_the_statements_with_keys() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let s = m.add_session();
    m.step(s, "SET foreign_key_checks = 0").unwrap();
    let create = "CREATE TABLE c1 (a INT, FOREIGN KEY (a) REFERENCES t9 (a)) ENGINE=InnoDB";
    let e = m.step(s, create).unwrap_err();
    assert!(e.contains("foreign_key_checks"), "{e}");
    assert_eq!(m.step(s, "SELECT * FROM t1").unwrap(), Outcome::Ok);
    m.step(s, "SET @@session.foreign_key_checks = 1").unwrap();
    assert_eq!(m.step(s, create).unwrap(), Outcome::Error);
}

#[test]
fn set_statement_foreign_key_checks_is_refused() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let s = m.add_session();
    let e = m
        .step(
            s,
            "SET STATEMENT foreign_key_checks=0 FOR CREATE TABLE c1 (a INT, FOREIGN KEY (a) \
             REFERENCES t9 (a)) ENGINE=InnoDB",
        )
        .unwrap_err();
    assert!(e.contains("foreign_key_checks"), "{e}");
}
