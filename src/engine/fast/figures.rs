//! The figures of a finished run built a pass at a time ([`FiguresBuilder`]), so a page can spread
//! a long run's report over several slices, and read the fast way where it can: a run whose
//! append-only table is stretches of the failure-free table ([`super::emissions`]) is surveyed
//! by those stretches, not row by row, and what is read of the failure-free rows is kept with
//! them for the next run that reuses them ([`TruthTables`](super::outcome::TruthTables)). The
//! reference is the same builder over a run computed the per-event way
//! ([`Runner::per_event`](super::runner::Runner::per_event)), where every table is read row by
//! row: tests/fast_path.rs holds the two to the same report, and tests/determinism.rs holds a
//! report built in slices to the one built at once.

use std::borrow::Cow;
use std::sync::Arc;

use super::emissions::{Layout, TruthEmissions};
use super::outcome::Outcome;
use crate::engine::model::report::{
    window_total_before_crash, EmissionRows, Figures, RolledBack, SinkFigures, SinkReport, SinkTables, WindowTotal,
};
use crate::engine::model::sim::{Execution, Sim};
use crate::engine::model::sinks::keys::{FirstPass, KeyIndex, Survey};
use crate::engine::model::sinks::{
    dedupe_view, duplicates_and_keys, same_contents, same_in_order, CommittedRows, Row, SinkDesign,
};
use crate::engine::model::trace::Event;
use crate::engine::settings::config::CheckpointingMode;

/// The rows of `rows` complete up to `boundary_ms`, in write order: borrowed when they are a
/// prefix of the table (boundaries only grow in a run without a restart), else copied.
fn rows_up_to(rows: &[Row], boundary_ms: u64) -> Cow<'_, [Row]> {
    let prefix = rows.iter().take_while(|r| u64::from(r.boundary_ms) <= boundary_ms).count();
    if rows[prefix..].iter().all(|r| u64::from(r.boundary_ms) > boundary_ms) {
        Cow::Borrowed(&rows[..prefix])
    } else {
        Cow::Owned(rows.iter().filter(|r| u64::from(r.boundary_ms) <= boundary_ms).copied().collect())
    }
}

/// Longest gap without fresher data and the worst staleness, from (visible_at, boundary) pairs.
fn freshness(start_ms: u64, end_ms: u64, visible: impl Iterator<Item = (u64, u64)>) -> (u64, u64) {
    let (mut newest, mut last_advance) = (start_ms, start_ms);
    let (mut silent, mut stale) = (0, 0);
    for (at, boundary) in visible {
        if boundary > newest {
            silent = silent.max(at - last_advance);
            stale = stale.max(at - newest);
            newest = boundary;
            last_advance = at;
        }
    }
    silent = silent.max(end_ms.saturating_sub(last_advance));
    stale = stale.max(end_ms.saturating_sub(newest));
    (silent, stale)
}

/// Counts and comparisons of the sink tables, through one dense index of all their keys when
/// there is one (see [`KeyIndex::of`]), else the tables' own.
struct Keys(Option<KeyIndex>);

impl Keys {
    /// Duplicate rows, keys and the dedupe view of `rows`, in two passes where it can: the
    /// first here, the second by [`Keys::finish_survey`].
    fn start_survey(&self, rows: &[Row]) -> SurveyPart {
        match &self.0 {
            Some(index) => SurveyPart::Started(index.first_pass(rows, true)),
            None => {
                let (duplicate_rows, keys) = duplicates_and_keys(rows);
                SurveyPart::Done(Survey { duplicate_rows, keys, newest: dedupe_view::read(rows) })
            }
        }
    }

    fn finish_survey(&self, part: SurveyPart, rows: &[Row]) -> Survey {
        match (part, &self.0) {
            (SurveyPart::Started(first), Some(index)) => index.finish_survey(first, rows),
            (SurveyPart::Started(_), None) => unreachable!("started only with an index"),
            (SurveyPart::Done(survey), _) => survey,
        }
    }

