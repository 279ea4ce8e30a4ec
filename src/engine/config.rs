//! The scenario: every setting of the simulated job, its defaults (the lesson's worked example)
//! and the allowed range of each, checked before anything runs.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::clock::ClockTime;
use super::units::{format_bytes, format_duration_ms};

/// How operators line up barriers that arrive on several inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Alignment {
    /// Hold an input that delivered barrier n until barrier n arrived on every input.
    Aligned,
    /// Snapshot when the first barrier arrives and store the overtaken in-flight records.
    Unaligned,
}

/// How the job makes its progress durable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Continuous processing with checkpoint barriers flowing through the data (Flink).
    #[default]
    Barrier,
    /// A batch per trigger interval, with an offset log and a commit log (Spark Structured Streaming).
    MicroBatch,
}

impl Mode {
    /// The spelling in config, attributes and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Barrier => "barrier",
            Mode::MicroBatch => "micro_batch",
        }
    }
}

/// What a checkpoint uploads to the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Snapshots {
    /// The whole state, every time.
    Full,
    /// Only the bytes written since the previous checkpoint.
    Incremental,
}

/// One scenario. Times are milliseconds (clock times since midnight), sizes bytes, rates per second.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Root seed; every component derives its own sub-seed from it.
    pub seed: u64,
    /// Source partitions.
    pub partitions: u32,
    /// Events per second arriving over all partitions.
    pub rate_per_s: u64,
    /// Distinct products the orders are skewed over.
    pub products: u32,
    /// Share of events that are producer retries of an earlier order id (0 to 0.5).
    pub retry_rate: f64,
    /// How long the log keeps an event; `None` keeps everything.
    pub retention_ms: Option<u64>,
    /// Tumbling event-time window length.
    pub window_ms: u64,
    /// Running totals of changed keys are emitted each time event time passes a multiple of this.
    pub emit_every_ms: u64,
    /// Barrier or micro-batch.
    pub mode: Mode,
    /// Checkpoint interval (barrier mode) or trigger interval (micro-batch mode).
    pub interval_ms: u64,
    pub alignment: Alignment,
    pub snapshots: Snapshots,
    /// Extra delay on one input channel (partition 0): the backpressure under which alignment matters.
    pub backpressure_ms: u64,
    /// Bytes one in-flight record adds to an unaligned checkpoint.
    pub record_bytes: u64,
    /// Modelled operator state size, driving upload, restore and store write load.
    pub state_bytes: u64,
    /// Checkpoint store write bandwidth.
    pub store_write_bytes_per_s: u64,
    /// Restore bandwidth (download and rebuild).
    pub store_read_bytes_per_s: u64,
    /// Processing pause at each checkpoint's synchronous phase.
    pub sync_pause_ms: u64,
    /// Time from the crash until the failure is detected.
    pub detection_ms: u64,
    /// Time from detection until the restore starts.
    pub restart_delay_ms: u64,
    /// Events per second the job can process at most.
    pub capacity_per_s: u64,
    /// Scenario start on the clock (ms since midnight).
    pub start_time_ms: u64,
    /// Sum of the partition offsets at the start, where `start_checkpoint_id` is complete.
    pub start_offset: u64,
    /// The completed checkpoint the scenario starts from.
    pub start_checkpoint_id: u64,
    /// Crash time on the clock, or `None` for a failure-free run.
    pub crash_at_ms: Option<u64>,
    /// How long the scenario runs.
    pub horizon_ms: u64,
    /// End-to-end latency SLA, for the interval rule (an interval of about a tenth of it).
    pub latency_sla_ms: u64,
}

