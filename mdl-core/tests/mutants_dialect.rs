//! Tests written to kill mutants of `dialect.rs` that cargo-mutants found surviving (see
//! `ci/mutants/REPORT.md`): the dialect format's error paths (each names the file and line),
//! its limits, `covers` on the asymmetric BACKUP matrix, the aliases of the built-ins.
//! Expected values come from the dialect format (`mdl-core/dialects/mysql-8.0/dialect.txt`,
//! the `.tsv` layout of `shared/reference/README.md`) and the reference matrices.

use mdl_core::dialect::{Dialect, DialectError, Namespace};
use mdl_core::LockType;

/// A small, valid dialect: one scoped namespace, mysql-8.0's scoped matrices.
const TINY: &str = "name tiny\nnamespace GLOBAL scoped single\nstrategy scoped IX S X\n";

fn parse_with(main: &str, over: &[(&str, &str)]) -> Result<Dialect, DialectError> {
    let main = main.to_owned();
    let over: Vec<(String, String)> = over
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    Dialect::parse(&move |f: &str| {
        if f == "dialect.txt" {
            return Some(main.clone());
        }
        if let Some((_, t)) = over.iter().find(|(n, _)| n == f) {
            return Some(t.clone());
        }
        Dialect::builtin_text("mysql-8.0", f).map(str::to_owned)
    })
}

/// The error of `TINY` plus one line (line 4), or the dialect if it parses.
fn with_line(extra: &str) -> Result<Dialect, DialectError> {
    parse_with(&format!("{TINY}{extra}\n"), &[])
}

fn err_line(extra: &str) -> (String, usize) {
    let e = with_line(extra).expect_err(extra);
    (e.file, e.line)
}

#[test]
fn the_tiny_dialect_parses() {
    let d = with_line("# a comment").unwrap();
    assert_eq!(d.name, "tiny");
    assert_eq!(d.namespaces.len(), 1);
    assert_eq!(d.strategies[0].pending.len(), 1);
}

#[test]
fn every_malformed_fact_is_an_error_at_its_line_not_a_panic() {
    // Each keyword takes a fixed number of words (dialect.txt's comments): one too few or
    // one too many is "cannot read" at line 4, never an index panic or a silent default.
    for bad in [
        "name",
        "name tiny other",
        "namespace SCHEMA scoped",
        "strategy object",
        "pending scoped",
        "pending scoped 1 2",
        "starvation",
        "starvation mysql mariadb",
        "weight dml",
        "weight dml 1 2",
        "victim_overweight",
        "victim_overweight 1 2",
        "hogs scoped",
        "unobtrusive scoped",
        "frobnicate scoped IX",
    ] {
        assert_eq!(err_line(bad), ("dialect.txt".to_string(), 4), "{bad}");
    }
    // The line is counted from 1, comments and blank lines included.
    let e = parse_with(&format!("# c\n\n{TINY}bogus\n"), &[]).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("dialect.txt", 6));
    // Well-formed facts on line 4 parse.
    for good in [
        "pending scoped 1",
        "starvation mariadb",
        "weight dml 7",
        "victim_overweight 3",
        "hogs scoped X",
    ] {
        assert!(with_line(good).is_ok(), "{good}");
    }
    assert_eq!(with_line("weight ddl 7").unwrap().weights.ddl, 7);
    assert_eq!(
        with_line("victim_overweight 3")
            .unwrap()
            .weights
            .victim_overweight,
        3
    );
}

#[test]
fn pending_counts_are_one_to_four() {
    // "pending count must be 1 to 4".
    for n in [0, 5] {
        let e = with_line(&format!("pending scoped {n}")).unwrap_err();
        assert_eq!(e.line, 4, "{n}");
        assert!(e.msg.contains("1 to 4"), "{n}: {}", e.msg);
    }
    // 4 matrices, named scoped.pending0.tsv .. scoped.pending3.tsv.
    let p = Dialect::builtin_text("mysql-8.0", "scoped.pending.tsv").unwrap();
    let d = parse_with(
        &format!("{TINY}pending scoped 4\n"),
        &[
            ("scoped.pending0.tsv", p),
            ("scoped.pending1.tsv", p),
            ("scoped.pending2.tsv", p),
            ("scoped.pending3.tsv", p),
        ],
    )
    .unwrap();
    assert_eq!(d.strategies[0].pending.len(), 4);
}