    fn duplicates_and_keys(&self, rows: &[Row]) -> (u64, u64) {
        match &self.0 {
            Some(index) => index.duplicates_and_keys(rows),
            None => duplicates_and_keys(rows),
        }
    }

    /// Whether table `a` holds what the failure-free `b` holds. Micro-batch: a restart moves
    /// where batches are cut, so the running totals in between differ; a table matches when it
    /// holds no duplicate and the same newest total per key.
    fn same(&self, cut_by_trigger: bool, a: &[Row], b: &[Row]) -> bool {
        if cut_by_trigger {
            // The dedupe view's newest row per key.
            let newest = |rows: &[Row]| self.view(rows).iter().map(Row::content).collect::<Vec<_>>();
            self.duplicates_and_keys(a).0 == 0 && newest(a) == newest(b)
        } else {
            self.same_contents(a, b)
        }
    }

    fn same_contents(&self, a: &[Row], b: &[Row]) -> bool {
        match &self.0 {
            Some(index) => index.same_contents(a, b),
            None => same_contents(a, b),
        }
    }

    /// The dedupe view over `rows`.
    fn view(&self, rows: &[Row]) -> Vec<Row> {
        match &self.0 {
            Some(index) => index.newest(rows),
            None => dedupe_view::read(rows),
        }
    }
}

/// A survey of a table half made ([`Keys::start_survey`]) or made.
enum SurveyPart {
    Started(FirstPass),
    Done(Survey),
}

/// The failure-free rows the crashed run's transactional table is compared with: those complete
/// by its newest commit, a prefix of the failure-free append-only table (or a copy of them, when
/// that table is not in boundary order), or in micro-batch mode its own committed rows.
enum TruthCommitted {
    Prefix(usize),
    Copied(Vec<Row>),
}

/// The figures of a finished run, built a pass at a time: each [`FiguresBuilder::step`] makes
/// one pass over one sink table (or compares two), so a page can spread a long run's report over
/// several slices; [`FiguresBuilder::finish`] puts them together. [`Outcome::figures`] is the
/// same builder run to the end.
#[derive(Default)]
pub struct FiguresBuilder {
    passes_done: usize,
    /// (longest silence, worst staleness) of readers who see rows as they are written, and of
    /// read_committed readers of the transactional sink.
    immediate: (u64, u64),
    delayed: (u64, u64),
    newest_committed_ms: u64,
    truth_committed: Option<TruthCommitted>,
    keys: Option<Keys>,
    upsert_rows: Vec<Row>,
    /// Writes to the upsert table that replaced a key's row with a smaller total.
    upsert_regressions: u64,
    /// Duplicates, keys and the dedupe view of the append-only table: half made, then made.
    appended_part: Option<SurveyPart>,
    appended: Option<Survey>,
    /// (duplicate rows, keys) of the upsert table, the committed rows and the dedupe view.
    upsert_counts: (u64, u64),
    committed_counts: (u64, u64),
    view_counts: (u64, u64),
    /// Whether each design's table matches the failure-free run's (in SinkDesign::ALL order).
    matches: [bool; 4],
    window_total_before_crash: Option<WindowTotal>,
    /// The run's emissions (emitted at, boundary, rows) in write order, when its append-only
    /// table can be read emission by emission (see [`emissions_of`]).
    emissions: Option<Vec<(u64, u64, u64)>>,
    /// The run's append-only and committed tables as pieces of the failure-free table, when
    /// they line up with it.
    laid_out: Option<LaidOut>,
    /// The run's committed rows, as ranges of its append-only table: made into rows only by the
    /// passes that read them row by row.
    committed: Option<Arc<CommittedRows>>,
}

/// A run's tables laid out as pieces of the failure-free table (see [`Layout`]).
struct LaidOut {
    appended: Layout,
    /// The committed rows, unless some were not copied from the append-only table.
    committed: Option<Layout>,
    by_boundary: Arc<TruthEmissions>,
    slots: usize,
}

