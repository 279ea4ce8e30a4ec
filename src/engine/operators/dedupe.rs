//! Dedupe by order id: the set of order ids seen in one event-time window. A producer retry whose
//! first send is already in the set is dropped; the set expires when its window closes.
//!
//! Order ids are a bijection of the log number of their first send, and one window's events are a
//! contiguous range of log numbers, so the set is stored densely as one bit per event of the window.

/// The order ids seen in one window, one bit per log number in `[first, end)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenIds {
    first: u64,
    end: u64,
    bits: Vec<u64>,
    len: u64,
}

impl SeenIds {
    /// An empty set for the first sends with log numbers in `[first, end)`.
    pub fn new(first: u64, end: u64) -> Self {
        let words = (end - first).div_ceil(64) as usize;
        SeenIds { first, end, bits: vec![0; words], len: 0 }
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
        let i = first_send - self.first;
        self.bits[(i / 64) as usize] & (1 << (i % 64)) != 0
    }

    /// Records a first send; returns false if it was already present.
    #[inline]
    pub fn insert(&mut self, first_send: u64) -> bool {
        debug_assert!(self.covers(first_send));
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
        let (from, to) = (first - self.first, end - self.first);
        if stride == 1 {
            // Whole words at a time: the ids of one range are consecutive bits.
            let (first_word, last_word) = ((from / 64) as usize, ((to - 1) / 64) as usize);
            for w in first_word..=last_word {
                let lo = if w == first_word { from % 64 } else { 0 };
                let hi = if w == last_word { (to - 1) % 64 + 1 } else { 64 };
                let mask = if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << lo };
                let word = &mut self.bits[w];
                self.len += u64::from((mask & !*word).count_ones());
                *word |= mask;
            }
        } else {
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
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.bits.iter().enumerate().flat_map(move |(w, &word)| {
            (0..64).filter(move |b| word & (1 << b) != 0).map(move |b| self.first + w as u64 * 64 + b)
        })
    }
}

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
        for (first, end, stride) in [(1_000, 1_200, 1), (1_003, 1_130, 1), (1_064, 1_128, 1), (1_001, 1_199, 12)] {
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
        }
    }
}
