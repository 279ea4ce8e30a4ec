//! The checkpoint timeline: for each checkpoint its barrier, alignment, sync pause, upload and
//! completion, on two alternating lanes (one checkpoint is in flight at a time).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{finish_time_chart, time_chart, with_crash_entry, Frame, LegendEntry, Swatch, TextAlternative, View};
use crate::engine::settings::units::{format_bytes, format_count, format_duration_ms};
use crate::engine::Mode;
use crate::lesson::timeline::TimelineKind;
use crate::lesson::Report;

pub const SHORT_TITLE: &str = Mode::Barrier.words().timeline_short_title;
pub const TITLE: &str = Mode::Barrier.words().timeline_title;
pub const X_LABEL: &str = "scenario clock";
pub const Y_LABEL: &str = "checkpoints";
pub const BATCH_TITLE: &str = Mode::MicroBatch.words().timeline_title;
pub const BATCH_SHORT_TITLE: &str = Mode::MicroBatch.words().timeline_short_title;

#[inline(never)]
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    report: &Report,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pal = view.theme.palette();
    let horizon_s = report.config.horizon_ms as f64 / 1000.0;
    let text = |size: f64| (FontFamily::SansSerif, view.font(size)).into_font().color(&pal.foreground);
    let micro_batch = report.config.mode.runs_batches();
    let words = report.config.mode.words();
    let title = if view.compact { words.timeline_short_title } else { words.timeline_title };
    let legend = with_crash_entry(
        if micro_batch {
            vec![
                LegendEntry::new("offset log write", pal.vermillion, Swatch::Block),
                LegendEntry::new("processing", pal.sky, Swatch::Block),
                LegendEntry::new("state store write", pal.blue, Swatch::Block),
                LegendEntry::new("commit log", pal.green, Swatch::Mark),
            ]
        } else {
            vec![
                LegendEntry::new("alignment", pal.yellow, Swatch::Block),
                LegendEntry::new("sync pause", pal.vermillion, Swatch::Block),
                LegendEntry::new("upload", pal.blue, Swatch::Block),
                LegendEntry::new("completed", pal.green, Swatch::Mark),
            ]
        },
        report,
        view,
    );
    let frame = Frame {
        title,
        x_desc: X_LABEL,
        x: view.time_axis(horizon_s),
        start_ms: report.config.start_time_ms,
        y_max: 4.0,
        y_desc: if micro_batch { "batches" } else { Y_LABEL },
        y_label_px: 40.0,
        y_labels: 0,
        y_format: &|_| String::new(),
        legend: &legend,
    };
    let mut chart = time_chart(area, frame, view)?;
    let taken = &report.checkpoints[1..];
    let label_every = (taken.len() / 12).max(1);
    for (i, c) in taken.iter().enumerate() {
        let lane = if c.id % 2 == 0 { 0.6 } else { 1.9 };
        let (y0, y1) = (lane, lane + 1.0);
        let b = c.barrier_at.s;
        let a = b + c.alignment_ms as f64 / 1000.0;
        let s = a + c.sync_ms as f64 / 1000.0;
        let done = c.completed_at.s;
        // Micro-batch: processing ends where the state store write starts.
        let processed = done - c.upload_ms as f64 / 1000.0;
        let (p_from, p_to) =
            if micro_batch { (processed - c.processing_ms as f64 / 1000.0, processed) } else { (s, s) };
        let upload_from = if micro_batch { processed } else { s };
        for (from, to, color) in
            [(b, a, pal.yellow), (a, s, pal.vermillion), (p_from, p_to, pal.sky), (upload_from, done, pal.blue)]
        {
            if to > from {
                chart.draw_series(std::iter::once(Rectangle::new([(from, y0), (to, y1)], color.mix(0.85).filled())))?;
            }
        }
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(done, y0 - 0.2), (done, y1 + 0.2)],
            pal.green.stroke_width(view.px(2.0)),
        )))?;
        // The id under the lower lane's marks and over the upper lane's, centred on its mark:
        // among the bars the marks ran through the ids, and at a short interval they stand a
        // pixel or two apart.
        if i % label_every == 0 {
            let (at_y, v_pos) = if lane < 1.0 { (y0 - 0.25, VPos::Top) } else { (y1 + 0.25, VPos::Bottom) };
            let style = text(10.0).pos(Pos::new(HPos::Center, v_pos));
            chart.draw_series(std::iter::once(Text::new(c.id.to_string(), (done, at_y), style)))?;
        }
    }
    // Checkpoints that never completed: their barrier, then a cross where they were discarded.
    for entry in report.timeline.iter().filter(|e| e.kind == TimelineKind::CheckpointDiscarded) {
        chart.draw_series(std::iter::once(Cross::new(
            (entry.at.s, 1.5),
            view.px(6.0),
            pal.vermillion.stroke_width(view.px(2.0)),
        )))?;
    }
    finish_time_chart(area, chart, report, view)
}

pub fn text_alternative(report: &Report) -> TextAlternative {
    let taken = &report.checkpoints[1..];
    let micro_batch = report.config.mode.runs_batches();
    let summary = match (taken.first(), micro_batch) {
        (Some(c), false) => format!(
            "{} checkpoints completed. A checkpoint takes {} from barrier to completion: {} aligning, {} paused \
             for the snapshot and {} uploading {}.",
            taken.len(),
            format_duration_ms(c.duration_ms),
            format_duration_ms(c.alignment_ms),
            format_duration_ms(c.sync_ms),
            format_duration_ms(c.upload_ms),
            format_bytes(c.size_bytes as f64)
        ),
        (Some(c), true) => format!(
            "{} batches committed. A batch takes {} from its trigger to its commit-log entry: {} writing the \
             offset log, {} processing and {} writing {} to the state store.",
            taken.len(),
            format_duration_ms(c.duration_ms),
            format_duration_ms(c.sync_ms),
            format_duration_ms(c.processing_ms),
            format_duration_ms(c.upload_ms),
            format_bytes(c.size_bytes as f64)
        ),
        (None, false) => "No checkpoint completed within the horizon.".to_string(),
        (None, true) => "No batch committed within the horizon.".to_string(),
    };
    let rows = taken
        .iter()
        .map(|c| {
            vec![
                c.id.to_string(),
                c.barrier_at.at.to_string(),
                format_duration_ms(if micro_batch { c.sync_ms } else { c.alignment_ms }),
                format_duration_ms(if micro_batch { c.processing_ms } else { c.sync_ms }),
                format_duration_ms(c.upload_ms),
                c.completed_at.at.to_string(),
                format_count(c.offset),
                format_bytes(c.size_bytes as f64),
            ]
        })
        .collect();
    let columns = if micro_batch {
        ["batch", "planned", "offset log", "processing", "state store", "committed", "end offset", "size"]
    } else {
        ["id", "barrier", "alignment", "sync", "upload", "completed", "offset", "size"]
    };
    TextAlternative { summary, columns: columns.map(String::from).to_vec(), rows }
}
