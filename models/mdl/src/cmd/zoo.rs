//! `mdl zoo`: runs the bug zoo. For each entry, the old design's violation (property,
//! trace length, time) and the new design's properties holding (states explored, time).
//! Exit 0 only if every old design is caught and every new one holds.

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
    let es = match zoo::select(args.entry.as_deref()) {
        Ok(es) => es,
        Err(e) => {
            eprintln!("mdl zoo: {e}");
            return 2;
        }
    };
    if args.list {
        for e in &es {
            println!("{:<24} {}  ({})", e.id, e.title, e.bug);
        }
        return 0;
    }
    let rs: Vec<zoo::EntryResult> = es.iter().map(zoo::run_entry).collect();
    match args.format {
        Format::Text => print!("{}", zoo::table(&rs)),
        Format::Json => match serde_json::to_string_pretty(&rs) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("mdl zoo: {e}");
                return 2;
            }
        },
    }
    if let Some(p) = &args.report {
        if let Err(e) = std::fs::write(p, zoo::report(&es, &rs)) {
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
