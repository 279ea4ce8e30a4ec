//! The outcome of a run in numbers: every figure the report, the crash table, the charts and the
//! exercises are made from. Times are milliseconds on the scenario clock and nothing here is
//! text: the lesson layer (`crate::lesson`) puts these figures into words and builds the serde
//! report the command line and the page hand out.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use super::config::{CheckpointingMode, Config, Failure, Mode, RestartStrategy, FLINK_CHECKPOINT_TIMEOUT_MS};
use super::model::{checkpoint_outlasts_timeout_ms, steady_state, tradeoff, SteadyState, Tradeoff};
use super::protocol::{OffsetLogEntry, RestorePoint};
use super::sim::{Execution, Keyframe, Recovery, Sim};
use super::sinks::emissions::{Layout, TruthEmissions};
use super::sinks::keys::{FirstPass, KeyIndex, Survey};
use super::sinks::{dedupe_view, duplicates_and_keys, same_contents, same_in_order, CommittedRows, Row, SinkDesign};
use super::trace::{Event, Trace};

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
    /// The restored checkpoint completed: its pause (sync and alignment) and upload.
    Completed { checkpoint: u64, pause_ms: u64, upload_ms: u64 },
    /// The restored batch committed: offset log, processing and state store write.
    BatchCommitted { batch: u64, offset_log_ms: u64, processing_ms: u64, state_store_ms: u64 },
    /// The crashing window's running total in the last emission before the crash.
    LastWindowTotal { window_start_ms: u64, order_count: u64 },
    /// The crash, what it leaves to replay since the restored checkpoint, and what was in flight.
    Crash { offset: u64, replay_events: u64, restored: u64, in_flight: InFlight },
    /// The failure was noticed after `after_ms`: `failure` says what failed (a lost TaskManager
    /// at its heartbeat timeout, a task at once); `overridden` when a fixed detection delay was set.
    Detected { after_ms: u64, failure: Failure, overridden: bool },
    /// The restart strategy waited `backoff_ms` before the restore (failure `failure_number`
    /// since the backoff was last reset).
    RestartBackoff { backoff_ms: u64, failure_number: u32, strategy: RestartStrategy },
    /// The restored checkpoint's state is loaded; the readers rewound to `offset`.
    Restored { checkpoint: u64, state_bytes: u64, offset: u64, backlog_events: u64 },
    /// The readers are back at the crash offset.
    ReplayDone { offset: u64 },
    /// The batch the crash interrupted committed again with the same offsets.
    BatchCommittedAgain { batch: u64, from: u64, to: u64 },
    /// The job caught up `after_ms` after the crash (micro-batch: back on the trigger schedule).
    CaughtUp { after_ms: u64 },
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
}

/// A pathological setting, with its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warning {
    /// Micro-batch: a batch outlasts the trigger interval; batches run back to back.
    BatchesBackToBack { interval_ms: u64, state_store_write_bytes: u64, every_ms: u64 },
    /// The store cannot absorb a checkpoint per interval; checkpoints run back to back.
    StoreCannotKeepUp { checkpoint_bytes: u64, interval_ms: u64, every_ms: u64 },
    /// The job never catches up.
    NeverCatchesUp(CaughtUpReason),
    /// Backpressure was set in micro-batch mode, where it does not apply.
    BackpressureInMicroBatch,
    /// Recovery rewound past the log's retention.
    EventsLost { events: u64 },
    /// At-least-once checkpointing: the restore read `events` again that its state already held.
    CountedTwice { events: u64 },
    /// Sink transactions outlived their timeout while still open: the broker aborted them and
    /// fenced the producer, so a real job fails on its next write (the model carries on).
    ProducerFenced { transactions: u64, timeout_ms: u64 },
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
    /// The append-only table read emission by emission, when it can be (see [`emissions_of`]).
    pub emissions: Option<EmissionRows>,
}

/// The append-only table as a sequence of whole emissions: each emission's rows are one window's
/// changed keys, one row per product, in product order, and every commit holds whole emissions
/// of it. A key's rows are then found an emission at a time, without a pass over the rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmissionRows {
    /// Where each emission's rows end in the append-only table, in write order.
    ends: Arc<[usize]>,
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
    /// At-least-once checkpointing: events after a barrier that were in the restored checkpoint's
    /// state and were read again after the restore, so window totals exceed the failure-free
    /// totals by their count (fewer with producer retries, which the dedupe drops again).
    pub counted_twice_events: u64,
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

