//! The lab a lesson page holds: a checked config from JavaScript values, the finished run kept in
//! wasm memory behind a handle, the charts drawn on canvases, and a player moving the cursor.

use js_sys::{Object, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use super::canvas;
use super::config::{config_from_js, object_keys};
use super::{to_js, MAX_TEXT_CHARS};
use crate::charts::{self, Chart, Focus, Shown};
use crate::engine::fast::data_plane::DataPlanes;
use crate::engine::settings::clock::ClockTime;
use crate::engine::{self, Config, Outcome};
use crate::lesson::runs::{self, Making, RunsAhead};
use crate::lesson::{self, Report};

// The engine's functions are declared with the element's types of the settings and the report
// (checkpoint-lab.d.ts, generated from the same Rust types).
#[wasm_bindgen(typescript_custom_section)]
const REPORT_TYPES: &str = r#"import type { Config, Report } from "./checkpoint-lab.js";"#;

/// Runs a scenario and returns the whole report as a plain object.
#[wasm_bindgen(unchecked_return_type = "Report")]
pub fn simulate(#[wasm_bindgen(unchecked_param_type = "Partial<Config>")] config: JsValue) -> Result<JsValue, JsError> {
    let config = config_from_js(&config)?;
    let report = lesson::simulate(&config).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&report)
}

/// The given settings written as attributes read them: `{ interval_ms: 7000 }` gives
/// `{ interval: "7s" }`. Throws an Error naming a bad field.
#[wasm_bindgen(js_name = settingsText, unchecked_return_type = "Record<string, string>")]
pub fn settings_text(
    #[wasm_bindgen(unchecked_param_type = "Partial<Config>")] config: JsValue,
) -> Result<JsValue, JsError> {
    let checked = config_from_js(&config)?;
    if config.is_undefined() || config.is_null() {
        return Ok(Object::new().into());
    }
    let result = Object::new();
    for name in object_keys(&config, "config", "{ interval_ms: 30000 }")? {
        if let (Some(setting), Some(value)) = (crate::engine::settings::by_key(&name), checked.get(&name).as_ref()) {
            Reflect::set(&result, &JsValue::from_str(setting.attribute), &JsValue::from_str(&setting.text(value)))
                .map_err(|_| JsError::new("could not build the attributes"))?;
        }
    }
    Ok(result.into())
}

/// The default scenario's settings (the lesson's worked example).
#[wasm_bindgen(unchecked_return_type = "Config")]
pub fn defaults() -> Result<JsValue, JsError> {
    to_js(&Config::default())
}

/// A chart by its name on the page, or an Error listing the names.
fn chart_named(name: &str) -> Result<Chart, JsError> {
    Chart::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Chart::ALL.iter().map(|c| c.name()).collect();
        JsError::new(&format!("chart: unknown chart {name:?}; the charts are {}", names.join(", ")))
    })
}

/// The data planes the labs of the page share: figures of the same source settings count and
/// keep one between them.
static PLANES: DataPlanes = DataPlanes::new();

#[derive(serde::Serialize)]
struct Pinned<'a> {
    config: &'a crate::engine::Config,
    /// As the charts' legends name it: "barrier 30 s, 2 GB".
    label: String,
    summary: crate::lesson::Summary,
}

/// One lab on a page: the last run, kept in wasm memory, and the charts drawn from it.
#[wasm_bindgen]
pub struct Lab {
    outcome: Option<Outcome>,
    /// A run being made frame by frame (`begin` / `advance`): simulated, then its report built,
    /// then, once made, its world indexed up to the cursor before it becomes the current run.
    making: Option<Making>,
    /// How much simulated time `advance` runs between looks at the clock: about
    /// [`EVENTS_PER_STEP`] events, so a step never takes long next to a frame's budget.
    step_ms: u64,
    /// The next step of the slider last moved (or about to move), made while the student reads
    /// the change (`run_ahead`), and the run left, kept for the way back: `begin` takes them.
    ahead: RunsAhead,
    /// Whether the last `begin` took a run made ahead.
    begun_ahead: bool,
    report: Option<Report>,
    /// Setting A of a comparison: the report pinned by `pin`, drawn under the current one.
    pinned: Option<Report>,
    /// The first run stopped where the pipeline view first stands (`preview`), until a whole
    /// run is in.
    preview: Option<lesson::pipeline::PipelinePreview>,
    /// The highlighted sink and the (window, product) the sink chart shows.
    focus: Focus,
    /// What the lab's view shows, which decides what it keeps of a run besides the report.
    shown: Shown,
}

