//! Every chart drawn natively with plotters' SVG backend: it draws, and its title, axis labels and
//! legend are there. The interval trade-off's closed form agrees with full simulations.

use checkpoint_lab::charts::pipeline::Scene;
use checkpoint_lab::charts::{self, Chart, Focus, Theme, View};
use checkpoint_lab::engine::model::sinks::SinkDesign;
use checkpoint_lab::engine::model::steady_state::{rule_interval_ms, steady_state};
use checkpoint_lab::engine::{self, Config, Snapshots};
use checkpoint_lab::lesson;
use plotters::prelude::*;

fn svg(draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>)) -> String {
    let mut out = String::new();
    {
        let area = SVGBackend::with_string(&mut out, (900, 360)).into_drawing_area();
        draw(&area);
    }
    out
}

/// The numbers of an SVG tag's `attribute` (one for `x`, every coordinate for `points`).
fn svg_numbers(tag: &str, attribute: &str) -> Vec<f64> {
    let start = tag.find(&format!(" {attribute}=\"")).expect(attribute) + attribute.len() + 3;
    let end = start + tag[start..].find('"').unwrap();
    tag[start..end].split([' ', ',']).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect()
}

/// The number of an SVG tag's `attribute`.
fn svg_number(tag: &str, attribute: &str) -> f64 {
    svg_numbers(tag, attribute)[0]
}

fn assert_has(svg: &str, needles: &[&str]) {
    for needle in needles {
        assert!(svg.contains(needle), "missing {needle:?} in the chart");
    }
    assert!(svg.matches("<polyline").count() + svg.matches("<rect").count() > 5, "the chart drew shapes");
}

fn views() -> [View; 2] {
    [View::default(), View { theme: Theme::Dark, scale: 2.0, cursor_s: Some(80.0), compact: true }]
}

#[test]
fn replay_chart() {
    let report = lesson::simulate(&Config::default()).unwrap();
    for view in views() {
        let out = svg(|a| charts::draw(Chart::Replay, a, &report, None, &Focus::default(), &view).unwrap());
        assert_has(
            &out,
            &[
                if view.compact { charts::replay::SHORT_TITLE } else { charts::replay::TITLE },
                charts::replay::X_LABEL,
                charts::replay::Y_LABEL,
                "consumer lag",
                "crash at 10:00:45",
            ],
        );
        for phase in ["detection", "restore", "replay", "catch-up"] {
            assert!(out.contains(phase), "phase {phase} is labelled");
        }
        if !view.compact {
            assert!(out.contains("10:01:00") && out.contains("10:05:00"), "clock ticks on round minutes");
        }
    }
    let alt = charts::text_alternative(Chart::Replay, &report, &Focus::default());
    assert!(alt.summary.contains("10:00:45") && alt.summary.contains("30,000"));
    assert_eq!(alt.columns.len(), alt.rows[0].len());
    // The phases in words a screen reader says, not the engine's names run together.
    let phases: std::collections::BTreeSet<&str> = alt.rows.iter().map(|r| r[1].as_str()).collect();
    assert!(phases.contains("catching up") && phases.contains("detecting"), "{phases:?}");
}

#[test]
fn latency_chart() {
    let report = lesson::simulate(&Config::default()).unwrap();
    for view in views() {
        let out = svg(|a| {
            charts::draw(
                Chart::Latency,
                a,
                &report,
                None,
                &Focus { sink: SinkDesign::Transactional, ..Focus::default() },
                &view,
            )
            .unwrap()
        });
        assert_has(
            &out,
            &[
                if view.compact { charts::latency::SHORT_TITLE } else { charts::latency::TITLE },
                charts::latency::Y_LABEL,
                "transactional (visible at commit)",
                "append-only, upsert, dedupe view",
            ],
        );
    }
    assert!(charts::text_alternative(Chart::Latency, &report, &Focus::default()).summary.contains("transactional"));
}

