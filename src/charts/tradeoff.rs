//! The interval trade-off: across intervals from 1 s to 10 min, what a crash replays and how long
//! recovery takes (top) against what the checkpoints cost: store write load and pause overhead
//! (bottom). The current interval, the latency SLA / 10 rule, the store's lower bound and the
//! range most jobs start from (30 s to 5 min) are marked.
//! Everything comes from the report's `tradeoff` (the model swept over intervals) and its
//! `steady_state`; the chart computes no figure of its own.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    count_label, draw_legend, pinned_label, pinned_line, points_along, seconds_label, LegendEntry, LogSecondsAxis,
    Swatch, TextAlternative, View,
};
use crate::engine::model::steady_state::{SWEEP_FROM_MS, SWEEP_TO_MS};
use crate::engine::settings::units::{format_bytes, format_count};
use crate::lesson::Report;

pub const SHORT_TITLE: &str = "Choosing the interval";
pub const TITLE: &str = "Choosing the interval: replay and recovery against store load and pauses";
pub const X_LABEL: &str = "checkpoint interval (log scale) · shaded green: where most jobs start, 30 s – 5 min";
pub const BATCH_X_LABEL: &str = "trigger interval (log scale) · shaded green: where most jobs start, 30 s – 5 min";
pub const Y_LABELS: [&str; 4] = ["replay (events)", "recovery (s)", "store writes per minute", "pause overhead (%)"];

type Points = Vec<(f64, f64)>;

/// Where most production jobs start their interval: 30 s to 5 min.
pub const STARTING_RANGE_S: (f64, f64) = (30.0, 300.0);
pub const MIN_INTERVAL_S: f64 = SWEEP_FROM_MS as f64 / 1000.0;
pub const MAX_INTERVAL_S: f64 = SWEEP_TO_MS as f64 / 1000.0;

