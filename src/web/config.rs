//! Settings from JavaScript: a plain object of config fields, or an element's attributes, read
//! into a checked config. Proxies, throwing getters, symbols, BigInt and very long strings are
//! refused with an Error naming the field; nothing a caller passes can unwind through the engine.

#[cfg(feature = "lab")]
use js_sys::Object;
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use super::{is_array_checked, keys_checked, MAX_TEXT_CHARS};
use crate::engine::settings::config::FieldValue;
use crate::engine::{self, Config};

/// More fields than any config has: an object beyond this is refused before it is read.
const MAX_FIELDS: u32 = 64;

/// The own enumerable keys of a plain object, read without letting a throwing Proxy or getter
/// unwind through wasm. Errors name `what`.
pub(super) fn object_keys(value: &JsValue, what: &str, example: &str) -> Result<Vec<String>, JsError> {
    let is_array = is_array_checked(value).map_err(|_| JsError::new(&format!("{what}: could not be read")))?;
    if !value.is_object() || is_array {
        return Err(JsError::new(&format!("{what}: must be an object, like {example}")));
    }
    let keys = keys_checked(value).map_err(|_| JsError::new(&format!("{what}: its keys could not be read")))?;
    if keys.length() > MAX_FIELDS {
        return Err(JsError::new(&format!("{what}: has {} keys, more than the {MAX_FIELDS} allowed", keys.length())));
    }
    keys.iter()
        .map(|key| {
            let name = key.as_string().unwrap_or_default();
            if name.chars().count() > MAX_TEXT_CHARS as usize {
                return Err(JsError::new(&format!("{what}: a key of {} characters is not a setting", name.len())));
            }
            Ok(name)
        })
        .collect()
}

/// One field's value, read with `Reflect.get` (which catches a throwing getter).
fn field_value(object: &JsValue, name: &str) -> Result<JsValue, JsError> {
    Reflect::get(object, &JsValue::from_str(name)).map_err(|_| JsError::new(&format!("{name}: could not be read")))
}

/// Reads a plain JavaScript object into checked config fields; `undefined` means the defaults.
/// Proxies, throwing getters, symbols, BigInt and very long strings are refused with an Error
/// naming the field; nothing a caller passes can unwind through the engine.
#[cfg(feature = "lab")]
pub(super) fn config_from_js(value: &JsValue) -> Result<Config, JsError> {
    Config::from_fields(&fields_from_js(value)?).map_err(|e| JsError::new(&e.to_string()))
}

/// The settings as a page's controls hold them, each field checked alone but not against the
/// others (a combination the engine refuses still has readouts to show); missing fields take
/// the defaults. Throws an Error naming a bad field.
pub(super) fn controls_from_js(value: &JsValue) -> Result<Config, JsError> {
    let mut config = Config::default();
    for (name, field) in fields_from_js(value)? {
        let setting = crate::engine::settings::by_key(&name)
            .ok_or_else(|| JsError::new(&format!("config: unknown field {name:?}")))?;
        let checked = setting.check(&field).map_err(|e| JsError::new(&e.to_string()))?;
        config.set(setting.key, &checked);
    }
    Ok(config)
}

/// The numbers of a short JavaScript array of numbers (a report's `more_crashes_ms` given back);
/// `None` for anything else, which the settings then refuse by its type.
fn numbers_from_js(value: &JsValue) -> Option<Vec<f64>> {
    const MAX_ITEMS: f64 = 1_000.0;
    // Read through Reflect, which reports a throwing proxy as an error rather than throwing.
    if !super::is_array_checked(value).ok()? {
        return None;
    }
    let length = Reflect::get(value, &JsValue::from_str("length")).ok()?.as_f64()?;
    if !(0.0..=MAX_ITEMS).contains(&length) {
        return None;
    }
    (0..length as u32).map(|i| Reflect::get(value, &JsValue::from(i)).ok()?.as_f64()).collect()
}

