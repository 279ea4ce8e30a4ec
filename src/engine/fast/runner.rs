//! Resumed and reused runs: a [`Runner`] advances a scenario a slice of virtual time at a time and
//! reuses what an earlier run of nearby settings left (its data plane, its failure-free companion,
//! its keyframes, what its report read of the failure-free rows), so dragging a slider simulates
//! only what the change changes. [`Runner::per_event`] is the reference it must equal, every run
//! simulated from the start, every event hashed; tests/fast_path.rs and tests/determinism.rs
//! (`reusing_the_failure_free_run_gives_the_same_report`, `a_run_advanced_in_slices_gives_the_same_report`)
//! hold the two to the same report.

use std::sync::Arc;

use super::data_plane::{self, DataPlane, DataPlanes, Plane, SharedCount};
use super::outcome::{Outcome, PrefixTables, TruthTables};
use super::resume::Keyframe;
use crate::engine::model::sim::{crash_schedule, Execution, Sim};
use crate::engine::model::sinks::Row;
use crate::engine::model::trace::Event;
use crate::engine::settings::config::{Config, ConfigError};

/// Whether a run may fail more than once, or first at another instant than `crash_at_ms`: a
/// failure schedule beyond the one crash, or a sink transaction that may outlive its timeout
/// (fencing fails the job). The reuse tricks (forking the failure-free run at the crash,
/// keyframes, borrowed rows) assume one crash at `crash_at_ms`, so such a run steps aside from
/// them and is simulated whole, with its companion simulated separately.
pub fn may_fail_more_than_once(config: &Config) -> bool {
    crash_schedule(config) != config.crash_at_ms.into_iter().collect::<Vec<_>>()
        || (config.mode.sink_has_transactions() && config.transaction_timeout_ms < config.horizon_ms)
}

/// A run that can be advanced a slice of virtual time at a time, so a page can spread a long
/// simulation over several frames and drop it when a newer setting arrives. First the data plane
/// is counted (unless an earlier run of the same source and window settings left one); then the
/// crashed run and its failure-free companion (the same run with the crash cancelled, forked at
/// the crash instant so the shared prefix is simulated once) are advanced in turn.
#[derive(Clone, Debug)]
pub struct Runner {
    run: Sim,
    /// Owned while it is forked and run; shared with the previous outcome when reused.
    failure_free: Option<Arc<Sim>>,
    stage: Stage,
    /// The data plane while it is being counted (perhaps with other runs, see [`DataPlanes`]),
    /// and the stage that follows.
    counting: Option<(Arc<SharedCount>, Stage)>,
    /// The share of the progress that counting the data plane takes (0 when it was reused).
    plane_share: f64,
    /// Keyframes of the failure-free run: taken while it runs, or reused with it.
    keyframes: Keyframes,
    /// The instant the run resumed at, from a keyframe, when it did not start at the start.
    resumed_at_ms: Option<u64>,
    /// What the report reads of the failure-free run's rows: reused with that run.
    truth_tables: Arc<TruthTables>,
    /// What reports read of first rows of the failure-free run's table: shared by the runs that
    /// borrow it.
    prefix_tables: Arc<PrefixTables>,
    /// Rows the run's two growing tables (appended, committed) start with that are copies of the
    /// failure-free run's: copied at the fork, or from it when resumed at a keyframe.
    shared_rows: (usize, usize),
    /// The rows of an earlier failure-free run of the same data: the failure-free companion keeps
    /// no rows of its own and borrows these.
    known_rows: Option<KnownRows>,
}

/// An earlier failure-free run's append-only table (the whole one it borrowed from, if it did),
/// and what reports read of its first rows.
#[derive(Clone, Debug)]
struct KnownRows {
    rows: Arc<Vec<Row>>,
    prefix_tables: Arc<PrefixTables>,
}

