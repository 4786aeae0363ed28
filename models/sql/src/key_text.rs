//! A lock's key as scenarios and the server's lock lists write it, in the `mariadb` (or
//! `mysql-8.0`) dialect's words.

/// The key as scenarios write it: `-`, `db`, `db.name` (`.name` for a user lock).
pub fn key_text(ns: &str, db: &str, name: &str) -> String {
    match ns {
        // (GLOBAL, BACKUP_LOCK, COMMIT: MySQL 8.0's one-key namespaces.)
        "BACKUP" | "GLOBAL" | "BACKUP_LOCK" | "COMMIT" => "-".into(),
        "SCHEMA" => db.into(),
        "USER_LOCK" | "USER_LEVEL_LOCK" if name.is_empty() => db.into(),
        _ => format!("{db}.{name}"),
    }
}
