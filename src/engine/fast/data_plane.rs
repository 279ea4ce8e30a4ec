//! The data plane: what the job counts, independent of when it counts it. Events are a pure
//! function of their position in the log, so the orders each emit period brings per product are
//! the same in every run with the same source and window settings — whatever the checkpoint
//! interval, the state size, the crash time or the protocol. They are counted once per source and
//! window setting and kept; a run then adds a whole emit period's counts in one step instead of
//! hashing its events again, and the checkpoint settings only change when things happen.
//!
//! Because a window's running totals are the sum of its periods' counts, the plane also keeps
//! each period's emission: the running total of every product the period changed, in product
//! order. A window whose every period so far was read whole in log order emits those totals as
//! they are, without adding anything (see `JobState::emit_ready`).
//!
//! Only a log without producer retries has a data plane: with retries, whether an event counts
//! depends on which order ids the dedupe operator remembers, which is the run's state.
//!
//! The reference is the per-event simulation ([`Sim::per_event`](crate::engine::Sim::per_event)),
//! which hashes and counts every event; tests/fast_path.rs holds the two to the same trace, sink
//! tables and report over the recovery sweep.

use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::engine::model::operators::window::WindowState;
use crate::engine::model::source::SourceLog;
use crate::engine::settings::config::Config;

/// Product ids of the events, one per log number, kept so a part of an emit period is counted
/// without hashing.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ProductIds {
    Small(Vec<u8>),
    Wide(Vec<u16>),
    /// Too many events (or products) to keep: parts of a period are hashed.
    NotKept,
}

/// Most log numbers whose product id is kept (one or two bytes each).
const MAX_KEPT_PRODUCT_IDS: u64 = 16_000_000;
/// Most (product, count) entries kept over all emit periods (12 bytes each: the product, its
/// count and its running total; 60 MB at most).
const MAX_PERIOD_COUNTS: u64 = 5_000_000;

/// The settings the data plane depends on: two configurations with the same key count the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataPlaneKey {
    seed: u64,
    partitions: u32,
    rate_per_s: u64,
    products: u32,
    start_offset: u64,
    start_time_ms: u64,
    emit_every_ms: u64,
    window_ms: u64,
    /// The data plane covers the log up to this instant.
    end_ms: u64,
}

impl DataPlaneKey {
    pub fn of(config: &Config) -> Option<DataPlaneKey> {
        (config.retry_rate == 0.0).then(|| DataPlaneKey {
            seed: config.seed,
            partitions: config.partitions,
            rate_per_s: config.rate_per_s,
            products: config.products,
            start_offset: config.start_offset,
            start_time_ms: config.start_time_ms,
            emit_every_ms: config.emit_every_ms,
            window_ms: config.window_ms,
            end_ms: config.end_ms(),
        })
    }
}

/// The orders of every emit period per product, counted once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataPlane {
    pub key: DataPlaneKey,
    /// The end of the first emit period (its events start at the log's first event).
    first_boundary_ms: u64,
    emit_every_ms: u64,
    first_log_number: u64,
    /// Log numbers where each built period ends.
    period_ends: Vec<u64>,
    /// Where each period's entries start in `totals` and `counts`; one more entry than periods.
    counts_at: Vec<u32>,
    /// (product, running total in its window) of each period's products, in product order: the
    /// emission at the period's end when every period of the window before it was counted too.
    /// The period being counted holds its products here in the order they arrived.
    totals: Vec<(u32, u32)>,
    /// The orders each of those products brought in its period.
    counts: Vec<u32>,
    /// Running totals per product of the window being counted.
    window_totals: Vec<u32>,
    product_ids: ProductIds,
    /// The next log number to count: a period may be counted over several calls to
    /// [`DataPlane::build`], so no call counts more than it was asked to.
    counted_to: u64,
    /// The orders of the period being counted, per product (all zero between periods).
    open_counts: Vec<u32>,
}

impl DataPlane {
    /// An empty data plane for `config`, to be filled with [`DataPlane::build`]; `None` when the
    /// log has producer retries or the counts would not fit the memory kept for them.
    pub fn new(config: &Config) -> Option<DataPlane> {
        let key = DataPlaneKey::of(config)?;
        let log = SourceLog::new(config);
        // The periods are the window operator's buckets: the same first boundary.
        let first_boundary_ms = WindowState::new(config.start_time_ms, config.emit_every_ms).next_boundary_ms;
        let periods = config.end_ms().saturating_sub(config.start_time_ms).div_ceil(config.emit_every_ms) + 1;
        let events = log.log_end_at(config.end_ms()) - config.start_offset;
        if periods.saturating_mul(u64::from(config.products).min(events / periods + 1)) > MAX_PERIOD_COUNTS {
            return None;
        }
        let product_ids = match config.products {
            _ if events > MAX_KEPT_PRODUCT_IDS => ProductIds::NotKept,
            0..=256 => ProductIds::Small(Vec::with_capacity(events as usize)),
            257..=65_536 => ProductIds::Wide(Vec::with_capacity(events as usize)),
            _ => ProductIds::NotKept,
        };
        Some(DataPlane {
            key,
            first_boundary_ms,
            emit_every_ms: config.emit_every_ms,
            first_log_number: config.start_offset,
            period_ends: Vec::with_capacity(periods as usize),
            counts_at: vec![0],
            totals: Vec::new(),
            counts: Vec::new(),
            window_totals: vec![0; config.products as usize],
            product_ids,
            counted_to: config.start_offset,
            open_counts: vec![0; config.products as usize],
        })
    }

