//! The export panel's text and `checkpoint-lab export`: the chosen settings as Flink
//! configuration and Spark code, with only keys and values the engines accept.
#![cfg(not(target_arch = "wasm32"))]

use checkpoint_lab::engine::settings::config::{CheckpointingMode, Failure, IsolationLevel, RestartStrategy};
use checkpoint_lab::engine::settings::{by_key, Steps};
use checkpoint_lab::engine::{Alignment, Config, Mode, SinkDesign, Snapshots};
use checkpoint_lab::lesson::export::export;

/// The `key: value` lines of a Flink export, comments left out.
fn flink_keys(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once(": ").unwrap_or_else(|| panic!("not a key: {l}"));
            (k.to_string(), v.to_string())
        })
        .collect()
}

fn value<'a>(keys: &'a [(String, String)], key: &str) -> Option<&'a str> {
    keys.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

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
restart-strategy.fixed-delay.attempts: 2147483647
restart-strategy.fixed-delay.delay: 0 ms
heartbeat.interval: 10000
heartbeat.timeout: 10000
# a timeout under twice the interval lets one late heartbeat mark a healthy TaskManager lost; Flink's defaults keep 1:5
# failure modelled: a lost TaskManager, noticed when heartbeat.timeout runs out
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
// Spark's state stores write what changed in each batch (delta files, and a snapshot every spark.sql.streaming.stateStore.minDeltasForSnapshot versions); no batch writes the whole state
// a failed query is restarted by whatever runs it (cluster manager, job scheduler): Spark has no restart strategy, heartbeat timeout or sink transaction timeout to set here
// modelled: its supervisor notices the stopped query after 10 s and restarts it at once
"
    );
}

#[test]
fn a_checkpoint_longer_than_flinks_timeout_is_exported_with_a_longer_one_and_warned_of() {
    // 100 GB at 10 MB/s: each checkpoint uploads for 2 h 46 min 40 s, beyond Flink's default
    // checkpoint timeout of 10 min, which would expire every one and fail the job.
    let slow = Config { state_bytes: 100_000_000_000, store_write_bytes_per_s: 10_000_000, ..Config::default() };
    let keys = flink_keys(&export(&slow, SinkDesign::AppendOnly).flink);
    assert_eq!(value(&keys, "execution.checkpointing.timeout"), Some("251 min"));
    let report = checkpoint_lab::lesson::simulate(&slow).unwrap();
    assert!(report.warnings.iter().any(|w| w.contains("longer than Flink's default checkpoint timeout of 10 min")));
    // Within the timeout: neither the key nor the warning.
    let keys = flink_keys(&export(&Config::default(), SinkDesign::AppendOnly).flink);
    assert_eq!(value(&keys, "execution.checkpointing.timeout"), None);
    let report = checkpoint_lab::lesson::simulate(&Config::default()).unwrap();
    assert!(!report.warnings.iter().any(|w| w.contains("checkpoint timeout")));
}

