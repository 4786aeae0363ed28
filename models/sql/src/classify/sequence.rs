//! Sequences (MariaDB `sql/sql_sequence.cc`): a sequence is a table whose share says
//! `sequence` (`table_type` SEQUENCE), locked in the TABLE namespace like any table.
//!
//! - `CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS] s`, `DROP SEQUENCE [IF EXISTS] s, ...`,
//!   `ALTER SEQUENCE [IF EXISTS] s ...`: the learned rows `create_sequence`,
//!   `create_or_replace_sequence`, `drop_sequence`, `alter_sequence` (all DDL: they commit
//!   implicitly, `CF_AUTO_COMMIT_TRANS` in `sql_parse.cc`);
//! - `NEXTVAL(s)` / `NEXT VALUE FOR s` / `SETVAL(s, ...)` open the sequence for writing
//!   (`LEX::create_item_func_nextval` / `create_item_func_setval`, `sql/sql_lex.cc`:
//!   `TL_WRITE_ALLOW_WRITE`, `MDL_SHARED_WRITE`), `LASTVAL(s)` / `PREVIOUS VALUE FOR s`
//!   for reading (`create_item_func_lastval`: `TL_READ`, `MDL_SHARED_READ`): the learned
//!   rows `nextval`, `setval`, `lastval`, added to the statement's own tables. Measured
//!   on 10.11: the statement's own tables are opened (locked) before its sequences, which
//!   come in the order written;
//! - `SHOW CREATE SEQUENCE s`: the `show_create` row.
//!
//! Errors (measured): a sequence that does not exist is ER_UNKNOWN_SEQUENCES (4091; 1146
//! for SHOW CREATE SEQUENCE), a table that is not a sequence ER_NOT_SEQUENCE (4089;
//! DROP SEQUENCE: ER_NOT_SEQUENCE2, 4090, before any 4091 of the list), each once the
//! statement's locks are taken ([`crate::catalog::SeqNeed`]).
//!
//! Not modelled (refused by name): temporary sequences, `s.nextval` / `s.currval`
//! (Oracle mode), sequence functions inside DDL (a column DEFAULT), sequences of an
//! engine other than InnoDB in NEXTVAL / ALTER (their rows were learned on InnoDB), views.

use super::sequence_calls::{calls_as_zero, creating_with_sequence};
use super::{classify, kw_eq, tokens, Bind, Cur, Effect, Part, Plan, SetTarget, Stmt, Tbl, Tok};
use crate::catalog::{Catalog, Engine, SeqNeed, ER_NO_SUCH_TABLE};
use crate::errors::ER_UNKNOWN_SEQUENCES;
use crate::kind::Kind;

/// ER_DUP_ARGUMENT (an option twice).
pub const ER_DUP_ARGUMENT: u32 = 1225;
/// ER_SEQUENCE_INVALID_DATA.
pub const ER_SEQUENCE_INVALID_DATA: u32 = 4085;

/// The DML whose expressions may call sequence functions.
const DML: &[Kind] = &[
    Kind::Select,
    Kind::SelectForUpdate,
    Kind::SelectShare,
    Kind::Insert,
    Kind::Update,
    Kind::Delete,
];

fn part(kind: Kind, t: &Tbl) -> Part {
    Part {
        row: kind.as_str().to_owned(),
        kind,
        bind: Bind {
            t: Some(t.clone()),
            ..Bind::default()
        },
        set_target: SetTarget::NotInList,
    }
}

fn plan(kind: Kind, parts: Vec<Part>, effect: Effect, wait: Option<u64>) -> Stmt {
    Stmt::Learned(Plan {
        wait,
        ..Plan::of(kind, parts, effect)
    })
}

