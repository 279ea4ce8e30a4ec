//! What each sink holds for one key of one window, over time: every append-only row (orphans
//! and their re-emissions marked), the value an upsert or dedupe-view reader sees, and the value
//! a transactional reader sees after each commit. The rows come from the report's sink tables.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    axis_top, clock_label, time_chart, vertical_line, Frame, LegendEntry, Swatch, TextAlternative, TimeAxis, View,
};
pub use crate::engine::model::report::RowKind;
use crate::engine::settings::clock::ClockTime;
use crate::engine::settings::config::IsolationLevel;
use crate::engine::settings::units::format_count;
use crate::lesson::Report;

pub const SHORT_TITLE: &str = "Product";
pub const TITLE: &str = "What each sink holds for one window";
pub const X_LABEL: &str = "emitted at";
pub const Y_LABEL: &str = "orders counted";

/// The data behind the chart for (window, product), in seconds since the scenario start.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SinkWindow {
    /// (seconds since start, order_count, kind) for every append-only row.
    pub appended: Vec<(f64, u32, RowKind)>,
    /// What an upsert (and dedupe-view) reader sees after each write.
    pub upsert: Vec<(f64, u32)>,
    /// What a transactional reader sees after each commit that changed the key.
    pub transactional: Vec<(f64, u32)>,
}

/// The key's history from the report's sink tables, on the chart's time axis.
pub fn data(report: &Report, window_start_ms: u64, product: u32) -> SinkWindow {
    let start = report.config.start_time_ms;
    let secs = |ms: u64| (ms.saturating_sub(start)) as f64 / 1000.0;
    let history = report.tables.history(window_start_ms, product);
    SinkWindow {
        appended: history.appended.iter().map(|&(at, count, kind)| (secs(at), count, kind)).collect(),
        upsert: history.upsert.iter().map(|&(at, count)| (secs(at), count)).collect(),
        transactional: history.transactional.iter().map(|&(at, count)| (secs(at), count)).collect(),
    }
}

/// The stretch of time the chart shows: around the crash and its recovery when the crash falls
/// in the window, else the window itself and a little after.
pub fn x_range(report: &Report, window_start_ms: u64) -> (f64, f64) {
    let config = &report.config;
    let start = config.start_time_ms;
    let end_s = config.horizon_ms as f64 / 1000.0;
    let secs = |ms: u64| ms.saturating_sub(start) as f64 / 1000.0;
    let window_end = window_start_ms + config.window_ms;
    if let Some(r) = report.tables.recoveries.first() {
        if (window_start_ms..window_end).contains(&r.crashed_at_ms) {
            let from = secs(r.restored_barrier_at_ms) - 10.0;
            let to = r.caught_up_at_ms.map_or(end_s, |t| secs(t) + 15.0);
            return (from.max(0.0), to.min(end_s));
        }
    }
    (secs(window_start_ms), (secs(window_end) + 30.0).min(end_s))
}

/// Steps of a value seen over time (`points` in time order), flat until the next change, between
/// `from_s` and `to_s`: the value held at `from_s` starts the line there and the value held at
/// `to_s` ends it, so that values outside the view draw nothing at its edges.
fn steps(points: &[(f64, u32)], from_s: f64, to_s: f64) -> Vec<(f64, f64)> {
    let first = points.partition_point(|p| p.0 <= from_s);
    let held = first.checked_sub(1).map(|i| (from_s, points[i].1 as f64));
    let mut out: Vec<(f64, f64)> = held.into_iter().collect();
    for &(t, v) in points[first..].iter().take_while(|p| p.0 <= to_s) {
        if let Some(&(_, previous)) = out.last() {
            out.push((t, previous));
        }
        out.push((t, v as f64));
    }
    if let Some(&(_, last)) = out.last() {
        out.push((to_s, last));
    }
    out
}

