// TypeScript declarations for the <checkpoint-lab> element and its module API.

// <generated from src/engine/settings/table.rs>
/** Settings of a scenario. Times in ms (clock times in ms since midnight), sizes in bytes. */
export interface Config {
  /** Root seed; every component derives its own sub-seed from it (0 to 18446744073709551615). Attribute `seed`, flag `--seed`. */
  seed: number;
  /** Source partitions (1 to 256). Attribute `partitions`, flag `--partitions`. */
  partitions: number;
  /** How many times the quietest partition's events the busiest receives, as a producer partitioning by skewed keys spreads them (partition p's share falls off as (p + 1)^-s); 1 spreads events evenly (1 to 16). Attribute `partition-skew`, flag `--partition-skew`. */
  partition_skew: number;
  /** Input rate over all partitions (1 to 1000000). Attribute `rate`, flag `--rate`. */
  rate_per_s: number;
  /** Distinct products the orders are skewed over (1 to 100000). Attribute `products`, flag `--products`. */
  products: number;
  /** Share of events that are producer retries of an earlier order id, e.g. 0.01 or 1% (0 to 0.5). Attribute `retry-rate`, flag `--retry-rate`. */
  retry_rate: number;
  /** How long the log keeps an event, or none (1 s to 168 h). Attribute `retention`, flag `--retention`. */
  retention_ms: number | null;
  /** Tumbling event-time window length (1 s to 24 h). Attribute `window`, flag `--window`. */
  window_ms: number;
  /** Emit running totals each time event time passes a multiple of this; divides the window (10 ms to 1 h). Attribute `emit-every`, flag `--emit-every`. */
  emit_every_ms: number;
  /** Barrier checkpoints (Flink) or micro-batches with an offset log and a commit log (Spark). Attribute `mode`, flag `--mode`. */
  mode: "barrier" | "micro_batch";
  /** Checkpoint interval, or the trigger interval in micro-batch mode (100 ms to 1 h). Attribute `interval`, flag `--interval`. */
  interval_ms: number;
  /** How operators line up barriers that arrive on several inputs. Attribute `alignment`, flag `--alignment`. */
  alignment: "aligned" | "unaligned";
  /** What a checkpoint uploads: the whole state or the bytes changed since the previous one (micro-batch mode: the state store provider, HDFS-backed or RocksDB; both write what changed). Attribute `snapshots`, flag `--snapshots`. */
  snapshots: "full" | "incremental";
  /** Extra delay on one input channel (partition 0): the backpressure under which alignment matters (0 ms to 10 min). Attribute `backpressure`, flag `--backpressure`. */
  backpressure_ms: number;
  /** Bytes one in-flight record adds to an unaligned checkpoint (1 B to 100 MB). Attribute `record-size`, flag `--record-size`. */
  record_bytes: number;
  /** Unaligned checkpoints store the records in the network buffers, which bound them: per backpressured channel 2 exclusive and 8 floating input buffers and 10 output buffers of 32 KB (taskmanager.network.memory.buffers-per-channel, floating-buffers-per-gate, max-buffers-per-channel, taskmanager.memory.segment-size), beyond which the source stops reading; buffer debloating (taskmanager.network.memory.buffer-debloat.enabled) shrinks them to about 1 s of the channel's throughput. Attribute `buffer-debloat`, flag `--buffer-debloat`. */
  buffer_debloat: "off" | "on";
  /** Modelled operator state size, driving upload, restore and store write load (1 KB to 10 TB). Attribute `state-size`, flag `--state-size`. */
  state_bytes: number;
  /** Checkpoint store write bandwidth (1 KB/s to 1 TB/s). Attribute `store-write`, flag `--store-write`. */
  store_write_bytes_per_s: number;
  /** Restore bandwidth (download and rebuild) (1 KB/s to 1 TB/s). Attribute `store-read`, flag `--store-read`. */
  store_read_bytes_per_s: number;
  /** Processing pause at each checkpoint's synchronous phase (micro-batch mode: the offset-log write) (0 ms to 10 min). Attribute `sync-pause`, flag `--sync-pause`. */
  sync_pause_ms: number;
  /** What fails: a task throws (the JobManager hears at once) or a TaskManager process is lost (noticed when its heartbeat times out). Attribute `failure`, flag `--failure`. */
  failure: "task" | "taskmanager_lost";
  /** How often the JobManager asks each TaskManager for a heartbeat (Flink's heartbeat.interval, 10 s) (100 ms to 1 h). Attribute `heartbeat-interval`, flag `--heartbeat-interval`. */
  heartbeat_interval_ms: number;
  /** Silence after which a TaskManager is declared lost; at least the heartbeat interval (Flink's heartbeat.timeout, 50 s by default; micro-batch mode: how long the query's supervisor takes to notice it stopped) (100 ms to 1 h). Attribute `heartbeat-timeout`, flag `--heartbeat-timeout`. */
  heartbeat_timeout_ms: number;
  /** When a lost TaskManager last answered a heartbeat: just before the crash, so the loss is noticed a whole timeout later (the slowest case), or drawn from the seed within the last heartbeat interval, so it is noticed between the timeout minus the interval and the timeout. Attribute `heartbeat-loss`, flag `--heartbeat-loss`. */
  heartbeat_loss: "slowest" | "drawn";
  /** Time from the crash until the failure is detected, overriding the failure kind, or none (0 ms to 1 h). Attribute `detection`, flag `--detection`. */
  detection_ms: number | null;
  /** How a failed job restarts: a fixed delay with a number of attempts, a backoff that grows with each failure (Flink's default since 1.19), a fixed delay while failures stay under a rate, or not at all. Attribute `restart-strategy`, flag `--restart-strategy`. */
  restart_strategy: "fixed_delay" | "exponential_delay" | "failure_rate" | "none";
  /** Fixed-delay and failure-rate strategies: time from detection until the restore starts (micro-batch mode: the supervisor's wait before it restarts the query) (0 ms to 1 h). Attribute `restart-delay`, flag `--restart-delay`. */
  restart_delay_ms: number;
  /** Fixed-delay strategy: restarts allowed before the job fails (Flink's restart-strategy.fixed-delay.attempts; here every failure restarts unless this is lowered, where Flink's own default is 1) (0 to 2147483647). Attribute `restart-attempts`, flag `--restart-attempts`. */
  restart_attempts: number;
  /** Failure-rate strategy: failures allowed within the failure-rate interval before the job fails (Flink's restart-strategy.failure-rate.max-failures-per-interval, 1 by default) (1 to 2147483647). Attribute `failure-rate-max`, flag `--failure-rate-max`. */
  failure_rate_max: number;
  /** Failure-rate strategy: the interval failures are counted over (Flink's restart-strategy.failure-rate.failure-rate-interval, 1 min by default) (1 s to 24 h). Attribute `failure-rate-interval`, flag `--failure-rate-interval`. */
  failure_rate_interval_ms: number;
  /** Exponential-delay strategy: the first backoff (1 ms to 1 h). Attribute `backoff-initial`, flag `--backoff-initial`. */
  backoff_initial_ms: number;
  /** Exponential-delay strategy: what each further failure multiplies the backoff by; above 1, as Flink requires (1.01 to 10). Attribute `backoff-multiplier`, flag `--backoff-multiplier`. */
  backoff_multiplier: number;
  /** Exponential-delay strategy: the longest backoff (1 ms to 1 h). Attribute `backoff-max`, flag `--backoff-max`. */
  backoff_max_ms: number;
  /** Exponential-delay strategy: the share of the backoff added or taken off at random (0 to 1). Attribute `backoff-jitter`, flag `--backoff-jitter`. */
  backoff_jitter: number;
  /** Exponential-delay strategy: after this long without a failure the backoff starts again from the initial one (Flink's reset-backoff-threshold, 1 h) (1 ms to 24 h). Attribute `backoff-reset`, flag `--backoff-reset`. */
  backoff_reset_ms: number;
  /** Exactly once aligns barriers; at least once lets records pass a barrier before the snapshot, so a restore reads them again. Attribute `checkpointing-mode`, flag `--checkpointing-mode`. */
  checkpointing_mode: "exactly_once" | "at_least_once";
  /** Where a restart resumes reading: at the checkpoint's offsets, taken with its state, or at the offsets the consumer committed to Kafka on a timer (enable.auto.commit), while the state is checkpointed on its own; events between the two are then lost or counted twice (barrier mode; micro-batches keep their offsets in the offset log). Attribute `offset-commit`, flag `--offset-commit`. */
  offset_commit: "with_checkpoint" | "on_timer";
  /** Offsets committed on a timer: how often the consumer commits its position to the group (Kafka's auto.commit.interval.ms, 5 s); the first commit comes one interval after the job (or a restarted attempt) starts reading (100 ms to 1 h). Attribute `offset-commit-interval`, flag `--offset-commit-interval`. */
  offset_commit_interval_ms: number;
  /** What readers of the transactional sink see: committed rows only, or every row as written. Attribute `isolation-level`, flag `--isolation-level`. */
  isolation_level: "read_committed" | "read_uncommitted";
  /** The sink producer's transaction.timeout.ms: the broker aborts a transaction not committed this long after it began; at most the broker's transaction.max.timeout.ms (15 min) (1 s to 15 min). Attribute `transaction-timeout`, flag `--transaction-timeout`. */
  transaction_timeout_ms: number;
  /** Events per second the job can process at most (1 to 10000000). Attribute `capacity`, flag `--capacity`. */
  capacity_per_s: number;
  /** Scenario start on the clock (00:00:00 to 23:59:59.999). Attribute `start-time`, flag `--start-time`. */
  start_time_ms: number;
  /** Sum of the partition offsets at the start, where the start checkpoint is complete (0 to 1125899906842624). Attribute `start-offset`, flag `--start-offset`. */
  start_offset: number;
  /** The completed checkpoint the scenario starts from (0 to 1125899906842624). Attribute `start-checkpoint`, flag `--start-checkpoint`. */
  start_checkpoint_id: number;
  /** Crash time on the clock (HH:MM:SS or HH:MM:SS.mmm), inside the horizon, or none (00:00:00 to 23:59:59.999). Attribute `crash-at`, flag `--crash-at`. */
  crash_at_ms: number | null;
  /** Further crash times on the clock besides the crash time, comma-separated (10:01:30,10:04:00), each inside the horizon; at most 100 (00:00:00 to 23:59:59.999). Attribute `more-crashes`, flag `--more-crashes`. */
  more_crashes_ms: number[];
  /** Mean time between failures: crashes drawn from the seed over the horizon, at exponentially distributed gaps of this mean, or none (1 s to 24 h). Attribute `mtbf`, flag `--mtbf`. */
  mtbf_ms: number | null;
  /** Micro-batch mode: Spark's failOnDataLoss, what a query does when offsets it must read again are gone from the log: fail (Spark's default) or skip to the oldest offset kept, with a warning. Attribute `fail-on-data-loss`, flag `--fail-on-data-loss`. */
  fail_on_data_loss: "true" | "false";
  /** How long the scenario runs (1 s to 24 h). Attribute `horizon`, flag `--horizon`. */
  horizon_ms: number;
  /** End-to-end latency SLA, for the interval rule (an interval of about a tenth of it) (100 ms to 24 h). Attribute `sla`, flag `--latency-sla`. */
  latency_sla_ms: number;
}

