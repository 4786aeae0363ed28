//! ALTER TABLE of a table whose columns the catalog knows: the plan from
//! `alter_columns::resolve` (the algorithm the server picks, its errors, IF [NOT]
//! EXISTS). A table whose columns the catalog does not know (made outside the scenario's
//! SQL, or by a statement the column reader does not read) goes the old way
//! (`alter_algorithm.rs`), which refuses what depends on the columns.

use super::super::alter_algorithm::operations;
use super::super::alter_columns::{resolve, Resolved};
use super::{AlterCols, Cx, Effect, Stmt, Tbl, Tok};
use crate::catalog::Engine;
use crate::kind::Kind;

/// ER_ALTER_OPERATION_NOT_SUPPORTED_REASON.
const ER_ALTER_NOT_SUPPORTED_REASON: u32 = 1846;

/// The learned kinds of ALTER, cheapest first.
const ORDER: [Kind; 3] = [Kind::AlterInstant, Kind::AlterInplace, Kind::AlterCopy];

/// The catalog knows the columns of table `t`.
pub(super) fn known(cx: &Cx, t: &Tbl) -> bool {
    // The resolver's choices were measured on InnoDB and MyISAM only
    // (models/conformance/README.md); the other engines keep classify/engines.rs's rows.
    cx.cat.is_table(t)
        && cx.cat.columns(t).is_some()
        && matches!(cx.cat.engine(t), Some(Engine::InnoDb | Engine::MyIsam))
}

/// The rank of an `ALGORITHM=` value (INPLACE and NOCOPY alike), `None` for DEFAULT.
fn rank(algo: &str) -> Option<usize> {
    match algo {
        "instant" => Some(0),
        "inplace" | "nocopy" => Some(1),
        "copy" => Some(2),
        _ => None,
    }
}

/// What the parser refuses before any table is opened (the server's 1064, 1059, 1300
/// come first): a name longer than 64 characters or outside the Basic Multilingual
/// Plane, an ORDER BY of something else than column names.
fn parser_refuses(spec: &[String]) -> Option<String> {
    let odd = |w: &String| w.chars().count() > 64 || w.chars().any(|c| c as u32 > 0xFFFF);
    if spec.iter().any(odd) {
        return Some(
            "a name the parser refuses (too long, or outside the BMP) is not modelled".into(),
        );
    }
    let order = spec
        .windows(2)
        .position(|w| w[0] == "order" && w[1] == "by")?;
    let plain = spec[order + 2..].iter().all(|w| {
        w == ","
            || w == "."
            || w == "asc"
            || w == "desc"
            || w.parse::<f64>().is_err() && w != "(" && w != ")" && !w.starts_with('\'')
    });
    (!plain).then(|| {
        "ORDER BY of an expression or a number (the parser refuses it) is not modelled".into()
    })
}

/// `alter_algorithm.rs` plays the statement (an ALGORITHM named, or one it can tell).
fn old_way_plays(spec: &[String], algo: Option<&str>, engine: Engine) -> bool {
    match algo {
        Some("default") | None => super::super::alter_algorithm::default_kind(spec, engine).is_ok(),
        Some(_) => true,
    }
}

/// What the ALTER asks for beside its operations.
#[derive(Clone, Copy, Debug)]
pub(super) struct Asked<'a> {
    /// The ALGORITHM= clause, lower case (`None`: not written).
    pub algo: Option<&'a str>,
    /// It drops a primary key column of an InnoDB table (a copy whatever is asked).
    pub pk_copy: bool,
    /// ALTER ONLINE TABLE (LOCK=NONE).
    pub online: bool,
}

