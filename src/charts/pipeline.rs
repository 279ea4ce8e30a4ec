//! The pipeline at the cursor: the partitions as logs (log end, reader position, barrier in
//! flight, the last completed checkpoint's offsets and what a recovery replays) on a window of the
//! log that stays put while time passes, each partition's channel to the operator with the records
//! and the barrier travelling down it (blocked, its records held, once an aligned operator has its
//! barrier), the operator (dedupe and window, its state, inputs held for alignment, the restore
//! filling it), the checkpoint store (completed checkpoints, the snapshot on its way up, the
//! restore on its way back) or in micro-batch mode the offset log, the batch and the commit log,
//! the job's status, and the four sinks with their rows on the way, duplicates and what a reader
//! sees. Drawn from the world at the cursor, which the report's trace answers without simulating
//! again; what moves is [`super::flow`].

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::flow::{flow, log_window_ms, log_window_of, Channel, Flow};
use super::{Focus, Palette, TextAlternative, View};
use crate::engine::fast::world_index::WorldIndex;
use crate::engine::model::sinks::SinkDesign;
use crate::engine::model::source::SourceLog;
use crate::engine::model::trace::Phase;
use crate::engine::model::world::{BatchStage, CheckpointStage, World};
use crate::engine::settings::clock::ClockTime;
use crate::engine::settings::config::Alignment;
use crate::engine::settings::config::Config;
use crate::engine::settings::table::{format_unit, Unit};
use crate::engine::settings::units::{format_bytes, format_count};
use crate::lesson::pipeline::PipelinePreview;
use crate::lesson::pipeline::{default_cursor_ms, description, status};
use crate::lesson::report::{CheckpointSummary, LoggedBatch};
use crate::lesson::timeline::TimelineEntry;
use crate::lesson::Report;

pub const TITLE: &str = "The pipeline at the cursor";

type Result<DB> = std::result::Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// What the view is drawn from: a run's settings, its world at any instant, and what the view
/// looks up there (the completed checkpoints, the offset log, the crash's offsets, and the
/// timeline, for the next barrier). A whole run's report gives them ([`Scene::of`]), and so does a run stopped where the
/// view first stands, with no report at all ([`crate::lesson::pipeline::PipelinePreview`]): a page's
/// first picture, before the whole first run is ready.
#[derive(Clone, Copy)]
pub struct Scene<'a> {
    pub config: &'a Config,
    pub world: &'a WorldIndex,
    pub checkpoints: &'a [CheckpointSummary],
    /// The readers' offsets per partition at the crash.
    pub crash_offsets: Option<&'a [u64]>,
    pub offset_log: &'a [LoggedBatch],
    pub timeline: &'a [TimelineEntry],
    /// The sink design the student chose to follow: its box stands out.
    pub highlight: SinkDesign,
}

impl<'a> Scene<'a> {
    /// The scene of a whole run.
    pub fn of(report: &'a Report) -> Scene<'a> {
        Scene {
            config: &report.config,
            world: &report.world,
            checkpoints: &report.checkpoints,
            crash_offsets: report.crash.as_ref().map(|c| c.offsets.as_slice()),
            offset_log: &report.offset_log,
            timeline: &report.timeline,
            highlight: Focus::default().sink,
        }
    }

    /// The scene of a run stopped where the view first stands.
    pub fn preview(preview: &'a PipelinePreview) -> Scene<'a> {
        Scene {
            config: &preview.config,
            world: &preview.world,
            checkpoints: &preview.checkpoints,
            crash_offsets: preview.crash_offsets.as_deref(),
            offset_log: &preview.offset_log,
            timeline: &preview.timeline,
            highlight: Focus::default().sink,
        }
    }

    /// The same scene with `sink`'s box standing out.
    pub fn highlighting(self, sink: SinkDesign) -> Scene<'a> {
        Scene { highlight: sink, ..self }
    }
}

/// A pen for text on one area: sizes in CSS pixels, anchored left and top unless told.
struct Pen<'a, DB: DrawingBackend> {
    area: &'a DrawingArea<DB, Shift>,
    view: &'a View,
    pal: Palette,
}

