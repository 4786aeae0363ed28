//! The tables of MariaDB 10.11.19's system schemas, as the harness's server has them
//! (`SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN
//! ('information_schema', 'performance_schema', 'mysql')` on the server `mdl conform`
//! starts: `--performance-schema=ON`, the `metadata_lock_info` plugin loaded).
//!
//! The harness compares the locks of the test schemas only (`models/conform/src/locks.rs`
//! leaves out `mysql`, `performance_schema`, `information_schema` and `sys`), so a
//! statement that reads one of these tables is compared by its other locks; the list
//! says which names exist (a view of one that does not fails on the server).
//! `information_schema` tables take no MDL at all (`get_all_tables` opens the tables they
//! describe, `fill_schema_table_by_open`); `performance_schema` and `mysql` tables take
//! their SR as any table's (`open_table`), in a schema the harness does not compare.

use crate::objects::Tbl;
const INFORMATION_SCHEMA: &[&str] = &[
    "all_plugins",
    "applicable_roles",
    "character_sets",
    "check_constraints",
    "client_statistics",
    "collations",
    "collation_character_set_applicability",
    "columns",
    "column_privileges",
    "enabled_roles",
    "engines",
    "events",
    "files",
    "geometry_columns",
    "global_status",
    "global_variables",
    "index_statistics",
    "innodb_buffer_page",
    "innodb_buffer_page_lru",
    "innodb_buffer_pool_stats",
    "innodb_cmp",
    "innodb_cmpmem",
    "innodb_cmpmem_reset",
    "innodb_cmp_per_index",
    "innodb_cmp_per_index_reset",
    "innodb_cmp_reset",
    "innodb_ft_being_deleted",
    "innodb_ft_config",
    "innodb_ft_default_stopword",
    "innodb_ft_deleted",
    "innodb_ft_index_cache",
    "innodb_ft_index_table",
    "innodb_locks",
    "innodb_lock_waits",
    "innodb_metrics",
    "innodb_sys_columns",
    "innodb_sys_fields",
    "innodb_sys_foreign",
    "innodb_sys_foreign_cols",
    "innodb_sys_indexes",
    "innodb_sys_tables",
    "innodb_sys_tablespaces",
    "innodb_sys_tablestats",
    "innodb_sys_virtual",
    "innodb_tablespaces_encryption",
    "innodb_trx",
    "keywords",
    "key_caches",
    "key_column_usage",
    "metadata_lock_info",
    "optimizer_trace",
    "parameters",
    "partitions",
    "plugins",
    "processlist",
    "profiling",
    "referential_constraints",
    "routines",
    "schemata",
    "schema_privileges",
    "session_status",
    "session_variables",
    "spatial_ref_sys",
    "sql_functions",
    "statistics",
    "system_variables",
    "tables",
    "tablespaces",
    "table_constraints",
    "table_privileges",
    "table_statistics",
    "thread_pool_groups",
    "thread_pool_queues",
    "thread_pool_stats",
    "thread_pool_waits",
    "triggers",
    "user_privileges",
    "user_statistics",
    "user_variables",
    "views",
];

const MYSQL: &[&str] = &[
    "columns_priv",
    "column_stats",
    "db",
    "event",
    "func",
    "general_log",
    "global_priv",
    "gtid_slave_pos",
    "help_category",
    "help_keyword",
    "help_relation",
    "help_topic",
    "index_stats",
    "innodb_index_stats",
    "innodb_table_stats",
    "plugin",
    "proc",
    "procs_priv",
    "proxies_priv",
    "roles_mapping",
    "servers",
    "slow_log",
    "tables_priv",
    "table_stats",
    "time_zone",
    "time_zone_leap_second",
    "time_zone_name",
    "time_zone_transition",
    "time_zone_transition_type",
    "transaction_registry",
    "user",
];

