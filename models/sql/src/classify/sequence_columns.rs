//! A sequence's table structure (`check_sequence_fields`, sql/sql_sequence.cc): its eight
//! columns, and whether a table's known columns are they. Read by CREATE TABLE ...
//! SEQUENCE=1 (`sequence_table.rs`) and ALTER TABLE ... SEQUENCE=1 (`sequence_alter.rs`).

/// ER_SEQUENCE_INVALID_TABLE_STRUCTURE.
pub const ER_SEQUENCE_INVALID_TABLE_STRUCTURE: u32 = 4086;

/// The columns of a sequence (`sequence_structure`, sql/sql_sequence.cc): name, type,
/// UNSIGNED.
pub(super) const COLUMNS: [(&str, &str, bool); 8] = [
    ("next_not_cached_value", "bigint", false),
    ("minimum_value", "bigint", false),
    ("maximum_value", "bigint", false),
    ("start_value", "bigint", false),
    ("increment", "bigint", false),
    ("cache_size", "bigint", true),
    ("cycle_option", "tinyint", true),
    ("cycle_count", "bigint", false),
];

/// Whether a table's known columns are a sequence's (`check_sequence_fields`): the
/// eight columns by name, type, UNSIGNED and NOT NULL, no key, no CHECK.
pub(super) fn is_sequence_structure(def: &crate::table_def::TableDef) -> bool {
    def.keys.is_empty()
        && def.checks.is_empty()
        && def.cols.len() == COLUMNS.len()
        && def
            .cols
            .iter()
            .zip(COLUMNS)
            .all(|(c, (name, ty, unsigned))| {
                c.name.eq_ignore_ascii_case(name)
                    && c.ty.base == ty
                    && c.ty.unsigned == unsigned
                    && c.not_null
                    && !c.auto_inc
            })
}
