//! Dialect folders of one's own through the command line (issue 14, item 1): a scenario
//! in a user-written folder with its own type names is played by `run`, checked by
//! `check` and served by `explore`; the bundled PostgreSQL example's broken variant is
//! caught with a trace; `--dialect` replaces a file's `dialect` line; a folder that does
//! not load is an error at `FILE:LINE:COL` in the folder; `mdl dialect new` writes a
//! folder that loads.

mod common;
use common::{json_lines, mdl, root, stderr, stdout};
use std::path::{Path, PathBuf};

fn example(f: &str) -> String {
    root()
        .join("models/examples/postgresql")
        .join(f)
        .display()
        .to_string()
}

/// A folder of this test process's own.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("mdl-dialect-tests-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// A reader/writer/intent protocol written by a user: INTENT on a database, READ and
/// WRITE on its objects, and a scenario next to it that names it relatively.
fn rwi(dir: &Path) {
    let d = dir.join("rwi");
    std::fs::create_dir_all(&d).expect("dir");
    let files = [
        (
            "dialect.txt",
            "name rwi\ntype I INTENT\ntype R READ ReadLock\ntype W WRITE WriteLock\n\
             strategy parent I R W\nstrategy leaf R W\n\
             namespace DB parent db\nnamespace OBJECT leaf qualified\n",
        ),
        (
            "parent.granted.tsv",
            "request I R W\nI + - -\nR - + -\nW - - -\n",
        ),
        (
            "parent.pending.tsv",
            "request I R W\nI + - -\nR + + -\nW + + +\n",
        ),
        ("leaf.granted.tsv", "request R W\nR + -\nW - -\n"),
        ("leaf.pending.tsv", "request R W\nR + -\nW + +\n"),
    ];
    for (f, t) in files {
        std::fs::write(d.join(f), t).expect("write");
    }
    // Two writers that take their objects in opposite orders: a deadlock in some
    // interleavings, not in written order.
    std::fs::write(
        dir.join("writers.mdl"),
        "dialect rwi\n\
         a: acquire DB app INTENT\n\
         a: acquire OBJECT app.x WRITE\n\
         a: acquire OBJECT app.y write\n\
         a: commit\n\
         b: acquire DB app I\n\
         b: acquire OBJECT app.y WriteLock\n\
         b: acquire OBJECT app.x W\n\
         expect b granted\n\
         b: commit\n\
         assert sometimes * deadlock\n",
    )
    .expect("write");
}

