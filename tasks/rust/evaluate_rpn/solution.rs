pub fn evaluate_rpn(expression: &str) -> Result<i64, String> {
    let mut stack: Vec<i64> = Vec::new();
    for token in expression.split_whitespace() {
        let op: Option<fn(i64, i64) -> Option<i64>> = match token {
            "+" => Some(i64::checked_add),
            "-" => Some(i64::checked_sub),
            "*" => Some(i64::checked_mul),
            "/" => Some(i64::checked_div),
            _ => None,
        };
        match op {
            Some(apply) => {
                let b = stack.pop().ok_or("not enough operands")?;
                let a = stack.pop().ok_or("not enough operands")?;
                stack.push(apply(a, b).ok_or(format!("cannot compute {a} {token} {b}"))?);
            }
            None => stack.push(token.parse().map_err(|_| format!("unknown token {token:?}"))?),
        }
    }
    match stack.as_slice() {
        [value] => Ok(*value),
        _ => Err("expression does not reduce to one value".to_string()),
    }
}
