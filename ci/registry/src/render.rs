//! Text generated from the registry: the docs' seeded-bug tables, the `check-cfg` lines of
//! the Cargo manifests, the tab-separated lists the CI scripts read.

use crate::bugs::{Bug, Catch, Harness, Layer, BUGS};
use crate::plan::TEST_FILES;

/// A filter of (bug, catch) rows, as written in a generated block: `all`, or
/// `harness=check,loom`, `layer=shell`, or both separated by a space.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub harnesses: Vec<Harness>,
    pub layers: Vec<Layer>,
}

impl Filter {
    pub fn parse(spec: &str) -> Result<Filter, String> {
        let mut f = Filter::default();
        for word in spec.split_whitespace() {
            if word == "all" {
                continue;
            }
            let (k, v) = word
                .split_once('=')
                .ok_or_else(|| format!("filter `{word}`: want all, harness=... or layer=..."))?;
            for item in v.split(',') {
                match k {
                    "harness" => f.harnesses.push(
                        Harness::ALL
                            .into_iter()
                            .find(|h| h.name() == item)
                            .ok_or_else(|| format!("unknown harness `{item}`"))?,
                    ),
                    "layer" => f.layers.push(
                        Layer::ALL
                            .into_iter()
                            .find(|l| l.slug() == item)
                            .ok_or_else(|| format!("unknown layer `{item}`"))?,
                    ),
                    _ => return Err(format!("filter `{word}`: want harness=... or layer=...")),
                }
            }
        }
        Ok(f)
    }

    pub fn wants(&self, b: &Bug, c: &Catch) -> bool {
        (self.harnesses.is_empty() || self.harnesses.contains(&c.harness))
            && (self.layers.is_empty() || self.layers.contains(&b.layer))
    }

    /// The (bug, catch) rows the filter keeps, in the registry's order.
    pub fn rows(&self) -> Vec<(&'static Bug, &'static Catch)> {
        BUGS.iter()
            .flat_map(|b| b.catches.iter().map(move |c| (b, c)))
            .filter(|(b, c)| self.wants(b, c))
            .collect()
    }
}

/// How a catch is run, in words (Markdown).
pub fn caught_by(c: &Catch) -> String {
    let env = if c.env.is_empty() {
        String::new()
    } else {
        format!(", with `{}`", c.env)
    };
    match c.harness {
        Harness::Check => format!("`mdl check` `{}`", c.file),
        Harness::Loom => format!("loom `{}` (`{}`)", c.test, c.file),
        Harness::Shuttle => format!("shuttle `{}` (`{}`)", c.test, c.file),
        Harness::Differential => "proptest `prop_sequence` and fuzz target `sequence`".to_string(),
        Harness::SeededTest => format!("`{}` (`{}`){env}", c.test, c.file),
    }
}

/// The failure expected, in words (Markdown).
pub fn expected(c: &Catch) -> String {
    match c.harness {
        Harness::Check => format!("`{}` violated", c.test),
        _ => c.failure.to_string(),
    }
}

/// `path (item)` as Markdown: "`path` (`item`)".
pub fn site(s: &str) -> String {
    match s.split_once(" (") {
        Some((path, item)) => format!("`{path}` ({})", item.trim_end_matches(')')),
        None => format!("`{s}`"),
    }
}

/// The Markdown table of the rows `filter` keeps.
pub fn table(filter: &Filter) -> String {
    let mut s = String::from(
        "| bug | layer | where | what it breaks | caught by | expected failure |\n\
         |---|---|---|---|---|---|\n",
    );
    for (b, c) in filter.rows() {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            b.name,
            b.layer.name(),
            site(b.site),
            b.breaks,
            caught_by(c),
            expected(c)
        ));
    }
    s
}

/// The `check-cfg` entries of a Cargo manifest, one per bug, with `indent`.
pub fn check_cfg_lines(indent: &str) -> String {
    BUGS.iter()
        .map(|b| format!("{indent}'cfg(mdl_bug, values(\"{}\"))',\n", b.name))
        .collect()
}

/// Tab-separated rows for the CI scripts: `NAME HARNESS PACKAGE FILE TEST ENV LAYER`
/// (PACKAGE and the file's stem resolved from `root` for test files; `-` for empty
/// fields, so that `read` keeps the columns).
pub fn tsv(rows: &[(&Bug, &Catch)], package_of: impl Fn(&str) -> String) -> String {
    let dash = |s: &str| {
        if s.is_empty() {
            "-".to_string()
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for (b, c) in rows {
        let pkg = match c.harness {
            Harness::Loom | Harness::Shuttle | Harness::SeededTest => package_of(c.file),
            _ => String::new(),
        };
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            b.name,
            c.harness.name(),
            dash(&pkg),
            dash(c.file),
            dash(c.test),
            dash(c.env),
            b.layer.slug()
        ));
    }
    out
}

/// The Markdown table of the test files and the steps that run them.
pub fn test_files() -> String {
    let steps = |v: &[&str]| {
        v.iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::from(
        "| test file | run by (at least one test each) | built empty in | note |\n\
         |---|---|---|---|\n",
    );
    for t in TEST_FILES {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            t.path,
            steps(t.run_by),
            steps(t.empty_in),
            t.note
        ));
    }
    s
}