/// A plain JavaScript object's config fields, unchecked (none for `undefined`).
fn fields_from_js(value: &JsValue) -> Result<Vec<(String, FieldValue)>, JsError> {
    let mut fields = Vec::new();
    if value.is_undefined() || value.is_null() {
        return Ok(fields);
    }
    for name in object_keys(value, "config", "{ interval_ms: 30000 }")? {
        let v = field_value(value, &name)?;
        let field = if let Some(n) = v.as_f64() {
            FieldValue::Number(n)
        } else if v.is_string() {
            let length = js_sys::JsString::from(v.clone()).length();
            if length > MAX_TEXT_CHARS {
                return Err(JsError::new(&format!("{name}: a string of {length} characters is not a setting")));
            }
            FieldValue::Text(v.as_string().unwrap_or_default())
        } else if v.is_null() {
            FieldValue::Null
        } else if let Some(times) = numbers_from_js(&v) {
            FieldValue::Times(times)
        } else {
            FieldValue::Other(v.js_typeof().as_string().unwrap_or_else(|| "unknown".into()))
        };
        fields.push((name, field));
    }
    Ok(fields)
}

/// Reads `<checkpoint-lab>` attributes ({ interval: "30s", "state-size": "2GB", ... }) into a
/// config object with the keys `simulate` takes. Throws an Error naming the attribute.
#[cfg(feature = "lab")]
#[wasm_bindgen(js_name = parseAttributes)]
pub fn parse_attributes(attributes: JsValue) -> Result<JsValue, JsError> {
    let fields = fields_from_attributes(&attributes)?;
    let result = Object::new();
    for (key, value) in fields {
        let js = match value {
            FieldValue::Number(n) => JsValue::from_f64(n),
            FieldValue::Whole(n) => JsValue::from_f64(n as f64),
            FieldValue::Text(t) => JsValue::from_str(&t),
            _ => JsValue::NULL,
        };
        Reflect::set(&result, &JsValue::from_str(&key), &js).map_err(|_| JsError::new("could not build the config"))?;
    }
    Ok(result.into())
}

/// A config from a plain object of config fields (a scenario's settings) with `<checkpoint-lab>`
/// attributes over them, as the element puts the two together: `{ ...settings,
/// ...parseAttributes(attributes) }`, whole numbers passing through a JavaScript number as they
/// do there.
#[cfg(feature = "first-chart")]
pub(super) fn config_from_settings_and_attributes(settings: &JsValue, attributes: &JsValue) -> Result<Config, JsError> {
    let mut fields = fields_from_js(settings)?;
    fields.extend(fields_from_attributes(attributes)?.into_iter().map(|(key, value)| match value {
        FieldValue::Whole(n) => (key, FieldValue::Number(n as f64)),
        other => (key, other),
    }));
    Config::from_fields(&fields).map_err(|e| JsError::new(&e.to_string()))
}

/// A config as a plain object of its fields, as config JSON gives them.
#[cfg(feature = "first-chart")]
pub(super) fn config_to_js(config: &Config) -> Result<JsValue, JsError> {
    let result = js_sys::Object::new();
    for setting in engine::settings::SETTINGS {
        let value = match config.get(setting.key) {
            Some(serde_json::Value::Number(n)) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
            Some(serde_json::Value::String(text)) => JsValue::from_str(&text),
            _ => JsValue::NULL,
        };
        Reflect::set(&result, &JsValue::from_str(setting.key), &value)
            .map_err(|_| JsError::new("could not build the config"))?;
    }
    Ok(result.into())
}

/// Attributes as checked config fields, or an Error naming the attribute.
fn fields_from_attributes(attributes: &JsValue) -> Result<Vec<(String, FieldValue)>, JsError> {
    let mut pairs = Vec::new();
    for name in object_keys(attributes, "attributes", "{ interval: \"30s\" }")? {
        let v = field_value(attributes, &name)?;
        let length = if v.is_string() { js_sys::JsString::from(v.clone()).length() } else { 0 };
        if length > MAX_TEXT_CHARS {
            return Err(JsError::new(&format!("{name}: a value of {length} characters is not a setting")));
        }
        let value = v.as_string().ok_or_else(|| JsError::new(&format!("{name}: must be a string")))?;
        pairs.push((name, value));
    }
    engine::settings::config::fields_from_attributes(&pairs).map_err(|e| JsError::new(&e.to_string()))
}
