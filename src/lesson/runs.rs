//! Runs in the making and runs made ahead. A [`Making`] is one run on its way to its report, a
//! bounded step at a time (simulated, then its figures a pass over a table at a time, then the
//! lesson's report of them), so a page can spread it over frames. [`RunsAhead`] holds the next
//! step of the slider the student last moved (or is about to move), made while they read the
//! change, and the run they left, kept for the way back: the step after arrives made.
//!
//! A run made ahead is the run the same settings make on demand (one config, one report: the
//! engine is deterministic, and a run that reuses an earlier one is held to the run that does
//! not by tests/fast_path.rs); only when it is made differs. The tests below hold a run taken
//! from here to the report `lesson::simulate` gives for its settings.

use crate::engine::fast::data_plane::DataPlanes;
use crate::engine::fast::figures::FiguresBuilder;
use crate::engine::settings::{FieldValue, Setting, SETTINGS};
use crate::engine::{Config, Figures, Outcome, Runner};
use crate::lesson::view::{steps, StepsView};
use crate::lesson::{report, Report};

/// A run on its way to its report. A lab holds at most three (its own and two ahead), each moved
/// once per step: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Making {
    /// Simulated a slice of virtual time at a time.
    Running(Runner),
    /// Simulated: its figures, a pass over a table at a time.
    Passes(Outcome, Box<FiguresBuilder>),
    /// Its figures: the lesson's report of them is the next step.
    Figures(Outcome, Box<Figures>),
    /// Made: the run and its report.
    Made(Outcome, Report),
}

impl Making {
    /// Starts `config` from the lab's current run `previous` (reusing what it can).
    pub fn start(
        config: &Config,
        previous: Option<&Outcome>,
        planes: &DataPlanes,
    ) -> Result<Making, crate::engine::ConfigError> {
        Ok(Making::Running(Runner::sharing(config, previous, planes)?))
    }

    /// Makes one bounded step: `step_ms` of virtual time, one pass of the figures, or the report.
    /// A made run stays made.
    pub fn step(self, step_ms: u64) -> Making {
        match self {
            Making::Running(mut runner) => {
                if runner.advance(step_ms) {
                    Making::Passes(runner.finish(), Box::default())
                } else {
                    Making::Running(runner)
                }
            }
            Making::Passes(outcome, builder) if builder.passes_made() => {
                let figures = builder.finish(&outcome);
                Making::Figures(outcome, Box::new(figures))
            }
            Making::Passes(outcome, mut builder) => {
                builder.step(&outcome);
                Making::Passes(outcome, builder)
            }
            Making::Figures(outcome, figures) => Making::Made(outcome, report(*figures)),
            made @ Making::Made(..) => made,
        }
    }

    pub fn is_made(&self) -> bool {
        matches!(self, Making::Made(..))
    }
}

/// Virtual time a step of a run simulates: about `events_per_step` events at the run's rate,
/// from 1 ms to `max_step_ms`.
pub fn step_ms(config: &Config, events_per_step: u64, max_step_ms: u64) -> u64 {
    let events_per_ms = (config.rate_per_s.max(config.capacity_per_s) / 1_000).max(1);
    (events_per_step / events_per_ms).clamp(1, max_step_ms)
}

/// A run made ahead, or planned: the settings and how far it is made.
struct Ahead {
    config: Config,
    /// `None` until its turn comes: started from the lab's run current then.
    making: Option<Making>,
}

/// The runs a lab makes ahead: the next step each way of the slider setting its last change
/// moved, the way it moved first. At most two.
#[derive(Default)]
pub struct RunsAhead {
    runs: Vec<Ahead>,
}

impl RunsAhead {
    /// After the lab's current run changed to `now`'s settings from `left`'s (the run it
    /// replaced, with its report): plans the next step each way of the one slider setting that
    /// changed, the way it moved first. A run already made or planned for one of them stays; the
    /// run left is kept where it is one of them (the way back). Plans none, dropping what was
    /// made, after a change of anything but one slider.
    pub fn plan(&mut self, left: Option<(Outcome, Report)>, now: &Config) {
        let next = left.as_ref().map_or_else(Vec::new, |(_, r)| next_steps(&r.config, now));
        self.replan(next, left);
    }

    /// Before a move of `setting`'s slider from `now`'s settings: plans its next step each way,
    /// up first, keeping a run already made or planned for either. Returns whether it planned any.
    pub fn plan_setting(&mut self, setting: &Setting, now: &Config) -> bool {
        let next = Ladder::of(setting, now).map_or_else(Vec::new, |ladder| setting_steps(setting, now, &ladder, 1));
        self.replan(next, None);
        !self.runs.is_empty()
    }

