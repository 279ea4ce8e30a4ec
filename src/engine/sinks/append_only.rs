//! Append-only sink: every emission becomes a new row. Delivery guarantee: at least once. After a
//! restart the rows written since the restored checkpoint (the orphans) stay beside the rows the
//! replay writes again for the same keys.

use super::Row;

#[derive(Clone, Debug, Default)]
pub struct AppendOnlySink {
    rows: Vec<Row>,
}

impl AppendOnlySink {
    pub fn write(&mut self, row: Row) {
        self.rows.push(row);
    }

    /// Room for `rows` more rows, so the table does not grow by copying itself.
    pub fn reserve(&mut self, rows: usize) {
        self.rows.reserve(rows);
    }

    /// Every row, in write order.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
}
