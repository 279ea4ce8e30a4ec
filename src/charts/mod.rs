//! Charts drawn from the report with plotters. Every chart is a function generic over the
//! drawing backend: the page draws on canvases, the tests draw SVG natively. Charts only read the
//! report (and the pinned report of a comparison); each also has a text alternative (a summary
//! and the data as a table). [`draw`] and [`text_alternative`] pick the chart by [`Chart`]: the
//! page and the tests go through them.

pub mod checkpoints;
pub mod flow;
pub mod latency;
pub mod pipeline;
pub mod replay;
pub mod sink_window;
pub mod tradeoff;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingAreaErrorKind, DrawingBackend};
use plotters::style::RGBColor;

use crate::engine::model::sinks::SinkDesign;
use crate::engine::settings::clock::ClockTime;
use crate::engine::settings::units::format_count;
use crate::lesson::Report;

/// The charts a lab draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chart {
    /// Consumer lag and replay over time.
    Replay,
    /// Latency and staleness per sink over time.
    Latency,
    /// The interval trade-off.
    Tradeoff,
    /// The checkpoint (or batch) timeline.
    Checkpoints,
    /// What each sink holds for one key of one window.
    SinkWindow,
    /// The pipeline at the cursor: partitions, operator, checkpoint store, status and sinks.
    Pipeline,
}

impl Chart {
    pub const ALL: [Chart; 6] =
        [Chart::Pipeline, Chart::Replay, Chart::Latency, Chart::Tradeoff, Chart::Checkpoints, Chart::SinkWindow];

    /// The chart's name on the page ("sink-window").
    pub fn name(self) -> &'static str {
        match self {
            Chart::Replay => "replay",
            Chart::Latency => "latency",
            Chart::Tradeoff => "tradeoff",
            Chart::Checkpoints => "checkpoints",
            Chart::SinkWindow => "sink-window",
            Chart::Pipeline => "pipeline",
        }
    }

    pub fn from_name(name: &str) -> Option<Chart> {
        Chart::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// What a lab on a page shows, as the element's `charts` and `controls` attributes name it, and
/// so what it computes and keeps of a run beyond the report, which is the same whatever is shown.
/// An inline figure of two charts keeps what those two need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    charts: Vec<Chart>,
    /// Whether a control shown moves a setting whose next run reuses the last one's
    /// failure-free companion (see [`Shown::keeps_outcome`]).
    moves_reused_settings: bool,
}

/// The controls whose changes the engine runs from the last run's failure-free companion:
/// moving the crash time resumes it, moving the interval or the state size borrows its rows
/// ([`crate::engine::Runner::new`]).
pub const CONTROLS_REUSING_THE_LAST_RUN: [&str; 3] = ["crash-at", "interval", "state-size"];

impl Default for Shown {
    fn default() -> Self {
        Shown::all()
    }
}

impl Shown {
    /// Everything: a full lab.
    pub fn all() -> Shown {
        Shown { charts: Chart::ALL.to_vec(), moves_reused_settings: true }
    }

    /// The views named by `charts` (chart names, "figures", "crash-table"; `None`: all) and the
    /// controls named by `controls` (`None`: all). Names of neither kind are ignored.
    pub fn of(charts: Option<&[String]>, controls: Option<&[String]>) -> Shown {
        Shown {
            charts: charts.map_or_else(
                || Chart::ALL.to_vec(),
                |names| Chart::ALL.into_iter().filter(|c| names.iter().any(|n| n == c.name())).collect(),
            ),
            moves_reused_settings: controls
                .is_none_or(|names| names.iter().any(|n| CONTROLS_REUSING_THE_LAST_RUN.contains(&n.as_str()))),
        }
    }

    /// Whether `chart` is shown.
    pub fn chart(&self, chart: Chart) -> bool {
        self.charts.contains(&chart)
    }

    /// Whether the lab counts the sink tables of the run's world ahead of the questions
    /// (a bounded step at a time, as far as the cursor before the run is shown, then to its end
    /// before the text alternatives are written): the pipeline view asks what the sinks hold at
    /// every cursor, and its text alternative at every key instant. Without it the world
    /// answers a question by counting then what that question needs.
    pub fn prepares_world(&self) -> bool {
        self.chart(Chart::Pipeline)
    }

