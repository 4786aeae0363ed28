//! Statement kinds: one variant per kind of the statement tables
//! (`models/conformance/statements.tsv`, `statements-mysql80.tsv`), each with the server
//! function whose locks its learned row records. A kind's text (`alter_copy`) is parsed
//! once, where the table is read ([`crate::mapping::Mapping::parse`]); the model asks a
//! kind what it needs through the methods below (`kind.is_dml()`, `kind.is_trigger_ddl()`,
//! ...), so a rule reads as the server's.
//!
//! A row of the table is a kind and a [`RowVariant`]: `select.myisam` is `select` on a
//! MyISAM table (the model uses such a row for a table of that engine). Row names stay
//! data (`Part::row`, the rules' keys); the kind is the enum.

use std::fmt;
use std::str::FromStr;

/// Which row of a kind: the base row (InnoDB tables) or its MyISAM variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum RowVariant {
    /// `select`: the kind on the fixture's InnoDB tables.
    #[default]
    Base,
    /// `select.myisam`: the kind on a MyISAM table (`m1`, `m2`).
    MyIsam,
}

/// The suffix of a MyISAM row's name.
pub const MYISAM_SUFFIX: &str = ".myisam";

macro_rules! kinds {
    ($($variant:ident = $name:literal, $cite:literal;)*) => {
        /// A statement kind of the statement tables (see the module's documentation).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind {
            $(
                #[doc = concat!("`", $name, "`: ", $cite, ".")]
                $variant,
            )*
        }

        impl Kind {
            /// Every kind, in the order of the learned table.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant),*];

            /// The kind's name in the statement tables (`alter_copy`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Kind::$variant => $name,)*
                }
            }

            /// The server function (file and function) whose locks the kind's row records.
            pub const fn server_function(self) -> &'static str {
                match self {
                    $(Kind::$variant => $cite,)*
                }
            }

            /// The name of the kind's row `variant` (`select`, `select.myisam`).
            pub const fn row_name(self, variant: RowVariant) -> &'static str {
                match variant {
                    RowVariant::Base => self.as_str(),
                    RowVariant::MyIsam => match self {
                        $(Kind::$variant => concat!($name, ".myisam"),)*
                    },
                }
            }
        }

        impl FromStr for Kind {
            type Err = UnknownKind;

            fn from_str(s: &str) -> Result<Kind, UnknownKind> {
                match s {
                    $($name => Ok(Kind::$variant),)*
                    _ => Err(UnknownKind(s.to_owned())),
                }
            }
        }
    };
}

