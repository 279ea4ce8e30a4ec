//! Micro-batches (Spark Structured Streaming): at each trigger the driver plans a batch and
//! writes its end offsets to the offset log, the batch is read and processed at capacity, its
//! output goes to the sinks, the state store writes a new version, and a commit-log entry closes
//! the batch. Nothing is read between batches. A restart restores the state of the last committed
//! batch and reads the last offset-log entry: a batch without a commit entry runs again with
//! exactly the same offsets and batch time, so it produces the same output a second time.

use serde::Serialize;

use super::{Ctx, Due, RestorePoint};
use crate::engine::model::checkpoint::{transfer_ms, upload_bytes, Snapshot};
use crate::engine::model::job::Job;
use crate::engine::model::trace::Event;
use crate::engine::model::trace::Phase;
use crate::engine::settings::config::Config;

/// One offset-log entry: what batch `batch_id` reads, fixed before the batch runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OffsetLogEntry {
    pub batch_id: u64,
    /// When the driver planned the batch (its trigger).
    pub planned_at_ms: u64,
    /// The batch's event-time boundary: its input is every event before it.
    pub boundary_ms: u64,
    /// When the entry was durable in the offset log.
    pub written_at_ms: u64,
    /// Where the batch starts (the previous batch's end) and ends, summed over partitions.
    pub start_offset: u64,
    pub end_offset: u64,
    pub end_offsets: Vec<u64>,
}

/// A committed batch: its state store version and commit-log entry are written, so a restart
/// resumes after it.
#[derive(Clone, Debug, PartialEq)]
pub struct CommittedBatch {
    pub batch_id: u64,
    /// The batch's trigger (for a re-run: the trigger of the attempt that planned it).
    pub planned_at_ms: u64,
    pub committed_at_ms: u64,
    /// Sum of the partition offsets the batch read up to.
    pub end_offset: u64,
    pub end_offsets: Vec<u64>,
    /// Bytes of the state store version written.
    pub state_store_bytes: u64,
    /// Writing the offset-log entry (zero for a re-run: its entry was already written).
    pub offset_log_write_ms: u64,
    /// Reading and processing the batch.
    pub processing_ms: u64,
    /// Writing the state store version after the output.
    pub state_store_write_ms: u64,
    /// Which job attempt committed it.
    pub attempt: u32,
    /// The readers' total position at the commit (for the worst-case replay).
    pub position_at_commit: u64,
}

/// The batch in progress.
#[derive(Clone, Debug)]
struct BatchRun {
    entry: OffsetLogEntry,
    /// A batch from the offset log that had no commit entry, run again after a restart.
    rerun: bool,
    stage: BatchStage,
}

#[derive(Clone, Debug)]
enum BatchStage {
    /// Writing the offset-log entry (the fixed per-batch cost); nothing is read.
    Planning,
    /// Reading the planned offsets at capacity, from `from_position` at `from_ms`.
    Processing { from_ms: u64, from_position: u64 },
    /// Output written at `output_at_ms`; the state store version writes until `commits_at_ms`.
    Committing {
        processing_from_ms: u64,
        output_at_ms: u64,
        commits_at_ms: u64,
        state_store_bytes: u64,
        snapshot: Box<Snapshot>,
    },
}

/// The micro-batch driver: the offset log, the batch in progress, the trigger.
#[derive(Clone, Debug)]
pub struct MicroBatch {
    /// The id the next planned batch gets.
    pub next_batch_id: u64,
    pub next_trigger_ms: u64,
    batch: Option<BatchRun>,
    /// Every offset-log entry, in order; the first is the committed batch the scenario starts from.
    pub offset_log: Vec<OffsetLogEntry>,
}

impl MicroBatch {
    pub fn new(initial: &RestorePoint, first_trigger_ms: u64) -> MicroBatch {
        let at_ms = initial.started_at_ms();
        let first = OffsetLogEntry {
            batch_id: initial.id(),
            planned_at_ms: at_ms,
            boundary_ms: at_ms,
            written_at_ms: at_ms,
            start_offset: initial.offset(),
            end_offset: initial.offset(),
            end_offsets: initial.offsets().to_vec(),
        };
        MicroBatch {
            next_batch_id: initial.id() + 1,
            next_trigger_ms: first_trigger_ms,
            batch: None,
            offset_log: vec![first],
        }
    }

