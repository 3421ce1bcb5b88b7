#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_frequent_first() {
        assert_eq!(top_k_frequent(&[4, 1, 4, 2, 2, 4, 3], 2), vec![4, 2]);
    }

    #[test]
    fn ties_smallest_first() {
        assert_eq!(top_k_frequent(&[5, 3, 9, 3, 5, 9], 3), vec![3, 5, 9]);
        assert_eq!(top_k_frequent(&[7, -1, 7, -1, 0], 1), vec![-1]);
    }

    #[test]
    fn k_larger_than_distinct() {
        assert_eq!(top_k_frequent(&[2, 2, 1], 10), vec![2, 1]);
    }

    #[test]
    fn empty_or_zero_k() {
        assert_eq!(top_k_frequent(&[], 3), Vec::<i32>::new());
        assert_eq!(top_k_frequent(&[1, 2], 0), Vec::<i32>::new());
        assert_eq!(top_k_frequent(&[8], 1), vec![8]);
    }
}
