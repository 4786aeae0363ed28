//! A SELECT with no FROM that calls stored functions the catalog does not have
//! (`SELECT relay('1')`, `SELECT test.database()`, `SELECT nosuchfn9(1)`): the server
//! prelocks each routine the statement names (`open_tables` → `open_and_process_routine`,
//! sql/sql_base.cc: MDL_SHARED on the FUNCTION key, MDL_TRANSACTION, taken before
//! `sp_cache_routine` finds nothing, which is no error there), then fails while the select
//! list is fixed (`Item_func_sp::fix_fields` → `my_missing_function_error`, sql/item.cc):
//! ER_FUNC_INEXISTENT_NAME_COLLISION (1630) when the name is also a native function or a
//! keyword (`is_lex_native_function`), else ER_SP_DOES_NOT_EXIST (1305). In a transaction
//! the S locks stay until it ends (measured on 10.11.19: a CREATE FUNCTION of the name
//! waits; main/sp.test:5801 and :9584, `suite/missing-stored-function.mdl`).

use super::function_names::{callee_of_call, Callee};
use super::{kw_eq, Bind, Cx, Effect, Plan, Stmt, Tbl, Tok};
use crate::kind::Kind;

/// ER_FUNC_INEXISTENT_NAME_COLLISION.
pub(super) const ER_FUNC_INEXISTENT_NAME_COLLISION: u32 = 1630;
/// Native functions whose names are also lexer keywords, measured qualified (`test.x()`):
/// only `database` so far (1630); `pi`, a function only, is 1305.
const NATIVE_KEYWORDS: &[&str] = &["database"];

/// Parts of the spatial functions' names.
const SPATIAL: &[&str] = &[
    "st_", "text", "wkb", "wkt", "geom", "point", "poly", "line", "json", "mbr", "srid",
];

/// ER_SP_DOES_NOT_EXIST.
const ER_SP_DOES_NOT_EXIST: u32 = 1305;

/// The plan of such a SELECT, or None for another statement (one with FROM, INTO or a
/// subquery, or that calls no missing stored function).
pub(super) fn classify(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    if !kw_eq(toks.first()?, "select")
        || toks[1..]
            .iter()
            .any(|t| ["from", "into", "select"].iter().any(|k| kw_eq(t, k)))
        || !(cx.has_row)(Kind::SelectFunction.as_str())
    {
        return None;
    }
    let mut calls: Vec<(Tbl, u32)> = Vec::new();
    for i in 0..toks.len().saturating_sub(1) {
        let Tok::Word { text, .. } = &toks[i] else {
            continue;
        };
        if toks[i + 1] != Tok::P('(') || text.starts_with('@') {
            continue;
        }
        // The spatial functions (item_geofunc.cc's registry) are native, but the measured
        // function table misses many of them (`ST_ASTEXT`, `ST_DISTANCE_SPHERE`, ...;
        // main/gis*.test of the `main/` sample): such a name is left to the old reading
        // (no lock), not taken for a missing stored function.
        let l = text.to_ascii_lowercase();
        if SPATIAL.iter().any(|p| l.contains(p)) {
            return None;
        }
        let has_args = toks.get(i + 2).is_some_and(|t| *t != Tok::P(')'));
        let callee = callee_of_call(text, has_args);
        let qualified = i >= 2 && toks[i - 1] == Tok::P('.');
        let (db, code) = if qualified {
            let Tok::Word { text: db, .. } = &toks[i - 2] else {
                return None;
            };
            if super::sys_routines::pure_function(db, text) {
                continue;
            }
            // A qualified call is always a stored function's; the name collides when it
            // is a keyword of the lexer (`database`, reserved; `relay`, not), not when it
            // is only a native function's (`test.pi()`: 1305, main/sp.test:5743).
            let keyword = matches!(callee, Callee::Stored { keyword: true })
                || super::reserved::is_reserved(&toks[i])
                || NATIVE_KEYWORDS.iter().any(|k| text.eq_ignore_ascii_case(k));
            let code = if keyword {
                ER_FUNC_INEXISTENT_NAME_COLLISION
            } else {
                ER_SP_DOES_NOT_EXIST
            };
            (db.clone(), code)
        } else {
            match callee {
                Callee::Stored { keyword } => (
                    cx.db.to_owned(),
                    if keyword {
                        ER_FUNC_INEXISTENT_NAME_COLLISION
                    } else {
                        ER_SP_DOES_NOT_EXIST
                    },
                ),
                _ => continue,
            }
        };
        let r = Tbl {
            db,
            name: text.clone(),
        };
        if cx
            .cat
            .routines
            .functions()
            .any(|f| f.db.eq_ignore_ascii_case(&r.db) && f.name.eq_ignore_ascii_case(&r.name))
        {
            return None;
        }
        if !calls.iter().any(|(c, _)| c == &r) {
            calls.push((r, code));
        }
    }
    let code = calls.first()?.1;
    let parts = calls
        .into_iter()
        .map(|(r, _)| {
            cx.part(
                Kind::SelectFunction,
                Bind {
                    r: Some(r),
                    ..Bind::default()
                },
            )
        })
        .collect();
    Some(Ok(Stmt::Learned(Plan::of(
        Kind::SelectFunction,
        parts,
        Effect::Fail(code),
    ))))
}
