//! What the lab shows that is not a pixel, computed in one place per change: each control's
//! label, readout and whether it means anything in the chosen restart design; the headline
//! figures written for people (and, while a comparison is on, A beside B − A); the warnings; the
//! crash table; the names that follow the design (the timeline's title, the transactional sink's
//! name). The element only puts these strings where they go. The page's fixed lists (scenarios,
//! charts, sinks, figures) are [`catalogue`], written into `www/settings.js`.

use serde::Serialize;
use serde_json::Value;

use crate::engine::settings::config::{Config, Failure, Mode};
use crate::engine::settings::{format_unit, Control, Setting, Steps, Unit, SETTINGS};
use crate::lesson::report::{Report, Summary};
use crate::lesson::scenarios::SCENARIOS;

/// One control of the settings table as the page shows it now.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ControlView {
    pub key: &'static str,
    pub label: &'static str,
    /// The value written for people (empty for a choice, whose select shows it).
    pub readout: String,
    pub disabled: bool,
    /// A choice's options as the select names them in this design (empty for a slider).
    pub options: Vec<OptionView>,
    /// A slider's steps: the values its thumb stops at.
    pub steps: StepsView,
}

/// The values a slider's thumb stops at: listed, or every `every` from `from` to `to` inclusive.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepsView {
    None,
    Values { values: &'static [f64] },
    Range { from: f64, to: f64, every: f64 },
}