/// The run's emissions (emitted at, boundary, rows), in write order, when its append-only table
/// can be read emission by emission (see [`emissions`]): in barrier mode, exactly once (an
/// at-least-once restore counts again what the snapshot had already taken in past a barrier, and
/// so may one that resumes at offsets committed on a timer), without producer retries or events
/// lost to retention, and only for a run computed the fast way, so that the per-event reference it
/// is tested against reads every row.
#[inline(never)]
fn emissions_of(run: &Sim) -> Option<Vec<(u64, u64, u64)>> {
    let config = &run.config;
    let readable = run.execution() == Execution::Fast
        && config.mode.rows_depend_only_on_events()
        && config.retry_rate == 0.0
        && config.checkpointing_mode == CheckpointingMode::ExactlyOnce
        && !config.commits_offsets_on_timer()
        && run.recoveries.iter().all(|r| r.lost_events == 0);
    if !readable {
        return None;
    }
    let emitted: Vec<(u64, u64, u64)> = run
        .trace
        .events
        .iter()
        .filter_map(|e| match e.event {
            Event::Emitted { boundary_ms, rows } => Some((e.at_ms, boundary_ms, rows)),
            _ => None,
        })
        .collect();
    let rows: u64 = emitted.iter().map(|&(_, _, rows)| rows).sum();
    (rows == run.sinks().append_only.rows().len() as u64).then_some(emitted)
}

impl Outcome {
    /// The run's figures, in numbers: a [`FiguresBuilder`] run to the end.
    pub fn figures(&self) -> Figures {
        FiguresBuilder::default().finish(self)
    }
}

/// How many passes a [`FiguresBuilder`] makes.
const PASSES: usize = 15;

