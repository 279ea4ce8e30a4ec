//! The web edge: the only code that touches wasm-bindgen, web-sys, js-sys and gloo-timers. It
//! turns JavaScript values into a checked config, keeps the finished run in wasm memory behind a
//! handle, and draws the charts on canvases. Errors become thrown `Error`s naming the field.

use js_sys::{Object, Reflect};
mod canvas;

use plotters::prelude::*;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::charts::{self, Theme, View};
use crate::engine::config::FieldValue;
use crate::engine::{self, Config, Outcome, Report};

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&format!("could not convert the result: {e}")))
}

/// Reads a plain JavaScript object into checked config fields; `undefined` means the defaults.
fn config_from_js(value: &JsValue) -> Result<Config, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(Config::default());
    }
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(JsError::new("config: must be an object of settings, like { interval_ms: 30000 }"));
    }
    let object: &Object = value.unchecked_ref();
    let mut fields = Vec::new();
    for key in Object::keys(object).iter() {
        let name = key.as_string().unwrap_or_default();
        let v = Reflect::get(object, &key).map_err(|_| JsError::new(&format!("{name}: could not be read")))?;
        let field = if let Some(n) = v.as_f64() {
            FieldValue::Number(n)
        } else if let Some(t) = v.as_string() {
            FieldValue::Text(t)
        } else if v.is_null() {
            FieldValue::Null
        } else {
            FieldValue::Other(v.js_typeof().as_string().unwrap_or_else(|| "unknown".into()))
        };
        fields.push((name, field));
    }
    Config::from_fields(&fields).map_err(|e| JsError::new(&e.to_string()))
}

/// Runs a scenario and returns the whole report as a plain object.
#[wasm_bindgen]
pub fn simulate(config: JsValue) -> Result<JsValue, JsError> {
    let config = config_from_js(&config)?;
    let report = engine::simulate(&config).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&report)
}

/// The default scenario's settings (the lesson's worked example).
#[wasm_bindgen]
pub fn defaults() -> Result<JsValue, JsError> {
    to_js(&Config::default())
}

/// One lab on a page: the last run, kept in wasm memory, and the charts drawn from it.
#[wasm_bindgen]
pub struct Lab {
    outcome: Option<Outcome>,
    report: Option<Report>,
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
        Lab { outcome: None, report: None }
    }

    /// Runs `config`; returns the headline figures. On error the previous run stays in place.
    pub fn run(&mut self, config: JsValue) -> Result<JsValue, JsError> {
        let config = config_from_js(&config)?;
        let outcome = engine::run(&config).map_err(|e| JsError::new(&e.to_string()))?;
        let report = outcome.report();
        let summary = to_js(&report.summary())?;
        self.outcome = Some(outcome);
        self.report = Some(report);
        Ok(summary)
    }

    fn current(&self) -> Result<&Report, JsError> {
        self.report.as_ref().ok_or_else(|| JsError::new("run a scenario first"))
    }

    /// The whole report of the last run.
    pub fn report(&self) -> Result<JsValue, JsError> {
        to_js(self.current()?)
    }

    /// Draws `chart` ("replay") on `canvas` at its backing size; `scale` is devicePixelRatio.
    pub fn draw(
        &self,
        chart: &str,
        canvas: HtmlCanvasElement,
        dark: bool,
        scale: f64,
        cursor_s: Option<f64>,
    ) -> Result<(), JsError> {
        let report = self.current()?;
        let backend = canvas::MeasuredCanvas::new(canvas).ok_or_else(|| JsError::new("canvas has no 2d context"))?;
        let area = backend.into_drawing_area();
        let scale = if scale.is_finite() && scale > 0.0 { scale.min(4.0) } else { 1.0 };
        let view = View { theme: if dark { Theme::Dark } else { Theme::Light }, scale, cursor_s };
        let drawn = match chart {
            "replay" => charts::replay::draw(&area, report, &view),
            other => return Err(JsError::new(&format!("chart: unknown chart {other:?}; the charts are replay"))),
        };
        drawn.map_err(|e| JsError::new(&format!("drawing {chart} failed: {e}")))
    }

    /// A chart's text alternative: { summary, columns, rows }.
    pub fn text_alternative(&self, chart: &str) -> Result<JsValue, JsError> {
        let report = self.current()?;
        match chart {
            "replay" => to_js(&charts::replay::text_alternative(report)),
            other => Err(JsError::new(&format!("chart: unknown chart {other:?}"))),
        }
    }
}
