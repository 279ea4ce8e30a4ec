//! The job's operators after the source readers: dedupe by order id, then the tumbling window
//! count. `JobState` is everything a checkpoint snapshots of them.

pub mod dedupe;
pub mod window;

use dedupe::SeenIds;
use window::{Bucket, BucketEmission, Emission, OpenWindow, WindowState};

use super::source::SourceLog;
use crate::engine::fast::data_plane::DataPlane;
use crate::engine::settings::config::Config;

/// Adds a whole period's orders per product to `bucket`.
fn add_period(bucket: &mut Bucket, period: impl Iterator<Item = (u32, u32)>) {
    for (product, orders) in period {
        bucket.count(product, orders);
    }
}

/// Counts the range `bucket` deferred, an event at a time, and adds the period it took whole
/// from the plane: afterwards its counts are all it holds.
fn count_deferred(bucket: &mut Bucket, plane: Option<&DataPlane>, log: &SourceLog) {
    if let Some((from, to)) = bucket.deferred.take() {
        count_range(bucket, from, to, 1, plane, log);
    }
    if std::mem::take(&mut bucket.from_plane) {
        let plane = plane.expect("a bucket takes a period from the plane it counts from");
        let start = plane.period_start(bucket.end_ms).expect("counted");
        add_period(bucket, plane.period(bucket.end_ms, start, bucket.end_log_number).expect("a whole period"));
    }
}

/// Makes `window`'s totals its own when they were the plane's (see `OpenWindow::plane_through_ms`).
fn own_totals(window: &mut OpenWindow, plane: Option<&DataPlane>) {
    if let Some(through_ms) = window.plane_through_ms.take() {
        let plane = plane.expect("a window takes its totals from the plane it counts from");
        plane.window_totals_into(window.start_ms, through_ms, &mut window.totals);
    }
}

/// Counts every `stride`-th event of the log numbers `[from, to)` an event at a time, its products
/// from the plane when it keeps the whole range, else from the log; returns the log number after
/// the last one counted.
fn count_range(
    bucket: &mut Bucket,
    from: u64,
    to: u64,
    stride: u64,
    plane: Option<&DataPlane>,
    log: &SourceLog,
) -> u64 {
    let mut g = from;
    match plane.filter(|p| g < to && p.product_of(to - 1).is_some() && p.product_of(g).is_some()) {
        Some(plane) => {
            while g < to {
                bucket.count(plane.product_of(g).expect("kept for the whole range"), 1);
                g += stride;
            }
        }
        None => {
            while g < to {
                bucket.count(log.product_of(g), 1);
                g += stride;
            }
        }
    }
    g
}

/// The fixed shape of the job, taken from the scenario.
#[derive(Clone, Copy, Debug)]
pub struct JobShape {
    pub products: u32,
    pub window_ms: u64,
    pub emit_every_ms: u64,
}

impl JobShape {
    pub fn new(config: &Config) -> Self {
        JobShape { products: config.products, window_ms: config.window_ms, emit_every_ms: config.emit_every_ms }
    }
}

/// The operator state of one job attempt.
#[derive(Debug)]
pub struct JobState {
    pub windows: WindowState,
    /// Events counted into a window (first sends, and retries whose first send had expired).
    pub counted_events: u64,
    /// Producer retries the dedupe operator dropped.
    pub dropped_duplicates: u64,
    /// Spare bucket arrays (counts and changed products), reused so the hot path does not allocate.
    spare: Vec<Vec<u32>>,
    spare_changed: Vec<Vec<u32>>,
    /// A bucket's (product, running total) pairs as they are emitted, reused.
    spare_totals: Vec<(u32, u32)>,
}

/// A copy (a checkpoint's snapshot, a keyframe) takes the state, not the spare buffers.
impl Clone for JobState {
    fn clone(&self) -> Self {
        JobState {
            windows: self.windows.clone(),
            counted_events: self.counted_events,
            dropped_duplicates: self.dropped_duplicates,
            spare: Vec::new(),
            spare_changed: Vec::new(),
            spare_totals: Vec::new(),
        }
    }
}

