//! The typed trace: the default scenario's lesson figures as events in integer milliseconds,
//! micro-batch events without barriers, time order, and samples that agree with the run.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use checkpoint_lab::engine::model::sim::FailureCause;
use checkpoint_lab::engine::model::sinks::SinkDesign;
use checkpoint_lab::engine::model::trace::{Event, Trace};
use checkpoint_lab::engine::{self, Alignment, Config, Mode, Sim};
use common::{at, digest_scenarios};

/// When `wanted` happened, if it did.
fn when(trace: &Trace, wanted: impl Fn(&Event) -> bool) -> Option<u64> {
    trace.events.iter().find(|e| wanted(&e.event)).map(|e| e.at_ms)
}

#[test]
fn the_default_scenario_second_by_second() {
    let outcome = engine::run(&Config::default()).unwrap();
    let trace = &outcome.run.trace;
    let barrier_42 = Event::BarrierInjected { checkpoint_id: 42, offset: 1_060_000 };
    assert_eq!(when(trace, |e| *e == barrier_42), Some(36_030_000), "barrier 42 at 10:00:30");
    assert_eq!(
        when(trace, |e| matches!(e, Event::SnapshotTaken { checkpoint_id: 42 })),
        Some(36_030_000),
        "nothing to align on: the snapshot is taken at the barrier"
    );
    let upload = Event::UploadStarted { checkpoint_id: 42, size_bytes: 2_000_000_000, completes_at_ms: 36_032_100 };
    assert_eq!(when(trace, |e| *e == upload), Some(36_030_100), "after the 100 ms pause, 2 s of upload");
    let completed = Event::CheckpointCompleted { checkpoint_id: 42, offset: 1_060_000 };
    assert_eq!(when(trace, |e| *e == completed), Some(36_032_100));
    assert_eq!(when(trace, |e| matches!(e, Event::Crash { offset: 1_090_000, .. })), Some(36_045_000));
    assert_eq!(when(trace, |e| *e == Event::Detected), Some(36_055_000));
    assert_eq!(when(trace, |e| *e == Event::RestoreStarted { restore_from: 42 }), Some(36_055_000));
    assert_eq!(
        when(trace, |e| *e == Event::Restored { restore_from: 42, offset: 1_060_000 }),
        Some(36_065_000),
        "2 GB at 200 MB/s"
    );
    assert_eq!(when(trace, |e| matches!(e, Event::ReplayDone { .. })), Some(at("10:01:12.500")));
    assert_eq!(when(trace, |e| matches!(e, Event::CaughtUp { .. })), Some(36_100_200));
    assert!(!trace.events.iter().any(|e| matches!(e.event, Event::CheckpointDiscarded { .. })));
    assert!(!trace.events.iter().any(|e| matches!(e.event, Event::BatchPlanned { .. })));
    // The 10:00 window's emissions up to 10:00:44, one event per emit boundary.
    let emitted: Vec<_> = trace
        .events
        .iter()
        .filter(|e| matches!(e.event, Event::Emitted { .. }) && (36_000_001..=36_044_000).contains(&e.at_ms))
        .collect();
    assert_eq!(emitted.len(), 44, "one emission a second");
    // Every emitted row is one append-only row.
    let rows: u64 = trace.events.iter().map(|e| if let Event::Emitted { rows, .. } = e.event { rows } else { 0 }).sum();
    assert_eq!(rows, outcome.run.sinks().append_only.rows().len() as u64);
}

