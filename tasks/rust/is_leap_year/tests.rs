#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisible_by_four() {
        assert_eq!(is_leap_year(2024), true);
        assert_eq!(is_leap_year(1996), true);
    }

    #[test]
    fn ordinary_years() {
        assert_eq!(is_leap_year(2023), false);
        assert_eq!(is_leap_year(2001), false);
        assert_eq!(is_leap_year(2004), true);
    }

    #[test]
    fn centuries_are_not_leap() {
        assert_eq!(is_leap_year(1900), false);
        assert_eq!(is_leap_year(2100), false);
        assert_eq!(is_leap_year(1904), true);
    }

    #[test]
    fn every_fourth_century_is_leap() {
        assert_eq!(is_leap_year(2000), true);
        assert_eq!(is_leap_year(1600), true);
    }
}
