pub fn checked_divide(a: i32, b: i32) -> Option<i32> {
    a.checked_div(b)
}
