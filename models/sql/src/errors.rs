//! Server error numbers shared by the classifier and the catalog.

/// ER_UNKNOWN_SEQUENCES.
pub const ER_UNKNOWN_SEQUENCES: u32 = 4091;

/// ER_NOT_SEQUENCE.
pub const ER_NOT_SEQUENCE: u32 = 4089;

/// ER_NOT_SEQUENCE2 (DROP SEQUENCE of a table).
pub const ER_NOT_SEQUENCE2: u32 = 4090;

/// ER_NOT_STANDARD_COMPLIANT_RECURSIVE: a recursive CTE the standard does not allow,
/// found by `JOIN::prepare` once `open_and_lock_tables` has locked the statement's
/// tables, so in a transaction the failed statement keeps them (measured:
/// suite/cte-in-dml.mdl).
pub const ER_NOT_STANDARD_COMPLIANT_RECURSIVE: u32 = 4008;

/// ER_PASSWORD_NO_MATCH: GRANT / ALTER USER / SET PASSWORD of a user that does not exist.
pub const ER_PASSWORD_NO_MATCH: u32 = 1133;

/// ER_FILE_EXISTS_ERROR: SELECT ... INTO OUTFILE of a file that exists
/// (`classify/into_outfile.rs`).
pub const ER_FILE_EXISTS: u32 = 1086;
