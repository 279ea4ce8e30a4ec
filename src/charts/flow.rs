//! What moves in the pipeline view at an instant: records travelling from each partition to the
//! operator and from the operator to the sinks, a barrier travelling down its channel, the inputs
//! an aligned operator holds behind an arrived barrier, the snapshot travelling to the checkpoint
//! store, and the restore travelling back into the operator. Every position is a pure function of
//! the world at the instant (and the settings): a record's place on its channel is the offset read
//! there, modulo a spacing; a barrier's is how far its channel's delay has run; the snapshot's and
//! the restore's are the bytes moved so far. So a still picture is the same at the same instant,
//! and moving the instant by a fraction of a second moves what the job moved in it.
//!
//! The partitions' log window is fixed by the settings too: pages of the scenario clock, each
//! showing the cursor in its middle half, so the scale never changes while time passes.

use crate::engine::model::source::SourceLog;
use crate::engine::model::trace::Phase;
use crate::engine::model::world::{CheckpointStage, World};
use crate::engine::settings::config::{Alignment, CheckpointingMode, Config};

/// Records drawn on a channel at once.
pub const RECORDS_PER_CHANNEL: u64 = 3;
/// Records drawn between the operator and the sinks at once.
pub const RECORDS_TO_SINKS: u64 = 4;
/// Seconds of a partition's events at the source rate between two records drawn: the marks stand
/// for that many events each, so they move twice as fast while the job reads at twice the rate.
const SECONDS_PER_RECORD: u64 = 2;
/// The most held records a blocked channel draws in its buffer.
pub const MAX_HELD_MARKS: u64 = 5;

/// One partition's channel to the operator.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    pub partition: usize,
    /// The records on the way, as positions along the channel: 0 at the source, 1 at the operator.
    pub records: Vec<f64>,
    /// The barrier of the checkpoint in flight on its way down this channel (0 to 1).
    pub barrier: Option<f64>,
    /// The barrier arrived and the aligned operator holds this input: the events waiting
    /// behind it in the partition.
    pub held_events: Option<u64>,
}

impl Channel {
    /// Marks for the held events: one per record's worth, at least one, at most [`MAX_HELD_MARKS`].
    pub fn held_marks(&self, config: &Config) -> u64 {
        self.held_events.map_or(0, |e| e.div_ceil(events_per_record(config)).clamp(1, MAX_HELD_MARKS))
    }
}

/// Everything that moves in the pipeline view at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub channels: Vec<Channel>,
    /// Records from the operator to the sinks (0 at the operator, 1 at the sinks).
    pub to_sinks: Vec<f64>,
    /// The snapshot of the checkpoint in flight on its way to the store: 0 at the operator (its
    /// synchronous phase), then the share of its bytes uploaded.
    pub snapshot: Option<f64>,
    /// The restore on its way from the store into the operator: the share of its bytes loaded.
    pub restore: Option<f64>,
}

/// Events of one partition a record mark stands for.
pub fn events_per_record(config: &Config) -> u64 {
    (config.rate_per_s * SECONDS_PER_RECORD / u64::from(config.partitions.max(1))).max(1)
}

/// Whether the job moves records at this phase: not while it is down, restoring, failed or
/// waiting for its next trigger.
pub fn records_flow(phase: Phase) -> bool {
    matches!(phase, Phase::Running | Phase::Aligning | Phase::SyncPause | Phase::Replaying | Phase::CatchingUp)
}

/// `count` evenly spaced positions in (0, 1], shifted on by the share `phase` of one spacing.
fn spaced(count: u64, phase: f64) -> Vec<f64> {
    (0..count).map(|k| (k as f64 + phase) / count as f64).filter(|s| *s > 0.0 && *s <= 1.0).collect()
}

/// The share of a spacing of `every` that `offset` is past its last multiple.
fn phase_of(offset: u64, every: u64) -> f64 {
    (offset % every) as f64 / every as f64
}

/// Whether partition `p`'s records reach the operator through the slow channel (the
/// backpressure setting delays partition 0 by `backpressure_ms`).
pub fn is_slow(config: &Config, p: usize) -> bool {
    config.backpressure_ms > 0 && p == 0
}

