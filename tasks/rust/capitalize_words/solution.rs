pub fn capitalize_words(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => {
                    first.to_uppercase().chain(chars.flat_map(char::to_lowercase)).collect()
                }
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}
