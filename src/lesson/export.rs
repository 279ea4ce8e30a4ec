//! The chosen settings as real engine configuration: Flink's checkpointing, state backend and
//! restart strategy (config.yaml keys of Flink 1.20 and later), and Spark Structured Streaming's
//! checkpoint location and processing-time trigger. What a setting has no equivalent for is
//! said in a comment rather than invented.

use serde::Serialize;

use crate::engine::model::checkpoint::transfer_ms;
use crate::engine::model::restart::{detection_delay_ms, restart_backoff_ms};
use crate::engine::model::sinks::SinkDesign;
use crate::engine::model::steady_state::checkpoint_outlasts_timeout_ms;
use crate::engine::settings::config::{
    Alignment, CheckpointingMode, Config, Failure, IsolationLevel, Mode, RestartStrategy, Snapshots,
    BROKER_TRANSACTION_MAX_TIMEOUT_MS, FLINK_CHECKPOINT_TIMEOUT_MS,
};
use crate::engine::settings::units::format_duration_ms;

/// The exports of one configuration, and what in it would lose data or fail on a real cluster.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Export {
    pub flink: String,
    /// Spark Structured Streaming in Scala.
    pub spark: String,
    pub pyspark: String,
    /// Each names the keys that disagree and what follows; the Flink text opens with them too.
    pub warnings: Vec<String>,
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
    Export {
        flink: flink(config, sink),
        spark: spark(config, sink),
        pyspark: pyspark(config, sink),
        warnings: warnings(config, sink),
    }
}

/// The checkpoint timeout the Flink export sets: Flink's default, or half as long again as a
/// checkpoint takes (in whole minutes) when that is longer.
fn checkpoint_timeout_ms(config: &Config) -> u64 {
    checkpoint_outlasts_timeout_ms(config)
        .map_or(FLINK_CHECKPOINT_TIMEOUT_MS, |checkpoint_ms| (checkpoint_ms * 3 / 2).div_ceil(60_000) * 60_000)
}

/// The longest the job is expected to be down after a failure: until it is noticed, the restart
/// strategy's longest wait, and the restore of the state from the store.
pub fn expected_downtime_ms(config: &Config) -> u64 {
    let longest_backoff_ms = match config.restart_strategy {
        RestartStrategy::FixedDelay | RestartStrategy::FailureRate => config.restart_delay_ms,
        RestartStrategy::ExponentialDelay => config.backoff_max_ms,
        RestartStrategy::None => 0,
    };
    detection_delay_ms(config, 1) + longest_backoff_ms + transfer_ms(config.state_bytes, config.store_read_bytes_per_s)
}

/// What in `config` a real cluster would refuse, or would turn into lost data, each naming both
/// keys. Kafka's broker aborts a transaction open longer than the producer's
/// `transaction.timeout.ms`; Flink's Kafka sink keeps one open from a checkpoint's barrier until
/// the checkpoint completes, or, across a failure, until the restarted job commits it. So the
/// timeout must exceed the checkpoint timeout and the interval plus the expected downtime, and
/// may not exceed the broker's `transaction.max.timeout.ms`.
pub fn warnings(config: &Config, sink: SinkDesign) -> Vec<String> {
    let mut warnings = Vec::new();
    if config.heartbeat_timeout_ms < config.heartbeat_interval_ms {
        warnings.push(format!(
            "heartbeat.timeout ({}) is below heartbeat.interval ({}): Flink refuses to start",
            flink_duration(config.heartbeat_timeout_ms),
            flink_duration(config.heartbeat_interval_ms)
        ));
    }
    if sink != SinkDesign::Transactional {
        return warnings;
    }
    let timeout_ms = config.transaction_timeout_ms;
    let timeout = format!("transaction.timeout.ms ({})", format_duration_ms(timeout_ms));
    if timeout_ms > BROKER_TRANSACTION_MAX_TIMEOUT_MS {
        warnings.push(format!(
            "{timeout} is above the broker's transaction.max.timeout.ms ({} by default): the sink fails at \
             startup; raise the broker's limit or lower the timeout",
            format_duration_ms(BROKER_TRANSACTION_MAX_TIMEOUT_MS)
        ));
    }
    let checkpoint_timeout_ms = checkpoint_timeout_ms(config);
    if timeout_ms <= checkpoint_timeout_ms {
        warnings.push(format!(
            "{timeout} is not above execution.checkpointing.timeout ({}): a checkpoint that takes that long \
             leaves its transaction aborted by the broker before it commits, and its rows are lost",
            format_duration_ms(checkpoint_timeout_ms)
        ));
    }
    let downtime_ms = expected_downtime_ms(config);
    let open_ms = config.interval_ms + downtime_ms;
    if timeout_ms <= open_ms {
        warnings.push(format!(
            "{timeout} is not above execution.checkpointing.interval ({}) plus the expected downtime after a \
             failure ({}: detection, the restart strategy's longest wait, the restore): a transaction open \
             across a failure is aborted by the broker before the restarted job commits it, and its rows are lost",
            format_duration_ms(config.interval_ms),
            format_duration_ms(downtime_ms)
        ));
    }
    warnings
}

