//! Upsert sink: keyed by (product_id, window_start); each write replaces the row for its key, so
//! the latest write wins. Delivery guarantee: effectively once for the final value. A reader can
//! see a value go backwards after a restart (the replay rewrites older running totals over the
//! orphaned newer one) and then forward again; each such step back is counted as a regression.

use super::Row;

/// The table: per window start (ascending), one slot per product, each naming the row it holds
/// in the append-only table (every row written here was appended there first, in the same order)
/// with its count: `order_count << 32 | (index + 1)`, 0 for none.
#[derive(Clone, Debug, Default)]
pub struct UpsertSink {
    windows: Vec<(u64, Vec<u64>)>,
    /// The window written last: writes come grouped by window, so most find it here.
    last_window: usize,
    keys: u64,
    regressions: u64,
}

impl UpsertSink {
    /// Writes `rows`, in order, the append-only table's rows from `first_index` on.
    pub fn write_rows(&mut self, rows: &[Row], first_index: usize) {
        debug_assert!(first_index + rows.len() < u32::MAX as usize, "rows are numbered in 32 bits");
        let (mut i, mut keys, mut regressions) = (0, 0, 0);
        while i < rows.len() {
            let window_start_ms = rows[i].window_start_ms;
            // Rows come grouped by window: a run of them shares one lookup.
            let run = rows[i..].iter().position(|r| r.window_start_ms != window_start_ms).unwrap_or(rows.len() - i);
            let slots = self.window_slots(window_start_ms.into());
            for (k, row) in rows[i..i + run].iter().enumerate() {
                let p = row.product_id as usize;
                if slots.len() <= p {
                    slots.resize(p + 1, 0);
                }
                let index = (first_index + i + k) as u64;
                let old = std::mem::replace(&mut slots[p], (u64::from(row.order_count) << 32) | (index + 1));
                if old == 0 {
                    keys += 1;
                } else if row.order_count < (old >> 32) as u32 {
                    regressions += 1;
                }
            }
            i += run;
        }
        self.keys += keys;
        self.regressions += regressions;
    }

    /// The slots of the window starting at `start_ms`, added if new.
    fn window_slots(&mut self, start_ms: u64) -> &mut Vec<u64> {
        let w = match self.windows.get(self.last_window) {
            Some(&(start, _)) if start == start_ms => self.last_window,
            _ => {
                let w = match self.windows.binary_search_by_key(&start_ms, |&(start, _)| start) {
                    Ok(w) => w,
                    Err(w) => {
                        self.windows.insert(w, (start_ms, Vec::new()));
                        w
                    }
                };
                self.last_window = w;
                w
            }
        };
        &mut self.windows[w].1
    }

    /// One row per key, ordered by window start then product, read from `appended`, the
    /// append-only table the rows were written from.
    pub fn rows(&self, appended: &[Row]) -> Vec<Row> {
        let mut rows = Vec::with_capacity(self.keys as usize);
        let held = self.windows.iter().flat_map(|(_, slots)| slots.iter().filter(|&&slot| slot != 0));
        rows.extend(held.map(|&slot| appended[(slot & u64::from(u32::MAX)) as usize - 1]));
        rows
    }

