//! The learned statement table and the SQL scenarios, without a server: the table parses
//! and covers every statement kind, every committed SQL scenario parses and plays on our
//! manager through the mapping, and bad tables give `FILE:LINE` errors.

use mdl_conform::mapping::{classify, matrix_kinds, Mapping, Stmt, KINDS};
use mdl_conform::model::SqlModel;
use mdl_conform::{data_dir, scenario, ConformError};
use mdl_scenario::{Command, Item};

#[test]
fn committed_table_parses_and_covers_every_kind() {
    let m = Mapping::load().expect("statements.tsv parses");
    assert!(
        m.header.iter().any(|h| h.contains("MariaDB 10.")),
        "the header names the server version: {:?}",
        m.header
    );
    for k in KINDS {
        let row = m
            .kind(k.name)
            .unwrap_or_else(|| panic!("no row for {}", k.name));
        assert_eq!(row.sql, k.sql);
        if k.name != "backup_end" {
            assert!(!row.ops.is_empty(), "{} learned no lock", k.name);
        }
    }
    // Round trip.
    assert_eq!(Mapping::parse("x", &m.to_text()).unwrap(), m);
}

#[test]
fn learned_facts_the_brief_names() {
    let m = Mapping::load().unwrap();
    let has = |k: &str, ns: &str, ty: &str| {
        m.kind(k)
            .unwrap()
            .ops
            .iter()
            .any(|o| o.ns == ns && o.ty.abbrev() == ty)
    };
    assert!(has("select", "TABLE", "SR"));
    assert!(has("lock_write", "SCHEMA", "IX"));
    assert!(has("lock_write", "TABLE", "SNRW"));
    assert!(has("ftwrl", "BACKUP", "BACKUP_FTWRL2"));
    assert!(has("get_lock", "USER_LOCK", "SNW"));
}

#[test]
fn bad_tables_are_errors_with_lines() {
    let e = |t: &str| match Mapping::parse("f.tsv", t) {
        Err(ConformError::Data { line, msg, .. }) => (line, msg),
        other => panic!("expected an error, got {other:?}"),
    };
    assert_eq!(e("kind\tx\tmaybe\tSELECT 1\n").0, 1);
    assert_eq!(
        e("kind\tx\tno\tSELECT 1\nop\tx\t1\tacquire\tNOPE\t-\tSR\tstatement\t-\n").0,
        2
    );
    assert!(
        e("kind\tx\tno\tS\nop\tx\t1\tacquire\tTABLE\t$db.$t\tBACKUP_DML\tstatement\t-\n")
            .1
            .contains("does not take")
    );
    assert!(e("op\ty\t1\tacquire\tTABLE\t$db.$t\tSR\tstatement\t-\n")
        .1
        .contains("unknown kind"));
    assert!(
        e("kind\tx\tno\tS\nop\tx\t2\tacquire\tTABLE\t$db.$t\tSR\tstatement\t-\n")
            .1
            .contains("expected op 1")
    );
    assert!(e("garbage\n").1.contains("expected"));
}

#[test]
fn classifier_knows_every_matrix_kind() {
    for k in matrix_kinds() {
        match classify(k.sql, "test").unwrap() {
            Stmt::Kind { kind, .. } => assert_eq!(kind, k.name),
            s => panic!("{}: {s:?}", k.sql),
        }
    }
    assert!(classify("GRANT ALL ON *.* TO u", "test").is_err());
}

fn scenario_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_sql_scenario_parses_and_plays_on_our_manager() {
    let m = Mapping::load().unwrap();
    let mut files = scenario_files(&data_dir());
    assert!(files.len() >= 30, "the quick set has {} files", files.len());
    files.extend(scenario_files(&data_dir().join("known-differences")));
    for f in files {
        let sc = scenario::load(&f).unwrap_or_else(|e| panic!("{e}"));
        let mut model = SqlModel::new(m.clone());
        for _ in &sc.sessions {
            model.add_session();
        }
        for l in &sc.lines {
            match &l.item {
                Item::Step {
                    session,
                    cmd: Command::Sql(q),
                } => {
                    model
                        .step(*session, q)
                        .unwrap_or_else(|e| panic!("{}:{}: {e}", f.display(), l.pos.line));
                }
                Item::Kill { session } => {
                    model.kill(*session);
                }
                _ => {}
            }
        }
    }
}

#[test]
fn a_non_sql_step_is_refused_with_its_position() {
    let dir = std::env::temp_dir().join(format!("mdl-conform-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.mdl");
    std::fs::write(&p, "dialect mariadb\ns1: acquire TABLE a.b SR\n").unwrap();
    match scenario::load(&p) {
        Err(ConformError::Scenario { line, .. }) => assert_eq!(line, 2),
        other => panic!("{other:?}"),
    }
    std::fs::write(
        &p,
        "dialect mariadb\ns1: sql BEGIN\ns1: sql GRANT ALL ON *.* TO u\n",
    )
    .unwrap();
    match scenario::load(&p) {
        Err(ConformError::Scenario { line, msg, .. }) => {
            assert_eq!(line, 3);
            assert!(msg.contains("not in the mapping"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    std::fs::write(&p, "s1: sql SELECT 1\n").unwrap();
    assert!(matches!(
        scenario::load(&p),
        Err(ConformError::Scenario { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