/// A setting's slider steps for `config`: the crash slider's are every second of the horizon,
/// from its start plus one second to its end minus one (a horizon of a second or less offers one
/// valid instant, its middle).
pub fn steps(setting: &Setting, config: &Config) -> StepsView {
    match setting.steps {
        Steps::None => StepsView::None,
        Steps::Values(values) => StepsView::Values { values },
        Steps::EverySecondOfHorizon => {
            let (start, horizon) = (config.start_time_ms as f64, config.horizon_ms as f64);
            let last = ((horizon - 1.0) / 1_000.0).floor() * 1_000.0;
            if last >= 1_000.0 {
                StepsView::Range { from: start + 1_000.0, to: start + last, every: 1_000.0 }
            } else {
                let middle = start + (horizon / 2.0).floor().max(1.0);
                StepsView::Range { from: middle, to: middle, every: 1_000.0 }
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OptionView {
    pub value: &'static str,
    pub label: &'static str,
}

/// One headline figure: its label, its value, and while a comparison is on, A and B − A.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FigureView {
    pub key: &'static str,
    pub label: String,
    pub value: String,
    pub compare: Option<String>,
}

/// One line of "a crash, second by second", written for people.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CrashRowView {
    pub at: String,
    pub offset: String,
    pub what: String,
}

/// Everything the lab shows for one state of its controls and its last run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewState {
    pub controls: Vec<ControlView>,
    /// The sink select's options: the transactional design is "idempotent by batch id" in
    /// micro-batch mode.
    pub sinks: Vec<OptionView>,
    /// Empty before the first run.
    pub figures: Vec<FigureView>,
    pub warnings: Vec<String>,
    pub crash_table: Vec<CrashRowView>,
    /// The checkpoint timeline's heading: the batch timeline in micro-batch mode.
    pub timeline_title: &'static str,
    pub compare_status: String,
    /// The scenario's clock: where it starts (ms since midnight) and how long it runs, which
    /// the cursor spans.
    pub start_ms: u64,
    pub span_ms: u64,
    /// The windows the sink chart can show: every window the horizon touches.
    pub windows: Vec<WindowOption>,
    /// Where the last run's cursor stands before the student moves it, in ms since the start:
    /// the crash, or without one the first barrier and a second. None before the first run.
    pub default_cursor_ms: Option<u64>,
    /// What a figure that plays by itself (`autoplay`) loops over, in ms since the start: from
    /// two seconds before the barrier of the checkpoint the restart restores (or, with none,
    /// fifteen seconds before the crash) to five seconds after the job has caught up. None before
    /// the first run and in a run with no crash or no catch-up.
    pub play_loop_ms: Option<[u64; 2]>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WindowOption {
    pub value: u64,
    pub label: String,
}

/// Every window the scenario's horizon touches, named by its start.
pub fn windows(config: &Config) -> Vec<WindowOption> {
    let (start, end, window) = (config.start_time_ms, config.end_ms(), config.window_ms.max(1));
    (start / window..end.div_ceil(window))
        .map(|i| i * window)
        .map(|value| WindowOption { value, label: format_unit(Unit::ClockMs, value as f64) })
        .collect()
}

/// A comparison's setting A: its summary and how the charts' legends name it.
pub struct Pinned<'a> {
    pub summary: &'a Summary,
    pub label: &'a str,
}

/// The sink designs as the page names them, in the report's order.
pub const SINKS: [(&str, &str); 4] = [
    ("append-only", "append-only"),
    ("upsert", "upsert"),
    ("transactional", "transactional"),
    ("dedupe-view", "dedupe view"),
];

/// The page's charts, by name, with the heading the page gives each.
pub const CHARTS: [(&str, &str); 6] = [
    ("pipeline", "The pipeline at the cursor"),
    ("replay", "Consumer lag and replay"),
    ("latency", "What a reader sees: staleness per sink"),
    ("sink-window", "What each sink holds for one window"),
    ("tradeoff", "Choosing the interval"),
    ("checkpoints", "Checkpoint timeline"),
];

/// The charts drawn over the scenario clock: a click, a drag or a hover on one moves the cursor.
pub const TIME_CHARTS: [&str; 4] = ["replay", "latency", "checkpoints", "sink-window"];

const COMPARE_HINT: &str =
    "Pin the current settings, then change them: the charts and figures show A and B side by side.";

/// Spark's state-store providers, named where barrier mode names full and incremental snapshots:
/// both write what changed in each batch.
const STATE_STORES: [OptionView; 2] = [
    OptionView { value: "full", label: "HDFS-backed (delta files)" },
    OptionView { value: "incremental", label: "RocksDB (changelog)" },
];

/// The headline figures, in the order the page shows them, with their barrier-mode labels.
const FIGURES: [(&str, &str); 10] = [
    ("replayed_events", "replayed after this crash"),
    ("interval_replay_events", "replayed, crash just before a barrier"),
    ("worst_case_replay_events", "worst-case replay"),
    ("recovery_s", "crash to caught up"),
    ("store_write_bytes_per_min", "written to the store"),
    ("pause_overhead", "time paused"),
    ("append_only.duplicate_rows", "duplicate rows, append-only"),
    ("upsert.duplicate_rows", "duplicate rows, upsert"),
    ("transactional.duplicate_rows", "duplicate rows, transactional"),
    ("dedupe_view.duplicate_rows", "duplicate rows, dedupe view"),
];

/// The settings with a control on the page, main ones first, in the table's order.
pub fn controlled() -> impl Iterator<Item = &'static Setting> {
    let main = SETTINGS.iter().filter(|s| s.control == Control::Main);
    main.chain(SETTINGS.iter().filter(|s| s.control == Control::Advanced))
}

/// A setting's value as the readout beside its control writes it: the crash with its distance
/// from the start ("10:00:45 (+45 s)"), no backpressure as "none".
pub fn readout(setting: &Setting, value: f64, start_ms: u64) -> String {
    match setting.key {
        "crash_at_ms" => {
            let since_s = ((value - start_ms as f64) / 1_000.0).round();
            format!("{} (+{since_s} s)", format_unit(setting.unit, value))
        }
        "backpressure_ms" if value == 0.0 => "none".into(),
        _ => format_unit(setting.unit, value),
    }
}