impl Default for Lab {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl Lab {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Lab {
        Lab {
            outcome: None,
            making: None,
            step_ms: MAX_STEP_MS,
            ahead: RunsAhead::default(),
            begun_ahead: false,
            report: None,
            pinned: None,
            preview: None,
            focus: Focus::default(),
            shown: Shown::all(),
        }
    }

    /// Tells the lab what its view shows: `charts` as the element's `charts` attribute names
    /// them (chart names, "figures", "crash-table") and `controls` as its `controls` attribute
    /// does, each `undefined` for everything. The lab then computes and keeps of each run only
    /// what those need besides the report (see `charts::Shown`): the world's sink counts only for
    /// the pipeline view, the finished run only for a control whose next run reuses it. What
    /// every call returns stays the same.
    pub fn show(&mut self, charts: Option<Vec<String>>, controls: Option<Vec<String>>) {
        self.shown = Shown::of(charts.as_deref(), controls.as_deref());
        self.ahead.clear();
        if !self.shown.keeps_outcome() {
            self.outcome = None;
        }
    }

    /// What the lab holds besides the report, for tests: `{ outcome, world_keys_counted,
    /// world_rows_indexed, runs_ahead, runs_made_ahead, begun_ahead }`, whether it keeps the
    /// finished run, how many rows of the sink tables its world has counted the keys of (a
    /// question counts them as far as it asks) and indexed whole (what the pipeline view's
    /// preparation makes), the runs planned ahead and made, and whether the last `begin` took one.
    pub fn kept(&self) -> Result<JsValue, JsError> {
        let (keys, indexed) = self.report.as_ref().map_or((0, 0), |r| r.world.sink_rows_counted());
        let (runs_ahead, runs_made_ahead) = self.ahead.counts();
        to_js(&Kept {
            outcome: self.outcome.is_some(),
            world_keys_counted: keys,
            world_rows_indexed: indexed,
            runs_ahead,
            runs_made_ahead,
            begun_ahead: self.begun_ahead,
        })
    }

    /// Chooses the sink to highlight and the (window, product) the sink chart shows; a window of
    /// `undefined` means the window the crash falls in (or the first one).
    pub fn select(&mut self, sink: &str, window_start_ms: Option<f64>, product: f64) -> Result<(), JsError> {
        self.focus.sink = super::sink_named(sink)?;
        self.focus.window_start_ms = match window_start_ms {
            None => None,
            Some(w) if w.is_finite() && w >= 0.0 && w.fract() == 0.0 && w < 86_400_000.0 => Some(w as u64),
            Some(w) => {
                return Err(JsError::new(&format!("window: must be a clock time in ms since midnight (got {w})")))
            }
        };
        if !(product.is_finite() && product >= 0.0 && product.fract() == 0.0 && product <= 100_000.0) {
            return Err(JsError::new(&format!("product: must be a whole number from 0 (got {product})")));
        }
        self.focus.product = product as u32;
        Ok(())
    }

    /// Runs `config`; returns the headline figures. On error the previous run stays in place.
    pub fn run(&mut self, config: JsValue) -> Result<JsValue, JsError> {
        let config = config_from_js(&config)?;
        // Moving only the crash time reuses the previous failure-free run.
        let runner = engine::Runner::sharing(&config, self.outcome.as_ref(), &PLANES);
        let outcome = runner.map_err(|e| JsError::new(&e.to_string()))?.finish();
        to_js(&self.keep(outcome))
    }

