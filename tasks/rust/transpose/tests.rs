#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangle() {
        assert_eq!(
            transpose(&[vec![1, 2, 3], vec![4, 5, 6]]),
            Some(vec![vec![1, 4], vec![2, 5], vec![3, 6]])
        );
    }

    #[test]
    fn empty() {
        assert_eq!(transpose(&[]), Some(vec![]));
    }

    #[test]
    fn ragged() {
        assert_eq!(transpose(&[vec![1, 2], vec![3]]), None);
        assert_eq!(transpose(&[vec![1], vec![2]]), Some(vec![vec![1, 2]]));
    }
}