kinds! {
    Select = "select", "sql/sql_base.cc open_tables";
    SelectForUpdate = "select_for_update", "sql/sql_base.cc open_tables";
    SelectShare = "select_share", "sql/sql_base.cc open_tables";
    Insert = "insert", "sql/sql_base.cc open_tables";
    Update = "update", "sql/sql_base.cc open_tables";
    Delete = "delete", "sql/sql_base.cc open_tables";
    LockRead = "lock_read", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    LockReadLocal = "lock_read_local", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    LockWrite = "lock_write", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    LockWriteConcurrent = "lock_write_concurrent", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    AlterCopy = "alter_copy", "sql/sql_table.cc mysql_alter_table";
    AlterInplace = "alter_inplace", "sql/sql_table.cc mysql_alter_table";
    AlterInstant = "alter_instant", "sql/sql_table.cc mysql_alter_table";
    CreateIndex = "create_index", "sql/sql_table.cc mysql_alter_table";
    Truncate = "truncate", "sql/sql_truncate.cc Sql_cmd_truncate_table::truncate_table";
    Rename = "rename", "sql/sql_rename.cc mysql_rename_tables";
    Drop = "drop", "sql/sql_table.cc mysql_rm_table";
    CreateTable = "create_table", "sql/sql_table.cc mysql_create_table";
    CreateLike = "create_like", "sql/sql_table.cc mysql_create_like_table";
    CreateSelect = "create_select", "sql/sql_insert.cc select_create::create_table_from_items";
    Analyze = "analyze", "sql/sql_admin.cc mysql_admin_table";
    Optimize = "optimize", "sql/sql_admin.cc mysql_admin_table";
    CheckTable = "check_table", "sql/sql_admin.cc mysql_admin_table";
    Repair = "repair", "sql/sql_admin.cc mysql_admin_table";
    CreateDb = "create_db", "sql/sql_db.cc mysql_create_db";
    DropDb = "drop_db", "sql/sql_db.cc mysql_rm_db";
    CreateTrigger = "create_trigger", "sql/sql_trigger.cc mysql_create_or_drop_trigger";
    DropTrigger = "drop_trigger", "sql/sql_trigger.cc mysql_create_or_drop_trigger";
    CreateView = "create_view", "sql/sql_view.cc mysql_create_view";
    DropView = "drop_view", "sql/sql_view.cc mysql_drop_view";
    CreateViewConst = "create_view_const", "sql/sql_view.cc mysql_create_view";
    CreateOrReplaceView = "create_or_replace_view", "sql/sql_view.cc mysql_create_view";
    AlterView = "alter_view", "sql/sql_view.cc mysql_create_view";
    SelectView = "select_view", "sql/sql_base.cc open_tables";
    InsertView = "insert_view", "sql/sql_base.cc open_tables";
    UpdateView = "update_view", "sql/sql_base.cc open_tables";
    DeleteView = "delete_view", "sql/sql_base.cc open_tables";
    LockReadView = "lock_read_view", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    LockWriteView = "lock_write_view", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    SelectViewTemptable = "select_view_temptable", "sql/sql_view.cc mysql_make_view (TEMPTABLE)";
    ShowCreateView = "show_create_view", "sql/sql_show.cc mysqld_show_create";
    CheckView = "check_view", "sql/sql_admin.cc mysql_admin_table (CHECK VIEW: open_only_one_table, required_type FRMTYPE_VIEW; view_check)";
    RepairView = "repair_view", "sql/sql_admin.cc mysql_admin_table (REPAIR VIEW: open_only_one_table, required_type FRMTYPE_VIEW; view_repair)";
    CheckViewConst = "check_view_const", "sql/sql_admin.cc mysql_admin_table (CHECK VIEW of a view with no table)";
    RepairViewConst = "repair_view_const", "sql/sql_admin.cc mysql_admin_table (REPAIR VIEW of a view with no table)";
    FkInsertParent = "fk_insert_parent", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkUpdateParent = "fk_update_parent", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkDeleteParent = "fk_delete_parent", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkInsertParentCascade = "fk_insert_parent_cascade", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkUpdateParentCascade = "fk_update_parent_cascade", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkDeleteParentCascade = "fk_delete_parent_cascade", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkInsertChild = "fk_insert_child", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkUpdateChild = "fk_update_child", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkDeleteChild = "fk_delete_child", "sql/sql_base.cc open_tables (prelocking of the foreign keys: prepare_fk_prelocking_list)";
    FkDropParent = "fk_drop_parent", "sql/sql_table.cc mysql_rm_table";
    FkAddCopy = "fk_add_copy", "sql/sql_table.cc mysql_alter_table";
    FlushTables = "flush_tables", "sql/sql_reload.cc reload_acl_and_cache (tdc_release_share of every table)";
    FlushTable = "flush_table", "sql/sql_reload.cc reload_acl_and_cache (REFRESH_TABLES with a table list)";
    Ftwrl = "ftwrl", "sql/lock.cc Global_read_lock::lock_global_read_lock";
    FtwrlTable = "ftwrl_table", "sql/sql_reload.cc flush_tables_with_read_lock";
    BackupStart = "backup_start", "sql/backup.cc backup_start";
    TableBackupLock = "table_backup_lock", "sql/backup.cc backup_lock";
    BackupFlush = "backup_flush", "sql/backup.cc backup_flush";
    BackupBlockDdl = "backup_block_ddl", "sql/backup.cc backup_block_ddl";
    BackupBlockCommit = "backup_block_commit", "sql/backup.cc backup_block_commit";
    BackupEnd = "backup_end", "sql/backup.cc backup_end";
    GetLock = "get_lock", "sql/item_func.cc Item_func_get_lock::val_int";
    ReleaseAllLocks = "release_all_locks", "sql/item_func.cc Item_func_release_all_locks::val_int";
    HandlerOpen = "handler_open", "sql/sql_handler.cc mysql_ha_open";
    HandlerRead = "handler_read", "sql/sql_handler.cc mysql_ha_read";
    CommitWrite = "commit_write", "sql/handler.cc ha_commit_trans (MDL_BACKUP_COMMIT)";
    ShowCreate = "show_create", "sql/sql_show.cc mysqld_show_create";
    ShowColumns = "show_columns", "sql/sql_show.cc fill_schema_table_by_open";
    Account = "account", "sql/sql_acl.cc mysql_grant";
    AccountColumn = "account_column", "sql/sql_acl.cc mysql_table_grant (a column list: open_normal_and_derived_tables)";
    CreateOrReplace = "create_or_replace", "sql/sql_table.cc mysql_create_table";
    AlterCopyLockNone = "alter_copy_lock_none", "sql/sql_table.cc mysql_alter_table";
    AlterCopyLockExclusive = "alter_copy_lock_exclusive", "sql/sql_table.cc mysql_alter_table";
    AlterInplaceLockShared = "alter_inplace_lock_shared", "sql/sql_table.cc mysql_alter_table";
    AlterInplaceLockExclusive = "alter_inplace_lock_exclusive", "sql/sql_table.cc mysql_alter_table";
    CreateUnknownEngine = "create_unknown_engine", "sql/sql_table.cc mysql_create_table";
    AlterUnknownEngine = "alter_unknown_engine", "sql/sql_table.cc mysql_alter_table";
    AlterRename = "alter_rename", "sql/sql_table.cc mysql_alter_table";
    AlterKeys = "alter_keys", "sql/sql_table.cc mysql_alter_table";
    AlterCopyRename = "alter_copy_rename", "sql/sql_table.cc mysql_alter_table";
    AlterInplaceRename = "alter_inplace_rename", "sql/sql_table.cc mysql_alter_table";
    AlterInstantRename = "alter_instant_rename", "sql/sql_table.cc mysql_alter_table";
    CreateOrReplaceLike = "create_or_replace_like", "sql/sql_table.cc mysql_create_like_table";
    CreateOrReplaceSelect = "create_or_replace_select", "sql/sql_insert.cc select_create::create_table_from_items";
    AlterDb = "alter_db", "sql/sql_db.cc mysql_alter_db";
    CacheIndex = "cache_index", "sql/sql_admin.cc mysql_assign_to_keycache";
    LoadIndex = "load_index", "sql/sql_admin.cc mysql_preload_keys";
    Checksum = "checksum", "sql/sql_table.cc mysql_checksum_table";
    FlushExport = "flush_export", "sql/sql_reload.cc flush_tables_with_read_lock (FOR EXPORT)";
    LoadData = "load_data", "sql/sql_load.cc mysql_load";
    ChecksumMulti = "checksum_multi", "sql/sql_table.cc mysql_checksum_table";
    SetGlobal = "set_global", "sql/set_var.cc sql_set_variables";
    SetGlobalReadOnly = "set_global_read_only", "sql/sys_vars.cc fix_read_only";
    FlushPrivileges = "flush_privileges", "sql/sql_reload.cc reload_acl_and_cache";
    FlushStatus = "flush_status", "sql/sql_reload.cc reload_acl_and_cache";
    FlushLogs = "flush_logs", "sql/sql_reload.cc reload_acl_and_cache";
    CreateProcedure = "create_procedure", "sql/sp.cc Sp_handler::sp_create_routine";
    DropProcedure = "drop_procedure", "sql/sp.cc Sp_handler::sp_drop_routine";
    AlterProcedure = "alter_procedure", "sql/sp.cc Sp_handler::sp_update_routine";
    CreateFunction = "create_function", "sql/sp.cc Sp_handler::sp_create_routine";
    DropFunction = "drop_function", "sql/sp.cc Sp_handler::sp_drop_routine";
    AlterFunction = "alter_function", "sql/sp.cc Sp_handler::sp_update_routine";
    CreateEvent = "create_event", "sql/events.cc Events::create_event";
    DropEvent = "drop_event", "sql/events.cc Events::drop_event";
    AlterEvent = "alter_event", "sql/events.cc Events::update_event";
    SelectFunction = "select_function", "sql/sql_base.cc open_and_process_routine";
    Nextval = "nextval", "sql/sql_sequence.cc SEQUENCE::next_value";
    Setval = "setval", "sql/sql_sequence.cc SEQUENCE::set_value";
    Lastval = "lastval", "sql/item_func.cc Item_func_lastval::val_int";
    LockReadSequence = "lock_read_sequence", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    LockWriteSequence = "lock_write_sequence", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    CreateSequence = "create_sequence", "sql/sql_table.cc mysql_create_table (sql/sql_sequence.cc)";
    CreateTableNextval = "create_table_nextval", "sql/sql_table.cc mysql_create_table";
    CreateTableLastval = "create_table_lastval", "sql/sql_table.cc mysql_create_table";
    CreateOrReplaceSequence = "create_or_replace_sequence", "sql/sql_table.cc mysql_create_table (sql/sql_sequence.cc)";
    CreateOrReplaceSequenceTable = "create_or_replace_sequence_table", "sql/sql_table.cc mysql_create_table (sql/sql_sequence.cc)";
    DropSequence = "drop_sequence", "sql/sql_table.cc mysql_rm_table";
    AlterSequence = "alter_sequence", "sql/sql_sequence.cc Sql_cmd_alter_sequence::execute";
    InsertSequence = "insert_sequence", "sql/ha_sequence.cc ha_sequence::write_row";
    CreateTableSequence = "create_table_sequence", "sql/sql_table.cc mysql_create_table (sql/sql_sequence.cc check_sequence_fields)";
    CreateSelectNextval = "create_select_nextval", "sql/sql_insert.cc select_create::create_table_from_items";
    CreateSelectLastval = "create_select_lastval", "sql/sql_insert.cc select_create::create_table_from_items";
    NopartAlter = "nopart_alter", "sql/sql_table.cc mysql_alter_table";
    NopartTruncate = "nopart_truncate", "sql/sql_partition_admin.cc Sql_cmd_alter_table_truncate_partition::execute";
    NopartAnalyze = "nopart_analyze", "sql/sql_admin.cc mysql_admin_table";
    NopartCheck = "nopart_check", "sql/sql_admin.cc mysql_admin_table";
    NopartOptimize = "nopart_optimize", "sql/sql_admin.cc mysql_admin_table";
    NopartRepair = "nopart_repair", "sql/sql_admin.cc mysql_admin_table";
    NopartExchange = "nopart_exchange", "sql/sql_partition_admin.cc Sql_cmd_alter_table_exchange_partition::exchange_partition";
    PartRemove = "part_remove", "sql/sql_table.cc mysql_alter_table";
    PartTruncate = "part_truncate", "sql/sql_partition_admin.cc Sql_cmd_alter_table_truncate_partition::execute";
    PartAnalyze = "part_analyze", "sql/sql_admin.cc mysql_admin_table";
    PartCheck = "part_check", "sql/sql_admin.cc mysql_admin_table";
    AlterPartitionBy = "alter_partition_by", "sql/sql_table.cc mysql_alter_table";
    SelectJoin = "select_join", "sql/sql_base.cc open_tables";
    SelectJoinRev = "select_join_rev", "sql/sql_base.cc open_tables";
    SelectSubquery = "select_subquery", "sql/sql_base.cc open_tables";
    InsertSelect = "insert_select", "sql/sql_base.cc open_tables";
    InsertSelectRev = "insert_select_rev", "sql/sql_base.cc open_tables";
    UpdateMulti = "update_multi", "sql/sql_base.cc open_tables";
    UpdateSubquery = "update_subquery", "sql/sql_base.cc open_tables";
    DeleteMulti = "delete_multi", "sql/sql_base.cc open_tables";
    DropMulti = "drop_multi", "sql/sql_table.cc mysql_rm_table";
    DropMultiRev = "drop_multi_rev", "sql/sql_table.cc mysql_rm_table";
    RenameMulti = "rename_multi", "sql/sql_rename.cc mysql_rename_tables";
    RenameMultiRev = "rename_multi_rev", "sql/sql_rename.cc mysql_rename_tables";
    LockMixed = "lock_mixed", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    LockMixedRev = "lock_mixed_rev", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    LockReadMulti = "lock_read_multi", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    LockWriteMultiRev = "lock_write_multi_rev", "sql/sql_parse.cc lock_tables_open_and_lock_tables";
    AnalyzeMulti = "analyze_multi", "sql/sql_admin.cc mysql_admin_table";
    FlushTableMulti = "flush_table_multi", "sql/sql_reload.cc reload_acl_and_cache (REFRESH_TABLES with a table list)";
    FlushTableMultiRev = "flush_table_multi_rev", "sql/sql_reload.cc reload_acl_and_cache (REFRESH_TABLES with a table list)";
    InstallPlugin = "install_plugin", "sql/sql_plugin.cc mysql_install_plugin";
    UninstallPlugin = "uninstall_plugin", "sql/sql_plugin.cc mysql_uninstall_plugin";
    Server = "server", "sql/sql_servers.cc create_server, alter_server, drop_server";
    CreateSelectJoin = "create_select_join", "sql/sql_insert.cc select_create::create_table_from_items";
    InstanceLock = "instance_lock", "MySQL sql/sql_backup_lock.cc Sql_cmd_lock_instance::execute";
    InstanceUnlock = "instance_unlock", "MySQL sql/sql_backup_lock.cc Sql_cmd_unlock_instance::execute";
    AnalyzePersistent = "analyze_persistent", "sql/sql_admin.cc mysql_admin_table, then sql/sql_statistics.cc update_statistics_for_table";
    CreatePackage = "create_package", "sql/sp.cc Sp_handler::sp_create_routine (Sp_handler_package_spec, MDL_key::PACKAGE_BODY)";
    CreatePackageBody = "create_package_body", "sql/sp.cc Sp_handler::sp_create_routine (Sp_handler_package_body, MDL_key::PACKAGE_BODY)";
    DropPackage = "drop_package", "sql/sp.cc Sp_handler::sp_drop_routine (Sp_handler_package_spec::sp_find_and_drop_routine)";
    DropPackageBody = "drop_package_body", "sql/sp.cc Sp_handler::sp_drop_routine (Sp_handler_package_body)";
    CallPackage = "call_package", "sql/sql_base.cc open_and_process_routine (the package body added by sql/sql_lex.cc LEX::call_statement_start)";
}

