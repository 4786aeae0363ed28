//! `/* ... */` comments in a statement's text, read as MariaDB's lexer reads them
//! (`sql/sql_lex.cc`, `Lex_input_stream::lex_one_token`, `MY_LEX_LONG_COMMENT`): a plain
//! comment is skipped; an executable comment `/*! ... */` is read as code; a versioned one
//! `/*!NNNNN ... */` (five digits, or six when a sixth digit follows) is read as code when
//! its version is at most the server's (10.11.19: 101119), except MySQL's 5.7 to 9.x
//! versions (50700 ..= 99999), which MariaDB skips unless the comment is written
//! `/*M!NNNNN` (MDEV-5009; measured by main/comments.test). Used for stored programs'
//! definitions, whose bodies mysql-test comments (main/sp.test `proc_25411_a`/`_b`,
//! main/log_tables.test, main/signal.test).

/// The server's version as `/*!NNNNN` compares it (MYSQL_VERSION_ID of 10.11.19).
const VERSION_ID: u32 = 101_119;

/// `sql` with its block comments resolved, or None when it has none (outside quotes) or
/// one is not closed (the server's ER_PARSE_ERROR is then left to the reader).
pub(super) fn resolve(sql: &str) -> Option<String> {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let (mut quote, mut i, mut from, mut found) = (None, 0, 0, false);
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == b'\\' && q != b'`' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, b'\'' | b'"' | b'`') => quote = Some(c),
            None if c == b'/' && b.get(i + 1) == Some(&b'*') => {
                found = true;
                out.push_str(&sql[from..i]);
                let close = i + 2 + sql[i + 2..].find("*/")?;
                out.push(' ');
                if let Some(code) = executable(&sql[i + 2..close]) {
                    out.push_str(code);
                    out.push(' ');
                }
                i = close + 2;
                from = i;
                continue;
            }
            None => {}
        }
        i += 1;
    }
    if !found {
        return None;
    }
    out.push_str(&sql[from..]);
    Some(out)
}

/// The code of a comment's inside (the text between `/*` and `*/`), or None when the
/// server skips it.
fn executable(inside: &str) -> Option<&str> {
    let (mariadb, rest) = match inside.strip_prefix("M!") {
        Some(r) => (true, r),
        None => (false, inside.strip_prefix('!')?),
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits < 5 {
        return Some(rest);
    }
    let n = if digits >= 6 { 6 } else { 5 };
    let version: u32 = rest[..n].parse().ok()?;
    let mysql_only = !mariadb && (50_700..=99_999).contains(&version);
    (version <= VERSION_ID && !mysql_only).then(|| &rest[n..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_as_the_server_reads_them() {
        assert_eq!(resolve("select 1"), None);
        assert_eq!(resolve("select '/*' "), None);
        assert_eq!(resolve("select 1 /* x"), None);
        // main/sp.test proc_25411_b: p1, p2, not p3.
        let p = "(/* real comment */ /*! p1 int, */ /*!00000 p2 int */ /*!999999 ,p3 int */)";
        let r = resolve(p).unwrap();
        assert_eq!(
            r.split_whitespace().collect::<Vec<_>>().join(" "),
            "( p1 int, p2 int )"
        );
        // main/comments.result: 5.7 .. 9.x versions are MySQL's, unless M!.
        let one = |s: &str| {
            resolve(s)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(one("1 /*!50699 +1*/"), "1 +1");
        assert_eq!(one("1 /*!50700 +1*/"), "1");
        assert_eq!(one("1 /*M!50700 +1*/"), "1 +1");
        assert_eq!(one("1 /*!100000 +1*/"), "1 +1");
        assert_eq!(one("1 /*!110000 +1*/"), "1");
        assert_eq!(one("1/*!999992*/"), "1");
        assert_eq!(
            one("1 + /*!00000 2 */ + 3 /*!999999 noise*/ + 4"),
            "1 + 2 + 3 + 4"
        );
    }
}
