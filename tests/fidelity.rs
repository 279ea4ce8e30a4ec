//! True to what Flink, Spark and Kafka do: how soon a failure is noticed (a task's exception at
//! once, a lost TaskManager at its heartbeat timeout), how long the restart strategy waits (a fixed
//! delay, or an exponential backoff across repeated failures), and what Kafka transactions promise
//! (read_uncommitted readers see aborted rows; a transaction older than its timeout is aborted by
//! the broker before the commit, and its rows are lost).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use checkpoint_lab::engine::model::sim::FailureCause;
use checkpoint_lab::engine::settings::config::{Failure, IsolationLevel, RestartStrategy};
use checkpoint_lab::engine::{Config, Sim};
use checkpoint_lab::lesson::simulate;
use common::at;

#[test]
fn the_default_scenario_is_a_lost_taskmanager_noticed_at_a_10_second_heartbeat_timeout() {
    let config = Config::default();
    assert_eq!(config.failure, Failure::TaskmanagerLost);
    assert!(config.heartbeat_interval_ms <= config.heartbeat_timeout_ms);
    let report = simulate(&config).unwrap();
    assert_eq!(report.detected_at.as_ref().unwrap().at, "10:00:55");
    assert_eq!(report.restored_at.as_ref().unwrap().at, "10:01:05");
    // 50 s, Flink's default timeout: detected 50 s after the crash.
    let slow = simulate(&Config { heartbeat_timeout_ms: 50_000, ..config }).unwrap();
    assert_eq!(slow.detected_at.as_ref().unwrap().at, "10:01:35");
    assert_eq!(slow.phases.as_ref().unwrap().detection_s, 50.0);
}

#[test]
fn a_task_failure_restarts_within_a_second_plus_the_backoff() {
    for strategy in [RestartStrategy::FixedDelay, RestartStrategy::ExponentialDelay] {
        let config = Config { failure: Failure::Task, restart_strategy: strategy, ..Config::default() };
        let outcome = checkpoint_lab::engine::run(&config).unwrap();
        let r = &outcome.run.recoveries[0];
        assert!(r.detected_at_ms - r.crashed_at_ms < 1_000, "{strategy:?}");
        assert_eq!(r.restore_started_at_ms - r.detected_at_ms, r.backoff_ms);
        match strategy {
            RestartStrategy::FixedDelay => assert_eq!(r.backoff_ms, 0),
            // The first backoff: 1 s plus up to 10 % jitter (never below the initial backoff).
            RestartStrategy::ExponentialDelay => assert!((1_000..=1_100).contains(&r.backoff_ms), "{}", r.backoff_ms),
            other => unreachable!("not among the strategies above: {other:?}"),
        }
        // The crash table says what was noticed and, for a backoff, how long the strategy waited.
        let report = outcome.report();
        let said: Vec<&str> = report.crash_table.iter().map(|r| r.what.as_str()).collect();
        assert!(said.contains(&"failure detected after 100 ms (the failing task reported its exception)"), "{said:#?}");
        assert_eq!(
            said.iter().any(|w| w.starts_with("restart after an exponential backoff of ")),
            strategy == RestartStrategy::ExponentialDelay,
            "{said:#?}"
        );
    }
}