/// Flink config.yaml lines for `config`. Every key exists in Flink 1.20 and 2.x, and every value
/// the settings allow is one Flink accepts (the heartbeat timeout is at least its interval, both
/// above zero; the restart strategy's keys match the chosen strategy).
pub fn flink(config: &Config, sink: SinkDesign) -> String {
    let mode = match config.checkpointing_mode {
        CheckpointingMode::ExactlyOnce => "EXACTLY_ONCE",
        CheckpointingMode::AtLeastOnce => "AT_LEAST_ONCE",
    };
    let mut lines = vec!["# Flink (config.yaml, 1.20 or later)".to_string()];
    lines.extend(warnings(config, sink).iter().map(|w| format!("# WARNING: {w}")));
    lines.extend([
        format!("execution.checkpointing.interval: {}", flink_duration(config.interval_ms)),
        format!("execution.checkpointing.mode: {mode}"),
        format!("execution.checkpointing.unaligned.enabled: {}", config.alignment == Alignment::Unaligned),
        "execution.checkpointing.max-concurrent-checkpoints: 1".to_string(),
        "state.backend.type: rocksdb".to_string(),
        format!("execution.checkpointing.incremental: {}", config.snapshots == Snapshots::Incremental),
        "execution.checkpointing.dir: s3://my-bucket/checkpoints/orders-per-product".to_string(),
    ]);
    // A checkpoint the default timeout would expire (which, tolerating no failed checkpoint, fails
    // the job): half as long again as it takes, in whole minutes.
    if let Some(checkpoint_ms) = checkpoint_outlasts_timeout_ms(config) {
        lines.push(format!(
            "# a checkpoint takes {}: the default timeout of {} would expire every one",
            format_duration_ms(checkpoint_ms),
            flink_duration(FLINK_CHECKPOINT_TIMEOUT_MS)
        ));
        lines.push(format!("execution.checkpointing.timeout: {}", flink_duration(checkpoint_timeout_ms(config))));
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
    if config.commits_offsets_on_timer() {
        lines.extend([
            "# source: the design that breaks, offsets committed apart from the state: a Kafka consumer with"
                .to_string(),
            format!(
                "#   enable.auto.commit=true and auto.commit.interval.ms={} that restarts from the group's committed",
                config.offset_commit_interval_ms
            ),
            "#   offsets (OffsetsInitializer.committedOffsets()) while its state comes from the checkpoint. Flink's"
                .to_string(),
            "#   KafkaSource restores the checkpoint's offsets with its state and commits them to the group only"
                .to_string(),
            "#   when a checkpoint completes (commit.offsets.on.checkpoint=true), for monitoring: keep that."
                .to_string(),
        ]);
    }
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

/// The language a Spark export is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Language {
    Scala,
    Python,
}

impl Language {
    fn comment(self) -> &'static str {
        match self {
            Language::Scala => "//",
            Language::Python => "#",
        }
    }
}

/// Where the exported job reads and writes: one name per place, the same in every export.
const CHECKPOINT_LOCATION: &str = "s3a://my-bucket/checkpoints/orders-per-product";
const SINK_TABLE: &str = "stream_sink";
const DEDUPED_VIEW: &str = "orders_per_product";

