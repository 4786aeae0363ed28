//! The session's `sql_mode`, as far as the model follows it: whether it holds ORACLE,
//! which picks the Oracle grammar (`parse_sql`, sql/sql_parse.cc: `thd->variables.sql_mode
//! & MODE_ORACLE ? ORAparse(thd) : MYSQLparse(thd)`). Read from `SET [SESSION | LOCAL]
//! sql_mode = value` and `SET @@[session. | local.]sql_mode = value`; the other flags of
//! the mode are not followed.

/// Whether `sql` sets the session's sql_mode, and then whether the new mode holds ORACLE.
/// `DEFAULT` and a user variable (the suite's `SET sql_mode = @save_sql_mode`, which
/// restores the mode a test began with, the server's default) count as without ORACLE.
/// None for any other statement (and for a SET of several variables).
pub fn sets_oracle(sql: &str) -> Option<bool> {
    let s = sql
        .trim()
        .trim_end_matches(';')
        .trim_end()
        .to_ascii_lowercase();
    let rest = s.strip_prefix("set")?;
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let mut rest = rest.trim_start();
    for p in ["session ", "local "] {
        if let Some(r) = rest.strip_prefix(p) {
            rest = r.trim_start();
        }
    }
    for p in ["@@session.", "@@local.", "@@"] {
        if let Some(r) = rest.strip_prefix(p) {
            rest = r;
            break;
        }
    }
    let rest = rest.strip_prefix("sql_mode")?.trim_start();
    let value = rest
        .strip_prefix(":=")
        .or_else(|| rest.strip_prefix('='))?
        .trim();
    let quoted = value.starts_with(['\'', '"']);
    if !quoted && value.contains(',') {
        return None;
    }
    let inner = value.trim_matches(|c| c == '\'' || c == '"');
    if quoted && inner.contains(['\'', '"']) {
        return None;
    }
    Some(inner.split(',').any(|m| m.trim() == "oracle"))
}

#[cfg(test)]
mod tests {
    use super::sets_oracle;

    #[test]
    fn the_suites_forms() {
        assert_eq!(sets_oracle("SET sql_mode=ORACLE"), Some(true));
        assert_eq!(sets_oracle("set SQL_MODE = 'oracle';"), Some(true));
        assert_eq!(
            sets_oracle("SET @@sql_mode='ORACLE,STRICT_TRANS_TABLES'"),
            Some(true)
        );
        assert_eq!(sets_oracle("SET SESSION sql_mode=DEFAULT"), Some(false));
        assert_eq!(sets_oracle("SET sql_mode=@save_sql_mode"), Some(false));
        assert_eq!(sets_oracle("SET sql_mode=''"), Some(false));
        assert_eq!(sets_oracle("SET GLOBAL sql_mode=ORACLE"), None);
        assert_eq!(sets_oracle("SET sql_mode=ORACLE, @a=1"), None);
        assert_eq!(sets_oracle("SELECT 1"), None);
        assert_eq!(sets_oracle("SET sql_mode_x=1"), None);
    }
}
