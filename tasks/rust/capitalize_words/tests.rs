#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_words() {
        assert_eq!(capitalize_words("hello wORLD"), "Hello World");
    }

    #[test]
    fn single_letters() {
        assert_eq!(capitalize_words("a b c"), "A B C");
    }

    #[test]
    fn empty() {
        assert_eq!(capitalize_words(""), "");
        assert_eq!(capitalize_words("x"), "X");
    }

    #[test]
    fn non_letters_unchanged() {
        assert_eq!(capitalize_words("42 apples"), "42 Apples");
    }
}
