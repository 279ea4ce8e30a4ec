//! The scenario: the `Config` of the simulated job the settings table declares (with its choices
//! and defaults), the lesson's fixed Flink and Kafka figures, and the checks of every setting and
//! of the settings together, made before anything runs; a config read from fields and attributes.

use serde_json::Value;

use super::clock::ClockTime;
use super::units::{format_bytes, format_duration_ms};
use crate::engine::settings;
pub use crate::engine::settings::table::{
    Alignment, BufferDebloat, CheckpointingMode, Config, FailOnDataLoss, Failure, HeartbeatLoss, IsolationLevel, Mode,
    OffsetCommit, RestartStrategy, Snapshots, BACKOFF_RESET_THRESHOLD_MS, BROKER_TRANSACTION_MAX_TIMEOUT_MS, TEN_AM_MS,
};
pub use crate::engine::settings::{ConfigError, FieldValue, MAX_SAFE_INTEGER};

/// How soon a task failure reaches the JobManager: the task reports it over RPC.
pub const TASK_FAILURE_DETECTION_MS: u64 = 100;

/// From a checkpoint's completion until the two-phase-commit sink has committed its epoch:
/// Flink's `notifyCheckpointComplete` reaching the writer and Kafka's commit round trip.
pub const SINK_COMMIT_DELAY_MS: u64 = 100;

/// Flink's default `execution.checkpointing.timeout`: a checkpoint still pending this long after
/// its trigger is expired, which with `execution.checkpointing.tolerable-failed-checkpoints` at its
/// default of 0 fails the job.
pub const FLINK_CHECKPOINT_TIMEOUT_MS: u64 = 600_000;

/// Flink's default `heartbeat.timeout`: a lost TaskManager is noticed this long after its last
/// heartbeat unless the job sets another.
pub const FLINK_HEARTBEAT_TIMEOUT_MS: u64 = 50_000;

/// The most crash times a scenario may list besides `crash_at_ms`.
pub const MAX_CRASHES: usize = 100;

/// The most simulated state (seen-id bits, sink rows, series) one run may allocate.
pub const MEMORY_BUDGET_BYTES: u64 = 512_000_000;

impl Config {
    /// End of the scenario on the clock.
    pub fn end_ms(&self) -> u64 {
        self.start_time_ms + self.horizon_ms
    }

    /// Whether the transactional sink's readers see rows as they are written: barrier mode with
    /// `read_uncommitted` consumers (a micro-batch's rows are visible at once to every reader).
    pub fn reads_uncommitted(&self) -> bool {
        self.mode.sink_has_transactions() && self.isolation_level == IsolationLevel::ReadUncommitted
    }

    /// Whether the consumer commits its offsets to the group on a timer and a restore resumes
    /// reading there, apart from the checkpointed state: barrier mode with `offset_commit`
    /// `on_timer` (a micro-batch query keeps its offsets in its offset log).
    pub fn commits_offsets_on_timer(&self) -> bool {
        self.mode.has_barriers() && self.offset_commit == OffsetCommit::OnTimer
    }

