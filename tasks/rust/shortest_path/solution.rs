use std::collections::{HashMap, HashSet, VecDeque};

pub fn shortest_path(edges: &[(u32, u32)], start: u32, goal: u32) -> Option<usize> {
    let mut neighbors: HashMap<u32, Vec<u32>> = HashMap::new();
    for &(a, b) in edges {
        neighbors.entry(a).or_default().push(b);
        neighbors.entry(b).or_default().push(a);
    }
    let mut seen = HashSet::from([start]);
    let mut queue = VecDeque::from([(start, 0)]);
    while let Some((node, distance)) = queue.pop_front() {
        if node == goal {
            return Some(distance);
        }
        for &next in neighbors.get(&node).into_iter().flatten() {
            if seen.insert(next) {
                queue.push_back((next, distance + 1));
            }
        }
    }
    None
}
