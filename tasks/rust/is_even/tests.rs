#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_numbers() {
        assert_eq!(is_even(0), true);
        assert_eq!(is_even(2), true);
        assert_eq!(is_even(1_000_000), true);
    }

    #[test]
    fn odd_numbers() {
        assert_eq!(is_even(1), false);
        assert_eq!(is_even(7), false);
        assert_eq!(is_even(8), true);
    }

    #[test]
    fn negatives() {
        assert_eq!(is_even(-6), true);
        assert_eq!(is_even(-3), false);
    }
}
