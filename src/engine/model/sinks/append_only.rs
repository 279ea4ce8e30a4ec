//! Append-only sink: every emission becomes a new row. Delivery guarantee: at least once. After a
//! restart the rows written since the restored checkpoint (the orphans) stay beside the rows the
//! replay writes again for the same keys.

use std::sync::Arc;

use super::{Row, SharedRows};

#[derive(Clone, Debug, Default)]
pub struct AppendOnlySink {
    pub(super) rows: SharedRows,
}

impl AppendOnlySink {
    /// The rows, shared with the report, which keeps them without copying.
    pub fn shared(&self) -> Arc<Vec<Row>> {
        self.rows.shared()
    }

    /// Every row, in write order.
    pub fn rows(&self) -> &[Row] {
        self.rows.rows()
    }

    /// The whole table the rows are the first rows of: a longer one when they are borrowed (see
    /// [`Sinks::borrow_rows`](super::Sinks::borrow_rows)), else the rows.
    pub fn whole(&self) -> &Arc<Vec<Row>> {
        self.rows.whole()
    }
}
