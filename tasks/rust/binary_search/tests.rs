#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found() {
        assert_eq!(binary_search(&[1, 3, 5, 7], 5), Some(2));
    }

    #[test]
    fn missing() {
        assert_eq!(binary_search(&[1, 3, 5, 7], 4), None);
        assert_eq!(binary_search(&[1, 3, 5, 7], 0), None);
        assert_eq!(binary_search(&[1, 3, 5, 7], 7), Some(3));
    }

    #[test]
    fn empty() {
        assert_eq!(binary_search(&[], 1), None);
        assert_eq!(binary_search(&[1], 1), Some(0));
    }

    #[test]
    fn ends() {
        let items: Vec<i32> = (0..100).map(|x| x * 2).collect();
        assert_eq!(binary_search(&items, 0), Some(0));
        assert_eq!(binary_search(&items, 198), Some(99));
    }
}
