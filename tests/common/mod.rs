//! Helpers shared by the integration tests: clock times, and running a crashed scenario next to
//! its failure-free twin until both can be compared.
#![allow(dead_code)]

use checkpoint_lab::engine::model::sinks::Row;
use checkpoint_lab::engine::settings::clock::parse_clock;
use checkpoint_lab::engine::settings::config::OffsetCommit;
use checkpoint_lab::engine::{Alignment, Config, Mode, Sim, Snapshots};

/// Milliseconds since midnight of a clock text like "10:00:45".
pub fn at(text: &str) -> u64 {
    parse_clock(text).expect("a valid clock time")
}

/// Sorted (product_id, window_start, order_count) of rows.
pub fn contents(rows: &[Row]) -> Vec<(u32, u64, u32)> {
    let mut c: Vec<_> = rows.iter().map(Row::content).collect();
    c.sort_unstable();
    c
}

/// Runs `config` (which has a crash) and its failure-free twin until the crashed job has caught
/// up and the horizon has ended, then closes both inputs at that instant and drains them, so both
/// have processed exactly the same events. Returns (crashed, failure_free).
pub fn run_past_recovery(config: &Config) -> (Sim, Sim) {
    let mut crashed = Sim::new(config).expect("a valid config");
    let mut truth = crashed.clone();
    truth.cancel_crashes();
    let mut until = config.end_ms();
    let limit = until + 3_600_000;
    crashed.run_until(until);
    while !crashed.all_recovered() {
        assert!(until < limit, "no catch-up within an hour past the horizon: {config:?}");
        until += 1_000;
        crashed.run_until(until);
    }
    truth.run_until(until);
    crashed.close_input_and_drain();
    truth.close_input_and_drain();
    (crashed, truth)
}

/// Multiset difference `a - b` of row contents; panics if `b` has a row `a` lacks.
pub fn extra_rows(a: &[Row], b: &[Row]) -> Vec<(u32, u64, u32)> {
    let (a, b) = (contents(a), contents(b));
    let mut extra = Vec::new();
    let mut j = 0;
    for row in a {
        if j < b.len() && b[j] == row {
            j += 1;
        } else {
            extra.push(row);
        }
    }
    assert_eq!(j, b.len(), "every failure-free row must also be in the crashed run's table");
    extra
}

/// The scenarios whose report digests the native and the browser builds must agree on.
pub fn digest_scenarios() -> Vec<(&'static str, Config)> {
    vec![
        ("default", Config::default()),
        (
            "unaligned-backpressure",
            Config { alignment: Alignment::Unaligned, backpressure_ms: 2_000, ..Config::default() },
        ),
        (
            "incremental-retries",
            Config { snapshots: Snapshots::Incremental, retry_rate: 0.02, seed: 7, ..Config::default() },
        ),
        ("tiny-interval", Config { interval_ms: 1_000, crash_at_ms: Some(36_031_500), ..Config::default() }),
        ("micro-batch", Config { mode: Mode::MicroBatch, crash_at_ms: Some(36_046_000), ..Config::default() }),
        ("offsets-on-timer", Config { offset_commit: OffsetCommit::OnTimer, ..Config::default() }),
    ]
}

/// FNV-1a over a report's JSON: small, stable and the same on every platform.
pub fn digest(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
