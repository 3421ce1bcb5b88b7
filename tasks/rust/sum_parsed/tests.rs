#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_valid_numbers() {
        assert_eq!(sum_parsed(&["1", "20", "-3"]), Ok(18));
    }

    #[test]
    fn empty_is_zero() {
        assert_eq!(sum_parsed(&[]), Ok(0));
    }

    #[test]
    fn bad_item_is_error() {
        assert_eq!(sum_parsed(&["1", "x", "3"]), Err("x".parse::<i64>().unwrap_err()));
    }

    #[test]
    fn error_is_the_parse_error() {
        let expected = "x".parse::<i64>().unwrap_err();
        assert_eq!(sum_parsed(&["x"]), Err(expected));
    }
}
