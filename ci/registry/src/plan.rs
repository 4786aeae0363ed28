//! Which CI step runs which test file.
//!
//! Every `tests/*.rs` of every crate is a row of [`TEST_FILES`] (`cargo test -p mdl-ci`
//! compares the rows with the files on disk). A step's log is checked against the rows
//! after it ran (`mdl-ci ran --step NAME LOG`, from `ci/lib/common.sh`): a file planned
//! for the step must have run at least one test there, and a test binary that ran no test
//! fails the step unless its row says it is empty there by design (a `cfg(loom)` or
//! `shuttle`-feature file under a plain `cargo test`).

/// One test file and the steps that run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestFile {
    /// From the repository root: `CRATE_DIR/tests/NAME.rs`.
    pub path: &'static str,
    /// Steps (names or `PREFIX*` patterns: `shuttle-d*` is every nightly shuttle step)
    /// that must run at least one of its tests.
    pub run_by: &'static [&'static str],
    /// Steps in which its binary is built but empty by design.
    pub empty_in: &'static [&'static str],
    /// Why it is empty there, or what a step needs for it.
    pub note: &'static str,
}

const fn plain(path: &'static str) -> TestFile {
    TestFile {
        path,
        run_by: &["test"],
        empty_in: &[],
        note: "",
    }
}

const fn gated(
    path: &'static str,
    run_by: &'static [&'static str],
    note: &'static str,
) -> TestFile {
    TestFile {
        path,
        run_by,
        empty_in: &["test"],
        note,
    }
}

