#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sounds() {
        assert_eq!(Dog { name: "Rex".to_string() }.sound(), "woof");
        assert_eq!(Cow { name: "Daisy".to_string() }.sound(), "moo");
    }

    #[test]
    fn names() {
        assert_eq!(Dog { name: "Rex".to_string() }.name(), "Rex");
    }

    #[test]
    fn speak_uses_default() {
        assert_eq!(Dog { name: "Rex".to_string() }.speak(), "Rex says woof");
        assert_eq!(Cow { name: "Daisy".to_string() }.speak(), "Daisy says moo");
    }

    #[test]
    fn trait_objects() {
        let animals: Vec<Box<dyn Animal>> =
            vec![Box::new(Cow { name: "A".to_string() }), Box::new(Dog { name: "B".to_string() })];
        let lines: Vec<String> = animals.iter().map(|a| a.speak()).collect();
        assert_eq!(lines, vec!["A says moo", "B says woof"]);
    }
}
