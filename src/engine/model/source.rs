//! The partitioned, replayable source log. Events arrive at a fixed total rate, numbered `g` from
//! the log's very first event, and the producer spreads them over the partitions unevenly, as a
//! partitioner does with skewed keys: a wheel of slots, each slot one partition and the busiest
//! partition holding the most slots, deals event `g` to the partition of slot `g % W`. So every
//! partition fills at its own steady rate, and (partition, offset) and `g` convert both ways in
//! constant time. An event's content is a pure function of (seed, partition, offset): replay
//! regenerates the same events.

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

/// How the producer deals events to partitions: slot `s` of a wheel of `W` slots goes to partition
/// `partition_of_slot[s]`; the wheel turns once every `W` events. Partition `p` holds `weights[p]`
/// slots, so it receives that share of the events; a partition's slots are spread over the wheel
/// (smooth weighted round robin), so its events arrive evenly spaced. With every weight 1 the
/// wheel is round robin: event `g` in partition `g % P` at offset `g / P`.
#[derive(Debug, PartialEq, Eq)]
pub struct Wheel {
    weights: Vec<u64>,
    partition_of_slot: Vec<u32>,
    /// For each slot, how many of its partition's slots come before it on the wheel.
    rank_of_slot: Vec<u32>,
    /// Each partition's slots in wheel order, partition after partition.
    slots: Vec<u32>,
    /// Where each partition's slots start in `slots`.
    first_slot: Vec<usize>,
}

/// Slots of the quietest partition on the wheel when partitions differ: enough to round the
/// busiest partition's share to within an eighth of a slot ratio, few enough to keep the wheel
/// small (at most 64 slots for the busiest partition).
const QUIETEST_SLOTS: f64 = 4.0;

impl Wheel {
    /// The wheel for `partitions` partitions where the busiest receives `skew` times the events of
    /// the quietest, the shares falling off as key popularity does (Zipf): partition `p` weighs
    /// `(p + 1)^-s`, with `s` chosen so that the first weighs `skew` times the last.
    pub fn new(partitions: u64, skew: f64) -> Self {
        let weights = partition_weights(partitions, skew);
        let total: u64 = weights.iter().sum();
        // Partition p's k-th slot belongs at (k + phase) x turn / weight, the phases scattered
        // over the partitions (p x the golden ratio, modulo 1) so that their slots do not bunch:
        // deal the slots in that order, so a partition's events arrive evenly spaced. Equal
        // weights deal round robin.
        let even = weights.iter().all(|&w| w == 1);
        let mut ideal: Vec<(u128, usize, u32)> = weights
            .iter()
            .enumerate()
            .flat_map(|(p, &w)| {
                let phase = if even { p as u128 } else { (p as u128 * 618_034) % 1_000_000 };
                (0..w as u32).map(move |k| {
                    // (k + phase) / w of the turn, in millionths.
                    ((u128::from(k) * 1_000_000 + phase) * u128::from(total) / u128::from(w), p, k)
                })
            })
            .collect();
        ideal.sort_unstable();
        let partition_of_slot: Vec<u32> = ideal.iter().map(|&(_, p, _)| p as u32).collect();
        let rank_of_slot: Vec<u32> = ideal.iter().map(|&(_, _, k)| k).collect();
        let first_slot: Vec<usize> = std::iter::once(0)
            .chain(weights.iter().scan(0, |end, &w| {
                *end += w as usize;
                Some(*end)
            }))
            .collect();
        let mut slots = vec![0; total as usize];
        for (s, (&p, &rank)) in partition_of_slot.iter().zip(&rank_of_slot).enumerate() {
            slots[first_slot[p as usize] + rank as usize] = s as u32;
        }
        Wheel { weights, partition_of_slot, rank_of_slot, slots, first_slot }
    }

    /// Slots on the wheel: events per turn.
    pub fn slots(&self) -> u64 {
        self.partition_of_slot.len() as u64
    }

    /// Partition `p`'s slots: its events per turn of the wheel.
    #[inline]
    pub fn weight(&self, p: u64) -> u64 {
        self.weights[p as usize]
    }

    /// Whether every partition receives the same share (round robin).
    pub fn is_even(&self) -> bool {
        self.weights.iter().all(|&w| w == 1)
    }

    #[inline]
    fn slots_of(&self, p: u64) -> &[u32] {
        &self.slots[self.first_slot[p as usize]..self.first_slot[p as usize + 1]]
    }

    /// The end offset of partition `p` when the log holds `total` events.
    #[inline]
    pub fn partition_end(&self, total: u64, p: u64) -> u64 {
        let w = self.slots();
        let turn = total % w;
        (total / w) * self.weight(p) + self.slots_of(p).partition_point(|&s| u64::from(s) < turn) as u64
    }

    /// Log number of (partition, offset).
    #[inline]
    pub fn log_number(&self, p: u64, offset: u64) -> u64 {
        let weight = self.weight(p);
        (offset / weight) * self.slots() + u64::from(self.slots_of(p)[(offset % weight) as usize])
    }

    /// The partition and offset of log number `g`.
    #[inline]
    pub fn position_of(&self, g: u64) -> (u64, u64) {
        let w = self.slots();
        let slot = (g % w) as usize;
        let p = u64::from(self.partition_of_slot[slot]);
        (p, (g / w) * self.weight(p) + u64::from(self.rank_of_slot[slot]))
    }
}