#[test]
fn tradeoff_chart() {
    let config = Config::default();
    let report = lesson::simulate(&config).unwrap();
    for view in views() {
        let out = svg(|a| charts::draw(Chart::Tradeoff, a, &report, None, &Focus::default(), &view).unwrap());
        assert_has(
            &out,
            &[
                if view.compact { charts::tradeoff::SHORT_TITLE } else { charts::tradeoff::TITLE },
                charts::tradeoff::X_LABEL,
                "SLA / 10 = 30 s",
                "store bound",
                "worst-case replay",
            ],
        );
        for label in charts::tradeoff::Y_LABELS {
            assert!(out.contains(label), "axis {label}");
        }
    }
    // The rule: a tenth of a 5-minute SLA is 30 s, above the 2.1 s the store needs per full snapshot.
    assert_eq!(rule_interval_ms(&config), 30_000);
    let alt = charts::text_alternative(Chart::Tradeoff, &report, &Focus::default());
    assert!(alt.summary.contains("30 s") && alt.summary.contains("4 GB"));
}

#[test]
fn checkpoint_timeline_chart() {
    let config = Config { crash_at_ms: Some(36_031_000), ..Config::default() };
    let report = lesson::simulate(&config).unwrap();
    for view in views() {
        let out = svg(|a| charts::draw(Chart::Checkpoints, a, &report, None, &Focus::default(), &view).unwrap());
        assert_has(
            &out,
            &[
                if view.compact { charts::checkpoints::SHORT_TITLE } else { charts::checkpoints::TITLE },
                "alignment",
                "sync pause",
                "upload",
                "completed",
            ],
        );
    }
    let alt = charts::text_alternative(Chart::Checkpoints, &report, &Focus::default());
    assert!(alt.summary.contains("2.1 s"), "{}", alt.summary);
}

#[test]
fn sink_window_chart() {
    let report = lesson::simulate(&Config::default()).unwrap();
    let window = 36_000_000;
    let focus = Focus { window_start_ms: Some(window), product: 0, ..Focus::default() };
    let data = charts::sink_window::data(&report, window, 0);
    use charts::sink_window::RowKind;
    let orphans = data.appended.iter().filter(|p| p.2 == RowKind::Orphan).count();
    let again = data.appended.iter().filter(|p| p.2 == RowKind::ReEmitted).count();
    assert!(orphans > 0 && orphans == again, "{orphans} orphans, {again} re-emitted");
    assert!(data.upsert.windows(2).any(|w| w[1].1 < w[0].1), "the upsert value steps back");
    assert!(data.transactional.windows(2).all(|w| w[1].1 >= w[0].1), "a transactional reader never steps back");
    for view in views() {
        let out = svg(|a| charts::draw(Chart::SinkWindow, a, &report, None, &focus, &view).unwrap());
        assert_has(
            &out,
            &[
                if view.compact { charts::sink_window::SHORT_TITLE } else { charts::sink_window::TITLE },
                "orphan (rolled back)",
                "re-emitted by replay",
                "transactional reader",
            ],
        );
    }
    let alt = charts::text_alternative(Chart::SinkWindow, &report, &focus);
    assert!(alt.summary.contains("orphans"));
    // The lesson's crash makes an upsert reader's value step back once, said in words.
    assert!(alt.summary.contains("value stepped back once;"), "{}", alt.summary);
}

#[test]
fn the_closed_form_agrees_with_full_simulations() {
    for snapshots in [Snapshots::Full, Snapshots::Incremental] {
        for interval_ms in [2_000, 5_000, 10_000, 30_000, 60_000, 120_000] {
            let config =
                Config { interval_ms, snapshots, crash_at_ms: None, horizon_ms: 1_200_000, ..Config::default() };
            let report = lesson::simulate(&config).unwrap();
            let model = steady_state(&config, interval_ms);
            let close = |what: &str, model: f64, sim: f64| {
                assert!(
                    (model - sim).abs() <= 0.02 * sim.max(1.0),
                    "{what} at {interval_ms} ms {snapshots:?}: model {model} sim {sim}"
                );
            };
            close("worst-case replay", model.worst_case_replay_events as f64, report.worst_case_replay_events as f64);
            close("interval replay", model.interval_replay_events as f64, report.interval_replay_events as f64);
            close("store writes", model.store_write_bytes_per_min as f64, report.store_write_bytes_per_min as f64);
            close("effective interval", model.effective_interval_ms as f64, report.effective_interval_ms as f64);
        }
    }
}

