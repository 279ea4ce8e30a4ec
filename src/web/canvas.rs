//! A canvas drawing backend for plotters that measures text with the canvas itself and sends the
//! canvas only what changed. plotters' own web font code measures text by inserting styled spans
//! into the page, which a strict Content-Security-Policy blocks, a host stylesheet can distort,
//! and which forces a layout per label; this backend answers text sizes from `measureText`, and
//! remembers them, so a label measured in one redraw is not measured again in the next.
//!
//! Every string crossing into JavaScript is copied and decoded there; a chart sets the same stroke
//! colour, fill colour and font hundreds of times (each grid line, each label). The backend keeps
//! the context's current style and sets one only when it differs, and hands the context each
//! colour, font and label as a JavaScript string made once and kept ([`js_text`]), so redrawing
//! a chart decodes only the labels it had not drawn before.
//!
//! Lines drawn one after another in the same stroke style (a chart's grid, its tick marks, the
//! segments of a series) go into one path, stroked once when the style changes or anything else
//! is drawn: the canvas then rasters one path instead of one per line.

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind, FontTransform,
};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};

use crate::charts::pipeline::{self, Scene};
use crate::charts::{Theme, View};
use crate::engine::model::sinks::SinkDesign;
use crate::lesson::pipeline::PipelinePreview;

/// Text widths are remembered for this many (font, text) pairs; then the memory starts afresh.
const MAX_MEASURED: usize = 4_096;
/// JavaScript strings kept for this many texts (colours, fonts, labels); then afresh.
const MAX_JS_TEXTS: usize = 4_096;

thread_local! {
    /// Width in backend pixels of a text in a font, as `measureText` gave it.
    static MEASURED: RefCell<FxHashMap<(String, String), u32>> = RefCell::new(FxHashMap::default());
    /// Each text as the JavaScript string the context was handed, made once.
    static JS_TEXTS: RefCell<FxHashMap<String, JsValue>> = RefCell::new(FxHashMap::default());
}

/// `text` as a JavaScript string: the one made the first time it was asked for. A chart's
/// colours, fonts and most of its labels are the same from one redraw to the next, and a string
/// handed over as text is decoded from UTF-8 in JavaScript at every call.
fn js_text(text: &str) -> JsValue {
    JS_TEXTS.with(|texts| {
        let mut texts = texts.borrow_mut();
        if let Some(value) = texts.get(text) {
            return value.clone();
        }
        if texts.len() >= MAX_JS_TEXTS {
            texts.clear();
        }
        let value = JsValue::from_str(text);
        texts.insert(text.to_owned(), value.clone());
        value
    })
}

// The context's setters and fillText taking a JavaScript string already made (web-sys's take
// `&str`, copied and decoded at each call).
#[wasm_bindgen]
extern "C" {
    /// The 2D context seen through these calls only.
    type TextContext;
    #[wasm_bindgen(method, setter = font)]
    fn set_font(this: &TextContext, font: &JsValue);
    #[wasm_bindgen(method, setter = fillStyle)]
    fn set_fill_style(this: &TextContext, style: &JsValue);
    #[wasm_bindgen(method, setter = strokeStyle)]
    fn set_stroke_style(this: &TextContext, style: &JsValue);
    #[wasm_bindgen(method, catch, js_name = fillText)]
    fn fill_text(this: &TextContext, text: &JsValue, x: f64, y: f64) -> Result<(), JsValue>;
}

/// What went wrong on the canvas: the message of the exception the context threw.
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "canvas error: {}", self.0)
    }
}

impl std::error::Error for CanvasError {}

fn canvas_error(e: JsValue) -> DrawingErrorKind<CanvasError> {
    let message = js_sys::Error::from(e).message().as_string().unwrap_or_else(|| "unknown".into());
    DrawingErrorKind::DrawingError(CanvasError(message))
}

/// A colour as the canvas reads it.
type Rgba = ((u8, u8, u8), f64);

fn css_color(color: BackendColor) -> String {
    let (r, g, b) = color.rgb;
    format!("rgba({r},{g},{b},{})", color.alpha)
}

fn font_of<S: BackendTextStyle>(style: &S) -> String {
    format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str())
}

/// Lines along a pixel row or column are drawn through the pixels' centres, so they stay sharp.
fn sharp_line(from: BackendCoord, to: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let (mut from, mut to) = ((f64::from(from.0), f64::from(from.1)), (f64::from(to.0), f64::from(to.1)));
    if from.0 == to.0 {
        from.0 -= 0.5;
        to.0 -= 0.5;
    }
    if from.1 == to.1 {
        from.1 -= 0.5;
        to.1 -= 0.5;
    }
    (from, to)
}