/// A statement about sequences, or `None` for any other.
pub(super) fn classify_sequence(
    sql: &str,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Option<Result<Stmt, String>> {
    let toks = tokens(sql).ok()?;
    let kw = |i: usize, k: &str| toks.get(i).is_some_and(|t| kw_eq(t, k));
    if let Some(st) = super::sequence_engine::classify_engine_tables(sql, &toks, db, cat, has_row) {
        return Some(st);
    }
    let ddl = (kw(0, "create") || kw(0, "drop") || kw(0, "alter"))
        && (1..5).any(|i| kw(i, "sequence"))
        && !(1..5).any(|i| kw(i, "table"));
    if ddl || (kw(0, "show") && kw(1, "create") && kw(2, "sequence")) {
        if !has_row(Kind::CreateSequence.as_str()) {
            return Some(Err(format!(
                "`{sql}`: sequences are not in this dialect's statement table"
            )));
        }
        let c = Cur {
            t: &toks,
            i: 0,
            sql,
        };
        return Some(ddl_statement(c, db, cat));
    }
    // Sequence functions in DML, DO and SET; in CREATE / ALTER TABLE (a column DEFAULT,
    // CHECK, CREATE ... SELECT) the server opens the sequence too (measured: CREATE TABLE
    // with DEFAULT NEXTVAL(s1) waits for another session's LOCK TABLES s1 WRITE), which
    // is not modelled; routine, trigger, view and event bodies are their families'.
    let dml = [
        "select", "insert", "replace", "update", "delete", "do", "set", "values",
    ]
    .iter()
    .any(|k| kw(0, k));
    let table_ddl = (kw(0, "create") || kw(0, "alter"))
        && (1..4).any(|i| kw(i, "table"))
        && !(1..4).any(|i| kw(i, "temporary"));
    if !dml && !table_ddl {
        return None;
    }
    let sequence_option = toks
        .windows(2)
        .any(|w| kw_eq(&w[0], "sequence") && matches!(w[1], Tok::P('=') | Tok::Num(_)));
    // ALTER TABLE t SEQUENCE=0 of a table that is not a sequence: a copy
    // (`alter_algorithm.rs`).
    let sequence_off = kw(0, "alter")
        && toks.windows(3).any(|w| {
            kw_eq(&w[0], "sequence") && w[1] == Tok::P('=') && w[2] == Tok::Num("0".into())
        });
    if table_ddl && sequence_option && !sequence_off {
        if let Some(st) = super::sequence_table::create_table_sequence(sql, &toks, db, cat, has_row)
        {
            return Some(st);
        }
    }
    let calls = match calls(&toks, db) {
        Ok(c) if c.is_empty() => return None,
        Ok(c) if table_ddl && super::sequence_vcol::vcol_error(&toks, &starts(&c)).is_some() => {
            let code = super::sequence_vcol::vcol_error(&toks, &starts(&c))?;
            return Some(Ok(Stmt::Fails(code)));
        }
        Ok(c) if table_ddl && kw(0, "create") && kw(1, "table") => {
            let cs: Vec<_> = c
                .iter()
                .map(|c| (c.kind, c.seq.clone(), c.span.clone()))
                .collect();
            if let Some(st) = super::sequence_ctas::create_select(sql, &toks, &cs, db, cat, has_row)
            {
                return Some(st);
            }
            return Some(create_with_default(sql, &toks, c, db, cat, has_row));
        }
        Ok(_) if table_ddl => {
            return Some(Err(format!(
                "`{sql}`: a sequence function in CREATE / ALTER TABLE (the server opens the \
                 sequence) is not modelled"
            )))
        }
        Ok(c) => c,
        Err(e) => return Some(Err(format!("`{sql}`: {e}"))),
    };
    if !has_row("nextval") {
        return Some(Err(format!(
            "`{sql}`: sequences are not in this dialect's statement table"
        )));
    }
    Some(with_calls(sql, &toks, calls, db, cat, has_row))
}

/// A sequence function call: its learned kind, the sequence, where its tokens are.
struct Call {
    kind: Kind,
    seq: Tbl,
    span: std::ops::Range<usize>,
}

/// Where each call starts.
fn starts(calls: &[Call]) -> Vec<usize> {
    calls.iter().map(|c| c.span.start).collect()
}

/// The sequence function calls of a statement.
fn calls(toks: &[Tok], db: &str) -> Result<Vec<Call>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    let name_at = |j: usize| -> Option<(Tbl, usize)> {
        let Some(Tok::Word { text: a, .. }) = toks.get(j) else {
            return None;
        };
        if toks.get(j + 1) == Some(&Tok::P('.')) {
            let Some(Tok::Word { text: b, .. }) = toks.get(j + 2) else {
                return None;
            };
            return Some((
                Tbl {
                    db: a.clone(),
                    name: b.clone(),
                },
                j + 3,
            ));
        }
        Some((
            Tbl {
                db: db.to_owned(),
                name: a.clone(),
            },
            j + 1,
        ))
    };
    while i < toks.len() {
        let t = &toks[i];
        let paren = toks.get(i + 1) == Some(&Tok::P('('));
        let func = ["nextval", "setval", "lastval"]
            .into_iter()
            .find(|f| kw_eq(t, f) && paren);
        if let Some(f) = func {
            let (seq, after) = name_at(i + 2).ok_or("expected a sequence name")?;
            // The call ends at its closing parenthesis (SETVAL's other arguments).
            let mut depth = 0usize;
            let mut end = after;
            while end < toks.len() {
                match toks[end] {
                    Tok::P('(') => depth += 1,
                    Tok::P(')') if depth == 0 => break,
                    Tok::P(')') => depth -= 1,
                    _ => {}
                }
                end += 1;
            }
            if end == toks.len() {
                return Err("unbalanced parentheses".into());
            }
            let kind = match f {
                // Seeded bug `conform_nextval_reads`: NEXTVAL played as LASTVAL (SR).
                "nextval" if cfg!(mdl_bug = "conform_nextval_reads") => Kind::Lastval,
                "nextval" => Kind::Nextval,
                "setval" => Kind::Setval,
                _ => Kind::Lastval,
            };
            out.push(Call {
                kind,
                seq,
                span: i..end + 1,
            });
            i = end + 1;
            continue;
        }
        let next = kw_eq(t, "next") || kw_eq(t, "previous");
        if next
            && toks.get(i + 1).is_some_and(|x| kw_eq(x, "value"))
            && toks.get(i + 2).is_some_and(|x| kw_eq(x, "for"))
        {
            let (seq, after) = name_at(i + 3).ok_or("expected a sequence name")?;
            let kind = if kw_eq(t, "next") {
                Kind::Nextval
            } else {
                Kind::Lastval
            };
            out.push(Call {
                kind,
                seq,
                span: i..after,
            });
            i = after;
            continue;
        }
        if *t == Tok::P('.')
            && toks
                .get(i + 1)
                .is_some_and(|x| kw_eq(x, "nextval") || kw_eq(x, "currval"))
        {
            return Err("`sequence.nextval` / `.currval` (Oracle syntax) is not modelled".into());
        }
        i += 1;
    }
    Ok(out)
}

