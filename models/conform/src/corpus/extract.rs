//! Statements of a mysqltest `*.test` file (MariaDB's test runner, client/mysqltest.cc):
//! the SQL it would send, without the runner's own commands.
//!
//! - `--cmd` lines and `#` comments are dropped (`--send` / `--eval` keep the statement
//!   that follows or that they carry; `--delimiter X` changes the delimiter);
//! - runner commands at the start of a statement are dropped up to their delimiter:
//!   `let`, `connection`, `connect`, `disconnect`, `echo`, `source`, `reap`, `sleep`, ...;
//!   `send X` and `eval X` keep `X`;
//! - `if (...) { ... }` and `while (...) { ... }` blocks are skipped whole, and so are
//!   `perl` / `write_file` / `append_file` blocks (up to their `EOF` line);
//! - `delimiter X` changes the delimiter; a statement runs to the delimiter, its lines
//!   joined with one space;
//! - a statement with a `$variable` is left out (its text is the runner's to make).

/// One statement and the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub line: usize,
    pub sql: String,
}

/// Runner commands (mysqltest.cc `command_names`) that end at the delimiter and send
/// nothing to the server.
const COMMANDS: &[&str] = &[
    "connection",
    "connect",
    "disconnect",
    "let",
    "echo",
    "source",
    "reap",
    "sleep",
    "real_sleep",
    "inc",
    "dec",
    "exit",
    "die",
    "skip",
    "error",
    "require",
    "system",
    "exec",
    "exec_in_background",
    "sync_slave_with_master",
    "sync_with_master",
    "save_master_pos",
    "wait_for_slave_to_stop",
    "replace_result",
    "replace_column",
    "replace_regex",
    "replace_numeric_round",
    "sorted_result",
    "partially_sorted_result",
    "query_vertical",
    "query_horizontal",
    "vertical_results",
    "horizontal_results",
    "result_format",
    "character_set",
    "disable_query_log",
    "enable_query_log",
    "disable_result_log",
    "enable_result_log",
    "disable_warnings",
    "enable_warnings",
    "disable_info",
    "enable_info",
    "disable_metadata",
    "enable_metadata",
    "disable_abort_on_error",
    "enable_abort_on_error",
    "disable_reconnect",
    "enable_reconnect",
    "disable_ps_protocol",
    "enable_ps_protocol",
    "disable_view_protocol",
    "enable_view_protocol",
    "disable_cursor_protocol",
    "enable_cursor_protocol",
    "disable_service_connection",
    "enable_service_connection",
    "disable_parsing",
    "enable_parsing",
    "disable_connect_log",
    "enable_connect_log",
    "disable_session_track_info",
    "enable_session_track_info",
    "disable_prepare_warnings",
    "enable_prepare_warnings",
    "disable_ps2_protocol",
    "enable_ps2_protocol",
    "start_timer",
    "end_timer",
    "ping",
    "change_user",
    "file_exists",
    "remove_file",
    "remove_files_wildcard",
    "copy_file",
    "copy_files_wildcard",
    "move_file",
    "chmod",
    "mkdir",
    "rmdir",
    "force-rmdir",
    "force-cpdir",
    "cat_file",
    "diff_files",
    "list_files",
    "list_files_write_file",
    "list_files_append_file",
    "output",
    "lowercase_result",
    "query_get_value",
    "send_quit",
    "send_shutdown",
    "shutdown_server",
    "send_eval",
    "dirty_close",
    "wait_for_pos",
    "result",
    "query_attributes",
];

/// Commands whose body runs to an `EOF` line (or the terminator they name).
const BLOCKS: &[&str] = &["perl", "write_file", "append_file", "write_line"];

