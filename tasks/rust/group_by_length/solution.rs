use std::collections::BTreeMap;

pub fn group_by_length(words: &[&str]) -> BTreeMap<usize, Vec<String>> {
    let mut groups: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for word in words {
        groups.entry(word.chars().count()).or_default().push(word.to_string());
    }
    groups
}
