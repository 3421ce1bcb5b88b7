pub fn caesar_cipher(text: &str, shift: i32) -> String {
    let shift = shift.rem_euclid(26) as u8;
    text.chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                let base = if c.is_ascii_lowercase() { b'a' } else { b'A' };
                ((c as u8 - base + shift) % 26 + base) as char
            } else {
                c
            }
        })
        .collect()
}
