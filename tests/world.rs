//! The world at an instant, read from a finished run's trace, against the per-event simulation
//! stopped at the same instant: the job's phase, the checkpoint or batch in flight, the restore
//! point a crash loads, the readers' offsets and lag, and what each sink holds so far, for a
//! sweep of instants (whole seconds, instants between samples, and the instants around every
//! event) over several scenarios.

mod common;

use checkpoint_lab::engine::fast::world_index::WorldIndex;
use checkpoint_lab::engine::model::sinks::{dedupe_view, duplicate_rows};
use checkpoint_lab::engine::{self, Alignment, Config, Mode, Sim, Snapshots};
use common::at;

fn scenarios() -> Vec<(&'static str, Config)> {
    let short = Config { horizon_ms: 180_000, ..Config::default() };
    vec![
        ("the lesson's crash", short.clone()),
        ("a crash before checkpoint 42 completes", Config { crash_at_ms: Some(at("10:00:31")), ..short.clone() }),
        (
            "a 5 s interval, incremental",
            Config { interval_ms: 5_000, snapshots: Snapshots::Incremental, ..short.clone() },
        ),
        ("no crash", Config { crash_at_ms: None, ..short.clone() }),
        (
            "aligned under backpressure",
            Config { backpressure_ms: 3_000, alignment: Alignment::Aligned, ..short.clone() },
        ),
        (
            "unaligned under backpressure",
            Config { backpressure_ms: 3_000, alignment: Alignment::Unaligned, ..short.clone() },
        ),
        ("micro-batches", Config { mode: Mode::MicroBatch, crash_at_ms: Some(at("10:00:46")), ..short.clone() }),
        (
            "micro-batches, a crash between batches (nothing to replay)",
            Config { mode: Mode::MicroBatch, crash_at_ms: Some(at("10:00:50")), ..short.clone() },
        ),
        ("a slow store", Config { interval_ms: 5_000, store_write_bytes_per_s: 50_000_000, ..short }),
    ]
}

