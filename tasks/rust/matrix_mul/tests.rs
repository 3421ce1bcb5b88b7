#[cfg(test)]
mod tests {
    use super::*;

    /// Rows, columns and every cell in row-major order: what the task pins of a Matrix (its fields
    /// and their Debug output are the solution's own).
    fn cells(m: &Matrix) -> (usize, usize, Vec<Option<i64>>) {
        let all = (0..m.rows()).flat_map(|r| (0..m.cols()).map(move |c| m.get(r, c))).collect();
        (m.rows(), m.cols(), all)
    }

    #[test]
    fn new_checks_size() {
        assert_eq!(Matrix::new(2, 2, vec![1, 2, 3]).is_none(), true);
        let m = Matrix::new(2, 3, vec![1, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!((m.rows(), m.cols()), (2, 3));
    }

    #[test]
    fn get_is_row_major() {
        let m = Matrix::new(2, 3, vec![1, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(m.get(0, 2), Some(3));
        assert_eq!(m.get(1, 0), Some(4));
        assert_eq!(m.get(2, 0), None);
        assert_eq!(m.get(0, 3), None);
    }

    #[test]
    fn product() {
        let a = Matrix::new(2, 3, vec![1, 2, 3, 4, 5, 6]).unwrap();
        let b = Matrix::new(3, 2, vec![7, 8, 9, 10, 11, 12]).unwrap();
        assert_eq!((a * b).as_ref().map(cells), Some((2, 2, vec![Some(58), Some(64), Some(139), Some(154)])));
    }

    #[test]
    fn identity_is_neutral() {
        let m = Matrix::new(2, 2, vec![3, -1, 0, 2]).unwrap();
        assert_eq!(Matrix::identity(2).get(1, 1), Some(1));
        assert_eq!(Matrix::identity(2).get(0, 1), Some(0));
        assert_eq!((Matrix::identity(2) * m.clone()).as_ref().map(cells), Some(cells(&m)));
    }

    #[test]
    fn mismatched_dimensions() {
        let a = Matrix::new(2, 3, vec![0; 6]).unwrap();
        assert_eq!(a.clone() * a, None);
    }
}
