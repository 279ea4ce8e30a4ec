//! The fast way of computing a run (each emit period's orders from the data plane, the
//! milliseconds between the instants that matter taken in one go) against the reference (every
//! event hashed and counted, one millisecond at a time while the readers are behind or paused):
//! whole reports, traces, sink tables and recoveries, over the recovery sweep — every crash
//! second of a three-minute horizon × intervals × alignment × snapshots, both protocols,
//! backpressure, at-least-once and producer retries included. The fast runs follow each other as
//! on the page, each reusing the previous run's data plane and, when only the crash moved, its
//! failure-free run.

mod common;

use checkpoint_lab::engine::model::report::SinkTables;
use checkpoint_lab::engine::model::sim::Execution;
use checkpoint_lab::engine::model::sinks::{same_in_order, SinkDesign};
use checkpoint_lab::engine::settings::config::{CheckpointingMode, OffsetCommit};
use checkpoint_lab::engine::Outcome;
use checkpoint_lab::engine::{Alignment, Config, Mode, Runner, Sim, Snapshots};
use common::at;

const INTERVALS_MS: [u64; 6] = [1_000, 5_000, 10_000, 30_000, 60_000, 120_000];

fn first_difference(a: &str, b: &str) -> String {
    let i = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let from = i.saturating_sub(120);
    format!("fast …{}…\nreference …{}…", &a[from..(i + 120).min(a.len())], &b[from..(i + 120).min(b.len())])
}

fn same_sim(fast: &Sim, reference: &Sim, why: &str) {
    assert_eq!(fast.trace, reference.trace, "trace: {why}");
    assert_eq!(fast.recoveries, reference.recoveries, "recoveries: {why}");
    assert!(fast.state().same_content(reference.state()), "state: {why}");
    assert_eq!(fast.read_offsets(), reference.read_offsets(), "offsets: {why}");
    assert_eq!(fast.processed_events(), reference.processed_events(), "processed: {why}");
    assert_eq!((fast.paused_ms(), fast.aligning_ms()), (reference.paused_ms(), reference.aligning_ms()), "{why}");
    for design in SinkDesign::ALL {
        assert_eq!(fast.sinks().read(design), reference.sinks().read(design), "{design:?}: {why}");
    }
}

/// Runs `config` both ways and compares them; returns the fast outcome for the next run to reuse.
fn same_both_ways(config: &Config, previous: Option<&Outcome>) -> Outcome {
    let why = format!("{config:?}");
    let fast = Runner::new(config, previous).expect("valid").finish();
    let reference = Runner::per_event(config, None).expect("valid").finish();
    assert_eq!(fast.run.execution(), Execution::Fast);
    assert_eq!(reference.run.execution(), Execution::PerEvent);
    assert_eq!(fast.run.data_plane().is_some(), config.retry_rate == 0.0, "{why}");
    let (fast_report, reference_report) = (fast.report(), reference.report());
    let (a, b) = (serde_json::to_string(&fast_report).unwrap(), serde_json::to_string(&reference_report).unwrap());
    assert!(a == b, "report: {why}\n{}", first_difference(&a, &b));
    // What each reader sees, rows and all: the fast way reads the tables emission by emission.
    for design in SinkDesign::ALL {
        assert_eq!(fast_report.tables.read(design), reference_report.tables.read(design), "{design:?} table: {why}");
    }
    same_histories(config, &fast_report.tables, &reference_report.tables, &why);
    same_sim(&fast.run, &reference.run, &why);
    if let (Some(fast_free), Some(reference_free)) = (&fast.failure_free, &reference.failure_free) {
        if fast.truth_rows_borrowed {
            same_borrowing_sim(fast_free, reference_free, &format!("failure-free, rows borrowed, {why}"));
        } else {
            same_sim(fast_free, reference_free, &format!("failure-free {why}"));
        }
    }
    fast
}

/// A key's history (the sink-window chart), read emission by emission in the fast report
/// wherever its tables can be, against every row of the reference's tables read: for every
/// seventh product of each window, and for the keys of the first orphaned rows.
fn same_histories(config: &Config, fast: &SinkTables, reference: &SinkTables, why: &str) {
    let by_emission = config.mode == Mode::Barrier
        && config.retry_rate == 0.0
        && config.checkpointing_mode == CheckpointingMode::ExactlyOnce
        && !config.commits_offsets_on_timer()
        && config.retention_ms.is_none();
    if by_emission {
        assert!(fast.emissions.is_some(), "read by emission: {why}");
    }
    assert!(reference.emissions.is_none(), "the reference reads every row: {why}");
    let sampled = fast.dedupe_view.iter().filter(|r| r.product_id % 7 == 0);
    let orphaned = fast.append_only.iter().filter(|r| fast.is_orphan(r)).take(3);
    for row in sampled.chain(orphaned) {
        let (window, product) = (u64::from(row.window_start_ms), row.product_id);
        assert_eq!(
            fast.history(window, product),
            reference.history_by_scan(window, product),
            "{window} {product}: {why}"
        );
    }
}