#[test]
fn comparing_draws_the_pinned_run_under_the_current_one() {
    let a = lesson::simulate(&Config::default()).unwrap();
    let b = lesson::simulate(&Config { mode: engine::Mode::MicroBatch, ..Config::default() }).unwrap();
    let view = View::default();
    let alone = svg(|area| charts::draw(Chart::Replay, area, &b, None, &Focus::default(), &view).unwrap());
    let both = svg(|area| charts::draw(Chart::Replay, area, &b, Some(&a), &Focus::default(), &view).unwrap());
    assert_has(&both, &["A: barrier 30 s, 2 GB", "B: micro-batch 30 s, 2 GB", "batch committed"]);
    assert!(!alone.contains("A: barrier"));
    // A's lag is drawn dashed: more line pieces than the chart without it.
    assert!(both.matches("<polyline").count() > alone.matches("<polyline").count() + 10);
    let latency = svg(|area| {
        charts::draw(Chart::Latency, area, &b, Some(&a), &Focus { sink: SinkDesign::Upsert, ..Focus::default() }, &view)
            .unwrap()
    });
    assert_has(&latency, &["A: barrier 30 s, 2 GB, immediate sinks"]);
    let tradeoff = svg(|area| charts::draw(Chart::Tradeoff, area, &b, Some(&a), &Focus::default(), &view).unwrap());
    assert_has(&tradeoff, &["A: barrier 30 s, 2 GB, worst-case replay", "A: barrier 30 s, 2 GB, store writes"]);
    assert_has(&tradeoff, &[charts::tradeoff::BATCH_X_LABEL]);
    let compact = View { compact: true, ..view };
    assert_has(
        &svg(|area| charts::draw(Chart::Replay, area, &b, Some(&a), &Focus::default(), &compact).unwrap()),
        &["A (pinned)", "B (now)"],
    );
}

/// The words of every text element of an SVG, in order.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].trim().to_string())
        .collect()
}

#[test]
fn the_store_writes_axis_speaks_in_the_unit_its_values_need() {
    // A micro-batch job writes a few hundred megabytes a minute, the default barrier job gigabytes:
    // each store-writes axis is marked in its own unit, every mark a different value.
    let micro_batch = Config { mode: engine::Mode::MicroBatch, ..Config::default() };
    for (config, unit, bound_drawn) in [
        (micro_batch.clone(), " MB", false),
        (Config::default(), " GB", true),
        // Barely more capacity than input: batches run back to back below a few seconds.
        (Config { capacity_per_s: 2_200, ..micro_batch }, " MB", true),
    ] {
        let report = lesson::simulate(&config).unwrap();
        let out =
            svg(|a| charts::draw(Chart::Tradeoff, a, &report, None, &Focus::default(), &View::default()).unwrap());
        let marks: Vec<String> = svg_texts(&out).into_iter().filter(|t| t.ends_with(unit)).collect();
        assert!(marks.len() >= 2, "{:?}: store writes marked in{unit}: {marks:?}", config.mode);
        let distinct: std::collections::BTreeSet<&String> = marks.iter().collect();
        assert_eq!(distinct.len(), marks.len(), "{:?}: no two marks read the same: {marks:?}", config.mode);
        // The region the store cannot absorb is in the legend where it is drawn: not for the
        // lesson's micro-batch job, whose batches run back to back only below 1 s.
        let bound_s = report.tradeoff.store_bound_interval_ms as f64 / 1000.0;
        let named = out.contains("back to back below") || out.contains("store bound");
        assert_eq!(
            bound_s > charts::tradeoff::MIN_INTERVAL_S,
            bound_drawn,
            "{:?}: store bound {bound_s} s",
            config.mode
        );
        assert_eq!(named, bound_drawn, "{:?}: the legend names the store bound {bound_s} s", config.mode);
    }
}

#[test]
fn the_batch_timeline_in_micro_batch_mode() {
    let report = lesson::simulate(&Config { mode: engine::Mode::MicroBatch, ..Config::default() }).unwrap();
    let out =
        svg(|area| charts::draw(Chart::Checkpoints, area, &report, None, &Focus::default(), &View::default()).unwrap());
    assert_has(&out, &[charts::checkpoints::BATCH_TITLE, "offset log write", "processing", "state store write"]);
    let alt = charts::text_alternative(Chart::Checkpoints, &report, &Focus::default());
    assert!(alt.summary.contains("batches committed"), "{}", alt.summary);
    assert!(alt.summary.contains("15 s processing"), "{}", alt.summary);
    assert_eq!(alt.columns[2], "offset log");
}

