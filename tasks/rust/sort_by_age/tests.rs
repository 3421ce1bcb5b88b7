#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str, age: u32) -> Person {
        Person { name: name.to_string(), age }
    }

    fn names(people: &[Person]) -> Vec<&str> {
        people.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn youngest_first() {
        let mut people = vec![person("Ann", 40), person("Bo", 9), person("Cy", 25)];
        sort_by_age(&mut people);
        assert_eq!(names(&people), vec!["Bo", "Cy", "Ann"]);
    }

    #[test]
    fn ties_by_name() {
        let mut people = vec![person("Zoe", 30), person("Max", 30), person("Eve", 20)];
        sort_by_age(&mut people);
        assert_eq!(names(&people), vec!["Eve", "Max", "Zoe"]);
    }

    #[test]
    fn empty_slice() {
        let mut people: Vec<Person> = Vec::new();
        sort_by_age(&mut people);
        assert_eq!(names(&people), Vec::<&str>::new());
        let mut pair = vec![person("Old", 70), person("New", 1)];
        sort_by_age(&mut pair);
        assert_eq!(names(&pair), vec!["New", "Old"]);
    }
}
