pub fn transpose(matrix: &[Vec<i32>]) -> Option<Vec<Vec<i32>>> {
    let width = matrix.first().map_or(0, Vec::len);
    if matrix.iter().any(|row| row.len() != width) {
        return None;
    }
    Some((0..width).map(|i| matrix.iter().map(|row| row[i]).collect()).collect())
}
