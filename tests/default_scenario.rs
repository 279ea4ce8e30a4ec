//! The lesson's worked example ("A crash, second by second"): every figure of DESIGN section 3,
//! computed by the engine from the default scenario.

mod common;

use checkpoint_lab::engine::{self, Config, SinkDesign};
use checkpoint_lab::lesson::{self, Report};
use common::at;

fn report_for(config: &Config) -> Report {
    lesson::simulate(config).expect("the scenario is valid")
}

/// Asserts that a clock time is within a second of the expected one.
fn near(actual: f64, expected_s: f64, what: &str) {
    assert!((actual - expected_s).abs() <= 1.0, "{what}: expected about {expected_s} s, got {actual} s");
}

#[test]
fn checkpoint_42_barrier_offsets_and_completion() {
    let report = report_for(&Config::default());
    let cp42 = report.checkpoints.iter().find(|c| c.id == 42).expect("checkpoint 42 completes");
    assert_eq!(cp42.barrier_at.at, "10:00:30");
    assert_eq!(cp42.offset, 1_060_000);
    assert_eq!(cp42.offsets.iter().sum::<u64>(), 1_060_000);
    assert_eq!(cp42.offsets.len(), 12);
    assert_eq!(cp42.sync_ms, 100);
    assert_eq!(cp42.upload_ms, 2_000);
    near(cp42.completed_at.s, 32.0, "checkpoint 42 completes");
    let initial = &report.checkpoints[0];
    assert_eq!((initial.id, initial.offset, initial.barrier_at.at.as_str()), (41, 1_000_000, "10:00:00"));
}

#[test]
fn running_total_of_the_ten_oclock_window_at_10_00_44() {
    let outcome = engine::run(&Config::default()).unwrap();
    let total: u64 = outcome
        .run
        .sinks()
        .read(SinkDesign::AppendOnly)
        .iter()
        .filter(|r| u64::from(r.window_start_ms) == at("10:00:00") && u64::from(r.emitted_at_ms) <= at("10:00:44"))
        .fold(std::collections::BTreeMap::new(), |mut latest, r| {
            latest.insert(r.product_id, r.order_count);
            latest
        })
        .values()
        .map(|&c| u64::from(c))
        .sum();
    assert_eq!(total, 88_000);
    let report = outcome.report();
    let before = report.window_total_before_crash.expect("an emission before the crash");
    assert_eq!((before.order_count, before.emitted_at.at.as_str()), (88_000, "10:00:44"));
}

#[test]
fn crash_at_10_00_45_replays_30000_and_recovers_in_55_s() {
    let report = report_for(&Config::default());
    let crash = report.crash.as_ref().expect("a crash");
    assert_eq!(crash.at.at, "10:00:45");
    assert_eq!(crash.offset, 1_090_000);
    let restored = report.restored_checkpoint.as_ref().unwrap();
    assert_eq!((restored.id, restored.offset), (42, 1_060_000));
    assert_eq!(report.replayed_events, 30_000);
    let range = report.replayed_offsets.as_ref().unwrap();
    assert_eq!((range.from, range.to), (1_060_000, 1_090_000));
    assert_eq!(report.detected_at.as_ref().unwrap().at, "10:00:55");
    assert_eq!(report.restored_at.as_ref().unwrap().at, "10:01:05");
    assert_eq!(report.backlog_at_restore_events, Some(70_000));
    near(report.caught_up_at.as_ref().unwrap().s, 100.0, "caught up at 10:01:40");
    near(report.recovery_s.unwrap(), 55.0, "crash to catch-up");
    let phases = report.phases.as_ref().unwrap();
    assert_eq!((phases.detection_s, phases.restart_s, phases.restore_s), (10.0, 0.0, 10.0));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}

#[test]
fn interval_and_worst_case_replay() {
    let report = report_for(&Config::default());
    assert_eq!(report.interval_replay_events, 60_000);
    // A crash just before checkpoint 43 completes: 30 s interval plus its 2.1 s duration.
    assert_eq!(report.worst_case_replay_events, 64_200);
    assert!(report.worst_case_replay_events > report.interval_replay_events);
}

#[test]
fn crash_before_checkpoint_42_completes_restores_41() {
    let config = Config { crash_at_ms: Some(at("10:00:31")), ..Config::default() };
    let report = report_for(&config);
    let restored = report.restored_checkpoint.as_ref().unwrap();
    assert_eq!((restored.id, restored.offset), (41, 1_000_000));
    assert_eq!(report.crash.as_ref().unwrap().discarded_checkpoint, Some(42));
    assert_eq!(report.replayed_events, 62_000);
}

#[test]
fn full_snapshots_of_2_gb_every_30_s_write_4_gb_a_minute() {
    let report = report_for(&Config::default());
    assert_eq!(report.store_write_bytes_per_min, 4_000_000_000);
    assert!(!report.store_limited);
}

#[test]
fn a_5_s_interval_replays_10000_and_pauses_6_times_as_often() {
    let thirty = report_for(&Config { crash_at_ms: None, ..Config::default() });
    let five = report_for(&Config { interval_ms: 5_000, crash_at_ms: None, ..Config::default() });
    assert_eq!(five.interval_replay_events, 10_000);
    assert_eq!(five.store_write_bytes_per_min, 24_000_000_000); // 400 MB/s
    assert!(!five.store_limited);
    // Over the first five minutes (a whole number of both intervals) the pause runs 6 times as often.
    let syncs = |r: &Report| r.checkpoints.iter().filter(|c| c.sync_ms > 0 && c.barrier_at.s <= 300.0).count();
    assert_eq!((syncs(&thirty), syncs(&five)), (10, 60));
    let ratio = five.steady_state.pause_overhead / thirty.steady_state.pause_overhead;
    assert!((ratio - 6.0).abs() < 1e-9, "pause overhead ratio {ratio}");
}

