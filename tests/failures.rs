//! Failures over time: a failure schedule of several crashes (listed, or drawn from a mean time
//! between failures), restart strategies over repeated failures and the FAILED job they may
//! leave, the heartbeat window, fencing at the transaction timeout as a failure, and restores
//! that need offsets the log no longer holds. Then a property over random failure schedules: the
//! per-event reference and the fast path agree, no restored checkpoint was incomplete, exactly-once
//! output never counts an event twice, and every lost event is in the sinks' figures and a warning.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use checkpoint_lab::engine::model::report::Warning;
use checkpoint_lab::engine::model::sim::{crash_schedule, FailureCause};
use checkpoint_lab::engine::model::trace::{Event, Phase};
use checkpoint_lab::engine::settings::config::{FailOnDataLoss, Failure, HeartbeatLoss, RestartStrategy};
use checkpoint_lab::engine::{Config, Mode, Runner};
use common::at;
use proptest::prelude::*;

fn run(config: &Config) -> checkpoint_lab::engine::Outcome {
    Runner::new(config, None).expect("valid").finish()
}

fn reference(config: &Config) -> checkpoint_lab::engine::Outcome {
    Runner::per_event(config, None).expect("valid").finish()
}

#[test]
fn exponential_backoff_grows_per_failure_by_its_multiplier_up_to_its_maximum() {
    let config = Config {
        restart_strategy: RestartStrategy::ExponentialDelay,
        backoff_multiplier: 10.0,
        backoff_max_ms: 3_600_000,
        backoff_jitter: 0.0,
        more_crashes_ms: vec![at("10:02:00"), at("10:04:00")],
        ..Config::default()
    };
    let outcome = run(&config);
    let waits: Vec<(u32, u64)> = outcome.run.recoveries.iter().map(|r| (r.failure_number, r.backoff_ms)).collect();
    assert_eq!(waits, vec![(1, 1_000), (2, 10_000), (3, 100_000)]);
    // Capped: a 15 s maximum holds the third.
    let capped = run(&Config { backoff_max_ms: 15_000, ..config.clone() });
    let waits: Vec<u64> = capped.run.recoveries.iter().map(|r| r.backoff_ms).collect();
    assert_eq!(waits, vec![1_000, 10_000, 15_000]);
    // Reset after the threshold without failures: the third starts again from the initial backoff.
    let reset = run(&Config { backoff_reset_ms: 60_000, ..config });
    let waits: Vec<(u32, u64)> = reset.run.recoveries.iter().map(|r| (r.failure_number, r.backoff_ms)).collect();
    assert_eq!(waits, vec![(1, 1_000), (1, 1_000), (1, 1_000)]);
}

#[test]
fn fixed_delay_gives_up_after_its_attempts_and_the_job_is_failed() {
    let two = Config { more_crashes_ms: vec![at("10:03:00")], restart_attempts: 1, ..Config::default() };
    let failed = run(&two);
    let second = &failed.run.recoveries[1];
    assert_eq!(second.failed_at_ms, Some(at("10:03:10")), "failure 2 is past one attempt: FAILED at detection");
    assert_eq!(failed.run.failed_at_ms(), Some(at("10:03:10")));
    assert_eq!(failed.run.phase_now(), Phase::Failed);
    let figures = failed.figures();
    assert_eq!((figures.failures, figures.failed_at_ms), (2, Some(at("10:03:10"))));
    assert!(figures.warnings.iter().any(|w| matches!(w, Warning::JobFailed { failures: 2, .. })));
    assert!(!figures.sinks.transactional.matches_failure_free);
    assert!(figures
        .trace
        .events
        .iter()
        .any(|e| e.at_ms == at("10:03:10") && matches!(e.event, Event::JobFailed { .. })));
    let report = checkpoint_lab::lesson::simulate(&two).unwrap();
    let table: String = report.crash_table.iter().map(|r| format!("{} {}\n", r.at.at, r.what)).collect();
    assert!(table.contains("10:03:10 job FAILED: failure 2 exceeds the fixed-delay strategy's attempts"), "{table}");
    // Two attempts allowed: both failures restart.
    let restarted = run(&Config { restart_attempts: 2, ..two });
    assert!(restarted.run.recoveries.iter().all(|r| r.failed_at_ms.is_none() && r.caught_up_at_ms.is_some()));
    // None: the first failure leaves the job FAILED.
    let none = run(&Config { restart_strategy: RestartStrategy::None, ..Config::default() });
    assert_eq!(none.run.failed_at_ms(), Some(at("10:00:55")));
}

