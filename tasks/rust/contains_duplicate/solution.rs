use std::collections::HashSet;
use std::hash::Hash;

pub fn contains_duplicate<T: Eq + Hash>(items: &[T]) -> bool {
    let mut seen = HashSet::new();
    !items.iter().all(|item| seen.insert(item))
}
