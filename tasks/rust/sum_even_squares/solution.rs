pub fn sum_even_squares(numbers: &[i32]) -> i64 {
    numbers
        .iter()
        .filter(|&&n| n % 2 == 0)
        .map(|&n| i64::from(n) * i64::from(n))
        .sum()
}