#[test]
fn failure_rate_allows_its_failures_per_interval() {
    let config = Config {
        restart_strategy: RestartStrategy::FailureRate,
        failure_rate_max: 1,
        failure_rate_interval_ms: 60_000,
        more_crashes_ms: vec![at("10:03:00")],
        ..Config::default()
    };
    // Noticed at 10:00:55 and 10:03:10: more than a minute apart, both restart.
    assert_eq!(run(&config).run.failed_at_ms(), None);
    // Noticed at 10:00:55 and 10:01:40: two within a minute, one allowed.
    let close = Config { more_crashes_ms: vec![at("10:01:30")], ..config.clone() };
    assert_eq!(run(&close).run.failed_at_ms(), Some(at("10:01:40")));
    assert_eq!(run(&Config { failure_rate_max: 2, ..close }).run.failed_at_ms(), None);
}

#[test]
fn a_crash_during_recovery_restarts_it_from_the_latest_completed_checkpoint() {
    // During detection: folded into the restart already waiting, as Flink counts it.
    let detecting = run(&Config { more_crashes_ms: vec![at("10:00:50")], ..Config::default() });
    let [first, second] = &detecting.run.recoveries[..] else { panic!("two crashes") };
    assert!(first.interrupted);
    assert_eq!((second.failure_number, second.restored.id()), (1, 42));
    assert_eq!(second.detected_at_ms, at("10:01:00"));
    assert!(second.caught_up_at_ms.is_some() && detecting.run.failed_at_ms().is_none());
    // During the replay: a new failure, restored from checkpoint 42 again (none completed since).
    let replaying = run(&Config { more_crashes_ms: vec![at("10:01:08")], restart_attempts: 2, ..Config::default() });
    let [first, second] = &replaying.run.recoveries[..] else { panic!("two crashes") };
    assert!(first.interrupted && first.restored_at_ms.is_some() && first.replay_done_at_ms.is_none());
    assert_eq!((second.failure_number, second.restored.id()), (2, 42));
    let restored: Vec<u64> = replaying.run.restore_points.iter().map(|p| p.id()).collect();
    assert!(replaying.run.recoveries.iter().all(|r| restored.contains(&r.restored.id())));
}

#[test]
fn the_mean_time_between_failures_draws_crashes_from_the_seed() {
    let config = Config { crash_at_ms: None, mtbf_ms: Some(120_000), restart_attempts: 100, ..Config::default() };
    let schedule = crash_schedule(&config);
    assert!(!schedule.is_empty());
    assert!(schedule.windows(2).all(|w| w[0] < w[1]));
    assert!(schedule.iter().all(|&t| t > config.start_time_ms && t < config.end_ms()));
    assert_eq!(schedule, crash_schedule(&config), "the same seed, the same failures");
    assert_ne!(schedule, crash_schedule(&Config { seed: 7, ..config.clone() }));
    let outcome = run(&config);
    assert_eq!(outcome.run.recoveries.len(), schedule.len());
}