    /// Checks every setting; the first one out of range is named in the error.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_ranges(self)?;
        if self.window_ms % self.emit_every_ms != 0 {
            return Err(ConfigError {
                field: "emit_every_ms",
                message: format!(
                    "must divide the window ({}) evenly (got {})",
                    format_duration_ms(self.window_ms),
                    format_duration_ms(self.emit_every_ms)
                ),
            });
        }
        if self.heartbeat_timeout_ms < self.heartbeat_interval_ms {
            return Err(ConfigError {
                field: "heartbeat_timeout_ms",
                message: format!(
                    "must be at least the heartbeat interval ({}), as Flink requires (got {})",
                    format_duration_ms(self.heartbeat_interval_ms),
                    format_duration_ms(self.heartbeat_timeout_ms)
                ),
            });
        }
        if self.checkpointing_mode == CheckpointingMode::AtLeastOnce && self.alignment == Alignment::Unaligned {
            return Err(ConfigError {
                field: "checkpointing_mode",
                message: "at_least_once does not combine with unaligned checkpoints: Flink takes unaligned \
                          checkpoints only in exactly_once mode"
                    .to_string(),
            });
        }
        if self.backoff_max_ms < self.backoff_initial_ms {
            return Err(ConfigError {
                field: "backoff_max_ms",
                message: format!(
                    "must be at least the initial backoff ({}) (got {})",
                    format_duration_ms(self.backoff_initial_ms),
                    format_duration_ms(self.backoff_max_ms)
                ),
            });
        }
        for (field, crash) in self
            .crash_at_ms
            .iter()
            .map(|&c| ("crash_at_ms", c))
            .chain(self.more_crashes_ms.iter().map(|&c| ("more_crashes_ms", c)))
        {
            let (lo, hi) = (self.start_time_ms + 1, self.end_ms() - 1);
            if !(lo..=hi).contains(&crash) {
                return Err(ConfigError {
                    field,
                    message: format!(
                        "must fall inside the horizon, between {} and {} (got {})",
                        ClockTime(lo),
                        ClockTime(hi),
                        ClockTime(crash)
                    ),
                });
            }
        }
        if self.more_crashes_ms.len() > MAX_CRASHES {
            return Err(ConfigError {
                field: "more_crashes_ms",
                message: format!("must list at most {MAX_CRASHES} crash times (got {})", self.more_crashes_ms.len()),
            });
        }
        let needed = self.estimated_memory_bytes();
        if needed > MEMORY_BUDGET_BYTES {
            return Err(ConfigError {
                field: "horizon_ms",
                message: format!(
                    "this scenario needs about {} of simulated state, over the {} budget: \
                     shorten the horizon or the window, or lower the rate or the products",
                    format_bytes(needed as f64),
                    format_bytes(MEMORY_BUDGET_BYTES as f64)
                ),
            });
        }
        Ok(())
    }

    /// An upper bound of what one run allocates: seen-id bits for two open windows per run
    /// (the failure-free companion doubles it), emitted rows, and snapshots.
    pub fn estimated_memory_bytes(&self) -> u64 {
        let window_events = self.rate_per_s.saturating_mul(self.window_ms) / 1000;
        let seen_bits_bytes = window_events / 8 * 2;
        // Two copies of the job (the run and its failure-free companion) plus two snapshots.
        let state_bytes = seen_bits_bytes.saturating_mul(4)
            + u64::from(self.products) * 4 * 8 * (self.window_ms / self.emit_every_ms).min(1 << 20);
        let boundaries = self.horizon_ms / self.emit_every_ms + 1;
        let emitted_rows = boundaries
            .saturating_mul(u64::from(self.products))
            .min(self.rate_per_s.saturating_mul(self.horizon_ms) / 1000 + boundaries);
        // Rows are kept by the append-only, upsert and transactional sinks of both runs.
        let row_bytes = emitted_rows.saturating_mul(40 * 3 * 2);
        // The trace's per-second samples (the readers' offsets per partition and the counts) of
        // both runs, and the copy a report's figures hold.
        let samples = self.horizon_ms / 1000 + 1;
        let sample_bytes = samples.saturating_mul(u64::from(self.partitions) * 8 + 160).saturating_mul(3);
        state_bytes.saturating_add(row_bytes).saturating_add(sample_bytes)
    }
}

/// Checks every setting's range, in table order; the first one out of range is named.
pub fn check_ranges(config: &Config) -> Result<(), ConfigError> {
    for setting in &settings::SETTINGS {
        match config.get(setting.key) {
            // A number that is not finite is written as null: out of any range.
            Some(Value::Null) if !setting.optional => setting.check_range(f64::NAN)?,
            Some(Value::Null) | None => {}
            Some(Value::Array(values)) => {
                for value in values {
                    setting.check_range(value.as_f64().unwrap_or(f64::NAN))?;
                }
            }
            Some(value) => setting.check_range(value.as_f64().unwrap_or(f64::NAN))?,
        }
    }
    Ok(())
}

