//! Exercises: predict a number, choose an answer, or set the sliders so that a condition holds.
//! An exercise is data (JSON); its check is an expression over the report and the
//! settings, so every verdict comes from a simulation, never from a stored answer.

pub mod expr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

use crate::engine::settings::config::{Config, FieldValue};
use crate::engine::settings::units::format_count;

/// Every field of an exercise, and those it must have.
pub const FIELDS: [&str; 15] = [
    "id",
    "title",
    "prompt",
    "kind",
    "start",
    "check",
    "answer",
    "unit",
    "choices",
    "solution",
    "controls",
    "hints",
    "feedback",
    "mistakes",
    "explanation",
];
const REQUIRED: [&str; 7] = ["id", "title", "prompt", "kind", "check", "feedback", "explanation"];

/// The built-in exercises of the lesson.
pub const BUILTIN_JSON: &str = include_str!("builtin.json");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Predict a number; `answer` computes the reference from the report.
    Number,
    /// Choose one of `choices`; the check decides which ones are right.
    Choice,
    /// Set the controls so that the check holds; `solution` is one setting that does.
    Set,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    pub id: String,
    pub label: String,
}

/// A common wrong answer: when `check` holds for a wrong answer, the student reads this
/// mistake's `feedback` instead of the generic wrong text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mistake {
    /// An expression over the report, the settings and `answer` (the number typed): true when
    /// the answer is this mistake.
    pub check: String,
    pub feedback: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Feedback {
    pub right: String,
    pub wrong: String,
}

/// One exercise, as authors write it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exercise {
    pub id: String,
    pub title: String,
    pub prompt: String,
    pub kind: Kind,
    /// Settings the exercise starts from (config keys, as `simulate` takes them).
    #[serde(default)]
    pub start: Map<String, Value>,
    /// True when the student's answer is right. Names: report fields, settings, and `answer`
    /// (number) or `choice` (the chosen id).
    pub check: String,
    /// Number kind: the reference answer, computed from the report of the start settings.
    #[serde(default)]
    pub answer: Option<String>,
    /// Number kind: the unit shown beside the input.
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// Set kind: settings (on top of `start`) that satisfy the check, shown on reveal.
    #[serde(default)]
    pub solution: Map<String, Value>,
    /// Set kind: which controls the student uses, e.g. "interval".
    #[serde(default)]
    pub controls: Option<String>,
    #[serde(default)]
    pub hints: Vec<String>,
    pub feedback: Feedback,
    /// Number kind: common wrong answers, each with its own feedback; the first that matches a
    /// wrong answer is shown.
    #[serde(default)]
    pub mistakes: Vec<Mistake>,
    pub explanation: String,
}

/// A malformed exercise: names the exercise and the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExerciseError {
    pub exercise: String,
    pub field: String,
    pub message: String,
}

impl fmt::Display for ExerciseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exercise {:?}: {}: {}", self.exercise, self.field, self.message)
    }
}

/// What runs the simulation a check reads. Natively it is the engine itself ([`Engine`]); in the
/// exercises' WebAssembly module, which carries no engine of its own, it is the lab's engine,
/// called through the page.
pub trait Simulator {
    /// A run of `config` as a check reads it: the report as JSON, without its series and
    /// timeline; or the field and message of what stopped the run.
    fn run(&self, config: &Config) -> Result<Value, (String, String)>;
}

/// The engine, run in this process.
pub struct Engine;

impl Simulator for Engine {
    fn run(&self, config: &Config) -> Result<Value, (String, String)> {
        let report = super::simulate(config).map_err(|e| (e.field.to_string(), e.message))?;
        let mut value = serde_json::to_value(&report).map_err(|e| ("report".to_string(), e.to_string()))?;
        if let Some(object) = value.as_object_mut() {
            object.remove("series");
            object.remove("timeline");
        }
        Ok(value)
    }
}

impl std::error::Error for ExerciseError {}

/// What the student answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    Number(f64),
    Choice(String),
    /// The settings the student set (config keys), on top of the exercise's start.
    Settings(Map<String, Value>),
}

/// The engine's verdict on a response.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    pub correct: bool,
    pub feedback: String,
    /// The index in `mistakes` of the mistake the wrong answer matched, if any.
    pub mistake: Option<usize>,
}

/// What "reveal" shows: the answer in words and, for set exercises, the settings to apply.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reveal {
    pub text: String,
    pub settings: Option<Map<String, Value>>,
    pub choices: Vec<String>,
}