    /// Builds the finished run's report and keeps both as the lab's current run.
    fn keep(&mut self, outcome: Outcome) -> crate::lesson::Summary {
        let report = lesson::report(outcome.figures());
        self.keep_with(outcome, report)
    }

    /// Keeps a finished run and its report as the lab's current run, and plans the runs to make
    /// ahead from the change (keeping the run it replaces for the way back).
    fn keep_with(&mut self, outcome: Outcome, report: Report) -> crate::lesson::Summary {
        let summary = report.summary();
        let left = self.outcome.take().zip(self.report.take());
        if self.shown.keeps_outcome() {
            self.ahead.plan(left, &report.config);
            self.outcome = Some(outcome);
        } else {
            self.ahead.clear();
        }
        self.report = Some(report);
        self.preview = None;
        summary
    }

    /// Runs `config` only up to where the pipeline view first stands (the crash, or just after
    /// the first checkpoint) and keeps that run, indexed without a report: until a whole run is in, `draw` draws
    /// the pipeline view from it, as the whole run will show it there. A page's first picture,
    /// drawn before the whole first run is ready. Returns false, keeping none, when that part of
    /// the run is too long to take a few milliseconds ([`lesson::PREVIEW_EVENTS`]). Throws an
    /// Error naming a bad field.
    pub fn preview(&mut self, config: JsValue) -> Result<bool, JsError> {
        let config = config_from_js(&config)?;
        self.preview = lesson::preview(&config).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(self.preview.is_some())
    }

    /// Forgets the run `preview` kept, once the view is drawn from it: the memory it took
    /// then serves the whole run.
    pub fn forget_preview(&mut self) {
        self.preview = None;
    }

    /// Starts a run that `advance` moves forward in slices; a newer `begin` drops an older run.
    /// Returns about how many events the run hashes ([`engine::Runner::events_to_hash`]). Throws
    /// an Error naming a bad field, and then nothing changes.
    /// A run made ahead for `config` (see `run_ahead`) is taken as far as it is made: a made one
    /// returns 0.
    pub fn begin(&mut self, config: JsValue) -> Result<f64, JsError> {
        let config = config_from_js(&config)?;
        let (making, ahead) = match self.ahead.take(&config) {
            Some(making) => (making, true),
            None => {
                let making = Making::start(&config, self.outcome.as_ref(), &PLANES);
                (making.map_err(|e| JsError::new(&e.to_string()))?, false)
            }
        };
        self.begun_ahead = ahead;
        let events = match &making {
            Making::Running(runner) => runner.events_to_hash() as f64,
            _ => 0.0,
        };
        self.making = Some(making);
        self.step_ms = runs::step_ms(&config, EVENTS_PER_STEP, MAX_STEP_MS);
        Ok(events)
    }

    /// Advances the run started by `begin` for about `budget_ms` of real time. Returns
    /// `{ done: false, progress }` or, once finished, `{ done: true, summary }`. Once the run is
    /// simulated its report is built a pass over a table at a time, within the same budget, so
    /// no call runs much past it; then what the pipeline view needs at the cursor (`cursor_s`
    /// seconds after the start, or the default cursor) is counted.
    pub fn advance(&mut self, budget_ms: f64, cursor_s: Option<f64>) -> Result<JsValue, JsError> {
        let Some(mut making) = self.making.take() else {
            return Err(JsError::new("begin a run first"));
        };
        let now = page_clock_ms();
        let started = now();
        let budget = budget_or_zero(budget_ms);
        let mut stepped = false;
        loop {
            // A step of a large report's making takes a slice of its own (see ROWS_PER_SHARED_SLICE).
            let large = matches!(&making, Making::Passes(o, _) | Making::Figures(o, _) if large_report(o));
            if stepped && (now() - started >= budget || large) {
                let progress = match &making {
                    Making::Running(runner) => runner.progress(),
                    _ => 1.0,
                };
                self.making = Some(making);
                return to_js(&Progress { done: false, progress, summary: None });
            }
            stepped = true;
            making = match making {
                Making::Made(outcome, report) => {
                    // The pipeline view's first question, at the cursor, counts the sink tables up
                    // to it: a bounded step at a time here, before the run becomes the lab's
                    // current one.
                    let at_ms = lesson::pipeline::cursor_ms(&report.config, cursor_s);
                    if !self.shown.prepares_world() || report.world.prepare_sinks_at(at_ms) {
                        let summary = self.keep_with(outcome, report);
                        return to_js(&Progress { done: true, progress: 1.0, summary: Some(summary) });
                    }
                    Making::Made(outcome, report)
                }
                making => making.step(self.step_ms),
            };
        }
    }

