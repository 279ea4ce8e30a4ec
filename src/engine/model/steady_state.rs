//! Closed-form steady state of the checkpoint cycle: what one interval costs and what a crash
//! replays, without simulating events. The interval trade-off chart sweeps it; tests check it
//! against full simulations.

use serde::Serialize;

use super::checkpoint::{in_flight_limit_records, transfer_ms};
use super::restart::{detection_delay_ms, restart_backoff_ms};
use super::source::busiest_share;
use crate::engine::settings::config::{Alignment, CheckpointingMode, Config, Snapshots, FLINK_CHECKPOINT_TIMEOUT_MS};

/// The steady state of one checkpoint interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
pub struct SteadyState {
    pub interval_ms: u64,
    /// Time between triggers: the interval, or longer when a checkpoint outlasts it.
    pub effective_interval_ms: u64,
    /// True when the store cannot absorb a checkpoint per interval and stretches it.
    pub store_limited: bool,
    pub size_bytes: u64,
    pub alignment_ms: u64,
    pub upload_ms: u64,
    /// Barrier to completion: alignment, sync pause and upload.
    pub duration_ms: u64,
    pub store_write_bytes_per_min: u64,
    /// Share of time processing is paused for sync or stalled aligning.
    pub pause_overhead: f64,
    /// Events replayed by a crash just before the next barrier: rate x effective interval.
    pub interval_replay_events: u64,
    /// Events replayed by a crash just before the next checkpoint completes.
    pub worst_case_replay_events: u64,
    /// Crash to caught up for the worst-case crash; `None` when the job can never catch up.
    pub worst_case_recovery_ms: Option<u64>,
}

/// How long each of `config`'s checkpoints takes when that is longer than Flink's default
/// checkpoint timeout, which would expire every one and fail the job; `None` when it is not, or
/// in micro-batch mode.
pub fn checkpoint_outlasts_timeout_ms(config: &Config) -> Option<u64> {
    let duration_ms = steady_state(config, config.interval_ms).duration_ms;
    (config.mode.has_checkpoint_timeout() && duration_ms > FLINK_CHECKPOINT_TIMEOUT_MS).then_some(duration_ms)
}

/// The steady state of `config` with its checkpoint interval set to `interval_ms`.
pub fn steady_state(config: &Config, interval_ms: u64) -> SteadyState {
    if config.mode.runs_batches() {
        return micro_batch_steady_state(config, interval_ms);
    }
    let rate = config.rate_per_s as f64;
    let write_bw = config.store_write_bytes_per_s as f64;
    // Only an exactly-once operator with more than one input holds inputs while it waits for
    // the backpressured channel's barrier (at least once tracks barriers without holding).
    let holds_inputs = config.alignment == Alignment::Aligned
        && config.checkpointing_mode == CheckpointingMode::ExactlyOnce
        && config.partitions > 1;
    let alignment_ms = if holds_inputs { config.backpressure_ms } else { 0 };
    // Whether held or not, the snapshot waits for the last barrier, unless it overtakes.
    let barrier_wait_ms = match config.alignment {
        Alignment::Aligned => config.backpressure_ms,
        Alignment::Unaligned => 0,
    };
    let in_flight_bytes = match config.alignment {
        Alignment::Aligned => 0,
        Alignment::Unaligned => {
            // The slow channel is partition 0's, the busiest.
            let slow_channel = rate * busiest_share(config);
            let events = (slow_channel * config.backpressure_ms as f64 / 1000.0).floor() as u64;
            events.min(in_flight_limit_records(config)) * config.record_bytes
        }
    };
    let fixed_ms = (barrier_wait_ms + config.sync_pause_ms) as f64;
    let state = config.state_bytes as f64;
    let (effective_ms, size) = match config.snapshots {
        Snapshots::Full => {
            let size = config.state_bytes + in_flight_bytes;
            let duration = fixed_ms + size as f64 * 1000.0 / write_bw;
            (duration.max(interval_ms as f64), size)
        }
        Snapshots::Incremental => {
            // Each checkpoint uploads the share of the state written during one effective interval.
            let window_ms = config.window_ms as f64;
            let delta = |i: f64| (state * i / window_ms).min(state);
            let duration = |i: f64| fixed_ms + (delta(i) + in_flight_bytes as f64) * 1000.0 / write_bw;
            let mut i = interval_ms as f64;
            if duration(i) > i {
                // Solve i = fixed + (state * i / window + in_flight) / bandwidth for i.
                let slope = state * 1000.0 / (window_ms * write_bw);
                let fixed = fixed_ms + in_flight_bytes as f64 * 1000.0 / write_bw;
                i = if slope < 1.0 { fixed / (1.0 - slope) } else { f64::INFINITY };
                if i >= window_ms {
                    // The whole state changes within one interval: each upload is a full one.
                    i = duration(window_ms);
                }
            }
            (i, delta(i) as u64 + in_flight_bytes)
        }
    };
    let effective_interval_ms = effective_ms.round() as u64;
    let upload_ms = transfer_ms(size, config.store_write_bytes_per_s);
    let duration_ms = barrier_wait_ms + config.sync_pause_ms + upload_ms;
    let interval_replay_events = (rate * effective_ms / 1000.0).round() as u64;
    // A crash just before the next completion replays what the readers consumed since the previous
    // barrier. The sync pause leaves them behind the log end; they catch up at capacity - rate.
    let pause_lag = rate * config.sync_pause_ms as f64 / 1000.0;
    let headroom = config.capacity_per_s.saturating_sub(config.rate_per_s) as f64;
    let lag_at_completion = (pause_lag - headroom * upload_ms as f64 / 1000.0).max(0.0);
    let worst_case_replay_events =
        (rate * (effective_ms + duration_ms as f64) / 1000.0 - lag_at_completion).round() as u64;
    let outage_ms = detection_delay_ms(config, 1)
        + restart_backoff_ms(config, 1)
        + transfer_ms(config.state_bytes + in_flight_bytes, config.store_read_bytes_per_s);
    let worst_case_recovery_ms = (config.capacity_per_s > config.rate_per_s).then(|| {
        let backlog = worst_case_replay_events as f64 + rate * outage_ms as f64 / 1000.0;
        let catch_up_ms = backlog * 1000.0 / (config.capacity_per_s - config.rate_per_s) as f64;
        outage_ms + catch_up_ms.round() as u64
    });
    SteadyState {
        interval_ms,
        effective_interval_ms,
        store_limited: effective_interval_ms > interval_ms,
        size_bytes: size,
        alignment_ms,
        upload_ms,
        duration_ms,
        store_write_bytes_per_min: (size as f64 * 60_000.0 / effective_ms).round() as u64,
        pause_overhead: (alignment_ms + config.sync_pause_ms) as f64 / effective_ms,
        interval_replay_events,
        worst_case_replay_events,
        worst_case_recovery_ms,
    }
}