impl<DB: DrawingBackend> Pen<'_, DB> {
    fn font(&self, size: f64, color: RGBColor) -> TextStyle<'static> {
        (FontFamily::SansSerif, self.view.font(size)).into_font().color(&color)
    }

    /// Writes `text` at (x, y), cut with an ellipsis to fit `max_w` pixels.
    #[allow(clippy::too_many_arguments)]
    fn text(&self, text: &str, x: i32, y: i32, size: f64, color: RGBColor, max_w: i32, h: HPos) -> Result<DB> {
        let font = self.font(size, color);
        let mut shown = text.to_string();
        while shown.chars().count() > 1 && self.area.estimate_text_size(&shown, &font)?.0 as i32 > max_w {
            let keep = shown.chars().count() - 2;
            shown = shown.chars().take(keep).collect::<String>() + "…";
        }
        self.area.draw(&Text::new(shown, (x, y), font.pos(Pos::new(h, VPos::Top))))
    }

    fn rect(&self, x0: i32, y0: i32, x1: i32, y1: i32, color: RGBColor, alpha: f64) -> Result<DB> {
        self.area.draw(&Rectangle::new([(x0, y0), (x1, y1)], color.mix(alpha).filled()))
    }

    fn frame(&self, x0: i32, y0: i32, x1: i32, y1: i32, color: RGBColor, width_css: f64) -> Result<DB> {
        self.area.draw(&Rectangle::new([(x0, y0), (x1, y1)], color.stroke_width(self.view.px(width_css))))
    }

    fn line(&self, from: (i32, i32), to: (i32, i32), color: impl Color, width_css: f64) -> Result<DB> {
        self.area.draw(&PathElement::new(vec![from, to], color.stroke_width(self.view.px(width_css))))
    }

    fn arrow(&self, from: (i32, i32), to: (i32, i32)) -> Result<DB> {
        let color = self.pal.foreground.mix(0.6);
        let head = f64::from(self.view.px(5.0));
        self.area.draw(&PathElement::new(vec![from, to], color.stroke_width(self.view.px(1.5))))?;
        // The head's two strokes, back from the tip along the arrow and to either side.
        let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
        let len = dx.hypot(dy).max(1.0);
        let (ux, uy) = (dx / len * head, dy / len * head);
        let side = |sign: f64| {
            ((f64::from(to.0) - ux - sign * uy).round() as i32, (f64::from(to.1) - uy + sign * ux).round() as i32)
        };
        self.area.draw(&PathElement::new(vec![side(1.0), to, side(-1.0)], color))
    }

    fn px(&self, css: f64) -> i32 {
        self.view.px(css) as i32
    }
}

/// A box: (left, top, right, bottom) in backend pixels.
#[derive(Clone, Copy)]
struct Rect {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
}

impl Rect {
    fn w(&self) -> i32 {
        self.x1 - self.x0
    }
}

#[inline(never)]
pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, scene: &Scene<'_>, view: &View) -> Result<DB> {
    let pal = view.theme.palette();
    area.fill(&pal.background)?;
    let world = scene.world.at(crate::lesson::pipeline::cursor_ms(scene.config, view.cursor_s));
    let flow = flow(scene.config, &world);
    let pen = Pen { area, view, pal };
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    let m = pen.px(10.0);
    let header = draw_header(&pen, scene, &world, Rect { x0: m, y0: m, x1: w - m, y1: h }, view.compact)?;
    let top = header + pen.px(6.0);
    let channel = pen.px(24.0);
    if view.compact {
        // Stacked: the source, its channels down into the operator beside the store, then the
        // sinks two by two.
        let sinks_h = pen.px(132.0);
        let middle_h = pen.px(100.0);
        let source = Rect { x0: m, y0: top, x1: w - m, y1: h - m - sinks_h - middle_h - 2 * channel };
        let rows = draw_source(&pen, scene, &world, source)?;
        let my = source.y1 + channel;
        let gap = pen.px(16.0);
        let half = (w - 2 * m - gap) / 2;
        let operator = Rect { x0: m, y0: my, x1: m + half, y1: my + middle_h };
        let store = Rect { x0: w - m - half, y0: my, x1: w - m, y1: my + middle_h };
        draw_operator(&pen, scene, &world, &flow, operator)?;
        draw_store(&pen, scene, &world, store)?;
        let drawn = rows.len().max(1) as i32;
        for (i, &(p, _)) in rows.iter().enumerate() {
            let x = operator.x0 + (2 * i as i32 + 1) * operator.w() / (2 * drawn);
            draw_channel(&pen, scene, &flow.channels[p], (x, source.y1 + pen.px(2.0)), (x, my - pen.px(2.0)))?;
        }
        let y = operator.y0 + middle_h / 2;
        draw_snapshot(&pen, &flow, (operator.x1 + pen.px(2.0), y), (store.x0 - pen.px(2.0), y))?;
        let sy = my + middle_h + channel;
        let x = operator.x0 + operator.w() / 2;
        draw_to_sinks(&pen, &flow, (x, operator.y1 + pen.px(2.0)), (x, sy - pen.px(2.0)))?;
        draw_sinks(&pen, scene, &world, Rect { x0: m, y0: sy, x1: w - m, y1: h - m }, 2)?;
    } else {
        let source = Rect { x0: m, y0: top, x1: (w as f64 * 0.35) as i32, y1: h - m };
        let mid = Rect { x0: (w as f64 * 0.46) as i32, y0: top, x1: (w as f64 * 0.69) as i32, y1: h - m };
        let sinks = Rect { x0: (w as f64 * 0.75) as i32, y0: top, x1: w - m, y1: h - m };
        let rows = draw_source(&pen, scene, &world, source)?;
        let split = mid.y0 + (mid.y1 - mid.y0) * 45 / 100;
        let operator = Rect { y1: split - channel / 2, ..mid };
        let store = Rect { y0: split + channel / 2, ..mid };
        draw_operator(&pen, scene, &world, &flow, operator)?;
        draw_store(&pen, scene, &world, store)?;
        // Each drawn partition's channel, from its log to the operator's edge.
        let drawn = rows.len().max(1) as i32;
        let inner = operator.y1 - operator.y0 - pen.px(16.0);
        for (i, &(p, y)) in rows.iter().enumerate() {
            let to_y = operator.y0 + pen.px(8.0) + (2 * i as i32 + 1) * inner / (2 * drawn);
            draw_channel(&pen, scene, &flow.channels[p], (source.x1 + pen.px(6.0), y), (mid.x0 - pen.px(2.0), to_y))?;
        }
        let x = mid.x0 + mid.w() / 2;
        draw_snapshot(&pen, &flow, (x, operator.y1 + pen.px(2.0)), (x, store.y0 - pen.px(2.0)))?;
        let arrow_y = mid.y0 + (split - mid.y0) / 2;
        draw_to_sinks(&pen, &flow, (mid.x1 + pen.px(3.0), arrow_y), (sinks.x0 - pen.px(3.0), arrow_y))?;
        draw_sinks(&pen, scene, &world, sinks, 1)?;
    }
    area.present()
}

