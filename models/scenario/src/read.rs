//! The one reader of scenario files. Every command that takes scenario files (`mdl run`,
//! `mdl check`, `mdl explore`, `mdl conform`) reads them with [`read_file`], so they all
//! take and refuse the same files, with the same messages:
//!
//! - The bytes must be UTF-8; a byte-order mark at the very start is accepted and
//!   skipped (columns do not count it). Anything else is an error at the line and column
//!   of the first bad byte.
//! - The same limits for every command, each named in its message: [`MAX_FILE_BYTES`],
//!   [`MAX_LINE_BYTES`], [`MAX_SESSIONS`], [`MAX_STEPS_PER_SESSION`], [`MAX_ASSERTS`],
//!   [`MAX_KILLS_PER_SESSION`] (the last three are what `mdl check`'s model can hold; `run`
//!   keeps to them so that a file one command takes the other takes too). Sessions are
//!   the exception: `mdl run` and `mdl conform` take up to [`MAX_SESSIONS`] (10,000: a
//!   server's connections, one thread each in `run`), and `mdl check` refuses a file
//!   with more sessions than its model can represent (64) with a message that says so
//!   (models/docs/scenario-format.md, "Sessions").
//! - Messages are cut to a readable length ([`cut_message`]: a quoted word of the file
//!   is shown up to [`MAX_QUOTED_CHARS`] characters, invisible characters are written as
//!   escapes), and an error at a position carries an excerpt of its line (at most
//!   [`EXCERPT_CHARS`] characters around the column) with the column marked by a caret.
//!
//! Nothing here panics, on any input.

use crate::parse::{parse_with, ParseOptions};
use crate::{Item, ParseError, Pos, Scenario};
use std::io::Read;
use std::path::Path;

/// A scenario file is at most 16 MiB.
pub const MAX_FILE_BYTES: usize = 16 << 20;
/// A line is at most 4 MiB (a bulk request of about 200,000 keys).
pub const MAX_LINE_BYTES: usize = 4 << 20;
/// At most 10,000 sessions in a file (`mdl run` plays each on a thread of its own;
/// `mdl check` takes fewer, see `mdl_check::model::MAX_SESSIONS`).
pub const MAX_SESSIONS: usize = 10_000;
/// At most 65,535 steps for one session.
pub const MAX_STEPS_PER_SESSION: usize = u16::MAX as usize;
/// At most 64 `assert` lines in a file.
pub const MAX_ASSERTS: usize = 64;
/// At most 255 `kill` lines naming one session.
pub const MAX_KILLS_PER_SESSION: usize = u8::MAX as usize;
/// A word of the file quoted in a message shows at most this many characters.
pub const MAX_QUOTED_CHARS: usize = 60;
/// A message is at most this many characters.
pub const MAX_MESSAGE_CHARS: usize = 400;
/// An excerpt shows at most this many characters of its line.
pub const EXCERPT_CHARS: usize = 80;

/// Why a file was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadErrorKind {
    /// It could not be read (missing, a folder, no permission): status `error`.
    Unreadable,
    /// It is not a valid scenario: status `invalid`.
    Invalid,
}

/// A refused file: `FILE:LINE:COL: message` (`FILE: message` without a position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub kind: ReadErrorKind,
    pub file: String,
    pub pos: Option<Pos>,
    /// Cut to a readable length ([`cut_message`]).
    pub msg: String,
    /// The offending line around the column and a caret under the column, two lines
    /// (for text output; JSON output has the position instead).
    pub excerpt: Option<String>,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pos {
            Some(p) => write!(f, "{}:{}:{}: {}", self.file, p.line, p.col, self.msg),
            None => write!(f, "{}: {}", self.file, self.msg),
        }
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    /// The message and, below it, the excerpt with the column marked.
    pub fn render(&self) -> String {
        match &self.excerpt {
            Some(x) => format!("{self}\n{x}"),
            None => self.to_string(),
        }
    }

    fn unreadable(file: &str, msg: String) -> ReadError {
        ReadError {
            kind: ReadErrorKind::Unreadable,
            file: file.to_owned(),
            pos: None,
            msg: cut_message(&msg),
            excerpt: None,
        }
    }

    fn invalid(file: &str, pos: Option<Pos>, msg: String, text: Option<&str>) -> ReadError {
        ReadError {
            kind: ReadErrorKind::Invalid,
            file: file.to_owned(),
            pos,
            msg: cut_message(&msg),
            excerpt: pos.and_then(|p| text.and_then(|t| excerpt(t, p))),
        }
    }
}

