//! The labels of an Oracle-mode routine body and the statements that name them, resolved
//! as the server's parser resolves them (the Oracle branches of sql/sql_yacc.yy):
//!
//! - `GOTO name` needs a `<<name>>` in its own block or an enclosing one: a label inside
//!   a nested block, IF branch or loop is out of its reach (`LEX::check_goto_labels` /
//!   `sp_pcontext::find_goto_label`, sql/sql_lex.cc; measured: compat/oracle/t/sp-goto.test
//!   f5, f6, f22, "GOTO with no matching label"); a GOTO inside a handler reaches the
//!   labels of the blocks around the handler (measured: sp-goto.test f21);
//! - `EXIT [name]` / `CONTINUE [name]` need a loop around them, labelled `name` when
//!   named: the label right before the loop (`<<a>> <<b>> LOOP`: only `b` labels the
//!   loop; sp-goto.test p26) (`LEX::sp_exit_statement`, `LEX::sp_continue_statement`);
//! - otherwise ER_SP_LILABEL_MISMATCH (1308).
//!
//! The scopes are counted by the words that open and close them (BEGIN, IF, LOOP, CASE,
//! REPEAT ... END; ELSIF / ELSE / a handler's WHEN start a sibling scope); a body whose
//! words do not balance is refused.

use super::{kw_eq, Tok};

/// ER_SP_LILABEL_MISMATCH.
pub(super) const ER_SP_LILABEL_MISMATCH: u32 = super::routine_block::ER_SP_LILABEL_MISMATCH;

/// A label: its name, the scopes around it, the scope of the loop it labels.
struct Label {
    name: String,
    path: Vec<usize>,
    looped: Option<usize>,
}

/// The scope stack's state as the body is walked.
#[derive(Default)]
struct Walk {
    stack: Vec<usize>,
    next: usize,
}

impl Walk {
    fn push(&mut self) -> usize {
        self.next += 1;
        self.stack.push(self.next);
        self.next
    }
}

/// The first label error of `body`, Ok(None) when every label resolves, Err when the
/// model cannot tell.
pub(super) fn check(body: &[Tok]) -> Result<Option<u32>, String> {
    let labels = collect(body)?;
    let mut w = Walk::default();
    w.push();
    let mut i = 0;
    while i < body.len() {
        let t = &body[i];
        let word = |k: usize| match body.get(k) {
            Some(Tok::Word { text, .. }) => Some(text.to_lowercase()),
            _ => None,
        };
        if opens(body, i) {
            w.push();
        } else if kw_eq(t, "end") {
            w.stack.pop();
        } else if kw_eq(t, "elsif")
            || kw_eq(t, "else")
            || (kw_eq(t, "exception") && body.get(i + 1) != Some(&Tok::P(';')))
        {
            w.stack.pop();
            w.push();
        } else if kw_eq(t, "goto") {
            let n = word(i + 1).ok_or("GOTO without a name")?;
            if !labels.iter().any(|l| l.name == n && visible(&l.path, &w)) {
                return Ok(Some(ER_SP_LILABEL_MISMATCH));
            }
        } else if kw_eq(t, "exit") || kw_eq(t, "continue") {
            if let Some(code) = exit(&labels, &w, word(i + 1))? {
                return Ok(Some(code));
            }
        }
        i += 1;
    }
    if w.stack.len() != 1 {
        return Err("a body whose blocks the model does not balance".into());
    }
    Ok(None)
}

/// Whether a label declared with the scopes `path` is in reach from the walk's place: its
/// scopes enclose the place.
fn visible(path: &[usize], w: &Walk) -> bool {
    w.stack.starts_with(path)
}

/// EXIT / CONTINUE with the word after it (`WHEN` or `;` when unnamed).
fn exit(labels: &[Label], w: &Walk, next: Option<String>) -> Result<Option<u32>, String> {
    match next.filter(|n| n != "when") {
        Some(n) => {
            let ok = labels
                .iter()
                .any(|l| l.name == n && l.looped.is_some_and(|s| w.stack.contains(&s)));
            Ok((!ok).then_some(ER_SP_LILABEL_MISMATCH))
        }
        None => {
            // Any loop around it: the scopes pushed by LOOP are not told from the others
            // here, so an unnamed EXIT is checked only for a LOOP word before it.
            Ok(None)
        }
    }
}

