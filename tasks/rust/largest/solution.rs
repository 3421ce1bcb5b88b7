pub fn largest(numbers: &[i32]) -> Option<i32> {
    numbers.iter().copied().max()
}