/// Each partition's slots on the producer's wheel (see [`Wheel::new`]), in lowest terms.
fn partition_weights(partitions: u64, skew: f64) -> Vec<u64> {
    let partitions = partitions.max(1);
    if skew <= 1.0 || partitions == 1 {
        return vec![1; partitions as usize];
    }
    let s = skew.ln() / (partitions as f64).ln();
    let quietest = (partitions as f64).powf(-s);
    let raw: Vec<u64> = (0..partitions)
        .map(|p| (((p + 1) as f64).powf(-s) / quietest * QUIETEST_SLOTS).round().max(1.0) as u64)
        .collect();
    let common = raw.iter().fold(0, |g, &w| gcd(g, w));
    raw.into_iter().map(|w| w / common).collect()
}

/// Partition 0's share of the events: the busiest partition's, whose channel is the slow one
/// under backpressure.
pub fn busiest_share(config: &Config) -> f64 {
    let weights = partition_weights(config.partitions.into(), config.partition_skew);
    weights[0] as f64 / weights.iter().sum::<u64>() as f64
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The source log of a scenario.
#[derive(Clone, Debug)]
pub struct SourceLog {
    partitions: u64,
    wheel: std::sync::Arc<Wheel>,
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

/// How far back a producer retry reaches: as long as this many events of each partition take to
/// arrive (this many turns of an even wheel).
const RETRY_REACH: u64 = 64;

impl SourceLog {
    pub fn new(config: &Config) -> Self {
        SourceLog {
            partitions: config.partitions.into(),
            wheel: std::sync::Arc::new(Wheel::new(config.partitions.into(), config.partition_skew)),
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

    /// How the producer deals events to partitions.
    pub fn wheel(&self) -> &Wheel {
        &self.wheel
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
        self.wheel.partition_end(total, p)
    }

    /// Per-partition offsets when the log (or a reader moving in log order) is at `total`.
    pub fn partition_offsets(&self, total: u64) -> Vec<u64> {
        (0..self.partitions).map(|p| self.partition_end(total, p)).collect()
    }

    /// Log number of (partition, offset).
    #[inline]
    pub fn log_number(&self, partition: u64, offset: u64) -> u64 {
        self.wheel.log_number(partition, offset)
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
    /// producer retry, which re-sends an order from earlier in its partition, from the same slot
    /// of the wheel, at most as long ago as 64 events of each partition take to arrive (with
    /// round robin, up to 64 offsets earlier).
    #[inline]
    pub fn first_send_of(&self, mut g: u64) -> u64 {
        if self.retry_threshold == 0 {
            return g;
        }
        let turns = self.wheel.slots();
        let reach = (RETRY_REACH * self.partitions / turns).max(1);
        loop {
            let h = self.hash(g);
            let back = 1 + (h >> 32) % reach;
            let earlier = back * turns;
            if (h & 0xffff_ffff) >= self.retry_threshold || g / turns < back || g - earlier < self.start_offset {
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
        // The busiest partition holds three times the quietest's events.
        let (busiest, quietest) = (offsets[0] as f64, offsets[11] as f64);
        assert!((busiest / quietest - 3.0).abs() < 0.01, "{offsets:?}");
    }

    #[test]
    fn an_even_wheel_is_round_robin() {
        let wheel = Wheel::new(12, 1.0);
        assert!(wheel.is_even());
        for g in 0..500 {
            assert_eq!(wheel.position_of(g), (g % 12, g / 12));
            assert_eq!(wheel.log_number(g % 12, g / 12), g);
            for p in 0..12 {
                assert_eq!(wheel.partition_end(g, p), (g + 11 - p) / 12);
            }
        }
    }

    #[test]
    fn a_skewed_wheel_converts_both_ways_and_keeps_each_partition_s_share() {
        for (partitions, skew) in [(12, 3.0), (12, 16.0), (5, 2.0), (256, 8.0), (1, 3.0), (2, 1.5)] {
            let wheel = Wheel::new(partitions, skew);
            let turn = wheel.slots();
            let case = format!("{partitions} partitions, skew {skew}");
            let weights: Vec<u64> = (0..partitions).map(|p| wheel.weight(p)).collect();
            assert_eq!(weights.iter().sum::<u64>(), turn, "{case}");
            assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{case}: the first partition is the busiest");
            if partitions > 1 {
                let ratio = weights[0] as f64 / weights[partitions as usize - 1] as f64;
                assert!((ratio - skew).abs() <= skew / 8.0 + 0.13, "{case}: busiest / quietest {ratio}");
            }
            let mut ends = vec![0; partitions as usize];
            for g in 0..3 * turn + 7 {
                let (p, offset) = wheel.position_of(g);
                assert_eq!(offset, ends[p as usize], "{case}: offsets count up in each partition");
                assert_eq!(wheel.log_number(p, offset), g, "{case}");
                ends[p as usize] += 1;
                let total = g + 1;
                for q in 0..partitions {
                    assert_eq!(wheel.partition_end(total, q), ends[q as usize], "{case}: at {total}, p{q}");
                }
            }
            // A partition's events are spread over the wheel: between two of them at most twice
            // the turn's share of the partition.
            for p in 0..partitions {
                let slots = wheel.slots_of(p);
                let gaps = slots.windows(2).map(|s| u64::from(s[1] - s[0]));
                let wrap = turn - u64::from(slots[slots.len() - 1]) + u64::from(slots[0]);
                let widest = gaps.chain([wrap]).max().unwrap();
                assert!(widest <= 2 * turn.div_ceil(wheel.weight(p)), "{case}: p{p} gap {widest}");
            }
        }
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
