//! The two restart protocols over one job: Flink-style barrier checkpoints and Spark-style
//! micro-batches. Each says what is due next, does its work at its due instants, loses what is in
//! flight at a crash and resumes at a restore; both hand what they make restorable (a completed
//! checkpoint or a committed batch) to the simulation's one commit path.

pub mod barrier;
pub mod micro_batch;

use super::checkpoint::{CompletedCheckpoint, Snapshot};
use super::job::Job;
use super::trace::Phase;
use super::trace::Trace;
use crate::engine::settings::config::{Config, Mode, Snapshots};

pub use barrier::Barrier;
pub use micro_batch::{CommittedBatch, MicroBatch, OffsetLogEntry};

/// How a protocol names its parts, for the words the lesson, the charts and the command line
/// put around its figures (the figures themselves are numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Words {
    /// The protocol: "barrier" or "micro-batch".
    pub name: &'static str,
    /// What the job takes every interval: "checkpoint" or "micro-batch".
    pub cycle: &'static str,
    /// What a restart restores: "checkpoint" or "batch".
    pub restore_point: &'static str,
    /// What starts one: its "barrier", or the batch "planned" at a trigger.
    pub started: &'static str,
    /// What makes one restorable: "completed" or "committed".
    pub done: &'static str,
    /// A restorable one: "completed checkpoint" or "committed batch".
    pub restorable: &'static str,
    /// Its mark on a timeline: "checkpoint completed" or "batch committed".
    pub mark: &'static str,
    /// The timeline of its cycles, long and short.
    pub timeline_title: &'static str,
    pub timeline_short_title: &'static str,
    /// The transactional sink design as this protocol writes it: "transactional" (Kafka
    /// transactions committed with checkpoints) or "idempotent by batch id" (Spark's
    /// `foreachBatch`, with no transaction).
    pub transactional_sink: &'static str,
}

/// What each restart protocol answers about itself. Code outside the protocols asks these
/// questions rather than matching on the mode.
impl Mode {
    /// How the protocol names its parts.
    pub const fn words(self) -> Words {
        match self {
            Mode::Barrier => Words {
                name: "barrier",
                cycle: "checkpoint",
                restore_point: "checkpoint",
                started: "barrier",
                done: "completed",
                restorable: "completed checkpoint",
                mark: "checkpoint completed",
                timeline_title: "Checkpoint timeline: alignment, sync pause, upload",
                timeline_short_title: "Checkpoint timeline",
                transactional_sink: "transactional",
            },
            Mode::MicroBatch => Words {
                name: "micro-batch",
                cycle: "micro-batch",
                restore_point: "batch",
                started: "planned",
                done: "committed",
                restorable: "committed batch",
                mark: "batch committed",
                timeline_title: "Batch timeline: offset log, processing, state store, commit log",
                timeline_short_title: "Batch timeline",
                transactional_sink: "idempotent by batch id",
            },
        }
    }

    /// Whether barriers flow with the data (a view of an instant announces the next one).
    pub fn has_barriers(self) -> bool {
        self == Mode::Barrier
    }

    /// Whether the transactional sink writes in transactions committed when a checkpoint
    /// completes, so `read_committed` and `read_uncommitted` readers see different things. A
    /// micro-batch writes each batch idempotently by its id, with no transaction.
    pub fn sink_has_transactions(self) -> bool {
        self == Mode::Barrier
    }

    /// Whether the coordinator hears of a task's failure at once (Flink's JobManager gets the
    /// exception), rather than only when a heartbeat or a supervisor notices the job stopped.
    pub fn reports_task_failures(self) -> bool {
        self == Mode::Barrier
    }

    /// Whether a restart strategy (Flink's fixed or exponential delay) chooses the wait before a
    /// restart; a stopped Spark query waits its supervisor's fixed restart delay.
    pub fn has_restart_strategy(self) -> bool {
        self == Mode::Barrier
    }