impl Config {
    /// Builds a config from the defaults and the given fields, checking each field's type and
    /// range against the settings table, then the settings together. Used for configuration
    /// coming from JavaScript, attributes and exercises.
    pub fn from_fields(fields: &[(String, FieldValue)]) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        for (name, value) in fields {
            let Some(setting) = settings::by_key(name) else {
                let keys: Vec<&str> = settings::SETTINGS.iter().map(|s| s.key).collect();
                return Err(ConfigError {
                    field: "config",
                    message: format!("unknown field {name:?}; the fields are {}", keys.join(", ")),
                });
            };
            let checked = setting.check(value)?;
            if !config.set(setting.key, &checked) {
                return Err(ConfigError { field: setting.key, message: "could not be read".into() });
            }
        }
        config.validate()?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, value: FieldValue) -> Result<Config, ConfigError> {
        Config::from_fields(&[(name.to_string(), value)])
    }

    #[test]
    fn the_defaults_are_valid_and_every_field_is_settable() {
        Config::default().validate().unwrap();
        let json = serde_json::to_value(Config::default()).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        let mut fields: Vec<&str> = settings::SETTINGS.iter().map(|s| s.key).collect();
        fields.sort_unstable();
        assert_eq!(keys, fields);
        assert_eq!(one("interval_ms", FieldValue::Number(5_000.0)).unwrap().interval_ms, 5_000);
        assert_eq!(one("crash_at_ms", FieldValue::Null).unwrap().crash_at_ms, None);
    }

    #[test]
    fn more_crashes_come_as_clock_text_or_as_the_milliseconds_a_report_gives_back() {
        let text = one("more_crashes_ms", FieldValue::Text("10:02:00, 10:04:00".into())).unwrap();
        assert_eq!(text.more_crashes_ms, [36_120_000, 36_240_000]);
        let back = one("more_crashes_ms", FieldValue::Times(vec![36_120_000.0, 36_240_000.0])).unwrap();
        assert_eq!(back.more_crashes_ms, text.more_crashes_ms);
        assert_eq!(one("more_crashes_ms", FieldValue::Times(Vec::new())).unwrap().more_crashes_ms, Vec::<u64>::new());
        let fraction = one("more_crashes_ms", FieldValue::Times(vec![1.5])).unwrap_err();
        assert!(fraction.to_string().contains("whole milliseconds since midnight"), "{fraction}");
        let other = one("more_crashes_ms", FieldValue::Other("boolean".into())).unwrap_err();
        assert_eq!(other.field, "more_crashes_ms");
    }

    #[test]
    fn a_number_that_is_not_finite_is_out_of_range() {
        let err = Config { retry_rate: f64::NAN, ..Config::default() }.validate().unwrap_err();
        assert_eq!(err.field, "retry_rate");
        assert!(Config { backoff_multiplier: f64::INFINITY, ..Config::default() }.validate().is_err());
    }

    #[test]
    fn bad_values_name_the_field_and_the_range() {
        let cases = [
            ("interval_ms", FieldValue::Number(f64::NAN), "finite"),
            ("interval_ms", FieldValue::Number(f64::INFINITY), "finite"),
            ("interval_ms", FieldValue::Number(-1.0), "negative"),
            ("interval_ms", FieldValue::Number(1.5), "whole number"),
            ("interval_ms", FieldValue::Number(1e300), "2^53"),
            ("interval_ms", FieldValue::Text("30s".into()), "must be a number"),
            ("interval_ms", FieldValue::Null, "must be a number"),
            ("interval_ms", FieldValue::Number(0.0), "between 100 ms and 1 h"),
            ("state_bytes", FieldValue::Number(1e15), "between 1 KB and 10 TB"),
            ("alignment", FieldValue::Text("sideways".into()), "\"aligned\" or \"unaligned\""),
            ("mode", FieldValue::Text("continuous".into()), "\"barrier\" or \"micro_batch\""),
            ("crash_at_ms", FieldValue::Number(0.0), "inside the horizon"),
        ];
        for (field, value, needle) in cases {
            let err = one(field, value.clone()).unwrap_err();
            assert_eq!(err.field, field, "{value:?}");
            assert!(err.message.contains(needle), "{field} {value:?}: {}", err.message);
        }
        let unknown = one("intervall_ms", FieldValue::Number(1.0)).unwrap_err();
        assert!(unknown.message.contains("unknown field \"intervall_ms\""));
    }
}