/// The point a share `s` of the way from `from` to `to`.
fn along(from: (i32, i32), to: (i32, i32), s: f64) -> (i32, i32) {
    let lerp = |a: i32, b: i32| a + (f64::from(b - a) * s).round() as i32;
    (lerp(from.0, to.0), lerp(from.1, to.1))
}

/// A short stroke across the path from `from` to `to` at `at`, `half` pixels each side.
fn across(from: (i32, i32), to: (i32, i32), at: (i32, i32), half: i32) -> [(i32, i32); 2] {
    let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
    let len = dx.hypot(dy).max(1.0);
    let (nx, ny) = ((-dy / len * f64::from(half)).round() as i32, (dx / len * f64::from(half)).round() as i32);
    [(at.0 - nx, at.1 - ny), (at.0 + nx, at.1 + ny)]
}

/// The records' colour: Okabe-Ito blue, or on the dark background its sky blue.
fn record_color(pen: &Pen<'_, impl DrawingBackend>) -> RGBColor {
    if pen.view.theme == super::Theme::Dark {
        pen.pal.sky
    } else {
        pen.pal.blue
    }
}

/// One partition's channel to the operator: its records on the way, the barrier travelling
/// down it, or, once the barrier is in and the operator aligns, the channel blocked with the
/// records held behind the barrier.
fn draw_channel<DB: DrawingBackend>(
    pen: &Pen<'_, DB>,
    scene: &Scene<'_>,
    channel: &Channel,
    from: (i32, i32),
    to: (i32, i32),
) -> Result<DB> {
    let pal = pen.pal;
    let held = channel.held_marks(scene.config);
    if held > 0 {
        pen.line(from, to, pal.orange, 1.5)?;
    } else {
        pen.line(from, to, pal.foreground.mix(0.25), 1.0)?;
    }
    let dot = pen.px(2.5) as u32;
    for &s in &channel.records {
        pen.area.draw(&Circle::new(along(from, to, s), dot, record_color(pen).filled()))?;
    }
    if held > 0 {
        // The barrier waits at the operator's door; the held records queue behind it.
        let door = along(from, to, 0.97);
        pen.area
            .draw(&PathElement::new(across(from, to, door, pen.px(5.0)), pal.yellow.stroke_width(pen.view.px(3.0))))?;
        let len = f64::from(to.0 - from.0).hypot(f64::from(to.1 - from.1)).max(1.0);
        let step = f64::from(pen.px(6.0)) / len;
        let side = pen.px(2.0);
        for k in 0..held {
            let (x, y) = along(from, to, 0.97 - step * (k as f64 + 1.0));
            pen.rect(x - side, y - side, x + side, y + side, pal.orange, 0.9)?;
        }
    }
    if let Some(s) = channel.barrier {
        let at = along(from, to, s);
        pen.area
            .draw(&PathElement::new(across(from, to, at, pen.px(6.0)), pal.yellow.stroke_width(pen.view.px(3.0))))?;
    }
    Ok(())
}

/// The snapshot on its way from the operator to the checkpoint store, or the restore on its way
/// back; a plain link between the two otherwise.
fn draw_snapshot<DB: DrawingBackend>(pen: &Pen<'_, DB>, flow: &Flow, from: (i32, i32), to: (i32, i32)) -> Result<DB> {
    let pal = pen.pal;
    pen.line(from, to, pal.green.mix(0.6), 1.0)?;
    let side = pen.px(4.0);
    if let Some(s) = flow.snapshot {
        let (x, y) = along(from, to, s);
        pen.rect(x - side, y - side, x + side, y + side, record_color(pen), 1.0)?;
    }
    if let Some(s) = flow.restore {
        let (x, y) = along(to, from, s);
        pen.rect(x - side, y - side, x + side, y + side, pal.vermillion, 1.0)?;
    }
    Ok(())
}

/// The arrow from the operator to the sinks, with the rows on their way.
fn draw_to_sinks<DB: DrawingBackend>(pen: &Pen<'_, DB>, flow: &Flow, from: (i32, i32), to: (i32, i32)) -> Result<DB> {
    pen.arrow(from, to)?;
    let dot = pen.px(2.5) as u32;
    for &s in &flow.to_sinks {
        pen.area.draw(&Circle::new(along(from, to, s * 0.9), dot, pen.pal.purple.filled()))?;
    }
    Ok(())
}