const PERFORMANCE_SCHEMA: &[&str] = &[
    "accounts",
    "cond_instances",
    "events_stages_current",
    "events_stages_history",
    "events_stages_history_long",
    "events_stages_summary_by_account_by_event_name",
    "events_stages_summary_by_host_by_event_name",
    "events_stages_summary_by_thread_by_event_name",
    "events_stages_summary_by_user_by_event_name",
    "events_stages_summary_global_by_event_name",
    "events_statements_current",
    "events_statements_history",
    "events_statements_history_long",
    "events_statements_summary_by_account_by_event_name",
    "events_statements_summary_by_digest",
    "events_statements_summary_by_host_by_event_name",
    "events_statements_summary_by_program",
    "events_statements_summary_by_thread_by_event_name",
    "events_statements_summary_by_user_by_event_name",
    "events_statements_summary_global_by_event_name",
    "events_transactions_current",
    "events_transactions_history",
    "events_transactions_history_long",
    "events_transactions_summary_by_account_by_event_name",
    "events_transactions_summary_by_host_by_event_name",
    "events_transactions_summary_by_thread_by_event_name",
    "events_transactions_summary_by_user_by_event_name",
    "events_transactions_summary_global_by_event_name",
    "events_waits_current",
    "events_waits_history",
    "events_waits_history_long",
    "events_waits_summary_by_account_by_event_name",
    "events_waits_summary_by_host_by_event_name",
    "events_waits_summary_by_instance",
    "events_waits_summary_by_thread_by_event_name",
    "events_waits_summary_by_user_by_event_name",
    "events_waits_summary_global_by_event_name",
    "file_instances",
    "file_summary_by_event_name",
    "file_summary_by_instance",
    "global_status",
    "hosts",
    "host_cache",
    "memory_summary_by_account_by_event_name",
    "memory_summary_by_host_by_event_name",
    "memory_summary_by_thread_by_event_name",
    "memory_summary_by_user_by_event_name",
    "memory_summary_global_by_event_name",
    "metadata_locks",
    "mutex_instances",
    "objects_summary_global_by_type",
    "performance_timers",
    "prepared_statements_instances",
    "replication_applier_configuration",
    "replication_applier_status",
    "replication_applier_status_by_coordinator",
    "replication_applier_status_by_worker",
    "replication_connection_configuration",
    "rwlock_instances",
    "session_account_connect_attrs",
    "session_connect_attrs",
    "session_status",
    "setup_actors",
    "setup_consumers",
    "setup_instruments",
    "setup_objects",
    "setup_timers",
    "socket_instances",
    "socket_summary_by_event_name",
    "socket_summary_by_instance",
    "status_by_account",
    "status_by_host",
    "status_by_thread",
    "status_by_user",
    "table_handles",
    "table_io_waits_summary_by_index_usage",
    "table_io_waits_summary_by_table",
    "table_lock_waits_summary_by_table",
    "threads",
    "users",
    "user_variables_by_thread",
];