    /// Plans the runs of `next`, in order: each keeps the run already made or planned for it, or
    /// is `left` where that is its run; the runs no longer wanted are dropped.
    fn replan(&mut self, next: Vec<Config>, mut left: Option<(Outcome, Report)>) {
        let mut before = std::mem::take(&mut self.runs);
        for config in next {
            let making = if let Some(i) = before.iter().position(|a| a.config == config) {
                before.swap_remove(i).making
            } else if left.as_ref().is_some_and(|(_, r)| r.config == config) {
                left.take().map(|(outcome, report)| Making::Made(outcome, report))
            } else {
                None
            };
            self.runs.push(Ahead { config, making });
        }
    }

    /// Drops every run made or planned.
    pub fn clear(&mut self) {
        self.runs.clear();
    }

    /// The run made (or being made) ahead for `config`, taken out; `None` where there is none
    /// or it is not started.
    pub fn take(&mut self, config: &Config) -> Option<Making> {
        let i = self.runs.iter().position(|a| &a.config == config)?;
        self.runs.remove(i).making
    }

    /// How many runs are planned, and how many of them are made.
    pub fn counts(&self) -> (usize, usize) {
        let made = self.runs.iter().filter(|a| a.making.as_ref().is_some_and(Making::is_made)).count();
        (self.runs.len(), made)
    }

    /// Makes the planned runs, a bounded step at a time, until `out_of_time()` says so after a
    /// step; each starts from `current` (the lab's run). Returns true once every one is made
    /// (a run its settings refuse is dropped).
    pub fn make(
        &mut self,
        current: Option<&Outcome>,
        planes: &DataPlanes,
        step_ms: impl Fn(&Config) -> u64,
        mut out_of_time: impl FnMut() -> bool,
    ) -> bool {
        loop {
            let Some(i) = self.runs.iter().position(|a| !a.making.as_ref().is_some_and(Making::is_made)) else {
                return true;
            };
            let ahead = &mut self.runs[i];
            ahead.making = match ahead.making.take() {
                None => Making::start(&ahead.config, current, planes).ok(),
                Some(making) => Some(making.step(step_ms(&ahead.config))),
            };
            if ahead.making.is_none() {
                self.runs.remove(i);
            }
            if out_of_time() {
                return self.runs.iter().all(|a| a.making.as_ref().is_some_and(Making::is_made));
            }
        }
    }
}

/// The settings of the next step each way, from `now`, of the one slider setting that differs
/// between `before` and `now`: the way it moved first, as many steps as it moved (a drag that
/// moves k steps a frame is likely to move k more; the step back is where it came from). None
/// where another number of settings differ, the setting has no steps, or a step's settings are
/// refused.
pub fn next_steps(before: &Config, now: &Config) -> Vec<Config> {
    let mut changed = SETTINGS.iter().filter(|s| before.get(s.key) != now.get(s.key));
    let (Some(setting), None) = (changed.next(), changed.next()) else { return Vec::new() };
    let (Some(was), Some(is)) =
        (before.get(setting.key).and_then(|v| v.as_f64()), now.get(setting.key).and_then(|v| v.as_f64()))
    else {
        return Vec::new();
    };
    let Some(ladder) = Ladder::of(setting, now) else { return Vec::new() };
    let moved = ladder.index_of(is) as i64 - ladder.index_of(was) as i64;
    let stride = if moved == 0 {
        if is >= was {
            1
        } else {
            -1
        }
    } else {
        moved
    };
    setting_steps(setting, now, &ladder, stride)
}

/// The settings of `setting`'s steps `stride` steps on from `now` (up to the slider's end) and
/// as many back, onward first.
fn setting_steps(setting: &Setting, now: &Config, ladder: &Ladder, stride: i64) -> Vec<Config> {
    let Some(is) = now.get(setting.key).and_then(|v| v.as_f64()) else { return Vec::new() };
    let at = ladder.index_of(is) as i64;
    let last = ladder.last as i64;
    [at + stride, at - stride]
        .into_iter()
        .map(|i| i.clamp(0, last))
        .filter(|&i| i != at)
        .filter_map(|i| with_value(now, setting, ladder.value_at(i as u64)))
        .collect()
}

/// A slider's steps, by index, as the page's slider moves from where its thumb sits.
struct Ladder {
    steps: Rungs,
    /// The last step's index.
    last: u64,
}

