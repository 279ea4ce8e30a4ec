//! The exercises: every built-in one is answered by the engine (its reference passes, a wrong
//! answer fails), malformed exercises are rejected naming the exercise and the field, and the
//! example for authors in docs/exercises.md loads and works.

use checkpoint_lab::lesson::exercise::{expr, Exercise, Kind, Response, MAX_JSON_DEPTH};
use checkpoint_lab::lesson::simulate;
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

/// The report of an exercise's start settings, as the check sees it.
fn report_of(exercise: &Exercise) -> Value {
    serde_json::to_value(simulate(&exercise.start_config().unwrap()).unwrap()).unwrap()
}

/// The typical wrong value of each listed mistake, in the order the exercise lists them,
/// computed here from the report.
fn typical_wrong_values(id: &str, r: &Value) -> Vec<f64> {
    let n = |path: &str| -> f64 {
        let mut v = r;
        for part in path.split('.') {
            v = &v[part];
        }
        v.as_f64().unwrap_or_else(|| panic!("{id}: {path} is not a number ({v})"))
    };
    let partitions = n("config.partitions");
    let rate = n("config.rate_per_s");
    let replayed = n("replayed_events");
    match id {
        "replay-15s-after-barrier" => {
            // Checkpoint 41's offsets are one interval of input before checkpoint 42's.
            let checkpoint_41 = n("restored_checkpoint.offset") - rate * n("config.interval_ms") / 1000.0;
            vec![
                n("crash.offset") - checkpoint_41,
                n("interval_replay_events"),
                n("backlog_at_restore_events"),
                replayed / partitions,
                replayed / rate,
                n("crash.offset"),
            ]
        }
        "crash-before-completion" => {
            let since_barrier_42 =
                (n("crash.at.ms") - n("restored_checkpoint.barrier_at.ms") - n("config.interval_ms")) / 1000.0 * rate;
            vec![
                since_barrier_42,
                n("interval_replay_events"),
                n("worst_case_replay_events"),
                replayed / partitions,
                replayed / rate,
            ]
        }
        "predict-recovery" => {
            let down = n("downtime_s");
            let capacity = n("config.capacity_per_s");
            vec![
                n("replay_done_at.s") - n("crash.at.s"),
                down,
                down + n("backlog_at_restore_events") / capacity,
                down + replayed / (capacity - rate),
                n("recovery_s") - n("phases.detection_s"),
            ]
        }
        "micro-batch-between-batches" => vec![
            rate * (n("crash.at.ms") - n("restored_checkpoint.barrier_at.ms")) / 1000.0,
            n("interval_replay_events"),
            rate * (n("crash.at.ms") - n("restored_checkpoint.completed_at.ms")) / 1000.0,
        ],
        "aligned-records-held" => {
            let seconds = n("restored_checkpoint.alignment_ms") / 1000.0;
            let held = rate * (partitions - 1.0) / partitions * seconds;
            vec![rate * seconds, rate / partitions * seconds, seconds, held * n("config.record_bytes")]
        }
        "unaligned-in-flight-bytes" => {
            let bytes = n("restored_checkpoint.in_flight_bytes");
            vec![
                bytes / n("config.record_bytes"),
                bytes * partitions,
                bytes * (partitions - 1.0),
                n("restored_checkpoint.size_bytes"),
            ]
        }
        "at-least-once-counted-twice" => {
            let behind_s = n("config.backpressure_ms") / 1000.0;
            vec![replayed, rate * behind_s, rate / partitions * behind_s, 0.0]
        }
        "offsets-on-a-timer-lost" => vec![replayed, n("crash.offset") - n("restored_checkpoint.offset"), 0.0],
        other => panic!("{other}: list its mistakes' typical wrong values here"),
    }
}

#[test]
fn every_listed_mistake_is_diagnosed_by_its_own_feedback() {
    let mut diagnosed = 0;
    for exercise in Exercise::builtin().into_iter().filter(|e| e.kind == Kind::Number) {
        let id = &exercise.id;
        assert!(!exercise.mistakes.is_empty(), "{id}: a number exercise lists its common mistakes");
        let wrong = typical_wrong_values(id, &report_of(&exercise));
        assert_eq!(wrong.len(), exercise.mistakes.len(), "{id}: one typical wrong value per mistake");
        for (i, value) in wrong.into_iter().enumerate() {
            let verdict = exercise.verdict(&Response::Number(value)).unwrap();
            assert!(!verdict.correct, "{id}: {value} must be wrong");
            assert_eq!(verdict.mistake, Some(i), "{id}: {value} is mistake {i}");
            assert_eq!(verdict.feedback, exercise.mistakes[i].feedback, "{id}: {value}");
            diagnosed += 1;
        }
        // A wrong answer that is no listed mistake gets the general feedback.
        let reference = exercise.reference_number().unwrap();
        let unlisted = exercise.verdict(&Response::Number(reference * 1.37 + 7_777.0)).unwrap();
        assert_eq!((unlisted.correct, unlisted.mistake), (false, None), "{id}");
        assert_eq!(unlisted.feedback, exercise.feedback.wrong, "{id}");
        // The right answer is never diagnosed as a mistake.
        assert_eq!(exercise.verdict(&Response::Number(reference)).unwrap().mistake, None, "{id}");
    }
    assert!(diagnosed >= 25, "{diagnosed} mistakes diagnosed");
}

