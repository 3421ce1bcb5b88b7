#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence() {
        assert_eq!(is_palindrome("A man, a plan, a canal: Panama"), true);
    }

    #[test]
    fn not_palindrome() {
        assert_eq!(is_palindrome("rusty"), false);
        assert_eq!(is_palindrome("Never odd or even"), true);
    }

    #[test]
    fn empty() {
        assert_eq!(is_palindrome(""), true);
    }
}
