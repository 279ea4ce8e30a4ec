//! The keys of the sink tables: every (window_start, product_id) a table holds, numbered densely
//! as slots in the order readers list keys (window start, then product). Comparing tables,
//! counting their keys and duplicate rows, and reading the dedupe view go through these slots:
//! a table's rows are grouped per key in one pass, with no sort over the whole table.

use super::Row;

/// Slots per row above which the dense numbering would be mostly empty; callers fall back to
/// sorting the rows instead.
const MAX_SLOTS_PER_ROW: usize = 4;
/// Slots always allowed, however few the rows.
const MIN_SLOTS: usize = 4096;

/// The windows and products of some tables: slot = window index × products + product id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyIndex {
    /// Distinct window starts, ascending.
    windows: Vec<u64>,
    /// One past the largest product id.
    products: usize,
}

impl KeyIndex {
    /// The keys of every table in `tables`, or `None` when numbering them densely would take
    /// far more slots than the tables have rows (product ids or windows spread very thin).
    pub fn of(tables: &[&[Row]]) -> Option<KeyIndex> {
        KeyIndex::joined(tables, &KeyIndex::default(), 0)
    }

    /// The keys of every table in `tables` and of `known_rows` rows indexed by `known`: what
    /// [`KeyIndex::of`] gives for all those tables together, without going over the known ones
    /// again.
    pub fn joined(tables: &[&[Row]], known: &KeyIndex, known_rows: usize) -> Option<KeyIndex> {
        let mut windows: Vec<u64> = known.windows.clone();
        let mut products = known.products;
        let mut rows = known_rows;
        for table in tables {
            rows += table.len();
            let Some(first) = table.first() else { continue };
            let mut last_start_ms = u64::from(first.window_start_ms);
            note_window(&mut windows, last_start_ms);
            let mut largest_product = 0;
            for row in table.iter() {
                // Consecutive rows mostly share a window: only a change of window is looked up.
                if u64::from(row.window_start_ms) != last_start_ms {
                    last_start_ms = u64::from(row.window_start_ms);
                    note_window(&mut windows, last_start_ms);
                }
                largest_product = largest_product.max(row.product_id);
            }
            products = products.max(largest_product as usize + 1);
        }
        let slots = windows.len().checked_mul(products)?;
        let fits = slots <= MIN_SLOTS.max(rows.saturating_mul(MAX_SLOTS_PER_ROW)) && slots < u32::MAX as usize;
        fits.then_some(KeyIndex { windows, products })
    }

    /// Slots: one per (window, product) pair, whether a table holds it or not.
    pub fn slots(&self) -> usize {
        self.windows.len() * self.products
    }

