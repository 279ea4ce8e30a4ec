//! Checkpoints: a pending checkpoint moves from barrier injection through alignment, the
//! synchronous snapshot (a processing pause) and the asynchronous upload to completion. Only a
//! completed checkpoint can be restored; it holds source offsets, operator state and the sink's
//! pre-committed transaction together, and the sink commits that transaction after completion.

use serde::Serialize;

use super::operators::JobState;
use super::source::busiest_share;
use crate::engine::settings::config::{BufferDebloat, Config};

/// Flink's network memory segment (`taskmanager.memory.segment-size`, 32 KB).
pub const SEGMENT_BYTES: u64 = 32 * 1024;
/// The buffers one backpressured channel can fill: 2 exclusive input buffers
/// (`taskmanager.network.memory.buffers-per-channel`), the gate's 8 floating ones
/// (`floating-buffers-per-gate`) and 10 output buffers upstream (`max-buffers-per-channel`).
pub const IN_FLIGHT_BUFFERS_PER_CHANNEL: u64 = 2 + 8 + 10;
/// What debloated buffers hold: about this much of the channel's throughput
/// (`taskmanager.network.memory.buffer-debloat.target`, 1 s).
pub const DEBLOAT_TARGET_MS: u64 = 1_000;

/// The most records one channel holds in flight, which is what an unaligned checkpoint stores of
/// it: its buffers' bytes (or, debloated, about a second of the slow channel's throughput) in records,
/// at least one. Beyond that the channel is full and the source stops reading: the rest waits in
/// the log, behind the checkpoint's offset, and a restore reads it again from there.
pub fn in_flight_limit_records(config: &Config) -> u64 {
    let buffers_bytes = IN_FLIGHT_BUFFERS_PER_CHANNEL * SEGMENT_BYTES;
    let limit_bytes = match config.buffer_debloat {
        BufferDebloat::Off => buffers_bytes,
        BufferDebloat::On => {
            // The slow channel's: partition 0's, the busiest.
            let channel_bytes_per_s = (config.rate_per_s as f64 * busiest_share(config)) as u64 * config.record_bytes;
            buffers_bytes.min(channel_bytes_per_s * DEBLOAT_TARGET_MS / 1000)
        }
    };
    (limit_bytes / config.record_bytes.max(1)).max(1)
}

/// What a checkpoint captured at its snapshot: the state, the offsets the readers resume from,
/// and (unaligned only) the in-flight records the barrier overtook, per partition `[from, to)`.
/// A run computed the fast way copies the state only into snapshots a crash may restore: none
/// once no crash is ahead and no keyframe of the run is to be taken.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub state: Option<JobState>,
    pub offsets: Vec<u64>,
    pub in_flight: Vec<(u64, u64, u64)>,
    /// Per partition, the offset up to which the state (with its in-flight records) has counted
    /// the events: the offsets, or past them where at-least-once let records pass the barrier.
    pub state_offsets: Vec<u64>,
}

/// A checkpoint between its barrier and its completion.
#[derive(Clone, Debug)]
pub struct PendingCheckpoint {
    pub id: u64,
    pub barrier_at_ms: u64,
    /// Reader offsets per partition where the barrier was injected.
    pub barrier_offsets: Vec<u64>,
    pub stage: PendingStage,
}

#[derive(Clone, Debug)]
pub enum PendingStage {
    /// Waiting for the barrier on every input (aligned mode only): exactly once holds the inputs
    /// whose barrier arrived, at least once keeps reading them.
    Aligning,
    /// Snapshot taken; processing pauses for the synchronous phase until `upload.from_ms`.
    Syncing(Upload),
    /// The snapshot uploads to the checkpoint store until `upload.completes_at_ms`.
    Uploading(Upload),
}

/// A snapshot on its way to the checkpoint store.
#[derive(Clone, Debug)]
pub struct Upload {
    pub snapshot: Box<Snapshot>,
    pub snapshot_at_ms: u64,
    /// When the sync pause ends and the upload starts.
    pub from_ms: u64,
    pub completes_at_ms: u64,
    pub size_bytes: u64,
    pub in_flight_bytes: u64,
    /// At-least-once mode: records that passed their barrier before the snapshot.
    pub past_barrier_events: u64,
}

/// A completed checkpoint: what a barrier-mode restart restores.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompletedCheckpoint {
    pub id: u64,
    pub barrier_at_ms: u64,
    pub completed_at_ms: u64,
    /// Sum of the partition offsets the checkpoint restores to.
    pub offset: u64,
    pub offsets: Vec<u64>,
    /// Checkpointed data size: the uploaded bytes (state or its delta, plus in-flight records).
    pub size_bytes: u64,
    pub in_flight_bytes: u64,
    /// At-least-once mode: records after the barrier that are in the snapshot's state; a restore
    /// reads them again, so they are counted twice.
    pub past_barrier_events: u64,
    /// From barrier injection to completion.
    pub duration_ms: u64,
    /// From barrier injection until the barrier had arrived on every input.
    pub alignment_ms: u64,
    pub sync_ms: u64,
    pub upload_ms: u64,
    /// Which job attempt took it.
    pub attempt: u32,
    /// The readers' total position when it completed (for the worst-case replay).
    pub position_at_completion: u64,
}

/// Bytes a checkpoint uploads, or a micro-batch's state store version writes. Full: the whole
/// modelled state. Incremental, and every state store version in micro-batch mode (Spark's
/// providers write deltas or changelogs, never the whole state per batch): the share of the state
/// written since the previous one; the modelled state holds one window of events, so each
/// processed event writes `state_bytes / (rate x window)` bytes, capped at the whole state.
pub fn upload_bytes(config: &Config, events_since_previous: u64) -> u64 {
    if config.mode.writes_whole_state(config.snapshots) {
        return config.state_bytes;
    }
    let window_events = (config.rate_per_s as u128 * config.window_ms as u128 / 1000).max(1);
    let delta = config.state_bytes as u128 * events_since_previous as u128 / window_events;
    delta.min(config.state_bytes as u128) as u64
}

/// Milliseconds to move `bytes` at `bytes_per_s`, rounded up.
pub fn transfer_ms(bytes: u64, bytes_per_s: u64) -> u64 {
    (bytes as u128 * 1000).div_ceil(bytes_per_s as u128) as u64
}
