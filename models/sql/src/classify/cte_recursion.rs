//! The recursion rules of one `WITH RECURSIVE` clause, as the server checks them
//! (MariaDB `sql/sql_cte.cc`):
//! - which elements are recursive: `With_clause::check_dependencies` finds, for each
//!   element, the elements of the same clause its specification references (anywhere in
//!   it, subqueries included: `With_element::check_dependencies_in_spec` /
//!   `check_dependencies_in_select`), and an element whose transitive dependencies hold
//!   itself is recursive;
//! - anchors: `With_clause::check_anchors`, at parse time (before any table is opened):
//!   a group of mutually recursive elements none of whose SELECTs is free of references
//!   to the group is ER_RECURSIVE_WITHOUT_ANCHORS (4005); when the group stays recursive
//!   after an element with an anchor is taken out, ER_UNACCEPTABLE_MUTUAL_RECURSION (4006);
//! - restricted specifications: `st_select_lex::check_unrestricted_recursive` and
//!   `With_element::check_unrestricted_recursive`, called from `JOIN::prepare`, so after
//!   `open_and_lock_tables` has taken the statement's locks: a SELECT of a recursive
//!   element that references it twice, a recursive reference as the inner operand of an
//!   outer join, an aggregate in a SELECT that is no anchor, or a recursive reference in
//!   a subquery makes the group unrestricted, and with `standard_compliant_cte` on (the
//!   default) that is ER_NOT_STANDARD_COMPLIANT_RECURSIVE (4008).
//!
//! What this reader does not follow is refused (`Err`): a recursive reference inside a
//! derived table or a nested WITH (ER_REF_TO_RECURSIVE_WITH_TABLE_IN_DERIVED, 4007, and
//! the merge of derived tables decide there), a name defined by two WITH clauses of the
//! statement, a window function in a recursive SELECT, a nested join after an outer join
//! holding a recursive reference.

use super::query_ctes::{starts_query, with_clauses, With};
use super::{kw_eq, Catalog, Effect, Stmt, Tok};

/// ER_RECURSIVE_WITHOUT_ANCHORS.
pub(super) const ER_RECURSIVE_WITHOUT_ANCHORS: u32 = 4005;
/// ER_UNACCEPTABLE_MUTUAL_RECURSION.
pub(super) const ER_UNACCEPTABLE_MUTUAL_RECURSION: u32 = 4006;
use crate::errors::ER_NOT_STANDARD_COMPLIANT_RECURSIVE;

/// What the server does with a WITH clause's recursion.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// No recursive element, or every recursive element is restricted.
    Fine,
    /// A parse-time error (4005, 4006): before any lock.
    ParseError(u32),
    /// An unrestricted recursive element: 4008 once the locks are taken (with
    /// `standard_compliant_cte` on).
    Unrestricted,
    /// A recursive element with an ORDER BY or LIMIT of its whole UNION: 1235 once the
    /// locks are taken (`st_select_lex_unit::prepare`, "global ORDER_BY/LIMIT in
    /// recursive CTE spec"; main/cte_recursive.test:2302, measured before 4008).
    GlobalOrder,
}

/// ER_NOT_SUPPORTED_YET.
pub(super) const ER_NOT_SUPPORTED_YET: u32 = 1235;

/// The aggregate functions (`Item_sum` subclasses, sql/item_sum.h) that set a SELECT's
/// `with_sum_func`.
const AGGREGATES: [&str; 18] = [
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "group_concat",
    "std",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "bit_and",
    "bit_or",
    "bit_xor",
    "json_arrayagg",
    "json_objectagg",
];

/// Where a reference sits inside one SELECT of a specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    /// The SELECT's own FROM list (nested joins included).
    Top,
    /// A subquery (an expression's `(SELECT ...)`).
    Subquery,
    /// A derived table or the body of a nested WITH.
    Derived,
}

/// One reference to an element of the clause from a SELECT of a specification.
struct Ref {
    elem: usize,
    ctx: Ctx,
    /// The inner operand of an outer join (`LEFT JOIN r`, `r RIGHT JOIN`).
    outer_inner: bool,
}

