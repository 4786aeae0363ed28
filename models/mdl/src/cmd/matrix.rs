//! `mdl matrix --dialect D [--strategy S]`: print a dialect's tables in the layout of
//! `mdl-core/dialects/*/` (rows: requested type; columns: granted or pending type; `+`
//! compatible, `-` incompatible; tab-separated), generated from the loaded dialect: its
//! types (abbreviation, long name, server name), the granted matrix, every pending matrix,
//! the type sets (unobtrusive, hogs, piglet, piglet waiter, downgrade) and the deadlock
//! weights of every namespace of the strategy. D is a built-in dialect or a dialect folder
//! (`models/docs/dialect-format.md`); a folder that does not load is its error at
//! `FILE:LINE:COL`, exit 2.

use mdl_core::dialect::{Dialect, Strategy};
use mdl_core::types::TypeSet;
use std::fmt::Write;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A built-in dialect (mysql-8.0, mariadb) or a dialect folder
    /// (models/docs/dialect-format.md).
    #[arg(long, default_value = "mysql-8.0")]
    pub dialect: String,
    /// Only this strategy (scoped, object, backup).
    #[arg(long)]
    pub strategy: Option<String>,
}

/// A type as the dialect files write it (built-in BACKUP types without their prefix).
fn name(t: mdl_core::LockType) -> &'static str {
    let a = t.abbrev();
    if t.is_builtin() {
        a.strip_prefix("BACKUP_").unwrap_or(a)
    } else {
        a
    }
}

fn header(out: &mut String, first: &str, s: &Strategy) {
    out.push_str(first);
    for t in &s.types {
        let _ = write!(out, "\t{}", name(*t));
    }
    out.push('\n');
}

fn matrix(out: &mut String, s: &Strategy, rows: &[TypeSet; mdl_core::LockType::MAX]) {
    header(out, "request", s);
    for r in &s.types {
        out.push_str(name(*r));
        for c in &s.types {
            out.push_str(if rows[r.0 as usize].contains(*c) {
                "\t-"
            } else {
                "\t+"
            });
        }
        out.push('\n');
    }
}

/// Every table of strategy `s` of `d`, as text.
pub fn strategy_text(d: &Dialect, s: &Strategy) -> String {
    let mut out = String::new();
    let nss: Vec<&str> = d
        .namespaces
        .iter()
        .filter(|n| d.strategies[n.strategy].name == s.name)
        .map(|n| n.name.as_str())
        .collect();
    let _ = writeln!(out, "# {} {}: namespaces {}", d.name, s.name, nss.join(" "));
    let _ = writeln!(out, "\n# types: abbreviation, long name, server name");
    for t in &s.types {
        let _ = writeln!(
            out,
            "type\t{}\t{}\t{}",
            t.abbrev(),
            t.long_name(),
            t.server_name()
        );
    }
    let _ = writeln!(out, "\n# {}.granted.tsv", s.name);
    let _ = writeln!(
        out,
        "# rows: requested type; columns: granted type; + compatible, - incompatible"
    );
    matrix(&mut out, s, &s.granted);
    for (i, p) in s.pending.iter().enumerate() {
        let f = if s.pending.len() == 1 {
            format!("{}.pending.tsv", s.name)
        } else {
            format!("{}.pending{i}.tsv", s.name)
        };
        let _ = writeln!(out, "\n# {f}");
        let _ = writeln!(
            out,
            "# rows: requested type; columns: pending type; + compatible, - incompatible"
        );
        matrix(&mut out, s, p);
    }
    let _ = writeln!(out, "\n# type sets: + member, - not");
    header(&mut out, "set", s);
    let sets = [
        ("unobtrusive", s.unobtrusive),
        ("hog", s.hogs),
        ("piglet", s.piglet),
        ("piglet_waiter", s.piglet_waiter),
        ("downgrade_from", s.downgrade_from),
    ];
    for (name, set) in sets {
        out.push_str(name);
        for t in &s.types {
            out.push_str(if set.contains(*t) { "\t+" } else { "\t-" });
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\n# deadlock weights of a waiting request (rows: namespace; columns: requested type)"
    );
    header(&mut out, "namespace", s);
    for (i, n) in d.namespaces.iter().enumerate() {
        if d.strategies[n.strategy].name != s.name {
            continue;
        }
        out.push_str(&n.name);
        for t in &s.types {
            let w = d.weight(
                mdl_core::Namespace(i as u8),
                *t,
                mdl_core::WeightRule::ByTicket,
                0,
            );
            let _ = write!(out, "\t{w}");
        }
        out.push('\n');
    }
    out
}

pub fn main(args: Args) -> i32 {
    let d = match Dialect::load(&args.dialect, std::path::Path::new("")) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("mdl matrix: --dialect {}: {e}", args.dialect);
            return 2;
        }
    };
    let chosen: Vec<&Strategy> = match &args.strategy {
        None => d.strategies.iter().collect(),
        Some(n) => d
            .strategies
            .iter()
            .filter(|s| s.name.eq_ignore_ascii_case(n))
            .collect(),
    };
    if chosen.is_empty() {
        let names: Vec<&str> = d.strategies.iter().map(|s| s.name.as_str()).collect();
        eprintln!(
            "mdl matrix: dialect {} has no strategy `{}` (it has {})",
            d.name,
            args.strategy.unwrap_or_default(),
            names.join(", ")
        );
        return 2;
    }
    let texts: Vec<String> = chosen.iter().map(|s| strategy_text(&d, s)).collect();
    print!("{}", texts.join("\n"));
    let _ = writeln!(
        String::new(),
        "dml {} ull {} ddl {}",
        d.weights.dml,
        d.weights.ull,
        d.weights.ddl
    );
    0
}
