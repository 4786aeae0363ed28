//! The mode LOCK TABLES records for a table named more than once (with aliases). Under
//! LOCK TABLES a statement's table is looked up by its name and alias: `open_table`
//! (MariaDB `sql/sql_base.cc`) walks `thd->open_tables` for a TABLE of the same key whose
//! `alias` equals the statement's (a table named without an alias has its name as its
//! alias), and takes one whose lock type is strong enough (else
//! ER_TABLE_NOT_LOCKED_FOR_WRITE). So a statement naming `t1` plainly sees the modes of
//! the entries locked as `t1` (no alias, or the alias `t1`): the strongest of those, not
//! an aliased entry's. Measured: found/seed-330052.mdl (`LOCK TABLES t1 READ, t1 AS x
//! WRITE`, then `UPDATE t1`: 1099).
//!
//! A table locked only under other aliases is recorded in its strongest mode, as before
//! (a plain statement on it is ER_TABLE_NOT_LOCKED on the server: not followed; the
//! model does not know statements' aliases).

use super::{LtMode, Tbl};

fn rank(m: LtMode) -> u8 {
    match m {
        LtMode::Read => 0,
        LtMode::WriteConcurrent => 1,
        LtMode::Write => 2,
    }
}

/// Records the entry `t` locked in `mode` (`plain`: no alias, or its own name) into
/// `lt`; `plain_seen` holds the tables that had a plain entry already.
pub(super) fn merge(
    lt: &mut Vec<(Tbl, LtMode)>,
    plain_seen: &mut Vec<Tbl>,
    t: &Tbl,
    mode: LtMode,
    plain: bool,
) {
    let had_plain = plain_seen.contains(t);
    if plain && !had_plain {
        plain_seen.push(t.clone());
    }
    match lt.iter_mut().find(|(x, _)| x == t) {
        None => lt.push((t.clone(), mode)),
        // The first plain entry replaces what aliased ones recorded.
        Some(e) if plain && !had_plain => e.1 = mode,
        // An aliased entry after a plain one does not change what plain names see.
        Some(_) if !plain && had_plain => {}
        Some(e) => {
            if rank(mode) > rank(e.1) {
                e.1 = mode;
            }
        }
    }
}

/// Whether `t` under `alias` (its name when none) repeats an entry of the list in the
/// same schema: `st_select_lex::add_table_to_list` (sql/sql_parse.cc) fails the parse
/// with ER_NONUNIQ_TABLE (case-sensitively with `lower_case_table_names=0`), before any
/// lock and with the transaction kept. Measured: `LOCK TABLES t1 READ, t1 WRITE` is 1066
/// (found/seed-330052.mdl).
pub(super) fn duplicate(seen: &mut Vec<(String, String)>, t: &Tbl, alias: Option<&str>) -> bool {
    let key = (t.db.clone(), alias.unwrap_or(&t.name).to_owned());
    if seen.contains(&key) {
        return true;
    }
    seen.push(key);
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t1() -> Tbl {
        Tbl {
            db: "test".into(),
            name: "t1".into(),
        }
    }

    fn play(entries: &[(LtMode, bool)]) -> LtMode {
        let (mut lt, mut seen) = (Vec::new(), Vec::new());
        for (m, plain) in entries {
            merge(&mut lt, &mut seen, &t1(), *m, *plain);
        }
        assert_eq!(lt.len(), 1);
        lt[0].1
    }

    #[test]
    fn a_plain_name_sees_its_plain_entries_only() {
        use LtMode::*;
        assert_eq!(play(&[(Read, true), (Write, false)]), Read);
        assert_eq!(play(&[(Write, false), (Read, true)]), Read);
        assert_eq!(play(&[(Read, true), (Write, true)]), Write);
        assert_eq!(play(&[(Write, true), (Read, false)]), Write);
        assert_eq!(play(&[(Read, false), (Write, false)]), Write);
    }
}
