#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved() {
        assert_eq!(merge_sorted(&[1, 4, 9], &[2, 4, 10, 11]), vec![1, 2, 4, 4, 9, 10, 11]);
    }

    #[test]
    fn one_side_empty() {
        assert_eq!(merge_sorted(&[], &[1, 2]), vec![1, 2]);
        assert_eq!(merge_sorted(&[3], &[]), vec![3]);
    }

    #[test]
    fn both_empty() {
        assert_eq!(merge_sorted(&[], &[]), Vec::<i32>::new());
        assert_eq!(merge_sorted(&[2], &[1]), vec![1, 2]);
    }

    #[test]
    fn negatives_and_all_before() {
        assert_eq!(merge_sorted(&[-5, -1], &[0, 7]), vec![-5, -1, 0, 7]);
        assert_eq!(merge_sorted(&[8, 9], &[1, 2]), vec![1, 2, 8, 9]);
    }
}