enum Rungs {
    Values(&'static [f64]),
    Range { from: f64, every: f64 },
}

impl Ladder {
    /// `setting`'s steps for `config`; `None` for a setting without a slider.
    fn of(setting: &Setting, config: &Config) -> Option<Ladder> {
        match steps(setting, config) {
            StepsView::None => None,
            StepsView::Values { values: [] } => None,
            StepsView::Values { values } => {
                Some(Ladder { steps: Rungs::Values(values), last: values.len() as u64 - 1 })
            }
            StepsView::Range { from, to, every } => Some(Ladder {
                steps: Rungs::Range { from, every },
                last: ((to - from) / every).floor().max(0.0) as u64,
            }),
        }
    }

    fn value_at(&self, i: u64) -> f64 {
        match self.steps {
            Rungs::Values(values) => values[i as usize],
            Rungs::Range { from, every } => from + i as f64 * every,
        }
    }

    /// The index of the step nearest `value` (the first of two as near).
    fn index_of(&self, value: f64) -> u64 {
        match self.steps {
            Rungs::Values(values) => (0..values.len()).fold(0, |best, i| {
                if (values[i] - value).abs() < (values[best] - value).abs() {
                    i
                } else {
                    best
                }
            }) as u64,
            Rungs::Range { from, every } => ((value - from) / every).round().clamp(0.0, self.last as f64) as u64,
        }
    }
}

/// `config` with `setting` at `value`, where the settings allow it.
fn with_value(config: &Config, setting: &Setting, value: f64) -> Option<Config> {
    let checked = setting.check(&FieldValue::Number(value)).ok()?;
    let mut next = config.clone();
    (next.set(setting.key, &checked) && next.validate().is_ok()).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::simulate;

    fn interval(ms: u64) -> Config {
        Config { interval_ms: ms, ..Config::default() }
    }

    /// The lab's way: a run made from the current one, and its report.
    fn made(config: &Config, previous: Option<&Outcome>, planes: &DataPlanes) -> (Outcome, Report) {
        let mut making = Making::start(config, previous, planes).unwrap();
        loop {
            making = match making.step(1_000) {
                Making::Made(outcome, report) => return (outcome, report),
                other => other,
            };
        }
    }

    #[test]
    fn the_next_steps_follow_the_setting_that_moved_the_way_it_moved() {
        let values: Vec<u64> = next_steps(&interval(30_000), &interval(40_000)).iter().map(|c| c.interval_ms).collect();
        let [up, down] = values[..] else { panic!("two steps: {values:?}") };
        assert!(up > 40_000 && down < 40_000, "{values:?}");
        let back: Vec<u64> = next_steps(&interval(40_000), &interval(30_000)).iter().map(|c| c.interval_ms).collect();
        assert!(back[0] < 30_000 && back[1] > 30_000, "down first: {back:?}");
        // The crash slider steps a second at a time.
        let crash = |ms| Config { crash_at_ms: Some(ms), ..Config::default() };
        let at = Config::default().crash_at_ms.unwrap();
        let next: Vec<Option<u64>> = next_steps(&crash(at - 1_000), &crash(at)).iter().map(|c| c.crash_at_ms).collect();
        assert_eq!(next, [Some(at + 1_000), Some(at - 1_000)]);
        // A drag that moved 72 steps is expected to move 72 more; the way back is where it was.
        let next: Vec<Option<u64>> =
            next_steps(&crash(at), &crash(at + 72_000)).iter().map(|c| c.crash_at_ms).collect();
        assert_eq!(next, [Some(at + 144_000), Some(at)]);
        // Up to the slider's end, not past it.
        let config = Config::default();
        let end = config.start_time_ms + config.horizon_ms - 1_000;
        let next: Vec<Option<u64>> =
            next_steps(&crash(end - 5_000), &crash(end - 2_000)).iter().map(|c| c.crash_at_ms).collect();
        assert_eq!(next, [Some(end), Some(end - 5_000)]);
    }

    #[test]
    fn no_steps_after_a_change_of_two_settings_or_of_a_choice() {
        let two = Config { interval_ms: 40_000, state_bytes: 3_000_000_000, ..Config::default() };
        assert!(next_steps(&Config::default(), &two).is_empty());
        let mode = Config { mode: crate::engine::Mode::MicroBatch, ..Config::default() };
        assert!(next_steps(&Config::default(), &mode).is_empty());
        // At the slider's end, one way only.
        let top = *steps_of("interval_ms").last().unwrap() as u64;
        let below = *steps_of("interval_ms").iter().rev().nth(1).unwrap() as u64;
        let next = next_steps(&interval(below), &interval(top));
        assert_eq!(next.iter().map(|c| c.interval_ms).collect::<Vec<_>>(), [below]);
    }

    fn steps_of(key: &str) -> &'static [f64] {
        let setting = SETTINGS.iter().find(|s| s.key == key).unwrap();
        match steps(setting, &Config::default()) {
            StepsView::Values { values } => values,
            _ => panic!("{key} has listed steps"),
        }
    }

