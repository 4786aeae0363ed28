//! The tokenizer of the classifier, its cursor, and the small readers of tokens (keywords,
//! options, `WAIT n` / `NOWAIT`).

use super::Tbl;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// A word or a backtick-quoted identifier (`quoted`), as written.
    Word {
        text: String,
        quoted: bool,
    },
    Str(String),
    Num(String),
    P(char),
}

pub(super) fn tokens(sql: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let cs: Vec<char> = sql.trim().trim_end_matches(';').chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '#'
            || (c == '-'
                && cs.get(i + 1) == Some(&'-')
                && cs.get(i + 2).is_none_or(|x| x.is_whitespace()))
        {
            // A comment to the end of the line (sql_lex.cc, `MY_LEX_COMMENT`): mysql-test
            // keeps them inside multi-line statements.
            while i < cs.len() && cs[i] != '\n' {
                i += 1;
            }
        } else if c == '\'' || c == '"' || c == '`' {
            let mut s = String::new();
            i += 1;
            loop {
                match cs.get(i) {
                    None => return Err(format!("unterminated {c}quote{c}")),
                    Some(&x) if x == c && cs.get(i + 1) == Some(&c) => {
                        s.push(c);
                        i += 2;
                    }
                    Some(&x) if x == c => {
                        i += 1;
                        break;
                    }
                    Some(&'\\') if c != '`' => {
                        if let Some(&n) = cs.get(i + 1) {
                            s.push(n);
                        }
                        i += 2;
                    }
                    Some(&x) => {
                        s.push(x);
                        i += 1;
                    }
                }
            }
            out.push(if c == '`' {
                Tok::Word {
                    text: s,
                    quoted: true,
                }
            } else {
                Tok::Str(s)
            });
        } else if let Some(n) = digit_ident_len(&cs[i..]) {
            // An identifier that begins with digits (`1ea10`, `15298_1`).
            out.push(Tok::Word {
                text: cs[i..i + n].iter().collect(),
                quoted: false,
            });
            i += n;
        } else if c.is_ascii_digit() {
            let mut s = String::new();
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '.' || cs[i] == '_') {
                s.push(cs[i]);
                i += 1;
            }
            out.push(Tok::Num(s));
        } else if c.is_alphanumeric() || !c.is_ascii() || c == '_' || c == '$' || c == '@' {
            // Every non-ASCII character is an identifier character (sql_lex.cc's
            // `ident_map` for a multi-byte client character set).
            let mut s = String::new();
            while i < cs.len()
                && (cs[i].is_alphanumeric() || !cs[i].is_ascii() || "_$@#".contains(cs[i]))
            {
                s.push(cs[i]);
                i += 1;
            }
            out.push(Tok::Word {
                text: s,
                quoted: false,
            });
        } else {
            out.push(Tok::P(c));
            i += 1;
        }
    }
    Ok(out)
}

/// The length of the identifier at the start of `cs` when it begins with a digit and is
/// not a number (sql/sql_lex.cc, `lex_one_token`'s MY_LEX_NUMBER_IDENT: digits followed
/// by an identifier character make an identifier, unless they are a hexadecimal `0x..` /
/// binary `0b..` literal or a float's exponent `e[+-]digits`; `1e` followed by neither a
/// digit nor a sign and a digit is a name, as in main/create.test's `1ea10`, `1e`).
/// None when the text is a number (or does not begin with a digit).
fn digit_ident_len(cs: &[char]) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || !c.is_ascii() || c == '_' || c == '$';
    let digits = cs.iter().take_while(|c| c.is_ascii_digit()).count();
    let next = *cs.get(digits)?;
    if digits == 0 || !ident(next) || next.is_ascii_digit() {
        return None;
    }
    let end = digits + cs[digits..].iter().take_while(|c| ident(**c)).count();
    // (On chars, not bytes: a name may hold non-ASCII characters, `5天内`.)
    let radix = |p: char, ok: fn(char) -> bool| {
        end > 2
            && digits == 1
            && cs[0] == '0'
            && cs[1].eq_ignore_ascii_case(&p)
            && cs[2..end].iter().all(|c| ok(*c))
    };
    if radix('x', |c| c.is_ascii_hexdigit()) || radix('b', |c| c == '0' || c == '1') {
        return None;
    }
    if next == 'e' || next == 'E' {
        let mut j = digits + 1;
        if matches!(cs.get(j), Some('+' | '-')) {
            j += 1;
        }
        if cs.get(j).is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    Some(end)
}

/// A cursor over the tokens of one statement.
pub(super) struct Cur<'a> {
    pub(super) t: &'a [Tok],
    pub(super) i: usize,
    pub(super) sql: &'a str,
}

pub(super) fn kw_eq(t: &Tok, kw: &str) -> bool {
    matches!(t, Tok::Word { text, quoted: false } if text.eq_ignore_ascii_case(kw))
}

