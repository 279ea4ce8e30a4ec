//! The four sink designs, all fed the same emissions in one run so they can be compared. A row is
//! (product_id, window_start, order_count, emitted_at); each design decides what a reader sees.

pub mod append_only;
pub mod dedupe_view;
pub mod keys;
pub mod transactional;
pub mod upsert;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::engine::settings::clock::ClockTime;

/// One row written to a sink. Laid out with the key's product and its total first: an
/// emission's rows differ only there, and are written as the row they share with those two
/// fields set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Row {
    pub product_id: u32,
    pub order_count: u32,
    pub window_start_ms: u32,
    /// Processing time the operator emitted the row (ms since midnight).
    pub emitted_at_ms: u32,
    /// Event-time boundary the running total is complete up to.
    pub boundary_ms: u32,
    /// Which job attempt wrote it (1 for the first run, 2 after the first restart, ...).
    pub attempt: u32,
    /// The checkpoint epoch (transaction) the row belongs to.
    pub epoch: u64,
}

/// A time (ms since midnight) as a row keeps it, in 32 bits: a scenario starts within a day and
/// lasts at most a day, and a run is drained for at most a day more (49 days fit).
#[inline]
pub fn row_ms(ms: u64) -> u32 {
    u32::try_from(ms).expect("a row's times fit 32 bits")
}

impl Row {
    /// The row's content without when and by whom it was written.
    pub fn content(&self) -> (u32, u64, u32) {
        (self.product_id, u64::from(self.window_start_ms), self.order_count)
    }

    /// The content packed into one integer, for fast sorting and comparing.
    pub fn packed(&self) -> u128 {
        (u128::from(self.product_id) << 96) | (u128::from(self.window_start_ms) << 32) | u128::from(self.order_count)
    }

    /// The row as a CSV line matching [`CSV_HEADER`].
    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{}",
            self.product_id,
            ClockTime(self.window_start_ms.into()),
            self.order_count,
            ClockTime(self.emitted_at_ms.into())
        )
    }
}

pub const CSV_HEADER: &str = "product_id,window_start,order_count,emitted_at";

/// A table that only grows (the append-only rows, the committed rows), shared with the report,
/// which keeps it without copying: a write after a clone copies it once. It may show only the
/// first rows of a longer table it shares (see [`Sinks::borrow_rows`]).
#[derive(Clone, Debug, Default)]
pub struct SharedRows {
    rows: Arc<Vec<Row>>,
    /// How many of `rows` this table holds.
    len: usize,
}

impl SharedRows {
    /// The first `len` of `rows`, shared.
    fn prefix(rows: Arc<Vec<Row>>, len: usize) -> SharedRows {
        SharedRows { len: len.min(rows.len()), rows }
    }

    /// The table to write to: copied first if shared, and cut to the rows it holds.
    fn table(&mut self) -> &mut Vec<Row> {
        let rows = Arc::make_mut(&mut self.rows);
        rows.truncate(self.len);
        rows
    }

    /// Appends `rows`, in order.
    pub fn extend(&mut self, rows: &[Row]) {
        if !rows.is_empty() {
            self.append_with(|table| table.extend_from_slice(rows));
        }
    }

    /// Appends the rows `append` pushes onto the table, in order.
    pub fn append_with(&mut self, append: impl FnOnce(&mut Vec<Row>)) {
        let table = self.table();
        append(table);
        self.len = table.len();
    }

    /// Room for `rows` more rows, so the table does not grow by copying itself.
    pub fn reserve(&mut self, rows: usize) {
        self.table().reserve(rows);
    }

    /// Every row, in write order.
    pub fn rows(&self) -> &[Row] {
        &self.rows[..self.len]
    }

    /// The rows, shared.
    pub fn shared(&self) -> Arc<Vec<Row>> {
        if self.len == self.rows.len() {
            Arc::clone(&self.rows)
        } else {
            Arc::new(self.rows().to_vec())
        }
    }

    /// The whole table this one shows the first rows of (itself, unless borrowed).
    pub fn whole(&self) -> &Arc<Vec<Row>> {
        &self.rows
    }

