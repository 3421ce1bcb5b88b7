pub fn is_even(n: i64) -> bool {
    n % 2 == 0
}
