//! wasm-bindgen tests, run in headless Chrome and Firefox by `wasm-pack test`: the chart draws
//! into a real canvas, serde values cross the boundary, bad input throws an Error naming the
//! field, and the browser build's reports match the digests the native build recorded.
#![cfg(target_arch = "wasm32")]

mod common;

use checkpoint_lab::lesson;
use checkpoint_lab::web::{defaults, simulate, Lab};
use common::{digest, digest_scenarios};
use js_sys::{Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

wasm_bindgen_test_configure!(run_in_browser);

fn canvas(width: u32, height: u32) -> HtmlCanvasElement {
    let document = web_sys::window().unwrap().document().unwrap();
    let canvas: HtmlCanvasElement = document.create_element("canvas").unwrap().dyn_into().unwrap();
    canvas.set_width(width);
    canvas.set_height(height);
    document.body().unwrap().append_child(&canvas).unwrap();
    canvas
}

/// Drawn pixels that are not (near) white.
fn ink(canvas: &HtmlCanvasElement) -> usize {
    let context: CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let data = context.get_image_data(0.0, 0.0, canvas.width().into(), canvas.height().into()).unwrap().data();
    data.chunks(4).filter(|p| p[3] > 0 && (p[0] < 200 || p[1] < 200 || p[2] < 200)).count()
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

fn config(pairs: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in pairs {
        Reflect::set(&object, &JsValue::from_str(key), value).unwrap();
    }
    object.into()
}

#[wasm_bindgen_test]
fn the_replay_chart_draws_pixels_on_a_canvas() {
    let mut lab = Lab::new();
    lab.run(JsValue::UNDEFINED).unwrap();
    let target = canvas(640, 320);
    assert_eq!(ink(&target), 0);
    lab.draw("replay", target.clone(), false, 1.0, None).unwrap();
    let drawn = ink(&target);
    assert!(drawn > 2_000, "the chart drew {drawn} pixels");
    // Another interval draws another picture.
    lab.run(config(&[("interval_ms", JsValue::from_f64(120_000.0))])).unwrap();
    let other = canvas(640, 320);
    lab.draw("replay", other.clone(), false, 1.0, None).unwrap();
    assert_ne!(ink(&other), drawn);
}

#[wasm_bindgen_test]
fn the_report_crosses_the_boundary_as_a_plain_object() {
    let report = simulate(JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&report, "replayed_events").as_f64(), Some(30_000.0));
    let restored = get(&report, "restored_checkpoint");
    assert_eq!(get(&restored, "id").as_f64(), Some(42.0));
    assert_eq!(get(&get(&report, "caught_up_at"), "at").as_string().unwrap().get(..7), Some("10:01:4"));
    assert!(js_sys::Array::is_array(&get(&report, "series")));
    let settings = defaults().unwrap();
    assert_eq!(get(&settings, "interval_ms").as_f64(), Some(30_000.0));
    assert_eq!(get(&settings, "alignment").as_string().as_deref(), Some("aligned"));
}

#[wasm_bindgen_test]
fn bad_input_throws_an_error_naming_the_field_and_the_lab_stays_usable() {
    let mut lab = Lab::new();
    let cases: [(&str, JsValue, &str); 11] = [
        ("interval_ms", JsValue::from_f64(f64::NAN), "interval_ms"),
        ("interval_ms", JsValue::from_f64(f64::INFINITY), "interval_ms"),
        ("interval_ms", JsValue::from_f64(-5.0), "interval_ms"),
        ("state_bytes", JsValue::from_f64(1.5), "state_bytes"),
        ("state_bytes", JsValue::from_f64(2f64.powi(60)), "state_bytes"),
        ("partitions", JsValue::from_str("twelve"), "partitions"),
        ("interval_ms", JsValue::NULL, "interval_ms"),
        ("interval_ms", JsValue::from_f64(0.0), "between 100 ms and 1 h"),
        ("crash_at_ms", JsValue::from_f64(1.0), "crash_at_ms"),
        ("no_such_setting", JsValue::from_f64(1.0), "unknown field"),
        ("rate_per_s", JsValue::TRUE, "rate_per_s"),
    ];
    for (key, value, needle) in cases {
        let error = lab.run(config(&[(key, value)])).map(|_| ()).unwrap_err();
        let error: JsValue = error.into();
        let message = error.dyn_ref::<js_sys::Error>().expect("a thrown Error").message().as_string().unwrap();
        assert!(message.contains(needle), "{key}: {message}");
    }
    // Over the memory budget: refused before anything is allocated, not a trap.
    let huge = config(&[
        ("rate_per_s", JsValue::from_f64(1e6)),
        ("capacity_per_s", JsValue::from_f64(2e6)),
        ("horizon_ms", JsValue::from_f64(86_400_000.0)),
        ("products", JsValue::from_f64(100_000.0)),
    ]);
    let error: JsValue = simulate(huge).unwrap_err().into();
    let message = error.dyn_ref::<js_sys::Error>().unwrap().message().as_string().unwrap();
    assert!(message.contains("horizon_ms") && message.contains("budget"), "{message}");
    let summary = lab.run(JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&summary, "replayed_events").as_f64(), Some(30_000.0));
}