    /// Appends up to `max_rows` more of `from`'s rows, which begin with this table's; returns
    /// how many it appended.
    fn copy_part(&mut self, from: &[Row], max_rows: usize) -> usize {
        let have = self.len;
        let more = from.len().saturating_sub(have).min(max_rows);
        self.extend(&from[have..have + more]);
        more
    }
}

/// The rows of `ranges` of `appended`, in order.
fn committed_of(appended: &[Row], ranges: &[Range<usize>]) -> Vec<Row> {
    let mut rows = Vec::with_capacity(ranges.iter().map(|r| r.len()).sum());
    for range in ranges {
        rows.extend_from_slice(&appended[range.clone()]);
    }
    rows
}

/// The committed rows of a finished run, shared: ranges of its append-only table, in commit
/// order. A commit copies no row; the rows are made once, when something first reads them
/// whole (the export, a reader's table); what the report and the pipeline view ask of them is
/// answered from the ranges.
#[derive(Clone, Debug, Default)]
pub struct CommittedRows {
    appended: Arc<Vec<Row>>,
    ranges: Arc<[Range<usize>]>,
    len: usize,
    rows: OnceLock<Arc<Vec<Row>>>,
}

impl CommittedRows {
    pub fn new(appended: Arc<Vec<Row>>, ranges: &[Range<usize>]) -> CommittedRows {
        debug_assert!(ranges.iter().all(|r| r.end <= appended.len()), "ranges of the table");
        let len = ranges.iter().map(|r| r.len()).sum();
        CommittedRows { appended, ranges: ranges.into(), len, rows: OnceLock::new() }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The committed rows [seen, upto) as pieces of the append-only table, in order.
    pub fn pieces(&self, seen: usize, upto: usize) -> Vec<Range<usize>> {
        let mut pieces = Vec::new();
        let mut from = 0;
        for range in self.ranges.iter() {
            let to = from + range.len();
            if to > seen && from < upto {
                pieces.push(range.start + seen.saturating_sub(from)..range.end - to.saturating_sub(upto));
            }
            from = to;
        }
        pieces
    }

    /// The committed rows `part` (a range of them), read from the append-only table.
    pub fn range(&self, part: Range<usize>) -> impl Iterator<Item = &Row> {
        self.pieces(part.start, part.end).into_iter().flat_map(|piece| &self.appended[piece])
    }

    /// The rows, made on first use and kept.
    pub fn rows(&self) -> &Arc<Vec<Row>> {
        self.rows.get_or_init(|| Arc::new(committed_of(&self.appended, &self.ranges)))
    }

    /// How many rows from the first are of the first row's attempt: a transaction's rows are
    /// one attempt's, so a range's first row stands for it.
    pub fn first_attempt_rows(&self) -> usize {
        let Some(first) = self.ranges.first().map(|r| self.appended[r.start].attempt) else { return 0 };
        let mut rows = 0;
        for range in self.ranges.iter() {
            debug_assert!(self.appended[range.clone()].iter().all(|r| r.attempt == self.appended[range.start].attempt));
            if self.appended[range.start].attempt != first {
                break;
            }
            rows += range.len();
        }
        rows
    }
}

impl PartialEq for CommittedRows {
    fn eq(&self, other: &Self) -> bool {
        self.rows() == other.rows()
    }
}

/// The four designs, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SinkDesign {
    AppendOnly,
    Upsert,
    Transactional,
    DedupeView,
}

impl SinkDesign {
    pub const ALL: [SinkDesign; 4] =
        [SinkDesign::AppendOnly, SinkDesign::Upsert, SinkDesign::Transactional, SinkDesign::DedupeView];

