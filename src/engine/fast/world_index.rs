//! The world at any instant of a finished run ([`World`]), read from its typed trace, its
//! per-second samples, its restore points and its sink tables without simulating again. Its
//! reference is the per-event simulation stopped at the same instant
//! ([`Sim::run_through`]); tests/world.rs holds the two together over a sweep of instants and
//! scenarios.
//!
//! Everything the trace stamps (phases, checkpoints, uploads, restores, sink rows and commits) is
//! exact at every millisecond. The readers' offsets are exact at each whole second (a sample);
//! between samples they follow the readers' rule — read at capacity, never past the log end,
//! still while paused or down — which the simulation also follows, up to the rounding of its
//! capacity credit (at most one event). With backpressure or while an aligned operator holds
//! inputs the readers leave log order, and between samples each partition is interpolated.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use crate::engine::model::protocol::{OffsetLogEntry, RestorePoint};
use crate::engine::model::report::Figures;
use crate::engine::model::sim::Sim;
use crate::engine::model::sinks::keys::KeyIndex;
use crate::engine::model::sinks::{CommittedRows, Row};
use crate::engine::model::source::SourceLog;
use crate::engine::model::trace::{Event, Phase, Trace, TraceEvent, WorldSample};
use crate::engine::model::world::{
    BatchInFlight, BatchStage, CheckpointInFlight, CheckpointStage, CrashSoFar, RestoreInProgress, SinkSoFar,
    SinksSoFar, World,
};
use crate::engine::settings::config::{CheckpointingMode, Config};

/// A fast hasher for packed row contents (integers only; nothing here is iterated in hash order).
#[derive(Clone, Copy, Default)]
struct Mix(u64);

impl std::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        crate::engine::model::source::mix64(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u128(&mut self, n: u128) {
        self.0 = crate::engine::model::source::mix64(self.0 ^ (n as u64)) ^ ((n >> 64) as u64);
    }
}

impl std::hash::BuildHasher for Mix {
    type Hasher = Mix;

    fn build_hasher(&self) -> Mix {
        Mix(0)
    }
}

/// Per-row prefix counts of one sink table, in write order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Prefix {
    /// When each row became visible.
    at_ms: Vec<u64>,
    /// Rows repeating an earlier row, among the first i + 1.
    duplicates: Vec<u32>,
    /// Distinct (product, window) keys among the first i + 1.
    keys: Vec<u32>,
}

impl Prefix {
    /// The prefix counts of `rows` at once. Counted through the keys' slots (see
    /// KeyIndex::running_counts); keys too thin to number densely go through hash sets instead,
    /// and counts too large for bitsets through each key's sorted counts ([`PrefixCount`]).
    fn new(rows: &[Row], visible_at: impl Fn(usize, &Row) -> u64) -> Prefix {
        let index = KeyIndex::of(&[rows]);
        if let Some(index) = &index {
            let mut out = Prefix {
                at_ms: Vec::with_capacity(rows.len()),
                duplicates: Vec::with_capacity(rows.len()),
                keys: Vec::with_capacity(rows.len()),
            };
            let counted = index.running_counts(rows, |i, d, k| {
                out.at_ms.push(visible_at(i, &rows[i]));
                out.duplicates.push(d);
                out.keys.push(k);
            });
            if counted {
                return out;
            }
        }
        let mut count = PrefixCount::default();
        count.step(rows, index.as_ref(), usize::MAX, visible_at);
        count.out
    }

    /// The same counts through hash sets of row contents and keys, for any key space.
    #[cfg(test)]
    fn hashed(rows: &[Row], visible_at: impl Fn(usize, &Row) -> u64) -> Prefix {
        let mut count = PrefixCount::default();
        count.step(rows, None, usize::MAX, visible_at);
        count.out
    }

    fn push(&mut self, at_ms: u64, duplicates: u32, keys: u32) {
        self.at_ms.push(at_ms);
        self.duplicates.push(duplicates);
        self.keys.push(keys);
    }

    /// (rows, duplicates, keys) visible at `t_ms`.
    fn at(&self, t_ms: u64) -> (u64, u64, u64) {
        let n = self.at_ms.partition_point(|&at| at <= t_ms);
        match n {
            0 => (0, 0, 0),
            n => (n as u64, u64::from(self.duplicates[n - 1]), u64::from(self.keys[n - 1])),
        }
    }
}

/// A [`Prefix`] counted a bounded number of rows at a time, in write order: each key's counts
/// so far, ascending, so a count met again is a duplicate (through the slots of a key index, or
/// hash sets of row contents and keys without one).
#[derive(Debug, Default)]
struct PrefixCount {
    /// The counts of the rows counted so far.
    out: Prefix,
    /// Each key's counts so far, ascending, by slot of the key index.
    by_slot: Vec<Vec<u32>>,
    /// Without a key index: the row contents and the keys so far.
    contents: HashSet<u128, Mix>,
    keys_seen: HashSet<u128, Mix>,
    /// Duplicate rows and distinct keys so far.
    duplicates: u32,
    keys: u32,
}

impl PrefixCount {
    /// Counts up to `max_rows` more of `rows` (`index`, when given, numbers their keys); returns
    /// true once every row is counted.
    fn step(
        &mut self,
        rows: &[Row],
        index: Option<&KeyIndex>,
        max_rows: usize,
        visible_at: impl Fn(usize, &Row) -> u64,
    ) -> bool {
        self.step_through(rows.len(), |part| rows[part].iter(), index, max_rows, visible_at)
    }

