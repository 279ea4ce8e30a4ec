//! The simulation: one job attempt after another on a virtual millisecond clock. Each step first
//! handles what is due at this instant (crash, recovery phases, checkpoint completion and
//! trigger, the per-second sample), then processes one millisecond of input. While the job is
//! caught up and nothing is pending it takes the fast path: the input up to the next due instant
//! is processed in log order in one pass, which gives the same result as millisecond steps.

mod micro_batch;

use std::collections::VecDeque;

use serde::Serialize;

use super::checkpoint::{transfer_ms, upload_bytes, CompletedCheckpoint, PendingCheckpoint, PendingStage, Snapshot};
use super::clock::ClockTime;
use super::config::{Alignment, Config, ConfigError, Mode};
use super::operators::{window::Emission, JobShape, JobState};
use super::sinks::{Row, Sinks};
use super::source::SourceLog;

pub use micro_batch::OffsetLogEntry;

/// What the job is doing at a moment, as the charts shade it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Running,
    /// Inputs held while barriers line up (aligned checkpoints under backpressure).
    Aligning,
    /// Processing paused for a checkpoint's synchronous phase.
    SyncPause,
    /// Crashed, failure not yet detected.
    Detecting,
    /// Detected; waiting for the restart delay.
    Restarting,
    /// Downloading and rebuilding the restored checkpoint's state.
    Restoring,
    /// Re-reading events the crashed attempt had already consumed.
    Replaying,
    /// Past the crash offset, working off the backlog that built up during the outage.
    CatchingUp,
    /// Micro-batch mode: the last batch is committed and the next trigger has not come yet.
    WaitingForTrigger,
}

/// One crash and the recovery that followed it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recovery {
    pub crashed_at_ms: u64,
    /// The job attempt the crash ended (its rows after the restored checkpoint are orphans).
    pub crashed_attempt: u32,
    /// The readers' total position when the job crashed.
    pub crash_offset: u64,
    pub crash_offsets: Vec<u64>,
    /// The checkpoint in flight at the crash, discarded.
    pub discarded_checkpoint: Option<u64>,
    pub restored: CompletedCheckpoint,
    pub detected_at_ms: u64,
    pub restore_started_at_ms: u64,
    /// When the restore finishes (reached or not).
    pub restore_done_at_ms: u64,
    pub restored_at_ms: Option<u64>,
    pub backlog_at_restore_events: Option<u64>,
    /// When the readers were back at the crash offset: the replay is done.
    pub replay_done_at_ms: Option<u64>,
    pub caught_up_at_ms: Option<u64>,
    /// Events the log no longer held when the job rewound (retention exceeded).
    pub lost_events: u64,
    /// A later crash cut this recovery short.
    pub interrupted: bool,
}

/// One entry of the run's timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimelineEntry {
    pub at: String,
    pub at_s: f64,
    pub kind: TimelineKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineKind {
    Barrier,
    Aligned,
    Snapshot,
    CheckpointCompleted,
    CheckpointDiscarded,
    Crash,
    Detected,
    RestoreStarted,
    Restored,
    ReplayDone,
    CaughtUp,
    RetentionExceeded,
    /// Micro-batch mode: the batch's end offsets are written to the offset log.
    BatchPlanned,
    /// Micro-batch mode: a batch without a commit entry runs again with its logged offsets.
    BatchRerun,
    /// Micro-batch mode: the batch's output is written to the sinks.
    BatchOutput,
    /// Micro-batch mode: the state store version and the commit-log entry are written.
    BatchCommitted,
}

/// The per-second sample behind the charts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    pub t_s: u64,
    pub phase: Phase,
    /// Events in the log (sum of partition log-end offsets).
    pub log_end: u64,
    /// The readers' total position.
    pub position: u64,
    pub lag_events: u64,
    /// Staleness a reader of each sink sees: now minus the newest event time visible there.
    pub staleness_ms: SinkStaleness,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SinkStaleness {
    pub append_only: u64,
    pub upsert: u64,
    pub transactional: u64,
    pub dedupe_view: u64,
}

