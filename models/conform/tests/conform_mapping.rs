//! The learned statement table and the SQL scenarios, without a server: the table parses
//! and covers every statement kind; the composition rule ([`mdl_sql::compose`])
//! reproduces every learned row (the statements with several tables included) from the
//! rows of its parts; every committed SQL scenario parses and plays on our model; bad
//! tables and statements give clear errors.

use mdl_conform::{data_dir, scenario, ConformError};
use mdl_core::Dialect;
use mdl_sql::catalog::Catalog;
use mdl_sql::classify::{classify, classify_oracle, Stmt};
use mdl_sql::compose::{compose, keys, Step};
use mdl_sql::kind::Kind;
use mdl_sql::mapping::{kind_def, matrix_kinds, Mapping, OpKind, KINDS};
use mdl_sql::model::SqlModel;

#[test]
fn committed_table_parses_and_covers_every_kind() {
    let m = Mapping::load().expect("statements.tsv parses");
    assert!(
        m.version().is_some_and(|v| v.starts_with("10.")),
        "the header names the server version: {:?}",
        m.header
    );
    for k in KINDS {
        let row = m
            .kind(k.name())
            .unwrap_or_else(|| panic!("no row for {}", k.name()));
        assert_eq!(row.sql, k.sql);
        let lockless = [
            "backup_end",
            "flush_tables",
            "handler_read",
            "commit_write.myisam",
            // SHOW's MDL_SHARED_HIGH_PRIO, for the statement only, waits for X alone,
            // which no learner blocker holds.
            "show_create",
            "show_columns",
            // No lock of their own (classify/misc.rs).
            "set_global",
            "flush_privileges",
            "flush_status",
            "flush_logs",
            // ER_UNKNOWN_STORAGE_ENGINE after the implicit commit (classify/engines.rs).
            "create_unknown_engine",
            "alter_unknown_engine",
            // The learner's session is in a transaction, which check_read_only refuses
            // (1192): its locks are FTWRL's for the statement (model/read_only.rs),
            // measured by suite/set-global-read-only.mdl.
            "set_global_read_only",
        ];
        if !lockless.contains(&k.name()) {
            assert!(!row.ops.is_empty(), "{} learned no lock", k.name());
        }
    }
    assert!(m.rules.len() > 300, "{} session rules", m.rules.len());
    // Round trip.
    assert_eq!(Mapping::parse("x", &m.to_text()).unwrap(), m);
    // The warning when the running server is another version than the one learned on.
    let learned = m.version().expect("a version").to_owned();
    assert_eq!(m.version_warning(&learned), None);
    let w = m
        .version_warning("11.4.2-MariaDB")
        .expect("another server version warns");
    assert!(w.contains(&learned) && w.contains("11.4.2-MariaDB"), "{w}");
    let mut other = m.clone();
    other.header = Mapping::header_for("10.6.1-MariaDB");
    assert!(other
        .version_warning(&learned)
        .is_some_and(|w| w.contains("10.6.1-MariaDB")));
}

