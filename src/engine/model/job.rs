//! The job both restart protocols run: the source readers and their offsets, the operators with
//! their state (dedupe, then the tumbling window count), the four sinks, the backpressured input
//! channel and the capacity credit that limits how fast the readers go. A protocol decides when
//! the job pauses, what it snapshots and when its output commits; the job only reads, processes
//! and writes.

use std::collections::VecDeque;
use std::sync::Arc;

use super::checkpoint::Snapshot;
use super::operators::{window::Emission, JobShape, JobState};
use super::sinks::{row_ms, Row, Sinks};
use super::source::SourceLog;
use super::trace::{Event, SinkRows, SinkStalenessMs, Trace};
use crate::engine::fast::data_plane::DataPlane;
use crate::engine::settings::config::Config;

/// What a restart left out of the state or counted in it again, in events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restart {
    /// Gone from the log under its retention before the readers got to them.
    pub lost_events: u64,
    /// Offsets committed on a timer: between the restored state's offsets and the committed ones
    /// further on, so never counted.
    pub skipped_events: u64,
    /// Offsets committed on a timer: between the committed offsets and the restored state's
    /// further on, so in the state and read again.
    pub counted_twice_events: u64,
}

#[derive(Clone, Debug)]
pub struct Job {
    log: SourceLog,
    shape: JobShape,
    pub(crate) state: JobState,
    /// Offsets per partition the readers have consumed.
    pub(crate) read_offsets: Vec<u64>,
    /// Offsets per partition the operator has processed (behind the readers on a slow channel).
    pub(crate) processed_offsets: Vec<u64>,
    /// Capacity credit per partition, in units of 1/(1000 x partitions) events.
    credit: Vec<u64>,
    /// Capacity credit of the readers moving together in log order, in 1/1000 events.
    log_order_credit: u64,
    /// The backpressured input (partition 0): (time it reaches the operator, offset read up to).
    slow_channel: VecDeque<(u64, u64)>,
    /// Set when the input is closed: no events arrive after this instant.
    pub(crate) input_closed_at_ms: Option<u64>,
    /// Which job attempt is running (1 for the first run, 2 after the first restart, ...).
    pub(crate) attempt: u32,
    /// True while the readers have no backlog.
    pub(crate) caught_up: bool,
    /// Events processed since the last snapshot (what an incremental snapshot uploads).
    pub(crate) events_since_snapshot: u64,
    /// Events the operators processed, replays included: the simulation's work.
    pub(crate) processed_events: u64,
    /// Time spent paused by the protocol (sync pauses, offset-log and state store writes).
    pub(crate) paused_ms: u64,
    /// Time spent holding inputs for barrier alignment.
    pub(crate) aligning_ms: u64,
    newest_emitted_boundary_ms: u64,
    newest_committed_boundary_ms: u64,
    /// Barrier mode with `read_uncommitted` readers of the transactional sink.
    read_uncommitted: bool,
    pub(crate) sinks: Sinks,
    /// Whether snapshots copy the state: only those a crash may restore need it.
    pub(crate) snapshots_keep_state: bool,
    /// The orders per emit period, counted once for the source and window settings.
    pub(crate) data_plane: Option<Arc<DataPlane>>,
}

impl Job {
    /// The job at the scenario start, its readers at `offsets`.
    pub fn new(config: &Config, log: SourceLog, offsets: Vec<u64>) -> Job {
        let start = config.start_time_ms;
        Job {
            shape: JobShape::new(config),
            log,
            state: JobState::new(config),
            read_offsets: offsets.clone(),
            processed_offsets: offsets,
            credit: vec![0; config.partitions as usize],
            log_order_credit: 0,
            slow_channel: VecDeque::new(),
            input_closed_at_ms: None,
            attempt: 1,
            caught_up: true,
            events_since_snapshot: 0,
            processed_events: 0,
            paused_ms: 0,
            aligning_ms: 0,
            newest_emitted_boundary_ms: start,
            newest_committed_boundary_ms: start,
            read_uncommitted: config.reads_uncommitted(),
            sinks: Sinks::default(),
            snapshots_keep_state: true,
            data_plane: None,
        }
    }

    pub fn log(&self) -> &SourceLog {
        &self.log
    }

    /// Room in the sinks for the rows still to come by `end_ms`, so the tables do not grow by
    /// copying themselves (a copy of the largest tables would be one long step).
    pub fn reserve_rows(&mut self, now_ms: u64, end_ms: u64) {
        self.sinks.reserve(self.rows_to_come(now_ms, end_ms));
    }

