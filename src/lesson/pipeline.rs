//! The pipeline view's words: the job's status at an instant (one of running, taking a
//! checkpoint, down, restarting, restoring, replaying, catching up, caught up, and in micro-batch
//! mode waiting for the trigger or running a batch) and the sentence that describes the world at
//! the cursor for readers who do not see the picture.

use serde::Serialize;

use crate::engine::fast::world_index::WorldIndex;
use crate::engine::model::trace::Phase;
use crate::engine::model::world::{BatchStage, CheckpointStage, World};
use crate::engine::settings::clock::{parse_clock, ClockTime};
use crate::engine::settings::config::Config;
use crate::engine::settings::units::{format_bytes, format_count, parse_duration_ms};
use crate::engine::Sim;

use super::report::{CheckpointSummary, LoggedBatch};
use super::timeline::{timeline, TimelineEntry};

/// What the pipeline view is drawn from where a run has no report: the run stopped where the
/// view first stands (the crash, or just after the first checkpoint), indexed as a whole run's
/// report indexes it, with no report made: a page's first picture, drawn in a few milliseconds
/// before the whole first run is ready.
#[derive(Clone, Debug)]
pub struct PipelinePreview {
    pub config: Config,
    pub world: WorldIndex,
    pub checkpoints: Vec<CheckpointSummary>,
    pub crash_offsets: Option<Vec<u64>>,
    pub offset_log: Vec<LoggedBatch>,
    pub timeline: Vec<TimelineEntry>,
}

impl PipelinePreview {
    /// The preview of `run`, with the whole run's report's words for what it holds.
    pub fn of_run(run: &Sim) -> PipelinePreview {
        let config = &run.config;
        PipelinePreview {
            config: config.clone(),
            world: WorldIndex::of_run(run),
            checkpoints: run.restore_points.iter().map(|c| CheckpointSummary::new(config, c)).collect(),
            crash_offsets: run.recoveries.first().map(|r| r.crash_offsets.clone()),
            offset_log: run.offset_log().iter().map(|e| LoggedBatch::new(config, e)).collect(),
            timeline: timeline(&run.trace, config.start_time_ms),
        }
    }
}

/// The job's status at an instant: a short word and the sentence that goes with it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Status {
    /// running, taking a checkpoint, down, restarting, restoring, replaying, catching up, caught
    /// up, waiting for the trigger, running a batch.
    pub word: &'static str,
    /// The word with its numbers: "restoring checkpoint 42: 1 GB of 2 GB".
    pub detail: String,
}

/// What a checkpoint in flight is doing, in words ("sync pause", "uploading 1.2 GB of 2 GB").
pub fn checkpoint_stage(stage: CheckpointStage, aligning: bool) -> String {
    match stage {
        CheckpointStage::BarrierInFlight if aligning => "aligning: inputs held until the barrier is in on all".into(),
        CheckpointStage::BarrierInFlight => "barrier in flight".into(),
        CheckpointStage::SyncPause => "sync pause".into(),
        CheckpointStage::Uploading { done_bytes, size_bytes } => {
            format!("uploading {} of {}", format_bytes(done_bytes as f64), format_bytes(size_bytes as f64))
        }
    }
}

/// What a restart restores: a checkpoint, or in micro-batch mode the state the last committed
/// batch left (Spark loads that state store version, then runs the batches after it).
fn restored_point(config: &Config, id: u64) -> String {
    if config.mode.runs_batches() {
        format!("batch {id}'s state")
    } else {
        format!("checkpoint {id}")
    }
}

