//! The decision layer: lock types, keys, dialects, per-lock state, ticket books, errors, the
//! wait-for graph and the step layer that turns a request into a plan. Pure, sequential
//! code: it imports neither shell ([`crate::table`], [`crate::manager`]) and no
//! synchronisation beyond the key's shared data ([`crate::sync::DataArc`]).

#[doc(hidden)]
pub mod book;
#[doc(hidden)]
pub mod deadlock;
#[doc(hidden)]
pub mod dialect;
pub mod error;
#[doc(hidden)]
pub mod key;
#[doc(hidden)]
pub mod lock;
#[doc(hidden)]
pub mod step;
#[doc(hidden)]
pub mod types;
