//! A stored program's body read as MariaDB's parser reads it (`sql/sql_yacc.yy`:
//! `sp_proc_stmt`, `sp_block_content`, `sp_decls`, `sp_decl_handler`, `sp_labeled_control`,
//! `sp_if`, `case_stmt_specification`, `sp_proc_stmt_leave` / `_iterate` / `_return`,
//! `sp_proc_stmt_open` / `_fetch` / `_close`, `signal_stmt`), far enough to know its SQL
//! statements (for the tables they use) and the errors the parser gives the definition
//! before any lock is taken:
//!
//! - at the statement that causes it, the parser stops: ER_SP_BADSTATEMENT (LOCK, UNLOCK,
//!   USE, HANDLER, LOAD DATA, BACKUP STAGE / LOCK / UNLOCK in any stored program), ER_SP_BADRETURN (RETURN
//!   outside a function), ER_SP_LILABEL_MISMATCH (LEAVE / ITERATE of no enclosing label),
//!   ER_SP_LABEL_MISMATCH (an end label that is not the begin label),
//!   ER_SP_VARCOND_AFTER_CURSHNDLR and ER_SP_CURSOR_AFTER_HANDLER (declaration order);
//! - at the end of a function's or trigger's body, `sp_head::is_not_allowed_in_function`
//!   (sql/sp_head.h) in its order: dynamic SQL, a result set (`SELECT` without INTO, SHOW,
//!   ANALYZE, ...), `SET autocommit`, an explicit or implicit commit (COMMIT, ROLLBACK,
//!   START TRANSACTION, DDL but CREATE / DROP TEMPORARY TABLE), RESET, FLUSH (the flags of
//!   `sp_get_flags_for_command`, sql/sp_head.cc); then a function with no RETURN:
//!   ER_SP_NORETURN (`LEX::sp_body_finalize_function`).
//!
//! Each was measured on MariaDB 10.11 (the unit tests below name them). A construct the
//! reader does not follow is refused with its name.

use super::routine_body::safe_name;
use super::routine_diag::SIGNAL_ITEMS;
use super::routine_dups::Kind;
use super::routine_reader::Flags;
pub(super) use super::routine_reader::{refused, Ctx, Reader, Why};
use super::{kw_eq, Tok};

pub const ER_SP_LILABEL_MISMATCH: u32 = 1308;
pub const ER_SP_LABEL_MISMATCH: u32 = 1310;
pub const ER_SP_BADRETURN: u32 = 1313;
pub const ER_SP_BADSTATEMENT: u32 = 1314;
pub const ER_SP_NORETURN: u32 = 1320;
pub const ER_STMT_NOT_ALLOWED_IN_SF_OR_TRG: u32 = 1336;
pub const ER_SP_VARCOND_AFTER_CURSHNDLR: u32 = 1337;
pub const ER_SP_CURSOR_AFTER_HANDLER: u32 = 1338;
pub const ER_SP_NO_RETSET: u32 = 1415;
pub const ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG: u32 = 1422;
pub const ER_SP_CANT_SET_AUTOCOMMIT: u32 = 1445;
/// FETCH GROUP NEXT ROW outside an aggregate function (measured at the FETCH).
pub const ER_INVALID_AGGREGATE_FUNCTION: u32 = 4105;
/// An aggregate function without FETCH GROUP NEXT ROW (measured: after the flags'
/// errors, before ER_SP_NORETURN).
pub const ER_NOT_AGGREGATE_FUNCTION: u32 = 4106;

/// Words that make a simple statement one the reader does not follow.
const NOT_FOLLOWED: &[&str] = &[
    "dumpfile", "outfile", "analyse", "declare", "cursor", "handler", "leave", "iterate", "signal",
    "resignal", "while", "repeat", "loop", "goto",
];

/// Reads `body` (the tokens after a routine's characteristics, an event's DO or a
/// trigger's FOR EACH ROW): its SQL statements and expressions (conditions, defaults,
/// RETURN values, cursors' queries) in text order, or why not.
pub(super) fn read(body: &[Tok], ctx: Ctx) -> Result<Vec<&[Tok]>, Why> {
    read_in(body, ctx, false, Vec::new())
}

/// [`read`], of an aggregate function's body when `aggregate`, with the routine's
/// parameters `params` (variables for GET DIAGNOSTICS).
pub(super) fn read_in(
    body: &[Tok],
    ctx: Ctx,
    aggregate: bool,
    params: Vec<String>,
) -> Result<Vec<&[Tok]>, Why> {
    if body.contains(&Tok::P('#')) {
        return refused("a comment");
    }
    let mut r = Reader {
        t: body,
        i: 0,
        ctx,
        labels: Vec::new(),
        stmts: Vec::new(),
        flags: Flags::default(),
        vars: params,
        aggregate,
        conds: Vec::new(),
        handlers: Vec::new(),
        blocks: Vec::new(),
    };
    r.stmt()?;
    if r.i != body.len() {
        return refused("text after the body's statement");
    }
    r.finish()?;
    Ok(r.stmts)
}