/** The element's attribute for every setting, written as a person writes it ("30s", "2GB",
 * "10:00:45"); a choice takes its attribute value or its config value. */
export interface SettingAttributes {
  /** Root seed; every component derives its own sub-seed from it (0 to 18446744073709551615); default `42`. */
  "seed"?: string;
  /** Source partitions (1 to 256); default `12`. */
  "partitions"?: string;
  /** How many times the quietest partition's events the busiest receives, as a producer partitioning by skewed keys spreads them (partition p's share falls off as (p + 1)^-s); 1 spreads events evenly (1 to 16); default `3`. */
  "partition-skew"?: string;
  /** Input rate over all partitions (1 to 1000000); default `2000`. */
  "rate"?: string;
  /** Distinct products the orders are skewed over (1 to 100000); default `100`. */
  "products"?: string;
  /** Share of events that are producer retries of an earlier order id, e.g. 0.01 or 1% (0 to 0.5); default `0`. */
  "retry-rate"?: string;
  /** How long the log keeps an event, or none (1s to 168h); default `none`. */
  "retention"?: string;
  /** Tumbling event-time window length (1s to 24h); default `5m`. */
  "window"?: string;
  /** Emit running totals each time event time passes a multiple of this; divides the window (10ms to 1h); default `1s`. */
  "emit-every"?: string;
  /** Barrier checkpoints (Flink) or micro-batches with an offset log and a commit log (Spark); default `barrier`. */
  "mode"?: "barrier" | "micro-batch" | "micro_batch";
  /** Checkpoint interval, or the trigger interval in micro-batch mode (100ms to 1h); default `30s`. */
  "interval"?: string;
  /** How operators line up barriers that arrive on several inputs; default `aligned`. */
  "alignment"?: "aligned" | "unaligned";
  /** What a checkpoint uploads: the whole state or the bytes changed since the previous one (micro-batch mode: the state store provider, HDFS-backed or RocksDB; both write what changed); default `full`. */
  "snapshots"?: "full" | "incremental";
  /** Extra delay on one input channel (partition 0): the backpressure under which alignment matters (0ms to 10m); default `0ms`. */
  "backpressure"?: string;
  /** Bytes one in-flight record adds to an unaligned checkpoint (1B to 100MB); default `1KB`. */
  "record-size"?: string;
  /** Unaligned checkpoints store the records in the network buffers, which bound them: per backpressured channel 2 exclusive and 8 floating input buffers and 10 output buffers of 32 KB (taskmanager.network.memory.buffers-per-channel, floating-buffers-per-gate, max-buffers-per-channel, taskmanager.memory.segment-size), beyond which the source stops reading; buffer debloating (taskmanager.network.memory.buffer-debloat.enabled) shrinks them to about 1 s of the channel's throughput; default `off`. */
  "buffer-debloat"?: "off" | "on";
  /** Modelled operator state size, driving upload, restore and store write load (1KB to 10TB); default `2GB`. */
  "state-size"?: string;
  /** Checkpoint store write bandwidth (1KB/s to 1TB/s); default `1GB/s`. */
  "store-write"?: string;
  /** Restore bandwidth (download and rebuild) (1KB/s to 1TB/s); default `200MB/s`. */
  "store-read"?: string;
  /** Processing pause at each checkpoint's synchronous phase (micro-batch mode: the offset-log write) (0ms to 10m); default `100ms`. */
  "sync-pause"?: string;
  /** What fails: a task throws (the JobManager hears at once) or a TaskManager process is lost (noticed when its heartbeat times out); default `taskmanager-lost`. */
  "failure"?: "task" | "taskmanager-lost" | "taskmanager_lost";
  /** How often the JobManager asks each TaskManager for a heartbeat (Flink's heartbeat.interval, 10 s) (100ms to 1h); default `10s`. */
  "heartbeat-interval"?: string;
  /** Silence after which a TaskManager is declared lost; at least the heartbeat interval (Flink's heartbeat.timeout, 50 s by default; micro-batch mode: how long the query's supervisor takes to notice it stopped) (100ms to 1h); default `10s`. */
  "heartbeat-timeout"?: string;
  /** When a lost TaskManager last answered a heartbeat: just before the crash, so the loss is noticed a whole timeout later (the slowest case), or drawn from the seed within the last heartbeat interval, so it is noticed between the timeout minus the interval and the timeout; default `slowest`. */
  "heartbeat-loss"?: "slowest" | "drawn";
  /** Time from the crash until the failure is detected, overriding the failure kind, or none (0ms to 1h); default `none`. */
  "detection"?: string;
  /** How a failed job restarts: a fixed delay with a number of attempts, a backoff that grows with each failure (Flink's default since 1.19), a fixed delay while failures stay under a rate, or not at all; default `fixed-delay`. */
  "restart-strategy"?: "fixed-delay" | "fixed_delay" | "exponential-delay" | "exponential_delay" | "failure-rate" | "failure_rate" | "none";
  /** Fixed-delay and failure-rate strategies: time from detection until the restore starts (micro-batch mode: the supervisor's wait before it restarts the query) (0ms to 1h); default `0ms`. */
  "restart-delay"?: string;
  /** Fixed-delay strategy: restarts allowed before the job fails (Flink's restart-strategy.fixed-delay.attempts; here every failure restarts unless this is lowered, where Flink's own default is 1) (0 to 2147483647); default `2147483647`. */
  "restart-attempts"?: string;
  /** Failure-rate strategy: failures allowed within the failure-rate interval before the job fails (Flink's restart-strategy.failure-rate.max-failures-per-interval, 1 by default) (1 to 2147483647); default `1`. */
  "failure-rate-max"?: string;
  /** Failure-rate strategy: the interval failures are counted over (Flink's restart-strategy.failure-rate.failure-rate-interval, 1 min by default) (1s to 24h); default `1m`. */
  "failure-rate-interval"?: string;
  /** Exponential-delay strategy: the first backoff (1ms to 1h); default `1s`. */
  "backoff-initial"?: string;
  /** Exponential-delay strategy: what each further failure multiplies the backoff by; above 1, as Flink requires (1.01 to 10); default `1.5`. */
  "backoff-multiplier"?: string;
  /** Exponential-delay strategy: the longest backoff (1ms to 1h); default `1m`. */
  "backoff-max"?: string;
  /** Exponential-delay strategy: the share of the backoff added or taken off at random (0 to 1); default `0.1`. */
  "backoff-jitter"?: string;
  /** Exponential-delay strategy: after this long without a failure the backoff starts again from the initial one (Flink's reset-backoff-threshold, 1 h) (1ms to 24h); default `1h`. */
  "backoff-reset"?: string;
  /** Exactly once aligns barriers; at least once lets records pass a barrier before the snapshot, so a restore reads them again; default `exactly-once`. */
  "checkpointing-mode"?: "exactly-once" | "exactly_once" | "at-least-once" | "at_least_once";
  /** Where a restart resumes reading: at the checkpoint's offsets, taken with its state, or at the offsets the consumer committed to Kafka on a timer (enable.auto.commit), while the state is checkpointed on its own; events between the two are then lost or counted twice (barrier mode; micro-batches keep their offsets in the offset log); default `with-checkpoint`. */
  "offset-commit"?: "with-checkpoint" | "with_checkpoint" | "on-timer" | "on_timer";
  /** Offsets committed on a timer: how often the consumer commits its position to the group (Kafka's auto.commit.interval.ms, 5 s); the first commit comes one interval after the job (or a restarted attempt) starts reading (100ms to 1h); default `5s`. */
  "offset-commit-interval"?: string;
  /** What readers of the transactional sink see: committed rows only, or every row as written; default `read-committed`. */
  "isolation-level"?: "read-committed" | "read_committed" | "read-uncommitted" | "read_uncommitted";
  /** The sink producer's transaction.timeout.ms: the broker aborts a transaction not committed this long after it began; at most the broker's transaction.max.timeout.ms (15 min) (1s to 15m); default `15m`. */
  "transaction-timeout"?: string;
  /** Events per second the job can process at most (1 to 10000000); default `4000`. */
  "capacity"?: string;
  /** Scenario start on the clock (00:00:00 to 23:59:59.999); default `10:00:00`. */
  "start-time"?: string;
  /** Sum of the partition offsets at the start, where the start checkpoint is complete (0 to 1125899906842624); default `1000000`. */
  "start-offset"?: string;
  /** The completed checkpoint the scenario starts from (0 to 1125899906842624); default `41`. */
  "start-checkpoint"?: string;
  /** Crash time on the clock (HH:MM:SS or HH:MM:SS.mmm), inside the horizon, or none (00:00:00 to 23:59:59.999); default `10:00:45`. */
  "crash-at"?: string;
  /** Further crash times on the clock besides the crash time, comma-separated (10:01:30,10:04:00), each inside the horizon; at most 100 (00:00:00 to 23:59:59.999); default `none`. */
  "more-crashes"?: string;
  /** Mean time between failures: crashes drawn from the seed over the horizon, at exponentially distributed gaps of this mean, or none (1s to 24h); default `none`. */
  "mtbf"?: string;
  /** Micro-batch mode: Spark's failOnDataLoss, what a query does when offsets it must read again are gone from the log: fail (Spark's default) or skip to the oldest offset kept, with a warning; default `true`. */
  "fail-on-data-loss"?: "true" | "false";
  /** How long the scenario runs (1s to 24h); default `10m`. */
  "horizon"?: string;
  /** End-to-end latency SLA, for the interval rule (an interval of about a tenth of it) (100ms to 24h); default `5m`. */
  "sla"?: string;
}