    /// The whole data plane of `config` (see [`DataPlane::new`]).
    pub fn of(config: &Config) -> Option<DataPlane> {
        let mut plane = DataPlane::new(config)?;
        let log = SourceLog::new(config);
        while !plane.build(&log, u64::MAX) {}
        Some(plane)
    }

    /// Counts the next `max_events` events (at least one), finishing emit periods as their ends
    /// are reached; returns true once the plane covers the horizon.
    pub fn build(&mut self, log: &SourceLog, max_events: u64) -> bool {
        let end_log = log.log_end_at(self.key.end_ms);
        let mut budget = max_events.max(1);
        loop {
            let start = self.period_ends.last().copied().unwrap_or(self.first_log_number);
            if start >= end_log {
                return true;
            }
            if budget == 0 {
                return false;
            }
            let boundary_ms = self.first_boundary_ms + self.period_ends.len() as u64 * self.emit_every_ms;
            let end = log.log_end_at(boundary_ms);
            let from = self.counted_to.max(start);
            let to = end.min(from.saturating_add(budget));
            for g in from..to {
                let product = log.product_of(g);
                match &mut self.product_ids {
                    ProductIds::Small(ids) => ids.push(product as u8),
                    ProductIds::Wide(ids) => ids.push(product as u16),
                    ProductIds::NotKept => {}
                }
                let slot = &mut self.open_counts[product as usize];
                if *slot == 0 {
                    self.totals.push((product, 0));
                }
                *slot += 1;
            }
            self.counted_to = to;
            budget -= to - from;
            if to < end {
                return false;
            }
            let first_entry = *self.counts_at.last().expect("one entry more than periods") as usize;
            if self.resets_window(boundary_ms) {
                self.window_totals.fill(0);
            }
            let period = &mut self.totals[first_entry..];
            period.sort_unstable_by_key(|&(product, _)| product);
            for (product, total) in period {
                let orders = std::mem::take(&mut self.open_counts[*product as usize]);
                let window_total = &mut self.window_totals[*product as usize];
                *window_total += orders;
                *total = *window_total;
                self.counts.push(orders);
            }
            self.period_ends.push(end);
            self.counts_at.push(self.totals.len() as u32);
        }
    }

    /// Whether the plane covers the horizon.
    pub fn is_built(&self, log: &SourceLog) -> bool {
        self.period_ends.last().copied().unwrap_or(self.first_log_number) >= log.log_end_at(self.key.end_ms)
    }

    /// How much of the horizon's log the plane covers, from 0 to 1.
    pub fn built_fraction(&self, log: &SourceLog) -> f64 {
        let end = log.log_end_at(self.key.end_ms).saturating_sub(self.first_log_number).max(1);
        let built = self.counted_to.saturating_sub(self.first_log_number);
        (built as f64 / end as f64).min(1.0)
    }