impl FiguresBuilder {
    /// Makes the next pass; returns true once all are made.
    pub fn step(&mut self, outcome: &Outcome) -> bool {
        let (run, truth) = (&outcome.run, outcome.truth());
        let (start, end) = (run.config.start_time_ms, run.config.end_ms());
        let appended = run.sinks().append_only.rows();
        let truth_appended = truth.sinks().append_only.rows();
        let committed = self.committed_table(run);
        let cut_by_trigger = !run.config.mode.rows_depend_only_on_events();
        match self.passes_done {
            0 => {
                self.emissions = emissions_of(run);
                self.laid_out = self.emissions.as_ref().and_then(|emitted| {
                    let truth_tables = &outcome.truth_tables;
                    let known = truth_tables.keys.get_or_init(|| KeyIndex::of(&[truth_appended])).as_ref()?;
                    let by_boundary = truth_tables
                        .by_boundary
                        .get_or_init(|| TruthEmissions::new(truth_appended, known).map(Arc::new))
                        .clone()?;
                    let emitted = emitted.iter().map(|&(_, boundary, rows)| (boundary, rows));
                    let appended = Layout::of_emissions(appended, emitted, truth_appended, &by_boundary)?;
                    let ranges = run.sinks().transactional.committed_ranges();
                    let committed = appended.of_ranges(ranges).filter(|c| c.holds(committed.len()));
                    Some(LaidOut { appended, committed, by_boundary, slots: known.slots() })
                });
                // An emission's rows share their time and boundary: one stands for all.
                self.immediate = match &self.emissions {
                    Some(emitted) => freshness(start, end, emitted.iter().map(|&(at, boundary, _)| (at, boundary))),
                    None => freshness(
                        start,
                        end,
                        appended.iter().map(|r| (u64::from(r.emitted_at_ms), u64::from(r.boundary_ms))),
                    ),
                };
            }
            1 => {
                let commits = run.sinks().transactional.commits();
                let mut commit_visibility = Vec::with_capacity(commits.len());
                let mut seen = 0;
                let laid_out = self.laid_out.as_ref().and_then(|l| l.committed.as_ref());
                for &(_, at, upto) in commits {
                    let newest = match laid_out {
                        Some(layout) => {
                            layout.newest_within(seen, upto).map(|i| u64::from(truth_appended[i as usize].boundary_ms))
                        }
                        None => committed.rows()[seen..upto].iter().map(|r| u64::from(r.boundary_ms)).max(),
                    };
                    if let Some(newest) = newest {
                        commit_visibility.push((at, newest));
                    }
                    seen = upto;
                }
                // Every committed row is in some commit's range.
                self.newest_committed_ms = commit_visibility.iter().map(|&(_, newest)| newest).max().unwrap_or(start);
                self.delayed = freshness(start, end, commit_visibility.into_iter());
            }
            2 => {
                let newest_ms = self.newest_committed_ms;
                self.truth_committed = Some(if cut_by_trigger {
                    TruthCommitted::Copied(truth.sinks().committed_rows())
                } else if *outcome
                    .truth_tables
                    .in_boundary_order
                    .get_or_init(|| truth_appended.windows(2).all(|w| w[0].boundary_ms <= w[1].boundary_ms))
                {
                    TruthCommitted::Prefix(truth_appended.partition_point(|r| u64::from(r.boundary_ms) <= newest_ms))
                } else {
                    match rows_up_to(truth_appended, newest_ms) {
                        Cow::Borrowed(prefix) => TruthCommitted::Prefix(prefix.len()),
                        Cow::Owned(rows) => TruthCommitted::Copied(rows),
                    }
                });
            }
            // Every row a sink holds was also appended to the same run's append-only table
            // (committed rows, the upsert table and the view are drawn from the same writes), so
            // those two tables' keys are all the keys.
            3 => {
                let truth_keys = outcome.truth_tables.keys.get_or_init(|| KeyIndex::of(&[truth_appended]));
                // The rows the run shares with the failure-free run are already indexed there.
                let shared = outcome.shared_rows.0.min(appended.len());
                self.keys = Some(Keys(match truth_keys {
                    // A table that lines up with the failure-free one holds only its keys.
                    Some(known) if self.laid_out.is_some() => Some(known.clone()),
                    Some(known) => KeyIndex::joined(&[&appended[shared..]], known, truth_appended.len() + shared),
                    None => KeyIndex::of(&[appended, truth_appended]),
                }));
            }
            4 => {
                (self.upsert_rows, self.upsert_regressions) = match &self.laid_out {
                    Some(l) => l.appended.upsert(appended, &l.by_boundary, l.slots),
                    None => {
                        let table = run.sinks().upsert();
                        (table.rows(appended), table.regressions())
                    }
                }
            }
            5 if self.laid_out.is_some() => {}
            5 => self.appended_part = Some(self.keys().start_survey(appended)),
            6 => {
                self.appended = Some(match &self.laid_out {
                    Some(l) => Survey {
                        duplicate_rows: l.appended.duplicate_rows(),
                        keys: l.appended.keys(&l.by_boundary, l.slots),
                        newest: l.appended.newest(appended, &l.by_boundary, l.slots),
                    },
                    None => {
                        let part = self.appended_part.take().expect("started in the pass before");
                        self.keys().finish_survey(part, appended)
                    }
                });
            }
            7 => self.upsert_counts = self.keys().duplicates_and_keys(&self.upsert_rows),
            8 => {
                self.committed_counts = match self.laid_out.as_ref().and_then(|l| Some((l, l.committed.as_ref()?))) {
                    Some((l, layout)) => (layout.duplicate_rows(), layout.keys(&l.by_boundary, l.slots)),
                    None => self.keys().duplicates_and_keys(committed.rows()),
                }
            }
            9 => self.view_counts = self.keys().duplicates_and_keys(self.view_rows()),
            10 => {
                self.matches[0] = match &self.laid_out {
                    Some(l) => l.appended.holds_once(truth_appended.len()),
                    None => self.keys().same(cut_by_trigger, appended, truth_appended),
                }
            }
            11 => {
                let truth_upsert = outcome.truth_tables.upsert.get_or_init(|| {
                    // A failure-free run's table in boundary order holds each key's rows
                    // growing: the newest is the last written. A failure-free run that borrowed
                    // its rows kept no upsert table of its own; its rows derive it.
                    match &self.laid_out {
                        Some(l) => l.by_boundary.newest_rows(truth_appended),
                        None => truth.sinks().read(SinkDesign::Upsert),
                    }
                });
                self.matches[1] = self.keys().same_contents(&self.upsert_rows, truth_upsert)
            }
            12 if self.laid_out.as_ref().is_some_and(|l| l.committed.is_some())
                && matches!(self.truth_committed, Some(TruthCommitted::Prefix(_))) =>
            {
                let Some(TruthCommitted::Prefix(n)) = self.truth_committed else { unreachable!("matched above") };
                let layout = self.laid_out.as_ref().and_then(|l| l.committed.as_ref()).expect("matched above");
                self.matches[2] = layout.holds_once(n);
            }
            12 => {
                let truth_committed = self.truth_committed(truth);
                // The committed rows the run shares with the failure-free run are its committed
                // rows; where those hold its appended rows in order, only the rest is compared.
                let shared = outcome.shared_rows.1;
                let same_prefix = matches!(self.truth_committed, Some(TruthCommitted::Prefix(_)))
                    && committed.len() == truth_committed.len()
                    && shared <= committed.len()
                    && outcome.truth_tables.committed_starts_as_appended(
                        &truth.sinks().committed_rows(),
                        truth_appended,
                        shared,
                    );
                let committed = committed.rows();
                self.matches[2] = (same_prefix && same_in_order(&committed[shared..], &truth_committed[shared..]))
                    || self.keys().same(cut_by_trigger, committed, truth_committed);
            }
            13 => {
                let keys = self.keys();
                let truth_view = outcome.truth_tables.view.get_or_init(|| keys.view(truth_appended));
                self.matches[3] = keys.same_contents(self.view_rows(), truth_view);
            }
            14 => self.window_total_before_crash = window_total_before_crash(run),
            _ => {}
        }
        self.passes_done = (self.passes_done + 1).min(PASSES);
        self.passes_done == PASSES
    }

