//! Barrier checkpoints (Flink): every interval the coordinator triggers checkpoint n and injects
//! its barrier into each partition at the reader's position. Aligned, the operator holds every
//! input whose barrier has arrived until the barrier is in on all of them; unaligned, it
//! snapshots at once and stores the records the barrier overtook. The snapshot pauses processing
//! for the sync cost, then uploads; when the upload is done the checkpoint completes. One
//! checkpoint is in flight at a time: a trigger that finds one running waits for it. Between
//! instants the job reads continuously, one millisecond at a time, or in one pass while it is
//! caught up and nothing is pending.

use super::{Ctx, Due, RestorePoint};
use crate::engine::model::checkpoint::{
    in_flight_limit_records, transfer_ms, upload_bytes, CompletedCheckpoint, PendingCheckpoint, PendingStage, Upload,
};
use crate::engine::model::job::Job;
use crate::engine::model::trace::Phase;
use crate::engine::model::trace::{Event, Trace};
use crate::engine::settings::config::{Alignment, CheckpointingMode, Config};

/// The checkpoint coordinator.
#[derive(Clone, Debug)]
pub struct Barrier {
    /// The id the next trigger gives its checkpoint.
    pub next_checkpoint_id: u64,
    pub next_trigger_ms: u64,
    pub pending: Option<PendingCheckpoint>,
}

impl Barrier {
    pub fn new(next_checkpoint_id: u64, next_trigger_ms: u64) -> Barrier {
        Barrier { next_checkpoint_id, next_trigger_ms, pending: None }
    }

    /// The epoch rows emitted now belong to: the checkpoint whose barrier comes after them. While
    /// an operator aligns, that is the pending checkpoint; after its snapshot, the next one.
    pub fn open_epoch(&self) -> u64 {
        match &self.pending {
            Some(PendingCheckpoint { id, stage: PendingStage::Aligning, .. }) => *id,
            _ => self.next_checkpoint_id,
        }
    }

    /// The barrier offsets an aligning operator waits on.
    pub fn aligning_on(&self) -> Option<&[u64]> {
        match &self.pending {
            Some(PendingCheckpoint { stage: PendingStage::Aligning, barrier_offsets, .. }) => Some(barrier_offsets),
            _ => None,
        }
    }

    /// Whether processing is paused for a snapshot's synchronous phase at `now_ms`.
    pub fn paused(&self, now_ms: u64) -> bool {
        matches!(&self.pending, Some(PendingCheckpoint { stage: PendingStage::Syncing(u), .. }) if now_ms < u.from_ms)
    }

    pub fn next_due_ms(&self, now_ms: u64, job: &Job) -> u64 {
        job.state.windows.next_boundary_ms.max(now_ms + 1).min(self.next_stage_ms())
    }

    /// When the coordinator next has work: the sync pause ends, the upload completes, or the
    /// next trigger.
    pub fn next_stage_ms(&self) -> u64 {
        match &self.pending {
            Some(PendingCheckpoint { stage: PendingStage::Syncing(u), .. }) => u.from_ms,
            Some(PendingCheckpoint { stage: PendingStage::Uploading(u), .. }) => u.completes_at_ms,
            _ => self.next_trigger_ms,
        }
    }

    /// At an instant: the pause ends and the upload starts; an upload that is done completes the
    /// checkpoint; then a trigger that may have waited for it.
    pub(crate) fn on_due(&mut self, ctx: Ctx<'_>) -> Due {
        let now = ctx.now_ms;
        if let Some(pending) = &mut self.pending {
            if let PendingStage::Syncing(u) = &pending.stage {
                if now >= u.from_ms {
                    let PendingStage::Syncing(upload) = std::mem::replace(&mut pending.stage, PendingStage::Aligning)
                    else {
                        unreachable!("matched above")
                    };
                    ctx.trace.push(
                        now,
                        Event::UploadStarted {
                            checkpoint_id: pending.id,
                            size_bytes: upload.size_bytes,
                            completes_at_ms: upload.completes_at_ms,
                        },
                    );
                    pending.stage = PendingStage::Uploading(upload);
                }
            }
            if matches!(&pending.stage, PendingStage::Uploading(u) if u.completes_at_ms <= now) {
                return self.complete(ctx);
            }
        }
        if self.pending.is_none() && now >= self.next_trigger_ms {
            self.trigger(ctx);
        }
        Due::Idle
    }