/// Whether failure-free runs of `a` and `b` write the same rows: they differ at most in the
/// checkpoint interval, the state size and the crash time, which move when the rows are written
/// and in which transaction, not what they hold (each emission's totals depend only on the
/// events up to its boundary). In barrier mode only: a micro-batch's rows are its trigger's.
fn same_rows(a: &Config, b: &Config) -> bool {
    b.mode.rows_depend_only_on_events()
        && Config { interval_ms: b.interval_ms, state_bytes: b.state_bytes, crash_at_ms: b.crash_at_ms, ..a.clone() }
            == *b
}

/// The keyframes a run takes of its failure-free part, or those it reuses.
#[derive(Clone, Debug)]
enum Keyframes {
    Taking { taken: Vec<Keyframe>, next_at_ms: u64, every_ms: u64, bytes: usize },
    Reused(Arc<Vec<Keyframe>>),
}

/// Keyframes a run takes at most, evenly over its horizon.
const KEYFRAMES: u64 = 16;
/// Memory the keyframes of one run may keep, about: later keyframes are not taken.
const KEYFRAMES_BUDGET_BYTES: usize = 8 << 20;

impl Keyframes {
    /// Keyframes to take over a run of `config`: none with producer retries, whose seen order
    /// ids are kept as one bit per event, too many to copy into each keyframe.
    fn taking(config: &Config) -> Keyframes {
        if config.retry_rate > 0.0 {
            return Keyframes::Reused(Arc::default());
        }
        let every_ms = (config.horizon_ms / KEYFRAMES).max(1_000);
        Keyframes::Taking { taken: Vec::new(), next_at_ms: config.start_time_ms + every_ms, every_ms, bytes: 0 }
    }

    /// Runs `sim`, failure-free up to `until_ms`, to `until_ms`, taking the keyframes due
    /// on the way.
    fn run_until(&mut self, sim: &mut Sim, until_ms: u64) {
        if let Keyframes::Taking { taken, next_at_ms, every_ms, bytes } = self {
            // A keyframe at the end would serve no crash: crashes fall inside the horizon.
            while *next_at_ms <= until_ms && *next_at_ms < sim.config.end_ms() {
                sim.run_until(*next_at_ms);
                let more_bytes = sim.keyframe_bytes();
                if *bytes + more_bytes <= KEYFRAMES_BUDGET_BYTES {
                    taken.push(sim.keyframe());
                    *bytes += more_bytes;
                }
                *next_at_ms += *every_ms;
            }
        }
        sim.run_until(until_ms);
    }