    /// Whether every pass is made ([`FiguresBuilder::finish`] is then all that is left).
    pub fn passes_made(&self) -> bool {
        self.passes_done >= PASSES
    }

    /// The figures, once every pass is made (the passes left are made first).
    pub fn finish(mut self, outcome: &Outcome) -> Figures {
        while !self.step(outcome) {}
        let window_total_before_crash = self.window_total_before_crash.clone();
        let sinks = self.sink_figures(outcome);
        Figures::of_run(&outcome.run, outcome.truth(), sinks, window_total_before_crash)
    }

    /// The run's committed rows, as ranges of its append-only table (made once per report).
    fn committed_table(&mut self, run: &Sim) -> Arc<CommittedRows> {
        Arc::clone(self.committed.get_or_insert_with(|| Arc::new(run.sinks().committed())))
    }

    fn keys(&self) -> &Keys {
        self.keys.as_ref().expect("the keys are indexed in an earlier pass")
    }

    fn view_rows(&self) -> &[Row] {
        &self.appended.as_ref().expect("surveyed in an earlier pass").newest
    }

    fn truth_committed<'a>(&'a self, truth: &'a Sim) -> &'a [Row] {
        match self.truth_committed.as_ref().expect("chosen in an earlier pass") {
            TruthCommitted::Prefix(len) => &truth.sinks().append_only.rows()[..*len],
            TruthCommitted::Copied(rows) => rows,
        }
    }

