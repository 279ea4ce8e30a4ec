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
pub mod scenarios;
pub mod timeline;

pub use report::{report, Report, Summary};

use crate::engine::{self, Config, ConfigError};

/// Runs a scenario and returns its report.
pub fn simulate(config: &Config) -> Result<Report, ConfigError> {
    Ok(report(engine::run(config)?.figures()))
}