    #[test]
    fn a_run_made_ahead_is_the_run_made_on_demand_and_the_run_left_is_kept() {
        let planes = DataPlanes::new();
        let (first, first_report) = made(&interval(30_000), None, &planes);
        let (second, second_report) = made(&interval(40_000), Some(&first), &planes);
        let mut ahead = RunsAhead::default();
        ahead.plan(Some((first, first_report.clone())), &second_report.config);
        // The way back is kept made; the step onward is planned.
        assert_eq!(ahead.counts(), (2, 1));
        // A step at a time: out of time after each.
        let mut steps = 0;
        while !ahead.make(Some(&second), &planes, |_| 1_000, || true) {
            steps += 1;
        }
        assert!(steps > 1, "made in bounded steps ({steps})");
        assert_eq!(ahead.counts(), (2, 2));
        let onward = next_steps(&interval(30_000), &interval(40_000))[0].clone();
        let Some(Making::Made(_, onward_report)) = ahead.take(&onward) else { panic!("made ahead") };
        assert_eq!(onward_report, simulate(&onward).unwrap());
        let Some(Making::Made(_, back)) = ahead.take(&interval(30_000)) else { panic!("kept") };
        assert_eq!(back, first_report);
        assert_eq!(ahead.counts(), (0, 0));
    }

    #[test]
    fn a_slider_about_to_move_plans_both_ways_and_keeps_what_is_made() {
        let planes = DataPlanes::new();
        let state = SETTINGS.iter().find(|s| s.key == "state_bytes").unwrap();
        let (first, first_report) = made(&Config::default(), None, &planes);
        let mut ahead = RunsAhead::default();
        assert!(ahead.plan_setting(state, &first_report.config));
        assert_eq!(ahead.counts(), (2, 0));
        assert!(ahead.make(Some(&first), &planes, |_| 2_000, || false));
        let ladder = Ladder::of(state, &first_report.config).unwrap();
        let [up, down] = &setting_steps(state, &first_report.config, &ladder, 1)[..] else { panic!("two steps") };
        assert!(up.state_bytes > first_report.config.state_bytes && down.state_bytes < up.state_bytes);
        // Planned again (focus again): what is made stays made.
        assert!(ahead.plan_setting(state, &first_report.config));
        assert_eq!(ahead.counts(), (2, 2));
        let Some(Making::Made(_, report)) = ahead.take(up) else { panic!("made ahead") };
        assert_eq!(report, simulate(up).unwrap());
        // A choice has no steps.
        let mode = SETTINGS.iter().find(|s| s.key == "mode").unwrap();
        assert!(!ahead.plan_setting(mode, &first_report.config));
        assert_eq!(ahead.counts(), (0, 0));
    }

    #[test]
    fn crash_time_runs_made_ahead_match_and_a_new_plan_keeps_what_it_still_wants() {
        let planes = DataPlanes::new();
        let at = Config::default().crash_at_ms.unwrap();
        let crash = |ms| Config { crash_at_ms: Some(ms), ..Config::default() };
        let (first, first_report) = made(&crash(at), None, &planes);
        let (second, second_report) = made(&crash(at + 1_000), Some(&first), &planes);
        let mut ahead = RunsAhead::default();
        ahead.plan(Some((first, first_report)), &second_report.config);
        assert!(ahead.make(Some(&second), &planes, |_| 2_000, || false));
        let Some(Making::Made(third, third_report)) = ahead.take(&crash(at + 2_000)) else { panic!("made ahead") };
        assert_eq!(third_report, simulate(&crash(at + 2_000)).unwrap());
        // Onward again: the run left (at + 1 s) is the way back; at + 3 s is planned.
        ahead.plan(Some((second, second_report)), &third_report.config);
        assert_eq!(ahead.counts(), (2, 1));
        assert!(ahead.make(Some(&third), &planes, |_| 2_000, || false));
        let Some(Making::Made(_, fourth)) = ahead.take(&crash(at + 3_000)) else { panic!("made ahead") };
        assert_eq!(fourth, simulate(&crash(at + 3_000)).unwrap());
        // A change of two settings drops the rest.
        ahead.plan(Some((third, third_report)), &Config { interval_ms: 40_000, ..crash(at) });
        assert_eq!(ahead.counts(), (0, 0));
    }
}
