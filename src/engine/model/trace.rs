//! The trace: what a run did, as typed events stamped in integer milliseconds, plus a sample of
//! the world every simulated second. The engine only pushes numbers here; the report, the crash
//! table and the charts turn them into words and pictures afterwards.

use serde::Serialize;

/// Something that happened at one instant of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The coordinator injected checkpoint `checkpoint_id`'s barrier at the readers' position.
    BarrierInjected { checkpoint_id: u64, offset: u64 },
    /// An aligned operator started holding inputs whose barrier had arrived.
    AlignmentStarted { checkpoint_id: u64 },
    /// The barrier had arrived on every input after the operator waited for it.
    AlignmentEnded { checkpoint_id: u64 },
    /// The operator snapshotted its state: the synchronous pause starts.
    SnapshotTaken { checkpoint_id: u64 },
    /// The asynchronous upload of `size_bytes` starts after the pause and ends at `completes_at_ms`.
    UploadStarted { checkpoint_id: u64, size_bytes: u64, completes_at_ms: u64 },
    /// Every ack is in and the upload is done: the checkpoint is restorable.
    CheckpointCompleted { checkpoint_id: u64, offset: u64 },
    /// The checkpoint completed, but the sink's transaction for its epoch began longer ago than
    /// the transaction timeout: the broker had aborted it, and its `lost_rows` rows are lost.
    TransactionTimedOut { checkpoint_id: u64, lost_rows: u64 },
    /// A crash discarded the checkpoint in flight.
    CheckpointDiscarded { checkpoint_id: u64 },
    /// Micro-batch mode: the batch's end offsets are durable in the offset log.
    BatchPlanned { batch_id: u64, end_offset: u64 },
    /// Micro-batch mode: a batch from the offset log without a commit entry runs again.
    BatchRerun { batch_id: u64, end_offset: u64 },
    /// Micro-batch mode: the batch's output, `rows` rows, went to the sinks.
    BatchOutput { batch_id: u64, end_offset: u64, rows: u64 },
    /// Micro-batch mode: the state store version and the commit-log entry are written.
    BatchCommitted { batch_id: u64, end_offset: u64 },
    /// Micro-batch mode: a crash cut short a batch whose offset-log entry was written; it runs again.
    BatchDiscarded { batch_id: u64 },
    /// The window operator emitted the running totals of the keys changed up to `boundary_ms`.
    Emitted { boundary_ms: u64, rows: u64 },
    /// The job crashed with its readers at `offset`. Detection and the restore's start follow at
    /// fixed delays; `restore_from` is the restore point the restart will load.
    Crash { offset: u64, detected_at_ms: u64, restore_started_at_ms: u64, restore_from: u64 },
    /// The failure was detected.
    Detected,
    /// The restart delay is over: downloading the restore point starts.
    RestoreStarted { restore_from: u64 },
    /// The restore point is loaded and the readers rewound to it.
    Restored { restore_from: u64, offset: u64 },
    /// The rewind went past the log's retention: `lost_events` are gone.
    RetentionExceeded { lost_events: u64 },
    /// The broker aborted the sink's open transaction, begun at `began_at_ms`, at its timeout and
    /// fenced the producer: its next write fails the job (a crash at the same instant).
    ProducerFenced { began_at_ms: u64 },
    /// The job is FAILED: nothing restarts it.
    JobFailed { because: FailedBecause },
    /// The replay reached the offset the readers stood at when the job crashed.
    ReplayDone { offset: u64 },
    /// The backlog is worked off.
    CaughtUp { offset: u64 },
}

/// Why a job stopped for good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailedBecause {
    /// The restart strategy allowed no further restart.
    RestartStrategy,
    /// Micro-batch mode with failOnDataLoss: offsets the query must read again are gone.
    DataLoss,
}

/// An event and when it happened (ms since midnight on the scenario clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub at_ms: u64,
    pub event: Event,
}

/// Rows each sink design holds (for the view: rows its query returns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinkRows {
    pub append_only: u64,
    pub upsert: u64,
    /// Committed rows: what a `read_committed` reader sees.
    pub transactional: u64,
    pub dedupe_view: u64,
}

/// How stale each sink is for its reader: now minus the newest event time visible there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinkStalenessMs {
    pub append_only: u64,
    pub upsert: u64,
    pub transactional: u64,
    pub dedupe_view: u64,
}

/// Offsets per partition, inline up to 16 partitions.
pub type Offsets = smallvec::SmallVec<[u64; 16]>;

/// The world at one instant: where the readers are, how big the state is, what the sinks hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldSample {
    pub at_ms: u64,
    pub phase: Phase,
    /// Events in the log (sum of partition log-end offsets).
    pub log_end: u64,
    /// The readers' total position: the sum of `offsets`.
    pub position: u64,
    /// The readers' offset per partition (kept inline up to 16 partitions: a run takes a sample
    /// a second, and a heap allocation for each was a tenth of a slider change's allocations).
    pub offsets: Offsets,
    pub lag_events: u64,
    /// Order ids in the dedupe operator's state.
    pub seen_ids: u64,
    /// Entries held by the operators: seen ids, non-zero window totals and pending counts.
    pub sink_rows: SinkRows,
    pub staleness_ms: SinkStalenessMs,
}

/// Everything a run recorded, in the order it happened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub events: Vec<TraceEvent>,
    pub samples: Vec<WorldSample>,
}

impl Trace {
    #[inline]
    pub fn push(&mut self, at_ms: u64, event: Event) {
        self.events.push(TraceEvent { at_ms, event });
    }
}

/// What the job is doing at a moment, as the charts shade it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
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
    /// Stopped for good: the restart strategy gave up, or the query failed on data loss.
    Failed,
}

impl Phase {
    /// The phase in words, as a chart's data table lists it.
    pub fn words(self) -> &'static str {
        match self {
            Phase::Running => "running",
            Phase::Aligning => "aligning",
            Phase::SyncPause => "sync pause",
            Phase::Detecting => "detecting",
            Phase::Restarting => "restarting",
            Phase::Restoring => "restoring",
            Phase::Replaying => "replaying",
            Phase::CatchingUp => "catching up",
            Phase::WaitingForTrigger => "waiting for the trigger",
            Phase::Failed => "FAILED",
        }
    }
}

/// Sorts `items` by `key`, keeping the order of equal keys, by insertion: for lists that are in
/// order but for a few items stamped a little late (the trace's events, the crash table's rows).
/// Each item moves back past the items it is out of order with; the standard library's stable
/// sort would add its own code to the module for each type sorted.
pub fn sort_nearly_sorted_by_key<T>(items: &mut [T], key: impl Fn(&T) -> u64) {
    for i in 1..items.len() {
        let k = key(&items[i]);
        let mut j = i;
        while j > 0 && key(&items[j - 1]) > k {
            j -= 1;
        }
        items[j..=i].rotate_right(1);
    }
}
