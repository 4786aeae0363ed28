//! Pass 1 of the parser: what the lines before the first step set (settings,
//! `server_option`, `setup: sql`, `server`), and the session names in the order of their
//! first step.

use super::lex::{is_server_option, is_session_name, is_setup, split_step, sql_text, SrcLine};
use super::{DialectChoice, Parser, SETTINGS};
use crate::ast::{ParseError, Pos, ServerOption, Settings};
use std::collections::HashMap;

/// What pass 1 found.
#[derive(Default)]
pub(super) struct Prelude {
    pub(super) settings: Settings,
    /// Each setting given, with its line.
    pub(super) seen_setting: HashMap<&'static str, usize>,
    /// The session names, in the order of their first step.
    pub(super) sessions: Vec<String>,
    /// The line of the first step.
    pub(super) first_step: Option<usize>,
    /// The dialect a `dialect` line chose.
    pub(super) chosen: Option<DialectChoice>,
    pub(super) setup: Vec<(Pos, String)>,
    pub(super) server: Option<(Pos, String)>,
    pub(super) server_options: Vec<ServerOption>,
}

impl Parser<'_> {
    /// Pass 1: the settings before the first step and the session names.
    pub(super) fn prelude(&self) -> Result<Prelude, ParseError> {
        let mut p = Prelude::default();
        for l in &self.lines {
            if l.toks.is_empty() {
                continue;
            }
            self.prelude_line(l, &mut p)?;
        }
        Ok(p)
    }

    /// One line of pass 1.
    fn prelude_line(&self, l: &SrcLine, p: &mut Prelude) -> Result<(), ParseError> {
        if is_server_option(&l.toks) {
            self.before_first_step(l, p)?;
            let o = self
                .server_option(l, &p.server_options)
                .map_err(|(c, m)| self.err(l.no, c, m))?;
            p.server_options.push(o);
            return Ok(());
        }
        if split_step(&l.toks).filter(is_setup).is_some() {
            return self.setup_line(l, p);
        }
        if is_server_line(l) {
            return self.server_line(l, p);
        }
        if let Some(st) = split_step(&l.toks) {
            if is_session_name(&st.name.text) && !p.sessions.contains(&st.name.text) {
                p.sessions.push(st.name.text.clone());
            }
            p.first_step.get_or_insert(l.no);
            return Ok(());
        }
        let kw = l.toks[0].text.to_ascii_lowercase();
        let Some(&key) = SETTINGS.iter().find(|s| **s == kw) else {
            return Ok(());
        };
        self.before_first_step(l, p)?;
        if let Some(prev) = p.seen_setting.insert(key, l.no) {
            return Err(self.err(
                l.no,
                l.toks[0].col,
                format!("`{key}` is already set at line {prev}"),
            ));
        }
        if let Some(c) = self
            .setting(l, key, &mut p.settings)
            .map_err(|(c, m)| self.err(l.no, c, m))?
        {
            p.chosen = Some(c);
        }
        Ok(())
    }

    /// A setting line `l` comes before the first step.
    fn before_first_step(&self, l: &SrcLine, p: &Prelude) -> Result<(), ParseError> {
        match p.first_step {
            Some(f) => Err(self.err(
                l.no,
                l.toks[0].col,
                format!("settings must come before the first step (line {f})"),
            )),
            None => Ok(()),
        }
    }

    /// `setup: sql STATEMENT`.
    fn setup_line(&self, l: &SrcLine, p: &mut Prelude) -> Result<(), ParseError> {
        let Some(st) = split_step(&l.toks) else {
            return Ok(());
        };
        if let Some(f) = p.first_step {
            return Err(self.err(
                l.no,
                st.name.col,
                format!("`setup:` lines must come before the first step (line {f})"),
            ));
        }
        let t = &st.cmd[0];
        let text = sql_text(l.raw, t.off + t.text.len());
        if text.is_empty() {
            return Err(self.err(
                l.no,
                t.end_col(),
                "expected an SQL statement after `setup: sql`",
            ));
        }
        p.setup.push((
            Pos {
                line: l.no,
                col: st.name.col,
            },
            text,
        ));
        Ok(())
    }

    /// `server VERSION`.
    fn server_line(&self, l: &SrcLine, p: &mut Prelude) -> Result<(), ParseError> {
        self.before_first_step(l, p)?;
        if let Some((at, _)) = &p.server {
            return Err(self.err(
                l.no,
                l.toks[0].col,
                format!("`server` is already set at line {}", at.line),
            ));
        }
        match l.toks.get(1..) {
            Some([v]) => {
                p.server = Some((
                    Pos {
                        line: l.no,
                        col: v.col,
                    },
                    v.text.clone(),
                ));
                Ok(())
            }
            _ => Err(self.err(
                l.no,
                l.toks.get(2).map(|t| t.col).unwrap_or(l.end_col),
                "expected one server version after `server`",
            )),
        }
    }
}

/// A `server VERSION` line (not a step of a session named `server`).
pub(super) fn is_server_line(l: &SrcLine) -> bool {
    l.toks[0].text.eq_ignore_ascii_case("server") && split_step(&l.toks).is_none()
}
