//! A cache bounded by the weight of what it holds (bytes, rows), not by how many entries:
//! one 100,000-resource version weighs as much as a thousand small ones. The entry used
//! longest ago goes first; the entry just added never does.

use std::collections::HashMap;
use std::hash::Hash;

pub(crate) struct WeightedLru<K, V> {
    budget: usize,
    held: usize,
    clock: u64,
    /// Each entry with its weight and when it was last used.
    entries: HashMap<K, (V, usize, u64)>,
}

impl<K: Eq + Hash + Clone, V: Clone> WeightedLru<K, V> {
    pub(crate) fn new(budget: usize) -> Self {
        WeightedLru { budget, held: 0, clock: 0, entries: HashMap::new() }
    }

    pub(crate) fn get(&mut self, key: &K) -> Option<V> {
        self.clock += 1;
        let (value, _, used) = self.entries.get_mut(key)?;
        *used = self.clock;
        Some(value.clone())
    }

    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let (value, weight, _) = self.entries.remove(key)?;
        self.held -= weight;
        Some(value)
    }

    /// Keeps `value` (weighing at least 1), evicting the least recently used entries past the
    /// budget.
    pub(crate) fn insert(&mut self, key: K, value: V, weight: usize) {
        self.clock += 1;
        let weight = weight.max(1);
        if let Some((_, old, _)) = self.entries.insert(key.clone(), (value, weight, self.clock)) {
            self.held -= old;
        }
        self.held += weight;
        while self.held > self.budget && self.entries.len() > 1 {
            let Some(oldest) = self
                .entries
                .iter()
                .filter(|(k, _)| **k != key)
                .min_by_key(|(_, (_, _, used))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            self.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_go_first_and_the_newest_stays_whatever_it_weighs() {
        let mut lru = WeightedLru::new(10);
        lru.insert("a", 1, 4);
        lru.insert("b", 2, 4);
        assert_eq!(lru.get(&"a"), Some(1));
        // Over budget: b (used longest ago) goes, a stays.
        lru.insert("c", 3, 4);
        assert_eq!((lru.get(&"a"), lru.get(&"b"), lru.get(&"c")), (Some(1), None, Some(3)));
        // Heavier than the budget on its own: everything else goes, it stays.
        lru.insert("d", 4, 50);
        assert_eq!((lru.get(&"a"), lru.get(&"c"), lru.get(&"d")), (None, None, Some(4)));
        assert_eq!(lru.remove(&"d"), Some(4));
        assert_eq!(lru.held, 0);
        // Replacing an entry counts its new weight only.
        lru.insert("e", 5, 3);
        lru.insert("e", 6, 2);
        assert_eq!((lru.held, lru.get(&"e")), (2, Some(6)));
    }
}
