//! The report's timeline and per-second series: the engine's typed trace projected to the
//! entries and samples the report carries (clock text, seconds since the start, a kind, the
//! checkpoint or batch id and an offset).

use serde::Serialize;

use crate::engine::model::trace::Phase;
use crate::engine::model::trace::{Event, SinkStalenessMs, Trace};
use crate::engine::settings::clock::{seconds, ClockText, ClockTime};
use crate::engine::settings::config::Config;

/// An instant on the scenario clock, the one way the report gives a time: clock text
/// ("10:00:32.100"), milliseconds since midnight (as the settings give times, `crash_at_ms`)
/// and seconds since the scenario start (what the charts' axes count).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct Stamp {
    #[cfg_attr(not(target_arch = "wasm32"), ts(type = "string"))]
    pub at: ClockText,
    pub ms: u64,
    pub s: f64,
}

impl Stamp {
    pub fn new(config: &Config, at_ms: u64) -> Stamp {
        Stamp::since(config.start_time_ms, at_ms)
    }

    /// The instant `at_ms` of a scenario that started at `start_ms`.
    pub fn since(start_ms: u64, at_ms: u64) -> Stamp {
        Stamp { at: ClockTime(at_ms).text(), ms: at_ms, s: seconds(at_ms.saturating_sub(start_ms)) }
    }
}

/// One entry of the run's timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct TimelineEntry {
    pub at: Stamp,
    pub kind: TimelineKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(not(target_arch = "wasm32"), ts(optional))]
    pub checkpoint: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(not(target_arch = "wasm32"), ts(optional))]
    pub offset: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
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
    /// The broker had aborted the completed checkpoint's sink transaction at its timeout.
    TransactionTimedOut,
    /// The broker aborted the sink's open transaction at its timeout and fenced the producer,
    /// whose next write failed the job.
    ProducerFenced,
    /// The job is FAILED: the restart strategy gave up, or the query failed on data loss.
    JobFailed,
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
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct Sample {
    pub at: Stamp,
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
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct SinkStaleness {
    pub append_only: u64,
    pub upsert: u64,
    pub transactional: u64,
    pub dedupe_view: u64,
}

/// The timeline of a run that started at `start_ms`. A crash is listed with its detection and
/// (after a restart delay) the restore's start, which it fixes in advance; whether a later
/// crash cut them short is the recovery's business.
pub fn timeline(trace: &Trace, start_ms: u64) -> Vec<TimelineEntry> {
    let entry = |at_ms: u64, kind, checkpoint, offset| TimelineEntry {
        at: Stamp::since(start_ms, at_ms),
        kind,
        checkpoint,
        offset,
    };
    let mut out = Vec::new();
    for e in &trace.events {
        let at = e.at_ms;
        match e.event {
            Event::BarrierInjected { checkpoint_id, offset } => {
                out.push(entry(at, TimelineKind::Barrier, Some(checkpoint_id), Some(offset)))
            }
            Event::AlignmentEnded { checkpoint_id } => {
                out.push(entry(at, TimelineKind::Aligned, Some(checkpoint_id), None))
            }
            Event::SnapshotTaken { checkpoint_id } => {
                out.push(entry(at, TimelineKind::Snapshot, Some(checkpoint_id), None))
            }
            Event::CheckpointCompleted { checkpoint_id, offset } => {
                out.push(entry(at, TimelineKind::CheckpointCompleted, Some(checkpoint_id), Some(offset)))
            }
            Event::CheckpointDiscarded { checkpoint_id: id } | Event::BatchDiscarded { batch_id: id } => {
                out.push(entry(at, TimelineKind::CheckpointDiscarded, Some(id), None))
            }
            Event::BatchPlanned { batch_id, end_offset } => {
                out.push(entry(at, TimelineKind::BatchPlanned, Some(batch_id), Some(end_offset)))
            }
            Event::BatchRerun { batch_id, end_offset } => {
                out.push(entry(at, TimelineKind::BatchRerun, Some(batch_id), Some(end_offset)))
            }
            Event::BatchOutput { batch_id, end_offset, .. } => {
                out.push(entry(at, TimelineKind::BatchOutput, Some(batch_id), Some(end_offset)))
            }
            Event::BatchCommitted { batch_id, end_offset } => {
                out.push(entry(at, TimelineKind::BatchCommitted, Some(batch_id), Some(end_offset)))
            }
            Event::Crash { offset, detected_at_ms, restore_started_at_ms, restore_from } => {
                out.push(entry(at, TimelineKind::Crash, None, Some(offset)));
                out.push(entry(detected_at_ms, TimelineKind::Detected, None, None));
                if restore_started_at_ms > detected_at_ms {
                    out.push(entry(restore_started_at_ms, TimelineKind::RestoreStarted, Some(restore_from), None));
                }
            }
            Event::Restored { restore_from, offset } => {
                out.push(entry(at, TimelineKind::Restored, Some(restore_from), Some(offset)))
            }
            Event::RetentionExceeded { lost_events } => {
                out.push(entry(at, TimelineKind::RetentionExceeded, None, Some(lost_events)))
            }
            Event::TransactionTimedOut { checkpoint_id, .. } => {
                out.push(entry(at, TimelineKind::TransactionTimedOut, Some(checkpoint_id), None))
            }
            Event::ProducerFenced { .. } => out.push(entry(at, TimelineKind::ProducerFenced, None, None)),
            Event::JobFailed { .. } => out.push(entry(at, TimelineKind::JobFailed, None, None)),
            Event::ReplayDone { offset } => out.push(entry(at, TimelineKind::ReplayDone, None, Some(offset))),
            Event::CaughtUp { offset } => out.push(entry(at, TimelineKind::CaughtUp, None, Some(offset))),
            // Listed with the crash that fixed them, or not listed on the timeline.
            Event::Detected
            | Event::RestoreStarted { .. }
            | Event::AlignmentStarted { .. }
            | Event::UploadStarted { .. }
            | Event::Emitted { .. } => {}
        }
    }
    out
}

/// The per-second series of a run that started at `start_ms`.
pub fn series(trace: &Trace, start_ms: u64) -> Vec<Sample> {
    let staleness = |s: &SinkStalenessMs| SinkStaleness {
        append_only: s.append_only,
        upsert: s.upsert,
        transactional: s.transactional,
        dedupe_view: s.dedupe_view,
    };
    trace
        .samples
        .iter()
        .map(|s| Sample {
            at: Stamp::since(start_ms, s.at_ms),
            phase: s.phase,
            log_end: s.log_end,
            position: s.position,
            lag_events: s.lag_events,
            staleness_ms: staleness(&s.staleness_ms),
        })
        .collect()
}