/// Every test file of the repository.
#[rustfmt::skip]
pub const TEST_FILES: &[TestFile] = &[
    plain("ci/registry/tests/guards.rs"),
    plain("ci/registry/tests/registry.rs"),
    plain("mdl-core/tests/dialect_folders.rs"),
    plain("mdl-core/tests/facade_lint.rs"),
    plain("mdl-core/tests/fidelity.rs"),
    plain("mdl-core/tests/manager.rs"),
    plain("mdl-core/tests/manager_async.rs"),
    plain("mdl-core/tests/manager_diff.rs"),
    gated("mdl-core/tests/manager_shuttle.rs", &["proofs", "shuttle-d*"], "feature `shuttle` (ci/proofs.sh)"),
    plain("mdl-core/tests/manager_wait_diff.rs"),
    plain("mdl-core/tests/mutants_book.rs"),
    plain("mdl-core/tests/mutants_deadlock.rs"),
    plain("mdl-core/tests/mutants_dialect.rs"),
    plain("mdl-core/tests/mutants_lock.rs"),
    plain("mdl-core/tests/mutants_table.rs"),
    plain("mdl-core/tests/reference.rs"),
    plain("mdl-core/tests/table.rs"),
    plain("mdl-core/tests/type_universe.rs"),
    plain("models/check/tests/sql_check.rs"),
    plain("models/check/tests/sql_mysql8.rs"),
    plain("models/check/tests/sql_reduction.rs"),
    plain("models/check/tests/sql_call_window.rs"),
    plain("models/check/tests/sql_search_order.rs"),
    TestFile { path: "models/check/tests/sql_server.rs", run_by: &["test", "conformance"], empty_in: &[], note: "returns at once without MDL_CONFORM=1; ci/conformance.sh sets it" },
    TestFile { path: "models/conform/tests/conform_mapping.rs", run_by: &["test", "conformance"], empty_in: &[], note: "" },
    TestFile { path: "models/conform/tests/conform_matrix.rs", run_by: &["test", "conformance"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_model.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_system_tables.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/conform/tests/conform_random.rs", run_by: &["test", "conformance"], empty_in: &[], note: "the server tests return at once without MDL_CONFORM=1; ci/conformance.sh sets it (MDL_CONFORM_RANDOM scenarios, default 30)" },
    TestFile { path: "models/conform/tests/conform_server.rs", run_by: &["test", "conformance"], empty_in: &[], note: "the server tests return at once without MDL_CONFORM=1; ci/conformance.sh sets it" },
    TestFile { path: "models/conform/tests/conform_syntax_errors.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/conform/tests/conform_families.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_user_locks.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_alter.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_alter_columns.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_alter_charset.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_partitions.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_engines.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_misc.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/sql/tests/sql_routines.rs", run_by: &["test"], empty_in: &[], note: "" },
    plain("models/sql/tests/sql_call.rs"),
    plain("models/sql/tests/sql_call_flow.rs"),
    plain("models/sql/tests/sql_stored_programs.rs"),
    plain("models/sql/tests/sql_keywords.rs"),
    plain("models/sql/tests/sql_one_offs.rs"),
    plain("models/sql/tests/sql_whole_suite.rs"),
    plain("models/sql/tests/sql_query_shapes.rs"),
    plain("models/sql/tests/sql_anchor.rs"),
    plain("models/sql/tests/sql_misc_forms.rs"),
    plain("models/sql/tests/sql_kinds.rs"),
    plain("models/sql/tests/sql_global_timeout.rs"),
    plain("models/sql/tests/sql_read_only.rs"),
    plain("models/sql/tests/sql_optimize_myisam.rs"),
    plain("models/sql/tests/sql_admin_view.rs"),
    plain("models/sql/tests/sql_oracle.rs"),
    plain("models/sql/tests/sql_server_differences.rs"),
    plain("models/sql/tests/sql_set_global_user_var.rs"),
    plain("models/sql/tests/sql_statement_time.rs"),
    plain("models/sql/tests/sql_dynamic.rs"),
    plain("models/sql/tests/sql_data_directory.rs"),
    plain("models/sql/tests/sql_fk_alter.rs"),
    TestFile { path: "models/sql/tests/sql_sequences.rs", run_by: &["test"], empty_in: &[], note: "" },
    TestFile { path: "models/conform/tests/conform_settle.rs", run_by: &["test", "conformance"], empty_in: &[], note: "the server tests return at once without MDL_CONFORM=1; ci/conformance.sh sets it" },
    TestFile { path: "models/conform/tests/conform_client.rs", run_by: &["test", "conformance"], empty_in: &[], note: "the server tests return at once without MDL_CONFORM=1; ci/conformance.sh sets it" },
    TestFile { path: "models/conform/tests/conform_corpus.rs", run_by: &["test", "conformance"], empty_in: &[], note: "offline on a made-up suite; the server test returns at once without MDL_CONFORM=1; ci/conformance.sh sets it" },
    plain("models/mdl/tests/check_model.rs"),
    plain("models/mdl/tests/check_scale.rs"),
    plain("models/mdl/tests/check_bounded.rs"),
    plain("models/mdl/tests/engines_agree.rs"),
    plain("models/mdl/tests/cli_files.rs"),
    plain("models/mdl/tests/conform_cli.rs"),
    plain("models/mdl/tests/dialects.rs"),
    plain("models/mdl/tests/json_schema.rs"),
    plain("models/mdl/tests/reduction_verdicts.rs"),
    plain("models/mdl/tests/soft_edges.rs"),
    plain("models/mdl/tests/run_cli.rs"),
    plain("models/mdl/tests/sql_cli.rs"),
    plain("models/mdl/tests/workflows.rs"),
    plain("models/mdl/tests/zoo.rs"),
    plain("models/scenario/tests/oracle_independent.rs"),
    plain("models/scenario/tests/prop_findings.rs"),
    plain("models/scenario/tests/prop_sequence.rs"),
    plain("models/scenario/tests/run_behaviour.rs"),
    plain("models/scenario/tests/run_determinism.rs"),
    plain("models/scenario/tests/run_scenarios.rs"),
    plain("models/scenario/tests/scenario_dialects.rs"),
    gated("proofs/tests/latch.rs", &["proofs", "shuttle-d*"], "feature `shuttle` (ci/proofs.sh)"),
    gated("proofs/tests/loom.rs", &["proofs", "loom"], "cfg(loom) (ci/proofs.sh)"),
    gated("proofs/tests/shuttle.rs", &["proofs", "shuttle-d*"], "feature `shuttle` (ci/proofs.sh)"),
];

/// The binary name cargo gives a test file (its stem).
pub fn stem(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.strip_suffix(".rs").unwrap_or(file)
}

/// Whether `step` matches a name or `PREFIX*` pattern.
pub fn matches(pattern: &str, step: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => step.starts_with(prefix),
        None => pattern == step,
    }
}

/// The row of the test file whose binary is `stem`.
pub fn by_stem(stem_: &str) -> Option<&'static TestFile> {
    TEST_FILES.iter().find(|t| stem(t.path) == stem_)
}
