#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values() {
        assert_eq!(factorial(1), 1);
        assert_eq!(factorial(5), 120);
    }

    #[test]
    fn zero() {
        assert_eq!(factorial(0), 1);
    }

    #[test]
    fn twenty_fits() {
        assert_eq!(factorial(20), 2_432_902_008_176_640_000);
    }
}