/** The named scenarios (src/lesson/scenarios.rs). */
export type ScenarioName = "lesson" | "tiny-interval" | "slow-store" | "backpressure";

/** What the `charts` option may name: a chart, the headline figures or the crash table. */
export type ViewName = "pipeline" | "replay" | "latency" | "sink-window" | "tradeoff" | "checkpoints" | "figures" | "crash-table";
// </generated>

// The report and everything in it, derived from the Rust types that serialise it.
// <generated from the report's Rust types>
export type Report = { 
/**
 * The shape of this structure; it changes when a field changes meaning or goes away.
 */
schema_version: number, 
/**
 * The settings the run used (declared from the settings table).
 */
config: Config, restored_checkpoint: CheckpointSummary | null, crash: CrashSummary | null, replayed_events: number, replayed_offsets: OffsetRange | null, 
/**
 * Rate x effective interval: what a crash just before the next barrier replays.
 */
interval_replay_events: number, 
/**
 * Also counting the checkpoint's own duration: a crash just before the next one completes.
 */
worst_case_replay_events: number, detected_at: Stamp | null, restored_at: Stamp | null, replay_done_at: Stamp | null, caught_up_at: Stamp | null, 
/**
 * Why `caught_up_at` is null, when it is.
 */
caught_up_reason: string | null, 
/**
 * Crash to caught up, in seconds.
 */
recovery_s: number | null, 
/**
 * Crash to restored (the job processes nothing).
 */
downtime_s: number | null, phases: RecoveryPhases | null, backlog_at_restore_events: number | null, 
/**
 * Events lost because recovery rewound past the log's retention.
 */
lost_events: number, 
/**
 * Every failure of the run: crashes of the failure schedule and fencing at the transaction timeout.
 */
failures: number, 
/**
 * When the job became FAILED (its restart strategy gave up, or the query failed on data loss).
 */
failed_at: Stamp | null, 
/**
 * Events the restored state already held and the replay counted again: at-least-once
 * checkpointing's records past a barrier, or, with offsets committed on a timer, the events
 * between the committed offsets and the restored checkpoint's further on.
 */
counted_twice_events: number, 
/**
 * Offsets committed on a timer, apart from the state (`offset_commit` `on_timer`): events
 * between the restored checkpoint's offsets and the consumer's last committed offsets further
 * on. The restored state never counted them and the readers resume past them: lost, window
 * totals that much too low. (When the commit lies before the checkpoint's offsets, the events
 * between are counted twice instead: `counted_twice_events`.)
 */
skipped_events: number, effective_interval_ms: number, store_limited: boolean, store_write_bytes_per_min: number, 
/**
 * Share of time paused for sync or stalled aligning, failure-free.
 */
pause_overhead: number, paused_ms: number, aligning_ms: number, checkpoints: Array<CheckpointSummary>, sinks: SinkReport, window_total_before_crash: WindowTotal | null, crash_table: Array<CrashTableRow>, steady_state: SteadyState, series: Array<Sample>, timeline: Array<TimelineEntry>, 
/**
 * Micro-batch mode: every offset-log entry, in order (empty in barrier mode).
 */
offset_log: Array<LoggedBatch>, warnings: Array<string>, };
export type Stamp = { at: string, ms: number, s: number, };
export type CheckpointSummary = { id: number, barrier_at: Stamp, completed_at: Stamp, 
/**
 * Sum of partition offsets the checkpoint restores to.
 */
offset: number, offsets: Array<number>, size_bytes: number, in_flight_bytes: number, duration_ms: number, alignment_ms: number, sync_ms: number, processing_ms: number, upload_ms: number, attempt: number, };
export type CrashSummary = { at: Stamp, 
/**
 * The readers' total position at the crash.
 */
offset: number, offsets: Array<number>, 
/**
 * The checkpoint in flight at the crash, discarded.
 */
discarded_checkpoint: number | null, };
export type OffsetRange = { from: number, to: number, };
export type RecoveryPhases = { detection_s: number, restart_s: number, restore_s: number, 
/**
 * Restore until the readers are back at the crash offset.
 */
replay_s: number | null, 
/**
 * From there until the backlog is gone.
 */
catch_up_s: number | null, };
export type SinkReport = { append_only: SinkFigures, upsert: SinkFigures, transactional: SinkFigures, dedupe_view: SinkFigures, };
export type SinkFigures = { design: SinkDesign, guarantee: string, 
/**
 * Rows stored (for the view: rows the query returns).
 */
rows: number, 
/**
 * Rows repeating an earlier row's (product_id, window_start, order_count).
 */
duplicate_rows: number, 
/**
 * Distinct (product_id, window_start) keys among the rows: rows == keys means one row per key.
 */
keys: number, 
/**
 * Writes that replaced a key's running total with a smaller one (upsert).
 */
regressions: number, 
/**
 * Rows written but aborted with their transaction (transactional).
 */
aborted_rows: number, 
/**
 * Rows of pre-committed transactions the broker aborted at their timeout: lost.
 */
timed_out_rows: number, 
/**
 * Rows a `read_uncommitted` reader saw that were later aborted.
 */
aborted_rows_seen: number, 
/**
 * Longest time with nothing fresher to read.
 */
silent_ms: number, 
/**
 * Worst staleness: now minus the newest event time a reader can see.
 */
staleness_max_ms: number, 
/**
 * Whether a reader at the end of the run sees what a failure-free run shows.
 */
matches_failure_free: boolean, 
/**
 * Events the log no longer held when a restore needed them: missing from this sink.
 */
lost_events: number, };
export type SinkDesign = "append_only" | "upsert" | "transactional" | "dedupe_view";
export type WindowTotal = { window_start: Stamp, order_count: number, emitted_at: Stamp, };
export type CrashTableRow = { at: Stamp, what: string, offset: number | null, };
export type SteadyState = { interval_ms: number, 
/**
 * Time between triggers: the interval, or longer when a checkpoint outlasts it.
 */
effective_interval_ms: number, 
/**
 * True when the store cannot absorb a checkpoint per interval and stretches it.
 */
store_limited: boolean, size_bytes: number, alignment_ms: number, upload_ms: number, 
/**
 * Barrier to completion: alignment, sync pause and upload.
 */
duration_ms: number, store_write_bytes_per_min: number, 
/**
 * Share of time processing is paused for sync or stalled aligning.
 */
pause_overhead: number, 
/**
 * Events replayed by a crash just before the next barrier: rate x effective interval.
 */
interval_replay_events: number, 
/**
 * Events replayed by a crash just before the next checkpoint completes.
 */
worst_case_replay_events: number, 
/**
 * Crash to caught up for the worst-case crash; `None` when the job can never catch up.
 */
worst_case_recovery_ms: number | null, };
export type Sample = { at: Stamp, phase: Phase, 
/**
 * Events in the log (sum of partition log-end offsets).
 */
log_end: number, 
/**
 * The readers' total position.
 */
position: number, lag_events: number, 
/**
 * Staleness a reader of each sink sees: now minus the newest event time visible there.
 */
staleness_ms: SinkStaleness, };
export type Phase = "running" | "aligning" | "sync_pause" | "detecting" | "restarting" | "restoring" | "replaying" | "catching_up" | "waiting_for_trigger" | "failed";
export type SinkStaleness = { append_only: number, upsert: number, transactional: number, dedupe_view: number, };
export type TimelineEntry = { at: Stamp, kind: TimelineKind, checkpoint?: number, offset?: number, };
export type TimelineKind = "barrier" | "aligned" | "snapshot" | "checkpoint_completed" | "checkpoint_discarded" | "crash" | "detected" | "restore_started" | "restored" | "replay_done" | "caught_up" | "retention_exceeded" | "transaction_timed_out" | "producer_fenced" | "job_failed" | "batch_planned" | "batch_rerun" | "batch_output" | "batch_committed";
export type LoggedBatch = { batch_id: number, 
/**
 * When the driver planned the batch (its trigger).
 */
planned_at: Stamp, 
/**
 * The batch's event-time boundary: its input is every event before it.
 */
boundary: Stamp, 
/**
 * When the entry was durable in the offset log.
 */
written_at: Stamp, 
/**
 * Where the batch starts (the previous batch's end) and ends, summed over partitions.
 */
start_offset: number, end_offset: number, end_offsets: Array<number>, };
export type Summary = { replayed_events: number, interval_replay_events: number, worst_case_replay_events: number, recovery_s: number | null, store_write_bytes_per_min: number, pause_overhead: number, duplicate_rows: DuplicateRows, warnings: Array<string>, };
export type DuplicateRows = { append_only: number, upsert: number, transactional: number, dedupe_view: number, };
// </generated from the report's Rust types>

