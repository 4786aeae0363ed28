//! The names of CREATE / DROP ROLE as the parser reads them (sql_yacc.yy: `create ...
//! ROLE_SYM opt_if_not_exists clear_privileges role_list opt_with_admin`, `drop ...
//! ROLE_SYM opt_if_exists role_list`, a `role_name` being an identifier or a string, no
//! host). Measured on 10.11.19 (`suite/accounts-role-names.mdl`, from
//! suite/roles/create_and_drop_role.test, create_and_drop_current.test and admin.test):
//!
//! - `name@host` and CURRENT_USER are no role names: ER_PARSE_ERROR before anything runs;
//! - CURRENT_ROLE is one the server refuses once the grant tables are open
//!   (`mysql_create_user` / `mysql_drop_user`, sql/sql_acl.cc: `get_current_user` gives
//!   no role to make or drop): ER_CANNOT_USER after the implicit commit;
//! - `WITH ADMIN CURRENT_USER | user | role` names the role's first administrator
//!   (`mysql_create_user` → `add_role_user_mapping`), which the catalog does not keep,
//!   as it does not keep the creator's own admin grant of a plain CREATE ROLE: the
//!   statement is played as CREATE ROLE; `WITH ADMIN CURRENT_ROLE` (ER_MALFORMED_DEFINER
//!   with no role set) is refused.

/// ER_PARSE_ERROR.
pub(crate) const ER_PARSE_ERROR: u32 = 1064;

/// A user that no statement makes (the key of an account the server never finds).
pub(crate) const NEVER: &str = "\u{0}current_role@";

/// What the words of a CREATE / DROP ROLE are.
pub(crate) enum Read<'w> {
    /// The words without `WITH ADMIN ...`.
    Names(&'w [String]),
    ParseError,
    /// CURRENT_ROLE: ER_CANNOT_USER after the locks.
    CannotUser,
    Refused(String),
}

/// The words of a CREATE / DROP ROLE statement (`w[0]` is CREATE or DROP).
pub(crate) fn read(w: &[String]) -> Read<'_> {
    let create = w.first().is_some_and(|x| x == "create");
    let mut names = w;
    if create {
        if let Some(p) = w.windows(2).position(|x| x[0] == "with" && x[1] == "admin") {
            match w.get(p + 2).map(String::as_str) {
                None => return Read::ParseError,
                Some("current_role") => {
                    return Read::Refused(
                        "CREATE ROLE ... WITH ADMIN CURRENT_ROLE is not modelled".into(),
                    )
                }
                Some(_) => names = &w[..p],
            }
        }
    }
    let start = names
        .iter()
        .position(|x| x == "role")
        .map_or(names.len(), |i| i + 1);
    let list = &names[start..];
    let list = match list {
        [a, b, c, rest @ ..] if a == "if" && (b == "exists" || (b == "not" && c == "exists")) => {
            if b == "not" {
                rest
            } else {
                &list[2..]
            }
        }
        _ => list,
    };
    if list.iter().any(|x| x == "@" || x == "current_user") {
        return Read::ParseError;
    }
    if list.iter().any(|x| x == "current_role") {
        return Read::CannotUser;
    }
    Read::Names(names)
}

/// Accounts statements the grammar refuses (ER_PARSE_ERROR before anything runs): GRANT
/// of privileges `WITH ADMIN OPTION` (`opt_grant_options` takes GRANT OPTION and the
/// resource limits; ADMIN OPTION is a role grant's: suite/roles/admin.test:38), DROP
/// USER with an IDENTIFIED clause (main/grant2.test:315) and REVOKE with words after its
/// FROM list (`INDENTIFIED ...`, main/plugin_auth.test:124).
pub(crate) fn parse_error(w: &[String]) -> bool {
    let first = w.first().map(String::as_str).unwrap_or("");
    let has = |x: &str| w.iter().any(|y| y == x);
    let tail = |n: &[&str]| {
        w.len() >= n.len() && w[w.len() - n.len()..].iter().zip(n).all(|(a, b)| a == b)
    };
    match first {
        "grant" => has("on") && tail(&["with", "admin", "option"]),
        "drop" => w.get(1).is_some_and(|x| x == "user") && has("identified"),
        "revoke" => has("from") && (has("indentified") || has("identified")),
        _ => false,
    }
}
