//! JavaScript values read as JSON data (exercises, a student's settings), defensively: every read
//! goes through an import that catches what a Proxy trap or a getter throws, sizes are checked
//! before anything is copied, and nesting is bounded before it is followed, so a cyclic object or
//! 10,000 nested arrays give an Error naming the field, never a stack overflow in wasm.

use js_sys::{JsString, Reflect};
use serde_json::{Map, Number, Value};
use wasm_bindgen::prelude::*;

use super::{is_array_checked, keys_checked};
use crate::lesson::exercise::MAX_JSON_DEPTH;

/// The most items an array, or keys an object, may have.
pub const MAX_ITEMS: u32 = 1_000;
/// The longest string, in UTF-16 units.
pub const MAX_STRING_CHARS: u32 = 100_000;
/// The most values in one whole input (arrays, objects and leaves), bounding the work done.
const MAX_VALUES: usize = 100_000;

fn refuse(path: &str, message: impl std::fmt::Display) -> JsError {
    JsError::new(&format!("{path}: {message}"))
}

/// Reads `value` as JSON data; `path` names it in errors ("exercises[2].start.interval_ms").
/// `levels` is how deep `value` already sits in the whole (the exercise list is level 1).
pub fn json_from_js(value: &JsValue, path: &str, levels: usize) -> Result<Value, JsError> {
    let mut budget = MAX_VALUES;
    read(value, path, levels, &mut budget)
}

fn read(value: &JsValue, path: &str, level: usize, budget: &mut usize) -> Result<Value, JsError> {
    *budget = budget.checked_sub(1).ok_or_else(|| refuse(path, format!("holds more than {MAX_VALUES} values")))?;
    if value.is_null() || value.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(b) = value.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(n) = value.as_f64() {
        // As JSON.parse would give it: whole numbers exact, others as floats; NaN and ±∞ become null.
        const SAFE: f64 = 9_007_199_254_740_991.0;
        return Ok(if n.fract() == 0.0 && n.abs() <= SAFE {
            Value::Number(Number::from(n as i64))
        } else {
            Number::from_f64(n).map_or(Value::Null, Value::Number)
        });
    }
    if value.is_string() {
        let length = JsString::from(value.clone()).length();
        if length > MAX_STRING_CHARS {
            return Err(refuse(
                path,
                format!("a string of {length} characters is longer than the {MAX_STRING_CHARS} allowed"),
            ));
        }
        return Ok(Value::String(value.as_string().unwrap_or_default()));
    }
    if !value.is_object() {
        let kind = if value.is_function() {
            "a function".to_string()
        } else {
            value.js_typeof().as_string().unwrap_or_default()
        };
        return Err(refuse(
            path,
            format!("must be JSON data: text, a number, true or false, null, an array or an object (got {kind})"),
        ));
    }
    if level >= MAX_JSON_DEPTH {
        return Err(refuse(path, format!("nests deeper than {MAX_JSON_DEPTH} levels (or refers to itself)")));
    }
    let is_array = is_array_checked(value).map_err(|_| refuse(path, "could not be read"))?;
    if is_array {
        let length = Reflect::get(value, &JsValue::from_str("length"))
            .map_err(|_| refuse(path, "its length could not be read"))?
            .as_f64()
            .unwrap_or(0.0);
        if length > f64::from(MAX_ITEMS) {
            return Err(refuse(path, format!("has {length} items, more than the {MAX_ITEMS} allowed")));
        }
        let mut items = Vec::with_capacity(length as usize);
        for i in 0..length as u32 {
            let at = format!("{path}[{i}]");
            let item = Reflect::get_u32(value, i).map_err(|_| refuse(&at, "could not be read"))?;
            items.push(read(&item, &at, level + 1, budget)?);
        }
        return Ok(Value::Array(items));
    }
    let keys = keys_checked(value).map_err(|_| refuse(path, "its keys could not be read"))?;
    if keys.length() > MAX_ITEMS {
        return Err(refuse(path, format!("has {} keys, more than the {MAX_ITEMS} allowed", keys.length())));
    }
    let mut map = Map::new();
    for key in keys.iter() {
        let name = key.as_string().unwrap_or_default();
        if name.chars().count() > super::MAX_TEXT_CHARS as usize {
            return Err(refuse(path, format!("a key of {} characters is not a field", name.len())));
        }
        let at = format!("{path}.{name}");
        let item = Reflect::get(value, &key).map_err(|_| refuse(&at, "could not be read"))?;
        // As JSON.stringify does, a field set to undefined is left out.
        if !item.is_undefined() {
            map.insert(name, read(&item, &at, level + 1, budget)?);
        }
    }
    Ok(Value::Object(map))
}
