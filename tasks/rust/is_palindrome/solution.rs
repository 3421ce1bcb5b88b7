pub fn is_palindrome(text: &str) -> bool {
    let chars: Vec<char> = text
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    chars.iter().eq(chars.iter().rev())
}