    /// About the bytes the table takes: a slot per product in each window.
    pub fn heap_bytes(&self) -> usize {
        let slots: usize = self.windows.iter().map(|(_, slots)| slots.capacity()).sum();
        slots * std::mem::size_of::<u64>()
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

/// Which keys an upsert table would hold, a bit per product in each window: all a run needs of
/// the table while it runs (how many rows it holds). The table itself is the append-only rows
/// applied in order, so a run computed the fast way derives it from them once the run is over
/// (see [`Sinks::upsert`](super::Sinks::upsert)) instead of writing every row twice.
#[derive(Clone, Debug, Default)]
pub struct KeysWritten {
    /// Per window start (ascending): how many products from 0 on it holds without a gap, and
    /// one bit per product.
    windows: Vec<(u32, u32, Vec<u64>)>,
    last_window: usize,
    keys: u64,
}

impl KeysWritten {
    /// Notes the keys of `rows`.
    pub fn write_rows(&mut self, rows: &[Row]) {
        // Rows come grouped by window: a run of them shares one lookup.
        for run in rows.chunk_by(|a, b| a.window_start_ms == b.window_start_ms) {
            self.write_window(run[0].window_start_ms, run.iter().map(|r| r.product_id));
        }
    }

    /// Notes the keys of the window starting at `window_start_ms` for `products`.
    pub fn write_window(&mut self, window_start_ms: u32, products: impl Iterator<Item = u32> + Clone) {
        let w = self.window(window_start_ms);
        let Some(top) = products.clone().max() else { return };
        let window = &mut self.windows[w];
        // Once a window holds every product up to the largest one written, as it soon does,
        // an emission of no larger one holds no new key.
        if top < window.1 {
            return;
        }
        let bits = &mut window.2;
        if bits.len() <= top as usize / 64 {
            bits.resize(top as usize / 64 + 1, 0);
        }
        let mut keys = 0;
        for p in products {
            let (word, bit) = (p as usize / 64, 1u64 << (p % 64));
            keys += u64::from(bits[word] & bit == 0);
            bits[word] |= bit;
        }
        while bits.get(window.1 as usize / 64).is_some_and(|&word| word & (1u64 << (window.1 % 64)) != 0) {
            window.1 += 1;
        }
        self.keys += keys;
    }

    /// The window starting at `start_ms`, added if new.
    fn window(&mut self, start_ms: u32) -> usize {
        match self.windows.get(self.last_window) {
            Some(&(start, ..)) if start == start_ms => self.last_window,
            _ => {
                let w = match self.windows.binary_search_by_key(&start_ms, |&(start, ..)| start) {
                    Ok(w) => w,
                    Err(w) => {
                        self.windows.insert(w, (start_ms, 0, Vec::new()));
                        w
                    }
                };
                self.last_window = w;
                w
            }
        }
    }

    /// Keys written.
    pub fn len(&self) -> u64 {
        self.keys
    }

    pub fn is_empty(&self) -> bool {
        self.keys == 0
    }

    /// About the bytes the bits take.
    pub fn heap_bytes(&self) -> usize {
        self.windows.iter().map(|(.., bits)| bits.capacity() * std::mem::size_of::<u64>()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(product_id: u32, window_start_ms: u32, order_count: u32) -> Row {
        Row { product_id, window_start_ms, order_count, emitted_at_ms: 0, boundary_ms: 0, attempt: 1, epoch: 1 }
    }

    #[test]
    fn keeps_the_latest_row_per_key_ordered_by_window_then_product() {
        let mut sink = UpsertSink::default();
        let appended = [row(3, 600, 1), row(1, 600, 2), row(2, 0, 5), row(3, 600, 4), row(0, 300, 1), row(3, 600, 2)];
        // In two writes, the second's rows of three windows.
        sink.write_rows(&appended[..2], 0);
        sink.write_rows(&appended[2..], 2);
        let keys: Vec<_> = sink.rows(&appended).iter().map(Row::content).collect();
        assert_eq!(keys, [(2, 0, 5), (0, 300, 1), (1, 600, 2), (3, 600, 2)]);
        assert_eq!((sink.len(), sink.regressions()), (4, 1));
    }

    #[test]
    fn counts_the_keys_the_table_would_hold() {
        let rows: Vec<Row> = (0..500u32).map(|i| row((i * 37) % 130, (i % 7) * 300, i)).collect();
        let (mut sink, mut written) = (UpsertSink::default(), KeysWritten::default());
        for part in rows.chunks(23) {
            written.write_rows(part);
        }
        sink.write_rows(&rows, 0);
        assert_eq!(written.len(), sink.len());
        assert_eq!(written.len(), sink.rows(&rows).len() as u64);
    }
}