#[test]
fn learned_facts_the_brief_names() {
    let m = Mapping::load().unwrap();
    let has = |k: &str, op: &str, ns: &str, key: &str, ty: &str| {
        m.kind(k)
            .unwrap_or_else(|| panic!("no kind {k}"))
            .ops
            .iter()
            .any(|o| o.op.name() == op && o.ns == ns && o.key == key && o.ty.abbrev() == ty)
    };
    assert!(has("select", "acquire", "TABLE", "$t", "SR"));
    assert!(has("lock_write", "bulk", "SCHEMA", "$db", "IX"));
    assert!(has("lock_write", "bulk", "TABLE", "$t", "SNRW"));
    assert!(has("lock_write", "backoff", "BACKUP", "-", "BACKUP_DDL"));
    assert!(has("ftwrl", "upgrade", "BACKUP", "-", "BACKUP_FTWRL2"));
    assert!(has("get_lock", "acquire", "USER_LOCK", "$lock", "SNW"));
    // RENAME's target is locked too.
    assert!(has("rename", "bulk", "TABLE", "$n", "X"));
    // RELEASE_ALL_LOCKS gives the user locks back (it is not a lock-free SELECT).
    assert!(has(
        "release_all_locks",
        "release",
        "USER_LOCK",
        "$lock",
        "SNW"
    ));
    // MyISAM DML takes BACKUP_DML, not BACKUP_TRANS_DML.
    assert!(has("insert.myisam", "acquire", "BACKUP", "-", "BACKUP_DML"));
    // CREATE TRIGGER takes the trigger's X before the table group.
    let tr = m.kind("create_trigger").unwrap();
    assert_eq!(tr.ops[0].ns, "TRIGGER");
    assert_eq!(tr.ops[0].op, OpKind::Acquire);
    // The session rules the brief names.
    let rule = |st: &str, k: &str| m.rule(st, k).unwrap_or_else(|| panic!("no rule {st} {k}"));
    assert_eq!(rule("lt_read", "insert").error, Some(1099));
    assert_eq!(rule("lt_other", "select").error, Some(1100));
    assert_eq!(rule("ftwrl", "insert").error, Some(1223));
    assert_eq!(rule("bs_start", "insert").error, Some(4145));
    assert!(rule("handler", "ftwrl")
        .removed
        .iter()
        .any(|l| l.key == "$t" && l.ty.abbrev() == "SR"));
}

#[test]
fn bad_tables_are_errors_with_lines() {
    let e = |t: &str| match Mapping::parse("f.tsv", t) {
        Err(mdl_sql::SqlError::Data { line, msg, .. }) => (line, msg),
        other => panic!("expected an error, got {other:?}"),
    };
    assert_eq!(e("kind\tselect\tmaybe\tSELECT 1\n").0, 1);
    assert_eq!(
        e("kind\tselect\tno\tSELECT 1\nop\tselect\t1\tacquire\tNOPE\t-\tSR\tstatement\t-\n").0,
        2
    );
    assert!(e(
        "kind\tselect\tno\tS\nop\tselect\t1\tacquire\tTABLE\t$t\tBACKUP_DML\tstatement\t-\n"
    )
    .1
    .contains("does not take"));
    assert!(e("op\tinsert\t1\tacquire\tTABLE\t$t\tSR\tstatement\t-\n")
        .1
        .contains("unknown kind"));
    assert!(
        e("kind\tselect\tno\tS\nop\tselect\t2\tacquire\tTABLE\t$t\tSR\tstatement\t-\n")
            .1
            .contains("expected op 1")
    );
    assert!(
        e("kind\tselect\tno\tS\nrule\tlt_read\tselect\tmaybe\t-\t-\n")
            .1
            .contains("expected ok or E<code>")
    );
    assert!(e("rule\tlt_read\tnope\tok\t-\t-\n")
        .1
        .contains("unknown kind"));
    assert!(
        e("kind\tselect\tno\tS\nrule\tlt_read\tselect\tok\tTABLE $t\t-\n")
            .1
            .contains("NAMESPACE KEY TYPE")
    );
    assert!(e("garbage\n").1.contains("expected"));
    // A kind that is not a statement kind: its line and column.
    let unknown = Mapping::parse("f.tsv", "kind\tx\tno\tSELECT 1\n").expect_err("unknown");
    assert_eq!(unknown.to_string(), "f.tsv:1:6: unknown statement kind `x`");
}

fn has_row(m: &Mapping) -> impl Fn(&str) -> bool + '_ {
    |r: &str| m.kind(r).is_some()
}

/// LOCK TABLES of a view: learned, not played (a table locked through a view is usable
/// only through it; the model refuses LOCK TABLES of a view).
const LOCK_VIEW: &[&str] = &["lock_read_view", "lock_write_view"];

/// DML through a view: a part of the DML statement (its plan's kind is the DML's).
const VIEW_DML: &[&str] = &[
    "select_view",
    "insert_view",
    "update_view",
    "delete_view",
    "select_view_temptable",
];

