//! Pass 2 of the parser: the steps (`SESSION: COMMAND`) and the top-level lines (`kill`,
//! `advance`, `expect`, `assert`), in file order; the lines pass 1 read are passed over.

use super::lex::{is_server_option, is_session_name, is_setup, split_step, SrcLine, StepSplit};
use super::prelude::is_server_line;
use super::{Parser, SETTINGS, TOP};
use crate::ast::{Command, Item, Line, ParseError, Pos};
use mdl_core::dialect::Dialect;
use std::collections::HashMap;

/// What pass 2 knows besides the line it reads.
pub(super) struct Body<'d> {
    pub(super) dialect: &'d Dialect,
    /// Each session name's index.
    pub(super) index: HashMap<&'d str, usize>,
    /// The line at which a session disconnected.
    gone: HashMap<usize, usize>,
}

impl<'d> Body<'d> {
    pub(super) fn new(dialect: &'d Dialect, sessions: &'d [String]) -> Body<'d> {
        let index = sessions
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), i))
            .collect();
        Body {
            dialect,
            index,
            gone: HashMap::new(),
        }
    }
}

impl Parser<'_> {
    /// Pass 2: every step and top-level line, in file order.
    pub(super) fn body(&self, b: &mut Body) -> Result<Vec<Line>, ParseError> {
        let mut out = Vec::new();
        for l in &self.lines {
            if l.toks.is_empty() {
                continue;
            }
            if let Some(line) = self.body_line(l, b)? {
                out.push(line);
            }
        }
        Ok(out)
    }

    /// One line of pass 2; `None` for a line pass 1 read.
    fn body_line(&self, l: &SrcLine, b: &mut Body) -> Result<Option<Line>, ParseError> {
        let pos = Pos {
            line: l.no,
            col: l.toks[0].col,
        };
        if split_step(&l.toks).is_some_and(|st| is_setup(&st))
            || is_server_line(l)
            || is_server_option(&l.toks)
        {
            return Ok(None); // pass 1
        }
        if let Some(st) = split_step(&l.toks) {
            let item = self.step(l, &st, b)?;
            return Ok(Some(Line { pos, item }));
        }
        let kw = l.toks[0].text.to_ascii_lowercase();
        if SETTINGS.contains(&kw.as_str()) {
            return Ok(None); // handled in pass 1
        }
        if !TOP.contains(&kw.as_str()) {
            return Err(self.err(
                l.no,
                l.toks[0].col,
                format!(
                    "expected `SESSION: COMMAND`, a setting or a top-level line (kill, \
                     advance, expect, assert), found `{}`",
                    l.toks[0].text
                ),
            ));
        }
        let item = self
            .top(b.dialect, &b.index, l, &kw)
            .map_err(|(c, m)| self.err(l.no, c, m))?;
        Ok(Some(Line { pos, item }))
    }

    /// A step `SESSION: COMMAND`.
    fn step(&self, l: &SrcLine, st: &StepSplit, b: &mut Body) -> Result<Item, ParseError> {
        let name = &st.name;
        if name.text.is_empty() {
            return Err(self.err(l.no, name.col, "expected a session name before `:`"));
        }
        if !is_session_name(&name.text) {
            return Err(self.err(
                l.no,
                name.col,
                format!(
                    "`{}` is not a session name (letters, digits and `_`, not \
                     starting with a digit)",
                    name.text
                ),
            ));
        }
        let session = b.index[name.text.as_str()];
        if let Some(at) = b.gone.get(&session) {
            return Err(self.err(
                l.no,
                name.col,
                format!(
                    "session `{}` disconnected at line {at}; it takes no further steps",
                    name.text
                ),
            ));
        }
        let end = st
            .cmd
            .last()
            .map(|t| t.end_col())
            .unwrap_or(name.end_col() + 1);
        let cmd = self
            .command(b.dialect, l, &st.cmd, end)
            .map_err(|(c, m)| self.err(l.no, c, m))?;
        if matches!(cmd, Command::Disconnect) {
            b.gone.insert(session, l.no);
        }
        Ok(Item::Step { session, cmd })
    }
}
