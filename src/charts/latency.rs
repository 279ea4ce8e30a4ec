//! The latency chart: staleness over time as a reader of each sink sees it — now minus the newest
//! event time visible in the sink. Append-only, upsert and the dedupe view show output at once;
//! the transactional sink only at each checkpoint's commit.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    axis_top, clock_label, finish_time_chart, pinned_label, pinned_line, samples_with_pinned, seconds_label,
    time_chart, with_crash_entry, Frame, LegendEntry, Swatch, TextAlternative, View,
};
use crate::engine::model::sinks::SinkDesign;
use crate::engine::settings::config::{Config, IsolationLevel};
use crate::engine::settings::units::format_duration_ms;
use crate::lesson::Report;

pub const SHORT_TITLE: &str = "Staleness per sink";
pub const TITLE: &str = "What a reader sees: staleness per sink";
pub const X_LABEL: &str = "scenario clock";
pub const Y_LABEL: &str = "staleness (s)";

#[inline(never)]
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    highlight: SinkDesign,
    pinned: Option<&Report>,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = view.theme.palette();
    let horizon_s = report.config.horizon_ms as f64 / 1000.0;
    let peak = samples_with_pinned(report, pinned)
        .map(|s| s.staleness_ms.transactional.max(s.staleness_ms.upsert))
        .max()
        .unwrap_or(0);
    let y_max = axis_top(peak as f64 / 1000.0 * 1.15).max(5.0);
    let immediate_bold = highlight != SinkDesign::Transactional;
    let mut legend = vec![
        LegendEntry::new("append-only, upsert, dedupe view", pal.blue, Swatch::Line),
        LegendEntry::new(transactional_label(&report.config), pal.orange, Swatch::Line),
    ];
    if let Some(a) = pinned {
        let which = if immediate_bold { "immediate sinks" } else { "transactional" };
        legend.push(LegendEntry::new(
            format!("{}, {which}", pinned_label(&a.config, view)),
            pal.pinned,
            Swatch::Dashed,
        ));
    }
    let sla_s = report.config.latency_sla_ms as f64 / 1000.0;
    if sla_s < y_max {
        legend.push(LegendEntry::new(format!("latency SLA {}", seconds_label(sla_s)), pal.purple, Swatch::Dashed));
    }
    let legend = with_crash_entry(legend, report, view);
    let frame = Frame {
        title: if view.compact { SHORT_TITLE } else { TITLE },
        x_desc: X_LABEL,
        x: view.time_axis(horizon_s),
        start_ms: report.config.start_time_ms,
        y_max,
        y_desc: Y_LABEL,
        y_label_px: 52.0,
        y_labels: 5,
        y_format: &|y| format!("{y:.0}"),
        legend: &legend,
    };
    let mut chart = time_chart(area, frame, view)?;
    let width = |bold: bool| view.px(if bold { 3.0 } else { 1.5 });
    let series = |r: &Report, pick: fn(&crate::lesson::timeline::SinkStaleness) -> u64| {
        r.series.iter().map(move |s| (s.at.s, pick(&s.staleness_ms) as f64 / 1000.0)).collect::<Vec<_>>()
    };
    let highlighted: fn(&crate::lesson::timeline::SinkStaleness) -> u64 =
        if immediate_bold { |s| s.upsert } else { |s| s.transactional };
    if let Some(a) = pinned {
        pinned_line(&mut chart, series(a, highlighted), view)?;
    }
    chart.draw_series(LineSeries::new(
        series(report, |s| s.transactional),
        pal.orange.stroke_width(width(!immediate_bold)),
    ))?;
    chart.draw_series(LineSeries::new(series(report, |s| s.upsert), pal.blue.stroke_width(width(immediate_bold))))?;
    if sla_s < y_max {
        chart.draw_series(DashedLineSeries::new(
            vec![(0.0, sla_s), (horizon_s, sla_s)],
            view.px(6.0),
            view.px(4.0),
            pal.purple.stroke_width(view.px(1.5)),
        ))?;
    }
    finish_time_chart(area, chart, report, view)
}

/// What the transactional line is in this mode: Kafka transactions visible at commit (or at once to
/// read_uncommitted readers), or Spark's write keyed by batch id.
fn transactional_label(config: &Config) -> &'static str {
    match (config.mode.sink_has_transactions(), config.isolation_level) {
        (false, _) => config.mode.words().transactional_sink,
        (true, IsolationLevel::ReadCommitted) => "transactional (visible at commit)",
        (true, IsolationLevel::ReadUncommitted) => "transactional, read_uncommitted",
    }
}

pub fn text_alternative(report: &Report) -> TextAlternative {
    let s = &report.sinks;
    if report.config.mode.runs_batches() {
        let summary = format!(
            "Readers of every sink see output once per batch, when foreachBatch writes it: worst staleness {}, \
             longest time with nothing fresher {}.",
            format_duration_ms(s.upsert.staleness_max_ms),
            format_duration_ms(s.upsert.silent_ms)
        );
        return TextAlternative { summary, ..latency_rows(report) };
    }
    let readers = match report.config.isolation_level {
        IsolationLevel::ReadCommitted => "Readers of the transactional sink (read_committed) see output only when a checkpoint commits",
        IsolationLevel::ReadUncommitted => "Readers of the transactional sink with read_uncommitted see rows as they are written, aborted ones included",
    };
    let summary = format!(
        "Readers of the append-only, upsert and dedupe-view sinks see output within about a second; their \
         worst staleness is {} and the longest time with nothing fresher is {}. {readers}: worst staleness {}, \
         longest silence {}.",
        format_duration_ms(s.upsert.staleness_max_ms),
        format_duration_ms(s.upsert.silent_ms),
        format_duration_ms(s.transactional.staleness_max_ms),
        format_duration_ms(s.transactional.silent_ms)
    );
    TextAlternative { summary, ..latency_rows(report) }
}

/// The staleness table every five seconds, with an empty summary.
fn latency_rows(report: &Report) -> TextAlternative {
    let rows = report
        .series
        .iter()
        .filter(|x| (x.at.ms - report.config.start_time_ms) % 5_000 == 0)
        .map(|x| {
            vec![
                clock_label(report.config.start_time_ms, x.at.s),
                format!("{:.1}", x.staleness_ms.upsert as f64 / 1000.0),
                format!("{:.1}", x.staleness_ms.transactional as f64 / 1000.0),
            ]
        })
        .collect();
    TextAlternative {
        summary: String::new(),
        columns: vec![
            "time".into(),
            "append-only, upsert, view (s)".into(),
            format!("{} (s)", transactional_label(&report.config)),
        ],
        rows,
    }
}
