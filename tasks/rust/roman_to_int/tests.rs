#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple() {
        assert_eq!(roman_to_int("III"), Ok(3));
    }

    #[test]
    fn subtractive() {
        assert_eq!(roman_to_int("IV"), Ok(4));
        assert_eq!(roman_to_int("XC"), Ok(90));
    }

    #[test]
    fn year() {
        assert_eq!(roman_to_int("MCMXCIV"), Ok(1994));
    }

    #[test]
    fn errors() {
        assert_eq!(roman_to_int("").is_err(), true);
        assert_eq!(roman_to_int("XIZ").is_err(), true);
    }
}
