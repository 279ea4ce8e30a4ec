//! The one table of settings. Each setting of the scenario is written here once: its config key,
//! element attribute, command-line flag, unit, allowed range, slider steps, label and help. The
//! engine's validation, the JavaScript and attribute readers, the clap command, the page's
//! controls (`www/settings.js`, written by `lesson::controls`) and the TypeScript `Config`
//! declaration are all made from it. Defaults are `Config::default()`, the lesson's worked example.

use serde::Serialize;
use serde_json::Value;

use super::clock::{parse_clock, ClockTime};
use super::units::{
    format_bytes, format_count, format_duration_ms, parse_bytes, parse_bytes_per_s, parse_decimal, parse_duration_ms,
};
use std::fmt;

/// What a setting's number means, which decides how it is read, checked and written for people.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "choices")]
pub enum Unit {
    /// A plain count: "12", "4,000".
    Count,
    /// Events per second: "2,000 events/s".
    EventsPerS,
    /// A seed: any whole number, written without separators.
    Seed,
    /// A duration in milliseconds: "500ms", "30s", "5m".
    DurationMs,
    /// A size in bytes: "512MB", "2GB" (decimal).
    Bytes,
    /// A bandwidth in bytes per second: "200MB/s".
    BytesPerS,
    /// A time on the scenario clock, in milliseconds since midnight: "10:00:45".
    ClockMs,
    /// A list of times on the scenario clock, comma-separated: "10:01:30, 10:04:00".
    ClockList,
    /// A share between 0 and 1: "0.01" or "1%".
    Share,
    /// A multiplier: "1.5".
    Factor,
    /// One of a few named values.
    Choice(&'static [Choice]),
}

/// One value of a choice setting: as config and JavaScript spell it, as the command line spells
/// it, and as the page names it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Choice {
    pub value: &'static str,
    pub flag_value: &'static str,
    pub label: &'static str,
}

/// Where the lesson page shows a setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// Not on the page (attributes, options and the command line still set it).
    None,
    /// Beside the three sliders.
    Main,
    /// Under "More settings".
    Advanced,
}

/// The positions a slider offers. A valid value between two steps still runs as given.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "values")]
pub enum Steps {
    None,
    /// These values, in order.
    Values(&'static [f64]),
    /// Every second of the configured horizon, from its start plus one second to its end minus one.
    EverySecondOfHorizon,
}

/// One setting.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Setting {
    /// The config key, as in JSON and `simulate({...})`.
    pub key: &'static str,
    /// The `<checkpoint-lab>` attribute.
    pub attribute: &'static str,
    /// The command-line flag, without its dashes.
    pub flag: &'static str,
    pub unit: Unit,
    /// Allowed range, in the unit's base (ms, bytes, events/s); `crash_at_ms` is further held
    /// inside the horizon and `emit_every_ms` must divide the window.
    pub min: f64,
    pub max: f64,
    /// Whether `null` (attribute and flag: "none") is allowed.
    pub optional: bool,
    pub control: Control,
    pub steps: Steps,
    pub label: &'static str,
    /// The label in micro-batch mode, where the wording differs.
    pub label_micro_batch: Option<&'static str>,
    pub help: &'static str,
}

const S: f64 = 1_000.0;
const MIN: f64 = 60_000.0;
const H: f64 = 3_600_000.0;
const DAY: f64 = 24.0 * H;
const MB: f64 = 1e6;
const GB: f64 = 1e9;

const MODES: &[Choice] = &[
    Choice { value: "barrier", flag_value: "barrier", label: "barrier checkpoints (Flink)" },
    Choice { value: "micro_batch", flag_value: "micro-batch", label: "micro-batches (Spark)" },
];
const ALIGNMENTS: &[Choice] = &[
    Choice { value: "aligned", flag_value: "aligned", label: "aligned" },
    Choice { value: "unaligned", flag_value: "unaligned", label: "unaligned" },
];
const SNAPSHOTS: &[Choice] = &[
    Choice { value: "full", flag_value: "full", label: "full" },
    Choice { value: "incremental", flag_value: "incremental", label: "incremental" },
];