/// How deeply an exercise file may nest: the list, an exercise, its `start`, `choices` or
/// `feedback` and their values need 4; anything deeper is refused before it is parsed.
pub const MAX_JSON_DEPTH: usize = 16;
/// The largest exercise file, in bytes (the built-in file is about 15 kB).
pub const MAX_FILE_BYTES: usize = 1_000_000;

/// Scans an exercise file's brackets, outside strings, and refuses one nested deeper than
/// [`MAX_JSON_DEPTH`], naming the exercise (by position) and its field, before the parser (which
/// recurses) sees it.
fn check_depth(text: &str) -> Result<(), ExerciseError> {
    let (mut depth, mut item) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    let (mut string_start, mut last_string) = (0, 0..0);
    let mut field = "";
    for (i, byte) in text.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    last_string = string_start..i;
                }
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                string_start = i + 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth == 2 {
                    field = "";
                }
                if depth > MAX_JSON_DEPTH {
                    return Err(ExerciseError {
                        exercise: format!("#{}", item + 1),
                        field: if field.is_empty() { "format".into() } else { field.into() },
                        message: format!("nests deeper than {MAX_JSON_DEPTH} levels (at byte {i})"),
                    });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => item += 1,
            b':' if depth == 2 => field = &text[last_string.clone()],
            _ => {}
        }
    }
    Ok(())
}

/// Reads an exercise file: a JSON array of exercise objects. Its size and nesting are bounded
/// before it is parsed.
fn json_array(text: &str) -> Result<Vec<Value>, ExerciseError> {
    let file_error = |message: String| ExerciseError { exercise: "(file)".into(), field: "format".into(), message };
    if text.len() > MAX_FILE_BYTES {
        return Err(file_error(format!("is {} bytes, more than the {MAX_FILE_BYTES} allowed", text.len())));
    }
    check_depth(text)?;
    match serde_json::from_str(text).map_err(|e| file_error(e.to_string()))? {
        Value::Array(items) => Ok(items),
        _ => Err(file_error("must be a JSON array of exercises".into())),
    }
}

/// The first of an exercise's fields whose value nests deeper than [`MAX_JSON_DEPTH`] levels
/// below the list, found without recursion.
fn too_deep_field(exercise: &Map<String, Value>) -> Option<&str> {
    for (key, value) in exercise {
        let mut stack = vec![(value, 3)];
        while let Some((v, depth)) = stack.pop() {
            let children: Box<dyn Iterator<Item = &Value>> = match v {
                Value::Array(items) => Box::new(items.iter()),
                Value::Object(map) => Box::new(map.values()),
                _ => continue,
            };
            if depth > MAX_JSON_DEPTH {
                return Some(key);
            }
            stack.extend(children.map(|c| (c, depth + 1)));
        }
    }
    None
}

fn to_fields(settings: &Map<String, Value>) -> Vec<(String, FieldValue)> {
    settings
        .iter()
        .map(|(k, v)| {
            let value = match v {
                Value::Number(n) => FieldValue::Number(n.as_f64().unwrap_or(f64::NAN)),
                Value::String(s) => FieldValue::Text(s.clone()),
                Value::Null => FieldValue::Null,
                Value::Bool(_) => FieldValue::Other("boolean".into()),
                Value::Array(_) => FieldValue::Other("array".into()),
                Value::Object(_) => FieldValue::Other("object".into()),
            };
            (k.clone(), value)
        })
        .collect()
}

impl Exercise {
    fn error(&self, field: &str, message: impl Into<String>) -> ExerciseError {
        ExerciseError { exercise: self.id.clone(), field: field.to_string(), message: message.into() }
    }

    /// Reads one exercise from JSON, naming the exercise (its id, or its position) on error.
    pub fn from_value(value: &Value, position: usize) -> Result<Exercise, ExerciseError> {
        Exercise::from_value_with(value, position, &Engine)
    }

    /// [`Exercise::from_value`], validated with the runs of `engine`.
    pub fn from_value_with(value: &Value, position: usize, engine: &dyn Simulator) -> Result<Exercise, ExerciseError> {
        let exercise = Exercise::parse_unvalidated(value, position)?;
        exercise.validate_with(engine)?;
        Ok(exercise)
    }

