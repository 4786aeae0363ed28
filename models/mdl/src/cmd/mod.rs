//! The `mdl` subcommands, one module each: `pub struct Args` (clap) and
//! `pub fn main(Args) -> i32` (the exit code).
//!
//! What the commands that take scenario files share (`models/docs/json-output.md`): each file
//! gets a [`Status`]; the exit status is the worst of them ([`worst`]); with
//! `--format json` each file is one JSON document on one line ([`document`]).
pub mod bench;
pub mod check;
pub mod conform;
pub mod dialect;
pub mod explore;
pub mod matrix;
pub mod run;
pub mod zoo;

use mdl_scenario::parse::{DialectChoice, ParseOptions};
use mdl_scenario::read::{ReadError, ReadErrorKind};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// The schema name in every document.
pub const SCHEMA: &str = "mdl/1";

/// How one file came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every expectation, property or comparison held (exit 0).
    Pass,
    /// One failed (exit 1).
    Fail,
    /// A search limit stopped `check` before it was complete (exit 3).
    Incomplete,
    /// The file is invalid (exit 2).
    Invalid,
    /// The file could not be processed: unreadable, server failure (exit 2).
    Error,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Incomplete => "incomplete",
            Status::Invalid => "invalid",
            Status::Error => "error",
        }
    }

    pub fn exit(self) -> i32 {
        match self {
            Status::Pass => 0,
            Status::Fail => 1,
            Status::Incomplete => 3,
            Status::Invalid | Status::Error => 2,
        }
    }

    /// The status of a file that was refused.
    pub fn of_read_error(e: &ReadError) -> Status {
        match e.kind {
            ReadErrorKind::Unreadable => Status::Error,
            ReadErrorKind::Invalid => Status::Invalid,
        }
    }
}

/// The worse of two exit statuses: 2 > 1 > 3 > 0 (an invalid file outranks a failed
/// check, which outranks an incomplete one).
pub fn worst(a: i32, b: i32) -> i32 {
    let rank = |c: i32| match c {
        0 => 0,
        3 => 1,
        1 => 2,
        _ => 3,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// `--dialect NAME|DIR` of `run`, `check` and `explore`: the options every file is read
/// with (the dialect replaces each file's `dialect` line). A dialect that does not load
/// is a command-line error: its message (`FILE:LINE:COL` in the folder) on stderr, exit 2.
pub fn dialect_option(cmd: &str, spec: Option<&str>) -> Result<ParseOptions, i32> {
    let Some(spec) = spec else {
        return Ok(ParseOptions::default());
    };
    match DialectChoice::load(spec, Path::new("")) {
        Ok(c) => Ok(ParseOptions { dialect: Some(c) }),
        Err(e) => {
            eprintln!("mdl {cmd}: --dialect {spec}: {e}");
            Err(2)
        }
    }
}

/// The `error` member: `{"file", "line", "col", "message"}`.
pub fn error_json(e: &ReadError) -> Value {
    json!({
        "file": e.file,
        "line": e.pos.map(|p| p.line),
        "col": e.pos.map(|p| p.col),
        "message": e.msg,
    })
}

/// One file's document: the members every document has, then the command's own
/// (`members`; a member of the same name as a common one is dropped).
pub fn document(
    command: &str,
    file: &str,
    status: Status,
    error: Option<&ReadError>,
    members: Map<String, Value>,
) -> Value {
    let mut m = Map::new();
    m.insert("schema".into(), SCHEMA.into());
    m.insert("command".into(), command.into());
    m.insert("file".into(), file.into());
    m.insert("status".into(), status.word().into());
    m.insert("exit".into(), status.exit().into());
    m.insert("error".into(), error.map_or(Value::Null, error_json));
    for (k, v) in members {
        m.entry(k).or_insert(v);
    }
    Value::Object(m)
}

/// Prints a document as one line of JSON Lines.
pub fn print_document(v: &Value) {
    println!("{}", serde_json::to_string(v).unwrap_or_default());
}

/// An output file named on the command line (`--report`, `--replay`), opened for
/// writing before any work starts so that a path that cannot be written fails at once.
/// A file it had to create and that was not written in the end is removed again.
pub struct OutPath {
    pub path: PathBuf,
    created: bool,
    written: bool,
}

impl OutPath {
    /// Checks that `path` can be written (creating it, empty, if it does not exist;
    /// an existing file is not touched). The error names the option.
    pub fn probe(option: &str, path: &Path) -> Result<OutPath, String> {
        let shown = path.display();
        if path.is_dir() {
            return Err(format!("cannot write {option} {shown}: it is a folder"));
        }
        let existed = path.exists();
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| format!("cannot write {option} {shown}: {e}"))?;
        Ok(OutPath {
            path: path.to_path_buf(),
            created: !existed,
            written: false,
        })
    }

    pub fn write(&mut self, text: &str) -> Result<(), String> {
        std::fs::write(&self.path, text)
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))?;
        self.written = true;
        Ok(())
    }

    pub fn written(&self) -> bool {
        self.written
    }
}

impl Drop for OutPath {
    fn drop(&mut self) {
        if self.created && !self.written {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_status_wins() {
        assert_eq!([0, 3, 1, 2].into_iter().fold(0, worst), 2);
        assert_eq!([0, 3, 1].into_iter().fold(0, worst), 1);
        assert_eq!([0, 3, 0].into_iter().fold(0, worst), 3);
        assert_eq!([2, 1, 3].into_iter().fold(0, worst), 2);
    }

    #[test]
    fn an_out_path_it_created_and_did_not_write_is_removed() {
        let dir = std::env::temp_dir().join(format!("mdl-outpath-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let p = dir.join("r.md");
        drop(OutPath::probe("--report", &p).expect("writable"));
        assert!(!p.exists());
        let mut o = OutPath::probe("--report", &p).expect("writable");
        o.write("x").expect("write");
        drop(o);
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "x");
        // An existing file is left as it was.
        drop(OutPath::probe("--report", &p).expect("writable"));
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "x");
        assert!(OutPath::probe("--report", &dir).is_err());
        assert!(OutPath::probe("--report", &dir.join("no/such/dir/r.md")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