    /// Whether a restore point can be expired by Flink's checkpoint timeout.
    pub fn has_checkpoint_timeout(self) -> bool {
        self == Mode::Barrier
    }

    /// Whether each restore point writes the whole state when `snapshots` asks for full ones. A
    /// micro-batch's state store always writes the changes since the previous version.
    pub fn writes_whole_state(self, snapshots: Snapshots) -> bool {
        self == Mode::Barrier && snapshots == Snapshots::Full
    }

    /// Whether what the job writes depends only on the events, each emission holding the
    /// totals up to its emit boundary, so runs that differ in interval, state size or crash
    /// write the same rows. A micro-batch's rows are its trigger's: a restart moves where
    /// batches are cut, and the running totals in between.
    pub fn rows_depend_only_on_events(self) -> bool {
        self == Mode::Barrier
    }

    /// Whether the readers read whenever the job runs (a barrier job), rather than only the
    /// offsets a batch planned, standing still between batches.
    pub fn reads_continuously(self) -> bool {
        self == Mode::Barrier
    }

    /// Whether what was in flight at a crash runs again as planned after the restart (a
    /// micro-batch reruns its offset-log entry), rather than being discarded and taken anew
    /// (a checkpoint). A restarted query also runs its first batch at once.
    pub fn reruns_in_flight(self) -> bool {
        self == Mode::MicroBatch
    }

    /// Whether the job runs batches whose processing and commit the store paces: a store that
    /// cannot keep up runs them back to back, and the backpressure setting does not apply.
    pub fn runs_batches(self) -> bool {
        self == Mode::MicroBatch
    }
}

/// What a restart can restore: a completed checkpoint or a committed batch.
#[derive(Clone, Debug, PartialEq)]
pub enum RestorePoint {
    Checkpoint(CompletedCheckpoint),
    Batch(CommittedBatch),
}

impl RestorePoint {
    /// The checkpoint id or batch id: the epoch whose output it commits.
    pub fn id(&self) -> u64 {
        match self {
            RestorePoint::Checkpoint(c) => c.id,
            RestorePoint::Batch(b) => b.batch_id,
        }
    }

    /// Sum of the partition offsets a restart resumes from.
    pub fn offset(&self) -> u64 {
        match self {
            RestorePoint::Checkpoint(c) => c.offset,
            RestorePoint::Batch(b) => b.end_offset,
        }
    }

    pub fn offsets(&self) -> &[u64] {
        match self {
            RestorePoint::Checkpoint(c) => &c.offsets,
            RestorePoint::Batch(b) => &b.end_offsets,
        }
    }

    /// When it started: the barrier's injection, or the batch's trigger.
    pub fn started_at_ms(&self) -> u64 {
        match self {
            RestorePoint::Checkpoint(c) => c.barrier_at_ms,
            RestorePoint::Batch(b) => b.planned_at_ms,
        }
    }

    /// When it became restorable: the checkpoint's completion, or the batch's commit.
    pub fn completed_at_ms(&self) -> u64 {
        match self {
            RestorePoint::Checkpoint(c) => c.completed_at_ms,
            RestorePoint::Batch(b) => b.committed_at_ms,
        }
    }

    /// Bytes written to the store: the checkpointed data size, or the state store version.
    pub fn size_bytes(&self) -> u64 {
        match self {
            RestorePoint::Checkpoint(c) => c.size_bytes,
            RestorePoint::Batch(b) => b.state_store_bytes,
        }
    }

    /// In-flight records stored with an unaligned checkpoint (none for a batch).
    pub fn in_flight_bytes(&self) -> u64 {
        match self {
            RestorePoint::Checkpoint(c) => c.in_flight_bytes,
            RestorePoint::Batch(_) => 0,
        }
    }

