pub fn parse_pair(text: &str) -> Result<(i32, i32), String> {
    let (left, right) = text.split_once(',').ok_or_else(|| format!("missing comma in {text:?}"))?;
    let x = left.trim().parse::<i32>().map_err(|e| format!("bad x {left:?}: {e}"))?;
    let y = right.trim().parse::<i32>().map_err(|e| format!("bad y {right:?}: {e}"))?;
    Ok((x, y))
}
