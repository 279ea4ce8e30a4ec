//! The reference model: what the lesson teaches, simulated one event at a time. A partitioned,
//! replayable [`source`] feeds the [`job`] (its [`operators`] and [`sinks`]); one of two restart
//! [`protocol`]s (barrier [`checkpoint`]s or micro-batches) decides when it pauses, what it
//! snapshots and when its output commits; a crash comes back by the [`restart`] strategy. The
//! step loop ([`sim`]) records what happens in the typed [`trace`]; the [`report`]'s figures and
//! the [`world`] at an instant are read from it. [`steady_state`] is the closed-form cycle the
//! trade-off chart sweeps, checked against full simulations.
//!
//! Everything in `crate::engine::fast` must give the same figures as this.

pub mod checkpoint;
pub mod job;
pub mod operators;
pub mod protocol;
pub mod report;
pub mod restart;
pub mod sim;
pub mod sinks;
pub mod source;
pub mod steady_state;
pub mod trace;
pub mod world;
