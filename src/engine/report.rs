//! The report: one serde structure with everything the CLI prints, the page draws and the
//! exercises check. Every time is given twice: as clock text ("10:00:32.100") and as seconds since
//! the scenario start (`..._s`). Field by field documentation is in the README.

mod timeline;

use serde::Serialize;

use super::clock::{seconds, ClockTime};
use super::config::{Config, Mode};
use super::model::{steady_state, SteadyState};
use super::protocol::{OffsetLogEntry, RestorePoint};
use super::sim::{Recovery, Sim};
use super::sinks::{dedupe_view, duplicate_rows, duplicates_and_keys, Row, SinkDesign};
use super::units::{format_bytes, format_count, format_duration_ms};

pub use timeline::{series, timeline, Sample, SinkStaleness, TimelineEntry, TimelineKind};

/// A clock time: text plus seconds since the scenario start.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stamp {
    pub at: String,
    pub s: f64,
}

impl Stamp {
    pub fn new(config: &Config, at_ms: u64) -> Stamp {
        Stamp { at: ClockTime(at_ms).to_string(), s: seconds(at_ms.saturating_sub(config.start_time_ms)) }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
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
    fn new(config: &Config, point: &RestorePoint) -> Self {
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

#[derive(Clone, Debug, PartialEq, Serialize)]
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
pub struct RecoveryPhases {
    pub detection_s: f64,
    pub restart_s: f64,
    pub restore_s: f64,
    /// Restore until the readers are back at the crash offset.
    pub replay_s: Option<f64>,
    /// From there until the backlog is gone.
    pub catch_up_s: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OffsetRange {
    pub from: u64,
    pub to: u64,
}

/// What one sink design stores and what its readers see.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// Longest time with nothing fresher to read.
    pub silent_ms: u64,
    /// Worst staleness: now minus the newest event time a reader can see.
    pub staleness_max_ms: u64,
    /// Whether a reader at the end of the run sees what a failure-free run shows.
    pub matches_failure_free: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SinkReport {
    pub append_only: SinkFigures,
    pub upsert: SinkFigures,
    pub transactional: SinkFigures,
    pub dedupe_view: SinkFigures,
}

/// The running total of the crashing window, as the last emission before the crash showed it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowTotal {
    pub window_start: String,
    pub order_count: u64,
    pub emitted_at: Stamp,
}

/// One line of "a crash, second by second".
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CrashTableRow {
    pub at: Stamp,
    pub what: String,
    pub offset: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub config: Config,
    pub restored_checkpoint: Option<CheckpointSummary>,
    pub crash: Option<CrashSummary>,
    pub replayed_events: u64,
    pub replayed_offsets: Option<OffsetRange>,
    /// Rate x effective interval: what a crash just before the next barrier replays.
    pub interval_replay_events: u64,
    /// Also counting the checkpoint's own duration: a crash just before the next one completes.
    pub worst_case_replay_events: u64,
    pub detected_at: Option<Stamp>,
    pub restored_at: Option<Stamp>,
    pub replay_done_at: Option<Stamp>,
    pub caught_up_at: Option<Stamp>,
    /// Why `caught_up_at` is null, when it is.
    pub caught_up_reason: Option<String>,
    /// Crash to caught up, in seconds.
    pub recovery_s: Option<f64>,
    /// Crash to restored (the job processes nothing).
    pub downtime_s: Option<f64>,
    pub phases: Option<RecoveryPhases>,
    pub backlog_at_restore_events: Option<u64>,
    /// Events lost because recovery rewound past the log's retention.
    pub lost_events: u64,
    pub effective_interval_ms: u64,
    pub store_limited: bool,
    pub store_write_bytes_per_min: u64,
    /// Share of time paused for sync or stalled aligning, failure-free.
    pub pause_overhead: f64,
    pub paused_ms: u64,
    pub aligning_ms: u64,
    pub checkpoints: Vec<CheckpointSummary>,
    pub sinks: SinkReport,
    pub window_total_before_crash: Option<WindowTotal>,
    pub crash_table: Vec<CrashTableRow>,
    pub steady_state: SteadyState,
    pub series: Vec<Sample>,
    pub timeline: Vec<TimelineEntry>,
    /// Micro-batch mode: every offset-log entry, in order (empty in barrier mode).
    pub offset_log: Vec<OffsetLogEntry>,
    pub warnings: Vec<String>,
}

/// A finished simulation and its failure-free companion (the same run without the crash).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub run: Sim,
    pub failure_free: Option<Sim>,
}

impl Outcome {
    /// The failure-free run (the run itself when there was no crash).
    pub fn truth(&self) -> &Sim {
        self.failure_free.as_ref().unwrap_or(&self.run)
    }

    pub fn report(&self) -> Report {
        build(self)
    }

    /// Events processed by the run and by the failure-free companion after the fork.
    pub fn processed_events(&self) -> u64 {
        let shared = self.failure_free.as_ref().map_or(0, |truth| {
            let crash_at = self.run.recoveries.first().map_or(0, |r| r.crashed_at_ms);
            truth.log().log_end_at(crash_at) - truth.config.start_offset
        });
        self.run.processed_events() + self.failure_free.as_ref().map_or(0, |t| t.processed_events()) - shared
    }
}

/// Whether two tables hold the same rows (product, window, count), in any order. Tables that
/// match usually hold them in the same order too, which is checked first without sorting.
fn same_rows(a: &[Row], b: &[Row]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.iter().map(Row::content).eq(b.iter().map(Row::content)) {
        return true;
    }
    let sorted = |rows: &[Row]| {
        let mut c: Vec<u128> = rows.iter().map(Row::packed).collect();
        c.sort_unstable();
        c
    };
    sorted(a) == sorted(b)
}

/// Longest gap without fresher data and the worst staleness, from (visible_at, boundary) pairs.
fn freshness(start_ms: u64, end_ms: u64, visible: impl Iterator<Item = (u64, u64)>) -> (u64, u64) {
    let (mut newest, mut last_advance) = (start_ms, start_ms);
    let (mut silent, mut stale) = (0, 0);
    for (at, boundary) in visible {
        if boundary > newest {
            silent = silent.max(at - last_advance);
            stale = stale.max(at - newest);
            newest = boundary;
            last_advance = at;
        }
    }
    silent = silent.max(end_ms.saturating_sub(last_advance));
    stale = stale.max(end_ms.saturating_sub(newest));
    (silent, stale)
}

fn sink_figures(outcome: &Outcome) -> SinkReport {
    let (run, truth) = (&outcome.run, outcome.truth());
    let (start, end) = (run.config.start_time_ms, run.config.end_ms());
    let appended = run.sinks().append_only.rows();
    let immediate = freshness(start, end, appended.iter().map(|r| (r.emitted_at_ms, r.boundary_ms)));
    let committed = run.sinks().transactional.committed_rows();
    let commits = run.sinks().transactional.commits();
    let mut commit_visibility = Vec::new();
    let mut seen = 0;
    for &(_, at, upto) in commits {
        if let Some(newest) = committed[seen..upto].iter().map(|r| r.boundary_ms).max() {
            commit_visibility.push((at, newest));
        }
        seen = upto;
    }
    let delayed = freshness(start, end, commit_visibility.into_iter());
    let newest_committed = committed.iter().map(|r| r.boundary_ms).max().unwrap_or(start);
    let truth_prefix: Vec<Row> =
        truth.sinks().append_only.rows().iter().filter(|r| r.boundary_ms <= newest_committed).copied().collect();

    // Micro-batch: a restart moves where batches are cut, so the running totals in between differ;
    // a table matches when it holds no duplicate and the same newest total per key.
    let micro_batch = run.config.mode == Mode::MicroBatch;
    let same = |a: &[Row], b: &[Row]| {
        if micro_batch {
            // The dedupe view's newest row per key.
            let newest = |rows: &[Row]| dedupe_view::read(rows).iter().map(Row::content).collect::<Vec<_>>();
            duplicate_rows(a) == 0 && newest(a) == newest(b)
        } else {
            same_rows(a, b)
        }
    };
    let truth_committed = if micro_batch { truth.sinks().transactional.committed_rows() } else { &truth_prefix };
    let upsert_rows = run.sinks().read(SinkDesign::Upsert);
    let view_rows = run.sinks().read(SinkDesign::DedupeView);
    let figures = |design: SinkDesign, rows: &[Row], fresh: (u64, u64), matches: bool| {
        let (duplicate_rows, keys) = duplicates_and_keys(rows);
        SinkFigures {
            design,
            guarantee: match design {
                SinkDesign::AppendOnly => "at least once: replayed emissions are stored again",
                SinkDesign::Upsert => "effectively once per key: the latest write wins, values can step back",
                SinkDesign::Transactional => "exactly once: output is visible only when its checkpoint commits",
                SinkDesign::DedupeView => "effectively once per key at read time: the newest emitted_at wins",
            },
            rows: rows.len() as u64,
            duplicate_rows,
            keys,
            regressions: if design == SinkDesign::Upsert { run.sinks().upsert.regressions() } else { 0 },
            aborted_rows: if design == SinkDesign::Transactional {
                run.sinks().transactional.aborted_rows()
            } else {
                0
            },
            silent_ms: fresh.0,
            staleness_max_ms: fresh.1,
            matches_failure_free: matches,
        }
    };
    SinkReport {
        append_only: figures(
            SinkDesign::AppendOnly,
            appended,
            immediate,
            same(appended, truth.sinks().append_only.rows()),
        ),
        upsert: figures(
            SinkDesign::Upsert,
            &upsert_rows,
            immediate,
            same_rows(&upsert_rows, &truth.sinks().read(SinkDesign::Upsert)),
        ),
        transactional: figures(SinkDesign::Transactional, committed, delayed, same(committed, truth_committed)),
        dedupe_view: figures(
            SinkDesign::DedupeView,
            &view_rows,
            immediate,
            same_rows(&view_rows, &truth.sinks().read(SinkDesign::DedupeView)),
        ),
    }
}

/// Worst replay seen failure-free: a crash just before a checkpoint completes rewinds to the
/// previous one, replaying everything read up to that completion.
fn worst_case_replay(truth: &Sim) -> Option<u64> {
    truth
        .restore_points
        .windows(2)
        .filter(|pair| pair[0].attempt() == pair[1].attempt())
        .map(|pair| pair[1].position_at_completion() - pair[0].offset())
        .max()
}

/// Effective interval and store write load measured on the failure-free run.
fn measured_cycle(truth: &Sim) -> Option<(u64, u64)> {
    let taken = &truth.restore_points[1..];
    if taken.is_empty() {
        return None;
    }
    let first_barrier = truth.restore_points[0].started_at_ms();
    let last_barrier = taken.last().expect("non-empty").started_at_ms();
    let spacing_ms = (last_barrier - first_barrier) as f64 / taken.len() as f64;
    let mean_size = taken.iter().map(|c| c.size_bytes() as f64).sum::<f64>() / taken.len() as f64;
    Some((spacing_ms.round() as u64, (mean_size * 60_000.0 / spacing_ms).round() as u64))
}

fn crash_table(config: &Config, run: &Sim, recovery: &Recovery, before: &Option<WindowTotal>) -> Vec<CrashTableRow> {
    let stamp = |ms| Stamp::new(config, ms);
    let restored = &recovery.restored;
    let micro_batch = config.mode == Mode::MicroBatch;
    let (unit, planned, completed) =
        if micro_batch { ("batch", "planned", "committed") } else { ("checkpoint", "barrier", "completed") };
    let mut rows = vec![
        CrashTableRow {
            at: stamp(restored.started_at_ms()),
            what: format!("{unit} {} {planned}: offsets total {}", restored.id(), format_count(restored.offset())),
            offset: Some(restored.offset()),
        },
        CrashTableRow {
            at: stamp(restored.completed_at_ms()),
            what: match restored {
                _ if restored.id() == config.start_checkpoint_id => {
                    format!("{unit} {} is the {completed} {unit} the scenario starts from", restored.id())
                }
                RestorePoint::Batch(b) => format!(
                    "batch {} committed ({} offset log + {} processing + {} state store write)",
                    b.batch_id,
                    format_duration_ms(b.offset_log_write_ms),
                    format_duration_ms(b.processing_ms),
                    format_duration_ms(b.state_store_write_ms)
                ),
                RestorePoint::Checkpoint(c) => format!(
                    "checkpoint {} completed ({} pause + {} upload)",
                    c.id,
                    format_duration_ms(c.sync_ms + c.alignment_ms),
                    format_duration_ms(c.upload_ms)
                ),
            },
            offset: Some(restored.offset()),
        },
    ];
    if let Some(total) = before {
        rows.push(CrashTableRow {
            at: total.emitted_at.clone(),
            what: format!(
                "running total of the {} window: {} (the last emission before the crash)",
                total.window_start,
                format_count(total.order_count)
            ),
            offset: None,
        });
    }
    let replayed = recovery.crash_offset - restored.offset();
    let rerun = recovery.discarded_checkpoint.and_then(|id| run.offset_log().iter().find(|e| e.batch_id == id));
    let mut crash_line = format!(
        "crash at offset {}: {} events since {unit} {} to replay",
        format_count(recovery.crash_offset),
        format_count(replayed),
        restored.id()
    );
    match (recovery.discarded_checkpoint, rerun) {
        (Some(id), Some(entry)) if micro_batch => crash_line.push_str(&format!(
            "; batch {id} is in the offset log ({} to {}) without a commit entry, so it runs again",
            format_count(entry.start_offset),
            format_count(entry.end_offset)
        )),
        (Some(id), _) => crash_line.push_str(&format!("; checkpoint {id} was in flight and is discarded")),
        (None, _) if micro_batch => {
            crash_line.push_str(&format!("; batch {} is committed and no batch was running", restored.id()))
        }
        (None, _) => {}
    }
    rows.push(CrashTableRow {
        at: stamp(recovery.crashed_at_ms),
        what: crash_line,
        offset: Some(recovery.crash_offset),
    });
    rows.push(CrashTableRow {
        at: stamp(recovery.detected_at_ms),
        what: format!("failure detected after {}", format_duration_ms(config.detection_ms)),
        offset: None,
    });
    if let Some(restored_at) = recovery.restored_at_ms {
        let what = if micro_batch { "state store version of batch" } else { "checkpoint" };
        rows.push(CrashTableRow {
            at: stamp(restored_at),
            what: format!(
                "{what} {} restored ({} of state); rewound to {}, backlog {} events",
                restored.id(),
                format_bytes(config.state_bytes as f64),
                format_count(restored.offset()),
                format_count(recovery.backlog_at_restore_events.unwrap_or(0))
            ),
            offset: Some(restored.offset()),
        });
    }
    if let Some(done) = recovery.replay_done_at_ms {
        rows.push(CrashTableRow {
            at: stamp(done),
            what: format!("replay back at the crash offset {}", format_count(recovery.crash_offset)),
            offset: Some(recovery.crash_offset),
        });
    }
    if let Some(entry) = rerun.filter(|_| micro_batch) {
        let again = run
            .restore_points
            .iter()
            .filter_map(RestorePoint::as_batch)
            .find(|b| b.batch_id == entry.batch_id && b.attempt > recovery.crashed_attempt);
        if let Some(again) = again {
            rows.push(CrashTableRow {
                at: stamp(again.committed_at_ms),
                what: format!(
                    "batch {} committed again with the same offsets ({} to {})",
                    entry.batch_id,
                    format_count(entry.start_offset),
                    format_count(again.end_offset)
                ),
                offset: Some(again.end_offset),
            });
        }
    }
    if let Some(caught_up) = recovery.caught_up_at_ms {
        rows.push(CrashTableRow {
            at: stamp(caught_up),
            what: format!(
                "caught up{}: {} from crash to catch-up",
                if micro_batch { " (back on the trigger schedule)" } else { "" },
                format_duration_ms(caught_up - recovery.crashed_at_ms)
            ),
            offset: Some(match run.restore_points.iter().find(|c| micro_batch && c.completed_at_ms() == caught_up) {
                Some(batch) => batch.offset(),
                None => run.log().log_end_at(caught_up),
            }),
        });
    }
    rows
}

fn build(outcome: &Outcome) -> Report {
    let run = &outcome.run;
    let truth = outcome.truth();
    let config = &run.config;
    let stamp = |ms| Stamp::new(config, ms);
    let model = steady_state(config, config.interval_ms);
    let recovery = run.recoveries.first();
    let (effective_interval_ms, store_write_bytes_per_min) =
        measured_cycle(truth).unwrap_or((model.effective_interval_ms, model.store_write_bytes_per_min));
    let window_total_before_crash = recovery.and_then(|r| {
        let before: Vec<&Row> =
            run.sinks().append_only.rows().iter().filter(|row| row.emitted_at_ms < r.crashed_at_ms).collect();
        let last = before.last()?;
        let window = last.window_start_ms;
        let mut latest = std::collections::BTreeMap::new();
        for row in before.iter().filter(|row| row.window_start_ms == window) {
            latest.insert(row.product_id, row.order_count);
        }
        Some(WindowTotal {
            window_start: ClockTime(window).to_string(),
            order_count: latest.values().map(|&c| u64::from(c)).sum(),
            emitted_at: stamp(last.emitted_at_ms),
        })
    });
    let mut warnings = Vec::new();
    if model.store_limited && config.mode == Mode::MicroBatch {
        warnings.push(format!(
            "A batch takes longer than the {} trigger interval (processing, the offset log and a {} state \
             store write): batches run back to back, one every {}.",
            format_duration_ms(config.interval_ms),
            format_bytes(model.size_bytes as f64),
            format_duration_ms(model.effective_interval_ms)
        ));
    } else if model.store_limited {
        warnings.push(format!(
            "The store cannot absorb a {} checkpoint every {}: checkpoints run back to back, every {}.",
            format_bytes(model.size_bytes as f64),
            format_duration_ms(config.interval_ms),
            format_duration_ms(model.effective_interval_ms)
        ));
    }
    let caught_up_reason = recovery.and_then(|r| {
        if r.caught_up_at_ms.is_some() {
            None
        } else if r.interrupted {
            Some("a later crash cut this recovery short".to_string())
        } else if r.restored_at_ms.is_none() {
            Some("the restore had not finished by the end of the horizon".to_string())
        } else if config.mode == Mode::MicroBatch && model.store_limited {
            Some(
                "batches take longer than the trigger interval, so the job never gets back on its schedule".to_string(),
            )
        } else if config.capacity_per_s <= config.rate_per_s {
            Some("capacity is not above the input rate, so the backlog never shrinks".to_string())
        } else {
            Some("the backlog was not worked off by the end of the horizon".to_string())
        }
    });
    if let Some(reason) = &caught_up_reason {
        warnings.push(format!("The job never catches up: {reason}."));
    }
    let lost_events: u64 = run.recoveries.iter().map(|r| r.lost_events).sum();
    if config.mode == Mode::MicroBatch && config.backpressure_ms > 0 {
        warnings.push(
            "Backpressure and barrier alignment do not apply in micro-batch mode: a batch reads all its input \
             before it writes its output."
                .to_string(),
        );
    }
    if lost_events > 0 {
        warnings.push(format!(
            "Recovery rewound past the log's retention: {} events were lost.",
            format_count(lost_events)
        ));
    }
    let horizon = config.horizon_ms as f64;
    Report {
        restored_checkpoint: recovery.map(|r| CheckpointSummary::new(config, &r.restored)),
        crash: recovery.map(|r| CrashSummary {
            at: stamp(r.crashed_at_ms),
            offset: r.crash_offset,
            offsets: r.crash_offsets.clone(),
            discarded_checkpoint: r.discarded_checkpoint,
        }),
        replayed_events: recovery.map_or(0, |r| r.crash_offset - r.restored.offset()),
        replayed_offsets: recovery.map(|r| OffsetRange { from: r.restored.offset(), to: r.crash_offset }),
        interval_replay_events: config.rate_per_s * effective_interval_ms / 1000,
        worst_case_replay_events: worst_case_replay(truth).unwrap_or(model.worst_case_replay_events),
        detected_at: recovery.map(|r| stamp(r.detected_at_ms)),
        restored_at: recovery.and_then(|r| r.restored_at_ms.map(stamp)),
        replay_done_at: recovery.and_then(|r| r.replay_done_at_ms.map(stamp)),
        caught_up_at: recovery.and_then(|r| r.caught_up_at_ms.map(stamp)),
        caught_up_reason,
        recovery_s: recovery.and_then(|r| r.caught_up_at_ms.map(|t| seconds(t - r.crashed_at_ms))),
        downtime_s: recovery.map(|r| seconds(r.restore_done_at_ms - r.crashed_at_ms)),
        phases: recovery.map(|r| RecoveryPhases {
            detection_s: seconds(r.detected_at_ms - r.crashed_at_ms),
            restart_s: seconds(r.restore_started_at_ms - r.detected_at_ms),
            restore_s: seconds(r.restore_done_at_ms - r.restore_started_at_ms),
            replay_s: r.replay_done_at_ms.map(|t| seconds(t - r.restore_done_at_ms)),
            catch_up_s: r.caught_up_at_ms.zip(r.replay_done_at_ms).map(|(c, d)| seconds(c - d)),
        }),
        backlog_at_restore_events: recovery.and_then(|r| r.backlog_at_restore_events),
        lost_events,
        effective_interval_ms,
        store_limited: model.store_limited,
        store_write_bytes_per_min,
        pause_overhead: (truth.paused_ms() + truth.aligning_ms()) as f64 / horizon,
        paused_ms: run.paused_ms(),
        aligning_ms: run.aligning_ms(),
        checkpoints: run.restore_points.iter().map(|c| CheckpointSummary::new(config, c)).collect(),
        sinks: sink_figures(outcome),
        crash_table: recovery.map_or_else(Vec::new, |r| crash_table(config, run, r, &window_total_before_crash)),
        window_total_before_crash,
        steady_state: model,
        series: series(&run.trace, config.start_time_ms),
        timeline: timeline(&run.trace, config.start_time_ms),
        offset_log: run.offset_log().to_vec(),
        warnings,
        config: config.clone(),
    }
}

/// The headline figures: what the page shows in large type and what change events carry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub replayed_events: u64,
    pub interval_replay_events: u64,
    pub worst_case_replay_events: u64,
    pub recovery_s: Option<f64>,
    pub store_write_bytes_per_min: u64,
    pub pause_overhead: f64,
    pub duplicate_rows: DuplicateRows,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DuplicateRows {
    pub append_only: u64,
    pub upsert: u64,
    pub transactional: u64,
    pub dedupe_view: u64,
}

impl Report {
    pub fn summary(&self) -> Summary {
        Summary {
            replayed_events: self.replayed_events,
            interval_replay_events: self.interval_replay_events,
            worst_case_replay_events: self.worst_case_replay_events,
            recovery_s: self.recovery_s,
            store_write_bytes_per_min: self.store_write_bytes_per_min,
            pause_overhead: self.pause_overhead,
            duplicate_rows: DuplicateRows {
                append_only: self.sinks.append_only.duplicate_rows,
                upsert: self.sinks.upsert.duplicate_rows,
                transactional: self.sinks.transactional.duplicate_rows,
                dedupe_view: self.sinks.dedupe_view.duplicate_rows,
            },
            warnings: self.warnings.clone(),
        }
    }
}

impl Outcome {
    /// Whether `row` was written by an attempt that later crashed, after the checkpoint that
    /// attempt's recovery restored: its effect was rolled back and the replay writes it again.
    pub fn is_orphan(&self, row: &Row) -> bool {
        self.run.recoveries.iter().any(|r| r.crashed_attempt == row.attempt && row.epoch > r.restored.id())
    }
}
