#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_words() {
        assert_eq!(first_word("hello world"), "hello");
    }

    #[test]
    fn leading_spaces() {
        assert_eq!(first_word("   rust is fun"), "rust");
    }

    #[test]
    fn single_word() {
        assert_eq!(first_word("alone"), "alone");
    }

    #[test]
    fn no_word() {
        assert_eq!(first_word(""), "");
        assert_eq!(first_word("    "), "");
        assert_eq!(first_word(" x "), "x");
    }
}
