pub fn count_vowels(text: &str) -> usize {
    text.chars().filter(|c| matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u')).count()
}
