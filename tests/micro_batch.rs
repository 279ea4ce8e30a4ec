//! Micro-batch mode against its promises: a batch with an offset-log entry and no commit entry
//! runs again with identical offsets; state after recovery equals the failure-free state; the
//! idempotent sink (foreachBatch keyed by batch id) gets no duplicates; replay and latency follow
//! the trigger interval; state store versions hold what changed, never the whole state.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use checkpoint_lab::engine::model::protocol::{CommittedBatch, RestorePoint};
use checkpoint_lab::engine::model::sinks::{dedupe_view, duplicate_rows, SinkDesign};
use checkpoint_lab::engine::model::trace::Event;
use checkpoint_lab::engine::{Config, Mode, Sim, Snapshots};
use checkpoint_lab::lesson::simulate;
use common::{at, contents, extra_rows, run_past_recovery};

fn micro_batch() -> Config {
    Config { mode: Mode::MicroBatch, ..Config::default() }
}

/// The committed batch `id` of the attempt after the crash, if any.
fn committed_again(sim: &Sim, id: u64) -> Option<&CommittedBatch> {
    sim.restore_points.iter().filter_map(RestorePoint::as_batch).find(|b| b.batch_id == id && b.attempt == 2)
}

/// Whether the run's trace holds a re-run of a batch (of batch `id`, if given).
fn reran(sim: &Sim, id: Option<u64>) -> bool {
    sim.trace
        .events
        .iter()
        .any(|e| matches!(e.event, Event::BatchRerun { batch_id, .. } if id.is_none_or(|id| id == batch_id)))
}

#[test]
fn the_default_trigger_plans_commits_and_reruns_batch_42() {
    // Crash at 10:00:45.200: batch 42 (planned 10:00:30, offsets 1,000,000 to 1,060,000) has
    // written its output at 10:00:45.100 and is writing its state store version; there is no
    // commit entry yet.
    let config = Config { crash_at_ms: Some(at("10:00:45.200")), ..micro_batch() };
    let outcome = checkpoint_lab::engine::run(&config).unwrap();
    let run = &outcome.run;
    let entry = run.offset_log().iter().find(|e| e.batch_id == 42).expect("batch 42 was planned");
    assert_eq!((entry.planned_at_ms, entry.written_at_ms), (at("10:00:30"), at("10:00:30.100")));
    assert_eq!((entry.start_offset, entry.end_offset), (1_000_000, 1_060_000));
    assert_eq!(run.offset_log().iter().filter(|e| e.batch_id == 42).count(), 1, "the entry is written once");
    let recovery = &run.recoveries[0];
    assert_eq!(recovery.restored.id(), 41);
    assert_eq!(recovery.discarded_checkpoint, Some(42));
    // 60,000 events at 4,000 events/s: processed by 10:00:45.100, so all of them are read again.
    assert_eq!(recovery.crash_offset, 1_060_000);
    let rerun = committed_again(run, 42).expect("batch 42 runs again and commits");
    assert_eq!(rerun.end_offsets, entry.end_offsets, "the re-run reads exactly the logged offsets");
    assert_eq!(rerun.planned_at_ms, entry.planned_at_ms, "the re-run keeps the batch time");
    assert!(reran(run, Some(42)));
    // Its output went to the sinks twice: the append-only table holds each row of batch 42 twice.
    let report = outcome.report();
    let orphans = run.sinks().append_only.rows().iter().filter(|r| outcome.is_orphan(r)).count() as u64;
    assert_eq!(orphans, 100, "one row per product of the 10:00 window");
    assert_eq!(report.sinks.append_only.duplicate_rows, orphans);
    // The same offsets from the same state give the same totals: the upsert never steps back.
    assert_eq!(report.sinks.upsert.regressions, 0);
    assert_eq!(report.sinks.transactional.duplicate_rows, 0);
    assert!(report.sinks.transactional.matches_failure_free);
    assert!(report.sinks.upsert.matches_failure_free && report.sinks.dedupe_view.matches_failure_free);
    assert!(!report.sinks.append_only.matches_failure_free);
}