#[test]
fn at_most_64_namespaces() {
    let with = |n: usize| {
        let mut main = String::from("name many\nstrategy scoped IX S X\n");
        for i in 0..n {
            main.push_str(&format!("namespace NS{i} scoped single\n"));
        }
        parse_with(&main, &[])
    };
    assert_eq!(with(64).unwrap().namespaces.len(), 64);
    let e = with(65).unwrap_err();
    assert!(e.msg.contains("64"), "{}", e.msg);
}

#[test]
fn matrix_errors_name_the_file_and_line() {
    // scoped.granted.tsv: line 1 a comment, line 2 the header, rows IX S X on lines 3-5.
    let g = Dialect::builtin_text("mysql-8.0", "scoped.granted.tsv").unwrap();
    let lines: Vec<&str> = g.lines().collect();
    assert!(lines[0].starts_with('#') && lines[1].starts_with("request"));
    // A row with one cell too few, on line 4.
    let mut bad: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    bad[3] = bad[3].rsplit_once('\t').unwrap().0.to_owned();
    let e = parse_with(TINY, &[("scoped.granted.tsv", &bad.join("\n"))]).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("scoped.granted.tsv", 4));
    // A row with one cell too many.
    let mut bad: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    bad[4].push_str("\t+");
    let e = parse_with(TINY, &[("scoped.granted.tsv", &bad.join("\n"))]).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("scoped.granted.tsv", 5));
    // A missing row.
    let e = parse_with(TINY, &[("scoped.granted.tsv", &lines[..4].join("\n"))]).unwrap_err();
    assert!(e.msg.contains("missing"), "{}", e.msg);
}

#[test]
fn validate_rejects_what_the_manager_cannot_rely_on() {
    // The reference invariant: a pending-incompatible set is a subset of the granted one.
    // Here IX yields to a pending IX (pending row IX, column IX `-`) although IX is
    // compatible with a granted IX.
    let p = Dialect::builtin_text("mysql-8.0", "scoped.pending.tsv").unwrap();
    let mut lines: Vec<String> = p.lines().map(str::to_owned).collect();
    let row = lines.iter().position(|l| l.starts_with("IX")).unwrap();
    lines[row] = lines[row].replacen('+', "-", 1);
    let e = parse_with(TINY, &[("scoped.pending.tsv", &lines.join("\n"))]).unwrap_err();
    assert!(e.msg.contains("subset"), "{}", e.msg);
    // Unobtrusive types must never conflict: SU conflicts with a granted SU (object
    // granted matrix) though with no pending SU (every object pending matrix, SU row, SU
    // column `+`): one of the two is enough to refuse it.
    let main = Dialect::builtin_text("mysql-8.0", "dialect.txt")
        .unwrap()
        .replace(
            "unobtrusive object S SH SR SW SWLP",
            "unobtrusive object SU",
        );
    let e = parse_with(&main, &[]).unwrap_err();
    assert!(e.msg.contains("conflict"), "{}", e.msg);
}

#[test]
fn covers_reads_the_rows_of_the_granted_matrix_only() {
    // MySQL and MariaDB sql/mdl.cc, MDL_ticket::has_stronger_or_equal_type:
    // `!(granted_incompat_map[type] & ~granted_incompat_map[m_type])`, rows only. On
    // mariadb's asymmetric BACKUP matrix a BACKUP_FLUSH request conflicts only with a
    // granted BACKUP_START, which a START request conflicts with too: START covers FLUSH,
    // though a granted FLUSH blocks BACKUP_DML requests and a granted START does not (so
    // a session holding START that asks for FLUSH reuses START and DML is not blocked:
    // the server's behaviour; BACKUP STAGE upgrades instead, `upgrade_always`). FLUSH
    // does not cover WAIT_FLUSH (whose request also conflicts with a granted DML).
    let d = Dialect::mariadb();
    let s = d.strategy(d.namespace_by_name("BACKUP").unwrap());
    let ty = |n: &str| LockType::parse(n).unwrap();
    let (start, flush) = (ty("BACKUP_START"), ty("BACKUP_FLUSH"));
    let wait_flush = ty("BACKUP_WAIT_FLUSH");
    assert!(s.granted[flush.0 as usize].is_subset(s.granted[start.0 as usize]));
    assert!(s.conflicts_granted(LockType::BACKUP_DML, flush));
    assert!(!s.conflicts_granted(LockType::BACKUP_DML, start));
    assert!(s.blocked_by(flush).contains(LockType::BACKUP_DML));
    assert!(s.covers(start, flush));
    assert!(!s.covers(flush, start));
    assert!(!s.covers(flush, wait_flush));
    assert!(s.covers(start, start));
    assert!(s.upgrade_always);
    assert!(
        !d.strategy(d.namespace_by_name("TABLE").unwrap())
            .upgrade_always
    );
    // mysql-8.0 object: the column of SR is {SNRW, X}; the pending X holds back SR in
    // matrix 0 and not in matrix 2 (object.pending0.tsv / pending2.tsv, SR row).
    let m = Dialect::mysql80();
    let o = m.strategy(m.namespace_by_name("TABLE").unwrap());
    let col: Vec<LockType> = o.blocked_by(LockType::SR).iter().collect();
    assert_eq!(col, vec![LockType::SNRW, LockType::X]);
    assert!(o.yields_to_pending(0, LockType::SR, LockType::X));
    assert!(!o.yields_to_pending(2, LockType::SR, LockType::X));
    assert!(!o.yields_to_pending(0, LockType::SH, LockType::X));
}

