#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims() {
        assert_eq!(parse_positive(" 42 "), Ok(42));
    }

    #[test]
    fn zero_is_error() {
        assert_eq!(parse_positive("0").is_err(), true);
    }

    #[test]
    fn garbage_is_error() {
        assert_eq!(parse_positive("4x").is_err(), true);
    }

    #[test]
    fn negative_is_error() {
        assert_eq!(parse_positive("-3").is_err(), true);
    }

    #[test]
    fn overflow_is_error() {
        assert_eq!(parse_positive("4294967296").is_err(), true);
    }
}