#[test]
fn the_pipeline_view_sets_the_chosen_sinks_box_apart() {
    let report = lesson::simulate(&Config::default()).unwrap();
    let boxes = |sink| {
        let out = svg(|a| {
            charts::draw(Chart::Pipeline, a, &report, None, &Focus { sink, ..Focus::default() }, &View::default())
                .unwrap()
        });
        // The sinks' boxes, in order: filled in purple, the chosen one deeper (and, on a canvas,
        // framed heavier: plotters' SVG leaves rectangles' stroke widths out).
        out.split("<rect")
            .skip(1)
            .filter(|r| r.contains("fill=\"#CC79A7\""))
            .map(|r| svg_number(r, "opacity"))
            .collect::<Vec<f64>>()
    };
    for (i, sink) in SinkDesign::ALL.into_iter().enumerate() {
        let fills = boxes(sink);
        assert_eq!(fills.len(), 4, "{sink:?}: four sink boxes");
        let deepest = fills.iter().cloned().fold(0.0, f64::max);
        assert!(fills.iter().enumerate().all(|(j, &f)| (f == deepest) == (j == i)), "{sink:?}: {fills:?}");
    }
}

#[test]
fn pipeline_chart_at_the_lessons_instants() {
    use checkpoint_lab::engine::settings::clock::parse_clock;
    let report = lesson::simulate(&Config::default()).unwrap();
    let start = report.config.start_time_ms;
    let mut drawn = Vec::new();
    for (clock, words) in [
        ("10:00:20", &["running", "checkpoint store", "completed: 41"][..]),
        ("10:00:31", &["taking a checkpoint (42)", "barrier"][..]),
        ("10:00:46", &["down since 10:00:45", "checkpoint 42 will be restored"][..]),
        ("10:00:58", &["restoring checkpoint 42"][..]),
        ("10:01:08", &["replaying from offset 1,060,000 to the crash offset 1,090,000"][..]),
        ("10:01:45", &["caught up at 10:01:40.200"][..]),
    ] {
        let cursor_s = (parse_clock(clock).unwrap() - start) as f64 / 1000.0;
        for compact in [false, true] {
            let view = View { cursor_s: Some(cursor_s), compact, ..View::default() };
            let out = svg(|a| charts::draw(Chart::Pipeline, a, &report, None, &Focus::default(), &view).unwrap());
            assert!(out.contains(clock), "the clock {clock} is shown");
            for word in words {
                assert!(out.contains(word), "{clock}: missing {word:?}");
            }
            for sink in ["append-only", "upsert", "transactional", "dedupe view"] {
                assert!(out.contains(sink), "{clock}: sink {sink}");
            }
            drawn.push(out);
        }
    }
    // Every instant draws a different picture.
    for (i, a) in drawn.iter().enumerate() {
        for b in &drawn[i + 1..] {
            assert_ne!(a, b);
        }
    }
    let alt = charts::text_alternative(Chart::Pipeline, &report, &Focus::default());
    assert!(alt.summary.starts_with("10:00:45"), "{}", alt.summary);
    assert_eq!(alt.columns.len(), alt.rows[0].len());
}

