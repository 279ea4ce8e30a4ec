//! A finished run ([`Outcome`]): the crashed simulation, its failure-free companion, and what is
//! kept with them for later runs of nearby settings: the companion's keyframes and what reports
//! read of its rows ([`TruthTables`], [`PrefixTables`]). The [`runner`](super::runner) makes
//! outcomes and reuses them; the report's passes ([`figures`](super::figures)) read them.

use std::sync::{Arc, Mutex, OnceLock};

use super::emissions::TruthEmissions;
use super::resume::Keyframe;
use crate::engine::model::sim::Sim;
use crate::engine::model::sinks::keys::KeyIndex;
use crate::engine::model::sinks::{same_in_order, Row};

/// A finished simulation and its failure-free companion (the same run without the crash).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub run: Sim,
    /// The failure-free companion, shared with later outcomes that move only the crash time.
    pub failure_free: Option<Arc<Sim>>,
    /// Keyframes of the failure-free run, for a later run that moves only the crash time.
    pub keyframes: Arc<Vec<Keyframe>>,
    /// What the report reads of the failure-free run's rows, shared with later runs that reuse it.
    pub truth_tables: Arc<TruthTables>,
    /// What reports read of first rows of the failure-free run's whole table (see
    /// [`AppendOnlySink::whole`](crate::engine::model::sinks::append_only::AppendOnlySink::whole)), shared with
    /// later failure-free runs that borrow it.
    pub prefix_tables: Arc<PrefixTables>,
    /// Rows the run's (appended, committed) tables start with that are copies of the failure-free
    /// run's, copied at the fork or when resumed at a keyframe: the report compares only the rest.
    pub shared_rows: (usize, usize),
    /// Whether the failure-free run borrowed its append-only table from an earlier failure-free
    /// run of the same data (see [`Sinks::discard_rows`](crate::engine::model::sinks::Sinks::discard_rows)):
    /// its rows' contents are its own, their times and epochs that run's, and it kept no upsert
    /// or committed table. Its keyframes and trace do not serve a crash move.
    pub truth_rows_borrowed: bool,
}

impl Outcome {
    /// The failure-free run (the run itself when there was no crash).
    pub fn truth(&self) -> &Sim {
        self.failure_free.as_deref().unwrap_or(&self.run)
    }

    /// Events processed by the run and by the failure-free companion after the fork.
    pub fn processed_events(&self) -> u64 {
        let shared = self.failure_free.as_ref().map_or(0, |truth| {
            let crash_at = self.run.recoveries.first().map_or(0, |r| r.crashed_at_ms);
            truth.log().log_end_at(crash_at) - truth.config.start_offset
        });
        self.run.processed_events() + self.failure_free.as_ref().map_or(0, |t| t.processed_events()) - shared
    }

    /// Whether `row` was written by an attempt that later crashed, after the checkpoint that
    /// attempt's recovery restored: its effect was rolled back and the replay writes it again.
    pub fn is_orphan(&self, row: &Row) -> bool {
        self.run.recoveries.iter().any(|r| r.crashed_attempt == row.attempt && row.epoch > r.restored.id())
    }
}

/// What the report reads of the failure-free run's append-only table, worked out on first use
/// and kept with the failure-free run: a run that moves only the crash time reuses that run, and
/// these with it, so its report goes over its own rows only.
#[derive(Debug, Default)]
pub struct TruthTables {
    /// Whether the rows come in boundary order (a failure-free run's emissions do).
    pub(super) in_boundary_order: OnceLock<bool>,
    /// The windows and products of the rows (`None`: too thin to number densely).
    pub(super) keys: OnceLock<Option<KeyIndex>>,
    /// The dedupe view of the rows.
    pub(super) view: OnceLock<Vec<Row>>,
    /// The rows by emit boundary and by key, for reading a run's table emission by emission.
    pub(super) by_boundary: OnceLock<Option<Arc<TruthEmissions>>>,
    /// What an upsert reader sees: the rows applied in order.
    pub(super) upsert: OnceLock<Vec<Row>>,
    /// How many of the committed rows are checked to hold, in order, the contents of the
    /// append-only table's first rows, and whether one did not.
    committed_checked: Mutex<(usize, bool)>,
}

/// What reports read of the first rows of one failure-free table, per number of rows: runs that
/// borrow the table (see [`Sinks::discard_rows`](crate::engine::model::sinks::Sinks::discard_rows)) and end
/// with as many rows share it. A few are kept: settings that leave the readers behind at the
/// horizon end with a row count of their own.
#[derive(Debug, Default)]
pub struct PrefixTables(Mutex<Vec<(usize, Arc<TruthTables>)>>);

impl PrefixTables {
    /// Row counts kept, the least recently used dropped first.
    const KEPT: usize = 8;

    /// What was read of the first `rows` rows, or `read` of them now, kept.
    pub fn get_or_add(&self, rows: usize, read: impl FnOnce() -> Arc<TruthTables>) -> Arc<TruthTables> {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let tables = match kept.iter().position(|(n, _)| *n == rows) {
            Some(i) => kept.remove(i).1,
            None => read(),
        };
        kept.push((rows, Arc::clone(&tables)));
        if kept.len() > Self::KEPT {
            kept.remove(0);
        }
        tables
    }
}

impl TruthTables {
    /// Whether the failure-free run's first `n` committed rows hold, in order, the contents of its
    /// first `n` appended rows (checked as far as asked, and kept).
    pub(super) fn committed_starts_as_appended(&self, committed: &[Row], appended: &[Row], n: usize) -> bool {
        let mut checked = self.committed_checked.lock().unwrap_or_else(|e| e.into_inner());
        let (done, differs) = *checked;
        if n <= done {
            return true;
        }
        if differs || n > committed.len() || n > appended.len() {
            return false;
        }
        let same = same_in_order(&committed[done..n], &appended[done..n]);
        *checked = if same { (n, false) } else { (done, true) };
        same
    }
}