    /// The end of the batch stage in progress, or the next trigger.
    pub fn next_due_ms(&self, config: &Config) -> u64 {
        match &self.batch {
            None => self.next_trigger_ms,
            Some(BatchRun { entry, stage, .. }) => match stage {
                BatchStage::Planning => entry.written_at_ms,
                BatchStage::Processing { from_ms, from_position } => {
                    let events = u128::from(entry.end_offset - from_position);
                    let ms = (events * 1000).div_ceil(u128::from(config.capacity_per_s));
                    from_ms + ms as u64
                }
                BatchStage::Committing { commits_at_ms, .. } => *commits_at_ms,
            },
        }
    }

    /// Reads and processes the batch up to where capacity allows by `t_ms`. Returns where the
    /// processing stage started (instant and position) when it read anything.
    pub fn process_until(&self, t_ms: u64, config: &Config, job: &mut Job) -> Option<(u64, u64)> {
        let Some(BatchRun { entry, stage: BatchStage::Processing { from_ms, from_position }, .. }) = &self.batch else {
            return None;
        };
        let (from_ms, from_position) = (*from_ms, *from_position);
        let budget = u128::from(config.capacity_per_s) * u128::from(t_ms - from_ms) / 1000;
        let target = entry.end_offset.min(from_position + budget.min(u128::from(u64::MAX / 2)) as u64);
        let from = job.position();
        if target <= from {
            return None;
        }
        job.process_in_log_order(from, target);
        Some((from_ms, from_position))
    }

    /// Moves the batch one stage on if that is due now, or plans the next one on its trigger.
    pub(crate) fn on_due(&mut self, ctx: Ctx<'_>) -> Due {
        let now = ctx.now_ms;
        let Some(batch) = &self.batch else {
            return if now >= self.next_trigger_ms && self.plan(ctx) { Due::Again } else { Due::Idle };
        };
        match &batch.stage {
            BatchStage::Planning if now >= batch.entry.written_at_ms => self.planned(ctx),
            BatchStage::Processing { .. } if ctx.job.position() >= batch.entry.end_offset => self.output(ctx),
            BatchStage::Committing { commits_at_ms, .. } if now >= *commits_at_ms => return self.commit(ctx),
            _ => return Due::Idle,
        }
        Due::Again
    }

    /// At a trigger: re-runs the batch the offset log holds without a commit entry, or plans a new
    /// batch up to the log end. Returns false when there was nothing to run.
    fn plan(&mut self, ctx: Ctx<'_>) -> bool {
        let now = ctx.now_ms;
        let interval = ctx.config.interval_ms;
        let start = ctx.config.start_time_ms;
        // Triggers fall on multiples of the interval; a late batch is followed by the next at once.
        self.next_trigger_ms = start + ((now - start) / interval + 1) * interval;
        if let Some(entry) = self.offset_log.last().filter(|e| e.batch_id > ctx.committed_id).cloned() {
            ctx.trace.push(now, Event::BatchRerun { batch_id: entry.batch_id, end_offset: entry.end_offset });
            let from_position = ctx.job.position();
            self.batch =
                Some(BatchRun { entry, rerun: true, stage: BatchStage::Processing { from_ms: now, from_position } });
            return true;
        }
        let position = ctx.job.position();
        let end_offset = ctx.job.log_end(now);
        let closed = ctx.job.input_closed_at_ms;
        let boundary_ms = closed.map_or(now, |closed| now.min(closed));
        let last_boundary = self.offset_log.last().map_or(start, |e| e.boundary_ms);
        let closing = closed.is_some() && boundary_ms > last_boundary;
        if end_offset == position && !closing {
            return false;
        }
        // The offset-log write is the fixed cost of every batch (the setting barrier mode calls
        // the sync pause).
        let offset_log_write_ms = ctx.config.sync_pause_ms;
        let entry = OffsetLogEntry {
            batch_id: self.next_batch_id,
            planned_at_ms: now,
            boundary_ms,
            written_at_ms: now + offset_log_write_ms,
            start_offset: position,
            end_offset,
            end_offsets: ctx.job.log().partition_offsets(end_offset),
        };
        self.batch = Some(BatchRun { entry, rerun: false, stage: BatchStage::Planning });
        true
    }

