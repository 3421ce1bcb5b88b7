#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_shorter_way() {
        let edges = [(1, 2), (2, 3), (3, 4), (1, 4)];
        assert_eq!(shortest_path(&edges, 1, 3), Some(2));
        assert_eq!(shortest_path(&edges, 1, 4), Some(1));
    }

    #[test]
    fn edges_are_undirected() {
        assert_eq!(shortest_path(&[(1, 2), (2, 3)], 3, 1), Some(2));
    }

    #[test]
    fn same_node() {
        assert_eq!(shortest_path(&[], 7, 7), Some(0));
    }

    #[test]
    fn unreachable() {
        assert_eq!(shortest_path(&[(1, 2), (3, 4)], 1, 4), None);
        assert_eq!(shortest_path(&[], 1, 2), None);
        assert_eq!(shortest_path(&[(3, 4)], 4, 3), Some(1));
    }
}