/// 10:00:00 on the scenario clock.
pub const TEN_AM_MS: u64 = 10 * 3_600_000;

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 42,
            partitions: 12,
            rate_per_s: 2_000,
            products: 100,
            retry_rate: 0.0,
            retention_ms: None,
            window_ms: 300_000,
            emit_every_ms: 1_000,
            mode: Mode::Barrier,
            interval_ms: 30_000,
            alignment: Alignment::Aligned,
            snapshots: Snapshots::Full,
            backpressure_ms: 0,
            record_bytes: 1_000,
            state_bytes: 2_000_000_000,
            store_write_bytes_per_s: 1_000_000_000,
            store_read_bytes_per_s: 200_000_000,
            sync_pause_ms: 100,
            detection_ms: 10_000,
            restart_delay_ms: 0,
            capacity_per_s: 4_000,
            start_time_ms: TEN_AM_MS,
            start_offset: 1_000_000,
            start_checkpoint_id: 41,
            crash_at_ms: Some(TEN_AM_MS + 45_000),
            horizon_ms: 600_000,
            latency_sla_ms: 300_000,
        }
    }
}

/// A setting outside what the model accepts: names the field and the allowed range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The config key, as in JSON (`interval_ms`).
    pub field: &'static str,
    /// What is allowed, and what was given.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// The most simulated state (seen-id bits, sink rows, series) one run may allocate.
pub const MEMORY_BUDGET_BYTES: u64 = 512_000_000;

/// Allowed ranges, shared by validation, the command line and the page's controls.
pub mod limits {
    pub const PARTITIONS: (u64, u64) = (1, 256);
    pub const RATE_PER_S: (u64, u64) = (1, 1_000_000);
    pub const PRODUCTS: (u64, u64) = (1, 100_000);
    pub const WINDOW_MS: (u64, u64) = (1_000, 24 * 3_600_000);
    pub const EMIT_EVERY_MS: (u64, u64) = (10, 3_600_000);
    pub const INTERVAL_MS: (u64, u64) = (100, 3_600_000);
    pub const BACKPRESSURE_MS: (u64, u64) = (0, 600_000);
    pub const RECORD_BYTES: (u64, u64) = (1, 100_000_000);
    pub const STATE_BYTES: (u64, u64) = (1_000, 10_000_000_000_000);
    pub const BANDWIDTH_BYTES_PER_S: (u64, u64) = (1_000, 1_000_000_000_000);
    pub const SYNC_PAUSE_MS: (u64, u64) = (0, 600_000);
    pub const DELAY_MS: (u64, u64) = (0, 3_600_000);
    pub const CAPACITY_PER_S: (u64, u64) = (1, 10_000_000);
    pub const START_OFFSET: (u64, u64) = (0, 1 << 50);
    pub const CHECKPOINT_ID: (u64, u64) = (0, 1 << 50);
    pub const HORIZON_MS: (u64, u64) = (1_000, 24 * 3_600_000);
    pub const RETENTION_MS: (u64, u64) = (1_000, 7 * 24 * 3_600_000);
    pub const LATENCY_SLA_MS: (u64, u64) = (100, 24 * 3_600_000);
}

fn check_range(
    field: &'static str,
    value: u64,
    (lo, hi): (u64, u64),
    show: fn(u64) -> String,
) -> Result<(), ConfigError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError {
            field,
            message: format!("must be between {} and {} (got {})", show(lo), show(hi), show(value)),
        })
    }
}

fn plain(n: u64) -> String {
    n.to_string()
}

fn bytes(n: u64) -> String {
    format_bytes(n as f64)
}

fn bandwidth(n: u64) -> String {
    format!("{}/s", format_bytes(n as f64))
}

impl Config {
    /// End of the scenario on the clock.
    pub fn end_ms(&self) -> u64 {
        self.start_time_ms + self.horizon_ms
    }

