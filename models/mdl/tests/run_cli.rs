//! The `mdl run` and `mdl matrix` command lines: exit codes, `FILE:LINE:COL` messages,
//! JSON output, and matrices identical to the dialect files.

mod common;

use common::{json_lines, mdl, stderr, tmp};
use std::path::PathBuf;

#[test]
fn malformed_files_exit_2_with_file_line_col() {
    let cases = [
        (
            "type.mdl",
            "s1: acquire TABLE a.b Q\n",
            "type.mdl:1:23: expected a lock type, found `Q`",
        ),
        (
            "cmd.mdl",
            "# c\n\ns1: frob\n",
            "cmd.mdl:3:5: expected a command",
        ),
        (
            "key.mdl",
            "s1: acquire TABLE t1 SR\n",
            "key.mdl:1:19: bad key `t1`",
        ),
        (
            "late.mdl",
            "s1: commit\nlock_wait_timeout 5\n",
            "late.mdl:2:1: settings must come",
        ),
        (
            "busy.mdl",
            "s1: acquire TABLE a.b X\ns2: acquire TABLE a.b X\n  s2: commit\n",
            "busy.mdl:3:3: a step for session `s2`, whose previous step (line 2) is still waiting",
        ),
    ];
    for engine in ["manager", "table", "threads"] {
        for (name, text, want) in cases {
            let p = tmp(name, text);
            let path = p.display().to_string();
            let o = mdl(&["run", "--engine", engine, &path]);
            assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
            let want = want.replacen(name, &path, 1);
            assert!(
                stderr(&o).contains(&want),
                "{name}: {} lacks {want}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn bad_command_lines_exit_2() {
    assert_eq!(mdl(&["run"]).status.code(), Some(2));
    let p = tmp("ok.mdl", "s1: commit\n");
    let path = p.display().to_string();
    assert_eq!(
        mdl(&["run", "--engine", "bogus", &path]).status.code(),
        Some(2)
    );
    assert_eq!(mdl(&["run", "/nonexistent/x.mdl"]).status.code(), Some(2));
    assert_eq!(
        mdl(&["matrix", "--dialect", "oracle"]).status.code(),
        Some(2)
    );
    assert_eq!(
        mdl(&["matrix", "--strategy", "nope"]).status.code(),
        Some(2)
    );
}

#[test]
fn a_failed_expectation_exits_1_and_names_the_line() {
    let p = tmp(
        "fail.mdl",
        "s1: acquire TABLE a.b X\ns2: acquire TABLE a.b SR\nexpect s2 granted\ns1: commit\n",
    );
    let path = p.display().to_string();
    for engine in ["manager", "table", "threads"] {
        let o = mdl(&["run", "--engine", engine, &path]);
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        assert!(
            e.contains(&format!(
                "{path}:3: expectation failed: expected s2 granted, seen waiting"
            )),
            "{e}"
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("2    s2: acquire TABLE a.b SR transaction  -> waiting"),
            "{out}"
        );
        assert!(out.contains("     s2: (line 2) -> granted"), "{out}");
    }
    // Exit status of several files: the worst one.
    let good = tmp("good.mdl", "s1: acquire TABLE a.b X\nexpect s1 granted\n");
    let o = mdl(&["run", &good.display().to_string(), &path]);
    assert_eq!(o.status.code(), Some(1));
    let o = mdl(&["run", &good.display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn json_output_has_steps_events_and_expectations() {
    let p = tmp(
        "json.mdl",
        "s1: acquire TABLE a.b X\ns2: acquire TABLE a.b SR\nexpect s2 waiting\n\
         s1: release TABLE a.b Q_IS_NOT_A_TYPE\n",
    );
    let o = mdl(&["run", "--format", "json", &p.display().to_string()]);
    assert_eq!(o.status.code(), Some(2), "a parse error");
    let docs = json_lines(&o.stdout);
    assert_eq!(docs.len(), 1, "one document for the invalid file");
    let v = &docs[0];
    assert_eq!(v["status"], "invalid");
    assert_eq!(v["error"]["line"], 4);
    assert!(v["error"]["message"]
        .as_str()
        .is_some_and(|e| e.contains("lock type")));

    let p = tmp(
        "json2.mdl",
        "s1: acquire TABLE a.b X\ns2: acquire TABLE a.b SR\nexpect s2 waiting\n\
         s1: release TABLE a.c\ns1: commit\nexpect s2 granted\n",
    );
    for engine in ["manager", "table", "threads"] {
        let o = mdl(&[
            "run",
            "--engine",
            engine,
            "--format",
            "json",
            &p.display().to_string(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let docs = json_lines(&o.stdout);
        assert_eq!(docs.len(), 1);
        let v = &docs[0];
        assert_eq!(v["engine"], engine);
        assert_eq!(v["status"], "pass");
        assert_eq!(v["exit"], 0);
        let steps = v["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), 4);
        assert_eq!(steps[1]["line"], 2);
        assert_eq!(steps[1]["session"], "s2");
        assert_eq!(steps[1]["command"], "acquire TABLE a.b SR transaction");
        assert_eq!(steps[1]["outcome"], "waiting");
        assert_eq!(steps[2]["outcome"], "error");
        assert!(steps[2]["error"].as_str().is_some());
        let ev = v["events"].as_array().expect("events");
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0]["session"], "s2");
        assert_eq!(ev[0]["outcome"], "granted");
        assert_eq!(ev[0]["after_line"], 5);
        assert_eq!(ev[0]["step_line"], 2);
        let ex = v["expects"].as_array().expect("expects");
        assert_eq!(ex.len(), 2);
        assert!(ex.iter().all(|x| x["ok"] == true));
    }
}

/// The tables `mdl matrix` prints are the dialect files, cell for cell.
#[test]
fn matrix_prints_the_dialect_tables() {
    for d in mdl_core::dialect::BUILTIN {
        let dialect = mdl_core::Dialect::builtin(d).expect("dialect");
        let o = mdl(&["matrix", "--dialect", d]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let mut files = 0;
        for s in &dialect.strategies {
            let mut names = vec![format!("{}.granted.tsv", s.name)];
            if s.pending.len() == 1 {
                names.push(format!("{}.pending.tsv", s.name));
            } else {
                names.extend((0..s.pending.len()).map(|i| format!("{}.pending{i}.tsv", s.name)));
            }
            for f in names {
                let want: Vec<&str> = mdl_core::Dialect::builtin_text(d, &f)
                    .expect("file")
                    .lines()
                    .map(str::trim_end)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .collect();
                let start = out
                    .find(&format!("# {f}\n"))
                    .unwrap_or_else(|| panic!("{d}: no section {f}"));
                let got: Vec<&str> = out[start..]
                    .lines()
                    .skip(1)
                    .filter(|l| !l.starts_with('#'))
                    .take_while(|l| !l.is_empty())
                    .collect();
                assert_eq!(got, want, "{d} {f}");
                files += 1;
            }
            // One strategy alone.
            let o = mdl(&["matrix", "--dialect", d, "--strategy", &s.name]);
            assert_eq!(o.status.code(), Some(0));
            let one = String::from_utf8_lossy(&o.stdout);
            assert!(one.contains(&format!("# {}.granted.tsv", s.name)));
            assert!(one.contains("unobtrusive\t") && one.contains("hog\t"));
            assert!(one.contains("namespace\t"));
        }
        assert!(files >= 6);
    }
    // A dialect folder works as well as a built-in name.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../mdl-core/dialects/mariadb");
    let a = mdl(&["matrix", "--dialect", &dir.display().to_string()]);
    let b = mdl(&["matrix", "--dialect", "mariadb"]);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
}

/// A pile-up of 1,000 readers behind a pending ALTER (a server's ordinary load) plays on
/// the real manager: every reader waits behind the pending X and is granted after the
/// ALTER commits. (Its time is measured with the release build, models/MODEL.md.)
#[test]
fn a_pile_up_of_1000_readers_plays() {
    let mut text = String::from(
        "long: acquire TABLE db.t1 SR\nalter: acquire TABLE db.t1 SU\n\
         alter: upgrade TABLE db.t1 X\nexpect alter waiting\n",
    );
    for i in 0..1000 {
        text.push_str(&format!(
            "r{i}: acquire TABLE db.t1 SR\nexpect r{i} waiting\n"
        ));
    }
    text.push_str("long: commit\nexpect alter granted\nalter: commit\n");
    for i in 0..1000 {
        text.push_str(&format!("expect r{i} granted\n"));
    }
    let p = tmp("pileup1000.mdl", text.as_bytes());
    let out = mdl(&["run", "--format", "json", &p.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