/// The pipeline view a page draws first, from the run stopped where the view first stands, is
/// the view drawn from the whole run there.
#[test]
fn the_pipeline_preview_draws_what_the_whole_run_shows_at_the_default_cursor() {
    let at = |clock: &str| Some(checkpoint_lab::engine::settings::clock::parse_clock(clock).unwrap());
    let scenarios = [
        Config::default(),
        Config { crash_at_ms: None, ..Config::default() },
        Config { crash_at_ms: at("10:00:20"), ..Config::default() },
        Config { crash_at_ms: at("10:00:53"), snapshots: Snapshots::Incremental, ..Config::default() },
        Config { mode: engine::Mode::MicroBatch, ..Config::default() },
        Config { alignment: engine::Alignment::Unaligned, backpressure_ms: 3_000, ..Config::default() },
        // The sinks' counts at the cursor, which the first screen counts without the report's
        // numbering of the keys: readers of uncommitted rows, at-least-once, retried writes,
        // a one-second interval and a micro-batch crash.
        Config { isolation_level: engine::settings::config::IsolationLevel::ReadUncommitted, ..Config::default() },
        Config { checkpointing_mode: engine::settings::config::CheckpointingMode::AtLeastOnce, ..Config::default() },
        Config { retry_rate: 0.05, interval_ms: 1_000, crash_at_ms: at("10:00:33"), ..Config::default() },
        Config { mode: engine::Mode::MicroBatch, interval_ms: 5_000, crash_at_ms: at("10:00:27"), ..Config::default() },
    ];
    for config in scenarios {
        let (whole, preview) = (lesson::simulate(&config).unwrap(), lesson::preview(&config).unwrap().expect("short"));
        for view in views().map(|v| View { cursor_s: None, ..v }) {
            let a = svg(|a| charts::pipeline::draw(a, &Scene::preview(&preview), &view).unwrap());
            let b = svg(|a| charts::draw(Chart::Pipeline, a, &whole, None, &Focus::default(), &view).unwrap());
            if a != b {
                let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
                let i = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(la.len().min(lb.len()));
                panic!(
                    "{config:?}\npreview {:?}\nwhole {:?}",
                    &la[i.saturating_sub(3)..(i + 3).min(la.len())],
                    &lb[i.saturating_sub(3)..(i + 3).min(lb.len())]
                );
            }
        }
        let alt = |scene| charts::pipeline::text_alternative(&scene, None).summary;
        assert_eq!(alt(Scene::preview(&preview)), alt(Scene::of(&whole)), "{config:?}");
    }
    // A scenario too long to preview in a few milliseconds has none.
    let busy = Config { rate_per_s: 20_000, capacity_per_s: 40_000, ..Config::default() };
    assert!(lesson::preview(&busy).unwrap().is_none());
    assert!(lesson::preview(&Config { crash_at_ms: at("10:05:31"), ..Config::default() }).unwrap().is_none());
}

#[test]
fn a_y_axis_tops_out_on_a_round_value_and_moves_only_when_the_data_crosses_one() {
    assert_eq!(charts::axis_top(1.21), 1.5);
    assert_eq!(charts::axis_top(36_000.0), 40_000.0);
    assert_eq!(charts::axis_top(1_000.0), 1_000.0);
    assert_eq!(charts::axis_top(0.0), 1.0);
    assert_eq!(charts::axis_top(f64::NAN), 1.0);
    // Over a drag's worth of peaks: never below the data, at most a third above it, never
    // falling as the data rises, and a few distinct tops for hundreds of peaks.
    let mut last = 0.0;
    let mut tops = std::collections::BTreeSet::new();
    for i in 1..=500 {
        let peak = 20_000.0 + 100.0 * f64::from(i);
        let top = charts::axis_top(peak);
        assert!(top >= peak && top <= peak * 4.0 / 3.0, "{peak} → {top}");
        assert!(top >= last);
        last = top;
        tops.insert(top.to_bits());
    }
    assert!(tops.len() <= 6, "{} tops for peaks from 20,100 to 70,000", tops.len());
}

