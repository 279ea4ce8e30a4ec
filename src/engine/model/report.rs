//! The figures of a run: every number the report, the crash table, the charts and the exercises
//! are made from, read from the crashed run and its failure-free companion (their trace, restore
//! points, recoveries and sink tables). Times are milliseconds on the scenario clock and nothing
//! here is text: the lesson layer (`crate::lesson`) puts these figures into words and builds the
//! serde report the command line and the page hand out. The passes over the sink tables are made
//! by [`FiguresBuilder`](crate::engine::fast::figures::FiguresBuilder); [`Figures::of_run`] puts
//! them together with the run's own figures.

use std::sync::Arc;

use super::protocol::{OffsetLogEntry, RestorePoint};
use super::sim::{FailureCause, Recovery, Sim};
use super::sinks::keys::KeyIndex;
use super::sinks::{CommittedRows, Row, SinkDesign};
use super::steady_state::{checkpoint_outlasts_timeout_ms, steady_state, tradeoff, SteadyState, Tradeoff};
use super::trace::{Event, FailedBecause, Trace};
use crate::engine::settings::config::{
    Alignment, CheckpointingMode, Config, Failure, RestartStrategy, FLINK_CHECKPOINT_TIMEOUT_MS,
};

/// The crash: when, where the readers were, and the checkpoint it discarded.
#[derive(Clone, Debug, PartialEq)]
pub struct CrashFigures {
    pub at_ms: u64,
    /// The readers' total position at the crash.
    pub offset: u64,
    pub offsets: Vec<u64>,
    /// The checkpoint in flight at the crash, discarded.
    pub discarded_checkpoint: Option<u64>,
}

/// Duration of each recovery phase, in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseDurations {
    pub detection_ms: u64,
    pub restart_ms: u64,
    pub restore_ms: u64,
    /// Restore until the readers are back at the crash offset.
    pub replay_ms: Option<u64>,
    /// From there until the backlog is gone.
    pub catch_up_ms: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct OffsetRange {
    pub from: u64,
    pub to: u64,
}

/// What one sink design stores and what its readers see.
#[derive(Clone, Debug, PartialEq)]
pub struct SinkFigures {
    pub design: SinkDesign,
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
    /// Rows of pre-committed transactions the broker aborted at the transaction timeout before
    /// the commit: lost (transactional).
    pub timed_out_rows: u64,
    /// Rows a `read_uncommitted` reader saw that were later aborted (transactional; zero for
    /// `read_committed` readers, who never see them).
    pub aborted_rows_seen: u64,
    /// Longest time with nothing fresher to read.
    pub silent_ms: u64,
    /// Worst staleness: now minus the newest event time a reader can see.
    pub staleness_max_ms: u64,
    /// Whether a reader at the end of the run sees what a failure-free run shows.
    pub matches_failure_free: bool,
    /// Events the log no longer held when a restore needed them: missing from this sink's counts.
    pub lost_events: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SinkReport {
    pub append_only: SinkFigures,
    pub upsert: SinkFigures,
    pub transactional: SinkFigures,
    pub dedupe_view: SinkFigures,
}

/// The running total of the crashing window, as the last emission before the crash showed it.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowTotal {
    pub window_start_ms: u64,
    pub order_count: u64,
    pub emitted_at_ms: u64,
}

/// One line of "a crash, second by second": when, the offset it concerns, and what happened.
#[derive(Clone, Debug, PartialEq)]
pub struct CrashFact {
    pub at_ms: u64,
    pub offset: Option<u64>,
    pub kind: CrashFactKind,
}

/// What happened at one line of the crash table, with its numbers. In micro-batch mode the
/// restored checkpoint is the last committed batch and its barrier is when it was planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrashFactKind {
    /// The restored checkpoint's barrier passed the readers at `offset` (offsets total).
    RestoredBarrier { checkpoint: u64, offset: u64 },
    /// The restored checkpoint is the completed one the scenario starts from.
    StartingCheckpoint { checkpoint: u64 },
    /// The restored checkpoint completed: the wait for its barriers, its sync pause and upload.
    Completed { checkpoint: u64, barrier_wait: BarrierWait, barrier_wait_ms: u64, sync_ms: u64, upload_ms: u64 },
    /// The restored batch committed: offset log, processing and state store write.
    BatchCommitted { batch: u64, offset_log_ms: u64, processing_ms: u64, state_store_ms: u64 },
    /// The crashing window's running total in the last emission before the crash.
    LastWindowTotal { window_start_ms: u64, order_count: u64 },
    /// The crash, what it leaves to replay since the restored checkpoint (or, `from_committed`,
    /// since the offsets committed on a timer), and what was in flight.
    Crash { offset: u64, replay_events: u64, restored: u64, in_flight: InFlight, from_committed: bool },
    /// The failure was noticed after `after_ms`: `failure` says what failed (a lost TaskManager
    /// at its heartbeat timeout, a task at once); `overridden` when a fixed detection delay was set.
    Detected { after_ms: u64, failure: Failure, overridden: bool, heartbeat_timeout_ms: u64 },
    /// The restart strategy waited `backoff_ms` before the restore (failure `failure_number`
    /// since the backoff was last reset).
    RestartBackoff { backoff_ms: u64, failure_number: u32, strategy: RestartStrategy },
    /// The restored checkpoint is loaded and the readers start at `offset`: its offsets, or, where
    /// the log no longer holds them (`reset`), the oldest offset kept.
    Restored { checkpoint: u64, state_bytes: u64, offset: u64, backlog_events: u64, reset: bool },
    /// Offsets committed on a timer: the consumer's last commit before the crash put the group at
    /// `offset` (offsets total), where the restored `checkpoint`'s offsets total `checkpoint_offset`.
    OffsetsCommitted { offset: u64, checkpoint: u64, checkpoint_offset: u64 },
    /// Offsets committed on a timer: the restored state is the checkpoint's, the readers resume at
    /// the committed offsets `offset`; `skipped_events` lie between the checkpoint's offsets and
    /// them (never counted), `counted_twice_events` between them and the state's (counted again).
    ResumedAtCommitted { offset: u64, skipped_events: u64, counted_twice_events: u64 },
    /// The readers are back at the crash offset.
    ReplayDone { offset: u64 },
    /// The batch the crash interrupted committed again with the same offsets.
    BatchCommittedAgain { batch: u64, from: u64, to: u64 },
    /// The job caught up `after_ms` after the crash (micro-batch: back on the trigger schedule).
    CaughtUp { after_ms: u64 },
    /// The broker aborted the sink's open transaction, begun at `began_at_ms`, at its
    /// `timeout_ms` and fenced the producer: its next write failed the job.
    ProducerFenced { began_at_ms: u64, timeout_ms: u64 },
    /// The log no longer held the restored offsets: the readers start at `to` instead of `from`
    /// (Flink's Kafka source resets to the oldest offset kept; a Spark query with failOnDataLoss
    /// false skips ahead the same way, and with it true fails: `fails`), and `lost_events` are gone.
    OffsetsReset { from: u64, to: u64, lost_events: u64, micro_batch: bool, fails: bool },
    /// The job is FAILED: `because` says why; `failure_number` is the failure the restart strategy
    /// refused to restart after.
    JobFailed { because: FailedBecause, strategy: RestartStrategy, failure_number: u32 },
}

