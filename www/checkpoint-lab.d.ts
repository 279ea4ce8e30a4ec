// TypeScript declarations for the <checkpoint-lab> element and its module API.

// <generated from src/settings.rs>
/** Settings of a scenario. Times in ms (clock times in ms since midnight), sizes in bytes. */
export interface Config {
  /** Root seed; every component derives its own sub-seed from it (0 to 18446744073709551615). Attribute `seed`, flag `--seed`. */
  seed: number;
  /** Source partitions (1 to 256). Attribute `partitions`, flag `--partitions`. */
  partitions: number;
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
  /** What a checkpoint uploads: the whole state or the bytes changed since the previous one. Attribute `snapshots`, flag `--snapshots`. */
  snapshots: "full" | "incremental";
  /** Extra delay on one input channel (partition 0): the backpressure under which alignment matters (0 ms to 10 min). Attribute `backpressure`, flag `--backpressure`. */
  backpressure_ms: number;
  /** Bytes one in-flight record adds to an unaligned checkpoint (1 B to 100 MB). Attribute `record-size`, flag `--record-size`. */
  record_bytes: number;
  /** Modelled operator state size, driving upload, restore and store write load (1 KB to 10 TB). Attribute `state-size`, flag `--state-size`. */
  state_bytes: number;
  /** Checkpoint store write bandwidth (1 KB/s to 1 TB/s). Attribute `store-write`, flag `--store-write`. */
  store_write_bytes_per_s: number;
  /** Restore bandwidth (download and rebuild) (1 KB/s to 1 TB/s). Attribute `store-read`, flag `--store-read`. */
  store_read_bytes_per_s: number;
  /** Processing pause at each checkpoint's synchronous phase (micro-batch mode: the offset-log write) (0 ms to 10 min). Attribute `sync-pause`, flag `--sync-pause`. */
  sync_pause_ms: number;
  /** Time from the crash until the failure is detected (0 ms to 1 h). Attribute `detection`, flag `--detection`. */
  detection_ms: number;
  /** Time from detection until the restore starts (0 ms to 1 h). Attribute `restart-delay`, flag `--restart-delay`. */
  restart_delay_ms: number;
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
  /** How long the scenario runs (1 s to 24 h). Attribute `horizon`, flag `--horizon`. */
  horizon_ms: number;
  /** End-to-end latency SLA, for the interval rule (an interval of about a tenth of it) (100 ms to 24 h). Attribute `sla`, flag `--latency-sla`. */
  latency_sla_ms: number;
}

/** The element's attribute for every setting, written as a person writes it. */
export interface SettingAttributes {
  /** Seed. */
  "seed"?: string;
  /** Partitions. */
  "partitions"?: string;
  /** Input rate. */
  "rate"?: string;
  /** Products. */
  "products"?: string;
  /** Producer retries. */
  "retry-rate"?: string;
  /** Log retention. */
  "retention"?: string;
  /** Window. */
  "window"?: string;
  /** Emit period. */
  "emit-every"?: string;
  /** Restart design. */
  "mode"?: string;
  /** Checkpoint interval. */
  "interval"?: string;
  /** Barrier alignment. */
  "alignment"?: string;
  /** Snapshots. */
  "snapshots"?: string;
  /** Backpressure (slow input). */
  "backpressure"?: string;
  /** Record size. */
  "record-size"?: string;
  /** State size. */
  "state-size"?: string;
  /** Store write bandwidth. */
  "store-write"?: string;
  /** Restore bandwidth. */
  "store-read"?: string;
  /** Sync pause. */
  "sync-pause"?: string;
  /** Failure detection. */
  "detection"?: string;
  /** Restart delay. */
  "restart-delay"?: string;
  /** Capacity. */
  "capacity"?: string;
  /** Start time. */
  "start-time"?: string;
  /** Start offset. */
  "start-offset"?: string;
  /** Start checkpoint. */
  "start-checkpoint"?: string;
  /** Crash time. */
  "crash-at"?: string;
  /** Horizon. */
  "horizon"?: string;
  /** Latency SLA. */
  "sla"?: string;
}
// </generated>

/** A clock time: "10:00:32.100" and seconds since the scenario start. */
export interface Stamp { at: string; s: number }

export interface Checkpoint {
  id: number;
  barrier_at: Stamp;
  completed_at: Stamp;
  offset: number;
  offsets: number[];
  size_bytes: number;
  in_flight_bytes: number;
  duration_ms: number;
  alignment_ms: number;
  sync_ms: number;
  /** Micro-batch mode: reading and processing the batch (0 in barrier mode). */
  processing_ms: number;
  upload_ms: number;
  attempt: number;
}

export type SinkDesign = "append_only" | "upsert" | "transactional" | "dedupe_view";

export interface SinkFigures {
  design: SinkDesign;
  guarantee: string;
  rows: number;
  duplicate_rows: number;
  /** Distinct (product_id, window_start) keys among the rows. */
  keys: number;
  regressions: number;
  aborted_rows: number;
  silent_ms: number;
  staleness_max_ms: number;
  matches_failure_free: boolean;
}

export type Phase = "running" | "aligning" | "sync_pause" | "detecting" | "restarting" | "restoring" | "replaying" | "catching_up" | "waiting_for_trigger";

export interface Sample {
  t_s: number;
  phase: Phase;
  log_end: number;
  position: number;
  lag_events: number;
  staleness_ms: Record<SinkDesign, number>;
}