/// A statement with sequence function calls: the statement without them (each call
/// replaced by `0`), then its sequences.
fn with_calls(
    sql: &str,
    toks: &[Tok],
    calls: Vec<Call>,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let rest = calls_as_zero(toks, calls.iter().map(|c| c.span.clone()));
    for c in &calls {
        if cat.is_view(&c.seq) {
            return Err(format!(
                "`{sql}`: a view in a sequence function is not modelled"
            ));
        }
        if cat.engine(&c.seq).is_some_and(|e| e != Engine::InnoDb) {
            return Err(format!(
                "`{sql}`: a sequence of another engine than InnoDB is not in the learned \
                 table"
            ));
        }
    }
    if toks.iter().any(|t| kw_eq(t, "with")) {
        let seqs: Vec<&Tbl> = calls.iter().map(|c| &c.seq).collect();
        if let Some(st) = super::sequence_cte::cte_sequence(toks, &seqs, db) {
            return Ok(st);
        }
        return Err(format!(
            "`{sql}`: sequence functions with a WITH clause (a CTE's name may be the \
             sequence's) are not modelled"
        ));
    }
    let seq_parts = calls.iter().map(|c| part(c.kind, &c.seq));
    // A sequence that does not exist: ER_UNKNOWN_SEQUENCES when the statement opens
    // nothing else, ER_NO_SUCH_TABLE when it has tables too (measured:
    // `SELECT NEXTVAL(x)` and `SELECT NEXTVAL(x) FROM t0`).
    let seq_needs = |missing: u32| {
        calls.iter().map(move |c| SeqNeed {
            t: c.seq.clone(),
            missing: Some(missing),
            sequence: true,
        })
    };
    match classify(&super::lex::render(&rest), db, cat, has_row)? {
        // A FROM with no base table (a derived table, information_schema): the server
        // answers a missing sequence there with ER_NO_SUCH_TABLE (measured), its locks
        // are not those of a SELECT with no FROM.
        Stmt::NoLocks if rest.iter().any(|t| kw_eq(t, "from")) => Err(format!(
            "`{sql}`: sequence functions in a statement whose FROM names no base table are \
             not modelled"
        )),
        Stmt::NoLocks => Ok(plan(
            calls[0].kind,
            seq_parts.collect(),
            Effect::NeedSequences(seq_needs(ER_UNKNOWN_SEQUENCES).collect()),
            None,
        )),
        Stmt::Learned(mut p) if DML.contains(&p.kind) && p.lock_tables.is_empty() => {
            let Effect::NeedTables(ts) = &p.effect else {
                return Err(format!(
                    "`{sql}`: sequence functions in this statement are not modelled"
                ));
            };
            let mut needs: Vec<SeqNeed> = ts
                .iter()
                .map(|t| SeqNeed {
                    t: t.clone(),
                    missing: Some(ER_NO_SUCH_TABLE),
                    sequence: false,
                })
                .collect();
            let missing = if ts.is_empty() {
                ER_UNKNOWN_SEQUENCES
            } else {
                ER_NO_SUCH_TABLE
            };
            needs.extend(seq_needs(missing));
            p.parts.extend(seq_parts);
            p.effect = Effect::NeedSequences(needs);
            Ok(Stmt::Learned(p))
        }
        _ => Err(format!(
            "`{sql}`: sequence functions in this statement are not modelled (in SELECT, \
             INSERT, UPDATE, DELETE, DO and SET they are)"
        )),
    }
}