/// The clock, the status word with its numbers, and the readers' position; returns its bottom.
fn draw_header<DB: DrawingBackend>(
    pen: &Pen<'_, DB>,
    scene: &Scene<'_>,
    world: &World,
    r: Rect,
    compact: bool,
) -> std::result::Result<i32, DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = pen.pal;
    let status = status(world, scene.config);
    let color = match world.phase {
        Phase::Detecting | Phase::Restarting | Phase::Restoring | Phase::Failed => pal.vermillion,
        Phase::Replaying | Phase::CatchingUp => pal.orange,
        // Okabe-Ito blue is too dark to read on the dark background; its sky blue is not.
        _ if world.checkpoint.is_some() || world.batch.is_some() => {
            if pen.view.theme == super::Theme::Dark {
                pal.sky
            } else {
                pal.blue
            }
        }
        _ => pal.green,
    };
    let clock = ClockTime(world.at_ms).to_string();
    let clock_w = pen.area.estimate_text_size(&clock, &pen.font(17.0, pal.foreground))?.0 as i32;
    pen.text(&clock, r.x0, r.y0, 17.0, pal.foreground, r.w(), HPos::Left)?;
    let dot = pen.px(6.0);
    let sx = r.x0 + clock_w + pen.px(12.0);
    pen.area.draw(&Circle::new((sx + dot, r.y0 + pen.px(10.0)), dot as u32, color.filled()))?;
    let wx = sx + 2 * dot + pen.px(6.0);
    let line2 = r.y0 + pen.px(24.0);
    if compact {
        pen.text(status.word, wx, r.y0 + pen.px(2.0), 14.0, color, r.x1 - wx, HPos::Left)?;
        if status.detail != status.word {
            // On a narrow canvas the sentence may take two lines, broken after a colon or semicolon.
            let font = pen.font(12.0, pal.foreground);
            let fits = |t: &str| pen.area.estimate_text_size(t, &font).map(|(w, _)| w as i32 <= r.w());
            let (first, second) = if fits(&status.detail)? {
                (status.detail.as_str(), "")
            } else {
                let split = status
                    .detail
                    .match_indices([':', ';'])
                    .map(|(i, _)| i + 1)
                    .rfind(|&i| fits(&status.detail[..i]).unwrap_or(false));
                match split {
                    Some(i) => (&status.detail[..i], status.detail[i..].trim_start()),
                    None => (status.detail.as_str(), ""),
                }
            };
            pen.text(first, r.x0, line2, 12.0, pal.foreground, r.w(), HPos::Left)?;
            if !second.is_empty() {
                pen.text(second, r.x0, line2 + pen.px(16.0), 12.0, pal.foreground, r.w(), HPos::Left)?;
                let y3 = line2 + pen.px(34.0);
                return draw_position(pen, world, r, y3);
            }
        }
    } else {
        pen.text(&status.detail, wx, r.y0 + pen.px(2.0), 14.0, color, r.x1 - wx, HPos::Left)?;
    }
    let y3 = if compact { line2 + pen.px(18.0) } else { line2 };
    draw_position(pen, world, r, y3)
}

/// The readers' position, the log end and the lag; returns the header's bottom.
fn draw_position<DB: DrawingBackend>(
    pen: &Pen<'_, DB>,
    world: &World,
    r: Rect,
    y: i32,
) -> std::result::Result<i32, DrawingAreaErrorKind<DB::ErrorType>> {
    let position = format!(
        "readers at offset {} · log end {} · lag {} events",
        format_count(world.position),
        format_count(world.log_end),
        format_count(world.lag_events)
    );
    pen.text(&position, r.x0, y, 12.0, pen.pal.foreground, r.w(), HPos::Left)?;
    Ok(y + pen.px(16.0))
}