    /// At-least-once checkpoints: records after the barrier in its state, read again on restore.
    pub fn past_barrier_events(&self) -> u64 {
        match self {
            RestorePoint::Checkpoint(c) => c.past_barrier_events,
            RestorePoint::Batch(_) => 0,
        }
    }

    /// Which job attempt made it.
    pub fn attempt(&self) -> u32 {
        match self {
            RestorePoint::Checkpoint(c) => c.attempt,
            RestorePoint::Batch(b) => b.attempt,
        }
    }

    /// The readers' total position when it became restorable (for the worst-case replay).
    pub fn position_at_completion(&self) -> u64 {
        match self {
            RestorePoint::Checkpoint(c) => c.position_at_completion,
            RestorePoint::Batch(b) => b.position_at_commit,
        }
    }

    pub fn as_batch(&self) -> Option<&CommittedBatch> {
        match self {
            RestorePoint::Checkpoint(_) => None,
            RestorePoint::Batch(b) => Some(b),
        }
    }
}

/// What a protocol did at a due instant.
pub(crate) enum Due {
    /// Nothing more is due now.
    Idle,
    /// It moved on a stage; more may be due at the same instant.
    Again,
    /// This becomes restorable now, with the snapshot a restart loads.
    Commit(RestorePoint, Box<Snapshot>),
}

/// What a protocol may read and change at an instant: the job and the trace.
pub(crate) struct Ctx<'a> {
    pub now_ms: u64,
    pub config: &'a Config,
    pub job: &'a mut Job,
    pub trace: &'a mut Trace,
    /// The id of the newest restore point.
    pub committed_id: u64,
}

/// The protocol a job runs.
#[derive(Clone, Debug)]
pub enum Protocol {
    Barrier(Barrier),
    MicroBatch(MicroBatch),
}

impl Protocol {
    /// The protocol of `config`'s mode, starting from `initial` (the restore point the scenario
    /// starts from), the first trigger one interval after the start.
    pub fn new(config: &Config, initial: &RestorePoint) -> Protocol {
        let first_trigger_ms = config.start_time_ms + config.interval_ms;
        match config.mode {
            Mode::Barrier => Protocol::Barrier(Barrier::new(initial.id() + 1, first_trigger_ms)),
            Mode::MicroBatch => Protocol::MicroBatch(MicroBatch::new(initial, first_trigger_ms)),
        }
    }

    /// The restore point the scenario starts from: checkpoint or batch `start_checkpoint_id`,
    /// complete at the start with the readers at `offsets`.
    pub fn initial_restore_point(config: &Config, offsets: Vec<u64>) -> RestorePoint {
        let (id, at_ms, offset) = (config.start_checkpoint_id, config.start_time_ms, config.start_offset);
        match config.mode {
            Mode::Barrier => RestorePoint::Checkpoint(CompletedCheckpoint {
                id,
                barrier_at_ms: at_ms,
                completed_at_ms: at_ms,
                offset,
                offsets,
                size_bytes: config.state_bytes,
                in_flight_bytes: 0,
                past_barrier_events: 0,
                duration_ms: 0,
                alignment_ms: 0,
                sync_ms: 0,
                upload_ms: 0,
                attempt: 1,
                position_at_completion: offset,
            }),
            Mode::MicroBatch => RestorePoint::Batch(CommittedBatch {
                batch_id: id,
                planned_at_ms: at_ms,
                committed_at_ms: at_ms,
                end_offset: offset,
                end_offsets: offsets,
                state_store_bytes: config.state_bytes,
                offset_log_write_ms: 0,
                processing_ms: 0,
                state_store_write_ms: 0,
                attempt: 1,
                position_at_commit: offset,
            }),
        }
    }

    /// The next instant this protocol has work (the simulation also stops at samples and crashes).
    pub fn next_due_ms(&self, now_ms: u64, config: &Config, job: &Job) -> u64 {
        match self {
            Protocol::Barrier(b) => b.next_due_ms(now_ms, job),
            Protocol::MicroBatch(m) => m.next_due_ms(config),
        }
    }

