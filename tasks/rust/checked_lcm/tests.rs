#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcd_values() {
        assert_eq!(gcd(48, 18), 6);
        assert_eq!(gcd(0, 5), 5);
        assert_eq!(gcd(0, 0), 0);
    }

    #[test]
    fn lcm_values() {
        assert_eq!(checked_lcm(4, 6), Some(12));
        assert_eq!(checked_lcm(0, 6), Some(0));
    }

    #[test]
    fn lcm_overflow() {
        assert_eq!(checked_lcm(u64::MAX, u64::MAX - 1), None);
        assert_eq!(checked_lcm(u64::MAX, 1), Some(u64::MAX));
    }
}