/// CREATE / DROP / ALTER SEQUENCE, SHOW CREATE SEQUENCE.
fn ddl_statement(mut c: Cur, db: &str, cat: &Catalog) -> Result<Stmt, String> {
    let sql = c.sql;
    let first = c.ident()?.to_ascii_lowercase();
    let or_replace = c.eat("or") && {
        c.expect("replace")?;
        true
    };
    if c.at("temporary") {
        return Err(format!("`{sql}`: temporary sequences are not modelled"));
    }
    if first == "show" {
        c.expect("create")?;
    }
    c.expect("sequence")?;
    let if_exists = c.eat("if") && {
        if first == "create" {
            c.expect("not")?;
        }
        c.expect("exists")?;
        true
    };
    let s = c.table(db)?;
    let view = |t: &Tbl| -> Result<(), String> {
        if cat.is_view(t) {
            Err(format!(
                "`{sql}`: a view named as a sequence is not modelled"
            ))
        } else {
            Ok(())
        }
    };
    view(&s)?;
    let wait = super::wait_clause(c.t)?;
    let mut bounds = None;
    if first == "create" || first == "alter" {
        let def = options(&c.t[c.i..], first == "alter")
            .map_err(|e| format!("`{sql}`: {e} (not modelled: refused)"))?;
        if def.syntax {
            return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
        }
        if def.duplicate {
            return Ok(Stmt::Fails(ER_DUP_ARGUMENT));
        }
        if first == "create" && !def.valid() {
            return Ok(Stmt::Fails(ER_SEQUENCE_INVALID_DATA));
        }
        bounds = Some(def.bounds());
        if first == "alter" && cat.is_sequence(&s) && def.changes_values(cat.sequence_bounds(&s)) {
            return Err(format!(
                "`{sql}`: ALTER SEQUENCE of bounds, start or increment of a sequence that \
                 exists (the server checks them against its values, which the model does \
                 not know) is not modelled"
            ));
        }
    }
    match first.as_str() {
        "create" => {
            let existing = Existing {
                if_not_exists: if_exists,
                or_replace,
            };
            create(&mut c, s, existing, cat, wait, bounds)
        }
        "drop" => {
            let mut ts = vec![s];
            while c.eat_p(',') {
                let t = c.table(db)?;
                view(&t)?;
                ts.push(t);
            }
            let parts = ts.iter().map(|t| part(Kind::DropSequence, t)).collect();
            let effect = Effect::DropSequences { ts, if_exists };
            Ok(plan(Kind::DropSequence, parts, effect, wait))
        }
        "alter" => {
            if cat.engine(&s).is_some_and(|e| e != Engine::InnoDb) {
                return Err(format!(
                    "`{sql}`: ALTER SEQUENCE of another engine than InnoDB is not in the \
                     learned table"
                ));
            }
            let need = SeqNeed {
                t: s.clone(),
                missing: (!if_exists).then_some(ER_UNKNOWN_SEQUENCES),
                sequence: true,
            };
            let effect = Effect::NeedSequences(vec![need]);
            Ok(plan(
                Kind::AlterSequence,
                vec![part(Kind::AlterSequence, &s)],
                effect,
                wait,
            ))
        }
        _ => {
            if !c.done() {
                return Err(format!("`{sql}`: options of SHOW CREATE SEQUENCE"));
            }
            let need = SeqNeed {
                t: s.clone(),
                missing: Some(ER_NO_SUCH_TABLE),
                sequence: true,
            };
            let effect = Effect::NeedSequences(vec![need]);
            Ok(plan(
                Kind::ShowCreate,
                vec![part(Kind::ShowCreate, &s)],
                effect,
                None,
            ))
        }
    }
}