/// Micro-batch mode: a batch reads what arrived during one cycle, processes it at capacity and
/// writes its state store version before the next batch may start. The cycle is the trigger
/// interval, or the batch's own duration when that is longer (batches then run back to back).
/// A crash just before a commit re-runs the whole batch: rate x cycle events.
fn micro_batch_steady_state(config: &Config, interval_ms: u64) -> SteadyState {
    let rate = config.rate_per_s as f64;
    let capacity = config.capacity_per_s as f64;
    let write_bw = config.store_write_bytes_per_s as f64;
    let state = config.state_bytes as f64;
    let window_ms = config.window_ms as f64;
    let sync = config.sync_pause_ms as f64;
    // Spark's state stores write what changed in a batch, whatever the snapshots setting says.
    let upload_bytes = |cycle: f64| (state * cycle / window_ms).min(state);
    let duration = |cycle: f64| sync + rate * cycle / capacity + upload_bytes(cycle) * 1000.0 / write_bw;
    let mut cycle = interval_ms as f64;
    if duration(cycle) > cycle {
        // Back to back: solve cycle = fixed + cycle x slope, where processing adds rate / capacity
        // per ms of cycle and the state store version adds the state written in that time.
        let solve = |fixed: f64, slope: f64| if slope < 1.0 { fixed / (1.0 - slope) } else { f64::INFINITY };
        let full_upload_ms = state * 1000.0 / write_bw;
        cycle = solve(sync, rate / capacity + full_upload_ms / window_ms);
        if cycle >= window_ms {
            // The whole state changes within one cycle: each upload is a full one.
            cycle = solve(sync + full_upload_ms, rate / capacity);
        }
    }
    // Batches that never keep up have no steady cycle: one as long as the scenario stands for it.
    let cycle = cycle.min(config.horizon_ms as f64);
    let size = upload_bytes(cycle) as u64;
    let upload_ms = transfer_ms(size, config.store_write_bytes_per_s);
    let duration_ms = duration(cycle).round() as u64;
    let batch_events = (rate * cycle / 1000.0).round() as u64;
    let outage_ms = detection_delay_ms(config, 1)
        + restart_backoff_ms(config, 1)
        + transfer_ms(config.state_bytes, config.store_read_bytes_per_s);
    let worst_case_recovery_ms = (config.capacity_per_s > config.rate_per_s && cycle.is_finite()).then(|| {
        let backlog = batch_events as f64 + rate * outage_ms as f64 / 1000.0;
        let catch_up_ms = backlog * 1000.0 / (capacity - rate);
        outage_ms + catch_up_ms.round() as u64 + upload_ms + config.sync_pause_ms
    });
    SteadyState {
        interval_ms,
        effective_interval_ms: cycle.round() as u64,
        store_limited: cycle.round() as u64 > interval_ms,
        size_bytes: size,
        alignment_ms: 0,
        upload_ms,
        duration_ms,
        store_write_bytes_per_min: (size as f64 * 60_000.0 / cycle).round() as u64,
        pause_overhead: (sync + upload_ms as f64) / cycle,
        interval_replay_events: batch_events,
        worst_case_replay_events: batch_events,
        worst_case_recovery_ms,
    }
}