    /// Before a student moves the slider of the setting whose attribute is `attribute` (it has
    /// focus, or the pointer is on it): plans its next step each way to make ahead. Returns
    /// whether it planned any (none before a run, for a setting without steps, or where the lab
    /// keeps no run to start from).
    pub fn plan_ahead(&mut self, attribute: &str) -> bool {
        let Some(setting) = crate::engine::settings::by_attribute(attribute) else { return false };
        match (&self.report, &self.outcome) {
            (Some(report), Some(_)) => self.ahead.plan_setting(setting, &report.config),
            _ => false,
        }
    }

    /// Makes the runs planned ahead (the next step each way of the slider last moved, see
    /// `lesson::runs`) a bounded step at a time for about `budget_ms` of real time; returns true
    /// once they are made, or when there are none. A page calls it after its frames while the
    /// student reads; it makes nothing while a run of the lab's own is being made (true then: the
    /// next change plans again).
    pub fn run_ahead(&mut self, budget_ms: f64) -> bool {
        if self.making.is_some() {
            return true;
        }
        let now = page_clock_ms();
        let started = now();
        let budget = budget_or_zero(budget_ms);
        let step_ms = |config: &Config| runs::step_ms(config, EVENTS_PER_STEP, MAX_STEP_MS);
        self.ahead.make(self.outcome.as_ref(), &PLANES, step_ms, || now() - started >= budget)
    }

    /// Makes, a bounded step at a time for about `budget_ms` of real time, what the world of the
    /// current run needs to answer at every instant (the sink tables' counts, which `advance`
    /// makes only up to the cursor); returns true once it is made. A page runs it in slices
    /// before it reads the world far from the cursor, as the pipeline view's table does. False
    /// before the first run. Where the view does not show the pipeline, nothing is made ahead
    /// (true at once): a question about the world then counts what it needs when asked.
    pub fn prepare_world(&self, budget_ms: f64) -> bool {
        let Some(world) = self.report.as_ref().map(|r| &r.world) else { return false };
        if !self.shown.prepares_world() {
            return true;
        }
        let (_, end_ms) = world.span_ms();
        let now = page_clock_ms();
        let started = now();
        let budget = budget_or_zero(budget_ms);
        loop {
            if world.prepare_sinks_at(end_ms) {
                return true;
            }
            if now() - started >= budget {
                return false;
            }
        }
    }

    /// Drops a run started by `begin`.
    pub fn cancel(&mut self) {
        self.making = None;
    }

    fn current(&self) -> Result<&Report, JsError> {
        self.report.as_ref().ok_or_else(|| JsError::new("run a scenario first"))
    }

    /// The whole report of the last run.
    pub fn report(&self) -> Result<JsValue, JsError> {
        to_js(self.current()?)
    }

    /// Draws `chart` (a [`Chart`] name) on `canvas` at its backing size; `scale` is devicePixelRatio.
    pub fn draw(
        &self,
        chart: &str,
        canvas: HtmlCanvasElement,
        dark: bool,
        scale: f64,
        cursor_s: Option<f64>,
    ) -> Result<JsValue, JsError> {
        let named = chart_named(chart)?;
        if let (None, Some(preview), Chart::Pipeline) = (&self.report, &self.preview, named) {
            canvas::draw_preview(preview, canvas, dark, scale, cursor_s, self.focus.sink)?;
            return Ok(JsValue::NULL);
        }
        let report = self.current()?;
        let (area, view) = canvas::area_and_view(canvas, dark, scale, cursor_s)?;
        let drawn = charts::draw_measured(named, &area, report, self.pinned.as_ref(), &self.focus, &view);
        let axis = drawn.map_err(|e| JsError::new(&format!("drawing {chart} failed: {e}")))?;
        // Where the clock axis lies, so a click or a hover on the chart can become a time.
        match axis {
            Some(axis) => to_js(&axis),
            None => Ok(JsValue::NULL),
        }
    }

