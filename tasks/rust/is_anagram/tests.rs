#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_anagram() {
        assert!(is_anagram("listen", "silent"));
    }

    #[test]
    fn ignores_case_and_spaces() {
        assert!(is_anagram("Dormitory", "dirty room"));
    }

    #[test]
    fn different_letters() {
        assert!(!is_anagram("abc", "abd"));
    }

    #[test]
    fn counts_matter() {
        assert!(!is_anagram("aab", "abb"));
        assert!(!is_anagram("ab", "abb"));
    }
}