thread_local! {
    /// `{ desynchronized: true }`: a chart's canvas is handed to the compositor as it is drawn,
    /// not copied at every frame. Without it, Chromium compositing in software (no GPU) copies
    /// every canvas in view into a buffer of its own at each frame that changes anything on the
    /// page, a chart redrawn or not: about 1 ms a chart at twice the pixel ratio, 8 ms when the
    /// buffer is new, all in the frame's task. A browser that ignores the option draws as before.
    static CONTEXT_OPTIONS: JsValue = {
        let options = js_sys::Object::new();
        // Setting a property on a new plain object cannot fail.
        let _ = js_sys::Reflect::set(&options, &JsValue::from_str("desynchronized"), &JsValue::TRUE);
        options.into()
    };
}

pub struct MeasuredCanvas {
    canvas: HtmlCanvasElement,
    context: CanvasRenderingContext2d,
    /// The context's current styles as this backend last set them; `None`: not known.
    stroke: Option<(Rgba, u32)>,
    fill: Option<Rgba>,
    /// Measuring text (which takes `&self`) sets the font too, so it is kept in a cell.
    font: RefCell<Option<String>>,
    anchor: Option<(&'static str, &'static str)>,
    /// Whether lines traced in the current stroke style wait in the context's path to be stroked.
    open_path: bool,
}

impl MeasuredCanvas {
    pub fn new(canvas: HtmlCanvasElement) -> Option<MeasuredCanvas> {
        let context = CONTEXT_OPTIONS
            .with(|options| canvas.get_context_with_context_options("2d", options))
            .ok()??
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        Some(MeasuredCanvas {
            canvas,
            context,
            stroke: None,
            fill: None,
            font: RefCell::new(None),
            anchor: None,
            open_path: false,
        })
    }

    fn text_context(&self) -> &TextContext {
        self.context.unchecked_ref()
    }

    /// Strokes the lines waiting in the path, if any: before anything else is drawn over them or
    /// the stroke style changes.
    fn stroke_open_path(&mut self) {
        if self.open_path {
            self.context.stroke();
            self.open_path = false;
        }
    }

    /// Adds a line to the path of lines waiting to be stroked in `style`.
    fn add_line<S: BackendStyle>(&mut self, points: impl IntoIterator<Item = (f64, f64)>, style: &S) {
        self.set_stroke(style);
        if !self.open_path {
            self.context.begin_path();
        }
        let mut points = points.into_iter();
        if let Some(start) = points.next() {
            self.context.move_to(start.0, start.1);
            for next in points {
                self.context.line_to(next.0, next.1);
            }
            self.open_path = true;
        }
    }

    fn set_stroke<S: BackendStyle>(&mut self, style: &S) {
        let color = style.color();
        let wanted = ((color.rgb, color.alpha), style.stroke_width());
        if self.stroke != Some(wanted) {
            self.stroke_open_path();
            self.text_context().set_stroke_style(&js_text(&css_color(color)));
            self.context.set_line_width(f64::from(style.stroke_width()));
            self.stroke = Some(wanted);
        }
    }

    fn set_fill(&mut self, color: BackendColor) {
        let wanted = (color.rgb, color.alpha);
        if self.fill != Some(wanted) {
            self.text_context().set_fill_style(&js_text(&css_color(color)));
            self.fill = Some(wanted);
        }
    }

    /// Sets the context's font unless it is the one set last: parsing a font is not cheap.
    fn set_font(&self, font: &str) {
        let mut current = self.font.borrow_mut();
        if current.as_deref() != Some(font) {
            self.text_context().set_font(&js_text(font));
            *current = Some(font.to_owned());
        }
    }

    fn trace<I: IntoIterator<Item = BackendCoord>>(&self, path: I) -> bool {
        let mut path = path.into_iter();
        self.context.begin_path();
        let Some(start) = path.next() else { return false };
        self.context.move_to(f64::from(start.0), f64::from(start.1));
        for next in path {
            self.context.line_to(f64::from(next.0), f64::from(next.1));
        }
        true
    }
}

