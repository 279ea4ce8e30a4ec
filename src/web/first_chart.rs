//! The first chart: the pipeline view where it first stands, run and drawn from the settings
//! alone by a module of its own, small enough to arrive long before the lab's. A page loads it
//! where no picture of the first frame is written into its HTML (a shared link, settings in
//! attributes), so a student sees the job before the whole lab has loaded.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use super::canvas;
use super::config::{config_from_settings_and_attributes, config_to_js};
use crate::engine::Config;
use crate::lesson;
use crate::lesson::pipeline::PipelinePreview;

thread_local! {
    /// The run the last `prepareFirstChart` made, with its config: `drawFirstChart` draws it
    /// rather than running the scenario again when asked for the same config.
    static PREPARED: RefCell<Option<(Config, Option<PipelinePreview>)>> = const { RefCell::new(None) };
}

/// Runs the scenario `settings` with `attributes` over them up to where the pipeline view first
/// stands, as `drawFirstChart` does, and keeps the run for its next call with the same settings:
/// a page can run the scenario and draw it in two tasks rather than one (cold, before the browser
/// has compiled the module's code, the two together take over 50 ms). Throws an Error naming a
/// bad setting.
#[wasm_bindgen(js_name = prepareFirstChart)]
pub fn prepare_first_chart(settings: JsValue, attributes: JsValue) -> Result<(), JsError> {
    let config = config_from_settings_and_attributes(&settings, &attributes)?;
    let preview = preview(&config)?;
    PREPARED.with(|prepared| *prepared.borrow_mut() = Some((config, preview)));
    Ok(())
}

/// The run up to where the pipeline view first stands (see `lesson::preview`).
fn preview(config: &Config) -> Result<Option<PipelinePreview>, JsError> {
    lesson::preview(config).map_err(|e| JsError::new(&e.to_string()))
}

/// Runs the scenario `settings` (config fields) with `attributes` (`<checkpoint-lab>`
/// attributes) over them up to where the pipeline view first stands, and draws the view there
/// on `canvas` at its backing size (`scale` is devicePixelRatio), the `sink` design highlighted
/// (where it is undefined, the one the lab highlights by default):
/// the same picture the lab draws there from the whole run. Returns what was drawn, for the
/// element to show its controls at: `{ config, cursor_ms }`, the config as a plain object of its
/// fields and the cursor in ms since the scenario start; or null where
/// that part of the run is too long to take a few milliseconds. The run the last
/// `prepareFirstChart` made is drawn rather than run again where its config is this one. Throws
/// an Error naming a bad setting.
#[wasm_bindgen(js_name = drawFirstChart)]
pub fn draw_first_chart(
    settings: JsValue,
    attributes: JsValue,
    canvas: HtmlCanvasElement,
    dark: bool,
    scale: f64,
    sink: Option<String>,
) -> Result<JsValue, JsError> {
    let config = config_from_settings_and_attributes(&settings, &attributes)?;
    let highlight = match sink {
        Some(sink) => super::sink_named(&sink)?,
        None => crate::charts::Focus::default().sink,
    };
    let prepared = PREPARED.with(|prepared| prepared.borrow_mut().take()).filter(|(of, _)| *of == config);
    let preview = match prepared {
        Some((_, preview)) => preview,
        None => preview(&config)?,
    };
    let Some(preview) = preview else {
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