    /// Checks every setting; the first one out of range is named in the error.
    pub fn validate(&self) -> Result<(), ConfigError> {
        use limits::*;
        check_range("partitions", self.partitions.into(), PARTITIONS, plain)?;
        check_range("rate_per_s", self.rate_per_s, RATE_PER_S, plain)?;
        check_range("products", self.products.into(), PRODUCTS, plain)?;
        if !(0.0..=0.5).contains(&self.retry_rate) {
            return Err(ConfigError {
                field: "retry_rate",
                message: format!("must be between 0 and 0.5 (got {})", self.retry_rate),
            });
        }
        if let Some(retention) = self.retention_ms {
            check_range("retention_ms", retention, RETENTION_MS, format_duration_ms)?;
        }
        check_range("window_ms", self.window_ms, WINDOW_MS, format_duration_ms)?;
        check_range("emit_every_ms", self.emit_every_ms, EMIT_EVERY_MS, format_duration_ms)?;
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
        check_range("interval_ms", self.interval_ms, INTERVAL_MS, format_duration_ms)?;
        check_range("backpressure_ms", self.backpressure_ms, BACKPRESSURE_MS, format_duration_ms)?;
        check_range("record_bytes", self.record_bytes, RECORD_BYTES, bytes)?;
        check_range("state_bytes", self.state_bytes, STATE_BYTES, bytes)?;
        check_range("store_write_bytes_per_s", self.store_write_bytes_per_s, BANDWIDTH_BYTES_PER_S, bandwidth)?;
        check_range("store_read_bytes_per_s", self.store_read_bytes_per_s, BANDWIDTH_BYTES_PER_S, bandwidth)?;
        check_range("sync_pause_ms", self.sync_pause_ms, SYNC_PAUSE_MS, format_duration_ms)?;
        check_range("detection_ms", self.detection_ms, DELAY_MS, format_duration_ms)?;
        check_range("restart_delay_ms", self.restart_delay_ms, DELAY_MS, format_duration_ms)?;
        check_range("capacity_per_s", self.capacity_per_s, CAPACITY_PER_S, plain)?;
        check_range("start_time_ms", self.start_time_ms, (0, super::clock::DAY_MS - 1), |ms| {
            ClockTime(ms).to_string()
        })?;
        check_range("start_offset", self.start_offset, START_OFFSET, plain)?;
        check_range("start_checkpoint_id", self.start_checkpoint_id, CHECKPOINT_ID, plain)?;
        check_range("horizon_ms", self.horizon_ms, HORIZON_MS, format_duration_ms)?;
        check_range("latency_sla_ms", self.latency_sla_ms, LATENCY_SLA_MS, format_duration_ms)?;
        if let Some(crash) = self.crash_at_ms {
            let (lo, hi) = (self.start_time_ms + 1, self.end_ms() - 1);
            if !(lo..=hi).contains(&crash) {
                return Err(ConfigError {
                    field: "crash_at_ms",
                    message: format!(
                        "must fall inside the horizon, between {} and {} (got {})",
                        ClockTime(lo),
                        ClockTime(hi),
                        ClockTime(crash)
                    ),
                });
            }
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
        state_bytes.saturating_add(row_bytes)
    }
}

/// A value as it arrives from JavaScript, before it is checked against its field.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    Number(f64),
    Text(String),
    Null,
    /// Any other type, by its JavaScript name (boolean, object, undefined, ...).
    Other(String),
}

/// Largest integer JavaScript represents exactly.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Every config key, in documentation order.
pub const FIELDS: [&str; 27] = [
    "seed",
    "partitions",
    "rate_per_s",
    "products",
    "retry_rate",
    "retention_ms",
    "window_ms",
    "emit_every_ms",
    "mode",
    "interval_ms",
    "alignment",
    "snapshots",
    "backpressure_ms",
    "record_bytes",
    "state_bytes",
    "store_write_bytes_per_s",
    "store_read_bytes_per_s",
    "sync_pause_ms",
    "detection_ms",
    "restart_delay_ms",
    "capacity_per_s",
    "start_time_ms",
    "start_offset",
    "start_checkpoint_id",
    "crash_at_ms",
    "horizon_ms",
    "latency_sla_ms",
];

fn field_error(field: &'static str, message: String) -> ConfigError {
    ConfigError { field, message }
}

fn describe(value: &FieldValue) -> String {
    match value {
        FieldValue::Number(n) => format!("{n}"),
        FieldValue::Text(t) => format!("the string {t:?}"),
        FieldValue::Null => "null".to_string(),
        FieldValue::Other(kind) => format!("a value of type {kind}"),
    }
}

