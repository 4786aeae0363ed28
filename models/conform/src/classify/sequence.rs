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

use super::{classify, kw_eq, tokens, Bind, Cur, Effect, Part, Plan, SetTarget, Stmt, Tbl, Tok};
use crate::catalog::{Catalog, Engine, SeqNeed, ER_NO_SUCH_TABLE};

/// ER_UNKNOWN_SEQUENCES.
pub const ER_UNKNOWN_SEQUENCES: u32 = 4091;
/// ER_NOT_SEQUENCE.
pub const ER_NOT_SEQUENCE: u32 = 4089;
/// ER_NOT_SEQUENCE2 (DROP SEQUENCE of a table).
pub const ER_NOT_SEQUENCE2: u32 = 4090;

/// The DML whose expressions may call sequence functions.
const DML: &[&str] = &[
    "select",
    "select_for_update",
    "select_share",
    "insert",
    "update",
    "delete",
];

fn part(kind: &str, t: &Tbl) -> Part {
    Part {
        row: kind.to_owned(),
        kind: kind.to_owned(),
        bind: Bind {
            t: Some(t.clone()),
            ..Bind::default()
        },
        set_target: SetTarget::NotInList,
    }
}

fn plan(kind: &str, parts: Vec<Part>, effect: Effect, wait: Option<u64>) -> Stmt {
    Stmt::Learned(Plan {
        kind: kind.to_owned(),
        parts,
        lock_tables: Vec::new(),
        wait,
        user_lock_timeout: None,
        effect,
        aliased: None,
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
    let ddl = (kw(0, "create") || kw(0, "drop") || kw(0, "alter"))
        && (1..5).any(|i| kw(i, "sequence"))
        && !(1..5).any(|i| kw(i, "table"));
    if ddl || (kw(0, "show") && kw(1, "create") && kw(2, "sequence")) {
        if !has_row("create_sequence") {
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
    let calls = match calls(&toks, db) {
        Ok(c) if c.is_empty() => return None,
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
    kind: &'static str,
    seq: Tbl,
    span: std::ops::Range<usize>,
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
                "nextval" => "nextval",
                "setval" => "setval",
                _ => "lastval",
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
                "nextval"
            } else {
                "lastval"
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

/// Writes tokens back as SQL (the classifier reads the same tokens from it).
fn render(toks: &[Tok]) -> String {
    let mut out = Vec::new();
    for t in toks {
        out.push(match t {
            Tok::Word { text, quoted: true } => format!("`{}`", text.replace('`', "``")),
            Tok::Word { text, .. } => text.clone(),
            Tok::Str(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''")),
            Tok::Num(n) => n.clone(),
            Tok::P(c) => c.to_string(),
        });
    }
    out.join(" ")
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
    let mut rest = Vec::new();
    let mut i = 0;
    for c in &calls {
        rest.extend(toks[i..c.span.start].iter().cloned());
        rest.push(Tok::Num("0".into()));
        i = c.span.end;
    }
    rest.extend(toks[i..].iter().cloned());
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
    let seq_parts = calls.iter().map(|c| part(c.kind, &c.seq));
    let seq_needs = calls.iter().map(|c| SeqNeed {
        t: c.seq.clone(),
        missing: Some(ER_UNKNOWN_SEQUENCES),
        sequence: true,
    });
    match classify(&render(&rest), db, cat, has_row)? {
        Stmt::NoLocks => Ok(plan(
            calls[0].kind,
            seq_parts.collect(),
            Effect::NeedSequences(seq_needs.collect()),
            None,
        )),
        Stmt::Learned(mut p) if DML.contains(&p.kind.as_str()) && p.lock_tables.is_empty() => {
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
            needs.extend(seq_needs);
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
    if first == "create" || first == "alter" {
        options(&c.t[c.i..], first == "alter")
            .map_err(|e| format!("`{sql}`: {e} (not modelled: refused)"))?;
    }
    match first.as_str() {
        "create" => create(&mut c, s, if_exists, or_replace, cat, wait),
        "drop" => {
            let mut ts = vec![s];
            while c.eat_p(',') {
                let t = c.table(db)?;
                view(&t)?;
                ts.push(t);
            }
            let parts = ts.iter().map(|t| part("drop_sequence", t)).collect();
            let effect = Effect::DropSequences { ts, if_exists };
            Ok(plan("drop_sequence", parts, effect, wait))
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
                "alter_sequence",
                vec![part("alter_sequence", &s)],
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
                "show_create",
                vec![part("show_create", &s)],
                effect,
                None,
            ))
        }
    }
}

/// CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS] s [options] [ENGINE=e].
fn create(
    c: &mut Cur,
    s: Tbl,
    if_not_exists: bool,
    or_replace: bool,
    cat: &Catalog,
    wait: Option<u64>,
) -> Result<Stmt, String> {
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
            "create_or_replace_sequence"
        } else {
            "create_or_replace_sequence_table"
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
            "create_sequence",
            Bind {
                n: Some(s.clone()),
                ..Bind::default()
            },
        )
    };
    let p = Part {
        row: kind.to_owned(),
        kind: kind.to_owned(),
        bind,
        set_target: SetTarget::NotInList,
    };
    let effect = Effect::CreateSequence {
        t: s,
        engine,
        if_not_exists,
        replace,
    };
    Ok(plan(kind, vec![p], effect, wait))
}

/// `CREATE TABLE t LIKE s` of a sequence `s` makes a sequence (measured:
/// `suite/sql_sequence/concurrent_create.test` drops it with DROP SEQUENCE).
pub(super) fn like(st: Stmt, cat: &Catalog) -> Stmt {
    let Stmt::Learned(mut p) = st else { return st };
    if p.kind != "create_like" {
        return Stmt::Learned(p);
    }
    if let Effect::CreateTable {
        t,
        engine,
        if_not_exists,
        src,
    } = &p.effect
    {
        if src.len() == 1 && cat.is_sequence(&src[0]) {
            p.effect = Effect::CreateSequence {
                t: t.clone(),
                engine: *engine,
                if_not_exists: *if_not_exists,
                replace: false,
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
        part.row = match part.kind.as_str() {
            "lock_read" | "lock_read_local" => "lock_read_sequence".into(),
            "lock_write" => "lock_write_sequence".into(),
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
fn options(toks: &[Tok], alter: bool) -> Result<(), String> {
    let mut i = 0;
    let kw = |i: usize, k: &str| toks.get(i).is_some_and(|t| kw_eq(t, k));
    let num = |i: usize| -> Option<usize> {
        let j = if toks.get(i) == Some(&Tok::P('-')) || toks.get(i) == Some(&Tok::P('+')) {
            i + 1
        } else {
            i
        };
        match toks.get(j) {
            Some(Tok::Num(n)) if n.parse::<i64>().is_ok() => Some(j + 1),
            _ => None,
        }
    };
    let eq = |i: usize| usize::from(toks.get(i) == Some(&Tok::P('=')));
    let bad = |i: usize| format!("unexpected `{:?}` in the sequence's options", toks.get(i));
    let mut seen = 0;
    while i < toks.len() {
        let next = if kw(i, "minvalue") || kw(i, "maxvalue") || kw(i, "cache") {
            num(i + 1 + eq(i + 1))
        } else if kw(i, "no") && (kw(i + 1, "minvalue") || kw(i + 1, "maxvalue")) {
            Some(i + 2)
        } else if ["nominvalue", "nomaxvalue", "nocache", "cycle", "nocycle"]
            .iter()
            .any(|k| kw(i, k))
        {
            Some(i + 1)
        } else if kw(i, "start") {
            num(i + 1 + usize::from(kw(i + 1, "with")).max(eq(i + 1)))
        } else if kw(i, "increment") {
            num(i + 1 + usize::from(kw(i + 1, "by")).max(eq(i + 1)))
        } else if alter && kw(i, "restart") {
            let j = i + 1 + usize::from(kw(i + 1, "with")).max(eq(i + 1));
            num(j).or((j == i + 1).then_some(j))
        } else {
            break;
        };
        i = next.ok_or_else(|| bad(i))?;
        seen += 1;
    }
    if alter {
        return if seen == 0 || i < toks.len() {
            Err(bad(i))
        } else {
            Ok(())
        };
    }
    // CREATE's table options: NAME [=] value, separated by spaces or commas.
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
    while i < toks.len() {
        if !TABLE_OPTS.iter().any(|k| kw(i, k)) {
            return Err(bad(i));
        }
        let v = i + 1 + eq(i + 1);
        match toks.get(v) {
            Some(Tok::Word { .. } | Tok::Str(_) | Tok::Num(_)) => i = v + 1,
            _ => return Err(bad(v)),
        }
        if toks.get(i) == Some(&Tok::P(',')) {
            i += 1;
        }
    }
    Ok(())
}
