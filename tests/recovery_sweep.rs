//! Exactly-once state and what each sink shows, against the failure-free run with the same seed:
//! every crash second of a three-minute horizon, for intervals 1 s to 2 min, aligned and
//! unaligned, full and incremental snapshots. Compared once the job has caught up.

mod common;

use checkpoint_lab::engine::model::sinks::{duplicate_rows, SinkDesign};
use checkpoint_lab::engine::settings::config::{CheckpointingMode, OffsetCommit};
use checkpoint_lab::engine::{Alignment, Config, Sim, Snapshots};
use common::{at, contents, extra_rows, run_past_recovery};

const INTERVALS_MS: [u64; 6] = [1_000, 5_000, 10_000, 30_000, 60_000, 120_000];

/// Everything the sweep promises for one crashed run and its failure-free twin.
fn check_recovery(config: &Config, crashed: &Sim, truth: &Sim) {
    let why = || format!("seed {} crash {:?} {:?}", config.seed, config.crash_at_ms, config);
    // Operator state: window totals, seen ids and counts equal the failure-free ones.
    assert!(crashed.state().same_content(truth.state()), "state differs: {}", why());
    assert_eq!(crashed.state().seen_ids(), truth.state().seen_ids(), "seen ids differ: {}", why());
    assert_eq!(crashed.position(), truth.position(), "{}", why());
    // Upsert and dedupe view equal the failure-free ones.
    let (run, free) = (&crashed.sinks(), &truth.sinks());
    assert_eq!(contents(&run.read(SinkDesign::Upsert)), contents(&free.read(SinkDesign::Upsert)), "upsert: {}", why());
    assert_eq!(
        contents(&run.read(SinkDesign::DedupeView)),
        contents(&free.read(SinkDesign::DedupeView)),
        "dedupe view: {}",
        why()
    );
    // Transactional: committed rows are the failure-free emissions up to its last commit, once each.
    let committed = run.read(SinkDesign::Transactional);
    assert_eq!(duplicate_rows(&committed), 0, "transactional duplicates: {}", why());
    let newest = committed.iter().map(|r| r.boundary_ms).max().unwrap_or(0);
    let expected: Vec<_> = free.append_only.rows().iter().filter(|r| r.boundary_ms <= newest).copied().collect();
    assert_eq!(contents(&committed), contents(&expected), "transactional: {}", why());
    // Append-only: the extra rows are exactly the orphans (rolled-back emissions, written again).
    let restored_id = crashed.recoveries[0].restored.id();
    let mut orphans: Vec<_> = run
        .append_only
        .rows()
        .iter()
        .filter(|r| r.attempt == 1 && r.epoch > restored_id)
        .map(|r| r.content())
        .collect();
    orphans.sort_unstable();
    assert_eq!(extra_rows(run.append_only.rows(), free.append_only.rows()), orphans, "append-only: {}", why());
    assert_eq!(crashed.recoveries[0].lost_events, 0);
}

fn sweep(alignment: Alignment, snapshots: Snapshots, backpressure_ms: u64, crash_step_s: u64) -> usize {
    let mut runs = 0;
    // Aligning for 1.5 s on every 1 s interval holds the inputs most of the time: that job never
    // keeps up at all (see tests/alignment.rs), so the backpressure sweep starts at 5 s.
    let intervals = if backpressure_ms > 0 { &INTERVALS_MS[1..] } else { &INTERVALS_MS[..] };
    for &interval_ms in intervals {
        for crash_s in (1..180).step_by(crash_step_s as usize) {
            let config = Config {
                horizon_ms: 180_000,
                interval_ms,
                alignment,
                snapshots,
                backpressure_ms,
                crash_at_ms: Some(at("10:00:00") + crash_s * 1000),
                ..Config::default()
            };
            let (crashed, truth) = run_past_recovery(&config);
            check_recovery(&config, &crashed, &truth);
            runs += 1;
        }
    }
    runs
}