export interface SteadyState {
  interval_ms: number;
  effective_interval_ms: number;
  store_limited: boolean;
  size_bytes: number;
  alignment_ms: number;
  upload_ms: number;
  duration_ms: number;
  store_write_bytes_per_min: number;
  pause_overhead: number;
  interval_replay_events: number;
  worst_case_replay_events: number;
  worst_case_recovery_ms: number | null;
}

/** The report of one run; README.md documents every field. */
export interface Report {
  config: Config;
  restored_checkpoint: Checkpoint | null;
  crash: { at: Stamp; offset: number; offsets: number[]; discarded_checkpoint: number | null } | null;
  replayed_events: number;
  replayed_offsets: { from: number; to: number } | null;
  interval_replay_events: number;
  worst_case_replay_events: number;
  detected_at: Stamp | null;
  restored_at: Stamp | null;
  replay_done_at: Stamp | null;
  caught_up_at: Stamp | null;
  caught_up_reason: string | null;
  recovery_s: number | null;
  downtime_s: number | null;
  phases: { detection_s: number; restart_s: number; restore_s: number; replay_s: number | null; catch_up_s: number | null } | null;
  backlog_at_restore_events: number | null;
  lost_events: number;
  effective_interval_ms: number;
  store_limited: boolean;
  store_write_bytes_per_min: number;
  pause_overhead: number;
  paused_ms: number;
  aligning_ms: number;
  checkpoints: Checkpoint[];
  sinks: Record<SinkDesign, SinkFigures>;
  window_total_before_crash: { window_start: string; order_count: number; emitted_at: Stamp } | null;
  crash_table: { at: Stamp; what: string; offset: number | null }[];
  steady_state: SteadyState;
  series: Sample[];
  timeline: { at: string; at_s: number; kind: string; checkpoint?: number; offset?: number }[];
  /** Micro-batch mode: every offset-log entry in order (empty in barrier mode). */
  offset_log: {
    batch_id: number; planned_at_ms: number; boundary_ms: number; written_at_ms: number;
    start_offset: number; end_offset: number; end_offsets: number[];
  }[];
  warnings: string[];
}

/** The headline figures, carried by the checkpointlab-change event. */
export interface Summary {
  replayed_events: number;
  interval_replay_events: number;
  worst_case_replay_events: number;
  recovery_s: number | null;
  store_write_bytes_per_min: number;
  pause_overhead: number;
  duplicate_rows: Record<SinkDesign, number>;
  warnings: string[];
}

export interface ChangeDetail extends Summary { settings: Partial<Config> }

export interface ExerciseDetail { id: string; correct: boolean; attempts: number }

export type ScenarioName = "lesson" | "tiny-interval" | "slow-store" | "backpressure";

/** Options of mount() and set(): any Config key, plus how the component looks. */
export interface MountOptions extends Partial<Config> {
  sink?: "append-only" | "upsert" | "transactional" | "dedupe-view";
  /** Which controls show: "interval state-size crash-at" or ["interval", "crash-at"]. */
  controls?: string | string[];
  theme?: "light" | "dark" | "auto";
  scenario?: ScenarioName;
  exercise?: string;
  /** Exercise ids: "id1 id2", ["id1", "id2"], or "all". */
  exercises?: string | string[];
}

export interface LabHandle {
  element: CheckpointLabElement;
  /** Applies options and re-runs; throws an Error naming a bad field and keeps the last good run. */
  set(options: MountOptions): LabHandle;
  report(): Report | undefined;
  summary(): Summary | undefined;
  destroy(): void;
}

/** The events a lab dispatches; they bubble and leave the shadow root. */
export interface CheckpointLabEventMap {
  "checkpointlab-change": CustomEvent<ChangeDetail>;
  "checkpointlab-exercise": CustomEvent<ExerciseDetail>;
  "checkpointlab-ready": CustomEvent<void>;
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
 * person writes it: "30s", "2GB", "10:00:45") and the view's own. */
export interface CheckpointLabAttributes extends SettingAttributes {
  sink?: "append-only" | "upsert" | "transactional" | "dedupe-view";
  theme?: "light" | "dark" | "auto";
  scenario?: ScenarioName;
  /** Which controls show, e.g. "interval state-size crash-at". */
  controls?: string;
  exercise?: string;
  exercises?: string;
  "exercises-src"?: string;
  id?: string;
  class?: string;
  className?: string;
  style?: unknown;
  hidden?: boolean;
  "aria-label"?: string;
  children?: unknown;
  ref?: unknown;
  key?: string | number;
}

export declare const SCENARIOS: Record<ScenarioName, { label: string; settings: Partial<Config> }>;
export declare function load(): Promise<unknown>;
export declare function simulate(config?: Partial<Config>): Promise<Report>;
export declare function defaults(): Promise<Config>;
export declare function defaultConfig(): Promise<Config>;
/** Settings written as the element's attributes read them: `{ interval_ms: 7000 }` gives `{ interval: "7s" }`. */
export declare function toAttributes(config: Partial<Config>): Promise<Record<string, string>>;
export declare function mount(element: Element, options?: MountOptions): Promise<LabHandle>;
export declare function wasmMemoryBytes(): Promise<number>;

/** An exercise, as authors write it (README: "Writing exercises"). */
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
  namespace JSX {
    interface IntrinsicElements { "checkpoint-lab": CheckpointLabAttributes }
  }
}