    /// At most how many rows the sinks get by `end_ms`: one per product and emit period, and no
    /// more than one per event besides one per period. What [`Job::reserve_rows`] makes room for.
    pub fn rows_to_come(&self, now_ms: u64, end_ms: u64) -> usize {
        // The memory budget (Config::estimated_memory_bytes) admits about 2.2 million rows a run;
        // this only keeps the arithmetic in bounds.
        const MAX_RESERVED_ROWS: u64 = 4_000_000;
        let periods = end_ms.saturating_sub(now_ms) / self.shape.emit_every_ms + 1;
        let events = self.log.log_end_at(end_ms).saturating_sub(self.log.log_end_at(now_ms));
        let rows = periods.saturating_mul(u64::from(self.shape.products)).min(events.saturating_add(periods));
        rows.min(MAX_RESERVED_ROWS) as usize
    }

    /// Events in the log at `t_ms` (fewer than the source would hold once the input is closed).
    pub fn log_end(&self, t_ms: u64) -> u64 {
        self.log.log_end_at(self.input_closed_at_ms.map_or(t_ms, |closed| t_ms.min(closed)))
    }

    /// The readers' total position (sum of partition offsets consumed).
    pub fn position(&self) -> u64 {
        self.read_offsets.iter().sum()
    }

    /// Whether every record the readers consumed has reached the operator.
    pub fn all_arrived(&self) -> bool {
        self.processed_offsets.iter().zip(&self.read_offsets).all(|(done, read)| done >= read)
    }

    /// Whether nothing is travelling on the slow channel.
    pub fn channel_empty(&self) -> bool {
        self.slow_channel.is_empty()
    }

    /// Whether the readers stand at a prefix of the log in log order (every partition at the
    /// offset the log held when it held `position()` events): true unless inputs were held.
    pub fn reads_in_log_order(&self) -> bool {
        let total = self.position();
        (0..self.read_offsets.len()).all(|p| self.read_offsets[p] == self.log.partition_end(total, p as u64))
    }

    /// Processes log numbers `[from, to)` in log order: the readers move together as a prefix.
    pub fn process_in_log_order(&mut self, from: u64, to: u64) {
        self.state.process(from, to, 1, &self.log, &self.shape, self.data_plane.as_deref());
        self.events_since_snapshot += to - from;
        self.processed_events += to - from;
        for p in 0..self.read_offsets.len() {
            let end = self.log.partition_end(to, p as u64);
            self.read_offsets[p] = end;
            self.processed_offsets[p] = end;
        }
    }

    fn process_partition(&mut self, p: usize, from: u64, to: u64) {
        process_offsets(&mut self.state, &self.log, &self.shape, self.data_plane.as_deref(), p as u64, from, to);
        self.processed_offsets[p] = to;
        self.events_since_snapshot += to - from;
        self.processed_events += to - from;
    }

    /// One millisecond of reading in log order at capacity, up to `log_total` events: the readers
    /// share the capacity and take the oldest events first, so they stay a prefix of the log.
    /// Returns the readers' position after it.
    pub fn read_in_log_order(&mut self, config: &Config, log_total: u64) -> u64 {
        let from = self.position();
        let available = log_total - from;
        let credit = &mut self.log_order_credit;
        *credit += config.capacity_per_s;
        let n = available.min(*credit / 1000);
        *credit -= n * 1000;
        if n == available {
            *credit = (*credit).min(1000);
        }
        if n > 0 {
            self.process_in_log_order(from, from + n);
        }
        self.caught_up = n == available;
        from + n
    }

