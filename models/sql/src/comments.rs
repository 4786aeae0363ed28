//! A statement's `/* ... */` comments as the server's lexer reads them (MariaDB
//! `sql/sql_lex.cc`, `Lex_input_stream::lex_one_token`, states `MY_LEX_COMMENT_START` and
//! `MY_LEX_END_LONG_COMMENT`): mysqltest sends a statement with its comments, the server
//! skips a plain comment and runs the body of an executable one (`/*! ... */`,
//! `/*!NNNNN ... */` when NNNNN is at most its version, `/*M!NNNNN ... */`) as code. The
//! classifier reads the code that is left ([`code`]).
//!
//! The rules, from `lex_one_token`:
//! - `/*!` or `/*M!` not followed by five digits: the body is code (`select 1 /*M! +1 */`
//!   is 2; `/*M!0000 +1 */` runs `0000 +1`, a parse error: main/comments.result);
//! - five or six digits: code when the version is at most `MYSQL_VERSION_ID` and, for
//!   `/*!`, not a MySQL 5.7+ version (50700..=99999, MDEV-5009); otherwise the whole
//!   comment is skipped, and it may hold one level of `/* */` inside (`consume_comment`
//!   with `remove_comment`);
//! - a plain comment ends at the first `*/` (no nesting);
//! - the `*/` that closes an executable comment is dropped;
//! - `#` and `-- ` comments run to the end of the line, quotes are left as they are.
//!
//! A comment that does not end is the lexer's ABORT_SYM (a parse error): [`code`] leaves
//! such a statement alone, and the classifier says what it does with it.

/// MariaDB 10.11.19's `MYSQL_VERSION_ID` (the harness's server).
pub const SERVER_VERSION_ID: u64 = 101_119;

