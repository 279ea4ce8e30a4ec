//! What moves in the pipeline view: records on the channels at the rate the job reads, none while
//! it is down; a barrier travelling down the slow channel while the aligned operator holds the
//! others; the snapshot on its way to the store and the restore on its way back; a log window that
//! stays put while time passes. Checked on the marks computed from the world at the cursor, and on
//! the picture drawn from them (plotters' SVG backend).

use checkpoint_lab::charts::flow::{events_per_record, flow, log_window, Flow, RECORDS_PER_CHANNEL};
use checkpoint_lab::charts::{self, Chart, Focus, View};
use checkpoint_lab::engine::model::trace::Phase;
use checkpoint_lab::engine::settings::clock::parse_clock;
use checkpoint_lab::engine::Config;
use checkpoint_lab::lesson::{self, Report};

const WIDTH: u32 = 900;

fn at(clock: &str) -> u64 {
    parse_clock(clock).unwrap()
}

fn flow_at(report: &Report, t_ms: u64) -> Flow {
    flow(&report.config, &report.world.at(t_ms))
}

/// The pipeline view at `t_ms`, drawn as SVG 900 × 360.
fn picture(report: &Report, t_ms: u64) -> String {
    let cursor_s = (t_ms - report.config.start_time_ms) as f64 / 1000.0;
    let view = View { cursor_s: Some(cursor_s), ..View::default() };
    charts::svg(Chart::Pipeline, report, &Focus::default(), &view, (WIDTH, 360)).unwrap()
}

/// The numbers of an SVG tag's `attribute`.
fn numbers(tag: &str, attribute: &str) -> Vec<f64> {
    let start = tag.find(&format!(" {attribute}=\"")).expect(attribute) + attribute.len() + 3;
    let end = start + tag[start..].find('"').unwrap();
    tag[start..end].split([' ', ',']).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect()
}

/// The tags of `kind` ("circle", "polyline") filled or stroked in `color`.
fn tags<'a>(svg: &'a str, kind: &str, color: &str) -> Vec<&'a str> {
    svg.split(&format!("<{kind}")).skip(1).map(|t| &t[..t.find('>').unwrap()]).filter(|t| t.contains(color)).collect()
}

/// Record marks: the dots in the records' blue (the status dot is another colour).
fn record_dots(svg: &str) -> usize {
    tags(svg, "circle", "fill=\"#0072B2\"").len()
}

/// Where the pipeline view draws a barrier between the source and the operator: the x of each
/// yellow stroke in that gap (the barriers drawn in the logs stand left of it).
fn barrier_marks_x(svg: &str) -> Vec<f64> {
    let (source_x1, operator_x0) = (f64::from(WIDTH) * 0.35, f64::from(WIDTH) * 0.46);
    tags(svg, "polyline", "stroke=\"#F0E442\"")
        .into_iter()
        .map(|t| {
            let p = numbers(t, "points");
            (p[0] + p[2]) / 2.0
        })
        .filter(|&x| x > source_x1 && x < operator_x0)
        .collect()
}

/// The scenario where a barrier travels: partition 0 behind a 3 s slow channel, aligned.
fn backpressured() -> Report {
    lesson::simulate(&Config { backpressure_ms: 3_000, crash_at_ms: None, ..Config::default() }).unwrap()
}

