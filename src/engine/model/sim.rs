//! The simulation: one job attempt after another on a virtual millisecond clock, running one
//! restart protocol (barrier checkpoints or micro-batches). Each step handles what is due at this
//! instant in a fixed order (crash, recovery, the protocol's work, the per-second sample), then
//! processes input up to the next instant that matters. Whatever the protocol makes restorable
//! goes through one commit path, and everything that happens is recorded in the trace.

pub use super::trace::Phase;
use std::collections::VecDeque;
use std::sync::Arc;

use super::checkpoint::{transfer_ms, Snapshot};
use super::job::Job;
use super::operators::JobState;
use super::protocol::{Ctx, Due, OffsetLogEntry, Protocol, RestorePoint};
use super::restart::{detection_delay_ms, Decision, Restarts};
use super::sinks::Sinks;
use super::source::SourceLog;
use super::source::{mix64, sub_seed};
use super::trace::{Event, FailedBecause, Offsets, Trace, WorldSample};
use crate::engine::fast::data_plane::{DataPlane, DataPlaneKey};
use crate::engine::settings::config::{
    Config, ConfigError, FailOnDataLoss, SINK_COMMIT_DELAY_MS, TASK_FAILURE_DETECTION_MS,
};

/// One crash and the recovery that followed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovery {
    pub crashed_at_ms: u64,
    /// The job attempt the crash ended (its rows after the restored checkpoint are orphans).
    pub crashed_attempt: u32,
    /// The readers' total position when the job crashed.
    pub crash_offset: u64,
    pub crash_offsets: Vec<u64>,
    /// The checkpoint (or batch) in flight at the crash, discarded.
    pub discarded_checkpoint: Option<u64>,
    pub restored: RestorePoint,
    pub detected_at_ms: u64,
    pub restore_started_at_ms: u64,
    /// Which failure since the backoff was last reset this is (1 for the first), and the wait
    /// the restart strategy chose for it.
    pub failure_number: u32,
    pub backoff_ms: u64,
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
    /// What failed: a scheduled crash, or the sink's producer fenced at its transaction timeout.
    pub cause: FailureCause,
    /// When the job became FAILED instead of restarting (the restart strategy gave up, or the
    /// query failed on data loss); the restore fields then say when it would have happened.
    pub failed_at_ms: Option<u64>,
    /// The readers' total position once restored: the restore point's offset, or past it when
    /// the log no longer held those offsets and the source reset to the oldest one kept.
    pub resumed_offset: Option<u64>,
    /// Offsets committed on a timer: the consumer's last commit before the crash, (when, its
    /// offsets' total), which the restore resumes reading from.
    pub committed: Option<(u64, u64)>,
    /// Offsets committed on a timer: events between the restored state's offsets and the
    /// committed ones further on, which the restarted job never counts.
    pub skipped_events: u64,
    /// Offsets committed on a timer: events between the committed offsets and the restored
    /// state's further on, which the state holds and the replay counts again.
    pub counted_twice_events: u64,
}

/// The consumer group's offsets where the consumer commits them on a timer, apart from the
/// checkpointed state (Kafka's `enable.auto.commit`): the consumer commits its position every
/// `offset_commit_interval_ms` while the job runs, the first time one interval after an attempt
/// starts reading, and a restore resumes reading from the last commit.
#[derive(Clone, Debug, PartialEq)]
pub struct CommittedOffsets {
    /// When the consumer last committed (the scenario start: the group then stands at the start
    /// checkpoint's offsets).
    pub at_ms: u64,
    /// The offsets it committed, per partition.
    pub offsets: Vec<u64>,
    /// When the timer commits next while the job runs.
    next_at_ms: u64,
}

/// What ended an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureCause {
    /// A crash of the failure schedule (`crash_at_ms`, `more_crashes_ms`, `mtbf_ms`).
    Scheduled,
    /// The broker aborted the sink's open transaction at its timeout and fenced the producer; its
    /// next write threw.
    Fenced,
}

/// How a simulation computes its run. Both give the same run; the tests hold the second to the
/// first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Execution {
    /// The reference: every event hashed and counted, and while the readers are behind or paused,
    /// one millisecond after another; every row written to the upsert table as it comes.
    PerEvent,
    /// Counts from the data plane when one is attached, and the milliseconds between the
    /// instants that matter taken in one go; the upsert table derived from the append-only rows
    /// when read.
    Fast,
}

#[derive(Clone, Debug)]
enum JobPhase {
    Running,
    /// Crashed: detection, the restart delay and the restore follow at fixed instants.
    Down {
        detected_at_ms: u64,
        restore_started_at_ms: u64,
        restored_at_ms: u64,
        detected: bool,
        restarted: bool,
        /// The restart strategy gave up: at detection the job becomes FAILED.
        gives_up: bool,
    },
    /// Stopped for good.
    Failed,
}

