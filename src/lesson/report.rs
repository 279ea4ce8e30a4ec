//! The report: one serde structure with everything the command line prints, the page draws and
//! the exercises check, built from the engine's figures. Every instant is a `Stamp`: clock text
//! ("10:00:32.100"), milliseconds since midnight and seconds since the scenario start. Field by
//! field documentation is in docs/report.md. Each field is declared once, in
//! `report_and_summary!`, with how it is read from the figures and what the headline `Summary`
//! takes of it. The fields marked `serde(skip)` are not part of the JSON: they are what the charts
//! read beyond it.

use serde::Serialize;

use super::narration;
pub use super::timeline::Stamp;
use super::timeline::{series, timeline, Sample, TimelineEntry};
use crate::engine::fast::world_index::WorldIndex;
use crate::engine::model::protocol::{OffsetLogEntry, RestorePoint};
use crate::engine::model::report::{self as figures, Figures, OffsetRange, SinkTables};
use crate::engine::model::sinks::SinkDesign;
use crate::engine::model::steady_state::{SteadyState, Tradeoff};
use crate::engine::settings::clock::seconds;
use crate::engine::settings::config::Config;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct CheckpointSummary {
    pub id: u64,
    pub barrier_at: Stamp,
    pub completed_at: Stamp,
    /// Sum of partition offsets the checkpoint restores to.
    pub offset: u64,
    pub offsets: Vec<u64>,
    pub size_bytes: u64,
    pub in_flight_bytes: u64,
    pub duration_ms: u64,
    pub alignment_ms: u64,
    pub sync_ms: u64,
    pub processing_ms: u64,
    pub upload_ms: u64,
    pub attempt: u32,
}

impl CheckpointSummary {
    /// A completed checkpoint, or a committed batch in the same terms: planned at its "barrier",
    /// the offset-log write as its sync, the state store write as its upload.
    pub(crate) fn new(config: &Config, point: &RestorePoint) -> Self {
        match point {
            RestorePoint::Checkpoint(c) => CheckpointSummary {
                id: c.id,
                barrier_at: Stamp::new(config, c.barrier_at_ms),
                completed_at: Stamp::new(config, c.completed_at_ms),
                offset: c.offset,
                offsets: c.offsets.clone(),
                size_bytes: c.size_bytes,
                in_flight_bytes: c.in_flight_bytes,
                duration_ms: c.duration_ms,
                alignment_ms: c.alignment_ms,
                sync_ms: c.sync_ms,
                processing_ms: 0,
                upload_ms: c.upload_ms,
                attempt: c.attempt,
            },
            RestorePoint::Batch(b) => CheckpointSummary {
                id: b.batch_id,
                barrier_at: Stamp::new(config, b.planned_at_ms),
                completed_at: Stamp::new(config, b.committed_at_ms),
                offset: b.end_offset,
                offsets: b.end_offsets.clone(),
                size_bytes: b.state_store_bytes,
                in_flight_bytes: 0,
                duration_ms: b.committed_at_ms - b.planned_at_ms,
                alignment_ms: 0,
                sync_ms: b.offset_log_write_ms,
                processing_ms: b.processing_ms,
                upload_ms: b.state_store_write_ms,
                attempt: b.attempt,
            },
        }
    }
}

/// Micro-batch mode: one offset-log entry, what batch `batch_id` reads, fixed before it runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct LoggedBatch {
    pub batch_id: u64,
    /// When the driver planned the batch (its trigger).
    pub planned_at: Stamp,
    /// The batch's event-time boundary: its input is every event before it.
    pub boundary: Stamp,
    /// When the entry was durable in the offset log.
    pub written_at: Stamp,
    /// Where the batch starts (the previous batch's end) and ends, summed over partitions.
    pub start_offset: u64,
    pub end_offset: u64,
    pub end_offsets: Vec<u64>,
}