    /// The command-line spelling: append-only, upsert, transactional, dedupe-view.
    pub fn cli_name(self) -> &'static str {
        match self {
            SinkDesign::AppendOnly => "append-only",
            SinkDesign::Upsert => "upsert",
            SinkDesign::Transactional => "transactional",
            SinkDesign::DedupeView => "dedupe-view",
        }
    }

    pub fn from_name(name: &str) -> Option<SinkDesign> {
        SinkDesign::ALL.into_iter().find(|d| d.cli_name() == name || d.key() == name)
    }

    /// The report key: append_only, upsert, transactional, dedupe_view.
    pub fn key(self) -> &'static str {
        match self {
            SinkDesign::AppendOnly => "append_only",
            SinkDesign::Upsert => "upsert",
            SinkDesign::Transactional => "transactional",
            SinkDesign::DedupeView => "dedupe_view",
        }
    }
}

/// Rows that repeat the (product_id, window_start, order_count) of an earlier row: the same
/// emission stored twice. Running totals only grow, so a failure-free run has none.
pub fn duplicate_rows(rows: &[Row]) -> u64 {
    duplicates_and_keys(rows).0
}

/// Duplicate rows and distinct (product_id, window_start) keys of a table, from its rows grouped
/// per key (or, for keys spread too thin to number densely, one sort of the packed contents).
pub fn duplicates_and_keys(rows: &[Row]) -> (u64, u64) {
    match keys::KeyIndex::of(&[rows]) {
        Some(index) => index.duplicates_and_keys(rows),
        None => {
            let packed = sorted_contents(rows);
            let duplicates = packed.windows(2).filter(|w| w[0] == w[1]).count() as u64;
            let keys = 1 + packed.windows(2).filter(|w| w[0] >> 32 != w[1] >> 32).count() as u64;
            (duplicates, if packed.is_empty() { 0 } else { keys })
        }
    }
}

/// Whether two tables hold the same rows (product, window, count), in any order. Tables that
/// match usually hold them in the same order too, which is checked first.
pub fn same_contents(a: &[Row], b: &[Row]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if same_in_order(a, b) {
        return true;
    }
    match keys::KeyIndex::of(&[a, b]) {
        Some(index) => index.same_contents(a, b),
        None => sorted_contents(a) == sorted_contents(b),
    }
}

/// Whether two tables hold the same contents (product, window, count) in the same order.
pub fn same_in_order(a: &[Row], b: &[Row]) -> bool {
    a.len() == b.len() && a.iter().map(Row::content).eq(b.iter().map(Row::content))
}

/// The packed contents of `rows`, sorted: by product, then window, then count.
fn sorted_contents(rows: &[Row]) -> Vec<u128> {
    let mut packed: Vec<u128> = rows.iter().map(Row::packed).collect();
    packed.sort_unstable();
    packed
}

/// The sinks of one run, written together.
#[derive(Clone, Debug, Default)]
pub struct Sinks {
    pub append_only: append_only::AppendOnlySink,
    upsert: Upsert,
    pub transactional: transactional::TransactionalSink,
    /// Set while the run keeps no rows (see [`Sinks::discard_rows`]).
    discarded: Option<Discarded>,
}

/// How the upsert table is kept. It is the append-only rows applied in order, so it is a function
/// of that table: the per-event reference writes it row by row as the rows come, the fast way
/// only notes which keys were written and derives the table when it is read.
#[derive(Clone, Debug)]
enum Upsert {
    Written(upsert::UpsertSink),
    Derived(upsert::KeysWritten),
}

impl Default for Upsert {
    fn default() -> Upsert {
        Upsert::Derived(upsert::KeysWritten::default())
    }
}

impl Upsert {
    /// Empty, kept the same way.
    fn emptied(&self) -> Upsert {
        match self {
            Upsert::Written(_) => Upsert::Written(upsert::UpsertSink::default()),
            Upsert::Derived(_) => Upsert::default(),
        }
    }
}

/// What sinks that keep no rows remember of the rows written: how many, and those past the end of
/// the table they will borrow.
#[derive(Clone, Debug, Default)]
struct Discarded {
    /// Rows the append-only table would hold.
    appended: usize,
    /// Rows of the table to borrow.
    known: usize,
    /// The rows written past them, kept.
    past_known: Vec<Row>,
}