#[test]
fn answering_90000_on_the_first_exercise_says_it_counted_from_checkpoint_41() {
    let first = Exercise::builtin().into_iter().find(|e| e.id == "replay-15s-after-barrier").unwrap();
    let verdict = first.verdict(&Response::Number(90_000.0)).unwrap();
    assert!(!verdict.correct);
    assert!(verdict.feedback.contains("checkpoint 41"), "{}", verdict.feedback);
}

#[test]
fn the_new_exercises_answers_are_the_engines() {
    let by_id = |id: &str| Exercise::builtin().into_iter().find(|e| e.id == id).unwrap();
    // 11 fast partitions × 2,000/12 a second × 2.999 s of alignment.
    let held = by_id("aligned-records-held").reference_number().unwrap();
    assert!((held - 5_500.0).abs() <= 10.0, "{held}");
    // 3 s of the slow partition's 2,000/12 records a second, 1 kB each.
    assert_eq!(by_id("unaligned-in-flight-bytes").reference_number().unwrap(), 500_000.0);
    // At least once: the records held back when aligned are the ones counted twice.
    let twice = by_id("at-least-once-counted-twice").reference_number().unwrap();
    assert!((twice - held).abs() <= 1.0, "{twice} vs {held}");
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
    let mistake = |check: Value, feedback: Value| json!([{"check": check, "feedback": feedback}]);
    let mistake_cases = [
        (with("mistakes", json!("90000")), "mistakes"),
        (with("mistakes", json!([1])), "mistakes[0]"),
        (with("mistakes", mistake(json!("answer == "), json!("f"))), "mistakes[0].check"),
        (with("mistakes", mistake(json!("answer == no_such_field"), json!("f"))), "mistakes[0].check"),
        (with("mistakes", mistake(json!("answer + 1"), json!("f"))), "mistakes[0].check"),
        (with("mistakes", mistake(json!("answer == replayed_events"), json!("f"))), "mistakes[0].check"),
        (with("mistakes", mistake(json!("answer == 1"), json!(" "))), "mistakes[0].feedback"),
        (with("mistakes", mistake(json!("answer == 1"), json!(2))), "mistakes[0].feedback"),
        (with("mistakes", json!([{"check": "answer == 1"}])), "mistakes[0].feedback"),
        (with("mistakes", json!([{"check": "answer == 1", "feedback": "f", "hint": "h"}])), "mistakes[0].hint"),
    ];
    for (value, field) in mistake_cases {
        let (got_exercise, got_field, message) = error_of(value.clone());
        assert_eq!((got_exercise.as_str(), got_field.as_str()), ("tiny", field), "{message} for {value}");
    }
    let mut choice = with("kind", json!("choice"));
    choice["choices"] = json!([{"id": "a", "label": "A"}, {"id": "b", "label": "B"}]);
    choice["check"] = json!("choice == 'a'");
    assert!(Exercise::from_value(&choice, 0).is_ok());
    choice["mistakes"] = mistake(json!("choice == 'b'"), json!("f"));
    assert_eq!(error_of(choice).1, "mistakes", "only number exercises list mistakes");
    let mut fine = valid();
    fine["mistakes"] = mistake(json!("answer == replayed_events / partitions"), json!("one partition"));
    let fine = Exercise::from_value(&fine, 0).unwrap();
    assert_eq!(fine.verdict(&Response::Number(2_500.0)).unwrap().feedback, "one partition");
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
    // Its mistakes diagnose counting from the 10:01:30 checkpoint (80,000 events) and seconds.
    assert_eq!(exercise.verdict(&Response::Number(reference * 4.0)).unwrap().mistake, Some(0));
    assert_eq!(exercise.verdict(&Response::Number(10.0)).unwrap().mistake, Some(1));
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