    /// Whether the lab keeps a finished run (its failure-free companion, keyframes, data plane)
    /// beside the report, for the next run to reuse: only where a control shown moves a setting
    /// whose run reuses it. A run that does not find it simulates what it would have reused; its
    /// report is the same.
    pub fn keeps_outcome(&self) -> bool {
        self.moves_reused_settings
    }
}

/// What the student picked besides the settings: the sink the pipeline view and the latency
/// chart highlight, and the key (window, product) the sink-window chart shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Focus {
    pub sink: SinkDesign,
    /// `None`: the window the crash falls in (or the first one).
    pub window_start_ms: Option<u64>,
    pub product: u32,
}

impl Default for Focus {
    fn default() -> Self {
        Focus { sink: SinkDesign::AppendOnly, window_start_ms: None, product: 0 }
    }
}

impl Focus {
    /// The window the sink chart shows: the chosen one, else the one the crash falls in.
    pub fn window(&self, report: &Report) -> u64 {
        self.window_start_ms.unwrap_or_else(|| {
            let config = &report.config;
            let at = config.crash_at_ms.unwrap_or(config.start_time_ms);
            at / config.window_ms * config.window_ms
        })
    }
}

/// Draws `chart` from `report`, with `pinned` (setting A of a comparison) under it where the chart
/// compares. Each chart's own `draw` is `#[inline(never)]`: one function of all six would be
/// compiled by the browser's optimising tier as a whole, in one long compilation.
pub fn draw<DB: DrawingBackend>(
    chart: Chart,
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    pinned: Option<&Report>,
    focus: &Focus,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match chart {
        Chart::Replay => replay::draw(area, report, pinned, view),
        Chart::Latency => latency::draw(area, report, focus.sink, pinned, view),
        Chart::Tradeoff => tradeoff::draw(area, report, pinned, view),
        Chart::Checkpoints => checkpoints::draw(area, report, view),
        Chart::SinkWindow => sink_window::draw(area, report, focus.window(report), focus.product, view),
        Chart::Pipeline => pipeline::draw(area, &pipeline::Scene::of(report).highlighting(focus.sink), view),
    }
}

/// `chart` as an SVG document `size_px` (width, height) backend pixels large: the same drawing as
/// on a canvas, for slides, print or a page's first picture.
pub fn svg(chart: Chart, report: &Report, focus: &Focus, view: &View, size_px: (u32, u32)) -> Result<String, String> {
    use plotters::prelude::{IntoDrawingArea, SVGBackend};
    let mut out = String::new();
    {
        let area = SVGBackend::with_string(&mut out, size_px).into_drawing_area();
        let failed = |e: &dyn std::fmt::Display| format!("drawing {} failed: {e}", chart.name());
        draw(chart, &area, report, None, focus, view).map_err(|e| failed(&e))?;
        area.present().map_err(|e| failed(&e))?;
    }
    Ok(out)
}

/// Where a drawn time chart put its clock axis: backend pixels `x0..x1` span seconds
/// `from_s..to_s` since the scenario start. The page turns a click or a hover into a time with it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct AxisPixels {
    pub x0: i32,
    pub x1: i32,
    pub y0: i32,
    pub y1: i32,
    pub from_s: f64,
    pub to_s: f64,
}

thread_local! {
    /// The clock axis of the time chart drawn last (set by [`finish_time_chart`]).
    static LAST_TIME_AXIS: std::cell::Cell<Option<AxisPixels>> = const { std::cell::Cell::new(None) };
}

/// Like [`draw`], and returns where the chart's clock axis lies, for charts over the scenario clock.
pub fn draw_measured<DB: DrawingBackend>(
    chart: Chart,
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    pinned: Option<&Report>,
    focus: &Focus,
    view: &View,
) -> Result<Option<AxisPixels>, DrawingAreaErrorKind<DB::ErrorType>> {
    LAST_TIME_AXIS.with(|c| c.set(None));
    draw(chart, area, report, pinned, focus, view)?;
    Ok(LAST_TIME_AXIS.with(|c| c.take()))
}