/// What the crash found in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InFlight {
    /// Barrier mode between checkpoints: nothing.
    Nothing,
    /// A checkpoint was in flight and is discarded.
    DiscardedCheckpoint { checkpoint: u64 },
    /// A batch is in the offset log without a commit entry, so it runs again.
    BatchRerun { batch: u64, from: u64, to: u64 },
    /// Micro-batch mode between batches: `committed` is the last batch, and none was running.
    NoBatchRunning { committed: u64 },
}

/// Why a recovery did not catch up within the horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaughtUpReason {
    /// A later crash cut this recovery short.
    Interrupted,
    /// The restore had not finished by the end of the horizon.
    RestoreUnfinished,
    /// Micro-batch batches outlast the trigger interval.
    BatchesOutlastTrigger,
    /// Capacity is not above the input rate.
    CapacityNotAboveRate,
    /// The backlog was not worked off by the end of the horizon.
    BacklogRemains,
    /// The job is FAILED: nothing restarts it.
    JobFailed,
}

/// What the operator does between a checkpoint's barrier and its snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierWait {
    /// Exactly once, aligned, several inputs: the inputs whose barrier arrived are held until the
    /// last one arrives, so processing of them pauses.
    Aligning,
    /// At least once: barriers are tracked, not aligned; no input is held.
    Tracking,
    /// One input channel: nothing to align; the snapshot waits only for the barrier to arrive.
    OneChannel,
    /// Unaligned: the barrier overtakes what is buffered; the snapshot is taken at once.
    Unaligned,
}

impl BarrierWait {
    pub fn of(config: &Config) -> BarrierWait {
        match (config.alignment, config.checkpointing_mode) {
            (Alignment::Unaligned, _) => BarrierWait::Unaligned,
            (_, CheckpointingMode::AtLeastOnce) => BarrierWait::Tracking,
            _ if config.partitions == 1 => BarrierWait::OneChannel,
            _ => BarrierWait::Aligning,
        }
    }
}

/// What bounds a checkpoint cycle that cannot keep to its interval: the part of the checkpoint
/// that takes longest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bottleneck {
    /// Waiting for the last barrier, which travels behind the backpressured channel's records.
    Alignment { alignment_ms: u64 },
    /// The synchronous part of the snapshot, which pauses processing; the upload takes `upload_ms`.
    SyncPause { sync_pause_ms: u64, upload_ms: u64 },
    /// Writing the checkpoint to the store at its write bandwidth.
    Upload { upload_ms: u64 },
}

/// A pathological setting, with its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warning {
    /// Micro-batch: a batch outlasts the trigger interval; batches run back to back.
    BatchesBackToBack { interval_ms: u64, state_store_write_bytes: u64, every_ms: u64 },
    /// A checkpoint takes longer than the interval; checkpoints run back to back, bounded by
    /// `bottleneck`.
    StoreCannotKeepUp { checkpoint_bytes: u64, interval_ms: u64, every_ms: u64, bottleneck: Bottleneck },
    /// The job never catches up.
    NeverCatchesUp(CaughtUpReason),
    /// Backpressure was set in micro-batch mode, where it does not apply.
    BackpressureInMicroBatch,
    /// Recovery rewound past the log's retention.
    EventsLost { events: u64 },
    /// At-least-once checkpointing: the restore read `events` again that its state already held.
    CountedTwice { events: u64 },
    /// Offsets committed on a timer, apart from the state: the restores resumed at committed
    /// offsets past their checkpoint's, skipping `skipped` events, or before them, reading
    /// `counted_twice` events again that the state held.
    OffsetsApartFromState { skipped: u64, counted_twice: u64, interval_ms: u64 },
    /// Sink transactions outlived their timeout while still open: the broker aborted them and
    /// fenced the producer, and each time its next write failed the job.
    ProducerFenced { transactions: u64, timeout_ms: u64 },
    /// The job is FAILED at `at_ms` after `failures` failures: nothing restarts it.
    JobFailed { at_ms: u64, because: FailedBecause, failures: u32 },
    /// The broker aborted pre-committed sink transactions at their timeout: their rows are lost.
    TransactionsTimedOut { rows: u64, timeout_ms: u64 },
    /// A checkpoint takes longer than Flink's default checkpoint timeout: Flink would expire each
    /// one and, tolerating no failed checkpoint by default, fail the job (the model lets them
    /// finish).
    CheckpointsOutlastTimeout { duration_ms: u64, timeout_ms: u64 },
}