impl JobState {
    /// About the bytes the state takes beyond its own size: totals, bucket counts, seen ids.
    pub fn heap_bytes(&self) -> usize {
        let u32s = |v: &Vec<u32>| v.capacity() * std::mem::size_of::<u32>();
        let windows: usize = self.windows.windows.iter().map(|w| u32s(&w.totals) + w.seen.heap_bytes()).sum();
        let buckets: usize = self.windows.buckets.iter().map(|b| u32s(&b.counts) + u32s(&b.changed)).sum();
        let spare: usize = self.spare.iter().chain(&self.spare_changed).map(u32s).sum();
        windows + buckets + spare
    }

    pub fn new(config: &Config) -> Self {
        JobState {
            windows: WindowState::new(config.start_time_ms, config.emit_every_ms),
            counted_events: 0,
            dropped_duplicates: 0,
            spare: Vec::new(),
            spare_changed: Vec::new(),
            spare_totals: Vec::new(),
        }
    }

    /// Makes sure buckets (and their windows) exist up to the one holding log number `g`. A window
    /// whose first bucket is the first period of the plane's window takes its totals from the
    /// plane for as long as its periods are read whole.
    fn ensure_bucket(&mut self, g: u64, log: &SourceLog, shape: &JobShape, plane: Option<&DataPlane>) {
        loop {
            let (end_ms, end_log_number) = match self.windows.buckets.back() {
                Some(b) if b.end_log_number > g => return,
                Some(b) => (b.end_ms + shape.emit_every_ms, log.log_end_at(b.end_ms + shape.emit_every_ms)),
                None => {
                    let end = self.windows.next_boundary_ms;
                    (end, log.log_end_at(end))
                }
            };
            let window_start_ms = (end_ms - 1) / shape.window_ms * shape.window_ms;
            if self.windows.windows.back().is_none_or(|w| w.start_ms < window_start_ms) {
                let first = log.log_end_at(window_start_ms);
                let end = log.log_end_at(window_start_ms + shape.window_ms);
                let plane_through_ms = plane.filter(|p| p.resets_window(end_ms)).map(|_| end_ms - shape.emit_every_ms);
                self.windows.windows.push_back(OpenWindow {
                    start_ms: window_start_ms,
                    totals: vec![0; shape.products as usize],
                    plane_through_ms,
                    seen: SeenIds::new(first, end),
                });
            }
            let counts = self.spare.pop().unwrap_or_else(|| vec![0; shape.products as usize]);
            self.windows.buckets.push_back(Bucket {
                end_ms,
                end_log_number,
                window_start_ms,
                counts,
                changed: self.spare_changed.pop().unwrap_or_default(),
                deferred: None,
                from_plane: false,
            });
        }
    }

