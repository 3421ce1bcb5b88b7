pub fn char_at(text: &str, index: usize) -> Option<char> {
    text.chars().nth(index)
}