/** The name this file used for a checkpoint before the declarations were derived. */
export type Checkpoint = CheckpointSummary;

export interface ChangeDetail extends Summary { settings: Partial<Config> }

export interface ExerciseDetail { id: string; correct: boolean; attempts: number }


/** Options of mount() and set(): any Config key, plus how the component looks. */
export interface MountOptions extends Partial<Config> {
  sink?: "append-only" | "upsert" | "transactional" | "dedupe-view";
  /** Which controls show: "interval state-size crash-at" or ["interval", "crash-at"]. */
  controls?: string | string[];
  /** Which views show: "pipeline", "replay latency" or ["pipeline", "figures"]; all when absent. */
  charts?: ViewName | string | ViewName[];
  /** The scenario time the pipeline view shows: "10:00:58", "crash+1s" (follows the crash) or ms since the scenario start. */
  cursor?: string | number;
  theme?: "light" | "dark" | "auto";
  scenario?: ScenarioName;
  exercise?: string;
  /** Exercise ids: "id1 id2", ["id1", "id2"], or "all". */
  exercises?: string | string[];
}


/** Rows a sink holds so far and how many repeat an earlier row. */
export interface SinkCounts { rows: number; duplicate_rows: number }

/** The world at the cursor (handle.world()). */
export interface WorldAtCursor {
  at: Stamp;
  phase: Phase;
  /** running, taking a checkpoint, down, restarting, restoring, replaying, catching up, caught up,
   * waiting for the trigger, running a batch. */
  status: string;
  /** The status with its numbers: "restoring checkpoint 42: 600 MB of 2 GB". */
  detail: string;
  /** The sentence the view's description reads. */
  description: string;
  /** One line for a chart's hover readout: "10:00:50 · detecting · lag 40,000 · offset 1,060,000". */
  readout: string;
  /** The checkpoint (or batch) in flight. */
  checkpoint: number | null;
  /** The checkpoint a crash restores, from the crash until the restore finishes. */
  restoring: number | null;
  position: number;
  offsets: number[];
  log_end: number;
  lag_events: number;
  sinks: { append_only: SinkCounts; upsert: SinkCounts; transactional: SinkCounts; dedupe_view: SinkCounts };
}