/// Foreign-key kinds that are not a parent's DML or are played as another: INSERT into a
/// parent whose key cascades is `fk_insert_parent` (learned equal), a child's DML is the
/// plain DML's rows
/// (learned to show it), DROP TABLE of a parent the plain DROP's with its error, and
/// ALTER TABLE ... ADD FOREIGN KEY is refused (its learned row shows the parent's SNW,
/// not the child's upgrades).
const FK_OTHER: &[&str] = &[
    "fk_insert_parent_cascade",
    "fk_insert_child",
    "fk_update_child",
    "fk_delete_child",
    "fk_drop_parent",
    "fk_add_copy",
];

/// A kind's prep on the model: setup lines, or for the package kinds (whose prep sets
/// sql_mode=ORACLE) statements of a session of their own.
fn prep(model: &mut SqlModel, k: &mdl_sql::mapping::KindDef) {
    if k.setup.contains(&"SET sql_mode=ORACLE") {
        let s = model.add_session();
        for p in k.prep {
            assert_eq!(model.step(s, p), Ok(mdl_core::Outcome::Ok), "{p}");
        }
        return;
    }
    for p in k.prep {
        model.setup(p).unwrap();
    }
}

/// A kind's statement classified as its session reads it: the package kinds under
/// sql_mode=ORACLE (their `setup`), the others in the default grammar.
fn classify_kind(
    k: &mdl_sql::mapping::KindDef,
    cat: &Catalog,
    m: &Mapping,
) -> Result<Stmt, String> {
    if k.setup.contains(&"SET sql_mode=ORACLE") {
        if let Some(st) = classify_oracle(k.sql, "test", cat, &has_row(m)) {
            return st;
        }
    }
    classify(k.sql, "test", cat, &has_row(m))
}

#[test]
fn classifier_knows_every_kind() {
    let m = Mapping::load().unwrap();
    for k in KINDS.iter().filter(|k| !k.check) {
        if k.name() == "commit_write"
            || k.name().ends_with(".myisam")
            || k.name() == "optimize"
            || LOCK_VIEW.contains(&k.name())
            || FK_OTHER.contains(&k.name())
        {
            continue;
        }
        let mut cat = Catalog::fixture();
        let mut model = SqlModel::new(m.clone());
        prep(&mut model, k);
        cat.clone_from(&model.catalog);
        match classify_kind(k, &cat, &m) {
            // FOR EXPORT is played as WITH READ LOCK with its own rows; LOCK TABLES of a
            // sequence: the `lock_*_sequence` row of a `lock_*` part (INSERT into one:
            // `insert_sequence`).
            Ok(Stmt::Learned(p))
                if k.name().starts_with("lock_")
                    || k.name() == "flush_export"
                    || VIEW_DML.contains(&k.name())
                    || (k.name().starts_with("alter_") && k.name().contains("_lock_"))
                    || (k.name().starts_with("alter_") && k.name().ends_with("_rename"))
                    || k.name().starts_with("fk_")
                    // CHECK / REPAIR VIEW of a view of no table: the `*_const` row of a
                    // `check_view` / `repair_view` plan.
                    || k.name().starts_with("check_view")
                    || k.name().starts_with("repair_view")
                    // An INSERT into a sequence: the `insert_sequence` row of an INSERT.
                    || k.name() == "insert_sequence" =>
            {
                assert_eq!(p.parts[0].row, k.name(), "{}", k.sql)
            }
            Ok(Stmt::Learned(p)) => assert_eq!(p.kind.as_str(), k.name(), "{}", k.sql),
            Ok(Stmt::ReleaseAllLocks) => assert_eq!(k.name(), "release_all_locks"),
            Ok(Stmt::HandlerRead(_)) => assert_eq!(k.name(), "handler_read"),
            other => panic!("{}: {other:?}", k.sql),
        }
    }
}

