pub fn sum_slice(numbers: &[i64]) -> i64 {
    numbers.iter().sum()
}
