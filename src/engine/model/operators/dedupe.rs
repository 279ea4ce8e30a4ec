//! Dedupe by order id: the set of order ids seen in one event-time window. A producer retry whose
//! first send is already in the set is dropped; the set expires when its window closes.
//!
//! Order ids are a bijection of the log number of their first send, and one window's events are a
//! contiguous range of log numbers, so the set is stored densely as one bit per event of the window.

/// The order ids seen in one window. While they are exactly the first sends `[first, dense_end)`
/// — every one read in log order, the common case without retries — only that bound is kept, so a
/// snapshot copies nothing; otherwise one bit per log number in `[first, end)`.
#[derive(Clone, Debug)]
pub struct SeenIds {
    first: u64,
    end: u64,
    /// With no bits, the set is exactly `[first, dense_end)`.
    dense_end: u64,
    bits: Vec<u64>,
    len: u64,
}

impl SeenIds {
    /// The bytes its bits take (none while the set is one range).
    pub fn heap_bytes(&self) -> usize {
        self.bits.capacity() * std::mem::size_of::<u64>()
    }

    /// An empty set for the first sends with log numbers in `[first, end)`.
    pub fn new(first: u64, end: u64) -> Self {
        SeenIds { first, end, dense_end: first, bits: Vec::new(), len: 0 }
    }

    /// Whether this window's set can hold the first send at log number `first_send` at all.
    #[inline]
    pub fn covers(&self, first_send: u64) -> bool {
        (self.first..self.end).contains(&first_send)
    }

    #[inline]
    pub fn contains(&self, first_send: u64) -> bool {
        if !self.covers(first_send) {
            return false;
        }
        if self.bits.is_empty() {
            return first_send < self.dense_end;
        }
        let i = first_send - self.first;
        self.bits[(i / 64) as usize] & (1 << (i % 64)) != 0
    }

    /// One bit per id from now on, the range held so far set.
    fn spread_into_bits(&mut self) {
        if !self.bits.is_empty() || self.first == self.end {
            return;
        }
        let words = (self.end - self.first).div_ceil(64) as usize;
        self.bits = vec![0; words];
        let (dense_end, len) = (self.dense_end, self.len);
        self.set_range(self.first, dense_end);
        self.len = len;
    }

    /// Sets the bits of `[from, to)` (log numbers), counting the new ones.
    fn set_range(&mut self, from: u64, to: u64) {
        if from >= to {
            return;
        }
        let (from, to) = (from - self.first, to - self.first);
        let (first_word, last_word) = ((from / 64) as usize, ((to - 1) / 64) as usize);
        for w in first_word..=last_word {
            let lo = if w == first_word { from % 64 } else { 0 };
            let hi = if w == last_word { (to - 1) % 64 + 1 } else { 64 };
            let mask = if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << lo };
            let word = &mut self.bits[w];
            self.len += u64::from((mask & !*word).count_ones());
            *word |= mask;
        }
    }

    /// Records a first send; returns false if it was already present.
    #[inline]
    pub fn insert(&mut self, first_send: u64) -> bool {
        debug_assert!(self.covers(first_send));
        if self.bits.is_empty() {
            if first_send < self.dense_end {
                return false;
            }
            if first_send == self.dense_end {
                self.dense_end += 1;
                self.len += 1;
                return true;
            }
            self.spread_into_bits();
        }
        let i = first_send - self.first;
        let word = &mut self.bits[(i / 64) as usize];
        let mask = 1 << (i % 64);
        // Written as a branch: the branch-free form (`len += fresh as u64`) was miscompiled at
        // opt-level 2 and above by rustc 1.95, leaving `len` at zero in release builds.
        if *word & mask != 0 {
            return false;
        }
        *word |= mask;
        self.len += 1;
        true
    }

    /// Records the first sends `first, first + stride, ...` below `end` (all inside the set's range).
    pub fn insert_every(&mut self, first: u64, end: u64, stride: u64) {
        if first >= end {
            return;
        }
        debug_assert!(self.covers(first) && self.covers(end - 1));
        if self.bits.is_empty() && first <= self.dense_end && (stride == 1 || end - first == 1) {
            // Read in log order: the set stays one range.
            if end > self.dense_end {
                self.len += end - self.dense_end;
                self.dense_end = end;
            }
            return;
        }
        self.spread_into_bits();
        if stride == 1 {
            // Whole words at a time: the ids of one range are consecutive bits.
            self.set_range(first, end);
        } else {
            let (from, to) = (first - self.first, end - self.first);
            let mut i = from;
            while i < to {
                let word = &mut self.bits[(i / 64) as usize];
                let mask = 1u64 << (i % 64);
                self.len += u64::from(*word & mask == 0);
                *word |= mask;
                i += stride;
            }
        }
    }

    /// Number of ids in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The ids in the set, as log numbers of their first sends, in increasing order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        if self.bits.is_empty() {
            return Box::new(self.first..self.dense_end);
        }
        Box::new(self.bits.iter().enumerate().flat_map(move |(w, &word)| {
            (0..64).filter(move |b| word & (1 << b) != 0).map(move |b| self.first + w as u64 * 64 + b)
        }))
    }
}