/// A failure-free run that borrowed its rows from an earlier one (see `Sinks::discard_rows`)
/// against the reference: the same run, and its borrowed append-only table holds the rows the
/// reference wrote, in the same order.
fn same_borrowing_sim(fast: &Sim, reference: &Sim, why: &str) {
    assert_eq!(fast.trace.events, reference.trace.events, "trace: {why}");
    // Its per-second samples count the rows it kept, none; the rest of each sample is the same.
    let unsunk = |sim: &Sim| -> Vec<_> {
        sim.trace.samples.iter().map(|s| (s.at_ms, s.phase, s.position, s.offsets.clone(), s.seen_ids)).collect()
    };
    assert_eq!(unsunk(fast), unsunk(reference), "samples: {why}");
    assert!(fast.state().same_content(reference.state()), "state: {why}");
    assert_eq!(fast.read_offsets(), reference.read_offsets(), "offsets: {why}");
    assert_eq!(fast.restore_points, reference.restore_points, "checkpoints: {why}");
    let (borrowed, written) = (fast.sinks().append_only.rows(), reference.sinks().append_only.rows());
    assert!(same_in_order(borrowed, written), "append-only rows: {why}");
    assert_eq!(fast.sinks().transactional.timed_out_rows(), reference.sinks().transactional.timed_out_rows(), "{why}");
    assert_eq!(fast.sinks().transactional.fenced_transactions(), reference.sinks().transactional.fenced_transactions());
}

/// Every `crash_step_s`-th crash second of a three-minute horizon, for each interval.
fn sweep(base: Config, intervals: &[u64], crash_step_s: usize) -> usize {
    let mut runs = 0;
    let mut previous: Option<Outcome> = None;
    for &interval_ms in intervals {
        for crash_s in (1..180).step_by(crash_step_s) {
            let config = Config {
                horizon_ms: 180_000,
                interval_ms,
                crash_at_ms: Some(at("10:00:00") + crash_s * 1000),
                ..base.clone()
            };
            previous = Some(same_both_ways(&config, previous.as_ref()));
            runs += 1;
        }
    }
    runs
}

#[test]
fn barrier_every_crash_second_aligned_and_unaligned_full_and_incremental() {
    for alignment in [Alignment::Aligned, Alignment::Unaligned] {
        for snapshots in [Snapshots::Full, Snapshots::Incremental] {
            let base = Config { alignment, snapshots, ..Config::default() };
            assert_eq!(sweep(base, &INTERVALS_MS, 1), 6 * 179);
        }
    }
}

#[test]
fn micro_batch_every_crash_second() {
    for snapshots in [Snapshots::Full, Snapshots::Incremental] {
        let base = Config { mode: Mode::MicroBatch, snapshots, ..Config::default() };
        assert_eq!(sweep(base, &INTERVALS_MS, 1), 6 * 179);
    }
}

#[test]
fn under_backpressure_and_at_least_once() {
    for alignment in [Alignment::Aligned, Alignment::Unaligned] {
        let base = Config { alignment, backpressure_ms: 1_500, ..Config::default() };
        assert!(sweep(base, &INTERVALS_MS[1..], 3) > 0);
    }
    let base =
        Config { backpressure_ms: 1_500, checkpointing_mode: CheckpointingMode::AtLeastOnce, ..Config::default() };
    assert!(sweep(base, &INTERVALS_MS[1..], 3) > 0);
}

