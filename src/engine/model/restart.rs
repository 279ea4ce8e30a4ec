//! How a failed job comes back, or does not: how soon the JobManager notices the failure (a
//! task's report, or a lost TaskManager's heartbeat timeout), whether the restart strategy allows
//! another restart over the failures so far (fixed delay with its attempts, exponential delay,
//! failure rate, none) and how long it then waits (a fixed delay, or Flink's exponential backoff
//! with jitter, reset after a threshold without failures). A stopped Spark query comes back by its
//! supervisor (a cluster manager, a job scheduler): Spark has neither heartbeat-timed TaskManagers
//! nor a restart strategy.

use std::collections::VecDeque;

use super::source::{mix64, sub_seed};
use crate::engine::settings::config::{Config, Failure, HeartbeatLoss, RestartStrategy, TASK_FAILURE_DETECTION_MS};

/// Time from a crash until the JobManager knows: the override if set, else a task's report or a
/// lost TaskManager's heartbeat timeout. The timeout counts from the last heartbeat the
/// TaskManager answered. With `heartbeat_loss: slowest` (the default) the model puts that just
/// before the crash, so the loss is noticed a whole timeout later; with `drawn`, that answer lies
/// anywhere in the heartbeat interval before the crash, drawn from the seed and `crash_number`
/// (1 for the run's first crash), so the loss is noticed between the timeout minus the interval
/// and the timeout. In micro-batch mode, the time until the query's supervisor notices it
/// stopped, whatever failed: the heartbeat timeout's setting, which the page names so there.
pub fn detection_delay_ms(config: &Config, crash_number: u32) -> u64 {
    match (config.detection_ms, config.failure) {
        (Some(ms), _) => ms,
        (None, Failure::Task) if config.mode.reports_task_failures() => TASK_FAILURE_DETECTION_MS,
        (None, Failure::TaskmanagerLost)
            if config.mode.reports_task_failures() && config.heartbeat_loss == HeartbeatLoss::Drawn =>
        {
            // Time since the last answered heartbeat, uniform in [0, interval].
            let bits = mix64(sub_seed(config.seed, "heartbeat loss") ^ u64::from(crash_number));
            let since_ms = bits % (config.heartbeat_interval_ms + 1);
            config.heartbeat_timeout_ms - since_ms
        }
        (None, _) => config.heartbeat_timeout_ms,
    }
}

/// What the restart strategy decides for one failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Restart after `backoff_ms`; `failure_number` is which failure this is as the strategy
    /// counts (since the backoff was last reset for exponential delay; since the start for fixed
    /// delay; within the interval for failure rate).
    Restart { failure_number: u32, backoff_ms: u64 },
    /// No restart: the job is FAILED.
    GiveUp { failure_number: u32 },
}

/// The restart strategy's memory of earlier failures, as Flink's RestartBackoffTimeStrategy
/// implementations keep it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Restarts {
    /// Fixed delay: failures since the start. Exponential delay: since the backoff was last reset.
    failures: u32,
    /// Failure rate: when each earlier failure was noticed.
    noticed_ms: VecDeque<u64>,
    /// Exponential delay: when the last restart began.
    last_restart_ms: Option<u64>,
}

impl Restarts {
    /// A failure noticed at `detected_at_ms`: restart after a backoff, or give up. Each call is
    /// one failure; a crash folded into a restart already waiting is not one.
    pub fn on_failure(&mut self, config: &Config, detected_at_ms: u64) -> Decision {
        if !config.mode.has_restart_strategy() {
            self.failures = self.failures.saturating_add(1);
            return Decision::Restart { failure_number: self.failures, backoff_ms: config.restart_delay_ms };
        }
        match config.restart_strategy {
            RestartStrategy::None => Decision::GiveUp { failure_number: 1 },
            RestartStrategy::FixedDelay => {
                self.failures = self.failures.saturating_add(1);
                if u64::from(self.failures) > config.restart_attempts {
                    Decision::GiveUp { failure_number: self.failures }
                } else {
                    Decision::Restart { failure_number: self.failures, backoff_ms: config.restart_delay_ms }
                }
            }
            RestartStrategy::FailureRate => {
                let since = detected_at_ms.saturating_sub(config.failure_rate_interval_ms);
                while self.noticed_ms.front().is_some_and(|&t| t <= since) {
                    self.noticed_ms.pop_front();
                }
                self.noticed_ms.push_back(detected_at_ms);
                let failure_number = u32::try_from(self.noticed_ms.len()).unwrap_or(u32::MAX);
                if self.noticed_ms.len() as u64 > config.failure_rate_max {
                    Decision::GiveUp { failure_number }
                } else {
                    Decision::Restart { failure_number, backoff_ms: config.restart_delay_ms }
                }
            }
            RestartStrategy::ExponentialDelay => {
                if self
                    .last_restart_ms
                    .is_some_and(|at_ms| detected_at_ms.saturating_sub(at_ms) >= config.backoff_reset_ms)
                {
                    self.failures = 0;
                }
                self.failures = self.failures.saturating_add(1);
                let backoff_ms = restart_backoff_ms(config, self.failures);
                self.last_restart_ms = Some(detected_at_ms + backoff_ms);
                Decision::Restart { failure_number: self.failures, backoff_ms }
            }
        }
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
        RestartStrategy::FixedDelay | RestartStrategy::FailureRate | RestartStrategy::None => config.restart_delay_ms,
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
                assert_eq!(detection_delay_ms(&config, 1), 20_000, "{failure:?}");
                assert_eq!(restart_backoff_ms(&config, 1), 3_000, "{restart_strategy:?}");
                assert_eq!(restart_backoff_ms(&config, 7), 3_000, "no backoff grows");
            }
        }
        assert_eq!(detection_delay_ms(&Config { detection_ms: Some(500), ..query }, 1), 500, "the override still wins");
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
        assert!(detection_delay_ms(&task, 1) < 1_000);
        let lost = Config { failure: Failure::TaskmanagerLost, heartbeat_timeout_ms: 50_000, ..Config::default() };
        assert_eq!(detection_delay_ms(&lost, 1), 50_000);
        let overridden = Config { detection_ms: Some(3_000), ..lost };
        assert_eq!(detection_delay_ms(&overridden, 1), 3_000);
    }
}