    fn finish(self) -> Arc<Vec<Keyframe>> {
        match self {
            Keyframes::Taking { taken, .. } => Arc::new(taken),
            Keyframes::Reused(keyframes) => keyframes,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Counting the data plane.
    DataPlane,
    /// The run, up to the crash, where the failure-free companion forks off.
    UpToCrash(u64),
    /// Copying the run's tables into the failure-free companion, a part at a time.
    Forking,
    /// Copying into the run, resumed at a keyframe, the rows the failure-free companion's
    /// append-only table held then, a part at a time.
    Resuming(usize),
    /// The failure-free companion, to the end.
    FailureFree,
    /// The run, to the end.
    Run,
    Done,
}

/// Rows copied into the forked failure-free run per millisecond of a slice: about what a
/// millisecond of simulating costs, so copying a long run's tables never makes one long step.
const ROWS_PER_MS: u64 = 4_000;

/// Rows copied in a step of a slice of `slice_ms` (see [`ROWS_PER_MS`]).
fn rows_per_slice(slice_ms: u64) -> usize {
    slice_ms.saturating_mul(ROWS_PER_MS).clamp(1, usize::MAX as u64) as usize
}

/// About the share of a run's work that counting its data plane takes, for progress.
const DATA_PLANE_SHARE: f64 = 0.3;

impl Runner {
    /// Starts a run. When `previous` ran the same scenario with another crash time, its
    /// failure-free run is reused instead of simulated again (moving only the crash time); when it
    /// had the same source and window settings, its data plane is.
    pub fn new(config: &Config, previous: Option<&Outcome>) -> Result<Runner, ConfigError> {
        Runner::start(config, previous, Execution::Fast, None)
    }

    /// Like [`Runner::new`], taking the data plane from `planes` where an earlier run of
    /// `previous` left none: the plane a run of the shelf built and holds, or the count of it under
    /// way, which this run then counts with the others (see [`DataPlanes`]).
    pub fn sharing(config: &Config, previous: Option<&Outcome>, planes: &DataPlanes) -> Result<Runner, ConfigError> {
        Runner::start(config, previous, Execution::Fast, Some(planes))
    }

    /// Starts a run computed the reference way, every event hashed and counted one millisecond
    /// at a time ([`Execution::PerEvent`]): what the fast way is tested against. A `previous`
    /// reference run's failure-free run is reused as by [`Runner::new`].
    pub fn per_event(config: &Config, previous: Option<&Outcome>) -> Result<Runner, ConfigError> {
        Runner::start(config, previous, Execution::PerEvent, None)
    }

    fn start(
        config: &Config,
        previous: Option<&Outcome>,
        execution: Execution,
        planes: Option<&DataPlanes>,
    ) -> Result<Runner, ConfigError> {
        config.validate()?;
        if may_fail_more_than_once(config) {
            return Runner::start_separately(config, execution, planes);
        }
        let previous = previous.filter(|p| p.run.execution() == execution);
        let crash_moved = |p: &&Outcome| {
            config.crash_at_ms.is_some()
                && Config { crash_at_ms: config.crash_at_ms, ..p.run.config.clone() } == *config
        };
        // A failure-free run that borrowed its rows has no keyframes: the first crash move after
        // it simulates one of its own, with them, for the next to reuse.
        let reusable = previous.filter(crash_moved).filter(|p| !p.truth_rows_borrowed);
        // Moving the interval or the state size: the failure-free companion borrows the rows of
        // the previous one, if they cover the run's up to the crash. Its own are not kept, so it
        // leaves no keyframes for a crash move.
        let known_rows = previous
            .filter(|p| {
                execution == Execution::Fast
                    && config.crash_at_ms.is_some()
                    && !crash_moved(p)
                    && same_rows(&p.run.config, config)
            })
            .map(|p| {
                let appended = &p.truth().sinks().append_only;
                p.prefix_tables.get_or_add(appended.rows().len(), || Arc::clone(&p.truth_tables));
                KnownRows { rows: Arc::clone(appended.whole()), prefix_tables: Arc::clone(&p.prefix_tables) }
            });
        let keyframes = match (execution, reusable) {
            (Execution::Fast, Some(previous)) => Keyframes::Reused(Arc::clone(&previous.keyframes)),
            // Taken up to the crash even when rows may be borrowed: the crash decides whether
            // they are (see Stage::UpToCrash).
            (Execution::Fast, None) => Keyframes::taking(config),
            (Execution::PerEvent, _) => Keyframes::Reused(Arc::default()),
        };
        // Moving only the crash: the failure-free run is reused, and the run is that run up to
        // its crash, so it starts from the latest keyframe at or before the crash.
        // It keeps the configuration it ran with: its crash time, which it never reached, aside,
        // the same as this one's.
        let truth = reusable.map(|previous| match &previous.failure_free {
            Some(truth) => Arc::clone(truth),
            None => Arc::new(previous.run.clone()),
        });
        let latest = reusable
            .zip(config.crash_at_ms)
            .and_then(|(previous, crash_at)| previous.keyframes.iter().rev().find(|k| k.at_ms() <= crash_at));
        let (run, stage) = match (latest, &truth, config.crash_at_ms) {
            (Some(keyframe), Some(truth), _) => {
                (Sim::resume(keyframe, config, truth), Stage::Resuming(keyframe.table_rows().0))
            }
            (_, Some(_), _) | (_, None, None) => (Sim::of(config, execution)?, Stage::Run),
            (_, None, Some(crash_at)) => (Sim::of(config, execution)?, Stage::UpToCrash(crash_at)),
        };
        // Keyframes are taken of the run only up to its crash, or all along without one.
        let mut run = run;
        run.set_keyframes_to_come(config.crash_at_ms.is_none() && matches!(keyframes, Keyframes::Taking { .. }));
        let mut runner = Runner {
            truth_tables: reusable.map(|p| Arc::clone(&p.truth_tables)).unwrap_or_default(),
            prefix_tables: reusable.map(|p| Arc::clone(&p.prefix_tables)).unwrap_or_default(),
            shared_rows: latest.map_or((0, 0), Keyframe::table_rows),
            resumed_at_ms: latest.map(Keyframe::at_ms),
            run,
            failure_free: truth,
            stage,
            counting: None,
            plane_share: 0.0,
            keyframes,
            known_rows,
        };
        if execution == Execution::Fast {
            let key = data_plane::DataPlaneKey::of(config);
            match previous.and_then(|p| p.run.data_plane()).filter(|plane| Some(&plane.key) == key.as_ref()) {
                Some(plane) => runner.run.attach_data_plane(plane.clone()),
                None => runner.take_plane(config, planes),
            }
        }
        Ok(runner)
    }

    /// Takes `config`'s data plane from `planes` (built, attached at once) or counts it, alone
    /// or with the runs of `planes` that count it too, before the stage it was to start at.
    fn take_plane(&mut self, config: &Config, planes: Option<&DataPlanes>) {
        let plane = match planes {
            Some(planes) => planes.get(config),
            None => SharedCount::new(config).map(|count| Plane::Counting(Arc::new(count))),
        };
        match plane {
            Some(Plane::Built(plane)) => self.attach_plane(plane),
            Some(Plane::Counting(count)) => {
                self.counting = Some((count, self.stage));
                self.stage = Stage::DataPlane;
                self.plane_share = DATA_PLANE_SHARE;
            }
            None => {}
        }
    }

    /// Attaches a built data plane to the run and, when simulated separately and not started,
    /// to its companion, which counts from the same plane.
    fn attach_plane(&mut self, plane: Arc<DataPlane>) {
        if let Some(truth) = self.failure_free.as_mut().and_then(Arc::get_mut) {
            if truth.now_ms() == truth.config.start_time_ms {
                truth.attach_data_plane(Arc::clone(&plane));
            }
        }
        self.run.attach_data_plane(plane);
    }

    /// A run that may fail more than once (see [`may_fail_more_than_once`]): no reuse trick
    /// applies. The run is simulated from the start with its whole failure schedule, and its
    /// failure-free companion separately from the start, with no crash and no fencing.
    fn start_separately(
        config: &Config,
        execution: Execution,
        planes: Option<&DataPlanes>,
    ) -> Result<Runner, ConfigError> {
        let run = Sim::of(config, execution)?;
        let mut truth = Sim::of(
            &Config { crash_at_ms: None, more_crashes_ms: Vec::new(), mtbf_ms: None, ..config.clone() },
            execution,
        )?;
        truth.cancel_failures();
        truth.set_keyframes_to_come(false);
        let mut run = run;
        run.set_keyframes_to_come(false);
        let mut runner = Runner {
            truth_tables: Arc::default(),
            prefix_tables: Arc::default(),
            shared_rows: (0, 0),
            resumed_at_ms: None,
            run,
            failure_free: Some(Arc::new(truth)),
            stage: Stage::FailureFree,
            counting: None,
            plane_share: 0.0,
            keyframes: Keyframes::Reused(Arc::default()),
            known_rows: None,
        };
        if execution == Execution::Fast {
            runner.take_plane(config, planes);
        }
        Ok(runner)
    }

    /// Advances by up to `slice_ms` of virtual time; returns true once the run is complete.
    pub fn advance(&mut self, slice_ms: u64) -> bool {
        let end = self.run.config.end_ms();
        match self.stage {
            Stage::DataPlane => {
                let events = slice_ms.saturating_mul(self.run.config.rate_per_s) / 1000;
                let log = self.run.log();
                match self.counting.take() {
                    Some((count, next)) => match count.build(log, events.max(1)) {
                        // A companion simulated separately counts from the same plane.
                        Some(plane) => {
                            self.attach_plane(plane);
                            self.stage = next;
                        }
                        None => self.counting = Some((count, next)),
                    },
                    None => unreachable!("counting in this stage"),
                }
            }
            Stage::UpToCrash(crash_at) => {
                let until_ms = crash_at.min(self.run.now_ms().saturating_add(slice_ms));
                self.keyframes.run_until(&mut self.run, until_ms);
                if self.run.now_ms() >= crash_at {
                    let sinks = self.run.sinks();
                    let appended = sinks.append_only.rows().len();
                    self.shared_rows = (appended, sinks.transactional.committed_len());
                    // Known rows serve only if they cover what the run wrote up to the crash.
                    self.known_rows = self.known_rows.take().filter(|known| known.rows.len() >= appended);
                    if let Some(known) = &self.known_rows {
                        // The committed rows are compared whole: the companion keeps none. Its
                        // keyframes would hold no rows either: a crash move after this run
                        // simulates a failure-free run of its own.
                        self.shared_rows.1 = 0;
                        self.keyframes = Keyframes::Reused(Arc::default());
                        let mut truth = self.run.fork_failure_free_discarding(known.rows.len());
                        truth.set_keyframes_to_come(false);
                        self.failure_free = Some(Arc::new(truth));
                        self.stage = Stage::FailureFree;
                    } else {
                        let mut truth = self.run.fork_failure_free();
                        truth.set_keyframes_to_come(matches!(self.keyframes, Keyframes::Taking { .. }));
                        self.failure_free = Some(Arc::new(truth));
                        self.stage = Stage::Forking;
                    }
                }
            }
            Stage::Forking => {
                let truth = self.failure_free.as_mut().and_then(Arc::get_mut).expect("forked at the crash");
                if truth.copy_rows_part(&self.run, rows_per_slice(slice_ms)) {
                    self.stage = Stage::FailureFree;
                }
            }
            Stage::Resuming(appended) => {
                let truth = self.failure_free.as_ref().expect("reused");
                if self.run.copy_prefix_rows_part(truth, appended, rows_per_slice(slice_ms)) {
                    self.stage = Stage::Run;
                }
            }
            Stage::FailureFree => {
                let truth = self.failure_free.as_mut().and_then(Arc::get_mut).expect("forked at the crash");
                let until_ms = end.min(truth.now_ms().saturating_add(slice_ms));
                self.keyframes.run_until(truth, until_ms);
                if truth.now_ms() >= end {
                    truth.run_to_end();
                    if let Some(known) = &self.known_rows {
                        truth.borrow_rows(&known.rows);
                        // First rows of the same table: what a report read of as many holds.
                        let borrowed = &truth.sinks().append_only;
                        if Arc::ptr_eq(borrowed.whole(), &known.rows) {
                            self.truth_tables = known.prefix_tables.get_or_add(borrowed.rows().len(), Arc::default);
                            self.prefix_tables = Arc::clone(&known.prefix_tables);
                        }
                    }
                    self.stage = Stage::Run;
                }
            }
            Stage::Run => {
                let until_ms = end.min(self.run.now_ms().saturating_add(slice_ms));
                if self.run.config.crash_at_ms.is_none() {
                    // A run without a crash is its own failure-free run.
                    self.keyframes.run_until(&mut self.run, until_ms);
                } else {
                    self.run.run_until(until_ms);
                }
                if self.run.now_ms() >= end {
                    self.run.run_to_end();
                    self.stage = Stage::Done;
                }
            }
            Stage::Done => {}
        }
        self.stage == Stage::Done
    }

    /// The instant the run resumed at, when it started from a keyframe of an earlier run's
    /// failure-free run rather than from the scenario start (only the crash time moved).
    pub fn resumed_at_ms(&self) -> Option<u64> {
        self.resumed_at_ms
    }

    /// About how many events this run hashes: the events its data plane counts, or, without one,
    /// every event of the run and of its failure-free companion. A page tells by it a run that
    /// may fit the frame of the change that started it from one that surely does not.
    pub fn events_to_hash(&self) -> u64 {
        let config = &self.run.config;
        let events = self.run.log().log_end_at(config.end_ms()).saturating_sub(config.start_offset);
        if self.counting.is_some() {
            events
        } else if self.run.data_plane().is_none() {
            events.saturating_mul(if self.failure_free.is_some() { 1 } else { 2 })
        } else {
            0
        }
    }

    /// How far along the run is, from 0 to 1: the data plane's counting if this run does it,
    /// then simulated time.
    pub fn progress(&self) -> f64 {
        let config = &self.run.config;
        let horizon = config.horizon_ms as f64;
        let start = config.start_time_ms;
        let done = |sim: &Sim| sim.now_ms().saturating_sub(start) as f64;
        let crash_part = config.crash_at_ms.map_or(0.0, |c| horizon - c.saturating_sub(start) as f64);
        let total = horizon + crash_part;
        let finished = match self.stage {
            Stage::DataPlane => {
                let (count, _) = self.counting.as_ref().expect("counting in this stage");
                return count.built_fraction(self.run.log()) * self.plane_share;
            }
            Stage::UpToCrash(_) | Stage::Forking => done(&self.run),
            Stage::Resuming(..) => crash_part,
            Stage::FailureFree => {
                let truth = self.failure_free.as_ref().expect("forked");
                done(&self.run) + done(truth) - (horizon - crash_part)
            }
            Stage::Run if self.failure_free.is_some() && crash_part > 0.0 => crash_part + done(&self.run),
            Stage::Run => done(&self.run) * total / horizon,
            Stage::Done => total,
        };
        self.plane_share + (1.0 - self.plane_share) * (finished / total).clamp(0.0, 1.0)
    }

    /// The finished outcome (advance until it returns true first).
    pub fn finish(mut self) -> Outcome {
        while !self.advance(u64::MAX) {}
        Outcome {
            run: self.run,
            failure_free: self.failure_free,
            keyframes: self.keyframes.finish(),
            truth_tables: self.truth_tables,
            prefix_tables: self.prefix_tables,
            shared_rows: self.shared_rows,
            truth_rows_borrowed: self.known_rows.is_some(),
        }
    }
}

/// Runs a scenario to its horizon, together with its failure-free companion.
pub fn run(config: &Config) -> Result<Outcome, ConfigError> {
    Ok(Runner::new(config, None)?.finish())
}

/// The scenario run up to `at_ms` and, in barrier mode, on to the next barrier after it (which a
/// view of that instant announces), then stopped, its events hashed (no data plane is counted
/// first): the world up to that instant, for a view of it drawn before the whole run is. Its
/// figures cover that part only, and it has no failure-free companion. `None` when that takes
/// processing more than `max_events` events.
pub fn run_up_to(config: &Config, at_ms: u64, max_events: u64) -> Result<Option<Outcome>, ConfigError> {
    let mut run = Sim::new(config)?;
    let end = config.end_ms();
    let barrier_after = |sim: &Sim| {
        sim.trace
            .events
            .iter()
            .rev()
            .take_while(|e| e.at_ms > at_ms)
            .any(|e| matches!(e.event, Event::BarrierInjected { .. }))
    };
    let done = |sim: &Sim| {
        sim.now_ms() >= end || (sim.now_ms() >= at_ms && (!config.mode.has_barriers() || barrier_after(sim)))
    };
    while !done(&run) {
        if run.processed_events() > max_events {
            return Ok(None);
        }
        let step_to =
            if run.now_ms() < at_ms { at_ms.min(run.now_ms().saturating_add(1_000)) } else { run.now_ms() + 1_000 };
        run.run_through(step_to.min(end));
    }
    Ok(Some(Outcome {
        run,
        failure_free: None,
        keyframes: Arc::default(),
        truth_tables: Arc::default(),
        prefix_tables: Arc::default(),
        shared_rows: (0, 0),
        truth_rows_borrowed: false,
    }))
}

/// Like [`run`], but when `previous` ran the same scenario with another crash time, its
/// failure-free run is reused instead of simulated again: dragging the crash-time slider only
/// simulates the crashed run. The outcome is the same as `run(config)`.
pub fn run_reusing(config: &Config, previous: Option<&Outcome>) -> Result<Outcome, ConfigError> {
    Ok(Runner::new(config, previous)?.finish())
}