    /// Reads a cursor time: clock text ("10:00:58", "10:00:58.500"), a time relative to the crash
    /// ("crash+1s") or milliseconds since the scenario start. Returns milliseconds since the
    /// start, or throws an Error naming `cursor`.
    pub fn cursor(&self, value: JsValue) -> Result<f64, JsError> {
        let config = &self.current()?.config;
        let (start, horizon) = (config.start_time_ms, config.horizon_ms);
        let range = || {
            format!(
                "between {} and {} (0 to {} ms since the scenario start)",
                ClockTime(start),
                ClockTime(start + horizon),
                horizon
            )
        };
        let ms = if let Some(n) = value.as_f64() {
            if !n.is_finite() || n < 0.0 || n > horizon as f64 {
                return Err(JsError::new(&format!("cursor: must be {} (got {n})", range())));
            }
            n
        } else if let Some(text) = value.as_string() {
            if text.chars().count() > MAX_TEXT_CHARS as usize {
                return Err(JsError::new("cursor: a clock time is a short text like 10:00:58"));
            }
            let at =
                lesson::pipeline::parse_cursor(config, &text).map_err(|e| JsError::new(&format!("cursor: {e}")))?;
            if at < start || at > start + horizon {
                return Err(JsError::new(&format!("cursor: must be {} (got {text:?})", range())));
            }
            (at - start) as f64
        } else {
            return Err(JsError::new(&format!(
                "cursor: must be a clock time like \"10:00:58\" or milliseconds since the scenario start (got {})",
                value.js_typeof().as_string().unwrap_or_default()
            )));
        };
        Ok(ms)
    }

    /// The world at `cursor_ms` (milliseconds since the scenario start): the job's status and
    /// the sentence describing it, the checkpoint in flight or being restored, the readers'
    /// offsets, the lag and each sink's rows and duplicates so far.
    pub fn world(&self, cursor_ms: f64) -> Result<JsValue, JsError> {
        let report = self.current()?;
        let config = &report.config;
        if !cursor_ms.is_finite() {
            return Err(JsError::new(&format!("cursor: must be a finite number of ms (got {cursor_ms})")));
        }
        let at_ms = config.start_time_ms + cursor_ms.clamp(0.0, config.horizon_ms as f64).round() as u64;
        to_js(&crate::lesson::pipeline::WorldView::new(&report.world.at(at_ms), config))
    }

    /// Where the cursor stands before the student moves it (ms since the scenario start): the
    /// crash, or without one the first barrier and a second.
    pub fn default_cursor(&self) -> Result<f64, JsError> {
        let config = &self.current()?.config;
        Ok((crate::lesson::pipeline::default_cursor_ms(config) - config.start_time_ms) as f64)
    }

    /// The instants a student steps between (barriers, completed checkpoints, the crash, its
    /// detection, the restore, the end of the replay, the catch-up), in ms since the start.
    pub fn key_instants(&self) -> Result<Vec<f64>, JsError> {
        let report = self.current()?;
        let start = report.config.start_time_ms;
        Ok(report.world.key_instants_ms().into_iter().map(|t| (t - start) as f64).collect())
    }

    /// The barrier a press on the checkpoint timeline at `at_ms` (ms since the start) picks up
    /// within `tolerance_ms`, as its time since the start; null where none is near (see
    /// `lesson::view::barrier_near`).
    pub fn barrier_near(&self, at_ms: f64, tolerance_ms: f64) -> Result<Option<f64>, JsError> {
        let report = self.current()?;
        Ok(crate::lesson::view::barrier_near(report, whole_ms(at_ms), whole_ms(tolerance_ms)).map(|t| t as f64))
    }