/// The text alternative of `chart` drawn from `report`.
pub fn text_alternative(chart: Chart, report: &Report, focus: &Focus) -> TextAlternative {
    match chart {
        Chart::Replay => replay::text_alternative(report),
        Chart::Latency => latency::text_alternative(report),
        Chart::Tradeoff => tradeoff::text_alternative(report),
        Chart::Checkpoints => checkpoints::text_alternative(report),
        Chart::SinkWindow => sink_window::text_alternative(report, focus.window(report), focus.product),
        Chart::Pipeline => pipeline::text_alternative(&pipeline::Scene::of(report), None),
    }
}

/// Light or dark, from the page's prefers-color-scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

/// Colours of one theme. Series colours come from the Okabe-Ito palette (colour-blind safe).
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    pub background: RGBColor,
    pub foreground: RGBColor,
    pub grid: RGBColor,
    pub blue: RGBColor,
    pub orange: RGBColor,
    pub green: RGBColor,
    pub vermillion: RGBColor,
    pub purple: RGBColor,
    pub sky: RGBColor,
    pub yellow: RGBColor,
    /// The pinned run A when two settings are compared: drawn dashed in a neutral grey.
    pub pinned: RGBColor,
}

impl Theme {
    pub fn palette(self) -> Palette {
        let (background, foreground, grid, pinned) = match self {
            Theme::Light => {
                (RGBColor(255, 255, 255), RGBColor(33, 37, 41), RGBColor(222, 226, 230), RGBColor(110, 110, 110))
            }
            Theme::Dark => {
                (RGBColor(24, 26, 31), RGBColor(230, 232, 235), RGBColor(60, 64, 72), RGBColor(170, 170, 170))
            }
        };
        Palette {
            background,
            foreground,
            grid,
            blue: RGBColor(0, 114, 178),
            orange: RGBColor(230, 159, 0),
            green: RGBColor(0, 158, 115),
            vermillion: RGBColor(213, 94, 0),
            purple: RGBColor(204, 121, 167),
            sky: RGBColor(86, 180, 233),
            yellow: RGBColor(240, 228, 66),
            pinned,
        }
    }
}

/// How to draw: theme, pixel scale (devicePixelRatio) and an optional time cursor.
#[derive(Clone, Copy, Debug)]
pub struct View {
    pub theme: Theme,
    /// Multiplies font sizes, margins and line widths, so a canvas backed at devicePixelRatio is sharp.
    pub scale: f64,
    /// Seconds since the scenario start where the animation's cursor stands.
    pub cursor_s: Option<f64>,
    /// A narrow canvas (a phone): fewer ticks, smaller type, shorter titles.
    pub compact: bool,
}

impl Default for View {
    fn default() -> Self {
        View { theme: Theme::Light, scale: 1.0, cursor_s: None, compact: false }
    }
}

impl View {
    /// A length in CSS pixels, scaled to backend pixels.
    pub fn px(&self, css: f64) -> u32 {
        (css * self.scale).round().max(1.0) as u32
    }

    pub fn font(&self, css: f64) -> f64 {
        css * self.scale * if self.compact { 0.85 } else { 1.0 }
    }

    /// Whether a canvas `width_px` backend pixels wide should be drawn compact.
    pub fn is_narrow(width_px: u32, scale: f64) -> bool {
        f64::from(width_px) / scale < 560.0
    }

    /// Ticks for a time axis of `horizon_s` at this view's width.
    pub fn time_axis(&self, horizon_s: f64) -> TimeAxis {
        TimeAxis::new(horizon_s, if self.compact { 4.0 } else { 10.0 })
    }
}

/// A short name for a setting in a comparison legend: "A: barrier 30 s, 2 GB".
pub fn setting_label(config: &crate::engine::Config) -> String {
    let mode = config.mode.words().name;
    format!(
        "{mode} {}, {}",
        crate::engine::settings::units::format_duration_ms(config.interval_ms),
        crate::engine::settings::units::format_bytes(config.state_bytes as f64)
    )
}

