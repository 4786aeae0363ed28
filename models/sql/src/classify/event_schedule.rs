//! An event's clauses after its name (MariaDB `sql/sql_yacc.yy`: `event_tail`,
//! `ev_schedule_time`, `opt_ev_on_completion`, `opt_ev_rename_to`, `opt_ev_status`,
//! `opt_ev_comment`) and the checks of its schedule (`sql/event_parse_data.cc`:
//! `Event_parse_data::check_parse_data` runs `init_execute_at`, `init_interval`,
//! `init_starts`, `init_ends` in that order, each of which `check_if_in_the_past`
//! may follow).
//!
//! Where the server answers, measured on 10.11.19 (suite/event-schedule-rename.mdl):
//! - AT with STARTS or ENDS is the parser's ER_PARSE_ERROR (before everything).
//! - A subquery on a table or a stored function in the schedule is
//!   ER_SUBQUERIES_NOT_SUPPORTED (sql/sql_parse.cc, `lex->table_or_sp_used()`), a bad
//!   AT / STARTS value ER_WRONG_VALUE, a bad ENDS or one not after STARTS
//!   ER_EVENT_ENDS_BEFORE_STARTS, `ROW(...)` ER_OPERAND_COLUMNS, an EVERY of 0 (or of a
//!   string that is not a number) ER_EVENT_INTERVAL_NOT_POSITIVE_OR_TOO_BIG, an ALTER
//!   saying ON COMPLETION NOT PRESERVE with a past time ER_EVENT_CANNOT_ALTER_IN_THE_PAST:
//!   all after the implicit commit, before `lock_object_name` (`Effect::FailBeforeLocks`).
//! - A CREATE whose AT or ENDS lies in the past without ON COMPLETION PRESERVE takes its
//!   locks and creates nothing (`do_not_create`, note 1588).
//!
//! The clock: the model does not read the wall clock. It takes "now" to lie somewhere in
//! 2026 to 2029 (the years this model is run in): a literal time before 2026 is past, one
//! from 2030 on is future (up to 2038-01-18, the last day TIMESTAMP holds in any time
//! zone; later, or before 1970, is a wrong value); `NOW()` / `CURRENT_TIMESTAMP` plus a
//! positive INTERVAL is future, `NOW()` itself is not past (`ltime_utc >=
//! query_start`); a time the model cannot place is refused.

use super::{kw_eq, Tbl, Tok};

/// ER_WRONG_VALUE ("Incorrect AT value").
pub(super) const ER_WRONG_VALUE: u32 = 1525;
pub(super) const ER_EVENT_INTERVAL_NOT_POSITIVE_OR_TOO_BIG: u32 = 1542;
pub(super) const ER_EVENT_ENDS_BEFORE_STARTS: u32 = 1543;
pub(super) const ER_OPERAND_COLUMNS: u32 = 1241;
pub(super) const ER_NOT_SUPPORTED_YET: u32 = 1235;
const ER_SUBQUERIES_NOT_SUPPORTED: u32 = 1970;
const ER_CANNOT_ALTER_IN_THE_PAST: u32 = crate::routines::ER_EVENT_CANNOT_ALTER_IN_THE_PAST;

/// 2026-01-01 and 2030-01-01 (UTC): where the model's "now" lies.
const NOW_LO: i64 = 1_767_225_600;
const NOW_HI: i64 = 1_893_456_000;
const DAY: i64 = 86_400;

/// What an event statement's clauses say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Clauses {
    /// ON COMPLETION [NOT] PRESERVE, when written.
    pub preserve: Option<bool>,
    /// Its AT or ENDS lies in the past.
    pub past: bool,
    /// RENAME TO (ALTER EVENT).
    pub rename: Option<Tbl>,
}

/// Why the clauses give no [`Clauses`]: a parse error, a check that fails after the
/// implicit commit before any lock, or a form the model does not read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stop {
    Parse,
    Check(u32),
    Refused(String),
}

fn refused<T>(why: &str) -> Result<T, Stop> {
    Err(Stop::Refused(why.to_owned()))
}

/// A time: seconds since 1970 (a literal), or now / today's midnight plus an offset
/// between two bounds (an INTERVAL of months or years is not a fixed length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum When {
    Abs(i64),
    Rel { today: bool, lo: i64, hi: i64 },
}

impl When {
    /// The bounds of the time in seconds since 1970, with now anywhere in the model's
    /// years.
    fn bounds(self) -> (i64, i64) {
        match self {
            When::Abs(t) => (t, t),
            When::Rel { today, lo, hi } => {
                let back = if today { DAY - 1 } else { 0 };
                (NOW_LO - back + lo, NOW_HI + hi)
            }
        }
    }