    /// Processes the events with log numbers `first, first + stride, ...` below `end`: one slot of
    /// the producer's wheel (stride W, the wheel's slots) or the whole log in order (stride 1).
    /// With a data plane, a whole emit period read in log order adds its counted orders in one
    /// step, and a part of one reads its products from the plane instead of hashing them.
    pub fn process(
        &mut self,
        first: u64,
        end: u64,
        stride: u64,
        log: &SourceLog,
        shape: &JobShape,
        plane: Option<&DataPlane>,
    ) {
        let mut g = first;
        // Read again from before what the state has emitted: only after a restore that resumes
        // behind the state's offsets (offsets committed on a timer).
        let emitted_end = log.log_end_at(self.windows.next_boundary_ms - shape.emit_every_ms);
        if g < emitted_end {
            let late_end = end.min(emitted_end);
            self.count_again(g, late_end, stride, log, shape, plane);
            g += (late_end - g).div_ceil(stride) * stride;
        }
        while g < end {
            self.ensure_bucket(g, log, shape, plane);
            // Find the bucket of g; then process every event that falls in it in one tight loop.
            let b = self.windows.buckets.iter().position(|b| b.end_log_number > g).expect("ensured above");
            let bucket_end = self.windows.buckets[b].end_log_number.min(end);
            let window_start = self.windows.buckets[b].window_start_ms;
            let w = self.windows.windows.iter().position(|w| w.start_ms == window_start).expect("bucket has a window");
            let (windows, buckets) = (&mut self.windows.windows, &mut self.windows.buckets);
            let (window, bucket) = (&mut windows[w], &mut buckets[b]);
            if log.has_no_retries() {
                // Every event is a first send: mark the whole run seen, then only count products.
                window.seen.insert_every(g, bucket_end, stride);
                let counted = (bucket_end - g).div_ceil(stride);
                self.counted_events += counted;
                if let Some(plane) = plane {
                    // A period read in log order in several steps (the readers paused or
                    // throttled inside it) is counted once, from the plane, when read to its end.
                    if stride == 1 {
                        // Where the period's reading in log order started, if it did at its start.
                        let read_from = match bucket.deferred {
                            Some((from, to)) if to == g => Some(from),
                            None if bucket.changed.is_empty() && plane.period_start(bucket.end_ms) == Some(g) => {
                                Some(g)
                            }
                            _ => None,
                        };
                        if let Some(from) = read_from {
                            if bucket_end < bucket.end_log_number {
                                bucket.deferred = Some((from, bucket_end));
                                g = bucket_end;
                                continue;
                            }
                            if plane.period(bucket.end_ms, from, bucket_end).is_some() {
                                bucket.deferred = None;
                                bucket.from_plane = true;
                                g = bucket_end;
                                continue;
                            }
                        }
                    }
                    count_deferred(bucket, Some(plane), log);
                    let period = if stride == 1 { plane.period(bucket.end_ms, g, bucket_end) } else { None };
                    if let Some(period) = period {
                        add_period(bucket, period);
                        g = bucket_end;
                        continue;
                    }
                }
                g = count_range(bucket, g, bucket_end, stride, plane, log);
                continue;
            }
            while g < bucket_end {
                let first_send = log.first_send_of(g);
                let counted = if first_send == g {
                    window.seen.insert(g);
                    true
                } else if window.seen.contains(first_send) {
                    self.dropped_duplicates += 1;
                    false
                } else {
                    // The first send fell in an earlier window whose seen ids have expired.
                    true
                };
                if counted {
                    let product = log.product_of(g);
                    bucket.count(product, 1);
                    self.counted_events += 1;
                }
                g += stride;
            }
        }
    }

    /// Counts the events `first, first + stride, ...` below `end`, all in periods this state has
    /// already emitted and so already counted in it: a replay from offsets behind the state's.
    /// The model has no late-data path: each counts again into the next emission (the oldest
    /// pending period), which is in the event's own window while that window is open and in the
    /// next one once it has closed. A producer retry whose first send its own open window has seen
    /// is dropped again; a first send is counted again, as the replay of any counted event is.
    fn count_again(
        &mut self,
        first: u64,
        end: u64,
        stride: u64,
        log: &SourceLog,
        shape: &JobShape,
        plane: Option<&DataPlane>,
    ) {
        if first >= end {
            return;
        }
        let pending_from = log.log_end_at(self.windows.next_boundary_ms - shape.emit_every_ms);
        self.ensure_bucket(pending_from, log, shape, plane);
        let (windows, buckets) = (&self.windows.windows, &mut self.windows.buckets);
        let bucket = buckets.front_mut().expect("ensured above");
        // Whatever the bucket took from the plane or deferred is counted first.
        count_deferred(bucket, plane, log);
        if log.has_no_retries() {
            let mut g = first;
            let counted_from = g;
            g = count_range(bucket, g, end, stride, plane, log);
            self.counted_events += (g - counted_from).div_ceil(stride);
            return;
        }
        let mut g = first;
        while g < end {
            let first_send = log.first_send_of(g);
            let seen = first_send != g && windows.iter().any(|w| w.seen.covers(g) && w.seen.contains(first_send));
            if seen {
                self.dropped_duplicates += 1;
            } else {
                bucket.count(log.product_of(g), 1);
                self.counted_events += 1;
            }
            g += stride;
        }
    }

