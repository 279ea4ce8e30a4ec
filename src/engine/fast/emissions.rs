//! The sink tables read emission by emission. In barrier mode an emission is every changed key's
//! running total up to one emit boundary, and what it holds depends only on the events up to
//! that boundary: every attempt that emits boundary b writes the rows the failure-free run wrote
//! for b, in the same order, with its own time, attempt and epoch. So a crashed run's append-only
//! table is a few stretches of the failure-free table (one per attempt, the replay starting again
//! before where the crashed attempt stopped), and its committed rows are whole transactions of
//! those stretches. Their duplicate rows, keys, dedupe view and whether they hold the failure-free
//! rows follow from which failure-free rows each stretch covers, without going over the rows.
//!
//! That holds where the events are a pure function of their position, the state is restored
//! exactly and nothing is lost: no producer retries (whether a retry counts depends on the dedupe
//! state), exactly-once checkpoints (an at-least-once snapshot may hold events past its barrier,
//! which the replay counts again) and no rewind past the log's retention. Anything else, or an
//! emission that does not line up with the failure-free table, and the report reads every row.
//!
//! The reference is that row-by-row reading (the tables' own surveys in
//! `crate::engine::model::sinks` and [`SinkTables::history_by_scan`](crate::engine::model::report::SinkTables::history_by_scan));
//! tests/fast_path.rs holds the two to the same figures and key histories, and the tests below
//! to the same layouts.

use crate::engine::model::sinks::keys::KeyIndex;
use crate::engine::model::sinks::Row;

/// The failure-free table by emit boundary and by key, worked out once per failure-free table.
#[derive(Clone, Debug)]
pub struct TruthEmissions {
    /// The boundaries the table holds rows for, ascending.
    boundaries: Vec<u64>,
    /// Where each boundary's rows end in the table (they start where the previous one's end).
    ends: Vec<u32>,
    /// The table's row indices per key slot, ascending: slot s's are
    /// `rows_by_slot[slot_starts[s]..slot_starts[s + 1]]`.
    slot_starts: Vec<u32>,
    rows_by_slot: Vec<u32>,
}

impl TruthEmissions {
    /// `truth`, a failure-free table numbered by `keys`: `None` unless its rows come in boundary
    /// order and no key's running total repeats (a failure-free run writes no duplicate).
    #[inline(never)]
    pub fn new(truth: &[Row], keys: &KeyIndex) -> Option<TruthEmissions> {
        if truth.len() >= u32::MAX as usize {
            return None;
        }
        let mut boundaries: Vec<u64> = Vec::new();
        let mut ends: Vec<u32> = Vec::new();
        let mut slot_starts = vec![0u32; keys.slots() + 1];
        let mut finder = keys.finder();
        for (i, row) in truth.iter().enumerate() {
            match boundaries.last() {
                Some(&last) if last == u64::from(row.boundary_ms) => {}
                Some(&last) if last > u64::from(row.boundary_ms) => return None,
                Some(_) => {
                    ends.push(i as u32);
                    boundaries.push(row.boundary_ms.into());
                }
                None => boundaries.push(row.boundary_ms.into()),
            }
            slot_starts[finder.slot(row) + 1] += 1;
        }
        if !truth.is_empty() {
            ends.push(truth.len() as u32);
        }
        for s in 1..slot_starts.len() {
            slot_starts[s] += slot_starts[s - 1];
        }
        let mut rows_by_slot = vec![0u32; truth.len()];
        let mut next = slot_starts.clone();
        for (i, row) in truth.iter().enumerate() {
            let s = finder.slot(row);
            // Rows of one key come in write order: their totals must grow.
            if next[s] > slot_starts[s]
                && truth[rows_by_slot[next[s] as usize - 1] as usize].order_count >= row.order_count
            {
                return None;
            }
            rows_by_slot[next[s] as usize] = i as u32;
            next[s] += 1;
        }
        Some(TruthEmissions { boundaries, ends, slot_starts, rows_by_slot })
    }

    /// Where boundary `k`'s rows start in the table.
    fn start(&self, k: usize) -> u32 {
        if k == 0 {
            0
        } else {
            self.ends[k - 1]
        }
    }

    /// Each key's newest row of the failure-free table `truth` this was worked out from (its
    /// last: a key's totals grow in write order), ordered by window start then product: what an
    /// upsert reader of that table sees.
    pub fn newest_rows(&self, truth: &[Row]) -> Vec<Row> {
        (0..self.slot_starts.len() - 1).filter_map(|s| self.slot_rows(s).last().map(|&i| truth[i as usize])).collect()
    }