/// The plan of ALTER TABLE `t` (columns known) with `spec` (its words after the table
/// name); `None` to go the old way (what `resolve` cannot tell, where the old way can).
pub(super) fn classify(
    cx: &Cx,
    t: &Tbl,
    spec: &[String],
    asked: Asked,
    toks: &[Tok],
) -> Option<Result<Stmt, String>> {
    let Asked {
        algo,
        pk_copy,
        online,
    } = asked;
    if algo.is_some_and(|a| a != "default" && rank(a).is_none()) {
        return Some(Err(format!(
            "unknown ALGORITHM={}",
            algo.unwrap_or_default()
        )));
    }
    if !cx.cat.exists(t) {
        // open_tables fails (ER_NO_SUCH_TABLE) after SU: the operations never matter,
        // unless the parser refuses the statement first.
        if let Some(why) = parser_refuses(spec) {
            return Some(Err(why));
        }
        let kind = algo.and_then(rank).map_or(Kind::AlterCopy, |a| ORDER[a]);
        let p = match cx.on_table(kind, t) {
            Ok(p) => p,
            Err(e) => return Some(Err(e)),
        };
        let effect = Effect::Alter {
            t: t.clone(),
            forget_pk: true,
            cols: AlterCols::Forget,
        };
        return Some(cx.plan(kind, vec![p], effect, toks));
    }
    let def = cx.cat.columns(t)?;
    let engine = cx.cat.engine(t).unwrap_or(Engine::InnoDb);
    let spec = match spec.first().map(String::as_str) {
        Some("wait") => spec.get(2..).unwrap_or_default(),
        Some("nowait") => spec.get(1..).unwrap_or_default(),
        _ => spec,
    };
    if (online || algo.is_some()) && spec.iter().any(|w| w == "spatial") {
        // The column's type decides (the server's 1210 for ALTER ONLINE ... ADD SPATIAL
        // INDEX of an INT column, where the old way played ALGORITHM=INSTANT).
        return Some(Err(
            "SPATIAL keys with ALGORITHM= or ONLINE are not modelled".into(),
        ));
    }
    let has_if = spec
        .windows(2)
        .any(|w| w[0] == "if" && matches!(w[1].as_str(), "exists" | "not"));
    let resolved = match resolve(def, &operations(spec), engine) {
        Ok(r) => r,
        // The old way, where it plays the statement (it refuses IF [NOT] EXISTS, MODIFY,
        // CHANGE, CONVERT itself): then this reason is the one to give.
        Err(_) if !has_if && old_way_plays(spec, algo, engine) => return None,
        Err(e) => return Some(Err(e)),
    };
    let asked = algo.and_then(rank);
    let (kind, cols) = match resolved {
        Resolved::Nothing => (Kind::AlterInstant, AlterCols::Nothing),
        Resolved::Fails(code) => (Kind::AlterInstant, AlterCols::Fail(code)),
        Resolved::Runs(r, new) => {
            let need = if pk_copy { 2 } else { r };
            match asked {
                // NOCOPY is refused by in-place operations that rebuild the table, which
                // `resolve` does not tell from the others.
                Some(1) if algo == Some("nocopy") && need == 1 => {
                    return Some(Err(
                        "ALGORITHM=NOCOPY of an operation in place (it may rebuild) is not \
                         modelled"
                            .into(),
                    ))
                }
                // mysql_alter_table: ER_ALTER_OPERATION_NOT_SUPPORTED_REASON after IX, SU
                // and BACKUP_DDL (measured: `MODIFY b BIGINT, ALGORITHM=INPLACE` waits
                // behind BACKUP STAGE BLOCK_DDL, then fails).
                Some(a) if a < need => (ORDER[a], AlterCols::Fail(ER_ALTER_NOT_SUPPORTED_REASON)),
                Some(a) => (ORDER[a], AlterCols::Set(new)),
                None => (ORDER[need], AlterCols::Set(new)),
            }
        }
    };
    if online && kind == Kind::AlterCopy {
        return Some(Err(
            "ALTER ONLINE TABLE (LOCK=NONE) of an operation that copies is not modelled".into(),
        ));
    }
    let forget_pk = super::super::alter_algorithm::may_change_pk(spec, cx.cat.primary_key(t));
    let p = match cx.on_table(kind, t) {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    let effect = Effect::Alter {
        t: t.clone(),
        forget_pk,
        cols,
    };
    Some(cx.plan(kind, vec![p], effect, toks))
}