/// A finished simulation and its failure-free companion (the same run without the crash).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub run: Sim,
    /// The failure-free companion, shared with later outcomes that move only the crash time.
    pub failure_free: Option<Arc<Sim>>,
    /// Keyframes of the failure-free run, for a later run that moves only the crash time.
    pub keyframes: Arc<Vec<Keyframe>>,
    /// What the report reads of the failure-free run's rows, shared with later runs that reuse it.
    pub truth_tables: Arc<TruthTables>,
    /// What reports read of first rows of the failure-free run's whole table (see
    /// [`AppendOnlySink::whole`](super::sinks::append_only::AppendOnlySink::whole)), shared with
    /// later failure-free runs that borrow it.
    pub prefix_tables: Arc<PrefixTables>,
    /// Rows the run's (appended, committed) tables start with that are copies of the failure-free
    /// run's, copied at the fork or when resumed at a keyframe: the report compares only the rest.
    pub shared_rows: (usize, usize),
    /// Whether the failure-free run borrowed its append-only table from an earlier failure-free
    /// run of the same data (see [`Sinks::discard_rows`](super::sinks::Sinks::discard_rows)):
    /// its rows' contents are its own, their times and epochs that run's, and it kept no upsert
    /// or committed table. Its keyframes and trace do not serve a crash move.
    pub truth_rows_borrowed: bool,
}

/// What the report reads of the failure-free run's append-only table, worked out on first use
/// and kept with the failure-free run: a run that moves only the crash time reuses that run, and
/// these with it, so its report goes over its own rows only.
#[derive(Debug, Default)]
pub struct TruthTables {
    /// Whether the rows come in boundary order (a failure-free run's emissions do).
    in_boundary_order: OnceLock<bool>,
    /// The windows and products of the rows (`None`: too thin to number densely).
    keys: OnceLock<Option<KeyIndex>>,
    /// The dedupe view of the rows.
    view: OnceLock<Vec<Row>>,
    /// The rows by emit boundary and by key, for reading a run's table emission by emission.
    by_boundary: OnceLock<Option<Arc<TruthEmissions>>>,
    /// What an upsert reader sees: the rows applied in order.
    upsert: OnceLock<Vec<Row>>,
    /// How many of the committed rows are checked to hold, in order, the contents of the
    /// append-only table's first rows, and whether one did not.
    committed_checked: Mutex<(usize, bool)>,
}

/// What reports read of the first rows of one failure-free table, per number of rows: runs that
/// borrow the table (see [`Sinks::discard_rows`](super::sinks::Sinks::discard_rows)) and end
/// with as many rows share it. A few are kept: settings that leave the readers behind at the
/// horizon end with a row count of their own.
#[derive(Debug, Default)]
pub struct PrefixTables(Mutex<Vec<(usize, Arc<TruthTables>)>>);

impl PrefixTables {
    /// Row counts kept, the least recently used dropped first.
    const KEPT: usize = 8;

    /// What was read of the first `rows` rows, or `read` of them now, kept.
    pub fn get_or_add(&self, rows: usize, read: impl FnOnce() -> Arc<TruthTables>) -> Arc<TruthTables> {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let tables = match kept.iter().position(|(n, _)| *n == rows) {
            Some(i) => kept.remove(i).1,
            None => read(),
        };
        kept.push((rows, Arc::clone(&tables)));
        if kept.len() > Self::KEPT {
            kept.remove(0);
        }
        tables
    }
}

impl TruthTables {
    /// Whether the failure-free run's first `n` committed rows hold, in order, the contents of its
    /// first `n` appended rows (checked as far as asked, and kept).
    fn committed_starts_as_appended(&self, committed: &[Row], appended: &[Row], n: usize) -> bool {
        let mut checked = self.committed_checked.lock().unwrap_or_else(|e| e.into_inner());
        let (done, differs) = *checked;
        if n <= done {
            return true;
        }
        if differs || n > committed.len() || n > appended.len() {
            return false;
        }
        let same = same_in_order(&committed[done..n], &appended[done..n]);
        *checked = if same { (n, false) } else { (done, true) };
        same
    }
}

impl Outcome {
    /// The failure-free run (the run itself when there was no crash).
    pub fn truth(&self) -> &Sim {
        self.failure_free.as_deref().unwrap_or(&self.run)
    }

