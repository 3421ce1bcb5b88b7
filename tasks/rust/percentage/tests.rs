#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_range() {
        assert_eq!(Percentage::try_from(42).map(Percentage::value), Ok(42));
        assert_eq!(Percentage::try_from(0).map(Percentage::value), Ok(0));
        assert_eq!(Percentage::try_from(100).map(Percentage::value), Ok(100));
    }

    #[test]
    fn negative() {
        assert_eq!(Percentage::try_from(-5), Err(PercentageError::Negative(-5)));
    }

    #[test]
    fn too_large() {
        let result: Result<Percentage, _> = 101.try_into();
        assert_eq!(result, Err(PercentageError::TooLarge(101)));
    }

    #[test]
    fn error_display_and_trait() {
        let err: Box<dyn std::error::Error> = Box::new(PercentageError::TooLarge(150));
        assert_eq!(err.to_string().contains("150"), true);
        assert_eq!(PercentageError::Negative(-7).to_string().contains("-7"), true);
    }
}