/// The job's status in `world`.
pub fn status(world: &World, config: &Config) -> Status {
    let crash = world.crash.as_ref();
    let restore_from = crash.map_or(0, |c| c.restore_from);
    let restored = restored_point(config, restore_from);
    let (word, detail) = match world.phase {
        Phase::Detecting => (
            "down",
            format!(
                "down since {}: the failure is not detected yet; {restored} will be restored",
                crash.map_or_else(String::new, |c| ClockTime(c.at_ms).to_string())
            ),
        ),
        Phase::Restarting => (
            "restarting",
            format!(
                "restarting with backoff: the failure was detected; the restart waits until {}, then \
                 {restored} will be restored",
                crash.map_or_else(String::new, |c| ClockTime(c.restore_started_at_ms).to_string())
            ),
        ),
        Phase::Restoring => {
            let (done, total) = world.restore.as_ref().map_or((0, 0), |r| (r.done_bytes, r.total_bytes));
            (
                "restoring",
                format!("restoring {restored}: {} of {}", format_bytes(done as f64), format_bytes(total as f64)),
            )
        }
        Phase::Replaying => (
            "replaying",
            format!(
                "replaying from offset {} to the crash offset {}",
                format_count(crash.map_or(0, |c| c.restore_offset)),
                format_count(crash.map_or(0, |c| c.offset))
            ),
        ),
        Phase::CatchingUp => {
            ("catching up", format!("catching up: {} events behind the log end", format_count(world.lag_events)))
        }
        _ => match (&world.checkpoint, &world.batch) {
            (Some(c), _) => (
                "taking a checkpoint",
                format!("taking a checkpoint ({}): {}", c.checkpoint_id, checkpoint_stage(c.stage, c.aligning)),
            ),
            (None, Some(b)) => (
                "running a batch",
                match b.stage {
                    BatchStage::WritingOffsetLog => {
                        format!("running a batch ({}): writing its offsets to the offset log", b.batch_id)
                    }
                    BatchStage::Processing => format!(
                        "running a batch ({}{}): processing offsets {} to {}",
                        b.batch_id,
                        if b.rerun { " (again)" } else { "" },
                        format_count(b.start_offset),
                        format_count(b.end_offset)
                    ),
                    BatchStage::Committing => {
                        format!("running a batch ({}): writing the state store version and the commit log", b.batch_id)
                    }
                },
            ),
            (None, None) if world.caught_up() => (
                "caught up",
                format!(
                    "caught up at {}, {} s after the crash",
                    crash.and_then(|c| c.caught_up_at_ms).map_or_else(String::new, |t| ClockTime(t).to_string()),
                    crash
                        .and_then(|c| c.caught_up_at_ms.map(|t| (t - c.at_ms) as f64 / 1000.0))
                        .map_or_else(String::new, |s| format!("{s:.1}"))
                ),
            ),
            (None, None) if world.phase == Phase::WaitingForTrigger => {
                ("waiting for the trigger", "waiting for the next trigger".to_string())
            }
            (None, None) => ("running", "running".to_string()),
        },
    };
    Status { word, detail }
}

/// The sentence describing `world`: the clock, the status, the checkpoint in progress or being
/// restored, the offsets being read, the lag, and each sink's rows and duplicates so far.
pub fn description(world: &World, config: &Config) -> String {
    let status = status(world, config);
    let mut out = format!("{}. Status: {}.", ClockTime(world.at_ms), status.detail);
    match (&world.checkpoint, &world.batch, &world.crash) {
        (_, _, Some(c)) if world.phase == Phase::Restoring => {
            out += &format!(" Restoring {}.", restored_point(config, c.restore_from))
        }
        (_, _, Some(c)) if matches!(world.phase, Phase::Detecting | Phase::Restarting) => {
            out += &format!(" To restore: {}.", restored_point(config, c.restore_from))
        }
        (Some(c), _, _) => out += &format!(" Checkpoint in progress: {}.", c.checkpoint_id),
        (None, Some(b), _) => out += &format!(" Batch in progress: {}.", b.batch_id),
        _ => {}
    }
    if let Some(&last) = world.completed.last() {
        let point = config.mode.words().restorable;
        out += &format!(" Last {point}: {last}.");
    }
    let (lo, hi) = (world.offsets.iter().min().copied().unwrap_or(0), world.offsets.iter().max().copied().unwrap_or(0));
    let reading = if matches!(world.phase, Phase::Detecting | Phase::Restarting | Phase::Restoring) {
        "Readers stopped at offset"
    } else {
        "Reading at offset"
    };
    out += &format!(
        " {reading} {} (per partition {}{}), log end {}, lag {} events.",
        format_count(world.position),
        format_count(lo),
        if hi != lo { format!(" to {}", format_count(hi)) } else { String::new() },
        format_count(world.log_end),
        format_count(world.lag_events)
    );
    let s = &world.sinks;
    out += &format!(
        " Sinks so far: append-only {} rows, {} duplicates; upsert {} rows, {} duplicates; {} {} rows, {} \
         duplicates; dedupe view {} rows, {} duplicates.",
        format_count(s.append_only.rows),
        format_count(s.append_only.duplicate_rows),
        format_count(s.upsert.rows),
        format_count(s.upsert.duplicate_rows),
        // Spark's sink writes idempotently by batch id, with no transaction.
        config.mode.words().transactional_sink,
        format_count(s.transactional.rows),
        format_count(s.transactional.duplicate_rows),
        format_count(s.dedupe_view.rows),
        format_count(s.dedupe_view.duplicate_rows),
    );
    out
}

/// A cursor as a person writes it, on the clock: a clock time ("10:00:58", "10:00:58.500") or a
/// time relative to the crash ("crash", "crash+1s", "crash-500ms"), which follows the crash when
/// the student moves it. Errors say what was expected.
pub fn parse_cursor(config: &Config, text: &str) -> Result<u64, String> {
    let Some(relative) = text.trim().strip_prefix("crash") else { return parse_clock(text) };
    let crash_ms = config.crash_at_ms.ok_or("the scenario has no crash to count from")?;
    let (sign, amount) = match relative.trim_start().chars().next() {
        None => return Ok(crash_ms),
        Some(sign @ ('+' | '-')) => (sign, relative.trim_start()[1..].trim()),
        Some(_) => return Err(format!("expected crash, crash+1s or crash-2s (got {text:?})")),
    };
    let offset_ms = parse_duration_ms(amount)?;
    let at = if sign == '+' { crash_ms.checked_add(offset_ms) } else { crash_ms.checked_sub(offset_ms) };
    at.ok_or_else(|| format!("{text:?} falls before midnight"))
}

