#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_numbers() {
        assert_eq!(parse_or_default("42", 0), 42);
        assert_eq!(parse_or_default("-17", 0), -17);
    }

    #[test]
    fn trims_whitespace() {
        assert_eq!(parse_or_default("  8\n", 0), 8);
    }

    #[test]
    fn invalid_gives_default() {
        assert_eq!(parse_or_default("abc", -1), -1);
        assert_eq!(parse_or_default("", 5), 5);
        assert_eq!(parse_or_default("3.5", 9), 9);
    }

    #[test]
    fn overflow_gives_default() {
        assert_eq!(parse_or_default("99999999999", 7), 7);
    }
}