/// The pinned run's legend name: its settings, or just "A" on a narrow canvas.
pub fn pinned_label(config: &crate::engine::Config, view: &View) -> String {
    if view.compact {
        "A (pinned)".to_string()
    } else {
        format!("A: {}", setting_label(config))
    }
}

/// The per-second samples of a run and of the pinned run, for axes that must hold both.
pub fn samples_with_pinned<'a>(
    report: &'a Report,
    pinned: Option<&'a Report>,
) -> impl Iterator<Item = &'a crate::lesson::timeline::Sample> {
    report.series.iter().chain(pinned.into_iter().flat_map(|a| a.series.iter()))
}

/// A dashed line in the pinned run's colour.
pub fn pinned_line<DB: plotters::prelude::DrawingBackend, X: plotters::coord::ranged1d::Ranged<ValueType = f64>>(
    chart: &mut plotters::chart::ChartContext<
        '_,
        DB,
        plotters::coord::cartesian::Cartesian2d<X, plotters::coord::types::RangedCoordf64>,
    >,
    points: Vec<(f64, f64)>,
    view: &View,
) -> Result<(), plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    let pal = view.theme.palette();
    chart.draw_series(DashedLineSeries::new(
        points,
        view.px(7.0),
        view.px(4.0),
        pal.pinned.stroke_width(view.px(2.0)),
    ))?;
    Ok(())
}

/// A chart's text alternative: a one-paragraph summary and its data as a table.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TextAlternative {
    pub summary: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Clock label for an x position in seconds since `start_ms`.
pub fn clock_label(start_ms: u64, s: f64) -> String {
    let t = ClockTime(start_ms + (s.max(0.0) * 1000.0).round() as u64).to_string();
    t.split('.').next().unwrap_or_default().to_string()
}

/// Axis label for a count: 70,000 or 1.2M.
pub fn count_label(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else {
        format_count(v.max(0.0).round() as u64)
    }
}

/// How a legend entry's swatch is drawn.
#[derive(Clone, Copy, Debug)]
pub enum Swatch {
    Line,
    Dashed,
    Mark,
    Block,
    /// A filled dot, as a chart marks one row.
    Dot,
    /// A ring, as a chart circles a row.
    Ring,
}

/// One legend line: a swatch in `color` and its label.
pub struct LegendEntry {
    pub label: String,
    pub color: RGBColor,
    pub swatch: Swatch,
}

impl LegendEntry {
    pub fn new(label: impl Into<String>, color: RGBColor, swatch: Swatch) -> Self {
        LegendEntry { label: label.into(), color, swatch }
    }
}

/// A legend's rows: each row's entries as (index into the entries, x from the row's start).
type LegendRows = Vec<Vec<(usize, i32)>>;

/// A legend's line height, padding and swatch width, in backend pixels.
fn legend_metrics(view: &View) -> (i32, i32, i32) {
    (view.px(16.0) as i32, view.px(6.0) as i32, view.px(16.0) as i32)
}

/// A legend's entries laid out left to right over `width_px`, a new row where the next one
/// would not fit. Text is measured through the backend.
fn legend_rows<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    entries: &[LegendEntry],
    width_px: i32,
    view: &View,
) -> Result<LegendRows, plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    let font = legend_font(view);
    let (_, pad, swatch_w) = legend_metrics(view);
    let mut rows: LegendRows = Vec::new();
    let mut x = 0;
    for (i, entry) in entries.iter().enumerate() {
        let w = swatch_w + pad + area.estimate_text_size(&entry.label, &font)?.0 as i32;
        if rows.is_empty() || (x > 0 && x + w > width_px) {
            rows.push(Vec::new());
            x = 0;
        }
        rows.last_mut().expect("a row").push((i, x));
        x += w + 3 * pad;
    }
    Ok(rows)
}

/// The height of a legend band of `rows` rows, in backend pixels (none without rows).
fn legend_band_px(rows: usize, view: &View) -> i32 {
    if rows == 0 {
        return 0;
    }
    let (line_h, pad, _) = legend_metrics(view);
    line_h * rows as i32 + pad
}

fn legend_font(view: &View) -> plotters::style::TextStyle<'static> {
    use plotters::prelude::*;
    (FontFamily::SansSerif, view.font(11.0)).into_font().color(&view.theme.palette().foreground)
}