fn first_word(s: &str) -> String {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The terminator of a `perl` / `write_file` block (`EOF` unless named).
fn block_end(rest: &str) -> String {
    let words: Vec<&str> = rest
        .trim_end_matches(';')
        .split_whitespace()
        .skip(1)
        .collect();
    match words.as_slice() {
        [_, t, ..] if !t.is_empty() => t.to_string(),
        _ => "EOF".into(),
    }
}

/// The statements of one `.test` file, in order.
pub fn extract(text: &str) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut delim = ";".to_string();
    let mut buf = String::new();
    let mut start = 0;
    let mut depth = 0usize; // inside if/while blocks
    let mut until: Option<String> = None; // inside a perl/write_file block
    let mut awaiting = false; // an `if (...)` whose `{` is on a later line
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(end) = &until {
            if line == end || line.trim_end_matches(';') == end {
                until = None;
            }
            continue;
        }
        if buf.is_empty() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let w = first_word(line);
            if depth > 0 {
                // The `{` of an `if (...)` line without one opens the block already counted.
                let opens = line.matches('{').count();
                depth += if awaiting && opens > 0 {
                    opens - 1
                } else {
                    opens
                };
                awaiting = false;
                depth = depth.saturating_sub(line.matches('}').count());
                continue;
            }
            if (w == "if" || w == "while") && line[w.len()..].trim_start().starts_with('(') {
                depth = line
                    .matches('{')
                    .count()
                    .saturating_sub(line.matches('}').count());
                if depth == 0 && !line.contains('}') {
                    depth = 1; // `{` on the next line
                    awaiting = true;
                }
                continue;
            }
            if line == "}" || line == "{" {
                continue;
            }
            if let Some(cmd) = line.strip_prefix("--") {
                let w = first_word(cmd);
                if w == "delimiter" {
                    delim = cmd[w.len()..].trim().to_string();
                } else if BLOCKS.contains(&w.as_str()) {
                    until = Some(block_end(cmd));
                } else if w == "send" || w == "eval" {
                    let rest = cmd[w.len()..].trim();
                    if !rest.is_empty() {
                        push(&mut out, n + 1, rest);
                    }
                }
                continue;
            }
            if w == "delimiter" {
                // `delimiter |;`: the command itself ends with the current delimiter.
                let d = line[w.len()..].trim();
                delim = d
                    .strip_suffix(delim.as_str())
                    .unwrap_or(d)
                    .trim()
                    .to_string();
                continue;
            }
            if BLOCKS.contains(&w.as_str()) {
                until = Some(block_end(line));
                continue;
            }
            start = n + 1;
        }
        if !buf.is_empty() && line.starts_with('#') {
            // A comment line inside a statement: the server skips it, and joined to
            // one line it would swallow the rest.
            continue;
        }
        if !buf.is_empty() {
            buf.push(' ');
        }
        let line = if quote_open(&buf) {
            line
        } else {
            without_line_comment(line)
        };
        buf.push_str(without_trailing_comment(line, &delim));
        // (A delimiter inside a quote left open ends nothing: mysqltest's read_line reads
        // on, so `prepare s from "` ... `select ...;` ... `";` is one command.)
        if let Some(whole) = buf
            .strip_suffix(delim.as_str())
            .filter(|_| !quote_open(&buf))
        {
            // mysqltest's read_line ends a command at the delimiter outside quotes: a
            // line `stmt; stmt;` is two commands.
            let parts: Vec<String> = split_at_delimiter(whole, &delim)
                .into_iter()
                .map(str::to_owned)
                .collect();
            buf.clear();
            for (i, stmt) in parts.into_iter().enumerate() {
                statement(&mut out, if i == 0 { start } else { n + 1 }, stmt.trim());
            }
        }
    }
    out
}

/// One command the runner sends (`send` / `eval` keep their statement; its own
/// commands send nothing).
fn statement(out: &mut Vec<Stmt>, line: usize, stmt: &str) {
    let w = first_word(stmt);
    let sql = if w == "send" || w == "eval" {
        stmt[w.len()..].trim()
    } else if COMMANDS.contains(&w.as_str()) {
        return;
    } else {
        stmt
    };
    if !sql.is_empty() {
        push(out, line, sql);
    }
}

/// The line without a `# comment` that follows a delimiter (`stmt; # why`): the runner
/// ends the command at the delimiter and reads the rest of the line as a comment.
fn without_trailing_comment<'a>(line: &'a str, delim: &str) -> &'a str {
    let b = line.as_bytes();
    let (mut quote, mut i) = (None, 0);
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == b'\\' && q != b'`' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, b'\'' | b'"' | b'`') => quote = Some(c),
            None if !delim.is_empty() && b[i..].starts_with(delim.as_bytes()) => {
                let end = i + delim.len();
                if line[end..].trim_start().starts_with('#') {
                    return &line[..end];
                }
                i = end;
                continue;
            }
            None => {}
        }
        i += 1;
    }
    line
}

/// The line without a `# ...` or `-- ...` comment that runs to its end (outside quotes):
/// the server's lexer skips such a comment up to the newline (`sql/sql_lex.cc`,
/// `Lex_input_stream::lex_one_token`, `MY_LEX_COMMENT` for `#`, and `--` followed by a
/// space or a control character), and the runner sends the statement with its newlines;
/// joined to one line, the comment would swallow the lines after it. A `#` inside a word
/// (`t#1`) is left.
fn without_line_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let (mut quote, mut i) = (None, 0);
    while i < b.len() {
        let c = b[i];
        let after_space = i == 0 || b[i - 1].is_ascii_whitespace() || b[i - 1] == b';';
        match quote {
            Some(q) if c == b'\\' && q != b'`' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, b'\'' | b'"' | b'`') => quote = Some(c),
            None if c == b'#' && after_space => return line[..i].trim_end(),
            None if c == b'-'
                && b.get(i + 1) == Some(&b'-')
                && b.get(i + 2)
                    .is_none_or(|x| x.is_ascii_whitespace() || x.is_ascii_control()) =>
            {
                return line[..i].trim_end()
            }
            None => {}
        }
        i += 1;
    }
    line
}