    /// The rows of one key slot, as table indices.
    fn slot_rows(&self, s: usize) -> &[u32] {
        &self.rows_by_slot[self.slot_starts[s] as usize..self.slot_starts[s + 1] as usize]
    }
}

/// Part of a table that holds, row for row, the failure-free rows `from..to` (whole boundaries,
/// or whole transactions of them), from the table's row `at` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    at: usize,
    from: u32,
    to: u32,
}

impl Piece {
    fn len(&self) -> usize {
        (self.to - self.from) as usize
    }
}

/// A table laid out as pieces of the failure-free table, in table order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pieces: Vec<Piece>,
    rows: usize,
}

impl Layout {
    /// The layout of the append-only table `rows`, written as `emitted` (each emission's
    /// boundary and row count, in write order), against the failure-free table `truth`: a stretch
    /// of consecutive boundaries per attempt. `None` when an emission does not line up with the
    /// failure-free table (another boundary, another row count, a boundary skipped, or its first
    /// or last row another content): the rows are then read one by one.
    #[inline(never)]
    pub fn of_emissions(
        rows: &[Row],
        emitted: impl IntoIterator<Item = (u64, u64)>,
        truth: &[Row],
        t: &TruthEmissions,
    ) -> Option<Layout> {
        // (first, last) boundary index of each stretch, and where it starts in the table.
        let mut stretches: Vec<(usize, usize, usize)> = Vec::new();
        let (mut at, mut newest_k) = (0usize, None::<usize>);
        for (boundary_ms, n) in emitted {
            if n == 0 {
                continue;
            }
            // Most emissions are the boundary after the stretch's last one.
            let k = match stretches.last() {
                Some(&(_, last, _)) if t.boundaries.get(last + 1) == Some(&boundary_ms) => last + 1,
                _ => t.boundaries.binary_search(&boundary_ms).ok()?,
            };
            let (from, to) = (t.start(k) as usize, t.ends[k] as usize);
            if (to - from) as u64 != n {
                return None;
            }
            // Lined up by design (see the module's doc): checked at both ends of each emission.
            let same = |i: usize, j: usize| rows.get(i).map(Row::content) == truth.get(j).map(Row::content);
            if !same(at, from) || !same(at + n as usize - 1, to - 1) {
                return None;
            }
            match stretches.last_mut() {
                Some(s) if k == s.1 + 1 => s.1 = k,
                // A replay starts again at or before where the run had got to, never past it.
                Some(_) if newest_k.is_some_and(|newest| k <= newest + 1) => stretches.push((k, k, at)),
                None if k == 0 => stretches.push((k, k, at)),
                _ => return None,
            }
            newest_k = Some(newest_k.map_or(k, |newest| newest.max(k)));
            at += n as usize;
        }
        (at == rows.len()).then(|| Layout {
            pieces: stretches
                .iter()
                .map(|&(first, last, at)| Piece { at, from: t.start(first), to: t.ends[last] })
                .collect(),
            rows: rows.len(),
        })
    }

    /// The layout of a table made of `ranges` of this one, in order (the committed rows: each
    /// commit copies its transactions' rows from the append-only table).
    #[inline(never)]
    pub fn of_ranges(&self, ranges: &[std::ops::Range<usize>]) -> Option<Layout> {
        let mut pieces = Vec::new();
        let mut at = 0;
        for range in ranges {
            if range.end > self.rows {
                return None;
            }
            let first = self.pieces.partition_point(|p| p.at + p.len() <= range.start);
            for p in &self.pieces[first..] {
                if p.at >= range.end {
                    break;
                }
                let (a, b) = (range.start.max(p.at), range.end.min(p.at + p.len()));
                let from = p.from + (a - p.at) as u32;
                pieces.push(Piece { at: at + (a - range.start), from, to: from + (b - a) as u32 });
            }
            at += range.len();
        }
        Some(Layout { pieces, rows: at })
    }

    /// Whether the layout accounts for a table of `rows` rows.
    pub fn holds(&self, rows: usize) -> bool {
        self.rows == rows
    }

