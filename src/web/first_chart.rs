//! The first chart: the pipeline view where it first stands, run and drawn from the settings
//! alone by a module of its own, small enough to arrive long before the lab's. A page loads it
//! where no picture of the first frame is written into its HTML (a shared link, settings in
//! attributes), so a student sees the job before the whole lab has loaded.

use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use super::canvas;
use super::config::{config_from_settings_and_attributes, config_to_js};
use crate::lesson;

/// Runs the scenario `settings` (config fields) with `attributes` (`<checkpoint-lab>`
/// attributes) over them up to where the pipeline view first stands, and draws the view there
/// on `canvas` at its backing size (`scale` is devicePixelRatio), the `sink` design highlighted:
/// the same picture the lab draws there from the whole run. Returns what was drawn, for the
/// element to show its controls at: `{ config, cursor_ms }`, the config as a plain object of its
/// fields and the cursor in ms since the scenario start; or null where
/// that part of the run is too long to take a few milliseconds. Throws an Error naming a bad
/// setting.
#[wasm_bindgen(js_name = drawFirstChart)]
pub fn draw_first_chart(
    settings: JsValue,
    attributes: JsValue,
    canvas: HtmlCanvasElement,
    dark: bool,
    scale: f64,
    sink: &str,
) -> Result<JsValue, JsError> {
    let config = config_from_settings_and_attributes(&settings, &attributes)?;
    let highlight = super::sink_named(sink)?;
    let Some(preview) = lesson::preview(&config).map_err(|e| JsError::new(&e.to_string()))? else {
        return Ok(JsValue::NULL);
    };
    canvas::draw_preview(&preview, canvas, dark, scale, None, highlight)?;
    let drawn = js_sys::Object::new();
    let cursor_ms = lesson::pipeline::default_cursor_ms(&config) - config.start_time_ms;
    for (key, value) in [("config", config_to_js(&config)?), ("cursor_ms", JsValue::from_f64(cursor_ms as f64))] {
        js_sys::Reflect::set(&drawn, &JsValue::from_str(key), &value)
            .map_err(|_| JsError::new("could not build the result"))?;
    }
    Ok(drawn.into())
}
