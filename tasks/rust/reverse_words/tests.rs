#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple() {
        assert_eq!(reverse_words("hello world"), "world hello");
    }

    #[test]
    fn extra_whitespace() {
        assert_eq!(reverse_words("  hello   big\tworld "), "world big hello");
    }

    #[test]
    fn empty() {
        assert_eq!(reverse_words(""), "");
        assert_eq!(reverse_words("one"), "one");
    }
}