/// Two sets are equal when they hold the same ids over the same window, however they are stored.
impl PartialEq for SeenIds {
    fn eq(&self, other: &Self) -> bool {
        if (self.first, self.end, self.len) != (other.first, other.end, other.len) {
            return false;
        }
        match (self.bits.is_empty(), other.bits.is_empty()) {
            (true, true) => self.dense_end == other.dense_end,
            (false, false) => self.bits == other.bits,
            _ => self.iter().eq(other.iter()),
        }
    }
}

impl Eq for SeenIds {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_what_it_saw() {
        let mut seen = SeenIds::new(1_000, 1_200);
        assert!(seen.insert(1_000));
        assert!(seen.insert(1_199));
        assert!(!seen.insert(1_000));
        assert!(seen.contains(1_199) && !seen.contains(1_100) && !seen.contains(999));
        assert_eq!(seen.len(), 2);
        assert_eq!(seen.iter().collect::<Vec<_>>(), vec![1_000, 1_199]);
    }

    #[test]
    fn inserting_a_range_equals_inserting_one_by_one() {
        for (first, end, stride) in
            [(1_000, 1_200, 1), (1_003, 1_130, 1), (1_064, 1_128, 1), (1_001, 1_199, 12), (1_000, 1_100, 1)]
        {
            let mut one = SeenIds::new(1_000, 1_200);
            let mut range = one.clone();
            one.insert(1_100);
            range.insert(1_100);
            let mut g = first;
            while g < end {
                one.insert(g);
                g += stride;
            }
            range.insert_every(first, end, stride);
            assert_eq!(range, one, "{first}..{end} by {stride}");
            assert_eq!(range.len(), one.len());
            assert_eq!(range.iter().collect::<Vec<_>>(), one.iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_range_read_in_log_order_is_kept_as_its_bound_until_a_gap() {
        let mut seen = SeenIds::new(1_000, 1_200);
        seen.insert_every(1_000, 1_050, 1);
        seen.insert(1_050);
        seen.insert_every(1_040, 1_100, 1);
        assert!(seen.bits.is_empty(), "still one range");
        assert_eq!((seen.len(), seen.contains(1_099), seen.contains(1_100)), (100, true, false));
        let mut bits = SeenIds::new(1_000, 1_200);
        for g in (1_000..1_100).rev() {
            bits.insert(g);
        }
        assert!(!bits.bits.is_empty());
        assert_eq!(seen, bits, "equal whatever the storage");
        // A gap: from then on one bit per id.
        seen.insert(1_150);
        assert!(!seen.bits.is_empty());
        assert_eq!((seen.len(), seen.contains(1_120), seen.contains(1_150)), (101, false, true));
        assert!(!seen.insert(1_050) && seen.insert(1_100));
        assert_eq!(seen.iter().count(), 102);
    }
}
