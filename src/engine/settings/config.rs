//! The scenario: every setting of the simulated job, its defaults (the lesson's worked example)
//! and the allowed range of each, checked before anything runs.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::clock::ClockTime;
use super::units::{format_bytes, format_duration_ms};
use crate::engine::settings;
pub use crate::engine::settings::{ConfigError, FieldValue, MAX_SAFE_INTEGER};

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

/// What a checkpoint uploads to the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Snapshots {
    /// The whole state, every time.
    Full,
    /// Only the bytes written since the previous checkpoint.
    Incremental,
}

/// What failed, which decides how soon the JobManager notices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// An operator throws: the task reports the failure to the JobManager at once.
    Task,
    /// The TaskManager process is gone: noticed when its heartbeat times out.
    TaskmanagerLost,
}

/// How long a failed job waits before it restarts (Flink's `restart-strategy.type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestartStrategy {
    /// The same delay before every restart.
    FixedDelay,
    /// A backoff that grows by a multiplier with each failure, up to a maximum, with jitter;
    /// Flink's default since 1.19.
    ExponentialDelay,
    /// A fixed delay, as long as no more than a number of failures fall within an interval.
    FailureRate,
    /// No restart: the first failure leaves the job failed.
    None,
}

/// Where in the heartbeat window a lost TaskManager's last answered heartbeat lies, which decides
/// how soon the loss is noticed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeartbeatLoss {
    /// It answered just before the crash: noticed a whole heartbeat timeout later.
    Slowest,
    /// Its last answer is drawn from the seed within the last heartbeat interval before the
    /// crash: noticed between the timeout minus the interval and the timeout.
    Drawn,
}

/// Flink's buffer debloating (`taskmanager.network.memory.buffer-debloat.enabled`): whether the
/// network buffers shrink to hold about one second of a channel's throughput.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BufferDebloat {
    /// Flink's default: every channel keeps its full buffers.
    Off,
    /// The buffers hold about `buffer-debloat.target` (1 s) of the channel's throughput.
    On,
}

/// What a Spark query does when the offsets it must read again are gone from the log
/// (`failOnDataLoss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailOnDataLoss {
    /// The query fails (Spark's default).
    True,
    /// The query skips to the oldest offset the log still holds, with a warning.
    False,
}

/// What a restore guarantees about the state (Flink's `execution.checkpointing.mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointingMode {
    /// Barriers are aligned (or unaligned with their in-flight records stored): the state of a
    /// checkpoint holds exactly the records before its barriers.
    ExactlyOnce,
    /// Barriers are not aligned: records that pass a barrier before the operator snapshots are
    /// in the checkpoint's state and are read again after a restore.
    AtLeastOnce,
}

/// What the transactional sink's readers see (Kafka's consumer `isolation.level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IsolationLevel {
    /// Only rows of committed transactions.
    ReadCommitted,
    /// Every row as it is written, including rows of transactions later aborted.
    ReadUncommitted,
}

/// How soon a task failure reaches the JobManager: the task reports it over RPC.
pub const TASK_FAILURE_DETECTION_MS: u64 = 100;

/// From a checkpoint's completion until the two-phase-commit sink has committed its epoch:
/// Flink's `notifyCheckpointComplete` reaching the writer and Kafka's commit round trip.
pub const SINK_COMMIT_DELAY_MS: u64 = 100;

/// Flink's `restart-strategy.exponential-delay.reset-backoff-threshold`: after this long without
/// a failure the backoff starts again from its initial value.
pub const BACKOFF_RESET_THRESHOLD_MS: u64 = 3_600_000;

/// Kafka's `transaction.max.timeout.ms` broker default: a producer may not ask for more.
pub const BROKER_TRANSACTION_MAX_TIMEOUT_MS: u64 = 900_000;

/// Flink's default `execution.checkpointing.timeout`: a checkpoint still pending this long after
/// its trigger is expired, which with `execution.checkpointing.tolerable-failed-checkpoints` at its
/// default of 0 fails the job.
pub const FLINK_CHECKPOINT_TIMEOUT_MS: u64 = 600_000;

