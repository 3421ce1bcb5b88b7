pub fn parse_or_default(text: &str, default: i32) -> i32 {
    text.trim().parse().unwrap_or(default)
}