    /// Like [`Protocol::next_due_ms`]; without `emit_boundaries`, a barrier job's emit boundaries
    /// are left out (while the readers are behind, a boundary passes when the readers get there).
    pub fn next_work_ms(&self, now_ms: u64, config: &Config, job: &Job, emit_boundaries: bool) -> u64 {
        match self {
            Protocol::Barrier(b) if !emit_boundaries => b.next_stage_ms(),
            protocol => protocol.next_due_ms(now_ms, config, job),
        }
    }

    /// False when nothing can be due at `now_ms` (a quick test for the common instant).
    #[inline]
    pub fn may_be_due(&self, now_ms: u64) -> bool {
        match self {
            Protocol::Barrier(b) => b.pending.is_some() || now_ms >= b.next_trigger_ms,
            Protocol::MicroBatch(_) => true,
        }
    }

    /// The protocol's work at the current instant, one stage at a time.
    pub(crate) fn on_due(&mut self, ctx: Ctx<'_>) -> Due {
        match self {
            Protocol::Barrier(b) => b.on_due(ctx),
            Protocol::MicroBatch(m) => m.on_due(ctx),
        }
    }

    /// A crash: the checkpoint or batch in flight is lost. Returns its id when it is discarded.
    pub fn crash(&mut self, now_ms: u64) -> Option<u64> {
        match self {
            Protocol::Barrier(b) => b.crash(now_ms),
            Protocol::MicroBatch(m) => m.crash(),
        }
    }

    /// The restore finished at `now_ms`: when the protocol triggers next.
    pub fn restore(&mut self, now_ms: u64, config: &Config) {
        match self {
            // The coordinator resumes its interval from the restart.
            Protocol::Barrier(b) => b.next_trigger_ms = now_ms + config.interval_ms,
            // The restarted query runs its first batch at once.
            Protocol::MicroBatch(m) => m.next_trigger_ms = now_ms,
        }
    }

    /// The next trigger comes at `at_ms` (the interval changed).
    pub fn reschedule(&mut self, at_ms: u64) {
        match self {
            Protocol::Barrier(b) => b.next_trigger_ms = at_ms,
            Protocol::MicroBatch(m) => m.next_trigger_ms = at_ms,
        }
    }

    /// The input is closed: a barrier coordinator triggers no further checkpoints.
    pub fn close_input(&mut self) {
        if let Protocol::Barrier(b) = self {
            b.next_trigger_ms = u64::MAX;
        }
    }

    /// Whether everything up to the closed input is processed and committed as far as the
    /// protocol commits it.
    pub fn drained(&self, job: &Job, now_ms: u64, closed_at_ms: u64, committed_id: u64) -> bool {
        match self {
            Protocol::Barrier(b) => b.drained(job, now_ms, closed_at_ms),
            Protocol::MicroBatch(m) => m.drained(job, now_ms, closed_at_ms, committed_id),
        }
    }

    /// What a running job is doing, as the protocol sees it.
    pub fn phase(&self, now_ms: u64, config: &Config) -> Phase {
        match self {
            Protocol::Barrier(b) => b.phase(now_ms, config),
            Protocol::MicroBatch(m) => m.phase(),
        }
    }

    /// The checkpoint or batch in flight: a barrier's checkpoint until it completes, a batch
    /// from its trigger to its commit.
    pub fn in_flight(&self) -> Option<u64> {
        match self {
            Protocol::Barrier(b) => b.pending.as_ref().map(|p| p.id),
            Protocol::MicroBatch(m) => m.in_flight(),
        }
    }

    /// The offset log (micro-batch mode; empty in barrier mode).
    pub fn offset_log(&self) -> &[OffsetLogEntry] {
        match self {
            Protocol::Barrier(_) => &[],
            Protocol::MicroBatch(m) => &m.offset_log,
        }
    }
}