/// The clauses of CREATE SEQUENCE about a name that exists.
#[derive(Clone, Copy, Debug)]
struct Existing {
    /// IF NOT EXISTS: a note, not an error, when the name exists.
    if_not_exists: bool,
    /// OR REPLACE: the sequence that exists is dropped first.
    or_replace: bool,
}

/// CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS] s [options] [ENGINE=e].
fn create(
    c: &mut Cur,
    s: Tbl,
    existing: Existing,
    cat: &Catalog,
    wait: Option<u64>,
    bounds: Option<(i64, i64)>,
) -> Result<Stmt, String> {
    let Existing {
        if_not_exists,
        or_replace,
    } = existing;
    let sql = c.sql;
    let rest = c.rest_words();
    if rest.iter().any(|w| w == "select" || w == "like") {
        return Err(format!(
            "`{sql}`: CREATE SEQUENCE ... LIKE / AS SELECT is not modelled"
        ));
    }
    let engine = match rest.iter().position(|w| w == "engine") {
        None => Engine::InnoDb,
        Some(i) => {
            let j = if rest.get(i + 1).is_some_and(|w| w == "=") {
                i + 2
            } else {
                i + 1
            };
            let e = rest.get(j).map(String::as_str).unwrap_or("");
            let e = e.trim_matches(|c| c == '\'' || c == '"');
            Engine::parse(e)
                .ok_or_else(|| format!("`{sql}`: engine `{e}` is not modelled (InnoDB, MyISAM)"))?
        }
    };
    // CREATE OR REPLACE of an existing object drops it under its X first
    // (`mysql_create_table_no_lock` with `or_replace()`): learned on a sequence.
    // (Over a table, the table is replaced: measured, its own learned row.)
    let replace = or_replace && cat.exists(&s);
    let (kind, bind) = if replace {
        let kind = if cat.is_sequence(&s) {
            Kind::CreateOrReplaceSequence
        } else {
            Kind::CreateOrReplaceSequenceTable
        };
        (
            kind,
            Bind {
                t: Some(s.clone()),
                ..Bind::default()
            },
        )
    } else {
        (
            Kind::CreateSequence,
            Bind {
                n: Some(s.clone()),
                ..Bind::default()
            },
        )
    };
    let p = Part {
        row: kind.as_str().to_owned(),
        kind,
        bind,
        set_target: SetTarget::NotInList,
    };
    let effect = Effect::CreateSequence {
        t: s,
        engine,
        if_not_exists,
        replace,
        bounds,
    };
    Ok(plan(kind, vec![p], effect, wait))
}

/// `CREATE TABLE t LIKE s` of a sequence `s` makes a sequence (measured:
/// `suite/sql_sequence/concurrent_create.test` drops it with DROP SEQUENCE).
pub(super) fn like(st: Stmt, cat: &Catalog) -> Stmt {
    let Stmt::Learned(mut p) = st else { return st };
    if p.kind != Kind::CreateLike {
        return Stmt::Learned(p);
    }
    if let Effect::CreateTable {
        t,
        engine,
        if_not_exists,
        src,
        ..
    } = &p.effect
    {
        if src.len() == 1 && cat.is_sequence(&src[0]) {
            p.effect = Effect::CreateSequence {
                t: t.clone(),
                engine: *engine,
                if_not_exists: *if_not_exists,
                replace: false,
                bounds: cat.sequence_bounds(&src[0]),
            };
        }
    }
    Stmt::Learned(p)
}

/// LOCK TABLES of a sequence: its learned rows (measured: READ keeps SR, with no upgrade
/// to SRO as an InnoDB table's; `lock_read_sequence`, `lock_write_sequence`).
pub(super) fn lock_rows(st: Stmt, cat: &Catalog) -> Result<Stmt, String> {
    let Stmt::Learned(mut p) = st else {
        return Ok(st);
    };
    for part in &mut p.parts {
        let Some(t) = part.bind.t.as_ref().filter(|t| cat.is_sequence(t)) else {
            continue;
        };
        part.row = match part.kind {
            Kind::LockRead | Kind::LockReadLocal => Kind::LockReadSequence.as_str().into(),
            Kind::LockWrite => Kind::LockWriteSequence.as_str().into(),
            k => {
                return Err(format!(
                    "`{k}` of a sequence (`{t}`) is not in the learned table (READ and WRITE \
                     are)"
                ))
            }
        };
    }
    Ok(Stmt::Learned(p))
}

