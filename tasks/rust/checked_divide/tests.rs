#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal() {
        assert_eq!(checked_divide(7, 2), Some(3));
    }

    #[test]
    fn truncates_toward_zero() {
        assert_eq!(checked_divide(-7, 2), Some(-3));
    }

    #[test]
    fn by_zero() {
        assert_eq!(checked_divide(1, 0), None);
        assert_eq!(checked_divide(0, 5), Some(0));
    }

    #[test]
    fn overflow() {
        assert_eq!(checked_divide(i32::MIN, -1), None);
        assert_eq!(checked_divide(i32::MIN, 1), Some(i32::MIN));
    }
}