#[test]
fn statements_outside_the_table_are_refused_by_name() {
    let m = Mapping::load().unwrap();
    let cat = Catalog::fixture();
    let err = |q: &str| classify(q, "test", &cat, &has_row(&m)).unwrap_err();
    assert!(err("GRANT ALL PRIVILEGES, PROXY ON u1 TO u2").contains("privilege"));
    assert!(err("ALTER TABLE t1 ADD INDEX (b), LOCK='none'").contains("LOCK="));
    // BACKUP LOCK t is a learned kind; BACKUP UNLOCK a control statement; BACKUP LOCK with
    // no table is the parser's error (main/backup_syntax.test).
    match classify("BACKUP LOCK test.t1", "test", &cat, &has_row(&m)).unwrap() {
        Stmt::Learned(p) => assert_eq!(p.kind, Kind::TableBackupLock),
        s => panic!("{s:?}"),
    }
    assert_eq!(
        classify("BACKUP UNLOCK", "test", &cat, &has_row(&m)).unwrap(),
        Stmt::BackupUnlock
    );
    assert_eq!(
        classify("BACKUP LOCK", "test", &cat, &has_row(&m)).unwrap(),
        Stmt::Fails(1064)
    );
    // HANDLER t OPEN [AS] alias names the HANDLER.
    for q in ["HANDLER t1 OPEN t", "handler t1 open as t"] {
        match classify(q, "test", &cat, &has_row(&m)).unwrap() {
            Stmt::Learned(p) => assert_eq!(p.parts[0].bind.alias.as_deref(), Some("t"), "{q}"),
            s => panic!("{q}: {s:?}"),
        }
    }
    // MyISAM ALTERs that are not copies are refused, not played as one (DISABLE KEYS has
    // its own learned row: classify/alter_keys.rs).
    assert!(err("ALTER TABLE m1 ADD COLUMN c INT, DISABLE KEYS").contains("MyISAM"));
    assert!(err("alter table m1 alter column a set default 100").contains("MyISAM"));
    // The `=` of ALGORITHM and LOCK is optional (mysql-test writes `algorithm copy`).
    // `LOCK NONE` (no `=`) is LOCK=NONE: an in-place ADD INDEX takes its usual row.
    for (q, kind) in [
        (
            "alter table t1 add column (j int), algorithm copy",
            "alter_copy",
        ),
        (
            "ALTER TABLE t1 ADD COLUMN j INT, ALGORITHM INPLACE",
            "alter_inplace",
        ),
        ("CREATE INDEX ib ON t1 (b) ALGORITHM COPY", "alter_copy"),
        ("ALTER TABLE t1 ADD INDEX (b), LOCK NONE", "alter_inplace"),
    ] {
        match classify(q, "test", &cat, &has_row(&m)).unwrap() {
            Stmt::Learned(p) => assert_eq!(p.kind.as_str(), kind, "{q}"),
            s => panic!("{q}: {s:?}"),
        }
    }
    assert!(err("CREATE TEMPORARY TABLE x (a INT)").contains("temporary"));
    // OPTIMIZE of several tables is each in turn (compose.rs admin_one_by_one).
    match classify("OPTIMIZE TABLE t1, t2", "test", &cat, &has_row(&m)).unwrap() {
        Stmt::Learned(p) => assert_eq!(p.parts.len(), 2),
        s => panic!("{s:?}"),
    }
    // SLEEP is played without time (`classify/select.rs`): no lock of its own.
    assert_eq!(
        classify("SELECT SLEEP(1)", "test", &cat, &has_row(&m)).unwrap(),
        Stmt::NoLocks
    );
    assert!(err("SET TRANSACTION READ ONLY").contains("READ ONLY"));
    // REVOKE on a routine is modelled since (mysql_routine_grant: 1403 with no row);
    // PROXY among other privileges is not.
    assert!(matches!(
        classify(
            "REVOKE EXECUTE ON PROCEDURE p1 FROM u",
            "test",
            &cat,
            &has_row(&m)
        ),
        Ok(Stmt::Learned(_))
    ));
    assert!(err("SELECT GET_LOCK('a')").contains("timeout"));
    // RELEASE_ALL_LOCKS is not a lock-free SELECT.
    assert_eq!(
        classify("SELECT RELEASE_ALL_LOCKS()", "test", &cat, &has_row(&m)).unwrap(),
        Stmt::ReleaseAllLocks
    );
    let r = classify("SELECT GET_LOCK('a', 1.5)", "test", &cat, &has_row(&m)).unwrap();
    match r {
        Stmt::Learned(p) => assert_eq!(p.user_lock_timeout, Some(1500)),
        s => panic!("{s:?}"),
    }
    let r = classify("LOCK TABLES t1 WRITE WAIT 3", "test", &cat, &has_row(&m)).unwrap();
    match r {
        Stmt::Learned(p) => assert_eq!(p.wait, Some(3)),
        s => panic!("{s:?}"),
    }
}

