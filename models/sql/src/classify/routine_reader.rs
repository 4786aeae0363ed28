//! The state of the stored-program body reader (`routine_block.rs`, with its parts in
//! `routine_cond.rs`, `routine_decl.rs`, `routine_diag.rs`): where it is in the body,
//! the labels, variables, conditions and handlers in scope, what the body has done that a
//! function may not (`sp_head::m_flags`), and why a body is not played.

use super::Tok;

/// The kind of stored program a body belongs to (`enum_sp_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctx {
    Procedure,
    Function,
    Trigger,
    Event,
}

/// Why a body is not played as a definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// The reader does not follow this construct.
    Refused(String),
    /// The server's parser refuses the definition with this error (no lock taken).
    Fails(u32),
}

/// What `is_not_allowed_in_function` looks at (`sp_head::m_flags`).
#[derive(Default)]
pub(super) struct Flags {
    pub(super) dynamic: bool,
    pub(super) multi_results: bool,
    pub(super) autocommit: bool,
    pub(super) commit: bool,
    pub(super) reset: bool,
    pub(super) flush: bool,
    pub(super) has_return: bool,
    pub(super) fetch_group: bool,
}

pub(super) struct Reader<'a> {
    pub(super) t: &'a [Tok],
    pub(super) i: usize,
    pub(super) ctx: Ctx,
    /// The enclosing labels, with whether each labels a loop.
    pub(super) labels: Vec<(String, bool)>,
    pub(super) stmts: Vec<&'a [Tok]>,
    pub(super) flags: Flags,
    /// The variables DECLAREd so far (any block: GET DIAGNOSTICS targets).
    pub(super) vars: Vec<String>,
    /// CREATE AGGREGATE FUNCTION.
    pub(super) aggregate: bool,
    /// The conditions DECLAREd so far, with whether each has a SQLSTATE.
    pub(super) conds: Vec<(String, bool, String)>,
    /// Per open block, the condition values its handlers name.
    pub(super) handlers: Vec<Vec<String>>,
    /// Per open block, the names it declares (`routine_dups.rs`).
    pub(super) blocks: Vec<Declared>,
}

/// What one block declares, by kind (each its own name space, `routine_dups.rs`).
#[derive(Default)]
pub(super) struct Declared {
    pub(super) vars: Vec<String>,
    pub(super) conds: Vec<String>,
    pub(super) cursors: Vec<String>,
}

pub(super) fn refused<T>(what: &str) -> Result<T, Why> {
    Err(Why::Refused(format!(
        "{what} in a stored program's body is not modelled (classify/routine_block.rs)"
    )))
}
