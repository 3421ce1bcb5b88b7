#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisible_by_four() {
        assert!(is_leap_year(2024));
        assert!(is_leap_year(1996));
    }

    #[test]
    fn ordinary_years() {
        assert!(!is_leap_year(2023));
        assert!(!is_leap_year(2001));
    }

    #[test]
    fn centuries_are_not_leap() {
        assert!(!is_leap_year(1900));
        assert!(!is_leap_year(2100));
    }

    #[test]
    fn every_fourth_century_is_leap() {
        assert!(is_leap_year(2000));
        assert!(is_leap_year(1600));
    }
}