    /// Whether it lies before the statement's start; None when the model cannot tell.
    fn past(self) -> Option<bool> {
        match self {
            When::Abs(t) => decide(Evidence {
                holds: t < NOW_LO,
                fails: t >= NOW_HI,
            }),
            When::Rel { today, lo, hi } => {
                let back = if today { DAY - 1 } else { 0 };
                decide(Evidence {
                    holds: hi < 0,
                    fails: lo >= back,
                })
            }
        }
    }

    /// Whether `self` (STARTS) is at or after `ends`; None when the model cannot tell.
    fn not_before(self, ends: When) -> Option<bool> {
        if let (
            When::Rel { today: a, lo, hi },
            When::Rel {
                today: b,
                lo: elo,
                hi: ehi,
            },
        ) = (self, ends)
        {
            if a == b {
                return decide(Evidence {
                    holds: lo >= ehi,
                    fails: hi < elo,
                });
            }
        }
        let ((lo, hi), (elo, ehi)) = (self.bounds(), ends.bounds());
        decide(Evidence {
            holds: lo >= ehi,
            fails: hi < elo,
        })
    }
}

/// What the bounds show of a condition: it certainly holds, or it certainly fails.
#[derive(Clone, Copy, Debug)]
struct Evidence {
    holds: bool,
    fails: bool,
}

/// `Some(true)` when the condition certainly holds, `Some(false)` when it certainly
/// fails, `None` when the bounds do not tell.
fn decide(e: Evidence) -> Option<bool> {
    match (e.holds, e.fails) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
fn days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A literal date-time: `'YYYY-MM-DD[ hh:mm:ss]'` (any punctuation between the parts) or
/// `YYYYMMDD[hhmmss]`. `Ok(None)`: a value the server refuses (not a date, outside
/// TIMESTAMP's range).
fn literal(t: &Tok) -> Result<Option<i64>, Stop> {
    let text = match t {
        Tok::Str(s) | Tok::Num(s) => s.trim(),
        _ => return refused("an event time the model does not read"),
    };
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(None);
    }
    let parts: Vec<i64> = if text.chars().all(|c| c.is_ascii_digit()) {
        if text.len() != 8 && text.len() != 14 {
            return refused("an event time the model does not read");
        }
        let n = |a: usize| text[a..a + 2].parse::<i64>().unwrap_or(-1);
        let mut v = vec![text[..4].parse().unwrap_or(-1), n(4), n(6)];
        if text.len() == 14 {
            v.extend([n(8), n(10), n(12)]);
        }
        v
    } else {
        text.split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .map(|p| p.parse().unwrap_or(-1))
            .collect()
    };
    let ok_shape = matches!(parts.len(), 3 | 6)
        && (1..=12).contains(&parts[1])
        && (1..=31).contains(&parts[2])
        && parts.get(3).is_none_or(|h| (0..24).contains(h))
        && parts[3..].iter().skip(1).all(|x| (0..60).contains(x));
    if !ok_shape {
        return refused("an event time the model does not read");
    }
    let (y, m, d) = (parts[0], parts[1], parts[2]);
    if !(1970..=2038).contains(&y) || (y == 2038 && (m > 1 || d > 19)) {
        return Ok(None);
    }
    if (y == 1970 && m == 1 && d == 1) || (y == 2038 && d == 19) {
        return refused("an event time at an end of TIMESTAMP's range (time zones decide)");
    }
    let secs = parts.get(3..).map_or(0, |hms| {
        hms.iter().zip([3600, 60, 1]).map(|(x, k)| x * k).sum()
    });
    Ok(Some(days(y, m, d) * DAY + secs))
}

/// The seconds of `n` of an INTERVAL unit, as bounds; Err(Check) for MICROSECOND units.
fn unit(u: &Tok, n: i64) -> Result<(i64, i64), Stop> {
    let Tok::Word { text, .. } = u else {
        return refused("an event INTERVAL unit the model does not read");
    };
    let w = text.to_ascii_lowercase();
    if w.contains("microsecond") {
        return Err(Stop::Check(ER_NOT_SUPPORTED_YET));
    }
    let (lo, hi) = match w.as_str() {
        "second" => (1, 1),
        "minute" => (60, 60),
        "hour" => (3600, 3600),
        "day" => (DAY, DAY),
        "week" => (7 * DAY, 7 * DAY),
        "month" => (28 * DAY, 31 * DAY),
        "quarter" => (89 * DAY, 92 * DAY),
        "year" => (365 * DAY, 366 * DAY),
        _ => return refused("an event INTERVAL unit the model does not read"),
    };
    Ok((n * lo, n * hi))
}