export interface CursorDetail { ms: number; at: string }

export interface LabHandle {
  element: CheckpointLabElement;
  /**
   * Applies options: checks them at once (throws an Error naming a bad field and keeps the last
   * good run), then runs them in slices over frames; a newer set() or attribute change replaces the
   * run. The Promise resolves to the handle once the charts are drawn and any exercise named is
   * shown (rejects if that run fails, `cursor` is not a time of it, or the exercises' module cannot
   * be loaded); it also carries the handle's methods, so `set(a).destroy()` still chains and a
   * caller may ignore it.
   */
  set(options: MountOptions): Promise<LabHandle> & LabHandle;
  report(): Report | undefined;
  summary(): Summary | undefined;
  /** Moves the cursor to a clock time ("10:00:58") or ms since the scenario start; throws an Error naming `cursor`. */
  seek(time: string | number): LabHandle;
  /** The world at the cursor. */
  world(): WorldAtCursor;
  destroy(): void;
}

/** The events a lab dispatches; they bubble and leave the shadow root. */
export interface CheckpointLabEventMap {
  "checkpointlab-change": CustomEvent<ChangeDetail>;
  "checkpointlab-exercise": CustomEvent<ExerciseDetail>;
  "checkpointlab-ready": CustomEvent<void>;
  "checkpointlab-cursor": CustomEvent<CursorDetail>;
}