/// The lesson's dedupe query as a view over the append-only table: the newest emission per key.
fn dedupe_view_sql() -> String {
    format!(
        "CREATE OR REPLACE VIEW {DEDUPED_VIEW} AS
SELECT product_id, window_start, order_count
FROM (
  SELECT product_id, window_start, order_count,
    row_number() OVER (PARTITION BY product_id, window_start ORDER BY emitted_at DESC, order_count DESC) AS rn
  FROM {SINK_TABLE}
) AS ranked
WHERE rn = 1"
    )
}

/// The upsert sink's statement: each batch merged on (product_id, window_start).
fn merge_sql() -> String {
    format!(
        "MERGE INTO {DEDUPED_VIEW} AS t
USING updates AS u
ON t.product_id = u.product_id AND t.window_start = u.window_start
WHEN MATCHED THEN UPDATE SET t.order_count = u.order_count
WHEN NOT MATCHED THEN INSERT *"
    )
}

/// The comments both Spark exports end with: what does not carry over from the page's settings,
/// and what the model's supervisor does.
fn spark_notes(config: &Config, language: Language) -> Vec<String> {
    let c = language.comment();
    let mut lines = Vec::new();
    if config.alignment == Alignment::Unaligned {
        lines.push(format!("{c} Spark has no barriers: aligned or unaligned does not apply"));
    }
    if config.snapshots == Snapshots::Full {
        lines.push(format!(
            "{c} Spark's state stores write what changed in each batch (delta files, and a snapshot every \
             spark.sql.streaming.stateStore.minDeltasForSnapshot versions); no batch writes the whole state"
        ));
    }
    lines.push(format!(
        "{c} a failed query is restarted by whatever runs it (cluster manager, job scheduler): Spark has no \
         restart strategy, heartbeat timeout or sink transaction timeout to set here"
    ));
    // What the model's supervisor does, as in micro-batch mode whichever mode the page is in.
    let query = Config { mode: Mode::MicroBatch, ..config.clone() };
    lines.push(format!(
        "{c} modelled: its supervisor notices the stopped query after {} and restarts it {}",
        format_duration_ms(detection_delay_ms(&query, 1)),
        match restart_backoff_ms(&query, 1) {
            0 => "at once".to_string(),
            ms => format!("{} later", format_duration_ms(ms)),
        }
    ));
    lines
}

/// The function each sink design writes a batch with, and what it does on a re-run batch.
fn sink_function(sink: SinkDesign, language: Language) -> (&'static str, &'static str) {
    let (scala, python, what) = match sink {
        SinkDesign::Transactional => (
            "writeOnceByBatchId",
            "write_once_by_batch_id",
            "idempotent by batch id: a re-run batch finds its batch id written (Delta's txnAppId and \
             txnVersion) and is skipped",
        ),
        SinkDesign::Upsert => {
            ("mergeOnKey", "merge_on_key", "MERGE each batch on (product_id, window_start): a re-run batch overwrites")
        }
        SinkDesign::AppendOnly | SinkDesign::DedupeView => {
            ("appendRows", "append_rows", "append each batch; a re-run batch is appended again")
        }
    };
    match language {
        Language::Scala => (scala, what),
        Language::Python => (python, what),
    }
}

