#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_trims() {
        assert_eq!(
            " Alice ,  30 ".parse::<Employee>(),
            Ok(Employee { name: "Alice".to_string(), age: 30 })
        );
    }

    #[test]
    fn missing_comma() {
        assert_eq!("Bob 41".parse::<Employee>(), Err(EmployeeError::MissingComma));
    }

    #[test]
    fn empty_name() {
        assert_eq!("  , 20".parse::<Employee>(), Err(EmployeeError::EmptyName));
    }

    #[test]
    fn bad_age() {
        assert_eq!("Cy, old".parse::<Employee>(), Err(EmployeeError::BadAge("old".to_string())));
        assert_eq!("Cy, -3".parse::<Employee>(), Err(EmployeeError::BadAge("-3".to_string())));
    }

    #[test]
    fn display_mentions_bad_age() {
        assert_eq!(EmployeeError::BadAge("old".to_string()).to_string().contains("old"), true);
    }
}
