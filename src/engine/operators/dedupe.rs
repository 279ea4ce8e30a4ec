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
}