#[inline(never)]
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    pinned: Option<&Report>,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let config = &report.config;
    let pal = view.theme.palette();
    area.fill(&pal.background)?;
    let text = |size: f64| (FontFamily::SansSerif, view.font(size)).into_font().color(&pal.foreground);
    let titled = area.titled(if view.compact { SHORT_TITLE } else { TITLE }, text(14.0))?;
    let (upper, lower) = titled.split_vertically(titled.dim_in_pixel().1 / 2);
    let data = &report.tradeoff.sweep;
    let pinned_data = pinned.map(|a| &a.tradeoff.sweep);
    let x_range = || LogSecondsAxis::new(MIN_INTERVAL_S, MAX_INTERVAL_S, view.compact);
    let current_s = config.interval_ms as f64 / 1000.0;
    let sla_s = config.latency_sla_ms as f64 / 10_000.0;
    let store_s = report.tradeoff.store_bound_interval_ms as f64 / 1000.0;

    let panels: [(&DrawingArea<DB, Shift>, usize); 2] = [(&upper, 0), (&lower, 1)];
    for (panel, which) in panels {
        let (left, right): (Points, Points) = if which == 0 {
            (
                data.iter().map(|s| (s.interval_ms as f64 / 1000.0, s.worst_case_replay_events as f64)).collect(),
                data.iter()
                    .filter_map(|s| {
                        s.worst_case_recovery_ms.map(|r| (s.interval_ms as f64 / 1000.0, r as f64 / 1000.0))
                    })
                    .collect(),
            )
        } else {
            (
                data.iter().map(|s| (s.interval_ms as f64 / 1000.0, s.store_write_bytes_per_min as f64)).collect(),
                data.iter().map(|s| (s.interval_ms as f64 / 1000.0, s.pause_overhead * 100.0)).collect(),
            )
        };
        // The pinned run A, on the left axis of each panel: worst-case replay, store writes.
        let pinned_left: Option<Points> = pinned_data.map(|d| {
            d.iter()
                .map(|s| {
                    let y =
                        if which == 0 { s.worst_case_replay_events as f64 } else { s.store_write_bytes_per_min as f64 };
                    (s.interval_ms as f64 / 1000.0, y)
                })
                .collect()
        });
        let left_max = left.iter().chain(pinned_left.iter().flatten()).map(|p| p.1).fold(0.0, f64::max).max(1e-9) * 1.1;
        // Store load and pause overhead both fall as 1 / interval: give the right axis more headroom
        // so the two curves do not sit on top of each other.
        let headroom = if which == 0 { 1.1 } else { 1.8 };
        let right_max = right.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-9) * headroom;
        let mut chart = ChartBuilder::on(panel)
            .margin(view.px(6.0))
            .margin_right(view.px(10.0))
            .x_label_area_size(view.px(if which == 1 { 34.0 } else { 18.0 }))
            .y_label_area_size(view.px(62.0))
            .right_y_label_area_size(view.px(52.0))
            .build_cartesian_2d(x_range(), 0f64..left_max)?
            .set_secondary_coord(x_range(), 0f64..right_max);
        chart
            .configure_mesh()
            .x_desc(match which {
                1 if config.mode.has_barriers() => X_LABEL,
                1 => BATCH_X_LABEL,
                _ => "",
            })
            .y_desc(Y_LABELS[which * 2])
            .y_labels(4)
            .x_label_formatter(&|x| seconds_label(*x))
            // Store writes in bytes, in the unit their size calls for (a micro-batch job writes
            // megabytes a minute, a large state's checkpoints gigabytes).
            .y_label_formatter(&|y| match (which, *y) {
                (0, y) => count_label(y),
                (_, y) if y <= 0.0 => "0".into(),
                (_, y) => format_bytes(y),
            })
            .label_style(text(10.5))
            .axis_desc_style(text(11.5))
            .axis_style(pal.foreground)
            .bold_line_style(pal.grid)
            .light_line_style(pal.background)
            .draw()?;
        chart
            .configure_secondary_axes()
            .y_desc(Y_LABELS[which * 2 + 1])
            .y_labels(4)
            .y_label_formatter(&|y| if which == 0 { format!("{y:.0}") } else { format!("{y:.1}") })
            .label_style(text(10.5))
            .axis_desc_style(text(11.5))
            .axis_style(pal.foreground)
            .draw()?;
        // Where most jobs start (30 s to 5 min), under the region the store cannot absorb and the
        // rule's marks.
        chart.draw_series(std::iter::once(Rectangle::new(
            [(STARTING_RANGE_S.0, 0.0), (STARTING_RANGE_S.1, left_max)],
            pal.green.mix(0.10).filled(),
        )))?;
        // The region the store cannot absorb, then the rule's marks.
        if store_s > MIN_INTERVAL_S {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(MIN_INTERVAL_S, 0.0), (store_s.min(MAX_INTERVAL_S), left_max)],
                pal.vermillion.mix(0.12).filled(),
            )))?;
        }
        let vertical = |x: f64| vec![(x, 0.0), (x, left_max)];
        // What the legend box must not cover: the lines drawn below, in the plot's pixels. A curve
        // counts every 3 CSS pixels, as close as the clear margin the legend keeps around its box;
        // a vertical mark (the current and the rule's interval, a pinned run's, the store bound's
        // edge), which still shows when the box covers part of it, every 24: the box covers a
        // mark rather than a curve.
        let base = chart.plotting_area().get_base_pixel();
        let to_plot = |(x, y): (i32, i32)| (x - base.0, y - base.1);
        let step = view.px(3.0) as i32;
        let mut avoid = Vec::new();
        for curve in [Some(&left), pinned_left.as_ref()].into_iter().flatten() {
            avoid.extend(points_along(curve.iter().map(|p| to_plot(chart.backend_coord(p))), step));
        }
        avoid.extend(points_along(right.iter().map(|p| to_plot(chart.borrow_secondary().backend_coord(p))), step));
        let pinned_s = pinned.map(|a| a.config.interval_ms as f64 / 1000.0);
        let store_edge_s = (store_s > MIN_INTERVAL_S && store_s < MAX_INTERVAL_S).then_some(store_s);
        for mark_s in [Some(current_s), Some(sla_s), pinned_s, store_edge_s].into_iter().flatten() {
            let mark = vertical(mark_s).into_iter().map(|p| to_plot(chart.backend_coord(&p)));
            avoid.extend(points_along(mark, step * 8));
        }
        // The current interval first, so the rule's dashed line stays visible when they coincide.
        chart.draw_series(LineSeries::new(vertical(current_s), pal.foreground.stroke_width(view.px(3.0))))?;
        chart.draw_series(DashedLineSeries::new(
            vertical(sla_s),
            view.px(6.0),
            view.px(5.0),
            pal.purple.stroke_width(view.px(2.0)),
        ))?;
        if which == 0 {
            let interval_replay: Vec<(f64, f64)> =
                data.iter().map(|s| (s.interval_ms as f64 / 1000.0, s.interval_replay_events as f64)).collect();
            chart.draw_series(DashedLineSeries::new(
                interval_replay,
                view.px(5.0),
                view.px(3.0),
                pal.blue.stroke_width(view.px(2.0)),
            ))?;
        }
        if let (Some(x), Some(points)) = (pinned_s, pinned_left) {
            pinned_line(&mut chart, points, view)?;
            chart.draw_series(LineSeries::new(vertical(x), pal.pinned.stroke_width(view.px(2.0))))?;
        }
        chart.draw_series(LineSeries::new(left, pal.blue.stroke_width(view.px(2.5))))?;
        chart.draw_secondary_series(LineSeries::new(
            right,
            (if which == 0 { pal.green } else { pal.orange }).stroke_width(view.px(2.5)),
        ))?;
        let mut legend = if which == 0 {
            vec![
                LegendEntry::new("worst-case replay", pal.blue, Swatch::Line),
                LegendEntry::new("replay per interval", pal.blue, Swatch::Dashed),
                LegendEntry::new("worst-case recovery (right)", pal.green, Swatch::Line),
                LegendEntry::new(
                    format!("current interval {}", seconds_label(current_s)),
                    pal.foreground,
                    Swatch::Mark,
                ),
            ]
        } else {
            vec![
                LegendEntry::new("store writes", pal.blue, Swatch::Line),
                LegendEntry::new("pause overhead (right)", pal.orange, Swatch::Line),
                LegendEntry::new(format!("SLA / 10 = {}", seconds_label(sla_s)), pal.purple, Swatch::Dashed),
            ]
        };
        // The region the store cannot absorb has an entry where it is drawn.
        if which == 1 && store_s > MIN_INTERVAL_S {
            legend.push(LegendEntry::new(
                if config.mode.runs_batches() {
                    format!("back to back below {}", seconds_label(store_s))
                } else {
                    format!("store bound {}", seconds_label(store_s))
                },
                pal.vermillion,
                Swatch::Block,
            ));
        }
        if let Some(a) = pinned {
            let what = if which == 0 { "worst-case replay" } else { "store writes" };
            legend.push(LegendEntry::new(
                format!("{}, {what}", pinned_label(&a.config, view)),
                pal.pinned,
                Swatch::Dashed,
            ));
        }
        draw_legend(&chart.plotting_area().strip_coord_spec(), &legend, &avoid, view)?;
    }
    area.present()
}

