pub fn parse_positive(text: &str) -> Result<u32, String> {
    let value: u32 = text
        .trim()
        .parse()
        .map_err(|e| format!("not a positive integer: {text:?} ({e})"))?;
    if value == 0 {
        return Err("zero is not positive".to_string());
    }
    Ok(value)
}