    /// The failure-free rows the table holds, as ascending, disjoint ranges.
    #[inline(never)]
    fn covered(&self) -> Vec<(u32, u32)> {
        // Pieces come nearly in order (a replay steps back once): an insertion sort, with no
        // general sort's code in the module.
        let mut ranges: Vec<(u32, u32)> = Vec::with_capacity(self.pieces.len());
        for p in &self.pieces {
            let at = ranges.iter().rposition(|&r| r <= (p.from, p.to)).map_or(0, |i| i + 1);
            ranges.insert(at, (p.from, p.to));
        }
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (from, to) in ranges {
            match merged.last_mut() {
                Some(last) if from <= last.1 => last.1 = last.1.max(to),
                _ => merged.push((from, to)),
            }
        }
        merged
    }

    /// Rows repeating an earlier row: a failure-free row held more than once is held again.
    pub fn duplicate_rows(&self) -> u64 {
        let covered: u64 = self.covered().iter().map(|&(from, to)| u64::from(to - from)).sum();
        self.rows as u64 - covered
    }

    /// Distinct (product_id, window_start) keys: those of the failure-free rows held.
    #[inline(never)]
    pub fn keys(&self, t: &TruthEmissions, slots: usize) -> u64 {
        let covered = self.covered();
        (0..slots)
            .filter(|&s| {
                let rows = t.slot_rows(s);
                covered.iter().any(|&(from, to)| rows.get(rows.partition_point(|&i| i < from)).is_some_and(|&i| i < to))
            })
            .count() as u64
    }

    /// Whether the table holds the first `n` failure-free rows, each once, and nothing else.
    pub fn holds_once(&self, n: usize) -> bool {
        let covered = self.covered();
        self.rows == n && (n == 0 || covered == [(0, n as u32)])
    }

    /// The newest failure-free row (the largest index) among the table's rows `from..to`.
    #[inline(never)]
    pub fn newest_within(&self, from: usize, to: usize) -> Option<u32> {
        let first = self.pieces.partition_point(|p| p.at + p.len() <= from);
        self.pieces[first..]
            .iter()
            .take_while(|p| p.at < to)
            .map(|p| p.from + (to.min(p.at + p.len()) - p.at) as u32 - 1)
            .max()
    }

    /// What an upsert reader of `rows`, laid out so, sees at the end (per key the row written
    /// last, ordered by window start then product), and how many writes replaced a key's row
    /// with a smaller total. In a piece a key's writes are its failure-free rows in order, each
    /// total larger than the one before. From one piece holding the key to the next, the first
    /// write is smaller than the last one before exactly when it is an earlier failure-free row.
    #[inline(never)]
    pub fn upsert(&self, rows: &[Row], t: &TruthEmissions, slots: usize) -> (Vec<Row>, u64) {
        let (mut table, mut regressions) = (Vec::new(), 0);
        for s in 0..slots {
            let slot_rows = t.slot_rows(s);
            // (failure-free row, table row) of the key's last write so far.
            let mut last: Option<(u32, usize)> = None;
            for p in &self.pieces {
                let (first, end) =
                    (slot_rows.partition_point(|&i| i < p.from), slot_rows.partition_point(|&i| i < p.to));
                if first == end {
                    continue;
                }
                if last.is_some_and(|(newest, _)| slot_rows[first] < newest) {
                    regressions += 1;
                }
                let newest = slot_rows[end - 1];
                last = Some((newest, p.at + (newest - p.from) as usize));
            }
            table.extend(last.map(|(_, at)| rows[at]));
        }
        (table, regressions)
    }

