//! The users of an accounts statement and the options written after them: `user`,
//! `'user'@'host'`, `''@host` (the anonymous user), `user@''` (MariaDB reads an empty
//! host as `%`), `CURRENT_USER[()]` (the connected account, [`crate::grants::CONNECTED`]);
//! GRANT's `IDENTIFIED BY [PASSWORD] 'x'` / `IDENTIFIED VIA | WITH plugin [USING | AS 'x']
//! [OR ...]` per user, then `REQUIRE ...` and `WITH GRANT OPTION | MAX_... n` for the
//! statement (sql/sql_yacc.yy: `grant_list opt_require_clause opt_grant_options`).
//!
//! Measured on 10.11.19 (suite/accounts-roles-proxy.mdl): an authentication given to a user
//! that does not exist makes it (sql_acl.cc, `mysql_grant` → `replace_user_table` with
//! `no_auto_create` false once `has_auth()`); REQUIRE and resource limits do not (1133);
//! a plugin the server has not loaded is ER_PLUGIN_IS_NOT_LOADED (1524, after the implicit
//! commit and the grant tables' open: `copy_and_check_auth`).

use crate::grants::CONNECTED;

/// ER_PLUGIN_IS_NOT_LOADED.
pub const ER_PLUGIN_IS_NOT_LOADED: u32 = 1524;

/// The authentication plugins the harness's server has loaded (10.11.19 as Debian builds
/// it: `mysql_native_password`, `mysql_old_password` built in, `unix_socket` loaded by
/// default); any other is 1524.
const LOADED_PLUGINS: &[&str] = &["mysql_native_password", "mysql_old_password", "unix_socket"];

/// Words that end a user and may follow it.
const AFTER_USER: &[&str] = &[
    ",",
    "=",
    "identified",
    "require",
    "with",
    "to",
    "from",
    "password",
    "account",
    "default",
];

/// `user`, `'user'@'host'`, `user@host`, `''@host`, `user@''`, `CURRENT_USER[()]` at
/// `w[i..]`; the index after it. The words drop an empty quoted name (`''`), so a user
/// that starts with `@` is the anonymous one and an `@` followed by a word of
/// [`AFTER_USER`] (or nothing) has the empty host, `%`.
pub(crate) fn user_at(w: &[String], mut i: usize) -> Option<(String, usize)> {
    let at = |i: usize| w.get(i).map(String::as_str);
    if at(i) == Some("current_user") {
        i += 1;
        if at(i) == Some("(") && at(i + 1) == Some(")") {
            i += 2;
        }
        return Some((CONNECTED.to_owned(), i));
    }
    let name = match at(i)? {
        "@" => String::new(),
        x => {
            i += 1;
            x.to_owned()
        }
    };
    if at(i) != Some("@") {
        if let Some((n, h)) = name.split_once('@') {
            return Some((format!("{n}@{h}"), i));
        }
        return (!name.is_empty()).then(|| (format!("{name}@%"), i));
    }
    let host = match at(i + 1) {
        None => "%",
        Some(x) if AFTER_USER.contains(&x) => "%",
        Some(x) => {
            i += 1;
            x
        }
    };
    Some((format!("{name}@{host}"), i + 1))
}

