#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested() {
        assert!(balanced_brackets("f(a[1]) {x}"));
    }

    #[test]
    fn crossed() {
        assert!(!balanced_brackets("([)]"));
    }

    #[test]
    fn unclosed_and_extra() {
        assert!(!balanced_brackets("(("));
        assert!(!balanced_brackets("())"));
    }

    #[test]
    fn empty() {
        assert!(balanced_brackets(""));
    }
}