    /// The checkpoint interval, in ms, that a drag of the barrier at `barrier_ms` to `to_ms` (both
    /// since the start) asks for: the slider's nearest step.
    pub fn interval_for_barrier(&self, barrier_ms: f64, to_ms: f64) -> Result<f64, JsError> {
        let config = &self.current()?.config;
        Ok(crate::lesson::view::interval_for_barrier(config, whole_ms(barrier_ms), whole_ms(to_ms)) as f64)
    }

    /// A chart's text alternative: { summary, columns, rows }.
    pub fn text_alternative(&self, chart: &str) -> Result<JsValue, JsError> {
        let report = self.current()?;
        let alternative = charts::text_alternative(chart_named(chart)?, report, &self.focus);
        to_js(&alternative)
    }

    /// Pins the last run as setting A of a comparison; returns A's headline figures. The replay,
    /// latency and trade-off charts then draw A under every later run (B).
    pub fn pin(&mut self) -> Result<JsValue, JsError> {
        let report = self.current()?.clone();
        let summary = to_js(&report.summary())?;
        self.pinned = Some(report);
        Ok(summary)
    }

    /// Ends the comparison.
    pub fn unpin(&mut self) {
        self.pinned = None;
    }

    /// The pinned run's settings, their name and headline figures, or null: { config, label, summary }.
    pub fn pinned(&self) -> Result<JsValue, JsError> {
        match &self.pinned {
            Some(a) => {
                to_js(&Pinned { config: &a.config, label: charts::setting_label(&a.config), summary: a.summary() })
            }
            None => Ok(JsValue::NULL),
        }
    }

    /// Everything the page shows that is not a pixel, for the controls at `values` (the
    /// settings as the controls hold them, each checked alone) and the last run: each control's
    /// label, readout, steps and whether it is enabled; the headline figures, with setting A
    /// beside them while a comparison is on; the warnings; the crash table; the names that follow
    /// the restart design (see `lesson::view`). One call per change.
    pub fn view(&self, values: JsValue) -> Result<JsValue, JsError> {
        let config = super::config::controls_from_js(&values)?;
        let label = self.pinned.as_ref().map(|a| charts::setting_label(&a.config));
        let summary = self.pinned.as_ref().map(Report::summary);
        let pinned =
            summary.as_ref().zip(label.as_deref()).map(|(summary, label)| lesson::view::Pinned { summary, label });
        to_js(&lesson::view::view(&config, self.report.as_ref(), pinned))
    }

    /// The last run's settings as Flink configuration and Spark code: { flink, spark, pyspark, warnings }.
    pub fn export(&self) -> Result<JsValue, JsError> {
        to_js(&crate::lesson::export::export(&self.current()?.config, self.focus.sink))
    }

    /// The headline figures of the last run.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        to_js(&self.current()?.summary())
    }

    /// "A crash, second by second" of the last run: rows of { at, what, offset }.
    pub fn crash_table(&self) -> Result<JsValue, JsError> {
        to_js(&self.current()?.crash_table)
    }

    /// What a reader of `sink` sees at the end of the run, for one window: rows as plain objects.
    pub fn sink_rows(&self, sink: &str) -> Result<JsValue, JsError> {
        let report = self.current()?;
        let design = super::sink_named(sink)?;
        let window = self.focus.window(report);
        let rows: Vec<SinkRow> = report
            .tables
            .read(design)
            .iter()
            .filter(|r| u64::from(r.window_start_ms) == window)
            .map(|r| SinkRow {
                product_id: r.product_id,
                window_start: ClockTime(r.window_start_ms.into()).to_string(),
                order_count: r.order_count,
                emitted_at: ClockTime(r.emitted_at_ms.into()).to_string(),
            })
            .collect();
        to_js(&rows)
    }

