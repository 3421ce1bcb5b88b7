#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positive() {
        assert_eq!(square(7), 49);
    }

    #[test]
    fn negative() {
        assert_eq!(square(-4), 16);
    }

    #[test]
    fn zero_and_one() {
        assert_eq!(square(0), 0);
        assert_eq!(square(1), 1);
    }

    #[test]
    fn large() {
        assert_eq!(square(3_000_000_000), 9_000_000_000_000_000_000);
    }
}
