//! The partitioned, replayable source log. Event number `g` (counting from the log's very first
//! event) lives in partition `g % P` at offset `g / P`, arrives at a fixed total rate, and its
//! content is a pure function of (seed, partition, offset): replay regenerates the same events.

use crate::engine::settings::config::Config;

/// splitmix64's finaliser: a bijective 64-bit mix. Events are hashed from their position rather
/// than drawn from a stream, so any event can be regenerated alone, in any order.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The sub-seed of one component, so that changing one setting does not reshuffle another's data.
pub fn sub_seed(root: u64, component: &str) -> u64 {
    component.bytes().fold(mix64(root ^ 0x9e37_79b9_7f4a_7c15), |h, b| mix64(h ^ u64::from(b)))
}

/// One event of the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub partition: u32,
    pub offset: u64,
    /// Event time on the clock (ms since midnight); equal to its arrival time.
    pub event_time_ms: u64,
    pub product_id: u32,
    pub order_id: u64,
    /// The log number of the first send of this order id; equal to the event's own for a first send.
    pub first_send: u64,
}

/// The source log of a scenario.
#[derive(Clone, Debug)]
pub struct SourceLog {
    partitions: u64,
    rate_per_s: u64,
    /// Elapsed times up to this many ms times the rate fit in 64 bits: [`SourceLog::log_end_at`]
    /// multiplies them so (WebAssembly has no 128-bit arithmetic; it is done in software).
    elapsed_in_64_bits_ms: u64,
    start_offset: u64,
    start_ms: u64,
    products: u64,
    /// A retry happens when the low 32 bits of the event hash fall below this.
    retry_threshold: u64,
    seed_events: u64,
    seed_order_ids: u64,
}

/// How far back (in partition offsets) a producer retry reaches.
const RETRY_REACH: u64 = 64;

impl SourceLog {
    pub fn new(config: &Config) -> Self {
        SourceLog {
            partitions: config.partitions.into(),
            rate_per_s: config.rate_per_s,
            elapsed_in_64_bits_ms: u64::MAX / config.rate_per_s.max(1),
            start_offset: config.start_offset,
            start_ms: config.start_time_ms,
            products: config.products.into(),
            retry_threshold: (config.retry_rate * 4_294_967_296.0) as u64,
            seed_events: sub_seed(config.seed, "source/events"),
            seed_order_ids: sub_seed(config.seed, "source/order-ids"),
        }
    }

    pub fn partitions(&self) -> u64 {
        self.partitions
    }

    /// Log number of the first event whose event time is at or after `t_ms`: also the total
    /// number of events (the sum of partition offsets) in the log at time `t_ms`.
    #[inline]
    pub fn log_end_at(&self, t_ms: u64) -> u64 {
        let elapsed = t_ms.saturating_sub(self.start_ms);
        let arrived = if elapsed <= self.elapsed_in_64_bits_ms {
            (elapsed * self.rate_per_s).div_ceil(1000)
        } else {
            (u128::from(elapsed) * u128::from(self.rate_per_s)).div_ceil(1000) as u64
        };
        self.start_offset + arrived
    }

    /// How many milliseconds after `now_ms` readers at `position` surely stay behind the log when
    /// reading at capacity (`credit` in 1/1000 events, growing by `capacity_per_s` each
    /// millisecond): for every k up to the answer, the log at `now_ms + k` holds more events than
    /// the credit by then lets them read. `u64::MAX` when the capacity never overtakes the rate.
    pub fn ms_surely_behind(&self, now_ms: u64, position: u64, credit: u64, capacity_per_s: u64) -> u64 {
        // The log holds at least start_offset + (elapsed + k) x rate / 1000 events; the readers
        // reach at most position + (credit + k x capacity) / 1000.
        let elapsed = i128::from(now_ms.saturating_sub(self.start_ms));
        let lead = 1000 * (i128::from(self.start_offset) - i128::from(position))
            + elapsed * i128::from(self.rate_per_s)
            - i128::from(credit);
        let gain = i128::from(capacity_per_s) - i128::from(self.rate_per_s);
        match (lead > 0, gain > 0) {
            (false, _) => 0,
            (true, false) => u64::MAX,
            (true, true) => u64::try_from((lead - 1) / gain).unwrap_or(u64::MAX),
        }
    }

    /// Event time of log number `g` (only meaningful for `g >= start_offset`).
    #[inline]
    pub fn event_time_ms(&self, g: u64) -> u64 {
        let k = g.saturating_sub(self.start_offset);
        let ms = if k <= u64::MAX / 1000 {
            k * 1000 / self.rate_per_s
        } else {
            (u128::from(k) * 1000 / u128::from(self.rate_per_s)) as u64
        };
        self.start_ms + ms
    }

    /// The end offset of partition `p` when the log holds `total` events.
    #[inline]
    pub fn partition_end(&self, total: u64, p: u64) -> u64 {
        (total + self.partitions - 1 - p) / self.partitions
    }

    /// Per-partition offsets when the log (or a reader moving in log order) is at `total`.
    pub fn partition_offsets(&self, total: u64) -> Vec<u64> {
        (0..self.partitions).map(|p| self.partition_end(total, p)).collect()
    }

