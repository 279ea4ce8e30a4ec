//! Micro-batch mode (Spark Structured Streaming): at each trigger the driver plans a batch and
//! writes its end offsets to the offset log, the batch is read and processed at capacity, its
//! output goes to the sinks, the state store writes a new version, and a commit-log entry closes
//! the batch. Nothing is read between batches. A restart restores the state of the last committed
//! batch and reads the last offset-log entry: a batch without a commit entry runs again with
//! exactly the same offsets and batch time, so it produces the same output a second time.

use serde::Serialize;

use super::{JobPhase, Sim, TimelineKind};
use crate::engine::checkpoint::{transfer_ms, upload_bytes, CompletedCheckpoint, Snapshot};
use crate::engine::sinks::Row;

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

/// The batch in progress.
#[derive(Clone, Debug)]
pub(super) struct BatchRun {
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
    /// Output written at `output_at_ms`; the state store version uploads until `commits_at_ms`.
    Committing {
        processing_from_ms: u64,
        output_at_ms: u64,
        commits_at_ms: u64,
        size_bytes: u64,
        snapshot: Box<Snapshot>,
    },
}

impl Sim {
    /// The first offset-log entry: the committed batch the scenario starts from.
    pub(super) fn initial_offset_log(&self) -> Vec<OffsetLogEntry> {
        let c = &self.restore_point.0;
        vec![OffsetLogEntry {
            batch_id: c.id,
            planned_at_ms: c.barrier_at_ms,
            boundary_ms: c.barrier_at_ms,
            written_at_ms: c.barrier_at_ms,
            start_offset: c.offset,
            end_offset: c.offset,
            end_offsets: c.offsets.clone(),
        }]
    }

    pub(super) fn run_until_micro_batch(&mut self, until_ms: u64) {
        while self.now_ms < until_ms {
            self.handle_due();
            self.step_to_next_due(until_ms);
        }
    }

    /// Processes up to the next instant something is due (at most `until_ms`) and moves there.
    pub(super) fn step_to_next_due(&mut self, until_ms: u64) {
        let next = self.next_batch_due_ms().min(until_ms);
        self.process_batch_until(next);
        self.now_ms = next;
    }

    /// The next instant something happens: a sample, a crash, the restore, a batch stage ending.
    fn next_batch_due_ms(&self) -> u64 {
        let start = self.config.start_time_ms;
        let mut next = start + ((self.now_ms - start) / 1000 + 1) * 1000;
        if let Some(&crash) = self.crashes.front() {
            next = next.min(crash);
        }
        next = next.min(match self.phase {
            JobPhase::Down { restored_at_ms, .. } => restored_at_ms,
            JobPhase::Running => match &self.batch {
                None => self.next_trigger_ms,
                Some(BatchRun { entry, stage, .. }) => match stage {
                    BatchStage::Planning => entry.written_at_ms,
                    BatchStage::Processing { from_ms, from_position } => {
                        let events = u128::from(entry.end_offset - from_position);
                        let ms = (events * 1000).div_ceil(u128::from(self.config.capacity_per_s));
                        from_ms + ms as u64
                    }
                    BatchStage::Committing { commits_at_ms, .. } => *commits_at_ms,
                },
            },
        });
        next.max(self.now_ms + 1)
    }

    /// Reads and processes the batch up to where capacity allows by `t_ms`.
    fn process_batch_until(&mut self, t_ms: u64) {
        let Some(BatchRun { entry, stage: BatchStage::Processing { from_ms, from_position }, .. }) = &self.batch else {
            return;
        };
        let (from_ms, from_position) = (*from_ms, *from_position);
        let budget = u128::from(self.config.capacity_per_s) * u128::from(t_ms - from_ms) / 1000;
        let target = entry.end_offset.min(from_position + budget.min(u128::from(u64::MAX / 2)) as u64);
        let from = self.position();
        if target <= from {
            return;
        }
        self.process_in_log_order(from, target);
        // The replay ends the millisecond the readers are back at the crash offset.
        let capacity = self.config.capacity_per_s;
        let Some(r) = self.recoveries.last_mut() else { return };
        if r.restored_at_ms.is_some() && r.replay_done_at_ms.is_none() && target >= r.crash_offset {
            let events = u128::from(r.crash_offset.saturating_sub(from_position));
            let at_ms = from_ms + ((events * 1000).div_ceil(u128::from(capacity)) as u64);
            r.replay_done_at_ms = Some(at_ms);
            let offset = r.crash_offset;
            self.mark(at_ms, TimelineKind::ReplayDone, None, Some(offset));
        }
    }

