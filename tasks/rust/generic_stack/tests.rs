#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifo_order() {
        let mut s = Stack::new();
        s.push(1);
        s.push(2);
        assert_eq!(s.pop(), Some(2));
        assert_eq!(s.pop(), Some(1));
        assert_eq!(s.pop(), None);
    }

    #[test]
    fn peek_does_not_remove() {
        let mut s = Stack::new();
        s.push("a".to_string());
        assert_eq!(s.peek().map(String::as_str), Some("a"));
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn empty() {
        let s: Stack<u8> = Stack::new();
        assert_eq!(s.is_empty(), true);
        assert_eq!(s.peek(), None);
    }
}
