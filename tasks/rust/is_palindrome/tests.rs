#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence() {
        assert!(is_palindrome("A man, a plan, a canal: Panama"));
    }

    #[test]
    fn not_palindrome() {
        assert!(!is_palindrome("rusty"));
    }

    #[test]
    fn empty() {
        assert!(is_palindrome(""));
    }
}