    /// Moves the batch through every stage that is due now, and plans the next one on its trigger.
    pub(super) fn handle_batch_due(&mut self) {
        loop {
            let now = self.now_ms;
            let Some(batch) = &self.batch else {
                if now < self.next_trigger_ms || !self.plan_batch() {
                    return;
                }
                continue;
            };
            match &batch.stage {
                BatchStage::Planning if now >= batch.entry.written_at_ms => self.batch_planned(),
                BatchStage::Processing { .. } if self.position() >= batch.entry.end_offset => self.batch_output(),
                BatchStage::Committing { commits_at_ms, .. } if now >= *commits_at_ms => self.batch_committed(),
                _ => return,
            }
        }
    }

    /// At a trigger: re-runs the batch the offset log holds without a commit entry, or plans a new
    /// batch up to the log end. Returns false when there was nothing to run.
    fn plan_batch(&mut self) -> bool {
        let now = self.now_ms;
        let interval = self.config.interval_ms;
        let start = self.config.start_time_ms;
        // Triggers fall on multiples of the interval; a late batch is followed by the next at once.
        self.next_trigger_ms = start + ((now - start) / interval + 1) * interval;
        let committed = self.restore_point.0.id;
        if let Some(entry) = self.offset_log.last().filter(|e| e.batch_id > committed).cloned() {
            self.mark(now, TimelineKind::BatchRerun, Some(entry.batch_id), Some(entry.end_offset));
            let from_position = self.position();
            self.batch =
                Some(BatchRun { entry, rerun: true, stage: BatchStage::Processing { from_ms: now, from_position } });
            return true;
        }
        let position = self.position();
        let end_offset = self.log_end(now);
        let boundary_ms = self.input_closed_at_ms.map_or(now, |closed| now.min(closed));
        let last_boundary = self.offset_log.last().map_or(start, |e| e.boundary_ms);
        let closing = self.input_closed_at_ms.is_some() && boundary_ms > last_boundary;
        if end_offset == position && !closing {
            return false;
        }
        let entry = OffsetLogEntry {
            batch_id: self.next_checkpoint_id,
            planned_at_ms: now,
            boundary_ms,
            written_at_ms: now + self.config.sync_pause_ms,
            start_offset: position,
            end_offset,
            end_offsets: self.log.partition_offsets(end_offset),
        };
        self.batch = Some(BatchRun { entry, rerun: false, stage: BatchStage::Planning });
        true
    }

    /// The offset-log entry is durable: from now on a crash re-runs this batch.
    fn batch_planned(&mut self) {
        let now = self.now_ms;
        let Some(batch) = self.batch.as_mut() else { return };
        let entry = batch.entry.clone();
        batch.stage = BatchStage::Processing { from_ms: now, from_position: entry.start_offset };
        self.paused_ms += entry.written_at_ms - entry.planned_at_ms;
        self.next_checkpoint_id = entry.batch_id + 1;
        self.mark(now, TimelineKind::BatchPlanned, Some(entry.batch_id), Some(entry.end_offset));
        self.offset_log.push(entry);
    }

