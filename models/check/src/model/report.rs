//! What `mdl check` prints: the text and JSON results, the replay scenario of a
//! counterexample, and the Markdown report with Mermaid diagrams.
//!
//! One file per output: `trace.rs` (a trace, a state, edges and deadlocks in words, which
//! the others use), `coverage.rs` (what a run covered, in words), `text.rs`, `json.rs`, `replay.rs`, `markdown.rs`.

mod coverage;
mod json;
mod markdown;
mod replay;
mod text;
mod trace;

pub use coverage::{actions_text, bytes_text, coverage_text};
pub use json::json;
pub use markdown::{dot_string, markdown, mermaid_text, wait_for_dot, wait_for_graph};
pub use replay::replay_scenario;
pub use text::{text, Replays};
pub use trace::{
    action_name, action_text, deadlocks, event_text, labelled_edges, record_text, state_summary,
    state_table, trace_text, violation_detail, DeadlockView, Edge,
};
