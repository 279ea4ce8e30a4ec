//! A sink design's whole table, as the lesson page's "What the sink sees twice" loads it into
//! SQLite (`lesson::sink_table`, the lab's `sink_table`): the append-only rows are the ones the
//! engine wrote, every window, in write order; the seed's dedupe query over them (evaluated here
//! by its definition: per (product_id, window_start) the row with the latest emitted_at, ties to
//! the larger order_count) returns exactly the dedupe view's rows; and in the default scenario the
//! table holds the crash's orphans, which the query leaves unread.

mod common;

use std::collections::BTreeMap;

use checkpoint_lab::engine::settings::clock::ClockTime;
use checkpoint_lab::engine::{self, Config, SinkDesign};
use checkpoint_lab::lesson::sink_table::{sink_columns, sink_table, StoredRow};
use checkpoint_lab::lesson::{self, Report};

fn report_for(config: &Config) -> Report {
    lesson::simulate(config).expect("the scenario is valid")
}

/// The seed's query, by its definition: `row_number() over (partition by product_id,
/// window_start order by emitted_at desc, order_count desc) = 1`, as (product, window, count),
/// ordered by window start then product.
fn latest_per_key(rows: &[StoredRow]) -> Vec<(u32, u32, u32)> {
    let mut newest: BTreeMap<(u32, u32), (u32, u32)> = BTreeMap::new();
    for row in rows {
        let candidate = (row.emitted_at_ms, row.order_count);
        let best = newest.entry((row.window_start_ms, row.product_id)).or_insert(candidate);
        *best = (*best).max(candidate);
    }
    newest.into_iter().map(|((window, product), (_, count))| (product, window, count)).collect()
}

fn contents(rows: &[StoredRow]) -> Vec<(u32, u32, u32)> {
    rows.iter().map(|r| (r.product_id, r.window_start_ms, r.order_count)).collect()
}

#[test]
fn the_append_only_table_is_every_row_the_engine_wrote() {
    let config = Config::default();
    let report = report_for(&config);
    let table = sink_table(&report, SinkDesign::AppendOnly);
    // The report's table, row for row, with its times as clock text and as ms.
    assert_eq!(table.len(), report.tables.append_only.len());
    for (stored, row) in table.iter().zip(report.tables.append_only.iter()) {
        assert_eq!(stored.product_id, row.product_id);
        assert_eq!(stored.window_start_ms, row.window_start_ms);
        assert_eq!(stored.order_count, row.order_count);
        assert_eq!(stored.emitted_at_ms, row.emitted_at_ms);
        assert_eq!(stored.window_start, ClockTime(row.window_start_ms.into()).to_string());
        assert_eq!(stored.emitted_at, ClockTime(row.emitted_at_ms.into()).to_string());
    }
    // And the rows the engine's run wrote (what `checkpoint-lab sink-rows` prints), not filtered
    // by window: the lesson's run has more than one window.
    let outcome = engine::run(&config).unwrap();
    let written = outcome.run.sinks().read(SinkDesign::AppendOnly);
    assert_eq!(
        table.iter().map(|r| (r.product_id, r.window_start_ms, r.order_count, r.emitted_at_ms)).collect::<Vec<_>>(),
        written.iter().map(|r| (r.product_id, r.window_start_ms, r.order_count, r.emitted_at_ms)).collect::<Vec<_>>()
    );
    let windows: std::collections::BTreeSet<u32> = table.iter().map(|r| r.window_start_ms).collect();
    assert!(windows.len() > 1, "every window's rows: {windows:?}");
    assert_eq!(table.len() as u64, report.sinks.append_only.rows);
}

#[test]
fn the_default_scenario_stores_orphans_the_query_leaves_unread() {
    let report = report_for(&Config::default());
    let table = sink_table(&report, SinkDesign::AppendOnly);
    let view = sink_table(&report, SinkDesign::DedupeView);
    // Every emission is a row: 2 windows × 100 products read through the view.
    assert_eq!(view.len(), 200);
    assert!(table.len() > 50 * view.len(), "{} rows", table.len());
    let orphans: Vec<&StoredRow> = table.iter().filter(|r| r.orphan).collect();
    // The emissions after checkpoint 42's barrier (10:00:30) up to the crash (10:00:45), 100 keys each.
    assert_eq!(orphans.len(), 1_500);
    assert_eq!(orphans.len() as u64, report.sinks.append_only.duplicate_rows);
    let first = orphans.iter().map(|r| r.emitted_at.as_str()).min();
    let last = orphans.iter().map(|r| r.emitted_at.as_str()).max();
    assert_eq!((first, last), (Some("10:00:31"), Some("10:00:45")));
    // Each orphan was written again later by the replay, so the query never returns it.
    for orphan in orphans {
        assert!(
            table.iter().any(|r| !r.orphan
                && (r.product_id, r.window_start_ms, r.order_count)
                    == (orphan.product_id, orphan.window_start_ms, orphan.order_count)
                && r.emitted_at_ms > orphan.emitted_at_ms),
            "{orphan:?} is written again after the crash"
        );
    }
    assert!(view.iter().all(|r| !r.orphan));
}

#[test]
fn the_seed_query_over_the_append_only_table_is_the_dedupe_view() {
    for (name, config) in common::digest_scenarios() {
        let report = report_for(&config);
        let table = sink_table(&report, SinkDesign::AppendOnly);
        let view = sink_table(&report, SinkDesign::DedupeView);
        assert_eq!(latest_per_key(&table), contents(&view), "{name}");
        // The upsert table holds the same rows (the view's stated equivalence).
        assert_eq!(contents(&sink_table(&report, SinkDesign::Upsert)), contents(&view), "{name}");
    }
}

#[test]
fn the_columns_are_the_rows() {
    for (name, config) in common::digest_scenarios() {
        let report = report_for(&config);
        for design in SinkDesign::ALL {
            let rows = sink_table(&report, design);
            let columns = sink_columns(&report, design);
            let from_columns: Vec<(u32, u32, u32, u32, bool)> = (0..columns.product_id.len())
                .map(|i| {
                    let c = &columns;
                    (c.product_id[i], c.window_start_ms[i], c.order_count[i], c.emitted_at_ms[i], c.orphan[i] == 1)
                })
                .collect();
            let from_rows: Vec<(u32, u32, u32, u32, bool)> = rows
                .iter()
                .map(|r| (r.product_id, r.window_start_ms, r.order_count, r.emitted_at_ms, r.orphan))
                .collect();
            assert_eq!(from_columns, from_rows, "{name} {design:?}");
            assert_eq!(columns.window_start_ms.len(), columns.orphan.len(), "{name} {design:?}");
        }
    }
}
