//! `SET v = expr` of a stored program's variable whose value names an identifier that is
//! no variable of the body and no column of a table in scope: MariaDB's parser refuses
//! the definition with ER_SP_UNDECLARED_VAR (1327) before any lock (MDEV-14347, MariaDB
//! commit 6e2d967b1b: the name becomes an `Item_field` in `LEX::create_item_ident_sp`,
//! sql/sql_lex.cc, and an assignment whose fields can resolve in no table fails; the cases
//! of main/sp-vars.test, measured on 10.11.19 with more of our own):
//!
//! - 1327: `SET a=zz`, `a=zz.yy`, `a=1+zz`, `a=(SELECT zz)`, `(SELECT zz FROM dual)`,
//!   `(SELECT 1 WHERE zz)`, `(SELECT 1 LIMIT zz)`, `(SELECT 1 FROM t1)+zz`,
//!   `DEFAULT(zz)`, `EXISTS(SELECT zz)`, `CASE WHEN zz ...`, `SET @b=1, a=zz`;
//! - no error: a name inside a SELECT that reads a table (`(SELECT zz FROM t1)`, even a
//!   missing one), a function call (`zz(1)`, `db.f()`),
//!   `NEXT VALUE FOR s`, `@u`, `@@autocommit`, and the 17 value keywords (reserved words).
//!
//! Refused still (the reader cannot tell): a name that is one of the server's keywords
//! (`sp_var_keywords.rs`: alone it is 1327, but it may be a piece of an expression's
//! syntax), a name in a GROUP BY or ORDER BY (no error at the definition, ER_BAD_FIELD_ERROR
//! when the statement runs), in a HAVING (bare: the same; inside an aggregate: 1327), and a name
//! under a SELECT with a table when the value has a UNION (`(SELECT 1 UNION SELECT zz
//! FROM t1)` fails: only the first SELECT's tables count).

use super::routine_reader::{refused, Ctx, Why};
use super::{kw_eq, Tok};

/// ER_SP_UNDECLARED_VAR.
const ER_SP_UNDECLARED_VAR: u32 = super::routine_diag::ER_SP_UNDECLARED_VAR;

/// What a bare name in a variable's value is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Name {
    /// A variable, a column in scope, a function, a keyword of the syntax: no error.
    Known,
    /// No variable and no column anywhere: the server's 1327.
    Undeclared,
    /// The reader cannot tell (a keyword, a HAVING, a UNION).
    Unsure,
    /// No error at the definition, ER_BAD_FIELD_ERROR when the statement runs (a name in
    /// a GROUP BY or ORDER BY of a value that reads no table, `fails_at_run`).
    AtRun,
}

/// ER_SP_UNDECLARED_VAR (or refused, when the reader cannot tell) when `s` (a SET
/// statement of a body) assigns a declared variable (`vars`) a value with a bare name
/// that is no variable and no column in scope; each assignment of the list is checked.
pub(super) fn check(s: &[Tok], vars: &[String], ctx: Ctx) -> Result<(), Why> {
    let mut unsure = false;
    for item in assignments(s.get(1..).unwrap_or_default()) {
        match assignment(item, vars, ctx) {
            Name::Undeclared => return Err(Why::Fails(ER_SP_UNDECLARED_VAR)),
            Name::Unsure => unsure = true,
            // The compiler raises the run's 1054 (`routine_flow_stmt.rs`).
            Name::Known | Name::AtRun => {}
        }
    }
    if unsure {
        return refused(
            "SET of a variable to a value naming a keyword, or a name in a GROUP BY, ORDER BY \
             or HAVING or under a UNION, that the body does not declare (the server's \
             ER_SP_UNDECLARED_VAR, ER_BAD_FIELD_ERROR when it runs, or a piece of syntax the model does not tell)",
        );
    }
    Ok(())
}