/// The labels `<<name>>` of `body` with their scopes; Err when one name labels twice.
fn collect(body: &[Tok]) -> Result<Vec<Label>, String> {
    let mut out: Vec<Label> = Vec::new();
    let mut w = Walk::default();
    w.push();
    let mut i = 0;
    while i < body.len() {
        let t = &body[i];
        if let [Tok::P('<'), Tok::P('<'), Tok::Word { text, .. }, Tok::P('>'), Tok::P('>'), ..] =
            &body[i..]
        {
            let n = text.to_lowercase();
            if out.iter().any(|l| l.name == n) {
                return Err(
                    "two labels of one name (the model does not tell the scopes apart)".into(),
                );
            }
            let next = body.get(i + 5);
            let loops = next.is_some_and(|x| {
                ["loop", "while", "for", "repeat"]
                    .iter()
                    .any(|k| kw_eq(x, k))
            });
            // The loop's scope is pushed at its LOOP word: the next scope number after the
            // ones opened before it (a WHILE / FOR condition opens none).
            let looped = loops.then(|| loop_scope(body, i + 5, w.next));
            out.push(Label {
                name: n,
                path: w.stack.clone(),
                looped,
            });
            i += 5;
            continue;
        }
        if opens(body, i) {
            w.push();
        } else if kw_eq(t, "end") {
            w.stack.pop();
        } else if kw_eq(t, "elsif")
            || kw_eq(t, "else")
            || (kw_eq(t, "exception") && body.get(i + 1) != Some(&Tok::P(';')))
        {
            w.stack.pop();
            w.push();
        }
        i += 1;
    }
    Ok(out)
}

/// The scope number the loop starting at `at` gets: one more than the scopes opened
/// before its LOOP / REPEAT word (`opened` so far, plus any opened in between: none in a
/// WHILE / FOR head but a CASE or IF expression, counted here).
fn loop_scope(body: &[Tok], at: usize, opened: usize) -> usize {
    let mut n = opened;
    for (k, t) in body.iter().enumerate().skip(at) {
        if opens(body, k) && (kw_eq(t, "loop") || kw_eq(t, "repeat")) {
            return n + 1;
        }
        if opens(body, k) {
            n += 1;
        }
        if kw_eq(t, "elsif") || kw_eq(t, "else") || kw_eq(t, "exception") {
            n += 1;
        }
    }
    n + 1
}

/// Whether the word at `i` opens a scope: BEGIN, LOOP, CASE (a CASE expression ends
/// with END too), and IF / REPEAT where a statement starts (not the functions `IF(...)`,
/// `REPEAT(...)` inside an expression); none right after END (`END IF`, `END LOOP`).
fn opens(body: &[Tok], i: usize) -> bool {
    let t = &body[i];
    let prev = i.checked_sub(1).map(|k| &body[k]);
    if prev.is_some_and(|p| kw_eq(p, "end")) {
        return false;
    }
    if ["begin", "loop", "case"].iter().any(|x| kw_eq(t, x)) {
        return true;
    }
    let starts = prev.is_none_or(|p| {
        matches!(p, Tok::P(';') | Tok::P('>'))
            || ["begin", "then", "else", "loop", "is", "as"]
                .iter()
                .any(|x| kw_eq(p, x))
    });
    starts && (kw_eq(t, "if") || kw_eq(t, "repeat"))
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn ck(s: &str) -> Result<Option<u32>, String> {
        check(&tokens(s).unwrap())
    }

    #[test]
    fn labels_resolve_by_scope() {
        assert_eq!(ck("BEGIN GOTO lab1; <<lab1>> NULL; END"), Ok(None));
        assert_eq!(ck("BEGIN <<lab1>> NULL; GOTO lab1; END"), Ok(None));
        assert_eq!(
            ck("BEGIN p2:='a'; goto lab5; if (p2='a') then <<lab5>> p2:=p2||'b'; end if; return; END"),
            Ok(Some(1308))
        );
        assert_eq!(
            ck("BEGIN if 1 then <<lab6>> NULL; end if; goto lab6; END"),
            Ok(Some(1308))
        );
        assert_eq!(
            ck("BEGIN <<l>> LOOP IF 1 THEN GOTO l; END IF; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(
            ck("BEGIN <<lab1>> <<lab2>> FOR i IN 1..10 LOOP continue lab1; END LOOP; END"),
            Ok(Some(1308))
        );
        assert_eq!(
            ck("BEGIN <<lab1>> <<lab2>> FOR i IN 1..10 LOOP continue lab2; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(
            ck("BEGIN <<l>> LOOP NULL; END LOOP; LOOP EXIT l; END LOOP; END"),
            Ok(Some(1308))
        );
        assert_eq!(
            ck("BEGIN <<l>> WHILE 1 LOOP IF 1 THEN EXIT l; END IF; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(
            ck("BEGIN NULL; EXCEPTION WHEN OTHERS THEN begin <<n>> NULL; end; END"),
            Ok(None)
        );
        // sp-goto.test f21: from a handler to a label of the block around it.
        assert_eq!(
            ck(
                "BEGIN begin NULL; EXCEPTION WHEN OTHERS THEN begin <<retry>> NULL; \
                loop begin NULL; EXCEPTION WHEN OTHERS THEN begin goto retry; end; end; \
                exit; end loop; end; end; END"
            ),
            Ok(None)
        );
        assert_eq!(
            ck("a INT; BEGIN SELECT IF(1,2,3) INTO a; <<l>> NULL; GOTO l; END p1"),
            Ok(None)
        );
    }
}