    /// Reading in log order at capacity while behind, from `now_ms` to at most `until_ms`: the
    /// credit moves one millisecond at a time exactly as [`Job::read_in_log_order`] spends it,
    /// but the events are processed once, at the end. Stops after the millisecond that catches
    /// up, that lets the next emit boundary pass, or that reaches `stop_at` (the offset a replay
    /// returns to). Returns that instant and the readers' position then.
    pub fn read_in_log_order_until(
        &mut self,
        config: &Config,
        now_ms: u64,
        until_ms: u64,
        stop_at: Option<u64>,
    ) -> (u64, u64) {
        let from = self.position();
        let boundary_ms = self.state.windows.next_boundary_ms;
        let boundary_log_number = self.log.log_end_at(boundary_ms);
        let stop_at = stop_at.unwrap_or(u64::MAX);
        let (mut t, mut position, mut credit) = (now_ms, from, self.log_order_credit);
        let capacity = config.capacity_per_s;
        if self.input_closed_at_ms.is_none() && capacity > 0 {
            // The milliseconds that surely neither catch up nor stop, taken in one go: while
            // behind, k of them read (credit + k x capacity) / 1000 events.
            let reach = |limit: u64| {
                // The last k whose position stays below `limit`.
                (u128::from(limit.saturating_sub(from)) * 1000)
                    .checked_sub(u128::from(credit) + 1)
                    .map_or(0, |c| u64::try_from(c / u128::from(capacity)).unwrap_or(u64::MAX))
            };
            let before_boundary_ms = boundary_ms.saturating_sub(now_ms + 1);
            let jump = self
                .log
                .ms_surely_behind(now_ms, from, credit, capacity)
                .min(before_boundary_ms.max(reach(boundary_log_number)))
                .min(reach(stop_at))
                .min(until_ms.saturating_sub(now_ms + 1));
            if jump > 0 {
                let total = u128::from(credit) + u128::from(jump) * u128::from(capacity);
                position += (total / 1000) as u64;
                credit = (total % 1000) as u64;
                t += jump;
            }
        }
        loop {
            t += 1;
            let available = self.log_end(t) - position;
            credit += config.capacity_per_s;
            let n = available.min(credit / 1000);
            credit -= n * 1000;
            let caught_up = n == available;
            if caught_up {
                credit = credit.min(1000);
            }
            position += n;
            self.caught_up = caught_up;
            let emits = t >= boundary_ms && position >= boundary_log_number;
            if caught_up || emits || position >= stop_at || t >= until_ms {
                break;
            }
        }
        self.log_order_credit = credit;
        if position > from {
            self.process_in_log_order(from, position);
        }
        (t, position)
    }

    /// One millisecond of reading partition by partition, up to `log_total` events, ending at
    /// `end_of_step`. Inputs at or past `held` (the barrier offsets an aligned operator waits on)
    /// are held; partition 0 travels on the slow channel when backpressure is set. Returns the
    /// events still to read.
    pub fn read_by_partition(
        &mut self,
        config: &Config,
        log_total: u64,
        end_of_step: u64,
        held: Option<&[u64]>,
    ) -> u64 {
        let partitions = self.log.partitions();
        // Each reader gets the capacity in its partition's share of the events: its credit grows by
        // capacity x weight and an event costs 1000 x the wheel's slots.
        let unit = 1000 * self.log.wheel().slots();
        let slow = config.backpressure_ms > 0;
        let mut lag = 0;
        for p in 0..partitions as usize {
            let limit = self.log.partition_end(log_total, p as u64);
            // An aligned operator holds an input whose barrier has arrived.
            let is_held = held.is_some_and(|b| self.processed_offsets[p] >= b[p]);
            if !is_held {
                let available = limit - self.read_offsets[p];
                self.credit[p] += config.capacity_per_s * self.log.wheel().weight(p as u64);
                let n = available.min(self.credit[p] / unit);
                self.credit[p] -= n * unit;
                if n == available {
                    self.credit[p] = self.credit[p].min(unit);
                }
                let (from, to) = (self.read_offsets[p], self.read_offsets[p] + n);
                self.read_offsets[p] = to;
                if slow && p == 0 {
                    if n > 0 {
                        self.slow_channel.push_back((end_of_step + config.backpressure_ms, to));
                    }
                } else if n > 0 {
                    self.process_partition(p, from, to);
                }
            }
            lag += limit - self.read_offsets[p];
        }
        // The slow input delivers what has travelled long enough, never past a barrier still awaited.
        while let Some(&(ready_at, upto)) = self.slow_channel.front() {
            if ready_at > end_of_step {
                break;
            }
            let stop = held.map_or(upto, |b| upto.min(b[0].max(self.processed_offsets[0])));
            let from = self.processed_offsets[0];
            if stop > from {
                self.process_partition(0, from, stop);
            }
            if stop < upto {
                break;
            }
            self.slow_channel.pop_front();
        }
        lag
    }

    /// The smallest log number not yet processed on some input.
    pub fn watermark(&self) -> u64 {
        (0..self.processed_offsets.len())
            .map(|p| self.log.log_number(p as u64, self.processed_offsets[p]))
            .min()
            .expect("at least one partition")
    }

