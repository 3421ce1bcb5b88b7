#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_duplicate() {
        assert_eq!(contains_duplicate(&[1, 2, 3, 2]), true);
    }

    #[test]
    fn all_distinct() {
        assert_eq!(contains_duplicate(&[4, 5, 6]), false);
        assert_eq!(contains_duplicate(&[6, 5, 6]), true);
    }

    #[test]
    fn empty_and_single() {
        assert_eq!(contains_duplicate::<i32>(&[]), false);
        assert_eq!(contains_duplicate(&['x']), false);
        assert_eq!(contains_duplicate(&['x', 'x']), true);
    }

    #[test]
    fn works_for_strings() {
        assert_eq!(contains_duplicate(&["a", "b", "a"]), true);
        assert_eq!(contains_duplicate(&[String::from("a"), String::from("A")]), false);
    }
}
