use std::collections::HashMap;

pub fn invert_map(scores: &HashMap<String, u32>) -> HashMap<u32, Vec<String>> {
    let mut inverted: HashMap<u32, Vec<String>> = HashMap::new();
    for (name, score) in scores {
        inverted.entry(*score).or_default().push(name.clone());
    }
    for names in inverted.values_mut() {
        names.sort();
    }
    inverted
}