impl<'a> Reader<'a> {
    pub(super) fn peek_kw(&self, kw: &str) -> bool {
        self.t.get(self.i).is_some_and(|t| kw_eq(t, kw))
    }

    pub(super) fn eat(&mut self, kw: &str) -> bool {
        let hit = self.peek_kw(kw);
        self.i += usize::from(hit);
        hit
    }

    pub(super) fn expect(&mut self, kw: &str) -> Result<(), Why> {
        if self.eat(kw) {
            Ok(())
        } else {
            refused(&format!("a construct without its `{}`", kw.to_uppercase()))
        }
    }

    fn expect_p(&mut self, p: char) -> Result<(), Why> {
        if self.t.get(self.i) == Some(&Tok::P(p)) {
            self.i += 1;
            Ok(())
        } else {
            refused(&format!("a statement not ended by `{p}`"))
        }
    }

    /// `is_not_allowed_in_function`'s errors, then ER_SP_NORETURN.
    fn finish(&self) -> Result<(), Why> {
        if !matches!(self.ctx, Ctx::Function | Ctx::Trigger) {
            return Ok(());
        }
        let f = &self.flags;
        let code = [
            (f.dynamic, ER_STMT_NOT_ALLOWED_IN_SF_OR_TRG),
            (f.multi_results, ER_SP_NO_RETSET),
            (f.autocommit, ER_SP_CANT_SET_AUTOCOMMIT),
            (f.commit, ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG),
            (f.reset || f.flush, ER_STMT_NOT_ALLOWED_IN_SF_OR_TRG),
            (self.aggregate && !f.fetch_group, ER_NOT_AGGREGATE_FUNCTION),
            (self.ctx == Ctx::Function && !f.has_return, ER_SP_NORETURN),
        ]
        .into_iter()
        .find_map(|(hit, code)| hit.then_some(code));
        code.map_or(Ok(()), |c| Err(Why::Fails(c)))
    }

    /// One `sp_proc_stmt` from `t[i..]`, without the `;` after it.
    fn stmt(&mut self) -> Result<(), Why> {
        let label = self.label()?;
        let Some(first) = self.t.get(self.i) else {
            return refused("an empty statement");
        };
        let word = match first {
            Tok::Word {
                text,
                quoted: false,
            } => text.to_ascii_lowercase(),
            // `deterministic:BEGIN`: the characteristic is read, then `:` starts nothing
            // (`sp_proc_stmt`; suite/funcs_1 storedproc.test, measured 1064).
            Tok::P(':') if self.ctx != Ctx::Trigger => {
                return Err(Why::Fails(super::ER_PARSE_ERROR))
            }
            _ => return refused("a statement that does not start with a keyword"),
        };
        let labelled = ["begin", "loop", "while", "repeat", "for"];
        if label.is_some() && !labelled.contains(&word.as_str()) {
            // Only `sp_labeled_block` and `sp_labeled_control` take a `label:` (sql_yacc.yy;
            // Oracle mode's `<<l>>` is another rule): storedproc.test's `label1: case`,
            // `label1: iterate` are 1064.
            return Err(Why::Fails(super::ER_PARSE_ERROR));
        }
        match word.as_str() {
            // No `sp_proc_stmt` starts with these: where they belong (a block's END, IF's
            // ELSEIF / ELSE, CASE's WHEN / THEN) the enclosing reader stops before them,
            // so here they are out of place (funcs_1/storedproc.test: `END SELECT ...`
            // as a body, `loop else ...`, `BEGIN when case ...`, `else ...; elseif`,
            // each ER_PARSE_ERROR).
            "end" | "else" | "elseif" | "when" | "then" => Err(Why::Fails(super::ER_PARSE_ERROR)),
            "begin" | "loop" | "while" | "repeat" => self.labeled(&word, label),
            "if" => self.if_stmt(),
            "case" => self.case_stmt(),
            "declare" => refused("a DECLARE after a statement"),
            "for" => self.for_loop(label),
            "get" => self.get_diagnostics(),
            "leave" | "iterate" => self.leave(&word),
            "return" => self.return_stmt(),
            "open" | "close" => self.cursor_name(),
            "fetch" => self.fetch(),
            "signal" | "resignal" => self.signal(&word),
            _ => self.simple(&word),
        }
    }

    /// `label:` before a block or loop.
    pub(super) fn label(&mut self) -> Result<Option<String>, Why> {
        if self.t.get(self.i + 1) != Some(&Tok::P(':')) {
            return Ok(None);
        }
        let Some(Tok::Word { text, quoted }) = self.t.get(self.i) else {
            return refused("a label that is not a name");
        };
        if let Some(code) = super::keywords::label_error(&self.t[self.i]) {
            return Err(Why::Fails(code)); // `label_ident` (classify/keywords.rs)
        }
        if !*quoted && !super::reserved::is_label(&self.t[self.i]) {
            return refused("a label the model cannot tell from a reserved word");
        }
        self.i += 2;
        Ok(Some(text.to_lowercase()))
    }