fn whole_number(field: &'static str, value: &FieldValue) -> Result<u64, ConfigError> {
    match value {
        FieldValue::Number(n) if !n.is_finite() => {
            Err(field_error(field, format!("must be a finite whole number (got {n})")))
        }
        FieldValue::Number(n) if *n < 0.0 => Err(field_error(field, format!("must not be negative (got {n})"))),
        FieldValue::Number(n) if n.fract() != 0.0 => {
            Err(field_error(field, format!("must be a whole number (got {n})")))
        }
        FieldValue::Number(n) if *n > MAX_SAFE_INTEGER => {
            Err(field_error(field, format!("must be at most 2^53 - 1 (got {n})")))
        }
        FieldValue::Number(n) => Ok(*n as u64),
        other => Err(field_error(field, format!("must be a number (got {})", describe(other)))),
    }
}

impl Config {
    /// Builds a config from the defaults and the given fields, checking each field's type and
    /// then every range. Used for configuration coming from JavaScript.
    pub fn from_fields(fields: &[(String, FieldValue)]) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        for (name, value) in fields {
            let Some(&field) = FIELDS.iter().find(|f| **f == name.as_str()) else {
                return Err(field_error(
                    "config",
                    format!("unknown field {name:?}; the fields are {}", FIELDS.join(", ")),
                ));
            };
            let as_u32 = |v: &FieldValue| -> Result<u32, ConfigError> {
                let n = whole_number(field, v)?;
                u32::try_from(n).map_err(|_| field_error(field, format!("is too large (got {n})")))
            };
            let optional = |v: &FieldValue| -> Result<Option<u64>, ConfigError> {
                match v {
                    FieldValue::Null => Ok(None),
                    other => whole_number(field, other).map(Some),
                }
            };
            match field {
                "seed" => config.seed = whole_number(field, value)?,
                "partitions" => config.partitions = as_u32(value)?,
                "rate_per_s" => config.rate_per_s = whole_number(field, value)?,
                "products" => config.products = as_u32(value)?,
                "retry_rate" => {
                    config.retry_rate = match value {
                        FieldValue::Number(n) if n.is_finite() => *n,
                        other => {
                            return Err(field_error(
                                field,
                                format!("must be a number between 0 and 0.5 (got {})", describe(other)),
                            ))
                        }
                    }
                }
                "retention_ms" => config.retention_ms = optional(value)?,
                "window_ms" => config.window_ms = whole_number(field, value)?,
                "emit_every_ms" => config.emit_every_ms = whole_number(field, value)?,
                "interval_ms" => config.interval_ms = whole_number(field, value)?,
                "mode" => {
                    config.mode = match value {
                        FieldValue::Text(t) if t == "barrier" => Mode::Barrier,
                        FieldValue::Text(t) if t == "micro_batch" || t == "micro-batch" => Mode::MicroBatch,
                        other => {
                            return Err(field_error(
                                field,
                                format!("must be \"barrier\" or \"micro_batch\" (got {})", describe(other)),
                            ))
                        }
                    }
                }
                "alignment" => {
                    config.alignment = match value {
                        FieldValue::Text(t) if t == "aligned" => Alignment::Aligned,
                        FieldValue::Text(t) if t == "unaligned" => Alignment::Unaligned,
                        other => {
                            return Err(field_error(
                                field,
                                format!("must be \"aligned\" or \"unaligned\" (got {})", describe(other)),
                            ))
                        }
                    }
                }
                "snapshots" => {
                    config.snapshots = match value {
                        FieldValue::Text(t) if t == "full" => Snapshots::Full,
                        FieldValue::Text(t) if t == "incremental" => Snapshots::Incremental,
                        other => {
                            return Err(field_error(
                                field,
                                format!("must be \"full\" or \"incremental\" (got {})", describe(other)),
                            ))
                        }
                    }
                }
                "backpressure_ms" => config.backpressure_ms = whole_number(field, value)?,
                "record_bytes" => config.record_bytes = whole_number(field, value)?,
                "state_bytes" => config.state_bytes = whole_number(field, value)?,
                "store_write_bytes_per_s" => config.store_write_bytes_per_s = whole_number(field, value)?,
                "store_read_bytes_per_s" => config.store_read_bytes_per_s = whole_number(field, value)?,
                "sync_pause_ms" => config.sync_pause_ms = whole_number(field, value)?,
                "detection_ms" => config.detection_ms = whole_number(field, value)?,
                "restart_delay_ms" => config.restart_delay_ms = whole_number(field, value)?,
                "capacity_per_s" => config.capacity_per_s = whole_number(field, value)?,
                "start_time_ms" => config.start_time_ms = whole_number(field, value)?,
                "start_offset" => config.start_offset = whole_number(field, value)?,
                "start_checkpoint_id" => config.start_checkpoint_id = whole_number(field, value)?,
                "crash_at_ms" => config.crash_at_ms = optional(value)?,
                "horizon_ms" => config.horizon_ms = whole_number(field, value)?,
                "latency_sla_ms" => config.latency_sla_ms = whole_number(field, value)?,
                _ => unreachable!("every field in FIELDS is handled"),
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
        let mut fields = FIELDS.to_vec();
        fields.sort_unstable();
        assert_eq!(keys, fields);
        assert_eq!(one("interval_ms", FieldValue::Number(5_000.0)).unwrap().interval_ms, 5_000);
        assert_eq!(one("crash_at_ms", FieldValue::Null).unwrap().crash_at_ms, None);
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

/// The attributes of the `<checkpoint-lab>` element and the config key each one sets.
pub const ATTRIBUTES: [(&str, &str); 15] = [
    ("mode", "mode"),
    ("interval", "interval_ms"),
    ("state-size", "state_bytes"),
    ("crash-at", "crash_at_ms"),
    ("alignment", "alignment"),
    ("snapshots", "snapshots"),
    ("rate", "rate_per_s"),
    ("capacity", "capacity_per_s"),
    ("detection", "detection_ms"),
    ("backpressure", "backpressure_ms"),
    ("store-write", "store_write_bytes_per_s"),
    ("store-read", "store_read_bytes_per_s"),
    ("sla", "latency_sla_ms"),
    ("horizon", "horizon_ms"),
    ("seed", "seed"),
];

/// Reads element attributes written for people ("30s", "2GB", "10:00:45", "200MB/s") into config
/// fields. An error names the attribute and what it accepts.
pub fn fields_from_attributes(pairs: &[(String, String)]) -> Result<Vec<(String, FieldValue)>, ConfigError> {
    use super::clock::parse_clock;
    use super::units::{parse_bytes, parse_bytes_per_s, parse_duration_ms};
    let mut fields = Vec::new();
    for (name, text) in pairs {
        let Some(&(attribute, key)) = ATTRIBUTES.iter().find(|(a, _)| *a == name.as_str()) else {
            let known: Vec<&str> = ATTRIBUTES.iter().map(|(a, _)| *a).collect();
            return Err(field_error(
                "attribute",
                format!("unknown attribute {name:?}; the settings are {}", known.join(", ")),
            ));
        };
        let bad = |message: String| field_error(attribute, message);
        let number = |n: u64| FieldValue::Number(n as f64);
        let value = match attribute {
            "interval" | "detection" | "backpressure" | "sla" | "horizon" => {
                number(parse_duration_ms(text).map_err(bad)?)
            }
            "state-size" => number(parse_bytes(text).map_err(bad)?),
            "store-write" | "store-read" => number(parse_bytes_per_s(text).map_err(bad)?),
            "crash-at" if text.trim().eq_ignore_ascii_case("none") => FieldValue::Null,
            "crash-at" => number(parse_clock(text).map_err(|e| bad(format!("{e}, or none")))?),
            "mode" | "alignment" | "snapshots" => FieldValue::Text(text.trim().to_string()),
            _ => {
                let n: u64 = text
                    .trim()
                    .replace([',', '_'], "")
                    .parse()
                    .map_err(|_| bad(format!("must be a whole number (got {text:?})")))?;
                number(n)
            }
        };
        fields.push((key.to_string(), value));
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
        assert_eq!(err.field, "state_bytes");
        assert!(parse(&[("colour", "blue")]).unwrap_err().message.contains("unknown attribute"));
    }
}
