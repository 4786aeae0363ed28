//! What a search or a sample covered, in words: the reductions in force, a sample, the
//! steps taken, the search as a whole (one line each), and byte counts for people.

use crate::model::result::{CheckResult, Simulated};
use crate::model::search::Stop;
use mdl_scenario::read::thousands;

/// A byte count for people (`12.3 MB`).
pub fn bytes_text(b: u64) -> String {
    let b = b as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.2} GB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.1} MB", b / (1u64 << 20) as f64)
    } else if b >= 1024.0 {
        format!("{:.1} KB", b / 1024.0)
    } else {
        format!("{b:.0} B")
    }
}

/// The reductions in force, in words.
pub(super) fn reductions(r: &CheckResult) -> String {
    let mut v = Vec::new();
    if r.symmetry_used {
        v.push("symmetry reduction".to_string());
    }
    if let Some(p) = &r.por {
        v.push(format!(
            "partial-order reduction ({} states expanded by one action, {} actions skipped)",
            thousands(p.reduced),
            thousands(p.skipped)
        ));
    }
    v.join(", ")
}

/// What a `--simulate` sample covered, one line.
pub(super) fn sample_text(r: &CheckResult, s: &Simulated) -> String {
    let found = if r.any_violated() {
        "a violation found"
    } else {
        "no violation found"
    };
    let cut = if s.timed_out {
        format!(
            " (stopped at --max-time after {} of them)",
            thousands(s.paths)
        )
    } else {
        String::new()
    };
    format!(
        "sampled {} random paths{cut} (seed {}, at most {} actions each{}): {} states ({} \
         distinct) to depth {}, {found}; a sample decides only what it finds, the check is \
         incomplete",
        thousands(s.asked),
        s.seed,
        s.depth_cap,
        if s.capped { ", some cut there" } else { "" },
        thousands(r.states),
        thousands(r.unique_states),
        r.max_depth
    )
}

/// Which steps the search took, one line (for a search cut short or a sample).
pub fn actions_text(r: &CheckResult) -> String {
    const SHOWN: usize = 12;
    let c = &r.coverage;
    let mut out = format!(
        "actions covered: {} of {} steps taken at least once",
        thousands(c.taken),
        thousands(c.total)
    );
    if !c.untaken_lines.is_empty() {
        let lines: Vec<String> = c
            .untaken_lines
            .iter()
            .take(SHOWN)
            .map(|l| l.to_string())
            .collect();
        out.push_str(&format!(
            "; never taken: line{} {}",
            if c.untaken_lines.len() == 1 { "" } else { "s" },
            lines.join(", ")
        ));
        if c.untaken_lines.len() > SHOWN {
            out.push_str(&format!(" and {} more", c.untaken_lines.len() - SHOWN));
        }
    }
    out
}

/// What the search covered, one line; `None` for a complete search.
pub fn coverage_text(r: &CheckResult) -> Option<String> {
    if let Some(s) = &r.simulated {
        return Some(sample_text(r, s));
    }
    let so_far = if r.any_violated() {
        "violations so far as shown"
    } else {
        "no violation so far"
    };
    match r.stop {
        Some(Stop::Time) => Some(format!(
            "stopped at --max-time (after {:.1} s): explored {} states ({} unique) to depth {}, \
             {so_far}; the check is incomplete",
            r.search_seconds,
            thousands(r.states),
            thousands(r.unique_states),
            r.max_depth
        )),
        Some(Stop::Memory) => Some(format!(
            "stopped at --max-memory ({}): explored {} states ({} unique) to depth {}, no \
             violation so far; the check is incomplete",
            bytes_text(r.max_memory),
            thousands(r.states),
            thousands(r.unique_states),
            r.max_depth
        )),
        Some(Stop::States) => Some(format!(
            "stopped at --max-states: explored {} states ({} unique) to depth {}, no \
             violation so far; the check is incomplete",
            thousands(r.states),
            thousands(r.unique_states),
            r.max_depth
        )),
        None if r.depth_cut => Some(format!(
            "complete up to depth {} (--max-depth): deeper interleavings were not explored, \
             so `holds` means `holds up to depth {}`",
            r.depth_bound.unwrap_or(r.max_depth),
            r.depth_bound.unwrap_or(r.max_depth)
        )),
        None => None,
    }
}
