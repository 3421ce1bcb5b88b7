#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_is_longer() {
        assert_eq!(longest("apple", "fig"), "apple");
    }

    #[test]
    fn second_is_longer() {
        assert_eq!(longest("ox", "zebra"), "zebra");
    }

    #[test]
    fn tie_returns_first() {
        assert_eq!(longest("cat", "dog"), "cat");
        assert_eq!(longest("", ""), "");
    }

    #[test]
    fn works_with_owned_strings() {
        let owned = String::from("borrowed");
        let result = longest(owned.as_str(), "short");
        assert_eq!(result, "borrowed");
    }
}