/// Draws a legend's `rows` (from [`legend_rows`]) in a band whose top left is `origin`.
fn draw_legend_rows<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    entries: &[LegendEntry],
    rows: &LegendRows,
    origin: (i32, i32),
    view: &View,
) -> Result<(), plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    let (line_h, _, _) = legend_metrics(view);
    for (r, row) in rows.iter().enumerate() {
        for &(i, x) in row {
            draw_legend_entry(area, &entries[i], (origin.0 + x, origin.1 + line_h * r as i32 + line_h / 2), view)?;
        }
    }
    Ok(())
}

/// One legend entry: its swatch from `(x, cy)` on (`cy` the line's middle), then its label.
fn draw_legend_entry<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    entry: &LegendEntry,
    (sx, cy): (i32, i32),
    view: &View,
) -> Result<(), plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    let (line_h, pad, swatch_w) = legend_metrics(view);
    let stroke = entry.color.stroke_width(view.px(2.0));
    match entry.swatch {
        Swatch::Line => area.draw(&PathElement::new(vec![(sx, cy), (sx + swatch_w, cy)], stroke))?,
        Swatch::Dashed => {
            area.draw(&PathElement::new(vec![(sx, cy), (sx + swatch_w / 3, cy)], stroke))?;
            area.draw(&PathElement::new(vec![(sx + 2 * swatch_w / 3, cy), (sx + swatch_w, cy)], stroke))?
        }
        Swatch::Mark => area.draw(&PathElement::new(
            vec![(sx + swatch_w / 2, cy - line_h / 3), (sx + swatch_w / 2, cy + line_h / 3)],
            stroke,
        ))?,
        Swatch::Block => area.draw(&Rectangle::new(
            [(sx, cy - line_h / 3), (sx + swatch_w, cy + line_h / 3)],
            entry.color.mix(0.5).filled(),
        ))?,
        Swatch::Dot => area.draw(&Circle::new((sx + swatch_w / 2, cy), line_h / 4, entry.color.filled()))?,
        Swatch::Ring => area.draw(&Circle::new((sx + swatch_w / 2, cy), line_h / 4, stroke))?,
    }
    area.draw(&Text::new(
        entry.label.clone(),
        (sx + swatch_w + pad, cy),
        legend_font(view).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        )),
    ))?;
    Ok(())
}

/// Draws a legend box along the top or bottom of `area` (plot pixels), over what is drawn there:
/// the trade-off chart's panels, too short for a band of their own on a phone or an inline page.
/// It stands where it covers the fewest of `avoid` (the data's lines, as points in the area's
/// pixels): at the top right when nothing is there.
pub fn draw_legend<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    entries: &[LegendEntry],
    avoid: &[(i32, i32)],
    view: &View,
) -> Result<(), plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    if entries.is_empty() {
        return Ok(());
    }
    let pal = view.theme.palette();
    let font = legend_font(view);
    let (line_h, pad, swatch_w) = legend_metrics(view);
    let mut text_w = 0;
    for entry in entries {
        text_w = text_w.max(area.estimate_text_size(&entry.label, &font)?.0 as i32);
    }
    let (w, h) = area.dim_in_pixel();
    let box_w = pad * 3 + swatch_w + text_w;
    let box_h = pad * 2 + line_h * entries.len() as i32;
    let (x0, y0) = legend_place((w as i32, h as i32), (box_w, box_h), pad, avoid);
    area.draw(&Rectangle::new([(x0, y0), (x0 + box_w, y0 + box_h)], pal.background.mix(0.88).filled()))?;
    area.draw(&Rectangle::new([(x0, y0), (x0 + box_w, y0 + box_h)], pal.grid.stroke_width(1)))?;
    for (i, entry) in entries.iter().enumerate() {
        draw_legend_entry(area, entry, (x0 + pad, y0 + pad + line_h * i as i32 + line_h / 2), view)?;
    }
    Ok(())
}