    /// [`PrefixCount::step`] over a table of `len` rows that `part` reads a range of.
    fn step_through<'a, I: Iterator<Item = &'a Row>>(
        &mut self,
        len: usize,
        part: impl FnOnce(Range<usize>) -> I,
        index: Option<&KeyIndex>,
        max_rows: usize,
        visible_at: impl Fn(usize, &Row) -> u64,
    ) -> bool {
        let from = self.out.at_ms.len();
        let to = len.min(from.saturating_add(max_rows));
        let part = part(from..to);
        if from == 0 {
            self.out.at_ms.reserve_exact(len);
            self.out.duplicates.reserve_exact(len);
            self.out.keys.reserve_exact(len);
        }
        match index {
            Some(index) => {
                if self.by_slot.is_empty() {
                    self.by_slot = vec![Vec::new(); index.slots()];
                }
                let mut finder = index.finder();
                for (i, row) in (from..).zip(part) {
                    let written = &mut self.by_slot[finder.slot(row)];
                    let count = row.order_count;
                    match written.last() {
                        None => {
                            self.keys += 1;
                            written.push(count);
                        }
                        Some(&last) if last < count => written.push(count),
                        _ => match written.binary_search(&count) {
                            Ok(_) => self.duplicates += 1,
                            Err(at) => written.insert(at, count),
                        },
                    }
                    self.out.push(visible_at(i, row), self.duplicates, self.keys);
                }
            }
            None => {
                if from == 0 {
                    self.contents.reserve(len);
                    self.keys_seen.reserve(len);
                }
                for (i, row) in (from..).zip(part) {
                    if !self.contents.insert(row.packed()) {
                        self.duplicates += 1;
                    }
                    if self.keys_seen.insert(row.packed() >> 32) {
                        self.keys += 1;
                    }
                    self.out.push(visible_at(i, row), self.duplicates, self.keys);
                }
            }
        }
        to == len
    }
}

/// The sink tables' counts, made as the questions need them. Before a table's first row of a
/// later attempt no row repeats another (running totals only grow within an attempt), so a
/// question about that part counts the distinct keys up to the instant asked, and only that far;
/// the per-row prefix counts of a whole table are built on the first question past a restart.
#[derive(Debug, Default)]
struct SinkIndex {
    first_attempt: Mutex<FirstAttempt>,
    append_only: OnceLock<Prefix>,
    /// Committed rows, visible at their commit.
    committed: OnceLock<Prefix>,
    /// The two tables' prefix counts while a page prepares them a step at a time, until made
    /// (indexed by [`Table`]).
    counting: Mutex<[PrefixCount; 2]>,
}

/// The two sink tables whose prefix counts the world keeps.
#[derive(Clone, Copy, Debug)]
enum Table {
    AppendOnly = 0,
    Committed = 1,
}

/// The first attempt's part of the two tables, counted as far as asked.
#[derive(Debug, Default)]
struct FirstAttempt {
    /// Distinct keys among the append-only table's first i + 1 rows, for the rows counted.
    keys: Vec<u32>,
    /// The keys seen: a bit per slot of the report's key index, or (without one) a hash set.
    seen_slots: Vec<u64>,
    seen: HashSet<u128, Mix>,
    /// The append-only table's first row of a later attempt, once met.
    appended_end: Option<usize>,
    /// How many committed rows from the first are of the first attempt, once read.
    committed_end: Option<usize>,
}

/// Rows a step of [`WorldIndex::prepare_sinks_at`] counts at most.
const PREPARE_ROWS: usize = 65_536;

impl FirstAttempt {
    /// Counts the keys of up to `max_rows` more of `rows`, toward the first `n`; returns the
    /// distinct keys among the first `n` once they are all counted and of the first attempt.
    fn keys_among(&mut self, rows: &[Row], index: Option<&KeyIndex>, n: usize, max_rows: usize) -> Option<u32> {
        let Some(first) = rows.first() else { return Some(0) };
        let stop = n.min(self.appended_end.unwrap_or(usize::MAX)).min(self.keys.len().saturating_add(max_rows));
        let mut finder = index.map(KeyIndex::finder);
        if let Some(index) = index {
            self.seen_slots.resize(index.slots().div_ceil(64), 0);
        }
        while self.keys.len() < stop {
            let row = &rows[self.keys.len()];
            if row.attempt != first.attempt {
                self.appended_end = Some(self.keys.len());
                break;
            }
            let new = match finder.as_mut() {
                Some(finder) => {
                    let slot = finder.slot(row);
                    let (word, bit) = (&mut self.seen_slots[slot / 64], 1u64 << (slot % 64));
                    let new = *word & bit == 0;
                    *word |= bit;
                    new
                }
                None => self.seen.insert((u128::from(row.product_id) << 64) | u128::from(row.window_start_ms)),
            };
            let counted = self.keys.last().copied().unwrap_or(0) + u32::from(new);
            self.keys.push(counted);
        }
        match n {
            0 => Some(0),
            n if n <= self.keys.len() => Some(self.keys[n - 1]),
            _ => None,
        }
    }

    /// Whether the first `n` committed rows are all of the first attempt. A transaction's rows
    /// are one attempt's, so the rows are read a transaction (a range of the append-only table)
    /// at a time, once.
    fn committed_first_attempt(&mut self, rows: &CommittedRows, n: usize) -> bool {
        n <= *self.committed_end.get_or_insert_with(|| rows.first_attempt_rows())
    }
}

/// What a run recorded, indexed to answer "what is the world at time t" quickly.
#[derive(Clone, Debug)]
pub struct WorldIndex {
    config: Config,
    log: SourceLog,
    trace: Arc<Trace>,
    restore_points: Vec<RestorePoint>,
    offset_log: Vec<OffsetLogEntry>,
    crash_offsets: Option<Vec<u64>>,
    append_only: Arc<Vec<Row>>,
    committed: Arc<CommittedRows>,
    commits: Arc<[(u64, u64, usize)]>,
    /// The report's dense numbering of the tables' keys, when it has one.
    keys: Option<Arc<KeyIndex>>,
    /// Built on the first question about the sinks.
    sinks: Arc<SinkIndex>,
}

impl PartialEq for WorldIndex {
    /// Two indexes of the same run answer alike.
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config && self.trace == other.trace
    }
}

impl WorldIndex {
    /// Indexes a finished run's figures (cheap: the sink tables are indexed on first use).
    pub fn new(figures: &Figures) -> WorldIndex {
        WorldIndex::with_trace(figures, figures.trace.clone())
    }