/// A crash's effect on the sink tables: rows its attempt wrote after the restored checkpoint
/// are orphans, rolled back and written again by the replay.
#[derive(Clone, Debug, PartialEq)]
pub struct RolledBack {
    pub crashed_at_ms: u64,
    pub crashed_attempt: u32,
    pub restored_id: u64,
    pub restored_barrier_at_ms: u64,
    pub caught_up_at_ms: Option<u64>,
}

/// What the sinks hold at the end of the run, shared (not copied) by every clone of a report.
#[derive(Clone, Default, PartialEq)]
pub struct SinkTables {
    /// Every append-only row, in write order.
    pub append_only: Arc<Vec<Row>>,
    /// The upsert table, ordered by key.
    pub upsert: Arc<[Row]>,
    /// Committed rows of the transactional sink, in commit order: ranges of the append-only
    /// table, made into rows when first read whole.
    pub transactional: Arc<CommittedRows>,
    /// Each commit: (epoch, committed at ms, committed rows up to this index).
    pub commits: Arc<[(u64, u64, usize)]>,
    /// What the dedupe view returns, ordered by key.
    pub dedupe_view: Arc<[Row]>,
    pub recoveries: Vec<RolledBack>,
    /// Barrier mode with `read_uncommitted` readers: the transactional sink's readers see every
    /// row as it is written, aborted ones included.
    pub read_uncommitted: bool,
    /// The keys of the append-only (and so of every) table, numbered densely, when they can be.
    pub keys: Option<Arc<KeyIndex>>,
    /// The append-only table read emission by emission, when it can be (see [`emissions_of`](crate::engine::fast::figures)).
    pub emissions: Option<EmissionRows>,
}

/// The append-only table as a sequence of whole emissions: each emission's rows are one window's
/// changed keys, one row per product, in product order, and every commit holds whole emissions
/// of it. A key's rows are then found an emission at a time, without a pass over the rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmissionRows {
    /// Where each emission's rows end in the append-only table, in write order.
    pub(crate) ends: Arc<[usize]>,
}

impl EmissionRows {
    /// The rows of emission `i` in the append-only table.
    fn rows(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        start..self.ends[i]
    }

    /// The emissions holding rows of the append-only table's `rows`, each cut to them.
    fn within(&self, rows: std::ops::Range<usize>) -> impl DoubleEndedIterator<Item = std::ops::Range<usize>> + '_ {
        let first = self.ends.partition_point(|&end| end <= rows.start);
        let last = self.ends.partition_point(|&end| end < rows.end);
        (first..(last + 1).min(self.ends.len()))
            .map(move |i| {
                let r = self.rows(i);
                r.start.max(rows.start)..r.end.min(rows.end)
            })
            .filter(|r| !r.is_empty())
    }
}

impl std::fmt::Debug for SinkTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SinkTables")
            .field("append_only", &self.append_only.len())
            .field("upsert", &self.upsert.len())
            .field("transactional", &self.transactional.len())
            .field("commits", &self.commits.len())
            .field("dedupe_view", &self.dedupe_view.len())
            .field("recoveries", &self.recoveries)
            .finish()
    }
}

/// How an append-only row came about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// Written once and never rolled back.
    Kept,
    /// Written after the restored checkpoint by an attempt that then crashed.
    Orphan,
    /// Written again by the replay: the same content as an orphan.
    ReEmitted,
}

/// One key's history in every sink: (ms, order_count) points.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyHistory {
    /// (emitted at, order_count, kind) for every append-only row.
    pub appended: Vec<(u64, u32, RowKind)>,
    /// What an upsert (and dedupe-view) reader sees after each write.
    pub upsert: Vec<(u64, u32)>,
    /// What a transactional reader sees after each commit that changed the key.
    pub transactional: Vec<(u64, u32)>,
}

impl SinkTables {
    /// What a reader of `design` sees at the end of the run.
    pub fn read(&self, design: SinkDesign) -> &[Row] {
        match design {
            SinkDesign::AppendOnly => &self.append_only,
            SinkDesign::Upsert => &self.upsert,
            SinkDesign::Transactional => self.transactional.rows(),
            SinkDesign::DedupeView => &self.dedupe_view,
        }
    }

    /// Whether `row` was written by an attempt that later crashed, after the checkpoint that
    /// attempt's recovery restored.
    pub fn is_orphan(&self, row: &Row) -> bool {
        self.recoveries.iter().any(|r| r.crashed_attempt == row.attempt && row.epoch > r.restored_id)
    }

    /// The history of (window, product) in every sink: read emission by emission when the
    /// tables can be (one lookup per emission), else by a pass over the rows.
    pub fn history(&self, window_start_ms: u64, product: u32) -> KeyHistory {
        match &self.emissions {
            Some(emissions) => self.history_by_emission(emissions, window_start_ms, product),
            None => self.history_by_scan(window_start_ms, product),
        }
    }

    /// The history of (window, product), every row of the tables read: what
    /// [`SinkTables::history`] gives, the reference it is tested against.
    pub fn history_by_scan(&self, window_start_ms: u64, product: u32) -> KeyHistory {
        let key = |r: &&Row| u64::from(r.window_start_ms) == window_start_ms && r.product_id == product;
        let rows: Vec<&Row> = self.append_only.iter().filter(key).collect();
        let committed = |seen: usize, upto: usize| self.transactional.rows()[seen..upto].iter().rfind(key);
        self.history_of(&rows, committed)
    }

    fn history_by_emission(&self, emissions: &EmissionRows, window_start_ms: u64, product: u32) -> KeyHistory {
        // The key's row in a part of one emission, if it has one.
        let find = |part: std::ops::Range<usize>| {
            let rows = &self.append_only[part];
            let first = rows.first()?;
            if u64::from(first.window_start_ms) != window_start_ms {
                return None;
            }
            rows.binary_search_by_key(&product, |r| r.product_id).ok().map(|i| &rows[i])
        };
        let rows: Vec<&Row> = (0..emissions.ends.len()).filter_map(|i| find(emissions.rows(i))).collect();
        // The committed rows [seen, upto) are pieces of the append-only table.
        let committed = |seen: usize, upto: usize| {
            let pieces = self.transactional.pieces(seen, upto);
            pieces.into_iter().rev().find_map(|piece| emissions.within(piece).rev().find_map(find))
        };
        self.history_of(&rows, committed)
    }