/// The top-left pixel of a legend box of `size` in a plot of `plot` pixels, `pad` in from its top
/// or bottom edge and anywhere between its sides: where the box holds the fewest of `avoid`.
/// Among places that hold as few, the top is preferred to the bottom and the right to the left.
/// Where neither edge has a clear place (one curve along the top, another along the bottom), the
/// box may stand at any height between them, `pad` pixels at a time, if that holds fewer.
pub fn legend_place(plot: (i32, i32), size: (i32, i32), pad: i32, avoid: &[(i32, i32)]) -> (i32, i32) {
    // A line's width reaches past its points, which may lie a few pixels apart: a margin of clear
    // space around the box (3 CSS pixels, as far apart as the trade-off chart's points).
    let margin = pad / 2;
    let right = (plot.0 - size.0 - pad).max(0);
    let (top, bottom) = (pad, (plot.1 - size.1 - pad).max(pad));
    let between = (top + pad..bottom).step_by(pad.max(1) as usize);
    let mut best = ((right, pad), usize::MAX);
    for (i, y0) in [top, bottom].into_iter().chain(between).enumerate() {
        if i == 2 && best.1 == 0 {
            break;
        }
        // Points of the band the box would stand in, counted by column, then summed from the left.
        let mut before = vec![0usize; plot.0.max(0) as usize + 3];
        for &(x, y) in avoid {
            if (y0 - margin..=y0 + size.1 + margin).contains(&y) {
                before[(x.clamp(-1, plot.0) + 1) as usize] += 1;
            }
        }
        for x in 1..before.len() {
            before[x] += before[x - 1];
        }
        for x0 in (pad.min(right)..=right).rev() {
            let end = ((x0 + size.0 + margin + 1) as usize).min(before.len() - 1);
            let covered = before[end] - before[(x0 - margin).max(0) as usize];
            if covered < best.1 {
                best = ((x0, y0), covered);
            }
        }
    }
    best.0
}

/// Points along the line through `points` (pixels), at most `step` pixels apart: what a legend
/// box must not cover of a line drawn through them.
pub fn points_along(points: impl IntoIterator<Item = (i32, i32)>, step: i32) -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    let mut previous: Option<(i32, i32)> = None;
    for (x, y) in points {
        if let Some((px, py)) = previous {
            let n = ((x - px).abs().max((y - py).abs()) / step.max(1)).max(1);
            out.extend((1..n).map(|i| (px + (x - px) * i / n, py + (y - py) * i / n)));
        }
        out.push((x, y));
        previous = Some((x, y));
    }
    out
}

/// A time axis in seconds since the scenario start whose ticks fall on round clock steps.
pub struct TimeAxis {
    inner: plotters::coord::types::RangedCoordf64,
    ticks: Vec<f64>,
}

impl TimeAxis {
    pub fn new(horizon_s: f64, max_ticks: f64) -> TimeAxis {
        TimeAxis::between(0.0, horizon_s, max_ticks)
    }

    /// An axis from `from_s` to `to_s`, ticks on round steps.
    pub fn between(from_s: f64, to_s: f64, max_ticks: f64) -> TimeAxis {
        let step = tick_step(to_s - from_s, max_ticks);
        let first = (from_s / step).ceil() * step;
        let ticks = (0..).map(|i| first + i as f64 * step).take_while(|t| *t <= to_s + 1e-9).collect();
        TimeAxis { inner: (from_s..to_s).into(), ticks }
    }
}

impl plotters::coord::ranged1d::Ranged for TimeAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        bold_ticks_only(&self.ticks, hint)
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// The axes draw their own round ticks as bold grid lines and no light ones.
fn bold_ticks_only<Hint: plotters::coord::ranged1d::KeyPointHint>(ticks: &[f64], hint: Hint) -> Vec<f64> {
    if hint.weight().allow_light_points() {
        Vec::new()
    } else {
        ticks.to_vec()
    }
}

