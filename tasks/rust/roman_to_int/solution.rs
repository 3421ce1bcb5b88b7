fn digit(c: char) -> Result<u32, String> {
    Ok(match c {
        'I' => 1,
        'V' => 5,
        'X' => 10,
        'L' => 50,
        'C' => 100,
        'D' => 500,
        'M' => 1000,
        other => return Err(format!("{other:?} is not a Roman digit")),
    })
}

pub fn roman_to_int(numeral: &str) -> Result<u32, String> {
    if numeral.is_empty() {
        return Err("empty numeral".to_string());
    }
    let values = numeral.chars().map(digit).collect::<Result<Vec<u32>, String>>()?;
    let mut total = 0;
    for (i, &value) in values.iter().enumerate() {
        match values.get(i + 1) {
            Some(&next) if next > value => total -= value as i64,
            _ => total += value as i64,
        }
    }
    Ok(total as u32)
}