const FAILURES: &[Choice] = &[
    Choice { value: "task", flag_value: "task", label: "a task throws" },
    Choice { value: "taskmanager_lost", flag_value: "taskmanager-lost", label: "a TaskManager is lost" },
];
const RESTART_STRATEGIES: &[Choice] = &[
    Choice { value: "fixed_delay", flag_value: "fixed-delay", label: "fixed delay" },
    Choice { value: "exponential_delay", flag_value: "exponential-delay", label: "exponential backoff" },
    Choice { value: "failure_rate", flag_value: "failure-rate", label: "failure rate" },
    Choice { value: "none", flag_value: "none", label: "no restart" },
];
const HEARTBEAT_LOSSES: &[Choice] = &[
    Choice { value: "slowest", flag_value: "slowest", label: "just after a heartbeat (slowest)" },
    Choice { value: "drawn", flag_value: "drawn", label: "anywhere in the heartbeat interval (drawn)" },
];
const BUFFER_DEBLOATS: &[Choice] = &[
    Choice { value: "off", flag_value: "off", label: "off (Flink's default)" },
    Choice { value: "on", flag_value: "on", label: "on: about 1 s of throughput" },
];
const FAIL_ON_DATA_LOSS: &[Choice] = &[
    Choice { value: "true", flag_value: "true", label: "fail the query" },
    Choice { value: "false", flag_value: "false", label: "skip ahead with a warning" },
];
const CHECKPOINTING_MODES: &[Choice] = &[
    Choice { value: "exactly_once", flag_value: "exactly-once", label: "exactly once" },
    Choice { value: "at_least_once", flag_value: "at-least-once", label: "at least once" },
];
const ISOLATION_LEVELS: &[Choice] = &[
    Choice { value: "read_committed", flag_value: "read-committed", label: "read_committed" },
    Choice { value: "read_uncommitted", flag_value: "read-uncommitted", label: "read_uncommitted" },
];

const fn setting(key: &'static str, flag: &'static str, unit: Unit, min: f64, max: f64) -> Setting {
    Setting {
        key,
        attribute: flag,
        flag,
        unit,
        min,
        max,
        optional: false,
        control: Control::None,
        steps: Steps::None,
        label: "",
        label_micro_batch: None,
        help: "",
    }
}