    /// The run's figures, in numbers.
    pub fn figures(&self) -> Figures {
        FiguresBuilder::default().finish(self)
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

/// The rows of `rows` complete up to `boundary_ms`, in write order: borrowed when they are a
/// prefix of the table (boundaries only grow in a run without a restart), else copied.
fn rows_up_to(rows: &[Row], boundary_ms: u64) -> Cow<'_, [Row]> {
    let prefix = rows.iter().take_while(|r| u64::from(r.boundary_ms) <= boundary_ms).count();
    if rows[prefix..].iter().all(|r| u64::from(r.boundary_ms) > boundary_ms) {
        Cow::Borrowed(&rows[..prefix])
    } else {
        Cow::Owned(rows.iter().filter(|r| u64::from(r.boundary_ms) <= boundary_ms).copied().collect())
    }
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

/// Counts and comparisons of the sink tables, through one dense index of all their keys when
/// there is one (see [`KeyIndex::of`]), else the tables' own.
struct Keys(Option<KeyIndex>);

impl Keys {
    /// Duplicate rows, keys and the dedupe view of `rows`, in two passes where it can: the
    /// first here, the second by [`Keys::finish_survey`].
    fn start_survey(&self, rows: &[Row]) -> SurveyPart {
        match &self.0 {
            Some(index) => SurveyPart::Started(index.first_pass(rows, true)),
            None => {
                let (duplicate_rows, keys) = duplicates_and_keys(rows);
                SurveyPart::Done(Survey { duplicate_rows, keys, newest: dedupe_view::read(rows) })
            }
        }
    }

    fn finish_survey(&self, part: SurveyPart, rows: &[Row]) -> Survey {
        match (part, &self.0) {
            (SurveyPart::Started(first), Some(index)) => index.finish_survey(first, rows),
            (SurveyPart::Started(_), None) => unreachable!("started only with an index"),
            (SurveyPart::Done(survey), _) => survey,
        }
    }

    fn duplicates_and_keys(&self, rows: &[Row]) -> (u64, u64) {
        match &self.0 {
            Some(index) => index.duplicates_and_keys(rows),
            None => duplicates_and_keys(rows),
        }
    }

    /// Whether table `a` holds what the failure-free `b` holds. Micro-batch: a restart moves
    /// where batches are cut, so the running totals in between differ; a table matches when it
    /// holds no duplicate and the same newest total per key.
    fn same(&self, micro_batch: bool, a: &[Row], b: &[Row]) -> bool {
        if micro_batch {
            // The dedupe view's newest row per key.
            let newest = |rows: &[Row]| self.view(rows).iter().map(Row::content).collect::<Vec<_>>();
            self.duplicates_and_keys(a).0 == 0 && newest(a) == newest(b)
        } else {
            self.same_contents(a, b)
        }
    }

    fn same_contents(&self, a: &[Row], b: &[Row]) -> bool {
        match &self.0 {
            Some(index) => index.same_contents(a, b),
            None => same_contents(a, b),
        }
    }

    /// The dedupe view over `rows`.
    fn view(&self, rows: &[Row]) -> Vec<Row> {
        match &self.0 {
            Some(index) => index.newest(rows),
            None => dedupe_view::read(rows),
        }
    }
}

/// A survey of a table half made ([`Keys::start_survey`]) or made.
enum SurveyPart {
    Started(FirstPass),
    Done(Survey),
}

/// The failure-free rows the crashed run's transactional table is compared with: those complete
/// by its newest commit, a prefix of the failure-free append-only table (or a copy of them, when
/// that table is not in boundary order), or in micro-batch mode its own committed rows.
enum TruthCommitted {
    Prefix(usize),
    Copied(Vec<Row>),
}

/// The figures of a finished run, built a pass at a time: each [`FiguresBuilder::step`] makes
/// one pass over one sink table (or compares two), so a page can spread a long run's report over
/// several slices; [`FiguresBuilder::finish`] puts them together. [`Outcome::figures`] is the
/// same builder run to the end.
#[derive(Default)]
pub struct FiguresBuilder {
    passes_done: usize,
    /// (longest silence, worst staleness) of readers who see rows as they are written, and of
    /// read_committed readers of the transactional sink.
    immediate: (u64, u64),
    delayed: (u64, u64),
    newest_committed_ms: u64,
    truth_committed: Option<TruthCommitted>,
    keys: Option<Keys>,
    upsert_rows: Vec<Row>,
    /// Writes to the upsert table that replaced a key's row with a smaller total.
    upsert_regressions: u64,
    /// Duplicates, keys and the dedupe view of the append-only table: half made, then made.
    appended_part: Option<SurveyPart>,
    appended: Option<Survey>,
    /// (duplicate rows, keys) of the upsert table, the committed rows and the dedupe view.
    upsert_counts: (u64, u64),
    committed_counts: (u64, u64),
    view_counts: (u64, u64),
    /// Whether each design's table matches the failure-free run's (in SinkDesign::ALL order).
    matches: [bool; 4],
    window_total_before_crash: Option<WindowTotal>,
    /// The run's emissions (emitted at, boundary, rows) in write order, when its append-only
    /// table can be read emission by emission (see [`emissions_of`]).
    emissions: Option<Vec<(u64, u64, u64)>>,
    /// The run's append-only and committed tables as pieces of the failure-free table, when
    /// they line up with it.
    laid_out: Option<LaidOut>,
    /// The run's committed rows, as ranges of its append-only table: made into rows only by the
    /// passes that read them row by row.
    committed: Option<Arc<CommittedRows>>,
}

/// A run's tables laid out as pieces of the failure-free table (see [`Layout`]).
struct LaidOut {
    appended: Layout,
    /// The committed rows, unless some were not copied from the append-only table.
    committed: Option<Layout>,
    by_boundary: Arc<TruthEmissions>,
    slots: usize,
}

/// The run's emissions (emitted at, boundary, rows), in write order, when its append-only table
/// can be read emission by emission (see [`emissions`]): in barrier mode, exactly once (an
/// at-least-once restore counts again what the snapshot had already taken in past a barrier),
/// without producer retries or events lost to retention, and only for a run computed the fast way, so that the
/// per-event reference it is tested against reads every row.
#[inline(never)]
fn emissions_of(run: &Sim) -> Option<Vec<(u64, u64, u64)>> {
    let config = &run.config;
    let readable = run.execution() == Execution::Fast
        && config.mode == Mode::Barrier
        && config.retry_rate == 0.0
        && config.checkpointing_mode == CheckpointingMode::ExactlyOnce
        && run.recoveries.iter().all(|r| r.lost_events == 0);
    if !readable {
        return None;
    }
    let emitted: Vec<(u64, u64, u64)> = run
        .trace
        .events
        .iter()
        .filter_map(|e| match e.event {
            Event::Emitted { boundary_ms, rows } => Some((e.at_ms, boundary_ms, rows)),
            _ => None,
        })
        .collect();
    let rows: u64 = emitted.iter().map(|&(_, _, rows)| rows).sum();
    (rows == run.sinks().append_only.rows().len() as u64).then_some(emitted)
}

/// How many passes a [`FiguresBuilder`] makes.
const PASSES: usize = 15;

impl FiguresBuilder {
    /// Makes the next pass; returns true once all are made.
    pub fn step(&mut self, outcome: &Outcome) -> bool {
        let (run, truth) = (&outcome.run, outcome.truth());
        let (start, end) = (run.config.start_time_ms, run.config.end_ms());
        let appended = run.sinks().append_only.rows();
        let truth_appended = truth.sinks().append_only.rows();
        let committed = self.committed_table(run);
        let micro_batch = run.config.mode == Mode::MicroBatch;
        match self.passes_done {
            0 => {
                self.emissions = emissions_of(run);
                self.laid_out = self.emissions.as_ref().and_then(|emitted| {
                    let truth_tables = &outcome.truth_tables;
                    let known = truth_tables.keys.get_or_init(|| KeyIndex::of(&[truth_appended])).as_ref()?;
                    let by_boundary = truth_tables
                        .by_boundary
                        .get_or_init(|| TruthEmissions::new(truth_appended, known).map(Arc::new))
                        .clone()?;
                    let emitted = emitted.iter().map(|&(_, boundary, rows)| (boundary, rows));
                    let appended = Layout::of_emissions(appended, emitted, truth_appended, &by_boundary)?;
                    let ranges = run.sinks().transactional.committed_ranges();
                    let committed = appended.of_ranges(ranges).filter(|c| c.holds(committed.len()));
                    Some(LaidOut { appended, committed, by_boundary, slots: known.slots() })
                });
                // An emission's rows share their time and boundary: one stands for all.
                self.immediate = match &self.emissions {
                    Some(emitted) => freshness(start, end, emitted.iter().map(|&(at, boundary, _)| (at, boundary))),
                    None => freshness(
                        start,
                        end,
                        appended.iter().map(|r| (u64::from(r.emitted_at_ms), u64::from(r.boundary_ms))),
                    ),
                };
            }
            1 => {
                let commits = run.sinks().transactional.commits();
                let mut commit_visibility = Vec::with_capacity(commits.len());
                let mut seen = 0;
                let laid_out = self.laid_out.as_ref().and_then(|l| l.committed.as_ref());
                for &(_, at, upto) in commits {
                    let newest = match laid_out {
                        Some(layout) => {
                            layout.newest_within(seen, upto).map(|i| u64::from(truth_appended[i as usize].boundary_ms))
                        }
                        None => committed.rows()[seen..upto].iter().map(|r| u64::from(r.boundary_ms)).max(),
                    };
                    if let Some(newest) = newest {
                        commit_visibility.push((at, newest));
                    }
                    seen = upto;
                }
                // Every committed row is in some commit's range.
                self.newest_committed_ms = commit_visibility.iter().map(|&(_, newest)| newest).max().unwrap_or(start);
                self.delayed = freshness(start, end, commit_visibility.into_iter());
            }
            2 => {
                let newest_ms = self.newest_committed_ms;
                self.truth_committed = Some(if micro_batch {
                    TruthCommitted::Copied(truth.sinks().committed_rows())
                } else if *outcome
                    .truth_tables
                    .in_boundary_order
                    .get_or_init(|| truth_appended.windows(2).all(|w| w[0].boundary_ms <= w[1].boundary_ms))
                {
                    TruthCommitted::Prefix(truth_appended.partition_point(|r| u64::from(r.boundary_ms) <= newest_ms))
                } else {
                    match rows_up_to(truth_appended, newest_ms) {
                        Cow::Borrowed(prefix) => TruthCommitted::Prefix(prefix.len()),
                        Cow::Owned(rows) => TruthCommitted::Copied(rows),
                    }
                });
            }
            // Every row a sink holds was also appended to the same run's append-only table
            // (committed rows, the upsert table and the view are drawn from the same writes), so
            // those two tables' keys are all the keys.
            3 => {
                let truth_keys = outcome.truth_tables.keys.get_or_init(|| KeyIndex::of(&[truth_appended]));
                // The rows the run shares with the failure-free run are already indexed there.
                let shared = outcome.shared_rows.0.min(appended.len());
                self.keys = Some(Keys(match truth_keys {
                    // A table that lines up with the failure-free one holds only its keys.
                    Some(known) if self.laid_out.is_some() => Some(known.clone()),
                    Some(known) => KeyIndex::joined(&[&appended[shared..]], known, truth_appended.len() + shared),
                    None => KeyIndex::of(&[appended, truth_appended]),
                }));
            }
            4 => {
                (self.upsert_rows, self.upsert_regressions) = match &self.laid_out {
                    Some(l) => l.appended.upsert(appended, &l.by_boundary, l.slots),
                    None => {
                        let table = run.sinks().upsert();
                        (table.rows(appended), table.regressions())
                    }
                }
            }
            5 if self.laid_out.is_some() => {}
            5 => self.appended_part = Some(self.keys().start_survey(appended)),
            6 => {
                self.appended = Some(match &self.laid_out {
                    Some(l) => Survey {
                        duplicate_rows: l.appended.duplicate_rows(),
                        keys: l.appended.keys(&l.by_boundary, l.slots),
                        newest: l.appended.newest(appended, &l.by_boundary, l.slots),
                    },
                    None => {
                        let part = self.appended_part.take().expect("started in the pass before");
                        self.keys().finish_survey(part, appended)
                    }
                });
            }
            7 => self.upsert_counts = self.keys().duplicates_and_keys(&self.upsert_rows),
            8 => {
                self.committed_counts = match self.laid_out.as_ref().and_then(|l| Some((l, l.committed.as_ref()?))) {
                    Some((l, layout)) => (layout.duplicate_rows(), layout.keys(&l.by_boundary, l.slots)),
                    None => self.keys().duplicates_and_keys(committed.rows()),
                }
            }
            9 => self.view_counts = self.keys().duplicates_and_keys(self.view_rows()),
            10 => {
                self.matches[0] = match &self.laid_out {
                    Some(l) => l.appended.holds_once(truth_appended.len()),
                    None => self.keys().same(micro_batch, appended, truth_appended),
                }
            }
            11 => {
                let truth_upsert = outcome.truth_tables.upsert.get_or_init(|| {
                    // A failure-free run's table in boundary order holds each key's rows
                    // growing: the newest is the last written. A failure-free run that borrowed
                    // its rows kept no upsert table of its own; its rows derive it.
                    match &self.laid_out {
                        Some(l) => l.by_boundary.newest_rows(truth_appended),
                        None => truth.sinks().read(SinkDesign::Upsert),
                    }
                });
                self.matches[1] = self.keys().same_contents(&self.upsert_rows, truth_upsert)
            }
            12 if self.laid_out.as_ref().is_some_and(|l| l.committed.is_some())
                && matches!(self.truth_committed, Some(TruthCommitted::Prefix(_))) =>
            {
                let Some(TruthCommitted::Prefix(n)) = self.truth_committed else { unreachable!("matched above") };
                let layout = self.laid_out.as_ref().and_then(|l| l.committed.as_ref()).expect("matched above");
                self.matches[2] = layout.holds_once(n);
            }
            12 => {
                let truth_committed = self.truth_committed(truth);
                // The committed rows the run shares with the failure-free run are its committed
                // rows; where those hold its appended rows in order, only the rest is compared.
                let shared = outcome.shared_rows.1;
                let same_prefix = matches!(self.truth_committed, Some(TruthCommitted::Prefix(_)))
                    && committed.len() == truth_committed.len()
                    && shared <= committed.len()
                    && outcome.truth_tables.committed_starts_as_appended(
                        &truth.sinks().committed_rows(),
                        truth_appended,
                        shared,
                    );
                let committed = committed.rows();
                self.matches[2] = (same_prefix && same_in_order(&committed[shared..], &truth_committed[shared..]))
                    || self.keys().same(micro_batch, committed, truth_committed);
            }
            13 => {
                let keys = self.keys();
                let truth_view = outcome.truth_tables.view.get_or_init(|| keys.view(truth_appended));
                self.matches[3] = keys.same_contents(self.view_rows(), truth_view);
            }
            14 => self.window_total_before_crash = window_total_before_crash(run),
            _ => {}
        }
        self.passes_done = (self.passes_done + 1).min(PASSES);
        self.passes_done == PASSES
    }

    /// Whether every pass is made ([`FiguresBuilder::finish`] is then all that is left).
    pub fn passes_made(&self) -> bool {
        self.passes_done >= PASSES
    }

    /// The figures, once every pass is made (the passes left are made first).
    pub fn finish(mut self, outcome: &Outcome) -> Figures {
        while !self.step(outcome) {}
        build(outcome, self)
    }

    /// The run's committed rows, as ranges of its append-only table (made once per report).
    fn committed_table(&mut self, run: &Sim) -> Arc<CommittedRows> {
        Arc::clone(self.committed.get_or_insert_with(|| Arc::new(run.sinks().committed())))
    }

    fn keys(&self) -> &Keys {
        self.keys.as_ref().expect("the keys are indexed in an earlier pass")
    }

    fn view_rows(&self) -> &[Row] {
        &self.appended.as_ref().expect("surveyed in an earlier pass").newest
    }

    fn truth_committed<'a>(&'a self, truth: &'a Sim) -> &'a [Row] {
        match self.truth_committed.as_ref().expect("chosen in an earlier pass") {
            TruthCommitted::Prefix(len) => &truth.sinks().append_only.rows()[..*len],
            TruthCommitted::Copied(rows) => rows,
        }
    }

    /// The sink figures and tables from the passes made.
    fn sink_figures(mut self, outcome: &Outcome) -> (SinkReport, SinkTables) {
        let run = &outcome.run;
        let committed = self.committed_table(run);
        let Survey { duplicate_rows: appended_duplicates, keys: appended_keys, newest: view_rows } =
            self.appended.take().expect("surveyed");
        let read_uncommitted = run.config.reads_uncommitted();
        let figures = |design: SinkDesign, rows: usize, (duplicate_rows, keys): (u64, u64), fresh: (u64, u64)| {
            let transactional = design == SinkDesign::Transactional;
            let matches = self.matches[SinkDesign::ALL.iter().position(|&d| d == design).expect("a design")];
            SinkFigures {
                design,
                rows: rows as u64,
                duplicate_rows,
                keys,
                regressions: if design == SinkDesign::Upsert { self.upsert_regressions } else { 0 },
                aborted_rows: if transactional { run.sinks().transactional.aborted_rows() } else { 0 },
                timed_out_rows: if transactional { run.sinks().transactional.timed_out_rows() } else { 0 },
                aborted_rows_seen: if transactional && read_uncommitted {
                    run.sinks().transactional.aborted_rows() + run.sinks().transactional.timed_out_rows()
                } else {
                    0
                },
                silent_ms: fresh.0,
                staleness_max_ms: fresh.1,
                matches_failure_free: matches,
            }
        };
        let appended = run.sinks().append_only.rows();
        let sinks = SinkReport {
            append_only: figures(
                SinkDesign::AppendOnly,
                appended.len(),
                (appended_duplicates, appended_keys),
                self.immediate,
            ),
            upsert: figures(SinkDesign::Upsert, self.upsert_rows.len(), self.upsert_counts, self.immediate),
            // A read_uncommitted reader sees rows as they are written, as fresh as the append-only table.
            transactional: figures(
                SinkDesign::Transactional,
                committed.len(),
                self.committed_counts,
                if read_uncommitted { self.immediate } else { self.delayed },
            ),
            dedupe_view: figures(SinkDesign::DedupeView, view_rows.len(), self.view_counts, self.immediate),
        };
        let tables = SinkTables {
            append_only: run.sinks().append_only.shared(),
            upsert: self.upsert_rows.into(),
            transactional: committed,
            commits: run.sinks().transactional.commits().into(),
            dedupe_view: view_rows.into(),
            read_uncommitted,
            keys: self.keys.and_then(|keys| keys.0).map(Arc::new),
            emissions: self.emissions.as_deref().map(|emitted| EmissionRows {
                ends: emitted
                    .iter()
                    .scan(0, |end, &(_, _, rows)| {
                        *end += rows as usize;
                        Some(*end)
                    })
                    .collect(),
            }),
            recoveries: run
                .recoveries
                .iter()
                .map(|r| RolledBack {
                    crashed_at_ms: r.crashed_at_ms,
                    crashed_attempt: r.crashed_attempt,
                    restored_id: r.restored.id(),
                    restored_barrier_at_ms: r.restored.started_at_ms(),
                    caught_up_at_ms: r.caught_up_at_ms,
                })
                .collect(),
        };
        (sinks, tables)
    }
}

/// The crashing window's running total as the last emission before the crash showed it.
fn window_total_before_crash(run: &Sim) -> Option<WindowTotal> {
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

fn crash_table(config: &Config, run: &Sim, recovery: &Recovery, before: &Option<WindowTotal>) -> Vec<CrashFact> {
    let restored = &recovery.restored;
    let micro_batch = config.mode == Mode::MicroBatch;
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
                    pause_ms: c.sync_ms + c.alignment_ms,
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
    let replayed = recovery.crash_offset - restored.offset();
    let rerun = recovery.discarded_checkpoint.and_then(|id| run.offset_log().iter().find(|e| e.batch_id == id));
    let in_flight = match (recovery.discarded_checkpoint, rerun) {
        (Some(id), Some(entry)) if micro_batch => {
            InFlight::BatchRerun { batch: id, from: entry.start_offset, to: entry.end_offset }
        }
        (Some(id), _) => InFlight::DiscardedCheckpoint { checkpoint: id },
        (None, _) if micro_batch => InFlight::NoBatchRunning { committed: restored.id() },
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
        },
    });
    rows.push(CrashFact {
        at_ms: recovery.detected_at_ms,
        offset: None,
        kind: CrashFactKind::Detected {
            after_ms: recovery.detected_at_ms - recovery.crashed_at_ms,
            failure: config.failure,
            overridden: config.detection_ms.is_some(),
        },
    });
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
    if let Some(restored_at) = recovery.restored_at_ms {
        rows.push(CrashFact {
            at_ms: restored_at,
            offset: Some(restored.offset()),
            kind: CrashFactKind::Restored {
                checkpoint: restored.id(),
                state_bytes: config.state_bytes,
                offset: restored.offset(),
                backlog_events: recovery.backlog_at_restore_events.unwrap_or(0),
            },
        });
    }
    if let Some(done) = recovery.replay_done_at_ms {
        rows.push(CrashFact {
            at_ms: done,
            offset: Some(recovery.crash_offset),
            kind: CrashFactKind::ReplayDone { offset: recovery.crash_offset },
        });
    }
    if let Some(entry) = rerun.filter(|_| micro_batch) {
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
            offset: Some(match run.restore_points.iter().find(|c| micro_batch && c.completed_at_ms() == caught_up) {
                Some(batch) => batch.offset(),
                None => run.log().log_end_at(caught_up),
            }),
            kind: CrashFactKind::CaughtUp { after_ms: caught_up - recovery.crashed_at_ms },
        });
    }
    // In time order in every mode: a batch's output (the last emission) comes before its commit.
    super::trace::sort_nearly_sorted_by_key(&mut rows, |r| r.at_ms);
    rows
}