#[wasm_bindgen_test]
fn the_browser_build_reproduces_the_native_reports() {
    let recorded = include_str!("fixtures/report-digests.txt");
    for (name, config) in digest_scenarios() {
        let json = serde_json::to_string(&lesson::simulate(&config).unwrap()).unwrap();
        let line = format!("{name} {:016x}", digest(&json));
        assert!(recorded.lines().any(|l| l == line), "{name}: the wasm report differs from the native one ({line})");
    }
}

#[wasm_bindgen_test]
fn exercises_are_checked_by_the_engine_in_the_browser() {
    use checkpoint_lab::web::{builtin_exercises, check_exercise, validate_exercises};
    use wasm_bindgen::closure::Closure;
    // The exercises' checks run the engine they are given: here the lab's simulate(), as the page
    // passes it.
    let engine = Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(|config: JsValue| {
        simulate(config).map_err(JsValue::from)
    });
    let engine: &js_sys::Function = engine.as_ref().unchecked_ref();
    let all = builtin_exercises().unwrap();
    let first = js_sys::Array::from(&all).get(0);
    assert_eq!(get(&first, "id").as_string().as_deref(), Some("replay-15s-after-barrier"));
    let right = check_exercise(first.clone(), JsValue::from_f64(30_000.0), engine).unwrap();
    assert_eq!(get(&right, "correct").as_bool(), Some(true));
    let wrong = check_exercise(first.clone(), JsValue::from_f64(60_000.0), engine).unwrap();
    assert_eq!(get(&wrong, "correct").as_bool(), Some(false));
    let bad = js_sys::Array::of1(&config(&[("id", JsValue::from_str("broken"))]));
    let error: JsValue = validate_exercises(bad.into(), engine).unwrap_err().into();
    let message = error.dyn_ref::<js_sys::Error>().unwrap().message().as_string().unwrap();
    assert!(message.contains("\"broken\"") && message.contains("title"), "{message}");
    // An engine that fails is named, and the module stays usable.
    let failing = Closure::<dyn Fn(JsValue) -> Result<JsValue, JsValue>>::new(|_: JsValue| {
        Err(js_sys::Error::new("no engine here").into())
    });
    let error: JsValue = check_exercise(first.clone(), JsValue::from_f64(30_000.0), failing.as_ref().unchecked_ref())
        .unwrap_err()
        .into();
    let message = error.dyn_ref::<js_sys::Error>().unwrap().message().as_string().unwrap();
    assert!(message.contains("simulate: no engine here"), "{message}");
    assert!(check_exercise(first, JsValue::from_f64(30_000.0), engine).is_ok());
}

#[wasm_bindgen_test]
fn comparing_and_exporting_cross_the_boundary() {
    let mut lab = Lab::new();
    assert!(lab.pin().is_err(), "nothing to pin before a run");
    assert!(lab.export().is_err());
    lab.run(JsValue::UNDEFINED).unwrap();
    assert!(lab.pinned().unwrap().is_null());
    let a = lab.pin().unwrap();
    assert_eq!(get(&a, "replayed_events").as_f64(), Some(30_000.0));
    lab.run(config(&[("mode", JsValue::from_str("micro_batch"))])).unwrap();
    let pinned = lab.pinned().unwrap();
    assert_eq!(get(&get(&pinned, "config"), "mode").as_string().as_deref(), Some("barrier"));
    // B with A under it draws another picture than B alone.
    let with_a = canvas(640, 320);
    lab.draw("replay", with_a.clone(), false, 1.0, None).unwrap();
    lab.unpin();
    assert!(lab.pinned().unwrap().is_null());
    let alone = canvas(640, 320);
    lab.draw("replay", alone.clone(), false, 1.0, None).unwrap();
    assert_ne!(ink(&with_a), ink(&alone));
    let export = lab.export().unwrap();
    let spark = get(&export, "spark").as_string().unwrap();
    assert!(spark.contains("Trigger.ProcessingTime(\"30 seconds\")"), "{spark}");
    assert!(get(&export, "flink").as_string().unwrap().contains("execution.checkpointing.interval: 30 s"));
    // A bad mode names the field; the lab keeps its run.
    let error: JsValue = lab.run(config(&[("mode", JsValue::from_str("continuous"))])).map(|_| ()).unwrap_err().into();
    let message = error.dyn_ref::<js_sys::Error>().expect("a thrown Error").message().as_string().unwrap();
    assert!(message.starts_with("mode:"), "{message}");
    assert!(lab.summary().is_ok());
}