    /// Like [`WorldIndex::new`], keeping `trace` (the figures' own, taken out of them) instead of a copy.
    pub fn with_trace(figures: &Figures, trace: Trace) -> WorldIndex {
        let tables = &figures.tables;
        WorldIndex::from_parts(
            &figures.config,
            trace,
            &figures.checkpoints,
            &figures.offset_log,
            figures.crash.as_ref().map(|c| c.offsets.clone()),
            (Arc::clone(&tables.append_only), Arc::clone(&tables.transactional), Arc::clone(&tables.commits)),
            tables.keys.clone(),
        )
    }

    /// Indexes a run that has no figures (a run stopped early, whose report would cost more
    /// than the question): it answers as [`WorldIndex::new`] of the same run's figures does,
    /// counting a sink's keys without the report's dense numbering of them.
    pub fn of_run(run: &Sim) -> WorldIndex {
        let sinks = run.sinks();
        WorldIndex::from_parts(
            &run.config,
            run.trace.clone(),
            &run.restore_points,
            run.offset_log(),
            run.recoveries.first().map(|r| r.crash_offsets.clone()),
            (sinks.append_only.shared(), Arc::new(sinks.committed()), sinks.transactional.commits().into()),
            None,
        )
    }

    /// The index of a run's trace, restore points, offset log, crash offsets, sink tables
    /// (append-only rows, committed rows, commits) and, when there is one, numbering of keys.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn from_parts(
        config: &Config,
        mut trace: Trace,
        restore_points: &[RestorePoint],
        offset_log: &[OffsetLogEntry],
        crash_offsets: Option<Vec<u64>>,
        (append_only, committed, commits): (Arc<Vec<Row>>, Arc<CommittedRows>, Arc<[(u64, u64, usize)]>),
        keys: Option<Arc<KeyIndex>>,
    ) -> WorldIndex {
        // Ordered by instant (stable: same-instant events keep their order); a few are stamped
        // when they were known rather than when they happened.
        crate::engine::model::trace::sort_nearly_sorted_by_key(&mut trace.events, |e| e.at_ms);
        WorldIndex {
            config: config.clone(),
            log: SourceLog::new(config),
            trace: Arc::new(trace),
            restore_points: restore_points.to_vec(),
            offset_log: offset_log.to_vec(),
            crash_offsets,
            append_only,
            committed,
            commits,
            keys,
            sinks: Arc::new(SinkIndex::default()),
        }
    }

    /// The run's start and end on the scenario clock.
    pub fn span_ms(&self) -> (u64, u64) {
        (self.config.start_time_ms, self.config.end_ms())
    }

    fn append_only_index(&self) -> &Prefix {
        self.sinks.append_only.get_or_init(|| match self.counted(Table::AppendOnly) {
            Some(count) => count.out,
            None => Prefix::new(&self.append_only, |_, r| u64::from(r.emitted_at_ms)),
        })
    }

    fn committed_index(&self) -> &Prefix {
        self.sinks.committed.get_or_init(|| match self.counted(Table::Committed) {
            Some(count) => count.out,
            None => Prefix::new(self.committed.rows(), |i, _| self.committed_visible_at(i)),
        })
    }

    /// The instant the committed row `i` became visible: its transaction's commit.
    fn committed_visible_at(&self, i: usize) -> u64 {
        let commit = self.commits.partition_point(|&(_, _, upto)| upto <= i);
        self.commits.get(commit).map_or(0, |&(_, at, _)| at)
    }

    /// Counts up to `max_rows` more rows of `table` toward its prefix counts; true once they are
    /// counted.
    fn count_step(&self, table: Table, max_rows: usize) -> bool {
        let mut counting = self.sinks.counting.lock().unwrap_or_else(|e| e.into_inner());
        let keys = self.keys.as_deref();
        self.count(&mut counting[table as usize], table, keys, max_rows)
    }

    /// Counts up to `max_rows` more rows of `table` with `count`. The committed rows are read as
    /// pieces of the append-only table: a step never makes them.
    fn count(&self, count: &mut PrefixCount, table: Table, keys: Option<&KeyIndex>, max_rows: usize) -> bool {
        match table {
            Table::AppendOnly => count.step(&self.append_only, keys, max_rows, |_, r| u64::from(r.emitted_at_ms)),
            Table::Committed => count.step_through(
                self.committed.len(),
                |part| self.committed.range(part),
                keys,
                max_rows,
                |i, _| self.committed_visible_at(i),
            ),
        }
    }

    /// `table`'s prefix counts, finished, when a page began counting them.
    fn counted(&self, table: Table) -> Option<PrefixCount> {
        let mut count =
            std::mem::take(&mut self.sinks.counting.lock().unwrap_or_else(|e| e.into_inner())[table as usize]);
        if count.out.at_ms.is_empty() {
            return None;
        }
        self.count(&mut count, table, self.keys.as_deref(), usize::MAX);
        Some(count)
    }

    /// Rows of the append-only and committed tables visible at `t`: written by then, and
    /// committed by then.
    fn rows_visible_at(&self, t: u64) -> (usize, usize) {
        let appended = self.append_only.partition_point(|r| u64::from(r.emitted_at_ms) <= t);
        let commits = self.commits.partition_point(|&(_, at, _)| at <= t);
        let committed = commits.checked_sub(1).map_or(0, |i| self.commits[i].2);
        (appended, committed)
    }

    /// How many rows of the sink tables the index has counted so far: `(keys, prefix)`, the
    /// rows of the first attempt whose keys a question or a preparation counted, and the rows of
    /// the per-row prefix counts made or being made over a whole table (see [`SinkIndex`]).
    /// Both 0 until a question about the sinks or a preparation
    /// ([`WorldIndex::prepare_sinks_at`]).
    pub fn sink_rows_counted(&self) -> (usize, usize) {
        let keys = self.sinks.first_attempt.lock().unwrap_or_else(|e| e.into_inner()).keys.len();
        let made = [&self.sinks.append_only, &self.sinks.committed].map(|p| p.get().map_or(0, |p| p.at_ms.len()));
        let counting = self.sinks.counting.lock().unwrap_or_else(|e| e.into_inner());
        (keys, made.iter().sum::<usize>() + counting.iter().map(|c| c.out.at_ms.len()).sum::<usize>())
    }

    /// Makes a bounded step of the work the question "what do the sinks hold at `t_ms`" needs
    /// (a page spreads it over its slices, ahead of the pipeline view's first question at the
    /// cursor); returns true once that question is quick.
    pub fn prepare_sinks_at(&self, t_ms: u64) -> bool {
        self.prepare_sinks_in_steps_of(t_ms, PREPARE_ROWS)
    }

    /// [`WorldIndex::prepare_sinks_at`], a step counting at most `max_rows` rows.
    fn prepare_sinks_in_steps_of(&self, t_ms: u64, max_rows: usize) -> bool {
        let (appended, committed) = self.rows_visible_at(t_ms);
        let mut first = self.sinks.first_attempt.lock().unwrap_or_else(|e| e.into_inner());
        let keys = first.keys_among(&self.append_only, self.keys.as_deref(), appended, max_rows);
        let first_attempt = first.committed_first_attempt(&self.committed, committed);
        let keys_done = keys.is_some() || first.appended_end.is_some();
        drop(first);
        if !keys_done {
            return false;
        }
        if keys.is_none() && self.sinks.append_only.get().is_none() {
            if self.count_step(Table::AppendOnly, max_rows) {
                self.append_only_index();
            }
            return false;
        }
        if !first_attempt && self.sinks.committed.get().is_none() {
            if self.count_step(Table::Committed, max_rows) {
                self.committed_index();
            }
            return false;
        }
        true
    }

    /// The events at or before `t_ms`.
    fn events_until(&self, t_ms: u64) -> &[TraceEvent] {
        &self.trace.events[..self.trace.events.partition_point(|e| e.at_ms <= t_ms)]
    }

    /// The last sample at or before `t_ms`, or the first one.
    fn sample_at(&self, t_ms: u64) -> Option<&WorldSample> {
        let samples = &self.trace.samples;
        let i = samples.partition_point(|s| s.at_ms <= t_ms);
        samples.get(i.saturating_sub(1))
    }

    /// The world at `t_ms` (milliseconds since midnight on the scenario clock), clamped to the run.
    pub fn at(&self, t_ms: u64) -> World {
        let (start, end) = self.span_ms();
        let t = t_ms.clamp(start, end);
        let events = self.events_until(t);
        let sample = self.sample_at(t);
        let config = &self.config;

        // The crash and its recovery, as far as they have come.
        let mut crash: Option<CrashSoFar> = None;
        // The checkpoint (barrier mode) or batch (micro-batch mode) in flight.
        let mut checkpoint: Option<CheckpointInFlight> = None;
        let mut batch: Option<BatchInFlight> = None;
        let mut completed_count = 0usize;
        let mut last_completed_at_ms = start;
        // Micro-batch mode: the trigger after the newest planned batch, and since when no batch ran.
        let mut next_trigger_ms = start + config.interval_ms;
        let mut idle_from_ms = start;
        let mut last_planned_id = self.restore_points.first().map_or(0, RestorePoint::id);
        let mut last_end_offset = config.start_offset;
        // Micro-batch mode: when the batch in progress started processing.
        let mut batch_started_ms = None;
        for e in events {
            match e.event {
                Event::BatchPlanned { batch_id, .. } => {
                    let planned_at =
                        self.offset_log.iter().rfind(|l| l.batch_id == batch_id).map_or(e.at_ms, |l| l.planned_at_ms);
                    next_trigger_ms =
                        start + (planned_at.saturating_sub(start) / config.interval_ms + 1) * config.interval_ms;
                    last_planned_id = batch_id;
                    batch_started_ms = Some(e.at_ms);
                }
                Event::BatchRerun { .. } => {
                    batch_started_ms = Some(e.at_ms);
                    next_trigger_ms =
                        start + (e.at_ms.saturating_sub(start) / config.interval_ms + 1) * config.interval_ms;
                }
                Event::BatchCommitted { end_offset, .. } => {
                    idle_from_ms = e.at_ms;
                    last_end_offset = end_offset;
                }
                Event::Restored { offset, .. } if config.mode.reruns_in_flight() => {
                    next_trigger_ms = e.at_ms;
                    idle_from_ms = e.at_ms;
                    last_end_offset = offset;
                }
                _ => {}
            }
            match e.event {
                Event::BarrierInjected { checkpoint_id, offset } => {
                    checkpoint = Some(CheckpointInFlight {
                        checkpoint_id,
                        barrier_at_ms: e.at_ms,
                        barrier_offset: offset,
                        barrier_offsets: Vec::new(),
                        stage: CheckpointStage::BarrierInFlight,
                        aligning: false,
                    })
                }
                Event::AlignmentStarted { .. } => {
                    if let Some(c) = checkpoint.as_mut() {
                        c.aligning = true;
                    }
                }
                Event::AlignmentEnded { .. } => {
                    if let Some(c) = checkpoint.as_mut() {
                        c.aligning = false;
                    }
                }
                Event::SnapshotTaken { .. } => {
                    if let Some(c) = checkpoint.as_mut() {
                        c.aligning = false;
                        c.stage = CheckpointStage::SyncPause;
                    }
                }
                Event::UploadStarted { size_bytes, completes_at_ms, .. } => {
                    if let Some(c) = checkpoint.as_mut() {
                        let total = completes_at_ms.saturating_sub(e.at_ms).max(1);
                        let done = (u128::from(size_bytes) * u128::from(t.saturating_sub(e.at_ms).min(total))
                            / u128::from(total)) as u64;
                        c.stage = CheckpointStage::Uploading { done_bytes: done, size_bytes };
                    }
                }
                Event::CheckpointCompleted { .. } | Event::BatchCommitted { .. } => {
                    checkpoint = None;
                    batch = None;
                    completed_count += 1;
                    last_completed_at_ms = e.at_ms;
                }
                Event::CheckpointDiscarded { .. } | Event::BatchDiscarded { .. } => {
                    checkpoint = None;
                    batch = None;
                }
                Event::BatchPlanned { batch_id, end_offset } | Event::BatchRerun { batch_id, end_offset } => {
                    let rerun = matches!(e.event, Event::BatchRerun { .. });
                    let start_offset =
                        self.offset_log.iter().rfind(|l| l.batch_id == batch_id).map_or(end_offset, |l| l.start_offset);
                    batch = Some(BatchInFlight {
                        batch_id,
                        start_offset,
                        end_offset,
                        stage: BatchStage::Processing,
                        rerun,
                    });
                }
                Event::BatchOutput { .. } => {
                    if let Some(b) = batch.as_mut() {
                        b.stage = BatchStage::Committing;
                    }
                }
                Event::Crash { offset, detected_at_ms, restore_started_at_ms, restore_from } => {
                    checkpoint = None;
                    batch = None;
                    let restore_offset = self.restore_point(restore_from).map_or(0, RestorePoint::offset);
                    crash = Some(CrashSoFar {
                        at_ms: e.at_ms,
                        offset,
                        restore_from,
                        restore_offset,
                        detected_at_ms,
                        restore_started_at_ms,
                        restored_at_ms: None,
                        replay_done_at_ms: None,
                        caught_up_at_ms: None,
                    });
                }
                Event::Restored { .. } => {
                    if let Some(c) = crash.as_mut() {
                        c.restored_at_ms = Some(e.at_ms);
                    }
                }
                Event::ReplayDone { .. } => {
                    // Micro-batch mode: a replay of nothing ends the instant its batch starts
                    // processing, which comes after that instant's due work; at that very
                    // instant the job is still replaying.
                    let nothing_to_replay = config.mode.runs_batches() && e.at_ms == t && batch_started_ms == Some(t);
                    if let Some(c) = crash.as_mut().filter(|_| !nothing_to_replay) {
                        c.replay_done_at_ms = Some(e.at_ms);
                    }
                }
                Event::CaughtUp { .. } => {
                    if let Some(c) = crash.as_mut() {
                        c.caught_up_at_ms = Some(e.at_ms);
                    }
                }
                _ => {}
            }
        }
        // A micro-batch planned (its trigger) but whose offset-log entry is not written yet.
        if config.mode.runs_batches() && batch.is_none() {
            let down = crash.as_ref().is_some_and(|c| c.restored_at_ms.is_none());
            if let Some(entry) = self.offset_log.iter().find(|l| l.planned_at_ms <= t && t < l.written_at_ms) {
                if !down && entry.batch_id > self.last_committed_id(completed_count) {
                    batch = Some(BatchInFlight {
                        batch_id: entry.batch_id,
                        start_offset: entry.start_offset,
                        end_offset: entry.end_offset,
                        stage: BatchStage::WritingOffsetLog,
                        rerun: false,
                    });
                }
            } else if !down && t >= next_trigger_ms.max(idle_from_ms) {
                // Planned at the trigger, its entry still being written when the run ends.
                let planned_at = next_trigger_ms.max(idle_from_ms);
                let end_offset = self.log.log_end_at(planned_at);
                if t < planned_at + config.sync_pause_ms && end_offset > last_end_offset {
                    batch = Some(BatchInFlight {
                        batch_id: last_planned_id + 1,
                        start_offset: last_end_offset,
                        end_offset,
                        stage: BatchStage::WritingOffsetLog,
                        rerun: false,
                    });
                }
            }
        }
        if let Some(c) = checkpoint.as_mut() {
            c.barrier_offsets = match self.restore_point(c.checkpoint_id) {
                Some(point) if point.offset() == c.barrier_offset => point.offsets().to_vec(),
                _ => self.log.partition_offsets(c.barrier_offset),
            };
        }

        let phase = self.phase(t, crash.as_ref(), checkpoint.as_ref(), batch.as_ref());
        let restore = crash.as_ref().filter(|_| phase == Phase::Restoring).map(|c| {
            let total_bytes =
                config.state_bytes + self.restore_point(c.restore_from).map_or(0, RestorePoint::in_flight_bytes);
            let duration =
                crate::engine::model::checkpoint::transfer_ms(total_bytes, config.store_read_bytes_per_s).max(1);
            let elapsed = t.saturating_sub(c.restore_started_at_ms).min(duration);
            RestoreInProgress {
                restore_from: c.restore_from,
                done_bytes: (u128::from(total_bytes) * u128::from(elapsed) / u128::from(duration)) as u64,
                total_bytes,
            }
        });

        let log_end = self.log.log_end_at(t);
        let offsets = self.offsets_at(t, sample);
        let position: u64 = offsets.iter().sum();
        let completed = self.restore_points.iter().take(completed_count + 1).map(RestorePoint::id).collect();
        World {
            at_ms: t,
            phase,
            log_ends: self.log.partition_offsets(log_end),
            log_end,
            position,
            lag_events: log_end.saturating_sub(position),
            offsets,
            checkpoint,
            batch,
            completed,
            last_completed_at_ms,
            crash,
            restore,
            seen_ids: sample.map_or(0, |s| s.seen_ids),
            open_window_start_ms: {
                let now_event_ms = self.log.event_time_ms(position.max(config.start_offset));
                now_event_ms / config.window_ms * config.window_ms
            },
            sinks: self.sinks_at(t),
        }
    }

    fn restore_point(&self, id: u64) -> Option<&RestorePoint> {
        self.restore_points.iter().rfind(|p| p.id() == id)
    }

    fn last_committed_id(&self, completed_count: usize) -> u64 {
        self.restore_points.get(completed_count).or(self.restore_points.last()).map_or(0, RestorePoint::id)
    }

    /// The job's phase at `t`, named as the simulation names it.
    fn phase(
        &self,
        t: u64,
        crash: Option<&CrashSoFar>,
        checkpoint: Option<&CheckpointInFlight>,
        batch: Option<&BatchInFlight>,
    ) -> Phase {
        if let Some(c) = crash {
            match c.restored_at_ms {
                None if t < c.detected_at_ms => return Phase::Detecting,
                None if t < c.restore_started_at_ms => return Phase::Restarting,
                None => return Phase::Restoring,
                Some(_) if c.caught_up_at_ms.is_none() => {
                    return if c.replay_done_at_ms.is_none() { Phase::Replaying } else { Phase::CatchingUp };
                }
                Some(_) => {}
            }
        }
        if self.config.mode.runs_batches() {
            match batch.map(|b| b.stage) {
                None => Phase::WaitingForTrigger,
                Some(BatchStage::Processing) => Phase::Running,
                Some(BatchStage::WritingOffsetLog | BatchStage::Committing) => Phase::SyncPause,
            }
        } else {
            match checkpoint.map(|c| (c.stage, c.aligning)) {
                Some((CheckpointStage::SyncPause, _)) => Phase::SyncPause,
                // As the operator holds inputs (the barrier protocol's phase): exactly once, several inputs.
                Some((CheckpointStage::BarrierInFlight, _))
                    if self.config.checkpointing_mode == CheckpointingMode::ExactlyOnce
                        && self.config.partitions > 1 =>
                {
                    Phase::Aligning
                }
                _ => Phase::Running,
            }
        }
    }

    /// The readers' offsets at `t`: the sample's at a whole second; between samples, moved on by
    /// the readers' rule from the last instant their offsets are known.
    fn offsets_at(&self, t: u64, sample: Option<&WorldSample>) -> Vec<u64> {
        let Some(s) = sample else {
            return self.log.partition_offsets(self.config.start_offset);
        };
        if s.at_ms == t {
            return s.offsets.to_vec();
        }
        let config = &self.config;
        if config.backpressure_ms > 0 {
            return self.interpolated(t, s);
        }
        let between = &self.trace.events[self.trace.events.partition_point(|e| e.at_ms <= s.at_ms)
            ..self.trace.events.partition_point(|e| e.at_ms <= t)];
        // The rule in force at the sample: set by the newest event that sets one.
        let initial = if config.mode.reads_continuously() { Rule::LogOrder { limit: u64::MAX } } else { Rule::Still };
        let rule = self.events_until(s.at_ms).iter().rev().find_map(|e| self.rule_after(e)).unwrap_or(initial);
        let mut readers = Readers { index: self, at_ms: s.at_ms, offsets: s.offsets.to_vec(), rule };
        for e in between {
            readers.advance(e.at_ms);
            match e.event {
                Event::Crash { .. } => {
                    if let Some(fixed) = &self.crash_offsets {
                        readers.offsets = fixed.clone();
                    }
                }
                Event::Restored { offset, restore_from } => {
                    readers.offsets = match self.restore_point(restore_from) {
                        Some(p) if p.offset() == offset => p.offsets().to_vec(),
                        _ => self.log.partition_offsets(offset),
                    };
                }
                _ => {}
            }
            if let Some(rule) = self.rule_after(e) {
                readers.rule = rule;
            }
        }
        readers.advance(t);
        readers.offsets
    }

    /// How the readers move after `e`, when `e` changes it.
    fn rule_after(&self, e: &TraceEvent) -> Option<Rule> {
        let config = &self.config;
        Some(match e.event {
            Event::BarrierInjected { .. }
                if config.alignment == crate::engine::settings::config::Alignment::Aligned =>
            {
                Rule::UpToBarriers(self.barrier_offsets_before(e.at_ms))
            }
            Event::SnapshotTaken { .. } | Event::Crash { .. } | Event::BatchOutput { .. } => Rule::Still,
            Event::UploadStarted { .. } => Rule::LogOrder { limit: u64::MAX },
            Event::Restored { .. } if config.mode.reads_continuously() => Rule::LogOrder { limit: u64::MAX },
            Event::Restored { .. } => Rule::Still,
            Event::BatchPlanned { end_offset, .. } | Event::BatchRerun { end_offset, .. } => {
                Rule::LogOrder { limit: end_offset }
            }
            _ => return None,
        })
    }

    /// The barrier offsets of the newest barrier at or before `t`.
    fn barrier_offsets_before(&self, t: u64) -> Vec<u64> {
        let barrier = self.events_until(t).iter().rev().find_map(|e| match e.event {
            Event::BarrierInjected { checkpoint_id, offset } => Some((checkpoint_id, offset)),
            _ => None,
        });
        match barrier {
            Some((id, offset)) => match self.restore_point(id) {
                Some(p) if p.offset() == offset => p.offsets().to_vec(),
                _ => self.log.partition_offsets(offset),
            },
            None => self.log.partition_offsets(self.config.start_offset),
        }
    }

    /// Each partition's offset interpolated between the known offsets around `t`: the samples,
    /// the crash (the readers stop) and the restore (they rewind to the restored offsets).
    fn interpolated(&self, t: u64, s: &WorldSample) -> Vec<u64> {
        let samples = &self.trace.samples;
        let Some(n) = samples.get(samples.partition_point(|x| x.at_ms <= t)) else {
            return s.offsets.to_vec();
        };
        let mut from = (s.at_ms, s.offsets.to_vec());
        let mut to = (n.at_ms, n.offsets.to_vec());
        let between = &self.trace.events[self.trace.events.partition_point(|e| e.at_ms <= s.at_ms)
            ..self.trace.events.partition_point(|e| e.at_ms <= n.at_ms)];
        for e in between {
            match e.event {
                Event::Crash { .. } => {
                    let crashed = self.crash_offsets.clone().unwrap_or_else(|| from.1.clone());
                    if e.at_ms <= t {
                        from = (e.at_ms, crashed.clone());
                        to = (n.at_ms, crashed);
                    } else {
                        to = (e.at_ms, crashed);
                        break;
                    }
                }
                Event::Restored { offset, restore_from } if e.at_ms <= t => {
                    let restored = match self.restore_point(restore_from) {
                        Some(p) if p.offset() == offset => p.offsets().to_vec(),
                        _ => self.log.partition_offsets(offset),
                    };
                    from = (e.at_ms, restored);
                    to = (n.at_ms, n.offsets.to_vec());
                }
                Event::Restored { .. } => {
                    // Still down until the restore: where the readers stopped.
                    to = (e.at_ms, from.1.clone());
                    break;
                }
                _ => {}
            }
        }
        let span = u128::from(to.0.saturating_sub(from.0).max(1));
        let part = u128::from(t.saturating_sub(from.0)).min(span);
        from.1
            .iter()
            .zip(&to.1)
            .map(|(&a, &b)| if b >= a { a + (u128::from(b - a) * part / span) as u64 } else { a })
            .collect()
    }

    /// What each sink holds at `t`.
    fn sinks_at(&self, t: u64) -> SinksSoFar {
        let (appended, committed) = self.rows_visible_at(t);
        let mut first = self.sinks.first_attempt.lock().unwrap_or_else(|e| e.into_inner());
        let first_keys = first.keys_among(&self.append_only, self.keys.as_deref(), appended, usize::MAX);
        let committed_first_attempt = first.committed_first_attempt(&self.committed, committed);
        drop(first);
        let (rows, duplicates, keys) = match first_keys {
            Some(keys) => (appended as u64, 0, u64::from(keys)),
            None => self.append_only_index().at(t),
        };
        let (committed, committed_duplicates) = if committed_first_attempt {
            (committed as u64, 0)
        } else {
            let (rows, duplicates, _) = self.committed_index().at(t);
            (rows, duplicates)
        };
        self.sinks_from(t, (rows, duplicates, keys), (committed, committed_duplicates))
    }

    /// What each sink holds at `t`, from the (rows, duplicates, keys) appended and the (rows,
    /// duplicates) committed by then: the upsert table and the dedupe view hold a row per key.
    fn sinks_from(&self, t: u64, (rows, duplicates, keys): (u64, u64, u64), committed: (u64, u64)) -> SinksSoFar {
        SinksSoFar {
            append_only: SinkSoFar { rows, duplicate_rows: duplicates },
            upsert: SinkSoFar { rows: keys, duplicate_rows: 0 },
            transactional: SinkSoFar { rows: committed.0, duplicate_rows: committed.1 },
            dedupe_view: SinkSoFar { rows: keys, duplicate_rows: 0 },
            transactional_pending: self.pending_rows(t, rows as usize),
        }
    }

    /// Rows in the transactional sink's open and pre-committed transactions at `t`: the running
    /// attempt's rows after the newest committed epoch. `written` rows are written by `t`; within
    /// an attempt rows come in epoch order, so they are the newest ones.
    fn pending_rows(&self, t: u64, written: usize) -> u64 {
        let crashes = self.events_until(t).iter().filter(|e| matches!(e.event, Event::Crash { .. })).count();
        let attempt = 1 + crashes as u32;
        let committed_epoch = self
            .commits
            .iter()
            .rev()
            .find(|&&(_, at, _)| at <= t)
            .map_or(self.config.start_checkpoint_id, |&(epoch, _, _)| epoch);
        self.append_only[..written]
            .iter()
            .rev()
            .take_while(|r| r.attempt == attempt && r.epoch > committed_epoch)
            .count() as u64
    }

    /// The instants a student steps between: barriers, completed checkpoints (committed
    /// batches), the crash, its detection, the restore, the end of the replay and the catch-up.
    pub fn key_instants_ms(&self) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .trace
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e.event,
                    Event::BarrierInjected { .. }
                        | Event::CheckpointCompleted { .. }
                        | Event::BatchPlanned { .. }
                        | Event::BatchCommitted { .. }
                        | Event::Crash { .. }
                        | Event::Detected
                        | Event::RestoreStarted { .. }
                        | Event::Restored { .. }
                        | Event::ReplayDone { .. }
                        | Event::CaughtUp { .. }
                )
            })
            .map(|e| e.at_ms)
            .collect();
        out.dedup();
        out
    }
}

