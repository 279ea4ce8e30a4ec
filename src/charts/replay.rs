//! The replay chart: consumer lag over time, with checkpoint completions, the crash, and the
//! recovery phases (detection, restore, replay, catch-up) shaded and labelled.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    axis_top, clock_label, count_label, finish_time_chart, pinned_label, pinned_line, samples_with_pinned,
    setting_label, time_chart, with_crash_entry, Frame, LegendEntry, Swatch, TextAlternative, View,
};
use crate::engine::model::trace::Phase;
use crate::engine::settings::units::{format_count, format_duration_ms};
use crate::lesson::Report;

pub const SHORT_TITLE: &str = "Lag and replay";
pub const TITLE: &str = "Consumer lag and replay";
pub const X_LABEL: &str = "scenario clock";
pub const Y_LABEL: &str = "consumer lag (events)";

/// The recovery phases a chart shades, with their legend names.
pub fn phase_name(phase: Phase) -> Option<&'static str> {
    match phase {
        Phase::Detecting => Some("detection"),
        Phase::Restarting => Some("restart"),
        Phase::Restoring => Some("restore"),
        Phase::Replaying => Some("replay"),
        Phase::CatchingUp => Some("catch-up"),
        Phase::Failed => Some("FAILED: no restart"),
        _ => None,
    }
}

/// Contiguous runs of recovery phases as (phase, from_s, to_s).
pub fn phase_spans(report: &Report) -> Vec<(Phase, f64, f64)> {
    let mut spans: Vec<(Phase, f64, f64)> = Vec::new();
    for sample in &report.series {
        if phase_name(sample.phase).is_none() {
            continue;
        }
        let t = sample.at.s;
        match spans.last_mut() {
            Some((phase, _, to)) if *phase == sample.phase && (*to - t).abs() <= 1.0 => *to = t + 1.0,
            _ => spans.push((sample.phase, t, t + 1.0)),
        }
    }
    spans
}

/// What the green marks are: completed checkpoints, or committed batches.
pub fn completed_label(config: &crate::engine::Config) -> &'static str {
    config.mode.words().mark
}

#[inline(never)]
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    pinned: Option<&Report>,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = view.theme.palette();
    let horizon_s = report.config.horizon_ms as f64 / 1000.0;
    let lag = |r: &Report| r.series.iter().map(|s| (s.at.s, s.lag_events as f64)).collect::<Vec<_>>();
    let peak = samples_with_pinned(report, pinned).map(|s| s.lag_events).max().unwrap_or(0) as f64;
    let y_max = axis_top(peak * 1.2).max(10.0);
    let text = |size: f64| (FontFamily::SansSerif, view.font(size)).into_font().color(&pal.foreground);
    let mut legend = vec![LegendEntry::new("consumer lag", pal.blue, Swatch::Line)];
    if let Some(a) = pinned {
        legend[0].label =
            if view.compact { "B (now)".to_string() } else { format!("B: {}", setting_label(&report.config)) };
        legend.push(LegendEntry::new(pinned_label(&a.config, view), pal.pinned, Swatch::Dashed));
    }
    legend.push(LegendEntry::new(completed_label(&report.config), pal.green, Swatch::Mark));
    let legend = with_crash_entry(legend, report, view);
    let frame = Frame {
        title: if view.compact { SHORT_TITLE } else { TITLE },
        x_desc: X_LABEL,
        x: view.time_axis(horizon_s),
        start_ms: report.config.start_time_ms,
        y_max,
        y_desc: Y_LABEL,
        y_label_px: 62.0,
        y_labels: 5,
        y_format: &|y| count_label(*y),
        legend: &legend,
    };
    let mut chart = time_chart(area, frame, view)?;

    // Recovery phases, shaded, with their names at the top.
    let shade = |phase: Phase| match phase {
        Phase::Detecting | Phase::Restarting | Phase::Failed => pal.vermillion,
        Phase::Restoring => pal.orange,
        Phase::Replaying => pal.purple,
        _ => pal.sky,
    };
    // Phase names on up to five rows (one per phase at most), never overlapping one another.
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0.max(1));
    let s_per_px = horizon_s / plot_w;
    let mut row_ends = [f64::MIN; 5];
    for (phase, from, to) in phase_spans(report) {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(from, 0.0), (to, y_max)],
            shade(phase).mix(0.18).filled(),
        )))?;
        let name = phase_name(phase).unwrap_or_default();
        let width_s = name.len() as f64 * view.font(10.5) * 0.55 * s_per_px;
        // The row where the label can start earliest; it may slide right within its own span.
        let pad = 3.0 * s_per_px;
        let (row, x) = row_ends
            .iter()
            .map(|&end| (from + pad).max(end + pad))
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("five rows");
        row_ends[row] = x + width_s;
        chart.draw_series(std::iter::once(Text::new(
            name.to_string(),
            (x, y_max * (0.97 - 0.075 * row as f64)),
            text(10.5),
        )))?;
    }

    // Checkpoint completions: short ticks on the axis.
    let tick = y_max * 0.04;
    chart.draw_series(report.checkpoints.iter().skip(1).map(|c| {
        PathElement::new(vec![(c.completed_at.s, 0.0), (c.completed_at.s, tick)], pal.green.stroke_width(view.px(2.0)))
    }))?;
    // The lag line, over the pinned run's when two settings are compared.
    if let Some(a) = pinned {
        pinned_line(&mut chart, lag(a), view)?;
    }
    let lag_style = pal.blue.stroke_width(view.px(2.0));
    chart.draw_series(LineSeries::new(lag(report), lag_style))?;
    finish_time_chart(area, chart, report, view)
}

