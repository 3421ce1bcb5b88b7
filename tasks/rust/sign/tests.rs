#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative() {
        assert_eq!(sign(-7), Sign::Negative);
        assert_eq!(sign(i32::MIN), Sign::Negative);
    }

    #[test]
    fn zero() {
        assert_eq!(sign(0), Sign::Zero);
    }

    #[test]
    fn positive() {
        assert_eq!(sign(1), Sign::Positive);
        assert_eq!(sign(i32::MAX), Sign::Positive);
    }
}
