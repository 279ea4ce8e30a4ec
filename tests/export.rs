//! The export panel's text: the chosen settings as Flink configuration and Spark code.

use checkpoint_lab::engine::{Alignment, Config, Mode, SinkDesign, Snapshots};
use checkpoint_lab::lesson::export::export;

#[test]
fn the_default_scenario_exports_a_30_second_aligned_full_checkpoint() {
    let text = export(&Config::default(), SinkDesign::AppendOnly);
    assert_eq!(
        text.flink,
        "# Flink (config.yaml, 1.20 or later)
execution.checkpointing.interval: 30 s
execution.checkpointing.mode: EXACTLY_ONCE
execution.checkpointing.unaligned.enabled: false
execution.checkpointing.max-concurrent-checkpoints: 1
state.backend.type: rocksdb
execution.checkpointing.incremental: false
execution.checkpointing.dir: s3://my-bucket/checkpoints/orders-per-product
restart-strategy.type: fixed-delay
restart-strategy.fixed-delay.attempts: 10
restart-strategy.fixed-delay.delay: 0 ms
heartbeat.timeout: 10000  # failure detection
# sink: append-only, DeliveryGuarantee.AT_LEAST_ONCE (replays leave duplicates)
"
    );
    assert_eq!(
        text.spark,
        "// Spark Structured Streaming (Scala)
val query = counts.writeStream
  .outputMode(\"update\")
  // append each batch; a re-run batch is appended again
  .foreachBatch(appendRows _)
  .option(\"checkpointLocation\", \"s3a://my-bucket/checkpoints/orders-per-product\")
  .trigger(Trigger.ProcessingTime(\"30 seconds\"))
  .start()
// Spark's state stores always write what changed; there is no full-snapshot setting
"
    );
}

#[test]
fn a_one_minute_unaligned_incremental_micro_batch_job() {
    let config = Config {
        mode: Mode::MicroBatch,
        interval_ms: 60_000,
        alignment: Alignment::Unaligned,
        snapshots: Snapshots::Incremental,
        restart_delay_ms: 5_000,
        detection_ms: 30_000,
        ..Config::default()
    };
    let text = export(&config, SinkDesign::Transactional);
    let flink: Vec<&str> = text.flink.lines().collect();
    assert_eq!(flink[1], "execution.checkpointing.interval: 1 min");
    assert_eq!(flink[3], "execution.checkpointing.unaligned.enabled: true");
    assert_eq!(flink[6], "execution.checkpointing.incremental: true");
    assert_eq!(flink[10], "restart-strategy.fixed-delay.delay: 5 s");
    assert_eq!(flink[11], "heartbeat.timeout: 30000  # failure detection");
    assert_eq!(flink[12], "# sink: a two-phase-commit sink, e.g. KafkaSink with DeliveryGuarantee.EXACTLY_ONCE");
    assert_eq!(flink[13], "# Flink has no micro-batch trigger: the interval above is the checkpoint interval");
    assert_eq!(
        text.spark,
        "// Spark Structured Streaming (Scala)
spark.conf.set(\"spark.sql.streaming.stateStore.providerClass\",
  \"org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider\")
spark.conf.set(\"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled\", \"true\")
val query = counts.writeStream
  .outputMode(\"update\")
  // one transaction per batch: skip a batchId that is already committed
  .foreachBatch(writeOnceByBatchId _)
  .option(\"checkpointLocation\", \"s3a://my-bucket/checkpoints/orders-per-product\")
  .trigger(Trigger.ProcessingTime(\"1 minute\"))
  .start()
// Spark has no barriers: aligned or unaligned does not apply
"
    );
    // Odd intervals stay exact.
    let odd = export(&Config { interval_ms: 1_500, ..Config::default() }, SinkDesign::Upsert);
    assert!(odd.flink.contains("execution.checkpointing.interval: 1500 ms"));
    assert!(odd.spark.contains("Trigger.ProcessingTime(\"1500 milliseconds\")"));
}