/// The shortest interval whose full snapshots the store can absorb: upload time per checkpoint.
/// In micro-batch mode: the shortest trigger interval at which batches do not run back to back.
pub fn store_bound_interval_ms(config: &Config) -> u64 {
    if config.mode.runs_batches() {
        return micro_batch_steady_state(config, 1).effective_interval_ms;
    }
    let size = match config.snapshots {
        Snapshots::Full => config.state_bytes,
        Snapshots::Incremental => 0,
    };
    config.sync_pause_ms + transfer_ms(size, config.store_write_bytes_per_s)
}

/// The interval trade-off: the steady state swept over intervals, and the two bounds the lesson's
/// rule sets. Every run's report carries it, so the trade-off chart reads it rather than
/// deriving the model again.
#[derive(Clone, Debug, PartialEq)]
pub struct Tradeoff {
    /// The steady state at [`SWEEP_POINTS`] log-spaced intervals from [`SWEEP_FROM_MS`] to [`SWEEP_TO_MS`].
    pub sweep: Vec<SteadyState>,
    /// See [`store_bound_interval_ms`].
    pub store_bound_interval_ms: u64,
    /// See [`rule_interval_ms`].
    pub rule_interval_ms: u64,
}

pub const SWEEP_FROM_MS: u64 = 1_000;
pub const SWEEP_TO_MS: u64 = 600_000;
pub const SWEEP_POINTS: usize = 49;

/// The closed-form steady state at log-spaced intervals from 1 s to 10 min.
pub fn sweep(config: &Config) -> Vec<SteadyState> {
    let (from_s, to_s) = (SWEEP_FROM_MS as f64 / 1000.0, SWEEP_TO_MS as f64 / 1000.0);
    (0..SWEEP_POINTS)
        .map(|i| {
            let s = from_s * (to_s / from_s).powf(i as f64 / (SWEEP_POINTS - 1) as f64);
            steady_state(config, (s * 1000.0).round() as u64)
        })
        .collect()
}

/// The interval the rule suggests: a tenth of the latency SLA, but never below what the store absorbs.
pub fn rule_interval_ms(config: &Config) -> u64 {
    (config.latency_sla_ms / 10).max(store_bound_interval_ms(config))
}

/// The trade-off of `config`'s settings across intervals.
pub fn tradeoff(config: &Config) -> Tradeoff {
    Tradeoff {
        sweep: sweep(config),
        store_bound_interval_ms: store_bound_interval_ms(config),
        rule_interval_ms: rule_interval_ms(config),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::settings::config::Mode;

    #[test]
    fn the_lesson_cycle() {
        let s = steady_state(&Config::default(), 30_000);
        assert_eq!(s.duration_ms, 2_100);
        assert_eq!(s.store_write_bytes_per_min, 4_000_000_000);
        assert_eq!(s.interval_replay_events, 60_000);
        assert_eq!(s.worst_case_replay_events, 64_200);
        let five = steady_state(&Config::default(), 5_000);
        assert_eq!(five.interval_replay_events, 10_000);
        assert!(!five.store_limited);
        assert!((five.pause_overhead / s.pause_overhead - 6.0).abs() < 1e-9);
    }

    #[test]
    fn batches_that_never_keep_up_give_figures_a_browser_can_read() {
        let config = Config {
            mode: Mode::MicroBatch,
            interval_ms: 120_000,
            rate_per_s: 1_000_000,
            capacity_per_s: 4_000,
            ..Config::default()
        };
        let s = steady_state(&config, config.interval_ms);
        assert!(s.store_limited);
        let exact = 1u64 << 53;
        for figure in [s.effective_interval_ms, s.interval_replay_events, s.worst_case_replay_events, s.duration_ms] {
            assert!(figure < exact, "{figure} is beyond 2^53: {s:?}");
        }
    }

    #[test]
    fn a_slow_store_stretches_the_interval() {
        let config = Config { store_write_bytes_per_s: 50_000_000, ..Config::default() };
        let s = steady_state(&config, 5_000);
        assert!(s.store_limited);
        assert_eq!(s.effective_interval_ms, 40_100);
    }
}