    /// A slot finder for rows of the indexed tables.
    pub fn finder(&self) -> SlotFinder<'_> {
        SlotFinder { index: self, last_start_ms: self.windows.first().copied().unwrap_or(0), last_window: 0 }
    }

    /// Duplicate rows (repeating an earlier row's product, window and count) and distinct keys of
    /// `rows`, one of the indexed tables.
    pub fn duplicates_and_keys(&self, rows: &[Row]) -> (u64, u64) {
        let survey = self.survey(rows, false);
        (survey.duplicate_rows, survey.keys)
    }

    /// The dedupe view over `rows` (one of the indexed tables, in write order): per key the row
    /// with the latest emitted_at, then the larger count, then the later write; ordered by window
    /// start then product (see [`super::dedupe_view`]).
    pub fn newest(&self, rows: &[Row]) -> Vec<Row> {
        self.survey(rows, true).newest
    }

    /// Duplicate rows, keys and (when `view`) the dedupe view of `rows`, one of the indexed
    /// tables. One pass ([`KeyIndex::first_pass`]) finds each key's newest row, its largest count
    /// and whether its counts only grow in write order (one writer, no replay: no duplicate).
    /// The rows of the other keys are then marked count by count in a bitset per key
    /// ([`KeyIndex::finish_survey`]), so a count seen again is a duplicate. Keys whose counts are
    /// too large for a bitset go through a sort instead.
    pub fn survey(&self, rows: &[Row], view: bool) -> Survey {
        let first = self.first_pass(rows, view);
        self.finish_survey(first, rows)
    }

    /// The first of [`KeyIndex::survey`]'s two passes over `rows`.
    pub fn first_pass(&self, rows: &[Row], view: bool) -> FirstPass {
        let mut seen = vec![KeySeen { top: 0, repeats: false, emitted_at_ms: 0, order_count: 0, at: 0 }; self.slots()];
        let mut finder = self.finder();
        for (i, row) in rows.iter().enumerate() {
            let key = &mut seen[finder.slot(row)];
            let count = u64::from(row.order_count);
            key.repeats |= count < key.top;
            // Later in write order wins a full tie, hence >=.
            if view && (key.top == 0 || (row.emitted_at_ms, row.order_count) >= (key.emitted_at_ms, key.order_count)) {
                (key.emitted_at_ms, key.order_count, key.at) = (row.emitted_at_ms, row.order_count, i as u32);
            }
            key.top = key.top.max(count + 1);
        }
        let keys = seen.iter().filter(|k| k.top > 0).count() as u64;
        let newest =
            if view { seen.iter().filter(|k| k.top > 0).map(|k| rows[k.at as usize]).collect() } else { Vec::new() };
        FirstPass { seen, keys, newest }
    }

    /// The second of [`KeyIndex::survey`]'s passes: the duplicates, over the same `rows`.
    pub fn finish_survey(&self, first: FirstPass, rows: &[Row]) -> Survey {
        let FirstPass { seen, keys, newest } = first;
        let mut repeats = RepeatBits::new(&seen);
        let duplicate_rows = if repeats.bits == 0 {
            0
        } else if !repeats.fit(rows) {
            count_grouped(&self.grouped_contents(rows)).0
        } else {
            let mut finder = self.finder();
            rows.iter().map(|row| u64::from(repeats.seen_again(finder.slot(row), row))).sum()
        };
        Survey { duplicate_rows, keys, newest }
    }

    /// Calls `each(i, duplicates, keys)` for every row of `rows` (one of the indexed tables), in
    /// write order, with the duplicate rows and the distinct keys among the first i + 1 rows.
    /// Returns false, calling nothing, when the counts are too large for bitsets (see
    /// [`KeyIndex::survey`]).
    pub fn running_counts(&self, rows: &[Row], mut each: impl FnMut(usize, u32, u32)) -> bool {
        let FirstPass { seen, .. } = self.first_pass(rows, false);
        let mut repeats = RepeatBits::new(&seen);
        if !repeats.fit(rows) {
            return false;
        }
        let mut known = vec![false; self.slots()];
        let (mut duplicates, mut keys) = (0u32, 0u32);
        let mut finder = self.finder();
        for (i, row) in rows.iter().enumerate() {
            let slot = finder.slot(row);
            if !known[slot] {
                known[slot] = true;
                keys += 1;
            }
            duplicates += u32::from(repeats.seen_again(slot, row));
            each(i, duplicates, keys);
        }
        true
    }

    /// The content of `rows` grouped by slot, each as (slot << 32 | order_count), ascending: two
    /// tables hold the same (product, window, count) rows in some order exactly when their
    /// grouped contents are equal. Rows of one key come in a few ascending runs (one per attempt
    /// that wrote it), so sorting each group merges them.
    pub fn grouped_contents(&self, rows: &[Row]) -> Vec<u64> {
        // Counting sort by slot: starts[s] is where slot s's group begins.
        let mut starts = vec![0u32; self.slots() + 1];
        let mut finder = self.finder();
        for row in rows {
            starts[finder.slot(row) + 1] += 1;
        }
        for s in 1..starts.len() {
            starts[s] += starts[s - 1];
        }
        let mut out = vec![0u64; rows.len()];
        let mut next = starts.clone();
        for row in rows {
            let s = finder.slot(row);
            out[next[s] as usize] = ((s as u64) << 32) | u64::from(row.order_count);
            next[s] += 1;
        }
        for group in starts.windows(2) {
            let group = &mut out[group[0] as usize..group[1] as usize];
            if !group.is_sorted() {
                group.sort_unstable();
            }
        }
        out
    }

    /// Whether two of the indexed tables hold the same rows (product, window, count), in any order.
    pub fn same_contents(&self, a: &[Row], b: &[Row]) -> bool {
        a.len() == b.len() && (super::same_in_order(a, b) || self.grouped_contents(a) == self.grouped_contents(b))
    }
}

/// What [`KeyIndex::first_pass`] knows of one key.
#[derive(Clone, Copy, Debug)]
struct KeySeen {
    /// The largest count so far, plus one (0: no row yet).
    top: u64,
    /// A count did not exceed the one before it.
    repeats: bool,
    /// The newest row so far: its (emitted_at, order_count) and position.
    emitted_at_ms: u32,
    order_count: u32,
    at: u32,
}