/// The same for a condition of IF / ELSEIF / CASE / WHEN / WHILE / UNTIL and a RETURN
/// value, which the parser checks as it checks a SET's value (measured on 10.11.19:
/// `IF zz < 0 THEN`, `WHILE zz DO`, `UNTIL zz`, `CASE zz WHEN`, `RETURN zz` fail with
/// 1327; main/sp-error.test's bug2653_2).
pub(super) fn check_expr(value: &[Tok], vars: &[String], ctx: Ctx) -> Result<(), Why> {
    match value_name(value, vars, ctx) {
        Name::Undeclared => Err(Why::Fails(ER_SP_UNDECLARED_VAR)),
        // A condition's run-time 1054 is not compiled: refused as before.
        Name::Unsure | Name::AtRun => refused(
            "a condition or RETURN value naming a keyword, or a name in a GROUP BY, ORDER BY \
             or HAVING or under a UNION, that the body does not declare (the server's \
             ER_SP_UNDECLARED_VAR, ER_BAD_FIELD_ERROR when it runs, or a piece of syntax \
             the model does not tell)",
        ),
        Name::Known => Ok(()),
    }
}

/// The assignments of a SET's list (split at the commas outside parentheses).
fn assignments(list: &[Tok]) -> Vec<&[Tok]> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    let mut from = 0;
    for (i, t) in list.iter().enumerate() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth = depth.saturating_sub(1),
            Tok::P(',') if depth == 0 => {
                out.push(&list[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(&list[from..]);
    out
}

/// The worst name of one assignment `target = value` of a declared variable.
fn assignment(item: &[Tok], vars: &[String], ctx: Ctx) -> Name {
    let declared =
        |t: &Tok| matches!(t, Tok::Word { text, .. } if vars.contains(&text.to_lowercase()));
    let [target, Tok::P('='), value @ ..] = item else {
        return Name::Known;
    };
    if !declared(target) {
        return Name::Known;
    }
    value_name(value, vars, ctx)
}

/// The worst name of an expression of the body (a variable's value, a condition).
fn value_name(value: &[Tok], vars: &[String], ctx: Ctx) -> Name {
    value_name_by(value, &|n| vars.contains(&n.to_lowercase()), ctx)
}

/// Whether the value of a `SET v = value` of a body fails with ER_BAD_FIELD_ERROR
/// (1054) when it runs, the definition having passed: a name that is no variable
/// (`declared`) in a GROUP BY or ORDER BY of a value that reads no table
/// (main/sp-vars.test "GROUP, HAVING, ORDER are not tested yet for unknown
/// identifiers": CREATE passes; measured: the CALL's SET fails with 1054, the name
/// resolved in `find_order_in_list` → `find_field_in_tables` of `JOIN::prepare`, and
/// nothing is opened: `suite/sp-run-time-1054.mdl`).
pub(super) fn fails_at_run(value: &[Tok], declared: &dyn Fn(&str) -> bool) -> bool {
    value_name_by(value, declared, Ctx::Procedure) == Name::AtRun
}

fn value_name_by(value: &[Tok], is_var: &dyn Fn(&str) -> bool, ctx: Ctx) -> Name {
    let declared = |t: &Tok| matches!(t, Tok::Word { text, .. } if is_var(text));
    let reads_table = tables_in_scope(value).iter().any(|c| *c);
    let covered = tables_in_scope(value);
    let clauses = clauses(value);
    let union = value
        .iter()
        .any(|t| ["union", "except", "intersect"].iter().any(|w| kw_eq(t, w)));
    let mut worst = Name::Known;
    for (i, t) in value.iter().enumerate() {
        let Tok::Word {
            text,
            quoted: false,
        } = t
        else {
            continue;
        };
        let next = value.get(i + 1);
        let function = next == Some(&Tok::P('('))
            || (next == Some(&Tok::P('.')) && value.get(i + 3) == Some(&Tok::P('(')));
        // NEW.c / OLD.c of a trigger's row.
        let row = ctx == Ctx::Trigger
            && next == Some(&Tok::P('.'))
            && (text.eq_ignore_ascii_case("new") || text.eq_ignore_ascii_case("old"));
        let known = text.starts_with('@')
            || declared(t)
            || super::reserved::is_reserved(t)
            || function
            || row
            || (i > 0 && value[i - 1] == Tok::P('.'))
            || names_no_identifier(value, i)
            || sequence_name(value, i)
            || (text.eq_ignore_ascii_case("end") && value.iter().any(|w| kw_eq(w, "case")));
        let name = if known {
            Name::Known
        } else if covered[i] {
            if union {
                Name::Unsure
            } else {
                Name::Known
            }
        } else {
            match clauses[i] {
                // No error at the definition, but ER_BAD_FIELD_ERROR when it runs (an
                // anonymous block's, main/sp-vars.test's CALLs): not followed.
                Clause::Grouping if !reads_table && !union => Name::AtRun,
                Clause::Grouping | Clause::Having => Name::Unsure,
                Clause::Other if super::sp_var_keywords::is_keyword(text) => Name::Unsure,
                Clause::Other => Name::Undeclared,
            }
        };
        if name == Name::Undeclared {
            return name;
        }
        if name == Name::Unsure || (name == Name::AtRun && worst == Name::Known) {
            worst = name;
        }
    }
    worst
}

/// `NEXT VALUE FOR s` / `PREVIOUS VALUE FOR s`: the words and the sequence's name.
fn sequence_name(value: &[Tok], i: usize) -> bool {
    let at = |k: usize, w: &str| value.get(k).is_some_and(|t| kw_eq(t, w));
    let starts =
        |k: usize| (at(k, "next") || at(k, "previous")) && at(k + 1, "value") && at(k + 2, "for");
    (0..=3.min(i)).any(|back| starts(i - back))
        || (i >= 5 && value[i - 1] == Tok::P('.') && starts(i - 5))
}

/// The clause of a SELECT a token is in, where it matters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Clause {
    /// GROUP BY or ORDER BY: a name there is no error at the definition, 1054 at the run
    /// (measured).
    Grouping,
    /// HAVING.
    Having,
    Other,
}

/// Per token of `value`, the clause of its innermost SELECT it is in (a function's
/// parentheses keep their clause; a nested SELECT or VALUES starts a new one).
fn clauses(value: &[Tok]) -> Vec<Clause> {
    let mut stack = vec![Clause::Other];
    let mut out = Vec::with_capacity(value.len());
    for (i, t) in value.iter().enumerate() {
        let next_by = value.get(i + 1).is_some_and(|n| kw_eq(n, "by"));
        let top = *stack.last().expect("the outer level stays");
        let starts = [
            "select",
            "values",
            "where",
            "limit",
            "from",
            "union",
            "except",
            "intersect",
        ];
        let now = match t {
            Tok::P('(') => {
                stack.push(top);
                top
            }
            Tok::P(')') => {
                if stack.len() > 1 {
                    stack.pop();
                }
                top
            }
            _ if (kw_eq(t, "group") || kw_eq(t, "order")) && next_by => Clause::Grouping,
            _ if kw_eq(t, "having") => Clause::Having,
            _ if starts.iter().any(|w| kw_eq(t, w)) => Clause::Other,
            _ => top,
        };
        if !matches!(t, Tok::P('(') | Tok::P(')')) {
            *stack.last_mut().expect("the outer level stays") = now;
        }
        out.push(*stack.last().expect("the outer level stays"));
    }
    out
}

/// The word at `value[i]` is a name the parser reads as no identifier (`sql_yacc.yy`):
/// an introducer or a typed literal before a string (`_latin1'x'`, `_utf8 0xD18F`,
/// `TIME'10:20:30'`), a character set or collation (after CHARACTER SET, CHARSET,
/// COLLATE, USING), a CAST type or an alias (after AS), or an interval unit where the
/// value has an INTERVAL or a TIMESTAMPADD / TIMESTAMPDIFF / EXTRACT. Measured on
/// 10.11.19 with main/sp-vars.test's and main/ctype_*.test's bodies, which run.
fn names_no_identifier(value: &[Tok], i: usize) -> bool {
    const UNITS: &[&str] = &[
        "microsecond",
        "second",
        "minute",
        "hour",
        "day",
        "week",
        "month",
        "quarter",
        "year",
        "second_microsecond",
        "minute_microsecond",
        "minute_second",
        "hour_microsecond",
        "hour_second",
        "hour_minute",
        "day_microsecond",
        "day_second",
        "day_minute",
        "day_hour",
        "year_month",
    ];
    let Some(Tok::Word { text, .. }) = value.get(i) else {
        return false;
    };
    let next = value.get(i + 1);
    let before = |k: usize, w: &str| i >= k && kw_eq(&value[i - k], w);
    let literal_after = matches!(next, Some(Tok::Str(_)))
        || (text.starts_with('_') && matches!(next, Some(Tok::Num(_))));
    let charset = (before(1, "set") && before(2, "character"))
        || ["charset", "collate", "using", "as"]
            .iter()
            .any(|w| before(1, w));
    let unit = UNITS.iter().any(|u| text.eq_ignore_ascii_case(u))
        && value.iter().any(|t| {
            ["interval", "timestampadd", "timestampdiff", "extract"]
                .iter()
                .any(|w| kw_eq(t, w))
        });
    literal_after || charset || unit
}

/// Per token of `value`, whether a SELECT around it (its own or an outer one, each a
/// parenthesised group) reads a table (`FROM x` at that group's own level, x not DUAL):
/// a name there may be one of that table's columns.
fn tables_in_scope(value: &[Tok]) -> Vec<bool> {
    // Per `(`: whether its group reads a table at its own level.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let mut reads = vec![false; value.len()];
    for (i, t) in value.iter().enumerate() {
        match t {
            Tok::P('(') => open.push((i, false)),
            Tok::P(')') => {
                if let Some((at, true)) = open.pop() {
                    reads[at] = true;
                }
            }
            _ if kw_eq(t, "from") && !value.get(i + 1).is_some_and(|n| kw_eq(n, "dual")) => {
                if let Some(g) = open.last_mut() {
                    g.1 = true;
                }
            }
            _ => {}
        }
    }
    // A token is covered when one of its enclosing groups reads a table.
    let mut stack: Vec<usize> = Vec::new();
    let mut covered = vec![false; value.len()];
    for (i, t) in value.iter().enumerate() {
        match t {
            Tok::P('(') => stack.push(i),
            Tok::P(')') => {
                stack.pop();
            }
            _ => covered[i] = stack.iter().any(|&g| reads[g]),
        }
    }
    covered
}

#[cfg(test)]
mod tests {
    use super::super::routine_block::{read, Ctx, Why};
    use super::super::tokens;

    fn rd(sql: &str, ctx: Ctx) -> Result<usize, Why> {
        read(&tokens(sql).unwrap(), ctx).map(|s| s.len())
    }

    /// main/sp-vars.test's MDEV-14347 cases and our own, measured on 10.11.19.
    #[test]
    fn undeclared_names_in_a_variables_value_fail_with_1327() {
        let fails = |sql: &str| rd(sql, Ctx::Procedure) == Err(Why::Fails(1327));
        for sql in [
            "BEGIN DECLARE a INT; SET a=unknown_ident; END",
            "BEGIN DECLARE a INT; SET a=u1.u2.u3; END",
            "BEGIN DECLARE a INT; SET a=(SELECT unknown_ident FROM dual); END",
            "BEGIN DECLARE a INT; SET a=DEFAULT(unknown_ident); END",
            "BEGIN DECLARE a INT; SET a=(SELECT c1 FROM t1)+unknown_ident; END",
            "BEGIN DECLARE a INT; SET a=(SELECT (SELECT u)+(SELECT c1 FROM t1)); END",
            "BEGIN DECLARE a INT; SET a=(SELECT 1 LIMIT u); END",
            "BEGIN DECLARE a INT; SET a=(SELECT 1 WHERE u=1); END",
            "BEGIN DECLARE a INT; SET a=CASE WHEN u THEN 1 END; END",
            "BEGIN DECLARE a INT; SET @b=1, a=u; END",
            "BEGIN DECLARE a DATETIME; SET a=NOW() + INTERVAL unknown_ident DAY; END",
        ] {
            assert!(fails(sql), "{sql}");
        }
        // A missing OUT parameter's value (main/sp-error.test, bug2653_1).
        let param = read_in_params("SET b = aa", &["a", "b"]);
        assert_eq!(param, Err(Why::Fails(1327)));
    }

    fn read_in_params(sql: &str, params: &[&str]) -> Result<usize, Why> {
        let names = params.iter().map(|p| p.to_string()).collect();
        super::super::routine_block::read_in(&tokens(sql).unwrap(), Ctx::Procedure, false, names)
            .map(|s| s.len())
    }

    #[test]
    fn names_the_server_resolves_are_no_error() {
        let ok = |sql: &str| rd(sql, Ctx::Procedure).is_ok();
        for sql in [
            "BEGIN DECLARE a INT; SET a=(SELECT c1 FROM t1); END",
            "BEGIN DECLARE a INT; SET a=(SELECT zz FROM nosuch); END",
            "BEGIN DECLARE a INT; SET a=(SELECT (SELECT c2) FROM t1); END",
            "BEGIN DECLARE a, b INT; SET a=b+1; END",
            "BEGIN DECLARE a INT; SET a=NULL; END",
            "BEGIN DECLARE a INT; SET a=1+CURRENT_DATE; END",
            "BEGIN DECLARE a INT; SET a=ABS(-1); END",
            "BEGIN DECLARE a INT; SET a=test.f1(); END",
            "BEGIN DECLARE a INT; SET a=NEXT VALUE FOR s1; END",
            "BEGIN DECLARE a INT; SET a=CASE a WHEN 1 THEN 2 END; END",
            "BEGIN DECLARE a INT; SET @a=unknown; END",
            "BEGIN DECLARE a INT; SET a=@@autocommit; END",
            // Names that are no identifier (main/ctype_*.test, main/sp-vars.test bodies).
            "BEGIN DECLARE a VARCHAR(9); SET a=CAST(_latin1'x' AS CHAR(1) CHARACTER SET latin1); END",
            "BEGIN DECLARE a VARCHAR(9); SET a=CAST(_utf8 0xD18F AS CHAR(1) CHARACTER SET latin1); END",
            "BEGIN DECLARE a VARCHAR(9); SET a=CAST(TIME'10:20:30' AS CHAR(1)); END",
            "BEGIN DECLARE a DATETIME; SET a=NOW() + INTERVAL 1 DAY; END",
            "BEGIN DECLARE a, b INT; SET a=TIMESTAMPDIFF(SECOND, b, b); END",
        ] {
            assert!(ok(sql), "{sql}");
        }
        let trigger = "BEGIN DECLARE x INT; SET x = NEW.b + OLD.b; END";
        assert!(rd(trigger, Ctx::Trigger).is_ok());
    }

    #[test]
    fn what_the_reader_cannot_tell_is_refused() {
        let refused = |sql: &str| matches!(rd(sql, Ctx::Procedure), Err(Why::Refused(_)));
        for sql in [
            // A keyword: alone 1327, but it may be a piece of syntax.
            "BEGIN DECLARE a INT; SET a=unknown; END",
            "BEGIN DECLARE a INT; SET a=(SELECT 1 HAVING SUM(zz)); END",
            "BEGIN DECLARE a INT; SET a=(SELECT 1 UNION SELECT zz FROM t1); END",
        ] {
            assert!(refused(sql), "{sql}");
        }
    }

    /// main/sp-vars.test: a GROUP BY / ORDER BY name of a value that reads no table passes
    /// the definition (its 1054 comes when the SET runs, `fails_at_run`).
    #[test]
    fn grouping_names_fail_at_the_run() {
        for sql in [
            "BEGIN DECLARE a INT; SET a=(SELECT 1 GROUP BY zz); END",
            "BEGIN DECLARE a INT; SET a=(VALUES(1) ORDER BY zz); END",
        ] {
            assert!(rd(sql, Ctx::Procedure).is_ok(), "{sql}");
        }
        let at_run =
            |v: &str| super::fails_at_run(&super::super::tokens(v).unwrap(), &|n| n == "a");
        assert!(at_run("(SELECT 1 GROUP BY zz)"));
        assert!(at_run("(SELECT 1 ORDER BY zz)"));
        assert!(!at_run("(SELECT 1 ORDER BY a)"));
        assert!(!at_run("(SELECT b FROM t1 ORDER BY zz)"));
        assert!(!at_run("(SELECT 1 HAVING zz)"));
    }

    /// Conditions and RETURN values are checked as a SET's value (measured on 10.11.19).
    #[test]
    fn conditions_and_return_values_are_checked_too() {
        let fails = |sql: &str, ctx: Ctx| rd(sql, ctx) == Err(Why::Fails(1327));
        for sql in [
            "BEGIN IF zz < 0 THEN SELECT 1; END IF; END",
            "BEGIN IF 1 THEN SELECT 1; ELSEIF zz THEN SELECT 2; END IF; END",
            "BEGIN WHILE zz DO SELECT 1; END WHILE; END",
            "BEGIN REPEAT SELECT 1; UNTIL zz END REPEAT; END",
            "BEGIN CASE zz WHEN 1 THEN SELECT 1; ELSE SELECT 2; END CASE; END",
        ] {
            assert!(fails(sql, Ctx::Procedure), "{sql}");
        }
        assert!(fails("RETURN zz", Ctx::Function));
        let ok = "BEGIN DECLARE d INT; IF (SELECT zz FROM t1) OR d THEN SELECT 1; END IF; END";
        assert!(rd(ok, Ctx::Procedure).is_ok());
    }
}
