use std::collections::HashMap;

fn letter_counts(text: &str) -> HashMap<char, usize> {
    let mut counts = HashMap::new();
    for c in text.chars().filter(|c| *c != ' ').flat_map(char::to_lowercase) {
        *counts.entry(c).or_insert(0) += 1;
    }
    counts
}

pub fn is_anagram(a: &str, b: &str) -> bool {
    letter_counts(a) == letter_counts(b)
}