impl Kind {
    /// ANALYZE TABLE, plain or PERSISTENT FOR ALL (`mysql_admin_table`, sql/sql_admin.cc).
    pub fn is_analyze(self) -> bool {
        matches!(self, Kind::Analyze | Kind::AnalyzePersistent)
    }

    /// An ALTER statement of any object (its name starts with `alter_`: ALTER TABLE's
    /// algorithms and forms, ALTER VIEW / DATABASE / SEQUENCE / routine / event).
    pub fn is_alter(self) -> bool {
        self.as_str().starts_with("alter_")
    }

    /// ALTER TABLE of an algorithm with RENAME TO among its operations
    /// (`mysql_alter_table`: the algorithm's locks plus the new name's X).
    pub const fn with_rename(self) -> Option<Kind> {
        match self {
            Kind::AlterCopy => Some(Kind::AlterCopyRename),
            Kind::AlterInplace => Some(Kind::AlterInplaceRename),
            Kind::AlterInstant => Some(Kind::AlterInstantRename),
            _ => None,
        }
    }

    /// `BACKUP STAGE name` (sql/backup.cc `run_backup_stage`).
    pub fn backup_stage(name: &str) -> Option<Kind> {
        Some(match name {
            "start" => Kind::BackupStart,
            "flush" => Kind::BackupFlush,
            "block_ddl" => Kind::BackupBlockDdl,
            "block_commit" => Kind::BackupBlockCommit,
            "end" => Kind::BackupEnd,
            _ => return None,
        })
    }

