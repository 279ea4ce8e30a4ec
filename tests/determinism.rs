//! Determinism: the same configuration gives the same report, and the native build's report
//! digests are recorded in tests/fixtures so the wasm tests can check the browser build against them.

mod common;

use checkpoint_lab::engine::{self, Config};
use checkpoint_lab::lesson;
use common::{digest, digest_scenarios as scenarios};

#[test]
fn the_same_configuration_twice_gives_the_same_report() {
    for (name, config) in scenarios() {
        let a = serde_json::to_string(&lesson::simulate(&config).unwrap()).unwrap();
        let b = serde_json::to_string(&lesson::simulate(&config).unwrap()).unwrap();
        assert!(a == b, "{name}: two runs differ");
    }
}

#[test]
fn another_seed_gives_other_events_but_the_same_lesson_figures() {
    let a = lesson::simulate(&Config::default()).unwrap();
    let b = lesson::simulate(&Config { seed: 99, ..Config::default() }).unwrap();
    assert_eq!((a.replayed_events, a.recovery_s), (b.replayed_events, b.recovery_s));
    assert_ne!(a.sinks.append_only.rows, 0);
    let per_product = |r: &lesson::Report| r.sinks.upsert.rows;
    assert_eq!(per_product(&a), per_product(&b));
    let outcome_a = engine::run(&Config::default()).unwrap();
    let outcome_b = engine::run(&Config { seed: 99, ..Config::default() }).unwrap();
    assert_ne!(
        outcome_a.run.sinks().read(engine::SinkDesign::Upsert),
        outcome_b.run.sinks().read(engine::SinkDesign::Upsert),
        "a different seed gives different products"
    );
}

#[test]
fn recorded_digests_match_this_build() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/report-digests.txt");
    let lines: String = scenarios()
        .into_iter()
        .map(|(name, config)| {
            let json = serde_json::to_string(&lesson::simulate(&config).unwrap()).unwrap();
            format!("{name} {:016x}\n", digest(&json))
        })
        .collect();
    if std::env::var_os("UPDATE_DIGESTS").is_some() {
        std::fs::write(path, &lines).unwrap();
    }
    let recorded = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(recorded, lines, "the engine's output changed: rerun with UPDATE_DIGESTS=1 and commit tests/fixtures");
}

#[test]
fn reusing_the_failure_free_run_gives_the_same_report() {
    for base in [Config::default(), Config { mode: engine::Mode::MicroBatch, ..Config::default() }] {
        let first = engine::run(&base).unwrap();
        for crash_at_ms in [36_031_000, 36_046_000, 36_130_500, 36_400_000] {
            let config = Config { crash_at_ms: Some(crash_at_ms), ..base.clone() };
            let fresh = serde_json::to_string(&engine::run(&config).unwrap().report()).unwrap();
            let reused = serde_json::to_string(&engine::run_reusing(&config, Some(&first)).unwrap().report()).unwrap();
            assert!(
                fresh == reused,
                "{:?} crash at {crash_at_ms}: reusing the failure-free run changed the report",
                base.mode
            );
        }
    }
    let first = engine::run(&Config::default()).unwrap();
    // Another interval is another scenario: nothing is reused, and the result is still right.
    let other = Config { interval_ms: 5_000, ..Config::default() };
    let reused = engine::run_reusing(&other, Some(&first)).unwrap().report();
    assert_eq!(reused, lesson::simulate(&other).unwrap());
}

#[test]
fn a_run_advanced_in_slices_gives_the_same_report() {
    for (name, config) in scenarios() {
        let whole = serde_json::to_string(&lesson::simulate(&config).unwrap()).unwrap();
        let mut runner = engine::Runner::new(&config, None).unwrap();
        let mut last = 0.0;
        let mut slices = 0;
        while !runner.advance(7_919) {
            let progress = runner.progress();
            assert!(progress >= last && progress <= 1.0, "{name}: progress {progress} after {last}");
            last = progress;
            slices += 1;
        }
        assert!(slices > 10, "{name}: {slices} slices");
        assert_eq!(runner.progress(), 1.0);
        let sliced = serde_json::to_string(&runner.finish().report()).unwrap();
        assert!(whole == sliced, "{name}: slicing the run changed the report");
    }
}

#[test]
fn runs_sharing_their_data_plane_give_the_same_reports() {
    use checkpoint_lab::engine::fast::data_plane::DataPlanes;
    use checkpoint_lab::engine::Mode;
    // Four labs of one page loading together: three of the same source settings (other
    // intervals, backpressure, micro-batches) count one plane between them, a slice each in
    // turn; another rate counts its own.
    let planes = DataPlanes::new();
    let configs = [
        Config::default(),
        Config { interval_ms: 5_000, ..Config::default() },
        Config { backpressure_ms: 3_000, mode: Mode::MicroBatch, ..Config::default() },
        Config { rate_per_s: 1_000, ..Config::default() },
    ];
    let mut runners: Vec<_> = configs.iter().map(|c| engine::Runner::sharing(c, None, &planes).unwrap()).collect();
    assert_eq!(planes.len(), 2, "one count per source");
    let mut outcomes: Vec<Option<engine::Outcome>> = configs.iter().map(|_| None).collect();
    while outcomes.iter().any(Option::is_none) {
        for (runner, outcome) in runners.iter_mut().zip(&mut outcomes) {
            if outcome.is_none() && runner.advance(3_000) {
                *outcome = Some(runner.clone().finish());
            }
        }
    }
    let outcomes: Vec<_> = outcomes.into_iter().map(Option::unwrap).collect();
    drop(runners);
    for (config, outcome) in configs.iter().zip(&outcomes) {
        assert_eq!(outcome.report(), lesson::simulate(config).unwrap(), "{config:?}");
    }
    let plane = |i: usize| outcomes[i].run.data_plane().expect("a data plane").clone();
    assert!(std::sync::Arc::ptr_eq(&plane(0), &plane(1)) && std::sync::Arc::ptr_eq(&plane(0), &plane(2)));
    assert!(!std::sync::Arc::ptr_eq(&plane(0), &plane(3)));
    // A later run takes the plane built, without counting.
    let later = engine::Runner::sharing(&Config { interval_ms: 60_000, ..Config::default() }, None, &planes).unwrap();
    assert_eq!(later.events_to_hash(), 0);
    assert!(std::sync::Arc::ptr_eq(later.finish().run.data_plane().unwrap(), &plane(0)));
    // The shelf keeps no plane alive by itself.
    drop(outcomes);
    assert!(planes.is_empty());
}
