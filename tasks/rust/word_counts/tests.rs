#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example() {
        let counts = word_counts("The cat; the HAT.");
        assert_eq!(counts.get("the"), Some(&2));
        assert_eq!(counts.get("cat"), Some(&1));
        assert_eq!(counts.get("hat"), Some(&1));
        assert_eq!(counts.len(), 3);
    }

    #[test]
    fn empty() {
        assert_eq!(word_counts("  ...  ").len(), 0);
        assert_eq!(word_counts("Go go").get("go"), Some(&2));
    }

    #[test]
    fn digits_are_words() {
        assert_eq!(word_counts("route 66, 66").get("66"), Some(&2));
    }
}