    /// LOCK TABLES of any form (the kinds `lock_*`: READ, WRITE, of a view, of a
    /// sequence, of several tables).
    pub fn is_lock_tables(self) -> bool {
        self.as_str().starts_with("lock_")
    }

    /// LOCK TABLES ... READ of any form (the kinds `lock_read*`).
    pub fn is_lock_read(self) -> bool {
        self.as_str().starts_with("lock_read")
    }

    /// BACKUP STAGE BLOCK_DDL or BLOCK_COMMIT.
    pub const fn is_backup_block(self) -> bool {
        matches!(self, Kind::BackupBlockDdl | Kind::BackupBlockCommit)
    }

    /// A SELECT of any form (the kinds `select*`: locking reads, of a view, of a
    /// function, of several tables).
    pub fn is_select(self) -> bool {
        self.as_str().starts_with("select")
    }

    /// A HANDLER statement (OPEN, READ).
    pub const fn is_handler(self) -> bool {
        matches!(self, Kind::HandlerOpen | Kind::HandlerRead)
    }

    /// A BACKUP STAGE statement (`backup_start` .. `backup_end`).
    pub const fn is_backup_stage(self) -> bool {
        matches!(
            self,
            Kind::BackupStart
                | Kind::BackupFlush
                | Kind::BackupBlockDdl
                | Kind::BackupBlockCommit
                | Kind::BackupEnd
        )
    }