#[wasm_bindgen_test]
fn the_world_is_prepared_for_every_instant_a_bounded_step_at_a_time() {
    let mut lab = Lab::new();
    assert!(!lab.prepare_world(0.0), "nothing to prepare before a run");
    lab.run(JsValue::UNDEFINED).unwrap();
    // No budget: one step a call. The crashed run's tables are counted past the restart.
    let mut calls = 1;
    while !lab.prepare_world(0.0) {
        calls += 1;
        assert!(calls < 100, "preparing ends");
    }
    assert!(calls > 2, "a step a call: {calls} calls");
    let alternative = lab.text_alternative("pipeline").unwrap();
    let rows = js_sys::Array::from(&get(&alternative, "rows"));
    assert!(rows.length() > 5, "the world at each key instant: {} rows", rows.length());
}

/// Advances the run `begin` started to its end; returns the calls it took.
fn advance_to_end(lab: &mut Lab) -> usize {
    let mut calls = 1;
    while !get(&lab.advance(0.0, None).unwrap(), "done").as_bool().unwrap() {
        calls += 1;
    }
    calls
}

#[wasm_bindgen_test]
fn the_next_step_of_a_slider_is_run_ahead_and_taken_made() {
    let interval = |s: f64| config(&[("interval_ms", JsValue::from_f64(s * 1_000.0))]);
    let kept = |lab: &Lab| {
        let kept = lab.kept().unwrap();
        (get(&kept, "runs_ahead").as_f64().unwrap(), get(&kept, "runs_made_ahead").as_f64().unwrap())
    };
    let mut lab = Lab::new();
    lab.run(interval(30.0)).unwrap();
    assert_eq!(kept(&lab), (0.0, 0.0), "a first run plans nothing");
    // A step up the interval slider: the step beyond is planned, the way back kept.
    assert!(lab.begin(interval(40.0)).unwrap() >= 0.0);
    advance_to_end(&mut lab);
    assert_eq!(kept(&lab), (2.0, 1.0));
    // Made in idle time, no budget: a bounded step a call.
    let mut calls = 1;
    while !lab.run_ahead(0.0) {
        calls += 1;
    }
    assert!(calls > 3, "made a step a call ({calls} calls)");
    assert_eq!(kept(&lab), (2.0, 2.0));
    // The next step is taken made: nothing left to simulate, one call to finish, and the report
    // a lab of its own makes on demand.
    let next = lesson::runs::next_steps(&lesson_config(30.0), &lesson_config(40.0))[0].interval_ms as f64 / 1_000.0;
    assert_eq!(lab.begin(interval(next)).unwrap(), 0.0);
    assert_eq!(advance_to_end(&mut lab), 1);
    let mut fresh = Lab::new();
    fresh.run(interval(next)).unwrap();
    let json = |lab: &Lab| js_sys::JSON::stringify(&lab.report().unwrap()).unwrap().as_string().unwrap();
    assert_eq!(json(&lab), json(&fresh));
    // Back down two steps: the run left is kept, the one before it made again ahead.
    assert_eq!(lab.begin(interval(40.0)).unwrap(), 0.0);
    advance_to_end(&mut lab);
    while !lab.run_ahead(5.0) {}
    assert_eq!(lab.begin(interval(30.0)).unwrap(), 0.0);
    advance_to_end(&mut lab);
    fresh.run(interval(30.0)).unwrap();
    assert_eq!(json(&lab), json(&fresh));
    // Another kind of change plans nothing.
    lab.run(config(&[("interval_ms", JsValue::from_f64(40_000.0)), ("state_bytes", JsValue::from_f64(3e9))])).unwrap();
    assert_eq!(kept(&lab), (0.0, 0.0));
}

fn lesson_config(interval_s: f64) -> checkpoint_lab::engine::Config {
    checkpoint_lab::engine::Config { interval_ms: (interval_s * 1_000.0) as u64, ..Default::default() }
}