/// The chart as words and a table.
pub fn text_alternative(report: &Report) -> TextAlternative {
    let summary = match (&report.crash, &report.restored_checkpoint) {
        (Some(crash), Some(restored)) if report.config.mode.reruns_in_flight() => {
            let recovery = match report.recovery_s {
                Some(s) => format!(
                    "The job is back on its trigger schedule {} after the crash.",
                    format_duration_ms((s * 1000.0).round() as u64)
                ),
                None => "The job does not get back on its trigger schedule within the horizon.".to_string(),
            };
            format!(
                "Consumer lag rises between triggers and drops as each batch is processed, until the crash at {}. \
                 While the job is down the lag grows; the restart restores the state of batch {}, reads {} events \
                 again, and the lag peaks at {} events before the following batches work it off. {}",
                crash.at.at,
                restored.id,
                format_count(report.replayed_events),
                format_count(report.series.iter().map(|s| s.lag_events).max().unwrap_or(0)),
                recovery
            )
        }
        (Some(crash), Some(restored)) => {
            let recovery = match report.recovery_s {
                Some(s) => {
                    format!(
                        "The lag is back to zero {} after the crash.",
                        format_duration_ms((s * 1000.0).round() as u64)
                    )
                }
                None => "The job does not catch up within the horizon.".to_string(),
            };
            format!(
                "Consumer lag stays near zero until the crash at {}. While the job is down the lag grows; \
                 the restore of checkpoint {} rewinds the readers {} events, the lag peaks at {} events, \
                 then replay and catch-up work it off. {}",
                crash.at.at,
                restored.id,
                format_count(report.replayed_events),
                format_count(report.series.iter().map(|s| s.lag_events).max().unwrap_or(0)),
                recovery
            )
        }
        _ => format!(
            "No crash: the lag stays at most {} events; {} checkpoints complete.",
            format_count(report.series.iter().map(|s| s.lag_events).max().unwrap_or(0)),
            report.checkpoints.len().saturating_sub(1)
        ),
    };
    let rows = report
        .series
        .iter()
        .filter(|s| (s.at.ms - report.config.start_time_ms) % 5_000 == 0 || phase_name(s.phase).is_some())
        .map(|s| {
            vec![
                clock_label(report.config.start_time_ms, s.at.s),
                s.phase.words().to_string(),
                format_count(s.lag_events),
            ]
        })
        .collect();
    // The first failure is told above; the later ones are marked on the chart and counted here.
    let summary = match (report.failures, &report.failed_at) {
        (0 | 1, None) => summary,
        (n, None) => {
            format!("{summary} In all the job failed {n} times; each crash is marked and each recovery shaded.")
        }
        (n, Some(at)) => format!(
            "{summary} In all the job failed {n} {} and is FAILED from {}: nothing restarts it.",
            if n == 1 { "time" } else { "times" },
            at.at
        ),
    };
    TextAlternative { summary, columns: vec!["time".into(), "phase".into(), "lag (events)".into()], rows }
}
