#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_each() {
        assert_eq!(double_all(&[1, -2, 3]), vec![2, -4, 6]);
    }

    #[test]
    fn empty() {
        assert_eq!(double_all(&[]), Vec::<i32>::new());
        assert_eq!(double_all(&[7]), vec![14]);
    }

    #[test]
    fn keeps_length_and_order() {
        assert_eq!(double_all(&[5, 0, 5, 1]), vec![10, 0, 10, 2]);
    }
}
