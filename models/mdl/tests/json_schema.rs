//! The JSON output contract (`models/docs/json-output.md`, `models/docs/json-output.schema.json`):
//! every member the schema names is documented on the page, the schema refuses documents
//! that break it, and the documents of `mdl run` (both engines) and `mdl check` on every
//! bundled scenario, every model-checker test scenario and a set of bad files all pass it.
//! (The other command-line tests validate their JSON output through `common::mdl` too.)

mod common;

use common::{json_lines, mdl, root, schema_errors, tmp};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Every member name the schema defines (properties at any depth).
fn member_names(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                for (k, sub) in props {
                    out.insert(k.clone());
                    member_names(sub, out);
                }
            }
            for (k, sub) in m {
                if k != "properties" {
                    member_names(sub, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| member_names(x, out)),
        _ => {}
    }
}

#[test]
fn every_member_of_the_schema_is_documented() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("models/docs/json-output.schema.json"))
            .expect("schema"),
    )
    .expect("JSON");
    let page = std::fs::read_to_string(root().join("models/docs/json-output.md")).expect("page");
    let mut names = BTreeSet::new();
    member_names(&schema, &mut names);
    assert!(names.len() > 30, "{names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !page.contains(&format!("`{n}`")) && !page.contains(&format!("\"{n}\"")))
        .collect();
    assert!(
        missing.is_empty(),
        "not in models/docs/json-output.md: {missing:?}"
    );
}

fn good_run() -> Value {
    json!({
        "schema": "mdl/1", "command": "run", "file": "a.mdl", "status": "pass", "exit": 0,
        "error": null, "engine": "table",
        "steps": [{"line": 1, "session": "s1", "command": "commit", "outcome": "ok"}],
        "events": [], "expects": [], "left_waiting": [],
        "transcript": [{"kind": "step", "line": 1, "session": "s1", "command": "commit",
                        "outcome": "ok"}]
    })
}

/// The schema can fail: documents that break the contract are refused.
#[test]
fn the_schema_refuses_broken_documents() {
    assert!(schema_errors(&good_run()).is_empty());
    type Break = Box<dyn Fn(&mut Value)>;
    let broken: Vec<(&str, Break)> = vec![
        ("pass with exit 2", Box::new(|v| v["exit"] = json!(2))),
        (
            "invalid without error",
            Box::new(|v| {
                v["status"] = json!("invalid");
                v["exit"] = json!(2);
            }),
        ),
        (
            "no schema",
            Box::new(|v| {
                v.as_object_mut().expect("object").remove("schema");
            }),
        ),
        (
            "run without steps",
            Box::new(|v| {
                v.as_object_mut().expect("object").remove("steps");
            }),
        ),
        (
            "an undocumented member",
            Box::new(|v| v["extra"] = json!(1)),
        ),
        (
            "an unknown outcome",
            Box::new(|v| v["steps"][0]["outcome"] = json!("maybe")),
        ),
        (
            "a transcript entry of no kind",
            Box::new(|v| {
                v["transcript"][0]
                    .as_object_mut()
                    .expect("object")
                    .remove("kind");
            }),
        ),
        (
            "an error without a message",
            Box::new(|v| {
                v["status"] = json!("invalid");
                v["exit"] = json!(2);
                v["error"] = json!({"file": "a.mdl", "line": 1, "col": 1});
            }),
        ),
        (
            "check with run's members",
            Box::new(|v| v["command"] = json!("check")),
        ),
    ];
    for (what, f) in broken {
        let mut v = good_run();
        f(&mut v);
        assert!(!schema_errors(&v).is_empty(), "accepted: {what}");
    }
    let check_pass = json!({
        "schema": "mdl/1", "command": "check", "file": "a.mdl", "status": "pass", "exit": 0,
        "error": null
    });
    assert!(
        !schema_errors(&check_pass).is_empty(),
        "a passed check without its results"
    );
    let conform = json!({
        "schema": "mdl/1", "command": "conform", "file": "a.mdl", "status": "pass", "exit": 0,
        "error": null, "server_version": "10.11.19-MariaDB", "steps": 3, "differences": [],
        "failed_expects": [], "diverged": null, "warnings": []
    });
    assert!(
        schema_errors(&conform).is_empty(),
        "{:?}",
        schema_errors(&conform)
    );
    let random = json!({
        "schema": "mdl/1", "command": "conform", "file": null, "status": "fail", "exit": 1,
        "error": null, "mode": "random", "seed": 1, "sessions": 3, "run": 10, "agreed": 8,
        "explained": 1, "raced": 0, "found": ["found/seed-4.mdl"]
    });
    assert!(
        schema_errors(&random).is_empty(),
        "{:?}",
        schema_errors(&random)
    );
    type Edit = Box<dyn Fn(&mut Value)>;
    let broken: Vec<(&str, Value, Edit)> = vec![
        (
            "conform without its differences",
            conform.clone(),
            Box::new(|v| {
                v.as_object_mut().expect("object").remove("differences");
            }),
        ),
        (
            "a conform file of no name",
            conform.clone(),
            Box::new(|v| v["file"] = json!(null)),
        ),
        (
            "a random run with a file's members",
            random.clone(),
            Box::new(|v| v["steps"] = json!(3)),
        ),
        (
            "a random run named as a file",
            random.clone(),
            Box::new(|v| v["file"] = json!("a.mdl")),
        ),
        (
            "a run of no file",
            good_run(),
            Box::new(|v| v["file"] = json!(null)),
        ),
    ];
    for (what, mut v, f) in broken {
        f(&mut v);
        assert!(!schema_errors(&v).is_empty(), "accepted: {what}");
    }
}

