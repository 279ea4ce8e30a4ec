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
        "// Spark Structured Streaming (Scala, Spark 3.5 or later)
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, count, current_timestamp, window}
import org.apache.spark.sql.streaming.Trigger

val spark = SparkSession.builder.appName(\"orders-per-product\").getOrCreate()

// failOnDataLoss (true, the default) stops the query when the log no longer holds the offsets a restart needs
val orders = spark.readStream
  .format(\"kafka\")
  .option(\"kafka.bootstrap.servers\", \"localhost:9092\")
  .option(\"subscribe\", \"orders\")
  .option(\"failOnDataLoss\", \"true\")
  .load()
  .selectExpr(\"CAST(key AS STRING) AS order_id\", \"CAST(value AS STRING) AS product_id\", \"timestamp AS event_time\")

// dedupe by order id, then count orders per product in tumbling windows of 5 minutes
val counts = orders
  .withWatermark(\"event_time\", \"5 minutes\")
  .dropDuplicatesWithinWatermark(\"order_id\")
  .groupBy(window(col(\"event_time\"), \"5 minutes\").as(\"window\"), col(\"product_id\"))
  .agg(count(\"*\").as(\"order_count\"))
  .select(col(\"product_id\"), col(\"window.start\").as(\"window_start\"), col(\"order_count\"))

// append each batch; a re-run batch is appended again
val appendRows: (DataFrame, Long) => Unit = (batch, batchId) =>
  batch.withColumn(\"emitted_at\", current_timestamp()).write.mode(\"append\").saveAsTable(\"stream_sink\")

val query = counts.writeStream
  .outputMode(\"update\")
  .foreachBatch(appendRows)
  .option(\"checkpointLocation\", \"s3a://my-bucket/checkpoints/orders-per-product\")
  .trigger(Trigger.ProcessingTime(\"30 seconds\"))
  .start()
query.awaitTermination()
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
    for line in [
        "spark.conf.set(\"spark.sql.streaming.stateStore.providerClass\",",
        "  \"org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider\")",
        "spark.conf.set(\"spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled\", \"true\")",
        "// idempotent by batch id: a re-run batch finds its batch id written (Delta's txnAppId and txnVersion) and is skipped",
        "val writeOnceByBatchId: (DataFrame, Long) => Unit = (batch, batchId) =>",
        "    .option(\"txnVersion\", batchId)",
        "  .foreachBatch(writeOnceByBatchId)",
        "  .trigger(Trigger.ProcessingTime(\"1 minute\"))",
        "// Spark has no barriers: aligned or unaligned does not apply",
        "// modelled: its supervisor notices the stopped query after 30 s and restarts it 5 s later",
    ] {
        assert!(text.spark.lines().any(|l| l == line), "{line}\n{}", text.spark);
    }
    for line in [
        "def write_once_by_batch_id(batch: DataFrame, batch_id: int) -> None:",
        "        .option(\"txnVersion\", batch_id)",
        "    .foreachBatch(write_once_by_batch_id)",
        "    .trigger(processingTime=\"1 minute\")",
        "# modelled: its supervisor notices the stopped query after 30 s and restarts it 5 s later",
    ] {
        assert!(text.pyspark.lines().any(|l| l == line), "{line}\n{}", text.pyspark);
    }
    // Odd intervals stay exact.
    let odd = export(&Config { interval_ms: 1_500, ..Config::default() }, SinkDesign::Upsert);
    assert!(odd.flink.contains("execution.checkpointing.interval: 1500 ms"));
    assert!(odd.spark.contains("Trigger.ProcessingTime(\"1500 milliseconds\")"));
    assert!(odd.pyspark.contains("trigger(processingTime=\"1500 milliseconds\")"));
}

/// Every heartbeat timeout the page offers, with every failure kind and restart strategy, exports
/// a heartbeat interval above zero and at most the timeout (Flink refuses to start otherwise),
/// and exactly the keys of the chosen restart strategy.
#[test]
fn every_page_value_exports_a_configuration_flink_accepts() {
    let Steps::Values(timeouts) = by_key("heartbeat_timeout_ms").unwrap().steps else { panic!("timeout steps") };
    for &timeout in timeouts {
        for failure in [Failure::Task, Failure::TaskmanagerLost] {
            for strategy in [
                RestartStrategy::FixedDelay,
                RestartStrategy::ExponentialDelay,
                RestartStrategy::FailureRate,
                RestartStrategy::None,
            ] {
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
                let rate = keys.iter().filter(|(k, _)| k.starts_with("restart-strategy.failure-rate.")).count();
                match strategy {
                    RestartStrategy::FixedDelay => {
                        assert_eq!(value(&keys, "restart-strategy.type"), Some("fixed-delay"));
                        assert_eq!((fixed, exponential, rate), (2, 0, 0));
                        assert_eq!(value(&keys, "restart-strategy.fixed-delay.attempts"), Some("2147483647"));
                    }
                    RestartStrategy::FailureRate => {
                        assert_eq!(value(&keys, "restart-strategy.type"), Some("failure-rate"));
                        assert_eq!((fixed, exponential, rate), (0, 0, 3));
                        assert_eq!(value(&keys, "restart-strategy.failure-rate.max-failures-per-interval"), Some("1"));
                        assert_eq!(value(&keys, "restart-strategy.failure-rate.failure-rate-interval"), Some("1 min"));
                    }
                    RestartStrategy::None => {
                        assert_eq!(value(&keys, "restart-strategy.type"), Some("none"));
                        assert_eq!((fixed, exponential, rate), (0, 0, 0));
                    }
                    RestartStrategy::ExponentialDelay => {
                        assert_eq!(value(&keys, "restart-strategy.type"), Some("exponential-delay"));
                        assert_eq!((fixed, exponential, rate), (0, 5, 0));
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
    let (code, pyspark, _) = cli(&["export", "--engine", "pyspark", "--sink", "upsert"]);
    assert_eq!(code, Some(0));
    assert_eq!(pyspark, export(&Config::default(), SinkDesign::Upsert).pyspark);
    // What would lose data goes to standard error too.
    let (code, flink, err) = cli(&["export", "--engine", "flink", "--sink", "transactional", "--interval", "1h"]);
    assert_eq!(code, Some(0));
    let hourly = export(&Config { interval_ms: 3_600_000, ..Config::default() }, SinkDesign::Transactional);
    assert_eq!(flink, hourly.flink);
    assert_eq!(err, format!("warning: {}\n", hourly.warnings[0]));
    let (code, _, err) = cli(&["export", "--engine", "flink", "--heartbeat-timeout", "5s"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--heartbeat-timeout must be at least the heartbeat interval (10 s)"), "{err}");
    let (code, _, err) = cli(&["export", "--engine", "storm"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--engine"), "{err}");
}

/// The names a piece of code defines and uses, in text order, read off its syntax tree.
#[derive(Default)]
struct Names {
    /// (byte offset, name) of each definition: a val or def, a parameter, an assigned name, an
    /// imported name.
    defined: Vec<(usize, String)>,
    /// (byte offset, name) of each free use: an identifier that is not a member selected from a
    /// value, a keyword argument's name, or a definition.
    used: Vec<(usize, String)>,
    wildcard_imports: Vec<String>,
}

fn parse(text: &str, language: tree_sitter::Language) -> tree_sitter::Tree {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language).unwrap();
    parser.parse(text, None).unwrap()
}

/// The first syntax error in `tree`, if any, as the line it is on.
fn syntax_error(tree: &tree_sitter::Tree, text: &str) -> Option<String> {
    fn find(node: tree_sitter::Node) -> Option<tree_sitter::Node> {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        children.into_iter().find_map(find)
    }
    find(tree.root_node()).map(|node| {
        let row = node.start_position().row;
        format!("line {}: {}", row + 1, text.lines().nth(row).unwrap_or(""))
    })
}

fn collect_names(node: tree_sitter::Node, text: &str, names: &mut Names) {
    let name_of = |n: tree_sitter::Node| text[n.byte_range()].to_string();
    let field_is = |n: tree_sitter::Node, field: &str| {
        n.parent().and_then(|p| p.child_by_field_name(field)).is_some_and(|f| f.id() == n.id())
    };
    match node.kind() {
        // Scala imports: `import a.b.{C, D}` defines C and D; `import a.b.C` defines C.
        "import_declaration" => {
            let mut cursor = node.walk();
            let children: Vec<_> = node.named_children(&mut cursor).collect();
            match children.last() {
                Some(last) if last.kind() == "namespace_selectors" => {
                    let mut inner = last.walk();
                    for selector in last.named_children(&mut inner) {
                        names.defined.push((node.start_byte(), name_of(selector)));
                    }
                }
                Some(last) if last.kind() == "namespace_wildcard" => names.wildcard_imports.push(name_of(node)),
                Some(last) => names.defined.push((node.start_byte(), name_of(*last))),
                None => {}
            }
            return;
        }
        // Python imports: `from m import a, b` defines a and b.
        "import_from_statement" | "import_statement" => {
            let mut cursor = node.walk();
            for imported in node.children_by_field_name("name", &mut cursor) {
                let name = match imported.kind() {
                    "aliased_import" => name_of(imported.child_by_field_name("alias").unwrap()),
                    _ => name_of(imported).split('.').next().unwrap().to_string(),
                };
                names.defined.push((node.start_byte(), name));
            }
            if node.children(&mut node.walk()).any(|c| c.kind() == "wildcard_import") {
                names.wildcard_imports.push(name_of(node));
            }
            return;
        }
        "identifier" | "type_identifier" => {
            let parent = node.parent().map(|p| p.kind()).unwrap_or("");
            let defines = match parent {
                "val_definition" => field_is(node, "pattern"),
                "function_definition" | "parameter" | "binding" | "default_parameter" => field_is(node, "name"),
                "assignment" => field_is(node, "left"),
                "parameters" | "typed_parameter" => true,
                _ => false,
            };
            let member = (parent == "field_expression" && field_is(node, "field"))
                || (parent == "attribute" && field_is(node, "attribute"))
                || (parent == "keyword_argument" && field_is(node, "name"));
            if defines {
                names.defined.push((node.start_byte(), name_of(node)));
            } else if !member {
                names.used.push((node.start_byte(), name_of(node)));
            }
        }
        _ => {}
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_names(child, text, names);
    }
}

/// Every free name `text` uses that nothing before it defines or imports, leaving out the
/// language's own names in `predefined`.
fn undefined_names(text: &str, language: tree_sitter::Language, predefined: &[&str]) -> Vec<String> {
    let tree = parse(text, language);
    if let Some(error) = syntax_error(&tree, text) {
        panic!("does not parse, {error}\n{text}");
    }
    let mut names = Names::default();
    collect_names(tree.root_node(), text, &mut names);
    assert!(
        names.wildcard_imports.is_empty(),
        "a wildcard import hides where names come from: {:?}",
        names.wildcard_imports
    );
    let mut missing: Vec<String> = names
        .used
        .iter()
        .filter(|(at, name)| {
            !predefined.contains(&name.as_str()) && !names.defined.iter().any(|(d_at, d)| d == name && d_at <= at)
        })
        .map(|(_, name)| name.clone())
        .collect();
    missing.dedup();
    missing
}

const SCALA_PREDEFINED: &[&str] = &["Long", "Unit"];
const PYTHON_PREDEFINED: &[&str] = &["int"];

/// Every Spark export, Scala and Python, for every sink design and every setting that changes
/// its text, parses in its language and defines or imports every name it uses before using it.
#[test]
fn every_spark_export_is_a_whole_program_that_parses_and_defines_what_it_uses() {
    let scala = tree_sitter::Language::from(tree_sitter_scala::LANGUAGE);
    let python = tree_sitter::Language::from(tree_sitter_python::LANGUAGE);
    for mode in [Mode::Barrier, Mode::MicroBatch] {
        for snapshots in [Snapshots::Full, Snapshots::Incremental] {
            for alignment in [Alignment::Aligned, Alignment::Unaligned] {
                for sink in SinkDesign::ALL {
                    let config = Config { mode, snapshots, alignment, ..Config::default() };
                    let text = export(&config, sink);
                    let missing = undefined_names(&text.spark, scala.clone(), SCALA_PREDEFINED);
                    assert!(missing.is_empty(), "{sink:?} Scala uses {missing:?} undefined:\n{}", text.spark);
                    let missing = undefined_names(&text.pyspark, python.clone(), PYTHON_PREDEFINED);
                    assert!(missing.is_empty(), "{sink:?} Python uses {missing:?} undefined:\n{}", text.pyspark);
                    for code in [&text.spark, &text.pyspark] {
                        assert!(code.contains("readStream") && code.contains("failOnDataLoss"));
                        assert!(code.contains("awaitTermination()"));
                    }
                }
            }
        }
    }
}

/// The check above finds what the old export lacked: a query on `counts` that nothing defines,
/// a batch function never written, `Trigger` never imported, and text that is not code.
#[test]
fn the_name_check_catches_a_query_on_undefined_names() {
    let scala = tree_sitter::Language::from(tree_sitter_scala::LANGUAGE);
    let old = "val query = counts.writeStream\n  .foreachBatch(appendRows _)\n  \
               .trigger(Trigger.ProcessingTime(\"30 seconds\"))\n  .start()\n";
    assert_eq!(undefined_names(old, scala.clone(), SCALA_PREDEFINED), ["counts", "appendRows", "Trigger"]);
    let python = tree_sitter::Language::from(tree_sitter_python::LANGUAGE);
    let used_first = "query = counts.writeStream.start()\ncounts = 1\n";
    assert_eq!(undefined_names(used_first, python.clone(), PYTHON_PREDEFINED), ["counts"]);
    let broken = parse("val query = counts.writeStream(\n", scala);
    assert!(syntax_error(&broken, "val query = counts.writeStream(\n").is_some());
    let broken_python = "def f(batch:\n    pass\n";
    assert!(syntax_error(&parse(broken_python, python), broken_python).is_some());
}

/// The Flink export warns, naming both keys, when the Kafka sink's transaction timeout cannot
/// outlive what it must: the checkpoint timeout, an interval plus the downtime of a failure, and
/// no more than the broker allows; and when the heartbeat timeout is below its interval.
#[test]
fn the_export_warns_where_a_transaction_would_be_aborted_by_the_broker() {
    // The lesson's settings with the transactional sink: nothing to warn of.
    let lesson = export(&Config::default(), SinkDesign::Transactional);
    assert_eq!(lesson.warnings, Vec::<String>::new());
    assert!(!lesson.flink.contains("WARNING"));

    // A 1 h interval: a transaction stays open an hour, past the 15 min timeout.
    let hourly = export(&Config { interval_ms: 3_600_000, ..Config::default() }, SinkDesign::Transactional);
    assert_eq!(hourly.warnings.len(), 1, "{:?}", hourly.warnings);
    assert!(hourly.warnings[0].starts_with(
        "transaction.timeout.ms (15 min) is not above execution.checkpointing.interval (1 h) plus the expected \
         downtime after a failure (20 s"
    ));
    assert!(hourly.flink.contains(&format!("# WARNING: {}", hourly.warnings[0])));
    // Other sinks keep no transaction open.
    assert_eq!(export(&Config { interval_ms: 3_600_000, ..Config::default() }, SinkDesign::Upsert).warnings.len(), 0);

    // A 1 MB/s store: each checkpoint takes 34 min, so the export raises the checkpoint timeout to
    // 51 min, beyond the transaction timeout.
    let slow = Config { store_write_bytes_per_s: 1_000_000, ..Config::default() };
    let slow_export = export(&slow, SinkDesign::Transactional);
    assert_eq!(value(&flink_keys(&slow_export.flink), "execution.checkpointing.timeout"), Some("51 min"));
    assert!(
        slow_export
            .warnings
            .iter()
            .any(|w| w
                .starts_with("transaction.timeout.ms (15 min) is not above execution.checkpointing.timeout (51 min)")),
        "{:?}",
        slow_export.warnings
    );

    // A timeout the broker refuses, and a heartbeat timeout below its interval (both out of the
    // settings' range, so built directly).
    let over = Config { transaction_timeout_ms: 3_600_000, ..Config::default() };
    let warnings = export(&over, SinkDesign::Transactional).warnings;
    assert!(warnings[0].starts_with("transaction.timeout.ms (1 h) is above the broker's transaction.max.timeout.ms"));
    let heartbeat = Config { heartbeat_timeout_ms: 5_000, ..Config::default() };
    assert_eq!(
        export(&heartbeat, SinkDesign::AppendOnly).warnings,
        ["heartbeat.timeout (5 s) is below heartbeat.interval (10 s): Flink refuses to start"]
    );

    // Just above the interval plus the downtime: no warning; just at it: the warning.
    let downtime_ms = checkpoint_lab::lesson::export::expected_downtime_ms(&Config::default());
    let at = Config { interval_ms: 900_000 - downtime_ms, ..Config::default() };
    assert_eq!(export(&at, SinkDesign::Transactional).warnings.len(), 1);
    let below = Config { interval_ms: 900_000 - downtime_ms - 1, ..Config::default() };
    assert_eq!(export(&below, SinkDesign::Transactional).warnings.len(), 0);
}