/// Checks the options after the sequence's name against MariaDB's grammar
/// (`sql/sql_yacc.yy`: `opt_sequence`, `sequence_defs`, `sequence_def`: MINVALUE,
/// MAXVALUE, CACHE with `opt_equal`; START with `opt_with`, INCREMENT with `opt_by`,
/// RESTART only in ALTER; no comma between them; ALTER needs at least one), then CREATE's
/// table options. Anything else is an error (a syntax error on the server, or an option
/// the model does not know), so the statement is refused rather than played.
fn options(toks: &[Tok], alter: bool) -> Result<Def, String> {
    let mut def = Def::default();
    let mut i = 0;
    let kw = |i: usize, k: &str| is_kw(toks, i, k);
    let num = |i: usize| number_at(toks, i);
    let eq = |i: usize| equals_at(toks, i);
    let mut seen = 0;
    let mut groups: Vec<&str> = Vec::new();
    while i < toks.len() {
        note_group(toks, i, &mut def, &mut groups);
        let set = |v: &mut Option<i64>, r: Option<(usize, i64)>| {
            r.map(|(j, x)| {
                *v = Some(x);
                j
            })
        };
        let next = if kw(i, "minvalue") {
            set(&mut def.min, num(i + 1 + eq(i + 1)))
        } else if kw(i, "maxvalue") {
            set(&mut def.max, num(i + 1 + eq(i + 1)))
        } else if kw(i, "cache") {
            set(&mut def.cache, num(i + 1 + eq(i + 1)))
        } else if kw(i, "no") && (kw(i + 1, "minvalue") || kw(i + 1, "maxvalue")) {
            Some(i + 2)
        } else if kw(i, "nocache") {
            def.cache = Some(0);
            Some(i + 1)
        } else if ["nominvalue", "nomaxvalue", "cycle", "nocycle"]
            .iter()
            .any(|k| kw(i, k))
        {
            Some(i + 1)
        } else if kw(i, "start") {
            let j = i + 1 + usize::from(kw(i + 1, "with")).max(eq(i + 1));
            set(&mut def.start, num(j))
        } else if kw(i, "increment") {
            let j = i + 1 + usize::from(kw(i + 1, "by")).max(eq(i + 1));
            set(&mut def.increment, num(j))
        } else if alter && kw(i, "restart") {
            let j = i + 1 + usize::from(kw(i + 1, "with")).max(eq(i + 1));
            def.restart = num(j).map(|(_, v)| v);
            num(j).map(|(k, _)| k).or((j == i + 1).then_some(j))
        } else {
            break;
        };
        let Some(next) = next else {
            // (`longlong_num` after the option: anything else, a number out of range,
            // `WITH =`, is the parser's error.)
            def.syntax = true;
            return Ok(def);
        };
        i = next;
        seen += 1;
    }
    if alter {
        if seen == 0 || misplaced_at(toks, i) {
            def.syntax = true;
            return Ok(def);
        }
        return if i < toks.len() {
            Err(bad_option(toks, i))
        } else {
            Ok(def)
        };
    }
    table_options(toks, i, def)
}

/// Each option once (the parser's ER_DUP_ARGUMENT; measured for every group): marks
/// `def.duplicate` when the option at `i` repeats a group already seen.
fn note_group(toks: &[Tok], i: usize, def: &mut Def, groups: &mut Vec<&'static str>) {
    const GROUPS: &[(&str, &str)] = &[
        ("minvalue", "min"),
        ("nominvalue", "min"),
        ("maxvalue", "max"),
        ("nomaxvalue", "max"),
        ("cache", "cache"),
        ("nocache", "cache"),
        ("cycle", "cycle"),
        ("nocycle", "cycle"),
        ("start", "start"),
        ("increment", "increment"),
        ("restart", "restart"),
    ];
    let kw = |i: usize, k: &str| is_kw(toks, i, k);
    let group = GROUPS
        .iter()
        .find(|(k, _)| kw(i, k) || (kw(i, "no") && kw(i + 1, k)))
        .map(|(_, g)| *g);
    if let Some(g) = group {
        // MINVALUE n after NO MINVALUE / NOMINVALUE is no duplicate, every other
        // pair of one group is (measured, both orders, each group).
        let min_value = g == "min" && kw(i, "minvalue");
        let g = if min_value { "min_value" } else { g };
        def.duplicate |= groups.contains(&g) || (g == "min" && groups.contains(&"min_value"));
        groups.push(g);
    }
}