/// Whether a cursor is written relative to the crash, so that it follows the crash.
pub fn follows_crash(text: &str) -> bool {
    text.trim().starts_with("crash")
}

/// Where the cursor stands before the student moves it: the crash, or without one the first
/// checkpoint's barrier and a second.
pub fn default_cursor_ms(config: &Config) -> u64 {
    let at = config.crash_at_ms.unwrap_or(config.start_time_ms + config.interval_ms + 1_000);
    at.clamp(config.start_time_ms, config.end_ms())
}

/// The instant `cursor_s` seconds after the scenario start, or before the cursor moves (`None`),
/// the default instant.
pub fn cursor_ms(config: &Config, cursor_s: Option<f64>) -> u64 {
    match cursor_s {
        Some(s) if s.is_finite() => config.start_time_ms.saturating_add((s.max(0.0) * 1000.0).round() as u64),
        _ => default_cursor_ms(config),
    }
}

/// Rows and duplicates of one sink so far, as the page reads them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SinkCounts {
    pub rows: u64,
    pub duplicate_rows: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SinksView {
    pub append_only: SinkCounts,
    pub upsert: SinkCounts,
    pub transactional: SinkCounts,
    pub dedupe_view: SinkCounts,
}

/// The world at the cursor as the page reads it: numbers, the status and the description.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorldView {
    pub at: super::timeline::Stamp,
    pub phase: Phase,
    pub status: &'static str,
    pub detail: String,
    pub description: String,
    /// One line for a chart's hover readout: "10:00:50 · detecting · lag 40,000 · offset 1,060,000".
    pub readout: String,
    /// The checkpoint (or batch) in flight.
    pub checkpoint: Option<u64>,
    /// The restore point a crash loads, from the crash until the restore finishes.
    pub restoring: Option<u64>,
    pub position: u64,
    pub offsets: Vec<u64>,
    pub log_end: u64,
    pub lag_events: u64,
    pub sinks: SinksView,
}

impl WorldView {
    pub fn new(world: &World, config: &Config) -> WorldView {
        let s = status(world, config);
        let counts =
            |c: crate::engine::model::world::SinkSoFar| SinkCounts { rows: c.rows, duplicate_rows: c.duplicate_rows };
        WorldView {
            at: super::timeline::Stamp::new(config, world.at_ms),
            phase: world.phase,
            status: s.word,
            detail: s.detail,
            description: description(world, config),
            readout: format!(
                "{} · {} · lag {} · offset {}",
                super::timeline::Stamp::new(config, world.at_ms).at,
                s.word,
                crate::engine::settings::format_unit(crate::engine::settings::Unit::Count, world.lag_events as f64),
                crate::engine::settings::format_unit(crate::engine::settings::Unit::Count, world.position as f64)
            ),
            checkpoint: world.checkpoint.as_ref().map(|c| c.checkpoint_id).or(world.batch.as_ref().map(|b| b.batch_id)),
            restoring: world
                .crash
                .as_ref()
                .filter(|_| matches!(world.phase, Phase::Detecting | Phase::Restarting | Phase::Restoring))
                .map(|c| c.restore_from),
            position: world.position,
            offsets: world.offsets.clone(),
            log_end: world.log_end,
            lag_events: world.lag_events,
            sinks: SinksView {
                append_only: counts(world.sinks.append_only),
                upsert: counts(world.sinks.upsert),
                transactional: counts(world.sinks.transactional),
                dedupe_view: counts(world.sinks.dedupe_view),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_a_clock_time_or_a_time_from_the_crash() {
        let config = Config::default();
        assert_eq!(parse_cursor(&config, "10:00:58"), Ok(36_058_000));
        assert_eq!(parse_cursor(&config, "crash"), Ok(36_045_000));
        assert_eq!(parse_cursor(&config, "crash+1s"), Ok(36_046_000));
        assert_eq!(parse_cursor(&config, "crash - 500ms"), Ok(36_044_500));
        let later = Config { crash_at_ms: Some(36_070_000), ..Config::default() };
        assert_eq!(parse_cursor(&later, "crash+1s"), Ok(36_071_000), "it follows the crash");
        assert!(parse_cursor(&later, "crash*2").unwrap_err().contains("crash+1s"));
        let none = Config { crash_at_ms: None, ..Config::default() };
        assert!(parse_cursor(&none, "crash+1s").unwrap_err().contains("no crash"));
        assert!(follows_crash("crash+1s") && !follows_crash("10:00:46"));
    }
}