    /// A key's history from its append-only rows, in write order, and its newest committed row
    /// among the committed rows [seen, upto).
    fn history_of<'a>(&'a self, rows: &[&'a Row], committed: impl Fn(usize, usize) -> Option<&'a Row>) -> KeyHistory {
        let orphans: Vec<(u32, u64, u32)> = rows.iter().filter(|r| self.is_orphan(r)).map(|r| r.content()).collect();
        let appended = rows
            .iter()
            .map(|r| {
                let kind = if self.is_orphan(r) {
                    RowKind::Orphan
                } else if orphans.contains(&r.content()) {
                    RowKind::ReEmitted
                } else {
                    RowKind::Kept
                };
                (u64::from(r.emitted_at_ms), r.order_count, kind)
            })
            .collect();
        let upsert = rows.iter().map(|r| (u64::from(r.emitted_at_ms), r.order_count)).collect();
        let transactional = if self.read_uncommitted {
            // Every row the sink receives, as it is written: the append-only table's rows.
            rows.iter().map(|r| (u64::from(r.emitted_at_ms), r.order_count)).collect()
        } else {
            let mut seen = 0;
            let mut visible = Vec::new();
            for &(_, at, upto) in self.commits.iter() {
                if let Some(latest) = committed(seen, upto) {
                    visible.push((at, latest.order_count));
                }
                seen = upto;
            }
            visible
        };
        KeyHistory { appended, upsert, transactional }
    }
}

/// Everything a run produced, in numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    pub config: Config,
    pub restored_checkpoint: Option<RestorePoint>,
    pub crash: Option<CrashFigures>,
    pub replayed_events: u64,
    pub replayed_offsets: Option<OffsetRange>,
    /// Rate x effective interval: what a crash just before the next barrier replays.
    pub interval_replay_events: u64,
    /// Also counting the checkpoint's own duration: a crash just before the next one completes.
    pub worst_case_replay_events: u64,
    pub detected_at_ms: Option<u64>,
    pub restored_at_ms: Option<u64>,
    pub replay_done_at_ms: Option<u64>,
    pub caught_up_at_ms: Option<u64>,
    /// Why `caught_up_at_ms` is `None`, when it is.
    pub caught_up_reason: Option<CaughtUpReason>,
    /// Crash to caught up.
    pub recovery_ms: Option<u64>,
    /// Crash to restored (the job processes nothing).
    pub downtime_ms: Option<u64>,
    pub phases: Option<PhaseDurations>,
    pub backlog_at_restore_events: Option<u64>,
    /// Events lost because recovery rewound past the log's retention.
    pub lost_events: u64,
    /// Every failure of the run (crashes of the schedule and fencing), in order.
    pub failures: u32,
    /// When the job became FAILED, if it did.
    pub failed_at_ms: Option<u64>,
    /// At-least-once checkpointing: events after a barrier that were in the restored checkpoint's
    /// state and were read again after the restore, so window totals exceed the failure-free
    /// totals by their count (fewer with producer retries, which the dedupe drops again). With
    /// offsets committed on a timer: the events between the committed offsets and the restored
    /// state's further on, which the state had counted and the replay counts again.
    pub counted_twice_events: u64,
    /// Offsets committed on a timer: events between the restored checkpoint's offsets and the
    /// consumer's last committed offsets further on. The restored state never counted them and the
    /// readers resume past them, so window totals fall short of the failure-free totals by their
    /// count.
    pub skipped_events: u64,
    pub effective_interval_ms: u64,
    pub store_limited: bool,
    pub store_write_bytes_per_min: u64,
    /// Share of time paused for sync or stalled aligning, failure-free.
    pub pause_overhead: f64,
    pub paused_ms: u64,
    pub aligning_ms: u64,
    pub checkpoints: Vec<RestorePoint>,
    pub sinks: SinkReport,
    pub window_total_before_crash: Option<WindowTotal>,
    pub crash_table: Vec<CrashFact>,
    pub steady_state: SteadyState,
    /// The steady state across intervals, for the trade-off chart.
    pub tradeoff: Tradeoff,
    /// What happened, as typed events and per-second samples.
    pub trace: Trace,
    /// Micro-batch mode: every offset-log entry, in order (empty in barrier mode).
    pub offset_log: Vec<OffsetLogEntry>,
    pub warnings: Vec<Warning>,
    /// The sinks' rows, for the sink-window chart and row listings.
    pub tables: SinkTables,
}