    /// A BACKUP STAGE after START (FLUSH, BLOCK_DDL, BLOCK_COMMIT, END): one that needs
    /// the session's earlier stage (sql/backup.cc `run_backup_stage`).
    pub const fn is_later_backup_stage(self) -> bool {
        self.is_backup_stage() && !matches!(self, Kind::BackupStart)
    }

    /// A DML statement that writes one table: INSERT, UPDATE, DELETE.
    pub const fn is_plain_write(self) -> bool {
        matches!(self, Kind::Insert | Kind::Update | Kind::Delete)
    }

    /// A partition statement on a table without partitions (`nopart_*` rows: the
    /// statement fails with ER_PARTITION_MGMT_ON_NONPARTITIONED after its locks).
    pub const fn is_nopart(self) -> bool {
        matches!(
            self,
            Kind::NopartAlter
                | Kind::NopartTruncate
                | Kind::NopartAnalyze
                | Kind::NopartCheck
                | Kind::NopartOptimize
                | Kind::NopartRepair
                | Kind::NopartExchange
        )
    }

    /// CREATE TRIGGER or DROP TRIGGER (sql/sql_trigger.cc `mysql_create_or_drop_trigger`).
    pub const fn is_trigger_ddl(self) -> bool {
        matches!(self, Kind::CreateTrigger | Kind::DropTrigger)
    }