/// Whether a control means nothing in this design: micro-batches have no barriers to align, no
/// sink transactions, no failure kinds and no restart strategy (a supervisor restarts a stopped
/// query after the time the heartbeat timeout's control sets there), and keep their offsets in
/// the offset log, never committed to Kafka on a timer (Spark's Kafka source refuses
/// enable.auto.commit); a task's failure reaches the JobManager at once, without a heartbeat; the
/// offset commit interval means something only with offsets committed on a timer.
fn disabled(key: &str, config: &Config) -> bool {
    let mode = config.mode;
    match key {
        "alignment" | "backpressure_ms" | "checkpointing_mode" | "offset_commit" => !mode.has_barriers(),
        "offset_commit_interval_ms" => !config.commits_offsets_on_timer(),
        "isolation_level" | "transaction_timeout_ms" => !mode.sink_has_transactions(),
        "failure" => !mode.reports_task_failures(),
        "restart_strategy" => !mode.has_restart_strategy(),
        "heartbeat_timeout_ms" => mode.reports_task_failures() && config.failure == Failure::Task,
        _ => false,
    }
}

/// The controls as the page shows them for `config` (which need not be valid as a whole: each
/// value is written as it stands).
pub fn controls(config: &Config) -> Vec<ControlView> {
    let batches = config.mode.runs_batches();
    let values = serde_json::to_value(config).expect("a config serialises");
    controlled()
        .map(|s| {
            let label = match (batches, s.label_micro_batch) {
                (true, Some(label)) => label,
                _ => s.label,
            };
            let (readout, options) = match s.unit {
                Unit::Choice(_) if batches && s.key == "snapshots" => (String::new(), STATE_STORES.to_vec()),
                Unit::Choice(choices) => {
                    (String::new(), choices.iter().map(|c| OptionView { value: c.value, label: c.label }).collect())
                }
                _ => {
                    let readout =
                        values[s.key].as_f64().map_or_else(|| "none".into(), |v| readout(s, v, config.start_time_ms));
                    (readout, Vec::new())
                }
            };
            ControlView {
                key: s.key,
                label,
                readout,
                disabled: disabled(s.key, config),
                options,
                steps: steps(s, config),
            }
        })
        .collect()
}

/// The sink designs as the sink select names them in this design.
fn sinks(mode: Mode) -> Vec<OptionView> {
    SINKS
        .iter()
        .map(|&(value, label)| OptionView {
            value,
            label: if value == "transactional" { transactional(mode) } else { label },
        })
        .collect()
}

/// The transactional design's name: in Spark an idempotent write keyed by the batch id.
fn transactional(mode: Mode) -> &'static str {
    mode.words().transactional_sink
}

/// A figure's value, or `None` where it has none ("never" caught up).
fn figure_value(key: &str, s: &Summary) -> Option<f64> {
    let d = &s.duplicate_rows;
    Some(match key {
        "replayed_events" => s.replayed_events as f64,
        "interval_replay_events" => s.interval_replay_events as f64,
        "worst_case_replay_events" => s.worst_case_replay_events as f64,
        "recovery_s" => return s.recovery_s,
        "store_write_bytes_per_min" => s.store_write_bytes_per_min as f64,
        "pause_overhead" => s.pause_overhead,
        "append_only.duplicate_rows" => d.append_only as f64,
        "upsert.duplicate_rows" => d.upsert as f64,
        "transactional.duplicate_rows" => d.transactional as f64,
        "dedupe_view.duplicate_rows" => d.dedupe_view as f64,
        _ => unreachable!("FIGURES names {key:?}"),
    })
}

/// A figure's value written for people ("55.2 s", "4 GB/min", "0.33%"); durations as every
/// output writes them (`units::format_duration_ms`: three significant digits).
fn write_figure(key: &str, value: f64) -> String {
    match key {
        "recovery_s" => format_unit(Unit::DurationMs, (value * 1_000.0).round()),
        "store_write_bytes_per_min" => format!("{}/min", format_unit(Unit::Bytes, value)),
        "pause_overhead" => format!("{:.2}%", value * 100.0),
        _ => format_unit(Unit::Count, value.round()),
    }
}