    /// Reads a JSON array of exercises and checks their shape and expressions, without running
    /// the simulations that `validate` runs.
    pub fn parse_list_unvalidated(text: &str) -> Result<Vec<Exercise>, ExerciseError> {
        let items = json_array(text)?;
        items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let e = Exercise::parse_unvalidated(v, i)?;
                expr::parse(&e.check).map_err(|m| e.error("check", m))?;
                if let Some(answer) = &e.answer {
                    expr::parse(answer).map_err(|m| e.error("answer", m))?;
                }
                e.parse_mistakes()?;
                Ok(e)
            })
            .collect()
    }

    /// Reads one exercise's fields, checking names, required fields and types.
    fn parse_unvalidated(value: &Value, position: usize) -> Result<Exercise, ExerciseError> {
        let name = value.get("id").and_then(Value::as_str).map_or_else(|| format!("#{}", position + 1), str::to_string);
        let fail =
            |field: &str, message: String| ExerciseError { exercise: name.clone(), field: field.into(), message };
        let object = value.as_object().ok_or_else(|| fail("format", "must be a JSON object".into()))?;
        if let Some(key) = too_deep_field(object) {
            return Err(fail(key, format!("nests deeper than {MAX_JSON_DEPTH} levels")));
        }
        for key in object.keys() {
            if !FIELDS.contains(&key.as_str()) {
                return Err(fail(key, format!("unknown field; the fields are {}", FIELDS.join(", "))));
            }
        }
        for key in REQUIRED {
            if !object.contains_key(key) {
                return Err(fail(key, "is required".into()));
            }
        }
        if !matches!(object.get("kind").and_then(Value::as_str), Some("number" | "choice" | "set")) {
            return Err(fail("kind", format!("must be \"number\", \"choice\" or \"set\" (got {})", object["kind"])));
        }
        for key in FIELDS {
            if let Some(v) = object.get(key) {
                let shape_ok = match key {
                    "start" | "solution" | "feedback" => v.is_object(),
                    "choices" | "hints" | "mistakes" => v.is_array(),
                    "answer" | "unit" | "controls" => v.is_string() || v.is_null(),
                    _ => v.is_string(),
                };
                if !shape_ok {
                    return Err(fail(key, format!("has the wrong type ({v})")));
                }
            }
        }
        if let Some(Value::Array(mistakes)) = object.get("mistakes") {
            for (i, mistake) in mistakes.iter().enumerate() {
                let field = format!("mistakes[{i}]");
                let item = mistake.as_object().ok_or_else(|| fail(&field, "must be an object".into()))?;
                for key in item.keys() {
                    if key != "check" && key != "feedback" {
                        return Err(fail(
                            &format!("{field}.{key}"),
                            "unknown field; the fields are check, feedback".into(),
                        ));
                    }
                }
                for key in ["check", "feedback"] {
                    match item.get(key) {
                        Some(Value::String(_)) => {}
                        Some(v) => return Err(fail(&format!("{field}.{key}"), format!("has the wrong type ({v})"))),
                        None => return Err(fail(&format!("{field}.{key}"), "is required".into())),
                    }
                }
            }
        }
        serde_json::from_value(value.clone()).map_err(|e| fail("format", e.to_string()))
    }

    /// Reads a JSON array of exercises.
    pub fn list_from_json(text: &str) -> Result<Vec<Exercise>, ExerciseError> {
        Exercise::list_from_json_with(text, &Engine)
    }

    /// [`Exercise::list_from_json`], validated with the runs of `engine`.
    pub fn list_from_json_with(text: &str, engine: &dyn Simulator) -> Result<Vec<Exercise>, ExerciseError> {
        let items = json_array(text)?;
        let list = items
            .iter()
            .enumerate()
            .map(|(i, v)| Exercise::from_value_with(v, i, engine))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, e) in list.iter().enumerate() {
            if list[..i].iter().any(|other| other.id == e.id) {
                return Err(e.error("id", "is used by another exercise"));
            }
        }
        Ok(list)
    }

    /// The built-in exercises. Their full validation (each reference answer passing its check)
    /// runs simulations, so it happens in the tests, not every time a page loads.
    pub fn builtin() -> Vec<Exercise> {
        Exercise::parse_list_unvalidated(BUILTIN_JSON).expect("the built-in exercises are valid (tested)")
    }

    /// The settings the exercise starts from.
    pub fn start_config(&self) -> Result<Config, ExerciseError> {
        Config::from_fields(&to_fields(&self.start)).map_err(|e| self.error(&format!("start.{}", e.field), e.message))
    }

    fn config_with(&self, settings: &Map<String, Value>) -> Result<Config, ExerciseError> {
        let mut merged = self.start.clone();
        merged.extend(settings.iter().map(|(k, v)| (k.clone(), v.clone())));
        Config::from_fields(&to_fields(&merged)).map_err(|e| self.error(e.field, e.message))
    }

    /// Checks that the mistakes belong to a number exercise, say something and parse.
    fn parse_mistakes(&self) -> Result<(), ExerciseError> {
        if !self.mistakes.is_empty() && self.kind != Kind::Number {
            return Err(self.error("mistakes", "only a number exercise lists mistakes"));
        }
        for (i, mistake) in self.mistakes.iter().enumerate() {
            let field = format!("mistakes[{i}]");
            if mistake.feedback.trim().is_empty() {
                return Err(self.error(&format!("{field}.feedback"), "must not be empty"));
            }
            expr::parse(&mistake.check).map_err(|e| self.error(&format!("{field}.check"), e))?;
        }
        Ok(())
    }

    /// Checks the shape and that the reference answer passes its own check.
    pub fn validate(&self) -> Result<(), ExerciseError> {
        self.validate_with(&Engine)
    }

    /// [`Exercise::validate`] with the runs of `engine`.
    pub fn validate_with(&self, engine: &dyn Simulator) -> Result<(), ExerciseError> {
        let id_ok =
            !self.id.is_empty() && self.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !id_ok {
            return Err(self.error("id", "must be lower-case letters, digits and dashes"));
        }
        for (field, text) in [("title", &self.title), ("prompt", &self.prompt), ("explanation", &self.explanation)] {
            if text.trim().is_empty() {
                return Err(self.error(field, "must not be empty"));
            }
        }
        expr::parse(&self.check).map_err(|e| self.error("check", e))?;
        self.parse_mistakes()?;
        self.start_config()?;
        match self.kind {
            Kind::Number => {
                let answer =
                    self.answer.as_deref().ok_or_else(|| self.error("answer", "a number exercise needs one"))?;
                expr::parse(answer).map_err(|e| self.error("answer", e))?;
                let reference = self.reference_number_with(engine)?;
                if !self.verdict_with(&Response::Number(reference), engine)?.correct {
                    return Err(self.error("check", format!("the reference answer {reference} does not pass it")));
                }
                // Each mistake is a boolean over the report and the answer, and the right answer
                // is none of them.
                let mut scope = self.scope(&self.start_config()?, engine)?;
                scope["answer"] = Value::from(reference);
                for i in 0..self.mistakes.len() {
                    if self.mistake_matches(i, &scope)? {
                        return Err(self.error(
                            &format!("mistakes[{i}].check"),
                            format!("matches the reference answer {reference}"),
                        ));
                    }
                }
            }
            Kind::Choice => {
                if self.choices.len() < 2 {
                    return Err(self.error("choices", "a choice exercise needs at least two"));
                }
                for (i, c) in self.choices.iter().enumerate() {
                    if self.choices[..i].iter().any(|o| o.id == c.id) {
                        return Err(self.error("choices", format!("the id {:?} is used twice", c.id)));
                    }
                }
                if self.right_choices_with(engine)?.is_empty() {
                    return Err(self.error("check", "no choice passes it"));
                }
            }
            Kind::Set => {
                if self.solution.is_empty() {
                    return Err(self.error("solution", "a set exercise needs settings that pass the check"));
                }
                if !self.verdict_with(&Response::Settings(self.solution.clone()), engine)?.correct {
                    return Err(self.error("check", "the solution does not pass it"));
                }
            }
        }
        Ok(())
    }

    /// The scope the check sees: the report (without its series) with the settings at top level.
    fn scope(&self, config: &Config, engine: &dyn Simulator) -> Result<Value, ExerciseError> {
        let mut scope = engine.run(config).map_err(|(field, message)| self.error(&field, message))?;
        let object = scope.as_object_mut().ok_or_else(|| self.error("report", "must be a JSON object"))?;
        object.remove("series");
        object.remove("timeline");
        if let Value::Object(settings) =
            serde_json::to_value(config).map_err(|e| self.error("config", e.to_string()))?
        {
            for (k, v) in settings {
                object.insert(k, v);
            }
        }
        Ok(scope)
    }

    fn evaluate(&self, field: &str, source: &str, scope: &Value) -> Result<expr::Val, ExerciseError> {
        let parsed = expr::parse(source).map_err(|e| self.error(field, e))?;
        expr::eval(&parsed, scope).map_err(|e| self.error(field, e))
    }

    /// Number kind: the reference answer computed by the engine.
    pub fn reference_number(&self) -> Result<f64, ExerciseError> {
        self.reference_number_with(&Engine)
    }

    /// [`Exercise::reference_number`] with the runs of `engine`.
    pub fn reference_number_with(&self, engine: &dyn Simulator) -> Result<f64, ExerciseError> {
        let scope = self.scope(&self.start_config()?, engine)?;
        let source = self.answer.as_deref().unwrap_or("null");
        match self.evaluate("answer", source, &scope)? {
            expr::Val::Number(n) => Ok(n),
            other => Err(self.error("answer", format!("must compute a number, got {other:?}"))),
        }
    }

    /// Choice kind: the ids of the choices that pass the check.
    pub fn right_choices(&self) -> Result<Vec<String>, ExerciseError> {
        self.right_choices_with(&Engine)
    }

    /// [`Exercise::right_choices`] with the runs of `engine`.
    pub fn right_choices_with(&self, engine: &dyn Simulator) -> Result<Vec<String>, ExerciseError> {
        let mut scope = self.scope(&self.start_config()?, engine)?;
        let mut right = Vec::new();
        for choice in &self.choices {
            scope["choice"] = Value::String(choice.id.clone());
            if self.evaluate("check", &self.check, &scope)? == expr::Val::Bool(true) {
                right.push(choice.id.clone());
            }
        }
        Ok(right)
    }

    /// Checks a response with the engine.
    pub fn verdict(&self, response: &Response) -> Result<Verdict, ExerciseError> {
        self.verdict_with(response, &Engine)
    }

    /// [`Exercise::verdict`] with the runs of `engine`.
    pub fn verdict_with(&self, response: &Response, engine: &dyn Simulator) -> Result<Verdict, ExerciseError> {
        let mut scope = match response {
            Response::Settings(settings) => self.scope(&self.config_with(settings)?, engine)?,
            _ => self.scope(&self.start_config()?, engine)?,
        };
        match (self.kind, response) {
            (Kind::Number, Response::Number(n)) if n.is_finite() => scope["answer"] = Value::from(*n),
            (Kind::Number, _) => return Err(self.error("answer", "give a number")),
            (Kind::Choice, Response::Choice(id)) if self.choices.iter().any(|c| &c.id == id) => {
                scope["choice"] = Value::String(id.clone())
            }
            (Kind::Choice, _) => return Err(self.error("choice", "pick one of the choices")),
            (Kind::Set, Response::Settings(_)) => {}
            (Kind::Set, _) => return Err(self.error("settings", "set the controls and check")),
        }
        let correct = match self.evaluate("check", &self.check, &scope)? {
            expr::Val::Bool(b) => b,
            other => return Err(self.error("check", format!("must be true or false, got {other:?}"))),
        };
        if correct {
            return Ok(Verdict { correct, feedback: self.feedback.right.clone(), mistake: None });
        }
        for i in 0..self.mistakes.len() {
            if self.mistake_matches(i, &scope)? {
                return Ok(Verdict { correct, feedback: self.mistakes[i].feedback.clone(), mistake: Some(i) });
            }
        }
        Ok(Verdict { correct, feedback: self.feedback.wrong.clone(), mistake: None })
    }

    /// Whether mistake `i`'s check holds in `scope` (the report, the settings and the answer).
    fn mistake_matches(&self, i: usize, scope: &Value) -> Result<bool, ExerciseError> {
        let field = format!("mistakes[{i}].check");
        match self.evaluate(&field, &self.mistakes[i].check, scope)? {
            expr::Val::Bool(b) => Ok(b),
            other => Err(self.error(&field, format!("must be true or false, got {other:?}"))),
        }
    }

    /// The answer, for "reveal".
    pub fn reveal(&self) -> Result<Reveal, ExerciseError> {
        self.reveal_with(&Engine)
    }

    /// [`Exercise::reveal`] with the runs of `engine`.
    pub fn reveal_with(&self, engine: &dyn Simulator) -> Result<Reveal, ExerciseError> {
        Ok(match self.kind {
            Kind::Number => {
                let n = self.reference_number_with(engine)?;
                let unit = self.unit.as_deref().map_or(String::new(), |u| format!(" {u}"));
                let shown =
                    if n.fract() == 0.0 && n.abs() < 1e15 { format_count(n.abs() as u64) } else { format!("{n:.1}") };
                Reveal { text: format!("{shown}{unit}"), settings: None, choices: Vec::new() }
            }
            Kind::Choice => {
                let right = self.right_choices_with(engine)?;
                let labels: Vec<&str> =
                    self.choices.iter().filter(|c| right.contains(&c.id)).map(|c| c.label.as_str()).collect();
                Reveal { text: labels.join("; "), settings: None, choices: right }
            }
            Kind::Set => Reveal {
                text: "These settings pass the check; they are now set.".into(),
                settings: Some(self.solution.clone()),
                choices: Vec::new(),
            },
        })
    }
}