/// How the readers move between two instants.
#[derive(Clone, Debug)]
enum Rule {
    /// Paused, down, or a batch not processing.
    Still,
    /// Together in log order at the job's capacity, never past the log end or `limit`.
    LogOrder { limit: u64 },
    /// Aligning: each partition at its share of the capacity up to its barrier, where it is held.
    UpToBarriers(Vec<u64>),
}

/// The readers between two samples, moved on by their rule.
struct Readers<'a> {
    index: &'a WorldIndex,
    at_ms: u64,
    offsets: Vec<u64>,
    rule: Rule,
}

impl Readers<'_> {
    fn advance(&mut self, to_ms: u64) {
        if to_ms <= self.at_ms {
            return;
        }
        let (log, config) = (&self.index.log, &self.index.config);
        let elapsed = u128::from(to_ms - self.at_ms);
        let capacity = u128::from(config.capacity_per_s);
        match &self.rule {
            Rule::Still => {}
            Rule::LogOrder { limit } => {
                let position: u64 = self.offsets.iter().sum();
                let reachable = position + (capacity * elapsed / 1000) as u64;
                let to = reachable.min(log.log_end_at(to_ms)).min(*limit).max(position);
                self.offsets = log.partition_offsets(to);
            }
            Rule::UpToBarriers(barriers) => {
                let turn = u128::from(log.wheel().slots());
                let log_end = log.log_end_at(to_ms);
                for (p, offset) in self.offsets.iter_mut().enumerate() {
                    // Each reader reads in its partition's share of the capacity.
                    let weight = u128::from(log.wheel().weight(p as u64));
                    let share = (capacity * elapsed * weight / (1000 * turn)) as u64;
                    let end = log.partition_end(log_end, p as u64);
                    let barrier = barriers.get(p).copied().unwrap_or(u64::MAX);
                    *offset = (*offset + share).min(end).min(barrier.max(*offset));
                }
            }
        }
        self.at_ms = to_ms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::settings::config::Mode;

    #[test]
    fn slots_per_key_count_as_hash_sets_do() {
        for config in [
            Config::default(),
            Config { crash_at_ms: Some(36_000_000 + 197_000), interval_ms: 10_000, ..Config::default() },
            Config { mode: Mode::MicroBatch, ..Config::default() },
            Config { products: 3, ..Config::default() },
        ] {
            let outcome = crate::engine::run(&config).expect("valid");
            let appended = outcome.run.sinks().append_only.rows();
            if config.mode == Mode::Barrier {
                assert!(Prefix::hashed(appended, |i, _| i as u64).duplicates.last() > Some(&0), "orphans re-emitted");
            }
            let committed = outcome.run.sinks().committed_rows();
            for rows in [outcome.run.sinks().append_only.rows(), &committed[..]] {
                let slots = Prefix::new(rows, |i, _| i as u64);
                assert_eq!(slots, Prefix::hashed(rows, |i, _| i as u64), "{config:?}");
            }
        }
    }

    /// A run stopped early, indexed without its figures, answers at every instant as the index of
    /// its figures does (which numbers the keys): past a restart too, where rows repeat.
    #[test]
    fn a_run_indexed_without_figures_answers_as_with_them() {
        let at = |s: u64| Some(36_000_000 + s * 1_000);
        for config in [
            Config::default(),
            Config { crash_at_ms: None, ..Config::default() },
            Config { crash_at_ms: at(20), interval_ms: 5_000, ..Config::default() },
            Config { mode: Mode::MicroBatch, interval_ms: 5_000, crash_at_ms: at(27), ..Config::default() },
            Config { retry_rate: 0.05, interval_ms: 1_000, crash_at_ms: at(33), ..Config::default() },
        ] {
            // Well past the crash, the replay and the catch-up.
            let outcome = crate::engine::run_up_to(&config, config.start_time_ms + 150_000, u64::MAX)
                .expect("valid")
                .expect("no bound");
            let (without, with) = (WorldIndex::of_run(&outcome.run), WorldIndex::new(&outcome.figures()));
            let end = outcome.run.now_ms();
            let seconds = (config.start_time_ms..=end).step_by(1_000);
            for t in seconds.chain(with.key_instants_ms()).filter(|&t| t <= end) {
                assert_eq!(without.at(t), with.at(t), "{config:?} at {t}");
            }
        }
    }

    /// The sinks at `t` read from the whole tables' per-row prefix counts.
    fn sinks_by_prefix(index: &WorldIndex, t: u64) -> SinksSoFar {
        let (committed, committed_duplicates, _) = index.committed_index().at(t);
        index.sinks_from(t, index.append_only_index().at(t), (committed, committed_duplicates))
    }

    #[test]
    fn the_sinks_counted_up_to_the_cursor_read_as_the_whole_tables_prefix_counts() {
        let crash = 36_000_000 + 197_000;
        for config in [
            Config::default(),
            Config { crash_at_ms: Some(crash), interval_ms: 10_000, ..Config::default() },
            Config { crash_at_ms: None, ..Config::default() },
            Config { mode: Mode::MicroBatch, ..Config::default() },
            Config { retry_rate: 0.05, ..Config::default() },
            Config {
                interval_ms: 120_000,
                transaction_timeout_ms: 60_000,
                crash_at_ms: Some(crash),
                ..Config::default()
            },
            // Keys too thin to number densely: counted through a hash set.
            Config { products: 50_000, rate_per_s: 20, capacity_per_s: 40, ..Config::default() },
        ] {
            let figures = crate::engine::run(&config).expect("valid").figures();
            assert_eq!(figures.tables.keys.is_some(), config.products < 50_000, "{config:?}");
            let (start, end) = (config.start_time_ms, config.end_ms());
            let mut instants: Vec<u64> = (start..=end).step_by(997).collect();
            // Backwards, then forwards: counted as far as asked, then further.
            instants.reverse();
            instants.extend((start..=end).step_by(4_999));
            let reference = WorldIndex::new(&figures);
            // Questions only, and a page's bounded preparation before the first one.
            let asked = WorldIndex::new(&figures);
            let prepared = WorldIndex::new(&figures);
            let cursor = crate::lesson::pipeline::default_cursor_ms(&config);
            let mut steps = 0;
            while !prepared.prepare_sinks_at(cursor) {
                steps += 1;
                assert!(steps < 100, "preparing ends");
            }
            assert_eq!(prepared.sinks_at(cursor), sinks_by_prefix(&reference, cursor), "{config:?}");
            // Prepared for every instant in small steps, and half prepared then asked: the
            // prefix counts made a step at a time are those made at once.
            let whole = WorldIndex::new(&figures);
            let half = WorldIndex::new(&figures);
            let mut steps = 0;
            while !whole.prepare_sinks_in_steps_of(end, 1_000) {
                steps += 1;
                assert!(steps < 10_000, "preparing ends");
            }
            for _ in 0..steps / 2 {
                half.prepare_sinks_in_steps_of(end, 1_000);
            }
            let half_counted =
                |table: Table| half.sinks.counting.lock().expect("not poisoned")[table as usize].out.at_ms.len();
            let made =
                |index: &WorldIndex| (index.sinks.append_only.get().cloned(), index.sinks.committed.get().cloned());
            let (appended, committed) = made(&whole);
            if let Some(prefix) = &appended {
                assert_eq!(prefix, reference.append_only_index(), "{config:?}");
            }
            if let Some(prefix) = &committed {
                assert_eq!(prefix, reference.committed_index(), "{config:?}");
            }
            if config.crash_at_ms.is_some() && config.mode == Mode::Barrier {
                assert!(appended.is_some() && steps > 3, "{config:?}: the append-only table counted in {steps} steps");
                let (rows, counted) = (figures.tables.append_only.len(), half_counted(Table::AppendOnly));
                assert!(
                    (counted > 0 && counted < rows) || half_counted(Table::Committed) > 0,
                    "{config:?}: half-way, {counted} of {rows} rows counted"
                );
            }
            for &t in instants.iter().rev().take(40).chain(&instants) {
                let expected = sinks_by_prefix(&reference, t);
                assert_eq!(asked.sinks_at(t), expected, "{config:?} at {t}");
                assert_eq!(prepared.sinks_at(t), expected, "{config:?} at {t}");
                assert_eq!(whole.sinks_at(t), expected, "{config:?} at {t}");
                assert_eq!(half.sinks_at(t), expected, "{config:?} at {t}");
            }
        }
    }
}
