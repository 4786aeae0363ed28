//! `mdl zoo`: runs the bug zoo. For each entry, the old design's violation (property,
//! trace length, time) and the new design's properties holding (states explored, time).
//! Exit 0 only if every old design is caught and every new one holds. The latch-level
//! entries (`mdl_check::zoo::latch`) are listed with the shuttle commands that catch
//! their old designs and pass their current ones: shuttle cannot run inside this binary
//! (it replaces mdl-core's synchronisation primitives).
//!
//! `--simulate N [--seed S] [--max-time SECONDS] [--max-depth N]` samples each design
//! (or the one `--entry`) instead of searching it, with the same properties
//! ([`mdl_check::zoo::sample_entry`], the sampler of `mdl check --simulate`): per entry,
//! the path that first found the old design's bug and the seconds it took, and whether
//! any path violated the new design. Exit 0: every old design's bug found and no new
//! design violated; 1: a new design violated; 3: some old design's bug not found in the
//! paths taken (a sample decides only what it finds).

use mdl_check::model::sample::SimOptions;
use mdl_check::zoo;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Run only this entry (by its id, e.g. `update-vs-alter`).
    #[arg(long)]
    pub entry: Option<String>,
    /// Also write the zoo's Markdown pages (with Mermaid sequence diagrams of the old
    /// designs' traces) to this file, e.g. `models/zoo/README.md`.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// List the entries and exit.
    #[arg(long)]
    pub list: bool,
    /// Instead of searching every state, take N random paths of each design (seeded by
    /// --seed) and check the same properties on them.
    #[arg(long, value_name = "N")]
    pub simulate: Option<u64>,
    /// The seed of --simulate.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// With --simulate: stop each design's sample after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub max_time: Option<f64>,
    /// With --simulate: actions per path at most (default 200).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
}

/// `--simulate N`: every selected design sampled; the table or JSON, and the exit code.
fn simulate(args: &Args, es: &[zoo::entries::Entry], paths: u64) -> i32 {
    let o = SimOptions {
        paths,
        seed: args.seed,
        max_depth: args.max_depth,
        max_time: args.max_time,
        max_memory: mdl_check::model::mem::default_max_memory(),
    };
    let rs: Vec<zoo::EntrySample> = es.iter().map(|e| zoo::sample_entry(e, &o)).collect();
    match args.format {
        Format::Text => print!("{}", zoo::sample_table(&rs)),
        Format::Json => match serde_json::to_string_pretty(&rs) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("mdl zoo: {e}");
                return 2;
            }
        },
    }
    if rs.iter().any(|r| r.new_violated()) {
        1
    } else if rs.iter().all(|r| r.found()) {
        0
    } else {
        3
    }
}

pub fn main(args: Args) -> i32 {
    let bad_time = args.max_time.is_some_and(|t| !(t > 0.0 && t.is_finite()));
    if args.simulate == Some(0) || args.max_depth == Some(0) || bad_time {
        eprintln!("mdl zoo: --simulate and --max-depth must be at least 1, --max-time positive");
        return 2;
    }
    if args.simulate.is_none() && (args.max_time.is_some() || args.max_depth.is_some()) {
        eprintln!("mdl zoo: --max-time and --max-depth go with --simulate");
        return 2;
    }
    let latch = zoo::latch::select(args.entry.as_deref());
    let es = match zoo::select(args.entry.as_deref()) {
        Ok(es) => es,
        Err(_) if !latch.is_empty() => Vec::new(),
        Err(e) => {
            let ids: Vec<&str> = zoo::latch::all().iter().map(|e| e.id).collect();
            eprintln!("mdl zoo: {e}; latch level: {}", ids.join(", "));
            return 2;
        }
    };
    if args.list {
        for e in &es {
            println!("{:<24} {}  ({})", e.id, e.title, e.bug);
        }
        for e in &latch {
            println!(
                "{:<24} {}  ({}; latch level, shuttle)",
                e.id, e.title, e.bug
            );
        }
        return 0;
    }
    if let Some(paths) = args.simulate {
        if args.report.is_some() {
            eprintln!("mdl zoo: --report writes the search's pages, not a sample's");
            return 2;
        }
        return simulate(&args, &es, paths);
    }
    let rs: Vec<zoo::EntryResult> = es.iter().map(zoo::run_entry).collect();
    match args.format {
        Format::Text => {
            if !es.is_empty() {
                print!("{}", zoo::table(&rs));
            }
            print!("{}", zoo::latch::table(&latch));
        }
        Format::Json => match serde_json::to_string_pretty(&rs) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("mdl zoo: {e}");
                return 2;
            }
        },
    }
    if let Some(p) = &args.report {
        if let Err(e) = std::fs::write(p, zoo::report(&es, &rs, &latch)) {
            eprintln!("mdl zoo: cannot write {}: {e}", p.display());
            return 2;
        }
    }
    if rs.iter().all(|r| r.ok()) {
        0
    } else {
        1
    }
}
