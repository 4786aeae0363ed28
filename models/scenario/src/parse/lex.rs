//! The words of a scenario line: splitting a line into words (with their columns), the
//! step line's `NAME:` split, the comma split of `acquire_all`, a statement's words
//! consumed left to right, and the verbatim text of a `sql` step.

/// A word of a line: its text and 1-based column (in characters).
#[derive(Clone, Debug)]
pub(super) struct Word {
    pub(super) text: String,
    pub(super) col: usize,
    /// Byte offset of the word in its line.
    pub(super) off: usize,
}

impl Word {
    pub(super) fn end_col(&self) -> usize {
        self.col + self.text.chars().count()
    }
}

pub(super) struct SrcLine<'a> {
    pub(super) no: usize,
    pub(super) raw: &'a str,
    pub(super) toks: Vec<Word>,
    /// Column just after the last word (where "end of line" is reported).
    pub(super) end_col: usize,
}

/// Splits a line into words: spaces, tabs and carriage returns separate words outside
/// backticks; `#` outside backticks starts a comment.
pub(super) fn tokenize(raw: &str) -> (Vec<Word>, usize) {
    let mut toks = Vec::new();
    let mut cur: Option<Word> = None;
    let mut in_tick = false;
    let mut end_col = 1usize;
    for (i, (off, c)) in raw.char_indices().enumerate() {
        let col = i + 1;
        if !in_tick && c == '#' {
            break;
        }
        if !in_tick && (c == ' ' || c == '\t' || c == '\r') {
            if let Some(t) = cur.take() {
                end_col = t.end_col();
                toks.push(t);
            }
            continue;
        }
        if c == '`' {
            in_tick = !in_tick;
        }
        match &mut cur {
            Some(t) => t.text.push(c),
            None => {
                cur = Some(Word {
                    text: c.to_string(),
                    col,
                    off,
                })
            }
        }
    }
    if let Some(t) = cur.take() {
        end_col = t.end_col();
        toks.push(t);
    }
    (toks, end_col)
}

/// Splits words on commas outside backticks; each comma becomes a word of its own.
pub(super) fn split_commas(toks: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    for t in toks {
        let mut in_tick = false;
        let mut cur: Option<Word> = None;
        for (i, (boff, c)) in t.text.char_indices().enumerate() {
            if c == '`' {
                in_tick = !in_tick;
            }
            if c == ',' && !in_tick {
                if let Some(x) = cur.take() {
                    out.push(x);
                }
                out.push(Word {
                    text: ",".into(),
                    col: t.col + i,
                    off: t.off + boff,
                });
                continue;
            }
            match &mut cur {
                Some(x) => x.text.push(c),
                None => {
                    cur = Some(Word {
                        text: c.to_string(),
                        col: t.col + i,
                        off: t.off + boff,
                    })
                }
            }
        }
        if let Some(x) = cur.take() {
            out.push(x);
        }
    }
    out
}

/// `server_option ...` (version 5): not a step (`server_option: ...` is one).
pub(super) fn is_server_option(toks: &[Word]) -> bool {
    toks[0].text.eq_ignore_ascii_case("server_option") && split_step(toks).is_none()
}

/// `setup: sql ...`: a setup line, not a step of a session named `setup`.
pub(super) fn is_setup(st: &StepSplit) -> bool {
    st.name.text == "setup"
        && st
            .cmd
            .first()
            .is_some_and(|t| t.text.eq_ignore_ascii_case("sql"))
}

pub(super) fn is_session_name(s: &str) -> bool {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A step line split into its session name and command words.
pub(super) struct StepSplit {
    pub(super) name: Word,
    pub(super) cmd: Vec<Word>,
}

/// Recognises `NAME: ...`, `NAME :...`, `NAME:...`. Returns None for other lines.
pub(super) fn split_step(toks: &[Word]) -> Option<StepSplit> {
    let first = toks.first()?;
    if let Some(i) = first.text.find(':') {
        let name = Word {
            text: first.text[..i].to_owned(),
            col: first.col,
            off: first.off,
        };
        let mut cmd = Vec::new();
        let rest = &first.text[i + 1..];
        if !rest.is_empty() {
            cmd.push(Word {
                text: rest.to_owned(),
                col: first.col + first.text[..=i].chars().count(),
                off: first.off + i + 1,
            });
        }
        cmd.extend(toks[1..].iter().cloned());
        return Some(StepSplit { name, cmd });
    }
    let second = toks.get(1)?;
    let rest = second.text.strip_prefix(':')?;
    let mut cmd = Vec::new();
    if !rest.is_empty() {
        cmd.push(Word {
            text: rest.to_owned(),
            col: second.col + 1,
            off: second.off + 1,
        });
    }
    cmd.extend(toks[2..].iter().cloned());
    Some(StepSplit {
        name: first.clone(),
        cmd,
    })
}

/// The words of one statement, consumed left to right.
pub(super) struct Words<'t> {
    pub(super) toks: &'t [Word],
    pub(super) i: usize,
    pub(super) end_col: usize,
}

impl<'t> Words<'t> {
    pub(super) fn peek(&self) -> Option<&'t Word> {
        self.toks.get(self.i)
    }
    pub(super) fn next(&mut self) -> Option<&'t Word> {
        let t = self.toks.get(self.i);
        if t.is_some() {
            self.i += 1;
        }
        t
    }
    /// The column where a missing word is reported.
    pub(super) fn here(&self) -> usize {
        match self.toks.get(self.i) {
            Some(t) => t.col,
            None => self
                .toks
                .last()
                .map(|t| t.end_col())
                .unwrap_or(self.end_col),
        }
    }
}

pub(super) type PResult<T> = Result<T, (usize, String)>;

pub(super) fn found(t: Option<&Word>) -> String {
    match t {
        Some(t) => format!("`{}`", t.text),
        None => "end of line".into(),
    }
}

/// The rest of `raw` from byte `from`, up to a `#` outside quotes, trimmed.
pub(super) fn sql_text(raw: &str, from: usize) -> String {
    let rest = raw.get(from..).unwrap_or("");
    let mut quote: Option<char> = None;
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' || c == '`' => quote = Some(c),
            None if c == '#' => {
                end = i;
                break;
            }
            None => {}
        }
    }
    rest[..end].trim().to_owned()
}