pub(super) fn kw_eq_at(toks: &[Tok], i: usize, kw: &str) -> bool {
    toks.get(i).is_some_and(|t| kw_eq(t, kw))
}

/// The index of the `)` that closes the `(` at `toks[open]`; None when none does. The one
/// parenthesis matcher of the classifier.
pub(super) fn matching_paren(toks: &[Tok], open: usize) -> Option<usize> {
    let mut depth = 0i64;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The value of an `ALGORITHM [=] x` / `LOCK [=] x` clause (the `=` is optional in the
/// server's grammar, `alter_algorithm_option` / `alter_lock_option` in MariaDB
/// `sql/sql_yacc.yy`: mysql-test writes `algorithm copy`).
pub(super) fn option_value(words: &[String], name: &str) -> Option<String> {
    let i = words.iter().position(|w| w == name)?;
    let v = match words.get(i + 1)?.as_str() {
        "=" => words.get(i + 2)?,
        v => words.get(i + 1).filter(|_| v != ",")?,
    };
    Some(v.clone())
}

/// `WAIT n` / `NOWAIT` anywhere in the statement.
pub(super) fn wait_clause(toks: &[Tok]) -> Result<Option<u64>, String> {
    for (i, t) in toks.iter().enumerate() {
        if kw_eq(t, "nowait") {
            return Ok(Some(0));
        }
        if kw_eq(t, "wait") {
            if let Some(Tok::Num(n)) = toks.get(i + 1) {
                return n
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("WAIT takes whole seconds, not `{n}`"));
            }
        }
    }
    Ok(None)
}

impl<'a> Cur<'a> {
    pub(super) fn peek(&self) -> Option<&'a Tok> {
        self.t.get(self.i)
    }
    pub(super) fn is_kw(t: Option<&Tok>, kw: &str) -> bool {
        matches!(t, Some(Tok::Word { text, quoted: false }) if text.eq_ignore_ascii_case(kw))
    }
    pub(super) fn at(&self, kw: &str) -> bool {
        Self::is_kw(self.peek(), kw)
    }
    pub(super) fn eat(&mut self, kw: &str) -> bool {
        if self.at(kw) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn eat_p(&mut self, p: char) -> bool {
        if self.peek() == Some(&Tok::P(p)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn expect(&mut self, kw: &str) -> Result<(), String> {
        if self.eat(kw) {
            Ok(())
        } else {
            Err(format!("expected `{kw}` in `{}`", self.sql))
        }
    }
    pub(super) fn done(&self) -> bool {
        self.i >= self.t.len()
    }
    /// An identifier (plain or quoted).
    pub(super) fn ident(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Tok::Word { text, .. }) => {
                self.i += 1;
                Ok(text.clone())
            }
            _ => Err(format!("expected a name in `{}`", self.sql)),
        }
    }
    /// `name` or `db.name`.
    pub(super) fn table(&mut self, db: &str) -> Result<Tbl, String> {
        let a = self.ident()?;
        if self.peek() == Some(&Tok::P('.')) {
            self.i += 1;
            let b = self.ident()?;
            Ok(Tbl { db: a, name: b })
        } else {
            Ok(Tbl {
                db: db.to_owned(),
                name: a,
            })
        }
    }
    /// The rest of the statement's words, lower case (for clause searches).
    pub(super) fn rest_words(&self) -> Vec<String> {
        self.t[self.i.min(self.t.len())..]
            .iter()
            .map(|t| match t {
                Tok::Word { text, .. } => text.to_ascii_lowercase(),
                Tok::Str(s) => format!("'{s}'"),
                Tok::Num(n) => n.clone(),
                Tok::P(c) => c.to_string(),
            })
            .collect()
    }
}

/// The statement's text again from its tokens (quoted names and strings escaped as the
/// server reads them), for a part of a statement that is classified on its own.
pub(super) fn render(t: &[Tok]) -> String {
    t.iter()
        .map(|x| match x {
            Tok::Word { text, quoted: true } => format!("`{}`", text.replace('`', "``")),
            Tok::Word { text, .. } | Tok::Num(text) => text.clone(),
            Tok::Str(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''")),
            Tok::P(c) => c.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_begin_with_digits() {
        let word = |t: &Tok, w: &str| matches!(t, Tok::Word { text, .. } if text == w);
        let t = tokens("select 1ea10.1a20, 1e+ 1e+10, 0x1A, 0b01, 15298_1 from 1ea10").unwrap();
        assert!(word(&t[1], "1ea10") && word(&t[3], "1a20"), "{t:?}");
        assert!(word(&t[5], "1e"), "{t:?}");
        assert!(t.contains(&Tok::Num("0x1A".into())) && t.contains(&Tok::Num("0b01".into())));
        assert!(t.iter().any(|x| word(x, "15298_1")));
        // Non-ASCII characters after the digits (a name, read on chars: no panic).
        let t = tokens("select 5天内最近一次登录时间").unwrap();
        assert!(word(&t[1], "5天内最近一次登录时间"), "{t:?}");
    }
}
