//! The chosen settings as real engine configuration: Flink's checkpointing, state backend and
//! restart strategy (config.yaml keys of Flink 1.20 and later), and Spark Structured Streaming's
//! checkpoint location and processing-time trigger. What a setting has no equivalent for is
//! said in a comment rather than invented.

use serde::Serialize;

use crate::engine::config::{Alignment, Config, Mode, Snapshots};
use crate::engine::sinks::SinkDesign;

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

/// Flink config.yaml lines for `config`.
pub fn flink(config: &Config, sink: SinkDesign) -> String {
    let mut lines = vec![
        "# Flink (config.yaml, 1.20 or later)".to_string(),
        format!("execution.checkpointing.interval: {}", flink_duration(config.interval_ms)),
        "execution.checkpointing.mode: EXACTLY_ONCE".to_string(),
        format!("execution.checkpointing.unaligned.enabled: {}", config.alignment == Alignment::Unaligned),
        "execution.checkpointing.max-concurrent-checkpoints: 1".to_string(),
        "state.backend.type: rocksdb".to_string(),
        format!("execution.checkpointing.incremental: {}", config.snapshots == Snapshots::Incremental),
        "execution.checkpointing.dir: s3://my-bucket/checkpoints/orders-per-product".to_string(),
        "restart-strategy.type: fixed-delay".to_string(),
        "restart-strategy.fixed-delay.attempts: 10".to_string(),
        format!("restart-strategy.fixed-delay.delay: {}", flink_duration(config.restart_delay_ms)),
        format!("heartbeat.timeout: {}  # failure detection", config.detection_ms),
    ];
    lines.push(match sink {
        SinkDesign::Transactional => {
            "# sink: a two-phase-commit sink, e.g. KafkaSink with DeliveryGuarantee.EXACTLY_ONCE".to_string()
        }
        SinkDesign::Upsert => {
            "# sink: an upsert sink keyed by (product_id, window_start), e.g. upsert-kafka or JDBC".to_string()
        }
        SinkDesign::AppendOnly => {
            "# sink: append-only, DeliveryGuarantee.AT_LEAST_ONCE (replays leave duplicates)".to_string()
        }
        SinkDesign::DedupeView => {
            "# sink: append-only, read through a view keeping the newest emitted_at per key".to_string()
        }
    });
    if config.mode == Mode::MicroBatch {
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
            lines.push("  // one transaction per batch: skip a batchId that is already committed".to_string());
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
        lines.push("// Spark's state stores always write what changed; there is no full-snapshot setting".to_string());
    }
    lines.join("\n") + "\n"
}
