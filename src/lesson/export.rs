//! The chosen settings as real engine configuration: Flink's checkpointing, state backend and
//! restart strategy (config.yaml keys of Flink 1.20 and later), and Spark Structured Streaming's
//! checkpoint location and processing-time trigger. What a setting has no equivalent for is
//! said in a comment rather than invented.

use serde::Serialize;

use crate::engine::model::restart::{detection_delay_ms, restart_backoff_ms};
use crate::engine::model::sinks::SinkDesign;
use crate::engine::model::steady_state::checkpoint_outlasts_timeout_ms;
use crate::engine::settings::config::{
    Alignment, CheckpointingMode, Config, Failure, IsolationLevel, Mode, RestartStrategy, Snapshots,
    BROKER_TRANSACTION_MAX_TIMEOUT_MS, FLINK_CHECKPOINT_TIMEOUT_MS,
};
use crate::engine::settings::units::format_duration_ms;

/// Both exports of one configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Export {
    pub flink: String,
    pub spark: String,
}

/// A duration as Flink and Spark write it: "30 s", "2 min", "1500 ms".
fn flink_duration(ms: u64) -> String {
    match ms {
        0 => "0 ms".to_string(),
        ms if ms % 3_600_000 == 0 => format!("{} h", ms / 3_600_000),
        ms if ms % 60_000 == 0 => format!("{} min", ms / 60_000),
        ms if ms % 1_000 == 0 => format!("{} s", ms / 1_000),
        ms => format!("{ms} ms"),
    }
}

/// Spark's `Trigger.ProcessingTime` text: "30 seconds", "1 minute".
fn spark_interval(ms: u64) -> String {
    let plural = |n: u64, unit: &str| if n == 1 { format!("1 {unit}") } else { format!("{n} {unit}s") };
    match ms {
        ms if ms % 60_000 == 0 => plural(ms / 60_000, "minute"),
        ms if ms % 1_000 == 0 => plural(ms / 1_000, "second"),
        ms => plural(ms, "millisecond"),
    }
}

pub fn export(config: &Config, sink: SinkDesign) -> Export {
    Export { flink: flink(config, sink), spark: spark(config, sink) }
}

/// Flink config.yaml lines for `config`. Every key exists in Flink 1.20 and 2.x, and every value
/// the settings allow is one Flink accepts (the heartbeat timeout is at least its interval, both
/// above zero; the restart strategy's keys match the chosen strategy).
pub fn flink(config: &Config, sink: SinkDesign) -> String {
    let mode = match config.checkpointing_mode {
        CheckpointingMode::ExactlyOnce => "EXACTLY_ONCE",
        CheckpointingMode::AtLeastOnce => "AT_LEAST_ONCE",
    };
    let mut lines = vec![
        "# Flink (config.yaml, 1.20 or later)".to_string(),
        format!("execution.checkpointing.interval: {}", flink_duration(config.interval_ms)),
        format!("execution.checkpointing.mode: {mode}"),
        format!("execution.checkpointing.unaligned.enabled: {}", config.alignment == Alignment::Unaligned),
        "execution.checkpointing.max-concurrent-checkpoints: 1".to_string(),
        "state.backend.type: rocksdb".to_string(),
        format!("execution.checkpointing.incremental: {}", config.snapshots == Snapshots::Incremental),
        "execution.checkpointing.dir: s3://my-bucket/checkpoints/orders-per-product".to_string(),
    ];
    // A checkpoint the default timeout would expire (which, tolerating no failed checkpoint, fails
    // the job): half as long again as it takes, in whole minutes.
    if let Some(checkpoint_ms) = checkpoint_outlasts_timeout_ms(config) {
        lines.push(format!(
            "# a checkpoint takes {}: the default timeout of {} would expire every one",
            format_duration_ms(checkpoint_ms),
            flink_duration(FLINK_CHECKPOINT_TIMEOUT_MS)
        ));
        lines.push(format!(
            "execution.checkpointing.timeout: {}",
            flink_duration((checkpoint_ms * 3 / 2).div_ceil(60_000) * 60_000)
        ));
    }
    match config.restart_strategy {
        RestartStrategy::FixedDelay => lines.extend([
            "restart-strategy.type: fixed-delay".to_string(),
            format!("restart-strategy.fixed-delay.attempts: {}", config.restart_attempts),
            format!("restart-strategy.fixed-delay.delay: {}", flink_duration(config.restart_delay_ms)),
        ]),
        RestartStrategy::ExponentialDelay => lines.extend([
            "restart-strategy.type: exponential-delay".to_string(),
            format!(
                "restart-strategy.exponential-delay.initial-backoff: {}",
                flink_duration(config.backoff_initial_ms)
            ),
            format!("restart-strategy.exponential-delay.max-backoff: {}", flink_duration(config.backoff_max_ms)),
            format!("restart-strategy.exponential-delay.backoff-multiplier: {}", config.backoff_multiplier),
            format!("restart-strategy.exponential-delay.jitter-factor: {}", config.backoff_jitter),
            format!(
                "restart-strategy.exponential-delay.reset-backoff-threshold: {}",
                flink_duration(config.backoff_reset_ms)
            ),
        ]),
        RestartStrategy::FailureRate => lines.extend([
            "restart-strategy.type: failure-rate".to_string(),
            format!("restart-strategy.failure-rate.max-failures-per-interval: {}", config.failure_rate_max),
            format!(
                "restart-strategy.failure-rate.failure-rate-interval: {}",
                flink_duration(config.failure_rate_interval_ms)
            ),
            format!("restart-strategy.failure-rate.delay: {}", flink_duration(config.restart_delay_ms)),
        ]),
        RestartStrategy::None => lines.push("restart-strategy.type: none".to_string()),
    }
    lines.push(format!("heartbeat.interval: {}", config.heartbeat_interval_ms));
    lines.push(format!("heartbeat.timeout: {}", config.heartbeat_timeout_ms));
    if config.heartbeat_timeout_ms < 2 * config.heartbeat_interval_ms {
        lines.push(
            "# a timeout under twice the interval lets one late heartbeat mark a healthy TaskManager lost; \
             Flink's defaults keep 1:5"
                .to_string(),
        );
    }
    lines.push(match (config.detection_ms, config.failure) {
        (Some(ms), _) => format!(
            "# failure detection set to {} directly: no Flink key; the heartbeat keys apply to a lost TaskManager",
            flink_duration(ms)
        ),
        (None, Failure::TaskmanagerLost) => {
            "# failure modelled: a lost TaskManager, noticed when heartbeat.timeout runs out".to_string()
        }
        (None, Failure::Task) => {
            "# failure modelled: a task throws; the JobManager hears at once, heartbeats play no part".to_string()
        }
    });
    match sink {
        SinkDesign::Transactional => lines.extend([
            format!(
                "# sink: KafkaSink with DeliveryGuarantee.EXACTLY_ONCE and a transactional id prefix{};",
                if config.checkpointing_mode == CheckpointingMode::AtLeastOnce {
                    " (with AT_LEAST_ONCE checkpoints the state it commits from may count records twice)"
                } else {
                    ""
                }
            ),
            "#   it pre-commits at each barrier and commits after the checkpoint completes".to_string(),
            "#   (notifyCheckpointComplete), committing again on restore".to_string(),
            format!(
                "#   producer property transaction.timeout.ms={} (KafkaSink's own default, 1 h, is above the broker's \
                 transaction.max.timeout.ms, {} by default, and fails at startup)",
                config.transaction_timeout_ms, BROKER_TRANSACTION_MAX_TIMEOUT_MS
            ),
            format!(
                "#   readers: isolation.level={}",
                match config.isolation_level {
                    IsolationLevel::ReadCommitted => {
                        "read_committed (they see committed rows only; Kafka consumers default to read_uncommitted)"
                    }
                    IsolationLevel::ReadUncommitted => "read_uncommitted (they also see rows later aborted)",
                }
            ),
        ]),
        SinkDesign::Upsert => lines
            .push("# sink: an upsert sink keyed by (product_id, window_start), e.g. upsert-kafka or JDBC".to_string()),
        SinkDesign::AppendOnly => {
            lines.push("# sink: append-only, DeliveryGuarantee.AT_LEAST_ONCE (replays leave duplicates)".to_string())
        }
        SinkDesign::DedupeView => {
            lines.push("# sink: append-only, read through a view keeping the newest emitted_at per key".to_string())
        }
    }
    if config.mode.runs_batches() {
        lines.push("# Flink has no micro-batch trigger: the interval above is the checkpoint interval".to_string());
    }
    lines.join("\n") + "\n"
}