/// Every setting, in documentation order.
pub const SETTINGS: [Setting; 47] = [
    Setting {
        help: "Root seed; every component derives its own sub-seed from it",
        label: "Seed",
        ..setting("seed", "seed", Unit::Seed, 0.0, u64::MAX as f64)
    },
    Setting {
        help: "Source partitions",
        label: "Partitions",
        ..setting("partitions", "partitions", Unit::Count, 1.0, 256.0)
    },
    Setting {
        help: "Input rate over all partitions",
        label: "Input rate",
        control: Control::Advanced,
        steps: Steps::Values(&[500.0, 1_000.0, 2_000.0, 5_000.0, 10_000.0, 20_000.0]),
        ..setting("rate_per_s", "rate", Unit::EventsPerS, 1.0, 1e6)
    },
    Setting {
        help: "Distinct products the orders are skewed over",
        label: "Products",
        ..setting("products", "products", Unit::Count, 1.0, 1e5)
    },
    Setting {
        help: "Share of events that are producer retries of an earlier order id, e.g. 0.01 or 1%",
        label: "Producer retries",
        ..setting("retry_rate", "retry-rate", Unit::Share, 0.0, 0.5)
    },
    Setting {
        help: "How long the log keeps an event, or none",
        label: "Log retention",
        optional: true,
        ..setting("retention_ms", "retention", Unit::DurationMs, 1.0 * S, 7.0 * DAY)
    },
    Setting {
        help: "Tumbling event-time window length",
        label: "Window",
        ..setting("window_ms", "window", Unit::DurationMs, 1.0 * S, DAY)
    },
    Setting {
        help: "Emit running totals each time event time passes a multiple of this; divides the window",
        label: "Emit period",
        ..setting("emit_every_ms", "emit-every", Unit::DurationMs, 10.0, H)
    },
    Setting {
        help: "Barrier checkpoints (Flink) or micro-batches with an offset log and a commit log (Spark)",
        label: "Restart design",
        control: Control::Main,
        ..setting("mode", "mode", Unit::Choice(MODES), 0.0, 0.0)
    },
    Setting {
        help: "Checkpoint interval, or the trigger interval in micro-batch mode",
        label: "Checkpoint interval",
        label_micro_batch: Some("Trigger interval"),
        control: Control::Main,
        steps: Steps::Values(&[
            1.0 * S,
            2.0 * S,
            3.0 * S,
            5.0 * S,
            10.0 * S,
            15.0 * S,
            20.0 * S,
            30.0 * S,
            45.0 * S,
            1.0 * MIN,
            1.5 * MIN,
            2.0 * MIN,
            3.0 * MIN,
            5.0 * MIN,
            7.5 * MIN,
            10.0 * MIN,
        ]),
        ..setting("interval_ms", "interval", Unit::DurationMs, 100.0, H)
    },
    Setting {
        help: "How operators line up barriers that arrive on several inputs",
        label: "Barrier alignment",
        control: Control::Advanced,
        ..setting("alignment", "alignment", Unit::Choice(ALIGNMENTS), 0.0, 0.0)
    },
    Setting {
        help: "What a checkpoint uploads: the whole state or the bytes changed since the previous one \
               (micro-batch mode: the state store provider, HDFS-backed or RocksDB; both write what changed)",
        label: "Snapshots",
        label_micro_batch: Some("State store"),
        control: Control::Advanced,
        ..setting("snapshots", "snapshots", Unit::Choice(SNAPSHOTS), 0.0, 0.0)
    },
    Setting {
        help: "Extra delay on one input channel (partition 0): the backpressure under which alignment matters",
        label: "Backpressure (slow input)",
        control: Control::Advanced,
        steps: Steps::Values(&[0.0, 0.5 * S, 1.0 * S, 2.0 * S, 3.0 * S, 5.0 * S, 10.0 * S]),
        ..setting("backpressure_ms", "backpressure", Unit::DurationMs, 0.0, 10.0 * MIN)
    },
    Setting {
        help: "Bytes one in-flight record adds to an unaligned checkpoint",
        label: "Record size",
        ..setting("record_bytes", "record-size", Unit::Bytes, 1.0, 1e8)
    },
    Setting {
        help: "Unaligned checkpoints store the records in the network buffers, which bound them: per \
               backpressured channel 2 exclusive and 8 floating input buffers and 10 output buffers of \
               32 KB (taskmanager.network.memory.buffers-per-channel, floating-buffers-per-gate, \
               max-buffers-per-channel, taskmanager.memory.segment-size), beyond which the source stops \
               reading; buffer debloating (taskmanager.network.memory.buffer-debloat.enabled) shrinks \
               them to about 1 s of the channel's throughput",
        label: "Buffer debloating",
        ..setting("buffer_debloat", "buffer-debloat", Unit::Choice(BUFFER_DEBLOATS), 0.0, 0.0)
    },
    Setting {
        help: "Modelled operator state size, driving upload, restore and store write load",
        label: "State size",
        control: Control::Main,
        steps: Steps::Values(&[
            1.0 * MB,
            2.0 * MB,
            5.0 * MB,
            10.0 * MB,
            20.0 * MB,
            50.0 * MB,
            100.0 * MB,
            200.0 * MB,
            500.0 * MB,
            1.0 * GB,
            2.0 * GB,
            5.0 * GB,
            10.0 * GB,
            20.0 * GB,
            50.0 * GB,
            100.0 * GB,
        ]),
        ..setting("state_bytes", "state-size", Unit::Bytes, 1e3, 1e13)
    },
    Setting {
        help: "Checkpoint store write bandwidth",
        label: "Store write bandwidth",
        control: Control::Advanced,
        steps: Steps::Values(&[
            10.0 * MB,
            20.0 * MB,
            50.0 * MB,
            100.0 * MB,
            200.0 * MB,
            500.0 * MB,
            1.0 * GB,
            2.0 * GB,
            5.0 * GB,
            10.0 * GB,
        ]),
        ..setting("store_write_bytes_per_s", "store-write", Unit::BytesPerS, 1e3, 1e12)
    },
    Setting {
        help: "Restore bandwidth (download and rebuild)",
        label: "Restore bandwidth",
        ..setting("store_read_bytes_per_s", "store-read", Unit::BytesPerS, 1e3, 1e12)
    },
    Setting {
        help: "Processing pause at each checkpoint's synchronous phase (micro-batch mode: the offset-log write)",
        label: "Sync pause",
        ..setting("sync_pause_ms", "sync-pause", Unit::DurationMs, 0.0, 10.0 * MIN)
    },
    Setting {
        help: "What fails: a task throws (the JobManager hears at once) or a TaskManager process is lost \
               (noticed when its heartbeat times out)",
        label: "Failure",
        control: Control::Advanced,
        ..setting("failure", "failure", Unit::Choice(FAILURES), 0.0, 0.0)
    },
    Setting {
        help: "How often the JobManager asks each TaskManager for a heartbeat (Flink's heartbeat.interval, 10 s)",
        label: "Heartbeat interval",
        ..setting("heartbeat_interval_ms", "heartbeat-interval", Unit::DurationMs, 100.0, H)
    },
    Setting {
        help: "Silence after which a TaskManager is declared lost; at least the heartbeat interval \
               (Flink's heartbeat.timeout, 50 s by default; micro-batch mode: how long the query's \
               supervisor takes to notice it stopped)",
        label: "Heartbeat timeout",
        label_micro_batch: Some("Supervisor notices after"),
        control: Control::Advanced,
        steps: Steps::Values(&[10.0 * S, 15.0 * S, 20.0 * S, 30.0 * S, 50.0 * S, 1.0 * MIN, 2.0 * MIN]),
        ..setting("heartbeat_timeout_ms", "heartbeat-timeout", Unit::DurationMs, 100.0, H)
    },
    Setting {
        help: "When a lost TaskManager last answered a heartbeat: just before the crash, so the loss is \
               noticed a whole timeout later (the slowest case), or drawn from the seed within the last \
               heartbeat interval, so it is noticed between the timeout minus the interval and the timeout",
        label: "Heartbeat loss",
        ..setting("heartbeat_loss", "heartbeat-loss", Unit::Choice(HEARTBEAT_LOSSES), 0.0, 0.0)
    },
    Setting {
        help: "Time from the crash until the failure is detected, overriding the failure kind, or none",
        label: "Failure detection",
        optional: true,
        ..setting("detection_ms", "detection", Unit::DurationMs, 0.0, H)
    },
    Setting {
        help: "How a failed job restarts: a fixed delay with a number of attempts, a backoff that grows \
               with each failure (Flink's default since 1.19), a fixed delay while failures stay under a \
               rate, or not at all",
        label: "Restart strategy",
        control: Control::Advanced,
        ..setting("restart_strategy", "restart-strategy", Unit::Choice(RESTART_STRATEGIES), 0.0, 0.0)
    },
    Setting {
        help: "Fixed-delay and failure-rate strategies: time from detection until the restore starts \
               (micro-batch mode: the supervisor's wait before it restarts the query)",
        label: "Restart delay",
        ..setting("restart_delay_ms", "restart-delay", Unit::DurationMs, 0.0, H)
    },
    Setting {
        help: "Fixed-delay strategy: restarts allowed before the job fails (Flink's \
               restart-strategy.fixed-delay.attempts; here every failure restarts unless this is lowered, \
               where Flink's own default is 1)",
        label: "Restart attempts",
        ..setting("restart_attempts", "restart-attempts", Unit::Count, 0.0, 2_147_483_647.0)
    },
    Setting {
        help: "Failure-rate strategy: failures allowed within the failure-rate interval before the job \
               fails (Flink's restart-strategy.failure-rate.max-failures-per-interval, 1 by default)",
        label: "Failures per interval",
        ..setting("failure_rate_max", "failure-rate-max", Unit::Count, 1.0, 2_147_483_647.0)
    },
    Setting {
        help: "Failure-rate strategy: the interval failures are counted over (Flink's \
               restart-strategy.failure-rate.failure-rate-interval, 1 min by default)",
        label: "Failure-rate interval",
        ..setting("failure_rate_interval_ms", "failure-rate-interval", Unit::DurationMs, 1.0 * S, DAY)
    },
    Setting {
        help: "Exponential-delay strategy: the first backoff",
        label: "Initial backoff",
        ..setting("backoff_initial_ms", "backoff-initial", Unit::DurationMs, 1.0, H)
    },
    Setting {
        help: "Exponential-delay strategy: what each further failure multiplies the backoff by; above 1, \
               as Flink requires",
        label: "Backoff multiplier",
        ..setting("backoff_multiplier", "backoff-multiplier", Unit::Factor, 1.01, 10.0)
    },
    Setting {
        help: "Exponential-delay strategy: the longest backoff",
        label: "Maximum backoff",
        ..setting("backoff_max_ms", "backoff-max", Unit::DurationMs, 1.0, H)
    },
    Setting {
        help: "Exponential-delay strategy: the share of the backoff added or taken off at random",
        label: "Backoff jitter",
        ..setting("backoff_jitter", "backoff-jitter", Unit::Share, 0.0, 1.0)
    },
    Setting {
        help: "Exponential-delay strategy: after this long without a failure the backoff starts again \
               from the initial one (Flink's reset-backoff-threshold, 1 h)",
        label: "Backoff reset",
        ..setting("backoff_reset_ms", "backoff-reset", Unit::DurationMs, 1.0, DAY)
    },
    Setting {
        help: "Exactly once aligns barriers; at least once lets records pass a barrier before the \
               snapshot, so a restore reads them again",
        label: "Checkpointing mode",
        control: Control::Advanced,
        ..setting("checkpointing_mode", "checkpointing-mode", Unit::Choice(CHECKPOINTING_MODES), 0.0, 0.0)
    },
    Setting {
        help: "What readers of the transactional sink see: committed rows only, or every row as written",
        label: "Reader isolation",
        control: Control::Advanced,
        ..setting("isolation_level", "isolation-level", Unit::Choice(ISOLATION_LEVELS), 0.0, 0.0)
    },
    Setting {
        help: "The sink producer's transaction.timeout.ms: the broker aborts a transaction not committed \
               this long after it began; at most the broker's transaction.max.timeout.ms (15 min)",
        label: "Transaction timeout",
        control: Control::Advanced,
        steps: Steps::Values(&[30.0 * S, 1.0 * MIN, 2.0 * MIN, 5.0 * MIN, 10.0 * MIN, 15.0 * MIN]),
        ..setting("transaction_timeout_ms", "transaction-timeout", Unit::DurationMs, 1.0 * S, 15.0 * MIN)
    },
    Setting {
        help: "Events per second the job can process at most",
        label: "Capacity",
        control: Control::Advanced,
        steps: Steps::Values(&[
            1_000.0, 2_000.0, 2_500.0, 3_000.0, 4_000.0, 6_000.0, 8_000.0, 10_000.0, 20_000.0, 40_000.0,
        ]),
        ..setting("capacity_per_s", "capacity", Unit::EventsPerS, 1.0, 1e7)
    },
    Setting {
        help: "Scenario start on the clock",
        label: "Start time",
        ..setting("start_time_ms", "start-time", Unit::ClockMs, 0.0, DAY - 1.0)
    },
    Setting {
        help: "Sum of the partition offsets at the start, where the start checkpoint is complete",
        label: "Start offset",
        ..setting("start_offset", "start-offset", Unit::Count, 0.0, (1u64 << 50) as f64)
    },
    Setting {
        help: "The completed checkpoint the scenario starts from",
        label: "Start checkpoint",
        ..setting("start_checkpoint_id", "start-checkpoint", Unit::Count, 0.0, (1u64 << 50) as f64)
    },
    Setting {
        help: "Crash time on the clock (HH:MM:SS or HH:MM:SS.mmm), inside the horizon, or none",
        label: "Crash time",
        optional: true,
        control: Control::Main,
        steps: Steps::EverySecondOfHorizon,
        ..setting("crash_at_ms", "crash-at", Unit::ClockMs, 0.0, DAY - 1.0)
    },
    Setting {
        help: "Further crash times on the clock besides the crash time, comma-separated \
               (10:01:30,10:04:00), each inside the horizon; at most 100",
        label: "More crashes",
        ..setting("more_crashes_ms", "more-crashes", Unit::ClockList, 0.0, DAY - 1.0)
    },
    Setting {
        help: "Mean time between failures: crashes drawn from the seed over the horizon, at \
               exponentially distributed gaps of this mean, or none",
        label: "Mean time between failures",
        optional: true,
        ..setting("mtbf_ms", "mtbf", Unit::DurationMs, 1.0 * S, DAY)
    },
    Setting {
        help: "Micro-batch mode: Spark's failOnDataLoss, what a query does when offsets it must read \
               again are gone from the log: fail (Spark's default) or skip to the oldest offset kept, \
               with a warning",
        label: "Fail on data loss",
        ..setting("fail_on_data_loss", "fail-on-data-loss", Unit::Choice(FAIL_ON_DATA_LOSS), 0.0, 0.0)
    },
    Setting {
        help: "How long the scenario runs",
        label: "Horizon",
        ..setting("horizon_ms", "horizon", Unit::DurationMs, 1.0 * S, DAY)
    },
    Setting {
        help: "End-to-end latency SLA, for the interval rule (an interval of about a tenth of it)",
        label: "Latency SLA",
        control: Control::Advanced,
        steps: Steps::Values(&[10.0 * S, 30.0 * S, 1.0 * MIN, 2.0 * MIN, 5.0 * MIN, 10.0 * MIN, 30.0 * MIN]),
        attribute: "sla",
        ..setting("latency_sla_ms", "latency-sla", Unit::DurationMs, 100.0, DAY)
    },
];