/// Crash after crash, each during the previous recovery: every wait is the previous one times the
/// multiplier, until the maximum.
#[test]
fn exponential_backoff_grows_by_its_multiplier_across_repeated_crashes_up_to_its_maximum() {
    let config = Config {
        failure: Failure::Task,
        restart_strategy: RestartStrategy::ExponentialDelay,
        backoff_initial_ms: 1_000,
        backoff_multiplier: 2.0,
        backoff_max_ms: 10_000,
        backoff_jitter: 0.0,
        crash_at_ms: None,
        ..Config::default()
    };
    let mut sim = Sim::new(&config).unwrap();
    let mut t = at("10:00:45");
    for _ in 0..6 {
        sim.run_until(t);
        sim.crash(FailureCause::Scheduled);
        // Crash again while the job is restarting: after detection, before the restore ends.
        let r = sim.recoveries.last().unwrap();
        t = r.restore_started_at_ms + 1;
    }
    let waits: Vec<u64> = sim.recoveries.iter().map(|r| r.backoff_ms).collect();
    assert_eq!(waits, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    let numbers: Vec<u32> = sim.recoveries.iter().map(|r| r.failure_number).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    // The lag chart's phases show the wait: the job is "restarting" between detection and restore.
    sim.run_until(t + 60_000);
    let r = &sim.recoveries[5];
    let restarting = sim
        .trace
        .samples
        .iter()
        .filter(|s| (r.detected_at_ms..r.restore_started_at_ms).contains(&s.at_ms))
        .all(|s| s.phase == checkpoint_lab::engine::model::sim::Phase::Restarting);
    assert!(restarting);
}

/// A fixed delay is the same after every failure.
#[test]
fn a_fixed_delay_waits_the_same_each_time() {
    let config = Config { failure: Failure::Task, restart_delay_ms: 3_000, crash_at_ms: None, ..Config::default() };
    let mut sim = Sim::new(&config).unwrap();
    let mut t = at("10:00:45");
    for _ in 0..3 {
        sim.run_until(t);
        sim.crash(FailureCause::Scheduled);
        t = sim.recoveries.last().unwrap().restore_started_at_ms + 1;
    }
    assert!(sim.recoveries.iter().all(|r| r.backoff_ms == 3_000));
}

#[test]
fn read_uncommitted_readers_see_rows_that_are_later_aborted() {
    let committed = simulate(&Config::default()).unwrap();
    let uncommitted =
        simulate(&Config { isolation_level: IsolationLevel::ReadUncommitted, ..Config::default() }).unwrap();
    let (c, u) = (&committed.sinks.transactional, &uncommitted.sinks.transactional);
    // The crash aborts the rows written after checkpoint 42's barrier.
    assert!(c.aborted_rows > 0);
    assert_eq!(c.aborted_rows_seen, 0, "read_committed readers never see them");
    assert_eq!(u.aborted_rows_seen, u.aborted_rows);
    // They see rows as they are written: as fresh as the append-only table, second by second.
    assert_eq!(u.staleness_max_ms, uncommitted.sinks.append_only.staleness_max_ms);
    assert!(uncommitted.series.iter().all(|x| x.staleness_ms.transactional == x.staleness_ms.append_only));
    assert!(committed.series.iter().any(|x| x.staleness_ms.transactional > x.staleness_ms.append_only));
    assert!(c.staleness_max_ms > u.staleness_max_ms);
    assert!(u.guarantee.contains("read_uncommitted readers also see rows that are later aborted"));
}

/// A transaction begins with its first row after a barrier. With a 2-minute interval and Kafka's
/// 60 s producer default, each one is still open when its timeout runs out: the broker aborts it
/// and fences the producer, and its next write fails the job. Each restart opens the next
/// transaction, fenced again before any checkpoint completes: a crash loop that commits nothing.
#[test]
fn a_transaction_that_times_out_while_open_fences_the_producer() {
    let base = Config { interval_ms: 120_000, crash_at_ms: None, ..Config::default() };
    let kept = simulate(&base).unwrap();
    let short = simulate(&Config { transaction_timeout_ms: 60_000, ..base }).unwrap();
    assert!(kept.warnings.is_empty());
    assert_eq!(kept.failures, 0);
    assert!(short.failures >= 5, "a failure about every minute of the horizon: {}", short.failures);
    assert_eq!(short.sinks.transactional.rows, 0, "no checkpoint completes, no transaction commits");
    assert!(!short.sinks.transactional.matches_failure_free);
    assert!(short
        .warnings
        .iter()
        .any(|w| w.contains("fenced the producer") && w.contains("next write failed the job")));
    assert!(!short.warnings.iter().any(|w| w.contains("carries on")));
}

/// The loss the design can suffer: the timeout runs out after the pre-commit and before the
/// commit. A 20 GB checkpoint uploads for 20 s, so with a 50 s interval the epoch's transaction
/// is 50 s old at its barrier and 70 s old at the commit: past a 60 s timeout.
#[test]
fn a_transaction_that_times_out_between_pre_commit_and_commit_loses_its_rows() {
    let base = Config { interval_ms: 50_000, state_bytes: 20_000_000_000, crash_at_ms: None, ..Config::default() };
    let kept = simulate(&base).unwrap();
    let short = simulate(&Config { transaction_timeout_ms: 60_000, ..base }).unwrap();
    assert_eq!(kept.sinks.transactional.timed_out_rows, 0);
    let lost = short.sinks.transactional.timed_out_rows;
    assert!(lost > 0);
    assert_eq!(short.sinks.transactional.rows + lost, kept.sinks.transactional.rows);
    assert!(short.warnings.iter().any(|w| w.contains("rows are lost") && w.contains("1 min transaction timeout")));
    assert!(!short.warnings.iter().any(|w| w.contains("fenced")));
    assert!(short.timeline.iter().any(|e| format!("{:?}", e.kind) == "TransactionTimedOut"));
    // A 30 s interval with small checkpoints stays well inside a 60 s timeout.
    let inside = simulate(&Config { transaction_timeout_ms: 60_000, ..Config::default() }).unwrap();
    assert_eq!(inside.sinks.transactional.timed_out_rows, 0);
}

/// Checkpoint 42 completes at 10:00:32.100 and the sink commits 100 ms later. A crash in between
/// leaves its transaction pre-committed; the restarted job commits it again when the restore is
/// done. With a 50 s heartbeat timeout that is at 10:01:32.150, when checkpoint 42's transaction is
/// about 92 s old: a 60 s timeout has run out and the broker has aborted it, so its rows are lost.
#[test]
fn the_commit_after_a_restart_loses_rows_the_broker_aborted_meanwhile() {
    let crash = Config {
        crash_at_ms: Some(at("10:00:32.150")),
        heartbeat_timeout_ms: 50_000,
        transaction_timeout_ms: 60_000,
        ..Config::default()
    };
    let outcome = checkpoint_lab::engine::run(&crash).unwrap();
    assert_eq!(outcome.run.recoveries[0].restored.id(), 42, "the checkpoint had completed");
    let report = outcome.report();
    assert!(report.sinks.transactional.timed_out_rows > 0);
    assert!(report.warnings.iter().any(|w| w.contains("when the restarted job committed them again")));
    assert!(!report.sinks.transactional.matches_failure_free);
    // With the broker's 15 minutes the same re-commit succeeds: nothing lost, and the reader sees
    // checkpoint 42's rows at the restore.
    let kept = checkpoint_lab::engine::run(&Config { transaction_timeout_ms: 900_000, ..crash }).unwrap();
    let restored_at = kept.run.recoveries[0].restored_at_ms.unwrap();
    assert!(kept.run.sinks().transactional.commits().iter().any(|&(id, at_ms, _)| id == 42 && at_ms == restored_at));
    assert_eq!(kept.report().sinks.transactional.timed_out_rows, 0);
    assert!(kept.report().sinks.transactional.matches_failure_free);
}

/// A crash while the restart is still waiting joins that restart, as Flink's exponential-delay
/// strategy counts it: the backoff does not grow and the restart keeps its time.
#[test]
fn a_failure_while_the_restart_waits_is_folded_into_it() {
    let config = Config {
        failure: Failure::Task,
        restart_strategy: RestartStrategy::ExponentialDelay,
        backoff_initial_ms: 10_000,
        backoff_jitter: 0.0,
        crash_at_ms: None,
        ..Config::default()
    };
    let mut sim = Sim::new(&config).unwrap();
    sim.run_until(at("10:00:45"));
    sim.crash(FailureCause::Scheduled);
    let first = sim.recoveries[0].clone();
    sim.run_until(first.restore_started_at_ms - 3_000);
    sim.crash(FailureCause::Scheduled);
    let second = &sim.recoveries[1];
    assert_eq!((first.failure_number, second.failure_number), (1, 1));
    assert_eq!(second.restore_started_at_ms, first.restore_started_at_ms);
}

/// "A crash, second by second" reads in time order in both modes, whatever the crash time.
#[test]
fn the_crash_table_is_in_time_order_in_every_mode() {
    for mode in [checkpoint_lab::engine::Mode::Barrier, checkpoint_lab::engine::Mode::MicroBatch] {
        for crash in ["10:00:31", "10:00:45", "10:00:45.200", "10:01:07", "10:03:59"] {
            let report = simulate(&Config { mode, crash_at_ms: Some(at(crash)), ..Config::default() }).unwrap();
            let times: Vec<u64> = report.crash_table.iter().map(|r| r.at.ms).collect();
            assert!(times.windows(2).all(|w| w[0] <= w[1]), "{mode:?} {crash}: {times:?}");
        }
    }
}

/// The sink-window chart's transactional line: a read_committed reader sees each key's value at
/// commits and never a rolled-back one; a read_uncommitted reader sees every write, orphans included.
#[test]
fn a_read_uncommitted_reader_sees_the_rolled_back_values() {
    let window = at("10:00:00");
    for (isolation, sees_orphans) in [(IsolationLevel::ReadCommitted, false), (IsolationLevel::ReadUncommitted, true)] {
        let figures =
            checkpoint_lab::engine::run(&Config { isolation_level: isolation, ..Config::default() }).unwrap().figures();
        let history = figures.tables.history(window, 0);
        let orphans: Vec<(u64, u32)> = history
            .appended
            .iter()
            .filter(|(_, _, kind)| *kind == checkpoint_lab::engine::model::report::RowKind::Orphan)
            .map(|&(at, count, _)| (at, count))
            .collect();
        assert!(!orphans.is_empty());
        let seen = orphans.iter().all(|o| history.transactional.contains(o));
        assert_eq!(seen, sees_orphans, "{isolation:?}");
    }
}