#[test]
fn builtins_answer_to_their_aliases_and_load_from_their_folders() {
    for n in ["mysql-8.0", "MySQL", "mysql8", "mysql-8", "mysql"] {
        assert_eq!(Dialect::builtin(n).unwrap().name, "mysql-8.0", "{n}");
    }
    assert_eq!(Dialect::builtin("MariaDB").unwrap().name, "mariadb");
    assert!(Dialect::builtin("postgres").is_none());
    assert!(Dialect::builtin_text("mysql-8.0", "nope.tsv").is_none());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("dialects");
    let m = Dialect::from_dir(&dir.join("mysql-8.0")).unwrap();
    assert_eq!((m.name.as_str(), m.namespaces.len()), ("mysql-8.0", 18));
    assert_eq!(m.strategies[1].pending.len(), 4);
    // A folder's errors name its files by their path (issue 14: `FILE:LINE:COL`).
    let e = Dialect::from_dir(&dir.join("no-such-dialect")).unwrap_err();
    let want = dir.join("no-such-dialect").join("dialect.txt");
    assert_eq!(
        (e.file.as_str(), e.msg.as_str()),
        (want.display().to_string().as_str(), "missing")
    );
    assert_eq!(e.to_string(), format!("{}: missing", want.display()));
    assert_eq!(Namespace(3).to_string(), "ns#3");
}

#[test]
fn max_search_depth_is_a_number_from_one_with_its_column_in_errors() {
    // Absent: the exact search (both built-ins).
    assert_eq!(Dialect::mysql80().max_search_depth, None);
    assert_eq!(Dialect::mariadb().max_search_depth, None);
    assert_eq!(
        with_line("max_search_depth 32").unwrap().max_search_depth,
        Some(32)
    );
    assert_eq!(
        with_line("max_search_depth 1").unwrap().max_search_depth,
        Some(1)
    );
    for bad in ["0", "-3", "x", "10001", "99999999999"] {
        let e = with_line(&format!("max_search_depth  {bad}")).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.col),
            ("dialect.txt", 4, 19),
            "{bad}"
        );
        assert!(e.msg.contains("max_search_depth"), "{}", e.msg);
        assert!(
            e.to_string().starts_with("dialect.txt:4:19: "),
            "{}",
            e.to_string()
        );
    }
    let (f, l) = err_line("max_search_depth");
    assert_eq!((f.as_str(), l), ("dialect.txt", 4));
    // Every error has its column (issue 14): here the keyword's.
    let e = with_line("max_search_depth 3 4").unwrap_err();
    assert_eq!(e.to_string(), format!("dialect.txt:4:1: {}", e.msg));
}

#[test]
fn deadlock_resolution_is_victim_or_soft_edges_with_its_column_in_errors() {
    // The built-ins keep the servers' victim rule.
    assert!(!Dialect::mysql80().soft_edges);
    assert!(!Dialect::mariadb().soft_edges);
    assert!(
        with_line("deadlock_resolution soft_edges")
            .unwrap()
            .soft_edges
    );
    assert!(!with_line("deadlock_resolution victim").unwrap().soft_edges);
    let e = with_line("deadlock_resolution  soft").unwrap_err();
    assert_eq!((e.file.as_str(), e.line, e.col), ("dialect.txt", 4, 22));
    assert!(e.msg.contains("deadlock_resolution"), "{}", e.msg);
}
