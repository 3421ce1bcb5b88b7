#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example() {
        let groups = group_by_length(&["hi", "yo", "rust"]);
        assert_eq!(groups[&2], vec!["hi", "yo"]);
        assert_eq!(groups[&4], vec!["rust"]);
        assert_eq!(groups.len(), 2);
    }

    #[test]
    fn counts_chars_not_bytes() {
        assert_eq!(group_by_length(&["été"]).keys().copied().collect::<Vec<_>>(), vec![3]);
    }

    #[test]
    fn empty() {
        assert_eq!(group_by_length(&[]).len(), 0);
        assert_eq!(group_by_length(&["a", "b"]).len(), 1);
    }
}