/// Every whole second, every 173 ms through the checkpoint, crash and recovery, and each event's
/// instant with the millisecond before and after it.
fn instants(config: &Config, index: &WorldIndex) -> Vec<u64> {
    let (start, end) = index.span_ms();
    let mut out: Vec<u64> = (start..=end).step_by(1000).collect();
    out.extend((start + 25_000..start + 110_000).step_by(173));
    for t in index.key_instants_ms() {
        out.extend([t.saturating_sub(1), t, t + 1]);
    }
    if let Some(crash) = config.crash_at_ms {
        out.extend(crash.saturating_sub(3)..crash + 3);
    }
    out.retain(|&t| t >= start && t <= end);
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
fn the_world_at_an_instant_matches_the_simulation_stopped_there() {
    for (name, config) in scenarios() {
        let outcome = engine::run(&config).expect("a valid scenario");
        let figures = outcome.figures();
        let index = WorldIndex::new(&figures);
        let mut sim = Sim::new(&config).expect("a valid scenario");
        let mut checked = 0;
        let mut worst_offset_gap = 0u64;
        for t in instants(&config, &index) {
            sim.run_through(t);
            let world = index.at(t);
            let what = format!("{name}, at {} ({t} ms), seed {}", engine::settings::clock::ClockTime(t), config.seed);
            assert_eq!(world.phase, sim.phase_now(), "phase: {what}");
            let in_flight =
                world.checkpoint.as_ref().map(|c| c.checkpoint_id).or(world.batch.as_ref().map(|b| b.batch_id));
            assert_eq!(in_flight, sim.in_flight(), "checkpoint or batch in flight: {what}");
            let restoring = sim.recoveries.last().map(|r| r.restored.id());
            assert_eq!(world.crash.as_ref().map(|c| c.restore_from), restoring, "restore point: {what}");
            if let Some(c) = &world.crash {
                assert_eq!(c.offset, sim.recoveries.last().unwrap().crash_offset, "crash offset: {what}");
            }
            assert_eq!(world.log_end, sim.log().log_end_at(t), "log end: {what}");
            // Offsets: the sample's at a whole second; between samples within the simulation's
            // capacity rounding (one event per partition in log order), or within the events the
            // readers can take between two samples when they leave log order.
            let tolerance = if (t - config.start_time_ms) % 1000 == 0 {
                0
            } else if config.backpressure_ms == 0 {
                1
            } else {
                config.capacity_per_s / u64::from(config.partitions)
            };
            for (p, (&w, &s)) in world.offsets.iter().zip(sim.read_offsets()).enumerate() {
                let gap = w.abs_diff(s);
                worst_offset_gap = worst_offset_gap.max(gap);
                assert!(gap <= tolerance, "partition {p}: world {w}, simulation {s} (tolerance {tolerance}): {what}");
            }
            let position = sim.position();
            assert!(world.position.abs_diff(position) <= tolerance * u64::from(config.partitions), "position: {what}");
            assert_eq!(world.lag_events, world.log_end - world.position, "lag: {what}");
            let sinks = sim.sinks();
            let appended = sinks.append_only.rows();
            assert_eq!(world.sinks.append_only.rows, appended.len() as u64, "append-only rows: {what}");
            assert_eq!(world.sinks.upsert.rows, sinks.upsert_keys(), "upsert rows: {what}");
            assert_eq!(
                world.sinks.transactional.rows,
                sinks.committed_rows().len() as u64,
                "transactional rows: {what}"
            );
            // Duplicates sort the whole table: checked at whole seconds and around events.
            if t % 1000 == 0 || index.key_instants_ms().iter().any(|&k| k.abs_diff(t) <= 1) {
                assert_eq!(
                    world.sinks.append_only.duplicate_rows,
                    duplicate_rows(appended),
                    "append-only duplicates: {what}"
                );
                assert_eq!(
                    world.sinks.transactional.duplicate_rows,
                    duplicate_rows(&sinks.committed_rows()),
                    "transactional duplicates: {what}"
                );
                assert_eq!(world.sinks.dedupe_view.rows, dedupe_view::read(appended).len() as u64, "view rows: {what}");
            }
            checked += 1;
        }
        // Stepping the reference did not change it: it ends where the full run ended.
        sim.run_to_end();
        assert_eq!(sim.trace, outcome.run.trace, "{name}: the stepped simulation diverged from the run");
        assert!(checked > 300, "{name}: only {checked} instants");
        eprintln!("{name}: {checked} instants, worst offset gap between samples {worst_offset_gap}");
    }
}

#[test]
fn the_lessons_instants_read_as_the_lesson_tells_them() {
    let report = engine::run(&Config::default()).unwrap().figures();
    let index = WorldIndex::new(&report);
    use checkpoint_lab::engine::model::trace::Phase;
    let w = index.at(at("10:00:31"));
    assert_eq!(w.checkpoint.as_ref().map(|c| c.checkpoint_id), Some(42));
    assert_eq!(w.checkpoint.as_ref().map(|c| c.barrier_offset), Some(1_060_000));
    let w = index.at(at("10:00:46"));
    assert_eq!(w.phase, Phase::Detecting);
    assert_eq!(w.crash.as_ref().map(|c| (c.restore_from, c.offset)), Some((42, 1_090_000)));
    let w = index.at(at("10:01:00"));
    assert_eq!(w.phase, Phase::Restoring);
    let restore = w.restore.expect("restoring");
    assert_eq!((restore.done_bytes, restore.total_bytes), (1_000_000_000, 2_000_000_000));
    let w = index.at(at("10:01:08"));
    assert_eq!(w.phase, Phase::Replaying);
    assert!(w.position > 1_060_000 && w.position < 1_090_000, "replaying: {}", w.position);
    let w = index.at(at("10:01:45"));
    assert!(w.caught_up());
    assert_eq!(w.lag_events, 0);
    assert!(w.sinks.append_only.duplicate_rows > 0);
    assert_eq!(w.sinks.transactional.duplicate_rows, 0);
}