    /// The dedupe view of `rows`, laid out so: per key the newest of its rows by the view's rule
    /// (the latest emitted_at, then the larger count, then the later write), ordered by window
    /// start then product. In a piece a key's newest row is its last failure-free row there.
    #[inline(never)]
    pub fn newest(&self, rows: &[Row], t: &TruthEmissions, slots: usize) -> Vec<Row> {
        let mut newest = Vec::new();
        for s in 0..slots {
            let slot_rows = t.slot_rows(s);
            let mut best: Option<Row> = None;
            for p in &self.pieces {
                let below = slot_rows.partition_point(|&i| i < p.to);
                let Some(&i) = slot_rows[..below].last().filter(|&&i| i >= p.from) else { continue };
                let row = rows[p.at + (i - p.from) as usize];
                // Later in write order wins a full tie, hence >=.
                if best.is_none_or(|b| (row.emitted_at_ms, row.order_count) >= (b.emitted_at_ms, b.order_count)) {
                    best = Some(row);
                }
            }
            newest.extend(best);
        }
        newest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::trace::Event;
    use crate::engine::settings::config::{Alignment, CheckpointingMode, Config, Mode};

    /// The run's table laid out emission by emission, against the failure-free table.
    fn read_run(config: &Config) -> (Option<(Layout, TruthEmissions)>, Vec<Row>, KeyIndex) {
        let outcome = crate::engine::run(config).expect("valid");
        let rows = outcome.run.sinks().append_only.rows().to_vec();
        let truth = outcome.truth().sinks().append_only.rows();
        let keys = KeyIndex::of(&[&rows, truth]).expect("dense keys");
        let by_boundary = TruthEmissions::new(truth, &keys).expect("a failure-free table in boundary order");
        let emitted = outcome.run.trace.events.iter().filter_map(|e| match e.event {
            Event::Emitted { boundary_ms, rows } => Some((boundary_ms, rows)),
            _ => None,
        });
        (Layout::of_emissions(&rows, emitted, truth, &by_boundary).map(|l| (l, by_boundary)), truth.to_vec(), keys)
    }

    #[test]
    fn read_by_emission_the_table_holds_what_its_rows_hold() {
        let start = Config::default().start_time_ms;
        for config in [
            Config::default(),
            Config { crash_at_ms: None, ..Config::default() },
            Config { interval_ms: 1_000, crash_at_ms: Some(start + 31_000), ..Config::default() },
            Config { alignment: Alignment::Unaligned, backpressure_ms: 3_000, ..Config::default() },
            // A crash too late to catch up by the horizon: the replay ends before the crashed
            // attempt's newest boundary.
            Config { crash_at_ms: Some(start + 575_000), ..Config::default() },
            // Restarted at once, with a tiny state: the replay's rows can share a crashed
            // attempt's emission time.
            Config {
                crash_at_ms: Some(start + 44_000),
                state_bytes: 1_000,
                detection_ms: Some(0),
                restart_delay_ms: 0,
                ..Config::default()
            },
        ] {
            let (table, truth, keys) = read_run(&config);
            let (layout, t) = table.unwrap_or_else(|| panic!("lines up with the failure-free table: {config:?}"));
            let outcome = crate::engine::run(&config).expect("valid");
            let rows = outcome.run.sinks().append_only.rows();
            let survey = keys.survey(rows, true);
            let slots = keys.slots();
            assert_eq!(
                (layout.duplicate_rows(), layout.keys(&t, slots)),
                (survey.duplicate_rows, survey.keys),
                "{config:?}"
            );
            assert_eq!(layout.newest(rows, &t, slots), survey.newest, "{config:?}");
            assert_eq!(layout.holds_once(truth.len()), keys.same_contents(rows, &truth), "{config:?}");
            // The committed rows, laid out from the ranges of the append-only table they copy.
            let sink = &outcome.run.sinks().transactional;
            let committed = layout.of_ranges(sink.committed_ranges()).expect("within the table");
            let committed_rows = &outcome.run.sinks().committed_rows()[..];
            assert_eq!(
                (committed.duplicate_rows(), committed.keys(&t, slots)),
                keys.duplicates_and_keys(committed_rows),
                "{config:?}"
            );
            let mut seen = 0;
            for &(_, _, upto) in sink.commits() {
                let newest = committed.newest_within(seen, upto).map(|i| truth[i as usize].boundary_ms);
                assert_eq!(newest, committed_rows[seen..upto].iter().map(|r| r.boundary_ms).max(), "{config:?}");
                seen = upto;
            }
            let prefix = truth
                .partition_point(|r| r.boundary_ms <= committed_rows.iter().map(|r| r.boundary_ms).max().unwrap_or(0));
            assert_eq!(
                committed.holds_once(prefix),
                keys.same_contents(committed_rows, &truth[..prefix]),
                "{config:?}"
            );
        }
    }

    #[test]
    fn tables_that_do_not_line_up_are_refused() {
        let (table, ..) = read_run(&Config { mode: Mode::MicroBatch, ..Config::default() });
        assert!(table.is_none(), "a batch's rows are its trigger's, not an emit boundary's");
        // At least once, the restore counts again what the snapshot took in past its barrier:
        // the replayed emissions hold the same keys with other counts.
        let start = Config::default().start_time_ms;
        let (table, ..) = read_run(&Config {
            checkpointing_mode: CheckpointingMode::AtLeastOnce,
            interval_ms: 5_000,
            backpressure_ms: 1_500,
            crash_at_ms: Some(start + 10_000),
            horizon_ms: 180_000,
            ..Config::default()
        });
        assert!(table.is_none(), "an emission's contents are checked, not only its row count");
    }
}