/// A whole non-negative number written as a literal.
fn count(t: &Tok) -> Option<i64> {
    match t {
        Tok::Num(s) => s.parse().ok(),
        _ => None,
    }
}

fn word(t: Option<&Tok>, w: &str) -> bool {
    t.is_some_and(|t| kw_eq(t, w))
}

/// `NOW()`, `CURRENT_TIMESTAMP[()]`, `LOCALTIME[()]`, `LOCALTIMESTAMP[()]` (false), or
/// `CURDATE()`, `CURRENT_DATE[()]` (true), and the tokens after it.
fn base(e: &[Tok]) -> Option<(bool, &[Tok])> {
    let Tok::Word {
        text,
        quoted: false,
    } = e.first()?
    else {
        return None;
    };
    let today = match text.to_ascii_lowercase().as_str() {
        "now" | "current_timestamp" | "localtime" | "localtimestamp" | "sysdate" => false,
        "curdate" | "current_date" => true,
        _ => return None,
    };
    let rest = &e[1..];
    if rest.first() == Some(&Tok::P('(')) && rest.get(1) == Some(&Tok::P(')')) {
        return Some((today, &rest[2..]));
    }
    let bare = !matches!(
        text.to_ascii_lowercase().as_str(),
        "now" | "curdate" | "sysdate"
    );
    bare.then_some((today, rest))
}

/// An offset's bounds in seconds and the tokens after it.
type Offset<'a> = ((i64, i64), &'a [Tok]);

/// `INTERVAL n unit` at the start of `e`, with the tokens after it.
fn interval(e: &[Tok]) -> Result<Option<Offset<'_>>, Stop> {
    if !word(e.first(), "interval") {
        return Ok(None);
    }
    let (Some(Tok::Num(n)), Some(u)) = (e.get(1), e.get(2)) else {
        return refused("an event INTERVAL the model does not read");
    };
    // A fraction (`INTERVAL 0.1 SECOND`): between the whole seconds around it.
    let Ok(x) = n.parse::<f64>() else {
        return refused("an event INTERVAL the model does not read");
    };
    let (lo, hi) = unit(u, 1)?;
    let off = (
        (x * lo as f64).floor() as i64,
        (x * hi as f64).ceil() as i64,
    );
    Ok(Some((off, &e[3..])))
}

/// A time expression: a literal, NULL, now or today (plus or `DATE_ADD` an INTERVAL).
/// `Ok(None)`: a value the server refuses.
fn time(e: &[Tok]) -> Result<Option<When>, Stop> {
    if word(e.first(), "row") {
        return Err(Stop::Check(ER_OPERAND_COLUMNS));
    }
    match e {
        [t] if word(Some(t), "null") => return Ok(None),
        [t @ (Tok::Str(_) | Tok::Num(_))] => return Ok(literal(t)?.map(When::Abs)),
        _ => {}
    }
    let add = word(e.first(), "date_add") && e.get(1) == Some(&Tok::P('('));
    let inner = if add { &e[2..] } else { e };
    let Some((today, after)) = base(inner) else {
        return refused("an event time the model does not read");
    };
    let (after, (lo, hi)) = match (add, after) {
        (false, []) => (after, (0, 0)),
        (false, [Tok::P(sign @ ('+' | '-')), rest @ ..]) => match interval(rest)? {
            Some(((lo, hi), tail)) if *sign == '-' => (tail, (-hi, -lo)),
            Some((off, tail)) => (tail, off),
            None => return refused("an event time the model does not read"),
        },
        (true, [Tok::P(','), rest @ ..]) => match interval(rest)? {
            Some((off, [Tok::P(')'), tail @ ..])) => (tail, off),
            _ => return refused("an event time the model does not read"),
        },
        _ => return refused("an event time the model does not read"),
    };
    if !after.is_empty() {
        return refused("an event time the model does not read");
    }
    Ok(Some(When::Rel { today, lo, hi }))
}

