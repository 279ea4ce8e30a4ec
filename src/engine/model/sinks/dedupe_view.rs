//! Dedupe view: the append-only table read through
//! `row_number() over (partition by product_id, window_start order by emitted_at desc) = 1`.
//! Tie-break: rows with the same emitted_at are ordered by order_count descending (running totals
//! only grow, so the larger one is the later emission), then by write order, latest first. It
//! returns exactly what the upsert sink holds; the orphans stay stored but are never read.

use std::collections::BTreeMap;

use super::keys::KeyIndex;
use super::Row;

/// The view over `rows` (in write order): one row per key, ordered by window start then product.
pub fn read(rows: &[Row]) -> Vec<Row> {
    match KeyIndex::of(&[rows]) {
        Some(index) => index.newest(rows),
        None => read_sparse(rows),
    }
}

/// Whether `row`, later in write order, replaces `best` as its key's newest row.
fn wins(row: &Row, best: &Row) -> bool {
    (row.emitted_at_ms, row.order_count) >= (best.emitted_at_ms, best.order_count)
}

/// The same view for keys spread too thin to number densely: per window start, one slot per
/// product.
fn read_sparse(rows: &[Row]) -> Vec<Row> {
    let mut latest: BTreeMap<u64, Vec<Option<Row>>> = BTreeMap::new();
    for row in rows {
        let slots = latest.entry(u64::from(row.window_start_ms)).or_default();
        let i = row.product_id as usize;
        if slots.len() <= i {
            slots.resize(i + 1, None);
        }
        if slots[i].is_none_or(|best| wins(row, &best)) {
            slots[i] = Some(*row);
        }
    }
    latest.into_values().flat_map(|slots| slots.into_iter().flatten()).collect()
}
