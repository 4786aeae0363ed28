//! One matrix file of a strategy (`STRATEGY.granted.tsv`, `STRATEGY.pending.tsv`, ...):
//! a header of the strategy's types in order, then one row per requested type of `+`
//! (compatible) and `-` (incompatible) cells, read into incompatibility rows and the
//! places each row and cell was written (for the errors of the dialect's invariants).

use super::words::words;
use super::DialectError;
use crate::decide::types::{LockType, TypeSet};

/// Where a matrix file wrote each row (its line) and each cell (its column), per row
/// type; columns in the strategy's type order.
#[derive(Default)]
pub(super) struct MatrixSpots {
    rows: Vec<(LockType, usize, Vec<usize>)>,
}

impl MatrixSpots {
    /// The line and column of the cell (row `r`, column `c`).
    pub(super) fn cell(&self, r: LockType, c: LockType, types: &[LockType]) -> (usize, usize) {
        let Some((_, line, cols)) = self.rows.iter().find(|(t, ..)| *t == r) else {
            return (1, 1);
        };
        let col = types
            .iter()
            .position(|t| *t == c)
            .and_then(|j| cols.get(j))
            .copied()
            .unwrap_or(1);
        (*line, col)
    }
}

/// Parses one matrix file of built-in type names; returns the incompatibility rows.
pub fn parse_matrix(
    file: &str,
    text: &str,
    types: &[LockType],
) -> Result<[TypeSet; LockType::MAX], DialectError> {
    parse_matrix_with(file, text, types, &LockType::parse).map(|(rows, _)| rows)
}

/// Parses one matrix file (types named as `resolve` reads them); returns the
/// incompatibility rows and where each row and cell was written.
pub(super) fn parse_matrix_with(
    file: &str,
    text: &str,
    types: &[LockType],
    resolve: &dyn Fn(&str) -> Option<LockType>,
) -> Result<([TypeSet; LockType::MAX], MatrixSpots), DialectError> {
    let err = |line: usize, col: usize, msg: String| DialectError::at(file, line, col, msg);
    let mut rows = [TypeSet::EMPTY; LockType::MAX];
    let mut at = MatrixSpots::default();
    // The header's line and the column of each of its cells.
    let mut header: Option<(usize, Vec<usize>)> = None;
    let mut seen = TypeSet::EMPTY;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        last_line = line;
        let cells = words(raw);
        if cells.is_empty() {
            continue;
        }
        let end = raw.trim_end().chars().count() + 1;
        match &header {
            None => {
                let mut cols = Vec::new();
                for (j, c) in cells[1..].iter().enumerate() {
                    let t = resolve(&c.text).ok_or_else(|| {
                        err(line, c.col, format!("unknown column type `{}`", c.text))
                    })?;
                    match types.get(j) {
                        Some(want) if *want == t => cols.push(c.col),
                        Some(want) => {
                            return Err(err(
                                line,
                                c.col,
                                format!(
                                    "columns must be the strategy's types in order: expected {want} here, found `{}`",
                                    c.text
                                ),
                            ))
                        }
                        None => {
                            return Err(err(
                                line,
                                c.col,
                                format!("the strategy has {} types; `{}` is one column too many", types.len(), c.text),
                            ))
                        }
                    }
                }
                if cols.len() < types.len() {
                    return Err(err(
                        line,
                        end,
                        format!(
                            "columns must be the strategy's types in order: {} is missing",
                            types[cols.len()]
                        ),
                    ));
                }
                header = Some((line, cols));
            }
            Some(_) => {
                let req = resolve(&cells[0].text)
                    .filter(|r| types.contains(r))
                    .ok_or_else(|| {
                        err(
                            line,
                            cells[0].col,
                            format!("unknown row type `{}`", cells[0].text),
                        )
                    })?;
                if seen.contains(req) {
                    return Err(err(line, cells[0].col, format!("a second row for {req}")));
                }
                if let Some(extra) = cells.get(types.len() + 1) {
                    return Err(err(
                        line,
                        extra.col,
                        format!("expected {} cells, found more", types.len()),
                    ));
                }
                if cells.len() != types.len() + 1 {
                    return Err(err(
                        line,
                        end,
                        format!("expected {} cells, found {}", types.len(), cells.len() - 1),
                    ));
                }
                let mut cols = Vec::new();
                for (c, col) in cells[1..].iter().zip(types) {
                    match c.text.as_str() {
                        "+" => {}
                        "-" => rows[req.0 as usize].insert(*col),
                        o => {
                            return Err(err(line, c.col, format!("cell `{o}` is neither + nor -")))
                        }
                    }
                    cols.push(c.col);
                }
                seen.insert(req);
                at.rows.push((req, line, cols));
            }
        }
    }
    let Some((hline, hcols)) = header else {
        return Err(err(
            last_line.max(1),
            1,
            "no header line (`request` and the strategy's types)".into(),
        ));
    };
    if let Some((j, t)) = types.iter().enumerate().find(|(_, t)| !seen.contains(**t)) {
        return Err(err(hline, hcols[j], format!("the row of {t} is missing")));
    }
    Ok((rows, at))
}