/// What the first of [`KeyIndex::survey`]'s passes found: every key, and its newest row.
#[derive(Clone, Debug)]
pub struct FirstPass {
    seen: Vec<KeySeen>,
    keys: u64,
    newest: Vec<Row>,
}

/// What [`KeyIndex::survey`] finds in a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Survey {
    /// Rows repeating an earlier row's (product_id, window_start, order_count).
    pub duplicate_rows: u64,
    /// Distinct (product_id, window_start) keys.
    pub keys: u64,
    /// The dedupe view: the newest row per key, ordered by window start then product (empty
    /// unless asked for).
    pub newest: Vec<Row>,
}

/// Adds `start_ms` to the ascending `windows` if it is not there yet.
fn note_window(windows: &mut Vec<u64>, start_ms: u64) {
    if let Err(i) = windows.binary_search(&start_ms) {
        windows.insert(i, start_ms);
    }
}

/// A bitset of counts for each key whose counts do not only grow in write order (only those can
/// repeat one): one bit per count up to the key's largest, marked as rows go by.
struct RepeatBits {
    /// Each slot's first bit, or u64::MAX for a key whose counts only grow.
    offsets: Vec<u64>,
    bits: u64,
    marked: Vec<u64>,
}

impl RepeatBits {
    fn new(seen: &[KeySeen]) -> RepeatBits {
        let mut offsets = vec![u64::MAX; seen.len()];
        let mut bits = 0u64;
        for (offset, key) in offsets.iter_mut().zip(seen) {
            if key.repeats {
                *offset = bits;
                bits += key.top;
            }
        }
        RepeatBits { offsets, bits, marked: Vec::new() }
    }

    /// Whether the bitsets are small enough for `rows` (at most 64 bits a row); they are then
    /// made, all clear.
    fn fit(&mut self, rows: &[Row]) -> bool {
        let fits = self.bits <= (rows.len() as u64).saturating_mul(64);
        if fits {
            self.marked = vec![0u64; self.bits.div_ceil(64) as usize];
        }
        fits
    }

    /// Marks `row`'s count in its key's (`slot`'s) bitset; true when it was marked already.
    fn seen_again(&mut self, slot: usize, row: &Row) -> bool {
        let offset = self.offsets[slot];
        if offset == u64::MAX {
            return false;
        }
        let bit = offset + u64::from(row.order_count);
        let word = &mut self.marked[(bit / 64) as usize];
        let mask = 1u64 << (bit % 64);
        let again = *word & mask != 0;
        *word |= mask;
        again
    }
}

/// Finds rows' slots, remembering the last window: consecutive rows mostly share one.
pub struct SlotFinder<'a> {
    index: &'a KeyIndex,
    last_start_ms: u64,
    last_window: usize,
}

impl SlotFinder<'_> {
    /// The slot of `row`, a row of one of the indexed tables.
    pub fn slot(&mut self, row: &Row) -> usize {
        if u64::from(row.window_start_ms) != self.last_start_ms {
            self.last_window =
                self.index.windows.binary_search(&u64::from(row.window_start_ms)).expect("an indexed window");
            self.last_start_ms = u64::from(row.window_start_ms);
        }
        debug_assert!((row.product_id as usize) < self.index.products, "an indexed product");
        self.last_window * self.index.products + row.product_id as usize
    }
}

