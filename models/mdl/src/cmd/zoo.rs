//! `mdl zoo`: runs the bug zoo. For each entry, the old design's violation (property,
//! trace length, time) and the new design's properties holding (states explored, time).
//! Exit 0 only if every old design is caught and every new one holds. The latch-level
//! entries (`mdl_check::zoo::latch`) are listed with the shuttle commands that catch
//! their old designs and pass their current ones: shuttle cannot run inside this binary
//! (it replaces mdl-core's synchronisation primitives).

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
}

pub fn main(args: Args) -> i32 {
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
