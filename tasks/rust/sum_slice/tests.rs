#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty() {
        assert_eq!(sum_slice(&[]), 0);
        assert_eq!(sum_slice(&[7]), 7);
    }

    #[test]
    fn several() {
        assert_eq!(sum_slice(&[1, 2, 3, 4]), 10);
    }

    #[test]
    fn negatives() {
        assert_eq!(sum_slice(&[-5, 5, -1]), -1);
    }
}
