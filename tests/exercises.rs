//! The exercises: every built-in one is answered by the engine (its reference passes, a wrong
//! answer fails), malformed exercises are rejected naming the exercise and the field, and the
//! example for authors in docs/exercises.md loads and works.

use checkpoint_lab::lesson::exercise::{expr, Exercise, Kind, Response, MAX_JSON_DEPTH};
use serde_json::{json, Map, Value};

#[test]
fn there_are_at_least_eight_built_in_exercises_of_every_kind() {
    let all = Exercise::builtin();
    assert!(all.len() >= 8, "{} exercises", all.len());
    for kind in [Kind::Number, Kind::Choice, Kind::Set] {
        assert!(all.iter().any(|e| e.kind == kind), "a {kind:?} exercise");
    }
}

#[test]
fn every_built_in_exercise_accepts_its_reference_and_rejects_a_wrong_answer() {
    for exercise in Exercise::builtin() {
        let id = &exercise.id;
        match exercise.kind {
            Kind::Number => {
                let reference = exercise.reference_number().unwrap();
                assert!(exercise.verdict(&Response::Number(reference)).unwrap().correct, "{id}: reference {reference}");
                let wrong = reference * 1.5 + 1_000.0;
                assert!(!exercise.verdict(&Response::Number(wrong)).unwrap().correct, "{id}: {wrong} must fail");
            }
            Kind::Choice => {
                let right = exercise.right_choices().unwrap();
                assert!(!right.is_empty(), "{id}: some choice is right");
                for choice in &exercise.choices {
                    let verdict = exercise.verdict(&Response::Choice(choice.id.clone())).unwrap();
                    assert_eq!(verdict.correct, right.contains(&choice.id), "{id}: {}", choice.id);
                }
                assert!(right.len() < exercise.choices.len(), "{id}: some choice is wrong");
            }
            Kind::Set => {
                let solved = exercise.verdict(&Response::Settings(exercise.solution.clone())).unwrap();
                assert!(solved.correct, "{id}: the solution passes");
                let untouched = exercise.verdict(&Response::Settings(Map::new())).unwrap();
                assert!(!untouched.correct, "{id}: the starting settings must not pass");
                assert_eq!(untouched.feedback, exercise.feedback.wrong);
            }
        }
        let reveal = exercise.reveal().unwrap();
        assert!(!reveal.text.is_empty(), "{id}: reveal says something");
    }
}

#[test]
fn the_lessons_numbers_are_the_references() {
    let by_id = |id: &str| Exercise::builtin().into_iter().find(|e| e.id == id).unwrap();
    assert_eq!(by_id("replay-15s-after-barrier").reference_number().unwrap(), 30_000.0);
    assert_eq!(by_id("crash-before-completion").reference_number().unwrap(), 62_000.0);
    let recovery = by_id("predict-recovery").reference_number().unwrap();
    assert!((recovery - 55.0).abs() <= 1.0, "{recovery}");
    assert_eq!(by_id("one-row-per-window").right_choices().unwrap(), vec!["upsert".to_string()]);
    assert_eq!(by_id("transactional-lag").right_choices().unwrap(), vec!["commit".to_string()]);
    // A wrong interval for the 10,000-event budget: 10 s replays 20,000.
    let budget = by_id("largest-interval-10k");
    let mut ten = Map::new();
    ten.insert("interval_ms".into(), json!(10_000));
    assert!(!budget.verdict(&Response::Settings(ten)).unwrap().correct);
}

fn valid() -> Value {
    json!({
        "id": "tiny", "title": "t", "prompt": "p", "kind": "number", "answer": "replayed_events",
        "check": "answer == replayed_events", "feedback": {"right": "r", "wrong": "w"}, "explanation": "e"
    })
}

fn error_of(value: Value) -> (String, String, String) {
    let err = Exercise::from_value(&value, 0).unwrap_err();
    (err.exercise, err.field, err.message)
}

