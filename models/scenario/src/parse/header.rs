//! The lines before the first step: settings (`dialect`, `max_write_lock_count`, ...)
//! and `server_option` lines.

use super::command::{done, number};
use super::lex::{PResult, SrcLine, Words};
use super::{DialectChoice, Parser};
use crate::ast::{ParseError, Pos, ServerOption, ServerOptionName, Settings};
use mdl_core::dialect::Dialect;
use std::collections::HashMap;
use std::path::Path;

impl Parser<'_> {
    /// `server_option NAME VALUE` (version 5): NAME one of [`ServerOptionName::ALL`], each
    /// at most once, VALUE within the servers' range.
    pub(super) fn server_option(
        &self,
        l: &SrcLine,
        prev: &[ServerOption],
    ) -> PResult<ServerOption> {
        let mut w = Words {
            toks: &l.toks[1..],
            i: 0,
            end_col: l.end_col,
        };
        let names = ServerOptionName::ALL.map(|n| n.as_str()).join(", ");
        let t = w.next().ok_or_else(|| {
            (
                w.here(),
                format!("expected a server option ({names}), found end of line"),
            )
        })?;
        let name = ServerOptionName::from_name(&t.text).ok_or_else(|| {
            (
                t.col,
                format!("expected a server option ({names}), found `{}`", t.text),
            )
        })?;
        if let Some(p) = prev.iter().find(|o| o.name == name) {
            return Err((
                t.col,
                format!(
                    "server option `{}` is already set at line {}",
                    name.as_str(),
                    p.pos.line
                ),
            ));
        }
        let col = w.here();
        let value = number(&mut w, "a number")?;
        if value < name.min() || value > name.max() {
            return Err((
                col,
                format!(
                    "{} must be from {} to {} (the server's range)",
                    name.as_str(),
                    name.min(),
                    name.max()
                ),
            ));
        }
        done(&w)?;
        Ok(ServerOption {
            pos: Pos {
                line: l.no,
                col: t.col,
            },
            name,
            value,
        })
    }

    /// What the server options set in the model: `max_write_lock_count` the setting of
    /// that name, `lock_wait_timeout` (seconds) the setting `lock_wait_timeout` (ms). A
    /// file that also has that setting is refused (one value, said once).
    pub(super) fn apply_server_options(
        &self,
        opts: &[ServerOption],
        seen: &HashMap<&'static str, usize>,
        s: &mut Settings,
    ) -> Result<(), ParseError> {
        for o in opts {
            if let Some(line) = seen.get(o.name.as_str()) {
                return Err(self.err(
                    o.pos.line,
                    o.pos.col,
                    format!(
                        "`{}` is already set at line {line}: give it as a setting or as a \
                         server option, not both",
                        o.name.as_str()
                    ),
                ));
            }
            match o.name {
                ServerOptionName::MaxWriteLockCount => s.max_write_lock_count = o.value,
                ServerOptionName::LockWaitTimeout => {
                    s.lock_wait_timeout = Some(o.value.saturating_mul(1000))
                }
                ServerOptionName::InnodbLockWaitTimeout => {}
            }
        }
        Ok(())
    }

    /// Reads a setting line into `s`; a `dialect` line gives its dialect (unless the
    /// command line named one: then the line is not loaded).
    pub(super) fn setting(
        &self,
        l: &SrcLine,
        key: &str,
        s: &mut Settings,
    ) -> PResult<Option<DialectChoice>> {
        let mut chosen = None;
        let mut w = Words {
            toks: &l.toks[1..],
            i: 0,
            end_col: l.end_col,
        };
        match key {
            "dialect" => {
                let t = w.next().ok_or_else(|| {
                    (
                        w.here(),
                        "expected a dialect (mysql-8.0, mariadb or a dialect folder), found end \
                         of line"
                            .into(),
                    )
                })?;
                if self.opts.dialect.is_none() {
                    let base = Path::new(self.file).parent().unwrap_or(Path::new(""));
                    let c = DialectChoice::load(&t.text, base).map_err(|e| {
                        let msg = if Dialect::builtin_name(&t.text).is_none()
                            && !base.join(&t.text).is_dir()
                        {
                            format!(
                                "expected a dialect (mysql-8.0, mariadb or a dialect folder \
                                 relative to this file), found `{}`",
                                t.text
                            )
                        } else {
                            format!("the dialect folder `{}` does not load: {e}", t.text)
                        };
                        (t.col, msg)
                    })?;
                    chosen = Some(c);
                }
            }
            "max_write_lock_count" => {
                let col = w.here();
                let n = number(&mut w, "a count")?;
                // Both servers: sys_vars.cc, Sys_max_write_lock_count, VALID_RANGE(1,
                // ULONG_MAX). A limit of 0 would turn every reschedule into a pass that
                // gives way (MariaDB: `m_hog_lock_count >= max_write_lock_count` holds
                // before any hog), which no server can run.
                if n == 0 {
                    return Err((
                        col,
                        "max_write_lock_count must be at least 1 (the servers' range is 1 to \
                         ULONG_MAX)"
                            .into(),
                    ));
                }
                s.max_write_lock_count = n;
            }
            "max_search_depth" => {
                let t = w.next().ok_or_else(|| {
                    (
                        w.here(),
                        "expected a search depth (a number from 1), found end of line".into(),
                    )
                })?;
                s.max_search_depth = Some(
                    mdl_core::dialect::parse_max_search_depth(&t.text).map_err(|m| (t.col, m))?,
                );
            }
            "deadlock_resolution" => {
                let t = w.next().ok_or_else(|| {
                    (
                        w.here(),
                        "expected `victim` or `soft_edges`, found end of line".into(),
                    )
                })?;
                s.soft_edges = Some(
                    mdl_core::dialect::parse_deadlock_resolution(&t.text)
                        .map_err(|m| (t.col, m))?,
                );
            }
            _ => s.lock_wait_timeout = Some(number(&mut w, "a number of milliseconds")?),
        }
        done(&w)?;
        Ok(chosen)
    }
}