/// Offsets committed on a timer, apart from the state: a commit after the restored checkpoint's
/// offsets (the 5 s default: events skipped), one before them (a commit interval longer than the
/// checkpoint interval: events counted twice, from periods and windows already emitted), under
/// backpressure with at-least-once, with producer retries and retention.
#[test]
fn offsets_committed_on_a_timer() {
    let on_timer = Config { offset_commit: OffsetCommit::OnTimer, ..Config::default() };
    assert!(sweep(on_timer.clone(), &INTERVALS_MS, 3) > 0);
    let long_commits = Config { offset_commit_interval_ms: 100_000, window_ms: 60_000, ..on_timer.clone() };
    assert!(sweep(long_commits.clone(), &INTERVALS_MS[..4], 4) > 0);
    let at_least_once = Config {
        backpressure_ms: 1_500,
        checkpointing_mode: CheckpointingMode::AtLeastOnce,
        offset_commit_interval_ms: 7_000,
        ..on_timer.clone()
    };
    assert!(sweep(at_least_once, &INTERVALS_MS[1..4], 5) > 0);
    let retries = Config { retry_rate: 0.05, ..long_commits };
    assert!(sweep(retries, &INTERVALS_MS[1..3], 9) > 0);
    let retention = Config { retention_ms: Some(15_000), ..on_timer };
    assert!(sweep(retention, &INTERVALS_MS[2..4], 9) > 0);
}

#[test]
fn with_producer_retries_and_retention() {
    assert!(sweep(Config { retry_rate: 0.05, ..Config::default() }, &INTERVALS_MS, 5) > 0);
    let micro_batch = Config { mode: Mode::MicroBatch, retry_rate: 0.05, ..Config::default() };
    assert!(sweep(micro_batch, &INTERVALS_MS, 5) > 0);
    assert!(sweep(Config { retention_ms: Some(15_000), ..Config::default() }, &INTERVALS_MS, 5) > 0);
}

/// Windows that close inside the horizon (each emission of a window whose every period came whole
/// from the data plane is the plane's running totals; a window starts over at its first period),
/// emit periods of several seconds, and a scenario that starts inside a window.
#[test]
fn windows_that_close_and_a_start_inside_a_window() {
    let bases = [
        Config { window_ms: 30_000, ..Config::default() },
        Config { window_ms: 60_000, emit_every_ms: 3_000, retention_ms: Some(15_000), ..Config::default() },
        Config { window_ms: 20_000, emit_every_ms: 5_000, alignment: Alignment::Unaligned, ..Config::default() },
        Config { window_ms: 30_000, mode: Mode::MicroBatch, ..Config::default() },
        // Windows of 70 s: 10:00:00 falls inside one (09:59:40 to 10:00:50).
        Config { window_ms: 70_000, backpressure_ms: 1_500, ..Config::default() },
    ];
    for base in bases {
        assert!(sweep(base, &INTERVALS_MS[1..5], 7) > 0);
    }
}

#[test]
fn slow_capacity_state_sizes_and_no_crash() {
    for state_bytes in [1_000_000, 200_000_000, 20_000_000_000] {
        let base = Config { state_bytes, capacity_per_s: 2_500, ..Config::default() };
        assert!(sweep(base, &INTERVALS_MS, 11) > 0);
    }
    // The lesson's default scenario, its ten minutes, with and without the crash.
    let previous = same_both_ways(&Config::default(), None);
    same_both_ways(&Config { crash_at_ms: Some(at("10:03:17")), ..Config::default() }, Some(&previous));
    same_both_ways(&Config { crash_at_ms: None, ..Config::default() }, Some(&previous));
}

/// Moving the interval or the state size, with the crash where it is, the failure-free run keeps
/// no rows and borrows the previous one's: each change, as on the page, against the reference.
/// Long syncs with little spare capacity leave a run behind at the horizon, so a run with fewer
/// syncs writes rows past the ones it borrows.
#[test]
fn an_interval_or_state_size_change_borrows_the_failure_free_rows() {
    let short = Config { horizon_ms: 180_000, crash_at_ms: Some(at("10:01:10")), ..Config::default() };
    let bases = [
        Config { alignment: Alignment::Unaligned, backpressure_ms: 1_500, ..short.clone() },
        Config { snapshots: Snapshots::Incremental, ..short.clone() },
        Config { checkpointing_mode: CheckpointingMode::AtLeastOnce, ..short.clone() },
        Config { capacity_per_s: 2_200, sync_pause_ms: 5_000, ..short.clone() },
        Config { transaction_timeout_ms: 20_000, ..short.clone() },
        short,
    ];
    let mut grew = 0;
    for base in bases {
        let mut previous = same_both_ways(&base, None);
        assert!(!previous.truth_rows_borrowed);
        let moves = INTERVALS_MS.iter().rev().map(|&interval_ms| Config { interval_ms, ..base.clone() }).chain(
            [1_000_000, 3_000_000_000, 40_000_000_000].map(|state_bytes| Config { state_bytes, ..base.clone() }),
        );
        for config in moves {
            let outcome = same_both_ways(&config, Some(&previous));
            // A transaction that may outlive its timeout (fencing) steps aside from reuse.
            let steps_aside = checkpoint_lab::engine::fast::runner::may_fail_more_than_once(&config);
            assert_eq!(outcome.truth_rows_borrowed, !steps_aside, "{config:?}");
            let whole = |o: &Outcome| o.truth().sinks().append_only.whole().len();
            grew += usize::from(whole(&outcome) > whole(&previous));
            previous = outcome;
        }
        // Only the crash moved next: a failure-free run of its own again, with keyframes.
        let config = Config { crash_at_ms: Some(at("10:02:00")), ..previous.run.config.clone() };
        let outcome = same_both_ways(&config, Some(&previous));
        let steps_aside = checkpoint_lab::engine::fast::runner::may_fail_more_than_once(&config);
        assert!(!outcome.truth_rows_borrowed && outcome.keyframes.is_empty() == steps_aside, "{config:?}");
    }
    assert!(grew > 0, "no run wrote rows past those it borrowed");
}

