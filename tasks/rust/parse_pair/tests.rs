#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_pair() {
        assert_eq!(parse_pair("3,4"), Ok((3, 4)));
    }

    #[test]
    fn whitespace_and_negatives() {
        assert_eq!(parse_pair(" 3 , -4 "), Ok((3, -4)));
    }

    #[test]
    fn missing_comma() {
        assert_eq!(parse_pair("3;4").is_err(), true);
        assert_eq!(parse_pair("").is_err(), true);
    }

    #[test]
    fn bad_numbers() {
        assert_eq!(parse_pair("a,4").is_err(), true);
        assert_eq!(parse_pair("3,").is_err(), true);
        assert_eq!(parse_pair("1,2,3").is_err(), true);
    }
}