#[test]
fn a_lost_taskmanager_is_noticed_within_the_heartbeat_window_when_drawn() {
    let slowest = Config { heartbeat_interval_ms: 4_000, heartbeat_timeout_ms: 10_000, ..Config::default() };
    assert_eq!(run(&slowest).run.recoveries[0].detected_at_ms, at("10:00:55"), "the default: the slowest case");
    for seed in 0..20 {
        let drawn = Config { heartbeat_loss: HeartbeatLoss::Drawn, seed, ..slowest.clone() };
        let r = &run(&drawn).run.recoveries[0];
        let after = r.detected_at_ms - r.crashed_at_ms;
        assert!((6_000..=10_000).contains(&after), "seed {seed}: noticed after {after} ms");
    }
    // The crash table says when it last answered, and the timeout it had.
    let drawn = Config { heartbeat_loss: HeartbeatLoss::Drawn, ..slowest.clone() };
    let after_ms = run(&drawn).run.recoveries[0].detected_at_ms - at("10:00:45");
    let report = checkpoint_lab::lesson::simulate(&drawn).unwrap();
    let detected = report.crash_table.iter().find(|r| r.what.starts_with("failure detected")).unwrap();
    assert_eq!(
        detected.what,
        format!(
            "failure detected after {} (the lost TaskManager last answered a heartbeat {} before the crash, and \
             heartbeat.timeout is 10 s here, 50 s by Flink's default)",
            checkpoint_lab::engine::settings::units::format_duration_ms(after_ms),
            checkpoint_lab::engine::settings::units::format_duration_ms(10_000 - after_ms)
        )
    );
    let task = Config { heartbeat_loss: HeartbeatLoss::Drawn, failure: Failure::Task, ..slowest };
    assert_eq!(run(&task).run.recoveries[0].detected_at_ms - at("10:00:45"), 100);
}

#[test]
fn a_transaction_outliving_its_timeout_fences_the_producer_and_fails_the_job() {
    // Each attempt's first transaction opens with its first row and stays open a whole minute:
    // the broker aborts it at 30 s, its next write fails the job, and again after every restart.
    let config = Config {
        interval_ms: 60_000,
        transaction_timeout_ms: 30_000,
        crash_at_ms: None,
        restart_attempts: 3,
        ..Config::default()
    };
    let outcome = run(&config);
    let recoveries = &outcome.run.recoveries;
    assert_eq!(recoveries.len(), 4, "three restarts, then FAILED");
    assert!(recoveries.iter().all(|r| r.cause == FailureCause::Fenced));
    assert_eq!(recoveries[0].crashed_at_ms, at("10:00:31"), "30 s after the first row at 10:00:01");
    assert!(recoveries[3].failed_at_ms.is_some());
    let figures = outcome.figures();
    assert!(figures.warnings.iter().any(|w| matches!(w, Warning::ProducerFenced { transactions: 4, .. })));
    assert!(!figures.sinks.transactional.matches_failure_free);
    assert_eq!(figures.sinks.transactional.rows, 0, "no checkpoint ever completed");
    let words: Vec<String> = figures.warnings.iter().map(checkpoint_lab::lesson::narration::warning).collect();
    assert!(words.iter().all(|w| !w.contains("carries on")), "{words:?}");
}