#[test]
fn a_crash_between_batches_replays_nothing() {
    // Batch 42 commits at 10:00:45.300 (a 200 MB state store delta, 30 s of a 5-minute window's 2 GB, at 1 GB/s after its output at
    // 10:00:45.100); batch 43 is planned at 10:01:00.
    let config = Config { crash_at_ms: Some(at("10:00:50")), ..micro_batch() };
    let outcome = checkpoint_lab::engine::run(&config).unwrap();
    let recovery = &outcome.run.recoveries[0];
    assert_eq!(recovery.restored.id(), 42);
    assert_eq!(recovery.restored.completed_at_ms(), at("10:00:45.300"));
    assert_eq!(recovery.discarded_checkpoint, None);
    let report = outcome.report();
    assert_eq!(report.replayed_events, 0);
    assert!(!reran(&outcome.run, None));
    assert_eq!(report.sinks.append_only.duplicate_rows, 0);
    // The first batch after the restart reads everything that arrived since batch 42 ended.
    let first = outcome.run.offset_log().iter().find(|e| e.planned_at_ms >= recovery.restored_at_ms.unwrap()).unwrap();
    assert_eq!(first.start_offset, 1_060_000);
    assert_eq!(first.end_offset, outcome.run.log().log_end_at(first.planned_at_ms));
}

#[test]
fn every_crash_between_offset_log_and_commit_log_reruns_the_batch_exactly() {
    // Each second of two batches' lives, from the trigger to past the commit.
    for interval_ms in [10_000, 30_000] {
        for crash_ms in (at("10:00:30")..at("10:01:10")).step_by(1_000) {
            let config =
                Config { interval_ms, crash_at_ms: Some(crash_ms + 500), horizon_ms: 240_000, ..micro_batch() };
            let (crashed, truth) = run_past_recovery(&config);
            let why = format!("interval {interval_ms} crash {crash_ms}");
            let recovery = &crashed.recoveries[0];
            let in_flight = crashed
                .offset_log()
                .iter()
                .find(|e| e.batch_id == recovery.restored.id() + 1 && e.written_at_ms <= recovery.crashed_at_ms);
            match in_flight {
                Some(entry) => {
                    assert_eq!(recovery.discarded_checkpoint, Some(entry.batch_id), "{why}");
                    let rerun = committed_again(&crashed, entry.batch_id).expect("re-run");
                    assert_eq!(rerun.end_offsets, entry.end_offsets, "{why}");
                    assert_eq!(entry.start_offset, recovery.restored.offset(), "{why}");
                    assert!(
                        recovery.crash_offset - recovery.restored.offset() <= entry.end_offset - entry.start_offset
                    );
                }
                None => {
                    assert_eq!(recovery.discarded_checkpoint, None, "{why}");
                    assert!(!reran(&crashed, None), "{why}");
                }
            }
            // State after recovery equals the failure-free state.
            assert!(crashed.state().same_content(truth.state()), "state differs: {why}");
            assert_eq!(crashed.state().seen_ids(), truth.state().seen_ids(), "{why}");
            let (run, free) = (&crashed.sinks(), &truth.sinks());
            assert_eq!(contents(&run.read(SinkDesign::Upsert)), contents(&free.read(SinkDesign::Upsert)), "{why}");
            assert_eq!(
                contents(&run.read(SinkDesign::DedupeView)),
                contents(&free.read(SinkDesign::DedupeView)),
                "{why}"
            );
            // The transactional sink never commits a row twice, and ends on the same totals.
            let committed = run.read(SinkDesign::Transactional);
            assert_eq!(duplicate_rows(&committed), 0, "{why}");
            assert_eq!(
                contents(&run.read(SinkDesign::Upsert)),
                contents(&dedupe_view::read(&committed)),
                "transactional newest totals: {why}"
            );
            // Append-only: every row of the re-run batch's first attempt is stored twice.
            let restored_id = recovery.restored.id();
            let orphans: Vec<_> =
                run.append_only.rows().iter().filter(|r| r.attempt == 1 && r.epoch > restored_id).collect();
            assert_eq!(duplicate_rows(run.append_only.rows()), orphans.len() as u64, "{why}");
            assert_eq!(run.upsert().regressions(), 0, "{why}");
            let mut orphan_rows: Vec<_> = orphans.iter().map(|r| r.content()).collect();
            orphan_rows.sort_unstable();
            let mut doubled = extra_rows(run.append_only.rows(), &dedupe_view::read(run.append_only.rows()));
            doubled.retain(|row| orphan_rows.binary_search(row).is_ok());
            assert_eq!(doubled.len(), 2 * orphan_rows.len(), "orphans and their re-runs: {why}");
        }
    }
}

