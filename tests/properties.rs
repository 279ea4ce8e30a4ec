//! Property tests over random scenarios: the engine's guarantees against a failure-free oracle
//! (the same run without crashes, drained at the same instant), for any partitions, rate,
//! capacity, interval, state size, alignment, snapshot kind, retries, retention and crash time.
//! 6,000 cases in all (1,000 + 4,000 + 1,000), in the optimised test profile; failures are kept
//! in tests/properties.proptest-regressions and replayed first.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use checkpoint_lab::engine::model::sinks::{duplicate_rows, SinkDesign};
use checkpoint_lab::engine::{Alignment, Config, Sim, Snapshots};
use checkpoint_lab::lesson;
use common::{contents, extra_rows};
use proptest::prelude::*;

const TEN_AM: u64 = 36_000_000;

prop_compose! {
    fn scenario()(
        partitions in 1u32..=24,
        rate_per_s in 50u64..=5_000,
        headroom in prop_oneof![Just(0.8f64), 1.2f64..4.0],
        interval_ms in prop_oneof![500u64..=5_000, 5_000u64..=60_000],
        state_bytes in prop_oneof![Just(1_000_000u64), 1_000_000u64..=20_000_000_000],
        aligned in any::<bool>(),
        incremental in any::<bool>(),
        backpressure_ms in prop_oneof![3 => Just(0u64), 1 => 100u64..=2_000],
        retry_rate in prop_oneof![Just(0.0f64), 0.0f64..0.2],
        retention_ms in prop_oneof![3 => Just(None), 1 => (5_000u64..=120_000).prop_map(Some)],
        crash_after_ms in 1u64..=119_999,
        seed in any::<u64>(),
        products in 1u32..=300,
        window_s in prop_oneof![Just(60u64), Just(300)],
    ) -> Config {
        Config {
            seed,
            partitions,
            rate_per_s,
            capacity_per_s: ((rate_per_s as f64) * headroom).ceil() as u64,
            interval_ms,
            state_bytes,
            alignment: if aligned { Alignment::Aligned } else { Alignment::Unaligned },
            snapshots: if incremental { Snapshots::Incremental } else { Snapshots::Full },
            backpressure_ms,
            retry_rate,
            retention_ms,
            products,
            window_ms: window_s * 1000,
            crash_at_ms: Some(TEN_AM + crash_after_ms),
            horizon_ms: 120_000,
            ..Config::default()
        }
    }
}

/// Runs a crashed scenario and its twin until both can be compared, or `None` if the job cannot
/// catch up within an hour (capacity at or below the rate, or alignment that never lets it).
fn recovered(config: &Config) -> Option<(Sim, Sim)> {
    if cannot_catch_up(config) {
        return None;
    }
    let mut crashed = Sim::new(config).unwrap();
    let mut truth = crashed.clone();
    truth.cancel_crashes();
    let mut until = config.end_ms();
    crashed.run_until(until);
    while !crashed.all_recovered() {
        if until > config.end_ms() + 3_600_000 {
            return None;
        }
        until += 5_000;
        crashed.run_until(until);
    }
    truth.run_until(until);
    crashed.close_input_and_drain();
    truth.close_input_and_drain();
    Some((crashed, truth))
}

/// A job whose capacity is at or below its rate falls further behind every second after a
/// crash: an hour of simulation would end in `None` anyway, so it is not run.
fn cannot_catch_up(config: &Config) -> bool {
    config.capacity_per_s <= config.rate_per_s
}