    /// The (product, orders) of the emit period ending at `boundary_ms`, in product order, if
    /// counted and if the period is exactly the log numbers `[first, end)`.
    #[inline]
    pub fn period(&self, boundary_ms: u64, first: u64, end: u64) -> Option<impl Iterator<Item = (u32, u32)> + '_> {
        let (k, period_start, period_end) = self.bounds(boundary_ms)?;
        let entries = self.counts_at[k] as usize..self.counts_at[k + 1] as usize;
        (first == period_start && end == period_end).then(|| {
            self.totals[entries.clone()]
                .iter()
                .zip(&self.counts[entries])
                .map(|(&(product, _), &orders)| (product, orders))
        })
    }

    /// The running totals the period ending at `boundary_ms` brings to its window's products, if
    /// counted: (product, total) in product order, what the window emits at that boundary when
    /// it counted every period of the plane's window before it.
    #[inline]
    pub fn emission(&self, boundary_ms: u64) -> Option<&[(u32, u32)]> {
        let (k, _, _) = self.bounds(boundary_ms)?;
        Some(&self.totals[self.counts_at[k] as usize..self.counts_at[k + 1] as usize])
    }

    /// Whether the running totals start again at the period ending at `boundary_ms`: it is the
    /// plane's first period or the first of its window.
    pub fn resets_window(&self, boundary_ms: u64) -> bool {
        boundary_ms == self.first_boundary_ms
            || (boundary_ms - 1) / self.key.window_ms != (boundary_ms - self.emit_every_ms - 1) / self.key.window_ms
    }

    /// Writes into `totals` (indexed by product) the running totals of the window starting at
    /// `window_start_ms` after its emission at `through_ms`: the newest total of each product
    /// its periods since the plane's window started brought. Products they did not bring are
    /// left as they are.
    pub fn window_totals_into(&self, window_start_ms: u64, through_ms: u64, totals: &mut [u32]) {
        // The window's first boundary (the first past its start), or the plane's first.
        let mut boundary_ms =
            WindowState::new(window_start_ms, self.emit_every_ms).next_boundary_ms.max(self.first_boundary_ms);
        while boundary_ms <= through_ms {
            for &(product, total) in self.emission(boundary_ms).expect("a window's emissions are counted") {
                totals[product as usize] = total;
            }
            boundary_ms += self.emit_every_ms;
        }
    }

    /// The first log number of the period that ends at `boundary_ms`, if counted.
    pub fn period_start(&self, boundary_ms: u64) -> Option<u64> {
        self.bounds(boundary_ms).map(|(_, start, _)| start)
    }

    /// The period that ends at `boundary_ms`, if counted: its index and its log numbers
    /// `[start, end)`.
    #[inline]
    fn bounds(&self, boundary_ms: u64) -> Option<(usize, u64, u64)> {
        let k = (boundary_ms.checked_sub(self.first_boundary_ms)? / self.emit_every_ms) as usize;
        let end = *self.period_ends.get(k)?;
        Some((k, if k == 0 { self.first_log_number } else { self.period_ends[k - 1] }, end))
    }

    /// The product of log number `g`, if kept.
    #[inline]
    pub fn product_of(&self, g: u64) -> Option<u32> {
        let i = g.checked_sub(self.first_log_number)? as usize;
        match &self.product_ids {
            ProductIds::Small(ids) => ids.get(i).map(|&p| u32::from(p)),
            ProductIds::Wide(ids) => ids.get(i).map(|&p| u32::from(p)),
            ProductIds::NotKept => None,
        }
    }

    /// Bytes the plane holds.
    pub fn size_bytes(&self) -> u64 {
        let ids = match &self.product_ids {
            ProductIds::Small(ids) => ids.len() as u64,
            ProductIds::Wide(ids) => 2 * ids.len() as u64,
            ProductIds::NotKept => 0,
        };
        ids + 12 * self.counts.len() as u64 + 12 * self.period_ends.len() as u64
    }
}

/// A data plane counted once for every run that needs it at the same time: the first run starts
/// counting it and each counts the next part in its own slices, until it is built; then each
/// attaches the same plane. Runs of several labs on one page that share the source and window
/// settings count and keep one plane between them (see [`DataPlanes`]).
#[derive(Debug)]
pub struct SharedCount {
    counting: Mutex<Counting>,
    /// The plane once built, for the shelf that handed this count out (see [`DataPlanes::get`]).
    built: Arc<Mutex<Weak<DataPlane>>>,
}

/// A plane being counted, until it is built.
#[derive(Debug)]
struct Counting {
    building: Option<Box<DataPlane>>,
    built: Option<Arc<DataPlane>>,
}

impl SharedCount {
    /// A count of `config`'s data plane of its own; `None` as for [`DataPlane::new`].
    pub fn new(config: &Config) -> Option<SharedCount> {
        let plane = DataPlane::new(config)?;
        Some(SharedCount {
            counting: Mutex::new(Counting { building: Some(Box::new(plane)), built: None }),
            built: Arc::default(),
        })
    }

    /// Counts the next `max_events` events unless the plane is built; returns it once it is.
    pub fn build(&self, log: &SourceLog, max_events: u64) -> Option<Arc<DataPlane>> {
        let mut counting = self.counting.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(plane) = counting.building.as_mut() {
            if !plane.build(log, max_events) {
                return None;
            }
            let plane = Arc::new(*counting.building.take().expect("building"));
            *self.built.lock().unwrap_or_else(PoisonError::into_inner) = Arc::downgrade(&plane);
            counting.built = Some(plane);
        }
        counting.built.clone()
    }

    /// How much of the horizon's log the plane covers, from 0 to 1.
    pub fn built_fraction(&self, log: &SourceLog) -> f64 {
        let counting = self.counting.lock().unwrap_or_else(PoisonError::into_inner);
        counting.building.as_ref().map_or(1.0, |plane| plane.built_fraction(log))
    }
}