#[test]
fn replay_and_latency_follow_the_trigger_interval() {
    let rate = Config::default().rate_per_s;
    let mut previous_staleness = 0;
    for interval_ms in [10_000u64, 30_000, 60_000, 120_000] {
        let config = Config { interval_ms, crash_at_ms: None, ..micro_batch() };
        let report = simulate(&config).unwrap();
        // A crash just before a commit re-runs the whole batch: rate x trigger interval.
        assert_eq!(report.worst_case_replay_events, rate * interval_ms / 1000, "{interval_ms}");
        assert_eq!(report.steady_state.worst_case_replay_events, report.worst_case_replay_events);
        // Latency is at least the trigger interval for every sink, and grows with it.
        for sink in [&report.sinks.append_only, &report.sinks.upsert, &report.sinks.transactional] {
            assert!(sink.staleness_max_ms >= interval_ms, "{interval_ms}: {}", sink.staleness_max_ms);
        }
        assert!(report.sinks.upsert.staleness_max_ms > previous_staleness);
        previous_staleness = report.sinks.upsert.staleness_max_ms;
        // Batches start on the trigger grid.
        for pair in report.checkpoints[1..].windows(2) {
            assert_eq!(pair[1].barrier_at.s - pair[0].barrier_at.s, interval_ms as f64 / 1000.0);
        }
        // A crash anywhere replays at most one batch.
        for crash in [at("10:02:07"), at("10:03:33"), at("10:05:01")] {
            let crashed = simulate(&Config { interval_ms, crash_at_ms: Some(crash), ..micro_batch() }).unwrap();
            assert!(crashed.replayed_events <= rate * interval_ms / 1000, "{interval_ms} {crash}");
        }
    }
}

#[test]
fn barrier_and_micro_batch_differ_on_the_same_crash() {
    let crash = Some(at("10:00:45.200"));
    let barrier = simulate(&Config { crash_at_ms: crash, ..Config::default() }).unwrap();
    let batch = simulate(&Config { crash_at_ms: crash, ..micro_batch() }).unwrap();
    // Barriers restore checkpoint 42 (barrier at 10:00:30); the batch restores batch 41.
    assert_eq!(barrier.restored_checkpoint.as_ref().unwrap().id, 42);
    assert_eq!(batch.restored_checkpoint.as_ref().unwrap().id, 41);
    assert_eq!(barrier.replayed_events, 30_400);
    assert_eq!(batch.replayed_events, 60_000);
    // The upsert steps back after a barrier restore, never after a batch re-run.
    assert!(barrier.sinks.upsert.regressions > 0);
    assert_eq!(batch.sinks.upsert.regressions, 0);
    // Output every second versus once per trigger.
    assert!(batch.sinks.upsert.staleness_max_ms > 3 * barrier.sinks.upsert.staleness_max_ms.min(30_000) / 2);
    assert!(batch.crash_table.iter().any(|r| r.what.contains("committed again with the same offsets")));
}

