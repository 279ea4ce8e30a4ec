//! A sink design's whole table at the end of a run, every window, row by row: what the lesson
//! page's "What the sink sees twice" loads into SQLite (the append-only rows, as `stream_sink`)
//! and what it compares the dedupe query's result with (the dedupe view's rows). Times are given
//! both as clock text and as milliseconds since midnight, the unit the SQL table stores.

use serde::Serialize;

use crate::engine::settings::clock::ClockTime;
use crate::engine::SinkDesign;
use crate::lesson::Report;

/// One row of a sink's table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredRow {
    pub product_id: u32,
    /// "10:00:00"
    pub window_start: String,
    pub window_start_ms: u32,
    pub order_count: u32,
    /// "10:00:44" (with milliseconds where they are not zero)
    pub emitted_at: String,
    pub emitted_at_ms: u32,
    /// Written by an attempt that then crashed, after the checkpoint its restart restored: an
    /// orphan, which the replay writes again.
    pub orphan: bool,
}

/// Every row `design`'s table holds at the end of the run, in the order the report keeps them:
/// the append-only table in write order, every emission a row; the upsert table and the dedupe
/// view (what the view returns over the append-only table) one row per key, ordered by window
/// start then product; the transactional sink's committed rows in commit order.
pub fn sink_table(report: &Report, design: SinkDesign) -> Vec<StoredRow> {
    let tables = &report.tables;
    tables
        .read(design)
        .iter()
        .map(|row| StoredRow {
            product_id: row.product_id,
            window_start: ClockTime(row.window_start_ms.into()).to_string(),
            window_start_ms: row.window_start_ms,
            order_count: row.order_count,
            emitted_at: ClockTime(row.emitted_at_ms.into()).to_string(),
            emitted_at_ms: row.emitted_at_ms,
            orphan: tables.is_orphan(row),
        })
        .collect()
}

/// The same rows as [`sink_table`], a column each, for a page to hand to JavaScript as typed
/// arrays: one call, no object or string per row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SinkColumns {
    pub product_id: Vec<u32>,
    pub window_start_ms: Vec<u32>,
    pub order_count: Vec<u32>,
    pub emitted_at_ms: Vec<u32>,
    /// 1 for an orphan, else 0.
    pub orphan: Vec<u8>,
}

/// [`sink_table`] as columns.
pub fn sink_columns(report: &Report, design: SinkDesign) -> SinkColumns {
    let tables = &report.tables;
    let rows = tables.read(design);
    let mut columns = SinkColumns {
        product_id: Vec::with_capacity(rows.len()),
        window_start_ms: Vec::with_capacity(rows.len()),
        order_count: Vec::with_capacity(rows.len()),
        emitted_at_ms: Vec::with_capacity(rows.len()),
        orphan: Vec::with_capacity(rows.len()),
    };
    for row in rows {
        columns.product_id.push(row.product_id);
        columns.window_start_ms.push(row.window_start_ms);
        columns.order_count.push(row.order_count);
        columns.emitted_at_ms.push(row.emitted_at_ms);
        columns.orphan.push(u8::from(tables.is_orphan(row)));
    }
    columns
}
