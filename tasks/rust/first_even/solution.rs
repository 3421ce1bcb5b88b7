pub fn first_even(values: &[i64]) -> Option<i64> {
    values.iter().find(|v| *v % 2 == 0).copied()
}
