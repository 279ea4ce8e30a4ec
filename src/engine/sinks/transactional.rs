//! Transactional sink (two-phase commit per checkpoint epoch): rows go into the open transaction
//! of the current epoch; at checkpoint n's barrier that transaction is pre-committed, and it is
//! committed when checkpoint n completes, together with the source offsets and operator state.
//! A crash aborts everything not yet committed. Delivery guarantee: exactly once; readers with
//! `isolation.level=read_committed` see output only at commits, so it lags by about the interval
//! plus the checkpoint's duration. Kafka's broker aborts a transaction that is still not
//! committed `transaction.timeout.ms` after it began: if that happens to a pre-committed one, its
//! rows are lost, since the completed checkpoint's offsets are already past them.
//!
//! In micro-batch mode there is no such transaction (Spark's `foreachBatch` is at-least-once): the
//! design becomes an idempotent write keyed by the batch id. Batch N's rows are visible as soon as
//! they are written; a re-run of batch N finds N already written and skips it.

use super::Row;

#[derive(Clone, Debug, Default)]
pub struct TransactionalSink {
    open: Vec<Row>,
    /// When the open transaction began: its first row.
    open_since_ms: Option<u64>,
    /// Pre-committed transactions: (epoch, when it began, rows).
    pre_committed: Vec<(u64, u64, Vec<Row>)>,
    committed: Vec<Row>,
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
    pub fn write(&mut self, row: Row) {
        self.open_since_ms.get_or_insert(row.emitted_at_ms);
        self.open.push(row);
    }

    /// At checkpoint `id`'s barrier at `at_ms`: close the open transaction and pre-commit it.
    pub fn pre_commit(&mut self, id: u64, at_ms: u64) {
        let rows = std::mem::take(&mut self.open);
        let began_at_ms = self.open_since_ms.take().unwrap_or(at_ms);
        self.pre_committed.push((id, began_at_ms, rows));
    }

    /// Checkpoint `id` completed at `at_ms`: commit its transaction and any older pre-committed
    /// one. A transaction that began more than `timeout_ms` ago was already aborted by the broker:
    /// its rows are lost. Returns the rows lost this way.
    pub fn commit(&mut self, id: u64, at_ms: u64, timeout_ms: u64) -> u64 {
        let (ready, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pre_committed).into_iter().partition(|(epoch, _, _)| *epoch <= id);
        self.pre_committed = waiting;
        let mut lost = 0;
        for (_, began_at_ms, rows) in ready {
            if at_ms - began_at_ms > timeout_ms {
                lost += rows.len() as u64;
            } else {
                self.committed.extend(rows);
            }
        }
        self.timed_out_rows += lost;
        self.commits.push((id, at_ms, self.committed.len()));
        lost
    }

    /// Micro-batch mode: batch `batch_id`'s rows, written at `at_ms` by an idempotent writer
    /// keyed by batch id. A batch id already written is skipped. Returns whether it was written.
    pub fn write_batch(&mut self, batch_id: u64, rows: &[Row], at_ms: u64) -> bool {
        if self.last_batch_id.is_some_and(|last| batch_id <= last) {
            self.skipped_rows += rows.len() as u64;
            return false;
        }
        self.last_batch_id = Some(batch_id);
        self.committed.extend_from_slice(rows);
        self.commits.push((batch_id, at_ms, self.committed.len()));
        true
    }

    /// A crash: the open and pre-committed transactions are aborted and their rows discarded.
    pub fn abort(&mut self) {
        self.aborted_rows += self.open.len() as u64;
        self.aborted_rows += self.pre_committed.iter().map(|(_, _, rows)| rows.len() as u64).sum::<u64>();
        self.open.clear();
        self.open_since_ms = None;
        self.pre_committed.clear();
    }

    /// Rows readers can see: those of committed transactions, in commit order.
    pub fn committed_rows(&self) -> &[Row] {
        &self.committed
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
