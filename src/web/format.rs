//! Values written for people, by the settings table's formatter for each unit: the lab's
//! readouts, and the first chart's while the lab loads.

use wasm_bindgen::prelude::*;

/// A value written for people, by the settings table's formatter for its unit: by config key
/// (`formatValue("interval_ms", 7000)` is "7 s") or by unit name (count, events_per_s,
/// duration_ms, bytes, bytes_per_s, clock_ms, share, factor).
#[wasm_bindgen(js_name = formatValue)]
pub fn format_value(key_or_unit: &str, value: f64) -> Result<String, JsError> {
    use crate::engine::settings::{by_key, format_unit, Unit};
    let unit = match key_or_unit {
        "count" => Unit::Count,
        "events_per_s" => Unit::EventsPerS,
        "duration_ms" => Unit::DurationMs,
        "bytes" => Unit::Bytes,
        "bytes_per_s" => Unit::BytesPerS,
        "clock_ms" => Unit::ClockMs,
        "share" => Unit::Share,
        "factor" => Unit::Factor,
        key => by_key(key)
            .map(|s| s.unit)
            .ok_or_else(|| JsError::new(&format!("unit: unknown setting or unit {key:?}")))?,
    };
    if let Unit::Choice(_) = unit {
        return Err(JsError::new(&format!("unit: {key_or_unit:?} is a choice, not a number to format")));
    }
    if !value.is_finite() {
        return Err(JsError::new(&format!("value: must be a finite number (got {value})")));
    }
    Ok(format_unit(unit, value))
}

/// What the page shows for the controls at `values` (the settings as the controls hold them, each
/// checked alone), before any run: each control's label, readout, steps and whether it is
/// enabled, and the names that follow the restart design (see `lesson::view`). The lab's
/// `Lab.view` adds the last run's figures.
#[wasm_bindgen(js_name = viewOf)]
pub fn view_of(values: JsValue) -> Result<JsValue, JsError> {
    let config = super::config::controls_from_js(&values)?;
    super::to_js(&crate::lesson::view::view(&config, None, None))
}