/// A user the server's install makes (`mariadb-install-db`: the anonymous users of
/// `localhost` and of the machine's name), which the catalog does not know: refused.
pub(crate) fn install_made(u: &str) -> bool {
    u.strip_prefix('@').is_some_and(|h| {
        h.chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

/// What follows the users of a GRANT / REVOKE.
#[derive(Debug, Default)]
pub(crate) struct Grantees {
    pub users: Vec<String>,
    /// The users given an authentication (made when missing).
    pub creates: Vec<String>,
    /// The users written without a host and without an authentication (`name@%` in
    /// `users`): the role `name` when there is one (`crate::grants::Users::resolve`).
    pub bare: Vec<String>,
    /// `WITH GRANT OPTION`.
    pub grant_option: bool,
    /// A plugin the server has not loaded.
    pub error: Option<u32>,
}

/// `IDENTIFIED ...` at `w[i]` (the word after IDENTIFIED): the index after it and whether
/// its plugins are loaded; None for a form not read.
fn identified(w: &[String], mut i: usize) -> Option<(usize, bool)> {
    let at = |i: usize| w.get(i).map(String::as_str);
    match at(i)? {
        "by" => {
            i += 1;
            // `BY PASSWORD 'hash'`; the words do not keep quotes, so a password that is
            // the word itself (`BY 'password'`) is the one followed by no string.
            let hash_follows =
                at(i + 1).is_some_and(|x| !matches!(x, "(" | "," | "require" | "with"));
            if at(i) == Some("password") && hash_follows {
                i += 1;
            }
            w.get(i)?;
            Some((i + 1, true))
        }
        "via" | "with" => {
            let mut loaded = true;
            loop {
                let plugin = at(i + 1)?;
                loaded &= LOADED_PLUGINS.contains(&plugin);
                i += 2;
                if matches!(at(i), Some("using" | "as")) {
                    // A string, not PASSWORD('...'), which the words split.
                    if at(i + 2) == Some("(") {
                        return None;
                    }
                    w.get(i + 1)?;
                    i += 2;
                }
                if at(i) != Some("or") {
                    return Some((i, loaded));
                }
            }
        }
        _ => None,
    }
}

/// `REQUIRE NONE | SSL | X509 | {CIPHER | ISSUER | SUBJECT} 'x' [AND] ...`: the index
/// after it.
fn require(w: &[String], mut i: usize) -> Option<usize> {
    let at = |i: usize| w.get(i).map(String::as_str);
    match at(i)? {
        "none" | "ssl" | "x509" => return Some(i + 1),
        _ => {}
    }
    let mut n = 0;
    while let Some("cipher" | "issuer" | "subject") = at(i) {
        w.get(i + 1)?;
        i += 2;
        n += 1;
        if at(i) == Some("and") {
            i += 1;
        }
    }
    (n > 0).then_some(i)
}

/// `WITH GRANT OPTION | MAX_QUERIES_PER_HOUR n | ... | MAX_STATEMENT_TIME x` ...: whether
/// GRANT OPTION is among them; None for another word.
fn with_options(w: &[String], mut i: usize) -> Option<bool> {
    let mut grant_option = false;
    while let Some(x) = w.get(i) {
        match x.as_str() {
            "grant" if w.get(i + 1).is_some_and(|y| y == "option") => {
                grant_option = true;
                i += 2;
            }
            "max_queries_per_hour"
            | "max_updates_per_hour"
            | "max_connections_per_hour"
            | "max_user_connections"
            | "max_statement_time" => {
                let v = w.get(i + 1)?;
                if !v.chars().all(|c| c.is_ascii_digit() || c == '.') {
                    return None;
                }
                i += 2;
            }
            _ => return None,
        }
    }
    Some(grant_option)
}

/// The users after TO / FROM (`w` starts at the first user) with their options; None for
/// a form not read (REVOKE takes no option).
pub(crate) fn grantees(w: &[String], revoke: bool) -> Option<Grantees> {
    let mut g = Grantees::default();
    let mut i = 0;
    loop {
        let (u, j) = user_at(w, i)?;
        if install_made(&u) {
            return None;
        }
        if j == i + 1 && w[i] != "current_user" && !w[i].contains('@') {
            g.bare.push(u.clone());
        }
        i = j;
        if !revoke && w.get(i).is_some_and(|x| x == "identified") {
            g.bare.retain(|b| *b != u);
            let (j, loaded) = identified(w, i + 1)?;
            if !loaded {
                g.error = Some(ER_PLUGIN_IS_NOT_LOADED);
            }
            g.creates.push(u.clone());
            i = j;
        }
        g.users.push(u);
        if w.get(i).is_some_and(|x| x == ",") {
            i += 1;
            continue;
        }
        break;
    }
    if revoke {
        return (i == w.len()).then_some(g);
    }
    if w.get(i).is_some_and(|x| x == "require") {
        i = require(w, i + 1)?;
    }
    if w.get(i).is_some_and(|x| x == "with") {
        g.grant_option = with_options(w, i + 1)?;
        i = w.len();
    }
    (i == w.len()).then_some(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        crate::words::words(s)
    }

    #[test]
    fn users_with_empty_names_and_hosts() {
        assert_eq!(
            user_at(&w("''@localhost"), 0),
            Some(("@localhost".into(), 2))
        );
        assert_eq!(user_at(&w("u@''"), 0), Some(("u@%".into(), 2)));
        assert_eq!(user_at(&w("u@ = x"), 0), Some(("u@%".into(), 2)));
        assert_eq!(user_at(&w("u1"), 0), Some(("u1@%".into(), 1)));
        assert_eq!(
            user_at(&w("current_user() x"), 0),
            Some((CONNECTED.into(), 3))
        );
        assert!(install_made("@localhost") && !install_made("@%") && !install_made("@%%"));
    }

    #[test]
    fn options_after_the_users() {
        let g = grantees(
            &w("u1 identified via unix_socket using 'x' or mysql_native_password, u2 require ssl with max_queries_per_hour 2 grant option"),
            false,
        )
        .unwrap();
        assert_eq!(g.users, vec!["u1@%", "u2@%"]);
        assert_eq!(g.creates, vec!["u1@%"]);
        // u1 has an authentication: `get_current_user` gives it `%`, no role is looked up.
        assert_eq!(g.bare, vec!["u2@%"]);
        let r = grantees(&w("r1, 'r2'@'%', current_user"), true).unwrap();
        assert_eq!(r.bare, vec!["r1@%"]);
        assert!(g.grant_option && g.error.is_none());
        let g = grantees(&w("u1 identified with test_plugin_server as 'x'"), false).unwrap();
        assert_eq!(g.error, Some(ER_PLUGIN_IS_NOT_LOADED));
        let g = grantees(
            &w("u1 require cipher 'a' and subject 'b' issuer 'c'"),
            false,
        )
        .unwrap();
        assert!(g.creates.is_empty());
        assert!(grantees(&w("u1 identified by 'x'"), true).is_none());
        let g = grantees(
            &w("u1 identified by 'password', u2 identified by password 'h'"),
            false,
        );
        assert_eq!(g.unwrap().creates, vec!["u1@%", "u2@%"]);
        assert!(grantees(&w("u1 with max_queries_per_hour x1"), false).is_none());
    }
}