/// A time chart's legend stands in rows between its title and its plot, so it hides none of the
/// data: at the page's sizes (wide, at twice the pixel ratio, and compact on a phone, where the
/// rows wrap), with the lesson's crash and with a comparison pinned, every legend label lies below
/// the title, above the plot and inside the chart.
#[test]
fn time_chart_legends_stand_above_the_plot() {
    let report = lesson::simulate(&Config::default()).unwrap();
    let pinned = lesson::simulate(&Config { interval_ms: 5_000, ..Config::default() }).unwrap();
    let legends: [(Chart, &[&str]); 4] = [
        (Chart::Replay, &["consumer lag", "checkpoint completed", "crash at 10:00:45"]),
        (Chart::Latency, &["append-only, upsert, dedupe view", "crash at 10:00:45"]),
        (Chart::Checkpoints, &["alignment", "sync pause", "upload", "completed", "crash at 10:00:45"]),
        (Chart::SinkWindow, &["append-only row", "orphan (rolled back)", "upsert = dedupe view reader"]),
    ];
    for (width, height, scale, compact) in [(1052, 320, 1.0, false), (2104, 640, 2.0, false), (680, 520, 2.0, true)] {
        let view = View { scale, compact, ..View::default() };
        for (chart, labels) in legends {
            for pin in [None, Some(&pinned)] {
                let mut out = String::new();
                let axis = {
                    let area = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
                    charts::draw_measured(chart, &area, &report, pin, &Focus::default(), &view).unwrap().unwrap()
                };
                // The title: the text in the largest font, at the top.
                let title_bottom = out
                    .split("<text")
                    .skip(1)
                    .map(|t| (svg_number(t, "font-size"), svg_number(t, "y")))
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(size, y)| y + size)
                    .unwrap();
                // A comparison names the current run "B: ..." instead of the lag alone.
                for label in labels.iter().filter(|l| pin.is_none() || **l != "consumer lag") {
                    let tag = out
                        .split("<text")
                        .find(|t| {
                            t.split('>')
                                .nth(1)
                                .and_then(|rest| rest.split('<').next())
                                .is_some_and(|text| text.trim() == *label)
                        })
                        .unwrap_or_else(|| panic!("{chart:?} at {width}x{height}: no legend label {label:?}"));
                    let (x, y, size) = (svg_number(tag, "x"), svg_number(tag, "y"), svg_number(tag, "font-size"));
                    assert!(
                        y + size / 2.0 <= f64::from(axis.y0),
                        "{chart:?} at {width}x{height}: {label:?} (y {y}) reaches into the plot, whose top is {}",
                        axis.y0
                    );
                    assert!(
                        y - size / 2.0 >= title_bottom - 1.0,
                        "{chart:?} at {width}x{height}: {label:?} (y {y}) overlaps the title, which ends at {title_bottom}"
                    );
                    assert!(x >= 0.0, "{chart:?}: {label:?} lies inside the chart");
                    assert!(
                        x + size * 0.5 * label.len() as f64 <= f64::from(width),
                        "{chart:?} at {width}x{height}: {label:?} runs past the chart's right edge"
                    );
                }
            }
        }
    }
}

/// The trade-off chart's legend boxes stand over its panels where they hide none of its curves,
/// and no more than half of a vertical mark (the current and the rule's interval, a pinned run's,
/// the store bound's edge): at the page's sizes (wide, at twice the pixel ratio, and on a phone),
/// wherever the current interval is and with a comparison pinned.
#[test]
fn tradeoff_legends_hide_no_line() {
    let pinned = lesson::simulate(&Config { interval_ms: 5_000, ..Config::default() }).unwrap();
    let modes = [engine::Mode::Barrier, engine::Mode::MicroBatch];
    for (mode, interval_ms) in modes.into_iter().flat_map(|m| [1_000, 5_000, 30_000, 300_000].map(|i| (m, i))) {
        let report = lesson::simulate(&Config { mode, interval_ms, ..Config::default() }).unwrap();
        for (width, height, scale, compact) in [(1052, 460, 1.0, false), (2104, 920, 2.0, false), (660, 840, 2.0, true)]
        {
            let view = View { scale, compact, ..View::default() };
            for pin in [None, Some(&pinned)] {
                let mut out = String::new();
                {
                    let area = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
                    charts::draw(Chart::Tradeoff, &area, &report, pin, &Focus::default(), &view).unwrap();
                }
                // The boxes: drawn over the data, nearly opaque.
                let boxes: Vec<[f64; 4]> = out
                    .split("<rect")
                    .skip(1)
                    .filter(|t| t.contains("opacity=\"0.88\""))
                    .map(|t| {
                        let n = |a| svg_numbers(t, a)[0];
                        [n("x"), n("y"), n("x") + n("width"), n("y") + n("height")]
                    })
                    .collect();
                assert_eq!(boxes.len(), 2, "a legend in each panel");
                // The data's lines: drawn at least 2 pixels wide at this scale (the grid and the
                // axes are drawn 1 pixel wide), their segments walked a pixel at a time.
                let mut marks = std::collections::BTreeMap::new();
                for line in out.split("<polyline").skip(1) {
                    if svg_numbers(line, "stroke-width")[0] < 2.0 * scale {
                        continue;
                    }
                    let points: Vec<(f64, f64)> = svg_numbers(line, "points").chunks(2).map(|p| (p[0], p[1])).collect();
                    // A legend's own swatches lie wholly inside its box.
                    let inside = |b: &[f64; 4], &(x, y): &(f64, f64)| x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];
                    if boxes.iter().any(|b| points.iter().all(|p| inside(b, p))) {
                        continue;
                    }
                    let mut walked = Vec::new();
                    for pair in points.windows(2) {
                        let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                        let steps = (x1 - x0).abs().max((y1 - y0).abs()).max(1.0) as usize;
                        walked.extend((0..=steps).map(|i| {
                            let t = i as f64 / steps as f64;
                            (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
                        }));
                    }
                    let context =
                        format!("{mode:?}, interval {interval_ms} ms at {width}x{height}, pinned {}", pin.is_some());
                    let hidden =
                        |p: &&(f64, f64)| boxes.iter().any(|b| p.0 > b[0] && p.0 < b[2] && p.1 > b[1] && p.1 < b[3]);
                    if points.iter().all(|p| p.0 == points[0].0) {
                        // A mark, maybe one dash of it: its pixels and those hidden, by its x.
                        let mark = marks.entry(points[0].0 as i64).or_insert((0, 0));
                        mark.0 += walked.len();
                        mark.1 += walked.iter().filter(hidden).count();
                    } else if let Some(p) = walked.iter().find(hidden) {
                        panic!("{context}: a legend box hides a curve at {p:?}");
                    }
                }
                for (x, (pixels, hidden)) in marks {
                    let share = hidden as f64 / pixels as f64;
                    assert!(
                        share <= 0.5,
                        "{mode:?}, interval {interval_ms} ms at {width}x{height}, pinned {}: a legend box hides {share:.2} of the mark at x {x}",
                        pin.is_some()
                    );
                }
            }
        }
    }
}

