use std::num::ParseIntError;

pub fn sum_parsed(items: &[&str]) -> Result<i64, ParseIntError> {
    let mut total = 0;
    for item in items {
        total += item.parse::<i64>()?;
    }
    Ok(total)
}
