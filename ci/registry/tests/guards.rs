//! The CI fails closed: in a scratch copy of `ci/` (with `.ci/run` and README.md), each
//! guard of `ci/quick.sh` fails `.ci/run`: a missing script or library, an empty scenario
//! list, a stub subcommand, a test binary that ran no test, a tool that cannot exist here
//! (unless `MDL_ALLOW_SKIP` names the step). A fake `cargo` stands in for the real one, so
//! nothing is built: each run takes well under a second.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    mdl_ci::repo_root()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().filter_map(Result::ok) {
        let p = e.path();
        let name = p.file_name().unwrap();
        if p.is_dir() {
            if name != "registry" {
                copy_dir(&p, &to.join(name));
            }
        } else {
            std::fs::copy(&p, to.join(name)).unwrap();
        }
    }
}

fn write_exe(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A scratch repository: `ci/`, `.ci/run`, README.md, two scenario files, and a `bin/`
/// with a fake `cargo` (its behaviour set by `FAKE_CARGO`: `ok` builds nothing and runs no
/// test; `zero` prints a test binary that ran 0 tests; `nonightly` has no nightly
/// toolchain) and a fake `mdl` (`FAKE_MDL=stub`: every subcommand "not implemented yet").
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("guards")
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&root().join("ci"), &dir.join("ci"));
        copy_dir(&root().join(".ci"), &dir.join(".ci"));
        std::fs::copy(root().join("README.md"), dir.join("README.md")).unwrap();
        let scen = dir.join("models/scenarios");
        std::fs::create_dir_all(&scen).unwrap();
        for f in ["basic-conflict.mdl", "kill.mdl"] {
            std::fs::copy(root().join("models/scenarios").join(f), scen.join(f)).unwrap();
        }
        write_exe(
            &dir.join("bin/cargo"),
            r#"#!/usr/bin/env bash
# A fake cargo for the guard tests.
case "${FAKE_CARGO:-ok}" in
  nonightly) [ "${1:-}" = +nightly ] && { echo "error: no nightly toolchain" >&2; exit 1; } ;;
esac
if [ "${1:-}" = +nightly ]; then shift; fi
case "${1:-}" in
  test)
    case " $* " in
      *" --no-run "*)
        printf '{"reason":"compiler-artifact","target":{"kind":["bin"],"name":"mdl","test":true},"profile":{"test":true},"executable":"%s/debug/deps/mdl-0123"}\n' "$CARGO_TARGET_DIR"
        printf '{"reason":"compiler-artifact","target":{"kind":["bin"],"name":"mdl","test":true},"profile":{"test":false},"executable":"%s/debug/mdl"}\n' "$CARGO_TARGET_DIR"
        exit 0 ;;
    esac
    if [ "${FAKE_CARGO:-ok}" = zero ]; then
      printf '     Running tests/table.rs (target/debug/deps/table-0123)\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n'
    fi
    exit 0 ;;
  *) exit 0 ;;
esac
"#,
        );
        write_exe(
            &dir.join("target/debug/mdl"),
            r#"#!/usr/bin/env bash
if [ "${FAKE_MDL:-}" = stub ]; then echo "mdl $1: not implemented yet" >&2; exit 2; fi
case "$1" in
  check) [ "$2" = --help ] && exit 0; echo "  all hold"; exit 0 ;;
  *) exit 0 ;;
esac
"#,
        );
        Scratch { dir }
    }

    fn remove(&self, rel: &str) {
        std::fs::remove_file(self.dir.join(rel)).unwrap();
    }

    /// `.ci/run` with MDL_STEPS=`steps` and `env`; (exit status, stdout + stderr).
    fn run(&self, steps: &str, env: &[(&str, &str)]) -> (i32, String) {
        let path = format!(
            "{}:{}",
            self.dir.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new("bash");
        cmd.arg(self.dir.join(".ci/run"))
            .current_dir(&self.dir)
            .env("PATH", path)
            .env("MDL_STEPS", steps)
            .env("CARGO_TARGET_DIR", self.dir.join("target"))
            .env("MDL_CI", env!("CARGO_BIN_EXE_mdl-ci"))
            .env_remove("MDL_ROOT")
            .env_remove("MDL_ALLOW_SKIP")
            .env_remove("MDL_SKIP_STEPS")
            .env_remove("MDL_VERIFY_DIR")
            .env_remove("GITHUB_STEP_SUMMARY");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("bash");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code().unwrap_or(-1), text)
    }
}

fn fails(s: &Scratch, steps: &str, env: &[(&str, &str)], want: &str) {
    let (rc, out) = s.run(steps, env);
    assert_ne!(rc, 0, "MDL_STEPS={steps} {env:?}: .ci/run passed\n{out}");
    assert!(
        out.contains(want),
        "MDL_STEPS={steps} {env:?}: want `{want}` in\n{out}"
    );
}

