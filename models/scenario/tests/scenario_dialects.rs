//! The scenario's `dialect` line names a folder relative to the file (version 3); a
//! built-in name keeps its meaning; `--dialect` (`ParseOptions`) replaces the line; the
//! folder's types are the words a step may use; a folder that does not load is an error
//! at the `dialect` line that carries the folder's `FILE:LINE:COL`.

use mdl_scenario::parse::{parse, parse_with, DialectChoice, ParseOptions};
use mdl_scenario::print::settings_text;
use mdl_scenario::runner::{run_engine, Engine};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The name the bundled PostgreSQL example's files have when given from the root.
fn example(f: &str) -> String {
    root()
        .join("models/examples/postgresql")
        .join(f)
        .display()
        .to_string()
}

#[test]
fn a_dialect_line_names_a_folder_next_to_the_file() {
    let file = example("lock-then-update.mdl");
    let text = std::fs::read_to_string(&file).expect("example");
    let sc = parse(&file, &text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sc.settings.dialect, "postgresql");
    let path = sc.settings.dialect_path.clone().expect("a folder");
    assert!(
        Path::new(&path).is_absolute() && path.ends_with("dialect"),
        "{path}"
    );
    assert_eq!(sc.dialect.types.len(), 8);
    // Printed for a replay: the folder's absolute path, which parses again anywhere.
    let set = settings_text(&sc.settings);
    assert_eq!(set.lines().next(), Some(format!("dialect {path}").as_str()));
    let again = parse(
        "/elsewhere/r.mdl",
        &format!("{set}s1: acquire RELATION a.b SRX\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.dialect.types, sc.dialect.types);
    // The same text under another name finds no folder there.
    let e = parse("/elsewhere/x.mdl", &text).unwrap_err();
    assert_eq!((e.pos.line, e.pos.col), (9, 9), "{e}");
    assert!(e.msg.starts_with("expected a dialect"), "{e}");
    // Played in written order on both engines, in the folder's types.
    for engine in [Engine::Table, Engine::Manager, Engine::Threads] {
        let t = run_engine(&sc, engine);
        assert_eq!(t.exit_code(), 0, "{engine:?}: {}", t.text());
        assert!(t
            .text()
            .contains("s1: acquire RELATION public.accounts SRX transaction  -> granted"));
    }
}

#[test]
fn built_in_names_keep_their_meaning_and_the_command_line_wins() {
    // A version-1 file: the built-in, whatever folder stands next to it.
    let sc = parse("t.mdl", "dialect mariadb\ns1: acquire BACKUP - DML\n").unwrap();
    assert_eq!(
        (
            sc.settings.dialect.as_str(),
            sc.settings.dialect_path.as_deref()
        ),
        ("mariadb", None)
    );
    assert_eq!(
        settings_text(&sc.settings).lines().next(),
        Some("dialect mariadb")
    );
    // --dialect replaces the file's line, whatever it says.
    let pg = DialectChoice::load(&example("dialect"), Path::new("")).expect("loads");
    let opts = ParseOptions { dialect: Some(pg) };
    let sc = parse_with(
        "t.mdl",
        "dialect mariadb\ns1: acquire RELATION a.b AS\n",
        &opts,
    )
    .unwrap();
    assert_eq!(sc.settings.dialect, "postgresql");
    let sc = parse_with(
        "t.mdl",
        "dialect no/such/folder\ns1: acquire RELATION a.b AS\n",
        &opts,
    )
    .unwrap();
    assert_eq!(sc.settings.dialect, "postgresql");
    // No dialect line: mysql-8.0 as before, or the command line's.
    assert_eq!(
        parse("t.mdl", "s1: commit\n").unwrap().settings.dialect,
        "mysql-8.0"
    );
    // The folder's type names: its own first (PostgreSQL's X is EXCLUSIVE MODE, not
    // MySQL's X), a built-in name the folder does not declare is the built-in type (the
    // step's outcome is then `error`), anything else is no type.
    let sc = parse_with(
        "t.mdl",
        "s1: acquire RELATION a.b X\ns1: acquire RELATION a.b SNW\n",
        &opts,
    )
    .unwrap();
    let t = run_engine(&sc, Engine::Table);
    assert!(
        t.text()
            .contains("acquire RELATION a.b X transaction  -> granted"),
        "{}",
        t.text()
    );
    assert!(
        t.text()
            .contains("acquire RELATION a.b SNW transaction  -> error"),
        "{}",
        t.text()
    );
    let e = parse_with("t.mdl", "s1: acquire RELATION a.b ROW_EXCL\n", &opts).unwrap_err();
    assert_eq!((e.pos.line, e.pos.col), (1, 26), "{e}");
}

#[test]
fn a_folder_that_does_not_load_is_reported_at_the_line_with_its_own_position() {
    let dir = std::env::temp_dir().join(format!("mdl-scenario-dialects-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).expect("dir");
    for f in ["dialect.txt", "table.granted.tsv", "table.pending.tsv"] {
        let t = std::fs::read_to_string(root().join("models/examples/postgresql/dialect").join(f))
            .expect("file");
        std::fs::write(bad.join(f), t).expect("write");
    }
    let txt = std::fs::read_to_string(bad.join("dialect.txt")).expect("dialect.txt");
    std::fs::write(
        bad.join("dialect.txt"),
        txt.replace("namespace ADVISORY table", "namespace ADVISORY tabel"),
    )
    .expect("write");
    let file = dir.join("s.mdl").display().to_string();
    let e = parse(&file, "# a comment\ndialect  bad\ns1: commit\n").unwrap_err();
    assert_eq!((e.pos.line, e.pos.col), (2, 10), "{e}");
    let want = format!(
        "the dialect folder `bad` does not load: {}:",
        bad.join("dialect.txt").display()
    );
    assert!(e.msg.starts_with(&want), "{e}");
    assert!(e.msg.ends_with(":20: unknown strategy `tabel`"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
