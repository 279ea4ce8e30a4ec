//! The world at one instant of a run: where each reader stands, what the job is doing, the
//! checkpoint or batch in flight or being restored, the crash and its replay, and what each sink
//! holds so far. The pipeline view draws it at the cursor. Its reference is the simulation itself
//! stopped at that instant ([`Sim::run_through`](super::sim::Sim::run_through)): its phase, its
//! checkpoint in flight, its readers' offsets and its sinks; a finished run's world at any instant
//! is read from its trace by [`WorldIndex`](crate::engine::fast::world_index::WorldIndex).

use super::trace::Phase;

/// What the checkpoint in flight is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckpointStage {
    /// The barrier is in the partitions; the operator has not snapshotted yet (an aligned
    /// operator holds the inputs whose barrier arrived).
    BarrierInFlight,
    /// Snapshot taken: processing pauses for the synchronous phase.
    SyncPause,
    /// The snapshot uploads to the checkpoint store: `done_bytes` of `size_bytes`.
    Uploading { done_bytes: u64, size_bytes: u64 },
}

/// The checkpoint between its barrier and its completion at the instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointInFlight {
    pub checkpoint_id: u64,
    pub barrier_at_ms: u64,
    /// The readers' total offset where the barrier was injected.
    pub barrier_offset: u64,
    /// The barrier's offset in each partition.
    pub barrier_offsets: Vec<u64>,
    pub stage: CheckpointStage,
    /// An aligned operator holds the inputs whose barrier arrived.
    pub aligning: bool,
}

/// Micro-batch mode: what the batch in progress is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchStage {
    /// Writing the batch's end offsets to the offset log.
    WritingOffsetLog,
    /// Reading and processing the planned offsets.
    Processing,
    /// Output written; the state store writes its version, then the commit log.
    Committing,
}

/// Micro-batch mode: the batch in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchInFlight {
    pub batch_id: u64,
    pub start_offset: u64,
    pub end_offset: u64,
    pub stage: BatchStage,
    /// A batch from the offset log without a commit entry, running again after a restart.
    pub rerun: bool,
}

/// The restore in progress: downloading restore point `restore_from`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestoreInProgress {
    pub restore_from: u64,
    pub done_bytes: u64,
    pub total_bytes: u64,
}

/// The crash, once it has happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashSoFar {
    pub at_ms: u64,
    pub offset: u64,
    /// The restore point the restart loads.
    pub restore_from: u64,
    /// Its offsets total: where the replay starts.
    pub restore_offset: u64,
    pub detected_at_ms: u64,
    pub restore_started_at_ms: u64,
    pub restored_at_ms: Option<u64>,
    pub replay_done_at_ms: Option<u64>,
    pub caught_up_at_ms: Option<u64>,
}

/// Rows a sink holds so far and how many repeat an earlier row (product, window, count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinkSoFar {
    pub rows: u64,
    pub duplicate_rows: u64,
}

/// Every sink design at the instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinksSoFar {
    pub append_only: SinkSoFar,
    pub upsert: SinkSoFar,
    /// Committed rows: what a `read_committed` reader sees.
    pub transactional: SinkSoFar,
    pub dedupe_view: SinkSoFar,
    /// Rows written to the transactional sink's open and pre-committed transactions, not yet
    /// visible to a `read_committed` reader.
    pub transactional_pending: u64,
}

/// The world at one instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct World {
    pub at_ms: u64,
    /// What the job is doing, as the simulation names it.
    pub phase: Phase,
    /// Events in each partition's log.
    pub log_ends: Vec<u64>,
    pub log_end: u64,
    /// The readers' offset in each partition.
    pub offsets: Vec<u64>,
    pub position: u64,
    pub lag_events: u64,
    pub checkpoint: Option<CheckpointInFlight>,
    pub batch: Option<BatchInFlight>,
    /// Ids of the completed checkpoints (committed batches) so far, oldest first.
    pub completed: Vec<u64>,
    /// When the newest of them completed.
    pub last_completed_at_ms: u64,
    pub crash: Option<CrashSoFar>,
    pub restore: Option<RestoreInProgress>,
    /// Order ids in the dedupe operator's state at the last sample.
    pub seen_ids: u64,
    /// Event-time start of the window the readers are in.
    pub open_window_start_ms: u64,
    pub sinks: SinksSoFar,
}

impl World {
    /// A recovery that has caught up: the job runs normally again.
    pub fn caught_up(&self) -> bool {
        self.crash.as_ref().is_some_and(|c| c.caught_up_at_ms.is_some_and(|t| t <= self.at_ms))
    }
}
