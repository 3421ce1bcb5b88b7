#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii() {
        assert_eq!(char_at("abc", 0), Some('a'));
        assert_eq!(char_at("abc", 2), Some('c'));
    }

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(char_at("héllo", 1), Some('é'));
        assert_eq!(char_at("héllo", 2), Some('l'));
    }

    #[test]
    fn out_of_range() {
        assert_eq!(char_at("abc", 3), None);
        assert_eq!(char_at("", 0), None);
        assert_eq!(char_at("abc", 1), Some('b'));
    }
}
