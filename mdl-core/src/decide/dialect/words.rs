//! The words of a dialect file's line: split at white space, up to a `#` (a comment), each
//! with its 1-based column, so that every error can point at the word that is wrong.

/// A word of a line and its 1-based column (in characters).
#[derive(Clone, Debug)]
pub(super) struct Word {
    pub(super) text: String,
    pub(super) col: usize,
}

/// The words of a line up to a `#` (a comment), with their columns.
pub(super) fn words(raw: &str) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut cur: Option<Word> = None;
    for (i, c) in raw.chars().enumerate() {
        if c == '#' {
            break;
        }
        if c.is_whitespace() {
            if let Some(w) = cur.take() {
                out.push(w);
            }
        } else {
            match &mut cur {
                Some(w) => w.text.push(c),
                None => {
                    cur = Some(Word {
                        text: c.to_string(),
                        col: i + 1,
                    })
                }
            }
        }
    }
    out.extend(cur);
    out
}
