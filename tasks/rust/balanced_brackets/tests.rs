#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_balanced() {
        assert_eq!(balanced_brackets(""), true);
    }

    #[test]
    fn nested() {
        assert_eq!(balanced_brackets("f(a[1]) {x}"), true);
    }

    #[test]
    fn crossed() {
        assert_eq!(balanced_brackets("([)]"), false);
        assert_eq!(balanced_brackets("[()]"), true);
    }

    #[test]
    fn unclosed_and_extra() {
        assert_eq!(balanced_brackets("(("), false);
        assert_eq!(balanced_brackets("())"), false);
        assert_eq!(balanced_brackets("(())"), true);
    }
}
