//! Dedupe view: the append-only table read through
//! `row_number() over (partition by product_id, window_start order by emitted_at desc) = 1`.
//! Tie-break: rows with the same emitted_at are ordered by order_count descending (running totals
//! only grow, so the larger one is the later emission), then by write order, latest first. It
//! returns exactly what the upsert sink holds; the orphans stay stored but are never read.

use std::collections::BTreeMap;

use super::Row;

/// The view over `rows` (in write order): one row per key, ordered by window start then product.
pub fn read(rows: &[Row]) -> Vec<Row> {
    let mut latest: BTreeMap<(u64, u32), Row> = BTreeMap::new();
    for row in rows {
        let key = (row.window_start_ms, row.product_id);
        let replace = match latest.get(&key) {
            None => true,
            // Later in write order wins a full tie, hence >= on the last comparison.
            Some(best) => (row.emitted_at_ms, row.order_count) >= (best.emitted_at_ms, best.order_count),
        };
        if replace {
            latest.insert(key, *row);
        }
    }
    latest.into_values().collect()
}