#[test]
fn malformed_exercises_are_rejected_naming_the_exercise_and_the_field() {
    assert!(Exercise::from_value(&valid(), 0).is_ok());
    let with = |key: &str, v: Value| {
        let mut e = valid();
        e[key] = v;
        e
    };
    let without = |key: &str| {
        let mut e = valid();
        e.as_object_mut().unwrap().remove(key);
        e
    };
    let cases = [
        (without("prompt"), "tiny", "prompt"),
        (without("id"), "#1", "id"),
        (with("check", json!("answer == ")), "tiny", "check"),
        (with("check", json!("answer == no_such_field")), "tiny", "check"),
        (with("kind", json!("essay")), "tiny", "kind"),
        (with("start", json!({"interval_ms": 0})), "tiny", "start.interval_ms"),
        (with("start", json!({"intervall_ms": 5000})), "tiny", "start.config"),
        (with("answer", json!("replayed_events * 2")), "tiny", "check"),
        (with("id", json!("Has Spaces")), "Has Spaces", "id"),
        (with("surprise", json!(1)), "tiny", "surprise"),
        (with("kind", json!("choice")), "tiny", "choices"),
        (with("kind", json!("set")), "tiny", "solution"),
    ];
    for (value, exercise, field) in cases {
        let (got_exercise, got_field, message) = error_of(value.clone());
        assert_eq!((got_exercise.as_str(), got_field.as_str()), (exercise, field), "{message} for {value}");
    }
    let twice = json!([valid(), valid()]).to_string();
    let err = Exercise::list_from_json(&twice).unwrap_err();
    assert_eq!((err.exercise.as_str(), err.field.as_str()), ("tiny", "id"));
    assert!(Exercise::list_from_json("{").unwrap_err().to_string().contains("format"));
}

#[test]
fn the_documented_example_for_authors_loads_and_works() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/exercises.md")).unwrap();
    let section = doc.split("# Writing exercises").nth(1).expect("docs/exercises.md has the section");
    let json = section.split("```json\n").nth(1).and_then(|s| s.split("```").next()).expect("a json block");
    let list = Exercise::list_from_json(json).unwrap();
    assert_eq!(list.len(), 1);
    let exercise = &list[0];
    let reference = exercise.reference_number().unwrap();
    assert!(exercise.verdict(&Response::Number(reference)).unwrap().correct);
    assert!(!exercise.verdict(&Response::Number(reference * 2.0)).unwrap().correct);
}

#[test]
fn builtin_json_validates() {
    let text = checkpoint_lab::lesson::exercise::BUILTIN_JSON;
    if let Err(e) = Exercise::list_from_json(text) {
        panic!("{e}");
    }
}

/// Arrays nested `levels` deep around `inner`.
fn nested(levels: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(levels), "]".repeat(levels))
}

#[test]
fn deep_nesting_is_refused_naming_the_exercise_and_the_field_before_parsing() {
    let error = |text: &str| {
        let e = Exercise::list_from_json(text).unwrap_err();
        (e.exercise, e.field, e.message)
    };
    // 10,000 nested arrays: a typed error, not a stack overflow.
    let (exercise, field, message) = error(&nested(10_000, ""));
    assert_eq!((exercise.as_str(), field.as_str()), ("#1", "format"));
    assert_eq!(message, format!("nests deeper than {MAX_JSON_DEPTH} levels (at byte {MAX_JSON_DEPTH})"));
    // Deep inside the second exercise's start: that exercise and that field are named.
    let mut second = valid();
    second["id"] = json!("second");
    let text = json!([valid(), second]).to_string().replacen(
        r#""id":"second""#,
        &format!(r#""id":"second","start":{{"a":{}}}"#, nested(10_000, "1")),
        1,
    );
    let (exercise, field, message) = error(&text);
    assert_eq!((exercise.as_str(), field.as_str()), ("#2", "start"), "{message}");
    // Brackets inside strings do not count.
    let mut brackets = valid();
    brackets["explanation"] = json!("[".repeat(10_000));
    Exercise::list_from_json(&json!([brackets]).to_string()).unwrap();
    // Within the bound nesting is read as usual (the field is then checked for its meaning).
    let (_, field, message) = error(&json!([valid()]).to_string().replacen(
        "{",
        &format!(r#"{{"start":{{"a":{}}},"#, nested(MAX_JSON_DEPTH - 4, "1")),
        1,
    ));
    assert_eq!(field, "start.config", "{message}");
    // A value built in memory is checked the same way.
    let mut deep = json!(1);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    let mut exercise = valid();
    exercise["hints"] = deep;
    assert_eq!(
        error_of(exercise),
        ("tiny".into(), "hints".into(), format!("nests deeper than {MAX_JSON_DEPTH} levels"))
    );
    // Size is bounded before anything is parsed.
    let huge = format!("[{}]", " ".repeat(2_000_000));
    assert_eq!(error(&huge).1, "format");
}

#[test]
fn a_check_nested_1000_parentheses_deep_is_a_typed_error() {
    let mut exercise = valid();
    exercise["check"] = json!(format!("{}answer{} == replayed_events", "(".repeat(1_000), ")".repeat(1_000)));
    let (name, field, message) = error_of(exercise);
    assert_eq!((name.as_str(), field.as_str()), ("tiny", "check"));
    assert_eq!(message, format!("nests deeper than {} levels at {}", expr::MAX_NESTING, expr::MAX_NESTING));
    let mut exercise = valid();
    exercise["answer"] = json!("-".repeat(1_000) + "1");
    assert_eq!(error_of(exercise).1, "answer");
}