/// The partitions as logs on one scale of offsets, fixed for a page of the scenario clock
/// ([`super::flow::log_window`]); returns each drawn partition with the middle of its row.
fn draw_source<DB: DrawingBackend>(
    pen: &Pen<'_, DB>,
    scene: &Scene<'_>,
    world: &World,
    r: Rect,
) -> std::result::Result<Vec<(usize, i32)>, DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = pen.pal;
    let config = scene.config;
    let partitions = world.offsets.len().max(1);
    let legend_h = pen.px(30.0);
    let top = r.y0 + pen.px(18.0);
    let bottom = r.y1 - legend_h;
    // A row is at least 3 px tall: with more partitions than fit, every k-th one is drawn (their
    // shares fall off smoothly, so the drawn ones show the spread), which also keeps it short.
    let fit = usize::try_from((bottom - top) / pen.px(3.0).max(1)).unwrap_or(1).max(1);
    let every = partitions.div_ceil(fit);
    let drawn = partitions.div_ceil(every);
    let sampled = if every > 1 { format!(" (one in {every} drawn)") } else { String::new() };
    pen.text(
        &format!("source log: {} partitions{sampled}, {} events/s", partitions, format_count(config.rate_per_s)),
        r.x0,
        r.y0,
        12.0,
        pal.foreground,
        r.w(),
        HPos::Left,
    )?;
    let row = ((bottom - top) / drawn as i32).max(2);
    let bar_h = (row * 7 / 10).max(1).min(pen.px(14.0));
    let label_w = pen.px(26.0);
    let (bx0, bx1) = (r.x0 + label_w, r.x1);
    // Every partition over the same page of the clock: a row's width is the offsets its partition
    // received in that time, so the rows' times line up and a busier partition's offsets are
    // packed tighter; its log is drawn thicker, in proportion to its share of the events.
    let log = SourceLog::new(config);
    let (from_total, to_total) = log_window_of(&log, config, world.at_ms);
    let wheel = log.wheel();
    let busiest = (0..partitions as u64).map(|p| wheel.weight(p)).max().unwrap_or(1);
    // The log's offsets follow the clock: its width is the page of the clock the window shows,
    // where a click picks the instant to crash at.
    let (from_ms, to_ms) = log_window_ms(config, world.at_ms);
    let since_start_s = |ms: u64| ms.saturating_sub(config.start_time_ms) as f64 / 1000.0;
    super::record_clock_span(super::AxisPixels {
        x0: bx0,
        x1: bx1,
        y0: top,
        y1: bottom,
        from_s: since_start_s(from_ms),
        to_s: since_start_s(to_ms),
    });
    let x_in = |p: usize| {
        let lo = log.partition_end(from_total, p as u64);
        let span = log.partition_end(to_total, p as u64).saturating_sub(lo).max(1);
        move |offset: u64| {
            let share = (offset.saturating_sub(lo) as f64 / span as f64).min(1.0);
            bx0 + (share * f64::from(bx1 - bx0)) as i32
        }
    };
    let barrier = world.checkpoint.as_ref();
    let batch_end = world
        .batch
        .as_ref()
        .and_then(|b| scene.offset_log.iter().rev().find(|e| e.batch_id == b.batch_id))
        .map(|e| &e.end_offsets);
    let completed = scene.checkpoints.iter().rev().find(|c| Some(&c.id) == world.completed.last());
    let crash_offsets = world.crash.as_ref().filter(|_| !world.caught_up()).and(scene.crash_offsets);
    // Labels at least 13 CSS pixels apart: every row's on a wide view, every second or third
    // row's where the rows are packed (a phone), so that none touches the next.
    let label_every = (pen.px(13.0) + row - 1) / row;
    let label_every = label_every.max(1) as usize;
    let mut rows = Vec::with_capacity(drawn);
    for (i, p) in (0..partitions).step_by(every).enumerate() {
        let y = top + row * i as i32;
        let x = x_in(p);
        // The busiest partition's log is the full bar's height; a quieter one's its share of it.
        let h = (i64::from(bar_h) * wheel.weight(p as u64) as i64 / busiest as i64) as i32;
        let h = h.max(pen.px(2.0).min(bar_h));
        let (yb0, yb1) = (y + (bar_h - h) / 2, y + (bar_h - h) / 2 + h);
        rows.push((p, y + bar_h / 2));
        if i % label_every == 0 && row * label_every as i32 >= pen.px(9.0) {
            pen.text(
                &format!("p{p}"),
                r.x0,
                y + (bar_h - pen.px(10.0)) / 2,
                10.0,
                pal.foreground,
                label_w,
                HPos::Left,
            )?;
        }
        let end = world.log_ends.get(p).copied().unwrap_or(0);
        let offset = world.offsets.get(p).copied().unwrap_or(0);
        // The page's room for the log still to come, then the log written so far.
        pen.rect(bx0, yb0, bx1, yb1, pal.grid, 0.35)?;
        pen.rect(bx0, yb0, x(end), yb1, pal.grid, 1.0)?;
        pen.rect(bx0, yb0, x(offset), yb1, pal.blue, 0.75)?;
        if offset < end {
            pen.rect(x(offset), yb0, x(end), yb1, pal.orange, 0.35)?;
        }
        // What the recovery replays: from the restored checkpoint's offset to the crash offset.
        if let (Some(c), Some(crash)) = (world.crash.as_ref(), crash_offsets) {
            let from = scene.checkpoints.iter().rev().find(|k| k.id == c.restore_from).and_then(|k| k.offsets.get(p));
            if let (Some(&from), Some(&to)) = (from, crash.get(p)) {
                pen.frame(x(from), yb0, x(to).max(x(from) + 1), yb1, pal.vermillion, 1.0)?;
            }
        }
        if let Some(&o) = completed.and_then(|c| c.offsets.get(p)) {
            pen.line((x(o), yb0 - pen.px(2.0)), (x(o), yb1 + pen.px(2.0)), pal.green, 2.0)?;
        }
        // The barrier of the checkpoint in flight, at the offsets it will restore once complete;
        // in micro-batch mode, where the batch in progress ends (its offset-log entry).
        if let Some(&o) = barrier.and_then(|b| b.barrier_offsets.get(p)).or(batch_end.and_then(|e| e.get(p))) {
            pen.line((x(o), yb0 - pen.px(3.0)), (x(o), yb1 + pen.px(3.0)), pal.yellow, 3.0)?;
        }
        pen.line((x(offset), yb0 - pen.px(2.0)), (x(offset), yb1 + pen.px(2.0)), pal.foreground, 1.5)?;
    }
    // The legend under the logs.
    let ly = bottom + pen.px(4.0);
    let sw = pen.px(10.0);
    let mut lx = bx0;
    let micro_batch = config.mode.runs_batches();
    let items: [(&str, RGBColor, f64); 5] = [
        ("read", pal.blue, 0.75),
        ("lag", pal.orange, 0.35),
        (if micro_batch { "batch end" } else { "barrier" }, pal.yellow, 1.0),
        ("checkpoint", pal.green, 1.0),
        ("to replay", pal.vermillion, 1.0),
    ];
    for (label, color, alpha) in items {
        let font = pen.font(10.0, pal.foreground);
        let tw = pen.area.estimate_text_size(label, &font)?.0 as i32;
        if lx + sw + tw + pen.px(4.0) > r.x1 {
            break;
        }
        pen.rect(lx, ly + pen.px(2.0), lx + sw, ly + pen.px(10.0), color, alpha)?;
        pen.text(label, lx + sw + pen.px(3.0), ly, 10.0, pal.foreground, tw + pen.px(2.0), HPos::Left)?;
        lx += sw + tw + pen.px(12.0);
    }
    let (from_ms, to_ms) = (ClockTime(from_ms), ClockTime(to_ms));
    let scale = if wheel.is_even() {
        format!("each log: offsets from {from_ms} to {to_ms}")
    } else {
        // The wheel's own ratio, the setting rounded to its slots.
        let last = partitions as u64 - 1;
        let ratio = wheel.weight(0) as f64 / wheel.weight(last) as f64;
        format!(
            "each log: {from_ms} to {to_ms}; thicker = busier (p0 {} p{last})",
            format_unit(Unit::Factor, (ratio * 100.0).round() / 100.0)
        )
    };
    pen.text(&scale, bx0, ly + pen.px(13.0), 10.0, pal.foreground, bx1 - bx0, HPos::Left)?;
    Ok(rows)
}