/// Reads element attributes written for people ("30s", "2GB", "10:00:45", "200MB/s") into config
/// fields. An error names the attribute and what it accepts.
pub fn fields_from_attributes(pairs: &[(String, String)]) -> Result<Vec<(String, FieldValue)>, ConfigError> {
    let mut fields = Vec::new();
    for (name, text) in pairs {
        let Some(setting) = settings::by_attribute(name) else {
            let known: Vec<&str> = settings::SETTINGS.iter().map(|s| s.attribute).collect();
            return Err(ConfigError {
                field: "attribute",
                message: format!("unknown attribute {name:?}; the settings are {}", known.join(", ")),
            });
        };
        let value = setting.parse_text(text).map_err(|message| ConfigError { field: setting.attribute, message })?;
        // Out of range, the error names the attribute the author wrote ("interval"), not the
        // field it sets ("interval_ms").
        setting.check(&value).map_err(|e| ConfigError { field: setting.attribute, message: e.message })?;
        fields.push((setting.key.to_string(), value));
    }
    Ok(fields)
}

#[cfg(test)]
mod attribute_tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        let fields = fields_from_attributes(&pairs)?;
        Config::from_fields(&fields)
    }

    #[test]
    fn attributes_read_like_the_lesson() {
        let config =
            parse(&[("interval", "5s"), ("state-size", "512MB"), ("crash-at", "10:02:10"), ("rate", "4,000")]).unwrap();
        assert_eq!((config.interval_ms, config.state_bytes, config.rate_per_s), (5_000, 512_000_000, 4_000));
        assert_eq!(config.crash_at_ms, Some(36_130_000));
        assert_eq!(parse(&[("crash-at", "none")]).unwrap().crash_at_ms, None);
        let err = parse(&[("interval", "soon")]).unwrap_err();
        assert_eq!(err.field, "interval");
        let err = parse(&[("state-size", "0.5KB")]).unwrap_err();
        assert_eq!(err.field, "state-size");
        let err = parse(&[("interval", "0s")]).unwrap_err();
        assert_eq!(err.to_string(), "interval: must be between 100 ms and 1 h (got 0 ms)");
        assert_eq!(parse(&[("rate", "0")]).unwrap_err().field, "rate");
        assert!(parse(&[("colour", "blue")]).unwrap_err().message.contains("unknown attribute"));
    }
}

#[cfg(test)]
mod settings_table_tests {
    use super::*;
    use crate::engine::settings::*;
    use serde_json::{Map, Value};

    /// A config as serde writes it: a JSON object keyed by setting.
    fn to_map(config: &Config) -> Map<String, Value> {
        match serde_json::to_value(config) {
            Ok(Value::Object(map)) => map,
            _ => unreachable!("a config serialises to an object"),
        }
    }

    /// A config as serde reads it from such an object.
    fn from_map(map: Map<String, Value>) -> Result<Config, serde_json::Error> {
        serde_json::from_value(Value::Object(map))
    }