impl Sinks {
    /// From now on, writes the upsert table row by row as rows come, rather than deriving it from
    /// the append-only table when read: the per-event reference (before any row is written).
    pub fn write_upsert_per_row(&mut self) {
        debug_assert!(self.append_only.rows().is_empty(), "before any row");
        self.upsert = Upsert::Written(upsert::UpsertSink::default());
    }

    /// Whether the upsert table is derived from the append-only table when read.
    pub fn upsert_derived(&self) -> bool {
        matches!(self.upsert, Upsert::Derived(_))
    }

    /// The upsert table: the one written row by row, or derived now from the append-only rows.
    pub fn upsert(&self) -> Cow<'_, upsert::UpsertSink> {
        match &self.upsert {
            Upsert::Written(table) => Cow::Borrowed(table),
            Upsert::Derived(_) => {
                let mut table = upsert::UpsertSink::default();
                table.write_rows(self.append_only.rows(), 0);
                Cow::Owned(table)
            }
        }
    }

    /// Keys (rows) the upsert table holds.
    pub fn upsert_keys(&self) -> u64 {
        match &self.upsert {
            Upsert::Written(table) => table.len(),
            Upsert::Derived(keys) => keys.len(),
        }
    }

    /// About the bytes the upsert table (or its keys) takes.
    pub fn upsert_heap_bytes(&self) -> usize {
        match &self.upsert {
            Upsert::Written(table) => table.heap_bytes(),
            Upsert::Derived(keys) => keys.heap_bytes(),
        }
    }

    /// Room for about `rows` more rows in the table that keeps every row.
    pub fn reserve(&mut self, rows: usize) {
        self.reserve_table(0, rows);
    }

    /// Room in the append-only table for `appended` rows still to copy into it and `to_come`
    /// more.
    pub(crate) fn reserve_table(&mut self, appended: usize, to_come: usize) {
        self.append_only.rows.reserve(appended + to_come);
    }

    /// The append-only table taken out: what is left is cheap to clone (the committed rows are
    /// ranges of it).
    pub(crate) fn take_table(&mut self) -> SharedRows {
        std::mem::take(&mut self.append_only.rows)
    }

    pub(crate) fn put_table(&mut self, table: SharedRows) {
        self.append_only.rows = table;
    }

    /// Copies up to `max_rows` more rows of `appended`, which begins with these sinks'
    /// append-only table (see [`Sinks::take_table`]); returns true once it holds all of them.
    pub(crate) fn copy_table_part(&mut self, appended: &[Row], max_rows: usize) -> bool {
        self.append_only.rows.copy_part(appended, max_rows);
        self.append_only.rows().len() == appended.len()
    }

    /// The committed rows: what a `read_committed` reader sees, in commit order. Made from the
    /// ranges of the append-only table they are (see [`CommittedRows`] for a table that makes
    /// them once).
    pub fn committed_rows(&self) -> Vec<Row> {
        committed_of(self.append_only.rows(), self.transactional.committed_ranges())
    }

    /// The committed rows as ranges of the append-only table, which they share.
    pub fn committed(&self) -> CommittedRows {
        CommittedRows::new(self.append_only.shared(), self.transactional.committed_ranges())
    }

    /// From now on, keeps no rows: the append-only table that would grow from `appended` rows
    /// is known to be the first rows of a table of `known` rows, which [`Sinks::borrow_rows`]
    /// takes once the run is over. A failure-free run's rows depend only on its data, so one
    /// that differs from an earlier failure-free run only in checkpoint timing writes that run's
    /// rows again and need not keep them. Only how many rows it writes is counted, with the
    /// transactions' rows (which the transaction timeout may lose), and any rows past the known
    /// ones are kept. The upsert and committed tables are emptied and stay so: the upsert table
    /// is the append-only rows applied in order, and the committed rows are counted only.
    pub fn discard_rows(&mut self, appended: usize, known: usize) {
        self.upsert = self.upsert.emptied();
        self.transactional.forget_committed();
        self.discarded = Some(Discarded { appended, known, ..Discarded::default() });
    }

    /// Takes the first rows of `known` as the append-only table, as many as the rows written,
    /// with any written past them after them (see [`Sinks::discard_rows`]).
    pub fn borrow_rows(&mut self, known: &Arc<Vec<Row>>) {
        let Some(discarded) = self.discarded.take() else { return };
        self.append_only.rows = if discarded.past_known.is_empty() {
            SharedRows::prefix(Arc::clone(known), discarded.appended)
        } else {
            let mut rows = Vec::with_capacity(discarded.appended);
            rows.extend_from_slice(&known[..discarded.known]);
            rows.extend_from_slice(&discarded.past_known);
            SharedRows::prefix(Arc::new(rows), discarded.appended)
        };
    }

    /// Writes an emission, written at `at_ms`, to every sink: a row per (product, total) of
    /// `totals` (one window's, in product order), the rest of each row as `row`. Into the
    /// append-only table first (the transactional sink's open transaction is a range of it),
    /// then the upsert table. Sinks that keep no rows only count them, and build only those past
    /// the rows they will borrow.
    pub fn write_emission(&mut self, at_ms: u64, row: Row, totals: &[(u32, u32)]) {
        let n = totals.len();
        if n == 0 {
            return;
        }
        let rows = totals.iter().map(|&(product_id, order_count)| Row { product_id, order_count, ..row });
        if let Some(discarded) = &mut self.discarded {
            let from = discarded.appended;
            discarded.appended += n;
            if discarded.appended > discarded.known {
                discarded.past_known.extend(rows.skip(discarded.known.saturating_sub(from)));
            }
            self.transactional.write_appended(discarded.appended, at_ms);
            return;
        }
        let from = self.append_only.rows().len();
        self.append_only.rows.append_with(|table| table.extend(rows));
        match &mut self.upsert {
            Upsert::Written(table) => table.write_rows(&self.append_only.rows()[from..], from),
            Upsert::Derived(keys) => {
                keys.write_window(row.window_start_ms, totals.iter().map(|&(product_id, _)| product_id))
            }
        }
        self.transactional.write_appended(self.append_only.rows().len(), at_ms);
    }

    /// Appends the rows `emit` pushes to the append-only table and writes them to the upsert
    /// table; returns where they start in the append-only table.
    fn append_and_upsert(&mut self, emit: impl FnOnce(&mut Vec<Row>)) -> usize {
        let from = self.append_only.rows().len();
        self.append_only.rows.append_with(emit);
        let rows = &self.append_only.rows()[from..];
        match &mut self.upsert {
            Upsert::Written(table) => table.write_rows(rows, from),
            Upsert::Derived(keys) => keys.write_rows(rows),
        }
        from
    }

    /// The transactional sink commits epoch `epoch` (and any older pre-committed one) at `at_ms`
    /// (see [`transactional::TransactionalSink::commit`]).
    pub fn commit(&mut self, epoch: u64, at_ms: u64, timeout_ms: u64) -> u64 {
        self.transactional.commit(epoch, at_ms, timeout_ms, self.discarded.is_none())
    }

    /// Micro-batch mode: batch `batch_id`'s rows through `foreachBatch` at `at_ms`, appended, merged
    /// by key and written once by batch id. Returns whether the batch-id writer wrote them (false
    /// for a re-run batch it had written already).
    pub fn write_batch(&mut self, batch_id: u64, rows: Vec<Row>, at_ms: u64) -> bool {
        debug_assert!(self.discarded.is_none(), "micro-batch runs keep their rows");
        let from = self.append_and_upsert(|table| table.extend_from_slice(&rows));
        self.transactional.write_batch(batch_id, from..from + rows.len(), at_ms)
    }

    /// What a reader of `design` sees at the end of the run, ordered by key.
    pub fn read(&self, design: SinkDesign) -> Vec<Row> {
        match design {
            SinkDesign::AppendOnly => self.append_only.rows().to_vec(),
            SinkDesign::Upsert => self.upsert().rows(self.append_only.rows()),
            SinkDesign::Transactional => self.committed_rows(),
            SinkDesign::DedupeView => dedupe_view::read(self.append_only.rows()),
        }
    }
}
