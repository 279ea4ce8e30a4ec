//! Transactional sink (two-phase commit per checkpoint epoch): rows go into the open transaction
//! of the current epoch; at checkpoint n's barrier that transaction is pre-committed, and it is
//! committed when checkpoint n completes, together with the source offsets and operator state.
//! A crash aborts everything not yet committed. Delivery guarantee: exactly once; readers with
//! `isolation.level=read_committed` see output only at commits, so it lags by about the interval
//! plus the checkpoint's duration. Kafka's broker aborts a transaction that is still not
//! committed `transaction.timeout.ms` after it began: if that happens to a pre-committed one, its
//! rows are lost, since the completed checkpoint's offsets are already past them.
//!
//! Every row a transaction holds was also appended, in the same order, to the run's append-only
//! table, so an open or pre-committed transaction is kept as a range of that table's rows, and a
//! commit adds the range to the committed ones: the committed rows are those ranges of the
//! append-only table, in commit order, and a commit copies no row.
//!
//! In micro-batch mode there is no such transaction (Spark's `foreachBatch` is at-least-once): the
//! design becomes an idempotent write keyed by the batch id. Batch N's rows are visible as soon as
//! they are written; a re-run of batch N finds N already written and skips it.

use std::ops::Range;

/// A transaction pre-committed at its checkpoint's barrier, waiting for the commit.
#[derive(Clone, Debug)]
struct PreCommitted {
    epoch: u64,
    /// Its first row: when the broker's timeout for it started.
    began_at_ms: u64,
    /// Its timeout ran out before the barrier: the broker aborted it while it was still open.
    fenced: bool,
    /// Its rows, in the append-only table.
    rows: Range<usize>,
}

#[derive(Clone, Debug, Default)]
pub struct TransactionalSink {
    /// The open transaction's rows, in the append-only table.
    open: Range<usize>,
    /// When the open transaction began: its first row.
    open_since_ms: Option<u64>,
    pre_committed: Vec<PreCommitted>,
    /// Transactions whose timeout ran out while they were still open, before their barrier.
    fenced_transactions: u64,
    /// The ranges of the append-only table the committed rows are, in commit order.
    committed_ranges: Vec<Range<usize>>,
    /// Rows in those ranges.
    committed_len: usize,
    /// For each commit: (checkpoint id, commit time, rows committed so far).
    commits: Vec<(u64, u64, usize)>,
    aborted_rows: u64,
    /// Rows of pre-committed transactions the broker aborted at their timeout: lost.
    timed_out_rows: u64,
    /// Micro-batch mode: the newest batch id written, and rows of re-run batches skipped.
    last_batch_id: Option<u64>,
    skipped_rows: u64,
}

impl TransactionalSink {
    /// The append-only table grew to `appended` rows, the last written into the open
    /// transaction; the first of them was written at `at_ms`.
    pub fn write_appended(&mut self, appended: usize, at_ms: u64) {
        if appended > self.open.end {
            if self.open.is_empty() {
                self.open_since_ms.get_or_insert(at_ms);
            }
            self.open.end = appended;
        }
    }

    /// At checkpoint `id`'s barrier at `at_ms`: close the open transaction and pre-commit it.
    /// A transaction whose `timeout_ms` ran out while it was still open was aborted by the broker
    /// then, and its producer fenced: a real writer fails on its next send and the job restarts.
    /// The model counts it (the page warns) and carries on.
    pub fn pre_commit(&mut self, id: u64, at_ms: u64, timeout_ms: u64) {
        let end = self.open.end;
        let rows = std::mem::replace(&mut self.open, end..end);
        let began_at_ms = self.open_since_ms.take().unwrap_or(at_ms);
        let fenced = !rows.is_empty() && at_ms - began_at_ms >= timeout_ms;
        self.fenced_transactions += u64::from(fenced);
        self.pre_committed.push(PreCommitted { epoch: id, began_at_ms, fenced, rows });
    }