    /// BEGIN ... END, LOOP ... END LOOP, WHILE c DO ... END WHILE, REPEAT ... UNTIL c END
    /// REPEAT, each with its optional end label.
    fn labeled(&mut self, word: &str, label: Option<String>) -> Result<(), Why> {
        self.i += 1;
        let is_loop = word != "begin";
        self.labels.push((
            label.clone().unwrap_or_default(),
            is_loop && label.is_some(),
        ));
        match word {
            "begin" => {
                if self.eat("not") {
                    self.expect("atomic")?;
                }
                self.block_content()?;
                self.expect("end")?;
            }
            "loop" => {
                self.stmts_until(&["end"], true)?;
                self.expect("end")?;
                self.expect("loop")?;
            }
            "while" => {
                self.expr_until(&["do"])?;
                self.i += 1;
                self.stmts_until(&["end"], true)?;
                self.expect("end")?;
                self.expect("while")?;
            }
            _ => {
                self.stmts_until(&["until"], true)?;
                self.i += 1;
                self.expr_until(&["end"])?;
                self.expect("end")?;
                self.expect("repeat")?;
            }
        }
        self.labels.pop();
        self.end_label(label)
    }

    /// The optional label after END [LOOP | WHILE | REPEAT]: it must be the begin label.
    pub(super) fn end_label(&mut self, label: Option<String>) -> Result<(), Why> {
        match self.t.get(self.i) {
            Some(Tok::Word { text, .. }) => {
                self.i += 1;
                if label.is_some_and(|l| l == text.to_lowercase()) {
                    Ok(())
                } else {
                    Err(Why::Fails(ER_SP_LABEL_MISMATCH))
                }
            }
            _ => Ok(()),
        }
    }

    /// A BEGIN block's declarations, then its statements.
    fn block_content(&mut self) -> Result<(), Why> {
        // 0: variables and conditions; 1: cursors; 2: handlers.
        let mut stage = 0;
        let conds_at = self.conds.len();
        self.handlers.push(Vec::new());
        self.blocks.push(Default::default());
        while self.peek_kw("declare") {
            let kind = self.declare()?;
            if kind < stage {
                return Err(Why::Fails(if kind == 0 {
                    ER_SP_VARCOND_AFTER_CURSHNDLR
                } else {
                    ER_SP_CURSOR_AFTER_HANDLER
                }));
            }
            stage = kind;
            self.expect_p(';')?;
        }
        self.handlers.pop();
        let r = self.stmts_until(&["end"], false);
        self.blocks.pop();
        // A block's conditions are gone after its END (`sp_pcontext::pop_context`;
        // main/signal.test:928: the outer `foo` is the one SIGNAL names there).
        self.conds.truncate(conds_at);
        r
    }

    /// Statements, each followed by `;`, up to one of `ends`; `one`: at least one.
    pub(super) fn stmts_until(&mut self, ends: &[&str], one: bool) -> Result<(), Why> {
        let mut n = 0;
        loop {
            match self.t.get(self.i) {
                None => return refused("a block without its END"),
                Some(t) if ends.iter().any(|e| kw_eq(t, e)) => break,
                _ => {}
            }
            self.stmt()?;
            self.expect_p(';')?;
            n += 1;
        }
        if one && n == 0 {
            return refused("an empty statement list");
        }
        Ok(())
    }

    /// An expression up to the first of `ends` (not consumed); a CASE expression or an
    /// unbalanced one is not followed.
    pub(super) fn expr_until(&mut self, ends: &[&str]) -> Result<(), Why> {
        let start = self.i;
        let mut depth = 0i32;
        while let Some(t) = self.t.get(self.i) {
            match t {
                Tok::P('(') => depth += 1,
                Tok::P(')') => depth -= 1,
                Tok::P(';') => return refused("an expression cut by `;`"),
                _ if kw_eq(t, "case") => return refused("a CASE expression in a condition"),
                _ if depth == 0 && ends.iter().any(|e| kw_eq(t, e)) => {
                    if self.i == start || depth != 0 {
                        return refused("an empty condition");
                    }
                    let e = &self.t[start..self.i];
                    super::routine_set_ident::check_expr(e, &self.vars, self.ctx)?;
                    self.stmts.push(e);
                    return Ok(());
                }
                _ => {}
            }
            self.i += 1;
        }
        refused("a condition without its end")
    }

    /// IF c THEN ... [ELSEIF c THEN ...] [ELSE ...] END IF.
    fn if_stmt(&mut self) -> Result<(), Why> {
        self.i += 1;
        loop {
            self.expr_until(&["then"])?;
            self.i += 1;
            self.stmts_until(&["elseif", "else", "end"], true)?;
            if !self.eat("elseif") {
                break;
            }
        }
        if self.eat("else") {
            self.stmts_until(&["end"], true)?;
        }
        self.expect("end")?;
        self.expect("if")
    }

    /// CASE [v] WHEN c THEN ... [ELSE ...] END CASE.
    fn case_stmt(&mut self) -> Result<(), Why> {
        self.i += 1;
        if !self.peek_kw("when") {
            self.expr_until(&["when"])?;
        }
        while self.eat("when") {
            self.expr_until(&["then"])?;
            self.i += 1;
            self.stmts_until(&["when", "else", "end"], true)?;
        }
        if self.eat("else") {
            self.stmts_until(&["end"], true)?;
        }
        self.expect("end")?;
        self.expect("case")
    }

