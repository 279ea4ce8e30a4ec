//! Accelerations, each checked against the reference model (`crate::engine::model`) and giving
//! the same figures: the [`data_plane`] counted once per source and window setting, sink tables
//! read emission by emission ([`emissions`]), keyframes and forked failure-free companions
//! ([`resume`]), the [`runner`] that reuses an earlier run's parts when a slider moves, the
//! finished run it hands out and what is kept with it for later runs ([`outcome`]), the
//! report's passes over the sink tables ([`figures`]) and the world at an instant read from a
//! finished run's trace ([`world_index`]). Each file names its reference and the test that holds
//! it to it.

pub mod data_plane;
pub mod emissions;
pub mod figures;
pub mod outcome;
pub mod resume;
pub mod runner;
pub mod world_index;