    /// Log number of (partition, offset).
    #[inline]
    pub fn log_number(&self, partition: u64, offset: u64) -> u64 {
        offset * self.partitions + partition
    }

    #[inline]
    fn hash(&self, g: u64) -> u64 {
        mix64(self.seed_events ^ g.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// Product of event `g`, skewed: low product ids are the popular ones.
    #[inline]
    pub fn product_of(&self, g: u64) -> u32 {
        let u = self.hash(g) >> 32;
        let skewed = (u * u) >> 32;
        ((skewed * self.products) >> 32) as u32
    }

    /// True when no event is a producer retry: every event is the first send of its order id.
    #[inline]
    pub fn has_no_retries(&self) -> bool {
        self.retry_threshold == 0
    }

    /// The log number of the first send of event `g`'s order id: `g` itself unless `g` is a
    /// producer retry, which re-sends an order from up to 64 offsets earlier in its partition.
    #[inline]
    pub fn first_send_of(&self, mut g: u64) -> u64 {
        if self.retry_threshold == 0 {
            return g;
        }
        loop {
            let h = self.hash(g);
            let back = 1 + (h >> 32) % RETRY_REACH;
            let offset = g / self.partitions;
            let earlier = back * self.partitions;
            if (h & 0xffff_ffff) >= self.retry_threshold || offset < back || g - earlier < self.start_offset {
                return g;
            }
            g -= earlier;
        }
    }

    /// The order id of the first send at log number `first_send`.
    pub fn order_id_of(&self, first_send: u64) -> u64 {
        mix64(self.seed_order_ids ^ first_send)
    }

    /// The whole event at (partition, offset).
    pub fn event(&self, partition: u32, offset: u64) -> Event {
        let g = self.log_number(partition.into(), offset);
        let first_send = self.first_send_of(g);
        Event {
            partition,
            offset,
            event_time_ms: self.event_time_ms(g),
            product_id: self.product_of(g),
            order_id: self.order_id_of(first_send),
            first_send,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Readers behind the log, a millisecond at a time as `Job::read_in_log_order` reads: the
    /// answer never covers a millisecond that catches up, and misses the first one by at most
    /// the few milliseconds the rounding of both rates hides.
    #[test]
    fn readers_surely_behind_never_catch_up_inside_the_answer() {
        for (rate_per_s, capacity_per_s) in [(2_000, 4_000), (2_000, 2_100), (3_000, 3_250), (7, 13), (2_000, 2_000)] {
            let log = SourceLog::new(&Config { rate_per_s, ..Config::default() });
            for (behind_ms, credit) in [(0, 0), (1, 999), (37, 500), (5_000, 1), (45_000, 999)] {
                let now_ms = 36_000_000 + 60_000;
                let from = log.log_end_at(now_ms - behind_ms);
                let answer = log.ms_surely_behind(now_ms, from, credit, capacity_per_s);
                let (mut position, mut credit, mut k) = (from, credit, 0);
                let caught_up_at = loop {
                    k += 1;
                    let available = log.log_end_at(now_ms + k) - position;
                    credit += capacity_per_s;
                    let n = available.min(credit / 1000);
                    credit -= n * 1000;
                    position += n;
                    if n == available || k > 2_000_000 {
                        break k;
                    }
                };
                let case = format!("rate {rate_per_s}, capacity {capacity_per_s}, {behind_ms} ms behind");
                if capacity_per_s == rate_per_s {
                    assert!(answer == u64::MAX || behind_ms == 0, "{case}: {answer}");
                    continue;
                }
                assert!(answer < caught_up_at, "{case}: {answer} covers the catch-up at {caught_up_at}");
                let slack_ms = 2_000 / (capacity_per_s - rate_per_s) + 2;
                assert!(caught_up_at - answer <= slack_ms, "{case}: {answer} against {caught_up_at}");
            }
        }
    }

    #[test]
    fn offsets_follow_the_lesson() {
        let log = SourceLog::new(&Config::default());
        let at = |s: u64| log.log_end_at(36_000_000 + s * 1000);
        assert_eq!(at(0), 1_000_000);
        assert_eq!(at(30), 1_060_000);
        assert_eq!(at(45), 1_090_000);
        let offsets = log.partition_offsets(at(45));
        assert_eq!(offsets.iter().sum::<u64>(), 1_090_000);
        assert_eq!(offsets.len(), 12);
    }

    #[test]
    fn events_are_a_pure_function_of_their_position() {
        let config = Config { retry_rate: 0.2, ..Config::default() };
        let a = SourceLog::new(&config);
        let b = SourceLog::new(&config);
        for offset in 83_400..83_600 {
            assert_eq!(a.event(3, offset), b.event(3, offset));
        }
        let retries = (0..10_000u64)
            .filter(|o| {
                let e = a.event(5, 90_000 + o);
                e.first_send != a.log_number(5, 90_000 + o)
            })
            .count();
        assert!((1_500..2_500).contains(&retries), "about 20% retries, got {retries}");
    }
}