/// The top of a y axis showing values up to `value`: the next of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6
/// and 8 times a power of ten. An axis moves only when the data crosses one of these, so while
/// the student drags a slider the axis and its labels mostly stay still and the heights can be
/// compared from one value to the next; at most a third is added to what the chart asks for.
pub fn axis_top(value: f64) -> f64 {
    const STEPS: [f64; 11] = [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0];
    if !(value.is_finite() && value > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(value.log10().floor());
    STEPS.iter().map(|s| s * power).find(|top| *top >= value * (1.0 - 1e-12)).unwrap_or(10.0 * power)
}

/// A round tick step (seconds) that puts at most `max_ticks` ticks on a span of `span_s`.
pub fn tick_step(span_s: f64, max_ticks: f64) -> f64 {
    const STEPS: [f64; 13] = [1.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0];
    STEPS.iter().copied().find(|s| span_s / s <= max_ticks).unwrap_or(14_400.0)
}

/// Seconds as a short duration label: "45 s", "2 min", "1.5 min".
pub fn seconds_label(s: f64) -> String {
    if s < 60.0 {
        format!("{} s", (s * 10.0).round() / 10.0)
    } else {
        format!("{} min", (s / 6.0).round() / 10.0)
    }
}

/// A logarithmic axis of seconds with ticks on round durations (1 s, 5 s, 30 s, 1 min, ...).
pub struct LogSecondsAxis {
    from: f64,
    to: f64,
    ticks: Vec<f64>,
}

impl LogSecondsAxis {
    pub fn new(from_s: f64, to_s: f64, compact: bool) -> LogSecondsAxis {
        let candidates: &[f64] = if compact {
            &[1.0, 10.0, 60.0, 600.0, 3600.0]
        } else {
            &[1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0]
        };
        let ticks = candidates.iter().copied().filter(|t| (from_s..=to_s).contains(t)).collect();
        LogSecondsAxis { from: from_s, to: to_s, ticks }
    }
}

impl plotters::coord::ranged1d::Ranged for LogSecondsAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = (value.max(self.from * 1e-3).ln() - self.from.ln()) / (self.to.ln() - self.from.ln());
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        bold_ticks_only(&self.ticks, hint)
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.from..self.to
    }
}

/// What distinguishes one time chart's frame from another's.
pub struct Frame<'t> {
    pub title: &'t str,
    pub x_desc: &'t str,
    pub x: TimeAxis,
    pub start_ms: u64,
    pub y_max: f64,
    pub y_desc: &'t str,
    /// Width of the y label area in CSS pixels.
    pub y_label_px: f64,
    pub y_labels: usize,
    pub y_format: &'t dyn Fn(&f64) -> String,
    /// The legend, drawn in rows above the plot (see [`legend_rows`]).
    pub legend: &'t [LegendEntry],
}

/// A chart over the scenario clock, as every time chart is drawn.
pub type TimeChart<'a, DB> = plotters::chart::ChartContext<
    'a,
    DB,
    plotters::coord::cartesian::Cartesian2d<TimeAxis, plotters::coord::types::RangedCoordf64>,
>;

/// Fills the background and draws the title, the clock axis, the y axis and the grid.
pub fn time_chart<'a, DB: plotters::prelude::DrawingBackend>(
    area: &'a plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    frame: Frame,
    view: &View,
) -> Result<TimeChart<'a, DB>, plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    let pal = view.theme.palette();
    area.fill(&pal.background)?;
    let text = |size: f64| (FontFamily::SansSerif, view.font(size)).into_font().color(&pal.foreground);
    // The title, then the legend in rows, then the plot: the legend hides none of the data. The
    // rows are laid out over the plot's width, known from the margins below.
    let (margin, margin_right, y_label_area) = (view.px(8.0), view.px(24.0), view.px(frame.y_label_px));
    let titled = area.margin(margin, margin, margin, margin_right).titled(frame.title, text(15.0))?;
    let title_bottom = titled.get_base_pixel().1 - area.get_base_pixel().1;
    let plot_w = area.dim_in_pixel().0 as i32 - (margin + margin_right + y_label_area) as i32;
    let rows = legend_rows(area, frame.legend, plot_w, view)?;
    let band = legend_band_px(rows.len(), view);
    let mut chart = ChartBuilder::on(area)
        .margin(margin)
        .margin_right(margin_right)
        .margin_top((title_bottom + band).max(0) as u32)
        .x_label_area_size(view.px(34.0))
        .y_label_area_size(y_label_area)
        .build_cartesian_2d(frame.x, 0f64..frame.y_max)?;
    let plot_left = chart.plotting_area().get_pixel_range().0.start - area.get_base_pixel().0;
    draw_legend_rows(area, frame.legend, &rows, (plot_left, title_bottom), view)?;
    let start_ms = frame.start_ms;
    chart
        .configure_mesh()
        .x_desc(frame.x_desc)
        .y_desc(frame.y_desc)
        .y_labels(frame.y_labels)
        .x_label_formatter(&|x| clock_label(start_ms, *x))
        .y_label_formatter(frame.y_format)
        .label_style(text(11.0))
        .axis_desc_style(text(12.0))
        .axis_style(pal.foreground)
        .bold_line_style(pal.grid)
        .light_line_style(pal.background)
        .draw()?;
    Ok(chart)
}