#[test]
fn run_and_check_a_scenario_in_a_folder_of_ones_own() {
    let dir = folder("own");
    rwi(&dir);
    let s = dir.join("writers.mdl").display().to_string();
    let o = mdl(&["run", &s]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("a: acquire OBJECT app.y W transaction  -> granted"),
        "{out}"
    );
    let o = mdl(&["run", "--engine", "table", "--format", "json", &s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json_lines(&o.stdout)[0]["status"], "pass");
    let o = mdl(&["check", &s]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("assert sometimes * deadlock (line 11)  holds"));
    let o = mdl(&["check", "--format", "json", &s]);
    assert_eq!(json_lines(&o.stdout)[0]["status"], "pass");
    // The types are the folder's: a built-in name is a type the namespace does not take
    // (the step's outcome is `error`, as for a built-in type out of place).
    std::fs::write(
        dir.join("builtin-name.mdl"),
        "dialect rwi\na: acquire OBJECT app.x SR\nexpect a error\n",
    )
    .expect("write");
    let o = mdl(&["run", &dir.join("builtin-name.mdl").display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    // A word that names no type at all is a parse error at its column.
    std::fs::write(
        dir.join("typo.mdl"),
        "dialect rwi\na: acquire OBJECT app.x REED\n",
    )
    .expect("write");
    let o = mdl(&["check", &dir.join("typo.mdl").display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("typo.mdl:2:25: expected a lock type, found `REED`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_postgresql_example_and_its_broken_variant() {
    let o = mdl(&["run", &example("select-behind-alter.mdl")]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    for f in [
        "lock-then-update.mdl",
        "share-then-update.mdl",
        "select-behind-alter.mdl",
    ] {
        let o = mdl(&["check", &example(f)]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{f}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
    // The broken variant (SHARE ROW EXCLUSIVE compatible with itself): a deadlock, with
    // the interleaving that leads to it.
    let o = mdl(&["check", &example("lock-then-update-bad.mdl")]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    for want in [
        "assert never * deadlock (line 12)  violated",
        "1. s1: acquire RELATION public.accounts SRX transaction   (line 6) -> granted",
        "2. s2: acquire RELATION public.accounts SRX transaction   (line 9) -> granted",
        "3. s1: acquire RELATION public.accounts RX transaction   (line 7) -> waiting",
        "4. s2: acquire RELATION public.accounts RX transaction   (line 10) -> deadlock",
    ] {
        assert!(out.contains(want), "no `{want}` in:\n{out}");
    }
    // The same with the good file and --dialect naming the broken folder.
    let bad = example("dialect-bad");
    let o = mdl(&["check", "--dialect", &bad, &example("lock-then-update.mdl")]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("-> deadlock"));
    let o = mdl(&[
        "check",
        "--format",
        "json",
        "--dialect",
        &bad,
        &example("lock-then-update.mdl"),
    ]);
    let v = &json_lines(&o.stdout)[0];
    assert_eq!(v["status"], "fail");
    let p = v["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .find(|p| p["status"] == "violated")
        .expect("a violated property");
    let trace = p["trace"].as_array().expect("trace");
    assert_eq!(trace.last().expect("a step")["outcome"], "deadlock");
    // The replay names the folder by its absolute path and plays back to the deadlock.
    let replay = p["replay"].as_str().expect("replay");
    assert!(
        replay.contains("dialect /") && replay.contains("dialect-bad"),
        "{replay}"
    );
    let r = folder("replay").join("r.mdl");
    std::fs::write(&r, replay).expect("write");
    let o = mdl(&["run", &r.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    // run and matrix take --dialect too.
    let o = mdl(&[
        "run",
        "--dialect",
        &bad,
        &example("select-behind-alter.mdl"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = mdl(&["matrix", "--dialect", &bad]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("type\tSRX\tSHARE_ROW_EXCLUSIVE\tShareRowExclusiveLock"));
    // A built-in name on the command line replaces a folder named in the file: then
    // the folder's namespaces are unknown words.
    let o = mdl(&[
        "check",
        "--dialect",
        "mysql-8.0",
        &example("lock-then-update.mdl"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("lock-then-update.mdl:10:13: expected a namespace of mysql-8.0"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_folder_that_does_not_load_is_an_error_in_the_folder() {
    let dir = folder("broken");
    rwi(&dir);
    std::fs::write(
        dir.join("rwi/leaf.granted.tsv"),
        "request R W\nR + -\nW - !\n",
    )
    .expect("write");
    let s = dir.join("writers.mdl").display().to_string();
    let cell = format!(
        "{}:3:5: cell `!` is neither + nor -",
        dir.join("rwi/leaf.granted.tsv").display()
    );
    for cmd in ["run", "check"] {
        let o = mdl(&[cmd, &s]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let e = stderr(&o);
        assert!(
            e.contains("writers.mdl:1:9: the dialect folder `rwi` does not load: "),
            "{cmd}: {e}"
        );
        assert!(e.contains(&cell), "{cmd}: {e}");
        let o = mdl(&[cmd, "--format", "json", &s]);
        assert_eq!(json_lines(&o.stdout)[0]["status"], "invalid");
    }
    let rw = dir.join("rwi").display().to_string();
    for cmd in ["run", "check", "explore"] {
        let o = mdl(&[cmd, "--dialect", &rw, &s]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        assert!(stderr(&o).contains(&cell), "{cmd}: {}", stderr(&o));
    }
    let o = mdl(&["matrix", "--dialect", &rw]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&cell), "{}", stderr(&o));
    // A name that is neither a built-in dialect nor a folder.
    std::fs::write(dir.join("none.mdl"), "dialect postgres\na: commit\n").expect("write");
    let o = mdl(&["check", &dir.join("none.mdl").display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("none.mdl:1:9: expected a dialect"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn explore_serves_a_scenario_in_a_folder_of_ones_own() {
    use std::io::{Read, Write};
    let dir = folder("explore");
    rwi(&dir);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(["explore", "--addr", &addr])
        .arg(dir.join("writers.mdl"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("mdl explore");
    // The Explorer's initial state, then the states after it (one per session that can
    // take its first step).
    let get = |path: &str| -> String {
        let mut body = String::new();
        for _ in 0..100 {
            if let Ok(mut c) = std::net::TcpStream::connect(&addr) {
                let _ = write!(c, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
                body.clear();
                let _ = c.read_to_string(&mut body);
                if body.contains(" 200 ") {
                    break;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        body
    };
    let init = get("/.states");
    let next = get("/.states/0");
    let _ = child.kill();
    let _ = child.wait();
    assert!(init.contains(" 200 "), "{init}");
    assert!(
        init.contains("assert sometimes * deadlock (line 11)"),
        "{init}"
    );
    assert!(next.contains(" 200 "), "{next}");
    // The states are lock tables with session names (models/MODEL.md, `mdl explore`).
    assert!(
        next.contains("a: acquire DB app I") && next.contains("b: acquire DB app I"),
        "{next}"
    );
    // The states show the folder's type names (a's first step took INTENT, `I`).
    assert!(next.contains("granted: a I"), "{next}");
}

#[test]
fn dialect_new_writes_a_folder_that_loads() {
    let dir = folder("new");
    let d = dir.join("mine");
    let ds = d.display().to_string();
    let o = mdl(&["dialect", "new", &ds]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("dialect.txt")).expect("dialect.txt");
    assert!(text.starts_with("# Dialect mine: a starting folder written by `mdl dialect new`"));
    assert!(text.contains("\nname mine\n") && text.contains("\ntype SR   SHARED_READ\n"));
    // The same tables as the built-in it copies.
    let a = stdout(&mdl(&["matrix", "--dialect", &ds]));
    let b = stdout(&mdl(&["matrix", "--dialect", "mysql-8.0"]));
    assert_eq!(a.replace("# mine ", "# mysql-8.0 "), b);
    // It does not write over a folder with files in it; --from must be a built-in.
    let o = mdl(&["dialect", "new", &ds]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("exists and is not empty"),
        "{}",
        stderr(&o)
    );
    let o = mdl(&[
        "dialect",
        "new",
        "--from",
        "oracle",
        &dir.join("x").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.join("x").exists());
    let o = mdl(&[
        "dialect",
        "new",
        "--from",
        "mariadb",
        &dir.join("m").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = mdl(&[
        "matrix",
        "--dialect",
        &dir.join("m").display().to_string(),
        "--strategy",
        "backup",
    ]);
    assert_eq!(o.status.code(), Some(0));
}