    /// Every planned offset is processed: the batch's output goes to the sinks (the transactional
    /// sink holds it in the batch's transaction) and the state store starts writing its version.
    fn batch_output(&mut self) {
        let now = self.now_ms;
        let attempt = self.attempt;
        let Some(batch) = self.batch.as_mut() else { return };
        let BatchStage::Processing { from_ms: processing_from_ms, .. } = batch.stage else { return };
        let (id, boundary_ms, end_offset) = (batch.entry.batch_id, batch.entry.boundary_ms, batch.entry.end_offset);
        let mut rows = Vec::new();
        self.state.emit_batch(boundary_ms, &self.shape, |e| {
            rows.push(Row {
                product_id: e.product_id,
                window_start_ms: e.window_start_ms,
                order_count: e.order_count,
                emitted_at_ms: now,
                boundary_ms,
                attempt,
                epoch: id,
            })
        });
        for row in rows {
            self.sinks.write(row);
        }
        self.sinks.transactional.pre_commit(id);
        self.newest_emitted_boundary_ms = self.newest_emitted_boundary_ms.max(boundary_ms);
        let size_bytes = upload_bytes(&self.config, self.events_since_snapshot);
        self.events_since_snapshot = 0;
        let snapshot =
            Snapshot { state: self.state.clone(), offsets: batch.entry.end_offsets.clone(), in_flight: Vec::new() };
        batch.stage = BatchStage::Committing {
            processing_from_ms,
            output_at_ms: now,
            commits_at_ms: now + transfer_ms(size_bytes, self.config.store_write_bytes_per_s),
            size_bytes,
            snapshot: Box::new(snapshot),
        };
        self.mark(now, TimelineKind::BatchOutput, Some(id), Some(end_offset));
    }

    /// The state store version is written: the sink transaction commits and the commit-log entry
    /// makes the batch complete. It is what a restart restores.
    fn batch_committed(&mut self) {
        let now = self.now_ms;
        let Some(BatchRun {
            entry,
            rerun,
            stage: BatchStage::Committing { processing_from_ms, output_at_ms, size_bytes, snapshot, .. },
        }) = self.batch.take()
        else {
            return;
        };
        let completed = CompletedCheckpoint {
            id: entry.batch_id,
            barrier_at_ms: entry.planned_at_ms,
            completed_at_ms: now,
            offset: entry.end_offset,
            offsets: entry.end_offsets.clone(),
            size_bytes,
            in_flight_bytes: 0,
            duration_ms: now - entry.planned_at_ms,
            alignment_ms: 0,
            sync_ms: if rerun { 0 } else { entry.written_at_ms - entry.planned_at_ms },
            processing_ms: output_at_ms - processing_from_ms,
            upload_ms: now - output_at_ms,
            attempt: self.attempt,
            position_at_completion: self.position(),
        };
        self.paused_ms += now - output_at_ms;
        let before = self.sinks.transactional.committed_rows().len();
        self.sinks.transactional.commit(entry.batch_id, now);
        if self.sinks.transactional.committed_rows().len() > before {
            self.newest_committed_boundary_ms = self.newest_committed_boundary_ms.max(entry.boundary_ms);
        }
        self.mark(now, TimelineKind::BatchCommitted, Some(entry.batch_id), Some(entry.end_offset));
        self.checkpoints.push(completed.clone());
        self.restore_point = (completed, *snapshot);
        // Back on the trigger schedule with a batch planned after the restore: caught up.
        self.caught_up = !rerun && now < self.next_trigger_ms;
        self.track_recovery();
    }

    /// At a crash: the batch in flight, if its offset-log entry was written (it will run again).
    pub(super) fn drop_batch_in_flight(&mut self) -> Option<u64> {
        let batch = self.batch.take()?;
        (!matches!(batch.stage, BatchStage::Planning)).then_some(batch.entry.batch_id)
    }

    /// Whether the micro-batch job has processed and committed everything up to the closed input.
    pub(super) fn batches_drained(&self, closed_at_ms: u64) -> bool {
        self.is_running()
            && self.batch.is_none()
            && self.position() == self.log_end(self.now_ms)
            && self.offset_log.last().is_some_and(|e| e.boundary_ms >= closed_at_ms)
            && self.restore_point.0.id == self.offset_log.last().map_or(0, |e| e.batch_id)
    }

    /// What the job is doing while running, in micro-batch mode.
    pub(super) fn batch_phase(&self) -> super::Phase {
        use super::Phase;
        match self.batch.as_ref().map(|b| &b.stage) {
            None => Phase::WaitingForTrigger,
            Some(BatchStage::Processing { .. }) => Phase::Running,
            Some(BatchStage::Planning | BatchStage::Committing { .. }) => Phase::SyncPause,
        }
    }
}