/// Spark Structured Streaming (Scala, for spark-shell or a `main`) for `config`: the whole query,
/// from the Kafka source to the sink's batch function, every name it uses defined or imported.
pub fn spark(config: &Config, sink: SinkDesign) -> String {
    let window = spark_interval(config.window_ms);
    let (function, what) = sink_function(sink, Language::Scala);
    let mut lines = vec![
        "// Spark Structured Streaming (Scala, Spark 3.5 or later)".to_string(),
        "import org.apache.spark.sql.{DataFrame, SparkSession}".to_string(),
        "import org.apache.spark.sql.functions.{col, count, current_timestamp, window}".to_string(),
        "import org.apache.spark.sql.streaming.Trigger".to_string(),
        String::new(),
        "val spark = SparkSession.builder.appName(\"orders-per-product\").getOrCreate()".to_string(),
    ];
    if config.snapshots == Snapshots::Incremental {
        lines.extend([
            "spark.conf.set(\"spark.sql.streaming.stateStore.providerClass\",".to_string(),
            "  \"org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider\")".to_string(),
            "spark.conf.set(\"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled\", \"true\")"
                .to_string(),
        ]);
    }
    lines.extend([
        String::new(),
        "// failOnDataLoss (true, the default) stops the query when the log no longer holds the offsets a restart needs"
            .to_string(),
        "val orders = spark.readStream".to_string(),
        "  .format(\"kafka\")".to_string(),
        "  .option(\"kafka.bootstrap.servers\", \"localhost:9092\")".to_string(),
        "  .option(\"subscribe\", \"orders\")".to_string(),
        "  .option(\"failOnDataLoss\", \"true\")".to_string(),
        "  .load()".to_string(),
        "  .selectExpr(\"CAST(key AS STRING) AS order_id\", \"CAST(value AS STRING) AS product_id\", \
         \"timestamp AS event_time\")"
            .to_string(),
        String::new(),
        format!("// dedupe by order id, then count orders per product in tumbling windows of {window}"),
        "val counts = orders".to_string(),
        format!("  .withWatermark(\"event_time\", \"{window}\")"),
        "  .dropDuplicatesWithinWatermark(\"order_id\")".to_string(),
        format!("  .groupBy(window(col(\"event_time\"), \"{window}\").as(\"window\"), col(\"product_id\"))"),
        "  .agg(count(\"*\").as(\"order_count\"))".to_string(),
        "  .select(col(\"product_id\"), col(\"window.start\").as(\"window_start\"), col(\"order_count\"))".to_string(),
        String::new(),
        format!("// {what}"),
    ]);
    match sink {
        SinkDesign::Transactional => lines.extend([
            format!("val {function}: (DataFrame, Long) => Unit = (batch, batchId) =>"),
            "  batch.withColumn(\"emitted_at\", current_timestamp())".to_string(),
            "    .write.format(\"delta\")".to_string(),
            "    .option(\"txnAppId\", \"orders-per-product\")".to_string(),
            "    .option(\"txnVersion\", batchId)".to_string(),
            format!("    .mode(\"append\").saveAsTable(\"{SINK_TABLE}\")"),
        ]),
        SinkDesign::Upsert => lines.extend([
            format!("val {function}: (DataFrame, Long) => Unit = (batch, batchId) => {{"),
            "  batch.createOrReplaceTempView(\"updates\")".to_string(),
            format!("  batch.sparkSession.sql(\"\"\"{}\"\"\")", merge_sql().replace('\n', "\n    ")),
            "  ()".to_string(),
            "}".to_string(),
        ]),
        SinkDesign::AppendOnly | SinkDesign::DedupeView => lines.extend([
            format!("val {function}: (DataFrame, Long) => Unit = (batch, batchId) =>"),
            format!(
                "  batch.withColumn(\"emitted_at\", current_timestamp()).write.mode(\"append\").saveAsTable(\"{SINK_TABLE}\")"
            ),
        ]),
    }
    if sink == SinkDesign::DedupeView {
        lines.extend([
            String::new(),
            "// readers query the view: the newest emission of each (product_id, window_start)".to_string(),
            format!("spark.sql(\"\"\"{}\"\"\")", dedupe_view_sql().replace('\n', "\n  ")),
        ]);
    }
    lines.extend([
        String::new(),
        "val query = counts.writeStream".to_string(),
        "  .outputMode(\"update\")".to_string(),
        format!("  .foreachBatch({function})"),
        format!("  .option(\"checkpointLocation\", \"{CHECKPOINT_LOCATION}\")"),
        format!("  .trigger(Trigger.ProcessingTime(\"{}\"))", spark_interval(config.interval_ms)),
        "  .start()".to_string(),
        "query.awaitTermination()".to_string(),
    ]);
    lines.extend(spark_notes(config, Language::Scala));
    lines.join("\n") + "\n"
}