/// The checkpoint timeline's ids stand clear of its completion marks (a mark used to run through
/// each id): at the page's sizes, at the lesson's interval and at a one-second one, no mark
/// crosses the box of an id's text.
#[test]
fn checkpoint_ids_stand_clear_of_the_completion_marks() {
    let green = format!("stroke=\"#{:02X}{:02X}{:02X}\"", 0, 158, 115);
    for interval_ms in [1_000, 30_000] {
        let report = lesson::simulate(&Config { interval_ms, ..Config::default() }).unwrap();
        for (width, height, scale, compact) in [(1052, 320, 1.0, false), (2104, 640, 2.0, false), (660, 520, 2.0, true)]
        {
            let view = View { scale, compact, ..View::default() };
            let mut out = String::new();
            {
                let area = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
                charts::draw(Chart::Checkpoints, &area, &report, None, &Focus::default(), &view).unwrap();
            }
            // Vertical green lines: the completion marks (and the legend's swatch), as x, top, bottom.
            let marks: Vec<(f64, f64, f64)> = out
                .split("<polyline")
                .skip(1)
                .filter(|t| t.contains(&green))
                .filter_map(|t| {
                    let p = svg_numbers(t, "points");
                    (p.len() == 4 && p[0] == p[2]).then(|| (p[0], p[1].min(p[3]), p[1].max(p[3])))
                })
                .collect();
            // Each id's box, from its anchor: left, right, top, bottom.
            let ids: Vec<([f64; 4], String)> = out
                .split("<text")
                .skip(1)
                .filter_map(|t| {
                    let label = t.split('>').nth(1)?.split('<').next()?.trim().to_string();
                    if label.is_empty() || !label.chars().all(|c| c.is_ascii_digit()) {
                        return None;
                    }
                    let (x, y, size) = (svg_number(t, "x"), svg_number(t, "y"), svg_number(t, "font-size"));
                    let w = size * 0.6 * label.len() as f64;
                    let left = if t.contains("text-anchor=\"middle\"") { x - w / 2.0 } else { x };
                    let top = if t.contains("dy=\"0.76em\"") {
                        y
                    } else if t.contains("dy=\"-0.5ex\"") {
                        y - size
                    } else {
                        y - size / 2.0
                    };
                    Some(([left, left + w, top, top + size], label))
                })
                .collect();
            assert!(ids.len() >= 8, "interval {interval_ms} ms at {width}x{height}: checkpoint ids drawn");
            for ([left, right, top, bottom], label) in &ids {
                for (mx, mark_top, mark_bottom) in &marks {
                    assert!(
                        !(mx > left && mx < right && mark_bottom > top && mark_top < bottom),
                        "interval {interval_ms} ms at {width}x{height}: the mark at x {mx} crosses checkpoint {label}"
                    );
                }
            }
        }
    }
}

