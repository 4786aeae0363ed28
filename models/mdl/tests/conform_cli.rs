//! `mdl conform` answers every file given, in order, and exits with the worst status; with
//! `--format json` one document per file per line (models/docs/json-output.md). Invalid files
//! need no server; with `MDL_CONFORM=1` a valid file between two bad ones runs on a real
//! MariaDB server.

mod common;

use std::process::Command;

fn tmp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mdl-conform-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// One JSON document per line, each valid against `models/docs/json-output.schema.json`.
fn docs(out: &[u8]) -> Vec<serde_json::Value> {
    common::json_lines(out)
}

#[test]
fn every_file_answered_in_json_with_the_worst_status() {
    let bad = tmp(
        "bad.mdl",
        "dialect mariadb\ns1: sql CREATE TABLE t9 (a INT) DATA DIRECTORY = '/tmp'\n",
    );
    let nondialect = tmp("nodialect.mdl", "s1: sql SELECT 1\n");
    let missing = std::env::temp_dir().join("mdl-conform-cli-no-such-file.mdl");
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(["conform", "--format", "json"])
        .arg(&bad)
        .arg(&nondialect)
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let d = docs(&out.stdout);
    assert_eq!(d.len(), 3, "one document per file");
    for (doc, f) in d.iter().zip([&bad, &nondialect, &missing]) {
        assert_eq!(doc["schema"], "mdl/1");
        assert_eq!(doc["command"], "conform");
        assert_eq!(doc["file"], f.display().to_string());
        assert_eq!(doc["exit"], 2);
        assert!(doc["error"]["message"].is_string());
        assert!(doc["differences"].is_array());
    }
    assert_eq!(d[0]["status"], "invalid");
    assert_eq!(d[0]["error"]["line"], 2);
    assert!(d[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("is not modelled"));
    assert_eq!(d[1]["status"], "invalid");
    assert_eq!(d[2]["status"], "error");
}

#[test]
fn text_output_names_each_file() {
    let bad = tmp(
        "bad2.mdl",
        "dialect mariadb\ns1: sql ALTER TABLE t1 ADD INDEX (b), LOCK='none'\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .arg("conform")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("bad2.mdl:2:"), "{text}");
    assert!(text.contains("LOCK="), "{text}");
}

#[test]
fn a_good_file_between_bad_ones_runs_on_the_server() {
    if std::env::var("MDL_CONFORM").as_deref() != Ok("1") {
        println!("skipped: set MDL_CONFORM=1 to run against a MariaDB server");
        return;
    }
    let bad = tmp(
        "bad3.mdl",
        "dialect mariadb\ns1: sql CREATE TABLE t9 (a INT) DATA DIRECTORY = '/tmp'\n",
    );
    let good = tmp(
        "good.mdl",
        "dialect mariadb\ns1: sql LOCK TABLES t1 WRITE\ns2: sql SELECT * FROM t1\nexpect s2 waiting\ns1: sql UNLOCK TABLES\nexpect s2 ok\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(["conform", "--format", "json"])
        .arg(&bad)
        .arg(&good)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let d = docs(&out.stdout);
    assert_eq!(d.len(), 3);
    assert_eq!(d[1]["status"], "pass", "{}", d[1]);
    assert_eq!(d[1]["exit"], 0);
    assert_eq!(d[1]["steps"], 3);
    assert!(d[1]["server_version"].as_str().unwrap().contains("MariaDB"));
    assert_eq!(d[1]["warnings"], serde_json::json!([]), "{}", d[1]);
    // A file checked against another server version says so (and still runs).
    let old = tmp(
        "old.mdl",
        "dialect mariadb\nserver 10.3.0-MariaDB\ns1: sql SELECT * FROM t1\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(["conform", "--format", "json"])
        .arg(&old)
        .output()
        .unwrap();
    let o = docs(&out.stdout);
    assert_eq!(o[0]["status"], "pass", "{}", o[0]);
    let w = o[0]["warnings"][0].as_str().unwrap_or_default();
    assert!(
        w.contains("10.3.0-MariaDB") && w.contains(":2:"),
        "{}",
        o[0]
    );
    assert_eq!(d[0]["status"], "invalid");
    assert_eq!(d[2]["status"], "invalid");
}

#[test]
fn the_random_run_is_one_document() {
    if std::env::var("MDL_CONFORM").as_deref() != Ok("1") {
        println!("skipped: set MDL_CONFORM=1 to run against a MariaDB server");
        return;
    }
    let found = std::env::temp_dir().join(format!("mdl-conform-cli-found-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args([
            "conform", "--random", "3", "--seed", "7", "--format", "json", "--found",
        ])
        .arg(&found)
        .output()
        .unwrap();
    let d = docs(&out.stdout);
    assert_eq!(d.len(), 1, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(d[0]["mode"], "random");
    assert_eq!(d[0]["run"], 3);
    assert!(d[0]["file"].is_null());
    let _ = std::fs::remove_dir_all(&found);
}