#[test]
fn a_barrier_travels_down_the_slow_channel_while_the_aligned_operator_holds_the_others() {
    let report = backpressured();
    let barrier = at("10:00:30");
    let (early, late) = (barrier + 700, barrier + 2_100);
    let (a, b) = (flow_at(&report, early), flow_at(&report, late));
    for (flow, t) in [(&a, early), (&b, late)] {
        let world = report.world.at(t);
        assert_eq!(world.phase, Phase::Aligning, "at {t}");
        let slow = &flow.channels[0];
        let s = slow.barrier.expect("the slow channel's barrier is on its way");
        assert!(s > 0.0 && s < 1.0, "between source and operator: {s}");
        assert!(slow.held_events.is_none() && !slow.records.is_empty(), "the slow channel still delivers");
        for held in &flow.channels[1..] {
            assert!(held.barrier.is_none() && held.records.is_empty(), "{held:?}");
            assert!(held.held_events.is_some_and(|e| e > 0), "records wait behind the arrived barrier: {held:?}");
        }
        assert_eq!(flow.snapshot, None, "no snapshot before the last barrier is in");
    }
    let (sa, sb) = (a.channels[0].barrier.unwrap(), b.channels[0].barrier.unwrap());
    assert!(sb > sa, "the barrier moved on toward the operator: {sa} then {sb}");
    // Held longer, more records wait.
    assert!(b.channels[1].held_events > a.channels[1].held_events);

    // Drawn: one barrier marker in the gap between the logs and the operator, further right later.
    let (xa, xb) = (barrier_marks_x(&picture(&report, early)), barrier_marks_x(&picture(&report, late)));
    assert!(xa.len() >= 2 && xb.len() >= 2, "the travelling barrier and the held channels' barriers: {xa:?} {xb:?}");
    let travelling = |xs: &[f64]| xs.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(travelling(&xb) > travelling(&xa), "{xa:?} then {xb:?}");

    // Once the last barrier is in: the snapshot, then its upload, travel to the store.
    let snapshot = report.checkpoints.iter().find(|c| c.barrier_at.ms == barrier).expect("checkpoint at 10:00:30");
    let taken = barrier + snapshot.alignment_ms;
    let uploading = flow_at(&report, taken + snapshot.sync_ms + 500);
    assert!(uploading.channels.iter().all(|c| c.barrier.is_none() && c.held_events.is_none()));
    let (s0, s1) = (flow_at(&report, taken).snapshot, uploading.snapshot);
    assert_eq!(s0, Some(0.0), "the snapshot starts at the operator");
    assert!(s1.is_some_and(|s| s > 0.0 && s < 1.0), "on its way to the store: {s1:?}");
}

#[test]
fn no_records_move_while_the_job_is_down_and_the_restore_fills_the_operator() {
    let report = lesson::simulate(&Config::default()).unwrap();
    let crash = at("10:00:45");
    let running = flow_at(&report, crash - 2_000);
    assert!(running.channels.iter().all(|c| c.records.len() as u64 >= RECORDS_PER_CHANNEL - 1));
    assert!(!running.to_sinks.is_empty());
    assert!(record_dots(&picture(&report, crash - 2_000)) >= 12 * 2, "records on every channel");
    let restored = report.restored_at.as_ref().expect("restored").ms;
    let mut loaded = Vec::new();
    for t in (crash + 1..restored).step_by(997) {
        let flow = flow_at(&report, t);
        assert!(flow.channels.iter().all(|c| c.records.is_empty()), "down at {t}");
        assert!(flow.to_sinks.is_empty(), "down at {t}");
        assert_eq!(record_dots(&picture(&report, t)), 0, "no record drawn at {t}");
        loaded.extend(flow.restore);
    }
    assert!(loaded.len() > 3 && loaded.windows(2).all(|w| w[0] <= w[1]), "the restore fills: {loaded:?}");
    assert!(loaded[0] < 0.5 && *loaded.last().unwrap() > 0.5, "{loaded:?}");
    // The readers jump back to the restored offsets, and records move again.
    let (before, after) = (report.world.at(restored - 1), report.world.at(restored + 1));
    assert!(after.offsets.iter().zip(&before.offsets).all(|(a, b)| a < b), "the readers rewound");
    assert!(!flow_at(&report, restored + 1).channels[0].records.is_empty());
}

#[test]
fn records_move_with_the_rate_read_and_the_picture_is_a_function_of_the_cursor() {
    let report = lesson::simulate(&Config::default()).unwrap();
    let config = &report.config;
    // How far a channel's first record moved in 100 ms, as a share of the channel.
    let moved = |t: u64| {
        let (a, b) = (flow_at(&report, t), flow_at(&report, t + 100));
        let (ra, rb) = (a.channels[3].records[0], b.channels[3].records[0]);
        let spacing = 1.0 / RECORDS_PER_CHANNEL as f64;
        (rb - ra).rem_euclid(spacing)
    };
    let running = moved(at("10:00:20.300"));
    let catching_up = moved(at("10:01:20.300"));
    assert_eq!(report.world.at(at("10:01:20.300")).phase, Phase::CatchingUp);
    // Partition 3's share of the events: its slots on the producer's wheel.
    let log = checkpoint_lab::engine::model::source::SourceLog::new(config);
    let share = log.wheel().weight(3) as f64 / log.wheel().slots() as f64;
    let per_100ms = |rate: u64| rate as f64 / 10.0 * share;
    let expected = |rate| per_100ms(rate) / events_per_record(config) as f64 / RECORDS_PER_CHANNEL as f64;
    assert!((running - expected(config.rate_per_s)).abs() < 0.01, "{running}");
    assert!((catching_up - expected(config.capacity_per_s)).abs() < 0.01, "{catching_up}");
    assert!(catching_up > 1.8 * running, "faster while catching up: {catching_up} against {running}");

    // The same cursor draws the same picture; a fraction of a second later the records moved.
    let t = at("10:00:20.300");
    assert_eq!(picture(&report, t), picture(&report, t));
    let dots = |svg: &str| tags(svg, "circle", "fill=\"#0072B2\"").into_iter().map(str::to_string).collect::<Vec<_>>();
    assert_ne!(dots(&picture(&report, t)), dots(&picture(&report, t + 250)));
}

