#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(count_matching(&[1, 5, 8, 12], |n| *n > 4), 3);
    }

    #[test]
    fn strings() {
        let words = ["apple", "kiwi", "avocado"];
        assert_eq!(count_matching(&words, |w| w.starts_with('a')), 2);
    }

    #[test]
    fn none_match_or_empty() {
        assert_eq!(count_matching(&[1, 3, 5], |n| n % 2 == 0), 0);
        assert_eq!(count_matching::<i32, _>(&[], |_| true), 0);
        assert_eq!(count_matching(&[2, 3, 4], |n| n % 2 == 0), 2);
    }

    #[test]
    fn closure_captures() {
        let limit = 10;
        assert_eq!(count_matching(&[9, 10, 11], |n| *n >= limit), 2);
    }
}