/// A full-height vertical line at `x` seconds (the crash, the animation's cursor).
pub fn vertical_line<DB: plotters::prelude::DrawingBackend>(
    chart: &mut TimeChart<'_, DB>,
    x: f64,
    color: RGBColor,
    width_css: f64,
    view: &View,
) -> Result<(), plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    let top = chart.y_range().end;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(x, 0.0), (x, top)],
        color.stroke_width(view.px(width_css)),
    )))?;
    Ok(())
}

/// Records where a chart drawn by hand put a span of the scenario clock (the pipeline view's log,
/// whose offsets follow the clock), so a click on it can become a time.
pub fn record_clock_span(axis: AxisPixels) {
    LAST_TIME_AXIS.with(|c| c.set(Some(axis)));
}

/// Records where `chart`'s clock axis lies, so a click or a hover on it can become a time.
pub fn record_time_axis<DB: plotters::prelude::DrawingBackend>(chart: &TimeChart<'_, DB>) {
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let x_range = chart.x_range();
    LAST_TIME_AXIS.with(|c| {
        c.set(Some(AxisPixels {
            x0: xs.start,
            x1: xs.end,
            y0: ys.start,
            y1: ys.end,
            from_s: x_range.start,
            to_s: x_range.end,
        }))
    });
}

/// Every crash of the run on the clock: the failure schedule's and the failures it caused
/// (a fenced producer), as the timeline lists them.
fn crashes(report: &crate::lesson::report::Report) -> Vec<&crate::lesson::timeline::Stamp> {
    use crate::lesson::timeline::TimelineKind;
    report.timeline.iter().filter(|e| e.kind == TimelineKind::Crash).map(|e| &e.at).collect()
}

/// A time chart's legend: `legend`, then the crashes' line when there is one: "crash at
/// 10:00:45", or for several "crashes at 10:00:45, 10:02:00 and 10:02:20" (the first three, and
/// how many more).
pub fn with_crash_entry(
    mut legend: Vec<LegendEntry>,
    report: &crate::lesson::report::Report,
    view: &View,
) -> Vec<LegendEntry> {
    let crashes = crashes(report);
    let label = match crashes.as_slice() {
        [] => return legend,
        [one] => format!("crash at {}", one.at),
        [first, second] => format!("crashes at {} and {}", first.at, second.at),
        [first, second, third] => format!("crashes at {}, {} and {}", first.at, second.at, third.at),
        [first, second, third, rest @ ..] => {
            format!("crashes at {}, {}, {} and {} more", first.at, second.at, third.at, rest.len())
        }
    };
    legend.push(LegendEntry::new(label, view.theme.palette().vermillion, Swatch::Mark));
    legend
}

/// What every time chart ends with: a line at each crash and the animation's cursor (the legend,
/// with the crashes' entry from [`with_crash_entry`], is drawn with the frame).
pub fn finish_time_chart<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    mut chart: TimeChart<'_, DB>,
    report: &crate::lesson::report::Report,
    view: &View,
) -> Result<(), plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = view.theme.palette();
    record_time_axis(&chart);
    for crash in crashes(report) {
        vertical_line(&mut chart, crash.s, pal.vermillion, 2.0, view)?;
    }
    if let Some(cursor) = view.cursor_s {
        vertical_line(&mut chart, cursor, pal.foreground, 1.0, view)?;
    }
    area.present()
}