    /// The offset-log entry is durable: from now on a crash re-runs this batch.
    fn planned(&mut self, ctx: Ctx<'_>) {
        let now = ctx.now_ms;
        let Some(batch) = self.batch.as_mut() else { return };
        let entry = batch.entry.clone();
        batch.stage = BatchStage::Processing { from_ms: now, from_position: entry.start_offset };
        ctx.job.paused_ms += entry.written_at_ms - entry.planned_at_ms;
        self.next_batch_id = entry.batch_id + 1;
        ctx.trace.push(now, Event::BatchPlanned { batch_id: entry.batch_id, end_offset: entry.end_offset });
        self.offset_log.push(entry);
    }

    /// Every planned offset is processed: `foreachBatch` writes the batch's output to the sinks
    /// (visible at once; the batch-id writer skips a batch it already wrote) and the state store
    /// starts writing its version.
    fn output(&mut self, ctx: Ctx<'_>) {
        let now = ctx.now_ms;
        let Some(batch) = self.batch.as_mut() else { return };
        let BatchStage::Processing { from_ms: processing_from_ms, .. } = batch.stage else { return };
        let (id, boundary_ms, end_offset) = (batch.entry.batch_id, batch.entry.boundary_ms, batch.entry.end_offset);
        let job = ctx.job;
        let rows = job.write_batch_output(now, boundary_ms, id);
        let state_store_bytes = upload_bytes(ctx.config, job.events_since_snapshot);
        job.events_since_snapshot = 0;
        let snapshot = job.snapshot(batch.entry.end_offsets.clone(), Vec::new());
        batch.stage = BatchStage::Committing {
            processing_from_ms,
            output_at_ms: now,
            commits_at_ms: now + transfer_ms(state_store_bytes, ctx.config.store_write_bytes_per_s),
            state_store_bytes,
            snapshot: Box::new(snapshot),
        };
        ctx.trace.push(now, Event::BatchOutput { batch_id: id, end_offset, rows });
    }

    /// The state store version is written: the batch goes to the commit path, where the
    /// commit-log entry makes it what a restart restores.
    fn commit(&mut self, ctx: Ctx<'_>) -> Due {
        let now = ctx.now_ms;
        let Some(BatchRun {
            entry,
            rerun,
            stage: BatchStage::Committing { processing_from_ms, output_at_ms, state_store_bytes, snapshot, .. },
        }) = self.batch.take()
        else {
            return Due::Idle;
        };
        let job = ctx.job;
        let committed = CommittedBatch {
            batch_id: entry.batch_id,
            planned_at_ms: entry.planned_at_ms,
            committed_at_ms: now,
            end_offset: entry.end_offset,
            end_offsets: entry.end_offsets,
            state_store_bytes,
            offset_log_write_ms: if rerun { 0 } else { entry.written_at_ms - entry.planned_at_ms },
            processing_ms: output_at_ms - processing_from_ms,
            state_store_write_ms: now - output_at_ms,
            attempt: job.attempt,
            position_at_commit: job.position(),
        };
        job.paused_ms += now - output_at_ms;
        // Back on the trigger schedule with a batch planned after the restore: caught up.
        job.caught_up = !rerun && now < self.next_trigger_ms;
        Due::Commit(RestorePoint::Batch(committed), snapshot)
    }

    /// A crash: the batch in flight is lost; it is discarded (and will run again) if its
    /// offset-log entry was written.
    pub fn crash(&mut self) -> Option<u64> {
        let batch = self.batch.take()?;
        (!matches!(batch.stage, BatchStage::Planning)).then_some(batch.entry.batch_id)
    }

    /// Whether every event up to the closed input is processed and committed.
    pub fn drained(&self, job: &Job, now_ms: u64, closed_at_ms: u64, committed_id: u64) -> bool {
        self.batch.is_none()
            && job.position() == job.log_end(now_ms)
            && self.offset_log.last().is_some_and(|e| e.boundary_ms >= closed_at_ms)
            && committed_id == self.offset_log.last().map_or(0, |e| e.batch_id)
    }

    /// The batch in progress, from its trigger to its commit.
    pub fn in_flight(&self) -> Option<u64> {
        self.batch.as_ref().map(|b| b.entry.batch_id)
    }

    pub fn phase(&self) -> Phase {
        match self.batch.as_ref().map(|b| &b.stage) {
            None => Phase::WaitingForTrigger,
            Some(BatchStage::Processing { .. }) => Phase::Running,
            Some(BatchStage::Planning | BatchStage::Committing { .. }) => Phase::SyncPause,
        }
    }
}
