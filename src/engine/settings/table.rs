//! The one table of settings. Each setting of the scenario is one row here: its config key, type
//! and default (the lesson's worked example), element attribute, command-line flag, unit, allowed
//! range, slider steps, label and help, and for a choice its values as config, the command line
//! and the page spell them. The rows make `Config`, its defaults and its fields by key, the
//! choices' enums, and [`SETTINGS`], from which the engine's validation, the JavaScript and
//! attribute readers, the clap command, the page's controls (`www/settings.js`, written by
//! `lesson::controls`) and the TypeScript `Config` declaration are all made.

use serde::{Deserialize, Serialize};
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

/// 10:00:00 on the scenario clock.
pub const TEN_AM_MS: u64 = 10 * 3_600_000;

/// Flink's `restart-strategy.exponential-delay.reset-backoff-threshold`: after this long without
/// a failure the backoff starts again from its initial value.
pub const BACKOFF_RESET_THRESHOLD_MS: u64 = 3_600_000;

/// Kafka's `transaction.max.timeout.ms` broker default: a producer may not ask for more.
pub const BROKER_TRANSACTION_MAX_TIMEOUT_MS: u64 = 900_000;

const fn setting(key: &'static str, flag: &'static str, unit: Unit, min: f64, max: f64, optional: bool) -> Setting {
    Setting {
        key,
        attribute: flag,
        flag,
        unit,
        min,
        max,
        optional,
        control: Control::None,
        steps: Steps::None,
        label: "",
        label_micro_batch: None,
        help: "",
    }
}

/// A config field as the settings table reads and writes it: config JSON's value for it.
trait Field: Sized {
    /// Whether the setting may be `null` (attribute and flag: "none").
    const OPTIONAL: bool = false;
    fn to_value(&self) -> Value;
    /// `None` for a value of another kind; the settings' `check` only returns values of the kind.
    fn from_value(value: &Value) -> Option<Self>;
}

impl Field for u64 {
    fn to_value(&self) -> Value {
        Value::from(*self)
    }
    fn from_value(value: &Value) -> Option<Self> {
        value.as_u64()
    }
}

impl Field for u32 {
    fn to_value(&self) -> Value {
        Value::from(*self)
    }
    fn from_value(value: &Value) -> Option<Self> {
        value.as_u64().and_then(|n| u32::try_from(n).ok())
    }
}

impl Field for f64 {
    fn to_value(&self) -> Value {
        Value::from(*self)
    }
    fn from_value(value: &Value) -> Option<Self> {
        value.as_f64()
    }
}

impl Field for Option<u64> {
    const OPTIONAL: bool = true;
    fn to_value(&self) -> Value {
        self.map_or(Value::Null, Value::from)
    }
    fn from_value(value: &Value) -> Option<Self> {
        if value.is_null() {
            Some(None)
        } else {
            value.as_u64().map(Some)
        }
    }
}

impl Field for Vec<u64> {
    fn to_value(&self) -> Value {
        Value::from(self.clone())
    }
    fn from_value(value: &Value) -> Option<Self> {
        value.as_array()?.iter().map(Value::as_u64).collect()
    }
}

/// The keys a config's JSON lists first, in this order, as recorded reports have them; any other
/// setting follows in the table's order.
const SERIALIZED_FIRST: &[&str] = &[
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
    "buffer_debloat",
    "state_bytes",
    "store_write_bytes_per_s",
    "store_read_bytes_per_s",
    "sync_pause_ms",
    "failure",
    "heartbeat_interval_ms",
    "heartbeat_timeout_ms",
    "detection_ms",
    "restart_strategy",
    "restart_delay_ms",
    "backoff_initial_ms",
    "backoff_multiplier",
    "backoff_max_ms",
    "backoff_jitter",
    "backoff_reset_ms",
    "restart_attempts",
    "failure_rate_max",
    "failure_rate_interval_ms",
    "heartbeat_loss",
    "fail_on_data_loss",
    "checkpointing_mode",
    "isolation_level",
    "transaction_timeout_ms",
    "capacity_per_s",
    "start_time_ms",
    "start_offset",
    "start_checkpoint_id",
    "crash_at_ms",
    "more_crashes_ms",
    "mtbf_ms",
    "horizon_ms",
    "latency_sla_ms",
];