/// One SELECT of a specification: its references and whether it has an aggregate of
/// its own.
struct Select {
    refs: Vec<Ref>,
    aggregate: bool,
}

/// The verdict on every WITH clause of the statement (the first error wins, in the
/// order of the clauses as the parser finishes them: inner ones are checked with their
/// query expression, the first written is enough here as the corpus has one error per
/// statement).
pub(super) fn check_all(toks: &[Tok]) -> Result<Verdict, String> {
    let withs = with_clauses(toks);
    let mut out = Verdict::Fine;
    for (i, w) in withs.iter().enumerate().filter(|(_, w)| w.recursive) {
        // Another clause of one of its names inside one of its elements' bodies, where it
        // hides the element (a clause elsewhere names other tables: an outer one's
        // element of the same name is hidden by this clause's).
        let overlaps = |o: &With| w.elems.iter().any(|(_, s, e)| (*s..*e).contains(&o.at));
        let shadowed = withs.iter().enumerate().any(|(j, o)| {
            j != i
                && overlaps(o)
                && o.elems
                    .iter()
                    .any(|(n, _, _)| w.elems.iter().any(|(m, _, _)| n.eq_ignore_ascii_case(m)))
        });
        if shadowed {
            return Err(
                "a recursive CTE whose name another WITH of the statement defines too is not \
                 modelled"
                    .into(),
            );
        }
        match check(toks, w)? {
            Verdict::Fine => {}
            Verdict::GlobalOrder => out = Verdict::GlobalOrder,
            Verdict::Unrestricted if out == Verdict::Fine => out = Verdict::Unrestricted,
            Verdict::Unrestricted => {}
            e @ Verdict::ParseError(_) => return Ok(e),
        }
    }
    Ok(out)
}

