#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_ten() {
        let got: Vec<u64> = Fibonacci::new().take(10).collect();
        assert_eq!(got, vec![0, 1, 1, 2, 3, 5, 8, 13, 21, 34]);
    }

    #[test]
    fn stops_before_overflow() {
        assert_eq!(Fibonacci::new().count(), 94);
    }

    #[test]
    fn last_value_is_largest_u64_fibonacci() {
        assert_eq!(Fibonacci::new().last(), Some(12200160415121876738));
    }
}