#[test]
fn the_log_window_stays_put_while_time_passes() {
    let config = Config::default();
    let start = config.start_time_ms;
    // The first page holds the crash, the restore and the catch-up.
    let first = log_window(&config, start);
    for t in (start..start + 120_000).step_by(250) {
        assert_eq!(log_window(&config, t), first, "at {t}");
    }
    // Later pages overlap by half and keep the scale: the instant stands in their middle half.
    let (lo, hi) = first;
    let mut pages = std::collections::BTreeSet::new();
    for t in (start..config.end_ms()).step_by(1_000) {
        let (from, to) = log_window(&config, t);
        assert_eq!(to - from, hi - lo, "one scale");
        let log_end = checkpoint_lab::engine::model::source::SourceLog::new(&config).log_end_at(t);
        assert!(log_end >= from && log_end <= to, "the log end at {t} is in the window");
        pages.insert(from);
    }
    assert!(pages.len() >= 5 && pages.len() < 10, "{} pages over ten minutes", pages.len());

    // Drawn: the completed checkpoint's line in the logs stands still from one second to the next.
    let report = lesson::simulate(&config).unwrap();
    let green = |t: u64| {
        tags(&picture(&report, t), "polyline", "stroke=\"#009E73\"")
            .into_iter()
            .map(|tag| numbers(tag, "points")[0])
            .filter(|&x| x < f64::from(WIDTH) * 0.35)
            .collect::<Vec<f64>>()
    };
    let (a, b) = (green(at("10:01:10")), green(at("10:01:11")));
    assert!(!a.is_empty());
    assert_eq!(a, b, "the checkpoint line does not slide");
}

/// Partitions differ: the producer's skewed keys give partition 0 three times partition 11's
/// events, so its log holds more, its records travel faster on its channel, and the picture
/// draws its log thicker.
#[test]
fn the_busiest_partition_s_records_travel_faster_and_its_log_is_drawn_thicker() {
    let report = lesson::simulate(&Config::default()).unwrap();
    let world = report.world.at(at("10:00:20"));
    let (busiest, quietest) = (world.offsets[0], world.offsets[11]);
    assert!((busiest as f64 / quietest as f64 - 3.0).abs() < 0.01, "{busiest} against {quietest}");
    // Shares fall off (partitions of equal share differ by the one event of a turn of the wheel).
    assert!(world.offsets.windows(2).all(|w| w[0] + 1 >= w[1]), "shares fall off: {:?}", world.offsets);
    // How far a channel's first record moved in 100 ms, in events.
    let moved = |p: usize| {
        let (a, b) = (flow_at(&report, at("10:00:20")), flow_at(&report, at("10:00:20.100")));
        let spacing = 1.0 / RECORDS_PER_CHANNEL as f64;
        let share = (b.channels[p].records[0] - a.channels[p].records[0]).rem_euclid(spacing);
        share * RECORDS_PER_CHANNEL as f64 * events_per_record(&report.config) as f64
    };
    let (fast, slow) = (moved(0), moved(11));
    assert!((fast / slow - 3.0).abs() < 0.2, "p0 moved {fast} events, p11 {slow}");
    // The logs' bars: the tallest rectangle in the read colour per row, p0's about 3 × p11's.
    let svg = picture(&report, at("10:00:20"));
    let bars: Vec<f64> = svg
        .split("<rect")
        .skip(1)
        .map(|t| &t[..t.find('>').unwrap()])
        .filter(|t| t.contains("fill=\"#0072B2\""))
        .map(|t| numbers(t, "height")[0])
        .collect();
    let (thickest, thinnest) = bars.iter().fold((0.0f64, f64::MAX), |(hi, lo), &h| (hi.max(h), lo.min(h)));
    assert!(thickest >= 2.5 * thinnest, "bars {bars:?}");
    // With the skew set to 1 the partitions are alike again.
    let even = lesson::simulate(&Config { partition_skew: 1.0, ..Config::default() }).unwrap();
    let offsets = &even.world.at(at("10:00:20")).offsets;
    assert!(offsets.iter().max().unwrap() - offsets.iter().min().unwrap() <= 1, "{offsets:?}");
}
