//! The streaming engine: pure Rust, no clock and no web crates. A scenario runs on virtual time
//! from one seed; the same configuration gives the same report natively and in WebAssembly.

pub mod checkpoint;
pub mod clock;
pub mod config;
pub mod exercise;
pub mod model;
pub mod operators;
pub mod report;
pub mod sim;
pub mod sinks;
pub mod source;
pub mod units;

pub use config::{Alignment, Config, ConfigError, Snapshots, MEMORY_BUDGET_BYTES};
pub use report::{Outcome, Report};
pub use sim::Sim;
pub use sinks::SinkDesign;

/// Runs a scenario to its horizon, together with its failure-free companion (the same run with
/// the crash cancelled, forked at the crash instant so the shared prefix is simulated once).
pub fn run(config: &Config) -> Result<Outcome, ConfigError> {
    let mut sim = Sim::new(config)?;
    let failure_free = config.crash_at_ms.map(|crash_at| {
        sim.run_until(crash_at);
        let mut truth = sim.clone();
        truth.cancel_crashes();
        truth.run_to_end();
        truth
    });
    sim.run_to_end();
    Ok(Outcome { run: sim, failure_free })
}

/// Like [`run`], but when `previous` ran the same scenario with another crash time, its
/// failure-free run is reused instead of simulated again: dragging the crash-time slider only
/// simulates the crashed run. The outcome is the same as `run(config)`.
pub fn run_reusing(config: &Config, previous: Option<&Outcome>) -> Result<Outcome, ConfigError> {
    let reusable = previous.filter(|p| {
        let same = Config { crash_at_ms: config.crash_at_ms, ..p.run.config.clone() };
        same == *config && config.crash_at_ms.is_some()
    });
    let Some(previous) = reusable else { return run(config) };
    let mut sim = Sim::new(config)?;
    sim.run_to_end();
    let mut truth = previous.truth().clone();
    truth.config.crash_at_ms = config.crash_at_ms;
    Ok(Outcome { run: sim, failure_free: Some(truth) })
}

/// Runs a scenario and returns its report.
pub fn simulate(config: &Config) -> Result<Report, ConfigError> {
    Ok(run(config)?.report())
}