/// The crashing window's running total as the last emission before the crash showed it.
pub fn window_total_before_crash(run: &Sim) -> Option<WindowTotal> {
    let r = run.recoveries.first()?;
    let rows = run.sinks().append_only.rows();
    // Rows are appended as the clock moves, so those written before the crash come first.
    debug_assert!(rows.is_sorted_by_key(|row| row.emitted_at_ms));
    let last_before = rows.partition_point(|row| u64::from(row.emitted_at_ms) < r.crashed_at_ms).checked_sub(1)?;
    let last = &rows[last_before];
    let window = last.window_start_ms;
    // The latest running total per product of that window, read back from the last row. Before
    // the first crash nothing is replayed, so windows are emitted in order: the window's rows
    // are the last ones, and the read stops at an older window or once every product is seen.
    let products = run.config.products as usize;
    let (mut seen, mut unseen, mut order_count) = (vec![false; products], products, 0);
    for row in rows[..=last_before].iter().rev() {
        if row.window_start_ms != window || unseen == 0 {
            debug_assert!(row.window_start_ms <= window, "no newer window before the first crash");
            break;
        }
        if !std::mem::replace(&mut seen[row.product_id as usize], true) {
            unseen -= 1;
            order_count += u64::from(row.order_count);
        }
    }
    Some(WindowTotal { window_start_ms: window.into(), order_count, emitted_at_ms: last.emitted_at_ms.into() })
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

/// Effective interval and store write load measured on the failure-free run: the spacing of the
/// barriers of the checkpoints it took, from the first to the last. Not from the checkpoint the
/// job started from: the first barrier follows the start by one interval, however long each
/// checkpoint then takes (a store that cannot keep up spaces them further apart), so counting
/// that first gap would average a short interval into the cycle the warning states.
fn measured_cycle(truth: &Sim) -> Option<(u64, u64)> {
    let taken = &truth.restore_points[1..];
    let [first, .., last] = taken else {
        return None;
    };
    let spacing_ms = (last.started_at_ms() - first.started_at_ms()) as f64 / (taken.len() - 1) as f64;
    let mean_size = taken.iter().map(|c| c.size_bytes() as f64).sum::<f64>() / taken.len() as f64;
    Some((spacing_ms.round() as u64, (mean_size * 60_000.0 / spacing_ms).round() as u64))
}

/// The crash table of every failure: the first's as [`crash_table_of`] gives it, then each later
/// one's (with its restored checkpoint's rows when it restores another), in time order.
fn crash_table(config: &Config, run: &Sim, before: &Option<WindowTotal>) -> Vec<CrashFact> {
    let mut rows = Vec::new();
    let mut previous: Option<u64> = None;
    for recovery in &run.recoveries {
        let new_checkpoint = previous != Some(recovery.restored.id());
        let mut part = crash_table_of(config, run, recovery, if previous.is_none() { before } else { &None });
        if !new_checkpoint {
            part.retain(|r| {
                !matches!(
                    r.kind,
                    CrashFactKind::RestoredBarrier { .. }
                        | CrashFactKind::StartingCheckpoint { .. }
                        | CrashFactKind::Completed { .. }
                        | CrashFactKind::BatchCommitted { .. }
                )
            });
        }
        previous = Some(recovery.restored.id());
        rows.extend(part);
    }
    rows.dedup();
    // Stable: rows at the same instant keep the order they were added in.
    rows.sort_by_key(|r| r.at_ms);
    rows
}

fn crash_table_of(config: &Config, run: &Sim, recovery: &Recovery, before: &Option<WindowTotal>) -> Vec<CrashFact> {
    let restored = &recovery.restored;
    let rerun_in_flight = config.mode.reruns_in_flight();
    let mut rows = vec![
        CrashFact {
            at_ms: restored.started_at_ms(),
            offset: Some(restored.offset()),
            kind: CrashFactKind::RestoredBarrier { checkpoint: restored.id(), offset: restored.offset() },
        },
        CrashFact {
            at_ms: restored.completed_at_ms(),
            offset: Some(restored.offset()),
            kind: match restored {
                _ if restored.id() == config.start_checkpoint_id => {
                    CrashFactKind::StartingCheckpoint { checkpoint: restored.id() }
                }
                RestorePoint::Batch(b) => CrashFactKind::BatchCommitted {
                    batch: b.batch_id,
                    offset_log_ms: b.offset_log_write_ms,
                    processing_ms: b.processing_ms,
                    state_store_ms: b.state_store_write_ms,
                },
                RestorePoint::Checkpoint(c) => CrashFactKind::Completed {
                    checkpoint: c.id,
                    barrier_wait: BarrierWait::of(config),
                    barrier_wait_ms: c.alignment_ms,
                    sync_ms: c.sync_ms,
                    upload_ms: c.upload_ms,
                },
            },
        },
    ];
    if let Some(total) = before {
        rows.push(CrashFact {
            at_ms: total.emitted_at_ms,
            offset: None,
            kind: CrashFactKind::LastWindowTotal {
                window_start_ms: total.window_start_ms,
                order_count: total.order_count,
            },
        });
    }
    if recovery.cause == FailureCause::Fenced {
        let began_at_ms = run
            .trace
            .events
            .iter()
            .find_map(|e| match e.event {
                Event::ProducerFenced { began_at_ms } if e.at_ms == recovery.crashed_at_ms => Some(began_at_ms),
                _ => None,
            })
            .unwrap_or(recovery.crashed_at_ms);
        rows.push(CrashFact {
            at_ms: recovery.crashed_at_ms,
            offset: None,
            kind: CrashFactKind::ProducerFenced { began_at_ms, timeout_ms: config.transaction_timeout_ms },
        });
    }
    // Offsets committed on a timer: the replay starts at the last commit before the crash.
    let replay_from = recovery.committed.map_or(restored.offset(), |(_, offset)| offset);
    let replayed = recovery.crash_offset.saturating_sub(replay_from);
    if let Some((committed_at_ms, offset)) = recovery.committed {
        rows.push(CrashFact {
            at_ms: committed_at_ms,
            offset: Some(offset),
            kind: CrashFactKind::OffsetsCommitted {
                offset,
                checkpoint: restored.id(),
                checkpoint_offset: restored.offset(),
            },
        });
    }
    let rerun = recovery.discarded_checkpoint.and_then(|id| run.offset_log().iter().find(|e| e.batch_id == id));
    let in_flight = match (recovery.discarded_checkpoint, rerun) {
        (Some(id), Some(entry)) if rerun_in_flight => {
            InFlight::BatchRerun { batch: id, from: entry.start_offset, to: entry.end_offset }
        }
        (Some(id), _) => InFlight::DiscardedCheckpoint { checkpoint: id },
        (None, _) if rerun_in_flight => InFlight::NoBatchRunning { committed: restored.id() },
        (None, _) => InFlight::Nothing,
    };
    rows.push(CrashFact {
        at_ms: recovery.crashed_at_ms,
        offset: Some(recovery.crash_offset),
        kind: CrashFactKind::Crash {
            offset: recovery.crash_offset,
            replay_events: replayed,
            restored: restored.id(),
            in_flight,
            from_committed: recovery.committed.is_some(),
        },
    });
    rows.push(CrashFact {
        at_ms: recovery.detected_at_ms,
        offset: None,
        kind: CrashFactKind::Detected {
            after_ms: recovery.detected_at_ms - recovery.crashed_at_ms,
            failure: if recovery.cause == FailureCause::Fenced { Failure::Task } else { config.failure },
            overridden: config.detection_ms.is_some() && recovery.cause == FailureCause::Scheduled,
            heartbeat_timeout_ms: config.heartbeat_timeout_ms,
        },
    });
    if let Some(failed_at_ms) = recovery.failed_at_ms {
        let because = if failed_at_ms == recovery.detected_at_ms && recovery.restored_at_ms.is_none() {
            FailedBecause::RestartStrategy
        } else {
            FailedBecause::DataLoss
        };
        if because == FailedBecause::DataLoss {
            let gone_to = restored.offset() + recovery.lost_events;
            rows.push(CrashFact {
                at_ms: failed_at_ms,
                offset: Some(restored.offset()),
                kind: CrashFactKind::OffsetsReset {
                    from: restored.offset(),
                    to: gone_to,
                    lost_events: recovery.lost_events,
                    micro_batch: config.mode.runs_batches(),
                    fails: true,
                },
            });
        }
        rows.push(CrashFact {
            at_ms: failed_at_ms,
            offset: None,
            kind: CrashFactKind::JobFailed {
                because,
                strategy: config.restart_strategy,
                failure_number: recovery.failure_number,
            },
        });
        return rows;
    }
    if recovery.backoff_ms > 0 {
        rows.push(CrashFact {
            at_ms: recovery.restore_started_at_ms,
            offset: None,
            kind: CrashFactKind::RestartBackoff {
                backoff_ms: recovery.backoff_ms,
                failure_number: recovery.failure_number,
                strategy: config.restart_strategy,
            },
        });
    }
    let resumed = recovery.resumed_offset.unwrap_or(restored.offset());
    if let Some(restored_at) = recovery.restored_at_ms {
        rows.push(CrashFact {
            at_ms: restored_at,
            offset: Some(resumed),
            kind: CrashFactKind::Restored {
                checkpoint: restored.id(),
                state_bytes: config.state_bytes,
                offset: resumed,
                backlog_events: recovery.backlog_at_restore_events.unwrap_or(0),
                reset: recovery.lost_events > 0,
            },
        });
        if recovery.committed.is_some() {
            rows.push(CrashFact {
                at_ms: restored_at,
                offset: Some(resumed),
                kind: CrashFactKind::ResumedAtCommitted {
                    offset: resumed,
                    skipped_events: recovery.skipped_events,
                    counted_twice_events: recovery.counted_twice_events,
                },
            });
        }
        if recovery.lost_events > 0 {
            rows.push(CrashFact {
                at_ms: restored_at,
                offset: Some(resumed),
                kind: CrashFactKind::OffsetsReset {
                    from: restored.offset(),
                    to: resumed,
                    lost_events: recovery.lost_events,
                    micro_batch: config.mode.runs_batches(),
                    fails: false,
                },
            });
        }
    }
    // Reset past the crash offset: nothing was read again, so no replay to be back from.
    if let Some(done) = recovery.replay_done_at_ms.filter(|_| resumed < recovery.crash_offset) {
        rows.push(CrashFact {
            at_ms: done,
            offset: Some(recovery.crash_offset),
            kind: CrashFactKind::ReplayDone { offset: recovery.crash_offset },
        });
    }
    if let Some(entry) = rerun.filter(|_| rerun_in_flight) {
        let again = run
            .restore_points
            .iter()
            .filter_map(RestorePoint::as_batch)
            .find(|b| b.batch_id == entry.batch_id && b.attempt > recovery.crashed_attempt);
        if let Some(again) = again {
            rows.push(CrashFact {
                at_ms: again.committed_at_ms,
                offset: Some(again.end_offset),
                kind: CrashFactKind::BatchCommittedAgain {
                    batch: entry.batch_id,
                    from: entry.start_offset,
                    to: again.end_offset,
                },
            });
        }
    }
    if let Some(caught_up) = recovery.caught_up_at_ms {
        rows.push(CrashFact {
            at_ms: caught_up,
            offset: Some(
                match run.restore_points.iter().find(|c| config.mode.runs_batches() && c.completed_at_ms() == caught_up)
                {
                    Some(batch) => batch.offset(),
                    None => run.log().log_end_at(caught_up),
                },
            ),
            kind: CrashFactKind::CaughtUp { after_ms: caught_up - recovery.crashed_at_ms },
        });
    }
    // In time order in every mode: a batch's output (the last emission) comes before its commit.
    super::trace::sort_nearly_sorted_by_key(&mut rows, |r| r.at_ms);
    rows
}

impl Figures {
    /// The figures of `run`, whose failure-free companion is `truth` (`run` itself without a
    /// crash), from what the passes over their sink tables found: the sinks' figures and tables,
    /// and the crashing window's total before the crash ([`window_total_before_crash`]).
    pub fn of_run(
        run: &Sim,
        truth: &Sim,
        (sinks, tables): (SinkReport, SinkTables),
        window_total_before_crash: Option<WindowTotal>,
    ) -> Figures {
        let config = &run.config;
        let model = steady_state(config, config.interval_ms);
        let recovery = run.recoveries.first();
        let failed_at_ms = run.failed_at_ms();
        let (effective_interval_ms, store_write_bytes_per_min) =
            measured_cycle(truth).unwrap_or((model.effective_interval_ms, model.store_write_bytes_per_min));
        let mut warnings = Vec::new();
        if model.store_limited && config.mode.runs_batches() {
            warnings.push(Warning::BatchesBackToBack {
                interval_ms: config.interval_ms,
                state_store_write_bytes: model.size_bytes,
                every_ms: model.effective_interval_ms,
            });
        } else if model.store_limited {
            // On a tie the later part wins: the upload, then the pause.
            let bottleneck = [
                Bottleneck::Alignment { alignment_ms: model.duration_ms - config.sync_pause_ms - model.upload_ms },
                Bottleneck::SyncPause { sync_pause_ms: config.sync_pause_ms, upload_ms: model.upload_ms },
                Bottleneck::Upload { upload_ms: model.upload_ms },
            ]
            .into_iter()
            .max_by_key(|b| match *b {
                Bottleneck::Upload { upload_ms } => upload_ms,
                Bottleneck::SyncPause { sync_pause_ms, .. } => sync_pause_ms,
                Bottleneck::Alignment { alignment_ms } => alignment_ms,
            })
            .expect("three parts");
            warnings.push(Warning::StoreCannotKeepUp {
                checkpoint_bytes: model.size_bytes,
                interval_ms: config.interval_ms,
                every_ms: model.effective_interval_ms,
                bottleneck,
            });
        }
        if let Some(duration_ms) = checkpoint_outlasts_timeout_ms(config) {
            warnings.push(Warning::CheckpointsOutlastTimeout { duration_ms, timeout_ms: FLINK_CHECKPOINT_TIMEOUT_MS });
        }
        let caught_up_reason = recovery.and_then(|r| {
            if r.caught_up_at_ms.is_some() {
                None
            } else if failed_at_ms.is_some() && run.recoveries.len() == 1 {
                Some(CaughtUpReason::JobFailed)
            } else if r.interrupted {
                Some(CaughtUpReason::Interrupted)
            } else if r.restored_at_ms.is_none() {
                Some(CaughtUpReason::RestoreUnfinished)
            } else if config.mode.runs_batches() && model.store_limited {
                Some(CaughtUpReason::BatchesOutlastTrigger)
            } else if config.capacity_per_s <= config.rate_per_s {
                Some(CaughtUpReason::CapacityNotAboveRate)
            } else {
                Some(CaughtUpReason::BacklogRemains)
            }
        });
        if let Some(reason) = caught_up_reason.filter(|_| failed_at_ms.is_none()) {
            warnings.push(Warning::NeverCatchesUp(reason));
        }
        let lost_events: u64 = run.recoveries.iter().map(|r| r.lost_events).sum();
        if config.mode.runs_batches() && config.backpressure_ms > 0 {
            warnings.push(Warning::BackpressureInMicroBatch);
        }
        if lost_events > 0 {
            warnings.push(Warning::EventsLost { events: lost_events });
        }
        // A later recovery that restores the same checkpoint again discards what the earlier replay
        // counted; one that restores a later checkpoint keeps it (that checkpoint's state holds it).
        let recoveries = &run.recoveries;
        let last_of_their_checkpoint = || {
            recoveries
                .iter()
                .enumerate()
                .filter(|(i, r)| recoveries.get(i + 1).is_none_or(|next| next.restored.id() != r.restored.id()))
                .map(|(_, r)| r)
        };
        // Offsets committed on a timer: each restore compared the state's offsets with the
        // committed ones it resumed at (the state's records past a barrier included).
        let on_timer = config.commits_offsets_on_timer();
        let counted_twice_events: u64 = last_of_their_checkpoint()
            .map(|r| if on_timer { r.counted_twice_events } else { r.restored.past_barrier_events() })
            .sum();
        let skipped_events: u64 = last_of_their_checkpoint().map(|r| r.skipped_events).sum();
        if on_timer && (counted_twice_events > 0 || skipped_events > 0) {
            warnings.push(Warning::OffsetsApartFromState {
                skipped: skipped_events,
                counted_twice: counted_twice_events,
                interval_ms: config.offset_commit_interval_ms,
            });
        } else if counted_twice_events > 0 {
            warnings.push(Warning::CountedTwice { events: counted_twice_events });
        }
        let fenced = run.sinks().transactional.fenced_transactions()
            + run.recoveries.iter().filter(|r| r.cause == FailureCause::Fenced).count() as u64;
        if fenced > 0 {
            warnings.push(Warning::ProducerFenced { transactions: fenced, timeout_ms: config.transaction_timeout_ms });
        }
        let timed_out_rows = run.sinks().transactional.timed_out_rows();
        if timed_out_rows > 0 {
            warnings.push(Warning::TransactionsTimedOut {
                rows: timed_out_rows,
                timeout_ms: config.transaction_timeout_ms,
            });
        }
        if let Some(at_ms) = failed_at_ms {
            let data_loss =
                run.trace.events.iter().any(|e| e.event == Event::JobFailed { because: FailedBecause::DataLoss });
            warnings.push(Warning::JobFailed {
                at_ms,
                because: if data_loss { FailedBecause::DataLoss } else { FailedBecause::RestartStrategy },
                failures: run.recoveries.len() as u32,
            });
        }
        let mut sinks = sinks;
        for figures in [&mut sinks.append_only, &mut sinks.upsert, &mut sinks.transactional, &mut sinks.dedupe_view] {
            figures.lost_events = lost_events;
            // A run that lost events, or stopped for good, cannot show what a failure-free one does.
            if lost_events > 0 || failed_at_ms.is_some() {
                figures.matches_failure_free = false;
            }
        }
        let horizon = config.horizon_ms as f64;
        Figures {
            restored_checkpoint: recovery.map(|r| r.restored.clone()),
            crash: recovery.map(|r| CrashFigures {
                at_ms: r.crashed_at_ms,
                offset: r.crash_offset,
                offsets: r.crash_offsets.clone(),
                discarded_checkpoint: r.discarded_checkpoint,
            }),
            replayed_events: recovery
                .map_or(0, |r| r.crash_offset.saturating_sub(r.resumed_offset.unwrap_or(r.restored.offset()))),
            replayed_offsets: recovery.map(|r| OffsetRange {
                from: r.resumed_offset.unwrap_or(r.restored.offset()).min(r.crash_offset),
                to: r.crash_offset,
            }),
            interval_replay_events: config.rate_per_s * effective_interval_ms / 1000,
            worst_case_replay_events: worst_case_replay(truth).unwrap_or(model.worst_case_replay_events),
            detected_at_ms: recovery.map(|r| r.detected_at_ms),
            restored_at_ms: recovery.and_then(|r| r.restored_at_ms),
            replay_done_at_ms: recovery.and_then(|r| r.replay_done_at_ms),
            caught_up_at_ms: recovery.and_then(|r| r.caught_up_at_ms),
            caught_up_reason,
            recovery_ms: recovery.and_then(|r| r.caught_up_at_ms.map(|t| t - r.crashed_at_ms)),
            downtime_ms: recovery.map(|r| r.restore_done_at_ms - r.crashed_at_ms),
            phases: recovery.map(|r| PhaseDurations {
                detection_ms: r.detected_at_ms - r.crashed_at_ms,
                restart_ms: r.restore_started_at_ms - r.detected_at_ms,
                restore_ms: r.restore_done_at_ms - r.restore_started_at_ms,
                replay_ms: r.replay_done_at_ms.map(|t| t - r.restore_done_at_ms),
                catch_up_ms: r.caught_up_at_ms.zip(r.replay_done_at_ms).map(|(c, d)| c - d),
            }),
            backlog_at_restore_events: recovery.and_then(|r| r.backlog_at_restore_events),
            lost_events,
            failures: run.recoveries.len() as u32,
            failed_at_ms,
            counted_twice_events,
            skipped_events,
            effective_interval_ms,
            store_limited: model.store_limited,
            store_write_bytes_per_min,
            pause_overhead: (truth.paused_ms() + truth.aligning_ms()) as f64 / horizon,
            paused_ms: run.paused_ms(),
            aligning_ms: run.aligning_ms(),
            checkpoints: run.restore_points.clone(),
            sinks,
            crash_table: crash_table(config, run, &window_total_before_crash),
            window_total_before_crash,
            steady_state: model,
            tradeoff: tradeoff(config),
            trace: run.trace.clone(),
            offset_log: run.offset_log().to_vec(),
            warnings,
            tables,
            config: config.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::settings::clock::parse_clock;
    use crate::engine::{run, Config, Snapshots};

    fn at(clock: &str) -> u64 {
        parse_clock(clock).expect("a clock time")
    }

    #[test]
    fn replayed_events_run_from_the_restored_offset_to_the_crash_offset() {
        // 2,000 events/s from offset 1,000,000 at 10:00:00; checkpoint 42's barrier at 10:00:30.
        for (crash, restored, restored_offset, crash_offset) in
            [("10:00:45", 42, 1_060_000, 1_090_000), ("10:00:31", 41, 1_000_000, 1_062_000)]
        {
            let config = Config { crash_at_ms: Some(at(crash)), horizon_ms: 120_000, ..Config::default() };
            let figures = run(&config).expect("valid").figures();
            let restored_checkpoint = figures.restored_checkpoint.as_ref().expect("a restore");
            assert_eq!(restored_checkpoint.id(), restored, "crash at {crash}");
            assert_eq!(restored_checkpoint.offset(), restored_offset, "crash at {crash}");
            assert_eq!(figures.crash.as_ref().map(|c| c.offset), Some(crash_offset), "crash at {crash}");
            assert_eq!(figures.replayed_events, crash_offset - restored_offset, "crash at {crash}");
            let range = figures.replayed_offsets.expect("a replay");
            assert_eq!((range.from, range.to), (restored_offset, crash_offset));
        }
    }

    #[test]
    fn the_crashing_windows_total_is_the_last_emission_before_the_crash() {
        let figures = run(&Config { horizon_ms: 120_000, ..Config::default() }).unwrap().figures();
        let total = figures.window_total_before_crash.expect("a crash inside a window");
        // 44 s of the 10:00 window at 2,000 events/s, every product's running total at 10:00:44.
        assert_eq!((total.window_start_ms, total.emitted_at_ms), (at("10:00:00"), at("10:00:44")));
        assert_eq!(total.order_count, 88_000);
        let none = run(&Config { crash_at_ms: None, horizon_ms: 120_000, ..Config::default() }).unwrap().figures();
        assert_eq!((none.window_total_before_crash, none.replayed_events), (None, 0));
    }

    #[test]
    fn the_recovery_phases_add_up_to_crash_to_caught_up() {
        let figures = run(&Config { horizon_ms: 180_000, ..Config::default() }).unwrap().figures();
        let phases = figures.phases.expect("a recovery");
        // Detected 10 s after the crash, no restart delay, 2 GB restored at 200 MB/s.
        assert_eq!((phases.detection_ms, phases.restart_ms, phases.restore_ms), (10_000, 0, 10_000));
        let total = phases.detection_ms
            + phases.restart_ms
            + phases.restore_ms
            + phases.replay_ms.expect("replayed")
            + phases.catch_up_ms.expect("caught up");
        assert_eq!(Some(total), figures.recovery_ms);
        // Caught up about 10:01:40: 55 s from crash to catch-up, to within a second.
        let caught_up = figures.caught_up_at_ms.expect("caught up");
        assert!(caught_up.abs_diff(at("10:01:40")) <= 1_000, "caught up at {caught_up}");
    }

    #[test]
    fn the_effective_interval_is_measured_from_the_barriers_a_slow_store_spaces_out() {
        let fast_store =
            run(&Config { crash_at_ms: None, interval_ms: 5_000, horizon_ms: 120_000, ..Config::default() })
                .unwrap()
                .figures();
        assert_eq!(fast_store.effective_interval_ms, 5_000);
        assert!(!fast_store.store_limited);
        // 2 GB full snapshots at 100 MB/s take 20 s to upload: barriers come no faster.
        let slow_store = Config {
            crash_at_ms: None,
            interval_ms: 5_000,
            store_write_bytes_per_s: 100_000_000,
            snapshots: Snapshots::Full,
            horizon_ms: 300_000,
            ..Config::default()
        };
        let figures = run(&slow_store).unwrap().figures();
        assert!(figures.store_limited);
        assert!(figures.effective_interval_ms >= 20_000, "every {} ms", figures.effective_interval_ms);
    }
}
