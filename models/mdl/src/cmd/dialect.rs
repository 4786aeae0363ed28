//! `mdl dialect new DIR [--from mysql-8.0|mariadb]`: write a starting dialect folder, a
//! commented copy of a built-in one whose `name` is DIR's last part, for a user to edit
//! into a protocol of their own (models/docs/dialect-format.md). The folder must not exist or be
//! empty; the copy is loaded back before the command reports success.

use mdl_core::dialect::{Dialect, BUILTIN};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub cmd: Sub,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Write a commented starting folder: a copy of a built-in dialect, renamed.
    New(NewArgs),
}

#[derive(clap::Args, Debug)]
pub struct NewArgs {
    /// The folder to write; its last part is the dialect's name.
    pub dir: PathBuf,
    /// The built-in dialect to start from.
    #[arg(long, default_value = "mysql-8.0", value_name = "NAME")]
    pub from: String,
}

/// The comment put above the copied `dialect.txt`.
fn header(name: &str, from: &str) -> String {
    format!(
        "# Dialect {name}: a starting folder written by `mdl dialect new` from the built-in\n\
         # {from} dialect. Everything below is {from}'s, with its comments: edit it into your\n\
         # protocol. The format is models/docs/dialect-format.md. To see what you wrote:\n\
         #   mdl matrix --dialect DIR\n\
         # To use it: `dialect DIR` in a scenario (relative to the scenario file), or\n\
         # `--dialect DIR` on mdl run, check and explore.\n\
         # Your own lock types: replace the `type` lines below (then the strategies and the\n\
         # matrices name only your types), e.g. `type R READ` and `type W WRITE`.\n\n"
    )
}

/// Writes the folder; the message says why not.
fn write_new(dir: &Path, from: &str) -> Result<usize, String> {
    let from = Dialect::builtin(from).map(|d| d.name).ok_or_else(|| {
        format!(
            "--from `{from}` is not a built-in dialect ({})",
            BUILTIN.join(", ")
        )
    })?;
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| {
            !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        })
        .ok_or_else(|| {
            format!(
                "the folder's last part is the dialect's name: letters, digits, `_`, `-` and \
                 `.`, not `{}`",
                dir.display()
            )
        })?;
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .next()
            .is_none();
        if !empty {
            return Err(format!("{} exists and is not empty", dir.display()));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let files = Dialect::builtin_files(&from);
    for (f, text) in &files {
        let text = if *f == "dialect.txt" {
            let body: String = text
                .lines()
                .map(|l| {
                    if l.split_whitespace().next() == Some("name") {
                        format!("name {name}\n")
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            format!("{}{body}", header(name, &from))
        } else {
            (*text).to_owned()
        };
        let p = dir.join(f);
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    Dialect::from_dir(dir).map_err(|e| format!("the copy does not load: {e}"))?;
    Ok(files.len())
}

pub fn main(args: Args) -> i32 {
    match args.cmd {
        Sub::New(a) => match write_new(&a.dir, &a.from) {
            Ok(n) => {
                println!(
                    "wrote {} ({n} files, a copy of {}); `mdl matrix --dialect {}` prints it",
                    a.dir.display(),
                    a.from,
                    a.dir.display()
                );
                0
            }
            Err(e) => {
                eprintln!("mdl dialect new: {e}");
                2
            }
        },
    }
}
