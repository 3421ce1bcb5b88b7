#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first() {
        assert_eq!(first_even(&[3, 5, 8, 10]), Some(8));
    }

    #[test]
    fn negative_even() {
        assert_eq!(first_even(&[1, -4, 2]), Some(-4));
    }

    #[test]
    fn none_when_all_odd() {
        assert_eq!(first_even(&[1, 3, 5]), None);
        assert_eq!(first_even(&[1, 3, 6]), Some(6));
    }

    #[test]
    fn none_when_empty() {
        assert_eq!(first_even(&[]), None);
        assert_eq!(first_even(&[0]), Some(0));
    }
}