    fn trigger(&mut self, ctx: Ctx<'_>) {
        let now = ctx.now_ms;
        let id = self.next_checkpoint_id;
        self.next_checkpoint_id += 1;
        self.next_trigger_ms = now + ctx.config.interval_ms;
        let mut barrier_offsets = ctx.job.read_offsets.clone();
        if ctx.config.alignment == Alignment::Unaligned {
            // The network buffers bound what a channel holds: the source has read at most that
            // far ahead of the operator, and its barrier sits there.
            let limit = in_flight_limit_records(ctx.config);
            for (barrier, &done) in barrier_offsets.iter_mut().zip(&ctx.job.processed_offsets) {
                *barrier = (*barrier).min(done + limit);
            }
        }
        ctx.trace.push(now, Event::BarrierInjected { checkpoint_id: id, offset: barrier_offsets.iter().sum() });
        self.pending =
            Some(PendingCheckpoint { id, barrier_at_ms: now, barrier_offsets, stage: PendingStage::Aligning });
        if ctx.config.alignment == Alignment::Unaligned || ctx.job.all_arrived() {
            self.take_snapshot(now, ctx.config, ctx.job, ctx.trace);
        } else {
            ctx.job.caught_up = false;
            ctx.trace.push(now, Event::AlignmentStarted { checkpoint_id: id });
        }
    }

    /// The operator snapshots its state: the sync pause starts, then the upload.
    fn take_snapshot(&mut self, now: u64, config: &Config, job: &mut Job, trace: &mut Trace) {
        let Some(pending) = self.pending.as_mut() else { return };
        let in_flight: Vec<(u64, u64, u64)> = (0..job.processed_offsets.len())
            .filter(|&p| job.processed_offsets[p] < pending.barrier_offsets[p])
            .map(|p| (p as u64, job.processed_offsets[p], pending.barrier_offsets[p]))
            .collect();
        let in_flight_events: u64 = in_flight.iter().map(|(_, from, to)| to - from).sum();
        let past_barrier_events: u64 =
            job.processed_offsets.iter().zip(&pending.barrier_offsets).map(|(done, b)| done.saturating_sub(*b)).sum();
        let in_flight_bytes = in_flight_events * config.record_bytes;
        let size_bytes = upload_bytes(config, job.events_since_snapshot) + in_flight_bytes;
        job.events_since_snapshot = 0;
        let from_ms = now + config.sync_pause_ms;
        let completes_at_ms = from_ms + transfer_ms(size_bytes, config.store_write_bytes_per_s);
        let snapshot = job.snapshot(pending.barrier_offsets.clone(), in_flight);
        let id = pending.id;
        let aligned_late = now > pending.barrier_at_ms;
        let upload = Upload {
            snapshot: Box::new(snapshot),
            snapshot_at_ms: now,
            from_ms,
            completes_at_ms,
            size_bytes,
            in_flight_bytes,
            past_barrier_events,
        };
        if config.sync_pause_ms > 0 {
            job.caught_up = false;
            pending.stage = PendingStage::Syncing(upload);
        } else {
            pending.stage = PendingStage::Uploading(upload);
        }
        // The sink pre-commits the epoch's transaction at the barrier; later rows open the next one.
        job.sinks.transactional.pre_commit(id, now, config.transaction_timeout_ms);
        if aligned_late {
            trace.push(now, Event::AlignmentEnded { checkpoint_id: id });
        }
        trace.push(now, Event::SnapshotTaken { checkpoint_id: id });
        if config.sync_pause_ms == 0 {
            trace.push(now, Event::UploadStarted { checkpoint_id: id, size_bytes, completes_at_ms });
        }
    }

    /// All acks are in and the upload is done: the checkpoint goes to the commit path.
    fn complete(&mut self, ctx: Ctx<'_>) -> Due {
        let now = ctx.now_ms;
        let Some(pending) = self.pending.take() else { return Due::Idle };
        let PendingStage::Uploading(upload) = pending.stage else {
            unreachable!("only an uploading checkpoint completes")
        };
        let completed = CompletedCheckpoint {
            id: pending.id,
            barrier_at_ms: pending.barrier_at_ms,
            completed_at_ms: now,
            offset: pending.barrier_offsets.iter().sum(),
            offsets: pending.barrier_offsets,
            size_bytes: upload.size_bytes,
            in_flight_bytes: upload.in_flight_bytes,
            past_barrier_events: upload.past_barrier_events,
            duration_ms: now - pending.barrier_at_ms,
            alignment_ms: upload.snapshot_at_ms - pending.barrier_at_ms,
            sync_ms: upload.from_ms - upload.snapshot_at_ms,
            upload_ms: now - upload.from_ms,
            attempt: ctx.job.attempt,
            position_at_completion: ctx.job.position(),
        };
        Due::Commit(RestorePoint::Checkpoint(completed), upload.snapshot)
    }