/// Writes, from one row per setting, everything the setting is: the [`Setting`] in [`SETTINGS`]
/// (in the rows' order), the `Config` field (its help as its documentation, its type, its
/// default) and its reading and writing by key, and for a choice its enum with each value's
/// spellings (config and JavaScript, command line, page). A row is
/// `key: Type = default => (flag, unit, min, max) { help: "...", more Setting fields }`, or for a
/// choice `key: enum Name { Variant = "value" / "flag-value" / "label", ... } = default =>
/// (flag) { ... }`; a setting is optional (`null`, "none") when its type is an `Option`.
/// `serialized first` names the keys a config's JSON lists first, in their order.
macro_rules! settings_table {
    (serialized first $first:ident; $($rows:tt)*) => {
        settings_table!(@rows $first [] $($rows)*);
    };
    // A choice: its enum, its values' spellings and how config JSON reads and writes them.
    (@rows $first:ident [$($done:tt)*]
        $(#[$choice_attr:meta])*
        $key:ident: enum $choice:ident {
            $($(#[$variant_attr:meta])* $variant:ident = $value:literal / $flag_value:literal / $label:literal,)+
        } = $default:expr => ($flag:literal) { help: $help:literal, $($more:tt)* }
        $($rest:tt)*
    ) => {
        $(#[$choice_attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum $choice {
            $($(#[$variant_attr])* #[serde(rename = $value)] $variant,)+
        }

        impl $choice {
            /// Every value, as config and JavaScript, the command line and the page spell it.
            pub const CHOICES: &'static [Choice] =
                &[$(Choice { value: $value, flag_value: $flag_value, label: $label },)+];
        }

        impl Field for $choice {
            fn to_value(&self) -> Value {
                Value::from(match self { $($choice::$variant => $value,)+ })
            }
            fn from_value(value: &Value) -> Option<Self> {
                match value.as_str()? {
                    $($value => Some($choice::$variant),)+
                    _ => None,
                }
            }
        }

        settings_table!(@rows $first [$($done)* {
            $key: $choice = $default; $help;
            Setting {
                help: $help,
                $($more)*
                ..setting(stringify!($key), $flag, Unit::Choice($choice::CHOICES), 0.0, 0.0, false)
            }
        }] $($rest)*);
    };
    (@rows $first:ident [$($done:tt)*]
        $key:ident: $type:ty = $default:expr => ($flag:literal, $unit:expr, $min:expr, $max:expr)
            { help: $help:literal, $($more:tt)* }
        $($rest:tt)*
    ) => {
        settings_table!(@rows $first [$($done)* {
            $key: $type = $default; $help;
            Setting {
                help: $help,
                $($more)*
                ..setting(stringify!($key), $flag, $unit, $min, $max, <$type as Field>::OPTIONAL)
            }
        }] $($rest)*);
    };
    (@rows $first:ident [$($done:tt)*]) => {
        settings_table!(@emit $first $($done)*);
    };
    (@emit $first:ident $({ $key:ident: $type:ty = $default:expr; $help:literal; $setting:expr })+) => {
        /// One scenario. Times are milliseconds (clock times since midnight), sizes bytes, rates per second.
        #[derive(Clone, Debug, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct Config {
            $(#[doc = $help] pub $key: $type,)+
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $($key: $default,)+ }
            }
        }

        /// How many settings there are.
        const COUNT: usize = [$(stringify!($key),)+].len();

        /// Every setting, in documentation order.
        pub const SETTINGS: [Setting; COUNT] = [$($setting,)+];

        impl Serialize for Config {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let mut fields = serializer.serialize_struct("Config", COUNT)?;
                let rest = SETTINGS.iter().map(|s| s.key).filter(|key| !$first.contains(key));
                for key in $first.iter().copied().chain(rest) {
                    match key {
                        $(stringify!($key) => fields.serialize_field(stringify!($key), &self.$key)?,)+
                        _ => unreachable!("{key} is not a setting"),
                    }
                }
                fields.end()
            }
        }

        impl Config {
            /// The field with this config key, as config JSON gives it.
            pub fn get(&self, key: &str) -> Option<Value> {
                match key {
                    $(stringify!($key) => Some(self.$key.to_value()),)+
                    _ => None,
                }
            }

            /// Sets the field with this config key from a value its setting's `check` returned;
            /// false for an unknown key or a value of another kind.
            pub fn set(&mut self, key: &str, value: &Value) -> bool {
                match key {
                    $(stringify!($key) => match Field::from_value(value) {
                        Some(v) => {
                            self.$key = v;
                            true
                        }
                        None => false,
                    },)+
                    _ => false,
                }
            }
        }
    };
}

settings_table! {
    serialized first SERIALIZED_FIRST;

    seed: u64 = 42 => ("seed", Unit::Seed, 0.0, u64::MAX as f64) {
        help: "Root seed; every component derives its own sub-seed from it",
        label: "Seed",
    }
    partitions: u32 = 12 => ("partitions", Unit::Count, 1.0, 256.0) {
        help: "Source partitions",
        label: "Partitions",
    }
    partition_skew: f64 = 3.0 => ("partition-skew", Unit::Factor, 1.0, 16.0) {
        help: "How many times the quietest partition's events the busiest receives, as a producer \
               partitioning by skewed keys spreads them (partition p's share falls off as \
               (p + 1)^-s); 1 spreads events evenly",
        label: "Busiest partition",
        control: Control::Advanced,
        steps: Steps::Values(&[1.0, 2.0, 3.0, 5.0, 8.0]),
    }
    rate_per_s: u64 = 2_000 => ("rate", Unit::EventsPerS, 1.0, 1e6) {
        help: "Input rate over all partitions",
        label: "Input rate",
        control: Control::Advanced,
        steps: Steps::Values(&[500.0, 1_000.0, 2_000.0, 5_000.0, 10_000.0, 20_000.0]),
    }
    products: u32 = 100 => ("products", Unit::Count, 1.0, 1e5) {
        help: "Distinct products the orders are skewed over",
        label: "Products",
    }
    retry_rate: f64 = 0.0 => ("retry-rate", Unit::Share, 0.0, 0.5) {
        help: "Share of events that are producer retries of an earlier order id, e.g. 0.01 or 1%",
        label: "Producer retries",
    }
    retention_ms: Option<u64> = None => ("retention", Unit::DurationMs, 1.0 * S, 7.0 * DAY) {
        help: "How long the log keeps an event, or none",
        label: "Log retention",
    }
    window_ms: u64 = 300_000 => ("window", Unit::DurationMs, 1.0 * S, DAY) {
        help: "Tumbling event-time window length",
        label: "Window",
    }
    emit_every_ms: u64 = 1_000 => ("emit-every", Unit::DurationMs, 10.0, H) {
        help: "Emit running totals each time event time passes a multiple of this; divides the window",
        label: "Emit period",
    }
    /// How the job makes its progress durable.
    #[derive(Default)]
    mode: enum Mode {
        /// Continuous processing with checkpoint barriers flowing through the data (Flink).
        #[default]
        Barrier = "barrier" / "barrier" / "barrier checkpoints (Flink)",
        /// A batch per trigger interval, with an offset log and a commit log (Spark Structured Streaming).
        MicroBatch = "micro_batch" / "micro-batch" / "micro-batches (Spark)",
    } = Mode::Barrier => ("mode") {
        help: "Barrier checkpoints (Flink) or micro-batches with an offset log and a commit log (Spark)",
        label: "Restart design",
        control: Control::Main,
    }
    interval_ms: u64 = 30_000 => ("interval", Unit::DurationMs, 100.0, H) {
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
    }
    /// How operators line up barriers that arrive on several inputs.
    alignment: enum Alignment {
        /// Hold an input that delivered barrier n until barrier n arrived on every input.
        Aligned = "aligned" / "aligned" / "aligned",
        /// Snapshot when the first barrier arrives and store the overtaken in-flight records.
        Unaligned = "unaligned" / "unaligned" / "unaligned",
    } = Alignment::Aligned => ("alignment") {
        help: "How operators line up barriers that arrive on several inputs",
        label: "Barrier alignment",
        control: Control::Advanced,
    }
    /// What a checkpoint uploads to the store.
    snapshots: enum Snapshots {
        /// The whole state, every time.
        Full = "full" / "full" / "full",
        /// Only the bytes written since the previous checkpoint.
        Incremental = "incremental" / "incremental" / "incremental",
    } = Snapshots::Full => ("snapshots") {
        help: "What a checkpoint uploads: the whole state or the bytes changed since the previous one \
               (micro-batch mode: the state store provider, HDFS-backed or RocksDB; both write what changed)",
        label: "Snapshots",
        label_micro_batch: Some("State store"),
        control: Control::Advanced,
    }
    backpressure_ms: u64 = 0 => ("backpressure", Unit::DurationMs, 0.0, 10.0 * MIN) {
        help: "Extra delay on one input channel (partition 0): the backpressure under which alignment matters",
        label: "Backpressure (slow input)",
        control: Control::Advanced,
        steps: Steps::Values(&[0.0, 0.5 * S, 1.0 * S, 2.0 * S, 3.0 * S, 5.0 * S, 10.0 * S]),
    }
    record_bytes: u64 = 1_000 => ("record-size", Unit::Bytes, 1.0, 1e8) {
        help: "Bytes one in-flight record adds to an unaligned checkpoint",
        label: "Record size",
    }
    /// Flink's buffer debloating (`taskmanager.network.memory.buffer-debloat.enabled`): whether the
    /// network buffers shrink to hold about one second of a channel's throughput.
    buffer_debloat: enum BufferDebloat {
        /// Flink's default: every channel keeps its full buffers.
        Off = "off" / "off" / "off (Flink's default)",
        /// The buffers hold about `buffer-debloat.target` (1 s) of the channel's throughput.
        On = "on" / "on" / "on: about 1 s of throughput",
    } = BufferDebloat::Off => ("buffer-debloat") {
        help: "Unaligned checkpoints store the records in the network buffers, which bound them: per \
               backpressured channel 2 exclusive and 8 floating input buffers and 10 output buffers of \
               32 KB (taskmanager.network.memory.buffers-per-channel, floating-buffers-per-gate, \
               max-buffers-per-channel, taskmanager.memory.segment-size), beyond which the source stops \
               reading; buffer debloating (taskmanager.network.memory.buffer-debloat.enabled) shrinks \
               them to about 1 s of the channel's throughput",
        label: "Buffer debloating",
    }
    state_bytes: u64 = 2_000_000_000 => ("state-size", Unit::Bytes, 1e3, 1e13) {
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
    }
    store_write_bytes_per_s: u64 = 1_000_000_000 => ("store-write", Unit::BytesPerS, 1e3, 1e12) {
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
    }
    store_read_bytes_per_s: u64 = 200_000_000 => ("store-read", Unit::BytesPerS, 1e3, 1e12) {
        help: "Restore bandwidth (download and rebuild)",
        label: "Restore bandwidth",
    }
    sync_pause_ms: u64 = 100 => ("sync-pause", Unit::DurationMs, 0.0, 10.0 * MIN) {
        help: "Processing pause at each checkpoint's synchronous phase (micro-batch mode: the offset-log write)",
        label: "Sync pause",
    }
    /// What failed, which decides how soon the JobManager notices.
    failure: enum Failure {
        /// An operator throws: the task reports the failure to the JobManager at once.
        Task = "task" / "task" / "a task throws",
        /// The TaskManager process is gone: noticed when its heartbeat times out.
        TaskmanagerLost = "taskmanager_lost" / "taskmanager-lost" / "a TaskManager is lost",
    } = Failure::TaskmanagerLost => ("failure") {
        help: "What fails: a task throws (the JobManager hears at once) or a TaskManager process is lost \
               (noticed when its heartbeat times out)",
        label: "Failure",
        control: Control::Advanced,
    }
    heartbeat_interval_ms: u64 = 10_000 => ("heartbeat-interval", Unit::DurationMs, 100.0, H) {
        help: "How often the JobManager asks each TaskManager for a heartbeat (Flink's heartbeat.interval, 10 s)",
        label: "Heartbeat interval",
    }
    heartbeat_timeout_ms: u64 = 10_000 => ("heartbeat-timeout", Unit::DurationMs, 100.0, H) {
        help: "Silence after which a TaskManager is declared lost; at least the heartbeat interval \
               (Flink's heartbeat.timeout, 50 s by default; micro-batch mode: how long the query's \
               supervisor takes to notice it stopped)",
        label: "Heartbeat timeout",
        label_micro_batch: Some("Supervisor notices after"),
        control: Control::Advanced,
        steps: Steps::Values(&[10.0 * S, 15.0 * S, 20.0 * S, 30.0 * S, 50.0 * S, 1.0 * MIN, 2.0 * MIN]),
    }
    /// Where in the heartbeat window a lost TaskManager's last answered heartbeat lies, which decides
    /// how soon the loss is noticed.
    heartbeat_loss: enum HeartbeatLoss {
        /// It answered just before the crash: noticed a whole heartbeat timeout later.
        Slowest = "slowest" / "slowest" / "just after a heartbeat (slowest)",
        /// Its last answer is drawn from the seed within the last heartbeat interval before the
        /// crash: noticed between the timeout minus the interval and the timeout.
        Drawn = "drawn" / "drawn" / "anywhere in the heartbeat interval (drawn)",
    } = HeartbeatLoss::Slowest => ("heartbeat-loss") {
        help: "When a lost TaskManager last answered a heartbeat: just before the crash, so the loss is \
               noticed a whole timeout later (the slowest case), or drawn from the seed within the last \
               heartbeat interval, so it is noticed between the timeout minus the interval and the timeout",
        label: "Heartbeat loss",
    }
    detection_ms: Option<u64> = None => ("detection", Unit::DurationMs, 0.0, H) {
        help: "Time from the crash until the failure is detected, overriding the failure kind, or none",
        label: "Failure detection",
    }
    /// How long a failed job waits before it restarts (Flink's `restart-strategy.type`).
    restart_strategy: enum RestartStrategy {
        /// The same delay before every restart.
        FixedDelay = "fixed_delay" / "fixed-delay" / "fixed delay",
        /// A backoff that grows by a multiplier with each failure, up to a maximum, with jitter;
        /// Flink's default since 1.19.
        ExponentialDelay = "exponential_delay" / "exponential-delay" / "exponential backoff",
        /// A fixed delay, as long as no more than a number of failures fall within an interval.
        FailureRate = "failure_rate" / "failure-rate" / "failure rate",
        /// No restart: the first failure leaves the job failed.
        None = "none" / "none" / "no restart",
    } = RestartStrategy::FixedDelay => ("restart-strategy") {
        help: "How a failed job restarts: a fixed delay with a number of attempts, a backoff that grows \
               with each failure (Flink's default since 1.19), a fixed delay while failures stay under a \
               rate, or not at all",
        label: "Restart strategy",
        control: Control::Advanced,
    }
    restart_delay_ms: u64 = 0 => ("restart-delay", Unit::DurationMs, 0.0, H) {
        help: "Fixed-delay and failure-rate strategies: time from detection until the restore starts \
               (micro-batch mode: the supervisor's wait before it restarts the query)",
        label: "Restart delay",
    }
    // The lesson's job restarts after every failure (Flink's own default, when the
    // strategy is chosen without attempts, is 1).
    restart_attempts: u64 = 2_147_483_647 => ("restart-attempts", Unit::Count, 0.0, 2_147_483_647.0) {
        help: "Fixed-delay strategy: restarts allowed before the job fails (Flink's \
               restart-strategy.fixed-delay.attempts; here every failure restarts unless this is lowered, \
               where Flink's own default is 1)",
        label: "Restart attempts",
    }
    failure_rate_max: u64 = 1 => ("failure-rate-max", Unit::Count, 1.0, 2_147_483_647.0) {
        help: "Failure-rate strategy: failures allowed within the failure-rate interval before the job \
               fails (Flink's restart-strategy.failure-rate.max-failures-per-interval, 1 by default)",
        label: "Failures per interval",
    }
    failure_rate_interval_ms: u64 = 60_000 => ("failure-rate-interval", Unit::DurationMs, 1.0 * S, DAY) {
        help: "Failure-rate strategy: the interval failures are counted over (Flink's \
               restart-strategy.failure-rate.failure-rate-interval, 1 min by default)",
        label: "Failure-rate interval",
    }
    backoff_initial_ms: u64 = 1_000 => ("backoff-initial", Unit::DurationMs, 1.0, H) {
        help: "Exponential-delay strategy: the first backoff",
        label: "Initial backoff",
    }
    backoff_multiplier: f64 = 1.5 => ("backoff-multiplier", Unit::Factor, 1.01, 10.0) {
        help: "Exponential-delay strategy: what each further failure multiplies the backoff by; above 1, \
               as Flink requires",
        label: "Backoff multiplier",
    }
    backoff_max_ms: u64 = 60_000 => ("backoff-max", Unit::DurationMs, 1.0, H) {
        help: "Exponential-delay strategy: the longest backoff",
        label: "Maximum backoff",
    }
    backoff_jitter: f64 = 0.1 => ("backoff-jitter", Unit::Share, 0.0, 1.0) {
        help: "Exponential-delay strategy: the share of the backoff added or taken off at random",
        label: "Backoff jitter",
    }
    backoff_reset_ms: u64 = BACKOFF_RESET_THRESHOLD_MS => ("backoff-reset", Unit::DurationMs, 1.0, DAY) {
        help: "Exponential-delay strategy: after this long without a failure the backoff starts again \
               from the initial one (Flink's reset-backoff-threshold, 1 h)",
        label: "Backoff reset",
    }
    /// What a restore guarantees about the state (Flink's `execution.checkpointing.mode`).
    checkpointing_mode: enum CheckpointingMode {
        /// Barriers are aligned (or unaligned with their in-flight records stored): the state of a
        /// checkpoint holds exactly the records before its barriers.
        ExactlyOnce = "exactly_once" / "exactly-once" / "exactly once",
        /// Barriers are not aligned: records that pass a barrier before the operator snapshots are
        /// in the checkpoint's state and are read again after a restore.
        AtLeastOnce = "at_least_once" / "at-least-once" / "at least once",
    } = CheckpointingMode::ExactlyOnce => ("checkpointing-mode") {
        help: "Exactly once aligns barriers; at least once lets records pass a barrier before the \
               snapshot, so a restore reads them again",
        label: "Checkpointing mode",
        control: Control::Advanced,
    }
    /// Where a restart takes its source offsets from: the checkpoint, with the state (Flink's Kafka
    /// source), or the consumer group's offsets, committed to Kafka on a timer while the state is
    /// checkpointed on its own (`enable.auto.commit`). Barrier mode only: Spark's Kafka source
    /// keeps its offsets in the query's offset log and refuses `enable.auto.commit`.
    offset_commit: enum OffsetCommit {
        /// The offsets are part of the checkpoint: a restore rewinds the readers to the offsets
        /// its state was taken at.
        WithCheckpoint = "with_checkpoint" / "with-checkpoint" / "with the checkpoint",
        /// The consumer commits its position to the group every `offset_commit_interval_ms` while
        /// the job runs; a restore loads the checkpoint's state but resumes reading at the last
        /// committed offsets, so what lies between the two is lost or counted twice.
        OnTimer = "on_timer" / "on-timer" / "on a timer, apart from the state",
    } = OffsetCommit::WithCheckpoint => ("offset-commit") {
        help: "Where a restart resumes reading: at the checkpoint's offsets, taken with its state, or at the \
               offsets the consumer committed to Kafka on a timer (enable.auto.commit), while the state is \
               checkpointed on its own; events between the two are then lost or counted twice (barrier mode; \
               micro-batches keep their offsets in the offset log)",
        label: "Offsets committed",
        control: Control::Advanced,
    }
    offset_commit_interval_ms: u64 = 5_000 => ("offset-commit-interval", Unit::DurationMs, 100.0, H) {
        help: "Offsets committed on a timer: how often the consumer commits its position to the group \
               (Kafka's auto.commit.interval.ms, 5 s); the first commit comes one interval after the job \
               (or a restarted attempt) starts reading",
        label: "Offset commit interval",
        control: Control::Advanced,
        steps: Steps::Values(&[1.0 * S, 2.0 * S, 5.0 * S, 10.0 * S, 30.0 * S, 1.0 * MIN, 2.0 * MIN]),
    }
    /// What the transactional sink's readers see (Kafka's consumer `isolation.level`).
    isolation_level: enum IsolationLevel {
        /// Only rows of committed transactions.
        ReadCommitted = "read_committed" / "read-committed" / "read_committed",
        /// Every row as it is written, including rows of transactions later aborted.
        ReadUncommitted = "read_uncommitted" / "read-uncommitted" / "read_uncommitted",
    } = IsolationLevel::ReadCommitted => ("isolation-level") {
        help: "What readers of the transactional sink see: committed rows only, or every row as written",
        label: "Reader isolation",
        control: Control::Advanced,
    }
    transaction_timeout_ms: u64 = BROKER_TRANSACTION_MAX_TIMEOUT_MS
        => ("transaction-timeout", Unit::DurationMs, 1.0 * S, 15.0 * MIN) {
        help: "The sink producer's transaction.timeout.ms: the broker aborts a transaction not committed \
               this long after it began; at most the broker's transaction.max.timeout.ms (15 min)",
        label: "Transaction timeout",
        control: Control::Advanced,
        steps: Steps::Values(&[30.0 * S, 1.0 * MIN, 2.0 * MIN, 5.0 * MIN, 10.0 * MIN, 15.0 * MIN]),
    }
    capacity_per_s: u64 = 4_000 => ("capacity", Unit::EventsPerS, 1.0, 1e7) {
        help: "Events per second the job can process at most",
        label: "Capacity",
        control: Control::Advanced,
        steps: Steps::Values(&[
            1_000.0, 2_000.0, 2_500.0, 3_000.0, 4_000.0, 6_000.0, 8_000.0, 10_000.0, 20_000.0, 40_000.0,
        ]),
    }
    start_time_ms: u64 = TEN_AM_MS => ("start-time", Unit::ClockMs, 0.0, DAY - 1.0) {
        help: "Scenario start on the clock",
        label: "Start time",
    }
    start_offset: u64 = 1_000_000 => ("start-offset", Unit::Count, 0.0, (1u64 << 50) as f64) {
        help: "Sum of the partition offsets at the start, where the start checkpoint is complete",
        label: "Start offset",
    }
    start_checkpoint_id: u64 = 41 => ("start-checkpoint", Unit::Count, 0.0, (1u64 << 50) as f64) {
        help: "The completed checkpoint the scenario starts from",
        label: "Start checkpoint",
    }
    crash_at_ms: Option<u64> = Some(TEN_AM_MS + 45_000) => ("crash-at", Unit::ClockMs, 0.0, DAY - 1.0) {
        help: "Crash time on the clock (HH:MM:SS or HH:MM:SS.mmm), inside the horizon, or none",
        label: "Crash time",
        control: Control::Main,
        steps: Steps::EverySecondOfHorizon,
    }
    more_crashes_ms: Vec<u64> = Vec::new() => ("more-crashes", Unit::ClockList, 0.0, DAY - 1.0) {
        help: "Further crash times on the clock besides the crash time, comma-separated \
               (10:01:30,10:04:00), each inside the horizon; at most 100",
        label: "More crashes",
    }
    mtbf_ms: Option<u64> = None => ("mtbf", Unit::DurationMs, 1.0 * S, DAY) {
        help: "Mean time between failures: crashes drawn from the seed over the horizon, at \
               exponentially distributed gaps of this mean, or none",
        label: "Mean time between failures",
    }
    /// What a Spark query does when the offsets it must read again are gone from the log
    /// (`failOnDataLoss`).
    fail_on_data_loss: enum FailOnDataLoss {
        /// The query fails (Spark's default).
        True = "true" / "true" / "fail the query",
        /// The query skips to the oldest offset the log still holds, with a warning.
        False = "false" / "false" / "skip ahead with a warning",
    } = FailOnDataLoss::True => ("fail-on-data-loss") {
        help: "Micro-batch mode: Spark's failOnDataLoss, what a query does when offsets it must read \
               again are gone from the log: fail (Spark's default) or skip to the oldest offset kept, \
               with a warning",
        label: "Fail on data loss",
    }
    horizon_ms: u64 = 600_000 => ("horizon", Unit::DurationMs, 1.0 * S, DAY) {
        help: "How long the scenario runs",
        label: "Horizon",
    }
    latency_sla_ms: u64 = 300_000 => ("latency-sla", Unit::DurationMs, 100.0, DAY) {
        help: "End-to-end latency SLA, for the interval rule (an interval of about a tenth of it)",
        label: "Latency SLA",
        control: Control::Advanced,
        steps: Steps::Values(&[10.0 * S, 30.0 * S, 1.0 * MIN, 2.0 * MIN, 5.0 * MIN, 10.0 * MIN, 30.0 * MIN]),
        attribute: "sla",
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_listed_first_are_settings_each_once() {
        for (i, key) in SERIALIZED_FIRST.iter().enumerate() {
            assert!(by_key(key).is_some(), "{key} is not a setting");
            assert!(!SERIALIZED_FIRST[..i].contains(key), "{key} is listed twice");
        }
    }
}
