//! Foreign keys and the session: where an ALTER TABLE ... ADD FOREIGN KEY that InnoDB
//! refuses stops, and the session's `foreign_key_checks`.
//!
//! - The copy of `ALTER TABLE child ADD FOREIGN KEY ... REFERENCES parent` creates the new
//!   table (`mysql_alter_table`, sql/sql_table.cc: `ha_create_table` of the temporary
//!   table, after the child's move up to SNW and `lock_tables`, before
//!   `copy_data_between_tables` takes BACKUP_ALTER_COPY): when InnoDB finds no parent
//!   there (`create_table_info_t::create_foreign_keys`, ha_innodb.cc: ER_CANT_CREATE_TABLE,
//!   errno 150) the statement ends there, without its X (measured on 10.11.19: a
//!   transaction that read the child does not stop it; `suite/fk-myisam-parent.mdl`).
//! - `SET [SESSION] foreign_key_checks = 0 | OFF` (the option bit
//!   OPTION_NO_FOREIGN_KEY_CHECKS, sql/sys_vars.cc) changes what InnoDB does with keys:
//!   it creates keys to missing parents, adds keys in place (`ha_innobase::
//!   check_if_supported_inplace_alter`) and drops parents. The model follows the checks
//!   on only: while a session has them off, its statements with a foreign key clause or on
//!   a table of a key are refused by name, as is `SET STATEMENT foreign_key_checks=...
//!   FOR`.

use super::SqlModel;
use crate::catalog::ER_CANT_CREATE_TABLE;
use crate::classify::{Effect, Plan, Stmt};
use crate::compose::Step;

impl SqlModel {
    /// Cuts the steps of an ALTER TABLE whose new foreign key InnoDB refuses: after the
    /// child's SNW, before BACKUP_ALTER_COPY (the error is the catalog's at the end).
    pub(super) fn fk_create_stops(&self, plan: &Plan, own: &mut Vec<Step>) {
        if !matches!(&plan.effect, Effect::WithFks(inner, _) if matches!(**inner, Effect::Alter { .. }))
        {
            return;
        }
        if self.catalog.error_of(&plan.effect) != Some(ER_CANT_CREATE_TABLE) {
            return;
        }
        let d = &self.dialect;
        let at = own.iter().position(|st| {
            matches!(st, Step::Upgrade { key, .. }
                if d.namespace(key.namespace()).name == "BACKUP")
        });
        if let Some(at) = at {
            own.truncate(at);
        }
    }

    /// Notes a SET of session `s`'s foreign_key_checks; while they are off, refuses the
    /// statements whose answer depends on them. None for the others.
    pub(super) fn fk_checks_classify(
        &mut self,
        s: usize,
        sql: &str,
        w: &[String],
    ) -> Option<Result<Stmt, String>> {
        if w.get(1).map(String::as_str) == Some("statement")
            && w.iter().any(|x| x.ends_with("foreign_key_checks"))
        {
            // SET STATEMENT foreign_key_checks=... FOR <statement>.
            return Some(Err(format!(
                "`{sql}`: SET STATEMENT foreign_key_checks is not modelled"
            )));
        }
        if let Some(on) = sets_fk_checks(w) {
            self.sessions[s].session.fk_checks_off = !on;
            return None;
        }
        if !self.sessions[s].session.fk_checks_off {
            return None;
        }
        let keyed = w.iter().any(|x| x == "references" || x == "foreign")
            || w.iter().any(|x| self.catalog.names_fk_table(x));
        keyed.then(|| {
            Err(format!(
                "`{sql}`: a statement with foreign keys while the session's foreign_key_checks \
                 are off is not modelled"
            ))
        })
    }
}

/// Whether the words set the session's foreign_key_checks, and then to on: `SET
/// [SESSION | LOCAL] foreign_key_checks = v` or `@@[session. | local.]foreign_key_checks
/// = v`, among other assignments too. A value the model does not read (a user variable,
/// DEFAULT, an expression) counts as off: the statements with keys are then refused
/// rather than guessed. None when no assignment names it (a GLOBAL one leaves the
/// session's as it is).
pub(crate) fn sets_fk_checks(w: &[String]) -> Option<bool> {
    if w.first().map(String::as_str) != Some("set") {
        return None;
    }
    let mut found = None;
    for a in w[1..].split(|x| x == ",") {
        let mut a = a;
        while let [x, r @ ..] = a {
            if matches!(x.as_str(), "session" | "local" | "@") {
                a = r;
            } else {
                break;
            }
        }
        let Some((name, rest)) = a.split_first() else {
            continue;
        };
        let bare = name
            .strip_prefix("session.")
            .or_else(|| name.strip_prefix("local."))
            .unwrap_or(name);
        if bare != "foreign_key_checks" {
            continue;
        }
        let value = match rest {
            [eq, v] if eq == "=" => v.as_str(),
            [c, eq, v] if c == ":" && eq == "=" => v.as_str(),
            _ => "",
        };
        found = Some(matches!(value, "1" | "on" | "true"));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::sets_fk_checks;
    use crate::words::words;

    #[test]
    fn the_suites_forms() {
        let f = |s: &str| sets_fk_checks(&words(s));
        assert_eq!(f("SET foreign_key_checks=0"), Some(false));
        assert_eq!(f("SET FOREIGN_KEY_CHECKS = 1;"), Some(true));
        assert_eq!(f("set session foreign_key_checks=OFF"), Some(false));
        assert_eq!(f("SET foreign_key_checks = @old_fk"), Some(false));
        assert_eq!(f("SET sql_mode = ''"), None);
        assert_eq!(f("SET GLOBAL foreign_key_checks = 0"), None);
        assert_eq!(f("SET @@foreign_key_checks = 1"), Some(true));
        assert_eq!(f("SET @@session.foreign_key_checks = 0"), Some(false));
        assert_eq!(
            f("SET unique_checks = 0, foreign_key_checks = 0"),
            Some(false)
        );
    }
}