#[test]
fn state_store_versions_hold_deltas_and_a_slow_store_stretches_the_cycle() {
    // Spark's state stores write what changed in a batch: the snapshots setting changes nothing.
    let incremental =
        simulate(&Config { snapshots: Snapshots::Incremental, crash_at_ms: None, ..micro_batch() }).unwrap();
    let full = simulate(&Config { crash_at_ms: None, ..micro_batch() }).unwrap();
    assert_eq!(incremental.store_write_bytes_per_min, full.store_write_bytes_per_min);
    assert_eq!(incremental.checkpoints, full.checkpoints);
    // 30 s of a 5-minute window's state: a tenth of 2 GB per batch, not 2 GB.
    let batch_bytes = full.checkpoints[1].size_bytes;
    assert!(batch_bytes < 2_000_000_000 / 5, "{batch_bytes}");
    // Barrier mode with full snapshots does write the whole state each time.
    let barrier = simulate(&Config { crash_at_ms: None, ..Config::default() }).unwrap();
    assert!(barrier.store_write_bytes_per_min > 5 * full.store_write_bytes_per_min);
    // At 10 MB/s a 1 s trigger's 6.7 MB delta takes 0.67 s, plus 0.1 s of offset log and 0.5 s of
    // processing: 1.27 s > 1 s, so batches run back to back.
    let overloaded =
        Config { interval_ms: 1_000, store_write_bytes_per_s: 10_000_000, crash_at_ms: None, ..micro_batch() };
    let overloaded = simulate(&overloaded).unwrap();
    assert!(overloaded.store_limited);
    assert!(overloaded.warnings.iter().any(|w| w.contains("longer than the 1 s trigger interval")));
    let spacing = overloaded.checkpoints[3].barrier_at.s - overloaded.checkpoints[2].barrier_at.s;
    assert!(spacing > 1.2, "batches run back to back: {spacing}");
}

/// Spark's sink contract: `foreachBatch` is at-least-once; exactly once comes from an idempotent
/// write keyed by the batch id. A crash after batch 42's write and before `commits/42` leaves the
/// first attempt's rows in every sink; the re-run writes them again.
#[test]
fn spark_sinks_before_the_write_between_write_and_commit_and_after_the_commit() {
    // Batch 42: planned 10:00:30, output written 10:00:45.100, commits/42 at 10:00:45.300.
    for (crash, rerun, append_duplicates) in
        [("10:00:40", true, false), ("10:00:45.200", true, true), ("10:00:50", false, false)]
    {
        let config = Config { crash_at_ms: Some(at(crash)), ..micro_batch() };
        let outcome = checkpoint_lab::engine::run(&config).unwrap();
        let (run, report) = (&outcome.run, outcome.report());
        assert_eq!(reran(run, Some(42)), rerun, "{crash}");
        let batch_42 = |rows: &[checkpoint_lab::engine::model::sinks::Row], attempt: u32| {
            rows.iter().filter(|r| r.epoch == 42 && r.attempt == attempt).count()
        };
        let appended = run.sinks().append_only.rows();
        let written_once = &run.sinks().committed_rows()[..];
        // The first attempt's rows stay where they were written: nothing aborts them.
        let first_attempt_wrote = append_duplicates || crash == "10:00:50";
        assert_eq!(batch_42(appended, 1) > 0, first_attempt_wrote, "{crash}");
        assert_eq!(batch_42(written_once, 1) > 0, first_attempt_wrote, "{crash}");
        // The re-run appends its rows again, and the idempotent writer skips them.
        assert_eq!(report.sinks.append_only.duplicate_rows > 0, append_duplicates, "{crash}");
        assert_eq!(batch_42(written_once, 2) > 0, rerun && !append_duplicates, "{crash}");
        assert_eq!(run.sinks().transactional.skipped_rows() > 0, append_duplicates, "{crash}");
        assert_eq!(report.sinks.transactional.duplicate_rows, 0, "{crash}");
        assert_eq!(report.sinks.transactional.aborted_rows, 0, "no transaction to abort: {crash}");
        assert!(report.sinks.transactional.matches_failure_free, "{crash}");
        assert!(report.sinks.upsert.matches_failure_free && report.sinks.dedupe_view.matches_failure_free);
        assert_eq!(report.sinks.upsert.regressions, 0, "{crash}");
    }
}