#[test]
fn aligned_full_every_crash_second() {
    assert_eq!(sweep(Alignment::Aligned, Snapshots::Full, 0, 1), 6 * 179);
}

#[test]
fn aligned_incremental_every_crash_second() {
    assert_eq!(sweep(Alignment::Aligned, Snapshots::Incremental, 0, 1), 6 * 179);
}

#[test]
fn unaligned_full_every_crash_second() {
    assert_eq!(sweep(Alignment::Unaligned, Snapshots::Full, 0, 1), 6 * 179);
}

#[test]
fn unaligned_incremental_every_crash_second() {
    assert_eq!(sweep(Alignment::Unaligned, Snapshots::Incremental, 0, 1), 6 * 179);
}

#[test]
fn under_backpressure_both_alignments_recover_exactly() {
    for alignment in [Alignment::Aligned, Alignment::Unaligned] {
        for snapshots in [Snapshots::Full, Snapshots::Incremental] {
            assert!(sweep(alignment, snapshots, 1_500, 7) > 0);
        }
    }
}

#[test]
fn with_producer_retries_dedupe_state_survives_recovery() {
    for crash_s in [7, 31, 44, 95, 151] {
        let config = Config {
            horizon_ms: 180_000,
            retry_rate: 0.05,
            crash_at_ms: Some(at("10:00:00") + crash_s * 1000),
            ..Config::default()
        };
        let (crashed, truth) = run_past_recovery(&config);
        assert!(truth.state().dropped_duplicates > 0, "retries are dropped by the dedupe operator");
        check_recovery(&config, &crashed, &truth);
    }
}

#[test]
fn retention_exceeded_reports_the_lost_events() {
    // The job is down for 20 s; with 15 s of retention part of the replay is gone from the log.
    let config = Config { retention_ms: Some(15_000), ..Config::default() };
    let outcome = checkpoint_lab::engine::run(&config).unwrap();
    let report = outcome.report();
    assert!(report.lost_events > 0);
    // Lost are the events older than 15 s at the restore (10:01:05): offsets 1,060,000 to 1,100,000.
    assert_eq!(report.lost_events, 40_000);
    assert!(report.warnings.iter().any(|w| w.contains("retention")), "{:?}", report.warnings);
    assert!(!report.sinks.upsert.matches_failure_free);
    // Without the crash, nothing is lost.
    let free = checkpoint_lab::lesson::simulate(&Config { crash_at_ms: None, ..config }).unwrap();
    assert_eq!(free.lost_events, 0);
}

/// At-least-once checkpointing under backpressure: the operator keeps reading the inputs whose
/// barrier arrived, so their records after the barrier are in the snapshot's state. After a restore
/// the replay counts them again: the totals exceed the failure-free totals by exactly the records
/// the restored checkpoint held past its barriers, which the report counts.
#[test]
fn at_least_once_counts_the_records_past_the_barrier_twice_and_no_others() {
    let mut excess_seen = 0;
    for snapshots in [Snapshots::Full, Snapshots::Incremental] {
        for &interval_ms in &INTERVALS_MS[1..] {
            for crash_s in (1..180).step_by(7) {
                let config = Config {
                    horizon_ms: 180_000,
                    interval_ms,
                    snapshots,
                    backpressure_ms: 1_500,
                    checkpointing_mode: CheckpointingMode::AtLeastOnce,
                    crash_at_ms: Some(at("10:00:00") + crash_s * 1000),
                    ..Config::default()
                };
                let why = format!("{interval_ms} {crash_s} {snapshots:?}");
                let (crashed, truth) = run_past_recovery(&config);
                let excess = crashed.recoveries[0].restored.past_barrier_events();
                assert_eq!(crashed.state().counted_events - truth.state().counted_events, excess, "{why}");
                let total = |sim: &Sim| {
                    sim.sinks().read(SinkDesign::Upsert).iter().map(|r| u64::from(r.order_count)).sum::<u64>()
                };
                assert_eq!(total(&crashed) - total(&truth), excess, "upsert totals: {why}");
                let report = checkpoint_lab::engine::run(&config).unwrap().report();
                assert_eq!(report.counted_twice_events, excess, "{why}");
                excess_seen += excess;
            }
        }
    }
    assert!(excess_seen > 0, "backpressure lets records pass their barrier");
    // Exactly once, same scenario: nothing counted twice.
    let exactly = Config { backpressure_ms: 1_500, interval_ms: 10_000, horizon_ms: 180_000, ..Config::default() };
    assert_eq!(checkpoint_lab::engine::run(&exactly).unwrap().report().counted_twice_events, 0);
}