    /// LEAVE / ITERATE label: an enclosing label (a loop's, for ITERATE).
    fn leave(&mut self, word: &str) -> Result<(), Why> {
        self.i += 1;
        let Some(Tok::Word { text, .. }) = self.t.get(self.i) else {
            return refused("LEAVE / ITERATE without a label");
        };
        self.i += 1;
        let l = text.to_lowercase();
        let ok = self
            .labels
            .iter()
            .any(|(name, is_loop)| *name == l && (word == "leave" || *is_loop));
        if ok {
            Ok(())
        } else {
            Err(Why::Fails(ER_SP_LILABEL_MISMATCH))
        }
    }

    fn return_stmt(&mut self) -> Result<(), Why> {
        if self.ctx != Ctx::Function {
            return Err(Why::Fails(ER_SP_BADRETURN));
        }
        self.flags.has_return = true;
        self.i += 1;
        let s = self.rest_of_statement();
        if s.is_empty() {
            return refused("RETURN without a value");
        }
        super::routine_set_ident::check_expr(s, &self.vars, self.ctx)?;
        self.stmts.push(s);
        Ok(())
    }

    fn cursor_name(&mut self) -> Result<(), Why> {
        self.i += 1;
        match self.t.get(self.i) {
            Some(Tok::Word { .. }) => {
                self.i += 1;
                self.open_args()
            }
            _ => refused("OPEN / CLOSE without a cursor name"),
        }
    }

    /// FETCH [[NEXT] FROM] c INTO v[, w].
    fn fetch(&mut self) -> Result<(), Why> {
        self.i += 1;
        if self.eat("group") {
            // `sp_proc_stmt_fetch_head`'s FETCH GROUP NEXT ROW (sql_yacc.yy).
            self.expect("next")?;
            self.expect("row")?;
            if !self.aggregate {
                return Err(Why::Fails(ER_INVALID_AGGREGATE_FUNCTION));
            }
            self.flags.fetch_group = true;
            return Ok(());
        }
        self.eat("next");
        self.eat("from");
        self.cursor_name_at()?;
        self.expect("into")?;
        loop {
            match self.t.get(self.i) {
                Some(Tok::Word { .. }) => self.i += 1,
                _ => return refused("FETCH into no variable"),
            }
            if self.t.get(self.i) != Some(&Tok::P(',')) {
                return Ok(());
            }
            self.i += 1;
        }
    }

    fn cursor_name_at(&mut self) -> Result<(), Why> {
        match self.t.get(self.i) {
            Some(Tok::Word { .. }) => {
                self.i += 1;
                Ok(())
            }
            _ => refused("FETCH without a cursor name"),
        }
    }

    /// SIGNAL SQLSTATE [VALUE] 'x' | name [SET ...]; RESIGNAL may name none.
    fn signal(&mut self, word: &str) -> Result<(), Why> {
        self.i += 1;
        let s = self.rest_of_statement();
        let named = match s {
            [] => word == "resignal",
            [st, rest @ ..] if kw_eq(st, "sqlstate") => {
                let rest = match rest {
                    [v, r @ ..] if kw_eq(v, "value") => r,
                    r => r,
                };
                matches!(rest.first(), Some(Tok::Str(_)))
            }
            [Tok::Word { .. }, ..] => true,
            _ => false,
        };
        if s.is_empty() && word == "signal" {
            // `signal_stmt` needs a condition (main/signal.test: `SIGNAL;`).
            return Err(Why::Fails(super::ER_PARSE_ERROR));
        }
        if !named {
            return refused("a SIGNAL without its condition");
        }
        // SET items are condition information items (`signal_condition_information_item_name`).
        let bad_item = s.windows(2).any(|w| {
            w[1] == Tok::P('=')
                && matches!(&w[0], Tok::Word { .. })
                && !SIGNAL_ITEMS.iter().any(|i| kw_eq(&w[0], i))
        });
        if bad_item {
            // Not a `signal_condition_information_item_name` (sql_yacc.yy): a syntax
            // error (main/signal.test `test_invalid`, each measured ER_PARSE_ERROR).
            return Err(Why::Fails(super::ER_PARSE_ERROR));
        }
        self.signal_checks(s)?;
        // `signal_allowed_expr`: a literal, a variable or a name, one token each.
        let one_token = |item: &[Tok]| matches!(item, [Tok::Word { .. }, Tok::P('='), _]);
        if let Some(k) = s.iter().position(|t| kw_eq(t, "set")) {
            let bad_value = |item: &[Tok]| {
                matches!(item, [Tok::Word { .. }, Tok::P('='), v @ ..]
                    if super::routine_diag::not_a_signal_value(v))
            };
            if s[k + 1..].split(|t| *t == Tok::P(',')).any(bad_value) {
                return Err(Why::Fails(super::ER_PARSE_ERROR));
            }
            if !s[k + 1..].split(|t| *t == Tok::P(',')).all(one_token) {
                return refused("a SIGNAL item's value other than a literal or a variable");
            }
            // A name that is no literal must be a declared variable: ER_SP_UNDECLARED_VAR
            // at CREATE (`LEX::create_item_for_sp_var`; main/signal.test:2547, `65`).
            let undeclared = s[k + 1..].split(|t| *t == Tok::P(',')).any(|item| {
                matches!(item, [_, _, Tok::Word { text, .. }]
                    if !text.starts_with('@')
                        && !["null", "true", "false"].iter().any(|w| text.eq_ignore_ascii_case(w))
                        && !self.vars.contains(&text.to_lowercase()))
            });
            if undeclared {
                return Err(Why::Fails(super::routine_diag::ER_SP_UNDECLARED_VAR));
            }
        }
        Ok(())
    }