#[test]
fn a_slower_store_stretches_the_effective_interval_and_says_so() {
    let config = Config { interval_ms: 5_000, store_write_bytes_per_s: 200_000_000, ..Config::default() };
    let report = report_for(&config);
    assert!(report.store_limited);
    assert!(report.effective_interval_ms >= 10_000, "2 GB at 200 MB/s takes 10 s: {}", report.effective_interval_ms);
    assert!(report.warnings.iter().any(|w| w.contains("cannot absorb")), "{:?}", report.warnings);
    let barriers: Vec<f64> = report.checkpoints.iter().filter(|c| c.attempt == 1).map(|c| c.barrier_at.s).collect();
    assert!(barriers.windows(2).skip(1).all(|w| w[1] - w[0] >= 10.0), "{barriers:?}");
}

#[test]
fn replay_per_interval_is_the_cycle_the_store_warning_states() {
    // 20 GB at 1 GB/s every 5 s: each checkpoint takes 20.1 s (the 100 ms pause and a 20 s
    // upload), so they run back to back every 20.1 s, and a crash just before a barrier replays
    // 20.1 s of input. The first barrier still comes one interval after the start.
    let config = Config { interval_ms: 5_000, state_bytes: 20_000_000_000, ..Config::default() };
    let report = report_for(&config);
    assert!(report.store_limited);
    assert!(report.warnings.iter().any(|w| w.contains("every 20.1 s")), "{:?}", report.warnings);
    assert_eq!(report.effective_interval_ms, 20_100);
    assert_eq!(report.interval_replay_events, 40_200);
    // The checkpoint the job started from, then the first one it took.
    assert_eq!(report.checkpoints[0].barrier_at.s, 0.0);
    assert_eq!(report.checkpoints[1].barrier_at.s, 5.0);
}

#[test]
fn the_four_sinks_after_the_crash() {
    let outcome = engine::run(&Config::default()).unwrap();
    let report = outcome.report();
    let run = &outcome.run;
    let window = at("10:00:00");
    // Append-only: the orphans written between checkpoint 42's barrier and the crash stay beside
    // the rows the replay writes for the same keys.
    let appended = run.sinks().read(SinkDesign::AppendOnly);
    let orphans: Vec<_> = appended.iter().filter(|r| r.attempt == 1 && r.epoch > 42).collect();
    assert!(!orphans.is_empty());
    for orphan in &orphans {
        assert!(u64::from(orphan.emitted_at_ms) > at("10:00:30") && u64::from(orphan.emitted_at_ms) <= at("10:00:45"));
        let again = appended.iter().filter(|r| r.attempt == 2 && r.content() == orphan.content()).count();
        assert_eq!(again, 1, "the replay writes {:?} again", orphan.content());
    }
    let products = appended.iter().filter(|r| u64::from(r.window_start_ms) == window).map(|r| r.product_id);
    for product in products.collect::<std::collections::BTreeSet<_>>() {
        let rows =
            appended.iter().filter(|r| u64::from(r.window_start_ms) == window && r.product_id == product).count();
        assert!(rows >= 2);
    }
    assert_eq!(report.sinks.append_only.duplicate_rows, orphans.len() as u64);
    assert!(!report.sinks.append_only.matches_failure_free);
    // Upsert: one row per key; the replay made values step back before they moved on.
    let upsert = run.sinks().read(SinkDesign::Upsert);
    let mut keys: Vec<_> = upsert.iter().map(|r| (r.product_id, r.window_start_ms)).collect();
    keys.dedup();
    assert_eq!(keys.len(), upsert.len());
    assert!(report.sinks.upsert.regressions > 0);
    assert!(report.sinks.upsert.matches_failure_free);
    // Transactional: nothing written after checkpoint 42 by the crashed attempt was committed.
    let committed = run.sinks().read(SinkDesign::Transactional);
    assert!(committed.iter().all(|r| r.attempt == 2 || r.epoch <= 42));
    assert!(report.sinks.transactional.aborted_rows >= orphans.len() as u64);
    assert_eq!(report.sinks.transactional.duplicate_rows, 0);
    assert!(report.sinks.transactional.matches_failure_free);
    // Transactional readers wait for commits: their worst staleness exceeds interval + duration.
    assert!(report.sinks.transactional.staleness_max_ms > 32_100);
    // The dedupe view returns exactly what the upsert sink holds.
    let view = run.sinks().read(SinkDesign::DedupeView);
    assert_eq!(common::contents(&view), common::contents(&upsert));
    assert!(report.sinks.dedupe_view.matches_failure_free);
}

#[test]
fn the_crash_table_is_generated_from_the_run() {
    let report = report_for(&Config::default());
    let lines: Vec<(&str, &str)> = report.crash_table.iter().map(|r| (r.at.at.as_str(), r.what.as_str())).collect();
    let find = |prefix: &str| lines.iter().find(|(_, what)| what.starts_with(prefix)).copied();
    assert_eq!(find("checkpoint 42 barrier").unwrap().0, "10:00:30");
    assert!(find("running total").unwrap().1.contains("88,000"));
    assert!(find("crash at offset 1,090,000").unwrap().1.contains("30,000 events"));
    assert_eq!(find("failure detected").unwrap().0, "10:00:55");
    assert!(find("checkpoint 42 restored").unwrap().1.contains("backlog 70,000"));
    assert!(find("caught up").unwrap().0.starts_with("10:01:4"));
    // Another crash time gives another table.
    let later = report_for(&Config { crash_at_ms: Some(at("10:02:10")), ..Config::default() });
    assert!(later.crash_table.iter().any(|r| r.what.starts_with("checkpoint 45 barrier")));
}
