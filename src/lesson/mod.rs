//! The lesson layer: the words between the engine's numbers and the edges (web, command line).
//! The engine reports typed facts; this layer narrates them (the crash table, warnings, why a
//! run never caught up, each sink's guarantee), builds the serde report the edges hand out,
//! turns settings into Flink and Spark configuration, and holds the exercises and scenarios.

pub mod controls;
pub mod exercise;
pub mod export;
pub mod narration;
pub mod pipeline;
pub mod report;
pub mod runs;
pub mod scenarios;
pub mod sink_table;
pub mod timeline;
pub mod view;

pub use report::{report, Report, Summary};

use crate::engine::{self, Config, ConfigError};

/// Runs a scenario and returns its report.
pub fn simulate(config: &Config) -> Result<Report, ConfigError> {
    Ok(report(engine::run(config)?.figures()))
}

/// Events a preview processes at most: about a tenth of the lesson's default run, a few
/// milliseconds even before the browser has optimised the engine.
pub const PREVIEW_EVENTS: u64 = 250_000;

/// The first screen of a scenario: the run only up to where the pipeline view first stands (the
/// crash, or without one, just after the first checkpoint), without a report. The view drawn from
/// it is the view drawn from the whole run there, so a page can show it first, before the whole
/// run is ready. `None` when it would process more than [`PREVIEW_EVENTS`] events.
pub fn preview(config: &Config) -> Result<Option<pipeline::PipelinePreview>, ConfigError> {
    let outcome = engine::run_up_to(config, pipeline::default_cursor_ms(config), PREVIEW_EVENTS)?;
    Ok(outcome.map(|o| pipeline::PipelinePreview::of_run(&o.run)))
}