#[derive(Clone, Debug)]
enum JobPhase {
    Running,
    Down { detected_at_ms: u64, restore_started_at_ms: u64, restored_at_ms: u64 },
}

/// A running simulation.
#[derive(Clone, Debug)]
pub struct Sim {
    pub config: Config,
    log: SourceLog,
    shape: JobShape,
    now_ms: u64,
    phase: JobPhase,
    attempt: u32,
    state: JobState,
    read_offsets: Vec<u64>,
    processed_offsets: Vec<u64>,
    /// Capacity credit per partition, in units of 1/(1000 x partitions) events.
    credit: Vec<u64>,
    /// Capacity credit of the readers moving together in log order, in 1/1000 events.
    log_order_credit: u64,
    /// The backpressured input (partition 0): (time it reaches the operator, offset read up to).
    slow_channel: VecDeque<(u64, u64)>,
    pause_until_ms: u64,
    /// Set by [`Sim::close_input_and_drain`]: no events arrive after this instant.
    input_closed_at_ms: Option<u64>,
    next_checkpoint_id: u64,
    next_trigger_ms: u64,
    pending: Option<PendingCheckpoint>,
    restore_point: (CompletedCheckpoint, Snapshot),
    events_since_snapshot: u64,
    epoch: u64,
    caught_up: bool,
    crashes: VecDeque<u64>,
    newest_emitted_boundary_ms: u64,
    newest_committed_boundary_ms: u64,
    pub sinks: Sinks,
    pub checkpoints: Vec<CompletedCheckpoint>,
    pub recoveries: Vec<Recovery>,
    pub series: Vec<Sample>,
    pub timeline: Vec<TimelineEntry>,
    pub paused_ms: u64,
    pub aligning_ms: u64,
    /// Events the operators processed, replays included: the simulation's work.
    pub processed_events: u64,
    /// Micro-batch mode: the batch in progress and the offset log.
    batch: Option<micro_batch::BatchRun>,
    pub offset_log: Vec<OffsetLogEntry>,
}