/// `text` cut at each `delim` outside quotes ('...', "...", `...`, with backslash
/// escapes in the first two); the whole text when a quote is left open (the runner's
/// reading of it is not modelled).
fn split_at_delimiter<'a>(text: &'a str, delim: &str) -> Vec<&'a str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut quote, mut from, mut i) = (None, 0, 0);
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == b'\\' && q != b'`' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, b'\'' | b'"' | b'`') => quote = Some(c),
            None if !delim.is_empty() && b[i..].starts_with(delim.as_bytes()) => {
                out.push(&text[from..i]);
                from = i + delim.len();
                i = from;
                continue;
            }
            None => {}
        }
        i += 1;
    }
    if quote.is_some() {
        return vec![text];
    }
    out.push(&text[from..]);
    out.retain(|s| !s.trim().is_empty());
    out
}

/// Whether `text` leaves a quote open (the quotes of `split_at_delimiter`).
fn quote_open(text: &str) -> bool {
    let b = text.as_bytes();
    let (mut quote, mut i) = (None, 0);
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == b'\\' && q != b'`' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, b'\'' | b'"' | b'`') => quote = Some(c),
            None => {}
        }
        i += 1;
    }
    quote.is_some()
}

fn push(out: &mut Vec<Stmt>, line: usize, sql: &str) {
    let sql = sql.trim().trim_end_matches(';').trim();
    if sql.is_empty() || sql.contains('$') {
        return;
    }
    out.push(Stmt {
        line,
        sql: sql.split_whitespace().collect::<Vec<_>>().join(" "),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqls(t: &str) -> Vec<String> {
        extract(t).into_iter().map(|s| s.sql).collect()
    }

    #[test]
    fn directives_are_dropped_and_statements_joined() {
        let t = "--source include/have_innodb.inc\n# a comment\nconnect (con1,localhost,root,,);\n\
                 connection con1;\nCREATE TABLE t1\n  (a INT);\n--error ER_NO_SUCH_TABLE\n\
                 SELECT * FROM nope;\nlet $x= 1;\nSELECT $x;\n--send\nDROP TABLE t1;\n\
                 --reap\nsend LOCK TABLES t1 READ;\nreap;\n";
        assert_eq!(
            sqls(t),
            vec![
                "CREATE TABLE t1 (a INT)",
                "SELECT * FROM nope",
                "DROP TABLE t1",
                "LOCK TABLES t1 READ"
            ]
        );
    }

    #[test]
    fn blocks_and_delimiters() {
        let t = "if ($a)\n{\n  SELECT 1;\n  if ($b) { SELECT 2; }\n}\nwhile ($i) {\nSELECT 3;\n}\n\
                 delimiter |;\nCREATE PROCEDURE p() BEGIN SELECT 1; END|\ndelimiter ;|\n\
                 --perl\nprint \"x;\";\nEOF\n--delimiter //\nSELECT 4//\n";
        assert_eq!(
            sqls(t),
            vec!["CREATE PROCEDURE p() BEGIN SELECT 1; END", "SELECT 4"]
        );
    }

    #[test]
    fn statements_on_one_line_are_split_at_the_delimiter() {
        let t = "lock tables t1 write; unlock tables;\nSELECT 'a;b', \"c;\\\"d\"; SELECT 2;\n\
                 delimiter |;\nSELECT 3| SELECT 4;5|\n";
        assert_eq!(
            sqls(t),
            vec![
                "lock tables t1 write",
                "unlock tables",
                "SELECT 'a;b', \"c;\\\"d\"",
                "SELECT 2",
                "SELECT 3",
                "SELECT 4;5"
            ]
        );
    }

    #[test]
    fn a_delimiter_inside_a_quote_ends_no_command() {
        let t = "prepare s from \"\nselect * from t1;\n\";\nexecute s;\n";
        assert_eq!(
            sqls(t),
            vec!["prepare s from \" select * from t1; \"", "execute s"]
        );
    }

    #[test]
    fn a_comment_after_the_delimiter_ends_the_line() {
        let t = "BACKUP UNLOCK; # Shouldn't trigger an assertion.\nDROP TABLE t1;\n\
                 SELECT '#'; # x\n";
        assert_eq!(
            sqls(t),
            vec!["BACKUP UNLOCK", "DROP TABLE t1", "SELECT '#'"]
        );
    }

    #[test]
    fn comment_lines_inside_a_statement_are_dropped() {
        let t = "delimiter |;\nCREATE PROCEDURE p() BEGIN\n# why\nSELECT 1;\nEND|\n";
        assert_eq!(sqls(t), vec!["CREATE PROCEDURE p() BEGIN SELECT 1; END"]);
    }

    #[test]
    fn comments_at_the_end_of_a_line_inside_a_statement_are_dropped() {
        // main/sp.test (h_se, hndlr4): the comment ends at the newline.
        let t = "delimiter |;\nCREATE PROCEDURE p() BEGIN -- why\nSELECT 1; # no hits\n\
                 SELECT '#', '-- x', a--1 FROM t#1;\nEND|\n";
        assert_eq!(
            sqls(t),
            vec!["CREATE PROCEDURE p() BEGIN SELECT 1; SELECT '#', '-- x', a--1 FROM t#1; END"]
        );
    }
}