/// Every failure is on the time charts: a line at each crash, each recovery shaded, the legend
/// naming the crashes; a job its restart strategy gave up on is shaded FAILED to the end.
#[test]
fn time_charts_mark_every_failure_and_a_failed_job() {
    use checkpoint_lab::engine::settings::config::RestartStrategy;
    let at = |clock: &str| checkpoint_lab::engine::settings::clock::parse_clock(clock).unwrap();
    let three = Config { more_crashes_ms: vec![at("10:02:00"), at("10:04:00")], ..Config::default() };
    let report = lesson::simulate(&three).unwrap();
    assert_eq!(report.failures, 3);
    let view = View::default();
    // The crash's colour, as a line from the axis to the top of the plot.
    let vermillion = "stroke=\"#D55E00\"";
    let lines = |out: &str| out.lines().filter(|l| l.starts_with("<polyline") && l.contains(vermillion)).count();
    for chart in [Chart::Replay, Chart::Latency, Chart::Checkpoints] {
        let out = svg(|a| charts::draw(chart, a, &report, None, &Focus::default(), &view).unwrap());
        assert!(out.contains("crashes at 10:00:45, 10:02:00 and 10:04:00"), "{chart:?}");
        let one = lesson::simulate(&Config::default()).unwrap();
        let single = svg(|a| charts::draw(chart, a, &one, None, &Focus::default(), &view).unwrap());
        assert_eq!(lines(&out), lines(&single) + 2, "{chart:?}: a line for each further crash");
    }
    let replay = svg(|a| charts::draw(Chart::Replay, a, &report, None, &Focus::default(), &view).unwrap());
    assert_eq!(replay.matches("\ndetection\n").count(), 3, "each recovery shaded and named");
    let words = charts::replay::text_alternative(&report).summary;
    assert!(
        words.ends_with("In all the job failed 3 times; each crash is marked and each recovery shaded."),
        "{words}"
    );

    let failed = lesson::simulate(&Config { restart_strategy: RestartStrategy::None, ..Config::default() }).unwrap();
    assert_eq!(failed.failed_at.as_ref().unwrap().at, "10:00:55");
    let out = svg(|a| charts::draw(Chart::Replay, a, &failed, None, &Focus::default(), &view).unwrap());
    assert!(out.contains("FAILED: no restart"));
    let words = charts::replay::text_alternative(&failed).summary;
    assert!(
        words.ends_with("In all the job failed 1 time and is FAILED from 10:00:55: nothing restarts it."),
        "{words}"
    );
}

#[test]
fn a_view_keeps_what_its_charts_and_controls_need() {
    use checkpoint_lab::charts::Shown;
    let names = |list: &str| list.split_whitespace().map(String::from).collect::<Vec<_>>();
    let all = Shown::of(None, None);
    assert_eq!(all, Shown::all());
    assert!(all.prepares_world() && all.keeps_outcome());
    assert!(Chart::ALL.iter().all(|&c| all.chart(c)));
    let two = Shown::of(Some(&names("replay latency")), Some(&names("alignment")));
    assert!(two.chart(Chart::Replay) && two.chart(Chart::Latency) && !two.chart(Chart::Pipeline));
    assert!(!two.prepares_world(), "no pipeline view: the world's sink tables are not counted ahead");
    assert!(!two.keeps_outcome(), "no control whose run reuses the last one");
    let pipeline = Shown::of(Some(&names("pipeline crash-table")), Some(&names("crash-at cursor")));
    assert!(pipeline.prepares_world() && pipeline.keeps_outcome());
    assert!(Shown::of(Some(&[]), None).keeps_outcome(), "every control shown");
    assert!(!Shown::of(None, Some(&[])).keeps_outcome());
}