/// A scenario and the text it was read from (for excerpts of later errors).
#[derive(Clone, Debug)]
pub struct ScenarioFile {
    pub scenario: Scenario,
    /// The file's text, without its byte-order mark.
    pub text: String,
}

impl ScenarioFile {
    /// An error found later at a position of this file (a step for a session still
    /// waiting, a limit of a command), ready to print.
    pub fn error(&self, e: &ParseError) -> ReadError {
        ReadError::invalid(&e.file, Some(e.pos), e.msg.clone(), Some(&self.text))
    }
}

/// Reads and parses the scenario file at `path` (its name in messages: the path as
/// given).
pub fn read_file(path: &Path) -> Result<ScenarioFile, ReadError> {
    read_file_with(path, &ParseOptions::default())
}

/// [`read_file`] with what the command line adds (`--dialect`).
pub fn read_file_with(path: &Path, opts: &ParseOptions) -> Result<ScenarioFile, ReadError> {
    let name = path.display().to_string();
    let bytes = read_bytes_of(&name, path)?;
    read_bytes_with(&name, &bytes, opts)
}

/// The file's bytes, refusing folders and anything over [`MAX_FILE_BYTES`] before
/// reading it all.
fn read_bytes_of(name: &str, path: &Path) -> Result<Vec<u8>, ReadError> {
    let f = std::fs::File::open(path)
        .map_err(|e| ReadError::unreadable(name, format!("cannot read the file: {e}")))?;
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(ReadError::unreadable(
            name,
            "cannot read the file: it is a folder".into(),
        ));
    }
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::unreadable(name, format!("cannot read the file: {e}")))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(ReadError::invalid(
            name,
            None,
            format!(
                "the file is bigger than the limit of {} ({} bytes)",
                mib(MAX_FILE_BYTES),
                thousands(MAX_FILE_BYTES)
            ),
            None,
        ));
    }
    Ok(bytes)
}

/// Reads and parses scenario bytes; `name` names them in messages.
pub fn read_bytes(name: &str, bytes: &[u8]) -> Result<ScenarioFile, ReadError> {
    read_bytes_with(name, bytes, &ParseOptions::default())
}