#[test]
fn a_restore_past_the_retention_resets_to_the_oldest_offset_kept() {
    let config = Config { retention_ms: Some(30_000), heartbeat_timeout_ms: 50_000, ..Config::default() };
    let outcome = run(&config);
    let r = &outcome.run.recoveries[0];
    assert_eq!((r.restored.offset(), r.resumed_offset, r.lost_events), (1_060_000, Some(1_150_000), 90_000));
    let figures = outcome.figures();
    assert_eq!(figures.replayed_events, 0, "reset past the crash offset: nothing read again");
    assert_eq!(figures.sinks.append_only.lost_events, 90_000);
    assert!(figures.warnings.contains(&Warning::EventsLost { events: 90_000 }));
    let restored = figures.trace.events.iter().find_map(|e| match e.event {
        Event::Restored { offset, .. } => Some(offset),
        _ => None,
    });
    assert_eq!(restored, Some(1_150_000), "the timeline's restore and the crash table agree");
    let report = checkpoint_lab::lesson::simulate(&config).unwrap();
    let table: String = report.crash_table.iter().map(|r| format!("{}\n", r.what)).collect();
    assert!(table.contains("its offsets are gone from the log: the readers start at 1,150,000"), "{table}");
    assert!(!table.contains("replay back at the crash offset"), "{table}");
    // Micro-batch: failOnDataLoss fails the query; without it the query skips ahead.
    let batches = Config { mode: Mode::MicroBatch, ..config };
    let failed = run(&batches);
    assert_eq!(failed.run.failed_at_ms(), Some(at("10:01:45")));
    let report = checkpoint_lab::lesson::simulate(&batches).unwrap();
    assert!(!report.crash_table.iter().any(|r| r.what.contains("committed again")), "no re-run from gone offsets");
    let skipping = run(&Config { fail_on_data_loss: FailOnDataLoss::False, ..batches });
    assert_eq!(skipping.run.failed_at_ms(), None);
    assert!(skipping.run.recoveries[0].lost_events > 0);
}

#[test]
fn one_crash_scenarios_take_the_same_path_as_before() {
    // The default scenario: the lesson's figures, unchanged.
    let figures = run(&Config::default()).figures();
    assert_eq!((figures.failures, figures.failed_at_ms, figures.replayed_events), (1, None, 30_000));
}

fn schedule() -> impl Strategy<Value = Config> {
    (
        proptest::collection::vec(1u64..179, 0..4),
        prop_oneof![
            Just(RestartStrategy::FixedDelay),
            Just(RestartStrategy::ExponentialDelay),
            Just(RestartStrategy::FailureRate)
        ],
        prop_oneof![Just(Mode::Barrier), Just(Mode::MicroBatch)],
        prop_oneof![Just(None), Just(Some(20_000u64))],
        1u64..4,
        prop_oneof![Just(5_000u64), Just(10_000), Just(30_000)],
    )
        .prop_map(|(seconds, restart_strategy, mode, retention_ms, attempts, interval_ms)| Config {
            horizon_ms: 180_000,
            interval_ms,
            mode,
            restart_strategy,
            restart_attempts: attempts,
            failure_rate_max: attempts,
            retention_ms,
            crash_at_ms: None,
            more_crashes_ms: seconds.into_iter().map(|s| at("10:00:00") + s * 1_000).collect(),
            ..Config::default()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_failure_schedules(config in schedule()) {
        let (fast, slow) = (run(&config), reference(&config));
        prop_assert_eq!(&fast.run.trace, &slow.run.trace);
        prop_assert_eq!(&fast.run.recoveries, &slow.run.recoveries);
        let (a, b) = (serde_json::to_string(&fast.report()).unwrap(), serde_json::to_string(&slow.report()).unwrap());
        prop_assert!(a == b, "the reports differ");
        // Only completed checkpoints are restored.
        for r in &fast.run.recoveries {
            prop_assert!(fast.run.restore_points.iter().any(|p| p.id() == r.restored.id() && p.completed_at_ms() <= r.crashed_at_ms));
        }
        let figures = fast.figures();
        // Exactly once: the committed (transactional) output counts no event twice.
        prop_assert_eq!(figures.sinks.transactional.duplicate_rows, 0);
        prop_assert_eq!(figures.counted_twice_events, 0);
        // Every lost event is in each sink's lost count and in a warning.
        let lost: u64 = fast.run.recoveries.iter().map(|r| r.lost_events).sum();
        prop_assert_eq!(figures.sinks.append_only.lost_events, lost);
        prop_assert_eq!(figures.sinks.transactional.lost_events, lost);
        if lost > 0 {
            let warned = figures.warnings.contains(&Warning::EventsLost { events: lost });
            prop_assert!(warned, "no warning of {} lost events", lost);
        }
    }
}
