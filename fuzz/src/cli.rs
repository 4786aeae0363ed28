//! The `cli` target: what `mdl run` and `mdl check` do with a file, in-process, on
//! arbitrary bytes. Stateright-free: `mdl-check` is built without its `stateright`
//! feature; the check is `mdl check`'s own search, bounded, with the same reports.
//!
//! What must hold, on any input:
//! - the one reader ([`read_bytes`]) never panics; a refusal names the file, has a
//!   position of at least 1:1 when it has one, and a message cut to its limit;
//! - every file the reader takes, `check`'s model takes too (the same limits), unless it
//!   has `sql` steps (conformance only);
//! - on a small file (at most [`MAX_SESSIONS`] sessions and [`MAX_STEPS`] steps): `run`
//!   gives the same transcript on the table and on the concurrent manager, and an error
//!   midway is at a line of the file; the bounded check ([`MAX_STATES`] states) never
//!   panics, and each counterexample it finds replays (`check::replay`), renders as
//!   text, JSON and Markdown, and gives a replay scenario that the reader takes.

use mdl_check::model::check::{check, Options};
use mdl_check::model::result::{replay, Status};
use mdl_check::model::{report, MdlModel};
use mdl_scenario::read::{read_bytes, MAX_MESSAGE_CHARS};
use mdl_scenario::runner::{run_engine, Engine, Transcript};
use mdl_scenario::{Command, Item, Scenario};

/// Bounds of the expensive part.
pub const MAX_SESSIONS: usize = 4;
pub const MAX_STEPS: usize = 16;
pub const MAX_STATES: usize = 2_000;

fn outcome(t: &Transcript) -> String {
    match &t.invalid {
        Some(e) => format!("{}invalid: {e}\n", t.text()),
        None => t.text(),
    }
}

/// `MdlModel::new` leaks each `assert` line's name on purpose (`Box::leak`: stateright
/// takes `&'static str` property names). Kept reachable here so that LeakSanitizer
/// reports only other leaks (a few bytes per assert line, for the fuzzer's lifetime).
fn keep_reachable(m: &MdlModel) {
    use std::sync::Mutex;
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    names.extend(m.asserts.iter().map(|a| a.name));
}

/// One input.
pub fn one(data: &[u8]) {
    let file = match read_bytes("fuzz.mdl", data) {
        Ok(f) => f,
        Err(e) => {
            let shown = e.to_string();
            assert!(shown.starts_with("fuzz.mdl"), "{shown}");
            if let Some(p) = e.pos {
                assert!(p.line >= 1 && p.col >= 1, "{shown}");
            }
            assert!(
                e.msg.chars().count() <= MAX_MESSAGE_CHARS,
                "a message of {} characters",
                e.msg.chars().count()
            );
            let _ = e.render();
            return;
        }
    };
    let sc = &file.scenario;
    let sql = sc.lines.iter().any(|l| {
        matches!(
            &l.item,
            Item::Step {
                cmd: Command::Sql(_),
                ..
            }
        )
    });
    let model = MdlModel::new(sc);
    if let Ok(m) = &model {
        keep_reachable(m);
    }
    assert_eq!(
        model.is_ok(),
        !sql,
        "the reader took a file that check's model refuses: {:?}",
        model.err()
    );
    let steps = sc
        .lines
        .iter()
        .filter(|l| matches!(l.item, Item::Step { .. }))
        .count();
    if sc.sessions.len() > MAX_SESSIONS || steps > MAX_STEPS {
        return;
    }
    run_both(sc, &file);
    if let Ok(m) = model {
        check_bounded(&m);
    }
}

/// `mdl run` on both engines: one transcript.
fn run_both(sc: &Scenario, file: &mdl_scenario::read::ScenarioFile) {
    let a = run_engine(sc, Engine::Table);
    let b = run_engine(sc, Engine::Manager);
    assert_eq!(outcome(&a), outcome(&b), "the engines disagree");
    if let Some(e) = &a.invalid {
        let r = file.error(e);
        let lines = file.text.lines().count().max(1);
        assert!(e.pos.line >= 1 && e.pos.line <= lines, "{r}");
    }
    let _ = serde_json::to_string(&a.json_members());
}

/// Our own breadth-first search (`check::check`, stateright-free), stopped after
/// [`MAX_STATES`] unique states; each counterexample is replayed and reported the way
/// `mdl check` reports it.
fn check_bounded(m: &MdlModel) {
    let o = Options {
        max_states: Some(MAX_STATES as u64),
        max_memory: 1 << 30,
        ..Options::default()
    };
    let r = check(m, &o);
    for p in &r.props {
        if let (Status::Violated, Some(t)) = (p.status, &p.trace) {
            let actions: Vec<_> = t.records.iter().map(|r| r.action).collect();
            let again = replay(m, &actions).expect("a trace of the search replays");
            assert!(
                !m.holds_in(p.kind, again.states.last().expect("a state")),
                "the replay does not end in the violation of {}",
                p.name
            );
        }
    }
    let _ = report::text(m, &r, report::Replays::Shown);
    let _ = serde_json::to_string(&report::json(m, &r));
    let _ = report::markdown(m, &r);
    for p in &r.props {
        if let Some(t) = &p.trace {
            let text = report::replay_scenario(m, t, "replay");
            if let Err(e) = read_bytes("replay.mdl", text.as_bytes()) {
                panic!("a replay the reader refuses: {e}\n{text}");
            }
        }
    }
}