    /// The tokens up to the next `;` (or the end): consumed.
    pub(super) fn rest_of_statement(&mut self) -> &'a [Tok] {
        let start = self.i;
        while self.i < self.t.len() && self.t[self.i] != Tok::P(';') {
            self.i += 1;
        }
        &self.t[start..self.i]
    }

    /// DECLARE ...: 0 a variable or condition, 1 a cursor, 2 a handler.
    fn declare(&mut self) -> Result<u8, Why> {
        self.i += 1;
        if ["continue", "exit", "undo"].iter().any(|w| self.peek_kw(w)) {
            return self.handler();
        }
        let names_start = self.i;
        let s = self.rest_of_statement();
        super::routine_keywords::declare_name(s)?;
        match s {
            [_, c, f, q @ ..] if kw_eq(c, "cursor") && kw_eq(f, "for") => {
                if !safe_name(&s[0]) || !q.first().is_some_and(|x| kw_eq(x, "select")) {
                    return refused("a cursor other than `name CURSOR FOR SELECT ...`");
                }
                self.declare_name(Kind::Cursor, &s[0])?;
                self.stmts.push(q);
                Ok(1)
            }
            [_, c, Tok::P('('), ..] if kw_eq(c, "cursor") => {
                let q = super::routine_decl::cursor_with_params(s)?;
                self.declare_name(Kind::Cursor, &s[0])?;
                self.stmts.push(q);
                Ok(1)
            }
            [_, c, f, v @ ..] if kw_eq(c, "condition") && kw_eq(f, "for") => {
                // `FOR SQLSTATE [VALUE] 'xxxxx'` or `FOR error_number`.
                let value = match v {
                    [st, vl, Tok::Str(_)] => kw_eq(st, "sqlstate") && kw_eq(vl, "value"),
                    [st, Tok::Str(_)] => kw_eq(st, "sqlstate"),
                    [Tok::Num(_)] => true,
                    _ => false,
                };
                if !safe_name(&s[0]) || !value {
                    return refused("a condition other than `name CONDITION FOR SQLSTATE 'x'`");
                }
                self.declare_name(Kind::Cond, &s[0])?;
                self.declare_condition(&s[0], v)?;
                Ok(0)
            }
            _ => {
                self.i = names_start;
                self.variable()
            }
        }
    }

    /// `DECLARE v[, w] type [DEFAULT expr]`.
    fn variable(&mut self) -> Result<u8, Why> {
        let s = self.rest_of_statement();
        let mut i = 0;
        while s.get(i).is_some_and(safe_name) && s.get(i + 1) == Some(&Tok::P(',')) {
            i += 2;
        }
        if s.get(i).is_some_and(super::reserved::is_reserved) {
            // Measured: `DECLARE w INT` of each reserved word (classify/reserved.rs).
            return Err(Why::Fails(super::ER_PARSE_ERROR));
        }
        if matches!(s.get(i), Some(Tok::Word { text, quoted: false }) if text.starts_with('@')) {
            // A user variable is no `sp_decl_ident` (storedproc.test `declare @x char`: 1064).
            return Err(Why::Fails(super::ER_PARSE_ERROR));
        }
        if !s.get(i).is_some_and(safe_name) {
            return refused("a DECLARE of a name the model cannot tell from a reserved word");
        }
        for n in s[..=i].iter().step_by(2) {
            self.declare_name(Kind::Var, n)?;
            if let Tok::Word { text, .. } = n {
                self.vars.push(text.to_lowercase());
            }
        }
        let j = super::routine_decl::var_type(s, i + 1)?;
        match &s[j..] {
            [] => Ok(0),
            [d, e @ ..] if kw_eq(d, "default") && !e.is_empty() => {
                self.stmts.push(e);
                Ok(0)
            }
            _ => refused("a variable declaration with more than a DEFAULT"),
        }
    }

    /// `DECLARE CONTINUE | EXIT HANDLER FOR cond[, cond] stmt`.
    fn handler(&mut self) -> Result<u8, Why> {
        self.i += super::routine_keywords::handler_head(&self.t[self.i..])?;
        loop {
            let start = self.i;
            self.condition()?;
            self.handled(&self.t[start..self.i])?;
            if self.t.get(self.i) != Some(&Tok::P(',')) {
                break;
            }
            self.i += 1;
        }
        self.stmt()?;
        Ok(2)
    }

    /// SQLSTATE [VALUE] 'x' | number | SQLWARNING | NOT FOUND | SQLEXCEPTION | name.
    fn condition(&mut self) -> Result<(), Why> {
        if self.eat("sqlstate") {
            self.eat("value");
            return match self.t.get(self.i) {
                Some(Tok::Str(st)) => {
                    super::routine_cond::check_sqlstate(st)?;
                    self.i += 1;
                    Ok(())
                }
                _ => refused("a handler's SQLSTATE without its value"),
            };
        }
        if self.eat("not") {
            return self.expect("found");
        }
        let named = self
            .t
            .get(self.i)
            .filter(|t| !kw_eq(t, "sqlwarning") && !kw_eq(t, "sqlexception"));
        if let Some(code) = named.and_then(super::keywords::handler_error) {
            return Err(Why::Fails(code)); // `sp_hcond` (classify/keywords.rs)
        }
        match self.t.get(self.i) {
            Some(Tok::Num(_)) => {}
            Some(t) if kw_eq(t, "sqlwarning") || kw_eq(t, "sqlexception") => {}
            Some(t) if safe_name(t) => {
                self.declared_condition(t)?;
            }
            _ => return refused("a handler condition the model does not know"),
        }
        self.i += 1;
        Ok(())
    }

    /// A SQL statement, up to its `;`: recorded, with its flags.
    fn simple(&mut self, word: &str) -> Result<(), Why> {
        let s = self.rest_of_statement();
        // `SET STATEMENT v = x, ... FOR stmt`: the statement after FOR is checked.
        match super::routine_nested::set_statement_inner(word, s) {
            Some((w, inner)) => self.check_simple(&w, inner)?,
            None => self.check_simple(word, s)?,
        }
        self.stmts.push(s);
        Ok(())
    }

    /// The flags and the parser's errors of SQL statement `s` (its first word `word`).
    fn check_simple(&mut self, word: &str, s: &[Tok]) -> Result<(), Why> {
        let second = s.get(1);
        let at = |k: &str| second.is_some_and(|t| kw_eq(t, k));
        let f = &mut self.flags;
        match word {
            "lock" | "unlock" | "use" | "handler" => return Err(Why::Fails(ER_SP_BADSTATEMENT)),
            "load" if at("data") || at("xml") => return Err(Why::Fails(ER_SP_BADSTATEMENT)),
            "backup" => return Err(Why::Fails(ER_SP_BADSTATEMENT)),
            "select" | "with" | "values" => f.multi_results |= !s.iter().any(|t| kw_eq(t, "into")),
            "show" | "analyze" | "check" | "optimize" | "repair" | "checksum" | "explain"
            | "describe" | "desc" | "cache" => f.multi_results = true,
            // LOAD INDEX INTO CACHE / CACHE INDEX return a result set; INSTALL / UNINSTALL
            // PLUGIN commit; START / STOP SLAVE neither (main/ps.test, measured).
            "load" if at("index") => f.multi_results = true,
            "install" | "uninstall" if at("plugin") || at("soname") => f.commit = true,
            "start" | "stop" if at("slave") || at("replica") => {}
            "commit" | "grant" | "revoke" => f.commit = true,
            "rollback" => f.commit |= !s.iter().any(|t| kw_eq(t, "to")),
            "start" if at("transaction") => f.commit = true,
            "create" | "drop" => f.commit |= !at("temporary"),
            "alter" | "rename" | "truncate" => f.commit = true,
            "set" if super::routine_decl::shadowed_set(s, &self.vars) => {
                return Err(Why::Fails(super::routine_decl::ER_SP_BAD_VAR_SHADOW))
            }
            "set" => {
                super::routine_set_ident::check(s, &self.vars, self.ctx)?;
                f.autocommit |= s.iter().take(3).any(|t| {
                    matches!(t, Tok::Word { text, .. }
                    if text.trim_start_matches('@').eq_ignore_ascii_case("autocommit")
                        || text.eq_ignore_ascii_case("@@session.autocommit"))
                })
            }
            "prepare" | "execute" | "deallocate" => f.dynamic = true,
            "flush" => f.flush = true,
            "reset" => f.reset = true,
            "insert" | "update" | "delete" | "replace" | "do" | "call" | "kill" | "savepoint"
            | "release" => {}
            _ => return refused(&format!("a `{}` statement", word.to_uppercase())),
        }
        super::routine_nested::view_clause(word, s)?;
        let not_followed = s.iter().enumerate().find_map(|(i, t)| {
            // REPEAT( is the string function, not the loop.
            let function = kw_eq(t, "repeat") && s.get(i + 1) == Some(&Tok::P('('));
            NOT_FOLLOWED
                .iter()
                .find(|w| kw_eq(t, w) && !function)
                .map(|w| w.to_uppercase())
        });
        if let Some(w) = not_followed {
            return refused(&format!("`{w}` inside a statement"));
        }
        super::routine_nested::nested_objects(word, s)?;
        // SHOW GRANTS FOR / SET PASSWORD FOR name the account; NEXT VALUE FOR a sequence.
        let allowed_for = |i: usize| {
            s.get(i + 1).is_some_and(|n| kw_eq(n, "update"))
                || (i > 0
                    && ["grants", "password", "value"]
                        .iter()
                        .any(|w| kw_eq(&s[i - 1], w)))
        };
        let odd_for = s
            .iter()
            .enumerate()
            .any(|(i, t)| kw_eq(t, "for") && !allowed_for(i));
        if odd_for {
            return refused("FOR (other than FOR UPDATE, NEXT VALUE FOR) inside a statement");
        }
        // A lone `@` (`SET @=1`), but not an account's `'u'@'h'`.
        let name = |x: Option<&Tok>| matches!(x, Some(Tok::Str(_) | Tok::Word { .. }));
        let bad_at = s.iter().enumerate().any(|(i, x)| {
            matches!(x, Tok::Word { text, quoted: false } if text == "@")
                && !(i > 0 && name(s.get(i - 1)) && name(s.get(i + 1)))
        });
        let str_qualifier = s
            .windows(2)
            .any(|w| matches!(w[0], Tok::Str(_)) && w[1] == Tok::P('.'));
        if bad_at || str_qualifier {
            return refused("a statement the model cannot tell from a syntax error");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn rd(sql: &str, ctx: Ctx) -> Result<usize, Why> {
        let t = tokens(sql).unwrap();
        read(&t, ctx).map(|s| s.len())
    }

    fn fails(sql: &str, ctx: Ctx) -> Option<u32> {
        match rd(sql, ctx) {
            Err(Why::Fails(c)) => Some(c),
            _ => None,
        }
    }

    #[test]
    fn control_flow_is_followed() {
        let p = Ctx::Procedure;
        assert_eq!(rd("BEGIN END", p), Ok(0));
        assert_eq!(
            rd(
                "BEGIN DECLARE a INT DEFAULT 0; DECLARE c CURSOR FOR SELECT a FROM t1; \
                 DECLARE CONTINUE HANDLER FOR NOT FOUND SET a = 1; OPEN c; FETCH c INTO a; \
                 CLOSE c; l1: LOOP IF a > 1 THEN LEAVE l1; ELSEIF a THEN SET a = 2; \
                 ELSE ITERATE l1; END IF; END LOOP l1; WHILE a < 3 DO SET a = a + 1; \
                 END WHILE; REPEAT SET a = a - 1; UNTIL a = 0 END REPEAT; CASE a WHEN 1 \
                 THEN SELECT 1; ELSE BEGIN END; END CASE; SIGNAL SQLSTATE '45000'; END",
                p
            ),
            // 10 statements, 3 conditions.
            Ok(13)
        );
        assert_eq!(rd("BEGIN of: LOOP LEAVE of; END LOOP of; END", p), Ok(0));
        assert!(matches!(rd("BEGIN SELECT 1 END", p), Err(Why::Refused(_))));
        assert_eq!(rd("BEGIN SIGNAL; END", p), Err(Why::Fails(1064)));
        let scoped = "BEGIN DECLARE foo CONDITION FOR SQLSTATE '99999'; BEGIN DECLARE foo \
                      CONDITION FOR 8888; END; SIGNAL foo SET MYSQL_ERRNO=9999; END";
        assert_eq!(rd(scoped, p), Ok(0));
        let name = "BEGIN DECLARE foo CONDITION FOR SQLSTATE '12345'; SIGNAL foo SET MYSQL_ERRNO = `65`; END";
        assert_eq!(rd(name, p), Err(Why::Fails(1327)));
        let var = "BEGIN DECLARE m INT; SIGNAL SQLSTATE '12345' SET MYSQL_ERRNO = m; END";
        assert_eq!(rd(var, p), Ok(0));
        // main/statement-expr.test: a RESIGNAL item's subquery is a syntax error.
        let subquery = "BEGIN DECLARE CONTINUE HANDLER FOR SQLWARNING RESIGNAL SET \
                        MYSQL_ERRNO=EXISTS (SELECT * FROM t1); SIGNAL SQLSTATE '01000'; END";
        assert_eq!(rd(subquery, p), Err(Why::Fails(1064)));
        let bad_item = "BEGIN SIGNAL SQLSTATE '12345' SET bla_bla = 'foo'; END";
        assert_eq!(rd(bad_item, p), Err(Why::Fails(1064)));
        let assign = "BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = @m := 'x'; END";
        assert!(matches!(rd(assign, p), Err(Why::Refused(_))));
        let signal_set =
            "BEGIN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x', MYSQL_ERRNO = 1; END";
        assert_eq!(rd(signal_set, p), Ok(0));
        assert_eq!(
            rd("BEGIN DECLARE v INT; GET DIAGNOSTICS v = ROW_COUNT; END", p),
            Ok(0)
        );
        // Measured: ER_SP_UNDECLARED_VAR (main/get_diagnostics.test).
        assert_eq!(
            rd("BEGIN GET DIAGNOSTICS v = ROW_COUNT; END", p),
            Err(Why::Fails(1327))
        );
    }

    /// Each measured on MariaDB 10.11.19 (CREATE PROCEDURE / FUNCTION / TRIGGER).
    #[test]
    fn the_parsers_errors() {
        let (p, f, tr) = (Ctx::Procedure, Ctx::Function, Ctx::Trigger);
        // funcs_1/storedproc.test: words that start no statement (ER_PARSE_ERROR).
        assert_eq!(fails("END SELECT 1; BEGIN", p), Some(1064));
        assert_eq!(
            fails("BEGIN l: LOOP ELSE SET @c = 1; END LOOP l; END", p),
            Some(1064)
        );
        assert_eq!(
            fails("BEGIN WHEN CASE @c = 1 THEN SET @c = 10; END CASE; END", p),
            Some(1064)
        );
        assert_eq!(
            fails(
                "BEGIN IF 1 THEN SELECT 1; ELSE SELECT 2; ELSEIF 2 THEN SELECT 3; END IF; END",
                p
            ),
            Some(1064)
        );
        assert_eq!(
            rd(
                "BEGIN IF 1 THEN SELECT 1; ELSEIF 2 THEN SELECT 3; ELSE SELECT 2; END IF; END",
                p
            ),
            Ok(5)
        );
        assert_eq!(fails("BEGIN LOCK TABLES t1 READ; END", p), Some(1314));
        assert_eq!(fails("BEGIN BACKUP STAGE START; END", p), Some(1314));
        assert_eq!(fails("BEGIN USE test; END", p), Some(1314));
        assert_eq!(fails("BEGIN BACKUP UNLOCK; RETURN 1; END", f), Some(1314));
        assert_eq!(fails("BEGIN RETURN 1; END", p), Some(1313));
        assert_eq!(fails("BEGIN RETURN 1; END", tr), Some(1313));
        assert_eq!(
            fails("BEGIN l1: LOOP LEAVE l2; END LOOP; END", p),
            Some(1308)
        );
        assert_eq!(fails("BEGIN l1: BEGIN ITERATE l1; END; END", p), Some(1308));
        assert_eq!(
            fails("BEGIN l1: LOOP LEAVE l1; END LOOP l2; END", p),
            Some(1310)
        );
        let late_var = "BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE a INT; END";
        assert_eq!(fails(late_var, p), Some(1337));
        assert_eq!(fails("BEGIN COMMIT; END", f), Some(1422));
        assert_eq!(fails("BEGIN COMMIT; END", tr), Some(1422));
        assert_eq!(fails("BEGIN SELECT 1; END", tr), Some(1415));
        assert_eq!(fails("BEGIN SELECT 1; RETURN 1; END", f), Some(1415));
        assert_eq!(
            fails("BEGIN CREATE TABLE x (a INT); RETURN 1; END", f),
            Some(1422)
        );
        let order = "BEGIN SELECT 1; COMMIT; PREPARE s FROM 'x'; RETURN 1; END";
        assert_eq!(fails(order, f), Some(1336));
        assert_eq!(fails("BEGIN FLUSH TABLES; RETURN 1; END", f), Some(1336));
        assert_eq!(
            fails("BEGIN SET autocommit = 1; RETURN 1; END", f),
            Some(1445)
        );
        assert_eq!(fails("BEGIN END", f), Some(1320));
        assert_eq!(fails("BEGIN DECLARE a, add INT; END", p), Some(1064));
        // CREATE [AGGREGATE] FUNCTION and FETCH GROUP NEXT ROW (main/custom_aggregate_functions.test).
        let agg = |sql: &str| match read_in(&tokens(sql).unwrap(), f, true, Vec::new()) {
            Err(Why::Fails(c)) => Some(c),
            _ => None,
        };
        assert_eq!(
            fails("BEGIN FETCH GROUP NEXT ROW; RETURN 1; END", f),
            Some(4105)
        );
        assert_eq!(fails("BEGIN FETCH GROUP NEXT ROW; END", p), Some(4105));
        assert_eq!(agg("BEGIN RETURN 1; END"), Some(4106));
        assert_eq!(agg("BEGIN SET @a = 1; END"), Some(4106));
        assert_eq!(agg("BEGIN COMMIT; RETURN 1; END"), Some(1422));
        assert_eq!(agg("BEGIN FETCH GROUP NEXT ROW; END"), Some(1320));
        let ok = "BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND RETURN 0; LOOP FETCH GROUP NEXT ROW; END LOOP; END";
        assert!(read_in(&tokens(ok).unwrap(), f, true, Vec::new()).is_ok());
        assert_eq!(rd("BEGIN DECLARE only, value INT; END", p), Ok(0));
        assert_eq!(
            fails("BEGIN COMMIT; LOCK TABLES t1 READ; END", f),
            Some(1314)
        );
        // Allowed where measured so.
        assert_eq!(rd("BEGIN ROLLBACK TO SAVEPOINT a; RETURN 1; END", f), Ok(2));
        let temp = "BEGIN CREATE TEMPORARY TABLE x (a INT); DROP TEMPORARY TABLE x; RETURN 1; END";
        assert_eq!(rd(temp, f), Ok(3));
        assert_eq!(
            rd("BEGIN SELECT 1 INTO @a; KILL 1; RETURN 1; END", f),
            Ok(3)
        );
        assert_eq!(rd("BEGIN FLUSH TABLES; SHOW TABLES; COMMIT; END", p), Ok(3));
    }
}