/// The operator: dedupe and window, its state, and inputs held or records in flight.
fn draw_operator<DB: DrawingBackend>(
    pen: &Pen<'_, DB>,
    scene: &Scene<'_>,
    world: &World,
    flow: &Flow,
    r: Rect,
) -> Result<DB> {
    let pal = pen.pal;
    let config = scene.config;
    let down = matches!(world.phase, Phase::Detecting | Phase::Restarting | Phase::Restoring);
    pen.rect(r.x0, r.y0, r.x1, r.y1, if down { pal.vermillion } else { pal.sky }, 0.12)?;
    // The restore fills the operator with the restored state from the bottom up.
    if let Some(loaded) = flow.restore {
        let top = r.y1 - (f64::from(r.y1 - r.y0) * loaded).round() as i32;
        pen.rect(r.x0, top, r.x1, r.y1, pal.sky, 0.35)?;
    }
    pen.frame(r.x0, r.y0, r.x1, r.y1, if down { pal.vermillion } else { pal.sky }, 1.5)?;
    let (x, w) = (r.x0 + pen.px(6.0), r.w() - pen.px(12.0));
    let mut y = r.y0 + pen.px(5.0);
    let line = pen.px(15.0);
    pen.text("operator: dedupe + window", x, y, 12.0, pal.foreground, w, HPos::Left)?;
    y += line + pen.px(2.0);
    if down {
        pen.text("down: state lost", x, y, 12.0, pal.vermillion, w, HPos::Left)?;
        y += line;
        if let Some(restore) = &world.restore {
            pen.text(
                &format!(
                    "loading {} of {}",
                    format_bytes(restore.done_bytes as f64),
                    format_bytes(restore.total_bytes as f64)
                ),
                x,
                y,
                11.0,
                pal.foreground,
                w,
                HPos::Left,
            )?;
        }
        return Ok(());
    }
    let window = world.open_window_start_ms;
    pen.text(
        &format!("window {}–{} open", ClockTime(window), ClockTime(window + config.window_ms)),
        x,
        y,
        11.0,
        pal.foreground,
        w,
        HPos::Left,
    )?;
    y += line;
    pen.text(
        &format!("state {} · {} seen ids", format_bytes(config.state_bytes as f64), format_count(world.seen_ids)),
        x,
        y,
        11.0,
        pal.foreground,
        w,
        HPos::Left,
    )?;
    y += line;
    match &world.checkpoint {
        Some(c) if c.aligning => {
            pen.text("holding inputs whose barrier arrived", x, y, 11.0, pal.orange, w, HPos::Left)?;
        }
        Some(c) if config.alignment == Alignment::Unaligned && config.backpressure_ms > 0 => {
            let stored = scene.checkpoints.iter().find(|k| k.id == c.checkpoint_id).map_or(0, |k| k.in_flight_bytes);
            pen.text(
                &format!("in-flight records stored: {}", format_bytes(stored as f64)),
                x,
                y,
                11.0,
                pal.orange,
                w,
                HPos::Left,
            )?;
        }
        Some(c) if c.stage == CheckpointStage::SyncPause => {
            pen.text(&format!("paused: snapshot {}", c.checkpoint_id), x, y, 11.0, pal.vermillion, w, HPos::Left)?;
        }
        _ => {
            let rate = if matches!(world.phase, Phase::Replaying | Phase::CatchingUp) {
                format!("reading at capacity, {} events/s", format_count(config.capacity_per_s))
            } else if world.phase == Phase::WaitingForTrigger {
                "idle until the next trigger".to_string()
            } else if let Some(b) = world.batch.as_ref().filter(|b| b.stage == BatchStage::Processing) {
                format!("processing batch {} at {} events/s", b.batch_id, format_count(config.capacity_per_s))
            } else {
                format!("keeping up with {} events/s", format_count(config.rate_per_s))
            };
            pen.text(&rate, x, y, 11.0, pal.foreground, w, HPos::Left)?;
        }
    }
    Ok(())
}