/// The data planes the runs of one page share: a run that needs a plane takes the one a run of
/// the page built and still holds, else joins the count of it under way, else starts a count the
/// page's later runs join. Planes are computed, not chosen: a shared plane is the one the run
/// would have counted (tests/fast_path.rs). The shelf keeps no plane alive by itself.
#[derive(Debug, Default)]
pub struct DataPlanes(Mutex<Vec<Shelved>>);

#[derive(Debug)]
struct Shelved {
    key: DataPlaneKey,
    counting: Weak<SharedCount>,
    built: Arc<Mutex<Weak<DataPlane>>>,
}

/// A data plane from the shelf: built, or being counted.
#[derive(Debug)]
pub enum Plane {
    Built(Arc<DataPlane>),
    Counting(Arc<SharedCount>),
}

impl DataPlanes {
    pub const fn new() -> DataPlanes {
        DataPlanes(Mutex::new(Vec::new()))
    }

    /// `config`'s data plane, built or being counted; `None` where it has none (see
    /// [`DataPlane::new`]).
    pub fn get(&self, config: &Config) -> Option<Plane> {
        let key = DataPlaneKey::of(config)?;
        let mut shelf = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let built = |s: &Shelved| s.built.lock().unwrap_or_else(PoisonError::into_inner).upgrade();
        // What no run holds any more goes.
        shelf.retain(|s| s.counting.strong_count() > 0 || built(s).is_some());
        if let Some(found) = shelf.iter().find(|s| s.key == key) {
            if let Some(plane) = built(found) {
                return Some(Plane::Built(plane));
            }
            if let Some(counting) = found.counting.upgrade() {
                return Some(Plane::Counting(counting));
            }
        }
        let counting = Arc::new(SharedCount::new(config)?);
        shelf.retain(|s| s.key != key);
        shelf.push(Shelved { key, counting: Arc::downgrade(&counting), built: Arc::clone(&counting.built) });
        Some(Plane::Counting(counting))
    }

    /// Planes built and held by a run, and counts under way.
    pub fn len(&self) -> usize {
        let mut shelf = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        shelf.retain(|s| {
            s.counting.strong_count() > 0 || s.built.lock().unwrap_or_else(PoisonError::into_inner).strong_count() > 0
        });
        shelf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_holds_what_hashing_its_events_counts() {
        let config = Config::default();
        let log = SourceLog::new(&config);
        let plane = DataPlane::of(&config).expect("no retries");
        let boundary_ms = config.start_time_ms + 7_000;
        let (first, end) = (log.log_end_at(boundary_ms - 1_000), log.log_end_at(boundary_ms));
        let period = plane.period(boundary_ms, first, end).expect("counted");
        let mut expected: Vec<(u32, u32)> = Vec::new();
        for g in first..end {
            let product = log.product_of(g);
            assert_eq!(plane.product_of(g), Some(product));
            match expected.iter_mut().find(|(p, _)| *p == product) {
                Some(entry) => entry.1 += 1,
                None => expected.push((product, 1)),
            }
        }
        expected.sort_unstable();
        assert_eq!(period.collect::<Vec<_>>(), expected);
        assert!(plane.period(boundary_ms, first + 1, end).is_none(), "only a whole period");
    }

    #[test]
    fn retries_have_no_data_plane() {
        assert!(DataPlane::of(&Config { retry_rate: 0.01, ..Config::default() }).is_none());
    }

    #[test]
    fn building_in_parts_gives_the_same_plane() {
        let config = Config { horizon_ms: 60_000, ..Config::default() };
        let log = SourceLog::new(&config);
        let mut parts = DataPlane::new(&config).expect("no retries");
        let mut calls = 0;
        while !parts.build(&log, 5_000) {
            calls += 1;
        }
        assert!(calls > 10);
        assert!(parts.is_built(&log));
        assert_eq!(parts, DataPlane::of(&config).expect("no retries"));
    }

    #[test]
    fn a_call_counts_no_more_than_asked_even_inside_a_period() {
        // 4,000 events a second: a 7-event budget ends every call inside an emit period.
        let config = Config { horizon_ms: 5_000, ..Config::default() };
        let log = SourceLog::new(&config);
        let mut parts = DataPlane::new(&config).expect("no retries");
        let mut before = parts.counted_to;
        while !parts.build(&log, 7) {
            assert!(parts.counted_to - before <= 7, "{} events in one call", parts.counted_to - before);
            assert!(parts.counted_to > before, "every call moves on");
            before = parts.counted_to;
        }
        assert_eq!(parts, DataPlane::of(&config).expect("no retries"));
    }
}
