#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_skips_comments() {
        let config = parse_config("# ports\nhttp = 80\n\nssh=22\n").unwrap();
        assert_eq!(config.get("http"), Some(&80));
        assert_eq!(config.get("ssh"), Some(&22));
        assert_eq!(config.len(), 2);
    }

    #[test]
    fn missing_equals_has_line_number() {
        assert_eq!(parse_config("a = 1\n\nbroken"), Err(ConfigError::MissingEquals { line: 3 }));
    }

    #[test]
    fn invalid_value() {
        assert_eq!(
            parse_config("port = 70000"),
            Err(ConfigError::InvalidValue { key: "port".to_string(), value: "70000".to_string() })
        );
    }

    #[test]
    fn duplicate_key() {
        assert_eq!(parse_config("a=1\na=2"), Err(ConfigError::DuplicateKey("a".to_string())));
    }

    #[test]
    fn display_and_error_trait() {
        let err: Box<dyn std::error::Error> = Box::new(ConfigError::MissingEquals { line: 3 });
        assert_eq!(err.to_string().contains('3'), true);
    }
}
