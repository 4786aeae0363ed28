//! When a target's verdict can be trusted (issue 30; models/BENCH.md, "The verdict
//! rule").
//!
//! A target compares the medians of two rows. Whether the verdict holds whatever the
//! noise is asked at the **pessimistic ends** of each side's rounds nearest the median
//! (`Stats::near_lo`, `Stats::near_hi`: the rounds the spread covers): for a PASS, the
//! ends least favourable to passing (a throughput "at least Nx": ours' low end over the
//! baseline's high end; a time "within Nx": ours' high end over the baseline's low end);
//! for a FAIL, the ends most favourable to passing. A verdict that the ends keep is
//! trusted whatever the spreads ("ends"); one they overturn is trusted only when both
//! spreads are at most `MAX_SPREAD_PCT` ("spreads"); otherwise it is not trustworthy.
//! (A naive one-mutex baseline under contention is bimodal, one thread keeping the lock
//! for a while or not, so its spread is wide by nature: a verdict with a wide margin
//! still holds at its ends.) The host's speedup rule (`MIN_SPEEDUP`) is the caller's
//! and comes first.

use crate::timing::Stats;
use crate::MAX_SPREAD_PCT;

/// Which way the ratio (numerator's median over the denominator's) must go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    AtMost(f64),
    AtLeast(f64),
}

impl Limit {
    pub fn holds(self, ratio: f64) -> bool {
        match self {
            Limit::AtMost(l) => ratio <= l,
            Limit::AtLeast(g) => ratio >= g,
        }
    }
}

/// Why a verdict can be trusted, or why not.
#[derive(Clone, Debug, PartialEq)]
pub enum Trust {
    /// The verdict holds at the pessimistic ends (their ratio).
    Ends(f64),
    /// The ends would overturn it (their ratio), but both spreads are at most
    /// `MAX_SPREAD_PCT`.
    Spreads(f64),
    /// Neither: the ends' ratio and the sides whose spread is too wide.
    Not(f64, Vec<String>),
}

/// One side of a ratio: its row's name and statistics.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    pub name: &'a str,
    pub stats: &'a Stats,
}

/// The verdict at the medians (true: the target is met) and whether it can be trusted;
/// None when a side has no finite median.
pub fn judge(num: Side<'_>, den: Side<'_>, limit: Limit) -> Option<(bool, Trust)> {
    let (n, d) = (num.stats, den.stats);
    if !(n.median.is_finite() && d.median.is_finite()) {
        return None;
    }
    let ok = limit.holds(n.median / d.median);
    // The ends against the verdict: for a PASS the least favourable to passing.
    let at_most = matches!(limit, Limit::AtMost(_));
    let ends = if ok == at_most {
        n.near_hi / d.near_lo
    } else {
        n.near_lo / d.near_hi
    };
    if ends.is_finite() && limit.holds(ends) == ok {
        return Some((ok, Trust::Ends(ends)));
    }
    let wide: Vec<String> = [num, den]
        .iter()
        .filter(|s| s.stats.spread_pct.is_nan() || s.stats.spread_pct > MAX_SPREAD_PCT)
        .map(|s| {
            format!(
                "{} spread {:.0}% > {MAX_SPREAD_PCT}%",
                s.name, s.stats.spread_pct
            )
        })
        .collect();
    Some(if wide.is_empty() {
        (ok, Trust::Spreads(ends))
    } else {
        (ok, Trust::Not(ends, wide))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(median: f64, lo: f64, hi: f64) -> Stats {
        Stats {
            spread_pct: 100.0 * (hi - lo) / median,
            near_lo: lo,
            near_hi: hi,
            ..Stats::spread_of(median, lo, hi, 11)
        }
    }

    fn judge_of(num: &Stats, den: &Stats, limit: Limit) -> (bool, Trust) {
        let s = |stats| Side { name: "x", stats };
        judge(s(num), s(den), limit).expect("finite medians")
    }

    /// A throughput "at least 3x" that holds at the medians only (ours' low end over
    /// the baseline's high end is under 3) is not trustworthy with wide spreads; with a
    /// margin that the ends keep (issue 30's bimodal naive baseline) it is.
    #[test]
    fn at_least_trusted_at_the_ends_only() {
        let naive = stats(4.5, 4.0, 6.0); // 44 % spread
        let ours_close = stats(15.0, 10.0, 16.0); // 40 %: 10 / 6 < 3
        let (ok, t) = judge_of(&ours_close, &naive, Limit::AtLeast(3.0));
        assert!(ok);
        assert!(
            matches!(t, Trust::Not(r, ref w) if r < 3.0 && w.len() == 2),
            "{t:?}"
        );
        let ours_far = stats(60.0, 52.0, 61.0);
        let (ok, t) = judge_of(&ours_far, &naive, Limit::AtLeast(3.0));
        assert!(ok);
        assert!(
            matches!(t, Trust::Ends(r) if (r - 52.0 / 6.0).abs() < 1e-9),
            "{t:?}"
        );
    }

    /// A time "within 1.5x" takes ours' high end over the baseline's low end.
    #[test]
    fn at_most_takes_the_high_end_over_the_low_end() {
        let base = stats(44.9, 44.4, 46.0);
        let (ok, t) = judge_of(&stats(60.0, 59.0, 66.0), &base, Limit::AtMost(1.5));
        assert!(ok);
        // 66 / 44.4 = 1.486: holds at the ends.
        assert!(
            matches!(t, Trust::Ends(r) if (r - 66.0 / 44.4).abs() < 1e-9),
            "{t:?}"
        );
        let (ok, t) = judge_of(&stats(60.0, 59.0, 68.0), &base, Limit::AtMost(1.5));
        assert!(ok);
        // 68 / 44.4 = 1.53: overturned, but both spreads are under 20 %.
        assert!(matches!(t, Trust::Spreads(r) if r > 1.5), "{t:?}");
    }

    /// A FAIL is trusted when even the ends most favourable to passing fail.
    #[test]
    fn a_fail_is_checked_at_the_favourable_ends() {
        let base = stats(13.0, 12.9, 15.0);
        let (ok, t) = judge_of(&stats(22.9, 22.1, 33.9), &base, Limit::AtMost(1.5));
        assert!(!ok);
        // 22.1 / 15.0 = 1.47 passes: the FAIL is overturned, and 47 % is too wide.
        assert!(
            matches!(t, Trust::Not(r, ref w) if r < 1.5 && w.len() == 1),
            "{t:?}"
        );
        let (ok, t) = judge_of(&stats(30.0, 28.0, 40.0), &base, Limit::AtMost(1.5));
        assert!(!ok);
        assert!(matches!(t, Trust::Ends(r) if r > 1.5), "{t:?}");
    }

    /// A side without rounds gives no verdict.
    #[test]
    fn missing_sides_give_no_verdict() {
        let none = Stats::of(Vec::new());
        let some = stats(1.0, 0.9, 1.1);
        let s = |stats| Side { name: "x", stats };
        assert!(judge(s(&none), s(&some), Limit::AtMost(2.0)).is_none());
        assert!(judge(s(&some), s(&none), Limit::AtLeast(2.0)).is_none());
    }
}