/// Runs several crashed scenarios until all have caught up, then drains all at the same instant.
fn recovered_together(configs: &[Config]) -> Option<Vec<Sim>> {
    if configs.iter().any(cannot_catch_up) {
        return None;
    }
    let mut sims: Vec<Sim> = configs.iter().map(|c| Sim::new(c).unwrap()).collect();
    let end = configs.iter().map(Config::end_ms).max().unwrap();
    let mut until = end;
    loop {
        for sim in &mut sims {
            sim.run_until(until);
        }
        if sims.iter().all(Sim::all_recovered) {
            break;
        }
        if until > end + 3_600_000 {
            return None;
        }
        until += 5_000;
    }
    for sim in &mut sims {
        sim.close_input_and_drain();
    }
    Some(sims)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    #[test]
    fn recovery_is_exactly_once_against_the_failure_free_run(config in scenario()) {
        let report = lesson::simulate(&config).unwrap();
        let crash = report.crash.as_ref().unwrap();
        let restored = report.restored_checkpoint.as_ref().unwrap();
        // Replay is the distance from the restored offsets to the crash offsets, less what the
        // log no longer held (a restore past the retention resets to the oldest offset kept).
        let lost_events = report.sinks.append_only.lost_events;
        prop_assert_eq!(report.replayed_events, (crash.offset - restored.offset).saturating_sub(lost_events));
        // The restored checkpoint is the last one completed before the crash.
        let last_done = report.checkpoints.iter().filter(|c| c.completed_at.s <= crash.at.s).map(|c| c.id).max().unwrap();
        prop_assert_eq!(restored.id, last_done);
        // Never a hang or a silent gap: either caught up, or a reason is given.
        prop_assert!(report.caught_up_at.is_some() || report.caught_up_reason.is_some());
        if config.capacity_per_s <= config.rate_per_s {
            prop_assert!(report.caught_up_at.is_none());
        }
        let Some((crashed, truth)) = recovered(&config) else { return Ok(()) };
        let lost = crashed.recoveries.iter().map(|r| r.lost_events).sum::<u64>();
        if lost > 0 {
            // Retention exceeded: the report says how many (when the restore fell inside its
            // horizon), and the state is short of the failure-free one.
            if report.restored_at.is_some() {
                prop_assert_eq!(report.lost_events, lost);
            }
            prop_assert!(crashed.state().counted_events + crashed.state().dropped_duplicates
                < truth.state().counted_events + truth.state().dropped_duplicates);
            return Ok(());
        }
        prop_assert!(crashed.state().same_content(truth.state()), "state differs");
        prop_assert_eq!(crashed.state().seen_ids(), truth.state().seen_ids());
        let (run, free) = (&crashed.sinks(), &truth.sinks());
        prop_assert_eq!(contents(&run.read(SinkDesign::Upsert)), contents(&free.read(SinkDesign::Upsert)));
        prop_assert_eq!(contents(&run.read(SinkDesign::DedupeView)), contents(&free.read(SinkDesign::DedupeView)));
        let committed = run.read(SinkDesign::Transactional);
        prop_assert_eq!(duplicate_rows(&committed), 0);
        let newest = committed.iter().map(|r| r.boundary_ms).max().unwrap_or(0);
        let prefix: Vec<_> = free.append_only.rows().iter().filter(|r| r.boundary_ms <= newest).copied().collect();
        prop_assert_eq!(contents(&committed), contents(&prefix));
        let restored_id = crashed.recoveries[0].restored.id();
        let mut orphans: Vec<_> = run.append_only.rows().iter()
            .filter(|r| r.attempt == 1 && r.epoch > restored_id).map(|r| r.content()).collect();
        orphans.sort_unstable();
        prop_assert_eq!(extra_rows(run.append_only.rows(), free.append_only.rows()), orphans);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4_000, ..ProptestConfig::default() })]

    #[test]
    fn full_and_incremental_snapshots_restore_the_same_state(config in scenario()) {
        let full = Config { snapshots: Snapshots::Full, retention_ms: None, ..config.clone() };
        let incremental = Config { snapshots: Snapshots::Incremental, ..full.clone() };
        let Some(drained) = recovered_together(&[full, incremental]) else { return Ok(()) };
        // Different upload sizes move checkpoint completions (and maybe the restored checkpoint),
        // yet both recover to the same state.
        prop_assert!(drained[0].state().same_content(drained[1].state()));
        prop_assert_eq!(drained[0].state().seen_ids(), drained[1].state().seen_ids());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    #[test]
    fn the_same_seed_gives_the_same_report(config in scenario()) {
        let a = serde_json::to_string(&lesson::simulate(&config).unwrap()).unwrap();
        let b = serde_json::to_string(&lesson::simulate(&config).unwrap()).unwrap();
        prop_assert!(a == b);
    }
}

proptest! {
    /// The trace's ordering by instant keeps same-instant items in their order, as the standard
    /// library's stable sort does, however far an item stands out of order.
    #[test]
    fn sorting_a_nearly_sorted_list_is_a_stable_sort(keys in proptest::collection::vec(0u64..20, 0..60)) {
        let items: Vec<(u64, usize)> = keys.into_iter().enumerate().map(|(i, k)| (k, i)).collect();
        let mut ours = items.clone();
        checkpoint_lab::engine::model::trace::sort_nearly_sorted_by_key(&mut ours, |item| item.0);
        let mut std_sorted = items;
        std_sorted.sort_by_key(|item| item.0);
        prop_assert_eq!(ours, std_sorted);
    }
}