/// What moves in `world`, whose settings are `config`.
pub fn flow(config: &Config, world: &World) -> Flow {
    let flowing = records_flow(world.phase);
    let per_record = events_per_record(config);
    let in_flight = world.checkpoint.as_ref().filter(|c| c.stage == CheckpointStage::BarrierInFlight);
    // An aligned operator waiting on barriers holds every input whose barrier arrived
    // (exactly once; at least once reads on, and unaligned snapshots at once).
    let holds = config.alignment == Alignment::Aligned
        && config.checkpointing_mode == CheckpointingMode::ExactlyOnce
        && config.partitions > 1;
    let channels = (0..world.offsets.len())
        .map(|p| {
            let offset = world.offsets[p];
            // Every barrier is injected at its reader's position; a channel's own delay is the
            // time it takes to reach the operator: none, or the slow channel's.
            let barrier = in_flight.and_then(|c| {
                let delay_ms = if is_slow(config, p) && config.alignment == Alignment::Aligned {
                    config.backpressure_ms
                } else {
                    0
                };
                let travelled_ms = world.at_ms.saturating_sub(c.barrier_at_ms);
                (travelled_ms < delay_ms).then(|| travelled_ms as f64 / delay_ms as f64)
            });
            let arrived = in_flight.is_some() && barrier.is_none();
            let aligning = in_flight.is_some_and(|c| c.aligning);
            let held_events = (arrived && holds && aligning)
                .then(|| world.log_ends.get(p).copied().unwrap_or(offset).saturating_sub(offset));
            let records = if flowing && held_events.is_none() {
                spaced(RECORDS_PER_CHANNEL, phase_of(offset, per_record))
            } else {
                Vec::new()
            };
            Channel { partition: p, records, barrier, held_events }
        })
        .collect();
    let to_sinks = if flowing {
        spaced(RECORDS_TO_SINKS, phase_of(world.position, per_record * u64::from(config.partitions.max(1))))
    } else {
        Vec::new()
    };
    let snapshot = world.checkpoint.as_ref().and_then(|c| match c.stage {
        CheckpointStage::BarrierInFlight => None,
        CheckpointStage::SyncPause => Some(0.0),
        CheckpointStage::Uploading { done_bytes, size_bytes } => {
            Some(if size_bytes == 0 { 1.0 } else { done_bytes as f64 / size_bytes as f64 })
        }
    });
    let restore =
        world.restore.as_ref().map(
            |r| {
                if r.total_bytes == 0 {
                    1.0
                } else {
                    r.done_bytes as f64 / r.total_bytes as f64
                }
            },
        );
    Flow { channels, to_sinks, snapshot, restore }
}

/// The partitions' log window at `at_ms`, as log numbers (the sum of the partitions' offsets)
/// from..to: a page of the scenario clock, as long as four checkpoint intervals and at least
/// 160 s, whose pages overlap by half, so the instant stands in its page's middle half (the first
/// page starts at the scenario's start). It depends on the settings and the page only: while time
/// passes inside a page nothing in the log moves but what the job does.
pub fn log_window(config: &Config, at_ms: u64) -> (u64, u64) {
    log_window_of(&SourceLog::new(config), config, at_ms)
}

/// [`log_window`] on the source's log already made (its wheel is built once per drawing).
pub fn log_window_of(log: &SourceLog, config: &Config, at_ms: u64) -> (u64, u64) {
    let (from_ms, to_ms) = log_window_ms(config, at_ms);
    (log.log_end_at(from_ms), log.log_end_at(to_ms))
}

/// The page of the scenario clock the log window at `at_ms` shows (see [`log_window`]): the
/// instants whose log ends stand at its two edges.
pub fn log_window_ms(config: &Config, at_ms: u64) -> (u64, u64) {
    let span_ms = (4 * config.interval_ms).max(160_000);
    let step_ms = span_ms / 2;
    let elapsed_ms = at_ms.saturating_sub(config.start_time_ms);
    let page = match elapsed_ms.checked_sub(span_ms * 3 / 4) {
        None => 0,
        Some(past) => past / step_ms + 1,
    };
    let from_ms = config.start_time_ms + page * step_ms;
    (from_ms, from_ms + span_ms)
}