export declare class CheckpointLabElement extends HTMLElement {
  /** True while a run is being computed over several frames. */
  readonly busy: boolean;
  /** The report of the current run; undefined before the first run. */
  report(): Report | undefined;
  summary(): Summary | undefined;
  /** Resolves once the first picture is drawn (or a bad setting is shown instead). */
  whenReady(): Promise<void>;
}

/** The element's attributes, for JSX and for typed markup: every setting's attribute (read as a
 * person writes it: "30s", "2GB", "10:00:45"; a choice typed as its values) and the view's own. */
export interface CheckpointLabAttributes extends SettingAttributes {
  /** The sink design the sink chart highlights. */
  sink?: "append-only" | "upsert" | "transactional" | "dedupe-view";
  theme?: "light" | "dark" | "auto";
  /** A named scenario the settings start from. */
  scenario?: ScenarioName;
  /** Which controls show, e.g. "interval state-size crash-at", or an advanced setting on its own ("alignment backpressure"); the pipeline view's parts are "cursor", "play" and "description". */
  controls?: string;
  /** Which views show, e.g. "pipeline" or "replay latency". */
  charts?: string;
  /** The scenario time the pipeline view shows, e.g. "10:00:58", or "crash+1s", which follows the crash. */
  cursor?: string;
  /** Play the crash and its recovery by itself, on a loop, while the pipeline view is in view
   * (not where the reader prefers reduced motion); the reader's first touch of the time stops it. */
  autoplay?: boolean | "";
  /** One exercise's id. */
  exercise?: string;
  /** Exercise ids, space-separated, or "all". */
  exercises?: string;
  /** The URL of a JSON file of exercises. */
  "exercises-src"?: string;
  id?: string;
  class?: string;
  slot?: string;
  title?: string;
  lang?: string;
  hidden?: boolean;
  "aria-label"?: string;
  "aria-labelledby"?: string;
  "aria-describedby"?: string;
}

