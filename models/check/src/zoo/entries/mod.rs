//! The entries of the zoo: for each historical design, the old one (which the checker must
//! catch) and the fixed one (whose properties must hold). The entries are grouped by theme
//! in the submodules; this file has the entry type, the helpers they share and the list.

mod ddl;
mod detector;
mod findings;
mod ftwrl;
mod liveness;
mod purge;
mod server;
mod soft;
mod thr_lock;
mod victims;

pub use findings::{skipped_hog_design, switch_cycle_design};
pub use liveness::snrw_stream;

use super::engine::*;
use mdl_core::dialect::Dialect;
use mdl_core::key::MdlKey;
use mdl_core::types::{Duration, LockType, TypeSet};

use Duration::{Explicit as EXPL, Statement as STMT, Transaction as TXN};

/// One entry of the zoo.
pub struct Entry {
    /// Short name (`--entry NAME`).
    pub id: &'static str,
    pub title: &'static str,
    /// The bug tracker reference.
    pub bug: &'static str,
    /// Where to read about it (empty: no single tracker entry).
    pub link: &'static str,
    /// What happened in the real server (Markdown).
    pub story: &'static str,
    /// The old design as modelled (Markdown).
    pub old_text: &'static str,
    /// The fix as modelled (Markdown).
    pub fix: &'static str,
    pub old: Design,
    pub new: Design,
    /// Further runs shown on the page (e.g. the same design with the tables' names
    /// swapped), each expected to be caught or to hold.
    pub variants: Vec<Variant>,
}

/// A design beside an entry's old and new ones.
pub struct Variant {
    pub label: &'static str,
    pub design: Design,
    pub expect_caught: bool,
}

fn single(d: &Dialect, ns: &str) -> MdlKey {
    MdlKey::singleton(d.namespace_by_name(ns).expect("namespace"))
}

fn tbl(d: &Dialect, name: &str) -> MdlKey {
    MdlKey::new(d.namespace_by_name("TABLE").expect("TABLE"), "test", name)
}

fn res(name: &'static str, kind: Kind, subsystem: &'static str) -> ResourceDef {
    ResourceDef {
        name,
        kind,
        subsystem,
    }
}

/// Every entry, in order.
pub fn all() -> Vec<Entry> {
    vec![
        ddl::update_vs_alter(),
        victims::needless_deadlock(),
        ftwrl::handler_vs_ftwrl(),
        ftwrl::ftwrl_starvation(),
        ddl::analyze_pileup(),
        purge::purge_temp_name(),
        purge::temp_name_review(),
        victims::lock_tables_deadlock(),
        victims::victim_livelock(),
        ftwrl::backup_lock_order(),
        ddl::fk_metadata(),
        detector::two_cycles(),
        detector::alter_under_transaction(),
        thr_lock::show_under_lock_tables(),
        thr_lock::read_no_insert_vs_alter(),
        thr_lock::lock_tables_read_four_way(),
        liveness::snrw_starves_readers(),
        detector::lock_tables_name_order(),
        server::backup_tool_cycle(),
        thr_lock::wrong_lock_type(),
        thr_lock::merge_children(),
        server::create_database_mutex(),
        server::alter_database_commits(),
        soft::sr_then_sw(),
        findings::mariadb_skipped_hog(),
        findings::mysql_switch_cycle(),
    ]
}
