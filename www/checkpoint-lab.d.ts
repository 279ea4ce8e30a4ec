// TypeScript declarations for the <checkpoint-lab> element and its module API.

/** Settings of a scenario. Times in ms (clock times in ms since midnight), sizes in bytes. */
export interface Config {
  seed: number;
  partitions: number;
  rate_per_s: number;
  products: number;
  /** Share of events that are producer retries, 0 to 0.5. */
  retry_rate: number;
  retention_ms: number | null;
  window_ms: number;
  emit_every_ms: number;
  /** Barrier checkpoints (Flink) or micro-batches with an offset log and a commit log (Spark). */
  mode: "barrier" | "micro_batch";
  /** Checkpoint interval, or the trigger interval in micro-batch mode. */
  interval_ms: number;
  alignment: "aligned" | "unaligned";
  snapshots: "full" | "incremental";
  backpressure_ms: number;
  record_bytes: number;
  state_bytes: number;
  store_write_bytes_per_s: number;
  store_read_bytes_per_s: number;
  sync_pause_ms: number;
  detection_ms: number;
  restart_delay_ms: number;
  capacity_per_s: number;
  start_time_ms: number;
  start_offset: number;
  start_checkpoint_id: number;
  crash_at_ms: number | null;
  horizon_ms: number;
  latency_sla_ms: number;
}

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
  regressions: number;
  aborted_rows: number;
  silent_ms: number;
  staleness_max_ms: number;
  matches_failure_free: boolean;
}

export type Phase = "running" | "aligning" | "sync_pause" | "detecting" | "restarting" | "restoring" | "replaying" | "catching_up";

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
  /** Which controls show, e.g. "interval state-size crash-at". */
  controls?: string;
  theme?: "light" | "dark" | "auto";
  scenario?: ScenarioName;
  exercise?: string;
  exercises?: string;
}

export interface LabHandle {
  element: CheckpointLabElement;
  /** Applies options and re-runs; throws an Error naming a bad field and keeps the last good run. */
  set(options: MountOptions): LabHandle;
  report(): Report;
  summary(): Summary;
  destroy(): void;
}

export declare class CheckpointLabElement extends HTMLElement {
  /** True while a run is being computed over several frames. */
  readonly busy: boolean;
  report(): Report | undefined;
  summary(): Summary | undefined;
}

export declare const SCENARIOS: Record<ScenarioName, { label: string; settings: Partial<Config> }>;
export declare function load(): Promise<unknown>;
export declare function simulate(config?: Partial<Config>): Promise<Report>;
export declare function defaults(): Promise<Config>;
export declare function defaultConfig(): Promise<Config>;
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

declare global {
  interface HTMLElementTagNameMap { "checkpoint-lab": CheckpointLabElement }
  interface HTMLElementEventMap {
    "checkpointlab-change": CustomEvent<ChangeDetail>;
    "checkpointlab-exercise": CustomEvent<ExerciseDetail>;
    "checkpointlab-ready": CustomEvent<void>;
  }
}