/// [`read_bytes`] with what the command line adds (`--dialect`).
pub fn read_bytes_with(
    name: &str,
    bytes: &[u8],
    opts: &ParseOptions,
) -> Result<ScenarioFile, ReadError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(ReadError::invalid(
            name,
            None,
            format!(
                "the file is bigger than the limit of {} ({} bytes)",
                mib(MAX_FILE_BYTES),
                thousands(MAX_FILE_BYTES)
            ),
            None,
        ));
    }
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            // The valid prefix is UTF-8 by definition.
            let prefix = std::str::from_utf8(good).unwrap_or_default();
            let line = prefix.matches('\n').count() + 1;
            let col = prefix.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            let bad = bytes.get(e.valid_up_to()).copied().unwrap_or(0);
            let pos = Pos { line, col };
            let shown = String::from_utf8_lossy(bytes);
            return Err(ReadError::invalid(
                name,
                Some(pos),
                format!(
                    "the file is not UTF-8: byte 0x{bad:02X} (offset {}) is not valid UTF-8 \
                     text; scenario files must be UTF-8",
                    e.valid_up_to()
                ),
                Some(&shown),
            ));
        }
    };
    for (i, line) in text.split('\n').enumerate() {
        if line.len() > MAX_LINE_BYTES {
            let mut end = MAX_LINE_BYTES;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            let pos = Pos {
                line: i + 1,
                col: line[..end].chars().count() + 1,
            };
            return Err(ReadError::invalid(
                name,
                Some(pos),
                format!(
                    "the line is longer than the limit of {} ({} bytes): {} bytes",
                    mib(MAX_LINE_BYTES),
                    thousands(MAX_LINE_BYTES),
                    thousands(line.len())
                ),
                Some(text),
            ));
        }
    }
    let sc = parse_with(name, text, opts)
        .map_err(|e| ReadError::invalid(&e.file, Some(e.pos), e.msg, Some(text)))?;
    check_limits(&sc).map_err(|e| ReadError::invalid(&e.file, Some(e.pos), e.msg, Some(text)))?;
    Ok(ScenarioFile {
        scenario: sc,
        text: text.to_owned(),
    })
}

/// The limits on a parsed scenario: sessions, steps per session, asserts, kills per
/// session. The error is at the first line past a limit.
pub fn check_limits(sc: &Scenario) -> Result<(), ParseError> {
    let n = sc.sessions.len();
    let mut steps = vec![0usize; n];
    let mut kills = vec![0usize; n];
    let mut asserts = 0usize;
    let err = |pos: Pos, msg: String| ParseError {
        file: sc.file.clone(),
        pos,
        msg,
    };
    for l in &sc.lines {
        match &l.item {
            Item::Step { session, .. } => {
                let s = *session;
                if s >= MAX_SESSIONS {
                    return Err(err(
                        l.pos,
                        format!(
                            "too many sessions: `{}` is session {}, the limit is {}",
                            sc.sessions[s],
                            thousands(s + 1),
                            thousands(MAX_SESSIONS)
                        ),
                    ));
                }
                steps[s] += 1;
                if steps[s] > MAX_STEPS_PER_SESSION {
                    return Err(err(
                        l.pos,
                        format!(
                            "too many steps for session `{}`: the limit is {} steps per \
                             session",
                            sc.sessions[s],
                            thousands(MAX_STEPS_PER_SESSION)
                        ),
                    ));
                }
            }
            Item::Kill { session } => {
                let s = *session;
                kills[s] += 1;
                if kills[s] > MAX_KILLS_PER_SESSION {
                    return Err(err(
                        l.pos,
                        format!(
                            "too many `kill` lines for session `{}`: the limit is \
                             {MAX_KILLS_PER_SESSION} per session",
                            sc.sessions[s]
                        ),
                    ));
                }
            }
            Item::Assert { .. } => {
                asserts += 1;
                if asserts > MAX_ASSERTS {
                    return Err(err(
                        l.pos,
                        format!("too many `assert` lines: the limit is {MAX_ASSERTS} per file"),
                    ));
                }
            }
            Item::Advance { .. } | Item::Expect { .. } => {}
        }
    }
    Ok(())
}

/// `16 MiB`.
fn mib(n: usize) -> String {
    format!("{} MiB", n >> 20)
}

/// `16,777,216`: a count for people (the reader's limits, the checker's state counts).
pub fn thousands<N: ToString>(n: N) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A character a terminal shows as nothing (or that moves the cursor).
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}'
            | '\u{17B5}' | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}' | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{206F}'
            | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}' | '\u{E0000}'..='\u{E0FFF}')
}