/// Spark Structured Streaming (Scala) for `config`.
pub fn spark(config: &Config, sink: SinkDesign) -> String {
    let mut lines = vec!["// Spark Structured Streaming (Scala)".to_string()];
    if config.snapshots == Snapshots::Incremental {
        lines.push(
            "spark.conf.set(\"spark.sql.streaming.stateStore.providerClass\",\n  \
             \"org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider\")"
                .to_string(),
        );
        lines.push(
            "spark.conf.set(\"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled\", \"true\")"
                .to_string(),
        );
    }
    lines.push("val query = counts.writeStream".to_string());
    lines.push("  .outputMode(\"update\")".to_string());
    match sink {
        SinkDesign::Transactional => {
            lines
                .push("  // idempotent by batch id: a re-run batch finds its batchId written and skips it".to_string());
            lines.push("  .foreachBatch(writeOnceByBatchId _)".to_string());
        }
        SinkDesign::Upsert => {
            lines.push("  // MERGE each batch on (product_id, window_start)".to_string());
            lines.push("  .foreachBatch(mergeOnKey _)".to_string());
        }
        SinkDesign::AppendOnly | SinkDesign::DedupeView => {
            lines.push("  // append each batch; a re-run batch is appended again".to_string());
            lines.push("  .foreachBatch(appendRows _)".to_string());
        }
    }
    lines.push("  .option(\"checkpointLocation\", \"s3a://my-bucket/checkpoints/orders-per-product\")".to_string());
    lines.push(format!("  .trigger(Trigger.ProcessingTime(\"{}\"))", spark_interval(config.interval_ms)));
    lines.push("  .start()".to_string());
    if config.alignment == Alignment::Unaligned {
        lines.push("// Spark has no barriers: aligned or unaligned does not apply".to_string());
    }
    if config.snapshots == Snapshots::Full {
        lines.push(
            "// Spark's state stores write what changed in each batch (delta files, and a snapshot every \
             spark.sql.streaming.stateStore.minDeltasForSnapshot versions); no batch writes the whole state"
                .to_string(),
        );
    }
    lines.push(
        "// a failed query is restarted by whatever runs it (cluster manager, job scheduler): Spark has no \
         restart strategy, heartbeat timeout or sink transaction timeout to set here"
            .to_string(),
    );
    // What the model's supervisor does, as in micro-batch mode whichever mode the page is in.
    let query = Config { mode: Mode::MicroBatch, ..config.clone() };
    lines.push(format!(
        "// modelled: its supervisor notices the stopped query after {} and restarts it {}",
        format_duration_ms(detection_delay_ms(&query, 1)),
        match restart_backoff_ms(&query, 1) {
            0 => "at once".to_string(),
            ms => format!("{} later", format_duration_ms(ms)),
        }
    ));
    lines.join("\n") + "\n"
}