/// The statement as the parser sees it: comments dropped (each one a space), the bodies
/// of executable comments kept. None when there is no `/*` outside quotes, or a comment
/// does not end.
pub fn code(sql: &str) -> Option<String> {
    let cs: Vec<char> = sql.chars().collect();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    let mut changed = false;
    // Inside the body of an executable comment: its `*/` is dropped.
    let mut in_code = false;
    while i < cs.len() {
        let c = cs[i];
        match c {
            '\'' | '"' | '`' => i = copy_quoted(&cs, i, &mut out),
            '#' => i = copy_line(&cs, i, &mut out),
            '-' if cs.get(i + 1) == Some(&'-')
                && cs
                    .get(i + 2)
                    .is_none_or(|x| x.is_whitespace() || x.is_control()) =>
            {
                i = copy_line(&cs, i, &mut out)
            }
            '*' if in_code && cs.get(i + 1) == Some(&'/') => {
                in_code = false;
                out.push(' ');
                i += 2;
            }
            '/' if cs.get(i + 1) == Some(&'*') => {
                changed = true;
                let (next, body) = comment(&cs, i)?;
                out.push(' ');
                if body {
                    in_code = true;
                }
                i = next;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    (changed && !in_code).then_some(out)
}

/// The comment that starts at `cs[i]` (`/*`): where reading goes on, and whether what
/// follows is the body of an executable comment (code up to its `*/`). None when it does
/// not end.
fn comment(cs: &[char], i: usize) -> Option<(usize, bool)> {
    let mut j = i + 2;
    let maria = cs.get(j) == Some(&'M') && cs.get(j + 1) == Some(&'!');
    if maria {
        j += 1;
    }
    if cs.get(j) != Some(&'!') {
        return Some((plain_end(cs, i + 2, false)?, false));
    }
    j += 1;
    let digits = cs[j.min(cs.len())..]
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits < 5 {
        return Some((j, true));
    }
    let version: u64 = cs[j..j + digits].iter().collect::<String>().parse().ok()?;
    if version <= SERVER_VERSION_ID && (!(50_700..=99_999).contains(&version) || maria) {
        return Some((j + digits, true));
    }
    Some((plain_end(cs, j + digits, true)?, false))
}

/// Where a skipped comment whose text starts at `cs[j]` ends (after its `*/`); with
/// `one_level`, a `/* */` inside it is skipped too (`consume_comment(lip, 1)`).
fn plain_end(cs: &[char], mut j: usize, one_level: bool) -> Option<usize> {
    let mut depth = 0;
    while j + 1 < cs.len() {
        if one_level && cs[j] == '/' && cs[j + 1] == '*' {
            depth += 1;
            j += 2;
        } else if cs[j] == '*' && cs[j + 1] == '/' {
            j += 2;
            if depth == 0 {
                return Some(j);
            }
            depth -= 1;
        } else {
            j += 1;
        }
    }
    None
}

/// Copies the quoted string, name or identifier at `cs[i]`; where it ends.
fn copy_quoted(cs: &[char], i: usize, out: &mut String) -> usize {
    let q = cs[i];
    out.push(q);
    let mut j = i + 1;
    while j < cs.len() {
        out.push(cs[j]);
        if cs[j] == '\\' && q != '`' {
            if let Some(&n) = cs.get(j + 1) {
                out.push(n);
            }
            j += 2;
            continue;
        }
        j += 1;
        if cs[j - 1] == q {
            if cs.get(j) == Some(&q) {
                out.push(q);
                j += 1;
                continue;
            }
            break;
        }
    }
    j
}

/// Copies a comment that runs to the end of the line.
fn copy_line(cs: &[char], mut i: usize, out: &mut String) -> usize {
    while i < cs.len() && cs[i] != '\n' {
        out.push(cs[i]);
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::code;

    #[test]
    fn comments_as_the_lexer_reads_them() {
        let c = |s: &str| code(s).map(|x| x.split_whitespace().collect::<Vec<_>>().join(" "));
        assert_eq!(c("select 1"), None);
        assert_eq!(c("/* x */ select 1").as_deref(), Some("select 1"));
        assert_eq!(c("/* line with only comment */").as_deref(), Some(""));
        assert_eq!(c("select 1 /*!32301 +1 */").as_deref(), Some("select 1 +1"));
        assert_eq!(c("select 1 /*!952301 +1 */").as_deref(), Some("select 1"));
        assert_eq!(c("SELECT 1 /*!50700 +1*/").as_deref(), Some("SELECT 1"));
        assert_eq!(c("SELECT 1 /*M!50700 +1*/").as_deref(), Some("SELECT 1 +1"));
        assert_eq!(
            c("select 2 /*M!0000 +1 */").as_deref(),
            Some("select 2 0000 +1")
        );
        assert_eq!(
            c("/*!50003 CREATE PROCEDURE `p`() select 42 */").as_deref(),
            Some("CREATE PROCEDURE `p`() select 42")
        );
        assert_eq!(
            c("select '/* no */' /* yes */").as_deref(),
            Some("select '/* no */'")
        );
        assert_eq!(c("select 1 /* not closed"), None);
        assert_eq!(
            c("select 1 /*!99999 a /* b */ c */, 2").as_deref(),
            Some("select 1 , 2")
        );
        assert_eq!(c("select 1 -- /* x\n, 2"), None);
    }

    #[test]
    fn stored_program_comments_read_as_the_server_does() {
        assert_eq!(code("select 1"), None);
        assert_eq!(code("select '/*' "), None);
        assert_eq!(code("select 1 /* x"), None);
        // (The cases of the stored-program reader, h-rbody.) main/sp.test proc_25411_b: p1, p2, not p3.
        let p = "(/* real comment */ /*! p1 int, */ /*!00000 p2 int */ /*!999999 ,p3 int */)";
        let r = code(p).unwrap();
        assert_eq!(
            r.split_whitespace().collect::<Vec<_>>().join(" "),
            "( p1 int, p2 int )"
        );
        // main/comments.result: 5.7 .. 9.x versions are MySQL's, unless M!.
        let one = |s: &str| {
            code(s)
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