/** A ref as React 19 and Preact take it: an object whose `current` gets the element, or a
 * callback (React 19's may return a cleanup). */
export type CheckpointLabRef =
  | { current: CheckpointLabElement | null }
  | ((element: CheckpointLabElement | null) => void | (() => void))
  | null;

/** `<checkpoint-lab>` in React 19 and Preact JSX: the attributes plus what those frameworks add. */
export interface CheckpointLabJSXProps extends CheckpointLabAttributes {
  className?: string;
  style?: string | { [property: string]: string | number | undefined };
  ref?: CheckpointLabRef;
  key?: string | number | bigint | null;
  children?: unknown;
}

/** `<checkpoint-lab>` in Solid JSX: the attributes, a ref (a variable Solid assigns, or a
 * callback) and children. */
export interface CheckpointLabSolidProps extends CheckpointLabAttributes {
  style?: string | { [property: string]: string | number | undefined };
  ref?: CheckpointLabElement | ((element: CheckpointLabElement) => void);
  children?: unknown;
}

export declare const SCENARIOS: Record<ScenarioName, { label: string; settings: Partial<Config> }>;
export declare function load(): Promise<unknown>;
/** How `simulate()` reports progress and can be cancelled. */
export interface SimulateOptions {
  /** Cancels the run: the Promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called between slices with the fraction done, from 0 to 1. */
  onProgress?: (fraction: number) => void;
}
/**
 * Runs a scenario and resolves to its report. The engine runs in slices of about 10 ms with the
 * page free in between, so a long scenario never blocks the page; rejects with an Error naming a
 * bad field.
 */