    /// Every row `sink`'s table holds at the end of the run, every window: rows of
    /// { product_id, window_start, window_start_ms, order_count, emitted_at, emitted_at_ms,
    /// orphan } (see `lesson::sink_table`). For the dedupe view, the rows the view returns.
    pub fn sink_table(&self, sink: &str) -> Result<JsValue, JsError> {
        let design = super::sink_named(sink)?;
        to_js(&lesson::sink_table::sink_table(self.current()?, design))
    }

    /// The rows of `sink_table`, a typed array per column: { product_id, window_start_ms,
    /// order_count, emitted_at_ms } as Uint32Array, orphan as Uint8Array (1 for an orphan). A
    /// table of many rows crosses in one copy per column.
    pub fn sink_columns(&self, sink: &str) -> Result<JsValue, JsError> {
        let design = super::sink_named(sink)?;
        let columns = lesson::sink_table::sink_columns(self.current()?, design);
        let result = Object::new();
        let set = |name: &str, value: &JsValue| {
            Reflect::set(&result, &JsValue::from_str(name), value)
                .map_err(|_| JsError::new("could not build the columns"))
        };
        set("product_id", &js_sys::Uint32Array::from(columns.product_id.as_slice()).into())?;
        set("window_start_ms", &js_sys::Uint32Array::from(columns.window_start_ms.as_slice()).into())?;
        set("order_count", &js_sys::Uint32Array::from(columns.order_count.as_slice()).into())?;
        set("emitted_at_ms", &js_sys::Uint32Array::from(columns.emitted_at_ms.as_slice()).into())?;
        set("orphan", &js_sys::Uint8Array::from(columns.orphan.as_slice()).into())?;
        Ok(result.into())
    }
}

/// Rows (of the run's and its failure-free companion's append-only tables) up to which the
/// steps of a report's making share a slice: a pass over twice as many takes about 10 ms in
/// Chromium, putting the figures together up to 30, so over this each step takes a slice of its
/// own.
const ROWS_PER_SHARED_SLICE: usize = 250_000;

/// Whether `outcome`'s report is made a step per slice (see [`ROWS_PER_SHARED_SLICE`]).
fn large_report(outcome: &Outcome) -> bool {
    let rows = |sim: &engine::Sim| sim.sinks().append_only.rows().len();
    rows(&outcome.run) + rows(outcome.truth()) > ROWS_PER_SHARED_SLICE
}

/// The page's clock, in ms (always 0 where there is none).
fn page_clock_ms() -> impl Fn() -> f64 {
    let clock = web_sys::window().and_then(|w| w.performance());
    move || clock.as_ref().map_or(0.0, |p| p.now())
}

/// A budget in ms from JavaScript: anything but a positive number is no budget (one step).
/// A time from JavaScript in whole milliseconds: anything not a positive finite number is 0.
fn whole_ms(value_ms: f64) -> u64 {
    if value_ms.is_finite() && value_ms > 0.0 {
        value_ms.round() as u64
    } else {
        0
    }
}

fn budget_or_zero(budget_ms: f64) -> f64 {
    if budget_ms.is_finite() && budget_ms > 0.0 {
        budget_ms
    } else {
        0.0
    }
}

/// Events simulated between two looks at the clock in `Lab::advance` (about a millisecond's work).
const EVENTS_PER_STEP: u64 = 100_000;
/// The most simulated time between two looks at the clock.
const MAX_STEP_MS: u64 = 2_000;

#[derive(Serialize)]
struct Progress {
    done: bool,
    progress: f64,
    summary: Option<crate::lesson::Summary>,
}

#[derive(Serialize)]
struct Kept {
    outcome: bool,
    world_keys_counted: usize,
    world_rows_indexed: usize,
    /// Runs planned ahead, and how many of them are made.
    runs_ahead: usize,
    runs_made_ahead: usize,
    begun_ahead: bool,
}

#[derive(Serialize)]
struct SinkRow {
    product_id: u32,
    window_start: String,
    order_count: u32,
    emitted_at: String,
}