/// The crash times of `config`'s failure schedule, in order: `crash_at_ms`, `more_crashes_ms`
/// and, with a mean time between failures, crashes drawn from the seed at exponentially
/// distributed gaps from the scenario start, all inside the horizon.
pub fn crash_schedule(config: &Config) -> Vec<u64> {
    let mut crashes: Vec<u64> = config.crash_at_ms.iter().chain(&config.more_crashes_ms).copied().collect();
    if let Some(mtbf_ms) = config.mtbf_ms {
        let seed = sub_seed(config.seed, "failures");
        let mut at_ms = config.start_time_ms as f64;
        for n in 0u64..1_000 {
            // A uniform draw in (0, 1], then an exponential gap of mean `mtbf_ms`.
            let unit = ((mix64(seed ^ n) >> 11) + 1) as f64 / (1u64 << 53) as f64;
            at_ms += (-unit.ln() * mtbf_ms as f64).max(1.0);
            let t = at_ms.round() as u64;
            if t >= config.end_ms() {
                break;
            }
            crashes.push(t);
        }
    }
    crashes.sort_unstable();
    crashes.dedup();
    crashes
}

/// The end of the time a run's sink tables get room for: the horizon and, when a crash is
/// scheduled, the rows its replay writes again: those since the restored checkpoint, counted as
/// at most four intervals (and no more than since the start). A replay from further back grows
/// the tables once.
pub(crate) fn rows_until_ms(config: &Config) -> u64 {
    let replayed_ms = config
        .crash_at_ms
        .map_or(0, |crash_ms| crash_ms.saturating_sub(config.start_time_ms).min(config.interval_ms.saturating_mul(4)));
    config.end_ms().saturating_add(replayed_ms)
}

/// The next instant that matters after `now_ms`: the next whole-second sample, the next crash, or
/// `phase_ms` (the next recovery phase, or the protocol's or the sink's next work), whichever
/// comes first, and at least the next millisecond.
fn next_instant(now_ms: u64, config: &Config, crashes: &VecDeque<u64>, phase_ms: u64) -> u64 {
    let start = config.start_time_ms;
    let mut next = start + ((now_ms - start) / 1000 + 1) * 1000;
    if let Some(&crash) = crashes.front() {
        next = next.min(crash);
    }
    next.min(phase_ms).max(now_ms + 1)
}

/// A running simulation.
#[derive(Clone, Debug)]
pub struct Sim {
    pub config: Config,
    pub(crate) now_ms: u64,
    phase: JobPhase,
    pub(crate) job: Job,
    protocol: Protocol,
    /// What a restart loads: the snapshot of the newest restore point.
    pub(crate) snapshot: Box<Snapshot>,
    pub(crate) crashes: VecDeque<u64>,
    /// Every completed checkpoint or committed batch, oldest first; the last is what a restart restores.
    pub restore_points: Vec<RestorePoint>,
    pub recoveries: Vec<Recovery>,
    /// The restart strategy's memory of earlier failures.
    restarts: Restarts,
    /// A failure-free companion: the broker never fences its producer.
    failures_off: bool,
    /// Barrier mode: the completed checkpoint whose sink transaction commits next, and when.
    sink_commit: Option<(u64, u64)>,
    /// Offsets committed on a timer: the group's offsets (see [`Config::commits_offsets_on_timer`]).
    pub committed_offsets: Option<CommittedOffsets>,
    pub trace: Trace,
    execution: Execution,
    /// Whether keyframes of this run may be taken once no crash is ahead (see
    /// [`Sim::set_keyframes_to_come`]).
    keyframes_to_come: bool,
}

impl Sim {
    /// A simulation at the scenario start, checkpoint (or batch) `start_checkpoint_id` complete.
    pub fn new(config: &Config) -> Result<Sim, ConfigError> {
        config.validate()?;
        let log = SourceLog::new(config);
        let offsets = log.partition_offsets(config.start_offset);
        let initial = Protocol::initial_restore_point(config, offsets.clone());
        let mut job = Job::new(config, log, offsets.clone());
        job.reserve_rows(config.start_time_ms, rows_until_ms(config));
        let committed_offsets = config.commits_offsets_on_timer().then(|| CommittedOffsets {
            at_ms: config.start_time_ms,
            offsets: offsets.clone(),
            next_at_ms: config.start_time_ms + config.offset_commit_interval_ms,
        });
        let snapshot = Box::new(job.snapshot(offsets, Vec::new()));
        Ok(Sim {
            now_ms: config.start_time_ms,
            phase: JobPhase::Running,
            job,
            protocol: Protocol::new(config, &initial),
            snapshot,
            crashes: crash_schedule(config).into(),
            restore_points: vec![initial],
            recoveries: Vec::new(),
            restarts: Restarts::default(),
            failures_off: false,
            sink_commit: None,
            committed_offsets,
            trace: Trace::default(),
            config: config.clone(),
            execution: Execution::Fast,
            keyframes_to_come: true,
        })
    }

    /// A simulation computed the reference way (see [`Execution::PerEvent`]).
    pub fn per_event(config: &Config) -> Result<Sim, ConfigError> {
        let mut sim = Sim { execution: Execution::PerEvent, ..Sim::new(config)? };
        sim.job.sinks.write_upsert_per_row();
        Ok(sim)
    }

