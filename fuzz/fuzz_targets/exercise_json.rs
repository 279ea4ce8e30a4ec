//! Fuzzes the exercise parser and its check language: any text as an exercise file (shape and
//! field checks, without running simulations) and any text as an expression, evaluated against a
//! fixed scope.
#![no_main]

use checkpoint_lab::lesson::exercise::{expr, Exercise};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = Exercise::parse_list_unvalidated(text);
    if let Ok(parsed) = expr::parse(text) {
        let scope = serde_json::json!({
            "replayed_events": 30000, "answer": 1.5, "choice": "upsert", "store_limited": false,
            "recovery_s": null, "sinks": {"upsert": {"duplicate_rows": 0}}
        });
        let _ = expr::eval(&parsed, &scope);
    }
});
