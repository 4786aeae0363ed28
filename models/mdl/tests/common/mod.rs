//! What the `mdl` command-line tests share: running the binary, temporary files, and the
//! check of every JSON output against `models/docs/json-output.schema.json` (every test that
//! runs `mdl ... --format json` through [`mdl`] has its output validated).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The schema of `models/docs/json-output.md`, compiled once.
pub fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let text = std::fs::read_to_string(root().join("models/docs/json-output.schema.json"))
            .expect("models/docs/json-output.schema.json");
        let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
        jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("the schema: {e}"))
    })
}

/// The problems of one document against the schema (empty: valid).
pub fn schema_errors(v: &serde_json::Value) -> Vec<String> {
    validator()
        .iter_errors(v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Every line of `stdout` is one JSON document valid against the schema; returns them.
pub fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    let text = String::from_utf8_lossy(stdout);
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("not one JSON document per line ({e}):\n{l}"));
            let errs = schema_errors(&v);
            assert!(
                errs.is_empty(),
                "a document against models/docs/json-output.schema.json:\n{}\n{l}",
                errs.join("\n")
            );
            v
        })
        .collect()
}

/// Runs `mdl ARGS`; with `--format json`, validates its stdout against the schema.
pub fn mdl(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(args)
        .output()
        .expect("run mdl");
    if args.windows(2).any(|w| w == ["--format", "json"]) {
        json_lines(&o.stdout);
    }
    o
}

/// A file in this test process's own temporary folder.
pub fn tmp(name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mdl-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
