//! Upsert sink: keyed by (product_id, window_start); each write replaces the row for its key, so
//! the latest write wins. Delivery guarantee: effectively once for the final value. A reader can
//! see a value go backwards after a restart (the replay rewrites older running totals over the
//! orphaned newer one) and then forward again; each such step back is counted as a regression.

use std::collections::BTreeMap;

use super::Row;

/// The table: per window start, one slot per product.
#[derive(Clone, Debug, Default)]
pub struct UpsertSink {
    table: BTreeMap<u64, Vec<Option<Row>>>,
    keys: u64,
    regressions: u64,
}

impl UpsertSink {
    pub fn write(&mut self, row: Row) {
        let slots = self.table.entry(row.window_start_ms).or_default();
        let i = row.product_id as usize;
        if slots.len() <= i {
            slots.resize(i + 1, None);
        }
        match slots[i].replace(row) {
            Some(old) if row.order_count < old.order_count => self.regressions += 1,
            Some(_) => {}
            None => self.keys += 1,
        }
    }

    /// One row per key, ordered by window start then product.
    pub fn rows(&self) -> Vec<Row> {
        self.table.values().flat_map(|slots| slots.iter().flatten().copied()).collect()
    }

    /// Keys (rows) in the table.
    pub fn len(&self) -> u64 {
        self.keys
    }

    pub fn is_empty(&self) -> bool {
        self.keys == 0
    }

    /// Writes that replaced a row with a smaller running total.
    pub fn regressions(&self) -> u64 {
        self.regressions
    }
}
