#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_text() {
        assert_eq!(count_vowels("Hello, World"), 3);
    }

    #[test]
    fn uppercase_counts() {
        assert_eq!(count_vowels("AEIOU aeiou"), 10);
    }

    #[test]
    fn no_vowels() {
        assert_eq!(count_vowels("rhythm"), 0);
        assert_eq!(count_vowels(""), 0);
        assert_eq!(count_vowels("y a"), 1);
    }
}
