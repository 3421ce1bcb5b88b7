#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example() {
        assert_eq!(sum_even_squares(&[1, 2, 3, 4]), 20);
    }

    #[test]
    fn negatives_and_empty() {
        assert_eq!(sum_even_squares(&[-2, -3]), 4);
        assert_eq!(sum_even_squares(&[]), 0);
    }

    #[test]
    fn no_overflow() {
        assert_eq!(sum_even_squares(&[100_000, 100_000]), 20_000_000_000);
    }
}