/// The `sys` schema's views (101 on 10.11.19, installed by `mariadb-install-db` from
/// `scripts/sys_schema/`): views over `performance_schema` and `information_schema`, read
/// as any view (SR on the view, then its tables and the `sys` functions it calls), all in
/// schemas the harness does not compare; ER_TABLE_NOT_LOCKED under LOCK TABLES (measured:
/// `SELECT * FROM sys.version` under `LOCK TABLES t1 READ`).
const SYS: &[&str] = &[
    "host_summary",
    "host_summary_by_file_io",
    "host_summary_by_file_io_type",
    "host_summary_by_stages",
    "host_summary_by_statement_latency",
    "host_summary_by_statement_type",
    "innodb_buffer_stats_by_schema",
    "innodb_buffer_stats_by_table",
    "innodb_lock_waits",
    "io_by_thread_by_latency",
    "io_global_by_file_by_bytes",
    "io_global_by_file_by_latency",
    "io_global_by_wait_by_bytes",
    "io_global_by_wait_by_latency",
    "latest_file_io",
    "memory_by_host_by_current_bytes",
    "memory_by_thread_by_current_bytes",
    "memory_by_user_by_current_bytes",
    "memory_global_by_current_bytes",
    "memory_global_total",
    "metrics",
    "processlist",
    "ps_check_lost_instrumentation",
    "schema_auto_increment_columns",
    "schema_index_statistics",
    "schema_object_overview",
    "schema_redundant_indexes",
    "schema_tables_with_full_table_scans",
    "schema_table_lock_waits",
    "schema_table_statistics",
    "schema_table_statistics_with_buffer",
    "schema_unused_indexes",
    "session",
    "session_ssl_status",
    "statements_with_errors_or_warnings",
    "statements_with_full_table_scans",
    "statements_with_runtimes_in_95th_percentile",
    "statements_with_sorting",
    "statements_with_temp_tables",
    "statement_analysis",
    "sys_config",
    "user_summary",
    "user_summary_by_file_io",
    "user_summary_by_file_io_type",
    "user_summary_by_stages",
    "user_summary_by_statement_latency",
    "user_summary_by_statement_type",
    "version",
    "waits_by_host_by_latency",
    "waits_by_user_by_latency",
    "waits_global_by_latency",
    "wait_classes_global_by_avg_latency",
    "wait_classes_global_by_latency",
    "x$host_summary",
    "x$host_summary_by_file_io",
    "x$host_summary_by_file_io_type",
    "x$host_summary_by_stages",
    "x$host_summary_by_statement_latency",
    "x$host_summary_by_statement_type",
    "x$innodb_buffer_stats_by_schema",
    "x$innodb_buffer_stats_by_table",
    "x$innodb_lock_waits",
    "x$io_by_thread_by_latency",
    "x$io_global_by_file_by_bytes",
    "x$io_global_by_file_by_latency",
    "x$io_global_by_wait_by_bytes",
    "x$io_global_by_wait_by_latency",
    "x$latest_file_io",
    "x$memory_by_host_by_current_bytes",
    "x$memory_by_thread_by_current_bytes",
    "x$memory_by_user_by_current_bytes",
    "x$memory_global_by_current_bytes",
    "x$memory_global_total",
    "x$processlist",
    "x$ps_digest_95th_percentile_by_avg_us",
    "x$ps_digest_avg_latency_distribution",
    "x$ps_schema_table_statistics_io",
    "x$schema_flattened_keys",
    "x$schema_index_statistics",
    "x$schema_tables_with_full_table_scans",
    "x$schema_table_lock_waits",
    "x$schema_table_statistics",
    "x$schema_table_statistics_with_buffer",
    "x$session",
    "x$statements_with_errors_or_warnings",
    "x$statements_with_full_table_scans",
    "x$statements_with_runtimes_in_95th_percentile",
    "x$statements_with_sorting",
    "x$statements_with_temp_tables",
    "x$statement_analysis",
    "x$user_summary",
    "x$user_summary_by_file_io",
    "x$user_summary_by_file_io_type",
    "x$user_summary_by_stages",
    "x$user_summary_by_statement_latency",
    "x$user_summary_by_statement_type",
    "x$waits_by_host_by_latency",
    "x$waits_by_user_by_latency",
    "x$waits_global_by_latency",
    "x$wait_classes_global_by_avg_latency",
    "x$wait_classes_global_by_latency",
];

/// Whether `t` is a table (or, for `mysql.user`, a view) of a system schema that the
/// harness's server has (names compared without case, as the server does for these).
pub(crate) fn exists(t: &Tbl) -> bool {
    let list = match t.db.to_ascii_lowercase().as_str() {
        "information_schema" => INFORMATION_SCHEMA,
        "mysql" => MYSQL,
        "performance_schema" => PERFORMANCE_SCHEMA,
        "sys" => SYS,
        _ => return false,
    };
    list.iter().any(|n| t.name.eq_ignore_ascii_case(n))
}

/// Whether `t` is of a system schema (`information_schema`, `performance_schema`, `mysql`,
/// `sys`).
pub(super) fn is_system(t: &Tbl) -> bool {
    matches!(
        t.db.to_ascii_lowercase().as_str(),
        "information_schema" | "performance_schema" | "mysql" | "sys"
    )
}