/// CREATE's table options after the sequence options: NAME [=] value, separated by
/// spaces or commas. An unknown `NAME = value` parses as an engine-defined option
/// (`create_table_option`'s `IDENT_sys equal ...`): a misplaced word after it is still
/// the parser's error.
fn table_options(toks: &[Tok], mut i: usize, mut def: Def) -> Result<Def, String> {
    const TABLE_OPTS: &[&str] = &[
        "engine",
        "comment",
        "min_rows",
        "max_rows",
        "row_format",
        "checksum",
        "page_checksum",
        "transactional",
        "avg_row_length",
        "key_block_size",
        "pack_keys",
        "stats_persistent",
    ];
    let mut unknown = None;
    while i < toks.len() {
        if misplaced_at(toks, i) {
            def.syntax = true;
            return Ok(def);
        }
        let known = TABLE_OPTS.iter().any(|k| is_kw(toks, i, k));
        let engine_defined =
            matches!(toks.get(i), Some(Tok::Word { .. })) && equals_at(toks, i + 1) == 1;
        if !(known || engine_defined) {
            return Err(bad_option(toks, unknown.unwrap_or(i)));
        }
        if !known {
            unknown = unknown.or(Some(i));
        }
        let v = i + 1 + equals_at(toks, i + 1);
        match toks.get(v) {
            Some(Tok::Word { .. } | Tok::Str(_) | Tok::Num(_)) => i = v + 1,
            _ => return Err(bad_option(toks, unknown.unwrap_or(v))),
        }
        if toks.get(i) == Some(&Tok::P(',')) {
            i += 1;
        }
    }
    match unknown {
        Some(at) => Err(bad_option(toks, at)),
        None => Ok(def),
    }
}

fn is_kw(toks: &[Tok], i: usize, k: &str) -> bool {
    toks.get(i).is_some_and(|t| kw_eq(t, k))
}

/// A number at `i` (with its sign): where it ends and its value.
fn number_at(toks: &[Tok], i: usize) -> Option<(usize, i64)> {
    let neg = toks.get(i) == Some(&Tok::P('-'));
    let j = if neg || toks.get(i) == Some(&Tok::P('+')) {
        i + 1
    } else {
        i
    };
    match toks.get(j) {
        Some(Tok::Num(n)) => {
            let v = n.parse::<i64>().ok()?;
            Some((j + 1, if neg { -v } else { v }))
        }
        _ => None,
    }
}

/// 1 when an `=` is at `i` (the grammar's `opt_equal`), else 0.
fn equals_at(toks: &[Tok], i: usize) -> usize {
    usize::from(toks.get(i) == Some(&Tok::P('=')))
}

/// A comma, a parenthesis (a column list) or a sequence option where the grammar has
/// none: the parser's error.
fn misplaced_at(toks: &[Tok], i: usize) -> bool {
    matches!(toks.get(i), Some(Tok::P(',' | '('))) || SEQ_KW.iter().any(|k| is_kw(toks, i, k))
}

/// The refusal for the token at `i` (the message names the SQL token, not a Rust value).
fn bad_option(toks: &[Tok], i: usize) -> String {
    match toks.get(i) {
        Some(t) => format!(
            "unexpected `{}` in the sequence's options",
            super::lex::render(std::slice::from_ref(t))
        ),
        None => "unexpected end in the sequence's options".to_string(),
    }
}

/// The values a CREATE / ALTER SEQUENCE sets (`sequence_definition`, `sql_sequence.h`).
#[derive(Default)]
struct Def {
    min: Option<i64>,
    max: Option<i64>,
    start: Option<i64>,
    increment: Option<i64>,
    cache: Option<i64>,
    /// ALTER ... RESTART WITH n.
    restart: Option<i64>,
    /// An option given twice (ER_DUP_ARGUMENT).
    duplicate: bool,
    /// Not in the grammar (ER_PARSE_ERROR).
    syntax: bool,
}