    /// A simulation at the scenario start, computed `execution`'s way.
    pub fn of(config: &Config, execution: Execution) -> Result<Sim, ConfigError> {
        match execution {
            Execution::Fast => Sim::new(config),
            Execution::PerEvent => Sim::per_event(config),
        }
    }

    pub fn execution(&self) -> Execution {
        self.execution
    }

    /// Counts from `plane` from now on (a fast simulation of the same source and window
    /// settings only; otherwise the plane is not used).
    pub fn attach_data_plane(&mut self, plane: Arc<DataPlane>) {
        if self.execution == Execution::Fast && DataPlaneKey::of(&self.config).as_ref() == Some(&plane.key) {
            self.job.data_plane = Some(plane);
        }
    }

    /// The data plane this simulation counts from, if any.
    pub fn data_plane(&self) -> Option<&Arc<DataPlane>> {
        self.job.data_plane.as_ref()
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    pub fn log(&self) -> &SourceLog {
        self.job.log()
    }

    pub fn state(&self) -> &JobState {
        &self.job.state
    }

    pub fn sinks(&self) -> &Sinks {
        &self.job.sinks
    }

    /// Micro-batch mode: every offset-log entry, in order (empty in barrier mode).
    pub fn offset_log(&self) -> &[OffsetLogEntry] {
        self.protocol.offset_log()
    }

    /// Time processing was paused by the protocol (sync pauses; offset-log and state store writes).
    pub fn paused_ms(&self) -> u64 {
        self.job.paused_ms
    }

    /// Time inputs were held for barrier alignment.
    pub fn aligning_ms(&self) -> u64 {
        self.job.aligning_ms
    }

    /// Events the operators processed, replays included: the simulation's work.
    pub fn processed_events(&self) -> u64 {
        self.job.processed_events
    }

    /// The readers' total position (sum of partition offsets consumed).
    pub fn position(&self) -> u64 {
        self.job.position()
    }

    pub fn is_running(&self) -> bool {
        matches!(self.phase, JobPhase::Running)
    }

    /// True once every recovery has either caught up or been cut short by a later crash.
    pub fn all_recovered(&self) -> bool {
        self.recoveries.iter().all(|r| r.interrupted || r.caught_up_at_ms.is_some())
    }

    /// When the job became FAILED, if it did.
    pub fn failed_at_ms(&self) -> Option<u64> {
        self.recoveries.iter().find_map(|r| r.failed_at_ms.filter(|&t| t <= self.now_ms))
    }

    /// A failure-free run: no crash, and no fencing either (a companion simulated from the start).
    pub fn cancel_failures(&mut self) {
        self.failures_off = true;
        self.cancel_crashes();
    }

    /// Forgets the crashes still scheduled (for a failure-free companion run, forked from the
    /// run: its sink tables get room for the rest of the horizon again).
    pub fn cancel_crashes(&mut self) {
        self.crashes.clear();
        self.note_snapshot_needs();
        self.job.reserve_rows(self.now_ms, self.config.end_ms());
    }

    /// Whether keyframes of this run may be taken once no crash is ahead (true unless told
    /// otherwise): a run computed the fast way with no crash ahead and no keyframe to come keeps
    /// no state in its snapshots, since nothing restores them.
    pub fn set_keyframes_to_come(&mut self, to_come: bool) {
        self.keyframes_to_come = to_come;
        self.note_snapshot_needs();
    }

    /// Snapshots keep the state where a crash may restore them: in the reference always, else
    /// while a crash is ahead or a keyframe (which a later run resumes and crashes) may be taken.
    pub(crate) fn note_snapshot_needs(&mut self) {
        self.job.snapshots_keep_state =
            self.execution == Execution::PerEvent || !self.crashes.is_empty() || self.keyframes_to_come;
    }

    /// Changes the checkpoint interval from now on: the next trigger comes one new interval from now.
    pub fn set_interval(&mut self, interval_ms: u64) -> Result<(), ConfigError> {
        let config = Config { interval_ms, ..self.config.clone() };
        config.validate()?;
        self.config = config;
        self.protocol.reschedule(self.now_ms + interval_ms);
        Ok(())
    }

    /// Runs until the clock reads `until_ms`.
    pub fn run_until(&mut self, until_ms: u64) {
        while self.now_ms < until_ms {
            self.step(until_ms);
        }
    }

    /// Runs until the clock reads `t_ms` and handles what is due then, so the simulation stands
    /// exactly where a sample taken at `t_ms` would see it: the reference the world at an
    /// instant ([`crate::engine::fast::world_index`]) is tested against.
    pub fn run_through(&mut self, t_ms: u64) {
        self.run_until(t_ms);
        self.handle_due();
    }

    /// The readers' offset per partition now.
    pub fn read_offsets(&self) -> &[u64] {
        &self.job.read_offsets
    }

    /// The checkpoint (or batch) in flight now, if any.
    pub fn in_flight(&self) -> Option<u64> {
        if !self.is_running() {
            return None;
        }
        self.protocol.in_flight()
    }

    /// Runs to the end of the horizon, handling what is due at the final instant too.
    pub fn run_to_end(&mut self) {
        let end = self.config.end_ms();
        self.run_until(end);
        self.handle_due();
        self.job.count_deferred();
    }

    /// Closes the input now (no further events arrive, no further checkpoints are triggered) and
    /// runs until everything read has been processed and committed as far as the protocol goes.
    /// Two runs drained at the same instant have processed exactly the same events, so their
    /// state and sinks can be compared whatever their checkpoint schedules were.
    pub fn close_input_and_drain(&mut self) {
        let closed_at_ms = self.now_ms;
        self.job.input_closed_at_ms = Some(closed_at_ms);
        self.protocol.close_input();
        let limit = self.now_ms + 24 * 3_600_000;
        while self.now_ms < limit {
            self.handle_due();
            if self.is_running() && self.protocol.drained(&self.job, self.now_ms, closed_at_ms, self.committed_id()) {
                break;
            }
            self.process_input(limit);
        }
        // Drained inside a period: its state reads whole.
        self.job.count_deferred();
    }

    /// One step: what is due now, then input up to the next instant that matters.
    fn step(&mut self, until_ms: u64) {
        self.handle_due();
        self.process_input(until_ms);
    }

    /// Handles everything due at the current instant, in a fixed order.
    fn handle_due(&mut self) {
        let now = self.now_ms;
        // 1. Crash: everything in memory is lost. The broker fencing the sink's producer at its
        //    transaction timeout fails the job the same way.
        while self.crashes.front().is_some_and(|&t| t <= now) {
            self.crashes.pop_front();
            if !self.gave_up() {
                self.crash(FailureCause::Scheduled);
            }
            self.note_snapshot_needs();
        }
        if self.fence_ms() <= now {
            let began_at_ms = self.job.sinks.transactional.open_since_ms().unwrap_or(now);
            self.trace.push(now, Event::ProducerFenced { began_at_ms });
            self.crash(FailureCause::Fenced);
        }
        // 2. Recovery: detection, the restart delay, the restore.
        if matches!(self.phase, JobPhase::Down { .. }) {
            self.recover();
        }
        // 3. The protocol's due work: stages that end now, a trigger; what becomes restorable
        //    commits. Then the sink commits the transaction of a checkpoint that completed.
        if self.is_running() {
            self.protocol_due();
            if self.sink_commit.is_some_and(|(_, at_ms)| at_ms <= now) {
                let (checkpoint_id, _) = self.sink_commit.take().expect("checked above");
                self.commit_sink_transaction(checkpoint_id);
            }
            // The consumer commits the offsets it has read up to, whatever the operator holds.
            let interval_ms = self.config.offset_commit_interval_ms;
            if let Some(c) = self.committed_offsets.as_mut().filter(|c| c.next_at_ms <= now) {
                c.at_ms = now;
                c.offsets.clone_from(&self.job.read_offsets);
                c.next_at_ms = now + interval_ms;
            }
        }
        // 4. The sample of the world, once per simulated second.
        if (now - self.config.start_time_ms) % 1000 == 0 && self.trace.samples.last().is_none_or(|s| s.at_ms < now) {
            self.sample();
        }
    }

    /// 5. Processes input up to the next due instant (at most `until_ms`) and moves the clock there.
    fn process_input(&mut self, until_ms: u64) {
        let now = self.now_ms;
        let fast = self.execution == Execution::Fast;
        let sink_commit_ms = self.sink_commit_ms();
        // The next instant that matters while the job runs, when the protocol next has work at
        // `protocol_ms` (the fields it reads are not the protocol's, which the arms hold).
        let (config, crashes) = (&self.config, &self.crashes);
        let next_running = |protocol_ms: u64| next_instant(now, config, crashes, protocol_ms.min(sink_commit_ms));
        match (&self.phase, &mut self.protocol) {
            // Nothing is processed while the job is down: jump to the next instant that matters.
            (JobPhase::Down { .. } | JobPhase::Failed, _) => self.now_ms = self.next_due_ms().min(until_ms),
            (JobPhase::Running, Protocol::Barrier(barrier)) if fast && barrier.paused(now) => {
                // The sync pause holds processing until it ends, an instant that matters.
                let next = next_running(barrier.next_stage_ms()).min(until_ms);
                self.job.paused_ms += next - now;
                self.job.caught_up = false;
                self.now_ms = next;
            }
            (JobPhase::Running, Protocol::Barrier(barrier))
                if fast
                    && !barrier.can_take_fast_path(now, &self.config, &self.job)
                    && barrier.can_catch_up_in_one_go(now, &self.config, &self.job) =>
            {
                let next = next_running(barrier.next_stage_ms()).min(until_ms);
                let replay_to = self
                    .recoveries
                    .last()
                    .filter(|r| r.restored_at_ms.is_some() && r.replay_done_at_ms.is_none())
                    .map(|r| r.crash_offset);
                let reached = barrier.catch_up(now, next, replay_to, &self.config, &mut self.job, &mut self.trace);
                self.now_ms = reached;
                let position = self.job.position();
                self.track_recovery(|_| (reached, position));
            }
            (JobPhase::Running, Protocol::Barrier(barrier)) => {
                if barrier.can_take_fast_path(now, &self.config, &self.job) {
                    // Caught up and nothing pending: the input up to the next due instant in one
                    // pass, which gives the same result as millisecond steps.
                    let next = next_running(barrier.next_due_ms(now, &self.job)).min(until_ms);
                    barrier.fast_path(now, next, &mut self.job, &mut self.trace);
                    self.now_ms = next;
                } else {
                    let read = barrier.step_one_ms(now, &self.config, &mut self.job, &mut self.trace);
                    self.now_ms = now + 1;
                    if read {
                        let (at_ms, position) = (self.now_ms, self.job.position());
                        self.track_recovery(|_| (at_ms, position));
                    }
                }
            }
            (JobPhase::Running, Protocol::MicroBatch(micro_batch)) => {
                let next = next_running(micro_batch.next_due_ms(&self.config)).min(until_ms);
                if let Some((from_ms, from_position)) = micro_batch.process_until(next, &self.config, &mut self.job) {
                    // The replay ends the millisecond the readers are back at the crash offset.
                    let capacity = u128::from(self.config.capacity_per_s);
                    self.track_recovery(|crash_offset| {
                        let events = u128::from(crash_offset.saturating_sub(from_position));
                        (from_ms + (events * 1000).div_ceil(capacity) as u64, crash_offset)
                    });
                }
                self.now_ms = next;
            }
        }
    }

    /// The next instant something is due: a sample, a crash, a recovery phase, the protocol's work.
    fn next_due_ms(&self) -> u64 {
        self.next_instant_ms(true)
    }

    /// Like [`Sim::next_due_ms`]; without `emit_boundaries`, a barrier job's emit boundaries are
    /// left out (while the readers are behind, a boundary passes when the readers get there).
    fn next_instant_ms(&self, emit_boundaries: bool) -> u64 {
        let now = self.now_ms;
        let phase_ms = match self.phase {
            JobPhase::Down { detected_at_ms, restore_started_at_ms, restored_at_ms, detected, restarted, .. } => {
                let pending = |at_ms: u64, done: bool| if done { u64::MAX } else { at_ms };
                pending(detected_at_ms, detected).min(pending(restore_started_at_ms, restarted)).min(restored_at_ms)
            }
            JobPhase::Failed => u64::MAX,
            JobPhase::Running => {
                let sink_commit = self.sink_commit_ms();
                let protocol = self.protocol.next_work_ms(now, &self.config, &self.job, emit_boundaries);
                protocol.min(sink_commit)
            }
        };
        next_instant(now, &self.config, &self.crashes, phase_ms)
    }

    /// When the sink next commits, the broker fences its producer or the consumer commits its
    /// offsets on a timer, whichever comes first, while the job runs.
    fn sink_commit_ms(&self) -> u64 {
        let offsets_ms = self.committed_offsets.as_ref().map_or(u64::MAX, |c| c.next_at_ms);
        self.sink_commit.map_or(u64::MAX, |(_, at_ms)| at_ms).min(self.fence_ms()).min(offsets_ms)
    }

    /// Whether the job is FAILED or will be once its failure is noticed: no crash matters then.
    fn gave_up(&self) -> bool {
        matches!(self.phase, JobPhase::Failed | JobPhase::Down { gives_up: true, .. })
    }

    /// When the broker aborts the sink's open transaction at its timeout, fencing the producer
    /// (barrier mode, while the job runs), or never.
    fn fence_ms(&self) -> u64 {
        if self.failures_off || !matches!(self.phase, JobPhase::Running) || !self.config.mode.sink_has_transactions() {
            return u64::MAX;
        }
        self.job
            .sinks
            .transactional
            .open_since_ms()
            .map_or(u64::MAX, |began_at_ms| began_at_ms.saturating_add(self.config.transaction_timeout_ms))
    }

    fn committed_id(&self) -> u64 {
        self.restore_points.last().expect("the scenario starts from a restore point").id()
    }

    /// Runs the protocol's work due now, one stage at a time, committing what it completes.
    fn protocol_due(&mut self) {
        if !self.protocol.may_be_due(self.now_ms) {
            return;
        }
        loop {
            let ctx = Ctx {
                now_ms: self.now_ms,
                config: &self.config,
                job: &mut self.job,
                trace: &mut self.trace,
                committed_id: self.restore_points.last().expect("the scenario starts from a restore point").id(),
            };
            match self.protocol.on_due(ctx) {
                Due::Idle => return,
                Due::Again => {}
                Due::Commit(point, snapshot) => self.commit(point, snapshot),
            }
        }
    }

    /// The one commit path: a completed checkpoint or a committed batch becomes restorable and
    /// the trace records it. A checkpoint's transaction is committed by the sink shortly after
    /// (Flink's notifyCheckpointComplete reaching the writer); a batch's rows were written
    /// idempotently at its output, so its commit-log entry has no sink work.
    fn commit(&mut self, point: RestorePoint, snapshot: Box<Snapshot>) {
        let now = self.now_ms;
        if let RestorePoint::Checkpoint(c) = &point {
            let at_ms = self.sink_commit.map_or(now + SINK_COMMIT_DELAY_MS, |(_, at_ms)| at_ms);
            self.sink_commit = Some((c.id, at_ms));
        }
        self.trace.push(
            now,
            match &point {
                RestorePoint::Checkpoint(c) => Event::CheckpointCompleted { checkpoint_id: c.id, offset: c.offset },
                RestorePoint::Batch(b) => Event::BatchCommitted { batch_id: b.batch_id, end_offset: b.end_offset },
            },
        );
        self.restore_points.push(point);
        self.snapshot = snapshot;
        let position = self.job.position();
        self.track_recovery(|_| (now, position));
    }

    /// The sink commits the transactions of checkpoint `checkpoint_id` and older ones now; the
    /// broker has already aborted any whose timeout ran out since its pre-commit.
    fn commit_sink_transaction(&mut self, checkpoint_id: u64) {
        let now = self.now_ms;
        let lost_rows = self.job.commit_sinks(checkpoint_id, now, self.config.transaction_timeout_ms);
        if lost_rows > 0 {
            self.trace.push(now, Event::TransactionTimedOut { checkpoint_id, lost_rows });
        }
    }

    /// The one end-of-replay check: the replay is done when the readers are back at the crash
    /// offset (`reached` says when, and at which offset, given the crash offset); the recovery is
    /// over when the job is caught up.
    fn track_recovery(&mut self, reached: impl FnOnce(u64) -> (u64, u64)) {
        let (now, position, caught_up) = (self.now_ms, self.job.position(), self.job.caught_up);
        let Some(r) = self.recoveries.last_mut() else { return };
        if r.restored_at_ms.is_none() || r.caught_up_at_ms.is_some() {
            return;
        }
        if r.replay_done_at_ms.is_none() && position >= r.crash_offset {
            let (at_ms, offset) = reached(r.crash_offset);
            r.replay_done_at_ms = Some(at_ms);
            self.trace.push(at_ms, Event::ReplayDone { offset });
        }
        if caught_up {
            r.caught_up_at_ms = Some(now);
            self.trace.push(now, Event::CaughtUp { offset: position });
        }
    }

    /// Crash now: in-memory state, the checkpoint or batch in flight and open transactions are lost.
    pub fn crash(&mut self, cause: FailureCause) {
        let now = self.now_ms;
        let was_running = self.is_running();
        let discarded = if was_running { self.protocol.crash(now) } else { None };
        if let Some(id) = discarded {
            let event = match self.protocol {
                Protocol::Barrier(_) => Event::CheckpointDiscarded { checkpoint_id: id },
                Protocol::MicroBatch(_) => Event::BatchDiscarded { batch_id: id },
            };
            self.trace.push(now, event);
        }
        if let Some(previous) = self.recoveries.last_mut() {
            if previous.caught_up_at_ms.is_none() {
                previous.interrupted = true;
            }
        }
        self.sink_commit = None;
        let completed_id = self.committed_id();
        if was_running {
            self.job.crash(completed_id);
        }
        let crash_offset = self.job.position();
        let restored = self.restore_points.last().expect("the scenario starts from a restore point").clone();
        let restore_bytes = self.config.state_bytes + restored.in_flight_bytes();
        let crash_number = u32::try_from(self.recoveries.len() + 1).unwrap_or(u32::MAX);
        let detection_ms = match cause {
            // The fenced producer's write throws in the task, which reports it at once.
            FailureCause::Fenced => TASK_FAILURE_DETECTION_MS,
            FailureCause::Scheduled => detection_delay_ms(&self.config, crash_number),
        };
        let detected_at_ms = now + detection_ms;
        // A failure while the restart is still waiting (the job down, the restore not begun) is
        // folded into the restart it waits for, as Flink counts it: that restart still comes
        // when it was due, or once this failure is noticed.
        let waiting = match self.phase {
            JobPhase::Down { restore_started_at_ms, .. } => Some(restore_started_at_ms).filter(|&at| now < at),
            _ => None,
        };
        let previous_number = self.recoveries.last().map_or(0, |r| r.failure_number);
        let decision = match waiting {
            Some(due_ms) => {
                Decision::Restart { failure_number: previous_number, backoff_ms: due_ms.saturating_sub(detected_at_ms) }
            }
            None => self.restarts.on_failure(&self.config, detected_at_ms),
        };
        let (failure_number, backoff_ms, gives_up) = match decision {
            Decision::Restart { failure_number, backoff_ms } => (failure_number, backoff_ms, false),
            Decision::GiveUp { failure_number } => (failure_number, 0, true),
        };
        let restore_started_at_ms = detected_at_ms + backoff_ms;
        let restored_at_ms = restore_started_at_ms + transfer_ms(restore_bytes, self.config.store_read_bytes_per_s);
        self.trace.push(
            now,
            Event::Crash { offset: crash_offset, detected_at_ms, restore_started_at_ms, restore_from: restored.id() },
        );
        self.recoveries.push(Recovery {
            crashed_at_ms: now,
            crashed_attempt: self.job.attempt,
            crash_offset,
            crash_offsets: self.job.read_offsets.clone(),
            discarded_checkpoint: discarded,
            restored,
            detected_at_ms,
            restore_started_at_ms,
            failure_number,
            backoff_ms,
            restore_done_at_ms: restored_at_ms,
            restored_at_ms: None,
            backlog_at_restore_events: None,
            replay_done_at_ms: None,
            caught_up_at_ms: None,
            lost_events: 0,
            interrupted: false,
            cause,
            failed_at_ms: gives_up.then_some(detected_at_ms),
            resumed_offset: None,
            committed: self.committed_offsets.as_ref().map(|c| (c.at_ms, c.offsets.iter().sum())),
            skipped_events: 0,
            counted_twice_events: 0,
        });
        let (restore_started_at_ms, restored_at_ms) =
            if gives_up { (u64::MAX, u64::MAX) } else { (restore_started_at_ms, restored_at_ms) };
        self.phase = JobPhase::Down {
            detected_at_ms,
            restore_started_at_ms,
            restored_at_ms,
            detected: false,
            restarted: false,
            gives_up,
        };
    }

    /// The recovery phases that are due: detection, the end of the restart delay, the restore.
    fn recover(&mut self) {
        let now = self.now_ms;
        let JobPhase::Down { detected_at_ms, restore_started_at_ms, restored_at_ms, detected, restarted, gives_up } =
            &mut self.phase
        else {
            return;
        };
        if !*detected && now >= *detected_at_ms {
            *detected = true;
            self.trace.push(*detected_at_ms, Event::Detected);
            if *gives_up {
                let at_ms = *detected_at_ms;
                self.fail(at_ms, FailedBecause::RestartStrategy);
                return;
            }
        }
        if !*restarted && now >= *restore_started_at_ms {
            *restarted = true;
            let restore_from = self.restore_points.last().expect("the scenario starts from a restore point").id();
            self.trace.push(*restore_started_at_ms, Event::RestoreStarted { restore_from });
        }
        if now >= *restored_at_ms {
            self.restore();
        }
    }

    /// The job stops for good at `at_ms`: nothing restarts it, no crash matters any more.
    fn fail(&mut self, at_ms: u64, because: FailedBecause) {
        self.phase = JobPhase::Failed;
        self.crashes.clear();
        if let Some(r) = self.recoveries.last_mut() {
            r.failed_at_ms = Some(at_ms);
        }
        self.trace.push(at_ms, Event::JobFailed { because });
    }

    /// The restore finished: load the newest restore point and rewind the readers to it. Where
    /// the log no longer holds the restored offsets, Flink's Kafka source resets to the oldest
    /// offset kept (the reset strategy of its default starting offsets, earliest); a Spark query
    /// with failOnDataLoss fails instead, and without it skips ahead the same way.
    fn restore(&mut self) {
        let now = self.now_ms;
        if self.config.mode.runs_batches()
            && self.config.fail_on_data_loss == FailOnDataLoss::True
            && self.job.events_gone_at_restore(&self.snapshot, &self.config, now) > 0
        {
            let gone = self.job.events_gone_at_restore(&self.snapshot, &self.config, now);
            if let Some(r) = self.recoveries.last_mut() {
                r.lost_events = gone;
            }
            self.trace.push(now, Event::RetentionExceeded { lost_events: gone });
            self.fail(now, FailedBecause::DataLoss);
            return;
        }
        let committed = self.committed_offsets.as_mut().map(|c| {
            // The restarted consumer's timer starts with it.
            c.next_at_ms = now + self.config.offset_commit_interval_ms;
            c.offsets.clone()
        });
        let restart = self.job.restart_from(&self.snapshot, committed.as_deref(), &self.config, now);
        let lost_events = restart.lost_events;
        self.phase = JobPhase::Running;
        self.protocol.restore(now, &self.config);
        let restore_from = self.committed_id();
        let position = self.job.position();
        let backlog = self.job.log_end(now) - position;
        let mut replayed_nothing = false;
        if let Some(r) = self.recoveries.last_mut() {
            r.restored_at_ms = Some(now);
            r.backlog_at_restore_events = Some(backlog);
            r.lost_events = lost_events;
            r.skipped_events = restart.skipped_events;
            r.counted_twice_events = restart.counted_twice_events;
            r.resumed_offset = Some(position);
            // Reset past the crash offset: nothing is read again.
            if position >= r.crash_offset {
                r.replay_done_at_ms = Some(now);
                replayed_nothing = true;
            }
        }
        self.trace.push(now, Event::Restored { restore_from, offset: position });
        // The restored writer commits the restored checkpoint's transaction again: a crash may
        // have fallen between the checkpoint's completion and the sink's commit.
        if matches!(self.protocol, Protocol::Barrier(_)) {
            self.commit_sink_transaction(restore_from);
        }
        if lost_events > 0 {
            self.trace.push(now, Event::RetentionExceeded { lost_events });
        }
        if replayed_nothing {
            self.trace.push(now, Event::ReplayDone { offset: position });
        }
    }

    fn sample(&mut self) {
        let now = self.now_ms;
        let log_end = self.job.log_end(now);
        let position = self.job.position();
        let phase = self.phase_now();
        let state = &self.job.state;
        if self.trace.samples.len() == self.trace.samples.capacity() {
            // One sample a second to the end of the horizon: grow once, not by doubling.
            let to_end_s = self.config.end_ms().saturating_sub(now) / 1000 + 1;
            self.trace.samples.reserve(to_end_s as usize);
        }
        self.trace.samples.push(WorldSample {
            at_ms: now,
            phase,
            log_end,
            position,
            offsets: Offsets::from_slice(&self.job.read_offsets),
            lag_events: log_end.saturating_sub(position),
            seen_ids: state.windows.windows.iter().map(|w| w.seen.len()).sum(),
            sink_rows: self.job.sink_rows(),
            staleness_ms: self.job.staleness_ms(now),
        });
    }

    /// What the job is doing now.
    pub fn phase_now(&self) -> Phase {
        let now = self.now_ms;
        match self.phase {
            JobPhase::Failed => Phase::Failed,
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
                self.protocol.phase(now, &self.config)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::settings::clock::parse_clock;

    fn at(clock: &str) -> u64 {
        parse_clock(clock).expect("a clock time")
    }

    /// The trace's events of one kind, as (instant, what they carry).
    fn events(sim: &Sim, pick: impl Fn(&Event) -> Option<u64>) -> Vec<(u64, u64)> {
        sim.trace.events.iter().filter_map(|e| pick(&e.event).map(|x| (e.at_ms, x))).collect()
    }

    #[test]
    fn the_step_loop_injects_a_barrier_every_interval_and_completes_checkpoint_42_at_about_10_00_32() {
        let config = Config { crash_at_ms: None, ..Config::default() };
        let mut sim = Sim::new(&config).expect("the default scenario is valid");
        sim.run_until(at("10:02:10"));
        let barriers = events(&sim, |e| match *e {
            Event::BarrierInjected { checkpoint_id, .. } => Some(checkpoint_id),
            _ => None,
        });
        let expected: Vec<(u64, u64)> =
            (42..=45).map(|id| (at("10:00:00") + (id - 41) * config.interval_ms, id)).collect();
        assert_eq!(barriers, expected, "one barrier every 30 s, from checkpoint 42 at 10:00:30");
        let completed = events(&sim, |e| match *e {
            Event::CheckpointCompleted { checkpoint_id: 42, offset } => Some(offset),
            _ => None,
        });
        // A 100 ms pause and 2 GB uploaded at 1 GB/s: about two seconds after the barrier.
        let [(completed_at, offset)] = completed[..] else { panic!("checkpoint 42 completes once: {completed:?}") };
        assert!(completed_at.abs_diff(at("10:00:32")) <= 1_000, "completed at {completed_at}");
        assert_eq!(offset, 1_060_000, "its offsets total 30 s of input past 1,000,000");
        assert_eq!(sim.restore_points.last().map(RestorePoint::id), Some(45));
    }

    #[test]
    fn a_crash_discards_the_checkpoint_in_flight_and_restores_the_last_completed_one() {
        // At 10:00:31 checkpoint 42's barrier is injected but its upload is not done.
        let config = Config { crash_at_ms: Some(at("10:00:31")), ..Config::default() };
        let mut sim = Sim::new(&config).expect("valid");
        sim.run_until(at("10:00:31"));
        assert_eq!(sim.in_flight(), Some(42), "checkpoint 42 is in flight just before the crash");
        sim.run_until(at("10:00:35"));
        assert!(!sim.is_running(), "the job is down, the failure not yet detected");
        assert_eq!(sim.in_flight(), None);
        let recovery = sim.recoveries.first().expect("the crash happened");
        assert_eq!(recovery.discarded_checkpoint, Some(42));
        assert_eq!(recovery.restored.id(), 41, "only a completed checkpoint can be restored");
        assert!(sim.restore_points.iter().all(|p| p.id() != 42), "checkpoint 42 never completed");
        let discarded = events(&sim, |e| match *e {
            Event::CheckpointDiscarded { checkpoint_id } => Some(checkpoint_id),
            _ => None,
        });
        assert_eq!(discarded, vec![(at("10:00:31"), 42)]);
    }

    #[test]
    fn the_fast_and_per_event_step_loops_reach_the_same_state() {
        let config = Config { horizon_ms: 120_000, ..Config::default() };
        let (mut fast, mut reference) = (Sim::new(&config).unwrap(), Sim::per_event(&config).unwrap());
        fast.run_to_end();
        reference.run_to_end();
        assert_eq!(fast.trace, reference.trace);
        assert_eq!(fast.restore_points, reference.restore_points);
        assert_eq!(fast.read_offsets(), reference.read_offsets());
    }
}
