//! Append-only sink: every emission becomes a new row. Delivery guarantee: at least once. After a
//! restart the rows written since the restored checkpoint (the orphans) stay beside the rows the
//! replay writes again for the same keys.

use std::sync::Arc;

use super::Row;

#[derive(Clone, Debug, Default)]
pub struct AppendOnlySink {
    /// Shared with the report, which keeps the rows without copying them.
    rows: Arc<Vec<Row>>,
}

impl AppendOnlySink {
    /// Appends `rows`, in order.
    pub fn write_all(&mut self, rows: &[Row]) {
        if !rows.is_empty() {
            Arc::make_mut(&mut self.rows).extend_from_slice(rows);
        }
    }

    /// Room for `rows` more rows, so the table does not grow by copying itself.
    pub fn reserve(&mut self, rows: usize) {
        Arc::make_mut(&mut self.rows).reserve(rows);
    }

    /// The rows, shared.
    pub fn shared(&self) -> Arc<Vec<Row>> {
        Arc::clone(&self.rows)
    }

    /// Every row, in write order.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    pub(crate) fn take_rows(&mut self) -> Arc<Vec<Row>> {
        std::mem::take(&mut self.rows)
    }

    pub(crate) fn put_rows(&mut self, rows: Arc<Vec<Row>>) {
        self.rows = rows;
    }

    /// Copies up to `max_rows` more of `from`'s rows, which begin with this table's; returns
    /// how many it copied.
    pub(crate) fn copy_part(&mut self, from: &[Row], max_rows: usize) -> usize {
        super::copy_more(Arc::make_mut(&mut self.rows), from, max_rows)
    }
}
