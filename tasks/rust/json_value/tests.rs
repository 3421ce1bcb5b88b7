#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars() {
        assert_eq!(Value::Null.to_string(), "null");
        assert_eq!(Value::Bool(false).to_string(), "false");
        assert_eq!(Value::Number(-42).to_string(), "-42");
    }

    #[test]
    fn strings_are_quoted_and_escaped() {
        assert_eq!(Value::Str("hi".to_string()).to_string(), "\"hi\"");
        assert_eq!(Value::Str("a\"b\\c".to_string()).to_string(), r#""a\"b\\c""#);
    }

    #[test]
    fn nested_lists() {
        let value = Value::List(vec![
            Value::Number(1),
            Value::List(vec![Value::Bool(true), Value::List(vec![])]),
            Value::Str("x".to_string()),
        ]);
        assert_eq!(value.to_string(), r#"[1, [true, []], "x"]"#);
    }

    #[test]
    fn depth() {
        assert_eq!(Value::Number(3).depth(), 0);
        assert_eq!(Value::List(vec![]).depth(), 1);
        let nested = Value::List(vec![Value::Null, Value::List(vec![Value::List(vec![])])]);
        assert_eq!(nested.depth(), 3);
    }
}