fn figure_label(key: &'static str, label: &'static str, mode: Mode) -> String {
    match key {
        // What a crash at the worst moment of the cycle replays: just before a barrier, or just
        // before a batch commits.
        "interval_replay_events" if !mode.has_barriers() => "replayed, crash just before a commit".into(),
        "transactional.duplicate_rows" => format!("duplicate rows, {}", transactional(mode)),
        _ => label.into(),
    }
}

/// "A 30,000 · B−A +10,000": setting A's value and how far B is from it.
fn comparison(key: &str, a: Option<f64>, b: Option<f64>) -> String {
    let shown_a = a.map_or_else(|| "never".into(), |v| write_figure(key, v));
    let diff = match (a, b) {
        (Some(a), Some(b)) if b > a => format!("+{}", write_figure(key, b - a)),
        (Some(a), Some(b)) if b < a => format!("−{}", write_figure(key, a - b)),
        (Some(_), Some(_)) | (None, None) => "±0".into(),
        _ => "n/a".into(),
    };
    format!("A {shown_a} · B−A {diff}")
}

/// The headline figures of `summary` (B), with A beside each while a comparison is on.
pub fn figures(summary: &Summary, mode: Mode, pinned: Option<&Summary>) -> Vec<FigureView> {
    FIGURES
        .iter()
        .map(|&(key, label)| {
            let value = figure_value(key, summary);
            FigureView {
                key,
                label: figure_label(key, label, mode),
                value: value.map_or_else(|| "never".into(), |v| write_figure(key, v)),
                compare: pinned.map(|a| comparison(key, figure_value(key, a), value)),
            }
        })
        .collect()
}

/// "A crash, second by second", written for people.
pub fn crash_table(report: &Report) -> Vec<CrashRowView> {
    report
        .crash_table
        .iter()
        .map(|row| CrashRowView {
            at: row.at.at.to_string(),
            offset: row.offset.map_or_else(String::new, |o| format_unit(Unit::Count, o as f64)),
            what: row.what.clone(),
        })
        .collect()
}

/// Everything the lab shows for the controls at `config` and its last run, if any, with setting
/// A of a comparison.
pub fn view(config: &Config, report: Option<&Report>, pinned: Option<Pinned>) -> ViewState {
    let summary = report.map(Report::summary);
    ViewState {
        controls: controls(config),
        sinks: sinks(config.mode),
        figures: summary
            .as_ref()
            .map_or_else(Vec::new, |s| figures(s, config.mode, pinned.as_ref().map(|p| p.summary))),
        warnings: summary.map_or_else(Vec::new, |s| s.warnings),
        crash_table: report.map_or_else(Vec::new, crash_table),
        timeline_title: config.mode.words().timeline_short_title,
        compare_status: pinned
            .map_or_else(|| COMPARE_HINT.into(), |p| format!("A (dashed grey): {}. B: the settings now.", p.label)),
        start_ms: config.start_time_ms,
        span_ms: config.horizon_ms,
        windows: windows(config),
        default_cursor_ms: report
            .map(|r| crate::lesson::pipeline::default_cursor_ms(&r.config) - r.config.start_time_ms),
        play_loop_ms: report.and_then(play_loop_ms),
    }
}

/// Seconds of run a self-playing figure shows before the restored barrier and after catch-up.
const LOOP_LEAD_MS: u64 = 2_000;
const LOOP_CRASH_LEAD_MS: u64 = 15_000;
const LOOP_TAIL_MS: u64 = 5_000;

/// The crash and its recovery, from the restored checkpoint's barrier to catch-up (see
/// `ViewState::play_loop_ms`).
fn play_loop_ms(report: &Report) -> Option<[u64; 2]> {
    let config = &report.config;
    let crash_ms = report.crash.as_ref()?.at.ms;
    let caught_up_ms = report.caught_up_at.as_ref()?.ms;
    let from_ms = match &report.restored_checkpoint {
        Some(c) => c.barrier_at.ms.saturating_sub(LOOP_LEAD_MS),
        None => crash_ms.saturating_sub(LOOP_CRASH_LEAD_MS),
    };
    let start_ms = config.start_time_ms;
    let to_ms = (caught_up_ms + LOOP_TAIL_MS).min(start_ms + config.horizon_ms);
    Some([from_ms.max(start_ms) - start_ms, to_ms - start_ms])
}

