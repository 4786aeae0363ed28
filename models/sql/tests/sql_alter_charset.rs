//! CHARACTER SET / COLLATE in ALTER TABLE (classify/alter_charset.rs, `crate::collations`,
//! alter_columns.rs) and the admin statements' options (classify/admin.rs,
//! classify/analyze_persistent.rs), without a server: each outcome was seen on MariaDB
//! 10.11.19 (the errors by the mariadb client; the locks by the corpus with a server,
//! models/conformance/README.md, and models/conformance/suite/alter-collate-admin-options.mdl).

use mdl_sql::classify::{classify, Stmt};
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

/// (statement on the fixture, what the model makes of it): a learned kind, `fails N`
/// (an error before any lock), or `refused`.
const CASES: &[(&str, &str)] = &[
    // A type of another kind is copied whatever its collation.
    (
        "ALTER TABLE t1 MODIFY a VARCHAR(100) COLLATE sjis_bin",
        "alter_copy",
    ),
    (
        "ALTER TABLE t1 MODIFY b VARCHAR(32) CHARACTER SET utf8 COLLATE utf8_czech_ci",
        "alter_copy",
    ),
    (
        "ALTER TABLE t1 MODIFY b VARCHAR(32) CHARACTER SET utf8mb4 COLLATE uca1400_ai_ci",
        "alter_copy",
    ),
    // Names the server does not have, or of another character set: the parser's errors.
    (
        "ALTER TABLE t1 MODIFY b VARCHAR(10) CHARACTER SET ascii2 COLLATE ascii2_bin",
        "fails 1115",
    ),
    (
        "ALTER TABLE t1 MODIFY b VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_swedish_nopad2_ci",
        "fails 1273",
    ),
    (
        "ALTER TABLE t1 MODIFY b VARCHAR(32) CHARACTER SET utf8 COLLATE latin1_bin",
        "fails 1253",
    ),
    (
        "ALTER TABLE t1 CONVERT TO CHARACTER SET utf8mb4 COLLATE latin1_bin",
        "fails 1253",
    ),
    (
        "ALTER TABLE t1 CONVERT TO CHARACTER SET ucs2 COLLATE ucs2_5624_1",
        "fails 1273",
    ),
    // CONVERT TO of a table without character columns changes no column.
    (
        "ALTER TABLE t1 CONVERT TO CHARACTER SET DEFAULT",
        "alter_instant",
    ),
    (
        "ALTER TABLE t1 CONVERT TO CHARACTER SET DEFAULT COLLATE latin1_bin",
        "alter_instant",
    ),
    (
        "ALTER TABLE t1 CONVERT TO CHARACTER SET ucs2 COLLATE ucs2_danish_ci",
        "alter_instant",
    ),
    // Not followed: a collation of the same type's column, DEFAULT's other set.
    ("ALTER TABLE t1 MODIFY b INT ZEROFILL", "alter_copy"),
    (
        "ALTER TABLE t1 CONVERT TO CHARACTER SET DEFAULT COLLATE uca1400_ai_ci",
        "refused",
    ),
    (
        "ALTER TABLE t1 MODIFY b VARCHAR(3) COLLATE uca1400_ai_ci",
        "refused",
    ),
    // The admin statements' options.
    ("CHECK TABLE t1 FOR UPGRADE", "check_table"),
    ("CHECK TABLE t1 QUICK FOR UPGRADE", "check_table"),
    ("ANALYZE TABLE t1 PERSISTENT FOR ALL", "analyze_persistent"),
    (
        "ANALYZE TABLE t1 PERSISTENT FOR COLUMNS (a,b) INDEXES ()",
        "analyze_persistent",
    ),
    (
        "ANALYZE TABLE t1 PERSISTENT FOR COLUMNS() INDEXES(PRIMARY)",
        "analyze_persistent",
    ),
    (
        "ANALYZE TABLE nosuch PERSISTENT FOR COLUMNS() INDEXES()",
        "analyze_persistent",
    ),
    (
        "ANALYZE TABLE t1 PERSISTENT FOR COLUMNS (b,c) INDEXES ALL",
        "refused",
    ),
    ("analyze table t1 extended", "fails 1064"),
    ("optimize table t1 extended", "fails 1064"),
    ("repair table t1 from mysql", "fails 1064"),
    ("repair table t1 quick use_frm", "repair"),
];

fn outcome(sql: &str) -> String {
    let map = Mapping::load().expect("statements.tsv");
    let m = SqlModel::new(map.clone());
    let has = |r: &str| map.kind(r).is_some();
    match classify(sql, "test", &m.catalog, &has) {
        Ok(Stmt::Learned(p)) => p.kind.as_str().to_owned(),
        Ok(Stmt::Fails(code)) => format!("fails {code}"),
        Ok(other) => format!("{other:?}"),
        Err(_) => "refused".into(),
    }
}

#[test]
fn collations_and_admin_options_follow_the_server() {
    let wrong: Vec<String> = CASES
        .iter()
        .filter_map(|(sql, want)| {
            let got = outcome(sql);
            (got != *want).then(|| format!("{sql}: want {want}, model {got}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_names_are_the_servers() {
    use mdl_sql::collations::{charset, collation};
    assert_eq!(charset("UTF8"), Some("utf8mb3"));
    assert_eq!(charset("ascii2"), None);
    assert_eq!(
        collation("utf8_czech_ci"),
        Some(("utf8mb3_czech_ci", "utf8mb3"))
    );
    assert_eq!(collation("uca1400_ai_ci"), Some(("uca1400_ai_ci", "")));
    assert_eq!(collation("latin1_swedish_nopad2_ci"), None);
}

#[test]
fn unknown_algorithm_and_lock_are_the_parsers_errors() {
    assert_eq!(
        outcome("ALTER TABLE t1 ADD INDEX i5(b), ALGORITHM= INVALID"),
        "fails 1800"
    );
    assert_eq!(
        outcome("ALTER TABLE t1 ADD INDEX i5(b), LOCK= INVALID"),
        "fails 1801"
    );
    assert_eq!(
        outcome("ALTER TABLE t1 ADD INDEX i5(b), LOCK= 'none'"),
        "refused"
    );
}