/// The same query in PySpark.
pub fn pyspark(config: &Config, sink: SinkDesign) -> String {
    let window = spark_interval(config.window_ms);
    let (function, what) = sink_function(sink, Language::Python);
    let mut lines = vec![
        "# Spark Structured Streaming (PySpark, Spark 3.5 or later)".to_string(),
        "from pyspark.sql import DataFrame, SparkSession".to_string(),
        "from pyspark.sql.functions import col, count, current_timestamp, window".to_string(),
        String::new(),
        "spark = SparkSession.builder.appName(\"orders-per-product\").getOrCreate()".to_string(),
    ];
    if config.snapshots == Snapshots::Incremental {
        lines.extend([
            "spark.conf.set(".to_string(),
            "    \"spark.sql.streaming.stateStore.providerClass\",".to_string(),
            "    \"org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider\",".to_string(),
            ")".to_string(),
            "spark.conf.set(\"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled\", \"true\")"
                .to_string(),
        ]);
    }
    lines.extend([
        String::new(),
        "# failOnDataLoss (true, the default) stops the query when the log no longer holds the offsets a restart needs"
            .to_string(),
        "orders = (".to_string(),
        "    spark.readStream.format(\"kafka\")".to_string(),
        "    .option(\"kafka.bootstrap.servers\", \"localhost:9092\")".to_string(),
        "    .option(\"subscribe\", \"orders\")".to_string(),
        "    .option(\"failOnDataLoss\", \"true\")".to_string(),
        "    .load()".to_string(),
        "    .selectExpr(\"CAST(key AS STRING) AS order_id\", \"CAST(value AS STRING) AS product_id\", \
         \"timestamp AS event_time\")"
            .to_string(),
        ")".to_string(),
        String::new(),
        format!("# dedupe by order id, then count orders per product in tumbling windows of {window}"),
        "counts = (".to_string(),
        format!("    orders.withWatermark(\"event_time\", \"{window}\")"),
        "    .dropDuplicatesWithinWatermark([\"order_id\"])".to_string(),
        format!("    .groupBy(window(col(\"event_time\"), \"{window}\").alias(\"window\"), col(\"product_id\"))"),
        "    .agg(count(\"*\").alias(\"order_count\"))".to_string(),
        "    .select(col(\"product_id\"), col(\"window.start\").alias(\"window_start\"), col(\"order_count\"))"
            .to_string(),
        ")".to_string(),
        String::new(),
        String::new(),
        format!("# {what}"),
        format!("def {function}(batch: DataFrame, batch_id: int) -> None:"),
    ]);
    match sink {
        SinkDesign::Transactional => lines.extend([
            "    (".to_string(),
            "        batch.withColumn(\"emitted_at\", current_timestamp())".to_string(),
            "        .write.format(\"delta\")".to_string(),
            "        .option(\"txnAppId\", \"orders-per-product\")".to_string(),
            "        .option(\"txnVersion\", batch_id)".to_string(),
            format!("        .mode(\"append\").saveAsTable(\"{SINK_TABLE}\")"),
            "    )".to_string(),
        ]),
        SinkDesign::Upsert => lines.extend([
            "    batch.createOrReplaceTempView(\"updates\")".to_string(),
            format!("    batch.sparkSession.sql(\"\"\"{}\"\"\")", merge_sql().replace('\n', "\n        ")),
        ]),
        SinkDesign::AppendOnly | SinkDesign::DedupeView => lines.push(format!(
            "    batch.withColumn(\"emitted_at\", current_timestamp()).write.mode(\"append\").saveAsTable(\"{SINK_TABLE}\")"
        )),
    }
    if sink == SinkDesign::DedupeView {
        lines.extend([
            String::new(),
            String::new(),
            "# readers query the view: the newest emission of each (product_id, window_start)".to_string(),
            format!("spark.sql(\"\"\"{}\"\"\")", dedupe_view_sql().replace('\n', "\n    ")),
        ]);
    }
    lines.extend([
        String::new(),
        "query = (".to_string(),
        "    counts.writeStream.outputMode(\"update\")".to_string(),
        format!("    .foreachBatch({function})"),
        format!("    .option(\"checkpointLocation\", \"{CHECKPOINT_LOCATION}\")"),
        format!("    .trigger(processingTime=\"{}\")", spark_interval(config.interval_ms)),
        "    .start()".to_string(),
        ")".to_string(),
        "query.awaitTermination()".to_string(),
    ]);
    lines.extend(spark_notes(config, Language::Python));
    lines.join("\n") + "\n"
}