    #[test]
    fn every_config_key_has_one_setting_and_every_name_is_unique() {
        let keys: Vec<String> = to_map(&Config::default()).keys().cloned().collect();
        let mut table: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
        table.sort_unstable();
        assert_eq!(keys, table);
        for names in [
            SETTINGS.map(|s| s.key).to_vec(),
            SETTINGS.map(|s| s.attribute).to_vec(),
            SETTINGS.map(|s| s.flag).to_vec(),
        ] {
            let mut sorted = names.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), names.len(), "{names:?}");
        }
    }

    #[test]
    fn fields_by_key_read_and_write_what_serde_does() {
        let defaults = to_map(&Config::default());
        for s in &SETTINGS {
            assert_eq!(Config::default().get(s.key).as_ref(), defaults.get(s.key), "{}", s.key);
            // The values the setting's check returns: its choices, or its default and slider steps.
            let mut values = vec![defaults[s.key].clone()];
            match (s.unit, s.steps) {
                (Unit::Choice(choices), _) => values.extend(choices.iter().map(|c| Value::from(c.value))),
                (Unit::Share | Unit::Factor, Steps::Values(steps)) => {
                    values.extend(steps.iter().map(|&v| Value::from(v)))
                }
                (_, Steps::Values(steps)) => values.extend(steps.iter().map(|&v| Value::from(v as u64))),
                _ => {}
            }
            if s.optional {
                values.push(Value::Null);
            }
            for value in values {
                let mut typed = Config::default();
                assert!(typed.set(s.key, &value), "{} = {value}", s.key);
                let mut map = defaults.clone();
                map.insert(s.key.to_string(), value.clone());
                assert_eq!(typed, from_map(map).unwrap(), "{} = {value}", s.key);
                assert_eq!(typed.get(s.key), Some(value), "{}", s.key);
            }
        }
        // Values of every other kind: set takes exactly what serde's reading takes.
        let awkward = [
            Value::from(4_294_967_296u64),
            Value::from(-1),
            Value::from(1.5),
            Value::from(1),
            Value::from("x"),
            Value::from(true),
            Value::Null,
        ];
        for s in &SETTINGS {
            for value in &awkward {
                let mut map = defaults.clone();
                map.insert(s.key.to_string(), value.clone());
                let serde = from_map(map);
                let mut typed = Config::default();
                assert_eq!(typed.set(s.key, value), serde.is_ok(), "{} = {value}", s.key);
                if let Ok(config) = serde {
                    assert_eq!(typed, config, "{} = {value}", s.key);
                }
            }
        }
        let mut config = Config::default();
        assert!(!config.set("intervall_ms", &Value::from(1_000)));
        assert!(!config.set("alignment", &Value::from("sideways")));
        assert!(!config.set("interval_ms", &Value::from("30s")));
        assert_eq!(config, Config::default());
    }

    #[test]
    fn every_default_and_every_slider_step_is_in_range() {
        let defaults = to_map(&Config::default());
        for s in &SETTINGS {
            if let Some(n) = defaults[s.key].as_f64() {
                s.check_range(n).unwrap();
            }
            if let Steps::Values(values) = s.steps {
                assert!(values.windows(2).all(|w| w[0] < w[1]), "{} steps rise", s.key);
                for &v in values {
                    s.check_range(v).unwrap_or_else(|e| panic!("{} step {v}: {e}", s.key));
                }
            }
            assert!(!s.label.is_empty() && !s.help.is_empty(), "{} has a label and help", s.key);
        }
    }

    #[test]
    fn values_written_back_read_the_same() {
        let defaults = to_map(&Config::default());
        for s in &SETTINGS {
            let mut values = vec![defaults[s.key].clone()];
            if let Steps::Values(steps) = s.steps {
                values.extend(steps.iter().map(|&v| Value::from(v as u64)));
            }
            for value in values {
                let text = s.text(&value);
                let back = s.check(&s.parse_text(&text).unwrap()).unwrap();
                assert_eq!(back.as_f64(), value.as_f64(), "{}: {value} as {text:?}", s.key);
            }
        }
        let interval = by_key("interval_ms").unwrap();
        assert_eq!(interval.text(&Value::from(7_000)), "7s");
        assert_eq!(interval.text(&Value::from(1_500)), "1500ms");
        assert_eq!(interval.format(7_000.0), "7 s");
        assert_eq!(by_key("state_bytes").unwrap().text(&Value::from(2_000_000_000u64)), "2GB");
        assert_eq!(by_key("crash_at_ms").unwrap().text(&Value::Null), "none");
    }
}
