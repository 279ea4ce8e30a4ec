//! The append-only table read emission by emission. In barrier mode an emission is every changed
//! key's running total up to one emit boundary, and what it holds depends only on the events up
//! to that boundary: every attempt that emits boundary b writes the rows the failure-free run
//! wrote for b, in the same order, with its own time, attempt and epoch. So a crashed run's table
//! is a few stretches of the failure-free table (one per attempt, the replay starting again
//! before where the crashed attempt stopped), and its duplicate rows, keys and dedupe view
//! follow from which boundaries each stretch covers, without going over its rows.
//!
//! That holds where the events are a pure function of their position, the state is restored
//! exactly and nothing is lost: no producer retries (whether a retry counts depends on the dedupe
//! state), exactly-once checkpoints (an at-least-once snapshot may hold events past its barrier,
//! which the replay counts again) and no rewind past the log's retention. Anything else, or any emission that does not line up with the failure-free
//! table, and the report goes over the rows instead.

use super::keys::KeyIndex;
use super::Row;

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
                Some(&last) if last == row.boundary_ms => {}
                Some(&last) if last > row.boundary_ms => return None,
                Some(_) => {
                    ends.push(i as u32);
                    boundaries.push(row.boundary_ms);
                }
                None => boundaries.push(row.boundary_ms),
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

    /// The rows of one key slot, as table indices.
    fn slot_rows(&self, s: usize) -> &[u32] {
        &self.rows_by_slot[self.slot_starts[s] as usize..self.slot_starts[s + 1] as usize]
    }
}

/// A stretch of a run's table that holds, row for row, the failure-free rows of boundaries
/// `first..=last` (their indices in [`TruthEmissions`]), from row `at` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stretch {
    first: usize,
    last: usize,
    at: usize,
}

/// What the emission-by-emission reading finds in a run's append-only table.
#[derive(Clone, Debug, PartialEq)]
pub struct EmittedTable {
    /// Rows repeating an earlier row: every row of a boundary emitted again.
    pub duplicate_rows: u64,
    /// Distinct (product_id, window_start) keys.
    pub keys: u64,
    /// The dedupe view: per key the newest row, ordered by window start then product.
    pub newest: Vec<Row>,
    /// Whether the table holds exactly the failure-free table's rows, in some order.
    pub same_as_truth: bool,
}

/// Reads `rows`, a run's append-only table written as `emitted` (each emission's boundary and row
/// count, in write order), against the failure-free table `truth` of the same data. `None` when
/// an emission does not line up with the failure-free table (another boundary, another row
/// count, a boundary skipped): the rows are then read one by one.
pub fn read(
    rows: &[Row],
    emitted: impl IntoIterator<Item = (u64, u64)>,
    truth: &[Row],
    by_boundary: &TruthEmissions,
    keys: &KeyIndex,
) -> Option<EmittedTable> {
    let t = by_boundary;
    let mut stretches: Vec<Stretch> = Vec::new();
    // How many times each boundary was emitted.
    let mut times = vec![0u32; t.boundaries.len()];
    let (mut at, mut duplicate_rows, mut newest_k) = (0usize, 0u64, None::<usize>);
    for (boundary_ms, n) in emitted {
        if n == 0 {
            continue;
        }
        let k = t.boundaries.binary_search(&boundary_ms).ok()?;
        if u64::from(t.ends[k] - t.start(k)) != n {
            return None;
        }
        match stretches.last_mut() {
            Some(s) if k == s.last + 1 => s.last = k,
            // A replay starts again at or before where the run had got to, never past it.
            Some(_) if newest_k.is_some_and(|newest| k <= newest + 1) => {
                stretches.push(Stretch { first: k, last: k, at })
            }
            None if k == 0 => stretches.push(Stretch { first: k, last: k, at }),
            _ => return None,
        }
        if times[k] > 0 {
            duplicate_rows += n;
        }
        times[k] += 1;
        newest_k = Some(newest_k.map_or(k, |newest| newest.max(k)));
        at += n as usize;
    }
    if at != rows.len() {
        return None;
    }
    let Some(newest_k) = newest_k else {
        return Some(EmittedTable { duplicate_rows: 0, keys: 0, newest: Vec::new(), same_as_truth: truth.is_empty() });
    };
    let covered_end = t.ends[newest_k];
    let mut keys_found = 0u64;
    let mut newest = Vec::new();
    for s in 0..keys.slots() {
        let slot_rows = t.slot_rows(s);
        if slot_rows.first().is_none_or(|&first| first >= covered_end) {
            continue;
        }
        keys_found += 1;
        // The key's newest row in each stretch: its last failure-free row among the stretch's
        // boundaries, at the same place in the stretch. The view's rule picks among them.
        let mut best: Option<(Row, usize)> = None;
        for stretch in &stretches {
            let (from, to) = (t.start(stretch.first), t.ends[stretch.last]);
            let below = slot_rows.partition_point(|&i| i < to);
            let Some(&i) = slot_rows[..below].last().filter(|&&i| i >= from) else { continue };
            let position = stretch.at + (i - from) as usize;
            let row = rows[position];
            let wins =
                best.is_none_or(|(b, _)| (row.emitted_at_ms, row.order_count) >= (b.emitted_at_ms, b.order_count));
            if wins {
                best = Some((row, position));
            }
        }
        newest.push(best?.0);
    }
    Some(EmittedTable {
        duplicate_rows,
        keys: keys_found,
        newest,
        same_as_truth: duplicate_rows == 0 && covered_end as usize == truth.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::config::{Alignment, Config, Mode};
    use crate::engine::trace::Event;

    /// The run's table read emission by emission, against the failure-free table.
    fn read_run(config: &Config) -> (Option<EmittedTable>, Vec<Row>, KeyIndex) {
        let outcome = crate::engine::run(config).expect("valid");
        let rows = outcome.run.sinks().append_only.rows().to_vec();
        let truth = outcome.truth().sinks().append_only.rows();
        let keys = KeyIndex::of(&[&rows, truth]).expect("dense keys");
        let by_boundary = TruthEmissions::new(truth, &keys).expect("a failure-free table in boundary order");
        let emitted = outcome.run.trace.events.iter().filter_map(|e| match e.event {
            Event::Emitted { boundary_ms, rows } => Some((boundary_ms, rows)),
            _ => None,
        });
        (read(&rows, emitted, truth, &by_boundary, &keys), truth.to_vec(), keys)
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
            let table = table.unwrap_or_else(|| panic!("lines up with the failure-free table: {config:?}"));
            let rows = crate::engine::run(&config).expect("valid").run.sinks().append_only.rows().to_vec();
            let survey = keys.survey(&rows, true);
            assert_eq!((table.duplicate_rows, table.keys), (survey.duplicate_rows, survey.keys), "{config:?}");
            assert_eq!(table.newest, survey.newest, "{config:?}");
            assert_eq!(table.same_as_truth, keys.same_contents(&rows, &truth), "{config:?}");
            assert_eq!(table.duplicate_rows > 0, config.crash_at_ms.is_some(), "{config:?}");
        }
    }

    #[test]
    fn a_micro_batch_table_does_not_line_up() {
        let (table, ..) = read_run(&Config { mode: Mode::MicroBatch, ..Config::default() });
        assert!(table.is_none(), "a batch's rows are its trigger's, not an emit boundary's");
    }
}