/// EVERY's count: a whole number, a sum of them, or a string (one that is not a number is
/// 0). `Ok(None)`: not positive.
fn every_count(e: &[Tok]) -> Result<Option<i64>, Stop> {
    if word(e.first(), "row") {
        return Err(Stop::Check(ER_OPERAND_COLUMNS));
    }
    let e = match e {
        [Tok::P('('), inner @ .., Tok::P(')')] if word(inner.first(), "select") => &inner[1..],
        _ => e,
    };
    if let [Tok::P('-'), Tok::Num(_)] = e {
        return Ok(None);
    }
    if let [Tok::Num(n)] = e {
        if n.chars().all(|c| c.is_ascii_digit()) && n.parse::<i64>().is_err() {
            return Ok(None);
        }
    }
    let mut total = 0i64;
    for (i, t) in e.iter().enumerate() {
        match (i % 2, t) {
            (0, Tok::Num(_)) => {
                total += count(t).ok_or(Stop::Refused(
                    "an event EVERY count the model does not read".into(),
                ))?
            }
            (0, Tok::Str(s)) if !s.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {}
            (0, Tok::Str(s))
                if s.trim_start_matches('0')
                    .starts_with(|c: char| !c.is_ascii_digit()) => {}
            (1, Tok::P('+')) => {}
            _ => return refused("an event EVERY count the model does not read"),
        }
    }
    Ok((total > 0 && total <= 1_000_000_000).then_some(total))
}

/// The compound units an EVERY takes as `'a:b[:c[:d]]'` (`get_interval_value`).
const COMPOUND: &[&str] = &[
    "year_month",
    "day_hour",
    "day_minute",
    "day_second",
    "hour_minute",
    "hour_second",
    "minute_second",
];

/// EVERY `'a:b' UNIT` of a compound unit: Some(whether the interval is positive), None
/// when the unit is not compound; a MICROSECOND unit is ER_NOT_SUPPORTED_YET
/// (`init_interval`).
fn compound_every(n: &[Tok], u: &Tok) -> Result<Option<bool>, Stop> {
    let Tok::Word { text, .. } = u else {
        return Ok(None);
    };
    let w = text.to_ascii_lowercase();
    if w.contains("microsecond") {
        return Err(Stop::Check(ER_NOT_SUPPORTED_YET));
    }
    if !COMPOUND.contains(&w.as_str()) {
        return Ok(None);
    }
    let [Tok::Str(v)] = n else {
        return refused("an event EVERY count the model does not read");
    };
    let groups: Vec<&str> = v.split(':').collect();
    if groups.len() > 4
        || groups
            .iter()
            .any(|g| g.is_empty() || !g.chars().all(|c| c.is_ascii_digit()))
    {
        return refused("an event EVERY count the model does not read");
    }
    Ok(Some(
        groups.iter().any(|g| !g.trim_start_matches('0').is_empty()),
    ))
}

/// The clauses of an event statement after its name, up to DO.
pub(super) fn read(rest: &[Tok], db: &str, create: bool) -> Result<Clauses, Stop> {
    let end = rest
        .iter()
        .position(|t| kw_eq(t, "do"))
        .unwrap_or(rest.len());
    let head = &rest[..end];
    // sql_parse.cc, SQLCOM_CREATE_EVENT / SQLCOM_ALTER_EVENT: `lex->table_or_sp_used()`
    // before anything else (a subquery on a table, a stored function).
    let select_from =
        head.iter().any(|t| kw_eq(t, "select")) && head.iter().any(|t| kw_eq(t, "from"));
    if select_from {
        return Err(Stop::Check(ER_SUBQUERIES_NOT_SUPPORTED));
    }
    let mut out = Clauses::default();
    let mut sched: Option<Schedule> = None;
    let mut i = 0;
    while i < head.len() {
        let t = &head[i];
        if kw_eq(t, "on") && word(head.get(i + 1), "schedule") {
            let (s, next) = schedule(head, i + 2)?;
            sched = Some(s);
            i = next;
        } else if kw_eq(t, "on") && word(head.get(i + 1), "completion") {
            let not = word(head.get(i + 2), "not");
            let at = i + 2 + usize::from(not);
            if !word(head.get(at), "preserve") {
                return Err(Stop::Parse);
            }
            out.preserve = Some(!not);
            i = at + 1;
        } else if kw_eq(t, "rename") && !create && word(head.get(i + 1), "to") {
            let (n, next) = name(head, i + 2, db)?;
            out.rename = Some(n);
            i = next;
        } else if kw_eq(t, "enable") {
            i += 1;
        } else if kw_eq(t, "disable") {
            i += 1;
            if word(head.get(i), "on") && word(head.get(i + 1), "slave") {
                i += 2;
            }
        } else if kw_eq(t, "comment") && matches!(head.get(i + 1), Some(Tok::Str(_))) {
            i += 2;
        } else {
            return refused("an event clause the model does not read");
        }
    }
    if let Some(s) = sched {
        let past = s.check()?;
        out.past = past;
        // check_if_in_the_past: ON COMPLETION PRESERVE keeps the event (disabled).
        match (create, out.preserve) {
            (_, Some(true)) => out.past = false,
            (false, Some(false)) if past => return Err(Stop::Check(ER_CANNOT_ALTER_IN_THE_PAST)),
            _ => {}
        }
    }
    Ok(out)
}

