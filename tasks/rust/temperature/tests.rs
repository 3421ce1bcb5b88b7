#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boiling() {
        assert_eq!(Temperature::Celsius(100.0).to_fahrenheit(), 212.0);
    }

    #[test]
    fn freezing() {
        assert_eq!(Temperature::Fahrenheit(32.0).to_celsius() + 0.0, 0.0); // (-0.0 + 0.0 is 0.0: a -0.0 answer is right too)
        assert_eq!(Temperature::Fahrenheit(50.0).to_celsius(), 10.0);
    }

    #[test]
    fn identity() {
        assert_eq!(Temperature::Celsius(-40.0).to_celsius(), -40.0);
        assert_eq!(Temperature::Celsius(-40.0).to_fahrenheit(), -40.0);
    }
}