/// Offsets committed on a timer (Kafka's enable.auto.commit, every 5 s), apart from the state, in
/// the lesson's scenario: 2,000 events/s over 12 partitions from offset 1,000,000 at 10:00:00,
/// checkpoint 42's barrier at 10:00:30, the crash at 10:00:45. The consumer's last commit before
/// the crash is the one at 10:00:40 (the crash comes first at 10:00:45), so the restore loads
/// checkpoint 42's state but resumes reading at the offsets of 10:00:40: the events in between are
/// never counted, and the totals fall short by exactly them.
#[test]
fn offsets_committed_on_a_timer_lose_the_events_between_the_checkpoint_and_the_commit() {
    let config = Config { offset_commit: OffsetCommit::OnTimer, ..Config::default() };
    let per_s = config.rate_per_s;
    let offset_at = |s: u64| config.start_offset + per_s * s;
    let checkpoint_offset = offset_at(config.interval_ms / 1000);
    let crash_s = (config.crash_at_ms.unwrap() - config.start_time_ms) / 1000;
    let commit_s = (crash_s - 1) / 5 * 5;
    let committed_offset = offset_at(commit_s);
    assert_eq!((checkpoint_offset, commit_s, committed_offset), (1_060_000, 40, 1_080_000));
    // Each of the 12 partitions gets a twelfth: the sum of what lies between, per partition.
    let per_partition = |offset: u64| {
        let p = u64::from(config.partitions);
        (0..p).map(move |i| offset / p + u64::from(i < offset % p)).collect::<Vec<_>>()
    };
    let between: u64 =
        per_partition(committed_offset).iter().zip(per_partition(checkpoint_offset)).map(|(c, k)| c - k).sum();
    assert_eq!(between, 20_000);

    let report = checkpoint_lab::engine::run(&config).unwrap().report();
    assert_eq!(report.skipped_events, between);
    assert_eq!(report.counted_twice_events, 0);
    assert_eq!(report.lost_events, 0, "nothing is gone from the log");
    assert_eq!(report.replayed_offsets.as_ref().map(|r| r.from), Some(committed_offset));
    assert_eq!(report.replayed_events, 10_000, "from the commit at 10:00:40 to the crash at 10:00:45");
    assert!(
        report.warnings.iter().any(|w| w.contains("20,000 events") && w.contains("too low")),
        "{:?}",
        report.warnings
    );
    assert!(!report.sinks.upsert.matches_failure_free);

    let (crashed, truth) = run_past_recovery(&Config { horizon_ms: 180_000, ..config.clone() });
    assert_eq!(truth.state().counted_events - crashed.state().counted_events, between);
    let total = |sim: &Sim| sim.sinks().read(SinkDesign::Upsert).iter().map(|r| u64::from(r.order_count)).sum::<u64>();
    assert_eq!(total(&truth) - total(&crashed), between, "the upsert totals are short by them");
    // With the offsets in the checkpoint, the same crash loses nothing.
    assert_eq!(checkpoint_lab::engine::run(&Config::default()).unwrap().report().skipped_events, 0);
}

