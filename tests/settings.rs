//! No setting is lost: a valid value runs exactly as given, whichever door it comes through
//! (attributes, JavaScript fields, the command line), even between the page's slider steps or
//! outside the default horizon.
#![cfg(feature = "cli")]

use checkpoint_lab::cli::{parse, Action, Format, Parsed};
use checkpoint_lab::engine::settings::config::{fields_from_attributes, FieldValue};
use checkpoint_lab::engine::Config;
use checkpoint_lab::lesson;

fn from_attributes(pairs: &[(&str, &str)]) -> Config {
    let pairs: Vec<(String, String)> = pairs.iter().map(|(a, v)| (a.to_string(), v.to_string())).collect();
    Config::from_fields(&fields_from_attributes(&pairs).unwrap()).unwrap()
}

fn from_flags(flags: &[&str]) -> Config {
    let args = ["checkpoint-lab", "simulate"].iter().chain(flags).map(|s| s.to_string());
    match parse(args) {
        Ok(Parsed::Run { config, action: Action::Simulate(Format::Table) }) => *config,
        _ => panic!("{flags:?} should parse"),
    }
}

#[test]
fn an_interval_between_slider_steps_runs_as_given() {
    let by_attribute = from_attributes(&[("interval", "7s")]);
    let by_field = Config::from_fields(&[("interval_ms".into(), FieldValue::Number(7_000.0))]).unwrap();
    let by_flag = from_flags(&["--interval", "7s"]);
    for config in [by_attribute, by_field, by_flag] {
        let report = lesson::simulate(&config).unwrap();
        assert_eq!(report.config.interval_ms, 7_000);
        assert_eq!(report.effective_interval_ms, 7_000);
        assert_eq!(report.interval_replay_events, 14_000, "2,000 events/s x 7 s");
        let barriers: Vec<f64> = report.checkpoints.iter().skip(1).map(|c| c.barrier_at.s).take(3).collect();
        assert_eq!(barriers, [7.0, 14.0, 21.0]);
    }
}

#[test]
fn an_interval_longer_than_any_slider_step_runs_as_given() {
    let config = from_attributes(&[("interval", "1h")]);
    assert_eq!(config.interval_ms, 3_600_000);
    let report = lesson::simulate(&config).unwrap();
    assert_eq!(report.config.interval_ms, 3_600_000);
    assert_eq!(report.checkpoints.len(), 1, "no checkpoint is due within the ten-minute horizon");
    assert_eq!(report.restored_checkpoint.as_ref().unwrap().id, 41);
    assert_eq!(report.replayed_events, 90_000, "everything since 10:00:00 is replayed");
}

#[test]
fn a_crash_after_the_default_horizon_runs_in_a_longer_horizon() {
    let config = from_attributes(&[("horizon", "20m"), ("crash-at", "10:15:00")]);
    assert_eq!((config.horizon_ms, config.crash_at_ms), (1_200_000, Some(36_900_000)));
    let report = lesson::simulate(&config).unwrap();
    assert_eq!(report.crash.as_ref().unwrap().at.at, "10:15:00");
    assert_eq!(report.config.horizon_ms, 1_200_000);
    assert_eq!(report.series.len(), 1_201, "one sample a second over twenty minutes");
}

#[test]
fn a_seed_from_the_command_line_is_exact_beyond_what_javascript_holds() {
    let config = from_flags(&["--seed", "18446744073709551615"]);
    assert_eq!(config.seed, u64::MAX);
    let config = from_flags(&["--seed", "9007199254740993"]);
    assert_eq!(config.seed, 9_007_199_254_740_993);
}
