#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_numbers() {
        assert!(is_even(0));
        assert!(is_even(2));
        assert!(is_even(1_000_000));
    }

    #[test]
    fn odd_numbers() {
        assert!(!is_even(1));
        assert!(!is_even(7));
    }

    #[test]
    fn negatives() {
        assert!(is_even(-6));
        assert!(!is_even(-3));
    }
}
