//! A statement's simple words, for the classifiers that read words rather than tokens
//! (the session statements, SHOW, accounts) and the model's session rules.

use crate::objects::Tbl;

/// Simple words of a statement: identifiers and keywords lower case (backticks and quotes
/// taken off), punctuation on its own.
pub(crate) fn words(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.is_empty() {
            out.push(std::mem::take(cur));
        }
    };
    let mut chars = sql.trim().trim_end_matches(';').chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            // A doubled quote inside a quoted name or string is the quote itself, and a
            // backslash escapes the next character of a string (sql/sql_lex.cc,
            // `Lex_input_stream::get_text` / `get_quoted_token`): `'O\'Brien'`,
            // `'x''y'`, `` `r``o` `` (main/grant5.test).
            Some(q) if c == q && chars.peek() == Some(&q) => {
                chars.next();
                cur.push(q);
            }
            Some(q) if c == '\\' && q != '`' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            Some(q) if c == q => {
                quote = None;
                flush(&mut cur, &mut out);
            }
            Some(_) => cur.push(c),
            None if c == '`' || c == '\'' || c == '"' => {
                flush(&mut cur, &mut out);
                quote = Some(c);
            }
            None if c.is_whitespace() => flush(&mut cur, &mut out),
            None if c.is_alphanumeric() || "_$#.".contains(c) => cur.push(c.to_ascii_lowercase()),
            None => {
                flush(&mut cur, &mut out);
                out.push(c.to_string());
            }
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// `schema.name` or `name` at `w[i]` (the words keep the dot inside a name).
pub(crate) fn table_at(w: &[String], i: usize, db: &str) -> Option<Tbl> {
    let x = w.get(i)?;
    if x.is_empty()
        || !x
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    {
        return None;
    }
    Some(match x.split_once('.') {
        Some((d, n)) => Tbl {
            db: d.to_owned(),
            name: n.to_owned(),
        },
        None => Tbl {
            db: db.to_owned(),
            name: x.clone(),
        },
    })
}