    /// Whether the job may skip ahead in one pass: caught up, not paused, no input held or delayed.
    pub fn can_take_fast_path(&self, now_ms: u64, config: &Config, job: &Job) -> bool {
        job.caught_up
            && job.input_closed_at_ms.is_none()
            && !self.paused(now_ms)
            && config.backpressure_ms == 0
            && config.capacity_per_s >= config.rate_per_s
            && self.aligning_on().is_none()
    }

    /// Caught up and nothing pending: the whole log up to `until_ms` is processed in log order.
    pub fn fast_path(&self, now_ms: u64, until_ms: u64, job: &mut Job, trace: &mut Trace) {
        let from = job.log_end(now_ms);
        let to = job.log_end(until_ms);
        job.process_in_log_order(from, to);
        job.emit(until_ms, to, self.open_epoch(), trace);
    }

    /// Whether the readers, behind, may be moved on to the next instant that matters in one go:
    /// reading in log order, nothing held, delayed or paused.
    pub fn can_catch_up_in_one_go(&self, now_ms: u64, config: &Config, job: &Job) -> bool {
        config.backpressure_ms == 0 && self.aligning_on().is_none() && !self.paused(now_ms) && job.reads_in_log_order()
    }

    /// Behind and reading in log order: the milliseconds from `now_ms` read as
    /// [`Barrier::step_one_ms`] reads them, up to `until_ms` or the first that catches up, lets an
    /// emit boundary pass or reaches `stop_at`; then what passed is emitted. Returns that instant.
    pub fn catch_up(
        &self,
        now_ms: u64,
        until_ms: u64,
        stop_at: Option<u64>,
        config: &Config,
        job: &mut Job,
        trace: &mut Trace,
    ) -> u64 {
        let (end_ms, position) = job.read_in_log_order_until(config, now_ms, until_ms, stop_at);
        job.emit(end_ms, position, self.open_epoch(), trace);
        end_ms
    }

    /// One millisecond of reading and processing from `now_ms`; an aligning operator whose
    /// barriers are all in snapshots at its end. Returns false when the sync pause held it.
    pub fn step_one_ms(&mut self, now_ms: u64, config: &Config, job: &mut Job, trace: &mut Trace) -> bool {
        let end_of_step = now_ms + 1;
        if self.paused(now_ms) {
            job.paused_ms += 1;
            job.caught_up = false;
            return false;
        }
        let log_total = job.log_end(end_of_step);
        let aligning = self.aligning_on().is_some();
        // Exactly once holds the inputs whose barrier arrived; at least once keeps reading them,
        // so their records after the barrier enter the snapshot's state.
        let hold = if config.checkpointing_mode == CheckpointingMode::ExactlyOnce { self.aligning_on() } else { None };
        // With one input there is nothing to hold: the snapshot only waits for the barrier.
        if hold.is_some() && config.partitions > 1 {
            job.aligning_ms += 1;
        }
        if config.backpressure_ms == 0 && !aligning && job.reads_in_log_order() {
            let position = job.read_in_log_order(config, log_total);
            job.emit(end_of_step, position, self.open_epoch(), trace);
            return true;
        }
        let lag = job.read_by_partition(config, log_total, end_of_step, hold);
        job.emit(end_of_step, job.watermark(), self.open_epoch(), trace);
        if let Some(barriers) = self.aligning_on() {
            if job.processed_offsets.iter().zip(barriers).all(|(done, b)| done >= b) {
                self.take_snapshot(end_of_step, config, job, trace);
            }
        }
        job.caught_up = lag == 0;
        true
    }

    /// A crash discards the checkpoint in flight.
    pub fn crash(&mut self, _now_ms: u64) -> Option<u64> {
        self.pending.take().map(|p| p.id)
    }

    /// Drained: caught up, nothing travelling or pending, and the last emit boundary past the input's end.
    pub fn drained(&self, job: &Job, _now_ms: u64, closed_at_ms: u64) -> bool {
        job.caught_up
            && job.channel_empty()
            && self.pending.is_none()
            && job.state.windows.next_boundary_ms > closed_at_ms
    }

    pub fn phase(&self, now_ms: u64, config: &Config) -> Phase {
        if self.paused(now_ms) {
            Phase::SyncPause
        } else if self.aligning_on().is_some()
            && config.checkpointing_mode == CheckpointingMode::ExactlyOnce
            && config.partitions > 1
        {
            Phase::Aligning
        } else {
            Phase::Running
        }
    }
}
