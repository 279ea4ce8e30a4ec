//! The named scenarios a lesson page offers: the lesson's worked example and the settings that
//! show one lesson each (a tiny interval, a slow store, backpressure). The page reads this list
//! from `SCENARIOS` in the generated www/settings.js (see `lesson::view::catalogue`).

use crate::engine::settings::config::{Alignment, Config};

/// A named starting point: the default scenario with a few settings changed.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    /// The `scenario` attribute's value.
    pub key: &'static str,
    /// What the scenario menu shows.
    pub label: &'static str,
    change: fn(Config) -> Config,
}

impl Scenario {
    /// The scenario's settings.
    pub fn config(&self) -> Config {
        (self.change)(Config::default())
    }
}

pub const SCENARIOS: [Scenario; 4] = [
    Scenario { key: "lesson", label: "The lesson's example", change: |c| c },
    Scenario { key: "tiny-interval", label: "A tiny interval (1 s)", change: |c| Config { interval_ms: 1_000, ..c } },
    Scenario {
        key: "slow-store",
        label: "A slow store (50 MB/s)",
        change: |c| Config { interval_ms: 5_000, store_write_bytes_per_s: 50_000_000, ..c },
    },
    Scenario {
        key: "backpressure",
        label: "Backpressure (3 s, aligned)",
        change: |c| Config { backpressure_ms: 3_000, alignment: Alignment::Aligned, ..c },
    },
];

/// The scenario named `key`.
pub fn scenario(key: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_is_valid() {
        for s in &SCENARIOS {
            s.config().validate().unwrap_or_else(|e| panic!("{}: {e}", s.key));
        }
        assert_eq!(scenario("lesson").map(Scenario::config), Some(Config::default()));
        let slow = crate::lesson::simulate(&scenario("slow-store").unwrap().config()).unwrap();
        assert!(slow.store_limited, "a slow store stretches the interval");
    }
}
