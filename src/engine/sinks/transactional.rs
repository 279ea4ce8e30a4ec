//! Transactional sink (two-phase commit per checkpoint epoch): rows go into the open transaction
//! of the current epoch; at checkpoint n's barrier that transaction is pre-committed, and it is
//! committed when checkpoint n completes, together with the source offsets and operator state.
//! A crash aborts everything not yet committed. Delivery guarantee: exactly once; readers see
//! output only at commits, so it lags by about the interval plus the checkpoint's duration.

use super::Row;

#[derive(Clone, Debug, Default)]
pub struct TransactionalSink {
    open: Vec<Row>,
    pre_committed: Vec<(u64, Vec<Row>)>,
    committed: Vec<Row>,
    /// For each commit: (checkpoint id, commit time, rows committed so far).
    commits: Vec<(u64, u64, usize)>,
    aborted_rows: u64,
}

impl TransactionalSink {
    pub fn write(&mut self, row: Row) {
        self.open.push(row);
    }

    /// At checkpoint `id`'s barrier: close the open transaction and pre-commit it.
    pub fn pre_commit(&mut self, id: u64) {
        let rows = std::mem::take(&mut self.open);
        self.pre_committed.push((id, rows));
    }

    /// Checkpoint `id` completed at `at_ms`: commit its transaction and any older pre-committed one.
    pub fn commit(&mut self, id: u64, at_ms: u64) {
        let (ready, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pre_committed).into_iter().partition(|(epoch, _)| *epoch <= id);
        self.pre_committed = waiting;
        for (_, rows) in ready {
            self.committed.extend(rows);
        }
        self.commits.push((id, at_ms, self.committed.len()));
    }

    /// A crash: the open and pre-committed transactions are aborted and their rows discarded.
    pub fn abort(&mut self) {
        self.aborted_rows += self.open.len() as u64;
        self.aborted_rows += self.pre_committed.iter().map(|(_, rows)| rows.len() as u64).sum::<u64>();
        self.open.clear();
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

    /// Each commit as (checkpoint id, commit time in ms, rows visible after it).
    pub fn commits(&self) -> &[(u64, u64, usize)] {
        &self.commits
    }
}
