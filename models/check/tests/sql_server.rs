//! Every interleaving of the bundled SQL scenarios (`models/scenarios/sql/`) on a real
//! MariaDB server: each maximal path the SQL check explores (without timeouts, at most
//! 300 per file) is written as a replay (`mdl check --replay`'s form: the statements in
//! that order with the model's outcomes as `expect` lines) and played by `mdl conform`'s
//! harness on the server and on the model; they must agree at every step, except where the
//! server blocks outside MDL (row locks: `mdl_conform::random::explained`), counted apart.
//! Runs only with `MDL_CONFORM=1`; otherwise it says why it skips and passes.

use mdl_check::sql::paths::maximal_paths;
use mdl_check::sql::text::replay_scenario;
use mdl_check::sql::SqlCheck;
use mdl_conform::scenario::OnDifference;
use mdl_conform::{scenario, server::Server};
use mdl_sql::mapping::Mapping;
use std::path::PathBuf;

#[test]
fn every_interleaving_of_the_sql_scenarios_agrees_with_the_server() {
    if std::env::var("MDL_CONFORM").as_deref() != Ok("1") {
        println!("skipped: set MDL_CONFORM=1 to play every interleaving on MariaDB");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("models/scenarios/sql"))
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    files.sort();
    let map = Mapping::load().expect("statement table");
    let server = Server::start().unwrap_or_else(|e| panic!("{e}"));
    let mut sink = std::io::sink();
    let (mut played, mut explained, mut bad) = (0, 0, Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let name = f.file_name().expect("name").to_string_lossy().to_string();
        let sc = mdl_scenario::read::read_bytes(&name, text.as_bytes())
            .expect("parse")
            .scenario;
        let m = SqlCheck::new(&sc).expect("model");
        for (i, path) in maximal_paths(&m, 300).iter().enumerate() {
            let title = format!("{name}, interleaving {i}");
            let replay = replay_scenario(&m, path, &title);
            let file = format!("{name}#{i}");
            let rsc = scenario::load_text(&file, &replay, &map).unwrap_or_else(|e| panic!("{e}"));
            // A difference is played again once (the rule and why:
            // `scenario::run_scenario_again_on_difference`).
            let rep = scenario::run_scenario_again_on_difference(
                &server,
                &map,
                &rsc,
                OnDifference::PlayAgain,
                &mut sink,
            )
            .unwrap_or_else(|e| panic!("{e}"));
            played += 1;
            // An order in which the server blocks outside MDL (an InnoDB row lock between
            // two sessions' DML on one row, as in pt-osc-triggers.mdl's app and app2) is
            // explained by the random runs' rules (`mdl_conform::random::explained`): the
            // model has no row locks. Printed, counted, not a failure.
            if let Some(why) = (!rep.agrees())
                .then(|| mdl_conform::random::explained(&rep))
                .flatten()
            {
                explained += 1;
                println!("EXPLAINED ({why}): {title}: {}", rep.summary());
                continue;
            }
            if !rep.agrees() {
                // What the server answered, not only how many steps differ.
                let detail: Vec<String> = rep
                    .diffs
                    .iter()
                    .chain(&rep.expect_failures)
                    .chain(&rep.diverged)
                    .cloned()
                    .chain(rep.invalid.iter().map(|e| e.to_string()))
                    .collect();
                bad.push(format!(
                    "{title}: {}\n  {}\n{replay}",
                    rep.summary(),
                    detail.join("\n  ")
                ));
            }
        }
    }
    println!(
        "{played} interleavings of {} files played on the server, {explained} explained outside MDL",
        files.len()
    );
    // Most orders must be about metadata locks, or the test says nothing.
    assert!(
        explained * 10 <= played,
        "{explained} of {played} explained outside MDL"
    );
    assert!(played >= files.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