/// A SELECT's system schemas' tables: those of `information_schema` left out of
/// `tables` (no MDL on the table itself: sql_show.cc `get_schema_tables_result` fills it,
/// `fill_schema_table_by_open` opening what it describes for a moment and keeping
/// nothing); those of `mysql`, `performance_schema` and `sys` kept (SR as any table's,
/// `open_table`; ER_TABLE_NOT_LOCKED under LOCK TABLES, measured on 10.11.19) but not in
/// the returned list of the tables the catalog must have (they are the server's, not the
/// catalog's; the model does not show their locks, as the harness does not compare
/// them: [`crate::model::Model::locks_of`]).
///
/// A system schema's table the server does not have (`mysql.wsrep_*` of a server without
/// Galera, `performance_schema.processlist` of MySQL 8.0, `mysql.gtid_slave_pos_innodb`
/// that a test creates) is returned among the tables the catalog must have: the catalog
/// knows it if a statement created it, else the statement fails with ER_NO_SUCH_TABLE
/// after its locks, as for any missing table (`open_table`; measured on 10.11.19:
/// `SELECT COUNT(*) FROM t1, mysql.wsrep_streaming_log` in a transaction is 1146 and
/// keeps no lock of t1, `suite/system-tables-missing.mdl`).
///
/// An `information_schema` table the server does not have is refused (the server's
/// ER_UNKNOWN_TABLE, not modelled).
pub(super) fn leave_out(sql: &str, tables: &mut Vec<Tbl>) -> Result<Vec<Tbl>, String> {
    let is = |t: &Tbl| t.db.eq_ignore_ascii_case("information_schema");
    if let Some(t) = tables.iter().find(|t| is(t) && !exists(t)) {
        return Err(format!(
            "`{sql}`: the system schema's table `{t}` is not in the catalog"
        ));
    }
    tables.retain(|t| !is(t));
    Ok(tables
        .iter()
        .filter(|t| !is_system(t) || !exists(t))
        .cloned()
        .collect())
}

/// A DML statement's tables the catalog must have, from those it names (`need`) and
/// writes (`written`): a system schema's table the server has is the server's, as in a
/// SELECT (measured on 10.11.19: `UPDATE sys.sys_config ...`, `INSERT INTO
/// sys.sys_config ...` of suite/sysschema/t/t_sys_config.test write the table, where the
/// catalog's 1146 was wrong; suite/sys-schema-dml.mdl). A write to an `information_schema`
/// table (the server's 1044) or to one of `sys`'s views (not updatable: 1288, 1471) is
/// refused: only `sys.sys_config` is a table of `sys`.
pub(super) fn dml_need(sql: &str, written: &[Tbl], need: Vec<Tbl>) -> Result<Vec<Tbl>, String> {
    let view_or_is = |t: &Tbl| {
        t.db.eq_ignore_ascii_case("information_schema")
            || (t.db.eq_ignore_ascii_case("sys")
                && exists(t)
                && !t.name.eq_ignore_ascii_case("sys_config"))
    };
    if let Some(t) = written.iter().find(|t| view_or_is(t)) {
        return Err(format!(
            "`{sql}`: a write to `{t}` (an information_schema table or a view of the sys \
             schema) is not modelled"
        ));
    }
    Ok(need
        .into_iter()
        .filter(|t| !(is_system(t) && exists(t)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(db: &str, name: &str) -> Tbl {
        Tbl {
            db: db.into(),
            name: name.into(),
        }
    }

    #[test]
    fn system_tables_of_the_server() {
        assert!(exists(&t("information_schema", "COLUMNS")));
        assert!(exists(&t("performance_schema", "accounts")));
        assert!(exists(&t("mysql", "user")));
        assert!(!exists(&t("information_schema", "no_such_table")));
        assert!(!exists(&t("test", "t1")));
        assert!(is_system(&t("MYSQL", "x")));
        assert!(exists(&t("sys", "x$processlist")));
        assert!(!exists(&t("mysql", "wsrep_streaming_log")));
    }

    #[test]
    fn a_missing_system_table_is_one_the_catalog_must_have() {
        let mut ts = vec![
            t("test", "t1"),
            t("information_schema", "tables"),
            t("mysql", "user"),
            t("sys", "version"),
            t("mysql", "wsrep_streaming_log"),
        ];
        let need = leave_out("q", &mut ts).unwrap();
        assert_eq!(
            need,
            vec![t("test", "t1"), t("mysql", "wsrep_streaming_log")]
        );
        assert_eq!(ts.len(), 4);
        let mut is = vec![t("information_schema", "nosuch")];
        assert!(leave_out("q", &mut is).is_err());
    }
}