    /// Counts what every bucket deferred (see [`Bucket::deferred`]): before its state is read
    /// whole, at the end of a run or for a micro-batch's output.
    pub fn count_deferred(&mut self, plane: Option<&DataPlane>, log: &SourceLog) {
        for bucket in &mut self.windows.buckets {
            count_deferred(bucket, plane, log);
        }
        for window in &mut self.windows.windows {
            own_totals(window, plane);
        }
    }

    /// Emits every bucket whose end the watermark has passed; `watermark_log_number` is the
    /// smallest log number not yet processed on some input. Event time never runs ahead of the
    /// clock, so a boundary is only emitted once `now_ms` has reached it. Each bucket's changed
    /// keys go to `emit` together, as (product, running total) in product order, with the
    /// bucket's boundary, its window's start and whether the window closes. Returns how many
    /// boundaries passed.
    pub fn emit_ready(
        &mut self,
        watermark_log_number: u64,
        now_ms: u64,
        log: &SourceLog,
        shape: &JobShape,
        plane: Option<&DataPlane>,
        mut emit: impl FnMut(BucketEmission<'_>),
    ) -> u64 {
        let mut passed = 0;
        let mut totals = std::mem::take(&mut self.spare_totals);
        loop {
            let boundary = self.windows.next_boundary_ms;
            if boundary > now_ms || log.log_end_at(boundary) > watermark_log_number {
                self.spare_totals = totals;
                return passed;
            }
            passed += 1;
            let closes_window = boundary % shape.window_ms == 0;
            if self.windows.buckets.front().is_some_and(|b| b.end_ms == boundary) {
                let mut bucket = self.windows.buckets.pop_front().expect("checked");
                let window = self
                    .windows
                    .windows
                    .iter_mut()
                    .find(|w| w.start_ms == bucket.window_start_ms)
                    .expect("a bucket's window stays open until the bucket is emitted");
                // Every period of the window so far and this one whole from the plane: the
                // plane's running totals are the emission, and nothing is added.
                let previous_ms = boundary - shape.emit_every_ms;
                let emission = if bucket.from_plane && window.plane_through_ms == Some(previous_ms) {
                    window.plane_through_ms = Some(boundary);
                    let plane = plane.expect("a bucket takes a period from the plane it counts from");
                    plane.emission(boundary).expect("counted")
                } else {
                    own_totals(window, plane);
                    // Read to its end, or past it when a recovery skipped what the log no longer held.
                    count_deferred(&mut bucket, plane, log);
                    totals.clear();
                    let mut add = |product: u32, slot: &mut u32| {
                        let total = &mut window.totals[product as usize];
                        *total += *slot;
                        *slot = 0;
                        totals.push((product, *total));
                    };
                    // In product order: when most products changed, walking the counts is cheaper
                    // than sorting the changed list.
                    if bucket.changed.len() * 8 >= bucket.counts.len() {
                        for (product, slot) in bucket.counts.iter_mut().enumerate() {
                            if *slot > 0 {
                                add(product as u32, slot);
                            }
                        }
                    } else {
                        bucket.changed.sort_unstable();
                        for &product in &bucket.changed {
                            add(product, &mut bucket.counts[product as usize]);
                        }
                    }
                    &totals
                };
                if !emission.is_empty() {
                    emit(BucketEmission {
                        boundary_ms: boundary,
                        window_start_ms: window.start_ms,
                        is_final: closes_window,
                        totals: emission,
                    });
                }
                self.spare.push(bucket.counts);
                bucket.changed.clear();
                self.spare_changed.push(bucket.changed);
            }
            if closes_window {
                let start = boundary - shape.window_ms;
                self.windows.windows.retain(|w| w.start_ms != start);
            }
            self.windows.next_boundary_ms += shape.emit_every_ms;
        }
    }

    /// The output of one micro-batch whose input ends at event time `boundary_ms`: every pending
    /// count is added to its window's total and each changed key is emitted once with its new
    /// total; windows that end by the boundary are final and closed. The same state and the same
    /// batch give the same emissions.
    pub fn emit_batch(&mut self, boundary_ms: u64, shape: &JobShape, mut emit: impl FnMut(Emission)) {
        let mut changed: Vec<(u64, u32)> = Vec::new();
        for bucket in self.windows.buckets.iter_mut() {
            let window = self
                .windows
                .windows
                .iter_mut()
                .find(|w| w.start_ms == bucket.window_start_ms)
                .expect("a bucket's window stays open until the bucket is emitted");
            for &product in &bucket.changed {
                let slot = &mut bucket.counts[product as usize];
                window.totals[product as usize] += *slot;
                *slot = 0;
                changed.push((window.start_ms, product));
            }
            bucket.changed.clear();
        }
        changed.sort_unstable();
        changed.dedup();
        while self.windows.buckets.front().is_some_and(|b| b.end_ms <= boundary_ms) {
            let bucket = self.windows.buckets.pop_front().expect("checked");
            self.spare.push(bucket.counts);
            self.spare_changed.push(bucket.changed);
        }
        while self.windows.next_boundary_ms <= boundary_ms {
            self.windows.next_boundary_ms += shape.emit_every_ms;
        }
        for (window_start_ms, product) in changed {
            let window = self.windows.windows.iter().find(|w| w.start_ms == window_start_ms).expect("open");
            emit(Emission {
                product_id: product,
                window_start_ms,
                order_count: window.totals[product as usize],
                boundary_ms,
                is_final: window_start_ms + shape.window_ms <= boundary_ms,
            });
        }
        self.windows.windows.retain(|w| w.start_ms + shape.window_ms > boundary_ms);
    }

    /// The seen order ids of every open window, as log numbers of first sends.
    pub fn seen_ids(&self) -> Vec<u64> {
        self.windows.windows.iter().flat_map(|w| w.seen.iter()).collect()
    }

    /// Whether two states hold the same logical content (spare buffers aside), once both read
    /// whole (see [`JobState::count_deferred`]).
    pub fn same_content(&self, other: &JobState) -> bool {
        // Pending buckets are compared by their counts: the order products were first seen in
        // depends on how the input was interleaved, not on what was counted.
        let pending = |s: &JobState| -> Vec<(u64, u64, Vec<u32>)> {
            s.windows
                .buckets
                .iter()
                .filter(|b| !b.changed.is_empty())
                .map(|b| (b.end_ms, b.window_start_ms, b.counts.clone()))
                .collect()
        };
        self.windows.windows == other.windows.windows
            && self.windows.next_boundary_ms == other.windows.next_boundary_ms
            && pending(self) == pending(other)
            && self.counted_events == other.counted_events
            && self.dropped_duplicates == other.dropped_duplicates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Processes the log numbers `[from, to)` in log order, in steps ending at `cuts`.
    fn in_steps(state: &mut JobState, cuts: &[u64], log: &SourceLog, shape: &JobShape, plane: Option<&DataPlane>) {
        for pair in cuts.windows(2) {
            state.process(pair[0], pair[1], 1, log, shape, plane);
        }
    }

    /// The emissions of `state` up to `watermark` at `now_ms`: (boundary, product, total).
    fn emitted(
        state: &mut JobState,
        watermark: u64,
        now_ms: u64,
        log: &SourceLog,
        shape: &JobShape,
        plane: Option<&DataPlane>,
    ) -> Vec<(u64, u32, u32)> {
        let mut rows = Vec::new();
        state.emit_ready(watermark, now_ms, log, shape, plane, |e| {
            rows.extend(e.totals.iter().map(|&(product, total)| (e.boundary_ms, product, total)));
        });
        rows
    }

    #[test]
    fn a_window_emits_the_planes_totals_only_while_it_counted_every_period() {
        let config = Config::default();
        let (log, shape) = (SourceLog::new(&config), JobShape::new(&config));
        let plane = DataPlane::of(&config).expect("no retries");
        let boundary = |k: u64| config.start_time_ms + k * config.emit_every_ms;
        let end = |k: u64| log.log_end_at(boundary(k));
        // Periods one and two whole, three skipped (as a recovery past the log's retention
        // skips), four whole: the emission at four is one, two and four, not the plane's totals.
        let (mut fast, mut reference) = (JobState::new(&config), JobState::new(&config));
        let both = |fast: &mut JobState, reference: &mut JobState, from: u64, to: u64, k: u64| {
            fast.process(from, to, 1, &log, &shape, Some(&plane));
            reference.process(from, to, 1, &log, &shape, None);
            let a = emitted(fast, to, boundary(k), &log, &shape, Some(&plane));
            let b = emitted(reference, to, boundary(k), &log, &shape, None);
            assert_eq!(a, b, "period {k}");
            a
        };
        assert_eq!(both(&mut fast, &mut reference, end(0), end(1), 1).len(), 100);
        both(&mut fast, &mut reference, end(1), end(2), 2);
        assert!(fast.windows.windows[0].plane_through_ms == Some(boundary(2)), "the plane's totals so far");
        assert!(both(&mut fast, &mut reference, end(3), end(3), 3).is_empty(), "nothing counted in period three");
        let four = both(&mut fast, &mut reference, end(3), end(4), 4);
        assert_ne!(
            four,
            plane.emission(boundary(4)).unwrap().iter().map(|&(p, t)| (boundary(4), p, t)).collect::<Vec<_>>()
        );
        fast.count_deferred(Some(&plane), &log);
        assert!(fast.same_content(&reference));
    }

    #[test]
    fn a_period_read_in_steps_counts_as_one_read_whole() {
        let config = Config::default();
        let (log, shape) = (SourceLog::new(&config), JobShape::new(&config));
        let plane = DataPlane::of(&config).expect("no retries");
        let first = log.log_end_at(config.start_time_ms);
        let period_end = |k: u64| log.log_end_at(config.start_time_ms + k * config.emit_every_ms);
        let (one, two, three) = (period_end(1), period_end(2), period_end(3));
        let mut whole = JobState::new(&config);
        in_steps(&mut whole, &[first, one, two, three], &log, &shape, None);
        // Three periods, each read in several steps; the third stops inside it.
        let cuts = [first, first + 7, first + 700, one, one + 1, two - 1, two, two + 300];
        let mut stepped = JobState::new(&config);
        in_steps(&mut stepped, &cuts, &log, &shape, Some(&plane));
        assert!(stepped
            .windows
            .buckets
            .iter()
            .all(|b| b.end_ms < config.start_time_ms + 3_000 || b.deferred.is_some()));
        stepped.process(two + 300, three, 1, &log, &shape, Some(&plane));
        assert!(stepped.windows.buckets.iter().all(|b| b.deferred.is_none()), "counted once read to the end");
        assert!(stepped.windows.buckets.iter().all(|b| b.from_plane), "each period taken whole from the plane");
        stepped.count_deferred(Some(&plane), &log);
        assert!(stepped.same_content(&whole));
        // Stopped inside a period, it counts what it deferred when asked, as if read event by event.
        let mut partial = JobState::new(&config);
        in_steps(&mut partial, &[first, first + 500, first + 900], &log, &shape, Some(&plane));
        assert_eq!(partial.windows.window_total(partial.windows.buckets[0].window_start_ms), 900);
        partial.count_deferred(Some(&plane), &log);
        let mut by_event = JobState::new(&config);
        by_event.process(first, first + 900, 1, &log, &shape, None);
        assert!(partial.same_content(&by_event));
        // Read on by partition (inputs held), what it deferred is counted first.
        let mut held = JobState::new(&config);
        in_steps(&mut held, &[first, first + 480], &log, &shape, Some(&plane));
        for p in 0..log.partitions() {
            held.process(first + 480 + p, one, log.partitions(), &log, &shape, Some(&plane));
        }
        let mut reference = JobState::new(&config);
        reference.process(first, one, 1, &log, &shape, None);
        held.count_deferred(Some(&plane), &log);
        assert!(held.same_content(&reference));
    }
}