/// A message made readable: each word of the file it quotes (between backticks) shows at
/// most [`MAX_QUOTED_CHARS`] characters (then `…`), invisible characters are written as
/// `\u{XXXX}` escapes, and the whole is at most [`MAX_MESSAGE_CHARS`] characters.
pub fn cut_message(msg: &str) -> String {
    let mut out = String::new();
    for (i, part) in msg.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let quoted = i % 2 == 1;
        for (shown, c) in part.chars().enumerate() {
            if quoted && shown == MAX_QUOTED_CHARS {
                out.push('…');
                break;
            }
            if invisible(c) {
                out.push_str(&format!("\\u{{{:04X}}}", c as u32));
            } else {
                out.push(c);
            }
        }
    }
    if out.chars().count() > MAX_MESSAGE_CHARS {
        out = out.chars().take(MAX_MESSAGE_CHARS - 1).collect();
        out.push('…');
    }
    out
}

/// Line `pos.line` of `text` around column `pos.col` (at most [`EXCERPT_CHARS`]
/// characters, `…` where it is cut), and a caret under the column:
///
/// ```text
///     3 | s1: acquire TABLE a.b Q
///       |                       ^
/// ```
pub fn excerpt(text: &str, pos: Pos) -> Option<String> {
    let line = text.split('\n').nth(pos.line.checked_sub(1)?)?;
    let line = line.strip_suffix('\r').unwrap_or(line);
    let chars: Vec<char> = line.chars().collect();
    let col = pos.col.max(1) - 1; // 0-based, may be the end of the line
    let before = EXCERPT_CHARS * 2 / 3;
    let start = if chars.len() <= EXCERPT_CHARS {
        0
    } else {
        col.saturating_sub(before)
            .min(chars.len().saturating_sub(EXCERPT_CHARS))
    };
    let end = (start + EXCERPT_CHARS).min(chars.len());
    let mut shown = String::new();
    if start > 0 {
        shown.push('…');
    }
    for &c in &chars[start..end] {
        shown.push(if c == '\t' {
            ' '
        } else if invisible(c) {
            '?'
        } else {
            c
        });
    }
    if end < chars.len() {
        shown.push('…');
    }
    let caret = usize::from(start > 0) + col.clamp(start, end) - start;
    let no = pos.line.to_string();
    let pad = " ".repeat(no.len());
    Some(format!(
        "  {no} | {shown}\n  {pad} | {}^",
        " ".repeat(caret)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(bytes: &[u8]) -> ReadError {
        read_bytes("t.mdl", bytes).expect_err("refused")
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let f = read_bytes("t.mdl", b"\xEF\xBB\xBFs1: acquire TABLE a.b SR\n").expect("read");
        assert_eq!(f.scenario.lines.len(), 1);
        assert_eq!(f.scenario.lines[0].pos, Pos { line: 1, col: 1 });
        // A bad word after a mark is reported at the column without the mark.
        let e = err(b"\xEF\xBB\xBFs1: acquire TABLE a.b Q\n");
        assert_eq!(e.pos, Some(Pos { line: 1, col: 23 }));
    }

    #[test]
    fn invalid_utf8_is_refused_at_its_position() {
        let e = err(b"s1: commit\ns2: acquire TABLE a.\xFF SR\n");
        assert_eq!(e.kind, ReadErrorKind::Invalid);
        assert_eq!(e.pos, Some(Pos { line: 2, col: 21 }));
        assert!(e.msg.contains("not UTF-8") && e.msg.contains("0xFF"), "{e}");
        assert!(e.to_string().starts_with("t.mdl:2:21: "), "{e}");
    }

    #[test]
    fn a_mark_elsewhere_is_shown_as_an_escape() {
        let e = err("s1: acquire TABLE a.b \u{feff}SR\n".as_bytes());
        assert!(e.msg.contains("\\u{FEFF}"), "{e}");
        assert!(!e.msg.contains('\u{feff}'), "{e}");
    }

    #[test]
    fn long_words_are_cut_and_the_column_marked() {
        let long = "x".repeat(100_000);
        let text = format!("s1: acquire TABLE a.b {long}\n");
        let e = err(text.as_bytes());
        assert!(e.msg.len() < MAX_MESSAGE_CHARS * 4, "{} bytes", e.msg.len());
        assert!(e.msg.contains('…'), "{e}");
        let x = e.excerpt.as_deref().expect("an excerpt");
        assert!(x.len() < 400, "{x}");
        let mut lines = x.lines();
        let (a, b) = (lines.next().expect("line"), lines.next().expect("caret"));
        // The caret is under the first `x`.
        let at = b.find('^').expect("caret");
        assert_eq!(a.chars().nth(b[..at].chars().count()), Some('x'), "{x}");
        assert!(a.starts_with("  1 | s1: acquire TABLE a.b x"), "{x}");
    }

    #[test]
    fn the_caret_follows_the_column_on_a_long_line() {
        let text = format!(
            "s1: acquire_all {} TABLE a.b Q\n",
            "TABLE a.k SR, ".repeat(50)
        );
        let e = err(text.as_bytes());
        let x = e.excerpt.expect("excerpt");
        let mut lines = x.lines();
        let (a, b) = (lines.next().expect("line"), lines.next().expect("caret"));
        let at = b[..b.find('^').expect("caret")].chars().count();
        let under: String = a.chars().skip(at).take(1).collect();
        assert_eq!(under, "Q", "{x}");
        assert!(a.starts_with("  1 | …"), "{x}");
    }

    #[test]
    fn limits_are_named_in_their_messages() {
        let mut text = String::new();
        for s in 0..=MAX_SESSIONS {
            text.push_str(&format!("s{s}: commit\n"));
        }
        let e = err(text.as_bytes());
        assert_eq!(e.pos.map(|p| p.line), Some(MAX_SESSIONS + 1));
        assert!(e.msg.contains("the limit is 10,000"), "{e}");

        let text = "s1: commit\n".repeat(MAX_STEPS_PER_SESSION + 1);
        let e = err(text.as_bytes());
        assert_eq!(e.pos.map(|p| p.line), Some(MAX_STEPS_PER_SESSION + 1));
        assert!(
            e.msg.contains("the limit is 65,535 steps per session"),
            "{e}"
        );

        let text = format!("s1: commit\n{}", "assert never s1 busy\n".repeat(65));
        assert!(err(text.as_bytes()).msg.contains("the limit is 64"));

        let text = format!("s1: commit\n{}", "kill s1\n".repeat(256));
        assert!(err(text.as_bytes()).msg.contains("the limit is 255"));

        let big = vec![b'#'; MAX_FILE_BYTES + 1];
        let e = err(&big);
        assert_eq!(e.pos, None);
        assert!(e.msg.contains("16 MiB (16,777,216 bytes)"), "{e}");

        let long = format!("# {}\n", "y".repeat(MAX_LINE_BYTES));
        let e = err(long.as_bytes());
        assert_eq!(e.pos.map(|p| p.line), Some(1));
        assert!(e.msg.contains("4 MiB (4,194,304 bytes)"), "{e}");
        assert!(e.excerpt.is_some_and(|x| x.len() < 400));
    }

    #[test]
    fn missing_files_and_folders_are_unreadable() {
        let e = read_file(Path::new("/nonexistent/x.mdl")).expect_err("missing");
        assert_eq!(e.kind, ReadErrorKind::Unreadable);
        assert_eq!(e.pos, None);
        let e = read_file(Path::new(env!("CARGO_MANIFEST_DIR"))).expect_err("a folder");
        assert_eq!(e.kind, ReadErrorKind::Unreadable);
    }

    #[test]
    fn cut_message_keeps_short_messages() {
        assert_eq!(
            cut_message("expected `x`, found `y`"),
            "expected `x`, found `y`"
        );
        let m = cut_message(&format!("found `{}`", "z".repeat(500)));
        assert_eq!(m.chars().count(), "found ``".len() + MAX_QUOTED_CHARS + 1);
    }
}
