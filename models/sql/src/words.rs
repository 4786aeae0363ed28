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
    for c in sql.trim().trim_end_matches(';').chars() {
        match quote {
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