fn pixels(canvas: &HtmlCanvasElement) -> Vec<u8> {
    let context: CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    context.get_image_data(0.0, 0.0, canvas.width().into(), canvas.height().into()).unwrap().data().to_vec()
}

/// The first chart's module draws, from a scenario's settings and attributes over them, the very
/// pixels the lab draws at the same place from its own first picture, and gives back the config
/// and the cursor it drew; a bad attribute throws an Error naming it.
#[wasm_bindgen_test]
fn the_first_chart_draws_the_labs_first_picture() {
    use checkpoint_lab::web::{draw_first_chart, parse_attributes};
    let micro_batch = config(&[("mode", JsValue::from_str("micro_batch"))]);
    let attributes = config(&[("interval", JsValue::from_str("5s")), ("crash-at", JsValue::from_str("10:01:10"))]);
    // A sink named, or none: then the one the lab highlights before the student picks one.
    for (settings, sink) in [(JsValue::UNDEFINED, None), (micro_batch, Some("upsert"))] {
        let first = canvas(900, 330);
        let drawn =
            draw_first_chart(settings.clone(), attributes.clone(), first.clone(), false, 1.0, sink.map(String::from))
                .unwrap();
        let drawn_config = get(&drawn, "config");
        assert_eq!(get(&drawn_config, "interval_ms").as_f64(), Some(5_000.0));
        assert_eq!(get(&drawn, "cursor_ms").as_f64(), Some(70_000.0), "the cursor stands at the crash");

        // The lab's first picture from the config the element gives it: the scenario's settings
        // with the parsed attributes over them.
        let merged = Object::new();
        if !settings.is_undefined() {
            Object::assign(&merged, &settings.clone().into());
        }
        Object::assign(&merged, &parse_attributes(attributes.clone()).unwrap().into());
        let mut lab = Lab::new();
        if let Some(sink) = sink {
            lab.select(sink, None, 0.0).unwrap();
        }
        assert!(lab.preview(merged.into()).unwrap());
        let from_lab = canvas(900, 330);
        lab.draw("pipeline", from_lab.clone(), false, 1.0, None).unwrap();
        assert!(ink(&first) > 2_000);
        assert!(pixels(&first) == pixels(&from_lab), "the first chart differs from the lab's first picture ({sink:?})");
    }
    let bad = config(&[("interval", JsValue::from_str("0s"))]);
    let error: JsValue = draw_first_chart(JsValue::UNDEFINED, bad, canvas(10, 10), false, 1.0, Some("upsert".into()))
        .unwrap_err()
        .into();
    let message = error.dyn_ref::<js_sys::Error>().expect("a thrown Error").message().as_string().unwrap();
    assert!(message.starts_with("interval: must be between"), "{message}");
    // A first screen too long to run in a few milliseconds is left to the lab.
    let late = config(&[("crash-at", JsValue::from_str("10:05:31"))]);
    assert!(draw_first_chart(JsValue::UNDEFINED, late, canvas(10, 10), false, 1.0, Some("upsert".into()))
        .unwrap()
        .is_null());
}

/// The first chart run in one call and drawn in the next (the element's two tasks) gives the very
/// pixels of the chart run and drawn in one, and a run prepared for other settings is never drawn:
/// asked for other settings, the module runs those.
#[wasm_bindgen_test]
fn a_prepared_first_chart_is_drawn_only_for_its_own_settings() {
    use checkpoint_lab::web::{draw_first_chart, prepare_first_chart};
    let at = |interval: &str| {
        config(&[("interval", JsValue::from_str(interval)), ("crash-at", JsValue::from_str("10:01:10"))])
    };
    let drawn = |attributes: JsValue| {
        let drawn = canvas(900, 330);
        draw_first_chart(JsValue::UNDEFINED, attributes, drawn.clone(), false, 1.0, None).unwrap();
        pixels(&drawn)
    };
    let five_alone = drawn(at("5s"));
    let ten_alone = drawn(at("10s"));
    assert!(five_alone != ten_alone);
    prepare_first_chart(JsValue::UNDEFINED, at("5s")).unwrap();
    assert!(drawn(at("5s")) == five_alone, "a prepared run draws what one call draws");
    prepare_first_chart(JsValue::UNDEFINED, at("5s")).unwrap();
    assert!(drawn(at("10s")) == ten_alone, "a run prepared for 5 s is not drawn for 10 s");
    let error: JsValue = prepare_first_chart(JsValue::UNDEFINED, at("0s")).unwrap_err().into();
    let message = error.dyn_ref::<js_sys::Error>().expect("a thrown Error").message().as_string().unwrap();
    assert!(message.starts_with("interval: must be between"), "{message}");
}