/// Moving only the crash resumes the run from the failure-free run's latest keyframe at or before
/// the new crash, whichever way the crash moves, and gives what a run from the start gives.
#[test]
fn a_crash_time_change_resumes_from_the_latest_keyframe_before_the_crash() {
    let unaligned = Config { alignment: Alignment::Unaligned, ..Config::default() };
    let micro_batch = Config { mode: Mode::MicroBatch, ..Config::default() };
    // Transactions that time out while open, and between pre-commit and commit (rows lost).
    let fenced = Config { interval_ms: 120_000, transaction_timeout_ms: 60_000, ..Config::default() };
    let lost = Config {
        interval_ms: 50_000,
        state_bytes: 20_000_000_000,
        transaction_timeout_ms: 60_000,
        ..Config::default()
    };
    for base in [fenced, lost] {
        // A transaction may outlive its timeout: fencing may fail the job at any time, so the
        // run steps aside from keyframes and reuse, and still equals the reference.
        assert!(checkpoint_lab::engine::fast::runner::may_fail_more_than_once(&base));
        let mut previous = same_both_ways(&base, None);
        assert!(previous.keyframes.is_empty());
        for crash in ["10:05:00", "10:01:07"] {
            let config = Config { crash_at_ms: Some(at(crash)), ..base.clone() };
            assert_eq!(Runner::new(&config, Some(&previous)).unwrap().resumed_at_ms(), None, "{crash}");
            previous = same_both_ways(&config, Some(&previous));
        }
    }
    for base in [Config::default(), unaligned, micro_batch] {
        let mut previous = same_both_ways(&base, None);
        assert!(previous.keyframes.len() >= 10, "{} keyframes", previous.keyframes.len());
        for crash in ["10:09:30", "10:00:20", "10:05:00", "10:05:00", "10:01:07", "10:00:01"] {
            let config = Config { crash_at_ms: Some(at(crash)), ..base.clone() };
            let latest = previous.keyframes.iter().map(|k| k.at_ms()).filter(|&t| t <= at(crash)).max();
            // Keyframes come every 37.5 s: only a crash in the first ones has none before it.
            assert_eq!(latest.is_none(), crash == "10:00:20" || crash == "10:00:01", "{crash}");
            assert_eq!(Runner::new(&config, Some(&previous)).unwrap().resumed_at_ms(), latest, "{crash}");
            previous = same_both_ways(&config, Some(&previous));
        }
        // In slices of a millisecond, the resumed run copies its tables a part per step and
        // comes out the same.
        let config = Config { crash_at_ms: Some(at("10:07:00")), ..base };
        let mut sliced = Runner::new(&config, Some(&previous)).unwrap();
        assert!(sliced.resumed_at_ms().is_some());
        let mut steps = 0;
        while !sliced.advance(1) {
            steps += 1;
        }
        assert!(steps > 2, "{steps} steps");
        let whole = Runner::new(&config, Some(&previous)).unwrap().finish();
        let report = |o: &Outcome| serde_json::to_string(&o.report()).unwrap();
        assert!(report(&sliced.finish()) == report(&whole), "{config:?}");
    }
    // Another setting than the crash starts from the start again.
    let previous = same_both_ways(&Config::default(), None);
    let interval = Config { interval_ms: 40_000, ..Config::default() };
    assert_eq!(Runner::new(&interval, Some(&previous)).unwrap().resumed_at_ms(), None);
}