/// The barrier a press on the checkpoint timeline at `at_ms` (ms since the start) picks up, within
/// `tolerance_ms`: one injected on the interval's schedule from the start (k intervals in), before
/// any crash, since a restart schedules its own. Returns the barrier's time since the start.
pub fn barrier_near(report: &Report, at_ms: u64, tolerance_ms: u64) -> Option<u64> {
    let config = &report.config;
    let start_ms = config.start_time_ms;
    let crash_ms = report.crash.as_ref().map_or(u64::MAX, |c| c.at.ms);
    report
        .timeline
        .iter()
        .filter(|e| e.kind == crate::lesson::timeline::TimelineKind::Barrier && e.at.ms < crash_ms)
        .map(|e| e.at.ms - start_ms)
        .filter(|&ms| ms > 0 && ms % config.interval_ms == 0)
        .filter(|&ms| ms.abs_diff(at_ms) <= tolerance_ms)
        .min_by_key(|&ms| ms.abs_diff(at_ms))
}

/// The checkpoint interval a drag of the barrier injected at `barrier_ms` (k intervals from the
/// start, see [`barrier_near`]) to `to_ms` asks for: the interval slider's step nearest to
/// `to_ms / k`, so that barrier lands as near the pointer as the slider allows.
pub fn interval_for_barrier(config: &Config, barrier_ms: u64, to_ms: u64) -> u64 {
    let k = (barrier_ms / config.interval_ms.max(1)).max(1) as f64;
    let wanted = to_ms as f64 / k;
    let setting = crate::engine::settings::SETTINGS.iter().find(|s| s.key == BARRIER_SETTING);
    match setting.map(|s| steps(s, config)) {
        Some(StepsView::Values { values }) => values
            .iter()
            .copied()
            .min_by(|a, b| (a - wanted).abs().total_cmp(&(b - wanted).abs()))
            .map_or(config.interval_ms, |v| v as u64),
        _ => config.interval_ms,
    }
}

/// The setting a drag of a barrier on the checkpoint timeline sets (see [`interval_for_barrier`]).
pub const BARRIER_SETTING: &str = "interval_ms";

/// The setting the crash marker on the lag chart sets when the student drags it.
pub const CRASH_SETTING: &str = "crash_at_ms";

/// What the page runs while the student reads its first picture, so the browser has compiled the
/// code a drag of the interval slider runs before the student drags it: the shortest interval
/// (whose checkpoints the engine handles far more often than the default's) and two across the
/// slider's range, each as the settings it changes.
pub fn warm_up() -> Vec<Value> {
    let Some(interval) = crate::engine::settings::by_key("interval_ms") else { return Vec::new() };
    let Steps::Values(values) = interval.steps else { return Vec::new() };
    let mut picked: Vec<f64> =
        [0, values.len() / 3, 2 * values.len() / 3].iter().filter_map(|&i| values.get(i).copied()).collect();
    picked.dedup();
    picked.into_iter().map(|v| serde_json::json!({ interval.key: v })).collect()
}