impl Def {
    /// `sequence_definition::check_and_adjust` (`sql/sql_sequence.cc`) of a new sequence,
    /// which the parser calls for CREATE SEQUENCE (ER_SEQUENCE_INVALID_DATA before
    /// anything runs; measured: no lock, no commit). An increment of 0 is the server's
    /// `auto_increment_increment`, 1 unless set globally (not followed).
    fn valid(&self) -> bool {
        let inc = self.real_increment();
        let (min, max) = self.bounds();
        let start = self.start.unwrap_or(if inc < 0 { max } else { min });
        let cache = self.cache.unwrap_or(1000);
        let max_inc = inc.unsigned_abs().min(i64::MAX as u64) as i64;
        max >= start
            && max > min
            && start >= min
            && max != i64::MAX
            && min != i64::MIN
            && cache >= 0
            && cache < (i64::MAX - max_inc) / max_inc
    }

    fn real_increment(&self) -> i64 {
        match self.increment {
            None | Some(0) => 1,
            Some(x) => x,
        }
    }

    /// MINVALUE and MAXVALUE, or their defaults.
    fn bounds(&self) -> (i64, i64) {
        let inc = self.real_increment();
        let min = self.min.unwrap_or(if inc < 0 { i64::MIN + 1 } else { 1 });
        let max = self.max.unwrap_or(if inc < 0 { -1 } else { i64::MAX - 1 });
        (min, max)
    }

    /// An ALTER that sets a value the server checks against the sequence's own (its
    /// bounds, start, increment, current value: `Sql_cmd_alter_sequence::execute` calls
    /// `check_and_adjust` once it has the table), which the catalog does not know; RESTART
    /// WITH a value within the bounds the catalog knows is valid (measured).
    fn changes_values(&self, bounds: Option<(i64, i64)>) -> bool {
        let restart_ok = match (self.restart, bounds) {
            (None, _) => true,
            (Some(n), Some((min, max))) => min <= n && n <= max,
            (Some(_), None) => false,
        };
        self.min.is_some()
            || self.max.is_some()
            || self.start.is_some()
            || self.increment.is_some()
            || !restart_ok
    }
}

/// The words that start a sequence option (`sequence_def`, `sql_yacc.yy`).
const SEQ_KW: &[&str] = &[
    "minvalue",
    "maxvalue",
    "nominvalue",
    "nomaxvalue",
    "no",
    "cache",
    "nocache",
    "cycle",
    "nocycle",
    "start",
    "increment",
    "restart",
];

/// `CREATE TABLE t (... DEFAULT NEXTVAL(s) ...)`: the learned `create_table_nextval` /
/// `create_table_lastval` row (CREATE TABLE's locks, then the sequence's SW / SR for the
/// statement: measured), for one sequence named in column DEFAULTs only. The sequence
/// must exist (ER_NO_SUCH_TABLE once the locks are taken, measured) and be one (a table:
/// ER_NOT_SEQUENCE, not followed: refused).
fn create_with_default(
    sql: &str,
    toks: &[Tok],
    calls: Vec<Call>,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let refuse = |why: &str| Err(format!("`{sql}`: {why} is not modelled"));
    if ["check", "as", "select", "like", "generated", "temporary"]
        .iter()
        .any(|k| toks.iter().any(|t| kw_eq(t, k)))
    {
        return refuse("a sequence function in CREATE TABLE outside a column DEFAULT");
    }
    let seq = &calls[0].seq;
    if calls.iter().any(|c| c.seq != *seq) {
        return refuse("CREATE TABLE with DEFAULTs of several sequences");
    }
    let reads = calls.iter().all(|c| c.kind == Kind::Lastval);
    if !reads && calls.iter().any(|c| c.kind == Kind::Lastval) {
        return refuse("CREATE TABLE with DEFAULTs of NEXTVAL and LASTVAL together");
    }
    if cat.exists(seq) && !cat.is_sequence(seq) {
        return refuse("a DEFAULT of a sequence function of a table that is not a sequence");
    }
    let kind = if reads {
        Kind::CreateTableLastval
    } else {
        Kind::CreateTableNextval
    };
    if !has_row(kind.as_str()) {
        return refuse("a sequence function in CREATE TABLE");
    }
    let rest = calls_as_zero(toks, calls.iter().map(|c| c.span.clone()));
    let p = match classify(&super::lex::render(&rest), db, cat, has_row)? {
        Stmt::Learned(p) if p.kind == Kind::CreateTable => p,
        _ => return refuse("this CREATE TABLE with a sequence function"),
    };
    match creating_with_sequence(p, kind, seq) {
        Some(p) => Ok(Stmt::Learned(p)),
        None => refuse("this CREATE TABLE with a sequence function"),
    }
}