impl Sim {
    /// A simulation at the scenario start, checkpoint `start_checkpoint_id` complete.
    pub fn new(config: &Config) -> Result<Sim, ConfigError> {
        config.validate()?;
        let log = SourceLog::new(config);
        let start = config.start_time_ms;
        let offsets = log.partition_offsets(config.start_offset);
        let state = JobState::new(config);
        let initial = CompletedCheckpoint {
            id: config.start_checkpoint_id,
            barrier_at_ms: start,
            completed_at_ms: start,
            offset: config.start_offset,
            offsets: offsets.clone(),
            size_bytes: config.state_bytes,
            in_flight_bytes: 0,
            duration_ms: 0,
            alignment_ms: 0,
            sync_ms: 0,
            processing_ms: 0,
            upload_ms: 0,
            attempt: 1,
            position_at_completion: config.start_offset,
        };
        let snapshot = Snapshot { state: state.clone(), offsets: offsets.clone(), in_flight: Vec::new() };
        let partitions = config.partitions as usize;
        let mut sim = Sim {
            shape: JobShape::new(config),
            log,
            now_ms: start,
            phase: JobPhase::Running,
            attempt: 1,
            state,
            read_offsets: offsets.clone(),
            processed_offsets: offsets,
            credit: vec![0; partitions],
            log_order_credit: 0,
            slow_channel: VecDeque::new(),
            pause_until_ms: start,
            input_closed_at_ms: None,
            next_checkpoint_id: config.start_checkpoint_id + 1,
            next_trigger_ms: start + config.interval_ms,
            pending: None,
            checkpoints: vec![initial.clone()],
            restore_point: (initial, snapshot),
            events_since_snapshot: 0,
            epoch: config.start_checkpoint_id + 1,
            caught_up: true,
            crashes: config.crash_at_ms.into_iter().collect(),
            newest_emitted_boundary_ms: start,
            newest_committed_boundary_ms: start,
            sinks: Sinks::default(),
            recoveries: Vec::new(),
            series: Vec::new(),
            timeline: Vec::new(),
            paused_ms: 0,
            aligning_ms: 0,
            processed_events: 0,
            batch: None,
            offset_log: Vec::new(),
            config: config.clone(),
        };
        if config.mode == Mode::MicroBatch {
            sim.offset_log = sim.initial_offset_log();
        }
        Ok(sim)
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    pub fn log(&self) -> &SourceLog {
        &self.log
    }

    pub fn state(&self) -> &JobState {
        &self.state
    }

    /// Events in the log at `t_ms` (fewer than the source would hold once the input is closed).
    fn log_end(&self, t_ms: u64) -> u64 {
        self.log.log_end_at(self.input_closed_at_ms.map_or(t_ms, |closed| t_ms.min(closed)))
    }

    /// Closes the input now (no further events arrive, no further checkpoints are triggered) and
    /// runs until everything read has been processed and the pending checkpoint has completed.
    /// Two runs drained at the same instant have processed exactly the same events, so their
    /// state and sinks can be compared whatever their checkpoint schedules were.
    pub fn close_input_and_drain(&mut self) {
        let closed_at_ms = self.now_ms;
        self.input_closed_at_ms = Some(closed_at_ms);
        let limit = self.now_ms + 24 * 3_600_000;
        if self.config.mode == Mode::MicroBatch {
            while self.now_ms < limit {
                self.handle_due();
                if self.batches_drained(closed_at_ms) {
                    return;
                }
                self.step_to_next_due(limit);
            }
            return;
        }
        self.next_trigger_ms = u64::MAX;
        while self.now_ms < limit {
            self.handle_due();
            let drained = self.is_running()
                && self.caught_up
                && self.slow_channel.is_empty()
                && self.pending.is_none()
                && self.now_ms >= self.pause_until_ms;
            if drained && self.state.windows.next_boundary_ms > self.input_closed_at_ms.unwrap_or(0) {
                return;
            }
            self.step_one_ms();
        }
    }

    /// Offsets per partition the operator has processed (behind the readers on a slow channel).
    pub fn processed_offsets(&self) -> &[u64] {
        &self.processed_offsets
    }

    /// The readers' total position (sum of partition offsets consumed).
    pub fn position(&self) -> u64 {
        self.read_offsets.iter().sum()
    }

    pub fn is_running(&self) -> bool {
        matches!(self.phase, JobPhase::Running)
    }

    /// True while running with no backlog.
    pub fn is_caught_up(&self) -> bool {
        self.is_running() && self.caught_up
    }

    /// True once every recovery has either caught up or been cut short by a later crash.
    pub fn all_recovered(&self) -> bool {
        self.recoveries.iter().all(|r| r.interrupted || r.caught_up_at_ms.is_some())
    }

    /// Forgets the crashes still scheduled (for a failure-free companion run).
    pub fn cancel_crashes(&mut self) {
        self.crashes.clear();
    }

    /// Changes the checkpoint interval from now on: the next trigger comes one new interval from now.
    pub fn set_interval(&mut self, interval_ms: u64) -> Result<(), ConfigError> {
        let config = Config { interval_ms, ..self.config.clone() };
        config.validate()?;
        self.config = config;
        self.next_trigger_ms = self.now_ms + interval_ms;
        Ok(())
    }

    /// Schedules a crash at `at_ms` (ms since midnight), in addition to the configured one.
    pub fn schedule_crash(&mut self, at_ms: u64) {
        let i = self.crashes.partition_point(|&t| t < at_ms);
        self.crashes.insert(i, at_ms);
    }

    /// Runs until the clock reads `until_ms`.
    pub fn run_until(&mut self, until_ms: u64) {
        if self.config.mode == Mode::MicroBatch {
            self.run_until_micro_batch(until_ms);
            return;
        }
        while self.now_ms < until_ms {
            self.handle_due();
            if let JobPhase::Down { restored_at_ms, .. } = self.phase {
                // Nothing is processed while the job is down: jump to the next instant that matters.
                let start = self.config.start_time_ms;
                let next_second = start + ((self.now_ms - start) / 1000 + 1) * 1000;
                let crash = self.crashes.front().copied().unwrap_or(u64::MAX);
                self.now_ms = next_second.min(restored_at_ms).min(crash).min(until_ms).max(self.now_ms + 1);
                continue;
            }
            if self.can_take_fast_path() {
                let next = self.next_due_ms().min(until_ms);
                self.fast_path(next);
            } else {
                self.step_one_ms();
            }
        }
    }

    /// Runs to the end of the horizon, handling what is due at the final instant too.
    pub fn run_to_end(&mut self) {
        let end = self.config.end_ms();
        self.run_until(end);
        self.handle_due();
    }

    fn mark(&mut self, at_ms: u64, kind: TimelineKind, checkpoint: Option<u64>, offset: Option<u64>) {
        self.timeline.push(TimelineEntry {
            at: ClockTime(at_ms).to_string(),
            at_s: (at_ms - self.config.start_time_ms) as f64 / 1000.0,
            kind,
            checkpoint,
            offset,
        });
    }

    /// Handles everything due at the current instant, in a fixed order.
    fn handle_due(&mut self) {
        let now = self.now_ms;
        // Crash: everything in memory is lost.
        while self.crashes.front().is_some_and(|&t| t <= now) {
            self.crashes.pop_front();
            self.crash();
        }
        // Recovery phases.
        if let JobPhase::Down { restored_at_ms, .. } = self.phase {
            if now >= restored_at_ms {
                self.restore();
            }
        }
        if self.is_running() && self.config.mode == Mode::MicroBatch {
            self.handle_batch_due();
        } else if self.is_running() {
            // Checkpoint completion, then a trigger that may have waited for it.
            if let Some(PendingCheckpoint { stage: PendingStage::Uploading { completes_at_ms, .. }, .. }) =
                &self.pending
            {
                if *completes_at_ms <= now {
                    self.complete_checkpoint();
                }
            }
            if self.pending.is_none() && now >= self.next_trigger_ms {
                self.trigger_checkpoint();
            }
        }
        if (now - self.config.start_time_ms) % 1000 == 0
            && self.series.last().is_none_or(|s| s.t_s * 1000 + self.config.start_time_ms < now)
        {
            self.sample();
        }
    }

    fn sample(&mut self) {
        let now = self.now_ms;
        let log_end = self.log_end(now);
        let position = self.position();
        let phase = self.phase_now();
        let fresh = now.saturating_sub(self.newest_emitted_boundary_ms);
        self.series.push(Sample {
            t_s: (now - self.config.start_time_ms) / 1000,
            phase,
            log_end,
            position,
            lag_events: log_end.saturating_sub(position),
            staleness_ms: SinkStaleness {
                append_only: fresh,
                upsert: fresh,
                transactional: now.saturating_sub(self.newest_committed_boundary_ms),
                dedupe_view: fresh,
            },
        });
    }

    /// What the job is doing now.
    pub fn phase_now(&self) -> Phase {
        let now = self.now_ms;
        match self.phase {
            JobPhase::Down { detected_at_ms, restore_started_at_ms, .. } => {
                if now < detected_at_ms {
                    Phase::Detecting
                } else if now < restore_started_at_ms {
                    Phase::Restarting
                } else {
                    Phase::Restoring
                }
            }
            JobPhase::Running => {
                if let Some(r) = self.recoveries.last() {
                    if r.caught_up_at_ms.is_none() && r.restored_at_ms.is_some() {
                        return if r.replay_done_at_ms.is_none() { Phase::Replaying } else { Phase::CatchingUp };
                    }
                }
                if self.config.mode == Mode::MicroBatch {
                    self.batch_phase()
                } else if now < self.pause_until_ms {
                    Phase::SyncPause
                } else if matches!(self.pending, Some(PendingCheckpoint { stage: PendingStage::Aligning, .. })) {
                    Phase::Aligning
                } else {
                    Phase::Running
                }
            }
        }
    }

    fn can_take_fast_path(&self) -> bool {
        self.is_running()
            && self.caught_up
            && self.now_ms >= self.pause_until_ms
            && self.config.backpressure_ms == 0
            && self.config.capacity_per_s >= self.config.rate_per_s
            && !matches!(self.pending, Some(PendingCheckpoint { stage: PendingStage::Aligning, .. }))
    }

    /// The next instant something is due: a sample, an emit boundary, a trigger, a completion, a crash.
    fn next_due_ms(&self) -> u64 {
        let start = self.config.start_time_ms;
        let next_second = start + ((self.now_ms - start) / 1000 + 1) * 1000;
        let mut next = next_second.min(self.state.windows.next_boundary_ms.max(self.now_ms + 1));
        match &self.pending {
            Some(PendingCheckpoint { stage: PendingStage::Uploading { completes_at_ms, .. }, .. }) => {
                next = next.min(*completes_at_ms)
            }
            _ => next = next.min(self.next_trigger_ms),
        }
        if let Some(&crash) = self.crashes.front() {
            next = next.min(crash);
        }
        next.max(self.now_ms + 1)
    }

    /// Caught up and nothing pending: process the whole log up to `until_ms` in log order.
    fn fast_path(&mut self, until_ms: u64) {
        let from = self.log_end(self.now_ms);
        let to = self.log_end(until_ms);
        self.process_in_log_order(from, to);
        self.now_ms = until_ms;
        self.emit(to);
    }

    /// One millisecond of reading and processing, partition by partition.
    fn step_one_ms(&mut self) {
        let now = self.now_ms;
        let end_of_step = now + 1;
        if !self.is_running() {
            self.now_ms = end_of_step;
            return;
        }
        if now < self.pause_until_ms {
            self.paused_ms += 1;
            self.now_ms = end_of_step;
            self.caught_up = false;
            return;
        }
        let partitions = self.log.partitions();
        let unit = 1000 * partitions;
        let log_total = self.log_end(end_of_step);
        let aligning = match &self.pending {
            Some(PendingCheckpoint { stage: PendingStage::Aligning, barrier_offsets, .. }) => {
                Some(barrier_offsets.clone())
            }
            _ => None,
        };
        if aligning.is_some() {
            self.aligning_ms += 1;
        }
        let slow = self.config.backpressure_ms > 0;
        if !slow && aligning.is_none() && self.reads_in_log_order() {
            self.step_in_log_order(log_total);
            return;
        }
        let mut lag = 0;
        for p in 0..partitions as usize {
            let limit = self.log.partition_end(log_total, p as u64);
            // An aligned operator holds an input whose barrier has arrived.
            let held = aligning.as_ref().is_some_and(|b| self.processed_offsets[p] >= b[p]);
            if !held {
                let available = limit - self.read_offsets[p];
                self.credit[p] += self.config.capacity_per_s;
                let n = available.min(self.credit[p] / unit);
                self.credit[p] -= n * unit;
                if n == available {
                    self.credit[p] = self.credit[p].min(unit);
                }
                let (from, to) = (self.read_offsets[p], self.read_offsets[p] + n);
                self.read_offsets[p] = to;
                if slow && p == 0 {
                    if n > 0 {
                        self.slow_channel.push_back((end_of_step + self.config.backpressure_ms, to));
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
            let stop = aligning.as_ref().map_or(upto, |b| upto.min(b[0].max(self.processed_offsets[0])));
            let from = self.processed_offsets[0];
            if stop > from {
                self.process_partition(0, from, stop);
            }
            if stop < upto {
                break;
            }
            self.slow_channel.pop_front();
        }
        self.now_ms = end_of_step;
        let watermark = (0..partitions as usize)
            .map(|p| self.log.log_number(p as u64, self.processed_offsets[p]))
            .min()
            .expect("at least one partition");
        self.emit(watermark);
        if let Some(barriers) = aligning {
            if self.processed_offsets.iter().zip(&barriers).all(|(done, b)| done >= b) {
                self.take_snapshot();
            }
        }
        self.caught_up = lag == 0;
        self.track_recovery();
    }

    /// Whether the readers stand at a prefix of the log in log order (every partition at the
    /// offset the log held when it held `position()` events): true unless inputs were held.
    fn reads_in_log_order(&self) -> bool {
        let total = self.position();
        (0..self.read_offsets.len()).all(|p| self.read_offsets[p] == self.log.partition_end(total, p as u64))
    }

    /// One millisecond of reading in log order at capacity: the readers share the capacity and
    /// take the oldest events first, so they stay a prefix of the log.
    fn step_in_log_order(&mut self, log_total: u64) {
        let from = self.position();
        let available = log_total - from;
        let credit = &mut self.log_order_credit;
        *credit += self.config.capacity_per_s;
        let n = available.min(*credit / 1000);
        *credit -= n * 1000;
        if n == available {
            *credit = (*credit).min(1000);
        }
        if n > 0 {
            self.process_in_log_order(from, from + n);
        }
        self.now_ms += 1;
        self.emit(from + n);
        self.caught_up = n == available;
        self.track_recovery();
    }

    /// Processes log numbers `[from, to)` in log order: the readers move together as a prefix.
    fn process_in_log_order(&mut self, from: u64, to: u64) {
        self.state.process(from, to, 1, &self.log, &self.shape);
        self.events_since_snapshot += to - from;
        self.processed_events += to - from;
        for p in 0..self.read_offsets.len() {
            let end = self.log.partition_end(to, p as u64);
            self.read_offsets[p] = end;
            self.processed_offsets[p] = end;
        }
    }

    fn process_partition(&mut self, p: usize, from: u64, to: u64) {
        let first = self.log.log_number(p as u64, from);
        let end = self.log.log_number(p as u64, to);
        self.state.process(first, end, self.log.partitions(), &self.log, &self.shape);
        self.processed_offsets[p] = to;
        self.events_since_snapshot += to - from;
        self.processed_events += to - from;
    }

    /// Emits every emit boundary the watermark (and the clock) has passed, into all sinks.
    fn emit(&mut self, watermark_log_number: u64) {
        let (now, attempt, epoch) = (self.now_ms, self.attempt, self.epoch);
        let mut rows = Vec::new();
        let log = &self.log;
        let watermark = watermark_log_number;
        self.state.emit_ready(watermark, now, log, &self.shape, |e: Emission| {
            rows.push(Row {
                product_id: e.product_id,
                window_start_ms: e.window_start_ms,
                order_count: e.order_count,
                emitted_at_ms: now,
                boundary_ms: e.boundary_ms,
                attempt,
                epoch,
            })
        });
        let passed = self.state.windows.next_boundary_ms - self.config.emit_every_ms;
        self.newest_emitted_boundary_ms = self.newest_emitted_boundary_ms.max(passed.min(now));
        for row in rows {
            self.sinks.write(row);
        }
    }

    fn track_recovery(&mut self) {
        let position = self.position();
        let (now, caught_up) = (self.now_ms, self.caught_up);
        let Some(r) = self.recoveries.last_mut() else { return };
        if r.restored_at_ms.is_none() || r.caught_up_at_ms.is_some() {
            return;
        }
        let mut marks = Vec::new();
        if r.replay_done_at_ms.is_none() && position >= r.crash_offset {
            r.replay_done_at_ms = Some(now);
            marks.push((TimelineKind::ReplayDone, Some(position)));
        }
        if caught_up {
            r.caught_up_at_ms = Some(now);
            marks.push((TimelineKind::CaughtUp, Some(position)));
        }
        for (kind, offset) in marks {
            self.mark(now, kind, None, offset);
        }
    }

    fn trigger_checkpoint(&mut self) {
        let now = self.now_ms;
        let id = self.next_checkpoint_id;
        self.next_checkpoint_id += 1;
        self.next_trigger_ms = now + self.config.interval_ms;
        let barrier_offsets = self.read_offsets.clone();
        self.mark(now, TimelineKind::Barrier, Some(id), Some(barrier_offsets.iter().sum()));
        self.pending =
            Some(PendingCheckpoint { id, barrier_at_ms: now, barrier_offsets, stage: PendingStage::Aligning });
        let all_arrived = self.processed_offsets.iter().zip(&self.read_offsets).all(|(done, read)| done >= read);
        if self.config.alignment == Alignment::Unaligned || all_arrived {
            self.take_snapshot();
        } else {
            self.caught_up = false;
        }
    }

    /// The operator snapshots its state: the sync pause starts, then the upload.
    fn take_snapshot(&mut self) {
        let now = self.now_ms;
        let Some(pending) = self.pending.as_mut() else { return };
        let in_flight: Vec<(u64, u64, u64)> = (0..self.processed_offsets.len())
            .filter(|&p| self.processed_offsets[p] < pending.barrier_offsets[p])
            .map(|p| (p as u64, self.processed_offsets[p], pending.barrier_offsets[p]))
            .collect();
        let in_flight_events: u64 = in_flight.iter().map(|(_, from, to)| to - from).sum();
        let in_flight_bytes = in_flight_events * self.config.record_bytes;
        let size_bytes = upload_bytes(&self.config, self.events_since_snapshot) + in_flight_bytes;
        self.events_since_snapshot = 0;
        let upload_from_ms = now + self.config.sync_pause_ms;
        let completes_at_ms = upload_from_ms + transfer_ms(size_bytes, self.config.store_write_bytes_per_s);
        let snapshot = Snapshot { state: self.state.clone(), offsets: pending.barrier_offsets.clone(), in_flight };
        let id = pending.id;
        let aligned_late = now > pending.barrier_at_ms;
        pending.stage = PendingStage::Uploading {
            snapshot: Box::new(snapshot),
            snapshot_at_ms: now,
            upload_from_ms,
            completes_at_ms,
            size_bytes,
            in_flight_bytes,
        };
        self.pause_until_ms = upload_from_ms;
        if self.config.sync_pause_ms > 0 {
            self.caught_up = false;
        }
        // The sink pre-commits the epoch's transaction at the barrier; later rows open the next one.
        self.sinks.transactional.pre_commit(id);
        self.epoch = id + 1;
        if aligned_late {
            self.mark(now, TimelineKind::Aligned, Some(id), None);
        }
        self.mark(now, TimelineKind::Snapshot, Some(id), None);
    }

    fn complete_checkpoint(&mut self) {
        let now = self.now_ms;
        let Some(pending) = self.pending.take() else { return };
        let PendingStage::Uploading { snapshot, snapshot_at_ms, upload_from_ms, size_bytes, in_flight_bytes, .. } =
            pending.stage
        else {
            unreachable!("only an uploading checkpoint completes")
        };
        let completed = CompletedCheckpoint {
            id: pending.id,
            barrier_at_ms: pending.barrier_at_ms,
            completed_at_ms: now,
            offset: pending.barrier_offsets.iter().sum(),
            offsets: pending.barrier_offsets,
            size_bytes,
            in_flight_bytes,
            duration_ms: now - pending.barrier_at_ms,
            alignment_ms: snapshot_at_ms - pending.barrier_at_ms,
            sync_ms: upload_from_ms - snapshot_at_ms,
            processing_ms: 0,
            upload_ms: now - upload_from_ms,
            attempt: self.attempt,
            position_at_completion: self.position(),
        };
        let before = self.sinks.transactional.committed_rows().len();
        self.sinks.transactional.commit(completed.id, now);
        if let Some(newest) = self.sinks.transactional.committed_rows()[before..].iter().map(|r| r.boundary_ms).max() {
            self.newest_committed_boundary_ms = self.newest_committed_boundary_ms.max(newest);
        }
        self.mark(now, TimelineKind::CheckpointCompleted, Some(completed.id), Some(completed.offset));
        self.checkpoints.push(completed.clone());
        self.restore_point = (completed, *snapshot);
    }

    /// Crash now: in-memory state, the checkpoint in flight and open transactions are lost.
    pub fn crash(&mut self) {
        let now = self.now_ms;
        let discarded = self.pending.take().map(|p| p.id).or_else(|| self.drop_batch_in_flight());
        if let Some(id) = discarded {
            self.mark(now, TimelineKind::CheckpointDiscarded, Some(id), None);
        }
        if let Some(previous) = self.recoveries.last_mut() {
            if previous.caught_up_at_ms.is_none() {
                previous.interrupted = true;
            }
        }
        self.sinks.transactional.abort();
        self.slow_channel.clear();
        self.pause_until_ms = now;
        self.caught_up = false;
        let crash_offset = self.position();
        self.mark(now, TimelineKind::Crash, None, Some(crash_offset));
        let restored = self.restore_point.0.clone();
        let restore_bytes = self.config.state_bytes + restored.in_flight_bytes;
        let detected_at_ms = now + self.config.detection_ms;
        let restore_started_at_ms = detected_at_ms + self.config.restart_delay_ms;
        let restored_at_ms = restore_started_at_ms + transfer_ms(restore_bytes, self.config.store_read_bytes_per_s);
        self.mark(detected_at_ms, TimelineKind::Detected, None, None);
        if self.config.restart_delay_ms > 0 {
            self.mark(restore_started_at_ms, TimelineKind::RestoreStarted, Some(restored.id), None);
        }
        self.recoveries.push(Recovery {
            crashed_at_ms: now,
            crashed_attempt: self.attempt,
            crash_offset,
            crash_offsets: self.read_offsets.clone(),
            discarded_checkpoint: discarded,
            restored,
            detected_at_ms,
            restore_started_at_ms,
            restore_done_at_ms: restored_at_ms,
            restored_at_ms: None,
            backlog_at_restore_events: None,
            replay_done_at_ms: None,
            caught_up_at_ms: None,
            lost_events: 0,
            interrupted: false,
        });
        self.phase = JobPhase::Down { detected_at_ms, restore_started_at_ms, restored_at_ms };
    }

    /// The restore finished: load the last completed checkpoint and rewind the readers to it.
    fn restore(&mut self) {
        let now = self.now_ms;
        let (checkpoint, snapshot) = &self.restore_point;
        self.state = snapshot.state.clone();
        self.read_offsets = snapshot.offsets.clone();
        self.processed_offsets = snapshot.offsets.clone();
        // Unaligned: the in-flight records stored in the checkpoint are processed first.
        for &(p, from, to) in &snapshot.in_flight {
            let first = self.log.log_number(p, from);
            let end = self.log.log_number(p, to);
            self.state.process(first, end, self.log.partitions(), &self.log, &self.shape);
        }
        let restored_id = checkpoint.id;
        self.credit.iter_mut().for_each(|c| *c = 0);
        self.log_order_credit = 0;
        let mut lost = 0;
        if let Some(retention) = self.config.retention_ms {
            let oldest_kept = self.log.log_end_at(now.saturating_sub(retention));
            for p in 0..self.read_offsets.len() {
                let first_kept = self.log.partition_end(oldest_kept, p as u64);
                if self.read_offsets[p] < first_kept {
                    lost += first_kept - self.read_offsets[p];
                    self.read_offsets[p] = first_kept;
                    self.processed_offsets[p] = first_kept;
                }
            }
        }
        self.phase = JobPhase::Running;
        self.attempt += 1;
        self.epoch = self.next_checkpoint_id;
        self.next_trigger_ms = match self.config.mode {
            Mode::Barrier => now + self.config.interval_ms,
            // The restarted query runs its first batch at once.
            Mode::MicroBatch => now,
        };
        self.events_since_snapshot = 0;
        self.caught_up = false;
        let position = self.position();
        let backlog = self.log_end(now) - position;
        if let Some(r) = self.recoveries.last_mut() {
            r.restored_at_ms = Some(now);
            r.backlog_at_restore_events = Some(backlog);
            r.lost_events = lost;
        }
        self.mark(now, TimelineKind::Restored, Some(restored_id), Some(position));
        if lost > 0 {
            self.mark(now, TimelineKind::RetentionExceeded, None, Some(lost));
        }
    }
}