/// The verdict on one WITH RECURSIVE clause.
fn check(toks: &[Tok], w: &With) -> Result<Verdict, String> {
    let names: Vec<String> = w.elems.iter().map(|(n, _, _)| n.to_lowercase()).collect();
    let specs: Vec<Vec<Select>> = w
        .elems
        .iter()
        .map(|(_, s, e)| {
            selects(toks, *s, *e)
                .into_iter()
                .map(|(a, b)| read_select(toks, a, b, &names))
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let n = names.len();
    let bit = |k: usize| 1u64 << k;
    let dep_of = |sel: &Select| sel.refs.iter().fold(0u64, |m, r| m | bit(r.elem));
    // check_dependencies: the direct dependencies, then their transitive closure.
    let base: Vec<u64> = specs
        .iter()
        .map(|sels| sels.iter().fold(0, |m, s| m | dep_of(s)))
        .collect();
    let mut derived = base.clone();
    for k in 0..n {
        for e in 0..n {
            if derived[e] & bit(k) != 0 {
                derived[e] |= derived[k];
            }
        }
    }
    let recursive: Vec<bool> = (0..n).map(|k| derived[k] & bit(k) != 0).collect();
    // check_anchors: the groups of mutually recursive elements and their anchors.
    let group: Vec<u64> = (0..n)
        .map(|k| {
            (0..n)
                .filter(|&e| {
                    recursive[e]
                        && (e == k || (derived[e] & bit(k) != 0 && derived[k] & bit(e) != 0))
                })
                .fold(0, |m, e| m | bit(e))
        })
        .collect();
    let is_anchor = |k: usize, s: &Select| dep_of(s) & group[k] == 0;
    let anchored: Vec<bool> = (0..n)
        .map(|k| specs[k].iter().any(|s| is_anchor(k, s)))
        .collect();
    for k in (0..n).filter(|&k| recursive[k]) {
        let others: Vec<usize> = (0..n)
            .filter(|&e| e != k && group[k] & bit(e) != 0)
            .collect();
        if !anchored[k] {
            if !others.iter().any(|&e| anchored[e]) {
                return Ok(Verdict::ParseError(ER_RECURSIVE_WITHOUT_ANCHORS));
            }
            continue;
        }
        // The group without k must not be recursive any more.
        let mut work: Vec<u64> = (0..n).map(|e| base[e] & group[e]).collect();
        for &m in &others {
            for &e in &others {
                if work[e] & bit(m) != 0 {
                    work[e] |= work[m];
                }
            }
        }
        if others.iter().any(|&e| work[e] & bit(e) != 0) {
            return Ok(Verdict::ParseError(ER_UNACCEPTABLE_MUTUAL_RECURSION));
        }
    }
    for k in (0..n).filter(|&k| recursive[k]) {
        if global_order(toks, w.elems[k].1, w.elems[k].2) {
            return Ok(Verdict::GlobalOrder);
        }
    }
    // check_unrestricted_recursive, conditions 1-4.
    let mut unrestricted = false;
    for k in (0..n).filter(|&k| recursive[k]) {
        for s in &specs[k] {
            let rec: Vec<&Ref> = s
                .refs
                .iter()
                .filter(|r| group[k] & bit(r.elem) != 0)
                .collect();
            if rec.iter().any(|r| r.ctx == Ctx::Derived) {
                return Err(
                    "a recursive CTE referenced inside a derived table or a nested WITH is not \
                     modelled"
                        .into(),
                );
            }
            let own_top = rec
                .iter()
                .filter(|r| r.elem == k && r.ctx == Ctx::Top)
                .count();
            unrestricted |= own_top > 1
                || rec.iter().any(|r| r.outer_inner || r.ctx == Ctx::Subquery)
                || (s.aggregate && !is_anchor(k, s));
        }
    }
    Ok(if unrestricted {
        Verdict::Unrestricted
    } else {
        Verdict::Fine
    })
}

/// Whether the query expression `[s, e)` (a recursive element's body) has a UNION and
/// an ORDER BY or LIMIT of the whole UNION (outside parentheses, after its last SELECT).
fn global_order(toks: &[Tok], s: usize, e: usize) -> bool {
    let parts = selects(toks, s, e);
    let Some(&(a, b)) = parts.last().filter(|_| parts.len() > 1) else {
        return false;
    };
    let mut depth = 0i32;
    toks[a..b].iter().any(|t| {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ => {}
        }
        depth == 0 && (kw_eq(t, "order") || kw_eq(t, "limit"))
    })
}

/// The plan of a query whose recursive CTE the server refuses once its locks are taken
/// (`code`: 4008 from `JOIN::prepare`, 1235 from `st_select_lex_unit::prepare`, both
/// after `open_and_lock_tables`): its locks, then the error; a missing table's 1146
/// comes first (`open_tables`). A query that names no base table fails at once.
pub(super) fn after_locks(cat: &Catalog, st: Stmt, code: u32) -> Stmt {
    match st {
        Stmt::NoLocks => Stmt::Fails(code),
        Stmt::Learned(mut p) => {
            if matches!(&p.effect, Effect::NeedTables(ts) if ts.iter().all(|t| cat.exists(t))) {
                p.effect = Effect::Fail(code);
            }
            Stmt::Learned(p)
        }
        st => st,
    }
}

/// The statement run with `standard_compliant_cte` off (`SET STATEMENT
/// standard_compliant_cte=0 FOR ...`): an unrestricted recursive CTE runs
/// (`st_select_lex::check_unrestricted_recursive` reports nothing), reading its tables.
pub(super) fn compliant_off(st: Stmt) -> Stmt {
    match st {
        Stmt::Fails(ER_NOT_STANDARD_COMPLIANT_RECURSIVE) => Stmt::NoLocks,
        Stmt::Learned(mut p) if p.effect == Effect::Fail(ER_NOT_STANDARD_COMPLIANT_RECURSIVE) => {
            let mut ts = Vec::new();
            for t in p.parts.iter().filter_map(|x| x.bind.t.clone()) {
                if !ts.contains(&t) {
                    ts.push(t);
                }
            }
            p.effect = Effect::NeedTables(ts);
            Stmt::Learned(p)
        }
        st => st,
    }
}

/// The index of the parenthesis that closes the one at `open` (`end` when none does).
fn close_of(toks: &[Tok], open: usize, end: usize) -> usize {
    super::lex::matching_paren(&toks[..end.min(toks.len())], open).unwrap_or(end)
}

/// The SELECTs of a query expression's tokens `[s, e)`: split at the UNION / EXCEPT /
/// INTERSECT outside parentheses, each part without the parentheses that wrap it whole
/// (`(SELECT ...) UNION (SELECT ...)`), and split again.
fn selects(toks: &[Tok], mut s: usize, mut e: usize) -> Vec<(usize, usize)> {
    while s < e && toks[s] == Tok::P('(') && close_of(toks, s, e) == e - 1 {
        s += 1;
        e -= 1;
    }
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = s;
    for k in s..e {
        match &toks[k] {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            t if depth == 0 && ["union", "except", "intersect"].iter().any(|w| kw_eq(t, w)) => {
                out.push((start, k));
                start = k + 1;
                while start < e && ["all", "distinct"].iter().any(|w| kw_eq(&toks[start], w)) {
                    start += 1;
                }
            }
            _ => {}
        }
    }
    if out.is_empty() {
        return vec![(s, e)];
    }
    out.push((start, e));
    out.into_iter()
        .flat_map(|(a, b)| selects(toks, a, b))
        .collect()
}

/// Words after which a table reference of a FROM list follows.
const LIST_START: [&str; 3] = ["from", "join", "straight_join"];
/// Words that end a FROM list at their level.
const LIST_END: [&str; 12] = [
    "where",
    "on",
    "using",
    "group",
    "having",
    "order",
    "limit",
    "window",
    "select",
    "union",
    "except",
    "intersect",
];

/// The references to the clause's elements (`names`, lower case) in the SELECT
/// `[s, e)`, with where each sits, and whether the SELECT has an aggregate of its own.
fn read_select(toks: &[Tok], s: usize, e: usize, names: &[String]) -> Result<Select, String> {
    // The bodies of nested WITH clauses in this SELECT.
    let nested: Vec<(usize, usize)> = with_clauses(&toks[s..e])
        .into_iter()
        .flat_map(|w| w.elems.into_iter().map(|(_, a, b)| (s + a, s + b)))
        .collect();
    // One level per open parenthesis: its context and whether a FROM list is open there.
    let mut levels: Vec<(Ctx, bool)> = vec![(Ctx::Top, false)];
    let mut out = Select {
        refs: Vec::new(),
        aggregate: false,
    };
    let prev = |k: usize| (k > s).then(|| &toks[k - 1]);
    for k in s..e {
        let (ctx, in_from) = *levels.last().expect("a level");
        let t = &toks[k];
        match t {
            Tok::P('(') => {
                let after_list = prev(k).is_some_and(|p| {
                    LIST_START.iter().any(|w| kw_eq(p, w)) || (*p == Tok::P(',') && in_from)
                });
                let next = if starts_query(toks, k) && k > s {
                    // A derived table: after FROM / JOIN / a comma of a FROM list, or
                    // inside the parentheses of one (`FROM ((SELECT ...))`).
                    let nested_paren = prev(k) == Some(&Tok::P('('))
                        && (ctx == Ctx::Derived || (ctx == Ctx::Top && in_from));
                    if after_list || nested_paren {
                        (Ctx::Derived, false)
                    } else {
                        (worst(ctx, Ctx::Subquery), false)
                    }
                } else if nested.iter().any(|&(a, _)| a == k + 1) {
                    (Ctx::Derived, false)
                } else {
                    (ctx, after_list)
                };
                levels.push(next);
                continue;
            }
            Tok::P(')') => {
                if levels.len() > 1 {
                    levels.pop();
                }
                continue;
            }
            _ => {}
        }
        let top = levels.len() == 1 || levels.iter().all(|(c, _)| *c == Ctx::Top);
        if LIST_START.iter().any(|w| kw_eq(t, w)) {
            levels.last_mut().expect("a level").1 = true;
        } else if LIST_END.iter().any(|w| kw_eq(t, w)) {
            levels.last_mut().expect("a level").1 = false;
        }
        let Tok::Word { text, .. } = t else { continue };
        let lower = text.to_lowercase();
        if top && AGGREGATES.contains(&lower.as_str()) && toks.get(k + 1) == Some(&Tok::P('(')) {
            if kw_eq_opt(toks.get(close_of(toks, k + 1, e) + 1), "over") {
                return Err("a window function in a recursive CTE is not modelled".into());
            }
            out.aggregate = true;
        }
        let Some(elem) = names.iter().position(|n| *n == lower) else {
            continue;
        };
        let qualified = prev(k) == Some(&Tok::P('.')) || toks.get(k + 1) == Some(&Tok::P('.'));
        let in_list = prev(k).is_some_and(|p| {
            LIST_START.iter().any(|w| kw_eq(p, w))
                || (*p == Tok::P(',') && in_from)
                || (*p == Tok::P('(') && in_from)
        });
        if qualified || !in_list {
            continue;
        }
        let inside_nested = nested.iter().any(|&(a, b)| (a..b).contains(&k));
        let ctx = if inside_nested { Ctx::Derived } else { ctx };
        if ctx == Ctx::Top && in_nested_join_after_outer(toks, s, k) {
            return Err(
                "a recursive reference in a nested join of an outer join is not modelled".into(),
            );
        }
        out.refs.push(Ref {
            elem,
            ctx,
            outer_inner: outer_inner(toks, s, e, k),
        });
    }
    Ok(out)
}

/// The stronger of two contexts (a derived table inside a subquery is a derived table).
fn worst(a: Ctx, b: Ctx) -> Ctx {
    if a == Ctx::Derived || b == Ctx::Derived {
        Ctx::Derived
    } else if a == Ctx::Subquery || b == Ctx::Subquery {
        Ctx::Subquery
    } else {
        Ctx::Top
    }
}

fn kw_eq_opt(t: Option<&Tok>, kw: &str) -> bool {
    t.is_some_and(|t| kw_eq(t, kw))
}

/// Whether the table reference at `k` is the inner operand of an outer join: it follows
/// `LEFT [OUTER] JOIN`, or `RIGHT [OUTER] JOIN` follows it and its alias (the parser
/// marks the inner table's `outer_join` with JOIN_TYPE_LEFT / JOIN_TYPE_RIGHT,
/// sql_yacc.yy `table_ref`).
fn outer_inner(toks: &[Tok], s: usize, e: usize, k: usize) -> bool {
    let at = |i: usize| (i >= s && i < e).then(|| &toks[i]);
    let mut p = k.wrapping_sub(1);
    if kw_eq_opt(at(p), "join") {
        p = p.wrapping_sub(1);
        if kw_eq_opt(at(p), "outer") {
            p = p.wrapping_sub(1);
        }
        if kw_eq_opt(at(p), "left") {
            return true;
        }
    }
    let mut q = k + 1;
    if kw_eq_opt(at(q), "as") {
        q += 2;
    } else if matches!(at(q), Some(Tok::Word { text, quoted }) if *quoted || !super::tables::TABLE_END.iter().any(|w| text.eq_ignore_ascii_case(w)))
    {
        q += 1;
    }
    kw_eq_opt(at(q), "right")
}

/// Whether the reference at `k` sits in parentheses opened right after `LEFT [OUTER]
/// JOIN` or closed right before `RIGHT` (a nested join that is an outer join's inner
/// operand): the server's walk up `TABLE_LIST::embedding` is not followed here.
fn in_nested_join_after_outer(toks: &[Tok], s: usize, k: usize) -> bool {
    let mut depth = 0i32;
    for i in (s..k).rev() {
        match &toks[i] {
            Tok::P(')') => depth += 1,
            Tok::P('(') if depth > 0 => depth -= 1,
            Tok::P('(') => {
                let before = i.checked_sub(1).map(|j| &toks[j]);
                if kw_eq_opt(before, "join")
                    && (i >= 2 && (kw_eq(&toks[i - 2], "left") || kw_eq(&toks[i - 2], "outer")))
                {
                    return true;
                }
                let close = close_of(toks, i, toks.len());
                if kw_eq_opt(toks.get(close + 1), "right") {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn verdict(sql: &str) -> Result<Verdict, String> {
        check_all(&tokens(sql).expect("tokens"))
    }

    #[test]
    fn a_plain_recursive_cte_is_fine() {
        assert_eq!(
            verdict("with recursive c(n) as (select 1 union select n+1 from c where n < 5) select * from c"),
            Ok(Verdict::Fine)
        );
        // The anchor may come after the recursive SELECT (move_anchors_ahead).
        assert_eq!(
            verdict("WITH RECURSIVE cte(n) AS ( SELECT n+1 FROM cte WHERE n < 5 UNION SELECT 1 UNION SELECT 1 ) SELECT * FROM cte"),
            Ok(Verdict::Fine)
        );
        // Two recursive SELECTs, one reference each.
        assert_eq!(
            verdict("with recursive a as (select * from f where n = 'Me' union select p.* from f as p, a as fa where p.id = fa.father union select p.* from f as p, a as ma where p.id = ma.mother) select * from a"),
            Ok(Verdict::Fine)
        );
    }

    #[test]
    fn the_anchor_errors_come_at_parse_time() {
        // main/cte_nonrecursive.test:403
        assert_eq!(
            verdict("with recursive t as (select * from s where a>2), s as (select a from t1,r where t1.a>r.c), r as (select c from t,t2 where t.a=t2.c) select * from r where r.c<7"),
            Ok(Verdict::ParseError(ER_RECURSIVE_WITHOUT_ANCHORS))
        );
        // main/cte_recursive.test:15
        assert_eq!(
            verdict("with recursive t as ( select * from t1 where t1.b >= 'c' union select * from r ), r as ( select * from t union select t1.* from t1,r where r.a+1 = t1.a ) select * from r"),
            Ok(Verdict::ParseError(ER_UNACCEPTABLE_MUTUAL_RECURSION))
        );
        // A later element that is not recursive (main/cte_recursive.test:71).
        assert_eq!(
            verdict("with recursive s(a) as (select t.a + 10 from t), t(a) as (select t1.a from t1) select * from s"),
            Ok(Verdict::Fine)
        );
    }

    #[test]
    fn unrestricted_specifications() {
        // An aggregate in the recursive SELECT (main/cte_recursive.test:969).
        assert_eq!(
            verdict("with recursive a (id, g) as ( select father, 1 from folks union select max(father), max(a.g)+1 from folks, a where folks.id = a.id group by a.g ) select * from a"),
            Ok(Verdict::Unrestricted)
        );
        // An aggregate in the anchor is no restriction.
        assert_eq!(
            verdict("with recursive a (n) as ( select count(*) from folks union select n+1 from a where n < 3 ) select * from a"),
            Ok(Verdict::Fine)
        );
        // Two references in one SELECT (main/cte_recursive.test:857).
        assert_eq!(
            verdict("with recursive c (id) as ( select father from folks union select n.father from folks, c fa, c ma, folks n where folks.father = fa.id and folks.mother = ma.id ) select * from c"),
            Ok(Verdict::Unrestricted)
        );
        // The inner operand of a LEFT JOIN (main/cte_recursive.test:905).
        assert_eq!(
            verdict("with recursive a (id) as ( select father from folks union select father from folks left join a on folks.id = a.id ) select * from a"),
            Ok(Verdict::Unrestricted)
        );
        // Its outer operand is no restriction.
        assert_eq!(
            verdict("with recursive a (id) as ( select father from folks union select father from a left join folks on folks.id = a.id ) select * from a"),
            Ok(Verdict::Fine)
        );
        // A reference in a subquery (main/cte_recursive.test:1935).
        assert_eq!(
            verdict("WITH RECURSIVE cte(f) AS ( SELECT i FROM t UNION SELECT i FROM t WHERE i NOT IN ( SELECT * FROM cte ) ) SELECT * FROM cte"),
            Ok(Verdict::Unrestricted)
        );
    }

    #[test]
    fn what_is_not_followed_is_refused() {
        assert!(verdict("with recursive r as ( select 1 as f1 union select f1 from ( with a as ( select f1 from r ) select 1 as f1 ) y ) (select f1 from r)").is_err());
        assert!(verdict("with recursive r (y) as ( with recursive r (z) as ( select z + 1 from r where z < 2 union all select 1) select z from r union all select y * 2 from r where y < 10) select y from r").is_err());
    }
}