    /// Emits every emit boundary the watermark (and the clock) has passed into all sinks, the rows
    /// belonging to `epoch`: one trace event per boundary that changed keys.
    pub fn emit(&mut self, now_ms: u64, watermark_log_number: u64, epoch: u64, trace: &mut Trace) {
        let (attempt, emitted_at_ms) = (self.attempt, row_ms(now_ms));
        let Job { state, sinks, log, shape, data_plane, .. } = self;
        state.emit_ready(watermark_log_number, now_ms, log, shape, data_plane.as_deref(), |e| {
            let (window_start_ms, boundary_ms) = (row_ms(e.window_start_ms), row_ms(e.boundary_ms));
            let row =
                Row { product_id: 0, window_start_ms, order_count: 0, emitted_at_ms, boundary_ms, attempt, epoch };
            sinks.write_emission(now_ms, row, e.totals);
            trace.push(now_ms, Event::Emitted { boundary_ms: e.boundary_ms, rows: e.totals.len() as u64 });
        });
        let passed = self.state.windows.next_boundary_ms - self.shape.emit_every_ms;
        self.newest_emitted_boundary_ms = self.newest_emitted_boundary_ms.max(passed.min(now_ms));
    }

    /// A micro-batch's output: every changed key's total up to `boundary_ms`, written as batch
    /// `batch_id`'s rows by `foreachBatch`: appended, merged by key, and written once by batch id
    /// (a re-run batch is skipped there). Returns the rows written.
    pub fn write_batch_output(&mut self, now_ms: u64, boundary_ms: u64, batch_id: u64) -> u64 {
        let attempt = self.attempt;
        let mut rows = Vec::new();
        self.state.count_deferred(self.data_plane.as_deref(), &self.log);
        self.state.emit_batch(boundary_ms, &self.shape, |e| rows.push(row(e, now_ms, attempt, batch_id)));
        let n = rows.len() as u64;
        if self.sinks.write_batch(batch_id, rows, now_ms) {
            self.newest_committed_boundary_ms = self.newest_committed_boundary_ms.max(boundary_ms);
        }
        self.newest_emitted_boundary_ms = self.newest_emitted_boundary_ms.max(boundary_ms);
        n
    }

    /// Counts the periods the window operator deferred (see `Bucket::deferred`), so its state
    /// reads whole.
    pub fn count_deferred(&mut self) {
        self.state.count_deferred(self.data_plane.as_deref(), &self.log);
    }

    /// The snapshot of the state now, resuming from `offsets`.
    pub fn snapshot(&self, offsets: Vec<u64>, in_flight: Vec<(u64, u64, u64)>) -> Snapshot {
        let state_offsets = offsets.iter().zip(&self.processed_offsets).map(|(&o, &done)| o.max(done)).collect();
        Snapshot { state: self.snapshots_keep_state.then(|| self.state.clone()), offsets, in_flight, state_offsets }
    }

    /// The transactional sink commits epoch `epoch` (and any older pre-committed one) at `now_ms`;
    /// a transaction older than `timeout_ms` was aborted by the broker. Returns the rows lost so.
    pub fn commit_sinks(&mut self, epoch: u64, now_ms: u64, timeout_ms: u64) -> u64 {
        let before = self.sinks.transactional.committed_ranges().len();
        let lost = self.sinks.commit(epoch, now_ms, timeout_ms);
        // A transaction's rows are whole emissions of one attempt, in boundary order: its last
        // row has its newest boundary.
        let appended = self.sinks.append_only.rows();
        let newest = self.sinks.transactional.committed_ranges()[before..]
            .iter()
            .map(|r| {
                debug_assert!(appended[r.clone()].is_sorted_by_key(|row| row.boundary_ms));
                u64::from(appended[r.end - 1].boundary_ms)
            })
            .max();
        if let Some(newest) = newest {
            self.newest_committed_boundary_ms = self.newest_committed_boundary_ms.max(newest);
        }
        lost
    }

    /// A crash: what travels on the slow channel and the transactions of checkpoints after
    /// `completed_id` are lost.
    pub fn crash(&mut self, completed_id: u64) {
        self.sinks.transactional.abort(completed_id);
        self.slow_channel.clear();
        self.caught_up = false;
    }

    /// The oldest offset of each partition the log still holds at `now_ms`, under a retention.
    fn first_kept_offsets(&self, config: &Config, now_ms: u64) -> Option<Vec<u64>> {
        let retention = config.retention_ms?;
        let oldest_kept = self.log.log_end_at(now_ms.saturating_sub(retention));
        Some((0..self.read_offsets.len()).map(|p| self.log.partition_end(oldest_kept, p as u64)).collect())
    }

    /// Events between `snapshot`'s offsets and the oldest ones the log still holds at `now_ms`:
    /// what a restart from it then could no longer read.
    pub fn events_gone_at_restore(&self, snapshot: &Snapshot, config: &Config, now_ms: u64) -> u64 {
        self.first_kept_offsets(config, now_ms).map_or(0, |first_kept| {
            snapshot.offsets.iter().zip(first_kept).map(|(&from, kept)| kept.saturating_sub(from)).sum()
        })
    }