/// The checkpoint store (barrier mode) or the offset log, state store and commit log (micro-batch).
fn draw_store<DB: DrawingBackend>(pen: &Pen<'_, DB>, scene: &Scene<'_>, world: &World, r: Rect) -> Result<DB> {
    let pal = pen.pal;
    pen.rect(r.x0, r.y0, r.x1, r.y1, pal.green, 0.08)?;
    pen.frame(r.x0, r.y0, r.x1, r.y1, pal.green, 1.5)?;
    let (x, w) = (r.x0 + pen.px(6.0), r.w() - pen.px(12.0));
    let mut y = r.y0 + pen.px(5.0);
    let line = pen.px(15.0);
    let micro_batch = scene.config.mode.runs_batches();
    pen.text(
        if micro_batch { "checkpoint location" } else { "checkpoint store" },
        x,
        y,
        12.0,
        pal.foreground,
        w,
        HPos::Left,
    )?;
    y += line + pen.px(2.0);
    // The newest completed checkpoints (committed batches) as chips.
    let label = if micro_batch { "committed" } else { "completed" };
    let recent: Vec<String> = world.completed.iter().rev().take(4).rev().map(u64::to_string).collect();
    pen.text(&format!("{label}: {}", recent.join(" · ")), x, y, 11.0, pal.green, w, HPos::Left)?;
    y += line;
    let bar = |y: i32, done: u64, total: u64, color: RGBColor, text: String| -> Result<DB> {
        let bh = pen.px(12.0);
        pen.rect(x, y, x + w, y + bh, pal.grid, 1.0)?;
        let filled = if total == 0 { 0 } else { (w as f64 * done as f64 / total as f64) as i32 };
        pen.rect(x, y, x + filled, y + bh, color, 0.8)?;
        pen.text(&text, x, y + bh + pen.px(2.0), 11.0, pal.foreground, w, HPos::Left)
    };
    if let Some(restore) = &world.restore {
        let what = if micro_batch { "state of batch" } else { "checkpoint" };
        return bar(
            y,
            restore.done_bytes,
            restore.total_bytes,
            pal.vermillion,
            format!(
                "restoring {what} {}: {} of {}",
                restore.restore_from,
                format_bytes(restore.done_bytes as f64),
                format_bytes(restore.total_bytes as f64)
            ),
        );
    }
    if micro_batch {
        match &world.batch {
            Some(b) => {
                let stage = match b.stage {
                    BatchStage::WritingOffsetLog => "writing the offset log",
                    BatchStage::Processing => "processing",
                    BatchStage::Committing => "state store, then commit log",
                };
                pen.text(
                    &format!(
                        "offset log: batch {} [{}–{}]",
                        b.batch_id,
                        format_count(b.start_offset),
                        format_count(b.end_offset)
                    ),
                    x,
                    y,
                    11.0,
                    pal.foreground,
                    w,
                    HPos::Left,
                )?;
                y += line;
                let done = world.position.saturating_sub(b.start_offset);
                let total = b.end_offset.saturating_sub(b.start_offset);
                let done = if b.stage == BatchStage::Committing { total } else { done.min(total) };
                bar(y, done, total.max(1), pal.blue, format!("batch {}: {stage}", b.batch_id))?;
            }
            None => {
                let last = world.completed.last().copied().unwrap_or(0);
                pen.text(
                    &format!("commit log: batch {last} · state store version {last}"),
                    x,
                    y,
                    11.0,
                    pal.foreground,
                    w,
                    HPos::Left,
                )?;
            }
        }
        return Ok(());
    }
    match &world.checkpoint {
        Some(c) => match c.stage {
            CheckpointStage::Uploading { done_bytes, size_bytes } => bar(
                y,
                done_bytes,
                size_bytes,
                pal.blue,
                format!(
                    "upload {}: {} of {}",
                    c.checkpoint_id,
                    format_bytes(done_bytes as f64),
                    format_bytes(size_bytes as f64)
                ),
            ),
            stage => bar(
                y,
                0,
                1,
                pal.blue,
                format!(
                    "checkpoint {}: {}",
                    c.checkpoint_id,
                    crate::lesson::pipeline::checkpoint_stage(stage, c.aligning)
                ),
            ),
        },
        None => {
            let Some(next) = scene
                .timeline
                .iter()
                .find(|e| e.kind == crate::lesson::timeline::TimelineKind::Barrier && e.at.ms > world.at_ms)
            else {
                return Ok(());
            };
            pen.text(&format!("next barrier at {}", next.at.at), x, y, 11.0, pal.foreground, w, HPos::Left)?;
            // While the job is down the next barrier belongs to the restarted job.
            if matches!(world.phase, Phase::Detecting | Phase::Restarting | Phase::Restoring) {
                pen.text("after the restart", x, y + pen.px(15.0), 11.0, pal.foreground, w, HPos::Left)?;
            }
            Ok(())
        }
    }
}

