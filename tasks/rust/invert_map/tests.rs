#[cfg(test)]
mod tests {
    use super::*;

    fn scores(pairs: &[(&str, u32)]) -> HashMap<String, u32> {
        pairs.iter().map(|(name, score)| (name.to_string(), *score)).collect()
    }

    #[test]
    fn groups_names_by_score() {
        let inverted = invert_map(&scores(&[("ann", 3), ("bob", 5), ("cy", 3)]));
        assert_eq!(inverted.len(), 2);
        assert_eq!(inverted[&5], vec!["bob".to_string()]);
    }

    #[test]
    fn names_are_sorted() {
        let inverted = invert_map(&scores(&[("zed", 1), ("amy", 1), ("kim", 1)]));
        assert_eq!(inverted[&1], vec!["amy".to_string(), "kim".to_string(), "zed".to_string()]);
    }

    #[test]
    fn empty_map() {
        assert_eq!(invert_map(&HashMap::new()).len(), 0);
        assert_eq!(invert_map(&scores(&[("dee", 4)])).len(), 1);
    }
}