fn mdl_files(dir: &str) -> Vec<String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    v.sort();
    v.into_iter().map(|p| p.display().to_string()).collect()
}

#[test]
fn every_output_of_run_and_check_follows_the_schema() {
    let mut files = mdl_files("models/scenarios");
    files.extend(mdl_files("models/mdl/tests/check_scenarios"));
    let bad = [
        tmp("schema-parse.mdl", "s1: acquire TABLE db.t Q\n"),
        tmp(
            "schema-utf8.mdl",
            b"s1: acquire TABLE db.\xFF SR\n".as_slice(),
        ),
        tmp(
            "schema-midway.mdl",
            "s1: acquire TABLE db.t X\ns2: acquire TABLE db.t SR\nexpect s2 granted\ns2: commit\n",
        ),
        tmp(
            "schema-left.mdl",
            "s1: acquire TABLE db.t X\ns2: acquire TABLE db.t SR\n",
        ),
        tmp("schema-sql.mdl", "s1: sql SELECT 1\n"),
        PathBuf::from("/nonexistent/schema-missing.mdl"),
    ];
    files.extend(bad.iter().map(|p| p.display().to_string()));
    let args = |cmd: &[&'static str]| -> Vec<String> {
        let mut a: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
        a.extend(["--format".into(), "json".into()]);
        a.extend(files.iter().cloned());
        a
    };
    let mut seen = BTreeSet::new();
    for cmd in [
        &["run", "--engine", "table"][..],
        &["run", "--engine", "manager"][..],
        &["check", "--max-states", "20000"][..],
        &["check", "--dfs", "--max-states", "30", "--max-depth", "6"][..],
    ] {
        let a = args(cmd);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = mdl(&refs);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{cmd:?}: an invalid file among them"
        );
        let docs = json_lines(&o.stdout);
        assert_eq!(docs.len(), files.len(), "{cmd:?}: one document per file");
        for d in docs {
            seen.insert(format!("{} {}", d["command"], d["status"]));
        }
    }
    for want in [
        "\"run\" \"pass\"",
        "\"run\" \"fail\"",
        "\"run\" \"invalid\"",
        "\"run\" \"error\"",
        "\"check\" \"pass\"",
        "\"check\" \"fail\"",
        "\"check\" \"incomplete\"",
        "\"check\" \"invalid\"",
        "\"check\" \"error\"",
    ] {
        assert!(seen.contains(want), "no document with {want}: {seen:?}");
    }
}

/// `mdl check --format json` of SQL sessions: the same document shape, the SQL statements
/// in the trace steps (with the lock a waiting statement waits for), the statement table
/// named; a violation carries a replay in the file's dialect.
#[test]
fn sql_check_json_follows_the_schema_with_sql_in_the_traces() {
    let mut files = vec![root()
        .join("models/examples/sql/lock-tables-order.mdl")
        .display()
        .to_string()];
    files.extend(mdl_files("models/scenarios/sql-mysql8"));
    let mut a: Vec<&str> = vec!["check", "--format", "json"];
    a.extend(files.iter().map(String::as_str));
    let o = mdl(&a);
    assert_eq!(o.status.code(), Some(1), "the example violates its assert");
    let docs = json_lines(&o.stdout);
    assert_eq!(docs.len(), files.len(), "one document per file");
    for (f, d) in files.iter().zip(&docs) {
        let errs = schema_errors(d);
        assert!(errs.is_empty(), "{f}: {errs:?}");
        let want = if f.contains("sql-mysql8") && !f.ends_with(".mariadb.mdl") {
            "mysql-8.0"
        } else {
            "mariadb"
        };
        assert_eq!(d["statement_table"]["dialect"], want, "{f}");
    }
    let ex = &docs[0];
    assert_eq!(ex["status"], "fail");
    let p = ex["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .find(|p| p["status"] == "violated")
        .expect("a violated property");
    let trace = p["trace"].as_array().expect("trace");
    assert!(trace
        .iter()
        .all(|s| s["command"].as_str().is_some_and(|c| c.starts_with("sql "))));
    assert!(trace.iter().any(|s| s["outcome"] == "deadlock"));
    assert!(trace.iter().any(|s| s["waits_for"].is_string()));
    assert!(p["replay"]
        .as_str()
        .is_some_and(|r| r.contains("\ndialect mariadb\n")));
    // The MySQL 8.0 files hold: examples of their `sometimes` asserts, in SQL.
    for d in &docs[1..] {
        assert_eq!(d["status"], "pass", "{}", d["file"]);
        assert!(d["properties"]
            .as_array()
            .expect("properties")
            .iter()
            .filter_map(|p| p["example"].as_array())
            .flatten()
            .all(|s| s["command"].as_str().is_some_and(|c| c.starts_with("sql "))));
    }
}