fn build(outcome: &Outcome, passes: FiguresBuilder) -> Figures {
    let run = &outcome.run;
    let truth = outcome.truth();
    let config = &run.config;
    let model = steady_state(config, config.interval_ms);
    let recovery = run.recoveries.first();
    let (effective_interval_ms, store_write_bytes_per_min) =
        measured_cycle(truth).unwrap_or((model.effective_interval_ms, model.store_write_bytes_per_min));
    let window_total_before_crash = passes.window_total_before_crash.clone();
    let mut warnings = Vec::new();
    if model.store_limited && config.mode == Mode::MicroBatch {
        warnings.push(Warning::BatchesBackToBack {
            interval_ms: config.interval_ms,
            state_store_write_bytes: model.size_bytes,
            every_ms: model.effective_interval_ms,
        });
    } else if model.store_limited {
        warnings.push(Warning::StoreCannotKeepUp {
            checkpoint_bytes: model.size_bytes,
            interval_ms: config.interval_ms,
            every_ms: model.effective_interval_ms,
        });
    }
    if let Some(duration_ms) = checkpoint_outlasts_timeout_ms(config) {
        warnings.push(Warning::CheckpointsOutlastTimeout { duration_ms, timeout_ms: FLINK_CHECKPOINT_TIMEOUT_MS });
    }
    let caught_up_reason = recovery.and_then(|r| {
        if r.caught_up_at_ms.is_some() {
            None
        } else if r.interrupted {
            Some(CaughtUpReason::Interrupted)
        } else if r.restored_at_ms.is_none() {
            Some(CaughtUpReason::RestoreUnfinished)
        } else if config.mode == Mode::MicroBatch && model.store_limited {
            Some(CaughtUpReason::BatchesOutlastTrigger)
        } else if config.capacity_per_s <= config.rate_per_s {
            Some(CaughtUpReason::CapacityNotAboveRate)
        } else {
            Some(CaughtUpReason::BacklogRemains)
        }
    });
    if let Some(reason) = caught_up_reason {
        warnings.push(Warning::NeverCatchesUp(reason));
    }
    let lost_events: u64 = run.recoveries.iter().map(|r| r.lost_events).sum();
    if config.mode == Mode::MicroBatch && config.backpressure_ms > 0 {
        warnings.push(Warning::BackpressureInMicroBatch);
    }
    if lost_events > 0 {
        warnings.push(Warning::EventsLost { events: lost_events });
    }
    // A later recovery that restores the same checkpoint again discards what the earlier replay
    // counted; one that restores a later checkpoint keeps it (that checkpoint's state holds it).
    let recoveries = &run.recoveries;
    let counted_twice_events: u64 = recoveries
        .iter()
        .enumerate()
        .filter(|(i, r)| recoveries.get(i + 1).is_none_or(|next| next.restored.id() != r.restored.id()))
        .map(|(_, r)| r.restored.past_barrier_events())
        .sum();
    if counted_twice_events > 0 {
        warnings.push(Warning::CountedTwice { events: counted_twice_events });
    }
    let fenced = run.sinks().transactional.fenced_transactions();
    if fenced > 0 {
        warnings.push(Warning::ProducerFenced { transactions: fenced, timeout_ms: config.transaction_timeout_ms });
    }
    let timed_out_rows = run.sinks().transactional.timed_out_rows();
    if timed_out_rows > 0 {
        warnings
            .push(Warning::TransactionsTimedOut { rows: timed_out_rows, timeout_ms: config.transaction_timeout_ms });
    }
    let horizon = config.horizon_ms as f64;
    let (sinks, tables) = passes.sink_figures(outcome);
    Figures {
        restored_checkpoint: recovery.map(|r| r.restored.clone()),
        crash: recovery.map(|r| CrashFigures {
            at_ms: r.crashed_at_ms,
            offset: r.crash_offset,
            offsets: r.crash_offsets.clone(),
            discarded_checkpoint: r.discarded_checkpoint,
        }),
        replayed_events: recovery.map_or(0, |r| r.crash_offset - r.restored.offset()),
        replayed_offsets: recovery.map(|r| OffsetRange { from: r.restored.offset(), to: r.crash_offset }),
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
        counted_twice_events,
        effective_interval_ms,
        store_limited: model.store_limited,
        store_write_bytes_per_min,
        pause_overhead: (truth.paused_ms() + truth.aligning_ms()) as f64 / horizon,
        paused_ms: run.paused_ms(),
        aligning_ms: run.aligning_ms(),
        checkpoints: run.restore_points.clone(),
        sinks,
        crash_table: recovery.map_or_else(Vec::new, |r| crash_table(config, run, r, &window_total_before_crash)),
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

impl Outcome {
    /// Whether `row` was written by an attempt that later crashed, after the checkpoint that
    /// attempt's recovery restored: its effect was rolled back and the replay writes it again.
    pub fn is_orphan(&self, row: &Row) -> bool {
        self.run.recoveries.iter().any(|r| r.crashed_attempt == row.attempt && row.epoch > r.restored.id())
    }
}
