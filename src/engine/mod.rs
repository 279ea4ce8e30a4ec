//! The streaming engine: pure Rust, no clock and no web crates. A scenario runs on virtual time
//! from one seed; the same configuration gives the same report natively and in WebAssembly.
//!
//! - [`model`]: the reference, what the lesson teaches: the source, the job and its operators
//!   and sinks, the two restart protocols, the per-event step loop ([`Sim`]), its trace, and the
//!   report and the world read from that trace.
//! - [`fast`]: the accelerations that must equal the reference: the data plane, keyframes and
//!   reused runs ([`Runner`]), the report's passes over the sink tables, the world index.
//! - [`settings`]: the one table of settings, the [`Config`] it validates, units and clock times.

pub mod fast;
pub mod model;
pub mod settings;

pub use fast::outcome::Outcome;
pub use fast::runner::{run, run_reusing, run_up_to, Runner};
pub use model::report::Figures;
pub use model::sim::Sim;
pub use model::sinks::SinkDesign;
pub use settings::config::{Alignment, Config, ConfigError, Mode, Snapshots, MEMORY_BUDGET_BYTES};