    /// A restart at `now_ms` from `snapshot`: the state is loaded, the readers rewind to its
    /// offsets, or to `committed` (the consumer group's offsets, committed on a timer apart from
    /// the state) when given, never before the log's retention, and a new attempt starts.
    pub fn restart_from(
        &mut self,
        snapshot: &Snapshot,
        committed: Option<&[u64]>,
        config: &Config,
        now_ms: u64,
    ) -> Restart {
        self.state = snapshot.state.clone().expect("a snapshot a crash restores keeps the state");
        let resume = committed.unwrap_or(&snapshot.offsets);
        self.read_offsets = resume.to_vec();
        self.processed_offsets = resume.to_vec();
        // Unaligned: the in-flight records stored in the checkpoint are processed first.
        for &(p, from, to) in &snapshot.in_flight {
            process_offsets(&mut self.state, &self.log, &self.shape, self.data_plane.as_deref(), p, from, to);
        }
        self.credit.iter_mut().for_each(|c| *c = 0);
        self.log_order_credit = 0;
        let mut restart = Restart::default();
        if let Some(first_kept) = self.first_kept_offsets(config, now_ms) {
            for (p, first_kept) in first_kept.into_iter().enumerate() {
                if self.read_offsets[p] < first_kept {
                    // From the committed offsets, what the state had counted is not lost.
                    let from = match committed {
                        Some(_) => self.read_offsets[p].max(snapshot.state_offsets[p]),
                        None => self.read_offsets[p],
                    };
                    restart.lost_events += first_kept.saturating_sub(from);
                    self.read_offsets[p] = first_kept;
                    self.processed_offsets[p] = first_kept;
                }
            }
        }
        if let Some(committed) = committed {
            for (p, (&counted, &resumed)) in snapshot.state_offsets.iter().zip(&self.read_offsets).enumerate() {
                // Ahead of the state: never counted. Behind it: counted again.
                restart.skipped_events += committed[p].saturating_sub(counted);
                restart.counted_twice_events += counted.saturating_sub(resumed);
            }
        }
        self.attempt += 1;
        self.events_since_snapshot = 0;
        self.caught_up = false;
        restart
    }

    /// Rows each sink holds now.
    pub fn sink_rows(&self) -> SinkRows {
        let keys = self.sinks.upsert_keys();
        SinkRows {
            append_only: self.sinks.append_only.rows().len() as u64,
            upsert: keys,
            transactional: self.sinks.transactional.committed_len() as u64,
            // The view returns the newest row of every key the append-only table holds.
            dedupe_view: keys,
        }
    }

    /// Staleness per sink at `now_ms`: the first three see an emission at once, the
    /// transactional sink's reader only at commits.
    pub fn staleness_ms(&self, now_ms: u64) -> SinkStalenessMs {
        let fresh = now_ms.saturating_sub(self.newest_emitted_boundary_ms);
        SinkStalenessMs {
            append_only: fresh,
            upsert: fresh,
            // read_uncommitted readers see rows as they are written.
            transactional: if self.read_uncommitted {
                fresh
            } else {
                now_ms.saturating_sub(self.newest_committed_boundary_ms)
            },
            dedupe_view: fresh,
        }
    }
}

/// The sink row of an emission written at `now_ms` by job attempt `attempt`, in epoch `epoch`.
#[inline]
fn row(e: Emission, now_ms: u64, attempt: u32, epoch: u64) -> Row {
    Row {
        product_id: e.product_id,
        window_start_ms: row_ms(e.window_start_ms),
        order_count: e.order_count,
        emitted_at_ms: row_ms(now_ms),
        boundary_ms: row_ms(e.boundary_ms),
        attempt,
        epoch,
    }
}

/// Processes partition `p`'s offsets `[from, to)`. Each of the partition's slots on the producer's
/// wheel holds the log numbers of one stride (the wheel's size), so the offsets are processed slot
/// by slot: a retry re-sends from its own slot, after its first send.
fn process_offsets(
    state: &mut JobState,
    log: &SourceLog,
    shape: &JobShape,
    plane: Option<&DataPlane>,
    p: u64,
    from: u64,
    to: u64,
) {
    let (turn, weight) = (log.wheel().slots(), log.wheel().weight(p));
    for k in 0..weight.min(to.saturating_sub(from)) {
        // The k-th offset from `from` and every weight-th after it share a slot.
        let first = from + k;
        let last = first + (to - 1 - first) / weight * weight;
        state.process(log.log_number(p, first), log.log_number(p, last) + turn, turn, log, shape, plane);
    }
}
