//! `mdl-ci`: the CI's tables for the scripts in `ci/`, and the generated docs.

use mdl_ci::bugs::{self, BUGS};
use mdl_ci::render::{self, Filter};
use mdl_ci::{figures, plan, ran, sync};
use std::path::PathBuf;
use std::process::ExitCode;

const HELP: &str = "\
mdl-ci: the CI's tables (ci/registry/src)

  mdl-ci bugs [--harness H,..] [--layer L,..] [--only NAME,..] [--format tsv|names|table]
      the seeded bugs' catches (tsv: NAME HARNESS PACKAGE FILE TEST ENV LAYER, `-` for
      empty); exit 1 when none matches, 2 when --only names an unregistered bug
  mdl-ci check-cfg            the check-cfg of the registered names
  mdl-ci ran --step NAME [--no-plan] LOG...
      fails (exit 1) when a test binary in the logs ran no test (unless empty there by
      design), or, without --no-plan, a test file planned for the step did not run
  mdl-ci plan [--step NAME]   the test files and the steps that run them
  mdl-ci figures              the figures the docs quote (KEY VALUE WHAT)
  mdl-ci sync [--check]       rewrite the generated tables, check-cfg lists and quoted
                              figures (--check: only say what is stale, exit 1 if any)

The repository root is $MDL_ROOT, else the one this binary was built from.
Harnesses: check loom shuttle differential test. Layers: core shell model oracle runner
conformance fuzz.
";

fn root() -> PathBuf {
    std::env::var_os("MDL_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(mdl_ci::repo_root)
}

/// The value of `--flag VALUE` in `args` (removed from it).
fn take(args: &mut Vec<String>, flag: &str) -> Result<Option<String>, String> {
    match args.iter().position(|a| a == flag) {
        None => Ok(None),
        Some(i) if i + 1 < args.len() => {
            let v = args.remove(i + 1);
            args.remove(i);
            Ok(Some(v))
        }
        Some(_) => Err(format!("{flag} needs a value")),
    }
}

fn take_switch(args: &mut Vec<String>, flag: &str) -> bool {
    match args.iter().position(|a| a == flag) {
        Some(i) => {
            args.remove(i);
            true
        }
        None => false,
    }
}

fn no_more(args: &[String]) -> Result<(), String> {
    match args.first() {
        Some(a) => Err(format!("unexpected argument `{a}`")),
        None => Ok(()),
    }
}

fn run(mut args: Vec<String>) -> Result<ExitCode, String> {
    let cmd = if args.is_empty() {
        "help".to_string()
    } else {
        args.remove(0)
    };
    match cmd.as_str() {
        "bugs" => {
            let mut spec = String::new();
            if let Some(h) = take(&mut args, "--harness")? {
                spec.push_str(&format!(" harness={h}"));
            }
            if let Some(l) = take(&mut args, "--layer")? {
                spec.push_str(&format!(" layer={l}"));
            }
            let only = take(&mut args, "--only")?;
            let format = take(&mut args, "--format")?.unwrap_or_else(|| "tsv".into());
            no_more(&args)?;
            let filter = Filter::parse(&spec)?;
            let mut rows = filter.rows();
            if let Some(only) = only.filter(|o| !o.trim().is_empty()) {
                let bad = mdl_ci::build_script::unknown(BUGS, &only);
                if !bad.is_empty() {
                    eprintln!(
                        "mdl-ci: not registered seeded bugs: {} (ci/registry/src/bugs.rs)",
                        bad.join(", ")
                    );
                    return Ok(ExitCode::from(2));
                }
                let want: Vec<&str> = only.split(',').map(str::trim).collect();
                rows.retain(|(b, _)| want.contains(&b.name));
            }
            if rows.is_empty() {
                eprintln!(
                    "mdl-ci: no seeded bug has a catch that matches `{}`",
                    spec.trim()
                );
                return Ok(ExitCode::from(1));
            }
            let root = root();
            match format.as_str() {
                "tsv" => print!(
                    "{}",
                    render::tsv(&rows, |f| mdl_ci::package_of(&root, f).unwrap_or_default())
                ),
                "names" => {
                    let mut names: Vec<&str> = rows.iter().map(|(b, _)| b.name).collect();
                    names.dedup();
                    println!("{}", names.join("\n"));
                }
                "table" => print!("{}", render::table(&filter)),
                f => return Err(format!("unknown format `{f}`")),
            }
            Ok(ExitCode::SUCCESS)
        }
        "check-cfg" => {
            no_more(&args)?;
            println!("{}", mdl_ci::build_script::check_cfg(bugs::BUGS));
            Ok(ExitCode::SUCCESS)
        }
        "ran" => {
            let step = take(&mut args, "--step")?.ok_or("ran: --step NAME is required")?;
            let planned = !take_switch(&mut args, "--no-plan");
            if args.is_empty() {
                return Err("ran: no log given".into());
            }
            let mut runs = Vec::new();
            for log in &args {
                let text = std::fs::read(log).map_err(|e| format!("{log}: {e}"))?;
                runs.extend(ran::runs(&String::from_utf8_lossy(&text)));
            }
            let problems = ran::problems(&step, &runs, planned);
            let total: usize = runs.iter().map(|(_, n)| n).sum();
            for p in &problems {
                println!("mdl-ci ran: {p}");
            }
            println!(
                "mdl-ci ran: step `{step}`: {} test binaries, {total} tests, {} problem(s)",
                runs.len(),
                problems.len()
            );
            Ok(if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        "plan" => {
            let step = take(&mut args, "--step")?;
            no_more(&args)?;
            for t in plan::TEST_FILES {
                if let Some(s) = &step {
                    if !t.run_by.iter().any(|p| plan::matches(p, s)) {
                        continue;
                    }
                }
                println!("{}\t{}\t{}", t.path, t.run_by.join(","), t.note);
            }
            Ok(ExitCode::SUCCESS)
        }
        "figures" => {
            no_more(&args)?;
            for f in figures::all(&root()) {
                println!("{}\t{}\t{}", f.key, f.value, f.what);
            }
            Ok(ExitCode::SUCCESS)
        }
        "sync" => {
            let check = take_switch(&mut args, "--check");
            no_more(&args)?;
            let root = root();
            let changes = match sync::plan(&root) {
                Ok(c) => c,
                Err(errors) => {
                    for e in errors {
                        eprintln!("mdl-ci sync: {e}");
                    }
                    return Ok(ExitCode::from(2));
                }
            };
            for (p, text) in &changes {
                let shown = p.strip_prefix(&root).unwrap_or(p).display().to_string();
                if check {
                    println!("stale: {shown}");
                } else {
                    std::fs::write(p, text).map_err(|e| format!("{shown}: {e}"))?;
                    println!("wrote {shown}");
                }
            }
            Ok(if check && !changes.is_empty() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        c => Err(format!("unknown command `{c}` (mdl-ci help)")),
    }
}

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mdl-ci: {e}");
            ExitCode::from(2)
        }
    }
}