    /// The kind whose learned session rules this kind shares, when it has none of its own:
    /// the package statements run the routine code paths (`sp_create_routine` /
    /// `sp_drop_routine` with `lock_object_name`, sql/sp.cc; a package routine's call
    /// locks its package body as a statement naming a stored function locks the function,
    /// `open_and_process_routine`, sql/sql_base.cc). Their rows are learned in Oracle mode,
    /// which the rule probes do not set (`models/sql/src/mapping/kinds.rs`).
    pub const fn rules_of(self) -> Option<Kind> {
        match self {
            Kind::CreatePackage | Kind::CreatePackageBody => Some(Kind::CreateProcedure),
            Kind::DropPackage | Kind::DropPackageBody => Some(Kind::DropProcedure),
            Kind::CallPackage => Some(Kind::SelectFunction),
            _ => None,
        }
    }

    /// ALTER TABLE in place (ALGORITHM=INPLACE or CREATE INDEX): `mysql_inplace_alter_table`'s
    /// upgrade to X at its end.
    pub const fn is_inplace_alter(self) -> bool {
        matches!(self, Kind::AlterInplace | Kind::CreateIndex)
    }
}

/// A kind name that is not a [`Kind`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown statement kind `{0}`")]
pub struct UnknownKind(pub String);

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A row name of the statement tables (`select`, `select.myisam`): its kind and variant.
pub fn parse_row(name: &str) -> Result<(Kind, RowVariant), UnknownKind> {
    match name.strip_suffix(MYISAM_SUFFIX) {
        Some(base) => Ok((base.parse()?, RowVariant::MyIsam)),
        None => Ok((name.parse()?, RowVariant::Base)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_name() {
        for k in Kind::ALL {
            assert_eq!(k.as_str().parse::<Kind>(), Ok(*k));
            assert_eq!(
                parse_row(k.row_name(RowVariant::MyIsam)),
                Ok((*k, RowVariant::MyIsam))
            );
            assert!(!k.server_function().is_empty());
        }
        assert_eq!(
            "alter_cpy".parse::<Kind>(),
            Err(UnknownKind("alter_cpy".into()))
        );
    }
}
