#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_duplicate() {
        assert!(contains_duplicate(&[1, 2, 3, 2]));
    }

    #[test]
    fn all_distinct() {
        assert!(!contains_duplicate(&[4, 5, 6]));
    }

    #[test]
    fn empty_and_single() {
        assert!(!contains_duplicate::<i32>(&[]));
        assert!(!contains_duplicate(&['x']));
    }

    #[test]
    fn works_for_strings() {
        assert!(contains_duplicate(&["a", "b", "a"]));
        assert!(!contains_duplicate(&[String::from("a"), String::from("A")]));
    }
}