/// The setting with this config key.
pub fn by_key(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

/// The setting with this element attribute.
pub fn by_attribute(attribute: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.attribute == attribute)
}

fn describe(value: &FieldValue) -> String {
    match value {
        FieldValue::Number(n) => format!("{n}"),
        FieldValue::Whole(n) => format!("{n}"),
        FieldValue::Text(t) => format!("the string {t:?}"),
        FieldValue::Times(times) => format!("a list of {} numbers", times.len()),
        FieldValue::Null => "null".to_string(),
        FieldValue::Other(kind) => format!("a value of type {kind}"),
    }
}

/// "a" or "b" or "c", as a choice's values are listed in an error.
fn or_list(values: impl Iterator<Item = String>) -> String {
    let values: Vec<String> = values.collect();
    match values.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => values.join(""),
    }
}

impl Setting {
    fn error(&self, message: String) -> ConfigError {
        ConfigError { field: self.key, message }
    }

    /// The settings page label in this mode.
    pub fn label_in(&self, micro_batch: bool) -> &'static str {
        if micro_batch {
            self.label_micro_batch.unwrap_or(self.label)
        } else {
            self.label
        }
    }

    /// A value written for people, as the page's readouts, the report's words and the range
    /// errors show it: "30 s", "2 GB", "200 MB/s", "10:00:45", "2,000 events/s".
    pub fn format(&self, value: f64) -> String {
        format_unit(self.unit, value)
    }

    /// Checks a value from JavaScript, an attribute or the command line against this setting's
    /// type and range; returns it as config JSON.
    pub fn check(&self, value: &FieldValue) -> Result<Value, ConfigError> {
        if self.unit == Unit::ClockList {
            return self.check_clock_list(value);
        }
        if let FieldValue::Null = value {
            return if self.optional {
                Ok(Value::Null)
            } else {
                Err(self.error(format!("must be {} (got null)", self.kind_name())))
            };
        }
        match self.unit {
            Unit::Choice(choices) => match value {
                FieldValue::Text(t) => choices
                    .iter()
                    .find(|c| c.value == t || c.flag_value == t)
                    .map(|c| Value::from(c.value))
                    .ok_or_else(|| self.error(format!("must be {} (got {})", self.kind_name(), describe(value)))),
                other => Err(self.error(format!("must be {} (got {})", self.kind_name(), describe(other)))),
            },
            Unit::Share | Unit::Factor => match value {
                FieldValue::Number(n) if n.is_finite() => {
                    self.check_range(*n)?;
                    Ok(Value::from(*n))
                }
                other => Err(self.error(format!(
                    "must be a number between {} and {} (got {})",
                    self.min,
                    self.max,
                    describe(other)
                ))),
            },
            _ => {
                let n = match value {
                    FieldValue::Number(n) if !n.is_finite() => {
                        return Err(self.error(format!("must be a finite whole number (got {n})")))
                    }
                    FieldValue::Number(n) if *n < 0.0 => {
                        return Err(self.error(format!("must not be negative (got {n})")))
                    }
                    FieldValue::Number(n) if n.fract() != 0.0 => {
                        return Err(self.error(format!("must be a whole number (got {n})")))
                    }
                    FieldValue::Number(n) if *n > MAX_SAFE_INTEGER => {
                        return Err(self.error(format!("must be at most 2^53 - 1 (got {n})")))
                    }
                    FieldValue::Number(n) => *n,
                    // Read from text: exact, also beyond what a JavaScript number holds.
                    FieldValue::Whole(n) => {
                        self.check_range(*n as f64)?;
                        return Ok(Value::from(*n));
                    }
                    other => return Err(self.error(format!("must be a number (got {})", describe(other)))),
                };
                self.check_range(n)?;
                Ok(Value::from(n as u64))
            }
        }
    }

    /// A list of clock times: text as an attribute or a flag writes it, or null or "none" for
    /// none; config JSON's value is the list of milliseconds since midnight.
    fn check_clock_list(&self, value: &FieldValue) -> Result<Value, ConfigError> {
        let times = match value {
            FieldValue::Null => return Ok(Value::Array(Vec::new())),
            FieldValue::Text(text) => parse_clock_list(text).map_err(|e| self.error(e))?,
            // As a report's config holds them: whole milliseconds since midnight.
            FieldValue::Times(times) => {
                let mut whole = Vec::with_capacity(times.len());
                for &t in times {
                    if !(t.is_finite() && t.fract() == 0.0 && t >= 0.0) {
                        return Err(self.error(format!(
                            "must list whole milliseconds since midnight (got {t}), or be clock times as text"
                        )));
                    }
                    self.check_range(t)?;
                    whole.push(t as u64);
                }
                whole
            }
            other => {
                return Err(self.error(format!(
                    "must be clock times as text, like \"10:01:30,10:04:00\", a list of milliseconds since \
                     midnight, or null (got {})",
                    describe(other)
                )))
            }
        };
        for &t in &times {
            self.check_range(t as f64)?;
        }
        Ok(Value::from(times))
    }

    /// Checks a number against the allowed range; the error shows both ends in the setting's unit.
    pub fn check_range(&self, value: f64) -> Result<(), ConfigError> {
        if matches!(self.unit, Unit::Choice(_)) || (self.min..=self.max).contains(&value) {
            Ok(())
        } else {
            Err(self.error(format!(
                "must be between {} and {} (got {})",
                self.format_plain(self.min),
                self.format_plain(self.max),
                self.format_plain(value)
            )))
        }
    }

    /// Like `format`, without a rate's "events/s" (range errors name the unit once).
    pub fn format_plain(&self, value: f64) -> String {
        match self.unit {
            Unit::EventsPerS | Unit::Count => trim_number(value),
            // Any u64 is a seed; the float's saturating cast prints the largest exactly.
            Unit::Seed => (value as u64).to_string(),
            Unit::Share | Unit::Factor => format!("{value}"),
            unit => format_unit(unit, value),
        }
    }

    fn kind_name(&self) -> String {
        match self.unit {
            Unit::Choice(choices) => or_list(choices.iter().map(|c| format!("{:?}", c.value))),
            Unit::Share | Unit::Factor => "a number".into(),
            _ if self.optional => "a number or null".into(),
            _ => "a number".into(),
        }
    }

    /// Reads a value written for people (an attribute, a flag): "30s", "2GB", "200MB/s",
    /// "10:00:45", "4,000", "1%", "micro-batch"; "none" where the setting is optional.
    pub fn parse_text(&self, text: &str) -> Result<FieldValue, String> {
        let trimmed = text.trim();
        if self.optional && trimmed.eq_ignore_ascii_case("none") {
            return Ok(FieldValue::Null);
        }
        let or_none = |e: String| if self.optional { format!("{e}, or none") } else { e };
        let number = FieldValue::Whole;
        match self.unit {
            Unit::Count | Unit::EventsPerS | Unit::Seed => trimmed
                .replace([',', '_'], "")
                .parse::<u64>()
                .map(number)
                .map_err(|_| or_none(format!("must be a whole number (got {text:?})"))),
            Unit::DurationMs => parse_duration_ms(text).map(number).map_err(or_none),
            Unit::Bytes => parse_bytes(text).map(number).map_err(or_none),
            Unit::BytesPerS => parse_bytes_per_s(text).map(number).map_err(or_none),
            Unit::ClockMs => parse_clock(text).map(number).map_err(or_none),
            Unit::ClockList => parse_clock_list(text).map(|_| FieldValue::Text(trimmed.to_string())),
            Unit::Share => {
                let share = match trimmed.strip_suffix('%') {
                    Some(percent) => parse_decimal(percent.trim()).map(|p| p / 100.0),
                    None => parse_decimal(trimmed),
                };
                match share {
                    Some(v) => Ok(FieldValue::Number(v)),
                    None => Err(format!("expected a share like 0.01 or 1%, got {text:?}")),
                }
            }
            Unit::Factor => match parse_decimal(trimmed.trim_start_matches(['x', '×']).trim()) {
                Some(v) => Ok(FieldValue::Number(v)),
                None => Err(format!("expected a multiplier like 1.5, got {text:?}")),
            },
            Unit::Choice(choices) => choices
                .iter()
                .find(|c| c.flag_value == trimmed || c.value == trimmed)
                .map(|c| FieldValue::Text(c.value.to_string()))
                .ok_or_else(|| {
                    format!("must be {} (got {text:?})", or_list(choices.iter().map(|c| c.flag_value.to_string())))
                }),
        }
    }

    /// A config value written back as an attribute or flag reads it: "30s", "2GB", "10:00:45".
    pub fn text(&self, value: &Value) -> String {
        if let Some(times) = value.as_array() {
            let times: Vec<String> = times.iter().filter_map(Value::as_u64).map(|t| ClockTime(t).to_string()).collect();
            return if times.is_empty() { "none".into() } else { times.join(",") };
        }
        if value.is_null() {
            return "none".into();
        }
        let n = value.as_f64().unwrap_or(0.0);
        let whole = n as u64;
        match self.unit {
            Unit::Count | Unit::EventsPerS => trim_number(n),
            Unit::Seed => whole.to_string(),
            Unit::Share | Unit::Factor => format!("{n}"),
            Unit::DurationMs => {
                let unit = [(3_600_000, "h"), (60_000, "m"), (1_000, "s")].into_iter().find(|(ms, _)| whole % ms == 0);
                match unit {
                    Some((ms, name)) if whole > 0 => format!("{}{name}", whole / ms),
                    _ => format!("{whole}ms"),
                }
            }
            Unit::Bytes | Unit::BytesPerS => {
                let scale = [(1_000_000_000_000, "TB"), (1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")]
                    .into_iter()
                    .find(|(b, _)| whole % b == 0 && whole > 0);
                let size = match scale {
                    Some((b, name)) => format!("{}{name}", whole / b),
                    None => format!("{whole}B"),
                };
                if self.unit == Unit::BytesPerS {
                    format!("{size}/s")
                } else {
                    size
                }
            }
            Unit::ClockMs | Unit::ClockList => ClockTime(whole).to_string(),
            Unit::Choice(choices) => {
                let text = value.as_str().unwrap_or_default();
                choices.iter().find(|c| c.value == text).map_or(text, |c| c.flag_value).to_string()
            }
        }
    }

    /// The TypeScript type of this setting in the `Config` declaration.
    pub fn typescript(&self) -> String {
        let base = match self.unit {
            Unit::Choice(choices) => choices.iter().map(|c| format!("{:?}", c.value)).collect::<Vec<_>>().join(" | "),
            Unit::ClockList => "number[]".into(),
            _ => "number".into(),
        };
        if self.optional {
            format!("{base} | null")
        } else {
            base
        }
    }
}

/// Comma-separated clock times ("10:01:30, 10:04:00"), or "none" or nothing for none.
pub fn parse_clock_list(text: &str) -> Result<Vec<u64>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    trimmed
        .split(',')
        .map(|t| parse_clock(t.trim()).map_err(|e| format!("{e} (a list is written 10:01:30,10:04:00, or none)")))
        .collect()
}

