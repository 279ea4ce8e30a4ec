//! The exercises a page shows: the built-in catalogue, an author's exercises checked field by
//! field, and a student's response checked against a run of the engine. This module carries no
//! engine of its own: each check runs the lab's, passed in as the page's `simulate` function, so a
//! page that shows exercises loads one engine, not two.

use wasm_bindgen::prelude::*;

use super::{is_array_checked, js_value, to_js};
use crate::engine::settings::config::Config;
use crate::lesson::exercise::{Exercise, Response, Simulator};

/// A report's JSON text longer than this is refused before it is read (a report of the longest
/// horizon at the shortest interval is a few MB).
const MAX_REPORT_CHARS: u32 = 64 * 1024 * 1024;

/// The lab's engine as the page passes it: `simulate(config)` returning the report.
struct PageEngine<'a>(&'a js_sys::Function);

impl Simulator for PageEngine<'_> {
    fn run(&self, config: &Config) -> Result<serde_json::Value, (String, String)> {
        let fail = |message: String| ("simulate".to_string(), message);
        let text = serde_json::to_string(config).map_err(|e| fail(e.to_string()))?;
        let config = js_sys::JSON::parse(&text).map_err(|e| fail(message_of(&e)))?;
        let report = self.0.call1(&JsValue::NULL, &config).map_err(|e| fail(message_of(&e)))?;
        let text = js_sys::JSON::stringify(&report).map_err(|e| fail(message_of(&e)))?;
        if text.length() > MAX_REPORT_CHARS {
            return Err(fail(format!("returned a report longer than {MAX_REPORT_CHARS} characters")));
        }
        let text = text.as_string().ok_or_else(|| fail("must return the engine's report".into()))?;
        match serde_json::from_str(&text) {
            Ok(value @ serde_json::Value::Object(_)) => Ok(value),
            _ => Err(fail("must return the engine's report (a JSON object)".into())),
        }
    }
}

/// An Error's message, or the thrown value as text.
fn message_of(thrown: &JsValue) -> String {
    use wasm_bindgen::JsCast;
    match thrown.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => thrown.as_string().unwrap_or_else(|| "threw a value that is not an Error".into()),
    }
}

/// An exercise given from JavaScript, checked as a registered one is (with `engine`'s runs).
fn exercise_from_js(value: &JsValue, engine: &PageEngine) -> Result<Exercise, JsError> {
    // An exercise sits where the second level of an exercise file is.
    let json = js_value::json_from_js(value, "exercise", 1)?;
    Exercise::from_value_with(&json, 0, engine).map_err(|e| JsError::new(&e.to_string()))
}

/// The lesson's built-in exercises, as plain objects.
#[wasm_bindgen(js_name = builtinExercises)]
pub fn builtin_exercises() -> Result<JsValue, JsError> {
    to_js(&Exercise::builtin())
}

/// Validates a list of exercises written by an author, running each against the lab's engine
/// (`simulate`, as the engine module exports it); returns them, or throws an Error naming the
/// exercise and the field.
#[wasm_bindgen(js_name = validateExercises)]
pub fn validate_exercises(list: JsValue, simulate: &js_sys::Function) -> Result<JsValue, JsError> {
    if !is_array_checked(&list).unwrap_or(false) {
        return Err(JsError::new("exercises: must be an array of exercise objects"));
    }
    let json = js_value::json_from_js(&list, "exercises", 0)?;
    let exercises = Exercise::list_from_json_with(&json.to_string(), &PageEngine(simulate))
        .map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&exercises)
}

/// Checks a student's response (a number, a choice id, or the settings object) against a run of
/// the lab's engine (`simulate`).
#[wasm_bindgen(js_name = checkExercise)]
pub fn check_exercise(exercise: JsValue, response: JsValue, simulate: &js_sys::Function) -> Result<JsValue, JsError> {
    let engine = PageEngine(simulate);
    let exercise = exercise_from_js(&exercise, &engine)?;
    let response = if let Some(n) = response.as_f64() {
        Response::Number(n)
    } else if let Some(id) = response.as_string() {
        Response::Choice(id)
    } else if response.is_object() {
        let json = js_value::json_from_js(&response, "settings", 2)?;
        Response::Settings(json.as_object().cloned().unwrap_or_default())
    } else {
        return Err(JsError::new("answer: must be a number, a choice id or the settings"));
    };
    let verdict = exercise.verdict_with(&response, &engine).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&verdict)
}

/// What "reveal" shows for an exercise, from a run of the lab's engine (`simulate`).
#[wasm_bindgen(js_name = revealExercise)]
pub fn reveal_exercise(exercise: JsValue, simulate: &js_sys::Function) -> Result<JsValue, JsError> {
    let engine = PageEngine(simulate);
    let exercise = exercise_from_js(&exercise, &engine)?;
    to_js(&exercise.reveal_with(&engine).map_err(|e| JsError::new(&e.to_string()))?)
}
