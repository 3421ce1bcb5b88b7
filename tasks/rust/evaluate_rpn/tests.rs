#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example() {
        assert_eq!(evaluate_rpn("3 4 + 2 *"), Ok(14));
    }

    #[test]
    fn truncating_division() {
        assert_eq!(evaluate_rpn("7 -2 /"), Ok(-3));
    }

    #[test]
    fn errors() {
        assert_eq!(evaluate_rpn("1 +").is_err(), true);
        assert_eq!(evaluate_rpn("1 2").is_err(), true);
        assert_eq!(evaluate_rpn("1 0 /").is_err(), true);
        assert_eq!(evaluate_rpn("1 x +").is_err(), true);
    }

    #[test]
    fn overflow_is_error() {
        assert_eq!(evaluate_rpn("9223372036854775807 1 +").is_err(), true);
    }
}