#[inline(never)]
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    window_start_ms: u64,
    product: u32,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = view.theme.palette();
    let start_ms = report.config.start_time_ms;
    let d = data(report, window_start_ms, product);
    let (from_s, to_s) = x_range(report, window_start_ms);
    let in_view = |t: f64| t >= from_s && t <= to_s;
    let y_max =
        axis_top(d.appended.iter().filter(|p| in_view(p.0)).map(|p| p.1).max().unwrap_or(1) as f64 * 1.12 + 1.0);
    let title = if view.compact {
        format!("Product {product}, window {}", ClockTime(window_start_ms))
    } else {
        format!("{TITLE}: product {product}, window {}", ClockTime(window_start_ms))
    };
    // A kept row's dot: the foreground faded into the background, as solid in the legend as in the plot.
    let fade = |f: u8, b: u8| (f as f64 * 0.45 + b as f64 * 0.55).round() as u8;
    let (f, b) = (pal.foreground, pal.background);
    let kept = RGBColor(fade(f.0, b.0), fade(f.1, b.1), fade(f.2, b.2));
    let legend = [
        LegendEntry::new("append-only row", kept, Swatch::Dot),
        LegendEntry::new("orphan (rolled back)", pal.vermillion, Swatch::Ring),
        LegendEntry::new("re-emitted by replay", pal.purple, Swatch::Dot),
        LegendEntry::new("upsert = dedupe view reader", pal.blue, Swatch::Line),
        LegendEntry::new(
            match (report.config.mode.sink_has_transactions(), report.config.isolation_level) {
                (false, _) => "batch-id writer reader",
                (true, IsolationLevel::ReadCommitted) => "transactional reader",
                (true, IsolationLevel::ReadUncommitted) => "transactional, read_uncommitted",
            },
            pal.orange,
            Swatch::Line,
        ),
    ];
    let frame = Frame {
        title: &title,
        x_desc: X_LABEL,
        x: TimeAxis::between(from_s, to_s, if view.compact { 4.0 } else { 8.0 }),
        start_ms,
        y_max,
        y_desc: Y_LABEL,
        y_label_px: 56.0,
        y_labels: 5,
        y_format: &|y| format_count(y.max(0.0).round() as u64),
        legend: &legend,
    };
    let mut chart = time_chart(area, frame, view)?;
    super::record_time_axis(&chart);
    chart.draw_series(LineSeries::new(steps(&d.transactional, from_s, to_s), pal.orange.stroke_width(view.px(2.5))))?;
    chart.draw_series(LineSeries::new(steps(&d.upsert, from_s, to_s), pal.blue.stroke_width(view.px(2.0))))?;
    let radius = view.px(2.5);
    chart.draw_series(
        d.appended
            .iter()
            .filter(|p| p.2 == RowKind::Kept && in_view(p.0))
            .map(|&(t, v, _)| Circle::new((t, v as f64), radius, kept.filled())),
    )?;
    chart.draw_series(
        d.appended
            .iter()
            .filter(|p| p.2 == RowKind::ReEmitted && in_view(p.0))
            .map(|&(t, v, _)| Circle::new((t, v as f64), radius + 1, pal.purple.filled())),
    )?;
    chart.draw_series(
        d.appended
            .iter()
            .filter(|p| p.2 == RowKind::Orphan && in_view(p.0))
            .map(|&(t, v, _)| Circle::new((t, v as f64), radius + 2, pal.vermillion.stroke_width(view.px(2.0)))),
    )?;
    if let Some(cursor) = view.cursor_s.filter(|c| in_view(*c)) {
        vertical_line(&mut chart, cursor, pal.foreground, 1.0, view)?;
    }
    area.present()
}

/// What the transactional sink's reader saw of the key, in this mode and isolation level.
fn transactional_reader(report: &Report, values: usize) -> String {
    match (report.config.mode.sink_has_transactions(), report.config.isolation_level) {
        (false, _) => {
            format!("a reader of the batch-id writer saw {values} writes of this key, a re-run batch's skipped.")
        }
        (true, IsolationLevel::ReadCommitted) => {
            format!("a read_committed reader of the transactional sink saw {values} commits of this key and never a rolled-back value.")
        }
        (true, IsolationLevel::ReadUncommitted) => format!(
            "a read_uncommitted reader of the transactional sink saw all {values} writes of this key, rolled-back ones included."
        ),
    }
}

pub fn text_alternative(report: &Report, window_start_ms: u64, product: u32) -> TextAlternative {
    let d = data(report, window_start_ms, product);
    let count = |kind: RowKind| d.appended.iter().filter(|p| p.2 == kind).count();
    let regressions = d.upsert.windows(2).filter(|w| w[1].1 < w[0].1).count();
    let summary = format!(
        "Product {product}, window {}: the append-only table holds {} rows, {} of them orphans written before \
         the crash and {} written again by the replay. An upsert or dedupe-view reader's value {}; {}",
        ClockTime(window_start_ms),
        d.appended.len(),
        count(RowKind::Orphan),
        count(RowKind::ReEmitted),
        match regressions {
            0 => "never stepped back".to_string(),
            1 => "stepped back once".to_string(),
            n => format!("stepped back {n} times"),
        },
        transactional_reader(report, d.transactional.len())
    );
    let start = report.config.start_time_ms;
    let rows = d
        .appended
        .iter()
        .map(|&(t, v, kind)| {
            vec![
                clock_label(start, t),
                format_count(u64::from(v)),
                match kind {
                    RowKind::Kept => "row",
                    RowKind::Orphan => "orphan",
                    RowKind::ReEmitted => "re-emitted",
                }
                .to_string(),
            ]
        })
        .collect();
    TextAlternative { summary, columns: vec!["emitted at".into(), "order_count".into(), "kind".into()], rows }
}

#[cfg(test)]
mod tests {
    use super::steps;

    #[test]
    fn a_step_line_holds_its_values_between_the_views_edges() {
        let points = [(1.0, 10), (5.0, 20), (50.0, 30)];
        // The value held at the left edge starts the line; one after the right edge draws nothing.
        assert_eq!(steps(&points, 3.0, 20.0), [(3.0, 10.0), (5.0, 10.0), (5.0, 20.0), (20.0, 20.0)]);
        // Nothing seen yet at the left edge: the line starts at the first value.
        assert_eq!(steps(&points, 0.0, 4.0), [(1.0, 10.0), (4.0, 10.0)]);
        assert_eq!(steps(&points, 0.0, 0.5), []);
    }
}