/// Flink's default `heartbeat.timeout`: a lost TaskManager is noticed this long after its last
/// heartbeat unless the job sets another.
pub const FLINK_HEARTBEAT_TIMEOUT_MS: u64 = 50_000;

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
    /// Whether the network buffers, which bound an unaligned checkpoint's in-flight data, are
    /// debloated to about a second of throughput.
    pub buffer_debloat: BufferDebloat,
    /// Modelled operator state size, driving upload, restore and store write load.
    pub state_bytes: u64,
    /// Checkpoint store write bandwidth.
    pub store_write_bytes_per_s: u64,
    /// Restore bandwidth (download and rebuild).
    pub store_read_bytes_per_s: u64,
    /// Processing pause at each checkpoint's synchronous phase.
    pub sync_pause_ms: u64,
    /// What failed: a task, or a whole TaskManager.
    pub failure: Failure,
    /// How often the JobManager asks each TaskManager for a heartbeat (`heartbeat.interval`).
    pub heartbeat_interval_ms: u64,
    /// How long without a heartbeat before a TaskManager is declared lost (`heartbeat.timeout`).
    pub heartbeat_timeout_ms: u64,
    /// Time from the crash until the failure is detected, overriding what the failure kind
    /// gives; `None` derives it from the failure kind.
    pub detection_ms: Option<u64>,
    pub restart_strategy: RestartStrategy,
    /// The fixed delay from detection until the restore starts (fixed-delay strategy).
    pub restart_delay_ms: u64,
    /// Exponential-delay strategy: the first backoff, its multiplier per failure, its maximum,
    /// and the jitter (a share of the backoff, added or taken off at random).
    pub backoff_initial_ms: u64,
    pub backoff_multiplier: f64,
    pub backoff_max_ms: u64,
    pub backoff_jitter: f64,
    /// Exponential-delay strategy: after this long without a failure the backoff starts again
    /// from its initial value (`reset-backoff-threshold`).
    pub backoff_reset_ms: u64,
    /// Fixed-delay strategy: restarts allowed before the job fails (`fixed-delay.attempts`).
    pub restart_attempts: u64,
    /// Failure-rate strategy: failures allowed within `failure_rate_interval_ms` before the job
    /// fails (`failure-rate.max-failures-per-interval`).
    pub failure_rate_max: u64,
    pub failure_rate_interval_ms: u64,
    /// Where a lost TaskManager's last heartbeat lies in the heartbeat window.
    pub heartbeat_loss: HeartbeatLoss,
    /// Micro-batch mode: whether a query whose offsets are gone from the log fails.
    pub fail_on_data_loss: FailOnDataLoss,
    pub checkpointing_mode: CheckpointingMode,
    /// What readers of the transactional sink see.
    pub isolation_level: IsolationLevel,
    /// The sink's Kafka producer `transaction.timeout.ms`: the broker aborts a transaction that is
    /// still not committed this long after it began.
    pub transaction_timeout_ms: u64,
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
    /// Further crash times on the clock, besides `crash_at_ms`.
    pub more_crashes_ms: Vec<u64>,
    /// Mean time between failures: crashes drawn from the seed over the horizon, or `None`.
    pub mtbf_ms: Option<u64>,
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
            buffer_debloat: BufferDebloat::Off,
            state_bytes: 2_000_000_000,
            store_write_bytes_per_s: 1_000_000_000,
            store_read_bytes_per_s: 200_000_000,
            sync_pause_ms: 100,
            failure: Failure::TaskmanagerLost,
            heartbeat_interval_ms: 10_000,
            heartbeat_timeout_ms: 10_000,
            detection_ms: None,
            restart_strategy: RestartStrategy::FixedDelay,
            restart_delay_ms: 0,
            backoff_initial_ms: 1_000,
            backoff_multiplier: 1.5,
            backoff_max_ms: 60_000,
            backoff_jitter: 0.1,
            backoff_reset_ms: BACKOFF_RESET_THRESHOLD_MS,
            // The lesson's job restarts after every failure (Flink's own default, when the
            // strategy is chosen without attempts, is 1).
            restart_attempts: 2_147_483_647,
            failure_rate_max: 1,
            failure_rate_interval_ms: 60_000,
            heartbeat_loss: HeartbeatLoss::Slowest,
            fail_on_data_loss: FailOnDataLoss::True,
            checkpointing_mode: CheckpointingMode::ExactlyOnce,
            isolation_level: IsolationLevel::ReadCommitted,
            transaction_timeout_ms: BROKER_TRANSACTION_MAX_TIMEOUT_MS,
            capacity_per_s: 4_000,
            start_time_ms: TEN_AM_MS,
            start_offset: 1_000_000,
            start_checkpoint_id: 41,
            crash_at_ms: Some(TEN_AM_MS + 45_000),
            more_crashes_ms: Vec::new(),
            mtbf_ms: None,
            horizon_ms: 600_000,
            latency_sla_ms: 300_000,
        }
    }
}

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