/// A learned row's ops with the fixture's names bound, as flat lines.
fn learned_flat(m: &Mapping, name: &str, cat: &Catalog) -> Vec<String> {
    let d = Dialect::mariadb();
    let myisam = name.ends_with(".myisam");
    let t = |n: &str| mdl_sql::classify::Tbl {
        db: "test".into(),
        name: n.into(),
    };
    let b = mdl_sql::classify::Bind {
        t: Some(t(if myisam { "m1" } else { "t1" })),
        t2: Some(t(if myisam { "m2" } else { "t2" })),
        n: Some(t("t3")),
        n2: Some(t("t4")),
        v: Some(t("v1")),
        tr: Some(t("tr1")),
        // The routine kinds' routine or event (`learn::template`).
        r: Some(t(if name.contains("package") {
            "pkg1"
        } else if name.contains("function") {
            "f1"
        } else if name.contains("event") {
            "e1"
        } else {
            "p1"
        })),
        s: Some("db1".into()),
        lock: Some("u1".into()),
        alias: None,
    };
    let row = m.kind(name).unwrap();
    let mut out = Vec::new();
    for o in &row.ops {
        let ks = if o.key == "$db" {
            vec![mdl_core::key::MdlKey::new(
                d.namespace_by_name("SCHEMA").unwrap(),
                "test",
                "",
            )]
        } else {
            keys(&d, cat, &o.ns, &o.key, &b).unwrap()
        };
        for k in ks {
            let ns = &d.namespace(k.namespace()).name;
            out.push(format!(
                "{} {ns} {} {}",
                o.op.name(),
                mdl_sql::key_text::key_text(ns, k.db(), k.name()),
                o.ty
            ));
        }
    }
    out
}

/// Kinds the composition is not compared with, and why.
const NOT_COMPOSED: &[(&str, &str)] = &[
    ("commit_write", "a COMMIT, not a statement of the table"),
    (
        "commit_write.myisam",
        "a COMMIT, not a statement of the table",
    ),
    (
        "optimize",
        "InnoDB OPTIMIZE is recreate + analyze, not played",
    ),
    (
        "analyze_multi",
        "admin statements do one table after the other (Step::Commit between), which one \
         learned sequence cannot show",
    ),
    (
        "handler_read",
        "a HANDLER READ, not a statement of the table",
    ),
];

