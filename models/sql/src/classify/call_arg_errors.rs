//! A CALL's arguments that the parser refuses (MDEV-15870, "Using aggregate and window
//! function in unexpected places"): an aggregate function is ER_INVALID_GROUP_FUNC_USE
//! (1111), a window function ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION (4015). The server
//! gives them before it opens anything or looks the procedure up: main/sp.test:8835
//! `CALL p1(SUM(1))` fails with 1111 where `p1` does not exist (measured on 10.11.19;
//! `suite/call-arg-errors.mdl`).

use super::{kw_eq, Tok};

/// ER_INVALID_GROUP_FUNC_USE.
pub(super) const ER_INVALID_GROUP_FUNC_USE: u32 = 1111;
/// ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION.
pub(super) const ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION: u32 = 4015;

/// The aggregate functions of sql_yacc.yy's `sum_expr`.
const AGGREGATES: &[&str] = &[
    "avg",
    "bit_and",
    "bit_or",
    "bit_xor",
    "count",
    "group_concat",
    "json_arrayagg",
    "json_objectagg",
    "max",
    "min",
    "std",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "sum",
    "var_pop",
    "var_samp",
    "variance",
];

/// The parser's error for `CALL name(args)`, or None. A subquery's own aggregates are
/// its own: a CALL whose arguments hold a SELECT is left alone.
pub(super) fn error(toks: &[Tok]) -> Option<u32> {
    if !kw_eq(toks.first()?, "call") || toks.iter().any(|t| kw_eq(t, "select")) {
        return None;
    }
    if toks.iter().any(|t| kw_eq(t, "over")) {
        return Some(ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION);
    }
    let aggregate = toks
        .windows(2)
        .any(|w| w[1] == Tok::P('(') && AGGREGATES.iter().any(|a| kw_eq(&w[0], a)));
    aggregate.then_some(ER_INVALID_GROUP_FUNC_USE)
}