/// `[db.]name` at `i`.
fn name(head: &[Tok], i: usize, db: &str) -> Result<(Tbl, usize), Stop> {
    let id = |t: Option<&Tok>| match t {
        Some(Tok::Word { text, .. }) => Some(text.clone()),
        _ => None,
    };
    let Some(a) = id(head.get(i)) else {
        return Err(Stop::Parse);
    };
    if head.get(i + 1) == Some(&Tok::P('.')) {
        let Some(b) = id(head.get(i + 2)) else {
            return Err(Stop::Parse);
        };
        return Ok((Tbl { db: a, name: b }, i + 3));
    }
    Ok((
        Tbl {
            db: db.to_owned(),
            name: a,
        },
        i + 1,
    ))
}

/// The words that end a schedule's expression.
const ENDS_EXPR: &[&str] = &[
    "starts", "ends", "on", "enable", "disable", "comment", "rename",
];

/// The expression from `i` to the next clause word outside parentheses.
fn expr(head: &[Tok], i: usize) -> usize {
    let mut depth = 0i32;
    let mut j = i;
    while j < head.len() {
        match &head[j] {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            t if depth == 0 && ENDS_EXPR.iter().any(|w| kw_eq(t, w)) => break,
            _ => {}
        }
        j += 1;
    }
    j
}

/// What ON SCHEDULE says, read but not checked.
struct Schedule<'a> {
    at: Option<&'a [Tok]>,
    every: Option<(&'a [Tok], &'a Tok)>,
    starts: Option<&'a [Tok]>,
    ends: Option<&'a [Tok]>,
}

fn schedule(head: &[Tok], i: usize) -> Result<(Schedule<'_>, usize), Stop> {
    let mut s = Schedule {
        at: None,
        every: None,
        starts: None,
        ends: None,
    };
    let t = head.get(i).ok_or(Stop::Parse)?;
    let j = expr(head, i + 1);
    if kw_eq(t, "at") {
        s.at = Some(&head[i + 1..j]);
        if word(head.get(j), "starts") || word(head.get(j), "ends") {
            return Err(Stop::Parse);
        }
        return Ok((s, j));
    }
    if !kw_eq(t, "every") || j < i + 3 {
        return Err(Stop::Parse);
    }
    s.every = Some((&head[i + 1..j - 1], &head[j - 1]));
    let mut k = j;
    for (w, slot) in [("starts", &mut s.starts), ("ends", &mut s.ends)] {
        if word(head.get(k), w) {
            let e = expr(head, k + 1);
            *slot = Some(&head[k + 1..e]);
            k = e;
        }
    }
    Ok((s, k))
}

impl Schedule<'_> {
    /// `check_parse_data`'s checks in its order; Ok(whether AT or ENDS lies in the past).
    fn check(&self) -> Result<bool, Stop> {
        let cannot = || {
            Stop::Refused("an event time the model cannot place against its clock (now lies in 2026 to 2029 for the model)".into())
        };
        if let Some(at) = self.at {
            let when = time(at)?.ok_or(Stop::Check(ER_WRONG_VALUE))?;
            return when.past().ok_or_else(cannot);
        }
        let Some((n, u)) = self.every else {
            return Err(Stop::Parse);
        };
        if let Some(positive) = compound_every(n, u)? {
            if !positive {
                return Err(Stop::Check(ER_EVENT_INTERVAL_NOT_POSITIVE_OR_TOO_BIG));
            }
        } else {
            let n =
                every_count(n)?.ok_or(Stop::Check(ER_EVENT_INTERVAL_NOT_POSITIVE_OR_TOO_BIG))?;
            unit(u, n)?;
        }
        // ev_starts: no STARTS is NOW().
        let starts = match self.starts {
            Some(e) => time(e)?.ok_or(Stop::Check(ER_WRONG_VALUE))?,
            None => When::Rel {
                today: false,
                lo: 0,
                hi: 0,
            },
        };
        let Some(e) = self.ends else {
            return Ok(false);
        };
        let ends = time(e)?.ok_or(Stop::Check(ER_EVENT_ENDS_BEFORE_STARTS))?;
        if starts.not_before(ends).ok_or_else(cannot)? {
            return Err(Stop::Check(ER_EVENT_ENDS_BEFORE_STARTS));
        }
        ends.past().ok_or_else(cannot)
    }
}
