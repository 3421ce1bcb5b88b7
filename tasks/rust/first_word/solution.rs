pub fn first_word(text: &str) -> &str {
    text.split(' ').find(|word| !word.is_empty()).unwrap_or("")
}