    /// The sink figures and tables from the passes made.
    fn sink_figures(mut self, outcome: &Outcome) -> (SinkReport, SinkTables) {
        let run = &outcome.run;
        let committed = self.committed_table(run);
        let Survey { duplicate_rows: appended_duplicates, keys: appended_keys, newest: view_rows } =
            self.appended.take().expect("surveyed");
        let read_uncommitted = run.config.reads_uncommitted();
        // A job that never committed while its failure-free run did (a crash loop, fenced before
        // every commit) has delivered nothing: its empty table matches no failure-free one.
        let delivered_nothing = committed.is_empty() && !outcome.truth().sinks().transactional.commits().is_empty();
        let figures = |design: SinkDesign, rows: usize, (duplicate_rows, keys): (u64, u64), fresh: (u64, u64)| {
            let transactional = design == SinkDesign::Transactional;
            let matches = self.matches[SinkDesign::ALL.iter().position(|&d| d == design).expect("a design")];
            SinkFigures {
                design,
                rows: rows as u64,
                duplicate_rows,
                keys,
                regressions: if design == SinkDesign::Upsert { self.upsert_regressions } else { 0 },
                aborted_rows: if transactional { run.sinks().transactional.aborted_rows() } else { 0 },
                timed_out_rows: if transactional { run.sinks().transactional.timed_out_rows() } else { 0 },
                // Set with the run's other figures (Figures::of_run).
                lost_events: 0,
                aborted_rows_seen: if transactional && read_uncommitted {
                    run.sinks().transactional.aborted_rows() + run.sinks().transactional.timed_out_rows()
                } else {
                    0
                },
                silent_ms: fresh.0,
                staleness_max_ms: fresh.1,
                // A read_uncommitted reader that saw aborted rows saw more than a failure-free run shows.
                matches_failure_free: matches
                    && !(transactional && read_uncommitted && duplicate_rows > 0)
                    && !(transactional && delivered_nothing),
            }
        };
        let appended = run.sinks().append_only.rows();
        let sinks = SinkReport {
            append_only: figures(
                SinkDesign::AppendOnly,
                appended.len(),
                (appended_duplicates, appended_keys),
                self.immediate,
            ),
            upsert: figures(SinkDesign::Upsert, self.upsert_rows.len(), self.upsert_counts, self.immediate),
            // A read_uncommitted reader sees rows as they are written, as fresh as the append-only table.
            // It also sees every row later aborted, and the replay writes those again: its
            // duplicates are the append-only table's.
            transactional: figures(
                SinkDesign::Transactional,
                committed.len(),
                if read_uncommitted { (appended_duplicates, self.committed_counts.1) } else { self.committed_counts },
                if read_uncommitted { self.immediate } else { self.delayed },
            ),
            dedupe_view: figures(SinkDesign::DedupeView, view_rows.len(), self.view_counts, self.immediate),
        };
        let tables = SinkTables {
            append_only: run.sinks().append_only.shared(),
            upsert: self.upsert_rows.into(),
            transactional: committed,
            commits: run.sinks().transactional.commits().into(),
            dedupe_view: view_rows.into(),
            read_uncommitted,
            keys: self.keys.and_then(|keys| keys.0).map(Arc::new),
            emissions: self.emissions.as_deref().map(|emitted| EmissionRows {
                ends: emitted
                    .iter()
                    .scan(0, |end, &(_, _, rows)| {
                        *end += rows as usize;
                        Some(*end)
                    })
                    .collect(),
            }),
            recoveries: run
                .recoveries
                .iter()
                .map(|r| RolledBack {
                    crashed_at_ms: r.crashed_at_ms,
                    crashed_attempt: r.crashed_attempt,
                    restored_id: r.restored.id(),
                    restored_barrier_at_ms: r.restored.started_at_ms(),
                    caught_up_at_ms: r.caught_up_at_ms,
                })
                .collect(),
        };
        (sinks, tables)
    }
}