#[test]
fn micro_batch_mode_plans_and_commits_batches_and_injects_no_barrier() {
    let config = Config { mode: Mode::MicroBatch, crash_at_ms: Some(at("10:00:45.200")), ..Config::default() };
    let outcome = engine::run(&config).unwrap();
    let trace = &outcome.run.trace;
    assert_eq!(when(trace, |e| matches!(e, Event::BatchPlanned { batch_id: 42, .. })), Some(at("10:00:30.100")));
    assert!(when(trace, |e| matches!(e, Event::BatchOutput { batch_id: 42, rows: 100, .. })).is_some());
    assert_eq!(when(trace, |e| matches!(e, Event::BatchDiscarded { batch_id: 42 })), Some(at("10:00:45.200")));
    assert!(when(trace, |e| matches!(e, Event::BatchRerun { batch_id: 42, .. })).is_some());
    let commits_of_42 = trace.events.iter().filter(|e| matches!(e.event, Event::BatchCommitted { batch_id: 42, .. }));
    assert_eq!(commits_of_42.count(), 1, "batch 42 commits once: after its re-run");
    assert!(trace.events.iter().any(|e| matches!(e.event, Event::BatchCommitted { batch_id: 43, .. })));
    let barrier_events = trace.events.iter().filter(|e| {
        matches!(
            e.event,
            Event::BarrierInjected { .. }
                | Event::AlignmentStarted { .. }
                | Event::AlignmentEnded { .. }
                | Event::SnapshotTaken { .. }
                | Event::UploadStarted { .. }
                | Event::CheckpointCompleted { .. }
                | Event::CheckpointDiscarded { .. }
                | Event::Emitted { .. }
        )
    });
    assert_eq!(barrier_events.count(), 0);
    let rows: u64 =
        trace.events.iter().map(|e| if let Event::BatchOutput { rows, .. } = e.event { rows } else { 0 }).sum();
    assert_eq!(rows, outcome.run.sinks().append_only.rows().len() as u64);
}

/// Events come in the order they happened, and every sample agrees with itself and the run.
fn check_trace(name: &str, sim: &Sim) {
    let events = &sim.trace.events;
    for pair in events.windows(2) {
        assert!(pair[0].at_ms <= pair[1].at_ms, "{name}: {:?} before {:?}", pair[0], pair[1]);
    }
    let start = sim.config.start_time_ms;
    let samples = &sim.trace.samples;
    assert_eq!(samples.len() as u64, sim.config.horizon_ms / 1000 + 1, "{name}: one sample a second");
    for s in samples {
        assert_eq!((s.at_ms - start) % 1000, 0, "{name}");
        assert_eq!(s.offsets.iter().sum::<u64>(), s.position, "{name}: per-partition offsets sum to the position");
        assert_eq!(s.lag_events, s.log_end - s.position, "{name}");
    }
    // The last sample is taken at the end of the run: it shows what the sinks hold.
    let last = samples.last().unwrap();
    let sinks = sim.sinks();
    let held = |design| sinks.read(design).len() as u64;
    assert_eq!(last.sink_rows.append_only, held(SinkDesign::AppendOnly), "{name}");
    assert_eq!(last.sink_rows.upsert, held(SinkDesign::Upsert), "{name}");
    assert_eq!(last.sink_rows.transactional, held(SinkDesign::Transactional), "{name}");
    assert_eq!(last.sink_rows.dedupe_view, held(SinkDesign::DedupeView), "{name}");
}

#[test]
fn events_are_in_time_order_and_samples_agree_with_the_run() {
    let more = [
        (
            "a five-minute horizon",
            Config { crash_at_ms: Some(at("10:00:45")), horizon_ms: 300_000, ..Config::default() },
        ),
        (
            "unaligned, restart delay",
            Config {
                alignment: Alignment::Unaligned,
                backpressure_ms: 2_000,
                restart_delay_ms: 3_000,
                ..Config::default()
            },
        ),
    ];
    for (name, config) in digest_scenarios().into_iter().chain(more) {
        let outcome = engine::run(&config).unwrap();
        check_trace(name, &outcome.run);
        if let Some(truth) = &outcome.failure_free {
            check_trace(name, truth);
        }
    }
    // A crash during the previous crash's detection: the first detection never happens.
    let mut sim = Sim::new(&Config { crash_at_ms: Some(at("10:00:45")), ..Config::default() }).unwrap();
    sim.run_until(at("10:00:50"));
    sim.crash(FailureCause::Scheduled);
    sim.run_to_end();
    check_trace("crash during detection", &sim);
    let detections: Vec<u64> =
        sim.trace.events.iter().filter(|e| e.event == Event::Detected).map(|e| e.at_ms).collect();
    assert_eq!(detections, vec![at("10:01:00")]);
}
