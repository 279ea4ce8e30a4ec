//! Resumed runs: a keyframe of a failure-free run, from which a later run of the same settings
//! but a later crash starts instead of the scenario start, and the failure-free companion forked
//! off a run at its crash instead of simulated from the start. Both must give the run simulated
//! whole ([`Sim::new`] or [`Sim::per_event`] run to the end): tests/determinism.rs
//! (`reusing_the_failure_free_run_gives_the_same_report`) and tests/fast_path.rs hold them to it.

use std::sync::Arc;

use crate::engine::model::operators::JobState;
use crate::engine::model::protocol::{OffsetLogEntry, RestorePoint};
use crate::engine::model::sim::{rows_until_ms, Sim};
use crate::engine::model::sinks::Row;
use crate::engine::settings::config::Config;

/// A failure-free run's state at one instant, without its append-only table and its trace: the
/// run's final table and trace begin with those, so only their lengths are kept (the
/// transactions, committed or not, are ranges of the append-only table). A later run of the
/// same settings whose crash comes at or after this instant starts here ([`Sim::resume`])
/// instead of from the scenario start: a crash-time change simulates only what it changes.
#[derive(Clone, Debug)]
pub struct Keyframe {
    sim: Sim,
    appended_rows: usize,
    trace_events: usize,
    trace_samples: usize,
}

impl Keyframe {
    /// The instant the keyframe was taken.
    pub fn at_ms(&self) -> u64 {
        self.sim.now_ms
    }

    /// Rows of the append-only table then, and of the committed rows (ranges of it).
    pub fn table_rows(&self) -> (usize, usize) {
        (self.appended_rows, self.sim.job.sinks.transactional.committed_len())
    }
}

impl Sim {
    /// The failure-free companion forked off here: this run with its crashes cancelled, except
    /// that its append-only table (of which the committed rows are ranges) starts empty, so the
    /// fork costs no copy of it. [`Sim::copy_rows_part`] copies it in parts before it runs on.
    pub fn fork_failure_free(&mut self) -> Sim {
        let table = self.job.sinks.take_table();
        let mut truth = self.clone();
        truth.crashes.clear();
        truth.note_snapshot_needs();
        // Room for the rows to copy and for those still to come, so the table does not grow by
        // copying itself.
        let to_come = truth.job.rows_to_come(truth.now_ms, truth.config.end_ms());
        truth.job.sinks.reserve_table(table.rows().len(), to_come);
        self.job.sinks.put_table(table);
        truth
    }

    /// The failure-free companion forked off here, keeping no rows: its append-only table is
    /// known to be the first rows of `known`, the table of an earlier failure-free run of the
    /// same data (see [`Sinks::discard_rows`]), which it borrows when it is over
    /// ([`Sim::borrow_rows`]). Its upsert table and committed rows stay empty.
    pub fn fork_failure_free_discarding(&mut self, known: usize) -> Sim {
        let table = self.job.sinks.take_table();
        let mut truth = self.clone();
        truth.crashes.clear();
        truth.note_snapshot_needs();
        truth.job.sinks.discard_rows(table.rows().len(), known);
        self.job.sinks.put_table(table);
        truth
    }

    /// Takes the first rows of `known` as this run's append-only table, as many as it wrote
    /// (see [`Sim::fork_failure_free_discarding`]).
    pub fn borrow_rows(&mut self, known: &Arc<Vec<Row>>) {
        self.job.sinks.borrow_rows(known);
    }

    /// A keyframe of this run now, which must be failure-free up to now (see [`Keyframe`]).
    pub fn keyframe(&mut self) -> Keyframe {
        debug_assert!(self.job.snapshots_keep_state, "a keyframe of a run whose snapshots keep no state");
        let table = self.job.sinks.take_table();
        let trace = std::mem::take(&mut self.trace);
        let keyframe = Keyframe {
            appended_rows: table.rows().len(),
            trace_events: trace.events.len(),
            trace_samples: trace.samples.len(),
            sim: self.clone(),
        };
        self.job.sinks.put_table(table);
        self.trace = trace;
        keyframe
    }

    /// About the bytes a keyframe of this run now would keep: its state, the restore point's
    /// snapshot and one in flight (counted as large as the state), upsert table, restore points
    /// and (micro-batch mode) offset log.
    pub fn keyframe_bytes(&self) -> usize {
        let offsets = self.job.read_offsets.len() * std::mem::size_of::<u64>();
        let restore_points = self.restore_points.len() * (std::mem::size_of::<RestorePoint>() + 2 * offsets);
        // Empty in barrier mode.
        let offset_log = self.offset_log().len() * (std::mem::size_of::<OffsetLogEntry>() + offsets);
        std::mem::size_of::<Sim>()
            + 2 * self.job.state.heap_bytes()
            + self.snapshot.state.as_ref().map_or(0, JobState::heap_bytes)
            + self.job.sinks.upsert_heap_bytes()
            + restore_points
            + offset_log
    }

    /// The run of `config` resumed at `keyframe`, taken from a failure-free run of the same
    /// settings but the crash time, which comes at or after the keyframe; `whole` is that
    /// failure-free run, finished, whose tables and trace begin with what the keyframe left out.
    /// Moving only the crash time later than a keyframe so skips simulating up to it again. The
    /// two growing tables start empty: [`Sim::copy_resumed_rows_part`] copies them in parts.
    pub fn resume(keyframe: &Keyframe, config: &Config, whole: &Sim) -> Sim {
        let mut sim = keyframe.sim.clone();
        sim.config = config.clone();
        sim.crashes = config.crash_at_ms.into_iter().collect();
        sim.note_snapshot_needs();
        let to_come = sim.job.rows_to_come(sim.now_ms, rows_until_ms(config));
        sim.job.sinks.reserve_table(keyframe.appended_rows, to_come);
        let to_end_s = config.end_ms().saturating_sub(sim.now_ms) / 1000 + 1;
        sim.trace.events = whole.trace.events[..keyframe.trace_events].to_vec();
        sim.trace.samples = Vec::with_capacity(keyframe.trace_samples + to_end_s as usize);
        sim.trace.samples.extend_from_slice(&whole.trace.samples[..keyframe.trace_samples]);
        sim
    }

    /// Copies up to `max_rows` more rows of the run this one was forked from (see
    /// [`Sim::fork_failure_free`]); returns true once it holds them all.
    pub fn copy_rows_part(&mut self, from: &Sim, max_rows: usize) -> bool {
        self.job.sinks.copy_table_part(from.job.sinks.append_only.rows(), max_rows)
    }

    /// Copies up to `max_rows` more of the first `appended` rows of `whole`'s append-only table:
    /// those a keyframe left out, which this run, resumed at it, starts with (see
    /// [`Sim::resume`]). Returns true once this run holds them all.
    pub fn copy_prefix_rows_part(&mut self, whole: &Sim, appended: usize, max_rows: usize) -> bool {
        let all = whole.job.sinks.append_only.rows();
        self.job.sinks.copy_table_part(&all[..appended.min(all.len())], max_rows)
    }
}