impl DrawingBackend for MeasuredCanvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        (self.canvas.width(), self.canvas.height())
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.stroke_open_path();
        Ok(())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.stroke_open_path();
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.set_fill(color);
        self.context.fill_rect(f64::from(point.0), f64::from(point.1), 1.0, 1.0);
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (from, to) = sharp_line(from, to);
        self.add_line([from, to], style);
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.stroke_open_path();
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (x, y) = (f64::from(upper_left.0), f64::from(upper_left.1));
        let (w, h) = (f64::from(bottom_right.0 - upper_left.0), f64::from(bottom_right.1 - upper_left.1));
        if fill {
            self.set_fill(style.color());
            self.context.fill_rect(x, y, w, h);
        } else {
            self.set_stroke(style);
            self.context.stroke_rect(x, y, w, h);
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.add_line(path.into_iter().map(|(x, y)| (f64::from(x), f64::from(y))), style);
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.stroke_open_path();
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        if fill {
            self.set_fill(style.color());
        } else {
            self.set_stroke(style);
        }
        self.context.begin_path();
        self.context
            .arc(f64::from(center.0), f64::from(center.1), f64::from(radius), 0.0, std::f64::consts::TAU)
            .map_err(canvas_error)?;
        if fill {
            self.context.fill();
        } else {
            self.context.stroke();
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.stroke_open_path();
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.set_fill(style.color());
        if self.trace(vert) {
            self.context.close_path();
        }
        self.context.fill();
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.stroke_open_path();
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let degrees: f64 = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        let (mut x, mut y) = (f64::from(pos.0), f64::from(pos.1));
        if degrees != 0.0 {
            self.context.save();
            self.context.translate(x, y).map_err(canvas_error)?;
            self.context.rotate(degrees.to_radians()).map_err(canvas_error)?;
            (x, y) = (0.0, 0.0);
        }
        let baseline = match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        let align = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        if self.anchor != Some((baseline, align)) {
            self.context.set_text_baseline(baseline);
            self.context.set_text_align(align);
            self.anchor = Some((baseline, align));
        }
        self.set_fill(color);
        self.set_font(&font_of(style));
        let drawn = self.text_context().fill_text(&js_text(text), x, y).map_err(canvas_error);
        if degrees != 0.0 {
            // The saved state comes back: what was set since is no longer known.
            self.context.restore();
            (self.stroke, self.fill, self.anchor) = (None, None, None);
            *self.font.borrow_mut() = None;
        }
        drawn
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        let font = font_of(style);
        let height = (style.size() * 1.2).ceil() as u32;
        let key = (font, text.to_owned());
        if let Some(width) = MEASURED.with(|m| m.borrow().get(&key).copied()) {
            return Ok((width, height));
        }
        // The font stays set: the text measured is usually drawn next.
        self.set_font(&key.0);
        let width = self.context.measure_text(text).map(|m| m.width()).unwrap_or(0.0).ceil() as u32;
        MEASURED.with(|m| {
            let mut m = m.borrow_mut();
            if m.len() >= MAX_MEASURED {
                m.clear();
            }
            m.insert(key, width);
        });
        Ok((width, height))
    }
}

/// A canvas as a drawing area at its backing size, and the view to draw it in: `scale` is
/// devicePixelRatio (clamped to 1–4), `cursor_s` the cursor (seconds after the start) if moved.
pub fn area_and_view(
    canvas: HtmlCanvasElement,
    dark: bool,
    scale: f64,
    cursor_s: Option<f64>,
) -> Result<(DrawingArea<MeasuredCanvas, Shift>, View), wasm_bindgen::JsError> {
    let backend = MeasuredCanvas::new(canvas).ok_or_else(|| wasm_bindgen::JsError::new("canvas has no 2d context"))?;
    let area = backend.into_drawing_area();
    let scale = if scale.is_finite() && scale > 0.0 { scale.min(4.0) } else { 1.0 };
    let compact = View::is_narrow(area.dim_in_pixel().0, scale);
    let cursor_s = cursor_s.filter(|s| s.is_finite());
    Ok((area, View { theme: if dark { Theme::Dark } else { Theme::Light }, scale, cursor_s, compact }))
}

/// Draws the pipeline view of a preview (a run stopped where the view first stands)
/// on `canvas` (see [`area_and_view`]).
pub fn draw_preview(
    preview: &PipelinePreview,
    canvas: HtmlCanvasElement,
    dark: bool,
    scale: f64,
    cursor_s: Option<f64>,
    highlight: SinkDesign,
) -> Result<(), wasm_bindgen::JsError> {
    let (area, view) = area_and_view(canvas, dark, scale, cursor_s)?;
    let failed = |e: &dyn std::fmt::Display| wasm_bindgen::JsError::new(&format!("drawing pipeline failed: {e}"));
    pipeline::draw(&area, &Scene::preview(preview).highlighting(highlight), &view).map_err(|e| failed(&e))
}
