//! How a failed job comes back: how soon the JobManager notices the failure (a task's report, or
//! a lost TaskManager's heartbeat timeout) and how long the restart strategy then waits (a fixed
//! delay, or Flink's exponential backoff with jitter, reset after an hour without failures). A
//! stopped Spark query comes back by its supervisor (a cluster manager, a job scheduler): Spark
//! has neither heartbeat-timed TaskManagers nor a restart strategy.

use super::source::{mix64, sub_seed};
use crate::engine::settings::config::{Config, Failure, RestartStrategy, TASK_FAILURE_DETECTION_MS};

/// Time from a crash until the JobManager knows: the override if set, else a task's report or a
/// lost TaskManager's heartbeat timeout. The timeout counts from the last heartbeat the
/// TaskManager answered; the model puts that just before the crash, the slowest case. In
/// micro-batch mode, the time until the query's supervisor notices it stopped, whatever failed:
/// the heartbeat timeout's setting, which the page names so there.
pub fn detection_delay_ms(config: &Config) -> u64 {
    match (config.detection_ms, config.failure) {
        (Some(ms), _) => ms,
        (None, Failure::Task) if config.mode.reports_task_failures() => TASK_FAILURE_DETECTION_MS,
        (None, _) => config.heartbeat_timeout_ms,
    }
}

/// The restart strategy's wait before the restart that follows failure number `failure_number`
/// (1 for the first failure since the backoff was last reset). Exponential, as Flink computes it:
/// initial × multiplier^(n-1) capped at the maximum, plus a jitter of ± that times the jitter
/// factor drawn from the seed and `failure_number`, kept between the initial and the maximum.
/// In micro-batch mode, the supervisor's fixed wait, the restart delay.
pub fn restart_backoff_ms(config: &Config, failure_number: u32) -> u64 {
    if !config.mode.has_restart_strategy() {
        return config.restart_delay_ms;
    }
    match config.restart_strategy {
        RestartStrategy::FixedDelay => config.restart_delay_ms,
        RestartStrategy::ExponentialDelay => {
            let exponent = failure_number.saturating_sub(1).min(1_000) as i32;
            let backoff = (config.backoff_initial_ms as f64 * config.backoff_multiplier.powi(exponent))
                .min(config.backoff_max_ms as f64);
            // A uniform draw in [-1, 1) from the seed and the failure number.
            let bits = mix64(sub_seed(config.seed, "restart backoff") ^ u64::from(failure_number));
            let unit = (bits >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
            let jittered = (backoff * (1.0 + config.backoff_jitter * unit)).round();
            jittered.min(config.backoff_max_ms as f64).max(config.backoff_initial_ms as f64) as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::settings::config::Mode;

    #[test]
    fn a_stopped_query_comes_back_by_its_supervisor_whatever_flink_would_do() {
        let query = Config {
            mode: Mode::MicroBatch,
            heartbeat_timeout_ms: 20_000,
            restart_delay_ms: 3_000,
            ..Config::default()
        };
        for failure in [Failure::Task, Failure::TaskmanagerLost] {
            for restart_strategy in [RestartStrategy::FixedDelay, RestartStrategy::ExponentialDelay] {
                let config = Config { failure, restart_strategy, ..query.clone() };
                assert_eq!(detection_delay_ms(&config), 20_000, "{failure:?}");
                assert_eq!(restart_backoff_ms(&config, 1), 3_000, "{restart_strategy:?}");
                assert_eq!(restart_backoff_ms(&config, 7), 3_000, "no backoff grows");
            }
        }
        assert_eq!(detection_delay_ms(&Config { detection_ms: Some(500), ..query }), 500, "the override still wins");
    }

    #[test]
    fn exponential_backoff_grows_by_its_multiplier_up_to_its_maximum() {
        let config =
            Config { restart_strategy: RestartStrategy::ExponentialDelay, backoff_jitter: 0.0, ..Config::default() };
        let waits: Vec<u64> = (1..=13).map(|n| restart_backoff_ms(&config, n)).collect();
        assert_eq!(&waits[..4], &[1_000, 1_500, 2_250, 3_375]);
        assert!(waits.windows(2).all(|w| w[1] >= w[0]));
        assert_eq!(waits[12], 60_000, "capped at the maximum");
    }

    #[test]
    fn jitter_stays_within_its_share_and_is_the_same_every_run() {
        let config = Config { restart_strategy: RestartStrategy::ExponentialDelay, ..Config::default() };
        for n in 1..50 {
            let wait = restart_backoff_ms(&config, n) as f64;
            let plain = (1_000.0 * 1.5f64.powi(n as i32 - 1)).min(60_000.0);
            assert!((wait - plain).abs() <= plain * 0.1 + 1.0, "failure {n}: {wait} against {plain}");
            assert!((1_000.0..=60_000.0).contains(&wait), "kept between the initial and the maximum: {wait}");
            assert_eq!(restart_backoff_ms(&config, n), restart_backoff_ms(&config, n));
        }
    }

    #[test]
    fn a_task_failure_is_noticed_at_once_and_a_lost_taskmanager_at_its_heartbeat_timeout() {
        let task = Config { failure: Failure::Task, ..Config::default() };
        assert!(detection_delay_ms(&task) < 1_000);
        let lost = Config { failure: Failure::TaskmanagerLost, heartbeat_timeout_ms: 50_000, ..Config::default() };
        assert_eq!(detection_delay_ms(&lost), 50_000);
        let overridden = Config { detection_ms: Some(3_000), ..lost };
        assert_eq!(detection_delay_ms(&overridden), 3_000);
    }
}
