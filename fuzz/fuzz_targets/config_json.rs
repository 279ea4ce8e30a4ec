//! Fuzzes the JSON configuration path: any JSON object becomes config fields, which are checked
//! field by field and then by range, exactly as values arriving from JavaScript are.
#![no_main]

use checkpoint_lab::engine::settings::config::{Config, FieldValue};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(data) else { return };
    let fields: Vec<(String, FieldValue)> = object
        .into_iter()
        .map(|(k, v)| {
            let value = match v {
                Value::Number(n) => FieldValue::Number(n.as_f64().unwrap_or(f64::NAN)),
                Value::String(s) => FieldValue::Text(s),
                Value::Null => FieldValue::Null,
                other => FieldValue::Other(format!("{other}")),
            };
            (k, value)
        })
        .collect();
    if let Ok(config) = Config::from_fields(&fields) {
        // A config that passes validation must be within the memory budget.
        assert!(config.estimated_memory_bytes() <= checkpoint_lab::engine::MEMORY_BUDGET_BYTES);
    }
});