pub fn text_alternative(report: &Report) -> TextAlternative {
    let config = &report.config;
    let current = &report.steady_state;
    let summary = format!(
        "Longer intervals replay more after a crash and recover more slowly; shorter ones write more to the \
         store and pause more often. At the current interval of {} a crash replays up to {} events and the \
         store takes {} a minute. The rule of a tenth of the latency SLA suggests {}; {} {}. The shaded band, \
         30 s to 5 min, is where most jobs start.",
        seconds_label(config.interval_ms as f64 / 1000.0),
        format_count(current.worst_case_replay_events),
        format_bytes(current.store_write_bytes_per_min as f64),
        seconds_label(report.tradeoff.rule_interval_ms as f64 / 1000.0),
        match (config.mode.runs_batches(), config.snapshots) {
            (true, _) => "batches run back to back with a trigger interval below",
            (false, crate::engine::Snapshots::Full) => "the store can absorb full snapshots no more often than every",
            (false, crate::engine::Snapshots::Incremental) => {
                "the store can absorb incremental checkpoints no more often than every"
            }
        },
        seconds_label(report.tradeoff.store_bound_interval_ms as f64 / 1000.0),
    );
    let rows = report
        .tradeoff
        .sweep
        .iter()
        .step_by(4)
        .map(|s| {
            vec![
                seconds_label(s.interval_ms as f64 / 1000.0),
                format_count(s.interval_replay_events),
                format_count(s.worst_case_replay_events),
                s.worst_case_recovery_ms.map_or("never".into(), |r| seconds_label(r as f64 / 1000.0)),
                format_bytes(s.store_write_bytes_per_min as f64),
                format!("{:.2}%", s.pause_overhead * 100.0),
            ]
        })
        .collect();
    TextAlternative {
        summary,
        columns: vec![
            "interval".into(),
            "replay per interval".into(),
            "worst-case replay".into(),
            "worst-case recovery".into(),
            "store writes per min".into(),
            "pause overhead".into(),
        ],
        rows,
    }
}