fn trim_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e16 {
        format!("{}", value as u64)
    } else {
        format!("{value}")
    }
}

/// One formatter per unit, for people: the page's readouts (through `formatValue`) and the range
/// errors use it, and it is built on the same `units` formatters the command line and the
/// report's words call.
pub fn format_unit(unit: Unit, value: f64) -> String {
    let whole = value.max(0.0) as u64;
    match unit {
        Unit::Count => format_count(whole),
        Unit::EventsPerS => format!("{} events/s", format_count(whole)),
        Unit::Seed => whole.to_string(),
        Unit::DurationMs => format_duration_ms(whole),
        Unit::Bytes => format_bytes(value),
        Unit::BytesPerS => format!("{}/s", format_bytes(value)),
        Unit::ClockMs | Unit::ClockList => ClockTime(whole).to_string(),
        Unit::Share => format!("{}%", trim_number((value * 10_000.0).round() / 100.0)),
        Unit::Factor => format!("×{}", trim_number(value)),
        Unit::Choice(choices) => choices.first().map_or(String::new(), |c| c.label.to_string()),
    }
}

/// A setting outside what the model accepts: names the field and the allowed range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// What was wrong: the config key (`interval_ms`), or the attribute (`interval`) when an
    /// attribute could not be read, or `config` / `attribute` for the object as a whole.
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

/// A value as it arrives from JavaScript, before it is checked against its field.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    Number(f64),
    /// A whole number read from text (an attribute or a flag), exact beyond 2^53.
    Whole(u64),
    Text(String),
    /// A list of numbers, as a report's config gives `more_crashes_ms` back (milliseconds since
    /// midnight).
    Times(Vec<f64>),
    Null,
    /// Any other type, by its JavaScript name (boolean, object, undefined, ...).
    Other(String),
}

/// Largest integer JavaScript represents exactly.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
