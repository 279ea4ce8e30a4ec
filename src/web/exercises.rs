//! The exercises a page shows: the built-in catalogue, an author's exercises checked field by
//! field, and a student's response checked by running the engine.

use wasm_bindgen::prelude::*;

use super::{is_array_checked, js_value, to_js};
use crate::lesson::exercise::{Exercise, Response};

fn exercise_from_js(value: &JsValue) -> Result<Exercise, JsError> {
    // An exercise sits where the second level of an exercise file is.
    let json = js_value::json_from_js(value, "exercise", 1)?;
    Exercise::from_value(&json, 0).map_err(|e| JsError::new(&e.to_string()))
}

/// The lesson's built-in exercises, as plain objects.
#[wasm_bindgen(js_name = builtinExercises)]
pub fn builtin_exercises() -> Result<JsValue, JsError> {
    to_js(&Exercise::builtin())
}

/// Validates a list of exercises written by an author; returns them, or throws an Error naming
/// the exercise and the field.
#[wasm_bindgen(js_name = validateExercises)]
pub fn validate_exercises(list: JsValue) -> Result<JsValue, JsError> {
    if !is_array_checked(&list).unwrap_or(false) {
        return Err(JsError::new("exercises: must be an array of exercise objects"));
    }
    let json = js_value::json_from_js(&list, "exercises", 0)?;
    let exercises = Exercise::list_from_json(&json.to_string()).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&exercises)
}

/// Checks a student's response with the engine: a number, a choice id, or the settings object.
#[wasm_bindgen(js_name = checkExercise)]
pub fn check_exercise(exercise: JsValue, response: JsValue) -> Result<JsValue, JsError> {
    let exercise = exercise_from_js(&exercise)?;
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
    to_js(&exercise.verdict(&response).map_err(|e| JsError::new(&e.to_string()))?)
}

/// What "reveal" shows for an exercise.
#[wasm_bindgen(js_name = revealExercise)]
pub fn reveal_exercise(exercise: JsValue) -> Result<JsValue, JsError> {
    let exercise = exercise_from_js(&exercise)?;
    to_js(&exercise.reveal().map_err(|e| JsError::new(&e.to_string()))?)
}
