pub fn double_all(numbers: &[i32]) -> Vec<i32> {
    numbers.iter().map(|n| n * 2).collect()
}
