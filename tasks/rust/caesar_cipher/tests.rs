#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example() {
        assert_eq!(caesar_cipher("Hello, World!", 3), "Khoor, Zruog!");
    }

    #[test]
    fn wraps() {
        assert_eq!(caesar_cipher("xyz", 3), "abc");
    }

    #[test]
    fn negative_shift() {
        assert_eq!(caesar_cipher("abc", -1), "zab");
    }

    #[test]
    fn non_ascii_untouched() {
        assert_eq!(caesar_cipher("é1", 5), "é1");
    }
}