/// The page's fixed lists, as `www/settings.js` exports them: the scenarios (each with the
/// settings it changes from the default), the charts with their headings, the charts over the
/// clock, the sink designs, the headline figures with their labels, and the hint the comparison
/// bar shows before anything is pinned.
pub fn catalogue() -> Vec<(&'static str, Value)> {
    let defaults_config = Config::default();
    let defaults = serde_json::to_value(&defaults_config).expect("a config serialises");
    let scenarios: Vec<(&str, Value)> = SCENARIOS
        .iter()
        .map(|s| {
            let config = serde_json::to_value(s.config()).expect("a config serialises");
            let changed: serde_json::Map<String, Value> = config
                .as_object()
                .expect("an object")
                .iter()
                .filter(|(k, v)| defaults.get(k.as_str()) != Some(v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            (s.key, serde_json::json!({ "label": s.label, "settings": changed }))
        })
        .collect();
    vec![
        // In the menu's order: a JSON object's keys would come sorted.
        ("SCENARIOS", Value::Array(scenarios.into_iter().map(|(k, v)| serde_json::json!([k, v])).collect())),
        ("CHARTS", serde_json::json!(CHARTS)),
        ("TIME_CHARTS", serde_json::json!(TIME_CHARTS)),
        ("SINKS", serde_json::json!(SINKS)),
        ("FIGURES", serde_json::json!(FIGURES)),
        ("COMPARE_HINT", serde_json::json!(COMPARE_HINT)),
        // The scenario's clock before the engine has said: where it starts and how long it runs.
        (
            "FIRST_CLOCK",
            serde_json::json!({ "start_ms": defaults_config.start_time_ms, "span_ms": defaults_config.horizon_ms }),
        ),
        // Where the cursor stands before the first run: at the default crash.
        (
            "FIRST_CURSOR",
            serde_json::json!(defaults_config.crash_at_ms.map(|ms| serde_json::json!({
                "ms": ms - defaults_config.start_time_ms,
                "max_ms": defaults_config.horizon_ms,
                "text": format_unit(Unit::ClockMs, ms as f64),
            }))),
        ),
        // The setting a drag of the crash marker on the lag chart moves.
        ("CRASH_SETTING", serde_json::json!(CRASH_SETTING)),
        // The setting a drag of a barrier on the checkpoint timeline moves.
        ("BARRIER_SETTING", serde_json::json!(BARRIER_SETTING)),
        ("WARM_UP", Value::Array(warm_up())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::settings::config::{Config, OffsetCommit};

    fn control<'a>(controls: &'a [ControlView], key: &str) -> &'a ControlView {
        controls.iter().find(|c| c.key == key).unwrap()
    }

    #[test]
    fn micro_batches_rename_and_disable_what_they_lack() {
        let barrier = controls(&Config::default());
        assert_eq!(control(&barrier, "interval_ms").label, "Checkpoint interval");
        assert!(!control(&barrier, "alignment").disabled);
        let batches = controls(&Config { mode: Mode::MicroBatch, ..Config::default() });
        assert_eq!(control(&batches, "interval_ms").label, "Trigger interval");
        for key in [
            "alignment",
            "backpressure_ms",
            "checkpointing_mode",
            "offset_commit",
            "offset_commit_interval_ms",
            "isolation_level",
            "transaction_timeout_ms",
            "failure",
            "restart_strategy",
        ] {
            assert!(control(&batches, key).disabled, "{key} means nothing between batches");
        }
        assert!(control(&barrier, "offset_commit_interval_ms").disabled, "no timer with the checkpoint's offsets");
        let on_timer = controls(&Config { offset_commit: OffsetCommit::OnTimer, ..Config::default() });
        assert!(!control(&on_timer, "offset_commit_interval_ms").disabled);
        assert_eq!(control(&batches, "snapshots").options[1].label, "RocksDB (changelog)");
        assert_eq!(sinks(Mode::MicroBatch)[2].label, "idempotent by batch id");
        let task = controls(&Config { failure: Failure::Task, ..Config::default() });
        assert!(control(&task, "heartbeat_timeout_ms").disabled, "a task's failure needs no heartbeat");
    }

    #[test]
    fn readouts_write_the_crash_from_the_start_and_no_backpressure_as_none() {
        let c = controls(&Config::default());
        assert_eq!(control(&c, "crash_at_ms").readout, "10:00:45 (+45 s)");
        assert_eq!(control(&c, "backpressure_ms").readout, "none");
        assert_eq!(control(&c, "interval_ms").readout, "30 s");
        assert_eq!(control(&c, "state_bytes").readout, "2 GB");
        assert_eq!(
            control(&c, "crash_at_ms").steps,
            StepsView::Range { from: 36_001_000.0, to: 36_599_000.0, every: 1_000.0 }
        );
        let short = controls(&Config { horizon_ms: 1_000, crash_at_ms: None, ..Config::default() });
        assert_eq!(
            control(&short, "crash_at_ms").steps,
            StepsView::Range { from: 36_000_500.0, to: 36_000_500.0, every: 1_000.0 }
        );
        let none = controls(&Config { crash_at_ms: None, ..Config::default() });
        assert_eq!(control(&none, "crash_at_ms").readout, "none");
    }

    #[test]
    fn the_default_scenario_figures_and_a_comparison() {
        let report = crate::lesson::simulate(&Config::default()).unwrap();
        let shown = figures(&report.summary(), Mode::Barrier, None);
        let value = |key: &str| shown.iter().find(|f| f.key == key).unwrap().value.clone();
        assert_eq!(value("replayed_events"), "30,000");
        assert_eq!(value("recovery_s"), "55.2 s");
        assert_eq!(value("store_write_bytes_per_min"), "4 GB/min");
        let faster = crate::lesson::simulate(&Config { interval_ms: 10_000, ..Config::default() }).unwrap();
        let compared = figures(&faster.summary(), Mode::Barrier, Some(&report.summary()));
        let replayed = compared.iter().find(|f| f.key == "interval_replay_events").unwrap();
        assert_eq!(replayed.compare.as_deref(), Some("A 60,000 · B−A −40,000"));
        let state = view(&Config::default(), Some(&report), None);
        assert!(state.crash_table.iter().any(|r| r.offset == "1,090,000"), "{:?}", state.crash_table);
        assert_eq!(state.compare_status, COMPARE_HINT);
        // The loop a self-playing figure shows: checkpoint 42's barrier (10:00:30) less two
        // seconds, to catch-up (10:01:40.2) and five seconds more.
        assert_eq!(state.play_loop_ms, Some([28_000, 105_200]));
        let no_crash = Config { crash_at_ms: None, ..Config::default() };
        let calm = crate::lesson::simulate(&no_crash).unwrap();
        assert_eq!(view(&no_crash, Some(&calm), None).play_loop_ms, None);
    }

    #[test]
    fn dragging_a_barrier_sets_the_interval_that_puts_it_there() {
        let config = Config::default();
        let report = crate::lesson::simulate(&config).unwrap();
        // Checkpoint 42's barrier at 10:00:30, the first 30-second step, is picked up near it;
        // the restart's barriers after the crash at 10:00:45 are not on the schedule.
        assert_eq!(barrier_near(&report, 31_000, 2_000), Some(30_000));
        assert_eq!(barrier_near(&report, 35_000, 2_000), None);
        assert_eq!(barrier_near(&report, 95_000, 2_000), None);
        // Dragged to 10 s: a 10-second interval; to 12 s, the nearest step (10 s).
        assert_eq!(interval_for_barrier(&config, 30_000, 10_000), 10_000);
        assert_eq!(interval_for_barrier(&config, 30_000, 12_000), 10_000);
        assert_eq!(interval_for_barrier(&config, 30_000, 58_000), 60_000);
        // Without a crash the second barrier (60 s) is draggable too: to 40 s, 20 s per interval.
        let calm_config = Config { crash_at_ms: None, ..Config::default() };
        let calm = crate::lesson::simulate(&calm_config).unwrap();
        assert_eq!(barrier_near(&calm, 59_000, 2_000), Some(60_000));
        assert_eq!(interval_for_barrier(&calm_config, 60_000, 40_000), 20_000);
    }

    #[test]
    fn the_catalogue_lists_each_scenario_by_what_it_changes() {
        let c: serde_json::Map<String, Value> = catalogue().into_iter().map(|(k, v)| (k.into(), v)).collect();
        assert_eq!(
            c["SCENARIOS"][0],
            serde_json::json!(["lesson", { "label": "The lesson's example", "settings": {} }])
        );
        assert_eq!(c["SCENARIOS"][1][1]["settings"], serde_json::json!({ "interval_ms": 1000 }));
        assert_eq!(c["CHARTS"].as_array().unwrap().len(), 6);
    }
}
