//! The tumbling event-time window: orders counted per (product, window). Counts wait in one
//! bucket per emit period; when the watermark passes a bucket's end its counts are added to the
//! window totals and the changed keys are emitted as running totals. The emission at a window's
//! end is its final value, after which the window and its seen ids are dropped.

use std::collections::VecDeque;

use super::dedupe::SeenIds;

/// One open window: its totals per product and its seen order ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenWindow {
    pub start_ms: u64,
    /// The totals per product, unless `plane_through_ms` is set.
    pub totals: Vec<u32>,
    /// Set while the window has counted every period of the data plane's window as a whole
    /// period (see [`Bucket::from_plane`]), up to and including the one ending here: its totals
    /// are then the plane's running totals at this boundary and `totals` is not kept.
    pub plane_through_ms: Option<u64>,
    pub seen: SeenIds,
}

/// Counts of one emit period, not yet emitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// The emit boundary that releases this bucket (exclusive end of its event times).
    pub end_ms: u64,
    /// The first log number at or after `end_ms`.
    pub end_log_number: u64,
    /// Start of the window the bucket belongs to.
    pub window_start_ms: u64,
    pub counts: Vec<u32>,
    /// Products with a non-zero count, in first-seen order.
    pub changed: Vec<u32>,
    /// Log numbers `[from, to)` from the period's start, read in log order but not yet counted
    /// into `counts`: a period read in several steps is counted once, from the data plane, when
    /// its last step reads it to its end (see `JobState::process`).
    pub deferred: Option<(u64, u64)>,
    /// The whole period was read in log order and its counts are the data plane's: they are
    /// not added into `counts` unless something reads them (see `JobState::count_deferred`).
    pub from_plane: bool,
}

impl Bucket {
    /// Counts `orders` more orders of `product`.
    #[inline]
    pub fn count(&mut self, product: u32, orders: u32) {
        let slot = &mut self.counts[product as usize];
        if *slot == 0 {
            self.changed.push(product);
        }
        *slot += orders;
    }
}

/// One emitted running total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Emission {
    pub product_id: u32,
    pub window_start_ms: u64,
    pub order_count: u32,
    /// The event-time boundary this total is complete up to.
    pub boundary_ms: u64,
    /// True for the window's last emission.
    pub is_final: bool,
}

/// One bucket's emission: the running totals of the keys it changed, in product order.
#[derive(Clone, Copy, Debug)]
pub struct BucketEmission<'a> {
    /// The event-time boundary the totals are complete up to.
    pub boundary_ms: u64,
    pub window_start_ms: u64,
    /// True for the window's last emission.
    pub is_final: bool,
    /// (product, running total) of each changed key.
    pub totals: &'a [(u32, u32)],
}

/// The window operator's state: open windows, pending buckets and the next boundary to emit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowState {
    pub windows: VecDeque<OpenWindow>,
    pub buckets: VecDeque<Bucket>,
    pub next_boundary_ms: u64,
}

impl WindowState {
    /// Empty state at `start_ms`: everything before it is already emitted.
    pub fn new(start_ms: u64, emit_every_ms: u64) -> Self {
        WindowState {
            windows: VecDeque::new(),
            buckets: VecDeque::new(),
            next_boundary_ms: start_ms / emit_every_ms * emit_every_ms + emit_every_ms,
        }
    }

    /// Total orders counted in the window starting at `start_ms`, emitted or still pending, once
    /// the state reads whole (see `JobState::count_deferred`).
    pub fn window_total(&self, start_ms: u64) -> u64 {
        let emitted: u64 = self
            .windows
            .iter()
            .filter(|w| w.start_ms == start_ms)
            .flat_map(|w| w.totals.iter())
            .map(|&c| u64::from(c))
            .sum();
        // Every event of a deferred range is an order counted once (deferring needs no retries).
        let pending: u64 = self
            .buckets
            .iter()
            .filter(|b| b.window_start_ms == start_ms)
            .map(|b| b.counts.iter().map(|&c| u64::from(c)).sum::<u64>() + b.deferred.map_or(0, |(f, t)| t - f))
            .sum();
        emitted + pending
    }
}