/// The four sinks: rows, duplicates, and what a reader sees now.
fn draw_sinks<DB: DrawingBackend>(
    pen: &Pen<'_, DB>,
    scene: &Scene<'_>,
    world: &World,
    r: Rect,
    columns: i32,
) -> Result<DB> {
    let pal = pen.pal;
    let s = &world.sinks;
    let last = world.completed.last().copied().unwrap_or(0);
    let replaying = matches!(world.phase, Phase::Replaying | Phase::CatchingUp);
    let micro_batch = scene.config.mode.runs_batches();
    let point = if micro_batch { "batch" } else { "checkpoint" };
    let sinks = [
        (
            "append-only",
            s.append_only,
            if s.append_only.duplicate_rows > 0 {
                "some emissions twice: orphans + replay".to_string()
            } else {
                "every emission as a row".to_string()
            },
        ),
        (
            "upsert",
            s.upsert,
            if replaying {
                "totals step back, then forward".to_string()
            } else {
                "the latest total per key".to_string()
            },
        ),
        if micro_batch {
            ("idempotent by batch id", s.transactional, format!("wrote batch {last} · a re-run is skipped"))
        } else {
            (
                "transactional",
                s.transactional,
                format!("commit {point} {last} · {} pending", format_count(s.transactional_pending)),
            )
        },
        ("dedupe view", s.dedupe_view, "the newest row per key".to_string()),
    ];
    let rows = 4 / columns;
    let gap = pen.px(5.0);
    let cell_w = (r.w() - gap * (columns - 1)) / columns;
    let cell_h = ((r.y1 - r.y0) - gap * (rows - 1)) / rows;
    let cell_h = cell_h.min(pen.px(62.0));
    for (i, (name, sink, sees)) in sinks.iter().enumerate() {
        let (col, row) = (i as i32 % columns, i as i32 / columns);
        let x0 = r.x0 + col * (cell_w + gap);
        let y0 = r.y0 + row * (cell_h + gap);
        // The sink the student follows: a deeper fill and a heavier frame.
        let chosen = SinkDesign::ALL[i] == scene.highlight;
        pen.rect(x0, y0, x0 + cell_w, y0 + cell_h, pal.purple, if chosen { 0.2 } else { 0.08 })?;
        pen.frame(x0, y0, x0 + cell_w, y0 + cell_h, pal.purple, if chosen { 2.5 } else { 1.0 })?;
        let (x, w) = (x0 + pen.px(5.0), cell_w - pen.px(10.0));
        let mut y = y0 + pen.px(4.0);
        pen.text(&format!("sink: {name}"), x, y, 11.5, pal.foreground, w, HPos::Left)?;
        y += pen.px(15.0);
        pen.text(&format!("{} rows", format_count(sink.rows)), x, y, 11.0, pal.foreground, w, HPos::Left)?;
        let dup = format!("{} duplicates", format_count(sink.duplicate_rows));
        let dup_color = if sink.duplicate_rows > 0 { pal.vermillion } else { pal.foreground };
        pen.text(&dup, x0 + cell_w - pen.px(5.0), y, 11.0, dup_color, w / 2, HPos::Right)?;
        y += pen.px(15.0);
        if y + pen.px(12.0) <= y0 + cell_h {
            pen.text(sees, x, y, 10.5, pal.foreground, w, HPos::Left)?;
        }
    }
    Ok(())
}

/// The view's text alternative: the description of the world at the default instant, and a
/// table of the job at each event a student steps between.
pub fn text_alternative(scene: &Scene<'_>, view_cursor_ms: Option<u64>) -> TextAlternative {
    let config = scene.config;
    let at = view_cursor_ms.unwrap_or_else(|| default_cursor_ms(config));
    let summary = description(&scene.world.at(at), config);
    let rows = scene
        .world
        .key_instants_ms()
        .into_iter()
        .filter(|&t| t != config.start_time_ms)
        .take(60)
        .map(|t| {
            let world = scene.world.at(t);
            let s = status(&world, config);
            vec![
                ClockTime(t).to_string(),
                s.detail,
                format_count(world.position),
                format_count(world.lag_events),
                format_count(world.sinks.append_only.duplicate_rows),
                format_count(world.sinks.transactional.rows),
            ]
        })
        .collect();
    TextAlternative {
        summary,
        columns: ["time", "status", "readers' offset", "lag", "append-only duplicates", "transactional rows"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}
