use std::cmp::Reverse;
use std::collections::HashMap;

pub fn top_k_frequent(numbers: &[i32], k: usize) -> Vec<i32> {
    let mut counts: HashMap<i32, usize> = HashMap::new();
    for &n in numbers {
        *counts.entry(n).or_insert(0) += 1;
    }
    let mut by_count: Vec<(i32, usize)> = counts.into_iter().collect();
    by_count.sort_by_key(|&(value, count)| (Reverse(count), value));
    by_count.into_iter().take(k).map(|(value, _)| value).collect()
}