/// The fake setup passes as it is: the guards below fail for their reason only.
#[test]
fn the_scratch_copy_passes_as_it_is() {
    let s = Scratch::new("passes");
    let (rc, out) = s.run("check,zoo", &[]);
    assert_eq!(rc, 0, "{out}");
    assert!(out.contains("job 'quick': pass"), "{out}");
}

/// Each script a quick step runs: removed, its step fails (and so does `.ci/run`).
#[test]
fn a_missing_script_fails_its_step() {
    let quick = std::fs::read_to_string(root().join("ci/quick.sh")).unwrap();
    let mut seen = 0;
    for line in quick.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("run_script ") else {
            continue;
        };
        let step = rest.split_whitespace().next().unwrap();
        let script = quick[quick.find(line).unwrap()..]
            .split_whitespace()
            .find(|w| w.starts_with("ci/") && w.ends_with(".sh"))
            .unwrap_or_else(|| panic!("run_script {step}: no ci/ script"));
        let s = Scratch::new(&format!("missing-{step}"));
        s.remove(script);
        fails(&s, step, &[], &format!("missing script: {script}"));
        seen += 1;
    }
    assert!(seen >= 8, "only {seen} run_script steps in ci/quick.sh");
}

#[test]
fn a_missing_library_fails_the_job() {
    for lib in ["ci/lib/common.sh", "ci/lib/mdl.sh", "ci/lib/registry.sh"] {
        let s = Scratch::new(&format!("lib-{}", lib.replace('/', "-")));
        s.remove(lib);
        let (rc, out) = s.run("fmt", &[]);
        assert_ne!(rc, 0, "without {lib}, .ci/run passed\n{out}");
    }
    let s = Scratch::new("no-quick");
    s.remove("ci/quick.sh");
    let (rc, out) = s.run("fmt", &[]);
    assert_ne!(rc, 0, "without ci/quick.sh, .ci/run passed\n{out}");
}

#[test]
fn an_empty_scenario_list_fails_check() {
    let s = Scratch::new("no-scenarios");
    for e in std::fs::read_dir(s.dir.join("models/scenarios")).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    fails(&s, "check", &[], "no scenario files to check");
}

#[test]
fn a_stub_subcommand_fails_its_step() {
    let s = Scratch::new("stub");
    fails(
        &s,
        "check",
        &[("FAKE_MDL", "stub")],
        "mdl check is not implemented",
    );
    fails(
        &s,
        "zoo",
        &[("FAKE_MDL", "stub")],
        "mdl zoo is not implemented",
    );
}

#[test]
fn a_test_binary_that_ran_no_test_fails_the_step() {
    let s = Scratch::new("zero");
    fails(
        &s,
        "test",
        &[("FAKE_CARGO", "zero")],
        "tests/table.rs ran 0 tests",
    );
}

/// A test file planned for a step that the step did not run fails it.
#[test]
fn a_planned_test_file_that_did_not_run_fails_the_step() {
    let s = Scratch::new("unplanned");
    fails(
        &s,
        "test",
        &[],
        // (Any planned file: the step's log is shown by its last 40 lines, which hold
        // the last of the files planned, not a given one.)
        "is planned for step `test` (ci/registry/src/plan.rs) but ran no test there",
    );
}

#[test]
fn a_tool_that_cannot_exist_fails_unless_allowed() {
    let s = Scratch::new("nonightly");
    fails(
        &s,
        "fuzz",
        &[("FAKE_CARGO", "nonightly")],
        "cannot run here: no nightly toolchain",
    );
    let (rc, out) = s.run(
        "fuzz",
        &[("FAKE_CARGO", "nonightly"), ("MDL_ALLOW_SKIP", "fuzz")],
    );
    assert_eq!(rc, 0, "MDL_ALLOW_SKIP=fuzz: {out}");
    assert!(
        out.contains("[fuzz] skipped: no nightly toolchain"),
        "{out}"
    );
}

/// A script that says it was skipped (exit 77) fails its step unless allowed.
#[test]
fn a_skip_is_a_failure_unless_allowed() {
    let s = Scratch::new("skip77");
    write_exe(
        &s.dir.join("ci/conformance.sh"),
        "#!/usr/bin/env bash\necho 'MDL_SKIP: no server here'\nexit 77\n",
    );
    fails(
        &s,
        "conformance",
        &[],
        "skipped, which is a failure: no server here",
    );
    let (rc, out) = s.run("conformance", &[("MDL_ALLOW_SKIP", "conformance")]);
    assert_eq!(rc, 0, "{out}");
}