export declare function simulate(config?: Partial<Config>, options?: SimulateOptions): Promise<Report>;
export declare function defaults(): Promise<Config>;
export declare function defaultConfig(): Promise<Config>;
/** Settings written as the element's attributes read them: `{ interval_ms: 7000 }` gives `{ interval: "7s" }`. */
export declare function toAttributes(config: Partial<Config>): Promise<Record<string, string>>;
export declare function mount(element: Element, options?: MountOptions): Promise<LabHandle>;
export declare function wasmMemoryBytes(): Promise<number>;

/** An exercise, as authors write it (docs/exercises.md). */
export interface Exercise {
  id: string;
  title: string;
  prompt: string;
  kind: "number" | "choice" | "set";
  start?: Partial<Config>;
  check: string;
  answer?: string | null;
  unit?: string | null;
  choices?: { id: string; label: string }[];
  solution?: Partial<Config>;
  controls?: string | null;
  hints?: string[];
  feedback: { right: string; wrong: string };
  /** Number kind: common wrong answers; a wrong answer matching `check` gets this `feedback`. */
  mistakes?: { check: string; feedback: string }[];
  explanation: string;
}
/** Validates and adds exercises; throws an Error naming the exercise and the field. */
export declare function registerExercises(list: Exercise[]): Promise<string[]>;
export declare function exerciseIds(): Promise<string[]>;

// The events bubble out of the component, so a listener on the document, the window or any
// ancestor element receives them typed.
declare global {
  interface HTMLElementTagNameMap { "checkpoint-lab": CheckpointLabElement }
  interface HTMLElementEventMap extends CheckpointLabEventMap {}
  interface DocumentEventMap extends CheckpointLabEventMap {}
  interface WindowEventMap extends CheckpointLabEventMap {}
  // Frameworks that still read the global JSX namespace.
  namespace JSX {
    interface IntrinsicElements { "checkpoint-lab": CheckpointLabJSXProps }
  }
}

// React 19's types read only the JSX namespace inside "react" (and its jsx-runtime, which follows
// it); Preact's and Solid's likewise read their own. Where a framework is not installed its block
// declares nothing another package sees.
declare module "react" {
  namespace JSX {
    interface IntrinsicElements { "checkpoint-lab": CheckpointLabJSXProps }
  }
}
declare module "preact" {
  namespace JSX {
    interface IntrinsicElements { "checkpoint-lab": CheckpointLabJSXProps }
  }
}
// Solid 1 keeps its JSX namespace in "solid-js"; Solid 2 in its renderer, "@solidjs/web".
declare module "solid-js" {
  namespace JSX {
    interface IntrinsicElements { "checkpoint-lab": CheckpointLabSolidProps }
  }
}
declare module "@solidjs/web/jsx-runtime" {
  namespace JSX {
    interface IntrinsicElements { "checkpoint-lab": CheckpointLabSolidProps }
  }
}