/// Duplicate rows and distinct keys among grouped contents (see [`KeyIndex::grouped_contents`]).
fn count_grouped(grouped: &[u64]) -> (u64, u64) {
    let mut duplicates = 0;
    let mut keys = u64::from(!grouped.is_empty());
    for pair in grouped.windows(2) {
        duplicates += u64::from(pair[0] == pair[1]);
        keys += u64::from(pair[0] >> 32 != pair[1] >> 32);
    }
    (duplicates, keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the tables below are the same on every run.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }
    }

    fn row(product_id: u32, window_start_ms: u32, order_count: u32, emitted_at_ms: u32) -> Row {
        Row { product_id, window_start_ms, order_count, emitted_at_ms, boundary_ms: 0, attempt: 1, epoch: 1 }
    }

    /// Tables like the sinks hold: attempts writing growing running totals per key, each later
    /// attempt replaying from an earlier point, windows out of order and product ids with gaps.
    fn table(seed: u64) -> Vec<Row> {
        let mut rng = Lcg(seed);
        let mut rows = Vec::new();
        let windows = [300_000, 0, 600_000, 36_000_000];
        let mut at = 36_000_000;
        for _attempt in 0..1 + rng.below(3) {
            let mut counts = [0u32; 64];
            let start = rng.below(4) as u32;
            for _ in 0..rng.below(400) {
                let product = (rng.below(8) * 7) as u32;
                let window = windows[rng.below(if seed % 2 == 0 { 1 } else { 4 }) as usize];
                let slot = (product as usize + window as usize) % 64;
                counts[slot] += start + rng.below(3) as u32;
                at += rng.below(3);
                rows.push(row(product, window, counts[slot], at as u32));
            }
        }
        rows
    }

    fn reference_duplicates_and_keys(rows: &[Row]) -> (u64, u64) {
        let mut packed: Vec<u128> = rows.iter().map(Row::packed).collect();
        packed.sort_unstable();
        let duplicates = packed.windows(2).filter(|w| w[0] == w[1]).count() as u64;
        let keys = 1 + packed.windows(2).filter(|w| w[0] >> 32 != w[1] >> 32).count() as u64;
        (duplicates, if packed.is_empty() { 0 } else { keys })
    }

    fn reference_view(rows: &[Row]) -> Vec<Row> {
        let mut latest = std::collections::BTreeMap::new();
        for row in rows {
            let best: &mut Option<Row> = latest.entry((row.window_start_ms, row.product_id)).or_default();
            if best.is_none_or(|b| (row.emitted_at_ms, row.order_count) >= (b.emitted_at_ms, b.order_count)) {
                *best = Some(*row);
            }
        }
        latest.into_values().flatten().collect()
    }

    #[test]
    fn counts_and_views_match_sorting_the_whole_table() {
        let mut with_duplicates = 0;
        for seed in 0..300 {
            let rows = table(seed);
            let index = KeyIndex::of(&[&rows]).expect("dense enough");
            with_duplicates += usize::from(index.duplicates_and_keys(&rows).0 > 0);
            assert_eq!(index.duplicates_and_keys(&rows), reference_duplicates_and_keys(&rows), "seed {seed}");
            assert_eq!(count_grouped(&index.grouped_contents(&rows)), reference_duplicates_and_keys(&rows));
            assert_eq!(index.newest(&rows), reference_view(&rows), "seed {seed}");
            let mut shuffled = rows.clone();
            shuffled.reverse();
            let other = table(seed + 1000);
            let both = KeyIndex::of(&[&rows, &other]).expect("dense enough");
            assert!(both.same_contents(&rows, &shuffled));
            let sorted = |rows: &[Row]| {
                let mut c: Vec<u128> = rows.iter().map(Row::packed).collect();
                c.sort_unstable();
                c
            };
            assert_eq!(both.same_contents(&rows, &other), sorted(&rows) == sorted(&other), "seed {seed}");
        }
        assert!(with_duplicates > 100, "the tables exercise repeated counts: {with_duplicates}");
    }

    #[test]
    fn a_table_joined_to_a_known_index_is_indexed_as_both_together() {
        for seed in 0..100 {
            let (a, b) = (table(seed), table(seed + 500));
            let known = KeyIndex::of(&[&b]).expect("dense enough");
            assert_eq!(KeyIndex::joined(&[&a], &known, b.len()), KeyIndex::of(&[&a, &b]), "seed {seed}");
        }
        // The rows of the known tables count toward how densely keys may be numbered.
        let thin = [row(0, 0, 1, 0), row(3_000, 300_000, 1, 0)];
        let many: Vec<Row> = (0..2_000).map(|i| row(i % 3_000, 0, i + 1, 0)).collect();
        let known = KeyIndex::of(&[&many]).expect("dense");
        assert_eq!(KeyIndex::joined(&[&thin], &known, many.len()), KeyIndex::of(&[&thin, &many]));
    }

    #[test]
    fn keys_spread_too_thin_are_not_numbered() {
        let rows = [row(0, 0, 1, 0), row(4_000_000, 300_000, 1, 0)];
        assert!(KeyIndex::of(&[&rows]).is_none());
        assert_eq!(super::super::duplicates_and_keys(&rows), (0, 2));
        assert_eq!(super::super::dedupe_view::read(&rows).len(), 2);
    }
}