#[test]
fn composition_reproduces_every_learned_row() {
    let m = Mapping::load().unwrap();
    let d = Dialect::mariadb();
    let mut failures = Vec::new();
    for k in KINDS {
        if NOT_COMPOSED.iter().any(|(n, _)| *n == k.name())
            || LOCK_VIEW.contains(&k.name())
            || k.name() == "fk_add_copy"
        {
            continue;
        }
        let mut model = SqlModel::new(m.clone());
        prep(&mut model, k);
        let cat = model.catalog.clone();
        let plan = match classify_kind(k, &cat, &m) {
            Ok(Stmt::Learned(p)) => p,
            Ok(Stmt::ReleaseAllLocks) => continue,
            other => panic!("{}: {other:?}", k.sql),
        };
        let steps = compose(&m, &d, &cat, &plan).unwrap();
        let got: Vec<String> = Step::flat(&steps, &d)
            .into_iter()
            .map(|l| l.replace("acquire", "A").replace("bulk", "B"))
            .collect();
        let want: Vec<String> = learned_flat(&m, k.name(), &cat)
            .into_iter()
            .map(|l| l.replace("acquire", "A").replace("bulk", "B"))
            .collect();
        if got != want {
            failures.push(format!(
                "{} ({}):\n  composed {got:?}\n  learned  {want:?}",
                k.name(),
                k.sql
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn scenario_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn every_sql_scenario_parses_and_plays_on_our_model() {
    let m = Mapping::load().unwrap();
    let mut files = scenario_files(&data_dir());
    assert!(files.len() >= 30, "the quick set has {} files", files.len());
    let suite = scenario_files(&data_dir().join("suite"));
    assert!(suite.len() >= 110, "the suite has {} files", suite.len());
    files.extend(suite);
    files.extend(scenario_files(&data_dir().join("known-differences")));
    files.extend(scenario_files(&data_dir().join("found")));
    files.extend(scenario_files(&data_dir().join("open")));
    for f in files {
        scenario::load(&f, &m).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn a_non_sql_step_is_refused_with_its_position() {
    let m = Mapping::load().unwrap();
    let load = |t: &str| scenario::load_text("t.mdl", t, &m);
    match load("dialect mariadb\ns1: acquire TABLE a.b SR\n") {
        Err(ConformError::Scenario { line, .. }) => assert_eq!(line, 2),
        other => panic!("{other:?}"),
    }
    match load("dialect mariadb\ns1: sql BEGIN\ns1: sql SHUTDOWN\n") {
        Err(ConformError::Scenario { line, msg, .. }) => {
            assert_eq!(line, 3);
            assert!(msg.contains("not in the learned table"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        load("s1: sql SELECT 1\n"),
        Err(ConformError::Scenario { .. })
    ));
    // A setup line the model cannot follow is refused at its line.
    // (Foreign keys are modelled since, but not ON DELETE SET DEFAULT.)
    match load("dialect mariadb\nsetup: sql CREATE TABLE x (a INT, FOREIGN KEY (a) REFERENCES t1 (a) ON DELETE SET DEFAULT)\ns1: sql SELECT 1\n") {
        Err(ConformError::Scenario { line, msg, .. }) => {
            assert_eq!(line, 2);
            assert!(msg.contains("foreign key action"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    // The user's own schema: a MyISAM table made by setup takes the MyISAM rows.
    let sc = load(
        "dialect mariadb\nsetup: sql CREATE DATABASE shop\n\
         setup: sql CREATE TABLE shop.orders (a INT) ENGINE=MyISAM\n\
         s1: sql INSERT INTO shop.orders VALUES (1)\n",
    )
    .unwrap();
    assert_eq!(sc.setup.len(), 2);
    let mut model = SqlModel::new(m.clone());
    for (_, q) in &sc.setup {
        model.setup(q).unwrap();
    }
    let s = model.add_session();
    model.step(s, "BEGIN").unwrap();
    model.step(s, "INSERT INTO shop.orders VALUES (1)").unwrap();
    assert!(model.locks_of(s).contains("TABLE shop.orders SW"));
    // A statement on a table the catalog lacks fails after its locks, as the server does.
    let s2 = model.add_session();
    assert_eq!(
        model.step(s2, "SELECT * FROM shop.nothing").unwrap(),
        mdl_core::Outcome::Error
    );
    assert_eq!(model.session(s2).last_error, Some(1146));
}

#[test]
fn the_matrix_kinds_are_defined() {
    for k in matrix_kinds() {
        assert!(kind_def(k.name()).is_some());
    }
}

/// A `max_write_lock_count` setting in a conformance file would limit only the model:
/// refused at its line; `server_option max_write_lock_count` (server and model) is read.
#[test]
fn a_model_only_hog_limit_is_refused_and_the_server_option_is_read() {
    let m = Mapping::load().unwrap();
    let load = |t: &str| scenario::load_text("t.mdl", t, &m);
    match load("dialect mariadb\nmax_write_lock_count 1\ns1: sql SELECT 1\n") {
        Err(ConformError::Scenario { line, col, msg, .. }) => {
            assert_eq!((line, col), (2, 1));
            assert!(msg.contains("server_option max_write_lock_count"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    let sc = load("dialect mariadb\nserver_option max_write_lock_count 1\ns1: sql SELECT 1\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sc.settings.max_write_lock_count, 1);
    assert_eq!(
        scenario::options_of(&sc),
        vec![(mdl_scenario::ServerOptionName::MaxWriteLockCount, 1)]
    );
}