mod properties {
    //! Random micro-batch scenarios against their failure-free twin (1,000 cases).
    use super::*;
    use proptest::prelude::*;

    fn scenario() -> impl Strategy<Value = Config> {
        (
            (1u32..=24, 50u64..=5_000, 1.3f64..4.0, 1_000u64..=60_000),
            (prop_oneof![Just(1_000_000u64), 1_000_000u64..=5_000_000_000], any::<bool>()),
            (prop_oneof![Just(0.0f64), 0.0f64..0.2], 1u64..=119_999, any::<u64>(), 1u32..=300),
        )
            .prop_map(|((partitions, rate_per_s, headroom, interval_ms), (state_bytes, incremental), rest)| {
                let (retry_rate, crash_after_ms, seed, products) = rest;
                Config {
                    mode: Mode::MicroBatch,
                    seed,
                    partitions,
                    rate_per_s,
                    capacity_per_s: ((rate_per_s as f64) * headroom).ceil() as u64,
                    interval_ms,
                    state_bytes,
                    snapshots: if incremental { Snapshots::Incremental } else { Snapshots::Full },
                    retry_rate,
                    products,
                    window_ms: 60_000,
                    crash_at_ms: Some(at("10:00:00") + crash_after_ms),
                    horizon_ms: 120_000,
                    ..Config::default()
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

        #[test]
        fn recovery_matches_the_failure_free_run(config in scenario()) {
            // Batches that outlast their trigger never get back on schedule: nothing to compare.
            prop_assume!(!simulate(&Config { crash_at_ms: None, ..config.clone() }).unwrap().store_limited);
            let (crashed, truth) = run_past_recovery(&config);
            prop_assert!(crashed.state().same_content(truth.state()));
            prop_assert_eq!(crashed.state().seen_ids(), truth.state().seen_ids());
            let (run, free) = (&crashed.sinks(), &truth.sinks());
            prop_assert_eq!(contents(&run.read(SinkDesign::Upsert)), contents(&free.read(SinkDesign::Upsert)));
            prop_assert_eq!(contents(&run.read(SinkDesign::DedupeView)), contents(&free.read(SinkDesign::DedupeView)));
            let committed = run.read(SinkDesign::Transactional);
            prop_assert_eq!(duplicate_rows(&committed), 0);
            prop_assert_eq!(contents(&dedupe_view::read(&committed)), contents(&run.read(SinkDesign::Upsert)));
            let restored_id = crashed.recoveries[0].restored.id();
            let orphans = run.append_only.rows().iter().filter(|r| r.attempt == 1 && r.epoch > restored_id).count();
            prop_assert_eq!(duplicate_rows(run.append_only.rows()), orphans as u64);
            prop_assert_eq!(run.upsert().regressions(), 0);
        }
    }
}

/// Batches that can never keep up (capacity below the rate) have no steady cycle; every figure of
/// the report still fits a JavaScript number.
#[test]
fn a_job_that_never_keeps_up_reports_figures_javascript_can_hold() {
    fn largest(value: &serde_json::Value) -> f64 {
        match value {
            serde_json::Value::Number(n) => n.as_f64().unwrap_or(f64::INFINITY),
            serde_json::Value::Array(items) => items.iter().map(largest).fold(0.0, f64::max),
            serde_json::Value::Object(fields) => fields.values().map(largest).fold(0.0, f64::max),
            _ => 0.0,
        }
    }
    for snapshots in [Snapshots::Full, Snapshots::Incremental] {
        let config =
            Config { rate_per_s: 20_000, capacity_per_s: 4_000, snapshots, horizon_ms: 120_000, ..micro_batch() };
        let report = simulate(&config).unwrap();
        assert!(report.steady_state.worst_case_recovery_ms.is_none());
        let json = serde_json::to_value(&report).unwrap();
        assert!(largest(&json) <= 9_007_199_254_740_991.0, "{snapshots:?}: {}", largest(&json));
    }
}