/// A commit interval longer than the checkpoint interval: the last commit before the crash lies
/// before the restored checkpoint's offsets, so the replay reads events again that the restored
/// state already counted. In the lesson's scenario with a commit a minute the last commit is the
/// start's, offset 1,000,000, and checkpoint 42's state counted up to 1,060,000.
#[test]
fn offsets_committed_less_often_than_checkpoints_count_events_twice() {
    let config =
        Config { offset_commit: OffsetCommit::OnTimer, offset_commit_interval_ms: 60_000, ..Config::default() };
    let report = checkpoint_lab::engine::run(&config).unwrap().report();
    let twice = config.rate_per_s * config.interval_ms / 1000;
    assert_eq!((report.counted_twice_events, report.skipped_events), (twice, 0));
    assert_eq!(twice, 60_000);
    assert_eq!(report.replayed_events, 90_000, "from the start's offsets to the crash's");
    assert!(
        report.warnings.iter().any(|w| w.contains("60,000 events") && w.contains("too high")),
        "{:?}",
        report.warnings
    );
}

/// Offsets committed on a timer, every crash of a three-minute horizon: each restore leaves the
/// totals short by the events it skipped and over by those it counted twice, no more and no less,
/// whichever of the commit and the checkpoint came last, in windows still open or closed.
#[test]
fn offsets_committed_on_a_timer_skip_or_count_twice_exactly_what_the_report_says() {
    let (mut skipped_seen, mut twice_seen) = (0, 0);
    for (commit_ms, interval_ms) in [(5_000, 10_000), (5_000, 30_000), (45_000, 10_000), (100_000, 30_000)] {
        for crash_s in (1..180).step_by(7) {
            let config = Config {
                horizon_ms: 180_000,
                window_ms: 60_000,
                interval_ms,
                offset_commit: OffsetCommit::OnTimer,
                offset_commit_interval_ms: commit_ms,
                crash_at_ms: Some(at("10:00:00") + crash_s * 1000),
                ..Config::default()
            };
            let why = format!("commit every {commit_ms} ms, checkpoint every {interval_ms} ms, crash at {crash_s} s");
            let (crashed, truth) = run_past_recovery(&config);
            let r = &crashed.recoveries[0];
            let counted = |sim: &Sim| sim.state().counted_events as i128;
            let expected = r.counted_twice_events as i128 - r.skipped_events as i128;
            assert_eq!(counted(&crashed) - counted(&truth), expected, "{why}");
            let total = |sim: &Sim| {
                sim.sinks().read(SinkDesign::Upsert).iter().map(|r| i128::from(r.order_count)).sum::<i128>()
            };
            assert_eq!(total(&crashed) - total(&truth), expected, "upsert totals: {why}");
            // The report's run ends at the horizon: it says so when the restore falls inside it.
            if r.restored_at_ms.is_some_and(|t| t < config.end_ms()) {
                let report = checkpoint_lab::engine::run(&config).unwrap().report();
                let figures = (report.skipped_events, report.counted_twice_events);
                assert_eq!(figures, (r.skipped_events, r.counted_twice_events), "{why}");
            }
            // The events between the restored checkpoint's offsets and the commit's.
            let (committed, checkpoint) = (r.committed.unwrap().1, r.restored.offset());
            assert_eq!(r.skipped_events, committed.saturating_sub(checkpoint), "{why}");
            assert_eq!(r.counted_twice_events, checkpoint.saturating_sub(committed), "{why}");
            skipped_seen += r.skipped_events;
            twice_seen += r.counted_twice_events;
        }
    }
    assert!(skipped_seen > 0 && twice_seen > 0);
}

/// Micro-batches keep their offsets in the query's offset log (Spark's Kafka source refuses
/// enable.auto.commit): offsets committed on a timer change nothing there.
#[test]
fn micro_batches_ignore_offsets_committed_on_a_timer() {
    let batches = Config { mode: checkpoint_lab::engine::Mode::MicroBatch, ..Config::default() };
    let on_timer = Config { offset_commit: OffsetCommit::OnTimer, ..batches.clone() };
    let json = |config: &Config| {
        let mut report = serde_json::to_value(checkpoint_lab::lesson::simulate(config).unwrap()).unwrap();
        report["config"].take();
        report
    };
    assert!(json(&batches) == json(&on_timer));
}