#[test]
fn a_one_minute_unaligned_incremental_micro_batch_job() {
    let config = Config {
        mode: Mode::MicroBatch,
        interval_ms: 60_000,
        alignment: Alignment::Unaligned,
        snapshots: Snapshots::Incremental,
        restart_delay_ms: 5_000,
        detection_ms: Some(30_000),
        ..Config::default()
    };
    let text = export(&config, SinkDesign::Transactional);
    let flink = flink_keys(&text.flink);
    assert_eq!(value(&flink, "execution.checkpointing.interval"), Some("1 min"));
    assert_eq!(value(&flink, "execution.checkpointing.unaligned.enabled"), Some("true"));
    assert_eq!(value(&flink, "execution.checkpointing.incremental"), Some("true"));
    assert_eq!(value(&flink, "restart-strategy.fixed-delay.delay"), Some("5 s"));
    assert!(text.flink.contains("# failure detection set to 30 s directly: no Flink key"));
    assert!(text.flink.contains("# sink: KafkaSink with DeliveryGuarantee.EXACTLY_ONCE"));
    assert!(text.flink.contains("producer property transaction.timeout.ms=900000"));
    assert!(text.flink.contains("readers: isolation.level=read_committed"));
    assert!(text
        .flink
        .ends_with("# Flink has no micro-batch trigger: the interval above is the checkpoint interval\n"));
    assert_eq!(
        text.spark,
        "// Spark Structured Streaming (Scala)
spark.conf.set(\"spark.sql.streaming.stateStore.providerClass\",
  \"org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider\")
spark.conf.set(\"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled\", \"true\")
val query = counts.writeStream
  .outputMode(\"update\")
  // idempotent by batch id: a re-run batch finds its batchId written and skips it
  .foreachBatch(writeOnceByBatchId _)
  .option(\"checkpointLocation\", \"s3a://my-bucket/checkpoints/orders-per-product\")
  .trigger(Trigger.ProcessingTime(\"1 minute\"))
  .start()
// Spark has no barriers: aligned or unaligned does not apply
// a failed query is restarted by whatever runs it (cluster manager, job scheduler): Spark has no restart strategy, heartbeat timeout or sink transaction timeout to set here
// modelled: its supervisor notices the stopped query after 30 s and restarts it 5 s later
"
    );
    // Odd intervals stay exact.
    let odd = export(&Config { interval_ms: 1_500, ..Config::default() }, SinkDesign::Upsert);
    assert!(odd.flink.contains("execution.checkpointing.interval: 1500 ms"));
    assert!(odd.spark.contains("Trigger.ProcessingTime(\"1500 milliseconds\")"));
}

/// Every heartbeat timeout the page offers, with every failure kind and restart strategy, exports
/// a heartbeat interval above zero and at most the timeout (Flink refuses to start otherwise),
/// and exactly the keys of the chosen restart strategy.
#[test]
fn every_page_value_exports_a_configuration_flink_accepts() {
    let Steps::Values(timeouts) = by_key("heartbeat_timeout_ms").unwrap().steps else { panic!("timeout steps") };
    for &timeout in timeouts {
        for failure in [Failure::Task, Failure::TaskmanagerLost] {
            for strategy in [RestartStrategy::FixedDelay, RestartStrategy::ExponentialDelay] {
                let config = Config {
                    heartbeat_timeout_ms: timeout as u64,
                    failure,
                    restart_strategy: strategy,
                    checkpointing_mode: CheckpointingMode::AtLeastOnce,
                    isolation_level: IsolationLevel::ReadUncommitted,
                    ..Config::default()
                };
                config.validate().unwrap();
                let text = export(&config, SinkDesign::Transactional);
                let keys = flink_keys(&text.flink);
                let ms = |key: &str| value(&keys, key).unwrap().parse::<u64>().unwrap();
                let (interval, timeout) = (ms("heartbeat.interval"), ms("heartbeat.timeout"));
                assert!(interval > 0 && interval <= timeout, "{interval} {timeout}");
                let fixed = keys.iter().filter(|(k, _)| k.starts_with("restart-strategy.fixed-delay.")).count();
                let exponential =
                    keys.iter().filter(|(k, _)| k.starts_with("restart-strategy.exponential-delay.")).count();
                match strategy {
                    RestartStrategy::FixedDelay => {
                        assert_eq!(value(&keys, "restart-strategy.type"), Some("fixed-delay"));
                        assert_eq!((fixed, exponential), (2, 0));
                    }
                    RestartStrategy::ExponentialDelay => {
                        assert_eq!(value(&keys, "restart-strategy.type"), Some("exponential-delay"));
                        assert_eq!((fixed, exponential), (0, 5));
                        assert_eq!(value(&keys, "restart-strategy.exponential-delay.initial-backoff"), Some("1 s"));
                        assert_eq!(value(&keys, "restart-strategy.exponential-delay.max-backoff"), Some("1 min"));
                        assert_eq!(value(&keys, "restart-strategy.exponential-delay.backoff-multiplier"), Some("1.5"));
                    }
                }
                assert_eq!(value(&keys, "execution.checkpointing.mode"), Some("AT_LEAST_ONCE"));
                assert!(text.flink.contains("isolation.level=read_uncommitted"));
            }
        }
    }
    // A timeout below the interval never reaches an export: the settings refuse it.
    let refused = Config { heartbeat_timeout_ms: 5_000, ..Config::default() }.validate().unwrap_err();
    assert_eq!(refused.field, "heartbeat_timeout_ms");
}

/// `checkpoint-lab export` prints the panel's text for the same flags.
#[test]
fn the_command_line_prints_the_panel_text() {
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_checkpoint-lab")).args(args).output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    let (code, flink, _) = cli(&["export", "--engine", "flink", "--sink", "transactional", "--interval", "1m"]);
    assert_eq!(code, Some(0));
    let config = Config { interval_ms: 60_000, ..Config::default() };
    assert_eq!(flink, export(&config, SinkDesign::Transactional).flink);
    let (code, spark, _) = cli(&["export", "--engine", "spark", "--mode", "micro-batch"]);
    assert_eq!(code, Some(0));
    assert_eq!(spark, export(&Config { mode: Mode::MicroBatch, ..Config::default() }, SinkDesign::AppendOnly).spark);
    let (code, _, err) = cli(&["export", "--engine", "flink", "--heartbeat-timeout", "5s"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--heartbeat-timeout must be at least the heartbeat interval (10 s)"), "{err}");
    let (code, _, err) = cli(&["export", "--engine", "storm"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--engine"), "{err}");
}
