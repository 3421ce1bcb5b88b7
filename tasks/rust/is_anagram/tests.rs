#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_anagram() {
        assert_eq!(is_anagram("listen", "silent"), true);
    }

    #[test]
    fn ignores_case_and_spaces() {
        assert_eq!(is_anagram("Dormitory", "dirty room"), true);
    }

    #[test]
    fn different_letters() {
        assert_eq!(is_anagram("abc", "abd"), false);
        assert_eq!(is_anagram("abc", "cab"), true);
    }

    #[test]
    fn counts_matter() {
        assert_eq!(is_anagram("aab", "abb"), false);
        assert_eq!(is_anagram("ab", "abb"), false);
        assert_eq!(is_anagram("aab", "aba"), true);
    }
}