impl LoggedBatch {
    pub(crate) fn new(config: &Config, e: &OffsetLogEntry) -> Self {
        LoggedBatch {
            batch_id: e.batch_id,
            planned_at: Stamp::new(config, e.planned_at_ms),
            boundary: Stamp::new(config, e.boundary_ms),
            written_at: Stamp::new(config, e.written_at_ms),
            start_offset: e.start_offset,
            end_offset: e.end_offset,
            end_offsets: e.end_offsets.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct CrashSummary {
    pub at: Stamp,
    /// The readers' total position at the crash.
    pub offset: u64,
    pub offsets: Vec<u64>,
    /// The checkpoint in flight at the crash, discarded.
    pub discarded_checkpoint: Option<u64>,
}

/// Duration of each recovery phase, in seconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct RecoveryPhases {
    pub detection_s: f64,
    pub restart_s: f64,
    pub restore_s: f64,
    /// Restore until the readers are back at the crash offset.
    pub replay_s: Option<f64>,
    /// From there until the backlog is gone.
    pub catch_up_s: Option<f64>,
}

/// What one sink design stores and what its readers see.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct SinkFigures {
    pub design: SinkDesign,
    pub guarantee: &'static str,
    /// Rows stored (for the view: rows the query returns).
    pub rows: u64,
    /// Rows repeating an earlier row's (product_id, window_start, order_count).
    pub duplicate_rows: u64,
    /// Distinct (product_id, window_start) keys among the rows: rows == keys means one row per key.
    pub keys: u64,
    /// Writes that replaced a key's running total with a smaller one (upsert).
    pub regressions: u64,
    /// Rows written but aborted with their transaction (transactional).
    pub aborted_rows: u64,
    /// Rows of pre-committed transactions the broker aborted at their timeout: lost.
    pub timed_out_rows: u64,
    /// Rows a `read_uncommitted` reader saw that were later aborted.
    pub aborted_rows_seen: u64,
    /// Longest time with nothing fresher to read.
    pub silent_ms: u64,
    /// Worst staleness: now minus the newest event time a reader can see.
    pub staleness_max_ms: u64,
    /// Whether a reader at the end of the run sees what a failure-free run shows.
    pub matches_failure_free: bool,
    /// Events the log no longer held when a restore needed them: missing from this sink.
    pub lost_events: u64,
}

impl SinkFigures {
    fn new(f: &figures::SinkFigures, config: &Config) -> Self {
        SinkFigures {
            design: f.design,
            guarantee: narration::guarantee(f.design, config),
            rows: f.rows,
            duplicate_rows: f.duplicate_rows,
            keys: f.keys,
            regressions: f.regressions,
            aborted_rows: f.aborted_rows,
            timed_out_rows: f.timed_out_rows,
            aborted_rows_seen: f.aborted_rows_seen,
            silent_ms: f.silent_ms,
            staleness_max_ms: f.staleness_max_ms,
            matches_failure_free: f.matches_failure_free,
            lost_events: f.lost_events,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct SinkReport {
    pub append_only: SinkFigures,
    pub upsert: SinkFigures,
    pub transactional: SinkFigures,
    pub dedupe_view: SinkFigures,
}

/// The running total of the crashing window, as the last emission before the crash showed it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct WindowTotal {
    pub window_start: Stamp,
    pub order_count: u64,
    pub emitted_at: Stamp,
}

/// One line of "a crash, second by second".
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct CrashTableRow {
    pub at: Stamp,
    pub what: String,
    pub offset: Option<u64>,
}

/// Declares the report once, field by field: each field's documentation and attributes, its
/// name and type in the JSON and how it is read from the engine's figures, and, for the headline
/// figures, what the `Summary` takes of it (`=> summary`: the field as it is; `=> summary name:
/// Type = value`: a figure read from the report's fields, each by its name in the list). From
/// that one list come `Report`, the function that builds it, `Summary` and `Report::summary`,
/// their fields in the list's order.
macro_rules! report_and_summary {
    // Each field normalised to `{ field } { what the summary takes of it }`, then the items written.
    (@fields $items:tt [$($done:tt)*] $(#[$attr:meta])* $name:ident: $ty:ty = $value:expr
        => summary $summary:ident: $summary_ty:ty = $summary_value:expr, $($rest:tt)*) => {
        report_and_summary!(@fields $items [$($done)* { $(#[$attr])* $name: $ty = $value }
            { $summary: $summary_ty = $summary_value }] $($rest)*);
    };
    (@fields $items:tt [$($done:tt)*] $(#[$attr:meta])* $name:ident: $ty:ty = $value:expr
        => summary, $($rest:tt)*) => {
        report_and_summary!(@fields $items [$($done)* { $(#[$attr])* $name: $ty = $value }
            { $name: $ty = Clone::clone($name) }] $($rest)*);
    };
    (@fields $items:tt [$($done:tt)*] $(#[$attr:meta])* $name:ident: $ty:ty = $value:expr, $($rest:tt)*) => {
        report_and_summary!(@fields $items [$($done)* { $(#[$attr])* $name: $ty = $value } {}] $($rest)*);
    };
    (@fields $items:tt [$($done:tt)*]) => {
        report_and_summary!(@items $items $($done)*);
    };
    (@items {
        $(#[$report_attr:meta])* struct $report:ident;
        $(#[$build_attr:meta])* fn $build:ident($($param:tt)*) { $($body:tt)* }
        $(#[$summary_attr:meta])* struct $summary_struct:ident;
        $(#[$summary_fn_attr:meta])* fn $summary_fn:ident;
    } $({ $(#[$attr:meta])* $name:ident: $ty:ty = $value:expr }
        { $($summary:ident: $summary_ty:ty = $summary_value:expr)? })*) => {
        $(#[$report_attr])*
        pub struct $report {
            $($(#[$attr])* pub $name: $ty,)*
        }

        $(#[$build_attr])*
        pub fn $build($($param)*) -> $report {
            $($body)*
            $report { $($name: $value,)* }
        }

        $(#[$summary_attr])*
        pub struct $summary_struct {
            $($(pub $summary: $summary_ty,)?)*
        }

        impl $report {
            $(#[$summary_fn_attr])*
            pub fn $summary_fn(&self) -> $summary_struct {
                #[allow(unused_variables)]
                let $report { $($name,)* } = self;
                $summary_struct { $($($summary: $summary_value,)?)* }
            }
        }
    };
    ({ $($items:tt)* } $($fields:tt)*) => {
        report_and_summary!(@fields { $($items)* } [] $($fields)*);
    };
}

report_and_summary! {
    {
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
        struct Report;

        /// The report of a run: the engine's figures, with times as stamps and facts as sentences.
        fn report(mut figures: Figures) {
            let series = series(&figures.trace, figures.config.start_time_ms);
            let timeline = timeline(&figures.trace, figures.config.start_time_ms);
            // The trace moves into the index of the world at an instant (the charts' pipeline view).
            let trace = std::mem::take(&mut figures.trace);
            let world = WorldIndex::with_trace(&figures, trace);
            let config = &figures.config;
            let stamp = |ms| Stamp::new(config, ms);
            let sinks = &figures.sinks;
        }

        /// The headline figures: what the page shows in large type and what change events carry.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
        struct Summary;

        fn summary;
    }
    /// The shape of this structure; it changes when a field changes meaning or goes away.
    schema_version: u32 = SCHEMA_VERSION,
    /// The settings the run used (declared from the settings table).
    #[cfg_attr(not(target_arch = "wasm32"), ts(type = "Config"))]
    config: Config = config.clone(),
    restored_checkpoint: Option<CheckpointSummary> =
        figures.restored_checkpoint.as_ref().map(|c| CheckpointSummary::new(config, c)),
    crash: Option<CrashSummary> = figures.crash.as_ref().map(|c| CrashSummary {
        at: stamp(c.at_ms),
        offset: c.offset,
        offsets: c.offsets.clone(),
        discarded_checkpoint: c.discarded_checkpoint,
    }),
    replayed_events: u64 = figures.replayed_events => summary,
    replayed_offsets: Option<OffsetRange> = figures.replayed_offsets.clone(),
    /// Rate x effective interval: what a crash just before the next barrier replays.
    interval_replay_events: u64 = figures.interval_replay_events => summary,
    /// Also counting the checkpoint's own duration: a crash just before the next one completes.
    worst_case_replay_events: u64 = figures.worst_case_replay_events => summary,
    detected_at: Option<Stamp> = figures.detected_at_ms.map(stamp),
    restored_at: Option<Stamp> = figures.restored_at_ms.map(stamp),
    replay_done_at: Option<Stamp> = figures.replay_done_at_ms.map(stamp),
    caught_up_at: Option<Stamp> = figures.caught_up_at_ms.map(stamp),
    /// Why `caught_up_at` is null, when it is.
    caught_up_reason: Option<String> =
        figures.caught_up_reason.map(|r| narration::caught_up_reason(r).to_string()),
    /// Crash to caught up, in seconds.
    recovery_s: Option<f64> = figures.recovery_ms.map(seconds) => summary,
    /// Crash to restored (the job processes nothing).
    downtime_s: Option<f64> = figures.downtime_ms.map(seconds),
    phases: Option<RecoveryPhases> = figures.phases.as_ref().map(|p| RecoveryPhases {
        detection_s: seconds(p.detection_ms),
        restart_s: seconds(p.restart_ms),
        restore_s: seconds(p.restore_ms),
        replay_s: p.replay_ms.map(seconds),
        catch_up_s: p.catch_up_ms.map(seconds),
    }),
    backlog_at_restore_events: Option<u64> = figures.backlog_at_restore_events,
    /// Events lost because recovery rewound past the log's retention.
    lost_events: u64 = figures.lost_events,
    /// Every failure of the run: crashes of the failure schedule and fencing at the transaction timeout.
    failures: u32 = figures.failures,
    /// When the job became FAILED (its restart strategy gave up, or the query failed on data loss).
    failed_at: Option<Stamp> = figures.failed_at_ms.map(stamp),
    /// Events the restored state already held and the replay counted again: at-least-once
    /// checkpointing's records past a barrier, or, with offsets committed on a timer, the events
    /// between the committed offsets and the restored checkpoint's further on.
    counted_twice_events: u64 = figures.counted_twice_events,
    /// Offsets committed on a timer, apart from the state (`offset_commit` `on_timer`): events
    /// between the restored checkpoint's offsets and the consumer's last committed offsets further
    /// on. The restored state never counted them and the readers resume past them: lost, window
    /// totals that much too low. (When the commit lies before the checkpoint's offsets, the events
    /// between are counted twice instead: `counted_twice_events`.)
    skipped_events: u64 = figures.skipped_events,
    effective_interval_ms: u64 = figures.effective_interval_ms,
    store_limited: bool = figures.store_limited,
    store_write_bytes_per_min: u64 = figures.store_write_bytes_per_min => summary,
    /// Share of time paused for sync or stalled aligning, failure-free.
    pause_overhead: f64 = figures.pause_overhead => summary,
    paused_ms: u64 = figures.paused_ms,
    aligning_ms: u64 = figures.aligning_ms,
    checkpoints: Vec<CheckpointSummary> =
        figures.checkpoints.iter().map(|c| CheckpointSummary::new(config, c)).collect(),
    sinks: SinkReport = SinkReport {
        append_only: SinkFigures::new(&sinks.append_only, config),
        upsert: SinkFigures::new(&sinks.upsert, config),
        transactional: SinkFigures::new(&sinks.transactional, config),
        dedupe_view: SinkFigures::new(&sinks.dedupe_view, config),
    } => summary duplicate_rows: DuplicateRows = DuplicateRows {
        append_only: sinks.append_only.duplicate_rows,
        upsert: sinks.upsert.duplicate_rows,
        transactional: sinks.transactional.duplicate_rows,
        dedupe_view: sinks.dedupe_view.duplicate_rows,
    },
    window_total_before_crash: Option<WindowTotal> =
        figures.window_total_before_crash.as_ref().map(|t| WindowTotal {
            window_start: stamp(t.window_start_ms),
            order_count: t.order_count,
            emitted_at: stamp(t.emitted_at_ms),
        }),
    crash_table: Vec<CrashTableRow> = figures
        .crash_table
        .iter()
        .map(|fact| CrashTableRow {
            at: stamp(fact.at_ms),
            what: narration::crash_fact(config.mode, &fact.kind),
            offset: fact.offset,
        })
        .collect(),
    steady_state: SteadyState = figures.steady_state,
    series: Vec<Sample> = series,
    timeline: Vec<TimelineEntry> = timeline,
    /// Micro-batch mode: every offset-log entry, in order (empty in barrier mode).
    offset_log: Vec<LoggedBatch> = figures.offset_log.iter().map(|e| LoggedBatch::new(config, e)).collect(),
    warnings: Vec<String> = figures.warnings.iter().map(narration::warning).collect() => summary,
    /// The steady state across intervals, for the trade-off chart (not in the JSON).
    #[serde(skip)]
    tradeoff: Tradeoff = figures.tradeoff,
    /// The sinks' rows at the end of the run, for the sink-window chart and row listings (not in
    /// the JSON).
    #[serde(skip)]
    tables: SinkTables = figures.tables,
    /// The world at any instant of the run, for the pipeline view at the cursor (not in the JSON).
    #[serde(skip)]
    world: WorldIndex = world,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct DuplicateRows {
    pub append_only: u64,
    pub upsert: u64,
    pub transactional: u64,
    pub dedupe_view: u64,
}

impl crate::engine::Outcome {
    /// The run's report: its figures put into words.
    pub fn report(&self) -> Report {
        report(self.figures())
    }
}

/// The version of the report's shape, carried in every report as `schema_version`.
pub const SCHEMA_VERSION: u32 = 2;

/// The TypeScript declarations of the report, derived from these Rust types (the `Config`
/// declaration comes from the settings table). `tests/generated.rs` keeps the package's
/// declarations current.
#[cfg(not(target_arch = "wasm32"))]
pub fn typescript_declarations() -> String {
    use crate::engine::model::report::OffsetRange;
    use crate::engine::model::sinks::SinkDesign;
    use crate::engine::model::steady_state::SteadyState;
    use crate::engine::model::trace::Phase;
    use crate::lesson::timeline::{Sample, SinkStaleness, TimelineEntry, TimelineKind};
    use ts_rs::TS;
    let cfg = ts_rs::Config::new().with_large_int("number");
    let decls = [
        Report::decl(&cfg),
        Stamp::decl(&cfg),
        CheckpointSummary::decl(&cfg),
        CrashSummary::decl(&cfg),
        OffsetRange::decl(&cfg),
        RecoveryPhases::decl(&cfg),
        SinkReport::decl(&cfg),
        SinkFigures::decl(&cfg),
        SinkDesign::decl(&cfg),
        WindowTotal::decl(&cfg),
        CrashTableRow::decl(&cfg),
        SteadyState::decl(&cfg),
        Sample::decl(&cfg),
        Phase::decl(&cfg),
        SinkStaleness::decl(&cfg),
        TimelineEntry::decl(&cfg),
        TimelineKind::decl(&cfg),
        LoggedBatch::decl(&cfg),
        Summary::decl(&cfg),
        DuplicateRows::decl(&cfg),
    ];
    decls.iter().map(|d| format!("export {d}\n")).collect()
}