/// A config field as the settings table reads and writes it: config JSON's value for it.
trait Field: Sized {
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

/// A choice's values by the names config JSON gives them (serde's snake_case of the variant).
macro_rules! choice_names {
    ($($choice:ident { $($variant:ident => $name:literal),+ $(,)? })+) => {$(
        impl Field for $choice {
            fn to_value(&self) -> Value {
                Value::from(match self { $($choice::$variant => $name),+ })
            }
            fn from_value(value: &Value) -> Option<Self> {
                match value.as_str()? {
                    $($name => Some($choice::$variant),)+
                    _ => None,
                }
            }
        }
    )+};
}

choice_names! {
    Mode { Barrier => "barrier", MicroBatch => "micro_batch" }
    Alignment { Aligned => "aligned", Unaligned => "unaligned" }
    Snapshots { Full => "full", Incremental => "incremental" }
    Failure { Task => "task", TaskmanagerLost => "taskmanager_lost" }
    RestartStrategy {
        FixedDelay => "fixed_delay",
        ExponentialDelay => "exponential_delay",
        FailureRate => "failure_rate",
        None => "none",
    }
    HeartbeatLoss { Slowest => "slowest", Drawn => "drawn" }
    BufferDebloat { Off => "off", On => "on" }
    FailOnDataLoss { True => "true", False => "false" }
    CheckpointingMode { ExactlyOnce => "exactly_once", AtLeastOnce => "at_least_once" }
    IsolationLevel { ReadCommitted => "read_committed", ReadUncommitted => "read_uncommitted" }
}

/// Reads and writes a config's fields by key, typed, without a JSON object in between.
macro_rules! fields_by_key {
    ($($field:ident),+ $(,)?) => {
        impl Config {
            /// The field with this config key, as config JSON gives it.
            pub fn get(&self, key: &str) -> Option<Value> {
                // Every field is listed: one left out of the list does not compile.
                let Config { $($field: _),+ } = self;
                match key {
                    $(stringify!($field) => Some(self.$field.to_value()),)+
                    _ => None,
                }
            }

            /// Sets the field with this config key from a value its setting's `check` returned;
            /// false for an unknown key or a value of another kind.
            pub fn set(&mut self, key: &str, value: &Value) -> bool {
                match key {
                    $(stringify!($field) => match Field::from_value(value) {
                        Some(v) => {
                            self.$field = v;
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

fields_by_key!(
    seed,
    partitions,
    rate_per_s,
    products,
    retry_rate,
    retention_ms,
    window_ms,
    emit_every_ms,
    mode,
    interval_ms,
    alignment,
    snapshots,
    backpressure_ms,
    record_bytes,
    buffer_debloat,
    state_bytes,
    store_write_bytes_per_s,
    store_read_bytes_per_s,
    sync_pause_ms,
    failure,
    heartbeat_interval_ms,
    heartbeat_timeout_ms,
    detection_ms,
    restart_strategy,
    restart_delay_ms,
    backoff_initial_ms,
    backoff_multiplier,
    backoff_max_ms,
    backoff_jitter,
    backoff_reset_ms,
    restart_attempts,
    failure_rate_max,
    failure_rate_interval_ms,
    heartbeat_loss,
    fail_on_data_loss,
    checkpointing_mode,
    isolation_level,
    transaction_timeout_ms,
    capacity_per_s,
    start_time_ms,
    start_offset,
    start_checkpoint_id,
    crash_at_ms,
    more_crashes_ms,
    mtbf_ms,
    horizon_ms,
    latency_sla_ms,
);

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