    /// The sink commits checkpoint `id`'s transaction and any older pre-committed one at `at_ms`,
    /// after the checkpoint completed or when a restored job commits it again; `keeps_rows` is
    /// false when the run keeps no rows, only counts them. A transaction whose timeout ran out
    /// after its pre-commit was aborted by the broker in the meantime: its checkpoint's offsets
    /// are already past its rows, so they are lost. (One that timed out while still open is
    /// counted at its pre-commit instead.) Returns the rows lost this way.
    pub fn commit(&mut self, id: u64, at_ms: u64, timeout_ms: u64, keeps_rows: bool) -> u64 {
        let (ready, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pre_committed).into_iter().partition(|t| t.epoch <= id);
        self.pre_committed = waiting;
        if ready.is_empty() {
            return 0;
        }
        let mut lost = 0;
        for t in ready {
            if at_ms > t.began_at_ms + timeout_ms && !t.fenced {
                lost += t.rows.len() as u64;
            } else if keeps_rows {
                self.add_committed(t.rows);
            }
        }
        self.timed_out_rows += lost;
        self.commits.push((id, at_ms, self.committed_len));
        lost
    }

    fn add_committed(&mut self, rows: Range<usize>) {
        if !rows.is_empty() {
            self.committed_len += rows.len();
            self.committed_ranges.push(rows);
        }
    }

    /// Micro-batch mode: batch `batch_id`'s rows, written at `at_ms` by an idempotent writer
    /// keyed by batch id, which are the append-only table's `rows`. A batch id already written
    /// is skipped. Returns whether it was written.
    pub fn write_batch(&mut self, batch_id: u64, rows: Range<usize>, at_ms: u64) -> bool {
        if self.last_batch_id.is_some_and(|last| batch_id <= last) {
            self.skipped_rows += rows.len() as u64;
            return false;
        }
        self.last_batch_id = Some(batch_id);
        self.add_committed(rows);
        self.commits.push((batch_id, at_ms, self.committed_len));
        true
    }

    /// A crash: the open transaction and those pre-committed for checkpoints that never completed
    /// (epochs after `completed_id`) are aborted and their rows discarded. Transactions of
    /// completed checkpoints stay pre-committed: the restored job commits them again.
    pub fn abort(&mut self, completed_id: u64) {
        self.aborted_rows += self.open.len() as u64;
        let (kept, aborted): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pre_committed).into_iter().partition(|t| t.epoch <= completed_id);
        self.aborted_rows += aborted.iter().map(|t| t.rows.len() as u64).sum::<u64>();
        self.pre_committed = kept;
        self.open = self.open.end..self.open.end;
        self.open_since_ms = None;
    }

    /// When the open transaction began (its first row), if it holds any.
    pub fn open_since_ms(&self) -> Option<u64> {
        self.open_since_ms
    }

    /// Transactions the broker aborted while still open (their timeout ran out before the
    /// barrier): a real writer is fenced and the job fails on its next send.
    pub fn fenced_transactions(&self) -> u64 {
        self.fenced_transactions
    }

    /// The ranges of the append-only table the committed rows are, in commit order.
    pub fn committed_ranges(&self) -> &[Range<usize>] {
        &self.committed_ranges
    }

    /// How many rows readers can see: those of committed transactions.
    pub fn committed_len(&self) -> usize {
        self.committed_len
    }

    /// Forgets the committed rows (a run that keeps no rows from now on).
    pub(super) fn forget_committed(&mut self) {
        self.committed_ranges.clear();
        self.committed_len = 0;
    }

    /// Rows written but never committed because a crash aborted their transaction.
    pub fn aborted_rows(&self) -> u64 {
        self.aborted_rows
    }

    /// Rows of pre-committed transactions the broker aborted at their transaction timeout.
    pub fn timed_out_rows(&self) -> u64 {
        self.timed_out_rows
    }

    /// Micro-batch mode: rows of re-run batches the idempotent writer skipped.
    pub fn skipped_rows(&self) -> u64 {
        self.skipped_rows
    }

    /// Each commit as (checkpoint id, commit time in ms, rows visible after it).
    pub fn commits(&self) -> &[(u64, u64, usize)] {
        &self.commits
    }
}
