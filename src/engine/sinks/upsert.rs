//! Upsert sink: keyed by (product_id, window_start); each write replaces the row for its key, so
//! the latest write wins. Delivery guarantee: effectively once for the final value. A reader can
//! see a value go backwards after a restart (the replay rewrites older running totals over the
//! orphaned newer one) and then forward again; each such step back is counted as a regression.

use super::Row;

/// The table: per window start (ascending), one slot per product.
#[derive(Clone, Debug, Default)]
pub struct UpsertSink {
    windows: Vec<(u64, Vec<Option<Row>>)>,
    /// The window written last: writes come grouped by window, so most find it here.
    last_window: usize,
    keys: u64,
    regressions: u64,
}

impl UpsertSink {
    pub fn write(&mut self, row: Row) {
        let w = match self.windows.get(self.last_window) {
            Some(&(start, _)) if start == row.window_start_ms => self.last_window,
            _ => {
                let w = match self.windows.binary_search_by_key(&row.window_start_ms, |&(start, _)| start) {
                    Ok(w) => w,
                    Err(w) => {
                        self.windows.insert(w, (row.window_start_ms, Vec::new()));
                        w
                    }
                };
                self.last_window = w;
                w
            }
        };
        let slots = &mut self.windows[w].1;
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
        let mut rows = Vec::with_capacity(self.keys as usize);
        rows.extend(self.windows.iter().flat_map(|(_, slots)| slots.iter().flatten().copied()));
        rows
    }

    /// About the bytes the table takes: a slot per product in each window.
    pub fn heap_bytes(&self) -> usize {
        let slots: usize = self.windows.iter().map(|(_, slots)| slots.capacity()).sum();
        slots * std::mem::size_of::<Option<Row>>()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(product_id: u32, window_start_ms: u64, order_count: u32) -> Row {
        Row { product_id, window_start_ms, order_count, emitted_at_ms: 0, boundary_ms: 0, attempt: 1, epoch: 1 }
    }

    #[test]
    fn keeps_the_latest_row_per_key_ordered_by_window_then_product() {
        let mut sink = UpsertSink::default();
        for r in [row(3, 600, 1), row(1, 600, 2), row(2, 0, 5), row(3, 600, 4), row(0, 300, 1), row(3, 600, 2)] {
            sink.write(r);
        }
        let keys: Vec<_> = sink.rows().iter().map(Row::content).collect();
        assert_eq!(keys, [(2, 0, 5), (0, 300, 1), (1, 600, 2), (3, 600, 2)]);
        assert_eq!((sink.len(), sink.regressions()), (4, 1));
    }
}
